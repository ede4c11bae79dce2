"""The Runs list's "Export scalars to CSV…": every selected run's scalars in one file, written on a worker thread
(explorer.core.runs.export.export_runs_csv), long or wide."""

from __future__ import annotations

from PySide6.QtWidgets import QFileDialog, QMessageBox

from explorer.ui.shell.file_dialogs import EXPORT_KIND, dialog_path, remember_folder
from explorer.ui.shell.tasks import run_in_thread

__all__ = ["CSV_FILTERS", "RunExportActions"]

CSV_FILTERS = ("Long CSV: run, step, name, value (*.csv)", "Wide CSV: one row per run and step (*.csv)")


class RunExportActions:
    """A mixin of the Runs panel (it supplies ``_selected_states()`` and the ``message`` signal)."""

    def export_csv_selected(self, path: str | None = None, wide: bool | None = None) -> bool:
        """Every selected run's scalars in one CSV (core.runs.export.export_runs_csv, on a worker thread):
        long (run, step, name, value) or wide (one row per run and step); asks where (and which) when
        ``path`` is None. Returns whether an export was started."""
        folders = [str(s.path) for s in self._selected_states() if s.path is not None]
        if not folders:
            self.message.emit("Select the runs to export first")
            return False
        if path is None:
            path, chosen = QFileDialog.getSaveFileName(self, "Export the selected runs' scalars",
                                                       dialog_path(EXPORT_KIND, "runs.csv"), ";;".join(CSV_FILTERS))
            if not path:
                return False
            remember_folder(EXPORT_KIND, path)
            wide = chosen == CSV_FILTERS[1] if wide is None else wide
        from explorer.core.runs.export import export_runs_csv

        def done(counts) -> None:
            rows, runs = counts
            self.message.emit(f"Wrote {rows} rows of {runs} run{'s' if runs != 1 else ''} to {path}")

        run_in_thread(export_runs_csv, folders, path, wide=bool(wide), on_done=done, owner=self,
                      on_error=lambda msg, _tb: QMessageBox.warning(self, "Export scalars", f"{path}: {msg}"))
        return True

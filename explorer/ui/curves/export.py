"""Export of the Curves panel: the plot grid as PNG, every shown point as CSV (mixed into CurvesPanel)."""

from __future__ import annotations

from pathlib import Path

from explorer.ui.curves.toolbar import write_curves_csv
from explorer.ui.shell.file_dialogs import EXPORT_KIND, save_file
from explorer.ui.shell.tasks import run_in_thread


class CurvesExport:
    """Needs ``self.grid_host``, ``self.runs``, ``self.status_message``, ``self.plots_built``, ``self.redraw_now``,
    ``self.model`` (CurvesPanel has them)."""

    def export_png(self, path: str | Path) -> bool:
        """The plot grid as it is shown (all plots, also those scrolled out of view)."""
        if not self.plots_built():   # never shown and no runs yet: the (empty) plots as the page would show them
            self.redraw_now()
        return self.grid_host.grab().save(str(path))

    def csv_rows(self) -> list[tuple[str, str, list, list]]:
        return [(s.run_id, key, ser.x.copy(), ser.y.copy())
                for s in self.runs for key, ser in s.series.items() if len(ser)]

    def export_csv(self, path: str | Path, on_done=None) -> None:
        """Write run_id,series,step,value rows on a worker thread (large runs take a moment); with the x axis by
        epoch or examples seen, a column of that unit too (write_curves_csv)."""
        rows = self.csv_rows()
        axis = self.model.x_axis()

        def done(n: int) -> None:
            self.status_message.emit(f"Wrote {n:,} points to {path}")
            if on_done:
                on_done(n)

        run_in_thread(write_curves_csv, path, rows, axis.unit, dict(axis.factors), on_done=done, owner=self,
                      on_error=lambda msg, _tb: self.status_message.emit(f"CSV export failed: {msg}"))

    def _ask_png(self) -> None:
        path = save_file(self, "Export curves as PNG", EXPORT_KIND, "curves.png", "PNG images (*.png)")
        if path:
            ok = self.export_png(path)
            self.status_message.emit(f"Saved {path}" if ok else f"Could not write {path}")

    def _ask_csv(self) -> None:
        path = save_file(self, "Export curves as CSV", EXPORT_KIND, "curves.csv", "CSV files (*.csv)")
        if path:
            self.export_csv(path)

"""The main window's Predictions pages: one tab per predictions file ("Predictions: <file>"), not a registry page.

A page opens for a predict result or a file; it is opened again at the next start (the settings) until its tab is
closed with the × on it; a file gone or no longer readable is skipped and forgotten, with a note in the status bar.
"Fine-tune on reviewed rows" on a page fills the launcher and shows it.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QTabBar, QToolButton

__all__ = ["PredictionsTabs"]


class PredictionsTabs:
    """The Predictions pages of ``window`` (a MainWindow: its ``tabs``, ``launcher``, ``settings`` and
    ``show_message``)."""

    def __init__(self, window):
        self.window = window

    def open(self, summary_or_path, *, show: bool = True):
        """A new Predictions page for a predict result (its summary dict) or a predictions file path, brought to
        the front unless ``show`` is False; the file is opened again at the next start until its page is closed.
        Raises what PredictionsView.open raises for a file it cannot read."""
        from explorer.ui.inspectors.predictions_view import PredictionsView, fill_launcher

        w = self.window
        summary = summary_or_path if isinstance(summary_or_path, dict) else None
        path = summary["out"] if summary else str(summary_or_path)
        page = PredictionsView(w)
        page.open(path, summary)
        page.message.connect(w.show_message)

        def finetune(fields, note):
            fill_launcher(w.launcher, fields, note)
            w.tabs.setCurrentWidget(w.launcher)
        page.finetune_requested.connect(finetune)
        index = w.tabs.addTab(page, f"Predictions: {Path(path).name}")
        w.tabs.setTabToolTip(index, str(path))
        close = QToolButton()
        close.setText("×")
        close.setAutoRaise(True)
        close.setToolTip(f"Close this page (the file stays: {path})")
        page.predictions_path = str(path)
        close.clicked.connect(lambda: self.close(page))
        w.tabs.tabBar().setTabButton(index, QTabBar.ButtonPosition.RightSide, close)
        w.settings.add_predictions_page(path)
        if show:
            w.tabs.setCurrentWidget(page)
        return page

    def close(self, page) -> None:
        """Close a Predictions page (its review is saved as it changes) and stop opening its file at start."""
        w = self.window
        index = w.tabs.indexOf(page)
        if index < 0:
            return
        w.tabs.removeTab(index)
        w.settings.remove_predictions_page(page.predictions_path)
        page.deleteLater()

    def reopen(self, present: list[str]) -> None:
        """Open again the pages of ``present`` (the files still there), after the first paint and without changing
        the current tab; a file no longer readable is skipped and forgotten with a note in the status bar."""
        w = self.window

        def reopen() -> None:
            for path in present:
                try:
                    w.open_predictions(path, show=False)
                except Exception as exc:  # noqa: BLE001 - a file changed since: its page is not restored
                    w.settings.remove_predictions_page(path)
                    w.show_message(f"Predictions page not restored: {path}: {exc}", 15000)
        if present:
            QTimer.singleShot(0, w, reopen)

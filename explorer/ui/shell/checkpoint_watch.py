"""The checkpoint opened last in the inspector pages, watched on disk: a run still training (or finishing: its
end-of-run re-scoring) replaces checkpoints/best after it was opened, and the pages would go on showing the
weights they loaded as the run's best. When its save changes (core.runs.layout.checkpoint_stamp), a button in
the status bar says so and opens it again in one click; the pages are not reloaded under the person's hands.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QPushButton

from explorer.core.runs.layout import checkpoint_stamp, run_dir_of
from explorer.ui.shell.offer_button import offer_button

__all__ = ["CheckpointWatch", "changed_text"]

WATCH_MS = 2000   # how often the folder is looked at; a save takes seconds, the Runs list re-reads every 3 s


def changed_text(path: str, step: int) -> str:
    """"checkpoints/best of run-a changed since it was opened (now step 333): Open it again"."""
    folder = Path(path)
    run = run_dir_of(folder)
    where = f"{folder.parent.name}/{folder.name}" + (f" of {run.name}" if run is not None else "")
    now = f" (now step {step:,})" if step >= 0 else ""
    return f"{where} changed since it was opened{now}: Open it again"


class CheckpointWatch(QObject):
    """Watches the checkpoint ``window`` opened last (:meth:`opened`); on a new save, a status-bar button (the
    window's ``statusBar``) whose click calls ``reopen(path)``."""

    def __init__(self, window, reopen):
        super().__init__(window)
        self.window, self.reopen = window, reopen
        self.path: str | None = None
        self.stamp = None
        self.button: QPushButton | None = None
        self.timer = QTimer(self)
        self.timer.setInterval(WATCH_MS)
        self.timer.timeout.connect(self.check)

    def opened(self, path: str) -> None:
        """``path`` is now the checkpoint shown: watch it (a button about the one before goes)."""
        self._drop_button()
        self.path, self.stamp = str(path), checkpoint_stamp(path)
        if self.stamp is None:
            self.timer.stop()   # not a run's checkpoint folder here (a hub id, a remote path): nothing to watch
        else:
            self.timer.start()

    def check(self) -> bool:
        """Whether the watched checkpoint was saved again since it was opened (then the button is shown)."""
        if self.path is None or self.button is not None:
            return False
        now = checkpoint_stamp(self.path)
        if now is None or now == self.stamp:   # None: a save under way, looked at again next time
            return False
        self.timer.stop()
        self.button = offer_button(changed_text(self.path, now[0]),
                                   "The run saved this checkpoint again after the inspector pages loaded it (a better "
                                   "evaluation, or the end-of-run re-scoring): the pages still show the weights they "
                                   "loaded. Click to open the new ones.", "reopen_changed_checkpoint")
        path = self.path
        self.button.clicked.connect(lambda: self._reopen(path))
        self.window.statusBar().addPermanentWidget(self.button)
        return True

    def _reopen(self, path: str) -> None:
        self._drop_button()
        self.reopen(path)

    def _drop_button(self) -> None:
        if self.button is not None:
            self.window.statusBar().removeWidget(self.button)
            self.button.deleteLater()
            self.button = None

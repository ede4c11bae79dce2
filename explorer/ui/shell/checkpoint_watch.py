"""The checkpoint opened last in the inspector pages, watched on disk: a run still training (or finishing: its
end-of-run re-scoring) replaces checkpoints/best after it was opened, and the pages would go on showing the
weights they loaded as the run's best. When its weights change (another step, or the weights files replaced:
core.runs.layout.checkpoint_stamp; a rewrite of checkpoint.json alone for the same step is no change), a button in
the status bar says so and opens it again in one click; the pages are not reloaded under the person's hands. The
button's text is short enough to read whole in a 1280-px window's status bar; its tooltip says the rest.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QPushButton

from explorer.core.runs.layout import checkpoint_stamp, run_dir_of
from explorer.ui.shell.offer_button import offer_button

__all__ = ["CheckpointWatch", "changed_text", "changed_tip"]

WATCH_MS = 2000   # how often the folder is looked at; a save takes seconds, the Runs list re-reads every 3 s


def changed_text(path: str, step: int) -> str:
    """"run-a: best checkpoint is now step 333 · Open it again" (short: the status bar of a 1280-px window)."""
    folder = Path(path)
    run = run_dir_of(folder)
    where = (f"{run.name}: " if run is not None else "") + f"{folder.name} checkpoint"
    now = f"is now step {step:,}" if step >= 0 else "was saved again"
    return f"{where} {now} · Open it again"


def changed_tip(path: str) -> str:
    """The tooltip's sentence: which folder, and why the pages still show the weights they loaded."""
    return (f"{path} holds other weights than those the inspector pages loaded (the run saved it again: a better "
            "evaluation, or the end-of-run re-scoring picked another step): the pages still show the weights they "
            "loaded. Click to open the new ones.")


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
        """Whether the watched checkpoint holds other weights than when it was opened (then the button is shown)."""
        if self.path is None or self.button is not None:
            return False
        now = checkpoint_stamp(self.path)
        if now is None or now == self.stamp:   # None: a save under way, looked at again next time
            return False
        self.timer.stop()
        self.button = offer_button(changed_text(self.path, now[0]), changed_tip(self.path), "reopen_changed_checkpoint")
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

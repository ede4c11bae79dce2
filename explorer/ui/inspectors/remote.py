"""One long job in the inspector child with progress and cancel (:class:`RemoteJob`: ``start``, ``cancel``,
``progress(done, total)``, ``finished``, ``failed``, ``cancelled``), over explorer.ui.inspectors.client.

Nothing runs in the GUI process: the work happens in the child, the replies arrive as signals. Requests of which
only the newest matters are explorer.ui.inspectors.latest.LatestOnly's.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from explorer.core.protocol.frames import REPLY_CANCELLED

from .client import InspectClient

CANCELLED_NOTE = REPLY_CANCELLED   # a page's status line once its job was cancelled: the child's word for it


class RemoteJob(QObject):
    """One long, cancellable job at a time in the child (the τ study)."""

    progress = Signal(int, int)
    finished = Signal(object)
    failed = Signal(str, str)
    cancelled = Signal()

    def __init__(self, client: InspectClient, parent: QObject | None = None):
        super().__init__(parent)
        self.client = client
        self._job = 0
        self.running = False

    def start(self, op: str, data: dict) -> int:
        """Send the job (cancelling a running one first); returns its request id."""
        if self.running:
            self.cancel()
        box: dict = {}
        rid = self.client.request(op, data, on_done=lambda v: self._done(box["id"], v),
                                  on_error=lambda m, tb: self._error(box["id"], m, tb),
                                  on_progress=lambda d, t: box["id"] == self._job and self.progress.emit(d, t))
        box["id"] = self._job = rid
        self.running = True
        return rid

    def cancel(self) -> None:
        """Ask the child to stop the job at its next progress report (the GUI does not wait)."""
        if self.running and self._job:
            self.client.cancel(self._job)

    def _done(self, rid: int, value) -> None:
        if rid == self._job:
            self.running = False
            self.finished.emit(value)

    def _error(self, rid: int, message: str, tb: str) -> None:
        if rid != self._job:
            return
        self.running = False
        if message == REPLY_CANCELLED and not tb:
            self.cancelled.emit()
        else:
            self.failed.emit(message, tb)

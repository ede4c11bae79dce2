"""Requests to the inspector child with the views' semantics (explorer.ui.inspectors.client):

* :class:`RemoteLatest` - only the newest request's outcome is delivered (the API of workers.LatestOnly:
  ``submit``, ``finished(id, value)``, ``failed(id, message, traceback)``, ``busy(bool)``);
* :class:`RemoteJob` - one long job with progress and cancel (the API of workers.CancellableJob:
  ``start``, ``cancel``, ``progress(done, total)``, ``finished``, ``failed``, ``cancelled``).

Both run nothing in the GUI process: the work happens in the child, the replies arrive as signals.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from .client import InspectClient


class RemoteLatest(QObject):
    """One kind of request (a channel, e.g. "qa.probe"); a newer request supersedes older ones."""

    started = Signal(int)
    finished = Signal(int, object)
    failed = Signal(int, str, str)
    busy = Signal(bool)

    def __init__(self, client: InspectClient, channel: str, parent: QObject | None = None):
        super().__init__(parent)
        self.client = client
        self.channel = channel
        self._latest = 0
        self._outstanding = False

    @property
    def latest(self) -> int:
        return self._latest

    @property
    def dropped(self) -> int:
        return self.client.dropped

    def is_current(self, request_id: int) -> bool:
        return request_id == self._latest

    def submit(self, op: str, data: dict | None = None) -> int:
        """Send ``op`` with ``data`` on this channel; returns the request id."""
        box: dict = {}
        rid = self.client.request(op, data, channel=self.channel,
                                  on_done=lambda value: self._done(box["id"], value),
                                  on_error=lambda msg, tb: self._error(box["id"], msg, tb))
        box["id"] = self._latest = rid
        self._set_busy(True)
        self.started.emit(rid)
        return rid

    def cancel(self) -> None:
        """Forget the outstanding request (its reply is dropped)."""
        if self._latest:
            self.client.forget(self._latest)
        self._latest = -1
        self._set_busy(False)

    def _set_busy(self, value: bool) -> None:
        if value != self._outstanding:
            self._outstanding = value
            self.busy.emit(value)

    def _done(self, rid: int, value) -> None:
        if rid != self._latest:
            return
        self._set_busy(False)
        self.finished.emit(rid, value)

    def _error(self, rid: int, message: str, tb: str) -> None:
        if rid != self._latest:
            return
        self._set_busy(False)
        self.failed.emit(rid, message, tb)


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
        if message == "cancelled" and not tb:
            self.cancelled.emit()
        else:
            self.failed.emit(message, tb)

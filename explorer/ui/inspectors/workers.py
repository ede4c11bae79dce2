"""Background work in this process: only the newest request's outcome is delivered (:class:`LatestOnly`),
on explorer.ui.shell.threads.start_worker, the app's one way off the GUI thread. The inspectors' model
work does not use it: it runs in the inspector child process (explorer.ui.inspectors.remote has the same
API over explorer.ui.inspectors.client); LatestOnly serves work of this process (the saliency page used on
its own with a model of this process).

Pattern (one :class:`LatestOnly` per kind of request)::

    self._probe = LatestOnly(pool, parent=self)
    self._probe.finished.connect(self._show)       # (request_id, result), only for the newest request
    self._probe.failed.connect(self._error)        # (request_id, message, traceback)
    request_id = self._probe.submit(probe, loaded, question, passage)

A request that is still queued when a newer one arrives never starts; one that is running
finishes, and its result is dropped. Nothing here blocks the GUI thread.
"""

from __future__ import annotations

import itertools
from typing import Callable

from PySide6.QtCore import QObject, QThreadPool, Signal

from explorer.ui.shell.threads import start_worker

_ids = itertools.count(1)
_SUPERSEDED = object()   # what a request returns when a newer one replaced it before it started


class LatestOnly(QObject):
    """Submit work to a thread pool; only the newest request's outcome is delivered.

    Signals (emitted on the GUI thread):
        started(request_id), finished(request_id, result), failed(request_id, message, traceback),
        busy(bool): True while the newest request is outstanding.
    """

    started = Signal(int)
    finished = Signal(int, object)
    failed = Signal(int, str, str)
    busy = Signal(bool)

    def __init__(self, pool: QThreadPool | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self.pool = pool or QThreadPool.globalInstance()
        self._latest = 0
        self._outstanding = False
        self.dropped = 0  # late results thrown away (for tests and the status line)

    @property
    def latest(self) -> int:
        return self._latest

    def is_current(self, request_id: int) -> bool:
        return request_id == self._latest

    def submit(self, fn: Callable, *args, **kwargs) -> int:
        """Queue fn(*args, **kwargs) on the pool; returns the request id. Supersedes earlier requests."""
        request_id = next(_ids)
        self._latest = request_id
        self._set_busy(True)
        self.started.emit(request_id)

        def job():   # worker thread
            if not self.is_current(request_id):
                return _SUPERSEDED   # superseded while queued: never start
            return fn(*args, **kwargs)

        start_worker(job, pool=self.pool, on_done=lambda result: self._on_done(request_id, result),
                     on_error=lambda msg, tb: self._on_error(request_id, msg, tb))
        return request_id

    def cancel(self) -> None:
        """Forget the outstanding request (its result, if any, is dropped)."""
        self._latest = next(_ids)
        self._set_busy(False)

    def _set_busy(self, value: bool) -> None:
        if value != self._outstanding:
            self._outstanding = value
            self.busy.emit(value)

    def _on_done(self, request_id: int, result: object) -> None:
        if request_id != self._latest or result is _SUPERSEDED:
            self.dropped += 1
            return
        self._set_busy(False)
        self.finished.emit(request_id, result)

    def _on_error(self, request_id: int, message: str, tb: str) -> None:
        if request_id != self._latest:
            self.dropped += 1
            return
        self._set_busy(False)
        self.failed.emit(request_id, message, tb)

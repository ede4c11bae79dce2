"""Background work for the inspectors: only the newest request's outcome is delivered
(:class:`LatestOnly`), and one long job at a time with progress and cancel (:class:`CancellableJob`).
Both run on explorer.ui.threads.start_worker (superqt), the app's one way off the GUI thread.

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
import threading
from typing import Callable

from PySide6.QtCore import QObject, QThreadPool, Signal

from explorer.ui.threads import launch, prepare_worker, start_worker

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


def serial_pool(parent: QObject | None = None) -> QThreadPool:
    """A pool with one thread: model loads and probes run in order on the same model."""
    pool = QThreadPool(parent)
    pool.setMaxThreadCount(1)
    return pool


from explorer.core.errors import Cancelled as JobCancelled  # noqa: E402,F401 - raised in progress after cancel()


class CancellableJob(QObject):
    """One long job at a time with progress and cancel. fn is called as fn(*args, progress=cb, **kwargs);
    cb(done, total) raises JobCancelled after cancel(), which stops fn at its next progress report.

    Signals (GUI thread): progress(done, total), finished(result), failed(message, traceback), cancelled().
    """

    progress = Signal(int, int)
    finished = Signal(object)
    failed = Signal(str, str)
    cancelled = Signal()

    def __init__(self, pool: QThreadPool | None = None, parent: QObject | None = None,
                 cancel_exceptions: tuple = ()):
        super().__init__(parent)
        self.pool = pool or QThreadPool.globalInstance()
        self.cancel_exceptions = cancel_exceptions
        self._job = 0
        self._stop = threading.Event()
        self.running = False

    def start(self, fn: Callable, *args, **kwargs) -> int:
        """Start fn on the pool (cancelling a running job first); returns the job id."""
        if self.running:
            self.cancel()
        job_id = self._job = next(_ids)
        stop = self._stop = threading.Event()
        self.running = True
        box: dict = {}

        def progress(done: int, total: int) -> None:   # worker thread
            if stop.is_set():
                raise JobCancelled()
            box["worker"].report(done, total)

        def job():   # worker thread: a cancelled job returns the stop event itself
            try:
                result = fn(*args, progress=progress, **kwargs)
            except (JobCancelled, *self.cancel_exceptions):
                return stop
            return stop if stop.is_set() else result

        box["worker"] = prepare_worker(
            job, on_done=lambda result: self._on_done(job_id, stop, result),
            on_error=lambda msg, tb: self._on_error(job_id, msg, tb),
            on_progress=lambda d, t: job_id == self._job and self.progress.emit(d, t))
        launch(box["worker"], self.pool)
        return job_id

    def cancel(self) -> None:
        """Ask the running job to stop at its next progress report (the GUI does not wait)."""
        self._stop.set()

    def _on_done(self, job: int, stop: threading.Event, result: object) -> None:
        if job != self._job:
            return
        self.running = False
        if result is stop:
            self.cancelled.emit()
        else:
            self.finished.emit(result)

    def _on_error(self, job: int, message: str, tb: str) -> None:
        if job == self._job:
            self.running = False
            self.failed.emit(message, tb)

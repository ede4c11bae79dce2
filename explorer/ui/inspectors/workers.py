"""Background work for the inspectors: run a function on a QThreadPool, deliver the result on the
GUI thread, and drop results of requests that a newer one has superseded.

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
import traceback
from typing import Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

_ids = itertools.count(1)


class _Relay(QObject):
    """Lives on the GUI thread; the runnable emits through it (queued across threads)."""

    done = Signal(int, object)
    error = Signal(int, str, str)
    progress = Signal(int, int, int)


class _Task(QRunnable):
    def __init__(self, request_id: int, fn: Callable, args, kwargs, relay: _Relay, is_current: Callable[[int], bool]):
        super().__init__()
        self.setAutoDelete(True)
        self.request_id = request_id
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.relay = relay
        self.is_current = is_current

    def run(self) -> None:  # worker thread
        if not self.is_current(self.request_id):
            return  # superseded while queued: never start
        try:
            result = self.fn(*self.args, **self.kwargs)
        except Exception as exc:  # noqa: BLE001 - shown to the user, never raised into Qt
            self.relay.error.emit(self.request_id, f"{type(exc).__name__}: {exc}", traceback.format_exc())
            return
        self.relay.done.emit(self.request_id, result)


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
        self._relay = _Relay(self)
        self._relay.done.connect(self._on_done)
        self._relay.error.connect(self._on_error)
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
        self.pool.start(_Task(request_id, fn, args, kwargs, self._relay, self.is_current))
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
        if request_id != self._latest:
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


class _JobRelay(QObject):
    progress = Signal(int, int, int)
    done = Signal(int, object)
    error = Signal(int, str, str)
    cancelled = Signal(int)


class _JobTask(QRunnable):
    def __init__(self, job_id: int, fn: Callable, args, kwargs, relay: _JobRelay, stop: threading.Event,
                 cancel_exceptions: tuple):
        super().__init__()
        self.setAutoDelete(True)
        self.job_id, self.fn, self.args, self.kwargs = job_id, fn, args, kwargs
        self.relay, self.stop, self.cancel_exceptions = relay, stop, cancel_exceptions

    def run(self) -> None:  # worker thread
        def progress(done: int, total: int) -> None:
            if self.stop.is_set():
                raise JobCancelled()
            self.relay.progress.emit(self.job_id, int(done), int(total))

        try:
            result = self.fn(*self.args, progress=progress, **self.kwargs)
        except (JobCancelled, *self.cancel_exceptions):
            self.relay.cancelled.emit(self.job_id)
            return
        except Exception as exc:  # noqa: BLE001 - shown to the user
            self.relay.error.emit(self.job_id, f"{type(exc).__name__}: {exc}", traceback.format_exc())
            return
        if self.stop.is_set():
            self.relay.cancelled.emit(self.job_id)
        else:
            self.relay.done.emit(self.job_id, result)


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
        self._relay = _JobRelay(self)
        self._relay.progress.connect(lambda j, d, t: j == self._job and self.progress.emit(d, t))
        self._relay.done.connect(self._on_done)
        self._relay.error.connect(self._on_error)
        self._relay.cancelled.connect(self._on_cancelled)
        self._job = 0
        self._stop = threading.Event()
        self.running = False

    def start(self, fn: Callable, *args, **kwargs) -> int:
        """Start fn on the pool (cancelling a running job first); returns the job id."""
        if self.running:
            self.cancel()
        self._job = next(_ids)
        self._stop = threading.Event()
        self.running = True
        self.pool.start(_JobTask(self._job, fn, args, kwargs, self._relay, self._stop, self.cancel_exceptions))
        return self._job

    def cancel(self) -> None:
        """Ask the running job to stop at its next progress report (the GUI does not wait)."""
        self._stop.set()

    def _on_done(self, job: int, result: object) -> None:
        if job == self._job:
            self.running = False
            self.finished.emit(result)

    def _on_error(self, job: int, message: str, tb: str) -> None:
        if job == self._job:
            self.running = False
            self.failed.emit(message, tb)

    def _on_cancelled(self, job: int) -> None:
        if job == self._job:
            self.running = False
            self.cancelled.emit()

"""The one way work leaves the GUI thread: :func:`start_worker`, on a small QRunnable of our own (:class:`Worker`).

A Worker runs ``fn(*args, **kwargs)`` on a QThreadPool thread and reports through ``worker.signals``
(:class:`WorkerSignals`, a QObject made on the creating thread, so its signals are delivered on the GUI
thread): ``started()``, ``returned(result)``, ``errored(exception)``, ``progress(done, total)`` and
``finished()`` (always last). The same signals as superqt's FunctionWorker, which this replaces (importing
superqt for this one class cost 0.8 s of the start, its package loads all its widgets and qtpy).
This module adds what the app needs around it, once: a chosen pool, keeping the worker referenced until it
has finished, and error reporting as (message, traceback) text. explorer.ui.shell.tasks.run_in_thread and
explorer.ui.inspectors.latest.InThreads are built on it. Threads of the GUI process suit file reading and
light work only: torch work (model loads, probes, the τ study) holds the GIL and stalls the event loop, so the
inspectors run it in a child process (explorer.ui.inspectors.client).
"""

from __future__ import annotations

import traceback
from typing import Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

_running: set[Worker] = set()   # workers are kept alive here until they have finished


class WorkerSignals(QObject):
    """What a :class:`Worker` reports, delivered on the thread that made it (the GUI thread)."""

    started = Signal()            # the job began on its pool thread
    returned = Signal(object)     # fn's return value (not emitted when it raised)
    errored = Signal(object)      # the exception fn raised
    progress = Signal(int, int)   # (done, total), from Worker.report
    finished = Signal()           # after returned or errored


class Worker(QRunnable):
    """``fn(*args, **kwargs)`` as a QRunnable with :class:`WorkerSignals` in ``signals``; ``report(done, total)``
    emits progress from the job. An exception in ``fn`` goes to ``errored``, never to Qt."""

    def __init__(self, fn: Callable, *args, **kwargs):
        super().__init__()
        self._fn, self._args, self._kwargs = fn, args, kwargs
        self.signals = WorkerSignals()

    def run(self) -> None:  # worker thread (QRunnable API)
        try:
            self.signals.started.emit()
            try:
                result = self._fn(*self._args, **self._kwargs)
            except Exception as exc:  # noqa: BLE001 - every failure of the job is reported, none reaches Qt
                self.signals.errored.emit(exc)
            else:
                self.signals.returned.emit(result)
            self.signals.finished.emit()
        except RuntimeError:
            pass   # the signals' receiver is gone (the app is quitting): nobody waits for this answer

    def report(self, done: int, total: int) -> None:
        """Emit progress from the worker thread (delivered on the GUI thread)."""
        self.signals.progress.emit(int(done), int(total))


_child_wait_pool: QThreadPool | None = None


def child_wait_pool() -> QThreadPool:
    """A pool of its own for jobs that mostly wait on a child process (the launcher's data previews): they hold
    no GIL, and on the global pool (one thread per core) two of them kept every other job, the runs folder's
    first scan included, waiting for seconds at start."""
    global _child_wait_pool
    if _child_wait_pool is None:
        _child_wait_pool = QThreadPool()
        _child_wait_pool.setMaxThreadCount(4)
    return _child_wait_pool


def error_text(exc: BaseException) -> tuple[str, str]:
    """(one-line message 'TypeName: text', full traceback) of an exception raised in a worker."""
    return f"{type(exc).__name__}: {exc}", "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))


def prepare_worker(fn: Callable, *args, on_done: Callable | None = None, on_error: Callable | None = None,
                   on_progress: Callable | None = None, **kwargs) -> Worker:
    """A connected, not yet started Worker for ``fn(*args, **kwargs)`` (see :func:`start_worker`)."""
    worker = Worker(fn, *args, **kwargs)
    if on_done is not None:
        worker.signals.returned.connect(on_done)
    worker.signals.errored.connect(lambda exc: on_error(*error_text(exc)) if on_error is not None else None)
    if on_progress is not None:
        worker.signals.progress.connect(on_progress)
    return worker


def launch(worker: Worker, pool: QThreadPool | None = None) -> Worker:
    """Start a prepared worker on ``pool`` (default: the global pool), keeping it alive until it finishes."""
    _running.add(worker)
    worker.signals.finished.connect(lambda: _running.discard(worker))
    (pool or QThreadPool.globalInstance()).start(worker)
    return worker


def start_worker(fn: Callable, *args, pool: QThreadPool | None = None,
                 on_done: Callable | None = None, on_error: Callable | None = None,
                 on_progress: Callable | None = None, **kwargs) -> Worker:
    """Run ``fn(*args, **kwargs)`` on ``pool`` (default: the global pool); returns the started worker.

    ``on_done(result)``, ``on_error(message, traceback)`` and ``on_progress(done, total)`` run on the
    GUI thread (``worker.report(done, total)`` from the job emits progress). An exception in ``fn``
    never reaches Qt: it goes to ``on_error`` (or is dropped without one).
    """
    worker = prepare_worker(fn, *args, on_done=on_done, on_error=on_error, on_progress=on_progress, **kwargs)
    return launch(worker, pool)

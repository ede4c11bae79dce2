"""The one way work leaves the GUI thread: :func:`start_worker`, on superqt's FunctionWorker.

superqt (napari's choice, PySide6-compatible) gives a QRunnable with ``started``, ``returned``,
``errored`` and ``finished`` signals delivered on the GUI thread. This module adds what the app needs
around it, once: a chosen pool, keeping the worker referenced until it has finished, a
``progress(done, total)`` signal for long jobs, and error reporting as (message, traceback) text.
explorer.ui.shell.tasks.run_in_thread and explorer.ui.inspectors.workers.LatestOnly are built on it. Threads of
the GUI process suit file reading and light work only: torch work (model loads, probes, the τ study)
holds the GIL and stalls the event loop, so the inspectors run it in a child process
(explorer.ui.inspectors.client).
"""

from __future__ import annotations

import traceback
from typing import Callable

from PySide6.QtCore import QThreadPool, Signal
from superqt.utils import FunctionWorker
from superqt.utils._qthreading import WorkerBaseSignals

_running: set[FunctionWorker] = set()   # workers are kept alive here until they have finished


class ProgressSignals(WorkerBaseSignals):
    """superqt's worker signals plus ``progress(done, total)``."""

    progress = Signal(int, int)


class Worker(FunctionWorker):
    """A FunctionWorker whose signals include ``progress``; ``report(done, total)`` emits it."""

    def __init__(self, func: Callable, *args, **kwargs):
        super().__init__(func, *args, **kwargs)
        self.signals = ProgressSignals()

    def run(self) -> None:  # worker thread (QRunnable API)
        try:
            super().run()
        except RuntimeError:
            pass   # the signals' receiver is gone (the app is quitting): nobody waits for this answer

    def report(self, done: int, total: int) -> None:
        """Emit progress from the worker thread (delivered on the GUI thread)."""
        self.signals.progress.emit(int(done), int(total))


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

"""Run a function on the global QThreadPool and get its result back on the GUI thread.

    run_in_thread(fn, *args, on_done=callback, on_error=callback)

``on_done(result)`` / ``on_error(message, traceback)`` are called on the GUI thread through a
queued signal, unless ``owner`` (a QObject) was deleted meanwhile. Callers drop stale answers themselves (compare a request counter).
"""

from __future__ import annotations

import traceback as tb
from typing import Any, Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot

_alive: set["_Task"] = set()   # keep the signal carriers alive until they have reported


class _Signals(QObject):
    done = Signal(object)
    error = Signal(str, str)


class _Relay(QObject):
    """Lives on the GUI thread; its slots run there (queued connection from the pool thread)."""

    def __init__(self, task: "_Task", on_done: Callable | None, on_error: Callable | None,
                 owner: QObject | None = None):
        super().__init__(owner)
        self.task, self.on_done, self.on_error = task, on_done, on_error

    @Slot(object)
    def finish_ok(self, result: Any) -> None:
        _alive.discard(self.task)
        if self.on_done is not None:
            self.on_done(result)

    @Slot(str, str)
    def finish_err(self, message: str, trace: str) -> None:
        _alive.discard(self.task)
        if self.on_error is not None:
            self.on_error(message, trace)


class _Task(QRunnable):
    def __init__(self, fn: Callable, args: tuple, kwargs: dict):
        super().__init__()
        self.setAutoDelete(False)
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.signals = _Signals()

    def run(self) -> None:
        try:
            try:
                result = self.fn(*self.args, **self.kwargs)
            except Exception as exc:  # noqa: BLE001 - reported to the GUI, never raised in a thread
                self.signals.error.emit(f"{type(exc).__name__}: {exc}", tb.format_exc())
            else:
                self.signals.done.emit(result)
        except RuntimeError:
            pass  # the receiver is gone (the app is quitting): nobody is waiting for this answer


def run_in_thread(fn: Callable, *args: Any, on_done: Callable | None = None,
                  on_error: Callable | None = None, owner: QObject | None = None, **kwargs: Any) -> None:
    """Start ``fn(*args, **kwargs)`` on QThreadPool.globalInstance().

    ``owner``: a widget the callbacks belong to; if it is deleted first, the answer is dropped
    (the relay is its child, and Qt drops queued calls to deleted objects).
    """
    task = _Task(fn, args, kwargs)
    task.relay = _Relay(task, on_done, on_error, owner)
    task.relay.destroyed.connect(lambda *_: _alive.discard(task))
    _alive.add(task)
    task.signals.done.connect(task.relay.finish_ok)
    task.signals.error.connect(task.relay.finish_err)
    QThreadPool.globalInstance().start(task)

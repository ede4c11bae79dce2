"""Run a function off the GUI thread and get its result back on the GUI thread.

    run_in_thread(fn, *args, on_done=callback, on_error=callback, owner=widget)

``on_done(result)`` / ``on_error(message, traceback)`` are called on the GUI thread unless ``owner`` (a
QObject) was deleted meanwhile. Callers drop stale answers themselves (compare a request counter).
Built on explorer.ui.shell.threads.start_worker, the one way work leaves the GUI thread.
"""

from __future__ import annotations

from typing import Any, Callable

import shiboken6
from PySide6.QtCore import QObject

from explorer.ui.shell.threads import start_worker


def _if_alive(owner: QObject | None, callback: Callable | None) -> Callable | None:
    if callback is None:
        return None

    def call(*args):
        if owner is None or shiboken6.isValid(owner):
            callback(*args)
    return call


def run_in_thread(fn: Callable, *args: Any, on_done: Callable | None = None,
                  on_error: Callable | None = None, owner: QObject | None = None, **kwargs: Any) -> None:
    """Start ``fn(*args, **kwargs)`` on QThreadPool.globalInstance().

    ``owner``: a widget the callbacks belong to; if it is deleted first, the answer is dropped. ``pool=`` (a
    QThreadPool, e.g. threads.child_wait_pool() for a job that waits on a child process) replaces the global one.
    """
    start_worker(fn, *args, on_done=_if_alive(owner, on_done), on_error=_if_alive(owner, on_error), **kwargs)

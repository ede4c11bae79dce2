"""Only the newest request's outcome is delivered: :class:`LatestOnly`, the one such class of the inspectors.

A request goes through a sender: :class:`ChildChannel` sends it to the inspector child process on a channel of
explorer.ui.inspectors.client (the model loads, probes, Classify, Tag, saliency, ...: never in the GUI process);
:class:`InThreads` runs a function on a thread pool of this process (explorer.ui.shell.threads.start_worker; the
saliency page used on its own, with a model of this process). The semantics are the same either way.

Pattern (one :class:`LatestOnly` per kind of request)::

    self.probes = LatestOnly.in_child(client, "qa.probe", parent=self)
    self.probes.finished.connect(self._show)      # (request_id, result), only for the newest request
    self.probes.failed.connect(self._error)       # (request_id, message, traceback)
    request_id = self.probes.submit("probe", data)

A request still queued when a newer one arrives never starts (the child drops it; a thread skips it); one that is
running finishes, and its outcome is dropped. Nothing here blocks the GUI thread.
"""

from __future__ import annotations

import itertools
from typing import Callable

from PySide6.QtCore import QObject, QThreadPool, Signal

from explorer.ui.shell.threads import start_worker

_ids = itertools.count(1)
_SUPERSEDED = object()   # what a thread's request returns when a newer one replaced it before it started


class ChildChannel:
    """Requests of one channel of the inspector child (``"qa.probe"``, ``"classify.load"``, ...); a newer request
    on the channel supersedes older ones there too (the child drops them unrun, the client drops their replies).
    ``submit(op, data)``."""

    def __init__(self, client, channel: str):
        self.client = client
        self.channel = channel
        self._sent = 0   # the client's id of the last request sent

    def send(self, wanted: Callable[[], bool], on_done: Callable, on_error: Callable, op: str,
             data: dict | None = None) -> None:
        self._sent = self.client.request(op, data, channel=self.channel, on_done=on_done, on_error=on_error)

    def forget(self) -> None:
        """The last request's reply is not wanted any more: dropped when it comes."""
        if self._sent:
            self.client.forget(self._sent)


class InThreads:
    """Functions run on a thread pool of this process (the global pool by default). ``submit(fn, *args, **kwargs)``;
    a request superseded while queued returns without calling ``fn``."""

    def __init__(self, pool: QThreadPool | None = None):
        self.pool = pool or QThreadPool.globalInstance()

    def send(self, wanted: Callable[[], bool], on_done: Callable, on_error: Callable, fn: Callable, *args,
             **kwargs) -> None:
        def job():   # worker thread
            if not wanted():
                return _SUPERSEDED   # superseded while queued: never start
            return fn(*args, **kwargs)

        start_worker(job, pool=self.pool, on_done=on_done, on_error=on_error)

    def forget(self) -> None:
        """Nothing to tell a thread: its outcome is dropped when it comes."""


class LatestOnly(QObject):
    """Requests of one kind through ``sender`` (:class:`ChildChannel` or :class:`InThreads`); only the newest
    request's outcome is delivered.

    Signals (emitted on the GUI thread):
        started(request_id), finished(request_id, result), failed(request_id, message, traceback),
        busy(bool): True while the newest request is outstanding.
    """

    started = Signal(int)
    finished = Signal(int, object)
    failed = Signal(int, str, str)
    busy = Signal(bool)

    def __init__(self, sender: ChildChannel | InThreads, parent: QObject | None = None):
        super().__init__(parent)
        self.sender = sender
        self._latest = 0          # 0: nothing was ever asked
        self._outstanding = False
        self.dropped = 0          # late outcomes thrown away here (for tests and the status line)

    @classmethod
    def in_child(cls, client, channel: str, parent: QObject | None = None) -> "LatestOnly":
        """Requests ``submit(op, data)`` to the inspector child on ``channel`` of ``client`` (an InspectClient)."""
        return cls(ChildChannel(client, channel), parent)

    @classmethod
    def in_threads(cls, pool: QThreadPool | None = None, parent: QObject | None = None) -> "LatestOnly":
        """Requests ``submit(fn, *args, **kwargs)`` run on ``pool`` (default: the global thread pool)."""
        return cls(InThreads(pool), parent)

    @property
    def latest(self) -> int:
        """The id of the newest request (0 before the first)."""
        return self._latest

    def is_current(self, request_id: int) -> bool:
        return request_id == self._latest

    def submit(self, *args, **kwargs) -> int:
        """Send a request (the sender's arguments); returns its id. Supersedes earlier requests."""
        request_id = next(_ids)
        self._latest = request_id
        self._set_busy(True)
        self.started.emit(request_id)
        self.sender.send(lambda: self.is_current(request_id), lambda result: self._on_done(request_id, result),
                         lambda msg, tb: self._on_error(request_id, msg, tb), *args, **kwargs)
        return request_id

    def cancel(self) -> None:
        """Forget the outstanding request (its outcome, if any, is dropped)."""
        self.sender.forget()
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

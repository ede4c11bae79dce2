"""Signals of the training worker: SIGINT = stop early, SIGTERM = cancel.

- SIGINT (Ctrl-C, or the GUI's "stop early" alternative to the STOP file): sets ``control.stop``;
  the loop finishes its step, evaluates, saves and reports ``finished`` with stopped_early true.
  A second SIGINT cancels.
- SIGTERM (the GUI's cancel, ``kill``): sets ``control.cancel`` and raises
  :class:`~explorer.core.errors.Cancelled` right away (it derives from
  BaseException, so library ``except Exception`` blocks do not swallow it), except while an event
  line is being written: then it is raised as soon as that line is complete, so events.jsonl never
  holds a torn line. The loop also polls ``control.cancel`` between batches.
"""

from __future__ import annotations

import signal
import threading

from explorer.core.protocol.events import EventWriter
from explorer.core.errors import Cancelled


class GuardedWriter(EventWriter):
    """An EventWriter that tells the signal handler when a line is being written and raises a
    pending cancel once the line is complete."""

    _busy: bool = False
    control = None

    def emit(self, event: str, **fields):
        self._busy = True
        try:
            return super().emit(event, **fields)
        finally:
            self._busy = False
            c = self.control
            if c is not None and c.cancel and c.raise_on_cancel and event not in ("cancelled", "failed", "finished"):
                c.raise_on_cancel = False
                raise Cancelled()


class SignalHandlers:
    """Install the handlers (main thread only; elsewhere this is a no-op) and restore them on exit."""

    def __init__(self, control, writer: GuardedWriter | None = None):
        self.control = control
        self.writer = writer
        self.previous: dict = {}
        control.raise_on_cancel = True
        if writer is not None:
            writer.control = control

    def _on_sigint(self, signum, frame):
        if self.control.stop:
            self._on_sigterm(signum, frame)
            return
        self.control.stop = True

    def _on_sigterm(self, signum, frame):
        self.control.cancel = True
        if self.control.raise_on_cancel and not (self.writer is not None and self.writer._busy):
            self.control.raise_on_cancel = False
            raise Cancelled()

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            self.previous[signal.SIGINT] = signal.signal(signal.SIGINT, self._on_sigint)
            self.previous[signal.SIGTERM] = signal.signal(signal.SIGTERM, self._on_sigterm)
        return self

    def __exit__(self, *exc):
        self.control.raise_on_cancel = False
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)
        return False

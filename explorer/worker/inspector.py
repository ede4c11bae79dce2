"""The inspector child process: ``python -m explorer.worker.inspector`` owns torch, the models the
inspectors use and all their computation, so that the GUI process never holds the GIL for it.

Protocol (frames of explorer.core.protocol.frames: one JSON object per line, ``"nbytes"`` bytes of npz after it):

    request   {"id": 7, "op": "probe", "channel": "qa.probe", "data": {...}}
    cancel    {"id": 8, "op": "cancel", "target": 6}          (the τ study stops at its next batch)
    replies   {"event": "ready", "id": 0, "pid": ...}          once, at start
              {"event": "progress", "id": 6, "done": 32, "total": 96}
              {"event": "result", "id": 7, "data": ...}        the value (ProbeResult, TauStudy, ...)
              {"event": "error", "id": 7, "error": "...", "kind": "ModelSourceError", "user": true,
               "traceback": "..."}
              {"event": "cancelled", "id": 6}, {"event": "dropped", "id": 5}

Operations (explorer/worker/inspector_ops.py) run on lanes, each one thread in request order:
"model" (load, probe, attention_weights, saliency, compare_checkpoints, classify), "study" (τ study,
classification dev set), "predict" (a file predicted; a cv group's held-out folds; two classifiers
compared on the same dev rows), "io" (reading a SQuAD file for the pickers), "download" (a hub repository
into the cache, with byte progress and cancel: explorer.core.hub) and "explain" (attributions). A request
with a ``channel`` that is not the newest of
its channel when its turn comes is dropped without running (a newer probe supersedes a queued one).
The end of stdin (the GUI closed or died) or ``{"op": "shutdown"}`` ends the process.

The child lowers its own priority by ``EXPLORER_INSPECT_NICE`` (default 5; the training worker uses 10)
so that the GUI stays the most urgent process (see docs/architecture.md).
"""

from __future__ import annotations

import os
import queue
import sys
import threading
import traceback
from typing import BinaryIO, Callable

from explorer.core.errors import Cancelled, UserError, user_message
from explorer.core.priorities import INSPECT_NICE, inspect_niceness
from explorer.core.threads import INSPECTOR
from explorer.core.protocol.frames import (REPLY_CANCELLED, REPLY_DROPPED, REPLY_ERROR, REPLY_PROGRESS, REPLY_READY,
                                          REPLY_RESULT, WireError, pack, read_frame)
from explorer.worker.inspector_ops import OPS, State
from explorer.worker.threads import apply_thread_policy

DEFAULT_NICE = INSPECT_NICE   # explorer.core.priorities


class Server:
    """Reads requests from ``inp``, runs them on the lanes and writes replies to ``out`` (binary streams)."""

    def __init__(self, inp: BinaryIO, out: BinaryIO, *, loader: Callable | None = None):
        self.inp, self.out = inp, out
        self.state = State(loader)
        self._write_lock = threading.Lock()
        self._latest: dict[str, int] = {}
        self._cancels: dict[int, threading.Event] = {}
        self._lanes: dict[str, queue.Queue] = {}
        self._threads: list[threading.Thread] = []

    # ----------------------------------------------------------------------------------- pipe
    def send(self, message: dict, value=None, *, has_value: bool = False) -> None:
        """Write one frame; raises WireError (before writing anything) for a value that cannot be sent."""
        frame = pack(message, value, has_value=has_value)
        with self._write_lock:
            try:
                self.out.write(frame)
                self.out.flush()
            except (ValueError, OSError):
                pass   # the GUI is gone: nobody reads the answer

    def serve(self) -> None:
        """Answer requests until the input ends or a shutdown request arrives."""
        self.send({"event": REPLY_READY, "id": 0, "pid": os.getpid()})
        while True:
            try:
                frame = read_frame(self.inp)
            except (WireError, OSError, ValueError) as exc:
                self.send({"event": REPLY_ERROR, "id": -1, "error": f"unreadable request: {exc}", "user": False})
                continue
            if frame is None:
                break
            message, data = frame
            op = message.get("op")
            if op == "shutdown":
                break
            if op == "cancel":
                self._cancel_event(int(message.get("target", -1))).set()
                continue
            self._queue(message, data)
        for lane in self._lanes.values():
            lane.put(None)

    def _cancel_event(self, rid: int) -> threading.Event:
        return self._cancels.setdefault(rid, threading.Event())

    def _queue(self, message: dict, data) -> None:
        rid = int(message.get("id", -1))
        op = message.get("op")
        if op not in OPS:
            self.send({"event": REPLY_ERROR, "id": rid, "error": f"unknown inspector operation {op!r}", "user": False})
            return
        channel = message.get("channel")
        if channel:
            self._latest[channel] = rid
        lane = OPS[op][1]
        if lane not in self._lanes:
            self._lanes[lane] = queue.Queue()
            thread = threading.Thread(target=self._run_lane, args=(self._lanes[lane],), name=f"inspect-{lane}",
                                      daemon=True)
            thread.start()
            self._threads.append(thread)
        self._lanes[lane].put((rid, op, channel, data if isinstance(data, dict) else {}))

    # ----------------------------------------------------------------------------------- lanes
    def _run_lane(self, jobs: queue.Queue) -> None:
        while True:
            job = jobs.get()
            if job is None:
                return
            self._run(*job)

    def _run(self, rid: int, op: str, channel: str | None, args: dict) -> None:
        if channel and self._latest.get(channel) != rid:
            self.send({"event": REPLY_DROPPED, "id": rid})
            return
        stop = self._cancel_event(rid)
        if stop.is_set():
            self.send({"event": REPLY_CANCELLED, "id": rid})
            return
        fn = OPS[op][0]

        def progress(done: int, total: int) -> None:
            self.send({"event": REPLY_PROGRESS, "id": rid, "done": int(done), "total": int(total)})

        try:
            value = fn(self.state, args, progress, stop.is_set)
        except Cancelled:
            self.send({"event": REPLY_CANCELLED, "id": rid})
            return
        except Exception as exc:   # noqa: BLE001 - every failure becomes an error reply, never a dead child
            self.send(_error_reply(rid, exc))
            return
        finally:
            self._cancels.pop(rid, None)
        try:
            self.send({"event": REPLY_RESULT, "id": rid}, value, has_value=True)
        except WireError as exc:
            self.send(_error_reply(rid, exc))


def _error_reply(rid: int, exc: BaseException) -> dict:
    user = isinstance(exc, (UserError, ValueError, OSError))
    text = user_message(exc) if isinstance(exc, UserError) else f"{type(exc).__name__}: {exc}"
    return {"event": REPLY_ERROR, "id": rid, "error": text, "kind": type(exc).__name__, "user": user,
            "traceback": "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))}


def lower_priority(default: int = DEFAULT_NICE) -> int:
    """os.nice by $EXPLORER_INSPECT_NICE (default ``default``); returns the increment applied (0 if none)."""
    step = inspect_niceness(default)
    if step > 0 and hasattr(os, "nice"):
        try:
            os.nice(step)
            return step
        except OSError:
            return 0
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the inspector child on stdin / stdout (binary); stderr keeps warnings and crash text."""
    lower_priority()
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    apply_thread_policy(INSPECTOR)   # latency: only cores the load leaves free (explorer.core.threads)
    out = sys.stdout.buffer
    sys.stdout = sys.stderr   # a stray print() in a library must never corrupt the frames
    Server(sys.stdin.buffer, out).serve()
    out.flush()
    os._exit(0)   # lanes may be inside a forward pass: do not wait for them


if __name__ == "__main__":
    sys.exit(main())

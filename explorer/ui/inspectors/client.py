"""The GUI side of the inspector child process (explorer/worker/inspector.py): start it, send requests,
deliver replies on the GUI thread, restart it after a crash.

:class:`InspectClient` speaks the protocol of explorer.core.protocol.frames over the child's stdin / stdout. A reader
thread decodes replies (npz payloads included) so that the event loop only ever runs the callbacks;
torch is never imported here. The child starts on the first request; when it dies, every outstanding
request fails with a clear message (shown where its result would have been), ``message`` says so for the
status bar, and the next request starts a new child that first reloads the models the GUI had loaded.

One client is shared by all inspector views (:func:`shared_client`), stopped when the application quits.
Tests may install another transport with :func:`set_transport_factory` (a thread running the same server
over pipes); the real process path is :class:`ProcessTransport`.
"""

from __future__ import annotations

import gc
import itertools
import os
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from typing import Callable

from PySide6.QtCore import QCoreApplication, QObject, QTimer, Signal

from explorer.core.attention.layers import warm as warm_layers
from explorer.core.protocol.frames import (REPLY_CANCELLED, REPLY_DROPPED, REPLY_ERROR, REPLY_PROGRESS, REPLY_RESULT, WireError,
                                pack, read_raw, unpack)
from explorer.paths import REPO_ROOT

STDERR_KEEP = 4000   # characters of the child's stderr kept for the crash message
EXITED = "exited"    # the reader thread's own event: the child's stdout ended (it stopped or died)


INSPECT_ARGV = [sys.executable, "-m", "explorer.worker.inspector"]


class ProcessTransport:
    """``python -m explorer.worker.inspector`` as a subprocess: ``stdin`` / ``stdout`` binary pipes.

    ``argv``: another command speaking the same protocol on its stdin / stdout, e.g. the child on a
    remote host through ssh (explorer.core.remote.ssh.inspector_argv)."""

    def __init__(self, argv: list[str] | None = None):
        self.argv = list(argv or INSPECT_ARGV)
        self.proc: subprocess.Popen | None = None
        self._stderr_tail = ""

    def start(self) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH", "")) if p)
        env.setdefault("TOKENIZERS_PARALLELISM", "false")
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=str(REPO_ROOT))
        threading.Thread(target=self._drain_stderr, args=(self.proc.stderr,), daemon=True,
                         name="inspect-stderr").start()

    def _drain_stderr(self, stream) -> None:
        for raw in iter(lambda: stream.readline(), b""):
            self._stderr_tail = (self._stderr_tail + raw.decode("utf-8", "replace"))[-STDERR_KEEP:]

    @property
    def stdin(self):
        return self.proc.stdin

    @property
    def stdout(self):
        return self.proc.stdout

    @property
    def pid(self) -> int:
        return self.proc.pid if self.proc is not None else 0

    def wait(self) -> int | None:
        try:
            return self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return None

    def last_error_line(self) -> str:
        lines = [ln.strip() for ln in self._stderr_tail.splitlines() if ln.strip()]
        return lines[-1] if lines else ""

    def stop(self) -> None:
        """Close its stdin (the child exits at the end of its input); kill it if it lingers."""
        if self.proc is None:
            return
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.proc.kill()

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()


_transport_factory: Callable[[], object] = ProcessTransport
_shared: "InspectClient | None" = None


def set_transport_factory(factory: Callable[[], object]) -> Callable[[], object]:
    """Use ``factory()`` for clients created from now on (tests); returns the previous factory."""
    global _transport_factory
    old, _transport_factory = _transport_factory, factory
    return old


def shared_client() -> "InspectClient":
    """The application's one InspectClient (created on first use, stopped when the application quits)."""
    global _shared
    if _shared is None:
        app = QCoreApplication.instance()
        _shared = InspectClient(parent=app)
        if app is not None:
            app.aboutToQuit.connect(_shared.stop)
    return _shared


def reset_shared_client() -> None:
    """Stop and forget the shared client (tests, between cases)."""
    global _shared
    if _shared is not None:
        _shared.stop()
        _shared = None


FREEZE_BYTES = 1 << 20   # a reply this large (a τ study: ~2 MB per 1,000 questions) is frozen after decoding


def _read_without_gc_pauses(stream):
    """read_frame with the cyclic garbage collector paused while the reply is rebuilt (not while waiting for
    it), and a large reply's objects moved out of its reach afterwards (gc.freeze, as explorer.ui.app does
    at start): rebuilding a 12,000-question τ study creates ~500k objects, whose full collections (~100 ms
    each, holding the GIL) would otherwise stall the event loop. Frozen objects are still freed by
    reference counting."""
    raw = read_raw(stream)
    if raw is None:
        return None
    message, line, payload = raw
    enabled = gc.isenabled()
    gc.disable()
    try:
        frame = unpack(line, payload, message=message)
        if len(payload) >= FREEZE_BYTES:
            gc.freeze()
        return frame
    finally:
        if enabled:
            gc.enable()


# Modules the views import lazily when a first result arrives, imported on the reader thread while the child
# starts (an import on the GUI thread holds it for its whole duration: numpy.ma, pulled in by the first
# np.unique, took 34 ms of a first inspector load; scripts/gui_stall_probe.py --stacks).
PREIMPORT = ("numpy.ma",)


def _preimport() -> None:
    import importlib

    for name in PREIMPORT:
        try:
            importlib.import_module(name)
        except ImportError:
            pass


def _warm(value) -> None:
    """Work a reply would otherwise cost the GUI thread, done here on the reader thread: a ModelInfo's
    tokenizer (the tokenizers import and parsing its tokenizer.json take tens of milliseconds); the mean over
    heads of every layer of the raw attention weights a probe (ProbeResult.attention) or a window's
    ``attention_weights`` reply brings (explorer.core.attention.layers: 5-14 ms per layer of a 384-token
    window, which the Attention view would otherwise compute on a layer change or a redraw)."""
    if type(value).__name__ == "ModelInfo":
        try:
            value.question_tokens("warm up", 1)
        except Exception:   # noqa: BLE001 - a tokenizer that cannot be built is reported when it is used
            pass
        return
    attention = getattr(value, "attention", None)
    try:
        for weights in ([getattr(a, "attentions", None) for a in attention] if isinstance(attention, list)
                        else [value]):
            warm_layers(weights)
    except Exception:   # noqa: BLE001 - the view computes what is missing when it shows it (and reports errors)
        pass


@dataclass
class _Pending:
    op: str
    channel: str | None
    generation: int
    on_done: Callable | None
    on_error: Callable | None
    on_progress: Callable | None


def _names_a_folder(source: str) -> bool:
    """Is a load source a folder path (of the machine the child ran on), not a hub id or ``bundled:`` name?"""
    return source.startswith(("/", "~", ".")) or os.path.isabs(source) or os.path.isdir(source)


class InspectClient(QObject):
    """Requests to the inspector child; callbacks run on the GUI thread.

    Signals:
        message(str): status-bar text (the child stopped; it restarts with the next request).
        started(int): a child was started (its pid).
    """

    message = Signal(str)
    started = Signal(int)
    _arrived = Signal(object, object, int)   # (reply, value, generation), from the reader thread

    def __init__(self, transport_factory: Callable[[], object] | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self._factory = transport_factory or _transport_factory
        self._transport = None
        self._generation = 0
        self._reader: threading.Thread | None = None
        self._ids = itertools.count(1)
        self._pending: dict[int, _Pending] = {}
        self._latest: dict[str, int] = {}
        self._slots: dict[str, tuple] = {}        # slot -> ("load", data) | ("adopt", loaded): replayed on restart
        self._tmp: list[tempfile.TemporaryDirectory] = []
        self._stopping = False
        self.dropped = 0
        self.restarts = 0
        self.place_argv: list[str] | None = None   # set_place: the child's command on another machine
        self.place = ""                            # that machine's name ("" = this machine)
        self.place_transport: Callable[[list[str]], object] = ProcessTransport   # tests swap it
        self._arrived.connect(self._on_arrived)

    # ----------------------------------------------------------------------------------- requests
    def request(self, op: str, data: dict | None = None, *, channel: str | None = None,
                on_done: Callable | None = None, on_error: Callable | None = None,
                on_progress: Callable | None = None) -> int:
        """Send ``op`` with ``data``; returns the request id. ``on_done(value)``, ``on_error(message,
        traceback)`` and ``on_progress(done, total)`` run on the GUI thread. With ``channel``, a newer request
        on the same channel supersedes this one (its reply is dropped; queued, it never runs)."""
        # the child starts (and gets the remembered models back) before this request takes its channel's
        # latest id: a remembered load of the same slot sent after it would supersede it, so its reply was dropped
        # and the page stayed "loading …" while the child held the model it asked for
        try:
            self._ensure_started(superseded=channel if op == "load" else None)
        except OSError as exc:   # no python, no fork: say so where the result would have been
            text = f"cannot start the inspector process ({sys.executable} -m explorer.worker.inspector): {exc}"
            self.message.emit(text)
            if on_error is not None:
                QTimer.singleShot(0, lambda: on_error(text, ""))
            return next(self._ids)
        rid = next(self._ids)
        if channel:
            self._latest[channel] = rid
        self._pending[rid] = _Pending(op, channel, self._generation, on_done, on_error, on_progress)
        self._send({"id": rid, "op": op, **({"channel": channel} if channel else {})}, data or {})
        return rid

    def cancel(self, rid: int) -> None:
        """Ask the child to stop request ``rid`` (the τ study stops at its next batch)."""
        if self._transport is not None and rid in self._pending:
            self._send({"id": next(self._ids), "op": "cancel", "target": rid}, None)

    def forget(self, rid: int) -> None:
        """Drop request ``rid``'s reply when it comes (the caller no longer wants it)."""
        self._pending.pop(rid, None)

    def load(self, slot: str, source: str, task: str = "qa", *, label: str | None = None,
             on_done: Callable | None = None, on_error: Callable | None = None) -> int:
        """Load ``source`` into ``slot`` in the child (remembered: a restarted child reloads it)."""
        data = {"slot": slot, "source": source, "task": task, **({"label": label} if label else {})}
        rid = self.request("load", data, channel=f"{slot}.load", on_done=on_done, on_error=on_error)
        self.remember_load(slot, data)
        return rid

    def remember_load(self, slot: str, data: dict) -> None:
        """Reload ``data`` (a load request's) into ``slot`` whenever a new child starts."""
        self._slots[slot] = ("load", dict(data))

    def adopt(self, slot: str, loaded) -> None:
        """Give the child an already loaded LoadedModel (tests, embedding): a transport that runs in this
        process takes it as it is; the real child loads a safetensors copy written to a temporary folder."""
        self._slots[slot] = ("adopt", loaded)
        if self._transport is not None:
            self._give(slot, loaded)

    def _give(self, slot: str, loaded) -> None:
        if hasattr(self._transport, "adopt"):
            self._transport.adopt(slot, loaded)
            return
        tmp = tempfile.TemporaryDirectory(prefix="explorer-inspect-")
        self._tmp.append(tmp)
        loaded.model.save_pretrained(tmp.name)
        loaded.tokenizer.save_pretrained(tmp.name)
        data = {"slot": slot, "source": tmp.name, "task": loaded.task, "label": loaded.source}
        self.request("load", data, channel=f"{slot}.load", on_error=lambda msg, _tb: self.message.emit(msg))

    def set_place(self, argv: list[str] | None, place: str = "") -> bool:
        """Run the child with ``argv`` from the next request on (the same protocol on stdin / stdout, e.g.
        ``ssh HOST python -m explorer.worker.inspector``: explorer.core.remote.ssh.inspector_argv), or on this
        machine again (``argv`` None). ``place``: that machine's name for the status bar.

        A change stops the running child (its outstanding requests fail with a message naming the new
        place) and forgets the models loaded from folders, which are folders of the other machine; models
        named by hub id or ``bundled:`` are loaded again where the child now runs. Returns whether the place
        changed."""
        argv = list(argv) if argv else None
        if argv == self.place_argv:
            self.place = place if argv else ""
            return False
        self.place_argv, self.place = argv, (place if argv else "")
        self._slots = {slot: (kind, what) for slot, (kind, what) in self._slots.items()
                       if kind == "load" and not _names_a_folder(str(what.get("source", "")))}
        transport, self._transport = self._transport, None
        self._generation += 1   # replies of the old child are ignored from here on
        pending, self._pending = self._pending, {}
        text = f"the inspector now runs on {self.place or 'this machine'}; ask again"
        for p in pending.values():
            if p.on_error is not None:
                p.on_error(text, "")
        if transport is not None:
            transport.stop()
        return True

    @property
    def pid(self) -> int:
        """The child's pid (0 when none runs)."""
        return getattr(self._transport, "pid", 0) if self._transport is not None else 0

    @property
    def running(self) -> bool:
        return self._transport is not None

    def outstanding(self) -> int:
        return len(self._pending)

    # ----------------------------------------------------------------------------------- process
    def _ensure_started(self, superseded: str | None = None) -> None:
        """Start the child when none runs, and give it the models of the last one, except the load of channel
        ``superseded`` (a load into that slot is the request that starts it)."""
        if self._transport is not None:
            return
        transport = self.place_transport(self.place_argv) if self.place_argv else self._factory()
        transport.start()
        self._generation += 1
        self._transport = transport
        self._stopping = False
        self._reader = threading.Thread(target=self._read, args=(transport, self._generation), daemon=True,
                                        name="inspect-reader")
        self._reader.start()
        self.started.emit(self.pid)
        for slot, (kind, what) in list(self._slots.items()):   # a restarted child gets the models back
            if kind == "load" and f"{slot}.load" == superseded:
                continue
            if kind == "load":
                self.request("load", what, channel=f"{slot}.load", on_error=lambda m, _t: self.message.emit(m))
            else:
                self._give(slot, what)

    def _send(self, message: dict, data) -> None:
        try:
            frame = pack(message, data) if data is not None else pack(message)
        except WireError as exc:
            pending = self._pending.pop(message.get("id"), None)
            if pending is not None and pending.on_error is not None:
                pending.on_error(f"cannot send this request to the inspector process: {exc}", "")
            return
        try:
            self._transport.stdin.write(frame)
            self._transport.stdin.flush()
        except (OSError, ValueError, AttributeError):
            pass   # the child is gone: the reader thread reports it and fails what is pending

    def _read(self, transport, generation: int) -> None:   # reader thread
        _preimport()
        error = ""
        while True:
            try:
                frame = _read_without_gc_pauses(transport.stdout)
            except (WireError, OSError, ValueError) as exc:
                error = str(exc)
                break
            if frame is None:
                break
            _warm(frame[1])
            self._arrived.emit(frame[0], frame[1], generation)
        code = transport.wait() if hasattr(transport, "wait") else None
        self._arrived.emit({"event": EXITED, "code": code, "error": error}, None, generation)

    def _on_arrived(self, reply: dict, value, generation: int) -> None:
        if generation != self._generation:
            return
        event = reply.get("event")
        if event == EXITED:
            self._on_exited(reply)
            return
        rid = reply.get("id")
        pending = self._pending.get(rid)
        if pending is None:
            return
        if event == REPLY_PROGRESS:
            if pending.on_progress is not None:
                pending.on_progress(int(reply.get("done", 0)), int(reply.get("total", 0)))
            return
        del self._pending[rid]
        if pending.channel and self._latest.get(pending.channel) != rid or event == REPLY_DROPPED:
            self.dropped += 1
            return
        if event == REPLY_RESULT and pending.on_done is not None:
            pending.on_done(value)
        elif event == REPLY_CANCELLED and pending.on_error is not None:
            pending.on_error(REPLY_CANCELLED, "")   # (message, no traceback): RemoteJob tells it from an error
        elif event == REPLY_ERROR and pending.on_error is not None:
            pending.on_error(self._where_files_are(str(reply.get("error", "error"))), str(reply.get("traceback", "")))

    def _where_files_are(self, text: str) -> str:
        """A missing-file error of a child on another machine says that files are read there."""
        if self.place and any(sign in text.lower() for sign in ("no such file", "does not exist", "not found")):
            return (f"{text} (the inspectors run on {self.place}, so files are read there; fetch the checkpoint "
                    f"and inspect it here to use files of this machine)")
        return text

    def _on_exited(self, reply: dict) -> None:
        transport, self._transport = self._transport, None
        if self._stopping:
            return
        self.restarts += 1
        code = reply.get("code")
        why = f"exit code {code}" if code is not None else "no exit code"
        last = transport.last_error_line() if hasattr(transport, "last_error_line") else ""
        if reply.get("error"):
            last = reply["error"]
        text = (f"The inspector process stopped ({why}{': ' + last if last else ''}); "
                "it restarts with the next request.")
        pending, self._pending = self._pending, {}
        for p in pending.values():
            if p.on_error is not None:
                p.on_error(text, "")
        self.message.emit(text)

    def stop(self) -> None:
        """Stop the child (closing the app); outstanding requests are forgotten."""
        self._stopping = True
        transport, self._transport = self._transport, None
        self._pending.clear()
        if transport is not None:
            transport.stop()
        reader, self._reader = self._reader, None
        if reader is not None and reader is not threading.current_thread():
            # the reader holds this QObject (its bound method) and emits on it until it ends: let it end here,
            # so the last reference is never dropped (and the object deleted) on the reader thread
            reader.join(timeout=5)
        for tmp in self._tmp:
            tmp.cleanup()
        self._tmp.clear()

    def kill(self) -> None:
        """Kill the child now (tests: a crash); the reader thread reports it like any death."""
        if self._transport is not None:
            self._transport.kill()

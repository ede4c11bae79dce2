"""Follow a remote run: its ``events.jsonl`` streamed over SSH into a local mirror folder.

The mirror's events.jsonl is a byte-for-byte prefix of the remote file, complete lines only: its size is
the offset of the next byte to fetch. A :class:`RemoteFollower` runs
``ssh HOST python -m explorer.core.remote.hostside tail RUN_DIR OFFSET`` on a thread, appends each
complete line to the mirror (then hands the parsed event to ``on_event``), and when the connection drops
starts the command again from the mirror's size: a line cut by the drop is fetched again whole, so
nothing is lost and nothing is doubled. A new follower made from the remembered
:class:`~explorer.core.remote.hosts.RemoteRun` (after an app restart) continues the same way.

It ends after a terminal event (finished / failed / cancelled), or when the host says the worker is gone
and every byte was sent (the host appends a ``failed`` event for a worker that died silently).
"""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path
from typing import Callable

from explorer.core.protocol.events import TERMINAL_EVENTS, EventParseError, count_lines, parse_event
from explorer.core.remote import ssh
from explorer.core.remote.hosts import RemoteRun
from explorer.core.remote.launch import HOSTSIDE
from explorer.core.runs.layout import events_file

RECONNECT_SECONDS = (1.0, 2.0, 5.0, 10.0, 30.0)   # waits before the 1st, 2nd, ... reconnect (then the last)


class RemoteFollower:
    """Streams one remote run's events into its local mirror (see the module docstring).

    Callbacks (called on the follower's thread): ``on_event(dict)`` per new event, in file order;
    ``on_status(str)`` for connection news ("connected", "connection lost: ...; reconnecting in 2 s");
    ``on_done()`` once, when the run ended and every event was mirrored.
    """

    def __init__(self, run: RemoteRun, on_event: Callable[[dict], None] | None = None,
                 on_status: Callable[[str], None] | None = None, on_done: Callable[[], None] | None = None,
                 reconnect_seconds: tuple[float, ...] = RECONNECT_SECONDS):
        self.run = run
        self.on_event = on_event or (lambda ev: None)
        self.on_status = on_status or (lambda text: None)
        self.on_done = on_done or (lambda: None)
        self.reconnect_seconds = reconnect_seconds
        self.mirror = events_file(run.local_dir)
        self.connections = 0          # ssh channels opened so far
        self.out_of_sequence: list[tuple[int, int]] = []   # (line number, its event's seq) that differ
        self.done = threading.Event()
        self._stop = threading.Event()
        self._proc: subprocess.Popen | None = None
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @property
    def offset(self) -> int:
        """Bytes of the remote events.jsonl mirrored so far (the next fetch starts here)."""
        try:
            return self.mirror.stat().st_size
        except OSError:
            return 0

    def start(self) -> "RemoteFollower":
        """Start following on a daemon thread; returns self."""
        Path(self.run.local_dir).mkdir(parents=True, exist_ok=True)
        self._thread = threading.Thread(target=self._loop, name=f"follow-{self.run.run_id}", daemon=True)
        self._thread.start()
        return self

    def stop(self, wait: float = 5.0) -> None:
        """Stop following (the run goes on on the host); waits up to ``wait`` seconds for the thread."""
        self._stop.set()
        self.drop_connection()
        if self._thread is not None:
            self._thread.join(wait)

    def drop_connection(self) -> int | None:
        """Kill the current ssh client process (what a network drop does); returns its pid, or None."""
        with self._lock:
            proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.kill()
            return proc.pid
        return None

    def ssh_pid(self) -> int | None:
        """The pid of the ssh client of the current connection, or None."""
        with self._lock:
            return self._proc.pid if self._proc is not None and self._proc.poll() is None else None

    def _loop(self) -> None:
        failures = 0
        while not self._stop.is_set():
            ended, reason = self._connect_once()
            if ended:
                self.done.set()
                self.on_done()
                return
            if self._stop.is_set():
                return
            wait = self.reconnect_seconds[min(failures, len(self.reconnect_seconds) - 1)]
            failures = failures + 1 if reason else 0
            self.on_status(f"connection to {self.run.host.name} lost ({reason or 'closed'}); "
                           f"reconnecting in {wait:g} s")
            self._stop.wait(wait)

    def _connect_once(self) -> tuple[bool, str]:
        """One ssh channel from the current offset; returns (run ended, why the channel closed)."""
        host = self.run.host
        argv = ssh.ssh_argv(host, [host.python, "-m", HOSTSIDE, "tail", self.run.remote_dir, str(self.offset)])
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except OSError as exc:
            return False, f"cannot start ssh: {exc}"
        with self._lock:
            self._proc = proc
        if self._stop.is_set():   # stop() came while the channel opened: it found no process to kill
            proc.kill()
        self.connections += 1
        self.on_status(f"following {self.run.run_id} on {host.name}")
        buf = b""
        ended = False
        lineno = count_lines(self.mirror)
        with open(self.mirror, "ab") as mirror:
            while True:
                chunk = os.read(proc.stdout.fileno(), 1 << 16)
                if not chunk:
                    break
                buf += chunk
                if b"\n" not in buf:
                    continue
                *lines, buf = buf.split(b"\n")
                for line in lines:
                    if self._stop.is_set():   # a stopped follower never writes again (a new one may follow)
                        break
                    mirror.write(line + b"\n")
                    mirror.flush()
                    lineno += 1
                    try:
                        ev = parse_event(line.decode("utf-8", "replace"))
                    except EventParseError:
                        continue
                    if ev.get("seq") is not None and ev["seq"] != lineno:   # cannot happen with byte offsets
                        self.out_of_sequence.append((lineno, ev["seq"]))
                        self.on_status(f"event {ev['seq']} arrived as line {lineno} of the mirror")
                    self.on_event(ev)
                    if ev.get("event") in TERMINAL_EVENTS:
                        ended = True
                if ended or self._stop.is_set():
                    proc.kill()
                    break
        code = proc.wait()
        err = proc.stderr.read().decode("utf-8", "replace")
        proc.stderr.close()
        proc.stdout.close()
        with self._lock:
            self._proc = None
        if ended or code == 0:
            return True, ""
        return False, ssh.explain(host, err, code) if err.strip() else f"ssh exited with code {code}"

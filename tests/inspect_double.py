"""A test double for the inspector child: the real server (explorer.worker.inspector.Server) on a thread of
the test process, over real pipes and the real frames (explorer.core.protocol.frames). Views tested with it behave as
with the child, and in-memory tiny models can be handed over as they are (``adopt``). The real process path
is covered by tests/test_inspect_process.py."""

from __future__ import annotations

import os
import threading

from explorer.worker.inspector import Server


class ThreadTransport:
    """The transport interface of explorer.ui.inspectors.client.ProcessTransport, served by a thread."""

    def __init__(self, loader=None):
        self.loader = loader
        self.server: Server | None = None
        self._done = threading.Event()

    def start(self) -> None:
        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        self.stdin = os.fdopen(req_w, "wb")
        self.stdout = os.fdopen(rep_r, "rb")
        self._server_in = os.fdopen(req_r, "rb")
        self._server_out = os.fdopen(rep_w, "wb")
        self.server = Server(self._server_in, self._server_out, loader=self.loader)
        threading.Thread(target=self._serve, daemon=True, name="inspect-double").start()

    def _serve(self) -> None:
        try:
            self.server.serve()
        finally:
            self._done.set()
            with self.server._write_lock:
                self._server_out.close()

    def adopt(self, slot: str, loaded) -> None:
        with self.server.state.lock:
            self.server.state.models[slot] = loaded

    @property
    def pid(self) -> int:
        return os.getpid()

    def wait(self) -> int:
        self._done.wait(5)
        return 0

    def stop(self) -> None:
        try:
            self.stdin.close()
        except OSError:
            pass
        self._done.wait(5)

    def kill(self) -> None:
        """The "process" dies now: its output closes before any reply to what is pending can be written
        (closing stdin alone would let the server answer the last request first: a race)."""
        self.kill_after(lambda: None)

    def kill_after(self, send) -> None:
        """Call ``send`` (which sends a request) and let the "process" die before any reply to it is written:
        the output stays locked from before the request until it is closed, so a request answered faster than
        the caller reaches ``kill`` cannot slip its reply out first."""
        with self.server._write_lock:
            send()
            self._server_out.close()
        self.stop()

"""A tiny Chrome DevTools Protocol client for tests: headless Chromium over ``--remote-debugging-pipe`` (JSON
messages ending in NUL on the browser's fds 3 and 4; no websocket, no extra package). One page target; every
event the browser sends is kept in ``events`` (e.g. Network.requestWillBeSent for a request log)."""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
from pathlib import Path

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


class CdpError(RuntimeError):
    """Chromium answered with an error, closed the pipe, or did not answer in time."""


class Chromium:
    """``with Chromium(profile_dir) as page: page.open(url); page.js("1 + 1")``."""

    def __init__(self, profile: Path, timeout: float = 60.0):
        self.timeout = timeout
        to_r, to_w = os.pipe()
        from_r, from_w = os.pipe()
        args = [CHROMIUM, "--headless=new", "--disable-gpu", "--no-sandbox", "--remote-debugging-pipe",
                f"--user-data-dir={profile}", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-extensions",
                "--host-resolver-rules=MAP * ~NOTFOUND", "--window-size=1280,800", "about:blank"]
        # the browser reads its commands from fd 3 and writes its answers to fd 4
        cmd = " ".join(f"'{a}'" for a in args) + f" 3<&{to_r} 4>&{from_w}"
        self.proc = subprocess.Popen(["bash", "-c", "exec " + cmd], pass_fds=(to_r, from_w),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_r)
        os.close(from_w)
        self._out = os.fdopen(to_w, "wb", buffering=0)
        self._in = from_r
        self._buf = b""
        self._id = 0
        self.events: list[dict] = []
        self.session = None

    def __enter__(self) -> "Chromium":
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Network", "Page", "Runtime"):
            self.call(f"{domain}.enable")
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.call("Browser.close", session=False)
        except (CdpError, OSError):
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
        self._out.close()
        os.close(self._in)

    def _recv(self) -> dict:
        while b"\0" not in self._buf:
            ready, _, _ = select.select([self._in], [], [], self.timeout)
            if not ready:
                raise CdpError(f"chromium sent nothing for {self.timeout:.0f} s")
            chunk = os.read(self._in, 1 << 16)
            if not chunk:
                raise CdpError("chromium closed its DevTools pipe")
            self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method: str, params: dict | None = None, *, session=None):
        """Send one command (to the page unless ``session`` is False) and return its result."""
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        sid = self.session if session is None else session
        if sid:
            msg["sessionId"] = sid
        self._out.write(json.dumps(msg).encode() + b"\0")
        while True:
            reply = self._recv()
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise CdpError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method: str, since: int = 0) -> dict:
        """The first event ``method`` after index ``since`` of ``events`` (reading more until it comes)."""
        while True:
            for ev in self.events[since:]:
                if ev.get("method") == method:
                    return ev
            since = len(self.events)
            self.events.append(self._recv())

    def open(self, url: str) -> None:
        """Navigate the page to ``url`` and wait for its load event (inline scripts have run by then)."""
        mark = len(self.events)
        self.call("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired", mark)

    def js(self, expression: str):
        """The value of a JavaScript expression in the page (JSON-able)."""
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise CdpError(f"{expression}: {result['exceptionDetails'].get('text')}")
        return result["result"].get("value")

    def requests(self) -> list[str]:
        """Every URL the page asked for so far (Network.requestWillBeSent)."""
        return [e["params"]["request"]["url"] for e in self.events if e.get("method") == "Network.requestWillBeSent"]

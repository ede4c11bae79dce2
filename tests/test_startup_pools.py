"""Jobs that wait on a child process (the launcher's data previews) run on a pool of their own, so the runs
folder's first scan and every other job of the global pool start at once (two previews on the global pool hold
both its threads for ~8 s at start, and the Runs list waits behind them)."""

from __future__ import annotations

import threading

import pytest

pytest.importorskip("pytestqt")

from explorer.ui.shell.tasks import run_in_thread  # noqa: E402
from explorer.ui.shell.threads import child_wait_pool  # noqa: E402


def test_child_waits_leave_the_global_pool_free(qtbot, monkeypatch):
    from PySide6.QtCore import QThreadPool

    from explorer.ui.launch import preview

    gate = threading.Event()
    waiting = []

    def fake_preview(*_args, **_kwargs):   # stands in for the preview child: blocks until the gate opens
        waiting.append(1)
        gate.wait(60)
        return {"ok": True, "records": []}

    monkeypatch.setattr(preview, "run_preview_process", fake_preview)
    own = QThreadPool()   # the same kind of pool, not shared with the previews of other tests' windows
    own.setMaxThreadCount(child_wait_pool().maxThreadCount())
    monkeypatch.setattr(preview, "child_wait_pool", lambda: own)
    views = [preview.DataPreview(split) for split in ("train", "validation")]
    for v in views:
        qtbot.addWidget(v)
    for _ in range(QThreadPool.globalInstance().maxThreadCount()):   # as many previews as the global pool has threads
        for v in views:
            v.request(__file__, "squad_v1")
    qtbot.waitUntil(lambda: len(waiting) >= 2, timeout=60_000)
    got = []
    run_in_thread(lambda: "scanned", on_done=got.append)     # e.g. the runs folder's first scan
    try:
        qtbot.waitUntil(lambda: got == ["scanned"], timeout=60_000)
        assert not any(v.result for v in views)                # ... while the previews still wait
    finally:
        gate.set()
    assert own.waitForDone(60_000)
    qtbot.waitUntil(lambda: all(v.result is not None for v in views), timeout=60_000)

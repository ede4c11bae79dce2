"""The one way off the GUI thread: our workers (explorer.ui.shell.threads) with results, errors, progress,
and answers dropped for a deleted owner."""

from __future__ import annotations

import threading

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtWidgets import QLabel  # noqa: E402

from explorer.ui.shell.tasks import run_in_thread  # noqa: E402
from explorer.ui.shell.threads import Worker, prepare_worker, launch, start_worker  # noqa: E402


def test_result_error_and_progress_arrive_on_the_gui_thread(qtbot):
    main = threading.get_ident()
    got = {}

    def job(n):
        got["thread"] = threading.get_ident()
        return n * 2

    start_worker(job, 21, on_done=lambda r: got.update(result=r, done_thread=threading.get_ident()))
    qtbot.waitUntil(lambda: "result" in got, timeout=60_000)
    assert got["result"] == 42 and got["thread"] != main and got["done_thread"] == main

    errors = []
    start_worker(lambda: 1 / 0, on_error=lambda msg, tb: errors.append((msg, tb)))
    qtbot.waitUntil(lambda: bool(errors), timeout=60_000)
    assert errors[0][0].startswith("ZeroDivisionError") and "Traceback" in errors[0][1]

    seen, box = [], {}

    def counting():
        for i in range(3):
            box["w"].report(i + 1, 3)
        return "ok"

    box["w"] = prepare_worker(counting, on_progress=lambda d, t: seen.append((d, t)), on_done=seen.append)
    assert isinstance(box["w"], Worker)
    launch(box["w"])
    qtbot.waitUntil(lambda: "ok" in seen, timeout=60_000)
    assert seen == [(1, 3), (2, 3), (3, 3), "ok"]


def test_answer_dropped_when_the_owner_is_gone(qtbot):
    owner = QLabel()
    gate = threading.Event()
    got = []
    run_in_thread(lambda: gate.wait(5) and "late", on_done=got.append, owner=owner)
    owner.deleteLater()
    qtbot.waitUntil(lambda: not __import__("shiboken6").isValid(owner), timeout=60_000)
    gate.set()
    from PySide6.QtCore import QCoreApplication, QThreadPool

    assert QThreadPool.globalInstance().waitForDone(60_000)   # the late answer has been produced ...
    QCoreApplication.sendPostedEvents()                       # ... and delivered: no wall-clock wait
    QCoreApplication.processEvents()
    assert got == []
    run_in_thread(lambda: "fine", on_done=got.append)
    qtbot.waitUntil(lambda: got == ["fine"], timeout=60_000)

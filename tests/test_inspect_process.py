"""The real inspector child process (python -m explorer.worker.inspector) behind the inspector views: it
answers load / probe / attention-weights / dev-study requests, a newer probe supersedes an older one, the τ
study is cancellable, and a child killed mid-request gives a clear error in the view, after which the next
request starts a new child that reloads the model. (The other inspector tests use the in-thread double of
tests/inspect_double.py; the GUI process staying free of torch is checked in tests/test_layers.py.)"""

from __future__ import annotations

import pytest
from helpers import probe_in_small_windows, save_tiny_model

from test_ui_inspector_core import squad_v2_file

pytestmark = [pytest.mark.real_inspect_process, pytest.mark.slow]

QUESTION = "where was ada born?"
PASSAGE = "ada lovelace was born in london in 1815. she wrote the first program."
LONG = " ".join([PASSAGE] * 8)


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return save_tiny_model(tmp_path_factory.mktemp("inspect") / "tiny", "qa")


@pytest.fixture(scope="module")
def hub(qapp, model_dir, tmp_path_factory):
    """One hub and one real child for the whole module (each child start imports torch: seconds); the tests
    run in file order and the last one kills the child. Its own client, so the per-test reset of the shared
    client (tests/conftest.py) leaves it running."""
    from PySide6.QtCore import QEventLoop, QTimer

    from explorer.ui.inspectors import InspectorHub
    from explorer.ui.inspectors.client import InspectClient, ProcessTransport

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("EXPLORER_CACHE_DIR", str(tmp_path_factory.mktemp("inspect-cache")))
        h = InspectorHub(client=InspectClient(ProcessTransport))
        loop, timer = QEventLoop(), QTimer(singleShot=True)
        h.model_changed.connect(loop.quit)
        timer.timeout.connect(loop.quit)
        timer.start(120_000)
        h.open_model(str(model_dir))
        loop.exec()
        assert timer.isActive(), "the child did not load the tiny model in 120 s"
        timer.stop()
        h.model_changed.disconnect(loop.quit)
        yield h
        h.client.stop()
        for _, w in h.tabs():
            w.close()
            w.deleteLater()


def test_child_answers_load_probe_attention_and_dev_study(qtbot, hub, model_dir, tmp_path):
    import os

    from explorer.ui.inspectors.client import ProcessTransport

    client = hub.client
    assert client.pid not in (0, os.getpid())              # a separate process
    assert isinstance(client._transport, ProcessTransport)
    assert hub.loaded.source == str(model_dir) and hub.loaded.num_layers == 2
    result = probe_in_small_windows(qtbot, hub, QUESTION, LONG, timeout=60_000)   # only the shown window's weights
    assert len(result.windows) > 1 and result.attention is not None and result.nbest
    view = hub.attention_view
    other = (result.best_window.index + 1) % len(result.windows)
    with qtbot.waitSignal(hub.attention_windows.finished, timeout=60_000):
        view.set_window(other)
    assert result.attention[other].attentions.shape == (2, 4, len(result.windows[other]), len(result.windows[other]))
    assert view.current_matrix().shape[0] > 0
    dev = hub.dev_view
    with qtbot.waitSignal(dev.study_ready, timeout=120_000) as study:
        assert dev.run(str(squad_v2_file(tmp_path / "dev.json")), 0)
    assert len(study.args[0]) == 12 and dev.figures is not None and dev.table.rowCount() == 12


def test_a_newer_probe_supersedes_an_older_one(qtbot, hub):
    got, dropped_before = [], hub.client.dropped
    hub.result_changed.connect(lambda r: got.append(r.question))
    hub.panel.debounce.stop()
    hub.open_example("who wrote the first program?", LONG)
    with qtbot.waitSignal(hub.result_changed, timeout=60_000):
        hub.open_example(QUESTION, PASSAGE)
    qtbot.waitUntil(lambda: hub.client.dropped == dropped_before + 1, timeout=60_000)   # the older answer came
    assert got == [QUESTION]                                # the first one never reached the views
    assert hub.client.dropped == dropped_before + 1


def test_the_dev_study_is_cancelled_in_the_child(qtbot, hub, tmp_path):
    dev = hub.dev_view
    before = dev.study                                      # the first test's (the module shares one hub)
    data = squad_v2_file(tmp_path / "dev.json", n_paragraphs=150)   # 600 questions, 19 batches
    assert dev.run(str(data), 0)
    dev.cancel()
    with qtbot.waitSignal(dev.job.cancelled, timeout=60_000):
        pass
    assert dev.run_button.isEnabled() and "cancelled" in dev.status.text() and dev.study is before


def test_a_killed_child_is_an_error_in_the_view_and_the_next_request_restarts_it(qtbot, hub):
    client = hub.client
    first, before = client.pid, hub.result                 # the earlier tests' result (one hub per module)
    hub.panel.debounce.stop()
    with qtbot.waitSignal(hub.message, timeout=60_000, check_params_cb=lambda m: "stopped" in m) as blocker:
        hub.open_example(QUESTION, LONG)
        client.kill()                                       # mid-request
    assert "The inspector process stopped" in blocker.args[0] and "restarts with the next request" in blocker.args[0]
    assert "The inspector process stopped" in hub.panel.status.text()    # where the result would have been
    assert not hub.probes._outstanding and hub.result is before   # nothing from the killed request
    with qtbot.waitSignal(hub.result_changed, timeout=120_000) as again:
        hub.probe_now()                                     # a new child, which reloads the model first
    assert again.args[0].question == QUESTION and client.pid not in (0, first) and client.restarts == 1

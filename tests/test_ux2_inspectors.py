"""Inspectors (issue 11 part B): the τ-on-dev-set tab before and after a file is chosen, window settings
and dev file from a run checkpoint, the three τ values as a table, and the views' labels."""

import json
import shutil

import pytest

from test_ui_inspector_core import squad_v2_file


@pytest.fixture
def dev_view(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "cache"))
    from explorer.ui.inspectors.dev_view import DevTauView

    w = DevTauView(cache_dir=tmp_path / "cache")
    w.resize(1000, 700)
    qtbot.addWidget(w)
    w.show()
    return w


def test_dev_tab_before_a_file_and_untrained_warning(dev_view, tiny_qa):
    assert dev_view.progress.text() == "no study yet"          # not "0 / 100 windows"
    assert "windows" not in dev_view.progress.text()
    dev_view.set_model(tiny_qa)
    assert dev_view.head_note.isVisibleTo(dev_view) and "freshly initialised" in dev_view.head_note.text()
    assert dev_view.estimate.text() == ""
    dev_view.grab().save("/tmp/ux2_dev_empty.png")


def test_dev_tab_estimate_and_cap(dev_view, tiny_qa, tmp_path, monkeypatch):
    import explorer.ui.inspectors.dev_view as dv

    monkeypatch.setattr(dv, "_measured_qps", None)
    data = squad_v2_file(tmp_path / "dev.json")   # 12 questions
    dev_view.set_model(tiny_qa)
    dev_view.path.setText(str(data))
    assert "12 of 12 questions" in dev_view.estimate.text() and "guess" in dev_view.estimate.text()
    dev_view.cap.setValue(5)
    assert "5 of 12 questions" in dev_view.estimate.text()
    monkeypatch.setattr(dv, "_measured_qps", 0.01)   # slow machine: 4,000 s -> suggest a cap
    dev_view.cap.setValue(0)
    assert "measured here" in dev_view.estimate.text() and "first N questions" in dev_view.estimate.text()
    assert dv.estimate_text(4000, 0).startswith("≈ 111 h") is False   # minutes, not hours text
    assert "min" in dv.estimate_text(4000, 0)


def _checkpoint_of_run(tmp_path, model_dir, dev, **config):
    run = tmp_path / "runs" / "r1"
    ckpt = run / "checkpoints" / "best"
    shutil.copytree(model_dir, ckpt)
    (run / "config.json").write_text(json.dumps({"task": "squad_v2", "dev": str(dev), **config}), encoding="utf-8")
    return ckpt


def test_run_checkpoint_prefills_dev_file_and_window_settings(qtbot, tmp_path, monkeypatch):
    from explorer.core.models import load_model
    from explorer.ui.inspectors import InspectorHub
    from tests.helpers import save_tiny_model

    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "cache"))
    data = squad_v2_file(tmp_path / "dev.json")
    model_dir = save_tiny_model(tmp_path / "m")
    ckpt = _checkpoint_of_run(tmp_path, model_dir, data, max_seq_length=64, doc_stride=16, max_query_length=20)
    hub = InspectorHub()
    for _, w in hub.tabs():
        qtbot.addWidget(w)
    with qtbot.waitSignal(hub.model_changed, timeout=30000):
        hub.open_model(str(ckpt))
    panel = hub.panel
    assert (panel.max_seq_length.value(), panel.doc_stride.value(), panel.max_query_length.value()) == (64, 16, 20)
    assert "config.json" in panel.window_note.text()
    dev = hub.dev_view
    assert dev.path.text() == str(data) and "max_seq_length 64" in dev.estimate.text()
    with qtbot.waitSignal(dev.study_ready, timeout=60000) as blocker:
        assert dev.run(dev.path.text(), 0)
    assert blocker.args[0].settings["max_seq_length"] == 64 and blocker.args[0].settings["doc_stride"] == 16
    dev.resize(1200, 800)
    dev.show()
    qtbot.wait(50)
    dev.grab().save("/tmp/ux2_dev_study.png")
    hub.pool.waitForDone(10000)

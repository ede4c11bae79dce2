"""Loading tells the truth, the GUI side: red window fields with the reason (launcher, probe panel), the
"doc_stride (overlap)" labels, the random-encoder note, and the attention view under the memory budget."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from helpers import probe_in_small_windows

pytest.importorskip("pytestqt")

QUESTION = "where was ada born?"
LONG = " ".join(["ada was born in london in 1815 and she wrote the first program."] * 12)


def _short_folder(tmp_path, tok, positions=64):
    from transformers import BertConfig, BertForQuestionAnswering

    cfg = BertConfig(vocab_size=len(tok), hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                     intermediate_size=64, max_position_embeddings=positions)
    folder = tmp_path / "short"
    BertForQuestionAnswering(cfg).save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


def test_launcher_marks_max_seq_length_red_with_the_reason(qtbot, tmp_path, tiny_qa):
    from explorer.ui.launch.launcher import LauncherPanel

    folder = str(_short_folder(tmp_path, tiny_qa.tokenizer))
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    assert w.editors["doc_stride"].label.text() == "doc_stride (overlap)"
    cfg = dataclasses.replace(w.config(), model=folder, task="squad_v2", max_seq_length=128, doc_stride=32,
                              max_query_length=16)
    w.set_config(cfg)
    ed = w.editors["max_seq_length"]
    assert ed.focus.property("invalidReason") == f"max_seq_length 128 > 64 position embeddings of {folder}"
    assert ed.focus.toolTip().startswith(f"ERROR: max_seq_length 128 > 64 position embeddings of {folder}")
    assert "#f8d7da" in ed.focus.styleSheet() and not w.launch_btn.isEnabled()
    assert "window settings do not fit the model: max_seq_length 128 > 64" in w.problem.text()
    assert not w.editors["doc_stride"].focus.property("invalidReason")
    ed.set(64)  # fits: the field clears, launching is possible again
    assert not ed.focus.property("invalidReason") and ed.focus.styleSheet() == "" and w.launch_btn.isEnabled()
    assert not ed.focus.toolTip().startswith("ERROR")


def test_probe_panel_marks_fields_and_refuses_to_probe(qtbot, tmp_path, tiny_qa):
    from explorer.core.models.loading import load_model
    from explorer.ui.inspectors import InspectorHub

    hub = InspectorHub()
    for _, page in hub.tabs():
        qtbot.addWidget(page)
    hub.set_model(load_model(str(_short_folder(tmp_path, tiny_qa.tokenizer)), "qa"))
    panel = hub.panel
    panel.set_inputs(QUESTION, LONG)
    panel.max_seq_length.setValue(128)
    assert hub.probe_now() is None
    assert panel.max_seq_length.toolTip().startswith("ERROR: max_seq_length 128 > 64 position embeddings")
    assert "max_seq_length 128 > 64 position embeddings" in panel.window_note.text()
    assert "window settings do not fit the model" in panel.status.text()
    panel.max_seq_length.setValue(64)
    panel.doc_stride.setValue(60)  # >= the passage room of this question
    assert hub.probe_now() is None and panel.doc_stride.toolTip().startswith("ERROR: doc_stride (overlap) 60")
    panel.doc_stride.setValue(16)
    assert hub.check_windows() == [] and panel.window_note.isHidden()


def test_hub_says_when_the_encoder_did_not_load(qtbot, tmp_path):
    import shutil

    from helpers import save_tiny_model
    from safetensors.torch import load_file, save_file

    from explorer.core.models.loading import load_model
    from explorer.ui.inspectors import InspectorHub

    good = save_tiny_model(tmp_path / "good", "qa")
    bad = tmp_path / "bad"
    shutil.copytree(good, bad)
    sd = load_file(str(good / "model.safetensors"))
    save_file({k.replace("bert.", "encoder_model.", 1): v for k, v in sd.items()}, str(bad / "model.safetensors"),
              metadata={"format": "pt"})
    hub = InspectorHub()
    for _, page in hub.tabs():
        qtbot.addWidget(page)
    hub.set_model(load_model(str(bad), "qa"))
    note = hub.panel.model_note.text()
    assert hub.panel.model_note.isVisibleTo(hub.panel) and "the encoder did not load (random encoder)" in note
    assert "37 of 39 weights not in the checkpoint" in note
    assert "fine-tuned" not in hub.panel.model_info.text()
    hub.set_model(load_model(str(good), "qa"))
    assert not hub.panel.model_note.isVisibleTo(hub.panel) and "fine-tuned" in hub.panel.model_info.text()


def test_attention_view_computes_a_window_when_shown(qtbot, tiny_qa):
    from explorer.core.qa.probe import probe
    from explorer.ui.inspectors.attention_view import AttentionView

    full = probe(tiny_qa, QUESTION, LONG, attentions=True, keep_attentions="float32", max_seq_length=48,
                 doc_stride=16, attention_budget=None)
    small = probe(tiny_qa, QUESTION, LONG, attentions=True, max_seq_length=48, doc_stride=16,
                  attention_budget=2 * 4 * 48 * 48 * 2)
    view = AttentionView()
    qtbot.addWidget(view)
    view.merge.setChecked(False)
    view.set_result(small)
    assert "Memory budget:" in view.info.text() and "keeping only the shown window" in view.info.text()
    other = (small.best_window.index + 1) % len(small.windows)
    view.set_window(other)
    expected = full.attention[other].attentions[max(view.layer.currentIndex(), 0)].mean(axis=0)
    np.testing.assert_allclose(view.current_matrix(), expected, atol=2e-3)
    assert [k for k, a in enumerate(small.attention) if a.attentions is not None] == [other]


def test_hub_computes_the_shown_window_off_the_gui_thread(qtbot, tiny_qa):
    """Over the memory budget, the probe (in the inspector child) keeps only the best window's weights; showing
    another window asks the child for its weights, which arrive as that window's and replace the others."""
    from explorer.core.qa.probe import probe
    from explorer.ui.inspectors import InspectorHub

    hub = InspectorHub()
    for _, page in hub.tabs():
        qtbot.addWidget(page)
    hub.set_model(tiny_qa)
    small = probe_in_small_windows(qtbot, hub, QUESTION, LONG)
    assert "keeping only the shown window" in small.attention_note
    full = probe(tiny_qa, QUESTION, LONG, attentions=True, keep_attentions="float32", max_seq_length=48,
                 doc_stride=16, attention_budget=None)
    view = hub.attention_view
    view.merge.setChecked(False)
    other = (small.best_window.index + 1) % len(small.windows)
    with qtbot.waitSignal(hub.attention_windows.finished, timeout=20000):
        view.set_window(other)
        assert "computing the weights of window" in view.info.text()  # placeholder while it computes
    layer = max(view.layer.currentIndex(), 0)
    np.testing.assert_allclose(view.current_matrix(), full.attention[other].attentions[layer].mean(axis=0),
                               atol=2e-3)
    assert [k for k, a in enumerate(small.attention) if a.attentions is not None] == [other]


def test_a_hub_whose_pages_are_gone_drops_late_replies(qtbot):
    """A probe reply that arrives after the hub's pages were deleted (a closed window, the previous test's
    teardown) is dropped; it was drawn into the deleted panel and raised in the next test's event loop."""
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication

    from explorer.ui.inspectors import InspectorHub

    hub = InspectorHub()
    for _, page in hub.tabs():
        page.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)   # runs the deferred deletes
    assert all(ch.signalsBlocked() for ch in (hub.loads, hub.probes, hub.datasets, hub.attention_windows))
    hub.probes.busy.emit(False)                # without the fix: set_busy on the deleted progress bar

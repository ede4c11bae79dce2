"""Two checkpoints, one example (explorer.core.qa.attention_compare and the Attention page's "Compare with
checkpoint…" view): B − A is the difference of the two models' attention arrays, both flows and both answers."""

from __future__ import annotations

import os

import numpy as np
import pytest

from explorer.core.qa.attention_compare import CheckpointMismatchError, compare_checkpoints

QUESTION = "where was ada born?"
PASSAGE = "ada lovelace was born in london in 1815. she wrote the first program."
SHOTS = os.environ.get("EXPLORER_SHOTS")   # a folder: the test also saves its screenshot there


@pytest.fixture(scope="module")
def model_b():
    from helpers import tiny_loaded_model

    return tiny_loaded_model("qa", seed=1)


def test_b_minus_a_is_the_difference_of_the_attention_arrays(tiny_qa, model_b):
    from explorer.core.qa.probe import probe

    c = compare_checkpoints(tiny_qa, model_b, QUESTION, PASSAGE, label_a="base", label_b="tuned")
    ra = probe(tiny_qa, QUESTION, PASSAGE, attentions=True, keep_attentions="float32")
    rb = probe(model_b, QUESTION, PASSAGE, attentions=True, keep_attentions="float32")
    k = ra.best_window.index
    wa, wb = ra.attention_weights(k), rb.attention_weights(k)
    assert c.window == k and c.tokens == ra.windows[k].tokens
    for layer in range(2):
        for head in (None, 0, 3):
            a, b, d = c.attention(layer, head)
            want_a = wa[layer].mean(0) if head is None else wa[layer, head]
            want_b = wb[layer].mean(0) if head is None else wb[layer, head]
            np.testing.assert_allclose(a, want_a, atol=1e-6)
            np.testing.assert_allclose(b, want_b, atol=1e-6)
            np.testing.assert_array_equal(d, b - a)
            np.testing.assert_allclose(d, want_b - want_a, atol=1e-6)
    assert np.abs(c.attention(0, 0)[2]).max() > 1e-4        # two different models: a real difference
    fa, fb = c.flow()
    np.testing.assert_allclose(fa, ra.attention[k].flow_mean, atol=1e-6)
    np.testing.assert_allclose(fb, rb.attention[k].flow_mean, atol=1e-6)
    np.testing.assert_allclose(c.start_probs_b, rb.windows[k].start_probs)
    assert c.score_diff_a == pytest.approx(ra.score_diff) and c.score_diff_b == pytest.approx(rb.score_diff)
    with pytest.raises(CheckpointMismatchError, match="window 5"):
        compare_checkpoints(tiny_qa, model_b, QUESTION, PASSAGE, window=4)


def test_compare_view_from_the_attention_page(qtbot, tiny_qa, model_b, tmp_path, monkeypatch):
    from helpers import save_tiny_model

    from explorer.ui.inspectors import InspectorHub
    from explorer.ui.inspectors.checkpoint_compare_view import symmetric_levels

    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "cache"))
    folder = save_tiny_model(tmp_path / "b", "qa", seed=1)
    hub = InspectorHub()
    for _, w in hub.tabs():
        qtbot.addWidget(w)
    hub.set_model(tiny_qa)
    with qtbot.waitSignal(hub.result_changed, timeout=20000):
        hub.open_example(QUESTION, PASSAGE)
    assert hub.attention_view.compare.isVisibleTo(hub.attention_view)
    hub.attention_view.compare.click()                      # "Compare with checkpoint…"
    view = hub.compare_view
    qtbot.addWidget(view)
    assert view.isVisible() and view.example["question"] == QUESTION
    view.source_b.setText(str(folder))
    with qtbot.waitSignal(view.compared, timeout=20000) as got:
        view.compare_button.click()
    c = got.args[0]
    view.layer.setCurrentIndex(1)
    view.head.setCurrentIndex(2)                            # layer 2, head 2
    a, b, d = view.matrices()
    np.testing.assert_array_equal(a, c.attentions_a[1, 1])
    np.testing.assert_array_equal(b, c.attentions_b[1, 1])
    np.testing.assert_array_equal(d, c.attentions_b[1, 1] - c.attentions_a[1, 1])
    local = compare_checkpoints(tiny_qa, model_b, QUESTION, PASSAGE)   # the same numbers as in this process
    np.testing.assert_allclose(d, local.attention(1, 1)[2], atol=1e-6)
    lo, hi = view.map_diff.levels
    assert lo == -hi == symmetric_levels(d)[0] and hi == pytest.approx(np.abs(d).max())
    assert len(view.flow_plot.plotItem.listDataItems()) == 6      # 3 block flows x (A, B)
    assert "score_diff" in view.answers.text()
    if SHOTS:
        from PySide6.QtWidgets import QApplication

        view.resize(1280, 800)
        QApplication.processEvents()   # laid out at the new size
        view.grab().save(os.path.join(SHOTS, "checkpoint_compare.png"))


def test_runs_dock_offers_two_runs_compare(qtbot, monkeypatch):
    from explorer.ui.runs.dock import RunsPanel
    from explorer.ui.runs.state import RunState

    dock = RunsPanel()
    qtbot.addWidget(dock)
    qa = {"task": "squad_v2"}
    a = RunState(run_id="a", status="finished", best_checkpoint="/runs/a/checkpoint-best", config=qa)
    b = RunState(run_id="b", status="finished", best_checkpoint="/runs/b/checkpoint-best", config=qa)
    plain = RunState(run_id="c", status="finished", config=qa)
    sst = RunState(run_id="d", status="finished", best_checkpoint="/runs/d/checkpoint-best", config={"task": "single"})
    actions = {x.text(): x for x in dock.context_menu([a, b]).actions() if x.text()}
    assert actions["Compare on one example…"].isEnabled()
    assert not {x.text(): x for x in dock.context_menu([a]).actions()}["Compare on one example…"].isEnabled()
    for other in (plain, sst):   # no checkpoint; not a QA run
        assert not {x.text(): x for x in dock.context_menu([a, other]).actions()}["Compare on one example…"].isEnabled()
    monkeypatch.setattr(dock, "_selected_states", lambda: [a, b])
    with qtbot.waitSignal(dock.compare_requested) as got:
        actions["Compare on one example…"].trigger()
    assert got.args == ["/runs/a/checkpoint-best", "/runs/b/checkpoint-best"]


def test_compare_tab_pair_page_opens_attention_a_vs_b(qtbot, tmp_path):
    from helpers import save_tiny_model

    from explorer.core.qa.compare import Comparison, QuestionComparison, count_agreement
    from explorer.core.models.loading import load_model
    from explorer.ui.groups.compare_spans import PairSpansView

    a, b = save_tiny_model(tmp_path / "a", seed=0), save_tiny_model(tmp_path / "b", seed=1)
    row = QuestionComparison("q1", QUESTION, ["london"], "london", "paris", 1.0, 1.0, 0.0, 0.0, 2.0, 1.0, PASSAGE)
    comparison = Comparison("v2.0", str(a), str(b), 0.0, 0.0, [row], count_agreement([row], "v2.0"),
                            {"exact_match": 100.0, "f1": 100.0}, {"exact_match": 0.0, "f1": 0.0},
                            settings={"max_seq_length": 64, "doc_stride": 16})
    pair = PairSpansView()
    qtbot.addWidget(pair)
    assert not pair.attention_button.isEnabled()
    with qtbot.waitSignal(pair.probed, timeout=60_000):
        pair.open_row(comparison, row)
    assert pair.attention_button.isEnabled()
    pair.attention_button.click()   # opens the view and asks the child (replies come through the event loop)
    view = pair.attention_view
    qtbot.addWidget(view)
    with qtbot.waitSignal(view.compared, timeout=60_000) as got:
        pass
    c = got.args[0]
    assert c.label_a == str(a) and view.slot_b == "compare-b"       # B from the page's own slot, not reloaded
    local = compare_checkpoints(load_model(str(a), "qa"), load_model(str(b), "qa"), QUESTION, PASSAGE,
                                max_seq_length=64, doc_stride=16)
    np.testing.assert_allclose(c.attentions_b - c.attentions_a, local.attentions_b - local.attentions_a, atol=1e-6)

"""A disagreement opens in Spans & τ for both checkpoints side by side (explorer/ui/groups/compare_spans.py)."""

from __future__ import annotations

import math

import pytest

pytest.importorskip("pytestqt")

from helpers import save_tiny_model  # noqa: E402

from explorer.core.qa.compare import Comparison, QuestionComparison, count_agreement  # noqa: E402

QUESTION = "where was ada born?"
PASSAGE = "ada was born in london. the first model was born in paris."


def _comparison(a, b, tau_b=1.5):
    row = QuestionComparison("q1", QUESTION, ["london"], "london", "paris", 1.0, 1.0, 0.0, 0.0, 2.0, 1.0, PASSAGE)
    return Comparison("v2.0", str(a), str(b), 0.0, tau_b, [row], count_agreement([row], "v2.0"),
                      {"exact_match": 100.0, "f1": 100.0}, {"exact_match": 0.0, "f1": 0.0},
                      settings={"max_seq_length": 64, "doc_stride": 16}), row


def test_side_by_side_shows_each_checkpoints_own_result(qtbot, tmp_path):
    from explorer.core.models.loading import load_model
    from explorer.core.qa.probe import probe
    from explorer.ui.groups.compare_spans import PairSpansView

    a, b = save_tiny_model(tmp_path / "a", seed=0), save_tiny_model(tmp_path / "b", seed=1)
    comparison, row = _comparison(a, b)
    view = PairSpansView()
    qtbot.addWidget(view)
    view.resize(1400, 700)
    with qtbot.waitSignal(view.probed, timeout=60_000):
        view.open_row(comparison, row)
    ra, rb = (v.result for v in view.views)
    assert ra.source == str(a) and rb.source == str(b)
    assert ra.question == rb.question == QUESTION and ra.passage == rb.passage == PASSAGE
    # two different checkpoints: two different results, each the probe of its own model
    assert not math.isclose(ra.score_diff, rb.score_diff, abs_tol=1e-6)
    for res, src in ((ra, a), (rb, b)):
        ref = probe(load_model(str(src), task="qa"), QUESTION, PASSAGE, max_seq_length=64, doc_stride=16)
        assert res.score_diff == pytest.approx(ref.score_diff, abs=1e-4)
        assert [c.text for c in res.nbest[:3]] == [c.text for c in ref.nbest[:3]]
    assert view.views[0].tau == 0.0 and view.views[1].tau == 1.5          # each side at its own τ
    assert "score_diff" in view.headers[1].text() and "τ 1.50" in view.headers[1].text()
    assert "ada born" in view.question.text() and "F1 A 1.00" in view.question.text()
    assert view.cache == {"compare-a": str(a), "compare-b": str(b)}       # one child slot per checkpoint
    with qtbot.waitSignal(view.inspector_requested, timeout=60_000) as sig:
        view.open_buttons[1].click()
    assert sig.args == [str(b), QUESTION, PASSAGE]


def test_bad_checkpoint_is_a_message_not_a_traceback(qtbot, tmp_path):
    from explorer.ui.groups.compare_spans import PairSpansView

    view = PairSpansView()
    qtbot.addWidget(view)
    comparison, row = _comparison(tmp_path / "nothing-here", tmp_path / "nor-here")
    view.open_row(comparison, row)
    qtbot.waitUntil(lambda: "Cannot probe" in view.status.text(), timeout=30_000)
    assert "nothing-here" in view.status.text() and view.views[0].result is None


def test_compare_tab_double_click_opens_the_pair_page(qtbot, tmp_path, monkeypatch):
    from explorer.ui.groups.tabs import CompareTab

    tab = CompareTab()
    qtbot.addWidget(tab)
    comparison, row = _comparison("A", "B")
    tab.view.set_comparison(comparison)
    asked = []
    monkeypatch.setattr(tab.pair, "open_row", lambda c, r: asked.append((c, r)) or 1)
    tab.view.table.cellDoubleClicked.emit(0, 0)
    assert asked == [(comparison, row)] and tab.pages.currentWidget() is tab.pair


def test_an_older_question_answering_late_is_dropped(qtbot):
    from explorer.ui.groups.compare_spans import PairSpansView

    view = PairSpansView()
    qtbot.addWidget(view)
    view.generation = 2                       # the user asked a newer question meanwhile
    view._done(1, ("stale A", "stale B"))
    view._failed(1, "stale error")
    assert [v.result for v in view.views] == [None, None] and "stale" not in view.status.text()

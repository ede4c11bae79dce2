"""Numbers a user reads side by side agree: the official best_f1_thresh and the app's τ
explained in one line (and the relation holds), one τ grid for the study and the slider, windows numbered
from 1, and a SQuAD v1.1 model's Spans & τ page says it was never trained to abstain."""

import json

import numpy as np

from explorer.core.models.checkpoint_windows import V11_ABSTAIN_NOTE, abstain_note, squad_version_of
from explorer.core.specs.metric_display import explain_best_threshold, threshold_relation
from explorer.core.metrics.squad import _tau_between
from explorer.core.qa.scores import DEFAULT_TAUS, TAU_GRID_LIMIT, tau_axis_limit


def test_threshold_relation_states_the_units_and_holds():
    diffs = np.array([5.0, 3.928, 3.91, -1.0])
    thresh = -3.928                       # the official search: answer iff null odds (= -score_diff) <= t
    tau = _tau_between(thresh, diffs)
    assert tau == (3.928 + 3.91) / 2       # halfway to the next lower score_diff
    assert ((diffs > tau) == (-diffs <= thresh)).all()   # the same questions answered
    line = threshold_relation(tau, thresh)
    assert "null-odds units" in line and "score_diff ≥ +3.928" in line and f"τ {tau:+.3f}" in line
    lines = explain_best_threshold({"best_f1": 60.0, "best_f1_thresh": thresh, "best_tau": tau, "NoAns_total": 1,
                                    "HasAns_total": 3}, n_answered=2)
    assert any("halfway from there to the next lower score_diff" in x for x in lines)


def test_one_tau_grid_for_the_study_and_the_slider():
    assert DEFAULT_TAUS[0] == -TAU_GRID_LIMIT and DEFAULT_TAUS[-1] == TAU_GRID_LIMIT == 6.0
    assert tau_axis_limit(2.5, 0.0) == TAU_GRID_LIMIT and tau_axis_limit(float("nan")) == TAU_GRID_LIMIT
    assert tau_axis_limit(-10.9, 0.0) == 12.0            # widened only to reach this question's score_diff


def test_the_spans_slider_runs_over_the_grid(qtbot, tiny_qa):
    from explorer.core.qa.probe import probe
    from explorer.ui.inspectors.spans_view import SLIDER_SCALE, SpansView

    view = SpansView()
    qtbot.addWidget(view)
    result = probe(tiny_qa, "Where was Ada born?", "Ada Lovelace was born in London in 1815.")
    view.set_result(result)
    limit = tau_axis_limit(result.score_diff, view.tau)
    assert view.slider.maximum() == int(limit * SLIDER_SCALE) and view.slider.minimum() == -view.slider.maximum()
    if abs(result.score_diff) <= TAU_GRID_LIMIT:
        assert view.slider.maximum() == 6 * SLIDER_SCALE and "the τ study's grid" in view.slider.toolTip()


def _run_checkpoint(tmp_path, task: str):
    run = tmp_path / task
    (run / "checkpoints" / "best").mkdir(parents=True)
    (run / "config.json").write_text(json.dumps({"task": task, "model": "bundled:minilm"}), encoding="utf-8")
    return str(run / "checkpoints" / "best")


def test_a_squad_v1_model_gets_the_never_trained_to_abstain_note(qtbot, tmp_path):
    from explorer.core.specs.hub_checkpoints import QA_PRESETS
    from explorer.core.specs.tasks import get_task_facts
    from explorer.ui.inspectors.spans_view import SpansView

    v1, v2 = _run_checkpoint(tmp_path, "squad_v1"), _run_checkpoint(tmp_path, "squad_v2")
    assert squad_version_of(v1, v1) == "v1.1" and abstain_note(v1, v1) == V11_ABSTAIN_NOTE
    assert abstain_note(v2, v2) == "" and abstain_note("bundled:minilm") == ""
    hub_v1 = [p for p in QA_PRESETS if not get_task_facts(p.task).has_no_answer]
    if hub_v1:
        assert abstain_note(hub_v1[0].hub_id) == V11_ABSTAIN_NOTE
    view = SpansView()
    qtbot.addWidget(view)
    view.set_abstain_note(abstain_note(v1, v1))
    assert not view.abstain_note.isHidden() and "never trained to abstain" in view.abstain_note.text()
    assert '"Offline SQuAD 2.0" preset' in view.abstain_note.text()   # the way out: a model that learnt to abstain
    view.set_abstain_note("")
    assert view.abstain_note.isHidden()


def test_the_spans_nbest_table_adds_its_printed_parts_and_says_so_on_the_score(qtbot, tiny_qa):
    """A table needing four decimals: the row 1.403751 + 3.375451 shows 4.7793 (its printed parts added), and the
    score cell's tooltip says the parts are rounded to 4 decimals."""
    from explorer.core.qa.probe import probe
    from explorer.ui.inspectors.spans_view import SpansView

    view = SpansView()
    qtbot.addWidget(view)
    result = probe(tiny_qa, "Where was Ada born?", "Ada Lovelace was born in London in 1815.")
    assert len(result.nbest) >= 2
    result.decoding.nbest[:] = result.nbest[:2]
    for c, (s, e) in zip(result.nbest, ((1.403751, 3.375451), (0.12551, 0.12551))):
        c.start_logit, c.end_logit = s, e
    view.set_result(result)
    cells = [view.nbest.item(0, k).text() for k in (2, 3, 4)]
    assert cells == ["1.4038", "3.3755", "4.7793"]
    assert "parts rounded to 4 decimals" in view.nbest.item(0, 4).toolTip()

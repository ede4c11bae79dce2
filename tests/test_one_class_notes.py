"""One rule for every head: an evaluation that predicted one class for everything its head counts (a classifier's
dev rows, a tagger's dev tokens: only "O") gets the warning with what to try, in Curves (RunState) and in
``bert-explorer runs``; the advice writes the run's learning rate as it writes the suggested one."""

from __future__ import annotations

import json

import pytest

from explorer.core.metrics.baselines import learning_rate_text, one_class_note, task_one_class_note
from explorer.core.metrics.tagging import tagging_metrics
from explorer.core.runs.layout import config_file, events_file
from explorer.core.specs import heads

GOLD = [["B-PER", "I-PER", "O", "O", "B-LOC"], ["O", "B-ORG", "O"]]
ONLY_O = [["O"] * 5, ["O"] * 3]
SOME = [["B-PER", "I-PER", "O", "O", "O"], ["O", "O", "O"]]


def _tagger_events(run_id: str, pred, lr=5e-5) -> list[dict]:
    return [{"event": "started", "run_id": run_id, "time": 0.0, "steps_total": 20,
             "config": {"task": "ner", "learning_rate": lr}},
            {"event": "eval", "run_id": run_id, "time": 5.0, "step": 12, "metrics": tagging_metrics(GOLD, pred)}]


def test_a_tagger_predicting_only_o_is_warned_as_a_stuck_classifier_is():
    from explorer.ui.runs.state import RunState

    assert tagging_metrics(GOLD, ONLY_O)["predicted_tags"] == {"O": 8}
    stuck = RunState.from_events("ner-a", _tagger_events("ner-a", ONLY_O))
    assert stuck.one_class_note().text == ("predicts only 'O' for every dev token: try a larger learning rate, e.g. 1e-4 "
                                      "(this run: 5e-5), or more epochs")
    assert RunState.from_events("ner-b", _tagger_events("ner-b", SOME)).one_class_note().text == ""
    # the unit comes from the head spec: a head without one (regression) is never warned
    assert heads.TOKEN_CLASSIFICATION.one_class_unit == "dev token" and heads.SINGLE_LABEL.one_class_unit == "dev row"
    assert task_one_class_note("stsb", tagging_metrics(GOLD, ONLY_O), 2e-5).text == ""


def test_bert_explorer_runs_says_the_same_note(tmp_path, capsys):
    from explorer.cli import main

    folder = tmp_path / "ner-a"
    folder.mkdir()
    config_file(folder).write_text(json.dumps({"task": "ner", "learning_rate": 5e-5}))
    events_file(folder).write_text("\n".join(json.dumps(e) for e in _tagger_events("ner-a", ONLY_O)) + "\n")
    assert main(["runs", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert "note: ner-a predicts only 'O' for every dev token: try a larger learning rate, e.g. 1e-4" in err


@pytest.mark.parametrize("rate, text", [(1e-4, "1e-4"), (0.0001, "1e-4"), (2e-5, "2e-5"), (2.5e-5, "2.5e-5"),
                                        (3e-3, "3e-3")])
def test_learning_rates_are_written_one_way(rate, text):
    assert learning_rate_text(rate) == text


def test_the_advice_names_a_larger_rate_written_as_the_suggestion_or_other_advice():
    metrics = tagging_metrics(GOLD, ONLY_O)
    low = one_class_note(metrics, 5e-5, unit="dev token").text
    assert "e.g. 1e-4 (this run: 5e-5)" in low
    high = one_class_note(metrics, 1e-4, unit="dev token", steps=12).text
    assert "larger learning rate" not in high and "at learning rate 1e-4: train longer" in high
    assert "0.0001" not in high


def test_the_curves_page_shows_the_tagger_note(qtbot):
    from helpers import shown_curves_panel

    from explorer.ui.runs.state import RunState

    curves = shown_curves_panel(qtbot, 1000, 600)
    curves.set_runs([RunState.from_events("ner-a", _tagger_events("ner-a", ONLY_O)),
                     RunState.from_events("ner-b", _tagger_events("ner-b", SOME))])
    curves.redraw_now()
    qtbot.waitUntil(lambda: curves.run_notes.isVisible())
    text = curves.run_notes.text()
    assert "ner-a predicts only 'O' for every dev token" in text and "ner-b" not in text


def test_a_live_run_is_advised_only_once_its_one_class_evaluations_persist():
    """A live run's first evaluation a few steps in may predict one class and the next not: no advice then; it
    comes with a second such evaluation, or once a third of the planned steps are done, and a run that ended is
    advised at once."""
    from explorer.ui.runs.state import RunState

    def events(steps, total=120, ended=False):
        out = [{"event": "started", "run_id": "r", "time": 0.0, "steps_total": total,
                "config": {"task": "ner", "learning_rate": 5e-5}}]
        for k, step in enumerate(steps):
            out += [{"event": "step", "run_id": "r", "time": 1.0 + k, "step": step, "loss": 1.0},
                    {"event": "eval", "run_id": "r", "time": 1.5 + k, "step": step, "metrics": tagging_metrics(GOLD, ONLY_O)}]
        if ended:
            out.append({"event": "finished", "run_id": "r", "time": 9.0, "metrics": {}, "seconds": 9.0})
        return out

    def live(evts):
        state = RunState.from_events("r", evts)
        state.status = "running"
        return state

    assert live(events([10])).one_class_note().text == ""                          # one early evaluation: wait
    assert live(events([10, 20])).one_class_note().text.startswith(                # two in a row: the model so far
        "so far (the evaluation at step 20; 100 of 120 steps to go) predicts only 'O' for every dev token: try")
    assert live(events([45])).one_class_note().text.startswith(                    # past a third of the steps
        "so far (the evaluation at step 45; 75 of 120 steps to go) predicts only 'O'")
    assert RunState.from_events("r", events([10], ended=True)).one_class_note().text.startswith("predicts only 'O'")


def test_the_untrained_models_evaluation_is_not_judged_once_the_run_has_trained():
    """A run stopped at step 14 whose only evaluation was the untrained model's (step 0) gets no "predicts only"
    note: that evaluation says nothing of the training; "after N training steps" counts the steps of the
    evaluation judged, not the run's last step."""
    from explorer.ui.runs.state import RunState

    def events(eval_steps, last_step, lr=1e-4):
        out = [{"event": "started", "run_id": "r", "time": 0.0, "steps_total": 120,
                "config": {"task": "ner", "learning_rate": lr}}]
        out += [{"event": "eval", "run_id": "r", "time": 1.0 + k, "step": s, "metrics": tagging_metrics(GOLD, ONLY_O)}
                for k, s in enumerate(eval_steps)]
        out += [{"event": "step", "run_id": "r", "time": 5.0, "step": last_step, "loss": 1.0},
                {"event": "stopped", "run_id": "r", "time": 9.0}]
        return out

    assert RunState.from_events("r", events([0], 14)).one_class_note().text == ""
    note = RunState.from_events("r", events([0, 10], 14)).one_class_note().text
    assert note.startswith("predicts only 'O' for every dev token after 10 training steps at learning rate 1e-4")
    assert RunState.from_events("r", events([0], 0)).one_class_note().text.startswith("predicts only 'O'")   # no training: as evaluated


def _stuck_classifier_events(run_id: str) -> list[dict]:
    """A finished single-sentence run whose evaluations predicted '5' for all 100 dev rows (39 of them are '5')."""
    per_class = {"5": {"precision": 0.39, "recall": 1.0, "f1": 0.56, "support": 39},
                 "1": {"precision": 0.0, "recall": 0.0, "f1": 0.0, "support": 61}}
    metrics = {"accuracy": 0.39, "mcc": 0.0, "per_class": per_class}
    return [{"event": "started", "run_id": run_id, "time": 0.0, "steps_total": 60,
             "config": {"task": "single", "learning_rate": 2e-5}},
            {"event": "eval", "run_id": run_id, "time": 5.0, "step": 30, "metrics": metrics},
            {"event": "eval", "run_id": run_id, "time": 9.0, "step": 60, "metrics": metrics},
            {"event": "finished", "run_id": run_id, "time": 10.0, "step": 60}]


def test_the_runs_list_and_the_end_message_mark_a_run_that_predicts_one_class():
    """A figure that is the majority rate is marked in the Best dev cell ("39.00% acc · one class"), the Curves
    sentence in its tooltip, and said in the run's end message: the same decision (RunState.one_class_note)."""
    from explorer.core.runs import status as run_status
    from explorer.ui.runs.run_cells import COLUMNS, RunCells
    from explorer.ui.runs.state import RunState
    from explorer.ui.shell.status_texts import ended_message

    stuck = RunState.from_events("sst-a", _stuck_classifier_events("sst-a"))
    note = stuck.one_class_note().text
    assert stuck.one_class_note().kind == "one class"   # the kind the mark is chosen by, made with the words
    assert note.startswith("predicts only '5' for every dev row: try a larger learning rate")
    cells = RunCells(type("Source", (), {"names": {}, "sizes": {}})())
    col = COLUMNS.index("Best dev")
    assert cells.text(stuck, col).endswith(" !") and "acc" in cells.text(stuck, col)
    assert note in cells.tooltip(stuck, col)
    assert cells.warns(stuck, col) and not cells.warns(stuck, COLUMNS.index("Run"))   # amber: seen when elided
    assert ended_message("sst-a", run_status.FINISHED, stuck) == f"sst-a: {run_status.FINISHED} — {note}"


def test_a_run_that_never_predicts_some_classes_is_marked_as_one_stuck_on_one_class_is():
    """Two of four classes never predicted (109 of 511 dev rows theirs): macro F1 42.41 reads like a model; the
    Runs list marks it in amber with the sentence in its tooltip, by the same decision as one class."""
    import numpy as np

    from explorer.core.metrics.baselines import never_predicted
    from explorer.core.metrics.glue import per_class_metrics
    from explorer.ui.runs.run_cells import COLUMNS, RunCells
    from explorer.ui.runs.state import RunState

    names = ["irrelevant", "negative", "neutral", "positive"]
    gold = np.array([0] * 169 + [1] * 57 + [2] * 233 + [3] * 52)
    pred = np.array([0] * 157 + [2] * 12 + [2] * 57 + [0] * 12 + [2] * 221 + [0] * 1 + [2] * 51)
    per = per_class_metrics(gold, pred, names)
    assert [per["per_class"][c]["predicted"] for c in names] == [170, 0, 341, 0]
    assert never_predicted(per) == ["negative", "positive"]
    events = _stuck_classifier_events("own")
    for ev in events:
        if ev["event"] == "eval":
            ev["metrics"] = {"macro_f1": per["macro_f1"], "per_class": per["per_class"]}
    state = RunState.from_events("own", events)
    note = state.one_class_note().text
    assert state.one_class_note().kind == "classes never predicted"
    assert note.startswith("never predicts 'negative' or 'positive' (109 of 511 dev rows are theirs), answering "
                           "'neutral' for 341 of the 511 rows: try a larger")
    cells = RunCells(type("Source", (), {"names": {}, "sizes": {}})())
    col = COLUMNS.index("Best dev")
    assert cells.text(state, col).endswith(" !") and cells.warns(state, col)
    assert note in cells.tooltip(state, col)


def test_a_classifier_at_the_majority_rate_is_said_with_the_class_it_answers_most():
    """A 5-class model on 380 dev rows whose majority class is 'Negative' (104 rows) answers 'Positive' for 215 of
    them and 'Negative' for 165, scoring 28.42%: the note names the class it answers most beside the majority
    class it is no better than (naming only 'Negative' read as if it predicted 'Negative'); a run stuck on it
    says so in the Runs list's note."""
    from explorer.core.metrics.baselines import AT_MAJORITY, one_class_note

    support = {"Negative": 104, "Positive": 95, "Neutral": 62, "Extremely Positive": 60, "Extremely Negative": 59}
    predicted = {"Negative": 165, "Positive": 215, "Neutral": 0, "Extremely Positive": 0, "Extremely Negative": 0}
    per_class = {c: {"precision": 0.3, "recall": 0.3, "f1": 0.3, "support": support[c], "predicted": predicted[c]}
                 for c in support}
    note = one_class_note({"accuracy": 108 / 380, "per_class": per_class}, 1e-4, steps=29)
    assert note.kind == AT_MAJORITY
    assert note.text.startswith("scores 28.42% accuracy on the 380 rows evaluated, answering 'Positive' for 215 of "
                                "them: no better than the 27.37% of always answering the majority class 'Negative' "
                                "after 29 training steps")
    without = {c: {k: v for k, v in row.items() if k != "predicted"} for c, row in per_class.items()}   # older events
    assert one_class_note({"accuracy": 108 / 380, "per_class": without}).what == (
        "scores 28.42% accuracy on the 380 rows evaluated: no better than the 27.37% of always answering the "
        "majority class 'Negative'")

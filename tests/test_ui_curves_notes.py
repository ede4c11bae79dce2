"""What the Curves page says in words beside the plots: a classifier that predicts one class for every dev row,
dev rows that repeat training rows, the legend's count of the runs it cannot show, "not logged by this run" on a
plot no shown run has points of, and the progress line: the step and the time remaining kept when it is cut, the time remaining counting the
evaluations still to come."""

import pytest


def _classifier_events(run_id: str, preds, labels, lr=2e-5) -> list[dict]:
    import numpy as np

    from explorer.core.metrics.glue import classification_metrics

    logits = np.eye(3)[np.asarray(preds)]
    metrics = classification_metrics(np.asarray(labels), logits, label_names=["AGAINST", "FAVOR", "NONE"])
    return [{"event": "started", "run_id": run_id, "config": {"task": "single", "learning_rate": lr},
             "steps_total": 10},
            {"event": "eval", "run_id": run_id, "step": 10, "metrics": metrics}]


def test_a_stuck_classifier_is_never_told_to_try_the_learning_rate_it_used():
    """A fold at lr 1e-4 with a 45-second budget stuck on one class after 10 steps, evaluations taking 40 % of
    its time: the note proposes training longer, not "e.g. 1e-4" again, and says the evaluation
    share."""
    from explorer.ui.runs.state import RunState

    labels = [0, 1, 2, 2, 2, 1]
    events = _classifier_events("fold1", [2] * 6, labels, lr=1e-4)
    events[0]["config"]["time_budget_minutes"] = 0.75
    events[0]["time"] = 1000.0
    events[1:1] = [{"event": "step", "run_id": "fold1", "step": 10, "time": 1030.0, "elapsed": 30.0, "loss": 1.0}]
    events[-1].update(time=1050.0, seconds=20.0)
    events.append({"event": "finished", "run_id": "fold1", "time": 1050.0, "seconds": 50.0, "metrics": {}})
    note = RunState.from_events("fold1", events).one_class_note().text
    assert note.startswith("predicts only 'NONE' for every dev row after 10 training steps at learning rate 1e-4: "
                           "train longer (a longer time budget, more epochs or more training rows)")
    assert "evaluations took 40% of the run" in note
    assert "larger learning rate" not in note and "e.g." not in note


def test_a_classifier_stuck_on_one_class_is_said_so_in_the_curves_and_the_runs_list(qtbot):
    """A classifier that predicts one class for every dev row (bundled:minilm at lr 2e-5 ends so) is said so in
    the Curves and the Runs list, with what to try: its accuracy, the majority share, must not pass for a result."""
    from helpers import shown_curves_panel

    from explorer.core.metrics.baselines import predicted_for_every_row
    from explorer.ui.runs.state import RunState

    labels = [0, 1, 2, 2, 2, 1]
    stuck = RunState.from_events("stuck", _classifier_events("stuck", [2] * 6, labels))
    fine = RunState.from_events("fine", _classifier_events("fine", [0, 1, 2, 2, 1, 1], labels))
    assert predicted_for_every_row(stuck.evals[-1]["metrics"]) == "NONE"
    assert predicted_for_every_row(fine.evals[-1]["metrics"]) is None
    assert predicted_for_every_row(_classifier_events("x", [2] * 3, [2, 2, 2])[1]["metrics"]) is None   # one class
    assert stuck.one_class_note().text == ("predicts only 'NONE' for every dev row: try a larger learning rate, e.g. "
                                      "1e-4 (this run: 2e-5), or more epochs")
    assert fine.one_class_note().text == ""
    from explorer.core.metrics.baselines import one_class_note

    at_suggested = one_class_note(stuck.evals[-1]["metrics"], 1e-4).text   # already at the suggested rate: not again
    assert "larger learning rate" not in at_suggested and "more epochs or more training rows" in at_suggested
    curves = shown_curves_panel(qtbot, 1000, 600)
    curves.set_runs([fine, stuck])
    curves.redraw_now()
    qtbot.waitUntil(lambda: curves.run_notes.isVisible())
    assert "stuck predicts only 'NONE'" in curves.run_notes.text() and "fine" not in curves.run_notes.text()
    curves.set_runs([fine])
    curves.redraw_now()
    qtbot.waitUntil(lambda: not curves.run_notes.isVisible())


def test_dev_rows_repeating_training_rows_are_said_in_the_curves_and_the_runs_list(qtbot):
    """A run whose 382 of 1,387 held-out dev rows also occur in its training rows (a table with duplicate rows)
    logged so: the Runs list's Best dev tooltip and the Curves notes say its dev figures are optimistic, also for a
    run written before the counts were fields of the event; a run without repeated rows says nothing."""
    from helpers import shown_curves_panel

    from explorer.core.metrics.optimism import DevOverlap, dev_overlap_fields
    from explorer.ui.runs.run_cells import COLUMNS, RunCells
    from explorer.ui.runs.state import RunState

    labels = [0, 1, 2, 2, 2, 1]
    events = _classifier_events("dup", [0, 1, 2, 2, 1, 1], labels)
    events.insert(0, {"event": "log", "run_id": "dup", **dev_overlap_fields(DevOverlap(shared=382, n_dev=1387,
                                                                                       examples=("a tweet",)))})
    dup = RunState.from_events("dup", events)
    old = RunState.from_events("old", [{"event": "log", "run_id": "old", "level": "warning", "message": (
        "dev figures optimistic: 382 of 1387 dev rows (27.5%) also occur in the training rows, e.g. 'a tweet'")},
        *_classifier_events("old", [0, 1, 2, 2, 1, 1], labels)])
    clean = RunState.from_events("clean", _classifier_events("clean", [0, 1, 2, 2, 1, 1], labels))
    line = "optimistic: 382 of 1,387 dev rows (27.5%) also occur in the training rows"
    cells = RunCells(type("Source", (), {"names": {}, "sizes": {}})())
    best = COLUMNS.index("Best dev")
    assert line in cells.tooltip(dup, best).splitlines() and line in cells.tooltip(old, best).splitlines()
    assert "optimistic" not in cells.tooltip(clean, best)
    curves = shown_curves_panel(qtbot, 1000, 600)
    curves.set_runs([clean, dup])
    curves.redraw_now()
    qtbot.waitUntil(lambda: curves.run_notes.isVisible())
    assert f"dup: {line}" in curves.run_notes.text() and "clean" not in curves.run_notes.text()
    curves.set_runs([clean])
    curves.redraw_now()
    qtbot.waitUntil(lambda: not curves.run_notes.isVisible())


def _regression_events(run_id: str, evaluations, lr=2e-5, steps_total=100, ended=True, gold=None) -> list[dict]:
    """A regression run's events: an evaluation at step 0 and each (step, predictions) of ``evaluations`` on
    ``gold``, by default six dev rows whose gold scores have variance 2.9."""
    from explorer.core.metrics.regression import regression_metrics

    gold = gold or [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    events = [{"event": "started", "run_id": run_id, "config": {"task": "regression", "learning_rate": lr},
               "steps_total": steps_total},
              {"event": "eval", "run_id": run_id, "step": 0, "metrics": regression_metrics([2.5] * len(gold), gold)}]
    events += [{"event": "eval", "run_id": run_id, "step": step, "metrics": regression_metrics(pred, gold)}
               for step, pred in evaluations]
    if ended:
        events.append({"event": "finished", "run_id": run_id, "seconds": 60.0, "metrics": {}})
    return events


FLAT = [0.20, 0.14, 0.48, 0.16, 0.21, 0.19]     # Pearson -0.068 with the gold, about one score far below its mean
LEARNED = [0.4, 1.3, 1.9, 3.2, 3.7, 4.6]


def test_a_regression_no_better_than_the_mean_is_said_so_in_the_curves_and_the_runs_list(qtbot):
    """A regression run whose best dev Pearson is near 0 (STS-B at lr 2e-5 for a minute: 0.061) predicts no
    better than the mean score, here worse (its MSE far above the mean predictor's): the Curves page and the Runs list's tooltip say so beside the classifiers' note,
    with what to try; a run that learned is not, nor one whose predictions are constant (its correlations are
    undefined, which is said of it)."""
    from helpers import shown_curves_panel

    from explorer.ui.runs.run_cells import COLUMNS, RunCells
    from explorer.ui.runs.state import RunState

    flat = RunState.from_events("flat", _regression_events("flat", [(50, FLAT), (100, FLAT[::-1])]))
    learned = RunState.from_events("learned", _regression_events("learned", [(50, FLAT), (100, LEARNED)]))
    assert flat.one_class_note().text == ("predicts worse than always predicting the mean score (best dev Pearson "
                                          "0.068, Spearman -0.086; MSE 8.06 against 2.92 of always predicting the dev "
                                          "mean; R² -1.76): try a larger learning rate, e.g. 1e-4 (this run: 2e-5), or "
                                          "more epochs")
    assert learned.one_class_note().text == ""   # judged by its best evaluation, not by an early flat one
    constant = _regression_events("constant", [(100, [2.7] * 6)])
    assert RunState.from_events("c", constant).one_class_note().text == ""   # said as undefined correlations instead
    live = RunState.from_events("live", _regression_events("live", [(10, FLAT)], ended=False))
    live.status = "running"
    assert live.one_class_note().text == ""   # one early evaluation while it trains: wait for a second
    live = RunState.from_events("live", _regression_events("live", [(10, FLAT), (20, FLAT)], ended=False))
    live.status = "running"
    assert live.one_class_note().text.startswith("so far (the evaluation at step 20; 80 of 100 steps to go) predicts "
                                                   "worse than always predicting the mean score")
    from explorer.core.metrics.baselines import mean_score_note

    assert mean_score_note({"accuracy": 0.5}).text == ""   # no regression head
    cells = RunCells(type("Source", (), {"names": {}, "sizes": {}})())
    tip = cells.tooltip(flat, COLUMNS.index("Best dev"))
    assert "note: the run predicts worse than always predicting the mean score" in tip
    curves = shown_curves_panel(qtbot, 1000, 600)
    curves.set_runs([learned, flat])
    curves.redraw_now()
    qtbot.waitUntil(lambda: curves.run_notes.isVisible())
    assert "flat predicts worse than always predicting the mean score" in curves.run_notes.text()
    assert "learned" not in curves.run_notes.text()


def test_bert_explorer_runs_says_a_regression_is_no_better_than_the_mean(tmp_path, capsys):
    import json

    from explorer.cli import main
    from explorer.core.runs.layout import config_file, events_file

    folder = tmp_path / "stsb"
    folder.mkdir()
    config_file(folder).write_text(json.dumps({"task": "regression", "learning_rate": 2e-5}))
    events = _regression_events("stsb", [(50, FLAT), (100, FLAT[::-1])])
    events_file(folder).write_text("\n".join(json.dumps(e) for e in events) + "\n")
    assert main(["runs", str(tmp_path)]) == 0
    assert "note: stsb predicts worse than always predicting the mean score (best dev Pearson 0.068" in \
        capsys.readouterr().err


STSB_GOLD = [0.2, 0.8, 1.6, 2.4, 3.0, 3.6, 4.2, 4.8]         # variance 2.32: the mean predictor's MSE
AROUND_1_4 = [1.32, 1.53, 1.08, 1.74, 1.20, 1.26, 1.41, 1.59]   # Pearson 0.169, MSE 3.66: R² -0.58
BELOW_MEAN = ("predicts worse than always predicting the mean score (best dev Pearson 0.169: MSE 3.66 against "
              "2.32 of always predicting the dev mean; R² -0.58)")


def _around_1_4_events(run_id: str, evaluations=((50, AROUND_1_4[::-1]), (100, AROUND_1_4))) -> list[dict]:
    """A finished STS-B-like run whose evaluations predict about 1.4 for every dev pair."""
    return _regression_events(run_id, evaluations, gold=STSB_GOLD)


def test_a_regression_whose_mse_is_worse_than_the_means_is_said_so_wherever_its_note_is_shown(qtbot):
    """An STS-B model predicting about 1.4 for every pair: Pearson 0.169 reads as a weak model, its MSE 3.66 is
    worse than the 2.32 of always predicting the dev mean (R² below 0). The run's note says so with the figures,
    as a regression with flat correlations is: the Runs list's Best dev mark and tooltip, Curves, the end
    message and a group's sentence; a run with R² above 0 gets none."""
    from helpers import shown_curves_panel

    from explorer.core.metrics.regression import regression_metrics
    from explorer.core.runs import status as run_status
    from explorer.core.studies.group_classes import LEARNED_NOTHING, group_class_note
    from explorer.ui.runs.run_cells import COLUMNS, RunCells
    from explorer.ui.runs.state import RunState
    from explorer.ui.shell.status_texts import ended_message

    metrics = regression_metrics(AROUND_1_4, STSB_GOLD)
    assert metrics["pearson"] == pytest.approx(0.169, abs=5e-4) and metrics["r2"] < 0
    stsb = RunState.from_events("stsb", _around_1_4_events("stsb"))
    note = stsb.one_class_note()
    assert note.kind == "no better than the mean" and note.what == BELOW_MEAN
    assert note.text == f"{BELOW_MEAN}: try a larger learning rate, e.g. 1e-4 (this run: 2e-5), or more epochs"
    cells = RunCells(type("Source", (), {"names": {}, "sizes": {}})())
    col = COLUMNS.index("Best dev")
    assert cells.text(stsb, col).endswith(" !") and "0.169" in cells.text(stsb, col) and cells.warns(stsb, col)
    assert f"note: the run {BELOW_MEAN}" in cells.tooltip(stsb, col)
    assert ended_message("stsb", run_status.FINISHED, stsb) == f"stsb: {run_status.FINISHED} — {note.text}"
    group = group_class_note([note, note], "restarts", learning_rate=2e-5)
    assert group.kind == LEARNED_NOTHING and group.text.startswith("both seeds predict worse than always predicting the mean score")

    learned = [0.6, 1.0, 1.7, 2.3, 2.9, 3.4, 3.9, 4.4]   # R² above 0
    good = RunState.from_events("good", _around_1_4_events("good", [(50, AROUND_1_4), (100, learned)]))
    assert good.one_class_note().text == "" and not cells.text(good, col).endswith("!")
    near_mean = [p - 1.41 + 2.55 for p in AROUND_1_4]   # about the dev mean: R² just above 0, Pearson 0.169
    assert regression_metrics(near_mean, STSB_GOLD)["r2"] > 0
    beat = RunState.from_events("beat", _around_1_4_events("beat", [(50, near_mean), (100, AROUND_1_4)]))
    assert beat.one_class_note().text == ""   # one evaluation beat the mean: the run is not said to be below it

    curves = shown_curves_panel(qtbot, 1000, 600)
    curves.set_runs([good, stsb])
    curves.redraw_now()
    qtbot.waitUntil(lambda: curves.run_notes.isVisible())
    assert f"stsb {BELOW_MEAN}" in curves.run_notes.text() and "good" not in curves.run_notes.text()


def test_a_regression_evaluated_before_r2_was_recorded_is_judged_by_its_correlations_alone():
    """Evaluations saved without ``r2`` and ``mse_of_mean`` keep the note they had: none where the correlations
    are not flat, the flat-correlation note where they are."""
    from explorer.core.metrics.baselines import mean_score_note
    from explorer.ui.runs.state import RunState

    old = _around_1_4_events("old")
    for event in old:
        for key in ("r2", "mse_of_mean"):
            (event.get("metrics") or {}).pop(key, None)
    assert RunState.from_events("old", old).one_class_note().text == ""
    flat = {"pearson": 0.068, "spearman": -0.086, "mse": 6.2}
    assert mean_score_note(flat).what == ("predicts no better than always predicting the mean score (best dev "
                                          "Pearson 0.068, Spearman -0.086)")
    undefined_r2 = {"pearson": 0.169, "spearman": 0.19, "mse": 3.67, "mse_of_mean": 0.0, "r2": None}   # constant gold
    assert mean_score_note(undefined_r2).text == ""


def test_a_flat_regression_whose_mse_is_above_the_means_is_said_to_predict_worse_than_the_mean():
    """Flat correlations with an MSE far above always predicting the dev mean (a 1-minute STS-B run: MSE 7.39
    against 2.25, R² -2.28): "no better than" undersells it, so the note says "worse than" with both MSEs and R²,
    as the weak-correlation note does; an R² about 0 keeps "no better than" (with the figures), and one above 0 or
    not recorded keeps the correlations alone."""
    from explorer.core.metrics.baselines import mean_score_note

    flat = {"pearson": -0.008, "spearman": -0.006, "mse": 7.39, "mse_of_mean": 2.25, "r2": 1 - 7.39 / 2.25}
    note = mean_score_note(flat, 2e-5)
    assert note.kind == "no better than the mean"
    assert note.what == ("predicts worse than always predicting the mean score (best dev Pearson -0.008, "
                         "Spearman -0.006; MSE 7.39 against 2.25 of always predicting the dev mean; R² -2.28)")
    assert note.text == f"{note.what}: try a larger learning rate, e.g. 1e-4 (this run: 2e-5), or more epochs"
    about_zero = dict(flat, mse=2.26, r2=1 - 2.26 / 2.25)
    assert mean_score_note(about_zero).what == (
        "predicts no better than always predicting the mean score (best dev Pearson -0.008, Spearman -0.006; "
        "MSE 2.26 against 2.25 of always predicting the dev mean; R² -0.0044)")
    above_zero = dict(flat, mse=2.24, r2=1 - 2.24 / 2.25)
    unknown = {k: v for k, v in flat.items() if k not in ("r2", "mse_of_mean")}
    for metrics in (above_zero, unknown):
        assert mean_score_note(metrics).what == ("predicts no better than always predicting the mean score (best dev "
                                                 "Pearson -0.008, Spearman -0.006)")


def test_a_regression_that_ranks_the_pairs_but_misses_the_scale_is_not_said_to_predict_the_mean():
    """Pearson 0.8 with an MSE above the gold's variance (predictions squeezed into 2.2-2.9 early in a run): the
    pairs are ranked, only the scale is off, so the run gets no "worse than the mean" note (which marks a group as
    learning nothing); the same MSE with a weak Pearson 0.169 gets it."""
    from explorer.core.metrics.baselines import mean_score_note

    ranked = {"pearson": 0.8, "spearman": 0.79, "mse": 2.6, "mse_of_mean": 2.25, "r2": 1 - 2.6 / 2.25}
    assert mean_score_note(ranked).text == ""
    weak = dict(ranked, pearson=0.169, spearman=0.19)
    assert mean_score_note(weak).what.startswith("predicts worse than always predicting the mean score")


def test_bert_explorer_runs_says_a_regression_is_worse_than_the_mean(tmp_path, capsys):
    import json

    from explorer.cli import main
    from explorer.core.runs.layout import config_file, events_file

    folder = tmp_path / "stsb"
    folder.mkdir()
    config_file(folder).write_text(json.dumps({"task": "regression", "learning_rate": 2e-5}))
    events_file(folder).write_text("\n".join(json.dumps(e) for e in _around_1_4_events("stsb")) + "\n")
    assert main(["runs", str(tmp_path)]) == 0
    assert f"note: stsb {BELOW_MEAN}" in capsys.readouterr().err


def test_the_curves_legend_lists_every_run_or_says_how_many_more(qtbot, tmp_path):
    """With 16 runs the legend strip shows what fits and says how many more there are ("+N more"), its tooltip
    listing all 16; never 8 with nothing said of the others."""
    import os

    from helpers import shown_curves_panel

    from explorer.ui.runs.state import RunState

    runs = [RunState.from_events(f"run-{i:02d}", _classifier_events(f"run-{i:02d}", [0, 1, 2, 2, 1, 1],
                                                                     [0, 1, 2, 2, 2, 1])) for i in range(16)]
    curves = shown_curves_panel(qtbot, 1000, 600)
    curves.set_runs(runs)
    curves.redraw_now()
    text, tip = curves.legend_parts()
    hidden = int(text.split("+")[-1].split("&nbsp;more")[0])
    shown = [r.run_id for r in runs if f"{r.run_id} " in text]
    assert 0 < len(shown) < 16 and len(shown) + hidden == 16       # what shows, and how many do not
    assert tip.splitlines() and all(f"■ {r.run_id} (" in tip for r in runs)   # the tooltip lists all 16
    assert curves.legend.toolTip() == tip
    # what shows fits in the strip's two lines: the label's own layout of it is no taller than the strip
    needed = curves.legend.heightForWidth(curves.legend.width())
    assert needed <= curves.legend.height(), (needed, curves.legend.height())
    if os.environ.get("EXPLORER_SHOTS"):   # a folder: the test also saves its screenshot there
        curves.grab().save(os.path.join(os.environ["EXPLORER_SHOTS"], "curves_16_runs.png"))
    curves.set_runs(runs[:2])
    curves.redraw_now()
    assert "more" not in curves.legend.text() and curves.legend.toolTip() == ""


def test_the_curves_progress_line_keeps_the_step_and_the_time_left_when_it_is_cut(qtbot):
    """A progress line cut at 1280 px keeps the step and the time left (never "sst2-…get trained · epoch 0.05",
    its middle elided): the epoch, the elapsed time and then the run's name give way, the whole line in the
    tooltip."""
    import time

    from helpers import shown_curves_panel

    from explorer.ui.runs.state import RunState

    name, t0 = "sst2-minilm-fast-cpu-lr1e-4-dropout0-30min-budget", time.time() - 130
    events = [{"event": "started", "run_id": name, "time": t0, "steps_total": 13292,
               "config": {"time_budget_minutes": 30.0}},
              {"event": "step", "run_id": name, "time": t0 + 129.0, "step": 1210, "loss": 2.0, "elapsed": 129.0,
               "train_seconds": 120.0, "steps_total": 15150, "epoch": 0.05}]
    curves = shown_curves_panel(qtbot, 900, 600)   # what the Curves tab has at 1280 px beside the Runs list
    curves.set_runs([RunState.from_events(name, events, alive=True)])
    label = curves.progress_label
    whole = label.toolTip()
    assert "step 1,210 of ~15,150" in whole and "epoch 0.05" in whole and "remaining 28:00" in whole
    for width in (900, 640, 440):
        curves.resize(width, 600)
        qtbot.waitUntil(lambda: label.width() < label.fontMetrics().horizontalAdvance(whole))
        shown = label.shown_text()
        assert "step 1,210 of ~15,150" in shown, (width, shown)
        assert label.fontMetrics().horizontalAdvance(shown) <= label.contentsRect().width()
        if width >= 640:
            assert "remaining 28:00" in shown, (width, shown)


def test_a_plot_the_runs_never_logged_says_so(qtbot, tmp_path):
    """A training plot none of the shown runs has a point of, while they have logged steps, says "not logged by
    this run" (an HF Trainer folder has no samples/s: never an empty plot without a word); a run before its first
    step, or a plot another shown run fills, says nothing."""
    import json

    from helpers import shown_curves_panel

    from explorer.core.runs.reading import load_run
    from explorer.ui.runs.state import RunState

    out = tmp_path / "hf-out"
    out.mkdir()
    history = [{"step": s, "epoch": s / 100, "loss": 1.5 - s / 100, "learning_rate": 1e-5, "grad_norm": 2.0}
               for s in range(10, 60, 10)]
    (out / "trainer_state.json").write_text(json.dumps({"global_step": 50, "max_steps": 100,
                                                        "log_history": history}))
    trainer = RunState.from_events("hf-out", load_run(out).events)   # File -> Open run folder reads it so
    assert len(trainer.series["loss"]) == 5 and "samples_per_second" not in trainer.series
    curves = shown_curves_panel(qtbot, 1000, 700)
    curves.set_runs([trainer])
    curves.redraw_now()
    notes = {key: panel.note for key, panel in curves.panels.items() if panel.isVisible()}
    assert notes["samples_per_second"].isVisible() and notes["samples_per_second"].text() == "not logged by this run"
    assert not any(notes[k].isVisible() for k in ("loss", "lr", "grad_norm"))
    plot = curves.panels["samples_per_second"].widget
    assert plot.rect().contains(notes["samples_per_second"].geometry())

    started = RunState.from_events("new", [{"event": "started", "run_id": "new", "time": 1.0, "steps_total": 10}],
                                   alive=True)
    curves.set_runs([started])              # nothing logged yet: nothing is missing
    curves.redraw_now()
    assert not notes["samples_per_second"].isVisible()
    own = RunState.from_events("own", [{"event": "step", "run_id": "own", "time": 1.0, "step": 1, "loss": 1.0,
                                        "lr": 1e-4, "grad_norm": 1.0, "samples_per_second": 40.0}])
    curves.set_runs([trainer, own])         # another run fills the plot
    curves.redraw_now()
    assert not notes["samples_per_second"].isVisible()


def _timed_run(upto: int) -> tuple[list[dict], dict[int, float]]:
    """A SQuAD run of 92 steps evaluating every 23: 15 s of set-up, 2 s a step, 20 s an
    evaluation (at the start, at 23, 46 and 69, and at the end) and 3 s for the checkpoint after each. Its events
    up to step ``upto``, and the true seconds left at each step."""
    step_s, eval_s, save_s, every, total = 2.0, 20.0, 3.0, 23, 92
    ev = [{"event": "started", "run_id": "qa", "time": 1000.0, "steps_total": total,
           "config": {"model": "m", "task": "squad_v1", "eval_every": every}},
          {"event": "eval", "run_id": "qa", "time": 1035.0, "step": 0, "metrics": {"f1": 1.0}, "seconds": eval_s}]
    clock, left = 15.0 + eval_s, {}
    for i in range(1, total + 1):
        clock += step_s
        if i <= upto:
            ev.append({"event": "step", "run_id": "qa", "time": 1000.0 + clock, "step": i, "epoch": i / 46,
                       "loss": 3.0, "lr": 1e-4, "elapsed": clock})
        if i % every == 0 and i < total:
            clock += eval_s + save_s
            if i <= upto:
                ev.append({"event": "eval", "run_id": "qa", "time": 1000.0 + clock, "step": i,
                           "metrics": {"f1": 1.0 + i}, "seconds": eval_s})
        left[i] = -clock
    end = clock + eval_s + save_s
    return ev, {i: end + t for i, t in left.items()}


def test_the_time_remaining_counts_the_evaluations_to_come_and_does_not_jump_after_one():
    """The estimate is the time per step times the steps left plus the measured time per evaluation times the
    evaluations planned, so it only goes down (the mean time per step so far, evaluations in it, times the steps
    left turned "remaining 3:31" at step 22 into 3:49 at step 26, after an evaluation)."""
    import pytest

    from explorer.ui.runs.state import RunState, progress_text

    etas = {}
    for step in (2, 5, 10, 22, 23, 24, 26, 45, 47, 60, 70, 91, 92):
        events, truth = _timed_run(step)
        state = RunState.from_events("qa", events, alive=True)
        assert state.step == step
        etas[step] = state.eta()
        # from two step events on the set-up no longer counts in; until a step after an evaluation has come, the
        # checkpoint saved after one (3 s) is not known yet
        if step >= 5:
            near = 0.5 if step > 23 else 3.0 * 4 + 0.5   # 4 evaluations to come
            assert etas[step] == pytest.approx(truth[step], abs=near), (step, etas[step], truth[step])
    steps = [s for s in sorted(etas) if s >= 24]
    assert all(etas[b] < etas[a] for a, b in zip(steps, steps[1:])), etas   # never up across an evaluation
    assert etas[22] - etas[26] > 0 and etas[45] > etas[47]
    assert "remaining 3:25" in progress_text(RunState.from_events("qa", _timed_run(24)[0], alive=True))


def test_a_legend_update_makes_each_runs_entry_once(qtbot, monkeypatch):
    """The legend's entries (each run's best found over its evaluations) are made once per update: the same ones
    compared with the last update's and written into the strip."""
    from helpers import shown_curves_panel

    from explorer.ui.curves.curves_model import CurvesModel
    from explorer.ui.runs.state import RunState

    runs = [RunState.from_events(f"run-{i}", _classifier_events(f"run-{i}", [0, 1, 2, 2, 1, 1], [0, 1, 2, 2, 2, 1]))
            for i in range(3)]
    curves = shown_curves_panel(qtbot, 1000, 600)
    made = []
    real = CurvesModel.legend_entries
    monkeypatch.setattr(CurvesModel, "legend_entries", lambda self: (made.append(1), real(self))[1])
    curves.model.set_runs(runs)
    curves.header.update_legend()
    assert len(made) == 1
    assert all(f"run-{i} " in curves.legend.text() for i in range(3))
    made.clear()
    curves.header.update_legend()                     # nothing changed: compared, not written again
    assert len(made) == 1

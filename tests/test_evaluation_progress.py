"""A run's evaluation under way is on screen: the worker's ``evaluating`` events (rows forwarded, rate, final or
not) become the Runs list's status cell, the Curves progress bar and line, the status bar's activity and the time
left; the evaluations' plan the run decided is a note beside its curves and in its status tooltip. Without them a
long final evaluation on the whole dev set read "running · 100% … remaining 1:19" for minutes, as if hung."""

from __future__ import annotations

from explorer.core.runs import status as run_status
from explorer.ui.curves.curves_model import CurvesModel
from explorer.ui.runs.evaluating import evaluating_text
from explorer.ui.runs.run_cells import COLUMNS, RunCells, status_text
from explorer.ui.runs.state import RunState
from explorer.ui.shell.status_texts import activity_line

PLAN = ("Evaluate before training and at the end only (not every 10: more often would not fit), on a stratified "
        "sample of 400 of the 3,250 dev rows")


def _run_at_its_final_evaluation() -> RunState:
    """A regression run whose 40 steps are done; its final evaluation on all 3,250 dev rows has forwarded 1,200
    rows in 60 s (20 rows/s: 2,050 rows, about 1:42 left)."""
    s = RunState(run_id="stsb", status=run_status.RUNNING)
    events = [{"event": "started", "time": 0.0, "steps_total": 40, "steps_per_epoch": 40, "config": {"task": "regression"}},
              {"event": "evaluating", "time": 1.0, "step": 0, "final": False, "rows_total": 400, "dev_total": 3250,
               "rows_done": 0, "seconds": 0.0, "rows_per_second": 0.0},
              {"event": "eval", "time": 20.0, "step": 0, "metrics": {"pearson": 0.1}, "seconds": 19.0, "dev_rows": 400,
               "dev_total": 3250, "rows_per_second": 25.0},
              {"event": "log", "time": 30.0, "level": "info", "message": PLAN, "topic": "eval_plan"}]
    events += [{"event": "step", "time": 20.0 + i, "step": i, "loss": 1.0, "elapsed": 20.0 + i} for i in range(1, 41)]
    events += [{"event": "evaluating", "time": 61.0, "step": 40, "final": True, "rows_total": 3250, "dev_total": 3250,
                "rows_done": 0, "seconds": 0.0, "rows_per_second": 0.0},
               {"event": "evaluating", "time": 121.0, "step": 40, "final": True, "rows_total": 3250,
                "dev_total": 3250, "rows_done": 1200, "seconds": 60.0, "rows_per_second": 20.0}]
    for ev in events:
        s.apply({"run_id": "stsb", **ev})
    return s


def test_the_final_evaluation_says_its_rows_and_time_left_wherever_the_run_status_shows():
    s = _run_at_its_final_evaluation()
    said = "evaluating: final, on all 3,250 dev rows · 1,200 of 3,250 · about 1:42 left"
    assert status_text(s) == "evaluating 37%"                     # the narrow cell; its tooltip says the rest
    cells = RunCells(type("Source", (), {"names": {}, "sizes": {}})())
    assert cells.text(s, COLUMNS.index("Status")) == "evaluating 37%"
    tip = cells.tooltip(s, COLUMNS.index("Status"))
    assert tip.startswith(said) and PLAN in tip                     # the plan's decision in the run's details
    m = CurvesModel()
    m.set_runs([s])
    bar, (name, parts, tip) = m.progress(now=130.0)
    assert bar == (0, 3250, 1200, "evaluating · %p%")
    assert parts[0] == (said, 0) and said in tip
    assert abs(s.eta() - 102.5) < 1e-6                             # what the evaluation has left, not a stale guess
    assert any(PLAN in note for note in m.run_notes())            # the plan beside the curves
    assert activity_line([s], lambda rid: rid)[0].startswith(f"stsb: {said}")


def test_an_evaluation_during_training_names_its_sample_and_the_rate_of_the_last_one_before_its_first_batch():
    s = RunState(run_id="r", status=run_status.RUNNING)
    for ev in ({"event": "eval", "time": 1.0, "step": 0, "metrics": {}, "dev_rows": 400, "dev_total": 3250,
                "rows_per_second": 40.0},
               {"event": "evaluating", "time": 2.0, "step": 20, "final": False, "rows_total": 400, "dev_total": 3250,
                "rows_done": 0, "seconds": 0.0, "rows_per_second": 0.0}):
        s.apply({"run_id": "r", **ev})
    assert evaluating_text(s) == "evaluating at step 20, on 400 of the 3,250 dev rows · 0 of 400 · about 0:10 left"
    assert status_text(s) == "evaluating 0%"


def test_the_evaluation_ends_with_its_eval_event_or_with_the_run():
    s = _run_at_its_final_evaluation()
    s.apply({"event": "eval", "run_id": "stsb", "time": 200.0, "step": 40, "metrics": {"pearson": 0.8}})
    assert status_text(s) == run_status.RUNNING and CurvesModel().progress(now=0)[1] is None
    crashed = _run_at_its_final_evaluation()
    crashed.status = run_status.CRASHED
    assert status_text(crashed) == run_status.CRASHED      # a dead worker is not evaluating


def test_the_best_dev_tooltip_says_which_dev_rows_its_figure_counts():
    """A stance run of 281 held-out rows evaluates a 200-row sample during training: its best F_avg is the sample's,
    which is why Classify: dev set (all 281 rows) shows another figure; the tooltip says so."""
    s = RunState(run_id="stance", status=run_status.FINISHED, config={"task": "single", "f1_classes": ["FAVOR", "AGAINST"],
                                                                         "metric_for_best": "f_avg"})
    for step, value, rows in ((0, 0.30, 200), (20, 0.4985, 200), (40, 0.47, 281)):
        s.apply({"event": "eval", "run_id": "stance", "time": float(step), "step": step, "metrics": {"f_avg": value},
                 "dev_rows": rows, "dev_total": 281})
    tip = RunCells(type("Source", (), {"names": {}, "sizes": {}})()).tooltip(s, COLUMNS.index("Best dev"))
    assert "49.85 @20" in tip and "200-row stratified sample of the 281 dev rows" in tip and "Classify" in tip
    s.apply({"event": "eval", "run_id": "stance", "time": 50.0, "step": 50, "metrics": {"f_avg": 0.6},
             "dev_rows": 281, "dev_total": 281})
    assert "measured on all 281 dev rows" in RunCells(type("Source", (), {"names": {}, "sizes": {}})()).tooltip(
        s, COLUMNS.index("Best dev"))


def test_a_training_runs_only_evaluation_reads_as_the_only_one_not_as_a_best():
    """A regression run whose one scored evaluation so far is a negative Pearson: the Best dev cell keeps the figure
    and says it is one evaluation (" ¹"), the tooltip that it is the only one so far; a classifier's first
    figure reads the same, and a second evaluation or the end of the run drops the words."""
    cells = RunCells(type("Source", (), {"names": {}, "sizes": {}})())
    col = COLUMNS.index("Best dev")
    for task, metric, value in (("regression", "pearson", -0.145), ("single", "accuracy", 0.55)):
        s = RunState(run_id=task, status=run_status.RUNNING, config={"task": task})
        s.apply({"event": "eval", "run_id": task, "time": 1.0, "step": 0, "metrics": {metric: 0.1}})
        s.apply({"event": "eval", "run_id": task, "time": 2.0, "step": 20, "metrics": {metric: value}})
        assert cells.text(s, col).endswith(" ¹") and cells.tooltip(s, col).count("¹: the only evaluation so far") == 1
        assert "the only evaluation so far (step 20)" in cells.tooltip(s, col)
        s.apply({"event": "eval", "run_id": task, "time": 3.0, "step": 40, "metrics": {metric: value / 2}})
        assert "¹" not in cells.text(s, col) and "only evaluation" not in cells.tooltip(s, col)
    assert cells.text(s, col).startswith("55.00")
    one = RunState(run_id="f", status=run_status.FINISHED, config={"task": "regression"})
    one.apply({"event": "eval", "run_id": "f", "time": 2.0, "step": 20, "metrics": {"pearson": 0.5}})
    assert "¹" not in cells.text(one, col)


def _stance_run(*, rescored: float | None, final_kept: bool) -> RunState:
    """A stance run of 254 dev rows picking checkpoints/best on a 200-row sample: best at step 56 (39.79 F_avg on
    the sample), the final evaluation at step 71 scores 42.43 on all rows; ``rescored``: step 56's checkpoint then
    scored on all 254 rows (None: a run made before that), ``final_kept``: the final step became best."""
    s = RunState(run_id="stance", status=run_status.RUNNING,
                 config={"task": "single", "f1_classes": ["FAVOR", "AGAINST"], "metric_for_best": "f_avg"})
    events = [{"event": "eval", "step": 0, "metrics": {"f_avg": 0.2}, "dev_rows": 200, "dev_total": 254},
              {"event": "eval", "step": 56, "metrics": {"f_avg": 0.3979}, "dev_rows": 200, "dev_total": 254},
              {"event": "checkpoint", "step": 56, "kind": "best", "metric": "f_avg", "path": "b"},
              {"event": "eval", "step": 71, "metrics": {"f_avg": 0.4243}, "dev_rows": 254, "dev_total": 254}]
    if rescored is not None:
        events += [{"event": "evaluating", "step": 56, "final": False, "rescoring": True, "rows_total": 254,
                    "dev_total": 254, "rows_done": 0, "seconds": 0.0, "rows_per_second": 0.0}]
    for ev in events:
        s.apply({"run_id": "stance", "time": 1.0, **ev})
    if rescored is not None:
        assert evaluating_text(s).startswith("evaluating checkpoints/best of step 56, on all 254 dev rows · 0 of 254")
        s.apply({"event": "eval", "run_id": "stance", "time": 2.0, "step": 56, "metrics": {"f_avg": rescored},
                 "dev_rows": 254, "dev_total": 254, "rescored": True})
        if final_kept:
            s.apply({"event": "checkpoint", "run_id": "stance", "time": 2.0, "step": 71, "kind": "best",
                     "metric": "f_avg", "path": "b"})
    s.apply({"event": "finished", "run_id": "stance", "time": 3.0, "metrics": {"f_avg": 0.4243}})
    return s


def test_best_dev_gives_the_whole_dev_figure_of_a_best_scored_again_on_all_rows():
    """The Best dev cell names the figure on all dev rows of the checkpoint that is checkpoints/best, without
    the sample's mark "≈": the final step's when it won, the rescored step's when it stayed; a run without the
    rescoring keeps its sample's figure marked "≈". The rescoring is no point of the curve."""
    cells = RunCells(type("Source", (), {"names": {}, "sizes": {}})())
    best = COLUMNS.index("Best dev")
    final = _stance_run(rescored=0.4110, final_kept=True)
    assert cells.text(final, best) == "42.43% F_avg"
    stayed = _stance_run(rescored=0.4400, final_kept=False)
    assert cells.text(stayed, best) == "44.00% F_avg"
    assert "44.00 @56" in cells.tooltip(stayed, best) and "after the final evaluation" in cells.tooltip(stayed, best)
    assert stayed.series["dev/f_avg"].x.tolist() == [0, 56, 71]
    older = _stance_run(rescored=None, final_kept=False)
    assert cells.text(older, best) == "≈39.79% F_avg"

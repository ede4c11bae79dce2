"""Stop early says what is left and how long it takes: the final evaluation on the whole dev set at the measured
rate plus the last save, in the Runs list, the status bar and the time remaining; an evaluation under way on the
whole dev set is the final one, one on the dev sample is dropped."""

from __future__ import annotations

from explorer.core.runs import status as run_status
from explorer.ui.curves.curves_model import CurvesModel
from explorer.ui.runs.run_cells import COLUMNS, RunCells, status_text
from explorer.ui.runs.state import RunState
from explorer.ui.runs.stopping import save_seconds, stop_plan, stopping_text
from explorer.ui.shell.status_texts import activity_line

CELLS = RunCells(type("Source", (), {"names": {}, "sizes": {}})())


def _training_run() -> RunState:
    """A run that evaluated 400 of its 3,250 dev rows in 16 s (25 rows/s) before training and after step 5 (then a
    2 s save: step 6 came 19 s after step 5, steps take 1 s), and trains at step 10."""
    s = RunState(run_id="sst", status=run_status.RUNNING)
    events = [{"event": "started", "time": 0.0, "steps_total": 100, "steps_per_epoch": 100, "config": {"task": "single"}},
              {"event": "eval", "time": 20.0, "step": 0, "metrics": {}, "seconds": 16.0, "dev_rows": 400,
               "dev_total": 3250, "rows_per_second": 25.0}]
    events += [{"event": "step", "time": 20.0 + i, "step": i, "loss": 1.0, "elapsed": 20.0 + i} for i in range(1, 6)]
    events += [{"event": "eval", "time": 41.0, "step": 5, "metrics": {}, "seconds": 16.0, "dev_rows": 400,
                "dev_total": 3250, "rows_per_second": 30.0}]
    events += [{"event": "step", "time": 38.0 + i, "step": i, "loss": 1.0, "elapsed": 38.0 + i} for i in range(6, 11)]
    for ev in events:
        s.apply({"run_id": "sst", **ev})
    return s


def _evaluating(s: RunState, *, rows_total: int, dev_total: int, final: bool = False, done: int = 0,
                rate: float = 0.0) -> None:
    s.apply({"event": "evaluating", "run_id": s.run_id, "time": 40.0, "step": s.step, "final": final,
             "rows_total": rows_total, "dev_total": dev_total, "rows_done": done, "seconds": 1.0,
             "rows_per_second": rate})


def test_stop_while_training_says_the_final_evaluation_on_all_dev_rows_and_its_time_everywhere():
    s = _training_run()
    assert stopping_text(s) == "" and stop_plan(s) is None          # not stopping: nothing said
    s.status = run_status.after_request(s.status, "stop")
    assert save_seconds(s) == 2.0
    # the step under way (1 s), 3,250 rows at the 25 rows/s the evaluations took (not their forward's 30), the save
    said = "stopping: final evaluation on all 3,250 dev rows, about 2:13"
    assert stopping_text(s) == said
    assert status_text(s) == "stopping · 2:13"
    assert CELLS.tooltip(s, COLUMNS.index("Status")).startswith(said)
    assert activity_line([s], lambda rid: rid)[0].startswith(f"sst: {said}")
    curves = CurvesModel()
    curves.set_runs([s])
    _bar, (_name, parts, _tip) = curves.progress(now=40.0)
    assert parts[0] == (said, 0) and ("remaining 2:13", 0) in parts
    assert s.eta() == 133.0                                          # not the 90 steps the run will never take


def test_a_sampled_evaluation_under_way_is_dropped_and_a_whole_dev_one_becomes_the_final_one():
    s = _training_run()
    _evaluating(s, rows_total=400, dev_total=3250, done=200, rate=50.0)
    s.status = run_status.STOPPING
    assert stopping_text(s) == ("stopping: final evaluation on all 3,250 dev rows, about 2:12 (the sampled "
                                "evaluation under way is dropped)")   # it stops at its next batch: no step left
    whole = _training_run()
    _evaluating(whole, rows_total=3250, dev_total=3250, done=3000, rate=25.0)
    whole.status = run_status.STOPPING
    plan = stop_plan(whole)
    assert plan.under_way and not plan.dropped and plan.seconds == 12.0    # 250 rows left at 25/s + the save
    assert stopping_text(whole) == "stopping: the evaluation under way on all 3,250 dev rows is the final one, about 0:12 left"


def test_a_stop_before_any_rate_or_without_dev_data_says_what_is_left_without_a_time():
    s = RunState(run_id="r", status=run_status.RUNNING)
    s.apply({"run_id": "r", "event": "started", "time": 0.0, "steps_total": 10, "steps_per_epoch": 10, "config": {}})
    s.status = run_status.STOPPING
    assert stopping_text(s) == "stopping: the step under way ends, then the last save"
    _evaluating(s, rows_total=400, dev_total=3250)
    assert stopping_text(s) == ("stopping: final evaluation on all 3,250 dev rows next (the sampled evaluation under "
                                "way is dropped), its time not measured yet")
    assert status_text(s) == "evaluating 0%"

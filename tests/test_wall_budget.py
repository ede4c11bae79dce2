"""The time budget as wall time: training gets what the evaluations and saves, done and to come, leave."""

import pytest

from explorer.core.training import clock as clock_module
from explorer.core.training.budget import WallBudget, seconds_ahead
from explorer.core.training.clock import TrainClock


def test_training_gets_the_budget_less_the_evaluations_done_and_to_come(monkeypatch):
    t = [0.0]
    monkeypatch.setattr(clock_module, "_now", lambda: t[0])
    clock = TrainClock()
    wall = WallBudget(600.0, clock)
    wall.begin()
    t[0] += 20.0                      # the evaluation before training: 20 s outside training
    clock.start()
    t[0] += 100.0
    wall.ahead = 60.0                 # the evaluations still to come, the final one included
    assert wall.training_seconds() == pytest.approx(600.0 - 20.0 - 60.0)
    assert not wall.spent()
    t[0] += 420.0                     # 520 s of training: the allowance reached
    assert wall.spent()
    assert wall.left() == pytest.approx(60.0)   # what is left is the final evaluation's


def test_the_final_evaluation_on_the_whole_dev_set_is_always_ahead():
    ahead = seconds_ahead(steps=1000, step=900, last_eval_step=900, every=0, rows=200, dev_total=2000,
                          eval_rate=100.0, save_seconds=1.0)
    assert ahead == pytest.approx(2000 / 100 + 1.0 + 2000 / 100)   # and the sample's best scored on all rows


def test_evaluations_between_count_at_the_cadence_on_the_sample():
    # after an evaluation at step 400, the next at 500..900 (below 1000): five on 200 rows, then the final, then
    # the sample's best scored on all rows
    ahead = seconds_ahead(steps=1000, step=400, last_eval_step=400, every=100, rows=200, dev_total=2000,
                          eval_rate=100.0)
    assert ahead == pytest.approx(5 * 2.0 + 20.0 + 20.0)


def test_a_best_picked_on_the_sample_is_scored_on_all_dev_rows_within_the_budget():
    """A run evaluating a dev sample may score its best checkpoint on all dev rows after the final evaluation: the
    budget keeps that forward's time; a run evaluating all rows has no such evaluation ahead."""
    sampled = seconds_ahead(steps=1000, step=1000, last_eval_step=900, every=0, rows=200, dev_total=2000,
                            eval_rate=100.0, save_seconds=1.0)
    whole = seconds_ahead(steps=1000, step=1000, last_eval_step=900, every=0, rows=2000, dev_total=2000,
                          eval_rate=100.0, save_seconds=1.0)
    assert sampled == pytest.approx(2 * 20.0 + 1.0) and whole == pytest.approx(20.0 + 1.0)


def test_without_a_measured_rate_nothing_is_planned_ahead():
    assert seconds_ahead(steps=10, step=0, last_eval_step=0, every=5, rows=10, dev_total=10, eval_rate=0.0) == 0.0


def test_the_progress_line_says_the_training_the_wall_budget_leaves():
    from explorer.ui.runs.state import RunState, progress_text

    events = [{"event": "started", "time": 0.0, "config": {"time_budget_minutes": 10}, "steps_total": 100},
              {"event": "step", "time": 60.0, "step": 10, "elapsed": 60.0, "train_seconds": 50.0,
               "train_budget": 480.0, "steps_total": 96, "loss": 1.0}]
    state = RunState.from_events("r", events, alive=True)
    assert "0:50 of ~8:00 trained (10:00 budget)" in progress_text(state)
    assert state.eta() >= 480.0 - 50.0


def test_a_budgeted_run_plans_its_evaluations_on_the_wall_budget():
    """The evaluations of a time-budgeted run are planned on the steps that fit in (1 - eval_share) of its wall
    budget, so that they take at most eval_share of it: planned on the steps the whole budget would allow, they
    took their share of a run longer than the budget."""
    from types import SimpleNamespace

    from explorer.core.training.eval_budget import steps_for_plan
    from explorer.core.training.eval_plan import plan_evaluations

    run = SimpleNamespace(clock=SimpleNamespace(seconds=lambda: 60.0), progress=SimpleNamespace(step=30),
                          config=SimpleNamespace(eval_share=0.2), wall=SimpleNamespace(total=600.0),
                          steps_total=10_000, planned_steps=lambda: 270)
    steps = steps_for_plan(run)
    assert steps == 240                              # 30 steps a minute, 8 of the 10 minutes training
    plan = plan_evaluations(steps=steps, windows_per_step=32, train_rate=30 * 32 / 60, eval_rate=100.0,
                            dev_total=5000, wanted_every=20, share=0.2)
    assert plan.train_seconds == pytest.approx(480.0)
    assert plan.eval_seconds <= 0.2 * 600 + 1e-6     # the evaluations' share of the wall budget, not more
    unbudgeted = SimpleNamespace(**{**vars(run), "wall": None})
    assert steps_for_plan(unbudgeted) == 270


def _budgeted_run(step_bound: int, step: int):
    """A live run with a 10-minute budget, 480 s of it for training, timed at 2 s a step up to ``step``."""
    from explorer.ui.runs.state import RunState

    events = [{"event": "started", "time": 0.0, "config": {"time_budget_minutes": 10}, "steps_total": step_bound}]
    for k in range(1, step + 1):
        events.append({"event": "step", "time": 2.0 * k, "step": k, "elapsed": 2.0 * k, "train_seconds": 2.0 * k,
                       "train_budget": 480.0, "steps_total": min(step_bound, 240), "loss": 1.0})
    return RunState.from_events("r", events, alive=True)


def test_the_time_left_of_a_budgeted_run_is_its_last_steps_when_they_come_before_the_budget():
    """A run with 30 steps left at 2 s a step ends in 1:00, though its budget leaves 7:40 of training: the time
    remaining is the smaller one, and the progress line's tooltip says which bounds it."""
    short = _budgeted_run(step_bound=40, step=10)
    assert short.eta() == pytest.approx(30 * 2.0)
    from explorer.ui.curves.curves_model import CurvesModel
    from explorer.ui.runs.eta import ENDS_AT_LAST_STEP, ENDS_BY_BUDGET

    assert short.ends_by() == ENDS_AT_LAST_STEP == "ends at its last step"
    long = _budgeted_run(step_bound=1000, step=10)
    assert long.eta() == pytest.approx(480.0 - 20.0)
    assert long.ends_by() == ENDS_BY_BUDGET == "ends by its time budget"
    model = CurvesModel()
    model.runs = [short]
    _bar, (_name, parts, tip) = model.progress(now=20.0)
    assert "remaining 1:00" in [text for text, _rank in parts] and tip.endswith("(ends at its last step)")


def test_the_progress_bar_of_a_budgeted_run_never_goes_back_when_its_steps_are_re_estimated():
    """A time-budgeted run re-estimates the steps that fit as it times itself (~71, then ~225 once its steps ran
    faster than its first ones): the Curves bar never shows less done than it showed before, and the status bar
    marks the planned steps as an estimate."""
    from explorer.core.runs import status as run_status
    from explorer.ui.curves.curves_model import CurvesModel
    from explorer.ui.runs.state import RunState
    from explorer.ui.shell.status_texts import activity_line

    state = RunState.from_events("r", [{"event": "started", "time": 0.0, "config": {"time_budget_minutes": 10},
                                        "steps_total": 1000}], alive=True)
    model = CurvesModel()
    model.runs = [state]
    shown = []
    for step, total in ((2, 71), (4, 225), (8, 225), (30, 240)):
        state.apply({"event": "step", "time": 2.0 * step, "step": step, "elapsed": 2.0 * step,
                     "train_seconds": 2.0 * step, "train_budget": 480.0, "steps_total": total, "loss": 1.0})
        lo, hi, value, _fmt = model.progress(now=2.0 * step)[0]
        shown.append((value - lo) / (hi - lo))
    assert shown == sorted(shown) and shown[0] > 0, shown
    assert state.status == run_status.RUNNING
    assert "step 30/~240" in activity_line([state], lambda run_id: run_id)[0]


def test_the_steps_a_budget_fits_are_counted_at_the_rate_after_the_first_step():
    """A first step of 10 s (the data loader's start, the model's warm-up), then 1 s a step: at step 3 (12 s) a
    100-second budget fits 91 steps; counted over all steps (3 in 12 s) it planned 25 and grew as the run went on.
    Before a second step is timed the rate is the only one there is."""
    from types import SimpleNamespace

    from explorer.core.training.eval_budget import steps_for_plan
    from explorer.core.training.setup import TrainingRun

    run = SimpleNamespace(clock=SimpleNamespace(seconds=lambda: 12.0), progress=SimpleNamespace(step=3),
                          wall=SimpleNamespace(total=125.0), steps_total=10_000, budget_seconds=100.0,
                          first_step=(1, 10.0), config=SimpleNamespace(eval_share=0.2))
    assert TrainingRun.planned_steps(run) == 91
    assert steps_for_plan(run) == 3 + 88
    run.progress.step, run.clock.seconds = 1, (lambda: 10.0)
    assert TrainingRun.planned_steps(run) == 10


def test_the_evaluations_are_planned_at_the_training_rate_after_the_first_step():
    """A first step of 10 s, then 1 s a step: the evaluation plan counts training at 1 step/s, as the steps a budget
    fits are counted; at 3 steps in 12 s training looked four times slower, and the evaluations got the larger
    sample (all the dev rows, often) that four times the training seconds allowed."""
    from types import SimpleNamespace

    from explorer.core.specs.train_config import TrainConfig
    from explorer.core.training.eval_budget import plan_evaluations_now
    from explorer.core.training.eval_schedule import EvalSchedule

    schedule = EvalSchedule(TrainConfig(eval_every=10, eval_share=0.15), 2000, sampleable=True)
    schedule.timed(200, 2.0)   # the probe before training: 100 dev rows/s
    logged = []
    run = SimpleNamespace(clock=SimpleNamespace(seconds=lambda: 12.0), progress=SimpleNamespace(step=3),
                          first_step=(1, 10.0), wall=None, steps_total=400, planned_steps=lambda: 400,
                          config=schedule.config, plan={"effective_batch_size": 16}, schedule=schedule,
                          writer=SimpleNamespace(emit=lambda *a, **k: logged.append(k.get("message"))))
    plan_evaluations_now(run)
    assert schedule.plan.train_rate == pytest.approx(16.0)   # 1 step/s of 16 rows
    assert schedule.plan.train_seconds == pytest.approx(400.0) and logged


def test_past_its_planned_training_the_progress_line_says_where_the_budget_went():
    """Training that ran past the time its budget left it is said as the training and the evaluations the budget
    went to, never as an estimate below the time already trained."""
    from explorer.ui.runs.state import RunState, progress_text

    events = [{"event": "started", "time": 0.0, "config": {"time_budget_minutes": 4}, "steps_total": 17},
              {"event": "eval", "time": 100.0, "step": 8, "seconds": 85.0, "metrics": {"accuracy": 0.2}},
              {"event": "step", "time": 230.0, "step": 17, "elapsed": 230.0, "train_seconds": 123.0,
               "train_budget": 119.0, "steps_total": 17, "loss": 1.0}]
    text = progress_text(RunState.from_events("r", events, alive=True))
    assert "2:03 trained of the 4:00 budget; evaluations 1:25" in text
    assert "of ~1:59" not in text

"""The time-budgeted schedule: the clock (evaluations left out), the lr by time, and a budgeted run."""

import contextlib
import io

import numpy as np
import pytest
import torch
from helpers import save_tiny_model, write_tiny_squad

from explorer.core.protocol.events import iter_events
from explorer.core.training import clock as clock_module
from explorer.core.training.clock import TrainClock
from explorer.core.specs.train_config import TrainConfig
from explorer.core.training.recipe import build_time_scheduler, linear_schedule, time_schedule
from explorer.core.errors import ConfigError
from explorer.worker.train import EXIT_OK, main as train_main


def test_time_schedule_is_the_step_schedule_with_time_for_steps():
    """With the clock at s/100 of the budget, the time schedule gives the step schedule's factor at s."""
    budget, now = 600.0, [0.0]
    by_time = time_schedule(0.1, budget, lambda: now[0])
    by_step = linear_schedule(10, 100)
    ours = []
    for s in range(101):
        now[0] = budget * s / 100
        ours.append(by_time(12345))           # the step argument is ignored
    assert np.allclose(ours, [by_step(s) for s in range(101)])
    now[0] = 2 * budget
    assert by_time(0) == 0.0                  # past the budget: 0, never negative
    assert time_schedule(0.0, budget, lambda: 0.0)(0) == 1.0   # no warmup: the peak at once


def test_time_scheduler_follows_the_clock():
    now = [0.0]
    opt = torch.optim.AdamW(torch.nn.Linear(2, 2).parameters(), lr=1e-4)
    sched = build_time_scheduler(opt, warmup_ratio=0.1, budget_seconds=100.0, clock=lambda: now[0])
    assert sched.get_last_lr()[0] == 0.0
    now[0] = 5.0
    opt.step(), sched.step()
    assert sched.get_last_lr()[0] == pytest.approx(0.5e-4)
    now[0] = 55.0
    opt.step(), sched.step()
    assert sched.get_last_lr()[0] == pytest.approx(1e-4 * 45 / 90)


def test_clock_leaves_paused_blocks_out(monkeypatch):
    t = [100.0]
    monkeypatch.setattr(clock_module, "_now", lambda: t[0])
    c = TrainClock(before=7.0)
    assert c.seconds() == 7.0
    c.start()
    t[0] += 3.0
    with c.paused():                 # an evaluation: 50 s not counted
        t[0] += 50.0
        assert c.seconds() == 10.0
    t[0] += 2.0
    assert c.seconds() == 12.0
    c.pause()
    t[0] += 9.0
    assert c.seconds() == 12.0
    with c.paused():                 # paused while paused: stays paused after
        pass
    t[0] += 1.0
    assert c.seconds() == 12.0


def test_negative_budget_is_a_config_error():
    with pytest.raises(ConfigError, match="time_budget_minutes"):
        TrainConfig(train="x.json", time_budget_minutes=-1).validate()


def test_a_budgeted_run_ends_on_time_with_the_lr_decayed(tmp_path, monkeypatch):
    model = save_tiny_model(tmp_path / "qa", "qa")
    data = write_tiny_squad(tmp_path / "sq1.json", v2=False, repeat=2)
    virtual = [0.0]

    def tick():                               # a virtual clock: 50 ms per reading, whatever the machine's load
        virtual[0] += 0.05
        return virtual[0]

    monkeypatch.setattr(clock_module, "_now", tick)
    buf = io.StringIO()
    budget_minutes = 0.1                       # 6 virtual seconds of wall time
    with contextlib.redirect_stdout(buf):
        rc = train_main(["--model", str(model), "--task", "squad_v1", "--train", str(data), "--dev", str(data),
                         "--max-steps", "100000", "--batch-size", "2", "--learning-rate", "1e-3",
                         "--time-budget-minutes", str(budget_minutes), "--eval-every", "5",
                         "--output-dir", str(tmp_path), "--run-id", "budget"])
    events = list(iter_events(buf.getvalue().splitlines()))
    assert rc == EXIT_OK, events[-1]
    steps = [e for e in events if e["event"] == "step"]
    finished = events[-1]
    assert finished["event"] == "finished" and not finished["stopped_early"]
    assert 1 <= finished["steps"] < 100000
    assert steps[-1]["train_seconds"] >= steps[-1]["train_budget"]    # ended because the budget was spent
    assert steps[-1]["train_budget"] < 60 * budget_minutes            # the evaluations came out of the budget
    assert all(0 < s["steps_total"] <= 100000 for s in steps)          # the re-estimated plan rides on steps
    assert steps[-1]["steps_total"] == pytest.approx(steps[-1]["step"], rel=0.5)
    peak = max(s["lr"] for s in steps)
    assert steps[-1]["lr"] < peak                                     # decayed towards 0 by the end
    evals = [e for e in events if e["event"] == "eval"]
    assert len(evals) >= 2                                             # evaluations ran, outside the budget
    ckpt = tmp_path / "budget" / "checkpoints" / "last" / "training_state.pt"
    state = torch.load(ckpt, weights_only=False)
    assert state["train_seconds"] >= steps[-1]["train_budget"]
    assert state["train_seconds"] < state["wall_seconds"]


def test_a_run_that_reaches_its_step_bound_before_its_budget_ends_annealed():
    """A machine fast enough to reach the epochs / max_steps bound before the time budget (a CPU with AMX, a
    GPU) ended the run with the learning rate still near its peak: the schedule follows whichever of the
    budget and the step bound comes first, so the last step's factor is 0 either way."""
    now = [0.0]
    factor = time_schedule(0.1, 1800.0, lambda: now[0], total_steps=100)
    for step in range(101):
        now[0] = 6.0 * step               # 100 steps in 600 s: the bound ends the run at a third of the budget
        if step == 5:
            assert factor(step) == pytest.approx(0.5)     # warming up by steps (5 of the 10 warmup steps)
        if step == 55:
            assert factor(step) == pytest.approx(0.5)     # decaying by steps, not by the 18% of time spent
    assert factor(100) == 0.0
    slow = time_schedule(0.1, 1800.0, lambda: 900.0, total_steps=100_000)
    assert slow(10) == pytest.approx(0.5 / 0.9)           # a slow machine: the time budget leads, as before


def test_a_budget_that_leaves_no_time_to_train_is_an_error_not_an_untrained_finished_run(tmp_path, monkeypatch):
    """The evaluation before training and the final one expected fill the budget (a busy machine, a large dev
    set): the run fails at once with a message naming the setting, instead of training 0 steps and reporting
    "finished" with its untrained head as the best checkpoint."""
    from explorer.core.training.budget import WallBudget

    model = save_tiny_model(tmp_path / "qa", "qa")
    data = write_tiny_squad(tmp_path / "sq1.json", v2=False, repeat=2)
    monkeypatch.setattr(WallBudget, "spent_outside", lambda self: 70.0)     # the first evaluation took 70 s
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = train_main(["--model", str(model), "--task", "squad_v1", "--train", str(data), "--dev", str(data),
                         "--max-steps", "100", "--batch-size", "2", "--time-budget-minutes", "1",
                         "--output-dir", str(tmp_path), "--run-id", "no-time"])
    events = list(iter_events(buf.getvalue().splitlines()))
    assert rc != EXIT_OK and events[-1]["event"] == "failed"
    assert events[-1]["error"].startswith("time_budget_minutes: the 1-minute budget leaves no time to train")
    assert not any(e["event"] == "step" for e in events)


def test_the_time_budget_field_keeps_what_is_typed_as_decimals_or_minutes_seconds(qtbot):
    """The launcher's Time budget takes 0.75 as 0.75 (a one-decimal box kept 0.7: 42 s, not 45) and minutes:seconds
    ("0:45", "1:30"); 0 still reads "none"."""
    from explorer.ui.launch.field_specs import field_spec
    from explorer.ui.launch.form_fields import make_editor

    editor = make_editor(field_spec("time_budget_minutes"))
    spin = editor.widget
    qtbot.addWidget(spin)
    for typed, minutes, shown in (("0.75", 0.75, "0.75"), ("0:45", 0.75, "0.75"), ("1:30", 1.5, "1.5"),
                                  ("2.5", 2.5, "2.5")):
        spin.clear()
        qtbot.keyClicks(spin, typed)
        spin.interpretText()
        assert editor.get() == minutes and spin.text() == shown, typed
    editor.set(0)
    assert spin.text() == "none"

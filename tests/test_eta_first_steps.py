"""The time left at the start of a run, on a recorded run's first events: the bundled encoder on a 400-row
single-sentence table (400 steps of batch 4, an evaluation of 200 dev rows before training, 68 s) recorded by the
worker on a shared CPU. The elapsed time at the first step event holds the evaluation, the set-up and the first
step's warm-up: divided by one step it overstates the time per step 3-fold, so no figure is shown until the step
rate is measured between step events."""

import json
from pathlib import Path

import pytest

from explorer.ui.runs.state import ESTIMATING, RunState, progress_text

EVENTS = [json.loads(line) for line in
          Path(__file__).with_name("recorded_first_steps_events.jsonl").read_text(encoding="utf-8").splitlines()]


def _state_at(step: int) -> RunState:
    upto = next(i for i, ev in enumerate(EVENTS) if ev["event"] == "step" and ev["step"] == step)
    return RunState.from_events("first", EVENTS[:upto + 1], alive=True)


def _time_per_step() -> float:
    """The mean time per step between the recorded step events (the rate the run went on at)."""
    steps = [(ev["step"], ev["elapsed"]) for ev in EVENTS if ev["event"] == "step"]
    return (steps[-1][1] - steps[0][1]) / (steps[-1][0] - steps[0][0])


def test_no_time_left_is_shown_until_the_step_rate_is_measured():
    """Steps 1 and 2: one timed step of 2.6 s, too few to go by (3 steps or 5 s of them are: SETTLED_STEPS,
    SETTLED_SECONDS)."""
    for step in (1, 2):
        state = _state_at(step)
        assert state.eta() is None, step
        assert ESTIMATING in progress_text(state) and "remaining 1" not in progress_text(state)


def test_the_first_estimate_follows_the_measured_rate_not_the_set_up():
    per_step = _time_per_step()
    for step in range(3, 13):
        state = _state_at(step)
        expected = per_step * (state.steps_total - step) + state.evals_to_come_seconds(per_step)
        assert state.eta() == pytest.approx(expected, rel=0.25), (step, state.eta(), expected)


def test_the_set_up_divided_by_the_first_step_would_overstate_the_rate():
    """What the first figure was made of before: the elapsed time at step 1 (the evaluation taken off) per step."""
    first = next(ev for ev in EVENTS if ev["event"] == "step")
    evaluation = next(ev["seconds"] for ev in EVENTS if ev["event"] == "eval")
    assert (first["elapsed"] - evaluation) / first["step"] > 2.5 * _time_per_step()

"""The remaining time on a recorded run's events: a time-budgeted run (30 s of training, a tiny classifier, a
3,200-row dev set evaluated on a 200-row stratified sample before training and whole at the end) recorded by
the worker on a shared CPU. From a quarter of the run on the estimate is within 15% of the time the run really
had left; the budget minus the training time (what the progress line said before it counted the evaluations
to come) is not."""

import json
from pathlib import Path

import pytest

from explorer.ui.runs.state import RunState

EVENTS = Path(__file__).with_name("recorded_budget_run_events.jsonl")


def _replay():
    events = [json.loads(line) for line in EVENTS.read_text(encoding="utf-8").splitlines()]
    start = next(e["time"] for e in events if e["event"] == "started")
    end = events[-1]["time"]
    assert events[-1]["event"] == "finished"
    for i, ev in enumerate(events):
        if ev["event"] == "step" and ev["time"] - start >= (end - start) / 4:
            yield RunState.from_events("budget", events[:i + 1], alive=True), end - ev["time"]


def test_estimate_holds_within_15_percent_from_a_quarter_of_the_run_on():
    checked = 0
    for state, truth in _replay():
        assert state.eta() == pytest.approx(truth, rel=0.15), (state.step, state.eta(), truth)
        checked += 1
    assert checked >= 5


def test_the_budget_left_alone_misses_the_final_evaluation():
    misses = [abs((state.budget_seconds - state.train_seconds) - truth) / truth > 0.15 for state, truth in _replay()]
    assert misses and all(misses)


def test_the_budget_run_check_reads_the_same_estimates_from_the_events():
    """scripts/budget_run_check.py (the figures of a budgeted run for the benchmark results) replays the events
    with the window's own estimate: on this run every estimate from a quarter on is within 15%."""
    import importlib.util

    script = Path(__file__).resolve().parent.parent / "scripts" / "budget_run_check.py"
    spec = importlib.util.spec_from_file_location("budget_run_check", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    events = [json.loads(line) for line in EVENTS.read_text(encoding="utf-8").splitlines()]
    figures = module.budget_figures(events)
    checked = list(_replay())
    assert figures["budget_seconds"] == 30.0 and figures["evaluations"] == 2
    assert figures["estimates_within_15pct"] == 1.0 and figures["estimate_error_max"] < 0.15
    assert figures["train_seconds"] == pytest.approx(max(e.get("train_seconds", 0) for e in events))
    assert figures["estimates_checked"] >= len(checked) - 1
    with pytest.raises(ValueError, match="finished"):
        module.budget_figures([e for e in events if e["event"] != "finished"])

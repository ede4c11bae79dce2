"""What a run says between Stop early and its end (Qt-free): which evaluation is left and how long it will take,
"stopping: final evaluation on all 3,250 dev rows, about 1:40", for the Runs list, the status bar and the time
remaining.

A stop early ends a run with at most one evaluation (explorer.core.training.loop.evaluate_and_save): an evaluation
under way on the whole dev set becomes the final one; one under way on the dev sample is dropped at its next batch
and the final evaluation on the whole dev set follows; a run stopped while training evaluates the whole dev set
once. Each is followed by the last checkpoint save. Without a word on this, a stop that took two minutes looked
like a run that did not hear it.
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.core.runs import status as run_status
from explorer.ui.runs.evaluating import _num, evaluating_now, evaluating_text, evaluation_left_seconds

__all__ = ["StopPlan", "save_seconds", "stop_plan", "stop_seconds", "stopping_short", "stopping_text", "waiting_text"]


@dataclass(frozen=True, kw_only=True)
class StopPlan:
    """What a stopping run has left.

    Attributes:
        dev_total: rows of the whole dev set the final evaluation scores (0: the run has no dev data, or none
            was evaluated yet).
        under_way: the evaluation under way is the final one (it was final already, or it scores the whole dev
            set and becomes the final one).
        dropped: an evaluation on the dev sample was under way: it is dropped.
        seconds: the training step under way, the final evaluation's time left at the measured rate and the
            last save; None while no evaluation rate is measured.
    """

    dev_total: int
    under_way: bool
    dropped: bool
    seconds: float | None


def _seconds_per_row(state, ev: dict | None) -> float:
    """Seconds an evaluation takes per dev row: the last evaluation's own seconds (its forward, metrics and
    probes) over its rows, else the evaluation under way's forward rate so far, else the last forward rate; 0
    while none is measured. The forward rate alone promised a final evaluation of 0:35 that took 0:43."""
    for e in reversed(getattr(state, "evals", [])):
        seconds, rows = _num(e.get("seconds")), _num(e.get("dev_rows"))
        if seconds > 0 and rows > 0:
            return seconds / rows
    rates = [_num(ev.get("rows_per_second")) if ev else 0.0]
    rates += [_num(e.get("rows_per_second")) for e in reversed(getattr(state, "evals", []))]
    return next((1.0 / r for r in rates if r > 0), 0.0)


def _step_seconds(state) -> float:
    """Seconds of the training step under way, which a stop lets finish (the time per step measured between step
    events; 0 while not measured)."""
    return state.timing.per_step() or 0.0


def save_seconds(state) -> float:
    """Seconds the checkpoint save after an evaluation takes: what an evaluation adds between step events
    (EtaMeter.per_eval, the save included) less the evaluations' own seconds (their eval events); 0 while
    not measured."""
    eta = state.timing
    per_step = eta.per_step()
    if per_step is None:
        return 0.0
    added = eta.per_eval(per_step, intervals_only=True)
    during = [_num(e.get("seconds")) for e in getattr(state, "evals", []) if _num(e.get("step")) > 0]
    if added is None or not during:
        return 0.0
    return max(0.0, added - sum(during) / len(during))


def stop_plan(state) -> StopPlan | None:
    """What run ``state`` (a RunState) has left after a stop early; None unless it is stopping."""
    if state.status != run_status.STOPPING:
        return None
    ev = evaluating_now(state)
    evals = getattr(state, "evals", [])
    dev_total = int(_num(ev.get("dev_total")) or _num(ev.get("rows_total"))) if ev else 0
    if not dev_total and evals:
        dev_total = int(_num(evals[-1].get("dev_total")) or _num(evals[-1].get("dev_rows")))
    if ev is not None and (ev.get("final") or _num(ev.get("rows_total")) >= dev_total > 0):
        left = evaluation_left_seconds(state)
        return StopPlan(dev_total=dev_total, under_way=True, dropped=False,
                        seconds=None if left is None else left + save_seconds(state))
    per_row = _seconds_per_row(state, ev)
    step = 0.0 if ev is not None else _step_seconds(state)   # a sampled evaluation under way stops at its next batch
    seconds = step + dev_total * per_row + save_seconds(state) if per_row > 0 and dev_total else None
    if not dev_total:
        seconds = (step + save_seconds(state)) or None
    return StopPlan(dev_total=dev_total, under_way=False, dropped=ev is not None, seconds=seconds)


def stop_seconds(state) -> float | None:
    """Seconds a stopping run has left (:attr:`StopPlan.seconds`); None when not stopping or not measured."""
    plan = stop_plan(state)
    return plan.seconds if plan is not None else None


def stopping_text(state) -> str:
    """'stopping: final evaluation on all 3,250 dev rows, about 1:40' (the evaluation under way on the whole dev
    set: 'stopping: the evaluation under way on all 3,250 dev rows is the final one, about 0:40 left'); '' unless
    the run is stopping."""
    from explorer.ui.runs.state import format_seconds

    plan = stop_plan(state)
    if plan is None:
        return ""
    about = f", about {format_seconds(plan.seconds)}" if plan.seconds is not None else ""
    if not plan.dev_total:
        return f"stopping: the step under way ends, then the last save{about}"
    rows = f"all {plan.dev_total:,} dev rows"
    if plan.under_way:
        return f"stopping: the evaluation under way on {rows} is the final one{about} left"
    dropped = " (the sampled evaluation under way is dropped)" if plan.dropped else ""
    if plan.seconds is None:
        return f"stopping: final evaluation on {rows} next{dropped}, its time not measured yet"
    return f"stopping: final evaluation on {rows}{about}{dropped}"


def stopping_short(state) -> str:
    """'stopping · 1:40' for a narrow cell whose tooltip says the rest (:func:`stopping_text`); '' unless the run
    is stopping with a time measured."""
    from explorer.ui.runs.state import format_seconds

    plan = stop_plan(state)
    return f"stopping · {format_seconds(plan.seconds)}" if plan is not None and plan.seconds is not None else ""


def waiting_text(state) -> str:
    """What the run is busy with beside its steps, for a progress line: its final evaluation under way (its rows
    done, :func:`~explorer.ui.runs.evaluating.evaluating_text`), else what a stop waits for
    (:func:`stopping_text`), else an evaluation under way; '' when none."""
    if (evaluating_now(state) or {}).get("final"):
        return evaluating_text(state)
    return stopping_text(state) or evaluating_text(state)

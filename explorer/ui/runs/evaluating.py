"""What a run says while it evaluates (Qt-free): the evaluation under way, read from its latest ``evaluating`` event
(explorer.core.protocol.events.EvaluatingEvent), for the Runs list's status cell, the Curves progress bar and line,
and the status bar. The final evaluation on a whole dev set can take minutes after the last step; without this the
run read "running · 100%" with a time left that no longer moved, and looked hung.
"""

from __future__ import annotations

from explorer.core.runs import status as run_status

__all__ = ["evaluating_now", "evaluating_short", "evaluation_left_seconds", "evaluating_text", "evaluation_bar"]


def _num(value) -> float:
    try:
        out = float(value)
    except (TypeError, ValueError):
        return 0.0
    return out if out == out and out not in (float("inf"), float("-inf")) else 0.0


def evaluating_now(state) -> dict | None:
    """The run's evaluation under way (its latest ``evaluating`` event), or None: none began since its last
    ``eval`` event, or the run no longer runs (a crash mid-evaluation is no evaluation under way)."""
    ev = getattr(state, "evaluating", None)
    return ev if ev and state.status in run_status.WORKING else None


def evaluation_left_seconds(state) -> float | None:
    """Seconds the evaluation under way still takes: its rows left at its rate so far, else at the forward rate of
    the run's last evaluation (the final one is known from its start); None when no rate is known or none runs."""
    ev = evaluating_now(state)
    if ev is None:
        return None
    rate = _num(ev.get("rows_per_second"))
    if rate <= 0:
        rates = [_num(e.get("rows_per_second")) for e in getattr(state, "evals", [])]
        rate = next((r for r in reversed(rates) if r > 0), 0.0)
    if rate <= 0:
        return None
    return max(0.0, (_num(ev.get("rows_total")) - _num(ev.get("rows_done"))) / rate)


def evaluating_text(state) -> str:
    """'evaluating: final, on all 3,250 dev rows · 1,200 of 3,250 · about 1:10 left' (during training: 'evaluating
    at step 40, on 347 of the 3,250 dev rows · …'; after the final one, a best checkpoint picked on the dev sample:
    'evaluating checkpoints/best of step 56, on all 3,250 dev rows · …'); '' when the run is not evaluating."""
    from explorer.ui.runs.state import format_seconds

    ev = evaluating_now(state)
    if ev is None:
        return ""
    total, done = int(_num(ev.get("rows_total"))), int(_num(ev.get("rows_done")))
    dev_total = int(_num(ev.get("dev_total"))) or total
    which = "final" if ev.get("final") else f"at step {int(_num(ev.get('step'))):,}"
    if ev.get("rescoring"):   # after the final one: the sample's best checkpoint on every dev row
        which = f"checkpoints/best of step {int(_num(ev.get('step'))):,}"
    rows = (f"on all {dev_total:,} dev rows" if total >= dev_total else
            f"on {total:,} of the {dev_total:,} dev rows")
    left = evaluation_left_seconds(state)
    tail = f" · about {format_seconds(left)} left" if left is not None else ""
    return f"evaluating{':' if ev.get('final') else ''} {which}, {rows} · {done:,} of {total:,}{tail}"


def evaluating_short(state) -> str:
    """'evaluating 37%' (the rows done of the evaluation under way), for a narrow cell whose tooltip says the rest
    (:func:`evaluating_text`); '' when the run is not evaluating."""
    ev = evaluating_now(state)
    if ev is None:
        return ""
    total = _num(ev.get("rows_total"))
    return f"evaluating {100 * _num(ev.get('rows_done')) / total:.0f}%" if total > 0 else "evaluating"


def evaluation_bar(state) -> tuple[int, int, int, str] | None:
    """The Curves progress bar while the run evaluates: (0, rows of the evaluation, rows done, its format), or
    None when it does not."""
    ev = evaluating_now(state)
    if ev is None:
        return None
    total = max(int(_num(ev.get("rows_total"))), 1)
    return 0, total, min(int(_num(ev.get("rows_done"))), total), "evaluating · %p%"

"""Which evaluation is "best": one rule shared by the training loop (``checkpoints/best``) and the GUI.

Rule: higher is better; a tie keeps the earlier evaluation (the first occurrence wins: ``best`` is only
replaced by a strictly greater value); a non-finite value never wins; and the evaluation at step 0 of
a fresh run (the untrained model, evaluated before the first step) is never a candidate, because the
loop saves no checkpoint there. So the step the Runs dock names is the step ``checkpoints/best`` holds.
"""

from __future__ import annotations

import math


def is_improvement(value: float | None, best: float | None) -> bool:
    """True when ``value`` should replace ``best`` (strictly greater, finite; anything beats None)."""
    if value is None or isinstance(value, bool):
        return False
    try:
        value = float(value)
    except (TypeError, ValueError):
        return False
    if not math.isfinite(value):
        return False
    return best is None or value > float(best)


def best_evaluation(points, *, include_step_zero: bool = False) -> tuple[int, float] | None:
    """The (step, value) that ``checkpoints/best`` holds, from (step, value) pairs in eval order.

    ``points``: iterable of (step, metric value). Step-0 evaluations are skipped unless
    ``include_step_zero`` (they are the untrained model, never saved). Returns None when no
    evaluation qualifies.
    """
    best: tuple[int, float] | None = None
    for step, value in points:
        if int(step) <= 0 and not include_step_zero:
            continue
        if is_improvement(value, None if best is None else best[1]):
            best = (int(step), float(value))
    return best

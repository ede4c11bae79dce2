"""Which evaluation is "best": one rule shared by the training loop (``checkpoints/best``) and every reader
(the Runs list, groups, compare, ``core/runs/reading.summarize``).

Rule: better is in the metric's own direction (``core/specs/metrics``: higher for shares and correlations,
lower for ``loss``, ``mse``, ``mae``, ``rmse`` and any ``*loss``; transformers' ``greater_is_better``);
a tie keeps the earlier evaluation (``best`` is only replaced by a strictly better value); a non-finite
value never wins; and the evaluation at step 0 of a fresh run (the untrained model, evaluated before the
first step) is never a candidate, because the loop saves no checkpoint there. So the step the Runs dock
names is the step ``checkpoints/best`` holds.
"""

from __future__ import annotations

import math

from explorer.core.specs.metrics import UNDEFINED, higher_is_better


def is_improvement(value: float | None, best: float | None, metric: str | None = None) -> bool:
    """True when ``value`` should replace ``best``: finite and strictly better in the direction of
    ``metric`` (None: higher is better); anything finite beats None."""
    if value is None or isinstance(value, bool):
        return False
    try:
        value = float(value)
    except (TypeError, ValueError):
        return False
    if not math.isfinite(value):
        return False
    if best is None:
        return True
    return value > float(best) if higher_is_better(metric) else value < float(best)


def best_evaluation(points, *, metric: str | None = None,
                    include_step_zero: bool = False) -> tuple[int, float] | None:
    """The (step, value) that ``checkpoints/best`` holds, from (step, value) pairs in eval order.

    ``points``: iterable of (step, metric value); ``metric``: the metric's name, which gives the direction
    (None: higher is better). Step-0 evaluations are skipped unless ``include_step_zero`` (they are the
    untrained model, never saved). Returns None when no evaluation qualifies.
    """
    higher = higher_is_better(metric)   # is_improvement's rule, its direction looked up once, not per point
    best: tuple[int, float] | None = None
    for step, value in points:
        if int(step) <= 0 and not include_step_zero:
            continue
        if value is None or isinstance(value, bool):
            continue
        try:
            value = float(value)
        except (TypeError, ValueError):
            continue
        if not math.isfinite(value):
            continue
        if best is None or (value > best[1] if higher else value < best[1]):
            best = (int(step), value)
    return best


def best_of_events(events, metric: str, *, include_step_zero: bool = False) -> tuple[int, float] | None:
    """The (step, stored value) of ``metric`` that ``checkpoints/best`` holds, from a run log (dicts as in
    ``core/protocol/events``).

    Where the log records the training loop's own pick (its last ``checkpoint`` event of kind "best" chosen by
    ``metric``), that step counts, with the value of the last evaluation at it: the loop compares evaluations on
    the dev sample, and a final evaluation reports the whole dev set, so its figure can be lower than an earlier
    sample's figure and still be the one saved (Best dev then named step 32 at 75.00 while checkpoints/best held
    step 63, 74.67 on all rows, as Classify: dev set scores it). Otherwise :func:`best_evaluation` over the
    ``eval`` events; events without ``metric``, or without a step, are left out."""
    picked = picked_checkpoint(events, metric)
    if picked is not None:
        return picked
    points = []
    for e in events:
        metrics = e.get("metrics") if e.get("event") == "eval" else None
        value = metrics.get(metric) if isinstance(metrics, dict) else None
        if isinstance(value, (int, float)) and not isinstance(value, bool) and isinstance(e.get("step"), (int, float)):
            points.append((e["step"], value))
    return best_evaluation(points, metric=metric, include_step_zero=include_step_zero)


def picked_checkpoint(events, metric: str) -> tuple[int, float] | None:
    """(step, value) of the loop's last "best" checkpoint by ``metric`` and the last evaluation at its step, or
    None (no such checkpoint event, another metric, or no finite value of ``metric`` at that step)."""
    picks = [e for e in events if e.get("event") == "checkpoint" and e.get("kind") == "best"
             and isinstance(e.get("step"), (int, float)) and e.get("metric") in (None, metric)]
    if not picks:
        return None
    step = picks[-1]["step"]
    value = value_at_step(events, metric, step)
    return (int(step), value) if value is not None else None


def undefined_best(events, metric: str) -> str:
    """Why a run has no best ``metric``: the reason its latest evaluation after step 0 gave for it being
    undefined (``metrics["undefined"]``: "the predictions are constant (2.5 for all 16 rows)", a regression head
    that collapsed), when no evaluation after step 0 has a finite value of it; "" otherwise (a best exists, or
    the metric was never reported undefined). Every display shows this reason in place of a best value, so a
    collapsed run never reads as a run with no evaluation, nor as "0.0, merely uncorrelated"."""
    if best_of_events(events, metric) is not None:
        return ""
    reason = ""
    for e in events:
        metrics = e.get("metrics") if e.get("event") == "eval" else None
        undefined = metrics.get(UNDEFINED) if isinstance(metrics, dict) else None
        if isinstance(undefined, dict) and metric in undefined and isinstance(e.get("step"), (int, float)) \
                and e["step"] > 0:
            reason = str(undefined[metric])
    return reason


def listed_metric(metric: str) -> str:
    """The metric a run picked by ``metric`` is listed and ranked by: the same evaluation's figure without a
    threshold tuned on the dev questions it is scored on (``best_f1`` -> ``f1``, F1 at τ = 0, the model's own
    answer/abstain decision: core/specs/metrics ``listed_as``), else ``metric`` itself."""
    from explorer.core.specs.metrics import metric_spec

    return metric_spec(metric).listed_as or metric


def value_at_step(events, metric: str, step: int) -> float | None:
    """The stored value of ``metric`` in the last ``eval`` event at ``step`` (a re-scoring on all dev rows comes
    after the sample's evaluation, so it wins); None when no evaluation at that step has a finite one."""
    for e in reversed(list(events)):
        metrics = e.get("metrics") if e.get("event") == "eval" and e.get("step") == step else None
        value = metrics.get(metric) if isinstance(metrics, dict) else None
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            return float(value)
    return None


def listed_best(events, metric: str) -> tuple[str, int, float] | None:
    """(metric, step, stored value) a run is listed by: the evaluation ``checkpoints/best`` holds
    (:func:`best_of_events` by the picking ``metric``), read in :func:`listed_metric`. A SQuAD 2.0 run picked by
    best_f1 is listed by f1 at the same step: best_f1 chooses its threshold on the very dev questions it scores, so
    it is optimistic (58.54 where τ on dev set's honest half-split gives 50.68 and τ = 0 gives 55.68). Falls back
    to the picking metric's figure when that evaluation lacks the listed metric; None before a best exists."""
    best = best_of_events(events, metric)
    if best is None:
        return None
    name = listed_metric(metric)
    value = value_at_step(events, name, best[0]) if name != metric else None
    return (name, best[0], value) if value is not None else (metric, best[0], best[1])

"""A run's scalars as (step, name, value) rows: one naming for every export (Qt-free, torch-free).

A ``step`` event's numbers are ``train/<field>`` (``lr`` is written ``train/learning_rate``, the name Hugging
Face's TensorBoard callback uses), an ``eval`` event's metrics are ``eval/<metric>`` on their stored scale
(shares in [0, 1], not the Curves' percent); a metric the evaluation declares undefined (``metrics["undefined"]``,
a correlation of constant predictions, saved as null) is NaN, so an export keeps the evaluation as a point without a
value instead of leaving it out. Written to TensorBoard event files (explorer.core.runs.tensorboard) and to one CSV
for many runs (explorer.core.runs.export).
"""

from __future__ import annotations

import math

from explorer.core.protocol.events import STEP_CONTEXT_FIELDS as _STEP_CONTEXT   # where and when, not what was measured
from explorer.core.protocol.events import is_rescoring
from explorer.core.specs.metrics import UNDEFINED   # the metrics key naming the metrics without a value

TRAIN_PREFIX, EVAL_PREFIX = "train/", "eval/"
RENAMED = {"lr": "learning_rate"}   # event field -> scalar name, where they differ


def scalar(value) -> float | None:
    """``value`` as a float when it is a number (not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def event_scalars(event: dict) -> list[tuple[int, str, float]]:
    """The (step, name, value) rows of one event: a step event's numbers as ``train/<field>``, an eval
    event's metrics as ``eval/<metric>`` (NaN for one it declares undefined); other events and non-numbers
    (per_class tables, null) give []."""
    kind, step = event.get("event"), scalar(event.get("step"))
    if step is None or kind not in ("step", "eval") or is_rescoring(event):   # a rescoring: not a point of the curve
        return []
    if kind == "step":
        items = ((TRAIN_PREFIX + RENAMED.get(k, k), v) for k, v in event.items() if k not in _STEP_CONTEXT)
    else:
        metrics = event.get("metrics") or {}
        undefined = metrics.get(UNDEFINED) if isinstance(metrics.get(UNDEFINED), dict) else {}
        items = ((EVAL_PREFIX + k, math.nan if v is None and k in undefined else v) for k, v in metrics.items())
    return [(int(step), name, float(v)) for name, v in items if scalar(v) is not None]


def run_scalars(events: list[dict]) -> list[tuple[int, str, float]]:
    """Every (step, name, value) of a run's events, in event order (see :func:`event_scalars`)."""
    return [row for event in events for row in event_scalars(event)]

"""A run's scalars as (step, name, value) rows: one naming for every export (Qt-free, torch-free).

A ``step`` event's numbers are ``train/<field>`` (``lr`` is written ``train/learning_rate``, the name Hugging
Face's TensorBoard callback uses), an ``eval`` event's metrics are ``eval/<metric>`` on their stored scale; an
evaluation that scored a stratified sample of the dev rows (``dev_rows`` < ``dev_total``: the evaluations during
training of a large dev set) is ``eval_sample/<metric>``, so one curve never joins a 200-row sample's figures to
the whole dev set's
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

TRAIN_PREFIX, EVAL_PREFIX, EVAL_SAMPLE_PREFIX = "train/", "eval/", "eval_sample/"
RENAMED = {"lr": "learning_rate"}   # event field -> scalar name, where they differ


def scalar(value) -> float | None:
    """``value`` as a float when it is a number (not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def scored_a_sample(event: dict) -> bool:
    """Whether an ``eval`` event scored fewer dev rows (``dev_rows``) than the whole dev set (``dev_total``)."""
    rows, total = scalar(event.get("dev_rows")), scalar(event.get("dev_total"))
    return rows is not None and total is not None and 0 < rows < total


def eval_prefix(event: dict) -> str:
    """``eval_sample/`` for an evaluation on a sample of the dev rows, else ``eval/``."""
    return EVAL_SAMPLE_PREFIX if scored_a_sample(event) else EVAL_PREFIX


def event_scalars(event: dict) -> list[tuple[int, str, float]]:
    """The (step, name, value) rows of one event: a step event's numbers as ``train/<field>``, an eval
    event's metrics as ``eval/<metric>``, or ``eval_sample/<metric>`` when it scored a sample of the dev rows
    (NaN for one it declares undefined); other events and non-numbers (per_class tables, null) give []."""
    kind, step = event.get("event"), scalar(event.get("step"))
    if step is None or kind not in ("step", "eval") or is_rescoring(event):   # a rescoring: not a point of the curve
        return []
    if kind == "step":
        items = ((TRAIN_PREFIX + RENAMED.get(k, k), v) for k, v in event.items() if k not in _STEP_CONTEXT)
    else:
        metrics = event.get("metrics") or {}
        undefined = metrics.get(UNDEFINED) if isinstance(metrics.get(UNDEFINED), dict) else {}
        prefix = eval_prefix(event)
        items = ((prefix + k, math.nan if v is None and k in undefined else v) for k, v in metrics.items())
    return [(int(step), name, float(v)) for name, v in items if scalar(v) is not None]


def run_scalars(events: list[dict]) -> list[tuple[int, str, float]]:
    """Every (step, name, value) of a run's events, in event order (see :func:`event_scalars`)."""
    return [row for event in events for row in event_scalars(event)]

"""Head importance and the "prune the least important heads" curve (Michel, Levy and Neubig 2019, "Are Sixteen
Heads Really Better than One?"; transformers' examples/research_projects/bertology/run_bertology.py).

Importance of head h in layer l: the expected |d L / d xi_lh| over the dev set, xi_lh a gate on the head's output
(explorer.core.attention.gates) held at 1, L the task's dev loss. As in the BERTology example, the per-batch
absolute gradients are summed and divided by the number of input tokens, then each layer's scores are divided by
their L2 norm (Michel et al. Section 4.1: heads compare within a layer) and the whole map is min-max scaled to 0..1.
The pruning curve masks the least important heads in steps and scores the dev set after each step: the dev metric
against the number of heads kept. One-shot (the default) ranks the heads once, by the unmasked model's map;
iterative (Michel et al. Section 4, as the BERTology example's ``mask_heads``) estimates the importance again with the heads masked so far and
masks the least important of the heads still on, so a head whose job another head takes over once a neighbour is
gone is kept. The iterative curve costs one forward and one backward per point (the gated gradient pass yields
that point's metrics too); the one-shot curve one forward per point.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from explorer.core.ablation.dev import DevSet, dev_batch_count, dev_gate_gradients, dev_metrics
from explorer.core.attention.gates import gate_tensor, head_layout
from explorer.core.attention.head_labels import head_label
from explorer.core.specs.metrics import UNDEFINED   # the metrics key naming the metrics without a value


@dataclass(frozen=True, kw_only=True)
class HeadImportance:
    """Importance per head of one model on one dev set.

    Attributes:
        scores: (layers, heads) float64, per-layer L2-normalised then min-max scaled to 0..1 (what the heat map
            draws; 1 = the most important head).
        raw: (layers, heads) float64, the sum over batches of |d loss / d gate| divided by ``tokens``.
        tokens: input tokens of the dev features. examples: dev examples scored.
        metric: the dev metric's name; metrics: the unmasked model's dev metrics (the same forwards).
    """

    scores: np.ndarray
    raw: np.ndarray
    tokens: int
    examples: int
    metric: str
    metrics: dict

    def order(self) -> list[tuple[int, int]]:
        """(layer, head) pairs, least important first (ties by layer then head)."""
        layers, heads = self.scores.shape
        flat = sorted(range(layers * heads), key=lambda i: (self.scores.flat[i], i))
        return [(i // heads, i % heads) for i in flat]

    def to_dict(self) -> dict:
        """JSON-ready: scores, raw, tokens, examples, metric, metrics (floats and lists)."""
        return {"scores": self.scores.tolist(), "raw": self.raw.tolist(), "tokens": self.tokens,
                "examples": self.examples, "metric": self.metric, "metrics": _plain(self.metrics)}


def normalise_importance(raw: np.ndarray) -> np.ndarray:
    """Each layer's row divided by its L2 norm (a layer of zeros stays zero), then the whole map min-max scaled
    to 0..1 (all equal: all 1): the BERTology example's two normalisations."""
    raw = np.asarray(raw, dtype=np.float64)
    norms = np.linalg.norm(raw, axis=1, keepdims=True)
    scores = raw / (norms + 1e-20)
    lo, hi = float(scores.min()), float(scores.max())
    return np.ones_like(scores) if hi - lo <= 0 else (scores - lo) / (hi - lo)


def head_importance(model, dev: DevSet, *, batch_size: int = 16, batch_done=None) -> HeadImportance:
    """Head importance of ``model`` on ``dev`` (explorer.core.ablation.dev.load_dev_set), one forward and one
    backward per batch (``batch_done()`` after each). Raises HeadGateError for a model whose heads cannot be
    gated."""
    grads, metrics, tokens = dev_gate_gradients(model, dev, batch_size=batch_size, batch_done=batch_done)
    raw = grads / max(tokens, 1)
    return HeadImportance(scores=normalise_importance(raw), raw=raw, tokens=tokens, examples=len(dev),
                          metric=dev.metric, metrics=metrics)


@dataclass(frozen=True, kw_only=True)
class PrunePoint:
    """One point of the pruning curve: ``heads_kept`` of ``heads_total`` heads unmasked, ``value`` the dev metric
    (None when the task reported none) and ``metrics`` every dev metric; ``masked`` the (layer, head) pairs off."""

    heads_kept: int
    heads_total: int
    value: float | None
    metrics: dict
    masked: list[tuple[int, int]] = field(default_factory=list)

    def to_dict(self) -> dict:
        """JSON-ready (strict JSON); ``undefined``: why the point has no value, when the task says (a regression
        head's Pearson of constant predictions), else absent."""
        out = {"heads_kept": self.heads_kept, "heads_total": self.heads_total, "value": self.value,
               "metrics": _plain(self.metrics), "masked": [list(p) for p in self.masked]}
        reasons = self.metrics.get(UNDEFINED)
        if self.value is None and isinstance(reasons, dict) and reasons:
            out[UNDEFINED] = "; ".join(sorted({str(r) for r in reasons.values()}))
        return out


def prune_counts(total: int, steps: int) -> list[int]:
    """Heads masked at each point: 0, then ``total / steps`` more each step (rounded), up to all but one head of
    the model: Michel et al.'s 10% increments for steps=10. Distinct, increasing."""
    steps = max(1, int(steps))
    counts = sorted({min(total - 1, round(total * k / steps)) for k in range(steps + 1)})
    return [c for c in counts if c >= 0]


def prune_curve(model, dev: DevSet, importance: HeadImportance, *, steps: int = 10, iterative: bool = False,
                batch_size: int = 16, progress=None, batch_done=None) -> list[PrunePoint]:
    """The dev metric with the least important heads masked, at :func:`prune_counts` points, first point unmasked.
    One-shot: in ``importance.order()``, one dev pass per point; ``iterative``: :func:`iterative_prune_curve`.
    ``progress(done, points)`` after each point; ``batch_done()`` after each dev batch."""
    if iterative:
        return iterative_prune_curve(model, dev, importance, steps=steps, batch_size=batch_size, progress=progress,
                                     batch_done=batch_done)
    layout = head_layout(model)
    total = layout.layers * layout.heads
    order = importance.order()
    counts = prune_counts(total, steps)
    points = []
    for i, n in enumerate(counts):
        masked = order[:n]
        metrics = importance.metrics if n == 0 else dev_metrics(model, dev, gate_tensor(layout, heads=masked),
                                                                batch_size=batch_size, batch_done=batch_done)
        points.append(prune_point(total, masked, metrics, dev.metric))
        if progress is not None:
            progress(i + 1, len(counts))
    return points


def prune_point(total: int, masked: list[tuple[int, int]], metrics: dict, metric: str) -> PrunePoint:
    """One point of a pruning curve: ``total`` heads, ``masked`` (layer, head) pairs off, the dev ``metrics`` with
    them off; its value is ``metrics[metric]`` (None when the metric is missing, not a number or not finite: a
    correlation undefined with these heads off)."""
    value = metrics.get(metric)
    finite = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return PrunePoint(heads_kept=total - len(masked), heads_total=total, masked=list(masked), metrics=metrics,
                      value=float(value) if finite else None)


def least_important_on(scores: np.ndarray, masked: list[tuple[int, int]], n: int) -> list[tuple[int, int]]:
    """The ``n`` heads of lowest ``scores`` ((layers, heads)) among those not in ``masked``, least important first
    (ties by layer then head)."""
    off = set(masked)
    heads = scores.shape[1]
    free = [i for i in range(scores.size) if (i // heads, i % heads) not in off]
    free.sort(key=lambda i: (scores.flat[i], i))
    return [(i // heads, i % heads) for i in free[:n]]


def iterative_prune_curve(model, dev: DevSet, importance: HeadImportance, *, steps: int = 10, batch_size: int = 16,
                          progress=None, batch_done=None) -> list[PrunePoint]:
    """Michel et al.'s iterative pruning: at each :func:`prune_counts` point the heads masked so far stay off, the
    importance is estimated again with them off (gate 0; :func:`normalise_importance` of the gated gradients) and
    the least important of the heads still on are masked up to the next point's count. The first point is the
    unmasked model (``importance``, estimated by the caller); every later point's metrics come from the same gated
    forwards as its importance. ``progress(done, points)`` after each point; ``batch_done()`` after each dev
    batch."""
    layout = head_layout(model)
    total = layout.layers * layout.heads
    counts = prune_counts(total, steps)
    masked: list[tuple[int, int]] = []
    scores, metrics = importance.scores, importance.metrics
    points = []
    for i, n in enumerate(counts):
        if n > len(masked):
            masked = masked + least_important_on(scores, masked, n - len(masked))
            grads, metrics, tokens = dev_gate_gradients(model, dev, gate_tensor(layout, heads=masked),
                                                        batch_size=batch_size, batch_done=batch_done)
            scores = normalise_importance(grads / max(tokens, 1))
        points.append(prune_point(total, masked, metrics, dev.metric))
        if progress is not None:
            progress(i + 1, len(counts))
    return points


def _plain(metrics: dict) -> dict:
    """Scalar metrics as JSON-ready floats (None for NaN / inf); other values dropped."""
    out = {}
    for k, v in metrics.items():
        if isinstance(v, (bool, int, float, np.integer, np.floating)):
            f = float(v)
            out[k] = f if math.isfinite(f) else None
    return out


def importance_report(model, tokenizer, task: str, source: str, *, cap: int = 200, steps: int = 10,
                      iterative: bool = False, max_seq_length: int | None = None, settings: dict | None = None,
                      batch_size: int = 16, progress=None) -> dict:
    """Head importance of ``model`` on the first ``cap`` examples of dev file ``source`` (read as ``task``) and the
    pruning curve with ``steps`` points (0: none; ``iterative``: importance estimated again after each step),
    JSON-ready: {task, dev, importance (HeadImportance.to_dict), least_important_first (0-based index pairs),
    least_important_first_labels (the same heads counted from 1, "5.3"), prune_curve
    (PrunePoint.to_dict each), pruning ("one-shot" | "iterative"), higher_is_better}. ``progress(done, total)``
    after every dev batch, counted in batches over all passes (the importance pass and one per curve point after
    the unmasked first): a long scoring shows how far it is, and a cancel raised there stops it between batches.
    Raises what load_dev_set and head_importance raise."""
    from explorer.core.ablation.dev import load_dev_set

    dev = load_dev_set(model, tokenizer, task, source, cap=cap, max_seq_length=max_seq_length, settings=settings)
    layout = head_layout(model)
    passes = len(prune_counts(layout.layers * layout.heads, steps)) if steps else 1   # the first point: no pass
    total = passes * dev_batch_count(dev, batch_size)
    done = [0]

    def batch_done() -> None:
        done[0] += 1
        if progress is not None:
            progress(done[0], total)

    imp = head_importance(model, dev, batch_size=batch_size, batch_done=batch_done)
    curve = prune_curve(model, dev, imp, steps=steps, iterative=iterative, batch_size=batch_size,
                        batch_done=batch_done) if steps else []
    return {"task": task, "dev": str(source), "importance": imp.to_dict(),
            "least_important_first": [list(p) for p in imp.order()],
            "least_important_first_labels": [head_label(a, h) for a, h in imp.order()],
            "prune_curve": [p.to_dict() for p in curve], "pruning": "iterative" if iterative else "one-shot",
            "higher_is_better": dev.higher_is_better}

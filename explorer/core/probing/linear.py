"""A logistic-regression probe per layer (Tenney et al. 2019, "BERT rediscovers the classical NLP pipeline",
in small; Alain and Bengio 2016 for linear probes): how well a linear classifier reads a label off each layer's
frozen hidden states, with an interval over seeds.

For each seed: one split of the rows into train and test by sentence (scikit-learn's GroupShuffleSplit, so
the words of one sentence stay on one side), then per layer a StandardScaler and a multinomial
LogisticRegression fitted on train and scored on test (accuracy). The same splits serve every model, so two
models' curves are compared on the same rows. The interval per layer is Student's t over the seeds
(explorer.core.metrics.significance.t_interval). The majority class of each split's train rows, scored on its
test rows, is the floor a probe must beat.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from explorer.core.errors import UserError

DEFAULT_SEEDS = (0, 1, 2)
TEST_FRACTION = 0.3
MAX_ITER = 300


class ProbeFitError(UserError):
    """Labels a probe cannot learn: fewer than two classes, rows and labels of different lengths."""


@dataclass(kw_only=True)
class LayerCurve:
    """Probe accuracy per layer of one model (fractions 0..1).

    Attributes:
        name: what the curve is ("base model", "fine-tuned"); source: the model it was read from.
        layers: 0 (embeddings) .. L.
        mean, low, high: accuracy over seeds per layer and its t interval (NaN bounds with one seed).
        per_seed: (seeds, layers) accuracies.
    """

    name: str
    source: str
    layers: list[int]
    mean: list[float]
    low: list[float]
    high: list[float]
    per_seed: list[list[float]]

    def best_layer(self) -> int:
        """The layer of the highest mean accuracy (the first of ties)."""
        return int(self.layers[int(np.argmax(self.mean))])


@dataclass(kw_only=True)
class SplitPlan:
    """The train / test rows of every seed: ``splits[k] = (train indices, test indices)``."""

    seeds: list[int]
    splits: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)


def plan_splits(groups: np.ndarray, *, seeds=DEFAULT_SEEDS, test_fraction: float = TEST_FRACTION) -> SplitPlan:
    """One grouped train / test split per seed (GroupShuffleSplit). Raises ProbeFitError with fewer than two
    groups."""
    from sklearn.model_selection import GroupShuffleSplit

    groups = np.asarray(groups)
    if len(np.unique(groups)) < 2:
        raise ProbeFitError("a probe needs at least two sentences (one to train on, one to test)")
    plan = SplitPlan(seeds=[int(s) for s in seeds])
    for seed in plan.seeds:
        split = GroupShuffleSplit(n_splits=1, test_size=test_fraction, random_state=seed)
        train, test = next(split.split(np.zeros(len(groups)), groups=groups))
        plan.splits.append((train, test))
    return plan


def _fit_score(x_train, y_train, x_test, y_test, max_iter: int, seed: int) -> float:
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    if len(np.unique(y_train)) < 2:     # one class in train: the probe can only say it
        return float(np.mean(y_test == y_train[0]))
    probe = make_pipeline(StandardScaler(), LogisticRegression(max_iter=max_iter, random_state=seed))
    probe.fit(x_train, y_train)
    return float(probe.score(x_test, y_test))


def majority_accuracy(labels, plan: SplitPlan) -> float:
    """The mean over the plan's splits of the train majority class's accuracy on test."""
    y = np.asarray(labels)
    scores = []
    for train, test in plan.splits:
        values, counts = np.unique(y[train], return_counts=True)
        scores.append(float(np.mean(y[test] == values[int(np.argmax(counts))])))
    return float(np.mean(scores))


def probe_curve(features: np.ndarray, labels, plan: SplitPlan, *, name: str, source: str = "",
                max_iter: int = MAX_ITER, progress=None, cancelled=None) -> LayerCurve:
    """Accuracy of a probe on every layer of ``features`` ((layers + 1, n, hidden)) for every split of ``plan``.

    Args:
        labels: (n,) class ids or names, one per row.
        progress: ``progress(done, total)`` after each fit (total = layers x seeds).
        cancelled: ``cancelled() -> True`` stops before the next fit (raises explorer.core.errors.Cancelled).

    Raises:
        ProbeFitError: labels of another length than the rows, or fewer than two classes.
    """
    from explorer.core.errors import Cancelled
    from explorer.core.metrics.significance import t_interval

    y = np.asarray(labels)
    n_layers, n = features.shape[0], features.shape[1]
    if len(y) != n:
        raise ProbeFitError(f"{n} rows of features but {len(y)} labels")
    if len(np.unique(y)) < 2:
        raise ProbeFitError("the labels hold one class only: there is nothing for a probe to tell apart")
    scores = np.zeros((len(plan.splits), n_layers))
    total, done = n_layers * len(plan.splits), 0
    for k, (train, test) in enumerate(plan.splits):
        for layer in range(n_layers):
            if cancelled is not None and cancelled():
                raise Cancelled()
            x = features[layer]
            scores[k, layer] = _fit_score(x[train], y[train], x[test], y[test], max_iter, plan.seeds[k])
            done += 1
            if progress is not None:
                progress(done, total)
    intervals = [t_interval(scores[:, layer]) for layer in range(n_layers)]
    return LayerCurve(name=name, source=source, layers=list(range(n_layers)),
                      mean=[float(i.mean) for i in intervals], low=[float(i.low) for i in intervals],
                      high=[float(i.high) for i in intervals], per_seed=scores.tolist())

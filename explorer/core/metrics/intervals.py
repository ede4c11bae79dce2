"""One model's dev figure with its bootstrap interval (scipy.stats.bootstrap; Qt- and torch-free).

:func:`confusion_interval` resamples the dev rows with replacement (the (gold, predicted) pairs together) and
recomputes any figure of a confusion matrix (accuracy, macro F1, F_avg, ...: a ``score`` that maps r
confusion matrices (r, K, K) to (r,) values, as core.classify.compare.CONFUSION_SCORES); the interval is the
percentile interval of scipy.stats.bootstrap (Efron & Tibshirani 1993, ch. 13), the standard error the
resamples' standard deviation. :func:`correlation_interval` does the same for Pearson's r or Spearman's rho of a
regression.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

DEFAULT_RESAMPLES = 2_000


@dataclass(frozen=True, kw_only=True)
class FigureInterval:
    """value: the figure on all n rows; low, high: its bootstrap percentile interval at ``level``; se: the
    bootstrap standard error; n: rows; resamples, seed: the bootstrap's."""

    value: float
    low: float
    high: float
    se: float
    n: int
    level: float
    resamples: int
    seed: int
    undefined: str = ""   # why the figure has no value (NaN value and interval): "the predictions are constant (…)"

    def to_dict(self) -> dict:
        """The fields as strict JSON: a NaN (an undefined figure) is null, and ``undefined`` says why."""
        def number(x):
            return x if np.isfinite(x) else None

        out = {"value": number(self.value), "low": number(self.low), "high": number(self.high),
               "se": number(self.se), "n": self.n, "level": self.level, "resamples": self.resamples, "seed": self.seed}
        return {**out, "undefined": self.undefined} if self.undefined else out

    def text(self, digits: int = 3) -> str:
        """'0.961 (0.889 to 0.991)'; an undefined figure: 'undefined (the predictions are constant (…))'."""
        if self.undefined:
            return f"undefined ({self.undefined})"
        return f"{self.value:.{digits}f} ({self.low:.{digits}f} to {self.high:.{digits}f})"


def confusions(gold: np.ndarray, pred: np.ndarray, k: int) -> np.ndarray:
    """(..., K, K) confusion matrices (rows gold, columns predicted) of class ids (..., n) each."""
    g = np.asarray(gold)
    p = np.asarray(pred)
    cells = (g * k + p)[..., None] == np.arange(k * k)
    return cells.sum(axis=-2).reshape(*g.shape[:-1], k, k).astype(float)


def confusion_interval(score: Callable[[np.ndarray], np.ndarray], gold, pred, k: int, *,
                       resamples: int = DEFAULT_RESAMPLES, seed: int = 0, level: float = 0.95) -> FigureInterval:
    """A confusion-matrix figure of (n,) predicted class ids against (n,) gold ids in 0..k-1, with its paired
    percentile bootstrap interval. Raises ValueError for different lengths or no rows."""
    from scipy.stats import bootstrap

    g = np.asarray(gold, dtype=np.int64).ravel()
    p = np.asarray(pred, dtype=np.int64).ravel()
    if g.shape != p.shape:
        raise ValueError(f"interval: {g.size} gold labels but {p.size} predictions")
    if g.size == 0:
        raise ValueError("interval: no rows")

    def statistic(gs, ps, axis=-1):
        gs, ps = np.moveaxis(gs, axis, -1), np.moveaxis(ps, axis, -1)
        lead = gs.shape[:-1]
        conf = confusions(gs.reshape(-1, gs.shape[-1]), ps.reshape(-1, ps.shape[-1]), k)
        return np.asarray(score(conf), dtype=float).reshape(lead)

    value = float(statistic(g[None, :], p[None, :])[0])
    res = bootstrap((g, p), statistic, paired=True, vectorized=True, n_resamples=resamples, batch=200,
                    confidence_level=level, method="percentile", random_state=np.random.default_rng(seed))
    return FigureInterval(value=value, low=float(res.confidence_interval.low),
                          high=float(res.confidence_interval.high), se=float(res.standard_error), n=int(g.size),
                          level=level, resamples=resamples, seed=seed)


def correlation_interval(gold, predicted, *, resamples: int = DEFAULT_RESAMPLES, seed: int = 0,
                         level: float = 0.95, method: str = "pearson") -> FigureInterval:
    """Pearson's r (``method`` "pearson") or Spearman's rho ("spearman": Pearson's r of the ranks, ties
    averaged, ranked again within each resample) of (n,) predictions against (n,) gold scores with its paired
    percentile bootstrap interval. Where either side is constant, r is undefined: value and interval NaN and
    ``undefined`` the reason (core.metrics.regression.undefined_reason), never 0.0 (which reads "merely
    uncorrelated"). Raises ValueError for different lengths, fewer than 3 rows or another method."""
    from scipy.stats import bootstrap, rankdata

    g = np.asarray(gold, dtype=float).ravel()
    p = np.asarray(predicted, dtype=float).ravel()
    if g.shape != p.shape:
        raise ValueError(f"interval: {g.size} gold scores but {p.size} predictions")
    if g.size < 3:
        raise ValueError(f"interval: {g.size} rows; Pearson's r needs at least 3")
    from explorer.core.metrics.regression import undefined_reason

    reason = undefined_reason(p, g)
    if reason:
        return FigureInterval(value=math.nan, low=math.nan, high=math.nan, se=math.nan, n=int(g.size), level=level,
                              resamples=resamples, seed=seed, undefined=reason)

    if method not in ("pearson", "spearman"):
        raise ValueError(f"interval: unknown correlation {method!r} (pearson or spearman)")

    def statistic(gs, ps, axis=-1):
        if method == "spearman":
            gs, ps = rankdata(gs, axis=axis), rankdata(ps, axis=axis)
        gs = gs - gs.mean(axis=axis, keepdims=True)
        ps = ps - ps.mean(axis=axis, keepdims=True)
        den = np.sqrt((gs * gs).sum(axis=axis) * (ps * ps).sum(axis=axis))
        num = (gs * ps).sum(axis=axis)
        return np.divide(num, den, out=np.zeros_like(num), where=den > 0)

    value = float(statistic(g, p))
    res = bootstrap((g, p), statistic, paired=True, vectorized=True, n_resamples=resamples,
                    confidence_level=level, method="percentile", random_state=np.random.default_rng(seed))
    return FigureInterval(value=value, low=float(res.confidence_interval.low),
                          high=float(res.confidence_interval.high), se=float(res.standard_error), n=int(g.size),
                          level=level, resamples=resamples, seed=seed)

"""Dev metrics of a regression head (GLUE STS-B): Pearson and Spearman correlation (scipy.stats) and the mean
squared error. Correlations are in [-1, 1]; where one side is constant (a collapsed model predicting one
score, gold scores all alike) or there are fewer than 2 rows, a correlation is undefined: it is NaN (scipy's
answer too, never 0.0, which would read "merely uncorrelated" beside a huge MSE), the reason is in
``metrics["undefined"]`` ({metric: reason}), events save it as null (strict JSON) and the best-checkpoint rule
never ranks it. MSE is in the label's units squared (lower is better). Source: GLUE (Wang et al. 2019), Table 1.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from explorer.core.specs.metrics import UNDEFINED   # the metrics key holding {metric: why it has no value}

CORRELATIONS = ("pearson", "spearman")


def undefined_reason(pred: np.ndarray, gold: np.ndarray) -> str:
    """Why a correlation of ``pred`` with ``gold`` is undefined ("" when it is defined)."""
    if pred.size < 2:
        return f"{pred.size} row{'s' if pred.size != 1 else ''}: a correlation needs at least 2"
    for what, values in (("predictions", pred), ("gold scores", gold)):
        if np.ptp(values) == 0:
            return f"the {what} are constant ({values[0]:.4g} for all {values.size} rows)"
    return ""


def _corr(fn, pred: np.ndarray, gold: np.ndarray) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = float(fn(pred, gold)[0])
    return value if np.isfinite(value) else math.nan


def regression_metrics(predictions, labels) -> dict:
    """pearson, spearman (scipy.stats.pearsonr / spearmanr) and mse of predictions against gold; an undefined
    correlation is NaN and ``"undefined"`` names it with the reason (``{"pearson": "the predictions are
    constant (2.5 for all 4 rows)", ...}``; absent when both are defined).

    Args:
        predictions: (n,) or (n, 1) model scores.
        labels: (n,) gold scores.

    Raises:
        ValueError: the two lengths differ.
    """
    from scipy.stats import pearsonr, spearmanr

    pred = np.asarray(predictions, dtype=np.float64).reshape(-1)
    gold = np.asarray(labels, dtype=np.float64).reshape(-1)
    if pred.shape != gold.shape:
        raise ValueError(f"regression_metrics: {pred.size} predictions for {gold.size} labels")
    reason = undefined_reason(pred, gold)
    out = {"pearson": math.nan if reason else _corr(pearsonr, pred, gold),
           "spearman": math.nan if reason else _corr(spearmanr, pred, gold),
           "mse": float(np.mean((pred - gold) ** 2)) if gold.size else 0.0}
    undefined = {name: reason or "scipy returned no finite value" for name in CORRELATIONS if math.isnan(out[name])}
    if undefined:
        out[UNDEFINED] = undefined
    return out


def undefined_note(metrics: dict) -> str:
    """One sentence for the metrics an evaluation could not compute ("pearson and spearman undefined: the
    predictions are constant (2.5 for all 4 rows)"); "" when there are none."""
    undefined = metrics.get(UNDEFINED) if isinstance(metrics, dict) else None
    if not isinstance(undefined, dict) or not undefined:
        return ""
    reasons = sorted(set(undefined.values()))
    return f"{' and '.join(undefined)} undefined: {'; '.join(reasons)}"

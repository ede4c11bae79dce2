"""Dev metrics of a regression head (GLUE STS-B): Pearson and Spearman correlation (scipy.stats) and the mean
squared error. Correlations are in [-1, 1]; where one side is constant (a collapsed model predicting one
score, gold scores all alike) or there are fewer than 2 rows, a correlation is undefined: it is NaN (scipy's
answer too, never 0.0, which would read "merely uncorrelated" beside a huge MSE), the reason is in
``metrics["undefined"]`` ({metric: reason}), events save it as null (strict JSON) and the best-checkpoint rule
never ranks it. MSE is in the label's units squared (lower is better). Source: GLUE (Wang et al. 2019), Table 1.

Beside them, what always predicting the dev gold's mean would score: ``mse_of_mean``, the gold's population
variance (the mean predictor's MSE, label units squared), and ``r2``, the coefficient of determination
1 - mse / mse_of_mean (sklearn.metrics.r2_score of the same predictions: 1 = exact, 0 = no better than the mean,
below 0 = worse, down to minus infinity). A model whose R² is 0 or less scores an MSE a constant would match,
whatever its correlations say. R² is undefined (NaN, with the reason, as a correlation is) where the gold scores
are constant or there are fewer than 2 rows (sklearn's ``force_finite=False`` answer; its default forces 0 or 1).
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from explorer.core.specs.metrics import UNDEFINED   # the metrics key holding {metric: why it has no value}

CORRELATIONS = ("pearson", "spearman")
R2 = "r2"                      # coefficient of determination, 1 - mse / mse_of_mean
MSE_OF_MEAN = "mse_of_mean"    # the MSE of always predicting the dev gold's mean: the gold's population variance


def undefined_reason(pred: np.ndarray, gold: np.ndarray) -> str:
    """Why a correlation of ``pred`` with ``gold`` is undefined ("" when it is defined)."""
    if pred.size < 2:
        return f"{pred.size} row{'s' if pred.size != 1 else ''}: a correlation needs at least 2"
    for what, values in (("predictions", pred), ("gold scores", gold)):
        if np.ptp(values) == 0:
            return f"the {what} are constant ({values[0]:.4g} for all {values.size} rows)"
    return ""


def r2_undefined_reason(gold: np.ndarray) -> str:
    """Why R² of predictions against ``gold`` is undefined ("" when it is defined): fewer than 2 rows, or gold
    scores all alike (the mean predictor is then exact and R²'s denominator is 0)."""
    if gold.size < 2:
        return f"{gold.size} row{'s' if gold.size != 1 else ''}: R² needs at least 2"
    if np.ptp(gold) == 0:
        return f"the gold scores are constant ({gold[0]:.4g} for all {gold.size} rows)"
    return ""


def _corr(fn, pred: np.ndarray, gold: np.ndarray) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = float(fn(pred, gold)[0])
    return value if np.isfinite(value) else math.nan


def regression_metrics(predictions, labels) -> dict:
    """pearson, spearman (scipy.stats.pearsonr / spearmanr) and mse of predictions against gold, with
    ``mse_of_mean`` (the gold's population variance: the MSE of always predicting the gold mean) and ``r2``
    (1 - mse / mse_of_mean, sklearn.metrics.r2_score); an undefined correlation or R² is NaN and ``"undefined"``
    names it with the reason (``{"pearson": "the predictions are constant (2.5 for all 4 rows)", ...}``; absent
    when all are defined).

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
    out[MSE_OF_MEAN] = float(np.mean((gold - gold.mean()) ** 2)) if gold.size else 0.0
    r2_reason = r2_undefined_reason(gold)
    out[R2] = math.nan if r2_reason else 1.0 - out["mse"] / out[MSE_OF_MEAN]
    undefined = {name: reason or "scipy returned no finite value" for name in CORRELATIONS if math.isnan(out[name])}
    if r2_reason:
        undefined[R2] = r2_reason
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
    names = list(undefined)
    said = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    return f"{said} undefined: {'; '.join(reasons)}"

"""Dev metrics of a regression head (GLUE STS-B): Pearson and Spearman correlation (scipy.stats) and the mean
squared error. Correlations are in [-1, 1] (0.0 when either side is constant, where scipy returns NaN);
MSE is in the label's units squared (lower is better). Source: GLUE (Wang et al. 2019), Table 1.
"""

from __future__ import annotations

import warnings

import numpy as np


def _corr(fn, pred: np.ndarray, gold: np.ndarray) -> float:
    if pred.size < 2 or np.ptp(pred) == 0 or np.ptp(gold) == 0:
        return 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = float(fn(pred, gold)[0])
    return value if np.isfinite(value) else 0.0


def regression_metrics(predictions, labels) -> dict:
    """pearson, spearman (scipy.stats.pearsonr / spearmanr) and mse of predictions against gold.

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
    return {"pearson": _corr(pearsonr, pred, gold), "spearman": _corr(spearmanr, pred, gold),
            "mse": float(np.mean((pred - gold) ** 2)) if gold.size else 0.0}

"""GLUE-style classification metrics in numpy: accuracy, binary F1, Matthews correlation,
Pearson and Spearman correlation (Wang et al. 2019, GLUE, Table 1; the same definitions as
scikit-learn / scipy). All values are fractions in [0, 1] (correlations in [-1, 1]), not percent.
"""

from __future__ import annotations

import numpy as np


def accuracy(labels: np.ndarray, preds: np.ndarray) -> float:
    """Share of predictions equal to the label. labels, preds: int arrays of shape (n,)."""
    labels, preds = np.asarray(labels), np.asarray(preds)
    return float((labels == preds).mean()) if labels.size else 0.0


def binary_f1(labels: np.ndarray, preds: np.ndarray, positive: int = 1) -> float:
    """F1 of the positive class: 2 TP / (2 TP + FP + FN); 0.0 when there is no positive at all."""
    labels, preds = np.asarray(labels), np.asarray(preds)
    tp = float(((preds == positive) & (labels == positive)).sum())
    fp = float(((preds == positive) & (labels != positive)).sum())
    fn = float(((preds != positive) & (labels == positive)).sum())
    denom = 2 * tp + fp + fn
    return 2 * tp / denom if denom else 0.0


def matthews_corrcoef(labels: np.ndarray, preds: np.ndarray) -> float:
    """Matthews correlation, multi-class form (Gorodkin 2004); binary case = (TP TN - FP FN) / sqrt(...).

    0.0 when a denominator is zero (e.g. a constant prediction), as scikit-learn does.
    """
    labels, preds = np.asarray(labels), np.asarray(preds)
    classes = np.union1d(labels, preds)
    index = {c: i for i, c in enumerate(classes)}
    k = len(classes)
    conf = np.zeros((k, k), dtype=np.float64)
    for y, p in zip(labels, preds):
        conf[index[y], index[p]] += 1
    t = conf.sum(axis=1)      # true counts per class
    p = conf.sum(axis=0)      # predicted counts per class
    c = np.trace(conf)
    s = conf.sum()
    cov_ytyp = c * s - t @ p
    cov_ypyp = s * s - p @ p
    cov_ytyt = s * s - t @ t
    denom = np.sqrt(cov_ytyt * cov_ypyp)
    return float(cov_ytyp / denom) if denom else 0.0


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson correlation of two float arrays of shape (n,); NaN (undefined) if either is constant
    (explorer.core.metrics.regression says why)."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    xm, ym = x - x.mean(), y - y.mean()
    denom = np.sqrt((xm * xm).sum() * (ym * ym).sum())
    return float((xm * ym).sum() / denom) if denom else float("nan")


def _ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n with ties given their average rank (scipy.stats.rankdata 'average')."""
    x = np.asarray(x, dtype=np.float64)
    order = np.argsort(x, kind="mergesort")
    ranks = np.empty(len(x), dtype=np.float64)
    sorted_x = x[order]
    i = 0
    while i < len(x):
        j = i
        while j + 1 < len(x) and sorted_x[j + 1] == sorted_x[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman rank correlation = Pearson correlation of the (tie-averaged) ranks."""
    return pearson(_ranks(x), _ranks(y))


def per_class_metrics(labels: np.ndarray, preds: np.ndarray, names: list[str]) -> dict:
    """Per-class and averaged figures from scikit-learn's ``precision_recall_fscore_support``.

    Args:
        labels, preds: (n,) int class ids 0..K-1.
        names: the K class names (id2label order).

    Returns:
        ``per_class`` {name: {precision, recall, f1, support, predicted, in_macro}} (fractions; support and
        predicted, the rows predicted as the class, counts; a class never predicted has precision 0;
        ``in_macro`` False for a class with neither a gold nor a predicted row, whose F1 means nothing),
        ``macro_f1`` (unweighted mean over the classes that occur in the gold labels or the predictions, as
        scikit-learn's ``f1_score(average="macro")``: a class a small dev split holds no row of is not counted
        as F1 0, which took a 22-class run's 0.574 down to 0.470), ``weighted_f1`` (weighted by support).
    """
    from sklearn.metrics import precision_recall_fscore_support

    ids = list(range(len(names)))
    p, r, f, n = precision_recall_fscore_support(labels, preds, labels=ids, zero_division=0)
    predicted = np.bincount(np.asarray(preds, dtype=np.int64), minlength=len(ids))[:len(ids)] if len(ids) else n
    present = (n > 0) | (predicted > 0)
    per_class = {name: {"precision": float(p[i]), "recall": float(r[i]), "f1": float(f[i]), "support": int(n[i]),
                        "predicted": int(predicted[i]), "in_macro": bool(present[i])}
                 for i, name in enumerate(names)}
    total = float(n.sum())
    return {"per_class": per_class, "macro_f1": float(f[present].mean()) if present.any() else 0.0,
            "weighted_f1": float((f * n).sum() / total) if total else 0.0}


def f_avg(per_class: dict, classes: list[str]) -> float:
    """Macro F1 over chosen classes: SemEval-2016 Task 6's official F_avg = (F1(FAVOR) + F1(AGAINST)) / 2
    (Mohammad et al. 2016, Section 5; the NONE class is left out of the average but still counts in the
    other classes' precision and recall).

    Raises:
        KeyError: a class not in ``per_class``.
    """
    return float(np.mean([per_class[c]["f1"] for c in classes])) if classes else 0.0


def classification_metrics(labels: np.ndarray, logits: np.ndarray, *, label_names: list[str] | None = None,
                           f1_classes: list[str] | None = None) -> dict:
    """Metrics for one evaluation.

    Args:
        labels: (n,) int class ids, or (n,) floats for regression.
        logits: (n, num_labels) model outputs; num_labels 1 means regression.
        label_names: class names in id order (default: the ids as text).
        f1_classes: names whose F1 values are averaged into ``f_avg``.

    Returns:
        classification: accuracy, matthews_corrcoef, macro_f1, weighted_f1, per_class (a nested dict), f1
        (binary tasks only: F1 of class 1) and f_avg (when f1_classes are given).
        regression: pearson, spearman, mse, mse_of_mean, r2 (explorer.core.metrics.regression.regression_metrics).
    """
    logits = np.asarray(logits, dtype=np.float64)
    if logits.ndim == 2 and logits.shape[1] == 1:
        pred = logits[:, 0]
        from explorer.core.metrics.regression import regression_metrics

        return regression_metrics(pred, labels)   # NaN and the reason where a correlation is undefined
    preds = logits.argmax(axis=-1)
    out = {"accuracy": accuracy(labels, preds), "matthews_corrcoef": matthews_corrcoef(labels, preds)}
    if logits.shape[1] == 2:
        out["f1"] = binary_f1(labels, preds)
    names = list(label_names) if label_names and len(label_names) == logits.shape[1] else \
        [str(i) for i in range(logits.shape[1])]
    labels = np.asarray(labels, dtype=np.int64)
    if labels.size:
        out.update(per_class_metrics(labels, preds, names))
        if f1_classes:
            out["f_avg"] = f_avg(out["per_class"], [c for c in f1_classes if c in out["per_class"]])
    return out

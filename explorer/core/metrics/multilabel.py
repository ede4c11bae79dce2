"""Dev metrics of a multi-label head (one sigmoid per label) and its per-label decision thresholds.

Label k is predicted when P_k = sigmoid(logit_k) >= tau_k. Figures (scikit-learn, fractions in [0, 1]):
micro F1 (TP, FP, FN pooled over all labels: the Reuters-21578 headline figure), macro F1 (the mean of the
per-label F1s; a label with no gold and no predicted positive counts 0, ``zero_division=0``) and subset
accuracy (the whole label set right).

Thresholds are tuned per label (the tau that maximises that label's F1 on a grid). Choosing them on the dev
set and reporting the same dev set flatters the figures, so :func:`honest_thresholds` does what the tau study
does for SQuAD 2.0 (explorer.core.qa.scores.honest_tau): a seeded random split of dev into halves A and B,
thresholds chosen on A and reported on B, and the other way round; the held-out predictions of the two
halves together give the honest figures. The thresholds saved with a checkpoint (for prediction) are the ones
chosen on the whole dev set.
"""

from __future__ import annotations

import numpy as np

DEFAULT_THRESHOLD = 0.5
THRESHOLD_GRID = tuple(round(0.05 * i, 2) for i in range(1, 20))   # 0.05, 0.10, ..., 0.95


def sigmoid(logits) -> np.ndarray:
    """1 / (1 + exp(-z)), float64, any shape (numerically stable for large |z|)."""
    from scipy.special import expit

    return expit(np.asarray(logits, dtype=np.float64))


def predict(probabilities, thresholds) -> np.ndarray:
    """(n, K) 0/1 ints: P_k >= tau_k. thresholds: a scalar or (K,)."""
    p = np.asarray(probabilities, dtype=np.float64)
    return (p >= np.asarray(thresholds, dtype=np.float64)).astype(np.int64)


def multilabel_scores(gold, predicted) -> dict:
    """micro_f1, macro_f1, subset_accuracy and per-label F1 (list) of 0/1 matrices (n, K) (scikit-learn)."""
    from sklearn.metrics import accuracy_score, f1_score

    y, p = np.asarray(gold, dtype=np.int64), np.asarray(predicted, dtype=np.int64)
    if y.shape != p.shape or y.ndim != 2:
        raise ValueError(f"multilabel_scores: gold {y.shape} and predictions {p.shape} must both be (n, K)")
    if y.shape[0] == 0:
        return {"micro_f1": 0.0, "macro_f1": 0.0, "subset_accuracy": 0.0, "label_f1": [0.0] * y.shape[1]}
    return {"micro_f1": float(f1_score(y, p, average="micro", zero_division=0)),
            "macro_f1": float(f1_score(y, p, average="macro", zero_division=0)),
            "subset_accuracy": float(accuracy_score(y, p)),
            "label_f1": [float(v) for v in f1_score(y, p, average=None, zero_division=0)]}


def _label_f1(gold_k: np.ndarray, prob_k: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """F1 of one label at each threshold of ``grid`` (vectorised: 2TP / (2TP + FP + FN), 0 when undefined)."""
    pred = prob_k[None, :] >= grid[:, None]                  # (taus, n)
    pos = gold_k[None, :].astype(bool)
    tp = (pred & pos).sum(1)
    fp = (pred & ~pos).sum(1)
    fn = (~pred & pos).sum(1)
    denom = 2 * tp + fp + fn
    return np.where(denom > 0, 2 * tp / np.maximum(denom, 1), 0.0)


def tune_thresholds(gold, probabilities, grid=THRESHOLD_GRID) -> np.ndarray:
    """(K,) thresholds: per label, the grid value with the highest F1 on these rows; ties (e.g. a label with
    no positive here, where every tau gives 0) go to the value nearest DEFAULT_THRESHOLD."""
    y = np.asarray(gold, dtype=np.int64)
    p = np.asarray(probabilities, dtype=np.float64)
    taus = np.asarray(grid, dtype=np.float64)
    nearness = -np.abs(taus - DEFAULT_THRESHOLD)
    out = np.empty(y.shape[1], dtype=np.float64)
    for k in range(y.shape[1]):
        f1 = _label_f1(y[:, k], p[:, k], taus)
        best = np.flatnonzero(np.isclose(f1, f1.max()))
        out[k] = taus[best[np.argmax(nearness[best])]]
    return out


def honest_thresholds(gold, probabilities, seed: int = 0, grid=THRESHOLD_GRID) -> dict:
    """Thresholds chosen on one random half of dev and scored on the other, both ways.

    Args:
        gold: (n, K) 0/1; probabilities: (n, K) sigmoid outputs; n >= 2.
        seed: the split's seed (numpy default_rng permutation; the same seed gives the same halves).

    Returns:
        dict: thresholds_A, thresholds_B (lists, chosen on A / on B), micro_f1_B_at_A, micro_f1_A_at_B,
        honest_micro_f1, honest_macro_f1, honest_subset_accuracy (both halves' held-out predictions
        together), dev_thresholds and dev_tuned_micro_f1 (chosen and scored on all of dev: flattered),
        n_A, n_B, index_A (the rows of half A).

    Raises:
        ValueError: fewer than 2 rows.
    """
    y = np.asarray(gold, dtype=np.int64)
    p = np.asarray(probabilities, dtype=np.float64)
    n = y.shape[0]
    if n < 2:
        raise ValueError("honest_thresholds needs at least 2 dev rows")
    perm = np.random.default_rng(seed).permutation(n)
    a, b = np.sort(perm[: n // 2]), np.sort(perm[n // 2:])
    tau_a, tau_b = tune_thresholds(y[a], p[a], grid), tune_thresholds(y[b], p[b], grid)
    held_out = np.empty_like(y)
    held_out[b] = predict(p[b], tau_a)
    held_out[a] = predict(p[a], tau_b)
    honest = multilabel_scores(y, held_out)
    tau_all = tune_thresholds(y, p, grid)
    return {"thresholds_A": tau_a.tolist(), "thresholds_B": tau_b.tolist(),
            "micro_f1_B_at_A": multilabel_scores(y[b], held_out[b])["micro_f1"],
            "micro_f1_A_at_B": multilabel_scores(y[a], held_out[a])["micro_f1"],
            "honest_micro_f1": honest["micro_f1"], "honest_macro_f1": honest["macro_f1"],
            "honest_subset_accuracy": honest["subset_accuracy"],
            "dev_thresholds": tau_all.tolist(),
            "dev_tuned_micro_f1": multilabel_scores(y, predict(p, tau_all))["micro_f1"],
            "n_A": int(len(a)), "n_B": int(len(b)), "index_A": a.tolist()}


def multilabel_metrics(gold, logits, label_names: list[str], seed: int = 0) -> dict:
    """The eval event's figures: micro_f1, macro_f1, subset_accuracy at tau = 0.5 for every label; the honest
    tuned figures (honest_micro_f1, honest_macro_f1, honest_subset_accuracy, micro_f1_B_at_A,
    micro_f1_A_at_B); ``thresholds`` {label: tau chosen on all of dev}, what a checkpoint saves for
    prediction; ``per_label`` {label: {f1, support}} at 0.5."""
    y = np.asarray(gold, dtype=np.int64)
    p = sigmoid(logits)
    plain = multilabel_scores(y, predict(p, DEFAULT_THRESHOLD))
    out = {k: plain[k] for k in ("micro_f1", "macro_f1", "subset_accuracy")}
    out["per_label"] = {name: {"f1": plain["label_f1"][k], "support": int(y[:, k].sum())}
                        for k, name in enumerate(label_names)}
    if y.shape[0] >= 2:
        h = honest_thresholds(y, p, seed=seed)
        out.update({k: h[k] for k in ("honest_micro_f1", "honest_macro_f1", "honest_subset_accuracy",
                                      "micro_f1_B_at_A", "micro_f1_A_at_B", "dev_tuned_micro_f1")})
        out["thresholds"] = dict(zip(label_names, h["dev_thresholds"]))
    else:
        out["thresholds"] = {name: DEFAULT_THRESHOLD for name in label_names}
    return out


def row_counts(gold, predicted) -> np.ndarray:
    """(n, 3) per row: true positives, false positives, false negatives of 0/1 matrices (n, K); their column
    sums give micro F1 = 2 TP / (2 TP + FP + FN)."""
    y, p = np.asarray(gold, dtype=bool), np.asarray(predicted, dtype=bool)
    return np.stack([(y & p).sum(1), (~y & p).sum(1), (y & ~p).sum(1)], axis=1).astype(float)


def micro_f1_of_counts(indices, counts: np.ndarray) -> float:
    """Micro F1 of the rows ``indices`` of :func:`row_counts` (0 when there is no positive at all)."""
    tp, fp, fn = counts[indices].sum(axis=0)
    denom = 2 * tp + fp + fn
    return float(2 * tp / denom) if denom else 0.0


def paired_bootstrap_micro_f1(gold, predicted_a, predicted_b, *, resamples: int = 10_000, seed: int = 0,
                              level: float = 0.95):
    """Paired bootstrap of micro F1(B) - micro F1(A) (0..1) of two 0/1 prediction matrices (n, K) against gold
    (n, K): rows resampled with replacement, the same rows for A and B (core.metrics.significance.
    paired_bootstrap; its percentile interval). Raises ValueError for shapes that differ."""
    from explorer.core.metrics.significance import paired_bootstrap

    y = np.asarray(gold)
    a, b = np.asarray(predicted_a), np.asarray(predicted_b)
    if not (y.shape == a.shape == b.shape) or y.ndim != 2:
        raise ValueError(f"micro F1 bootstrap: gold {y.shape}, A {a.shape} and B {b.shape} must all be (n, K)")
    return paired_bootstrap(micro_f1_of_counts, row_counts(y, a), row_counts(y, b), metric="micro_f1",
                            resamples=resamples, seed=seed, level=level)

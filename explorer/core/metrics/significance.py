"""Significance, intervals and agreement (Qt-free; numpy, scipy.stats, scikit-learn, krippendorff).

What each function answers, and its source:

- :func:`mcnemar_exact` - do two classifiers on the same examples differ in accuracy? McNemar's exact test
  on the discordant pairs (only A right ``b``, only B right ``c``): under H0 each discordant pair is a fair
  coin, so p = two-sided binomial test of b successes out of b + c at 0.5 (scipy.stats.binomtest;
  McNemar 1947, the exact form as in Dietterich 1998, "Approximate statistical tests for comparing
  supervised classification learning algorithms", section 3.3).
- :func:`paired_bootstrap` - an interval for metric(B) - metric(A) on the same examples: resample the
  examples with replacement, the same indices for A and B (Efron & Tibshirani 1993, ch. 13, percentile
  interval; Koehn 2004 "Statistical significance tests for machine translation evaluation" for the paired
  form). Vectorised. When the per-example outcomes take few distinct values (accuracy and exact match:
  a difference of -1, 0 or +1; macro F1: a (gold, A, B) triple), a resample only changes how often each
  value occurs, and those counts are drawn directly as Multinomial(n, observed shares) - the same
  distribution as counting n indices drawn with replacement, without the (n_resamples, n) index matrix.
  Otherwise one (chunk, n) index matrix per chunk.
- :func:`t_interval` - the mean of a few restarts or folds with its 95% Student t interval (scipy.stats.t).
- :func:`welch_test` - two groups of runs (e.g. two learning rates over restarts): Welch's unequal-variance
  t test (scipy.stats.ttest_ind(equal_var=False); Welch 1947).
- :func:`cohen_kappa` - agreement of two labelings beyond chance (sklearn.metrics.cohen_kappa_score;
  Cohen 1960).
- :func:`krippendorff_alpha` - agreement among several annotators with missing values (the
  ``krippendorff`` package; Krippendorff 2011, "Computing Krippendorff's alpha-reliability").
- :func:`difference_in_words` - the result said as a sentence.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

DEFAULT_RESAMPLES = 10_000
DEFAULT_SEED = 0


# ----------------------------------------------------------------------------------------------- McNemar
@dataclass(frozen=True)
class McNemarResult:
    """only_a: examples only A got right (b); only_b: only B right (c); p: exact two-sided p-value
    (1.0 when there is no discordant pair)."""

    only_a: int
    only_b: int
    p: float

    @property
    def discordant(self) -> int:
        return self.only_a + self.only_b


def mcnemar_exact(correct_a, correct_b) -> McNemarResult:
    """McNemar's exact test from two (n,) boolean arrays "A right" / "B right" on the same examples.

    Raises ValueError when the arrays differ in length."""
    a = np.asarray(correct_a, dtype=bool).ravel()
    b = np.asarray(correct_b, dtype=bool).ravel()
    if a.shape != b.shape:
        raise ValueError(f"McNemar: A has {a.size} examples, B has {b.size}; they must be the same examples")
    return mcnemar_from_counts(int(np.sum(a & ~b)), int(np.sum(~a & b)))


def mcnemar_from_counts(only_a: int, only_b: int) -> McNemarResult:
    """McNemar's exact test from the discordant counts (only A right, only B right).

    10 vs 2 -> p = 0.0386 (two-sided binomial, 10 of 12, 0.5). Raises ValueError for a negative count."""
    from scipy.stats import binomtest

    if only_a < 0 or only_b < 0:
        raise ValueError(f"McNemar: discordant counts must be >= 0 (got {only_a}, {only_b})")
    n = only_a + only_b
    p = 1.0 if n == 0 else float(binomtest(only_a, n, 0.5, alternative="two-sided").pvalue)
    return McNemarResult(int(only_a), int(only_b), min(p, 1.0))


# --------------------------------------------------------------------------------------- paired bootstrap
@dataclass(frozen=True)
class BootstrapResult:
    """metric(B) - metric(A) on the full sample (``difference``) and its percentile interval
    [low, high] at ``level`` over ``resamples`` paired resamples drawn with ``seed``; ``metric`` names the
    figure, ``scale`` is what one unit of the metric is shown as (100: points of a share)."""

    metric: str
    value_a: float
    value_b: float
    difference: float
    low: float
    high: float
    level: float
    resamples: int
    seed: int
    n: int

    @property
    def contains_zero(self) -> bool:
        return self.low <= 0.0 <= self.high


BOOTSTRAP_METHODS = ("auto", "counts", "indices")


def _use_counts(method: str, distinct: int, n: int) -> bool:
    """Whether a bootstrap draws category counts (Multinomial) rather than index matrices: ``method``
    "counts" / "indices" force it; "auto" draws counts when there are at most n / 16 distinct outcomes (then
    R x distinct binomial draws, about ten times dearer each, are cheaper than R x n indices). Raises ValueError for another method."""
    if method not in BOOTSTRAP_METHODS:
        raise ValueError(f"paired bootstrap: method must be one of {', '.join(BOOTSTRAP_METHODS)} (got {method!r})")
    return method == "counts" or (method == "auto" and distinct * 16 <= n)


def _resampled_counts(freq: np.ndarray, resamples: int, rng: np.random.Generator, chunk: int = 20_000):
    """(k, m) counts per chunk: how often each of the m outcomes occurs in a resample of n = freq.sum()
    examples drawn with replacement, i.e. Multinomial(n, freq / n) (Efron & Tibshirani 1993, ch. 6)."""
    n = int(freq.sum())
    p = freq / n
    done = 0
    while done < resamples:
        k = min(chunk, resamples - done)
        yield rng.multinomial(n, p, size=k).astype(float)
        done += k


def _indices(n: int, resamples: int, rng: np.random.Generator, chunk: int):
    done = 0
    while done < resamples:
        k = min(chunk, resamples - done)
        yield rng.integers(0, n, size=(k, n), dtype=np.int32 if n < 2**31 else np.int64)
        done += k


def paired_bootstrap_mean(values_a, values_b, *, metric: str = "mean", resamples: int = DEFAULT_RESAMPLES,
                          seed: int = DEFAULT_SEED, level: float = 0.95, chunk: int = 500,
                          method: str = "auto") -> BootstrapResult:
    """Paired bootstrap of mean(B) - mean(A) for per-example scores (n,) each: accuracy (0/1 right),
    SQuAD exact match (0/1) or SQuAD F1 (0..1 per question).

    Only the per-example differences d = B - A matter. With few distinct d (0/1 scores: -1, 0, +1) a
    resample is a Multinomial draw of how often each occurs (``method`` "counts"; "auto" picks it when
    there are at most n / 16 distinct differences); else one gather + mean over a (chunk, n) index matrix
    ("indices", the same draws as :func:`paired_bootstrap` for one seed). Raises ValueError for different
    lengths, no examples or an unknown method."""
    a = np.asarray(values_a, dtype=float).ravel()
    b = np.asarray(values_b, dtype=float).ravel()
    _check_pair(a, b, resamples, level)
    if _swapped_first(a, b):   # the draws follow the pair, not its order: B vs A is the mirror of A vs B
        return _mirrored(paired_bootstrap_mean(b, a, metric=metric, resamples=resamples, seed=seed, level=level,
                                               chunk=chunk, method=method))
    d = b - a
    rng = np.random.default_rng(seed)
    values, freq = np.unique(d, return_counts=True)
    if _use_counts(method, len(values), len(d)):
        diffs = np.concatenate([c @ values / len(d) for c in _resampled_counts(freq, resamples, rng)])
    else:
        diffs = np.concatenate([d[idx].mean(axis=1) for idx in _indices(len(d), resamples, rng, chunk)])
    return _result(metric, float(a.mean()), float(b.mean()), diffs, level, resamples, seed, len(d))


def macro_f1_of_confusions(conf: np.ndarray) -> np.ndarray:
    """Macro F1 (0..1) of each of r confusion matrices (r, K, K) (rows gold, columns predicted): the unweighted
    mean over the K classes of 2 TP / (2 TP + FP + FN), 0 for a class never in gold nor predicted
    (sklearn.metrics.f1_score(average="macro", zero_division=0)). Returns (r,)."""
    return f1_per_class_of_confusions(conf).mean(axis=1)


def f1_per_class_of_confusions(conf: np.ndarray) -> np.ndarray:
    """Each class's F1 (0..1) in each of r confusion matrices (r, K, K): 2 TP / (2 TP + FP + FN), 0 where that
    is 0 / 0. Returns (r, K)."""
    tp = np.diagonal(conf, axis1=1, axis2=2)
    denom = conf.sum(axis=2) + conf.sum(axis=1)          # (TP + FN) + (TP + FP)
    return np.divide(2 * tp, denom, out=np.zeros(tp.shape, dtype=float), where=denom > 0)


def paired_bootstrap_confusion(score: Callable[[np.ndarray], np.ndarray], gold, pred_a, pred_b, *, labels=None,
                               metric: str = "metric", resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                               level: float = 0.95, chunk: int = 200, method: str = "auto") -> BootstrapResult:
    """Paired bootstrap of score(B) - score(A) for any figure of a confusion matrix (accuracy, macro or weighted
    F1, an average over chosen classes such as SemEval's F_avg, Matthews correlation): ``score`` maps r
    confusion matrices (r, K, K) (rows gold, columns predicted, over ``labels``; default every label in gold or
    either prediction) to (r,) values.

    Each example is a (gold, A, B) triple; a resample is a count of each distinct triple, and the two
    confusion matrices follow by a matrix product, so there is no Python loop over resamples. The counts are
    drawn as Multinomial(n, triple shares) (``method`` "counts", what "auto" picks when there are at most n / 16
    distinct triples) or counted from index matrices ("indices", the same draws as :func:`paired_bootstrap`
    for one seed). Raises ValueError for different lengths or an unknown method."""
    g = np.asarray(gold).ravel()
    pa = np.asarray(pred_a).ravel()
    pb = np.asarray(pred_b).ravel()
    if not (len(g) == len(pa) == len(pb)):
        raise ValueError(f"{metric} bootstrap: gold has {len(g)} examples, A {len(pa)}, B {len(pb)}")
    _check_pair(pa, pb, resamples, level)
    classes = sorted(set(g.tolist()) | set(pa.tolist()) | set(pb.tolist())) if labels is None else list(labels)
    code = {c: i for i, c in enumerate(classes)}
    k = len(classes)
    gi, ai, bi = (np.array([code.get(x, -1) for x in v.tolist()]) for v in (g, pa, pb))
    if _swapped_first(ai, bi):   # the draws follow the pair, not its order: B vs A is the mirror of A vs B
        return _mirrored(paired_bootstrap_confusion(score, gold, pred_b, pred_a, labels=labels, metric=metric,
                                                    resamples=resamples, seed=seed, level=level, chunk=chunk,
                                                    method=method))
    # each example is one (gold, A, B) triple; a resample only changes how often each triple occurs
    triples, inverse = np.unique(np.stack([gi, ai, bi], axis=1), axis=0, return_inverse=True)
    inverse = inverse.ravel()
    m = len(triples)

    def cell(rows, cols):   # (m, K*K): the confusion cell each triple adds 1 to (none for a label outside ``labels``)
        out = np.zeros((m, k * k))
        inside = (rows >= 0) & (cols >= 0)
        out[np.flatnonzero(inside), (rows * k + cols)[inside]] = 1.0
        return out

    cell_a, cell_b = cell(triples[:, 0], triples[:, 1]), cell(triples[:, 0], triples[:, 2])

    def both(counts):   # counts (r, m) of each triple -> score of A and of B, (r,) each
        return [score((counts @ c).reshape(-1, k, k)) for c in (cell_a, cell_b)]

    freq = np.bincount(inverse, minlength=m)
    full = both(freq[None, :].astype(float))
    rng = np.random.default_rng(seed)
    diffs = []
    if _use_counts(method, m, len(g)):
        for counts in _resampled_counts(freq, resamples, rng, chunk=2_000):
            fa, fb = both(counts)
            diffs.append(fb - fa)
    else:
        for idx in _indices(len(g), resamples, rng, chunk):
            r = idx.shape[0]
            counts = np.bincount((np.arange(r)[:, None] * m + inverse[idx]).ravel(), minlength=r * m)
            fa, fb = both(counts.reshape(r, m).astype(float))
            diffs.append(fb - fa)
    return _result(metric, float(full[0][0]), float(full[1][0]), np.concatenate(diffs), level, resamples, seed,
                   len(g))


def paired_bootstrap_macro_f1(gold, pred_a, pred_b, *, labels=None, resamples: int = DEFAULT_RESAMPLES,
                              seed: int = DEFAULT_SEED, level: float = 0.95, chunk: int = 200,
                              method: str = "auto") -> BootstrapResult:
    """Paired bootstrap of macro F1(B) - macro F1(A) (0..1) for class predictions (n,) against gold (n,).

    Macro F1 as sklearn.metrics.f1_score(average="macro", zero_division=0) over ``labels`` (default: every
    label in gold or either prediction): :func:`paired_bootstrap_confusion` with :func:`macro_f1_of_confusions`
    (its ``method`` and draws). Raises ValueError for different lengths or an unknown method."""
    return paired_bootstrap_confusion(macro_f1_of_confusions, gold, pred_a, pred_b, labels=labels, metric="macro_f1",
                                      resamples=resamples, seed=seed, level=level, chunk=chunk, method=method)


def paired_bootstrap(metric_fn: Callable, data_a, data_b, *, metric: str = "metric",
                     resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                     level: float = 0.95) -> BootstrapResult:
    """The general (slow, Python-loop) paired bootstrap for any ``metric_fn(indices, data) -> float``;
    the same indices for A and B each resample. Prefer the vectorised forms above."""
    n = len(data_a)
    if n != len(data_b):
        raise ValueError(f"paired bootstrap: A has {n} examples, B has {len(data_b)}")
    _check_pair(np.zeros(n), np.zeros(n), resamples, level)
    rng = np.random.default_rng(seed)
    full = np.arange(n)
    va, vb = float(metric_fn(full, data_a)), float(metric_fn(full, data_b))
    diffs = np.empty(resamples)
    for i in range(resamples):
        idx = rng.integers(0, n, size=n)
        diffs[i] = metric_fn(idx, data_b) - metric_fn(idx, data_a)
    return _result(metric, va, vb, diffs, level, resamples, seed, n)


def _check_pair(a: np.ndarray, b: np.ndarray, resamples: int, level: float) -> None:
    if a.shape != b.shape:
        raise ValueError(f"paired bootstrap: A has {a.size} examples, B has {b.size}; they must be the same examples")
    if a.size == 0:
        raise ValueError("paired bootstrap: no examples")
    if resamples < 1:
        raise ValueError(f"paired bootstrap: resamples must be at least 1 (got {resamples})")
    if not 0.0 < level < 1.0:
        raise ValueError(f"paired bootstrap: level must be between 0 and 1 (got {level})")


def _swapped_first(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether the pair (A, B) is bootstrapped as (B, A) and mirrored: at the first example where they differ,
    A's value is the larger. Exactly one of (a, b) and (b, a) is swapped unless they are equal, so both orders
    draw the same resamples; the Multinomial draws over distinct outcomes otherwise depend on their order."""
    differ = np.flatnonzero(a != b)
    return bool(differ.size) and bool(a[differ[0]] > b[differ[0]])


def _mirrored(r: BootstrapResult) -> BootstrapResult:
    """The result of B vs A from that of A vs B: the values swapped, the difference and the interval negated."""
    return BootstrapResult(r.metric, r.value_b, r.value_a, 0.0 - r.difference, 0.0 - r.high, 0.0 - r.low, r.level,
                           r.resamples, r.seed, r.n)   # 0.0 - x: an even difference stays +0.0, never -0.0


def _result(metric, va, vb, diffs, level, resamples, seed, n) -> BootstrapResult:
    alpha = (1.0 - level) / 2.0
    low, high = np.quantile(diffs, [alpha, 1.0 - alpha])
    return BootstrapResult(metric, va, vb, vb - va, float(low), float(high), level, resamples, seed, n)


# --------------------------------------------------------------------------------------- t interval, Welch
@dataclass(frozen=True)
class MeanInterval:
    """mean, sample sd (ddof=1), n, and the Student t interval [low, high] at ``level`` (NaN for n < 2).
    ``low_clipped`` / ``high_clipped``: the bound was moved to the figure's range (:meth:`clipped`)."""

    mean: float
    sd: float
    n: int
    low: float
    high: float
    level: float = 0.95
    low_clipped: bool = False
    high_clipped: bool = False

    def clipped(self, lowest: float | None, highest: float | None) -> MeanInterval:
        """The interval with its bounds moved into ``lowest``..``highest`` (None: no limit on that side), each
        moved bound marked. A t interval is symmetric about the mean, so for a bounded figure (an F1 or an
        accuracy 0..100 %, a correlation -1..1) near a bound with a wide spread it runs past the values the
        figure can take ("-0.60 to 74.66" for a macro F1); the part outside holds no possible value."""
        low, high = self.low, self.high
        cut_low = lowest is not None and math.isfinite(low) and low < lowest
        cut_high = highest is not None and math.isfinite(high) and high > highest
        return dataclasses.replace(self, low=lowest if cut_low else low, high=highest if cut_high else high,
                                   low_clipped=self.low_clipped or cut_low, high_clipped=self.high_clipped or cut_high)

    def bounds_text(self, digits: int = 2) -> str:
        """"80.42 to 83.78"; a clipped bound reads "0.00 (clipped) to 74.66"."""
        low = f"{self.low:.{digits}f}" + (" (clipped)" if self.low_clipped else "")
        high = f"{self.high:.{digits}f}" + (" (clipped)" if self.high_clipped else "")
        return f"{low} to {high}"

    def text(self, digits: int = 2) -> str:
        """"82.10 ± 1.35, 95% interval 80.42 to 83.78 (n 3)"; "-" with no values."""
        if not self.n:
            return "-"
        if self.n < 2:   # one value has no spread: a "± 0.00" would read as certainty
            return f"{self.mean:.{digits}f} (n 1, no interval)"
        head = f"{self.mean:.{digits}f} ± {self.sd:.{digits}f}"
        return f"{head}, {self.level:.0%} interval {self.bounds_text(digits)} (n {self.n})"


def t_interval(values, level: float = 0.95) -> MeanInterval:
    """Mean of the finite ``values`` (restarts, folds) with mean ± t_{(1+level)/2, n-1} * sd / sqrt(n)."""
    from scipy.stats import t

    v = np.asarray([x for x in values if x is not None], dtype=float)
    v = v[np.isfinite(v)]
    n = len(v)
    if n == 0:
        return MeanInterval(math.nan, math.nan, 0, math.nan, math.nan, level)
    mean = float(v.mean())
    if n == 1:
        return MeanInterval(mean, 0.0, 1, math.nan, math.nan, level)
    sd = float(v.std(ddof=1))
    half = float(t.ppf((1 + level) / 2, n - 1)) * sd / math.sqrt(n)
    return MeanInterval(mean, sd, n, mean - half, mean + half, level)


@dataclass(frozen=True)
class WelchResult:
    """mean_a, mean_b, difference = mean_b - mean_a, Welch's t statistic, its degrees of freedom and the
    two-sided p (NaN when either group has fewer than 2 finite values)."""

    mean_a: float
    mean_b: float
    difference: float
    t: float
    df: float
    p: float
    n_a: int
    n_b: int


def welch_test(values_a, values_b) -> WelchResult:
    """Welch's two-sample t test (unequal variances) of group B against group A (scipy.stats.ttest_ind)."""
    from scipy.stats import ttest_ind

    a = np.asarray([x for x in values_a if x is not None], dtype=float)
    b = np.asarray([x for x in values_b if x is not None], dtype=float)
    a, b = a[np.isfinite(a)], b[np.isfinite(b)]
    ma = float(a.mean()) if len(a) else math.nan
    mb = float(b.mean()) if len(b) else math.nan
    if len(a) < 2 or len(b) < 2:
        return WelchResult(ma, mb, mb - ma, math.nan, math.nan, math.nan, len(a), len(b))
    res = ttest_ind(b, a, equal_var=False)
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1)) if va + vb > 0 else math.nan
    return WelchResult(ma, mb, mb - ma, float(res.statistic), float(df), float(res.pvalue), len(a), len(b))


# -------------------------------------------------------------------------------------------- agreement
def cohen_kappa(labels_1, labels_2) -> float:
    """Cohen's kappa of two labelings (n,) each: model vs gold, or checkpoint A vs B
    (sklearn.metrics.cohen_kappa_score). NaN when every label is the same on both sides (chance agreement
    1). Raises ValueError for different lengths."""
    from sklearn.metrics import cohen_kappa_score

    x, y = np.asarray(labels_1).ravel(), np.asarray(labels_2).ravel()
    if x.shape != y.shape:
        raise ValueError(f"Cohen's kappa: {x.size} labels against {y.size}; they must be the same examples")
    if x.size == 0:
        raise ValueError("Cohen's kappa: no examples")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        k = float(cohen_kappa_score(x.astype(str), y.astype(str)))
    return k


def krippendorff_alpha(columns: dict[str, list], level: str = "nominal") -> float:
    """Krippendorff's alpha among annotators: ``columns`` maps annotator name -> labels (n,) with None/"" /
    NaN for a missing label. Labels are coded to integers (nominal) first. Uses the ``krippendorff`` package.

    Raises ValueError for fewer than two annotators or columns of different lengths."""
    import krippendorff

    if len(columns) < 2:
        raise ValueError(f"Krippendorff's alpha needs at least two annotator columns (got {len(columns)})")
    lengths = {k: len(v) for k, v in columns.items()}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"Krippendorff's alpha: annotator columns differ in length: {lengths}")

    def missing(x):
        return x is None or (isinstance(x, float) and math.isnan(x)) or (isinstance(x, str) and not x.strip())

    values = sorted({str(x) for col in columns.values() for x in col if not missing(x)})
    code = {v: i for i, v in enumerate(values)}
    data = np.array([[np.nan if missing(x) else code[str(x)] for x in col] for col in columns.values()], dtype=float)
    if level != "nominal":
        data = np.array([[np.nan if missing(x) else float(x) for x in col] for col in columns.values()])
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))


def agreement_table(columns: dict[str, list], model: list | None = None) -> list[dict]:
    """Rows {"pair", "kappa"} for every pair of annotator columns and each annotator against the model,
    then {"pair": "all annotators", "alpha": ...} (Krippendorff) - one table."""
    names = list(columns)
    rows = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            keep = [j for j, (x, y) in enumerate(zip(columns[a], columns[b])) if x not in (None, "") and y not in (None, "")]
            rows.append({"pair": f"{a} vs {b}", "kappa": cohen_kappa([columns[a][j] for j in keep],
                                                                     [columns[b][j] for j in keep]) if keep else math.nan})
        if model is not None:
            keep = [j for j, x in enumerate(columns[a]) if x not in (None, "")]
            rows.append({"pair": f"{a} vs model", "kappa": cohen_kappa([columns[a][j] for j in keep],
                                                                       [model[j] for j in keep]) if keep else math.nan})
    if len(names) >= 2:
        rows.append({"pair": "all annotators", "alpha": krippendorff_alpha(columns)})
    return rows


# ---------------------------------------------------------------------------------------------- in words
def _written(x: float, digits: int) -> str:
    """``x`` with ``digits`` decimals, a negative that rounds to 0 written without its sign ("0.0", not "-0.0")."""
    text = f"{x:.{digits}f}"
    return text.lstrip("-") if _is_zero(text) else text


def _is_zero(text: str) -> bool:
    return float(text) == 0.0


def verdict_direction(boot: BootstrapResult, scale: float = 100.0, digits: int = 1) -> int:
    """The verdict :func:`difference_in_words` says, as a number: +1 B better, -1 A better, 0 no detectable
    difference (the interval holds 0, or one end written at ``digits`` decimals of ``scale`` is 0)."""
    low, high = _written(boot.low * scale, digits), _written(boot.high * scale, digits)
    if _is_zero(low) != _is_zero(high) or boot.contains_zero:
        return 0
    return 1 if boot.difference > 0 else -1


def discordant_in_words(m: McNemarResult, name_a: str = "A", name_b: str = "B") -> str:
    """The rows only one model got right, as a sentence: "B was right on 2 rows A got wrong and never the other
    way", "B was right on 3 rows A got wrong, A on 1 row B got wrong", "no row was right for only one of them"."""
    def rows(k: int) -> str:
        return f"{k} row{'s' if k != 1 else ''}"

    if m.discordant == 0:
        return f"no row was right for only one of {name_a} and {name_b}"
    (w, nw), (l_, nl) = sorted(((name_b, m.only_b), (name_a, m.only_a)), key=lambda t: -t[1])
    if nl == 0:
        return f"{w} was right on {rows(nw)} {l_} got wrong and never the other way"
    return f"{w} was right on {rows(nw)} {l_} got wrong, {l_} on {rows(nl)} {w} got wrong"


def fmt_p(p: float) -> str:
    """"p = 0.004", "p < 0.001", "p = 0.39"."""
    if not math.isfinite(p):
        return "p n/a"
    if p < 0.001:
        return "p < 0.001"
    return f"p = {p:.3f}" if p < 0.1 else f"p = {p:.2f}"


def difference_in_words(boot: BootstrapResult, *, label: str = "", scale: float = 100.0, unit: str = "points",
                        name_a: str = "A", name_b: str = "B", p: float | None = None,
                        p_for: str = "", digits: int = 1, mcnemar: McNemarResult | None = None) -> str:
    """The bootstrap result as a sentence, e.g. "B is better by 2.3 F1 points, 95% interval 0.8 to 3.9;
    p = 0.004 for exact match", or "no detectable difference in F1 (B - A = 0.4 points, 95% interval -1.1
    to 1.9)" when the interval contains 0. An interval with one end at 0 as written ("0.0 to 7.1") reads as what
    it means: "no detectable difference in accuracy at the 95% level (B - A = +2.1 points; interval 0.0 to 7.1
    touches 0)", and with ``mcnemar`` (the rows only one model got right) which way those rows went: "; B was
    right on 2 rows A got wrong and never the other way". ``scale`` converts the metric (a 0..1 share) into
    ``unit`` ("" for none: a correlation's difference); ``digits`` after the point (2 for a correlation)."""
    label = label or boot.metric
    d, lo, hi = boot.difference * scale, boot.low * scale, boot.high * scale
    unit_ = f" {unit}" if unit else ""
    low, high = _written(lo, digits), _written(hi, digits)
    # an end at 0 as written reads "touches 0" whether the bootstrap's own end fell just below or just above 0
    # (-0.0004 or +0.0004 points): the percentile ends of a swapped comparison are not exact negatives, and the
    # verdict must not flip with the order of A and B
    if _is_zero(low) != _is_zero(high):
        text = (f"no detectable difference in {label} at the {boot.level:.0%} level ({name_b} - {name_a} = "
                f"{d:+.{digits}f}{unit_}; interval {low} to {high} touches 0)")
        if mcnemar is not None:
            text += f"; {discordant_in_words(mcnemar, name_a, name_b)}"
    elif boot.contains_zero:
        text = (f"no detectable difference in {label} ({name_b} - {name_a} = {d:+.{digits}f}{unit_}, "
                f"{boot.level:.0%} interval {lo:.{digits}f} to {hi:.{digits}f})")
    else:   # the interval of the winner's lead, so both ends are positive
        better, by, lo, hi = (name_b, d, lo, hi) if d > 0 else (name_a, -d, -hi, -lo)
        text = (f"{better} is better by {by:.{digits}f} {label}{unit_}, {boot.level:.0%} interval {lo:.{digits}f} to "
                f"{hi:.{digits}f}")
    if p is not None:
        text += f"; {fmt_p(p)}" + (f" for {p_for}" if p_for else "")
    return text

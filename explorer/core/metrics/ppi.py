"""Class shares of a predicted file that survive the classifier's errors: prediction-powered inference.

A researcher labels N rows with a model and reports the share of each class. Counting predicted labels is biased
by the model's errors (a class the model over-predicts is over-reported) and its interval, which treats the
predictions as truth, is narrow around the wrong value. Prediction-powered inference (Angelopoulos, Bates,
Fannjiang, Jordan and Zrnic, Science 382, 2023; with power tuning, PPI++: Angelopoulos, Duchi and Zrnic 2023)
corrects the count with a random sample of n rows whose gold label a person gave: for class c, with
Y = 1[gold is c] and Ŷ = 1[predicted is c],

    θ̂ = λ · mean(Ŷ over the N unreviewed rows) + mean(Y − λŶ over the n reviewed rows)
    interval: θ̂ ± z · sqrt(λ² var(Ŷ_unreviewed) / N + var(Y − λŶ) / n)

which is unbiased whatever the model's errors, as long as the reviewed rows are a uniform random sample
(reviewing the least certain rows first does not give one: :func:`draw_sample` draws it). λ = 1 is the published
PPI, λ = 0 the gold rows alone; λ is chosen from the data (ppi-python's power tuning, clipped to [0, 1]), so the
interval is never wider than the gold rows' own to first order. The intervals are ppi-python's
(``ppi_py.ppi_mean_ci``, ``classical_mean_ci``). :func:`rows_for_width` is the closed form above solved for n
with λ = 1: the reviewed rows a target width needs (tests check it against ppi-python's interval).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from explorer.core.errors import UserError


class SharesError(UserError):
    """Shares that cannot be estimated: no reviewed rows, a gold label that is no class, a bad level."""


@dataclass(frozen=True, kw_only=True)
class Interval:
    """A point estimate and its interval (fractions of rows; low <= estimate <= high for the Wald forms)."""

    estimate: float
    low: float
    high: float

    @property
    def width(self) -> float:
        return self.high - self.low

    def text(self, digits: int = 1) -> str:
        """"34.2% [31.0, 37.4]"."""
        return (f"{100 * self.estimate:.{digits}f}% [{100 * self.low:.{digits}f}, {100 * self.high:.{digits}f}]")

    def to_dict(self) -> dict:
        return {"estimate": self.estimate, "low": self.low, "high": self.high}


@dataclass(frozen=True, kw_only=True)
class ClassShare:
    """One class: ``naive`` (predicted labels counted over all rows, as if the model were right), ``gold``
    (the reviewed rows alone), ``corrected`` (prediction-powered), ``lam`` (the power-tuning λ used),
    ``rows_needed`` (reviewed rows in all for the target width with λ = 1; None when no number of reviewed rows
    reaches it with this many unreviewed rows)."""

    label: str
    naive: Interval
    gold: Interval
    corrected: Interval
    lam: float
    rows_needed: int | None


@dataclass(kw_only=True)
class SharesReport:
    """The class shares of a predicted file. n_rows: predicted rows; n_reviewed: rows with a gold label (the
    random sample); level: the intervals' coverage (0.95); width: the target width (a fraction)."""

    n_rows: int
    n_reviewed: int
    level: float
    width: float
    classes: list[ClassShare]
    notes: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """A table as text: class, naive, gold rows alone, corrected, reviewed rows for the target width."""
        pct = int(round(100 * self.level))
        head = (f"{'class':<12}  {'naive (predicted labels)':<26}  {'reviewed rows alone':<26}  "
                f"{'prediction-powered':<26}  reviewed rows for ±{100 * self.width / 2:.1f} points")
        out = [f"class shares of {self.n_rows} rows, {self.n_reviewed} reviewed at random; {pct}% intervals", head]
        for c in self.classes:
            need = ("not reachable" if c.rows_needed is None
                    else f"{c.rows_needed} (reached)" if c.rows_needed <= self.n_reviewed else f"{c.rows_needed}")
            out.append(f"{c.label:<12}  {c.naive.text():<26}  {c.gold.text():<26}  {c.corrected.text():<26}  {need}")
        return out

    def to_dict(self) -> dict:
        return {"n_rows": self.n_rows, "n_reviewed": self.n_reviewed, "level": self.level, "width": self.width,
                "classes": [{"label": c.label, "naive": c.naive.to_dict(), "gold": c.gold.to_dict(),
                             "corrected": c.corrected.to_dict(), "lambda": c.lam, "rows_needed": c.rows_needed}
                            for c in self.classes],
                "notes": self.notes}


def draw_sample(n_rows: int, size: int, seed: int = 0) -> list[int]:
    """``size`` distinct rows of ``n_rows`` (0-based, sorted) drawn uniformly at random with ``seed``: the rows
    a person reviews so the corrected shares are unbiased. Raises SharesError when size is not in 1..n_rows."""
    if not 1 <= size <= n_rows:
        raise SharesError(f"a review sample of {size} rows out of {n_rows}: give 1 to {n_rows}")
    return sorted(np.random.default_rng(seed).choice(n_rows, size, replace=False).tolist())


def power_lambda(y: np.ndarray, yhat: np.ndarray, yhat_unlabelled: np.ndarray) -> float:
    """PPI++'s λ for a mean, as ppi-python chooses it (``lam=None``), clipped to [0, 1]:
    cov(Y, Ŷ) / ((1 + n/N) var(Ŷ)) with the covariance over the n reviewed rows (divided by n) and var(Ŷ) over
    the reviewed and N unreviewed predictions together (divided by n + N − 1). 0 when Ŷ never varies."""
    n, big_n = len(y), len(yhat_unlabelled)
    var = float(np.var(np.concatenate([yhat, yhat_unlabelled]), ddof=1)) if n + big_n > 1 else 0.0
    if var <= 0 or big_n == 0:
        return 0.0
    cov = float(np.mean((y - y.mean()) * (yhat - yhat.mean())))
    return float(np.clip(cov / ((1 + n / big_n) * var), 0.0, 1.0))


def rows_for_width(y: np.ndarray, yhat: np.ndarray, n_unlabelled: int, var_unlabelled: float, width: float,
                   level: float = 0.95) -> int | None:
    """Reviewed rows n for a prediction-powered interval (λ = 1) of total ``width`` (a fraction), with
    ``n_unlabelled`` unreviewed rows whose predictions vary by ``var_unlabelled``: the closed form
    width = 2 z sqrt(var_unlabelled / N + var(Y − Ŷ) / n) solved for n, var(Y − Ŷ) estimated on the reviewed
    rows ``y``, ``yhat`` (0/1 indicators). None when even infinitely many reviewed rows would not narrow it that
    far (the unreviewed part alone is wider)."""
    from scipy.stats import norm

    z = float(norm.ppf(0.5 + level / 2))
    room = (width / (2 * z)) ** 2 - var_unlabelled / max(n_unlabelled, 1)
    resid = float(np.var(y - yhat))
    if room <= 0:
        return None
    return int(math.ceil(resid / room))


def class_shares(predicted: list[str], gold: list[str], class_names: list[str], *, level: float = 0.95,
                 width: float = 0.05) -> SharesReport:
    """Naive, gold-only and prediction-powered shares of each class.

    predicted: (N,) the model's label of every row ("" = no prediction: left out). gold: (N,) a person's label
    of each reviewed row, "" elsewhere; the reviewed rows must be a uniform random sample of the rows.
    level: interval coverage; width: the target total width (fraction) for the rows-needed column.
    Raises SharesError: fewer than two reviewed rows, a gold label that is not a class, level outside (0, 1)."""
    from ppi_py import classical_mean_ci, ppi_mean_ci, ppi_mean_pointestimate

    if not 0 < level < 1:
        raise SharesError(f"the interval level must be between 0 and 1 (got {level})")
    keep = [i for i, p in enumerate(predicted) if str(p).strip()]
    pred = np.asarray([str(predicted[i]).strip() for i in keep])
    gold_all = np.asarray([str(gold[i]).strip() for i in keep])
    reviewed = gold_all != ""
    unknown = sorted(set(gold_all[reviewed].tolist()) - set(class_names))
    if unknown:
        raise SharesError(f"gold label {unknown[0]!r} is not a class ({', '.join(class_names)})")
    n = int(reviewed.sum())
    if n < 2:
        raise SharesError(f"prediction-powered shares need at least 2 reviewed rows (got {n})")
    alpha = 1 - level
    classes = []
    for c in class_names:
        yhat_all = (pred == c).astype(float)
        y = (gold_all[reviewed] == c).astype(float)
        yhat, yhat_u = yhat_all[reviewed], yhat_all[~reviewed]
        naive = _interval(float(yhat_all.mean()), classical_mean_ci(yhat_all, alpha=alpha))
        gold_ci = _interval(float(y.mean()), classical_mean_ci(y, alpha=alpha))
        lam = power_lambda(y, yhat, yhat_u) if len(yhat_u) else 0.0
        if len(yhat_u):
            point = float(np.ravel(ppi_mean_pointestimate(y, yhat, yhat_u, lam=lam))[0])
            corrected = _interval(point, ppi_mean_ci(y, yhat, yhat_u, alpha=alpha, lam=lam))
        else:
            corrected = gold_ci
        need = rows_for_width(y, yhat, len(yhat_u), float(np.var(yhat_u)) if len(yhat_u) else 0.0, width, level)
        classes.append(ClassShare(label=c, naive=naive, gold=gold_ci, corrected=corrected, lam=lam,
                                  rows_needed=need))
    notes = []
    if len(keep) < len(predicted):
        notes.append(f"{len(predicted) - len(keep)} rows without a prediction left out")
    return SharesReport(n_rows=len(keep), n_reviewed=n, level=level, width=width, classes=classes, notes=notes)


def _interval(point: float, ci) -> Interval:
    low, high = (float(np.ravel(v)[0]) for v in ci)
    return Interval(estimate=point, low=low, high=high)

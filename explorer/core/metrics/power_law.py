"""A learning curve's fitted shape and what the next doubling of the training rows is likely to give (scipy).

The dev metric of a model trained on n rows is fitted with the inverse power law

    metric(n) = c - a * n^(-b)        (a >= 0, 0 <= b <= 2; c is where the curve levels off)

(Figueroa et al. 2012, "Predicting sample size required for classification performance", BMC Medical
Informatics and Decision Making 12:8; Mukherjee et al. 2003), by weighted least squares
(scipy.optimize.curve_fit, each point weighted by its bootstrap standard error, ``absolute_sigma=True``).
The prediction at n' has the delta-method standard error sqrt(J P J^T), J the gradient of metric(n') in
(a, b, c) and P curve_fit's parameter covariance. With four sizes and three parameters the fit has one degree
of freedom: the interval says how little four points pin the curve down, and is wide on purpose.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


class CurveFitError(ValueError):
    """Too few points, or points curve_fit cannot fit (the message says which)."""


def inverse_power_law(n, a, b, c):
    """c - a * n^(-b) for n > 0 (scalar or array)."""
    return c - a * np.power(np.asarray(n, dtype=float), -b)


@dataclass(frozen=True, kw_only=True)
class PowerLawFit:
    """metric(n) = c - a * n^(-b) fitted to ``sizes`` (training rows) and ``values`` (the metric, any scale).

    params: (a, b, c). covariance: (3, 3) parameter covariance from curve_fit. sizes, values, sigma: the data
    fitted (sigma: the standard error given for each value, or None for an unweighted fit)."""

    params: tuple[float, float, float]
    covariance: np.ndarray
    sizes: tuple[float, ...]
    values: tuple[float, ...]
    sigma: tuple[float, ...] | None

    def predict(self, n: float) -> tuple[float, float]:
        """(predicted metric at ``n`` training rows, its delta-method standard error)."""
        a, b, c = self.params
        value = float(inverse_power_law(n, a, b, c))
        grad = np.array([-n ** (-b), a * math.log(n) * n ** (-b), 1.0])
        var = float(grad @ self.covariance @ grad)
        return value, math.sqrt(var) if var > 0 and math.isfinite(var) else math.nan

    def interval(self, n: float, level: float = 0.95) -> tuple[float, float, float]:
        """(prediction, low, high): the prediction ± the normal quantile at ``level`` times its standard error."""
        from scipy.stats import norm

        value, se = self.predict(n)
        half = float(norm.ppf((1 + level) / 2)) * se
        return value, value - half, value + half


def fit_power_law(sizes, values, sigma=None, *, ceiling: float | None = None) -> PowerLawFit:
    """Fit :func:`inverse_power_law` to (n,) training sizes and (n,) metric values.

    Args:
        sizes: training rows of each point (> 0).
        values: the metric at each size (higher is better).
        sigma: each value's standard error (> 0), or None for equal weights.
        ceiling: the most the metric can be (1 for a fraction, 100 for percent); bounds c.

    Raises:
        CurveFitError: fewer than 3 points, sizes not positive, sizes or values not finite, or no fit found.
    """
    from scipy.optimize import curve_fit

    x = np.asarray(sizes, dtype=float).ravel()
    y = np.asarray(values, dtype=float).ravel()
    if x.shape != y.shape:
        raise CurveFitError(f"learning curve: {x.size} sizes but {y.size} values")
    if x.size < 3:
        raise CurveFitError(f"learning curve: {x.size} points; a three-parameter curve needs at least 3 sizes")
    if not (np.isfinite(x).all() and np.isfinite(y).all()) or (x <= 0).any():
        raise CurveFitError("learning curve: every size must be a positive number and every value finite")
    s = None
    if sigma is not None:
        s = np.asarray(sigma, dtype=float).ravel()
        floor = max(1e-9, 1e-6 * float(np.abs(y).max() or 1.0))
        s = np.where(np.isfinite(s) & (s > floor), s, floor)
    top = np.inf if ceiling is None else float(ceiling)
    spread = float(y.max() - y.min()) or 1e-3
    a0 = spread * x.min() ** 0.5
    p0 = (a0, 0.5, min(float(y.max()) + spread / 2, top if math.isfinite(top) else np.inf))
    bounds = ([0.0, 0.0, -np.inf], [np.inf, 2.0, top])
    try:
        params, cov = curve_fit(inverse_power_law, x, y, p0=p0, sigma=s, absolute_sigma=s is not None,
                                bounds=bounds, maxfev=20_000)
    except (RuntimeError, ValueError) as exc:
        raise CurveFitError(f"learning curve: no inverse power law fits these points ({exc})") from None
    return PowerLawFit(params=tuple(float(p) for p in params), covariance=np.asarray(cov, dtype=float),
                       sizes=tuple(x.tolist()), values=tuple(y.tolist()),
                       sigma=None if s is None else tuple(s.tolist()))

"""Numbers behind the curves (Qt-free): TensorBoard-style smoothing, robust y ranges and the
non-finite points (NaN / inf) that curves show as gaps with a marker on the step."""

from __future__ import annotations

import math

import numpy as np

from explorer.ui.curves.blocks import BLOCK, kept_blocks
from explorer.ui.curves.decimate import BLOCK_COLUMN

# series this long get their block extremes where they are read: a plot 400 device pixels wide decimates them
# from the blocks (explorer.ui.curves.decimate.BLOCK_COLUMN)
LONG_SERIES = BLOCK_COLUMN * BLOCK * 400
DEFAULT_SMOOTHING = 0.6   # the smoothing slider's start value (explorer.ui.curves.toolbar)
SMOOTHED_SERIES = ("loss",)   # the series drawn smoothed (raw faintly behind): explorer.ui.curves.plot


def ema_smooth(y: np.ndarray, weight: float) -> np.ndarray:
    """TensorBoard's scalar smoothing: a debiased exponential moving average over the finite points.

    last_i = weight * last_{i-1} + (1 - weight) * y_i (last_{-1} = 0); smoothed_i = last_i / (1 - weight**k),
    k = the number of finite points so far. The debiasing makes the first points follow the data instead of
    starting at 0. A non-finite y_i (NaN, inf) is skipped by the average and gives NaN at i (a gap), as
    TensorBoard keeps non-finite values out of the average. Source: TensorBoard, vz_line_chart2
    ``resmoothDataset``. ``y`` shape (n,); weight in [0, 1). Returns shape (n,) float64; weight 0 returns
    a copy of y.
    """
    y = np.asarray(y, dtype=np.float64)
    if weight <= 0 or len(y) == 0:
        return y.copy()
    if weight >= 1:
        raise ValueError(f"smoothing weight must be < 1, got {weight}")
    return IncrementalEMA().update(y, weight).copy()


class IncrementalEMA:
    """ema_smooth over a series that only grows: each call smooths only the new points.

    ``update(y, weight)`` returns the smoothed series for all of ``y`` (shape (n,)), equal to
    ``ema_smooth(y, weight)`` (NaN where y is not finite); it recomputes from scratch when the weight
    changes or ``y`` shrank, and then increments ``generation`` (earlier values changed). The result
    is a view of a capacity-doubling buffer: appends cost O(new points), never a copy of the rest.
    """

    def __init__(self):
        self.weight: float | None = None
        self.generation = 0
        self._buf = np.empty(0)
        self._n = 0
        self.carry = 0.0     # the undebiased average after the last finite point
        self.n_finite = 0    # finite points averaged so far (the debiasing exponent)

    @property
    def out(self) -> np.ndarray:
        return self._buf[: self._n]

    def update(self, y: np.ndarray, weight: float) -> np.ndarray:
        y = np.asarray(y, dtype=np.float64)
        n = len(y)
        if weight <= 0:
            return y
        if weight != self.weight or n < self._n:
            self.weight, self._n, self.carry, self.n_finite = weight, 0, 0.0, 0
            self._buf = np.empty(max(n, 256))
            self.generation += 1
        if n > self._n:
            if n > len(self._buf):
                grown = np.empty(max(n, 2 * len(self._buf)))
                grown[: self._n] = self._buf[: self._n]
                self._buf = grown
            self._buf[self._n: n] = self._smooth_new(y[self._n:], weight)
            self._n = n
        return self.out

    def _smooth_new(self, new: np.ndarray, weight: float) -> np.ndarray:
        """The smoothed values of the points after the ones done so far (updates the carry)."""
        finite = np.isfinite(new)
        k = int(np.count_nonzero(finite))
        if not k:
            return np.full(len(new), np.nan)
        all_finite = k == len(new)
        last = _ema_blocks(new if all_finite else new[finite], weight, self.carry)
        self.carry = float(last[-1])
        _debias(last, self.n_finite, weight)
        self.n_finite += k
        if all_finite:
            return last
        part = np.full(len(new), np.nan)
        part[finite] = last
        return part


def smoothed(series, weight: float, y: np.ndarray | None = None) -> tuple[np.ndarray, int]:
    """``ema_smooth(series.y, weight)`` and its generation (a new one whenever earlier values changed),
    kept with the series (``series.derived``, an :class:`IncrementalEMA`): computed once per series and
    weight (on the reader thread by :func:`prepare_curves` for the default weight), extended as points are
    appended, recomputed when the weight changes. ``series``: an explorer.ui.runs.state.Series; ``y``: its
    values (``series.y``, a new view each time it is read, when None). Weight 0 returns ``y`` itself."""
    ema = series.derived.get("ema")
    if ema is None:
        ema = series.derived["ema"] = IncrementalEMA()
    return ema.update(series.y if y is None else y, weight), ema.generation


def shown_values(series, key: str, weight: float):
    """(y, shown, version) of the curve drawn for ``series`` in the plot of ``key``: its values ``y`` (a view read
    once), the values drawn (smoothed at ``weight`` for SMOOTHED_SERIES, else ``y`` itself) and their version
    ("raw", or ("ema", generation) when smoothed: explorer.ui.curves.decimate's version)."""
    y = shown = series.y
    version = "raw"
    if key in SMOOTHED_SERIES:
        shown, generation = smoothed(series, weight, y)
        if shown is not y:
            version = ("ema", generation)
    return y, shown, version


def prepare_curves(state, weight: float = DEFAULT_SMOOTHING):
    """What the Curves panel derives from a run's points, computed where the run is read (a worker
    thread: explorer.ui.runs.store.load_run_state) instead of on the GUI thread at its first redraw: the
    smoothed series (:func:`smoothed`, at the slider's start weight), the long series' block extremes and their
    curves decimated for the run's own x axis (explorer.ui.curves.predecimate). ``state``: a RunState; returns it."""
    for key in SMOOTHED_SERIES:
        series = state.series.get(key)
        if series is not None and len(series):
            smoothed(series, weight)
    for key, series in state.series.items():   # long series: their block extremes (explorer.ui.curves.blocks)
        if len(series) >= LONG_SERIES and series.steps_sorted:
            kept_blocks(series, series.y)
            ema = series.derived.get("ema")
            if key in SMOOTHED_SERIES and ema is not None and weight > 0:
                kept_blocks(series, smoothed(series, weight)[0], ("ema", ema.generation))
    # the curves' pixel columns for the run's own x axis (imported here: predecimate reads this module)
    from explorer.ui.curves.predecimate import predecimate

    predecimate(state, weight)
    return state


def _debias(last: np.ndarray, done: int, w: float) -> None:
    """last_i /= 1 - w^(done + 1 + i), in place (TensorBoard's debiasing; ``done`` finite points came
    before). Once w^m is below 2^-60, 1 - w^m rounds to exactly 1.0 in float64, so only the points
    before that are divided: the same numbers as dividing all, without an expm1 per point of a long
    series (for w = 0.6 only the first 82 points of a run change)."""
    saturated = math.ceil(60 * math.log(2) / -math.log(w))   # w**m <= 2**-60 from this m on
    count = min(len(last), max(0, saturated - done - 1))
    if count:
        last[:count] /= -np.expm1(np.arange(done + 1, done + count + 1) * np.log(w))


def _ema_blocks(y: np.ndarray, w: float, carry: float = 0.0) -> np.ndarray:
    """last_i = w * last_{i-1} + (1 - w) * y_i (last_{-1} = carry), vectorised over blocks (no scipy:
    importing scipy.signal costs seconds, too long for the GUI thread).

    Inside block k starting at s, with c_k = last_{s-1}: last_{s+j} = w^(j+1) c_k + (1-w) w^j
    sum_{m<=j} y_{s+m} w^(-m). All blocks are done at once as the rows of a (blocks, B) array, then
    the carries c_k = w^B c_{k-1} + (block k-1's zero-carry end) are chained (one scalar per block).
    B is short enough that w^(-m) stays below e^300 (no overflow); the rounding error stays at
    float64 epsilon times |y| because each block is rescaled by w^j. y shape (n,); returns (n,).
    """
    n = len(y)
    if n == 0:
        return np.empty(0)
    size = max(1, min(n, int(300.0 / -np.log(w))))
    rows = -(-n // size)
    blocks = np.zeros(rows * size)
    blocks[:n] = y
    blocks = blocks.reshape(rows, size)
    wj = np.power(w, np.arange(size, dtype=np.float64))
    blocks /= wj                                  # in place: the same arithmetic as out-of-place
    np.cumsum(blocks, axis=1, out=blocks)
    blocks *= (1.0 - w) * wj                      # each block with a zero carry
    carries = np.empty(rows)
    step, acc = w ** size, float(carry)
    for k, end in enumerate(blocks[:, -1].tolist()):
        carries[k] = acc
        acc = step * acc + end
    blocks += carries[:, None] * (w * wj)         # each block's carry, decayed along it
    return blocks.reshape(-1)[:n]


def robust_range(arrays: list[np.ndarray], lo_pct: float = 2.0, hi_pct: float = 98.0,
                 log: bool = False, pad: float = 0.1) -> tuple[float, float] | None:
    """A y range that ignores outliers: [lo_pct, hi_pct] percentiles of all finite values, padded.

    With ``log`` the range is in log10 units (what a pyqtgraph ViewBox in log mode expects) and
    non-positive values are dropped. Returns None when there is no usable value.
    """
    parts = [np.asarray(a, dtype=np.float64) for a in arrays if len(a)]
    if not parts:
        return None
    v = np.concatenate(parts)
    v = v[np.isfinite(v)]
    if log:
        v = np.log10(v[v > 0])
    if len(v) == 0:
        return None
    lo, hi = np.percentile(v, [lo_pct, hi_pct])
    span = hi - lo
    if span <= 0:
        span = abs(hi) * 0.1 or 1.0
    return float(lo - pad * span), float(hi + pad * span)


def window_mask(x: np.ndarray, x_min: float | None, x_max: float | None) -> np.ndarray:
    """Boolean mask of the points with x inside [x_min, x_max] (None = unbounded)."""
    m = np.ones(len(x), dtype=bool)
    if x_min is not None:
        m &= x >= x_min
    if x_max is not None:
        m &= x <= x_max
    return m


def finite_gaps(y: np.ndarray) -> np.ndarray:
    """y as float64 with every non-finite value (NaN, +-inf) set to NaN: drawn with pyqtgraph's
    ``connect="finite"`` each one is a gap, never a line bridging it (and +-inf never stretches the
    y range). Decimation that keeps NaN (pyqtgraph "peak" takes max/min per bin, which stay NaN)
    keeps the gap."""
    out = np.array(y, dtype=np.float64, copy=True)
    out[~np.isfinite(out)] = np.nan
    return out


def nonfinite_markers(x: np.ndarray, y: np.ndarray, name: str, *,
                      undefined: bool = False) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Where to mark the non-finite steps of a series, and what to say there.

    Returns (xs, ys, labels): the steps whose value is NaN or +-inf; a y to draw the marker at (the
    nearest finite value before it, else after it, else 0, so it sits on the curve's level); and one
    tooltip per marker, e.g. "loss was nan at step 3"; ``undefined`` (a dev metric, whose evaluation gave it no
    value: a correlation of constant predictions): "pearson undefined at step 2". Shapes (m,), (m,), m labels.
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(y))
    if bad.size == 0:
        return np.empty(0), np.empty(0), []
    finite = np.flatnonzero(np.isfinite(y))
    ys = np.zeros(bad.size)
    if finite.size:
        before = np.searchsorted(finite, bad) - 1            # last finite index before each bad one
        use = np.where(before >= 0, before, 0)
        ys = y[finite[use]]
    labels = [f"{name} undefined at step {_step(s)}" if undefined and np.isnan(v) else
              f"{name} was {_word(v)} at step {_step(s)}" for s, v in zip(x[bad], y[bad])]
    return x[bad], ys, labels


def _word(v: float) -> str:
    return "nan" if np.isnan(v) else ("inf" if v > 0 else "-inf")


def _step(s: float) -> str:
    return str(int(s)) if float(s).is_integer() else f"{s:g}"


def isolated_points(y: np.ndarray) -> np.ndarray:
    """(n,) bool: finite points with no finite neighbour on either side. A ``connect="finite"`` curve
    draws no line for them, so the plot shows them as dots."""
    f = np.isfinite(np.asarray(y, dtype=np.float64))
    if f.all():
        return np.zeros(f.shape, dtype=bool)
    left = np.concatenate([[False], f[:-1]])
    right = np.concatenate([f[1:], [False]])
    return f & ~left & ~right


# Where a baseline's label may sit, in order of preference: (place along the line, 0 = left end of the view; the
# label's anchor: (1, 1) = its bottom-right corner on that place, i.e. on the line and left of it; (1, 2) = one label
# height higher; (1, 0) = its top-right corner there, below the line): on the line first, then off it by 1 or 2 heights
LABEL_SPOTS = tuple((pos, (ax, ay)) for dy in (0, 1, 2) for ay in (1 + dy, -dy)
                    for pos, ax in ((0.98, 1), (0.02, 0), (0.5, 0.5)))


def label_spot(view: tuple[tuple[float, float], tuple[float, float]], pixel: tuple[float, float],
               size: tuple[float, float], value: float, xs: np.ndarray, ys: np.ndarray, pad: float) -> int:
    """The index into LABEL_SPOTS of the first place where a line's label (``size``: width, height in pixels) at
    y = ``value`` lies inside ``view`` ((x0, x1), (y0, y1), data units) and covers none of the points (xs, ys), with
    ``pad`` pixels kept around each point; else the place inside the view covering the fewest. ``pixel``: data units
    per pixel (x, y). A label hung below the line at the left end would cover the x axis and the first
    evaluations' points."""
    (x0, x1), (y0, y1) = view
    px, py = pixel
    w, h = size[0] * px, size[1] * py
    scores = []
    for i, (pos, (ax, ay)) in enumerate(LABEL_SPOTS):
        left = x0 + pos * (x1 - x0) - ax * w
        top = value + ay * h
        outside = top > y1 or top - h < y0 or left < x0 or left + w > x1
        covered = int(np.count_nonzero((xs >= left - pad * px) & (xs <= left + w + pad * px)
                                       & (ys >= top - h - pad * py) & (ys <= top + pad * py)))
        scores.append((outside, covered, i))
    return min(scores)[2]

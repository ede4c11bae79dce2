"""Min/max decimation of a growing curve per pixel column (Qt-free, numpy only).

A 100k-point curve drawn on a 600 px wide plot needs at most four points per pixel column to look
the same: the column's first and last point (so the lines to the neighbouring columns are right)
and its minimum and maximum (so the vertical extent is right). This is the M4 aggregation of
Jugel et al., "M4: A Visualization-Oriented Time Series Data Aggregation", PVLDB 7(10), 2014.

:class:`ColumnDecimator` keeps the per-column aggregates of one series for the current column
grid (x range and plot width) and, while the grid stays the same (a live run: the x axis spans
0..steps_total), folds appended points into them: a live tick costs O(new points), not O(n).
Non-finite values (NaN, +-inf) never enter a column's min / max; a column that has one gets a NaN
point between its extremes and its last point, so a ``connect="finite"`` curve shows the gap.
"""

from __future__ import annotations

import numpy as np

RAW_FACTOR = 4   # up to RAW_FACTOR points per pixel column are drawn as they are (M4 would not be fewer)


class ColumnDecimator:
    """The M4 points of one append-only series (x non-decreasing) for a column grid.

    Call :meth:`points` with the whole series every time; the decimator remembers how far it got
    and only aggregates the new points while ``(x0, x1, ncols, version)`` is unchanged. Pass a new
    ``version`` (any hashable) whenever earlier values may have changed (another series object, a
    new smoothing weight); a shorter series also starts over.
    """

    def __init__(self):
        self.reset()

    def reset(self) -> None:
        """Forget everything (the next call aggregates from scratch)."""
        self._version = None
        self._key = None
        self._n = 0                # points aggregated so far (the columns hold indices [i0, _n))
        self._checked = 0          # x[:_checked] is known to be sorted (or _unsorted is set)
        self._unsorted = False
        self._edges: np.ndarray | None = None      # None: not decimating (yet)
        self.count = np.empty(0, dtype=np.int64)   # per column (two extra columns: left / right of the view)
        self.first = np.empty(0, dtype=np.int64)   # index of the column's first point
        self.last = np.empty(0, dtype=np.int64)
        self.ymin = np.empty(0)                    # over the finite values (NaN when none)
        self.ymax = np.empty(0)
        self.gap = np.empty(0, dtype=bool)         # the column holds a non-finite value

    def points(self, x: np.ndarray, y: np.ndarray, x0: float, x1: float, ncols: int,
               version=None) -> tuple[np.ndarray, np.ndarray]:
        """The points to draw for the view x0..x1 on ``ncols`` pixel columns.

        x, y: shape (n,), x non-decreasing (optimizer steps). Returns (xs, ys) float64, ys NaN where y
        is not finite. Few points per column (or an unsorted x): the visible points themselves. Else
        per non-empty column its first point, its min and max (at the middle of the column's x
        span, min first), a NaN if the column has a non-finite value, and its last point; plus the
        nearest point on each side outside the view so the curve runs to the plot's edges.
        """
        n = len(x)
        ncols = max(int(ncols), 1)
        if version != self._version or n < self._checked:   # other data: start over
            self.reset()
            self._version = version
        key = (float(x0), float(x1), ncols)
        if key != self._key or n < self._n:   # another grid: the columns start over
            self._key = key
            self._edges = None
        if n > self._checked:   # x sorted so far? (checked once per point)
            lo = max(self._checked - 1, 0)
            self._unsorted |= bool(np.any(np.diff(x[lo:n]) < 0))
            self._checked = n
        if self._unsorted or x1 <= x0:
            return self._raw_points(x, y, x0, x1)
        i1 = min(n, int(np.searchsorted(x, x1, side="right")) + 1)
        if self._edges is None:
            i0 = max(int(np.searchsorted(x, x0, side="left")) - 1, 0)
            if i1 - i0 <= RAW_FACTOR * ncols:   # few points: drawn as they are
                return self._raw_points(x, y, x0, x1)
            self._start(x0, x1, ncols, i0)
        if i1 > self._n:
            self._fold(x, y, self._n, i1)
            self._n = i1
        return self._emit(x, y)

    # ---- building --------------------------------------------------------------------------
    def _start(self, x0: float, x1: float, ncols: int, i0: int) -> None:
        """Empty columns for the grid; points before index i0 (left of the view) are never folded."""
        self._n = i0
        # column j covers [edges[j], edges[j + 1]); column 0 is left of the view, the last one right of it
        inner = x0 + (x1 - x0) * np.arange(ncols + 1) / ncols
        self._edges = np.concatenate([[-np.inf], inner[:-1], [np.nextafter(x1, np.inf)]])
        m = len(self._edges)
        self.count = np.zeros(m, dtype=np.int64)
        self.first = np.zeros(m, dtype=np.int64)
        self.last = np.zeros(m, dtype=np.int64)
        self.ymin = np.full(m, np.nan)
        self.ymax = np.full(m, np.nan)
        self.gap = np.zeros(m, dtype=bool)

    def _fold(self, x: np.ndarray, y: np.ndarray, a: int, b: int) -> None:
        """Aggregate points a..b-1 (all at or right of the points already folded) into the columns."""
        xs = x[a:b]
        ys = y[a:b]
        starts = np.searchsorted(xs, self._edges, side="left")
        ends = np.append(starts[1:], len(xs))
        cols = np.flatnonzero(ends > starts)
        s = starts[cols]
        finite = np.isfinite(ys)
        if finite.all():
            mn = np.minimum.reduceat(ys, s)
            mx = np.maximum.reduceat(ys, s)
            gap = np.zeros(len(cols), dtype=bool)
        else:
            clean = np.where(finite, ys, np.nan)
            with np.errstate(invalid="ignore"):
                mn = np.fmin.reduceat(clean, s)
                mx = np.fmax.reduceat(clean, s)
            gap = np.logical_or.reduceat(~finite, s)
        old = self.count[cols] > 0    # only the first touched column can hold earlier points
        self.first[cols] = np.where(old, self.first[cols], s + a)
        self.last[cols] = ends[cols] - 1 + a
        self.count[cols] += ends[cols] - s
        self.ymin[cols] = np.fmin(self.ymin[cols], mn)
        self.ymax[cols] = np.fmax(self.ymax[cols], mx)
        self.gap[cols] |= gap

    def _emit(self, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        cols = np.flatnonzero(self.count)
        c = self.count[cols]
        f, la = self.first[cols], self.last[cols]
        mid = 0.5 * (x[f] + x[la])
        px = np.stack([x[f], mid, mid, mid, x[la]], axis=1)
        py = np.stack([y[f], self.ymin[cols], self.ymax[cols], np.full(len(cols), np.nan), y[la]], axis=1)
        keep = np.stack([np.ones(len(cols), dtype=bool), c > 2, c > 2, self.gap[cols], c > 1], axis=1)
        xs, ys = px[keep], py[keep]
        return xs, _nan_for_nonfinite(ys)

    def _raw_points(self, x: np.ndarray, y: np.ndarray, x0: float, x1: float) -> tuple[np.ndarray, np.ndarray]:
        if len(x) and x1 > x0 and not self._unsorted:   # the visible points and one on each side
            i0 = max(int(np.searchsorted(x, x0, side="left")) - 1, 0)
            i1 = min(len(x), int(np.searchsorted(x, x1, side="right")) + 1)
        else:
            i0, i1 = 0, len(x)
        return np.array(x[i0:i1], dtype=np.float64), _nan_for_nonfinite(np.array(y[i0:i1], dtype=np.float64))


def _nan_for_nonfinite(y: np.ndarray) -> np.ndarray:
    bad = ~np.isfinite(y)
    if bad.any():
        y[bad] = np.nan
    return y

"""Min/max decimation of a growing curve per pixel column (Qt-free, numpy only).

A 100k-point curve drawn on a 600 px wide plot needs about two points per pixel column to look the
same: the column's minimum and maximum (its vertical extent), in the order the data runs through
them (max then min where the column goes down, else min then max); a column with one or two points
keeps them as they are, and the series' first and last visible points are always kept. (The M4
aggregation of Jugel et al., PVLDB 7(10), 2014, also keeps each column's first and last point; at
one pixel per column that draws the same pixels with twice the points.)

:class:`ColumnDecimator` keeps the per-column aggregates of one series for the current column
grid (x range and plot width) and, while the grid stays the same (a live run: the x axis spans
0..steps_total), folds appended points into them and re-emits only the columns that changed: a
live tick costs O(new points), not O(n). It also keeps the columns of the last few grids it was asked for
(:data:`KEPT_GRIDS`): going back to one of them (zooming out again, re-selecting a run whose decimators are kept
with its series by :func:`kept_decimator`) folds only the points appended since, not the whole series again.
Non-finite values (NaN, +-inf) never enter a column's min /
max; a column that has one gets a NaN point after its extremes, so a ``connect="finite"`` curve
shows the gap.
"""

from __future__ import annotations

import bisect
import math

import numpy as np

from explorer.ui.curves.blocks import BLOCK, BlockExtremes, kept_blocks

RAW_FACTOR = 3   # up to RAW_FACTOR points per pixel column are drawn as they are
# Block summaries are folded where the columns average this many blocks of points or more: below it numpy's
# point scan (ufunc.reduceat, ~1 ns a point) costs less than the 2 x BLOCK points read at each column's two ends
# (measured: 100k points on 600 columns 0.47 ms scanned, 1.7 ms from blocks; 1M points 4.6 ms scanned, 2.6 ms).
BLOCK_COLUMN = 32
FEW = 16         # up to this many new points / changed columns are handled point by point (a live tick)
KEPT_GRIDS = 3   # the columns of this many other grids are kept (the whole run, a last-N zoom, another width)
# what describes the columns of one grid (saved and restored as a whole when the grid changes)
_GRID_STATE = ("_key", "_n", "_edges", "count", "first", "last", "ymin", "ymax", "gap", "_dirty", "_out",
               "_offsets", "_edge_list", "_cols")


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
        self._kept: dict[tuple, tuple] = {}   # grid key -> the _GRID_STATE of that grid, oldest first
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
        self._dirty = 0                            # columns >= _dirty changed since the last emit
        self._out = (np.empty(0), np.empty(0))     # the points emitted last time
        self._offsets = np.zeros(1, dtype=np.int64)   # where each column's points start in _out
        self._edge_list: list[float] | None = None
        self._cols = (0, -1)

    def points(self, x: np.ndarray, y: np.ndarray, x0: float, x1: float, ncols: int,
               version=None, steps_sorted: bool | None = None,
               blocks: BlockExtremes | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The points to draw for the view x0..x1 on ``ncols`` pixel columns.

        x, y: shape (n,), x non-decreasing (optimizer steps); ``steps_sorted``: whether all of x is known to
        be non-decreasing (explorer.ui.runs.state.Series.steps_sorted; None: checked here). Returns (xs, ys) float64, ys NaN where y
        is not finite. Few points per column (or an unsorted x): the visible points themselves. Else
        per non-empty column its first point, its min and max (at the middle of the column's x
        span, min first), a NaN if the column has a non-finite value, and its last point; plus the
        nearest point on each side outside the view so the curve runs to the plot's edges. ``blocks``: y's block
        summaries (explorer.ui.curves.blocks, covering y's complete blocks): a new grid's columns then fold them
        instead of every point, with the same result.
        """
        n = len(x)
        ncols = max(int(ncols), 1)
        if version != self._version or n < self._checked:   # other data: start over
            self.reset()
            self._version = version
        key = (float(x0), float(x1), ncols)
        if n < self._n:   # fewer points than folded: the columns start over
            self._kept.clear()
            self._key, self._edges = key, None
        elif key != self._key:   # another grid: one kept from before, else columns that start over
            self._switch_grid(key)
        if n > self._checked:   # x sorted so far? (checked once per point, unless the series says so)
            if steps_sorted is None or not steps_sorted:
                lo = max(self._checked - 1, 0)
                self._unsorted |= bool(np.any(x[lo + 1: n] < x[lo: n - 1]))
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
            self._fold(x, y, self._n, i1, blocks)
            self._n = i1
        return self._emit(x, y)

    def _switch_grid(self, key: tuple) -> None:
        """Keep the current grid's columns (when there are any) and take those kept for ``key``, or none."""
        if self._edges is not None:
            self._kept.pop(self._key, None)
            self._kept[self._key] = tuple(getattr(self, name) for name in _GRID_STATE)
            while len(self._kept) > KEPT_GRIDS:
                del self._kept[next(iter(self._kept))]
        kept = self._kept.pop(key, None)
        if kept is None:
            self._key, self._edges = key, None
        else:
            for name, value in zip(_GRID_STATE, kept):
                setattr(self, name, value)

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
        self._dirty, self._out, self._offsets = 0, (np.empty(0), np.empty(0)), np.zeros(m + 1, dtype=np.int64)
        self._edge_list = None   # the edges as floats, for the point-by-point fold (made when first needed)
        self._cols = (m, -1)     # first and last non-empty column

    def _fold(self, x: np.ndarray, y: np.ndarray, a: int, b: int, blocks: BlockExtremes | None = None) -> None:
        """Aggregate points a..b-1 (all at or right of the points already folded) into the columns; ``blocks``:
        y's block summaries, used where the columns hold many points each (a new grid)."""
        if b - a <= FEW:
            self._fold_few(x, y, a, b)
            return
        xs = x[a:b]
        ys = y[a:b]
        starts = np.searchsorted(xs, self._edges, side="left")
        ends = np.empty_like(starts)
        ends[:-1] = starts[1:]
        ends[-1] = len(xs)
        sizes = ends - starts
        cols = np.flatnonzero(sizes)
        s = starts[cols]
        if blocks is not None and b - a >= BLOCK_COLUMN * BLOCK * len(cols) and len(y) // BLOCK == blocks.blocks:
            mn, mx, gap = blocks.segments(y, np.append(s + a, b))
            self._store(cols, s + a, ends[cols] + (a - 1), sizes[cols], mn, mx, gap if gap.any() else None)
            return
        # The segments cover every point (s[0] == 0) and minimum / maximum propagate NaN, so finite
        # extremes mean finite values: no O(n) finiteness pass for a clean series.
        mn = np.minimum.reduceat(ys, s)
        mx = np.maximum.reduceat(ys, s)
        gap = None
        if not (np.isfinite(mn).all() and np.isfinite(mx).all()):
            finite = np.isfinite(ys)
            clean = np.where(finite, ys, np.nan)
            with np.errstate(invalid="ignore"):
                mn = np.fmin.reduceat(clean, s)
                mx = np.fmax.reduceat(clean, s)
            gap = np.logical_or.reduceat(~finite, s)
        self._store(cols, s + a, ends[cols] + (a - 1), sizes[cols], mn, mx, gap)

    def _store(self, cols, first, last, sizes, mn, mx, gap) -> None:
        """Merge the aggregates of new points into the non-empty columns ``cols`` (ascending): their first and
        last point indices, counts, finite min / max and non-finite flags (``gap`` None: none)."""
        lo, hi = self._cols
        self._dirty = min(self._dirty, int(cols[0]), max(hi, 0))   # the old last column loses that role
        self._cols = (min(lo, int(cols[0])), max(hi, int(cols[-1])))
        if hi < 0:   # nothing folded yet (a new grid): the columns take the aggregates as they are
            self.first[cols] = first
            self.last[cols] = last
            self.count[cols] = sizes
            self.ymin[cols] = mn
            self.ymax[cols] = mx
            if gap is not None:
                self.gap[cols] = gap
            return
        old = self.count[cols] > 0    # only the first touched column can hold earlier points
        self.first[cols] = np.where(old, self.first[cols], first)
        self.last[cols] = last
        self.count[cols] += sizes
        self.ymin[cols] = np.fmin(self.ymin[cols], mn)
        self.ymax[cols] = np.fmax(self.ymax[cols], mx)
        if gap is not None:
            self.gap[cols] |= gap

    def _fold_few(self, x: np.ndarray, y: np.ndarray, a: int, b: int) -> None:
        """_fold for a few points, one by one (numpy calls cost more than the arithmetic here)."""
        lo, hi = self._cols
        dirty = min(self._dirty, max(hi, 0))
        if self._edge_list is None:
            self._edge_list = self._edges.tolist()
        for i in range(a, b):
            col = bisect.bisect_right(self._edge_list, float(x[i])) - 1
            yv = float(y[i])
            if self.count[col] == 0:
                self.first[col] = i
            self.last[col] = i
            self.count[col] += 1
            if math.isfinite(yv):
                cur = float(self.ymin[col])
                if cur != cur or yv < cur:
                    self.ymin[col] = yv
                cur = float(self.ymax[col])
                if cur != cur or yv > cur:
                    self.ymax[col] = yv
            else:
                self.gap[col] = True
            dirty, lo, hi = min(dirty, col), min(lo, col), max(hi, col)
        self._dirty, self._cols = dirty, (lo, hi)

    def _emit(self, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The points of every column: those emitted last time for the clean columns, new ones from
        the first changed column on."""
        d = self._dirty
        if d >= len(self.count):
            return self._out
        ends = self._cols
        start = int(self._offsets[d])
        if ends[1] - d < FEW:   # a live tick: one or two columns changed
            new_x, new_y = self._few_points(x, y, d, ends)
        else:
            nonempty = np.flatnonzero(self.count[d:]) + d
            new_x, new_y, k = self._column_points(x, y, nonempty, ends)
            per_col = np.zeros(len(self.count) - d, dtype=np.int64)
            per_col[nonempty - d] = k
            np.cumsum(per_col, out=self._offsets[d + 1:])
            if start:
                self._offsets[d + 1:] += start
        if start:
            self._out = (np.concatenate([self._out[0][:start], new_x]), np.concatenate([self._out[1][:start], new_y]))
        else:
            self._out = (new_x, new_y)
        self._dirty = len(self.count)
        return self._out

    def _few_points(self, x, y, d: int, ends: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
        """_column_points for columns d..ends[1], one by one; also moves the offsets."""
        xs: list[float] = []
        ys: list[float] = []
        off = int(self._offsets[d])
        for col in range(d, ends[1] + 1):
            self._offsets[col] = off
            c = int(self.count[col])
            if c:
                f, la = int(self.first[col]), int(self.last[col])
                xf, xl, yf, yl = float(x[f]), float(x[la]), float(y[f]), float(y[la])
                many = c > 2
                e1, e2 = yf, yl
                if many:
                    lo, hi = float(self.ymin[col]), float(self.ymax[col])
                    e1, e2 = (hi, lo) if yl < yf else (lo, hi)
                pts = [(xf, yf)] if many and col == ends[0] else []
                pts.append((xf, e1))
                if c > 1:
                    pts.append((xl, e2))
                if self.gap[col]:
                    pts.append((xl, math.nan))
                if many and col == ends[1]:
                    pts.append((xl, yl))
                xs += [p[0] for p in pts]
                ys += [p[1] if math.isfinite(p[1]) else math.nan for p in pts]
                off += len(pts)
        self._offsets[ends[1] + 1:] = off
        return np.array(xs, dtype=np.float64), np.array(ys, dtype=np.float64)

    def _column_points(self, x, y, cols, ends):
        """The points of the non-empty columns ``cols`` (ascending) and how many each has: [series' first
        point, extreme 1, extreme 2, NaN gap, series' last point] per column, those that apply (``ends``:
        the first and last non-empty columns). Returns (xs, ys, counts); ys NaN where not finite."""
        c = self.count[cols]
        f, la = self.first[cols], self.last[cols]
        xf, xl, yf, yl = x[f], x[la], y[f], y[la]
        down = yl < yf
        lo, hi = self.ymin[cols], self.ymax[cols]
        e1 = np.where(down, hi, lo)
        e2 = np.where(down, lo, hi)
        gap = self.gap[cols]
        if c.min() > 2 and not gap.any():   # the usual columns: their two extremes (all finite), in order
            return self._extreme_points(cols, ends, xf, xl, yf, yl, e1, e2)
        many = c > 2
        e1 = np.where(many, e1, yf)
        e2 = np.where(many, e2, yl)
        px = np.stack([xf, xf, xl, xl, xl], axis=1)
        py = np.stack([yf, e1, e2, np.full(len(cols), np.nan), yl], axis=1)
        keep = np.stack([many & (cols == ends[0]), np.ones(len(cols), dtype=bool), c > 1, gap,
                         many & (cols == ends[1])], axis=1)
        return px[keep], _nan_for_nonfinite(py[keep]), keep.sum(axis=1)

    @staticmethod
    def _extreme_points(cols, ends, xf, xl, yf, yl, e1, e2):
        """_column_points where every column has more than two points and no gap: (xf, e1), (xl, e2) per
        column, after the series' first point and before its last one where the view holds them."""
        m = len(cols)
        head = int(cols[0] == ends[0])
        tail = int(cols[-1] == ends[1])
        px = np.empty(2 * m + head + tail)
        py = np.empty(2 * m + head + tail)
        px[head: head + 2 * m: 2] = xf
        px[head + 1: head + 2 * m: 2] = xl
        py[head: head + 2 * m: 2] = e1
        py[head + 1: head + 2 * m: 2] = e2
        if head:
            px[0], py[0] = xf[0], yf[0]
        if tail:
            px[-1], py[-1] = xl[-1], yl[-1]
        k = np.full(m, 2, dtype=np.int64)
        k[0] += head
        k[-1] += tail
        return px, py, k

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


def kept_decimator(series, role: str, x_factor: float = 1.0) -> ColumnDecimator:
    """The ColumnDecimator of one curve drawn from ``series`` (an explorer.ui.runs.state.Series), kept with it (in
    its ``derived``) so that showing the run again, in any plot of the same x unit, finds its columns: ``role``
    names the curve ("main": the drawn values; "raw": the raw loss behind the smoothed one), ``x_factor`` the x
    axis unit per optimizer step. The GUI thread's alone (decimators are not thread-safe)."""
    kept = series.derived.setdefault("decimators", {})
    dec = kept.get((role, x_factor))
    if dec is None:
        dec = kept[(role, x_factor)] = ColumnDecimator()
    return dec


def series_points(decimator: ColumnDecimator, series, x: np.ndarray, y: np.ndarray, version,
                  grid: tuple[float, float, int]) -> tuple[np.ndarray, np.ndarray]:
    """The points to draw of one curve of ``series`` (an explorer.ui.runs.state.Series): ``x`` its steps in the
    plot's x unit, ``y`` the drawn values (``version``: "raw" for the series' own values, else the smoothed
    values' version), ``grid`` (x0, x1, pixel columns); :meth:`ColumnDecimator.points` with the series' block
    summaries where the columns hold many points each. The one way both the plots (GUI thread) and the reader
    thread (explorer.ui.curves.predecimate) decimate a curve, so that their columns are interchangeable."""
    steps_sorted = series.steps_sorted
    many = steps_sorted and len(x) >= BLOCK_COLUMN * BLOCK * grid[2]   # block summaries pay off
    blocks = kept_blocks(series, y, None if version == "raw" else version) if many else None
    return decimator.points(x, y, *grid, version=version, steps_sorted=steps_sorted, blocks=blocks)

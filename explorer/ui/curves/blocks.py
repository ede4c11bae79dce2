"""Per-block extremes of a growing series, so that a full redraw folds block summaries instead of every point
(Qt-free, numpy only).

A long curve decimated afresh (a run selection, a zoom, another plot width) needs the minimum and maximum of
each pixel column's points (explorer.ui.curves.decimate, which folds blocks where a column averages
BLOCK_COLUMN blocks or more: below that its scan of every point costs less). :class:`BlockExtremes` keeps, for the
complete blocks of :data:`BLOCK` consecutive points, the minimum and maximum of their finite values as a sparse
table (the extremes of 1, 2, 4, ... consecutive blocks from each block on) and a running count of the blocks
holding a non-finite value; it is extended as points are appended (only new blocks are summarised) and is first
computed where the run is read (explorer.ui.curves.plotmath.prepare_curves, the reader thread).
:meth:`BlockExtremes.segments` then answers "min / max / non-finite of points lo..hi" per column from two table
entries for the whole blocks inside and the points of the column's first and last blocks: numpy work of
O(columns x BLOCK), not O(points). Minimum and maximum are exact and idempotent (overlaps do not matter), so the
result is the same as scanning every point. Memory: about log2(blocks) x 2 floats per block.
"""

from __future__ import annotations

import numpy as np

BLOCK = 32   # points per block
_POS = np.arange(BLOCK)[:, None]


class BlockExtremes:
    """Block summaries of one append-only array of values: block k covers indices [k * BLOCK, (k + 1) * BLOCK).

    ``tmin[j, k]`` / ``tmax[j, k]``: min / max of the finite values of blocks k .. k + 2**j - 1 (NaN when none);
    ``gaps[k]``: how many of blocks 0 .. k - 1 hold a NaN / +-inf. ``tag``: what the values are (a smoothing
    generation): another tag starts over (:func:`kept_blocks`).
    """

    __slots__ = ("tmin", "tmax", "gaps", "blocks", "tag")

    def __init__(self, tag=None):
        self.tag = tag
        self.blocks = 0
        self.tmin = np.empty((1, 0))
        self.tmax = np.empty((1, 0))
        self.gaps = np.zeros(1, dtype=np.int64)

    def update(self, y: np.ndarray) -> BlockExtremes:
        """Summarise the complete blocks of ``y`` (shape (n,): the values summarised before, then appended ones)
        not summarised yet; returns self."""
        full = len(y) // BLOCK
        old = self.blocks
        if full <= old:
            return self
        rows = np.asarray(y[old * BLOCK: full * BLOCK], dtype=np.float64).reshape(-1, BLOCK)
        mn = rows.min(axis=1)   # NaN propagates: finite extremes mean finite values
        mx = rows.max(axis=1)
        gap = np.zeros(len(rows), dtype=bool)
        bad = ~(np.isfinite(mn) & np.isfinite(mx))
        if bad.any():
            finite = np.isfinite(rows[bad])
            clean = np.where(finite, rows[bad], np.nan)
            with np.errstate(invalid="ignore"):
                mn[bad] = np.fmin.reduce(clean, axis=1)
                mx[bad] = np.fmax.reduce(clean, axis=1)
            gap[bad] = ~finite.all(axis=1)
        levels = full.bit_length()
        if full > self.tmin.shape[1] or levels > self.tmin.shape[0]:   # capacity doubling
            cap = max(full, 2 * self.tmin.shape[1])
            for name in ("tmin", "tmax"):
                grown = np.full((cap.bit_length(), cap), np.nan)
                kept = getattr(self, name)
                grown[: kept.shape[0], : old] = kept[:, :old]
                setattr(self, name, grown)
        self.tmin[0, old:full] = mn
        self.tmax[0, old:full] = mx
        for j in range(1, levels):   # entries whose span reaches a new block
            half = 1 << (j - 1)
            a, b = max(0, old - 2 * half + 1), full - 2 * half + 1
            if b > a:
                self.tmin[j, a:b] = np.fmin(self.tmin[j - 1, a:b], self.tmin[j - 1, a + half: b + half])
                self.tmax[j, a:b] = np.fmax(self.tmax[j - 1, a:b], self.tmax[j - 1, a + half: b + half])
        self.gaps = np.concatenate([self.gaps[: old + 1], self.gaps[old] + np.cumsum(gap)])
        self.blocks = full
        return self

    def segments(self, y: np.ndarray, bounds: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(min, max, has non-finite) of y[bounds[i]:bounds[i + 1]] for each i, min / max over the finite values
        (NaN when none).

        ``y``: the summarised values, shape (n,), with n < BLOCK * (self.blocks + 1) (summarised up to date);
        ``bounds``: shape (m + 1,), strictly increasing indices into y, bounds[-1] <= n. Returns three arrays of
        shape (m,)."""
        p = np.asarray(bounds, dtype=np.int64)
        lo, hi = p[:-1], p[1:] - 1          # first and last index of each segment
        hb, tb = lo // BLOCK, hi // BLOCK   # their blocks
        # the segment's points in its first block and in its last block (the same block for a short segment), as
        # (2 BLOCK, segments): the reductions then run along rows, vectorised over the segments; into buffers
        # kept between calls (fresh arrays of this size cost more in page faults than the arithmetic)
        m = len(lo)
        idx, vals, inside, finite = _scratch(m)
        np.add(hb * BLOCK, _POS, out=idx[:BLOCK])
        np.add(tb * BLOCK, _POS, out=idx[BLOCK:])
        np.take(y, idx, out=vals, mode="clip")   # past the end: masked out below
        np.greater_equal(idx, lo, out=inside)
        inside &= idx <= hi
        np.isfinite(vals, out=finite)
        gap = (inside & ~finite).any(axis=0)
        inside &= finite
        np.copyto(vals, np.nan, where=~inside)
        with np.errstate(invalid="ignore"):
            mn = np.fmin.reduce(vals, axis=0)
            mx = np.fmax.reduce(vals, axis=0)
        # the whole blocks between: two overlapping table spans of 2**j blocks each
        a, b = hb + 1, tb   # blocks a .. b - 1
        inner = np.flatnonzero(b > a)
        if len(inner):
            a, b = a[inner], b[inner]
            j = np.frexp((b - a).astype(np.float64))[1] - 1   # floor(log2(b - a))
            second = b - (np.int64(1) << j)
            mn[inner] = np.fmin(mn[inner], np.fmin(self.tmin[j, a], self.tmin[j, second]))
            mx[inner] = np.fmax(mx[inner], np.fmax(self.tmax[j, a], self.tmax[j, second]))
            gap[inner] |= self.gaps[b] > self.gaps[a]
        return mn, mx, gap


_SCRATCH: list[np.ndarray] = []   # flat buffers for segments(): indices, values, two masks


def _scratch(m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Contiguous buffers of shape (2 BLOCK, m) for :meth:`BlockExtremes.segments`: indices, values, two masks;
    views of flat buffers kept between calls and grown when m outgrows them, for the one thread that decimates
    (the GUI's)."""
    size = 2 * BLOCK * m
    if not _SCRATCH or len(_SCRATCH[0]) < size:
        cap = max(size, 2 * len(_SCRATCH[0]) if _SCRATCH else 0)
        _SCRATCH[:] = [np.empty(cap, dtype=np.int64), np.empty(cap), np.empty(cap, dtype=bool),
                       np.empty(cap, dtype=bool)]
    shape = (2 * BLOCK, m)
    return tuple(buf[:size].reshape(shape) for buf in _SCRATCH)


def kept_blocks(series, y: np.ndarray, tag=None) -> BlockExtremes:
    """The BlockExtremes of ``y`` kept with ``series`` (an explorer.ui.runs.state.Series, in its ``derived``),
    brought up to date: ``y`` is the series' own values (``tag`` None) or values derived from them (the smoothed
    loss: ``tag`` its generation; a new generation starts over)."""
    name = "blocks" if tag is None else "blocks_derived"
    kept = series.derived.get(name)
    if kept is None or kept.tag != tag:
        kept = series.derived[name] = BlockExtremes(tag)
    return kept.update(y)

"""Curves: block extremes of a long series give the same decimated points as scanning every point."""

import numpy as np
import pytest

from explorer.ui.curves import decimate
from explorer.ui.curves.blocks import BLOCK, BlockExtremes, kept_blocks
from explorer.ui.curves.decimate import ColumnDecimator
from explorer.ui.curves.plotmath import prepare_curves
from explorer.ui.runs.state import RunState, Series


def _series(rng, n: int, sorted_steps: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Steps that repeat and jump (sorted unless asked), values with NaN / +inf / -inf sprinkled and in runs."""
    x = np.cumsum(rng.integers(0, 3, n)).astype(np.float64)
    if not sorted_steps:
        k = rng.integers(1, n, 5)
        x[k] = x[k - 1] - 2
    y = rng.normal(size=n)
    y[rng.integers(0, n, int(rng.integers(0, 40)))] = np.nan
    y[rng.integers(0, n, int(rng.integers(0, 10)))] = np.inf
    y[rng.integers(0, n, int(rng.integers(0, 10)))] = -np.inf
    start = int(rng.integers(0, n))
    y[start: start + int(rng.integers(0, 3 * BLOCK))] = np.nan   # whole blocks without a finite value
    return x, y


@pytest.mark.parametrize("sorted_steps", [True, False])
def test_block_decimation_equals_the_full_scan(monkeypatch, sorted_steps):
    monkeypatch.setattr(decimate, "BLOCK_COLUMN", 1)   # blocks used at every column width here
    rng = np.random.default_rng(7)
    for _ in range(120):
        n = int(rng.integers(50, 12_000))
        x, y = _series(rng, n, sorted_steps)
        ncols = int(rng.integers(3, 120))
        x0 = float(rng.uniform(-10, x[-1] / 2))
        x1 = float(rng.uniform(x0 + 1, x[-1] * 1.2 + 2))
        blocks = BlockExtremes().update(y[: int(rng.integers(0, n))]).update(y)   # summarised in two parts
        scanned = ColumnDecimator().points(x, y, x0, x1, ncols, steps_sorted=sorted_steps)
        folded = ColumnDecimator().points(x, y, x0, x1, ncols, steps_sorted=sorted_steps, blocks=blocks)
        assert np.array_equal(scanned[0], folded[0])
        assert np.array_equal(scanned[1], folded[1], equal_nan=True)


def test_segments_give_each_runs_finite_extremes_and_its_gaps():
    rng = np.random.default_rng(3)
    _x, y = _series(rng, 5_000)
    blocks = BlockExtremes().update(y)
    bounds = np.unique(np.concatenate([[0, len(y)], rng.integers(0, len(y), 60)]))
    mn, mx, gap = blocks.segments(y, bounds)
    for i, (a, b) in enumerate(zip(bounds[:-1], bounds[1:])):
        part = y[a:b]
        finite = part[np.isfinite(part)]
        assert gap[i] == (len(finite) < len(part))
        if len(finite):
            assert (mn[i], mx[i]) == (finite.min(), finite.max())
        else:
            assert np.isnan(mn[i]) and np.isnan(mx[i])


def test_kept_blocks_extend_with_appends_and_restart_for_other_values():
    s = Series()
    s.extend(np.arange(10 * BLOCK), np.arange(10 * BLOCK, dtype=np.float64))
    first = kept_blocks(s, s.y)
    assert first.blocks == 10
    s.extend(np.arange(10 * BLOCK, 13 * BLOCK + 5), np.zeros(3 * BLOCK + 5))
    assert kept_blocks(s, s.y) is first and first.blocks == 13
    smoothed = kept_blocks(s, s.y * 2, ("ema", 1))
    assert smoothed is not first and kept_blocks(s, s.y * 3, ("ema", 2)) is not smoothed


def test_long_series_get_their_blocks_where_they_are_read(monkeypatch):
    import explorer.ui.curves.plotmath as plotmath

    monkeypatch.setattr(plotmath, "LONG_SERIES", 1_000)
    state = RunState(run_id="r")
    for key, n in (("loss", 2_000), ("lr", 500)):
        state.series[key] = Series()
        state.series[key].extend(np.arange(n, dtype=np.float64), np.linspace(3, 1, n))
    prepare_curves(state)
    assert state.series["loss"].derived["blocks"].blocks == 2_000 // BLOCK
    assert state.series["loss"].derived["blocks_derived"].tag[0] == "ema"
    assert "blocks" not in state.series["lr"].derived   # short: scanned

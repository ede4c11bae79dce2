"""Curves decimated where a run is read: the columns the reader thread folds for a run's own x axis are the
ones the plot draws, and any other grid (another width or range) is folded on the GUI thread instead, with the
same picture either way."""

from __future__ import annotations

import numpy as np
import pytest


def _state(run_id, n, seed=0, total=None):
    from explorer.ui.runs.state import RunState, Series

    rng = np.random.default_rng(seed)
    steps = np.arange(1, n + 1, dtype=np.float64)
    s = RunState(run_id=run_id, status="running", steps_total=total or 2 * n, step=n)
    loss = 1 + 4 * np.exp(-steps / n) + rng.normal(0, 0.3, n) ** 2
    loss[n // 3] = 50.0          # a spike the envelope must keep
    loss[n // 2] = np.nan        # a non-finite value: a gap
    for name, y in {"loss": loss, "grad_norm": np.abs(rng.normal(3, 1, n))}.items():
        ser = Series()
        ser.extend(steps, y)
        s.series[name] = ser
    return s


@pytest.fixture
def curves(qtbot):
    from helpers import shown_curves_panel

    from explorer.ui.curves.predecimate import PLOT_COLUMNS

    PLOT_COLUMNS.clear()
    panel = shown_curves_panel(qtbot, 1000, 700)
    yield panel
    PLOT_COLUMNS.clear()


def _gui_points(panel, run_id):
    """Each curve of the run as the GUI thread alone would decimate it for the plot's grid now."""
    from explorer.ui.curves.decimate import ColumnDecimator, series_points

    out = {}
    for key, p in panel.panels.items():
        data = p.data.get(run_id)
        if data is None:
            continue
        grid = p._grid()
        out[key] = series_points(ColumnDecimator(), data.series, data.x, data.shown, data.version, grid)
        if data.raw is not None and run_id in p.raw_items:
            out[key + "/raw"] = series_points(ColumnDecimator(), data.series, data.x, data.y, "raw", grid)
    return out


def _drawn(panel, run_id):
    out = {}
    for key, p in panel.panels.items():
        if p.data.get(run_id) is None:
            continue
        out[key] = p.items[run_id].getData()
        if run_id in p.raw_items and p.data[run_id].raw is not None:
            out[key + "/raw"] = p.raw_items[run_id].getData()
    return out


def _assert_same(drawn, expected):
    assert drawn.keys() == expected.keys() and {"loss", "loss/raw", "grad_norm"} <= set(drawn)
    for key, (x, y) in expected.items():
        np.testing.assert_array_equal(np.asarray(drawn[key][0]), x)
        np.testing.assert_array_equal(np.asarray(drawn[key][1]), y)   # NaN where NaN
    raw_y = np.asarray(drawn["loss/raw"][1])
    assert np.nanmax(raw_y) == 50.0 and np.isnan(raw_y).any()       # the spike and the gap are drawn


def _count_folds(monkeypatch):
    from explorer.ui.curves.decimate import ColumnDecimator as Dec

    folds = []
    fold = Dec._fold
    monkeypatch.setattr(Dec, "_fold", lambda self, *a, **kw: (folds.append(a[2:4]), fold(self, *a, **kw))[1])
    return folds


def test_a_run_read_after_the_plots_drew_finds_its_columns_done(curves, monkeypatch):
    from explorer.ui.curves.plotmath import prepare_curves

    curves.set_runs([prepare_curves(_state("first", 30_000, 1))])   # the plots draw: their columns are published
    curves.redraw_now()
    curves.set_runs([])
    curves.redraw_now()
    run = prepare_curves(_state("a", 40_000, 2))   # as the reader thread reads it
    folds = _count_folds(monkeypatch)
    curves.set_runs([run])
    curves.redraw_now()
    assert folds == []                     # no decimation on the GUI thread: the reader's columns were the grid
    _assert_same(_drawn(curves, "a"), _gui_points(curves, "a"))


@pytest.mark.parametrize("mismatch", ["width", "range"])
def test_columns_for_another_grid_fall_back_to_the_gui_thread(curves, monkeypatch, mismatch):
    from explorer.ui.curves.plotmath import prepare_curves
    from explorer.ui.curves.predecimate import PLOT_COLUMNS

    curves.set_runs([prepare_curves(_state("first", 30_000, 1))])
    curves.redraw_now()
    curves.set_runs([])
    curves.redraw_now()
    if mismatch == "width":   # the plots are narrower than when they published their columns
        for key in list(PLOT_COLUMNS._columns):
            PLOT_COLUMNS.publish(key, PLOT_COLUMNS.get(key) + 7)
    run = prepare_curves(_state("a", 40_000, 2))
    assert run.series["loss"].derived.get("decimators")   # decimated ahead, for a grid the plot will not draw
    shown = [run] if mismatch == "width" else [run, prepare_curves(_state("longer", 30_000, 3, total=120_000))]
    folds = _count_folds(monkeypatch)
    curves.set_runs(shown)
    curves.redraw_now()
    assert folds                           # the plot folded its own columns
    _assert_same(_drawn(curves, "a"), _gui_points(curves, "a"))


@pytest.mark.parametrize("lo, hi", [(0.0, 101_037.0), (-3.5, 7.25), (1e6, 1e6 + 17.0), (0.0, 1.0)])
def test_padded_range_is_the_view_range_pyqtgraph_sets(qtbot, lo, hi):
    import pyqtgraph as pg

    from explorer.ui.curves.predecimate import X_PADDING, padded_range

    vb = pg.ViewBox()
    vb.setXRange(lo, hi, padding=X_PADDING)
    assert tuple(vb.viewRange()[0]) == padded_range(lo, hi)

"""Curves that redraw fast: min/max decimation per pixel column keeps every
column's extremes, spikes and the end points; appends give the same picture as a full redraw; live
ticks are coalesced."""

from __future__ import annotations

import math

import numpy as np
import pytest

from explorer.ui.curves.decimate import RAW_FACTOR, ColumnDecimator
from explorer.ui.curves.plotmath import IncrementalEMA, ema_smooth


def _columns(x, x0, x1, ncols):
    """Brute force: the pixel column of every point (-1 left of the view, ncols right of it)."""
    w = (x1 - x0) / ncols
    col = np.floor((x - x0) / w).astype(int)
    col[x < x0] = -1
    col[(x >= x0 + w * ncols) & (x <= x1)] = ncols - 1
    col[x > x1] = ncols
    return col


def _walk(n, seed=0):
    rng = np.random.default_rng(seed)
    x = np.cumsum(rng.integers(1, 4, n)).astype(float)      # uneven steps
    y = np.cumsum(rng.normal(size=n))
    return x, y


def test_every_column_keeps_its_min_and_max_exactly_and_the_end_points():
    x, y = _walk(20_000)
    x0, x1, ncols = float(x[300]) + 0.5, float(x[-500]) + 0.25, 97
    xs, ys = ColumnDecimator().points(x, y, x0, x1, ncols)
    assert len(xs) <= 2 * (ncols + 2) + 4 < 20_000                # about two points per column
    col = _columns(x, x0, x1, ncols)
    vis = np.flatnonzero((col >= 0) & (col < ncols))
    dcol = _columns(xs, x0, x1, ncols)
    for c in np.unique(col[vis]):
        pts = np.flatnonzero(col == c)
        drawn = ys[dcol == c]
        assert drawn.min() == y[pts].min() and drawn.max() == y[pts].max()     # exact values, not means
        assert xs[dcol == c].min() >= x[pts[0]] and xs[dcol == c].max() <= x[pts[-1]]   # inside the column
    # the curve runs to the plot's edges: the nearest point outside the view on each side is kept
    assert (xs[0], ys[0]) == (x[300], y[300]) and xs[-1] == x[-500 + 1] and ys[-1] == y[-500 + 1]
    assert np.all(np.diff(xs) >= 0)
    # the series' own first and last points when the whole series is in view
    xs, ys = ColumnDecimator().points(x, y, 0.0, float(x[-1]) + 1.0, ncols)
    assert (xs[0], ys[0]) == (x[0], y[0]) and (xs[-1], ys[-1]) == (x[-1], y[-1])


def test_a_column_is_drawn_in_the_direction_the_data_runs():
    x = np.arange(10_000, dtype=float)
    down = 10_000 - x                                               # a falling line: max then min per column
    xs, ys = ColumnDecimator().points(x, down, 0.0, 10_000.0, 100)
    inner = ys[1:-1]
    assert np.all(np.diff(inner) <= 0)                              # never up and down again
    xs, ys = ColumnDecimator().points(x, x.copy(), 0.0, 10_000.0, 100)
    assert np.all(np.diff(ys) >= 0)


@pytest.mark.parametrize("where", [0, 1, 49_999, 50_000, 77_777, 99_998, 99_999])
def test_a_spike_is_never_lost(where):
    n = 100_000
    x = np.arange(1, n + 1, dtype=float)
    y = np.sin(x / 500.0)
    y[where] = 40.0
    y[(where + 5_000) % n] = -40.0
    xs, ys = ColumnDecimator().points(x, y, 0.0, float(n), 640)
    assert len(xs) < 2 * 642 + 4
    assert ys.max() == 40.0 and ys.min() == -40.0
    assert xs[0] == 1.0 and ys[0] == y[0] and xs[-1] == n and ys[-1] == y[-1]   # first and last points


def test_few_points_are_drawn_as_they_are():
    x = np.arange(1.0, 11.0)
    y = np.array([2.1, 1.9, math.nan, 1.7, math.inf, 1.5, 1.4, -math.inf, 1.2, 1.1])
    xs, ys = ColumnDecimator().points(x, y, 0.0, 10.0, 400)
    assert xs.tolist() == x.tolist()
    assert np.isnan(ys[[2, 4, 7]]).all() and ys[[0, 1, 3, 5, 6, 8, 9]].tolist() == [2.1, 1.9, 1.7, 1.5, 1.4, 1.2, 1.1]
    assert not np.isinf(ys).any()
    # zoomed in: the visible points and one on each side
    xs, ys = ColumnDecimator().points(x, y, 4.5, 6.5, 400)
    assert xs.tolist() == [4.0, 5.0, 6.0, 7.0]


def test_non_finite_values_leave_a_gap_and_never_hide_an_extreme():
    n = 50_000
    x = np.arange(n, dtype=float)
    y = np.linspace(5, 1, n)
    y[[10_000, 30_000]] = [math.nan, math.inf]
    y[10_001] = 9.0                     # a spike right after the NaN, in the same column
    xs, ys = ColumnDecimator().points(x, y, 0.0, float(n), 300)
    assert not np.isinf(ys).any()
    assert ys[np.isfinite(ys)].max() == 9.0
    gaps = xs[np.isnan(ys)]
    near = [np.abs(gaps - at) <= n / 300 for at in (10_000, 30_000)]
    assert near[0].any() and near[1].any() and (near[0] | near[1]).all()    # a gap there, nowhere else
    # a column that is all NaN is a gap too
    y2 = y.copy()
    y2[20_000:21_000] = math.nan
    xs, ys = ColumnDecimator().points(x, y2, 0.0, float(n), 300)
    assert np.isnan(ys[(xs > 20_200) & (xs < 20_800)]).all()


def test_appends_give_the_same_points_as_one_pass():
    x, y = _walk(60_000, seed=3)
    y[[5_000, 41_234, 41_235]] = [math.nan, math.inf, math.nan]
    x0, x1, ncols = 0.0, float(x[-1]) + 100.0, 512
    inc = ColumnDecimator()
    rng = np.random.default_rng(1)
    n = 0
    while n < len(x):
        n = min(len(x), n + int(rng.integers(1, 5_000)))
        xs, ys = inc.points(x[:n], y[:n], x0, x1, ncols)
        ref = ColumnDecimator().points(x[:n], y[:n], x0, x1, ncols)
        np.testing.assert_array_equal(xs, ref[0])
        np.testing.assert_array_equal(ys, ref[1])
    assert inc._edges is not None                       # it did decimate (not the raw path)
    assert len(xs) < 3 * (ncols + 2)


def test_grid_or_data_changes_start_over():
    x, y = _walk(10_000, seed=5)
    d = ColumnDecimator()
    d.points(x, y, 0.0, float(x[-1]), 100)
    z = y[::-1].copy()                                   # other values, same length: a new version
    xs, ys = d.points(x, z, 0.0, float(x[-1]), 100, version=2)
    ref = ColumnDecimator().points(x, z, 0.0, float(x[-1]), 100)
    np.testing.assert_array_equal(ys, ref[1])
    xs, ys = d.points(x, z, float(x[100]), float(x[5_000]), 50, version=2)   # zoomed
    ref = ColumnDecimator().points(x, z, float(x[100]), float(x[5_000]), 50)
    np.testing.assert_array_equal(xs, ref[0])
    np.testing.assert_array_equal(ys, ref[1])


def test_a_grid_shown_again_reuses_its_columns_and_folds_only_new_points(monkeypatch):
    x, y = _walk(30_000, seed=6)
    y[[700, 21_000]] = [math.nan, math.inf]
    whole, zoom = (0.0, float(x[-1]) + 50.0, 300), (float(x[20_000]), float(x[25_000]), 200)
    d = ColumnDecimator()
    first = d.points(x[:20_000], y[:20_000], *whole)
    d.points(x[:20_000], y[:20_000], *zoom)
    again = d.points(x[:20_000], y[:20_000], *whole)
    assert again[0] is first[0] and again[1] is first[1]        # the kept columns' points, not a new pass
    folded = []
    fold = ColumnDecimator._fold
    monkeypatch.setattr(ColumnDecimator, "_fold", lambda self, xx, yy, a, b, blocks=None: (
        folded.append((a, b)), fold(self, xx, yy, a, b, blocks))[1])
    d.points(x[:25_000], y[:25_000], *zoom)                       # back to the zoom, with appended points
    xs, ys = d.points(x, y, *whole)
    assert folded[-1] == (20_000, 30_000)                         # only the points appended since
    ref = ColumnDecimator().points(x, y, *whole)
    np.testing.assert_array_equal(xs, ref[0])
    np.testing.assert_array_equal(ys, ref[1])
    xs, ys = d.points(x, y, *zoom)
    ref = ColumnDecimator().points(x, y, *zoom)
    np.testing.assert_array_equal(xs, ref[0])
    np.testing.assert_array_equal(ys, ref[1])


def test_growing_past_the_raw_limit_switches_to_columns():
    ncols = 50
    x = np.arange(1, 1001, dtype=float)
    y = np.cos(x)
    d = ColumnDecimator()
    n = RAW_FACTOR * ncols
    xs, _ = d.points(x[:n], y[:n], 0.0, 1000.0, ncols)
    assert len(xs) == n                                       # still every point
    xs, ys = d.points(x, y, 0.0, 1000.0, ncols)
    assert len(xs) < len(x) and ys.max() == y.max() and ys.min() == y.min()


def test_steps_that_go_back_are_drawn_as_they_are():
    x = np.concatenate([np.arange(1000.0), np.arange(500.0, 1500.0)])   # a resumed run repeating steps
    y = np.arange(len(x), dtype=float)
    xs, ys = ColumnDecimator().points(x, y, 0.0, 1500.0, 10)
    assert xs.tolist() == x.tolist() and ys.tolist() == y.tolist()


def test_incremental_ema_appends_match_one_pass_and_count_recomputes():
    rng = np.random.default_rng(2)
    y = rng.normal(size=5_000)
    y[[100, 2_000]] = [math.nan, math.inf]
    ema = IncrementalEMA()
    for n in (1, 7, 300, 301, 4_000, 5_000):
        out = ema.update(y[:n], 0.9)
    np.testing.assert_allclose(out, ema_smooth(y, 0.9), equal_nan=True, rtol=1e-12)
    assert ema.generation == 1
    ema.update(y, 0.5)
    assert ema.generation == 2
    assert ema.update(y, 0.0) is y


# ---------------------------------------------------------------------------------- the widget
def _state(run_id, n, seed=0):
    from explorer.ui.runs.state import RunState, Series

    rng = np.random.default_rng(seed)
    steps = np.arange(1, n + 1, dtype=np.float64)
    s = RunState(run_id=run_id, status="running", steps_total=2 * n, step=n)
    for name, y in {"loss": 1 + 4 * np.exp(-steps / n) + rng.normal(0, 0.3, n) ** 2,
                    "lr": 1e-4 * np.minimum(1.0, steps / 100), "grad_norm": np.abs(rng.normal(3, 1, n)),
                    "samples_per_second": 8 + rng.normal(0, 0.5, n)}.items():
        ser = Series()
        ser.extend(steps, y)
        s.series[name] = ser
    return s


def _step(state, loss):
    state.apply({"event": "step", "step": state.step + 1, "epoch": 1.0, "loss": loss, "lr": 1e-5,
                 "grad_norm": 2.0, "samples_per_second": 8.0, "elapsed": 1.0})


@pytest.fixture
def curves(qtbot):
    from helpers import shown_curves_panel

    return shown_curves_panel(qtbot, 1000, 700)


def _drawn(panel, run_id):
    out = []
    for items in (panel.items, panel.raw_items):
        if run_id in items:
            x, y = items[run_id].getData()
            out += [np.asarray(x), np.asarray(y)]
    return out


def test_live_appends_draw_the_same_picture_as_a_full_redraw(curves, qtbot):
    from explorer.ui.curves.panel import CurvesPanel

    runs = [_state("a", 30_000, 0), _state("b", 20_000, 1)]
    curves.set_runs(runs)
    curves.redraw_now()
    loss = curves.panels["loss"]
    x, _ = loss.items["a"].getData()
    assert len(x) < 10_000                                   # decimated, not 30k points
    assert curves.point_count("a", "loss") == 30_000
    for k in range(300):
        for s in runs:
            _step(s, 9.0 if k == 150 else 1.5)               # one spike during the live run
            curves.run_updated(s.run_id, {"loss", "lr", "grad_norm", "samples_per_second"})
        if k % 37 == 0:
            curves.redraw_now()
    curves.redraw_now()
    fresh = CurvesPanel()
    fresh.resize(1000, 700)
    qtbot.addWidget(fresh)
    fresh.show()
    qtbot.waitExposed(fresh)
    fresh.set_runs(runs)
    fresh.redraw_now()
    for key in ("loss", "lr", "grad_norm", "samples_per_second"):
        a, b = curves.panels[key], fresh.panels[key]
        assert a.plot.getViewBox().viewRange()[0] == pytest.approx(b.plot.getViewBox().viewRange()[0])
        for s in runs:
            for got, want in zip(_drawn(a, s.run_id), _drawn(b, s.run_id), strict=True):
                # the same points; the smoothed loss may differ in the last bit (EMA summed in other blocks)
                np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
    assert np.nanmax(_drawn(loss, "a")[3]) == 9.0             # the raw loss keeps the spike
    assert curves.point_count("b", "loss") == 20_300


def test_live_ticks_are_coalesced(curves, qtbot, monkeypatch):
    from explorer.ui.curves import panel as curves_mod
    from explorer.ui.curves.plot import PlotPanel

    state = _state("live", 2_000)
    curves.set_runs([state])
    curves.redraw_now()
    calls = []
    real = PlotPanel.update_run
    monkeypatch.setattr(PlotPanel, "update_run", lambda self, s, w: (calls.append(self.key), real(self, s, w)))
    assert curves_mod.REDRAW_MS <= 100
    for _ in range(50):                                      # 50 step events arrive before the timer fires
        _step(state, 1.0)
        curves.run_updated("live", {"loss", "lr", "grad_norm", "samples_per_second"})
    assert calls == []                                       # nothing drawn per event
    assert curves._timer.isActive() and curves._timer.isSingleShot()   # one coalescing timer is pending
    curves._timer.stop()
    curves._timer.timeout.emit()                             # it fires (driven here: no wall-clock wait)
    for _ in range(100):                                     # the staggered refreshes, one per tick
        if not curves._stagger.isActive():
            break
        curves._stagger.timeout.emit()
    assert not curves._stagger.isActive()
    assert curves.point_count("live", "loss") == 2_050
    assert sorted(calls) == sorted(["loss", "lr", "grad_norm", "samples_per_second"])   # once per plot
    assert "dev/f1" not in calls                            # plots without new points are left alone


def test_other_runs_reuse_the_curve_items(curves):
    import pyqtgraph as pg

    a, b = _state("a", 5_000, 0), _state("b", 3_000, 1)
    curves.set_runs([a])
    curves.redraw_now()
    loss = curves.panels["loss"]

    def data_items():
        return [i for i in loss.plot.items if isinstance(i, pg.PlotDataItem)]

    before = data_items()
    curves.set_runs([b])
    curves.redraw_now()
    assert data_items() == before                            # the same two items (smoothed + raw), recoloured
    assert loss.items["b"].opts["pen"].color().name() == curves.color("b").lower() != curves.color("a").lower()
    assert loss.raw_items["b"].opts["pen"].color().alpha() < 255
    assert "a" not in loss.items and curves.point_count("b", "loss") == 3_000
    x, _ = loss.items["b"].getData()
    assert x.max() <= 3_000                                  # b's points, nothing of a's
    curves.set_runs([a, b])
    curves.redraw_now()
    assert len(data_items()) == 4 and all(i.isVisible() for i in data_items())
    curves.set_runs([])
    curves.redraw_now()
    assert not any(i.isVisible() and i.xData is not None for i in data_items())


def test_a_run_shown_again_is_not_decimated_again(curves, monkeypatch):
    from explorer.ui.curves.decimate import ColumnDecimator as Dec

    a, b = _state("a", 50_000, 0), _state("b", 40_000, 1)
    curves.set_runs([a, b])
    curves.redraw_now()
    drawn = {k: p.items["a"].getData() for k, p in curves.panels.items() if "a" in p.items}
    folds = []
    fold = Dec._fold
    monkeypatch.setattr(Dec, "_fold", lambda self, *args, **kw: (folds.append(args[2:4]), fold(self, *args, **kw))[1])
    curves.set_runs([b])
    curves.redraw_now()
    assert folds                                              # b alone: a shorter x axis, other columns
    folds.clear()
    curves.set_runs([a, b])
    curves.redraw_now()
    assert folds == []                                        # the grid shown before: the columns kept with the series
    for key, (x, y) in drawn.items():
        x2, y2 = curves.panels[key].items["a"].getData()
        np.testing.assert_array_equal(x2, x)
        np.testing.assert_array_equal(y2, y)


def _drawn_tick_positions(panel, name):
    """Where the axis ``name`` drew its major and minor tick marks (the two longest kinds: the levels the
    grid draws), in view coordinates, from its draw specs."""
    axis, vb = panel.plot.getAxis(name), panel.plot.getViewBox()
    panel.widget.grab()                                            # paint: the specs are current
    shortest = abs(axis.style["tickLength"]) / 1.5 - 1e-9          # level i is tickLength / (1 + i / 2) long
    out = []
    ticks = [spec for level in axis._specs[1] for spec in level.as_pyqtgraph()]   # per tick: (pen, start, end)
    for _pen, p1, p2 in ticks:
        if abs((p2 - p1).y() if name == "bottom" else (p2 - p1).x()) >= shortest:
            v = vb.mapSceneToView(axis.mapToScene(p1))
            out.append(v.x() if name == "bottom" else v.y())
    return sorted(out)


def test_grid_lines_follow_the_axes_ticks(curves):
    curves.set_runs([_state("a", 400, 0)])
    curves.redraw_now()
    panel = curves.panels["loss"]
    assert panel.plot.getAxis("bottom").grid is False           # not the axes' slow grid pictures

    def rows():   # each grid line as (x1, y1, x2, y2)
        return [tuple(row) for lv in panel.grid_lines.lines() for row in lv.ndarray().tolist()]

    def grid_x():
        return sorted({x1 for x1, _y1, x2, _y2 in rows() if x1 == x2})

    def grid_y():
        return sorted({y1 for _x1, y1, _x2, y2 in rows() if y1 == y2})

    xs = grid_x()
    assert len(xs) >= 3 and grid_y()
    # a grid line on every tick mark the axes drew, and nowhere else (both levels)
    assert xs == pytest.approx(_drawn_tick_positions(panel, "bottom"), rel=1e-9, abs=1e-6)
    assert grid_y() == pytest.approx(_drawn_tick_positions(panel, "left"), rel=1e-9, abs=1e-9)
    curves.last_n.setValue(50)                                    # another x range: other lines
    curves.redraw_now()
    assert grid_x() != xs
    assert grid_x() == pytest.approx(_drawn_tick_positions(panel, "bottom"), rel=1e-9, abs=1e-6)
    curves.log_box.setChecked(True)                               # log y: lines at the log axis' ticks
    curves.redraw_now()
    assert grid_y() == pytest.approx(_drawn_tick_positions(panel, "left"), rel=1e-9, abs=1e-9)


def test_re_estimated_steps_total_does_not_move_the_axis_every_step(curves):
    """A time-budgeted run's step events carry a new steps_total each time (main: TrainClock)."""
    state = _state("tb", 2_000)
    state.steps_total = 5_000
    curves.set_runs([state])
    curves.redraw_now()
    vb = curves.panels["loss"].plot.getViewBox()
    first = vb.viewRange()[0]
    assert first[1] == pytest.approx(5_000, rel=0.03)            # a plain run: 0..steps_total
    seen = []
    for total in (5_010, 4_990, 5_040, 5_100, 4_900, 5_060):      # small re-estimates
        state.apply({"event": "step", "step": state.step + 1, "loss": 1.0, "lr": 1e-5, "grad_norm": 1.0,
                     "samples_per_second": 8.0, "steps_total": total})
        curves.run_updated("tb", {"loss", "lr", "grad_norm", "samples_per_second"})
        curves.redraw_now()
        seen.append(tuple(vb.viewRange()[0]))
        assert vb.viewRange()[0][1] >= total
    assert len(set(seen)) == 1                                     # moved once (2% to spare), then stayed
    state.apply({"event": "step", "step": state.step + 1, "loss": 1.0, "lr": 1e-5, "grad_norm": 1.0,
                 "samples_per_second": 8.0, "steps_total": 6_000})  # a big one: the axis follows
    curves.run_updated("tb", {"loss"})
    curves.redraw_now()
    assert vb.viewRange()[0][1] >= 6_000


def test_bench_curves_prints_the_apps_way_against_a_reference(qtbot, monkeypatch, capsys):
    import sys
    from pathlib import Path

    import pyqtgraph as pg

    monkeypatch.setattr(pg.GraphicsView, "paintEvent", pg.GraphicsView.paintEvent)   # the script counts paints
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent.parent / "scripts"))
    import bench_curves

    monkeypatch.setattr(sys, "argv", ["bench_curves.py", "--runs", "2", "--points", "3000", "--repeats", "1"])
    assert bench_curves.main() == 0
    out = capsys.readouterr().out
    for name in ("full redraw, shown plots painted", "full redraw + render of all plots (grab)",
                 "live tick, changed plots painted", "re-selection (runs shown before), painted"):
        line = next(ln for ln in out.splitlines() if name in ln)
        cells = line.split(name)[1].split()
        ways = cells[:1] if "re-selection" in name else cells[:2]   # the app's way (and the reference)
        assert all(float(v) > 0 for v in ways)
        ratios = [c for c in cells if c.endswith("x")]
        assert len(ratios) == (0 if "re-selection" in name else 1) and all(float(r[:-1]) > 0 for r in ratios)
    assert "load average" in out and "plots repainted per live tick" in out and "CPU time" in out
    assert "reference / app" in out


def test_y_range_from_the_drawn_points_equals_the_data_range(curves):
    from explorer.ui.curves.plot import y_range

    runs = [_state("a", 40_000, 0), _state("b", 25_000, 1)]
    runs[1].series["grad_norm"].y[12_345] = 50.0                 # one spike: the axis must reach it
    curves.set_runs(runs)
    curves.redraw_now()
    for key in ("grad_norm", "samples_per_second", "loss"):
        panel = curves.panels[key]
        want = [s.series[key].y for s in runs]
        if key == "loss":
            want += [panel.data[s.run_id].shown for s in runs]
        assert panel.plot.getViewBox().viewRange()[1] == pytest.approx(y_range(want, non_neg=True), rel=1e-9)
    assert curves.panels["grad_norm"].plot.getViewBox().viewRange()[1][1] > 50.0


@pytest.mark.parametrize("ncols", [7, 300])
def test_point_by_point_appends_give_the_same_points_as_one_pass(ncols):
    """A live run: one to three new points per tick (the point-by-point path), gaps included."""
    x, y = _walk(3_000, seed=4)
    y[[40, 41, 1_000, 2_222]] = [math.nan, math.inf, -math.inf, math.nan]
    x0, x1 = -5.0, float(x[-1]) + 50.0
    inc = ColumnDecimator()
    rng = np.random.default_rng(7)
    n = 1_200
    inc.points(x[:n], y[:n], x0, x1, ncols)
    while n < len(x):
        n = min(len(x), n + int(rng.integers(1, 4)))
        xs, ys = inc.points(x[:n], y[:n], x0, x1, ncols)
        if n % 7 == 0 or n == len(x):
            ref = ColumnDecimator().points(x[:n], y[:n], x0, x1, ncols)
            np.testing.assert_array_equal(xs, ref[0])
            np.testing.assert_array_equal(ys, ref[1])


@pytest.mark.parametrize("weight", [0.05, 0.6, 0.9, 0.999])
def test_ema_debiasing_only_the_start_gives_the_same_numbers_as_debiasing_every_point(weight):
    """After w^k < 2^-60 the debiasing factor 1 - w^k is exactly 1.0: skipping it changes no bit."""
    from explorer.ui.curves.plotmath import _ema_blocks

    rng = np.random.default_rng(3)
    y = rng.normal(2.0, 1.0, 60_000)
    want = _ema_blocks(y, weight) / -np.expm1(np.arange(1, len(y) + 1) * np.log(weight))   # every point
    np.testing.assert_array_equal(ema_smooth(y, weight), want)
    ema = IncrementalEMA()                                   # appends: the debiasing goes on from k done
    for n in (3, 40, 41, 1_000, 45_000, 60_000):
        out = ema.update(y[:n], weight)
    np.testing.assert_allclose(out, want, rtol=1e-13, atol=0)
    assert not np.array_equal(out[:3], _ema_blocks(y[:3], weight))   # the start is debiased (not skipped)

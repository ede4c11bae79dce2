"""The Curves redraw: one item per plot (CurveLayer), the level-of-detail cache (ZoomCache and the kept columns of
deselected runs), one paint per plot after a refresh or a new selection, the smoothing kept with the series it
was computed from, and the plot scene that keeps its view rect; each draws what the straightforward way draws."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import count_plot_paints
from helpers import curves_panel_with as _panel
from helpers import widget_pixels as _pixels

from explorer.ui.curves.decimate import ColumnDecimator, ZoomCache
from explorer.ui.curves.plotmath import DEFAULT_SMOOTHING, ema_smooth, prepare_curves
from explorer.ui.runs.state import Series

CURRENT = {"one_item": False, "lod_cache": False, "paint_once": False}
NEW = {"one_item": True, "lod_cache": True, "paint_once": True}


def _state(run_id, n, seed=0, nan_at=None):
    from explorer.ui.runs.state import RunState, Series

    rng = np.random.default_rng(seed)
    steps = np.arange(1, n + 1, dtype=np.float64)
    s = RunState(run_id=run_id, status="running", steps_total=2 * n, step=n)
    series = {"loss": 1 + 4 * np.exp(-steps / n) + rng.normal(0, 0.3, n) ** 2,
              "lr": 1e-4 * np.minimum(1.0, steps / 100), "grad_norm": np.abs(rng.normal(3, 1, n)),
              "samples_per_second": 8 + rng.normal(0, 0.5, n)}
    if nan_at is not None:
        series["grad_norm"][nan_at: nan_at + 50] = np.nan   # a gap
    for name, y in series.items():
        ser = Series()
        ser.extend(steps, y)
        s.series[name] = ser
    ev = steps[99::100]
    for name, y in {"dev/f1": 20 + 50 * (1 - np.exp(-ev / n)), "dev/exact_match": 10 + 40 * (1 - np.exp(-ev / n))}.items():
        ser = Series()
        ser.extend(ev, y)
        s.series[name] = ser
    return s


def _show(w, runs):
    w.set_runs(runs)
    w.redraw_now()


def test_one_item_per_plot_and_the_lod_cache_draw_the_same_pixels_as_one_item_per_curve(qtbot, monkeypatch):
    runs = [_state("a", 6_000, 0, nan_at=2_000), _state("b", 4_000, 1), _state("c", 5_000, 2)]
    old = _panel(qtbot, monkeypatch, CURRENT)
    _show(old, runs)
    new = _panel(qtbot, monkeypatch, NEW)
    _show(new, runs)
    assert new.panels["loss"].layer is not None and old.panels["loss"].layer is None
    taken = new.panels["dev/f1"].layer.curves
    assert len(taken) == 3 and all(c.layer is not None for c in taken)   # dev curves (with dots) too
    ref = _pixels(old.grid_host)
    assert (_pixels(new.grid_host) != ref).sum() == 0
    # hidden curves: one run left, the others' items kept hidden (spare) and drawn by no one
    _show(old, runs[:1])
    _show(new, runs[:1])
    assert any(not c.isVisible() for c in new.panels["loss"].layer.curves)
    one = _pixels(old.grid_host)
    assert (one != ref).any()                              # the picture did change
    assert (_pixels(new.grid_host) != one).sum() == 0
    # the same runs shown again (the kept columns of the lod cache), then a live tick: still the same
    _show(old, runs)
    _show(new, runs)
    assert (_pixels(new.grid_host) == ref).all()
    for s in runs:
        s.apply({"event": "step", "step": s.step + 1, "epoch": 1.0, "loss": 9.0, "lr": 1e-5, "grad_norm": 2.0,
                 "samples_per_second": 8.0, "elapsed": 1.0})
        for w in (old, new):
            w.run_updated(s.run_id, {"loss", "lr", "grad_norm", "samples_per_second"})
    old.redraw_now()
    new.redraw_now()
    assert (_pixels(new.grid_host) != _pixels(old.grid_host)).sum() == 0


def test_a_recoloured_curve_is_drawn_in_its_new_colour(qtbot, monkeypatch):
    from PySide6.QtGui import QColor

    new = _panel(qtbot, monkeypatch, NEW)
    run = _state("a", 3_000, 0)
    _show(new, [run])
    panel = new.panels["grad_norm"]
    before = _pixels(panel.widget)
    panel._recolor("a", "#ff00ff")
    qtbot.waitUntil(lambda: (_pixels(panel.widget) != before).any())
    img = panel.widget.grab().toImage()
    magenta = QColor("#ff00ff").rgb()
    assert any(img.pixel(x, y) == magenta for x in range(0, img.width(), 2) for y in range(img.height()))


def test_zoom_cache_gives_each_grid_the_points_of_a_fresh_decimator_and_reuses_a_grid_shown_before():
    rng = np.random.default_rng(3)
    x = np.arange(1, 50_001, dtype=np.float64)
    y = rng.normal(size=len(x))
    cache = ZoomCache(levels=2)
    grids = [(0.0, 50_000.0, 500), (49_000.0, 50_000.0, 500), (0.0, 50_000.0, 300)]
    firsts = {}
    for g in grids[:2]:
        firsts[g] = cache.points(x, y, *g)
        want = ColumnDecimator().points(x, y, *g)
        np.testing.assert_array_equal(firsts[g][0], want[0])
        np.testing.assert_array_equal(firsts[g][1], want[1])
    again = cache.points(x, y, *grids[0])
    assert again[0] is firsts[grids[0]][0]             # the same columns: nothing recomputed
    cache.points(x, y, *grids[2])                      # a third grid: the least recently used one goes
    assert cache.points(x, y, *grids[1])[0] is not firsts[grids[1]][0]
    # points appended since a grid was last shown are folded in: the same as one pass over all of them
    x2 = np.arange(1, 50_101, dtype=np.float64)
    y2 = np.concatenate([y, rng.normal(size=100) * 5])
    got = cache.points(x2, y2, *grids[0])
    want = ColumnDecimator().points(x2, y2, *grids[0])
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


def test_a_run_selected_again_reuses_its_columns_and_a_re_read_run_does_not(qtbot, monkeypatch):
    new = _panel(qtbot, monkeypatch, NEW)
    a, b = _state("a", 4_000, 0), _state("b", 3_000, 1)
    _show(new, [a])
    loss = new.panels["loss"]
    data = loss.data["a"]
    drawn = np.asarray(loss.items["a"].yData).copy()
    _show(new, [b])
    assert "a" not in loss.data
    _show(new, [a])
    assert loss.data["a"] is data                            # kept: its columns and smoothing reused
    np.testing.assert_array_equal(np.asarray(loss.items["a"].yData), drawn)
    reread = _state("a", 4_000, 5)                           # the same run id, other objects (re-read)
    _show(new, [reread])
    assert loss.data["a"] is not data
    assert not np.array_equal(np.asarray(loss.items["a"].yData), drawn)


@pytest.mark.parametrize("options, paints", [(CURRENT, 2), (NEW, 1)])
def test_a_refresh_paints_each_plot_once(qtbot, monkeypatch, options, paints):
    from PySide6.QtWidgets import QApplication

    count = count_plot_paints(monkeypatch)   # before the views are made
    w = _panel(qtbot, monkeypatch, options)
    _show(w, [_state("a", 3_000, 0)])
    QApplication.processEvents()
    count.clear()
    _show(w, [_state("b", 2_000, 1)])   # other runs: other ranges in every plot
    QApplication.processEvents()
    per_plot = [count.get(id(w.panels[k].widget), 0) for k in ("loss", "lr", "grad_norm")]
    assert per_plot == [paints] * 3


OLD = {"one_item": True, "lod_cache": False, "paint_once": True, "one_paint": False, "series_cache": False,
       "lean_items": False}   # one item per plot, painted once, without the later savings


def _prepared_state(run_id, n, seed=0, nan_at=None, live=True):
    from explorer.ui.runs.state import RunState

    rng = np.random.default_rng(seed)
    steps = np.arange(1, n + 1, dtype=np.float64)
    s = RunState(run_id=run_id, status="running" if live else "completed", steps_total=2 * n, step=n)
    series = {"loss": 1 + 4 * np.exp(-steps / n) + rng.normal(0, 0.3, n) ** 2,
              "lr": 1e-4 * np.minimum(1.0, steps / 100), "grad_norm": np.abs(rng.normal(3, 1, n)),
              "samples_per_second": 8 + rng.normal(0, 0.5, n)}
    if nan_at is not None:
        series["grad_norm"][nan_at: nan_at + 50] = np.nan   # a gap
        series["loss"][nan_at + 7] = np.inf
    for name, y in series.items():
        s.series[name] = Series()
        s.series[name].extend(steps, y)
    ev = steps[99::100]
    for name, y in {"dev/f1": 20 + 50 * (1 - np.exp(-ev / n)), "dev/exact_match": 10 + 40 * (1 - np.exp(-ev / n))}.items():
        s.series[name] = Series()
        s.series[name].extend(ev, y)
    return prepare_curves(s)


def test_a_panel_draws_the_smoothing_kept_with_the_series_without_computing_it(qtbot, monkeypatch):
    from explorer.ui.curves import plot, plotmath

    w = _panel(qtbot, monkeypatch, dict(plot.DRAW_OPTIONS))
    run = _prepared_state("a", 3_000)
    calls = []
    monkeypatch.setattr(plotmath.IncrementalEMA, "_smooth_new",
                        lambda self, new, wt, orig=plotmath.IncrementalEMA._smooth_new: (calls.append(len(new)),
                                                                                          orig(self, new, wt))[1])
    _show(w, [run])
    assert calls == []
    np.testing.assert_array_equal(w.panels["loss"].data["a"].shown, ema_smooth(run.series["loss"].y, DEFAULT_SMOOTHING))
    w.smooth.setValue(0)                         # no smoothing: the raw values, not the columns smoothed before
    w.redraw_now()
    np.testing.assert_array_equal(np.asarray(w.panels["loss"].items["a"].yData),
                                  np.asarray(w.panels["loss"].raw_items["a"].yData))


def test_the_app_way_draws_the_same_pixels_as_the_way_without_its_savings(qtbot, monkeypatch):
    from explorer.ui.curves import plot

    app_way = dict(plot.DRAW_OPTIONS)
    runs = [_prepared_state("a", 6_000, 0, nan_at=2_000), _prepared_state("b", 4_000, 1), _prepared_state("c", 5_000, 2)]
    old = _panel(qtbot, monkeypatch, OLD)
    _show(old, runs)
    new = _panel(qtbot, monkeypatch, app_way)
    _show(new, runs)
    assert new.panels["loss"].layer.lean and not old.panels["loss"].layer.lean
    assert (_pixels(new.grid_host) != _pixels(old.grid_host)).sum() == 0
    for w in (old, new):   # log y (the points the layer draws are pyqtgraph's log10 mapping), then a live tick
        w.log_box.setChecked(True)
        w.redraw_now()
    assert (_pixels(new.grid_host) != _pixels(old.grid_host)).sum() == 0
    for s in runs:
        s.apply({"event": "step", "step": s.step + 1, "loss": 0.5, "lr": 1e-5, "grad_norm": math.nan,
                 "samples_per_second": 8.0})
        for w in (old, new):
            w.run_updated(s.run_id, {"loss", "lr", "grad_norm", "samples_per_second"})
    old.redraw_now()
    new.redraw_now()
    assert (_pixels(new.grid_host) != _pixels(old.grid_host)).sum() == 0


@pytest.mark.parametrize("one_paint", [False, True])
def test_after_a_new_selection_each_plot_is_painted_once(qtbot, monkeypatch, one_paint):
    """The old way painted the shown plots once in the progress bar's synchronous repaint (before they were
    drawn) and again after each plot scene's queued update: 2-3 paints a plot."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui.curves import plot

    count = count_plot_paints(monkeypatch)   # before the views are made
    w = _panel(qtbot, monkeypatch, dict(plot.DRAW_OPTIONS, one_paint=one_paint), 1400, 1000)
    _show(w, [_prepared_state(f"r{i}", 4_000, i) for i in range(3)])
    QApplication.processEvents()
    _show(w, [])
    QApplication.processEvents()
    count.clear()
    runs = [_prepared_state(f"s{i}", 3_000 + 100 * i, 10 + i) for i in range(3)]   # other runs, other ranges
    runs[0].step = 2_000                                                   # and another progress
    _show(w, runs)
    QApplication.processEvents()
    per_plot = [count.get(id(w.panels[k].widget), 0) for k in w._layout_keys]
    assert len(per_plot) == 6
    if one_paint:
        assert per_plot == [1] * 6
    else:
        assert sum(per_plot) > 6   # what one_paint removes


def test_a_plot_scene_keeps_the_view_rect_so_nothing_asks_every_item_for_its_bounds(qtbot, monkeypatch):
    from explorer.ui.curves import plot

    w = _panel(qtbot, monkeypatch, plot.DRAW_OPTIONS)
    _show(w, [_prepared_state("a", 2_000)])
    view = w.panels["loss"].widget
    assert view.scene().sceneRect() == view.sceneRect() == view.range

"""Issue 30, round 3: the Curves full redraw (each plot painted once; what is known of a series when it is read
kept with it; the points handed to the CurveLayer as they are; lean axes) draws what it drew before, and the
Curves plots are built on first use, not in MainWindow()."""

from __future__ import annotations

import json
import math

import numpy as np
import pyqtgraph as pg
import pytest
from helpers import count_plot_paints, curves_painted_one_by_one, shown_curves_panel
from helpers import widget_pixels as _pixels
from PySide6.QtGui import QPainter, QPicture

from explorer.ui.curves.plotmath import DEFAULT_SMOOTHING, ema_smooth, prepare_curves, smoothed
from explorer.ui.runs.state import Series


def _state(run_id, n, seed=0, nan_at=None, live=True):
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


def _show(w, runs):
    w.set_runs(runs)
    w.redraw_now()


# ---- the series knows what it holds ---------------------------------------------------------------------
def test_a_series_keeps_whether_its_steps_only_grow_and_how_many_values_are_not_finite():
    s = Series(capacity=2)
    for x, y in ((1, 0.5), (2, math.nan), (2, 1.0), (3, math.inf)):
        s.append(x, y)
    assert s.steps_sorted and s.nonfinite == 2
    s.extend(np.array([4.0, 5.0]), np.array([1.0, -np.inf]))
    assert s.steps_sorted and s.nonfinite == 3 and len(s) == 6
    s.extend(np.array([4.5]), np.array([2.0]))                 # goes back across the two appends
    assert not s.steps_sorted
    t = Series()
    t.extend(np.array([1.0, 3.0, 2.0]), np.zeros(3))            # goes back inside one extend
    assert not t.steps_sorted and t.nonfinite == 0
    u = Series()
    u.append(5.0, 1.0)
    u.append(4.0, 1.0)
    assert not u.steps_sorted


def test_the_smoothed_loss_is_computed_where_the_run_is_read_and_kept_with_the_series(tmp_path, monkeypatch):
    from explorer.ui.curves import plotmath
    from explorer.ui.runs.store import load_run_state

    run_dir = tmp_path / "runs" / "r1"
    run_dir.mkdir(parents=True)
    (run_dir / "config.json").write_text(json.dumps({"model": "m", "task": "squad_v1", "run_id": "r1"}))
    lines = [{"event": "started", "run_id": "r1", "time": 1.0, "steps_total": 400}]
    losses = 3.0 + np.sin(np.arange(300))
    lines += [{"event": "step", "run_id": "r1", "time": 1.0 + s, "step": s, "loss": float(losses[s - 1])}
              for s in range(1, 301)]
    (run_dir / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in lines))
    state = load_run_state(run_dir)             # the reader thread's call
    loss = state.series["loss"]
    ema = loss.derived["ema"]
    assert ema.weight == DEFAULT_SMOOTHING
    np.testing.assert_array_equal(ema.out, ema_smooth(loss.y, DEFAULT_SMOOTHING))
    calls = []
    monkeypatch.setattr(plotmath.IncrementalEMA, "_smooth_new",
                        lambda self, new, w, orig=plotmath.IncrementalEMA._smooth_new: (calls.append(len(new)),
                                                                                         orig(self, new, w))[1])
    values, generation = smoothed(loss, DEFAULT_SMOOTHING)
    assert np.shares_memory(values, ema.out) and calls == []    # nothing computed again
    state.apply({"event": "step", "step": 301, "loss": 9.0})
    values, _ = smoothed(loss, DEFAULT_SMOOTHING)
    assert calls == [1]                          # only the new point
    np.testing.assert_array_equal(values, ema_smooth(loss.y, DEFAULT_SMOOTHING))
    values, later = smoothed(loss, 0.9)         # another weight: computed again, a new generation
    assert later != generation and calls[-1] == 301
    np.testing.assert_allclose(values, ema_smooth(loss.y, 0.9), rtol=0, atol=1e-12)


def test_a_panel_draws_the_smoothing_kept_with_the_series_without_computing_it(qtbot, monkeypatch):
    from explorer.ui.curves import plotmath

    w = shown_curves_panel(qtbot, 1000, 800)
    run = _state("a", 3_000)
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


# ---- the same picture ---------------------------------------------------------------------------------------
def test_the_app_way_draws_the_same_pixels_as_curves_painting_themselves(qtbot):
    runs = [_state("a", 6_000, 0, nan_at=2_000), _state("b", 4_000, 1), _state("c", 5_000, 2)]
    old = curves_painted_one_by_one(qtbot)
    _show(old, runs)
    new = shown_curves_panel(qtbot, 1000, 800)
    _show(new, runs)
    assert new.panels["loss"].layer.curves and not old.panels["loss"].layer.curves
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


def test_after_a_new_selection_each_plot_is_painted_once(qtbot, monkeypatch):
    """The old way painted the shown plots once in the progress bar's synchronous repaint (before they were
    drawn) and again after each plot scene's queued update: 2-3 paints a plot."""
    from PySide6.QtWidgets import QApplication

    count = count_plot_paints(monkeypatch)   # before the views are made
    w = shown_curves_panel(qtbot, 1400, 1000)
    _show(w, [_state(f"r{i}", 4_000, i) for i in range(3)])
    QApplication.processEvents()
    _show(w, [])
    QApplication.processEvents()
    count.clear()
    runs = [_state(f"s{i}", 3_000 + 100 * i, 10 + i) for i in range(3)]   # other runs, other ranges
    runs[0].step = 2_000                                                   # and another progress
    _show(w, runs)
    QApplication.processEvents()
    per_plot = [count.get(id(w.panels[k].widget), 0) for k in w.layout_keys]
    assert len(per_plot) == 6
    assert per_plot == [1] * 6


def test_a_plot_scene_keeps_the_view_rect_so_nothing_asks_every_item_for_its_bounds(qtbot):
    w = shown_curves_panel(qtbot, 1000, 800)
    _show(w, [_state("a", 2_000)])
    view = w.panels["loss"].widget
    assert view.scene().sceneRect() == view.sceneRect() == view.range


# ---- axes ---------------------------------------------------------------------------------------------------
def _specs(axis, lean: bool):
    from explorer.ui.curves.axis import _MeasuringPainter

    pic = QPicture()
    p = QPainter(pic)
    try:
        if axis.style["tickFont"]:
            p.setFont(axis.style["tickFont"])
        saved = axis.textWidth, axis.textHeight
        out = axis._lean_specs(_MeasuringPainter(p)) if lean else pg.AxisItem.generateDrawSpecs(axis, p)
        sizes = axis.textWidth, axis.textHeight
        axis.textWidth, axis.textHeight = saved
    finally:
        p.end()
    a, ticks, texts = out
    return ((a[0].color().rgba(), a[1].x(), a[1].y(), a[2].x(), a[2].y()),
            [(pen.color().rgba(), p1.x(), p1.y(), p2.x(), p2.y()) for pen, p1, p2 in ticks],
            [(r.getRect(), int(f), s) for r, f, s in texts], sizes)


def test_lean_axes_give_pyqtgraphs_ticks_and_draw_specs(qtbot):
    from explorer.ui.curves.axis import MeasuredAxis

    rng = np.random.default_rng(0)
    w = pg.PlotWidget(axisItems={"left": MeasuredAxis("left"), "bottom": MeasuredAxis("bottom")})
    w.resize(671, 262)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    vb = w.getPlotItem().getViewBox()
    plain = pg.AxisItem("left")
    for _ in range(60):
        lo = rng.normal() * 10.0 ** rng.integers(-6, 6)
        hi = lo + abs(rng.normal()) * 10.0 ** rng.integers(-6, 7) + 1e-9
        x0 = float(rng.integers(-1_000, 100_000))
        vb.setRange(xRange=(x0, x0 + float(rng.integers(1, 200_000))), yRange=(lo, hi), padding=0)
        for side in ("left", "bottom"):
            axis = w.getPlotItem().getAxis(side)
            size = float(rng.integers(50, 2_000))
            assert axis._tick_values(*axis.range, size) == plain.tickValues(*axis.range, size)
            assert _specs(axis, True) == _specs(axis, False)


def test_a_hidden_axis_takes_the_view_range_when_shown(qtbot):
    from explorer.ui.curves.plot import PlotPanel

    p = PlotPanel("lr")
    qtbot.addWidget(p)
    p.show()
    right = p.plot.getAxis("right")
    assert not right.isVisible()
    p.plot.getViewBox().setRange(xRange=(10, 20), yRange=(3, 4), padding=0)
    assert right.range != [3.0, 4.0]            # not followed while hidden
    p.plot.showAxis("right")
    assert right.range == [3.0, 4.0]


# ---- start-up -----------------------------------------------------------------------------------------------
@pytest.fixture
def no_preview_children(monkeypatch):
    monkeypatch.setattr("explorer.ui.launch.preview.run_preview_process",
                        lambda *_a, **_k: {"ok": True, "records": []})


def test_the_curves_plots_are_built_on_first_use_not_in_the_main_window(qtbot, tmp_path, no_preview_children):
    from PySide6.QtWidgets import QApplication

    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    qtbot.addWidget(w)
    assert not w.curves.plots_built()
    w.tabs.setCurrentWidget(w.curves)
    w.show()                                     # the Curves page shown: built before it is painted
    assert w.curves.plots_built()
    assert "loss" in w.curves.panels and w.curves.grid.indexOf(w.curves.panels["loss"]) >= 0
    other = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s2.ini"), probe_device=False)
    qtbot.addWidget(other)
    other.tabs.setCurrentWidget(other.launcher)
    other.show()
    assert not other.curves.plots_built()
    qtbot.waitExposed(other)
    qtbot.waitUntil(other.curves.plots_built)    # the turn after the window's first paint (prewarm)
    QApplication.processEvents()

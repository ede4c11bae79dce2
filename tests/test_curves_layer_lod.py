"""The Curves redraw: one item per plot (CurveLayer) draws what the curves painting themselves draw, pixel for
pixel, and a refresh paints each plot once."""

from __future__ import annotations

import math

import numpy as np
from helpers import count_plot_paints, curves_painted_one_by_one, shown_curves_panel
from helpers import widget_pixels as _pixels

from explorer.ui.curves.plotmath import DEFAULT_SMOOTHING, ema_smooth, prepare_curves
from explorer.ui.runs.state import Series


def _state(run_id, n, seed=0, nan_at=None, *, live=True, inf_in_gap=False):
    from explorer.ui.runs.state import RunState

    rng = np.random.default_rng(seed)
    steps = np.arange(1, n + 1, dtype=np.float64)
    s = RunState(run_id=run_id, status="running" if live else "completed", steps_total=2 * n, step=n)
    series = {"loss": 1 + 4 * np.exp(-steps / n) + rng.normal(0, 0.3, n) ** 2,
              "lr": 1e-4 * np.minimum(1.0, steps / 100), "grad_norm": np.abs(rng.normal(3, 1, n)),
              "samples_per_second": 8 + rng.normal(0, 0.5, n)}
    if nan_at is not None:
        series["grad_norm"][nan_at: nan_at + 50] = np.nan   # a gap
        if inf_in_gap:
            series["loss"][nan_at + 7] = np.inf
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


def test_one_item_per_plot_draws_the_same_pixels_as_one_item_per_curve(qtbot):
    runs = [_state("a", 6_000, 0, nan_at=2_000), _state("b", 4_000, 1), _state("c", 5_000, 2)]
    old = curves_painted_one_by_one(qtbot)
    _show(old, runs)
    new = shown_curves_panel(qtbot, 1000, 800)
    _show(new, runs)
    assert new.panels["loss"].layer.curves and not old.panels["loss"].layer.curves
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
    # the same runs shown again, then a live tick: still the same
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


def test_a_recoloured_curve_is_drawn_in_its_new_colour(qtbot):
    from PySide6.QtGui import QColor

    new = shown_curves_panel(qtbot, 1000, 800)
    run = _state("a", 3_000, 0)
    _show(new, [run])
    panel = new.panels["grad_norm"]
    before = _pixels(panel.widget)
    panel._recolor("a", "#ff00ff")
    qtbot.waitUntil(lambda: (_pixels(panel.widget) != before).any())
    img = panel.widget.grab().toImage()
    magenta = QColor("#ff00ff").rgb()
    assert any(img.pixel(x, y) == magenta for x in range(0, img.width(), 2) for y in range(img.height()))


def test_a_refresh_paints_each_plot_once(qtbot, monkeypatch):
    from PySide6.QtWidgets import QApplication

    paints = 1
    count = count_plot_paints(monkeypatch)   # before the views are made
    w = shown_curves_panel(qtbot, 1000, 800)
    _show(w, [_state("a", 3_000, 0)])
    QApplication.processEvents()
    count.clear()
    _show(w, [_state("b", 2_000, 1)])   # other runs: other ranges in every plot
    QApplication.processEvents()
    per_plot = [count.get(id(w.panels[k].widget), 0) for k in ("loss", "lr", "grad_norm")]
    assert per_plot == [paints] * 3


def _prepared_state(run_id, n, seed=0, nan_at=None, live=True):
    """_state with an infinite loss inside the gap, its series prepared as the run store prepares them."""
    return prepare_curves(_state(run_id, n, seed, nan_at, live=live, inf_in_gap=True))


def test_a_panel_draws_the_smoothing_kept_with_the_series_without_computing_it(qtbot, monkeypatch):
    from explorer.ui.curves import plotmath

    w = shown_curves_panel(qtbot, 1000, 800)
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


def test_the_app_way_draws_the_same_pixels_as_curves_painting_themselves(qtbot):
    runs = [_prepared_state("a", 6_000, 0, nan_at=2_000), _prepared_state("b", 4_000, 1), _prepared_state("c", 5_000, 2)]
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
    _show(w, [_prepared_state(f"r{i}", 4_000, i) for i in range(3)])
    QApplication.processEvents()
    _show(w, [])
    QApplication.processEvents()
    count.clear()
    runs = [_prepared_state(f"s{i}", 3_000 + 100 * i, 10 + i) for i in range(3)]   # other runs, other ranges
    runs[0].step = 2_000                                                   # and another progress
    _show(w, runs)
    QApplication.processEvents()
    per_plot = [count.get(id(w.panels[k].widget), 0) for k in w.layout_keys]
    assert len(per_plot) == 6
    assert per_plot == [1] * 6


def test_a_plot_scene_keeps_the_view_rect_so_nothing_asks_every_item_for_its_bounds(qtbot):
    w = shown_curves_panel(qtbot, 1000, 800)
    _show(w, [_prepared_state("a", 2_000)])
    view = w.panels["loss"].widget
    assert view.scene().sceneRect() == view.sceneRect() == view.range


def test_grid_lines_are_one_array_a_level_at_the_axes_ticks_drawn_with_one_call_each(qtbot):
    """The grid's major and minor lines are each one array of lines (vertical at the bottom axis' ticks, then
    horizontal at the left axis' ticks, inside the view), drawn with one drawLines a level: no QLineF made per
    line."""
    from PySide6.QtGui import QImage, QPainter

    from explorer.ui.curves.grid import axis_ticks

    w = shown_curves_panel(qtbot, 1000, 800)
    _show(w, [_prepared_state("a", 6_000, 0)])
    grid = w.panels["loss"].grid_lines
    rect = grid.vb.viewRect()
    want = [[], []]
    for name in ("bottom", "left"):
        for level, (_spacing, values) in enumerate(axis_ticks(grid.plot.getAxis(name))[:2]):
            if name == "bottom":
                want[level] += [(v, rect.top(), v, rect.bottom()) for v in values if rect.left() <= v <= rect.right()]
            else:
                want[level] += [(rect.left(), v, rect.right(), v) for v in values if rect.top() <= v <= rect.bottom()]
    got = grid.lines()
    assert [[tuple(row) for row in level.ndarray().tolist()] for level in got] == want and want[0] and want[1]
    calls = []

    class Counting(QPainter):
        def drawLines(self, *args):  # noqa: N802 - Qt API
            calls.append(args)
            return super().drawLines(*args)

    image = QImage(100, 100, QImage.Format.Format_ARGB32)
    p = Counting(image)
    try:
        grid.paint(p)
    finally:
        p.end()
    assert len(calls) == 2

"""MeasuredAxis (explorer/ui/curves/axis.py): the same tick labels in the same places as pyqtgraph's own
axis, with the measuring cached; the caches follow range, size and log mode changes; the lean draw specs equal
pyqtgraph's, and a hidden axis takes the view range when shown."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtGui import QPainter, QPicture


def _per_tick(ticks):
    """pyqtgraph's (pen, start, end) per tick, also from MeasuredAxis' lean specs (one TickLevel per level)."""
    from explorer.ui.curves.axis import TickLevel

    return [spec for level in ticks for spec in level.as_pyqtgraph()] if ticks and isinstance(ticks[0], TickLevel) \
        else ticks


def _specs(axis):
    pic = QPicture()
    p = QPainter(pic)
    try:
        if axis.style["tickFont"]:
            p.setFont(axis.style["tickFont"])
        axis_spec, ticks, texts = axis.generateDrawSpecs(p)
    finally:
        p.end()
    ticks = _per_tick(ticks)
    return ([(a.x(), a.y(), b.x(), b.y()) for _pen, a, b in ticks],
            [(r.getRect(), int(f), t) for r, f, t in texts])


@pytest.fixture
def pair(qtbot):
    from explorer.ui.curves.axis import MeasuredAxis

    widgets = []
    for axes in ({}, {"left": MeasuredAxis("left"), "bottom": MeasuredAxis("bottom")}):
        w = pg.PlotWidget(axisItems=axes or None)
        w.resize(640, 260)
        qtbot.addWidget(w)
        w.show()
        widgets.append(w)
    for w in widgets:
        qtbot.waitExposed(w)
    _settle(widgets)
    return widgets


def _settle(widgets):
    """Paint and lay out until the axes have their final widths (an axis resizes for its labels after a
    paint, and the layout follows in the event loop)."""
    from PySide6.QtWidgets import QApplication

    for _ in range(3):
        for w in widgets:
            w.grab()
        QApplication.processEvents()


@pytest.mark.parametrize("log", [False, True])
def test_same_labels_in_the_same_places_as_pyqtgraph(pair, qtbot, log):
    from explorer.ui.curves.axis import MeasuredAxis

    plain, measured = pair
    assert isinstance(measured.getPlotItem().getAxis("bottom"), MeasuredAxis)
    ranges = [((0, 101_000), (0.5, 5.2)), ((0, 1_000), (1e-6, 1e-4)), ((0, 101_000), (0.5, 5.2)),
              ((250, 2_750), (-3, 40))]
    if log:   # log10 units
        ranges = [((0, 101_000), (-0.3, 0.7)), ((0, 1_000), (-6, -4)), ((0, 101_000), (-0.3, 0.7)),
                  ((250, 2_750), (0.0, 1.6))]
    seen = set()
    for xr, yr in ranges:
        for w in pair:
            w.getPlotItem().setLogMode(False, log)
            w.getPlotItem().getViewBox().setRange(xRange=xr, yRange=yr, padding=0)
        _settle(pair)
        for name in ("bottom", "left"):
            want = _specs(plain.getPlotItem().getAxis(name))
            got = _specs(measured.getPlotItem().getAxis(name))
            assert got == want and want[1]                     # labels there, identical
            seen.add((name, tuple(t for *_, t in got[1])))
    assert len(seen) >= 5                                     # the labels did change with the range


def test_tick_values_follow_the_range_size_and_log_mode(pair):
    axis = pair[1].getPlotItem().getAxis("left")
    plain = pair[0].getPlotItem().getAxis("left")
    a = axis.tickValues(0.0, 10.0, 200)
    assert a == plain.tickValues(0.0, 10.0, 200)
    assert axis.tickValues(0.0, 10.0, 200) == a                # cached
    a[0][1].append(99.0)                                       # a caller's change does not leak in
    assert axis.tickValues(0.0, 10.0, 200) == plain.tickValues(0.0, 10.0, 200)
    assert axis.tickValues(0.0, 100.0, 200) == plain.tickValues(0.0, 100.0, 200) != a
    assert axis.tickValues(0.0, 100.0, 600) == plain.tickValues(0.0, 100.0, 600)
    for ax in (axis, plain):
        ax.setLogMode(False, True)
    assert axis.tickValues(-3.0, 1.0, 200) == plain.tickValues(-3.0, 1.0, 200)


def _pixels(widget):
    """The widget's pixels once its axes have settled (an axis widens for longer labels after a paint)."""
    _settle([widget])
    img = widget.grab().toImage()
    return bytes(img.constBits())[: img.sizeInBytes()], img.size()


def test_an_axis_drawn_from_shared_specs_has_the_same_pixels(pair, qtbot):
    """Direct drawing of (shared) specs instead of pyqtgraph's recorded picture: not one pixel differs,
    also for the second plot of the same range and size, whose axes reuse the first one's specs."""
    from explorer.ui.curves import axis as plot_axis
    from explorer.ui.curves.axis import MeasuredAxis

    plain, measured = pair
    twin = pg.PlotWidget(axisItems={"left": MeasuredAxis("left"), "bottom": MeasuredAxis("bottom")})
    twin.resize(640, 260)
    qtbot.addWidget(twin)
    twin.show()
    qtbot.waitExposed(twin)
    plot_axis._SPECS.clear()
    for xr, yr in (((0, 101_000), (0.5, 5.2)), ((250, 2_750), (-3, 40))):
        for w in (plain, measured, twin):
            w.getPlotItem().getViewBox().setRange(xRange=xr, yRange=yr, padding=0)
        want = _pixels(plain)
        assert _pixels(measured) == want
        assert _pixels(twin) == want
    calls = []                                              # the twin's axes, redrawn: nothing computed
    for name in ("left", "bottom"):
        ax = twin.getPlotItem().getAxis(name)
        real = ax.generateDrawSpecs
        ax.generateDrawSpecs = lambda p, real=real: (calls.append(1), real(p))[1]
        ax.picture = None
    assert _pixels(twin) == want and calls == []


def _lean_or_plain_specs(axis, lean: bool):
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
    ticks = _per_tick(ticks)
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
            assert _lean_or_plain_specs(axis, True) == _lean_or_plain_specs(axis, False)


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


def test_a_label_measured_before_is_laid_out_without_being_measured_again(pair):
    """A tick label's size is kept per font and text as two numbers: laying out a new range whose labels were all
    measured before asks the measuring painter for no bounding rect (and gives pyqtgraph's specs)."""
    from explorer.ui.curves import axis as plot_axis

    measured = pair[1].getPlotItem()
    for yr in ((0.5, 5.2), (0.4, 5.3)):   # the second range: other tick positions, the same label texts
        measured.getViewBox().setRange(xRange=(0, 101_000), yRange=yr, padding=0)
        _settle([pair[1]])
        axis = measured.getAxis("left")
        asked = []
        real = plot_axis._MeasuringPainter.boundingRect
        plot_axis._MeasuringPainter.boundingRect = lambda self, *a: (asked.append(a[-1]), real(self, *a))[1]
        try:
            _lean_or_plain_specs(axis, True)
        finally:
            plot_axis._MeasuringPainter.boundingRect = real
    assert asked == []
    assert _lean_or_plain_specs(axis, True) == _lean_or_plain_specs(axis, False)

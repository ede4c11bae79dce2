"""MeasuredAxis (explorer/ui/curves/axis.py): the same tick labels in the same places as pyqtgraph's own
axis, with the measuring cached; the caches follow range, size and log mode changes."""

from __future__ import annotations

import pyqtgraph as pg
import pytest
from PySide6.QtGui import QPainter, QPicture


def _specs(axis):
    pic = QPicture()
    p = QPainter(pic)
    try:
        if axis.style["tickFont"]:
            p.setFont(axis.style["tickFont"])
        axis_spec, ticks, texts = axis.generateDrawSpecs(p)
    finally:
        p.end()
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

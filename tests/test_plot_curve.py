"""FastCurve.set_points (explorer/ui/curves/items.py) shows what PlotDataItem.setData shows: the same
points handed to the curve item, the same pen, gaps and log mapping; style changes still reach it."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtGui import QColor


def _curve_state(item):
    """What the item shows: its data, the points and path its curve item draws, pen, visibility."""
    x, y = item.getData()
    cx, cy = item.curve.getData()
    path = item.curve.getPath()
    elements = [(e.x, e.y, int(e.type.value)) for e in (path.elementAt(i) for i in range(path.elementCount()))]
    return (np.asarray(x).tolist(), np.asarray(y).tolist(), np.asarray(cx).tolist(), np.asarray(cy).tolist(),
            item.curve.opts["pen"].color().name(QColor.NameFormat.HexArgb), elements, item.curve.isVisible())


def _same(a, b):
    """Equal, NaN included."""
    assert len(a) == len(b)
    for u, v in zip(a, b):
        if isinstance(u, list):
            np.testing.assert_array_equal(np.asarray(u, dtype=float), np.asarray(v, dtype=float))
        else:
            assert u == v


@pytest.fixture
def plot(qtbot):
    w = pg.PlotWidget()
    w.resize(400, 200)
    qtbot.addWidget(w)
    w.show()
    yield w.getPlotItem()
    del w


@pytest.mark.parametrize("log", [False, True])
def test_set_points_shows_what_set_data_shows(plot, log):
    from explorer.ui.curves.items import FastCurve

    plot.setLogMode(False, log)
    fast = FastCurve(pen=pg.mkPen("#0072B2"), connect="finite")
    ref = pg.PlotDataItem(pen=pg.mkPen("#0072B2"), connect="finite")
    for item in (fast, ref):
        plot.addItem(item)
    rng = np.random.default_rng(0)
    for k in range(4):
        x = np.arange(1.0, 200.0 + 50 * k)
        y = np.abs(rng.normal(2.0, 1.0, len(x))) + 0.1
        if k == 2:
            y[[5, 6, 40]] = math.nan                      # gaps
        if k == 3 and log:
            y[7] = 0.0                                    # log10(0): a gap too
        finite = not np.isnan(y).any()
        fast.set_points(x, y, finite)
        ref.setData(x, y, skipFiniteCheck=finite)
        _same(_curve_state(fast), _curve_state(ref))
        fresh = pg.PlotCurveItem(*ref.curve.getData(), pen=ref.curve.opts["pen"])   # nothing cached
        for ax in (0, 1):
            np.testing.assert_array_equal(fast.curve.dataBounds(ax), fresh.dataBounds(ax))
        if k == 1:
            for item in (fast, ref):                      # a style change after points: it reaches the curve
                item.setPen(pg.mkPen("#D55E00", width=1))
    assert _curve_state(fast)[4] == QColor("#D55E00").name(QColor.NameFormat.HexArgb)
    assert fast.curve.opts["connect"] == ("finite" if log else "all")   # finite points: one polygon
    for item in (fast, ref):                              # emptied (a retired item), recoloured, refilled
        item.setData([], [])
        item.setPen(pg.mkPen("#009E73"))
    fast.set_points(np.arange(3.0), np.ones(3), True)
    ref.setData(np.arange(3.0), np.ones(3), skipFiniteCheck=True)
    _same(_curve_state(fast), _curve_state(ref))
    assert _curve_state(fast)[4] == QColor("#009E73").name(QColor.NameFormat.HexArgb)


def test_the_view_bounds_follow_the_new_points(plot):
    from explorer.ui.curves.items import FastCurve

    item = FastCurve(pen="r", connect="finite")
    plot.addItem(item)
    item.set_points(np.arange(10.0), np.arange(10.0), True)
    item.set_points(np.arange(10.0), np.arange(10.0) * 5, True)
    assert item.dataBounds(1) == (0.0, 45.0)
    assert item.curve.boundingRect().bottom() >= 45.0


def test_dots_have_the_pixels_of_pyqtgraphs_symbols(qtbot):
    """Dev dots (one drawPixmapFragments call) look exactly like PlotDataItem's symbol="o" dots."""
    from explorer.ui.curves.items import FastCurve

    x = np.arange(1.0, 40.0) * 1000
    y = 20 + 50 * (1 - np.exp(-x / 9000))
    y[7] = math.nan                                          # no dot where there is no value
    images = []
    for make in (lambda: FastCurve(pen=pg.mkPen("#009E73"), connect="finite", dots=QColor("#009E73")),
                 lambda: pg.PlotDataItem(pen=pg.mkPen("#009E73"), connect="finite", symbol="o", symbolSize=5,
                                         symbolBrush=QColor("#009E73"), symbolPen=None)):
        w = pg.PlotWidget()
        w.resize(500, 260)
        qtbot.addWidget(w)
        w.show()
        qtbot.waitExposed(w)
        item = make()
        w.getPlotItem().addItem(item)
        if isinstance(item, FastCurve):
            item.set_points(x, y, False)
        else:
            item.setData(x, y)
        w.getPlotItem().getViewBox().setRange(xRange=(0, 40_000), yRange=(15, 75), padding=0)
        img = w.grab().toImage()
        images.append(bytes(img.constBits())[: img.sizeInBytes()])
    assert images[0] == images[1]


def test_a_view_change_reads_no_qt_flags_of_a_curve_its_layer_paints(plot):
    """A view change makes a curve that paints itself announce its new bounding rect (Qt then asks for it); the
    line of a curve its CurveLayer paints announces nothing, told so by a plain flag, not Qt's item flags (read for
    every curve at every view change)."""
    from explorer.ui.curves.items import CurveLayer, FastCurve

    own, taken = FastCurve(pen="r"), FastCurve(pen="b")
    layer = CurveLayer(plot.getViewBox())
    plot.addItem(layer, ignoreBounds=True)
    for item in (own, taken):
        plot.addItem(item)
    assert layer.add(taken)
    calls, flags_read = [], []
    for item in (own, taken):
        item.curve.prepareGeometryChange = lambda item=item: calls.append(item)
        real = item.curve.flags
        item.curve.flags = lambda item=item, real=real: (flags_read.append(item), real())[1]
        item.curve.viewTransformChanged()
    assert calls == [own]
    assert taken not in flags_read

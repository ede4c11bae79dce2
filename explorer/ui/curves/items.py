"""Curve items whose points are replaced for less (the Curves panel's decimated curves and dev dots).

``PlotDataItem.setData`` re-reads its arguments' types and then re-applies every style option (pen,
shadow pen, fill, brush, antialias, connect, step mode) to its curve item, copying the pen each time,
even when only the points changed. The Curves panel replaces the points of 20-30 curves per full redraw
and of several per live tick, with the style fixed, so :meth:`FastCurve.set_points` hands the new points
to the curve item alone. Everything else (log mode, getData, xData) is pyqtgraph's own.

A dev metric's evaluations are marked with dots (:class:`Dots`: pyqtgraph's "o" symbol stamped with one
``drawPixmapFragments`` call) instead of a ScatterPlotItem, whose per-point records, atlas and bounds cost
16% of a full redraw (py-spy) for 8 curves of 100 points.

:class:`CurveLayer` draws every curve of one plot in one paint (one item for Qt to index, bound and
transform instead of one per curve); the curves it draws keep their data, pens and visibility but paint
nothing themselves. The layer also takes their points straight from :meth:`FastCurve.set_points`:
pyqtgraph's curve item then neither re-checks the arrays nor announces a new geometry, which made Qt ask
it for its bounding rect (data bounds and pixel padding). (Stroking an all-finite curve with
``drawPolyline`` instead of pyqtgraph's path of the same polygon saved nothing measurable and moved a few
hundred pixels of a 100k-step picture: not done.)
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QPainter, QPixmap
from PySide6.QtWidgets import QGraphicsItem

try:   # pyqtgraph >= 0.13: the container PlotDataItem keeps its data in
    from pyqtgraph.graphicsItems.PlotDataItem import PlotDataset
except ImportError:  # pragma: no cover - older pyqtgraph: set_points falls back to setData
    PlotDataset = None


class Dots(pg.GraphicsObject):
    """Round dots ``size`` device pixels across at the finite points given to :meth:`set_points`
    (a child of the curve they mark: shown and hidden with it): filled, or hollow (a ring in the colour around
    white) where :meth:`set_points` is told so (an evaluation on a dev sample, beside filled ones on every dev
    row: explorer.ui.runs.eval_rows). The dot is pyqtgraph's own "o" symbol picture (``renderSymbol``,
    antialiased), stamped at each point with one ``drawPixmapFragments`` call per kind, as ScatterPlotItem draws
    it; only its per-point bookkeeping is left out."""

    def __init__(self, color, size: float = 5.0, parent=None):
        super().__init__(parent)
        self.size = size
        self.x = self.y = np.empty(0)
        self.hollow: np.ndarray | None = None   # per point of x: drawn as a ring (None: every dot filled)
        self._rect = QRectF()
        self._frags = pg.Qt.internals.PrimitiveArray(QPainter.PixmapFragment, 10)
        self.set_color(color)

    def set_color(self, color) -> None:
        from pyqtgraph.graphicsItems.ScatterPlotItem import renderSymbol

        image = renderSymbol("o", self.size, pg.mkPen(None), pg.mkBrush(QColor(color)))
        self.pixmap = QPixmap.fromImage(image)
        ring = renderSymbol("o", self.size + 2, pg.mkPen(QColor(color), width=1.5), pg.mkBrush("#ffffff"))
        self.hollow_pixmap = QPixmap.fromImage(ring)
        self.update()

    def set_points(self, x: np.ndarray, y: np.ndarray, hollow: np.ndarray | None = None) -> None:
        """x, y: shape (n,) (y NaN where there is no value: no dot there); ``hollow``: shape (n,) bools, True where
        the dot is a ring (None: all filled)."""
        keep = np.isfinite(x) & np.isfinite(y)
        self.x, self.y = np.array(x[keep], dtype=np.float64), np.array(y[keep], dtype=np.float64)
        self.hollow = None if hollow is None or not hollow[keep].any() else np.array(hollow[keep], dtype=bool)
        self.prepareGeometryChange()
        if len(self.x):
            lo_x, hi_x = float(self.x.min()), float(self.x.max())
            lo_y, hi_y = float(self.y.min()), float(self.y.max())
            # Never an empty rect (one dot, a flat metric): Qt would not paint the item at all.
            pad_x = (hi_x - lo_x) * 0.01 or 1e-9 * max(abs(hi_x), 1.0)
            pad_y = (hi_y - lo_y) * 0.01 or 1e-9 * max(abs(hi_y), 1.0)
            self._rect = QRectF(lo_x - pad_x, lo_y - pad_y, hi_x - lo_x + 2 * pad_x, hi_y - lo_y + 2 * pad_y)
        else:
            self._rect = QRectF()
        self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt API
        return self._rect

    def paint(self, p, *_args) -> None:
        n = len(self.x)
        if not n:
            return
        pts = np.clip(pg.functions.transformCoordinates(p.transform(), np.vstack([self.x, self.y])), -2 ** 30, 2 ** 30)
        p.resetTransform()
        if self.hollow is None:
            self._stamp(p, pts, self.pixmap)
            return
        self._stamp(p, pts[:, ~self.hollow], self.pixmap)
        self._stamp(p, pts[:, self.hollow], self.hollow_pixmap)

    def _stamp(self, p, pts: np.ndarray, pixmap: QPixmap) -> None:
        """Draw ``pixmap`` centred on each of ``pts`` (shape (2, n), device pixels) with one call."""
        n = pts.shape[1]
        if not n:
            return
        self._frags.resize(n)
        frags = self._frags.ndarray()
        frags[:, 0:2] = pts.T   # device pixels (centres)
        frags[:, 2:6] = [0, 0, pixmap.width(), pixmap.height()]
        frags[:, 6:10] = [1.0, 1.0, 0.0, 1.0]   # scale x, y, rotation, opacity
        p.drawPixmapFragments(*self._frags.drawargs(), pixmap)


class _BoundsKeepingCurve(pg.PlotCurveItem):
    """pyqtgraph's curve item, except that a change of the view (range, size) keeps its data bounds:
    they depend on the points and pens alone (setData / setPen clear them), only the pixel padding
    around them depends on the view. pyqtgraph recomputes both on every range change."""

    layer_drawn = False   # its CurveLayer paints it (CurveLayer.add gave it ItemHasNoContents); read per view change

    def viewTransformChanged(self):  # noqa: N802 - pyqtgraph API
        self._boundingRect = None
        if not self.layer_drawn:   # a plain flag: Qt's item flags cost a call and two Python enums per curve
            # announced only for a curve that paints itself: Qt asks for the new bounding rect at once
            # (pyqtgraph's data bounds and pixel padding), which a curve drawn by its CurveLayer never needs
            self.prepareGeometryChange()

    def seed_bounds(self) -> None:
        """Fill pyqtgraph's data-bounds cache for the whole data range (what ``dataBounds(ax)`` returns:
        min and max ignoring NaN; no pen widening for a cosmetic pen) with two NaN-ignoring reductions,
        instead of its nanmin / nanmax under a warnings filter, asked from Qt's bounding-rect calls."""
        pen, spen = self.opts["pen"], self.opts["shadowPen"]
        if (self.xData is None or not len(self.xData) or self.opts["fillLevel"] is not None
                or self.opts["stepMode"] or (pen is not None and not pen.isCosmetic())
                or (spen is not None and not spen.isCosmetic())):
            return
        for ax, d in enumerate((self.xData, self.yData)):
            lo, hi = float(np.fmin.reduce(d)), float(np.fmax.reduce(d))
            if math.isinf(lo) or math.isinf(hi):
                return   # pyqtgraph drops infinities first: leave it to dataBounds
            self._boundsCache[ax] = [(1.0, None), (lo, hi)]


class CurveLayer(pg.GraphicsObject):
    """Draws the line of every :class:`FastCurve` given to :meth:`add` in one paint, in the order of
    their z values (then of adding), with each curve's own path and pen: the same strokes pyqtgraph's
    curve items draw one item at a time. Its bounding rect is the view's (``vb``: the plot's ViewBox);
    the curves' line items (and dots, drawn right after their line) get ``ItemHasNoContents`` (Qt
    neither bounds nor paints them). Only plain
    lines are taken over (no fill, shadow pen, step mode, or pen wider than 1 px); :meth:`add` returns
    False for any other curve, which then paints itself."""

    def __init__(self, vb, parent=None):
        super().__init__(parent)
        self.vb = vb
        self.curves: list[FastCurve] = []
        vb.sigRangeChanged.connect(self._view_changed)
        vb.sigResized.connect(self._view_changed)

    def add(self, curve: "FastCurve") -> bool:
        """Take over the drawing of ``curve``'s line (True), or leave it to the curve (False)."""
        c = curve.curve
        pen = c.opts["pen"]
        if (c.opts["fillLevel"] is not None or c.opts["shadowPen"] is not None or c.opts["stepMode"]
                or pen is None or pen.widthF() > 1.0 or c.opts["compositionMode"] is not None):
            return False
        c.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents, True)
        c.layer_drawn = True
        if curve.dots is not None:   # drawn right after its line, as the curve's child was: the same stacking
            curve.dots.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents, True)
        curve.layer = self
        self.curves.append(curve)
        self.update()
        return True

    def _view_changed(self, *_args) -> None:
        self.prepareGeometryChange()
        self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt API
        return self.vb.viewRect()

    def paint(self, p, *_args) -> None:
        order = sorted(range(len(self.curves)), key=lambda k: self.curves[k].zValue())
        for k in order:
            item = self.curves[k]
            c = item.curve
            if not item.isVisible() or not c.isVisible() or c.xData is None or not len(c.xData):
                continue
            pen = c.opts["pen"]
            if pen.style() != pg.QtCore.Qt.PenStyle.NoPen:
                p.setRenderHint(QPainter.RenderHint.Antialiasing, bool(c.opts["antialias"]))
                p.setPen(pen)
                p.drawPath(c.getPath())
            if item.dots is not None and len(item.dots.x):
                p.save()
                item.dots.paint(p)
                p.restore()


class FastCurve(pg.PlotDataItem):
    """A ``PlotDataItem`` with :meth:`set_points` for data-only updates, and optional :class:`Dots` on
    its points (``dots=color``). Its line is drawn by its plot's :class:`CurveLayer` once one took it
    (``layer``), else by its own curve item."""

    _styled = False   # the curve item holds this item's style (a setData with points has run since)
    layer: "CurveLayer | None" = None

    def __init__(self, *args, dots=None, **kwargs):
        super().__init__(*args, **kwargs)
        if self._dataset is None:   # no points yet, so no style on the curve: swap in the lean one
            old = self.curve
            old.sigClicked.disconnect(self.sigClicked)
            old.setParentItem(None)
            self.curve = _BoundsKeepingCurve()
            self.curve.setParentItem(self)
            self.curve.stackBefore(self.scatter)
            self.curve.sigClicked.connect(self.sigClicked)
        self.dots = Dots(dots, parent=self) if dots is not None else None

    def _redraw_layer(self) -> None:
        if self.layer is not None:
            self.layer.update()

    def itemChange(self, change, value):  # noqa: N802 - Qt API
        if change == QGraphicsItem.GraphicsItemChange.ItemVisibleHasChanged:
            self._redraw_layer()
        return super().itemChange(change, value)

    def setData(self, *args, **kwargs):  # noqa: N802 - pyqtgraph API
        super().setData(*args, **kwargs)
        self._redraw_layer()

    def setPen(self, *args, **kwargs):  # noqa: N802 - pyqtgraph API
        super().setPen(*args, **kwargs)
        self._redraw_layer()

    def updateItems(self, styleUpdate: bool = True):  # noqa: N802 - pyqtgraph API
        super().updateItems(styleUpdate)
        self._styled = getattr(self, "_dataset", None) is not None   # without points pyqtgraph passes no style on

    def set_points(self, x: np.ndarray, y: np.ndarray, all_finite: bool, hollow: np.ndarray | None = None) -> None:
        """Show points (x, y): float64 arrays of shape (n,), x finite, y NaN where not finite
        (``all_finite``: y has no NaN); ``hollow``: which of them its dots draw as rings (Dots.set_points).
        The same result as ``setData(x, y, skipFiniteCheck=all_finite)`` for an item with a pen and no symbols;
        otherwise (or when empty) that is what runs."""
        if self.dots is not None:
            self.dots.set_points(x, y, hollow)
        if PlotDataset is None or not len(x) or self.opts["symbol"] is not None or not self._styled:
            self.setData(x, y, skipFiniteCheck=all_finite)
            return
        self.opts["skipFiniteCheck"] = all_finite
        self._dataset = PlotDataset(x, y, True, all_finite)
        self._datasetMapped = None
        self._datasetDisplay = None
        shown = self._getDisplayDataset()   # log mapping, when the plot is in log mode
        # connect="all" where every point is finite: pyqtgraph then builds the path as one polygon
        # instead of splitting it at the (absent) gaps: the same path for less
        finite = all_finite and shown.yAllFinite is not False
        connect = "all" if finite else self.opts["connect"]
        if self.layer is not None:   # the layer paints it: the points as they are, no checks
            self._hand_over(shown.x, shown.y, all_finite, connect)
        else:
            self.curve.setData(x=shown.x, y=shown.y, skipFiniteCheck=all_finite, connect=connect)
            self.curve.seed_bounds()
        self.curve.show()
        self.informViewBoundsChanged()
        self.sigPlotChanged.emit(self)
        self._redraw_layer()

    def _hand_over(self, x: np.ndarray, y: np.ndarray, all_finite: bool, connect: str) -> None:
        """What ``curve.setData(x=x, y=y, skipFiniteCheck=all_finite, connect=connect)`` leaves in the curve
        item that its layer and pyqtgraph's queries (getData, dataBounds, getPath) read, without its checks,
        geometry change and signals: the layer paints it (the item has no contents for Qt)."""
        c = self.curve
        c.xData, c.yData = x.view(np.ndarray), y.view(np.ndarray)
        c.opts["connect"], c.opts["skipFiniteCheck"] = connect, all_finite
        c.path = c.fillPath = c._fillPathList = c._mouseShape = None
        c._lineSegmentsRendered = False
        c.invalidateBounds()
        c._boundingRect = None

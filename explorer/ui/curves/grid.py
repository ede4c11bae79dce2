"""Grid lines for a pyqtgraph plot that cost next to nothing to paint.

``PlotItem.showGrid`` makes each axis draw its grid lines into the axis' cached QPicture, which is
replayed over the whole view on every repaint: 2.5-3.5 ms per axis offscreen on a 2-core CPU, the
largest single cost of a Curves repaint (7 plots: ~45 ms of a ~90 ms render). :class:`GridLines` is
one item in the view box that draws the same lines (at the axes' own tick positions, log axes
included) with opaque cosmetic pens: well under 0.1 ms to paint.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QLineF, QRectF
from PySide6.QtGui import QColor, QPen

MAJOR = "#dcdcdc"   # black at ~14% on white, opaque (no blending)
MINOR = "#efefef"


def axis_ticks(axis: pg.AxisItem) -> list[tuple[float, list[float]]]:
    """The tick levels ``axis`` draws for its current range: ``tickValues`` asked exactly as
    ``AxisItem.generateDrawSpecs`` asks it (the axis' range, its length in pixels: the axis line runs
    one pixel past each end), so an axis that caches its tick values (explorer.ui.curves.axis) answers
    both from one computation."""
    geo = axis.geometry()
    length = (geo.width() if axis.orientation in ("top", "bottom") else geo.height()) + 2.0
    return axis.tickValues(axis.range[0], axis.range[1], length)


def _pen(color: str) -> QPen:
    pen = QPen(QColor(color))
    pen.setCosmetic(True)
    pen.setWidth(1)
    return pen


class GridLines(pg.GraphicsObject):
    """Vertical and horizontal lines at the bottom / left axes' tick values (two levels), behind the
    curves of ``plot`` (a PlotItem). Follows the view range and the plot size."""

    def __init__(self, plot: pg.PlotItem):
        super().__init__()
        self.plot = plot
        self.vb = plot.getViewBox()
        self.pens = (_pen(MAJOR), _pen(MINOR))
        self._key = None
        self._lines: list[list[QLineF]] = [[], []]
        self.setZValue(-100)
        plot.addItem(self, ignoreBounds=True)
        self.vb.sigRangeChanged.connect(self._changed)
        self.vb.sigResized.connect(self._changed)

    def _changed(self, *_args) -> None:
        self.prepareGeometryChange()
        self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt API
        return self.vb.viewRect()

    def lines(self) -> list[list[QLineF]]:
        """[major lines, minor lines] in view coordinates for the current range (cached: a repaint of
        new curve points in the same range reuses them)."""
        rect = self.vb.viewRect()
        size = self.vb.size()
        key = (rect.getRect(), size.width(), size.height(), self.plot.getAxis("left").logMode,
               tuple(self.plot.getAxis("bottom").range), tuple(self.plot.getAxis("left").range))
        if key != self._key:
            self._key, self._lines = key, self._compute(rect)
        return self._lines

    def _compute(self, rect: QRectF) -> list[list[QLineF]]:
        out: list[list[QLineF]] = [[], []]
        if rect.width() <= 0 or rect.height() <= 0:
            return out
        left, right, top, bottom = rect.left(), rect.right(), rect.top(), rect.bottom()   # read once, not per line
        for name in ("bottom", "left"):
            axis = self.plot.getAxis(name)
            for level, (_spacing, values) in enumerate(axis_ticks(axis)[:2]):
                if name == "bottom":
                    out[level] += [QLineF(v, top, v, bottom) for v in values if left <= v <= right]
                else:
                    out[level] += [QLineF(left, v, right, v) for v in values if top <= v <= bottom]
        return out

    def paint(self, p, *_args) -> None:
        major, minor = self.lines()
        for pen, lines in ((self.pens[1], minor), (self.pens[0], major)):
            if lines:
                p.setPen(pen)
                p.drawLines(lines)

"""Grid lines for a pyqtgraph plot that cost next to nothing to paint.

``PlotItem.showGrid`` makes each axis draw its grid lines into the axis' cached QPicture, which is
replayed over the whole view on every repaint: 2.5-3.5 ms per axis offscreen on a 2-core CPU, the
largest single cost of a Curves repaint (7 plots: ~45 ms of a ~90 ms render). :class:`GridLines` is
one item in the view box that draws the same lines (at the axes' own tick positions, log axes
included) with opaque cosmetic pens: well under 0.1 ms to paint. Each level's lines are one array (a
pyqtgraph PrimitiveArray of QLineF, filled by numpy) drawn with one ``drawLines``, not a QLineF made per line
and a Python list converted at each paint.
"""

from __future__ import annotations

import numpy as np
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
        self._lines: list = [_line_array(np.empty((0, 4))), _line_array(np.empty((0, 4)))]
        self.setZValue(-100)
        plot.addItem(self, ignoreBounds=True)
        self.vb.sigRangeChanged.connect(self._changed)
        self.vb.sigResized.connect(self._changed)

    def _changed(self, *_args) -> None:
        self.prepareGeometryChange()
        self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt API
        return self.vb.viewRect()

    def lines(self) -> list:
        """[major lines, minor lines] in view coordinates for the current range, each a PrimitiveArray of QLineF
        (``ndarray()``: one row x1, y1, x2, y2 a line; vertical lines first, then horizontal ones, each in tick
        order), cached: a repaint of new curve points in the same range reuses them."""
        rect = self.vb.viewRect()
        size = self.vb.size()
        key = (rect.getRect(), size.width(), size.height(), self.plot.getAxis("left").logMode,
               tuple(self.plot.getAxis("bottom").range), tuple(self.plot.getAxis("left").range))
        if key != self._key:
            self._key, self._lines = key, self._compute(rect)
        return self._lines

    def _compute(self, rect: QRectF) -> list:
        rows: list[list[np.ndarray]] = [[], []]
        if rect.width() > 0 and rect.height() > 0:
            left, right, top, bottom = rect.left(), rect.right(), rect.top(), rect.bottom()   # read once
            for name in ("bottom", "left"):
                axis = self.plot.getAxis(name)
                for level, (_spacing, values) in enumerate(axis_ticks(axis)[:2]):
                    v = np.asarray(values, dtype=np.float64)
                    if name == "bottom":
                        v = v[(left <= v) & (v <= right)]
                        block = np.empty((len(v), 4))
                        block[:, 0], block[:, 1], block[:, 2], block[:, 3] = v, top, v, bottom
                    else:
                        v = v[(top <= v) & (v <= bottom)]
                        block = np.empty((len(v), 4))
                        block[:, 0], block[:, 1], block[:, 2], block[:, 3] = left, v, right, v
                    rows[level].append(block)
        return [_line_array(np.concatenate(r) if r else np.empty((0, 4))) for r in rows]

    def paint(self, p, *_args) -> None:
        major, minor = self.lines()
        for pen, lines in ((self.pens[1], minor), (self.pens[0], major)):
            if len(lines):
                p.setPen(pen)
                p.drawLines(*lines.drawargs())


def _line_array(rows: np.ndarray):
    """The lines of ``rows`` (shape (n, 4): x1, y1, x2, y2) as a PrimitiveArray of QLineF for one drawLines."""
    lines = pg.Qt.internals.PrimitiveArray(QLineF, 4)
    lines.resize(len(rows))
    lines.ndarray()[:] = rows
    return lines

"""A pyqtgraph axis that lays out its ticks and labels for less (the Curves panel's plots).

pyqtgraph's ``AxisItem`` rebuilds its draw specs (tick positions, label strings and rects, measured with
``QPainter.boundingRect`` each) whenever its range changes, records them into a ``QPicture`` and replays
that on every paint; ``tickValues`` is asked again by the grid lines for the same range. In the Curves
panel every plot's x axis shows the same steps over the same width, so :class:`MeasuredAxis` keeps the
specs of the last few (range, size, style) combinations shared by all its axes (five of six x axes reuse
the first one's) and caches label sizes per font and tick values per range. Each level of tick marks is
one array of lines drawn with one ``drawLines`` (:class:`TickLevel`), not a pair of points and a ``drawLine``
per tick: a new y range (six per full redraw of the Curves page) lays out ~40 ticks per axis. A tick label's
size is kept per font and text as two numbers (no QRectF made, copied and resized per label), the tick pen is
made once per layout, not per level, and a label plainly inside the axis is kept without asking Qt for the
intersection of two rects. The specs are drawn as pyqtgraph draws them (recorded into its picture, replayed):
the same pixels (tests).
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from typing import NamedTuple

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen, QPicture, QPolygonF

_SIZES: dict[tuple, QRectF] = {}   # (font key, dpi, flags, rect size, text) -> the label's bounding rect
_LABELS: dict[tuple, tuple[float, float]] = {}   # ((font key, dpi), text) -> a tick label's width, height x 0.8
_SPECS: dict[tuple, tuple] = {}    # spec key (see MeasuredAxis._spec_key) -> (specs, text size passed on[, picture])
_TICKS: dict[tuple, list] = {}     # tickValues' arguments and what else it reads -> its tick levels
_MAX_SIZES, _MAX_SPECS = 4096, 64
_MEASURE_RECT = QRectF(0, 0, 100, 100)   # the rect pyqtgraph measures a tick label in
_LEFT_FLAGS = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
_BOTTOM_FLAGS = Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop
_CENTER = Qt.AlignmentFlag.AlignCenter   # the flags pyqtgraph measures a label with
_TEXT_FLAGS = {True: _LEFT_FLAGS | Qt.TextFlag.TextDontClip, False: _BOTTOM_FLAGS | Qt.TextFlag.TextDontClip}


class TickLevel(NamedTuple):
    """One level of an axis' ticks as :class:`MeasuredAxis` draws them: the pen and every tick's line (a
    pyqtgraph PrimitiveArray of QLineF, drawn with one ``drawLines``); pyqtgraph's own specs hold a
    (pen, start, end) per tick."""

    pen: QPen
    lines: object

    def as_pyqtgraph(self) -> list[tuple[QPen, QPointF, QPointF]]:
        """pyqtgraph's (pen, start, end) tick specs of this level."""
        return [(self.pen, QPointF(a, b), QPointF(c, d)) for a, b, c, d in self.lines.ndarray().tolist()]


class _MeasuringPainter:
    """Stands in for the QPainter ``generateDrawSpecs`` measures with (it only sets the font and asks
    for bounding rects): bounding rects come from the cache when the same text was measured before in
    the same font on a device of the same resolution."""

    def __init__(self, painter):
        self._p = painter
        self._font = None

    def setFont(self, font) -> None:  # noqa: N802 - QPainter API
        self._p.setFont(font)
        self._font = None

    def _font_key(self) -> tuple:
        if self._font is None:
            dev = self._p.device()
            self._font = (self._p.font().key(), dev.logicalDpiX() if dev is not None else 0)
        return self._font

    def boundingRect(self, rect, flags, text):  # noqa: N802 - QPainter API
        key = (self._font_key(), int(flags), rect.width(), rect.height(), text)
        hit = _SIZES.get(key)
        if hit is None:
            if len(_SIZES) >= _MAX_SIZES:
                _SIZES.clear()
            hit = _SIZES[key] = QRectF(self._p.boundingRect(rect, flags, text))
        return QRectF(hit)   # a copy: the caller resizes it

    def label_size(self, text: str) -> tuple[float, float]:
        """(width, height x 0.8) of a tick label: its bounding rect as pyqtgraph measures it (centred in a
        100 x 100 rect) with the height cut as pyqtgraph cuts it, kept per font, resolution and text: the two
        numbers a label's spec is made of, without a QRectF made, copied and resized per label."""
        key = (self._font_key(), text)
        hit = _LABELS.get(key)
        if hit is None:
            if len(_LABELS) >= _MAX_SIZES:
                _LABELS.clear()
            r = self.boundingRect(_MEASURE_RECT, _CENTER, text)
            hit = _LABELS[key] = (r.width(), r.height() * 0.8)
        return hit


class MeasuredAxis(pg.AxisItem):
    """``pg.AxisItem`` with shared draw specs, cached label sizes and tick values (module docstring)."""

    def __init__(self, *args, **kwargs):
        """pyqtgraph's, with the label set only when it changes, no range work while hidden and tick values
        without np.isclose (the same ticks, labels and pixels as pyqtgraph's own axis)."""
        self._label_html = None   # before pyqtgraph's __init__, which sets the label
        super().__init__(*args, **kwargs)
        self._ticks_key = None
        self._ticks = None
        self._specs = None
        self._shared_key = None

    def linkedViewChanged(self, view, newRange=None):  # noqa: N802 - pyqtgraph API
        """pyqtgraph's, except for a hidden axis (a plot's top and right ones), which takes the view's range
        when it is shown (each range change otherwise set its label text and SI prefix again)."""
        if not self.isVisible():
            self._range_stale = True
            return
        super().linkedViewChanged(view, newRange)

    def setVisible(self, visible: bool) -> None:  # noqa: N802 - Qt API
        super().setVisible(visible)
        if visible and getattr(self, "_range_stale", False) and self.linkedView() is not None:
            self._range_stale = False
            super().linkedViewChanged(self.linkedView())

    def show(self) -> None:
        self.setVisible(True)

    def _updateLabel(self):  # noqa: N802 - pyqtgraph API
        """pyqtgraph's, except that the label's text is set (and the axis resized for it) only when it
        changed: pyqtgraph sets it again at every range change (each ``setRange`` asks for a new SI
        prefix), a QTextDocument layout of the same "step" each time."""
        html = self.labelString()
        if html != self._label_html:
            self._label_html = html
            self.label.setHtml(html)
            self._adjustSize()
        self.picture = None
        self.update()

    def generateDrawSpecs(self, p):  # noqa: N802 - pyqtgraph API
        if (self.orientation in ("left", "bottom") and self._tickLevels is None and self.grid is False
                and tuple(self.style["stopAxisAtTick"]) == (False, False)):
            return self._lean_specs(_MeasuringPainter(p))
        return super().generateDrawSpecs(_MeasuringPainter(p))

    def _lean_specs(self, p):
        """``AxisItem.generateDrawSpecs`` (pyqtgraph 0.13-0.14) for a left or bottom axis without grid,
        fixed tick levels or stops at ticks: the same specs (tests), for about half the cost: QPointF for
        pyqtgraph's Point, the axis' bounding rect and the Qt flags taken once, not per tick or label."""
        st = self.style
        if st["tickFont"] is not None:
            p.setFont(st["tickFont"])
        bounds = self.mapRectFromParent(self.geometry())
        left = self.orientation == "left"
        if left:
            span = (bounds.topRight() + QPointF(-1.0, -1.0), bounds.bottomRight() + QPointF(-1.0, 1.0))
            tick_start = tick_stop = bounds.right()
            tick_dir, axis = -1, 0
        else:
            span = (bounds.topLeft() + QPointF(-1.0, 1.0), bounds.topRight() + QPointF(1.0, 1.0))
            tick_start = tick_stop = bounds.top()
            tick_dir, axis = 1, 1
        points = self.mapToDevice(QPolygonF(span))   # both ends with one device transform (pyqtgraph finds it per point)
        if points is None:
            return None
        length = pg.Point(points[1] - points[0]).length()
        if length == 0:
            return None
        levels = self.tickValues(self.range[0], self.range[1], length)
        dif = self.range[1] - self.range[0]
        if dif == 0:
            scale, offset = 1, 0
        elif axis == 0:
            scale = -bounds.height() / dif
            offset = self.range[0] * scale - bounds.height()
        else:
            scale = bounds.width() / dif
            offset = self.range[0] * scale
        x_range = [x * scale - offset for x in self.range]
        x_min, x_max = min(x_range), max(x_range)
        positions, tick_specs = self._lean_ticks(levels, scale, offset, x_min, x_max, length, tick_start, tick_stop,
                                                 tick_dir, axis)
        axis_spec = (self.pen(), pg.Point(span[0]), pg.Point(span[1]))
        if not st["showValues"]:
            return axis_spec, tick_specs, []
        text_specs, last_size2 = self._lean_texts(p, levels, positions, length, tick_stop, axis, left)
        self._updateMaxTextSize(last_size2)
        return axis_spec, tick_specs, text_specs

    def _lean_ticks(self, levels, scale, offset, x_min, x_max, length, tick_start, tick_stop, tick_dir, axis):
        """(tick positions per level, None where out of bounds; one :class:`TickLevel` per level): _lean_specs'
        first half, each level's tick lines computed as one array, not a pair of points per tick."""
        st = self.style
        positions, specs = [], []
        base = self.tickPen()   # pyqtgraph makes it and asks its brush per level: the same pen each time
        solid = base.brush().style() == Qt.BrushStyle.SolidPattern
        for i, (_spacing, ticks) in enumerate(levels):
            tick_length = st["tickLength"] / ((i * 0.5) + 1.0)
            alpha = st["tickAlpha"]
            if alpha is None:
                alpha = 255 / (i + 1)
            elif isinstance(alpha, float):
                alpha = min(255, max(0, int(round(alpha * 255))))
            elif not isinstance(alpha, int):
                raise TypeError("Line Alpha should be of type None, float or int")
            elif not 0 <= alpha <= 255:
                raise ValueError("lineAlpha should be [0..255]")
            pen = base
            if solid:
                pen = QPen(base)
                color = QColor(pen.color())
                color.setAlpha(int(alpha))
                pen.setColor(color)
            end = tick_stop + tick_length * tick_dir
            at = np.asarray(ticks, dtype=np.float64) * scale - offset   # the same float operations, per tick
            inside = (at >= x_min) & (at <= x_max)
            positions.append([x if ok else None for x, ok in zip(at.tolist(), inside.tolist())])
            shown = at[inside]
            lines = pg.Qt.internals.PrimitiveArray(QLineF, 4)
            lines.resize(len(shown))
            arr = lines.ndarray()
            if axis == 0:
                arr[:, 0], arr[:, 1], arr[:, 2], arr[:, 3] = tick_start, shown, end, shown
            else:
                arr[:, 0], arr[:, 1], arr[:, 2], arr[:, 3] = shown, tick_start, shown, end
            specs.append(TickLevel(pen, lines))
        return positions, specs

    def _lean_texts(self, p, levels, positions, length, tick_stop, axis, left):
        """(text specs, the last drawn level's text size across the axis): _lean_specs' second half. A label's size
        is two numbers kept per text (``p.label_size``); its rect is made only for a label that is drawn."""
        st = self.style
        text_offset = st["tickTextOffset"][axis]
        last_size2 = 0
        specs = []
        flags = _TEXT_FLAGS[left]
        br = self.boundingRect()
        inside = (br.left(), br.right(), br.top(), br.bottom()) if br.isValid() else None
        offset = max(0, st["tickLength"]) + text_offset
        along, across = [], []   # every measured label's size along and across the axis, all levels so far
        for i in range(min(len(levels), st["maxTextLevel"] + 1)):
            spacing, values = levels[i]
            strings = self.tickStrings(values, self.autoSIPrefixScale * self.scale, spacing)
            if len(strings) == 0:
                continue
            sizes = [None if x is None else p.label_size(s) for x, s in zip(positions[i], strings)]
            for wh in sizes:
                if wh is not None:
                    along.append(wh[1] if axis == 0 else wh[0])
                    across.append(wh[0] if axis == 0 else wh[1])
            size2 = max(across) if across else 0   # np.max's pick: the same float
            # the size summed along the axis only decides whether a level after the first is drawn (np.sum:
            # pyqtgraph's sum, to the last bit)
            if i > 0:
                size = float(np.sum(along)) if along else 0.0
                if any(len(specs) >= n and size / length >= limit for n, limit in st["textFillLimits"]):
                    break
            last_size2 = size2
            for x, s, wh in zip(positions[i], strings, sizes):
                if wh is None:
                    continue
                w, h = wh
                x0, y0 = (tick_stop - offset - w, x - (h / 2)) if left else (x - w / 2., tick_stop + offset)
                rect = QRectF(x0, y0, w, h)
                # pyqtgraph keeps a label whose rect is its intersection with the axis' rect (Qt's fuzzy
                # compare): asked of Qt only for a label not plainly inside
                if not (inside is not None and w > 0 and h > 0 and inside[0] <= x0 and x0 + w <= inside[1]
                        and inside[2] <= y0 and y0 + h <= inside[3]) and br & rect != rect:
                    continue
                specs.append((rect, flags, s))
        return specs, last_size2

    def tickValues(self, minVal, maxVal, size):  # noqa: N802 - pyqtgraph API
        key = (minVal, maxVal, size, self.logMode, self.scale, self._tickDensity, repr(self._tickSpacing),
               self.style["maxTickLevel"])
        if key != self._ticks_key:
            ticks = _TICKS.get(key)   # the same range and length on another axis (the plots' x axes)
            if ticks is None:
                if len(_TICKS) >= _MAX_SPECS:
                    _TICKS.clear()
                ticks = _TICKS[key] = self._tick_values(minVal, maxVal, size)
            self._ticks_key, self._ticks = key, ticks
        return [(spacing, list(values)) for spacing, values in self._ticks]

    def _tick_values(self, minVal, maxVal, size):
        """``AxisItem.tickValues`` (pyqtgraph 0.13-0.14) with its ``np.isclose`` (rtol 0) written out as
        ``|a - b| <= atol``: the same result for the finite values an axis range holds, for a tenth of
        the cost (isclose was half of a tick computation)."""
        if self.logMode or not (math.isfinite(minVal) and math.isfinite(maxVal)):
            return super().tickValues(minVal, maxVal, size)
        minVal, maxVal = sorted((minVal, maxVal))
        minVal *= self.scale
        maxVal *= self.scale
        ticks = []
        all_values = np.array([])
        for spacing, offset in self.tickSpacing(minVal, maxVal, size):
            start = (math.ceil((minVal - offset) / spacing) * spacing) + offset
            num = int((maxVal - start) / spacing) + 1
            values = (np.arange(num) * spacing + start) / self.scale
            # a tick of a higher level within spacing / 100 is the same tick: not repeated
            close = np.any(np.abs(all_values - values[:, np.newaxis]) <= spacing / self.scale * 0.01, axis=-1)
            values = values[~close]
            all_values = np.concatenate([all_values, values])
            ticks.append((spacing / self.scale, values.tolist()))
        return ticks

    def _spec_key(self, widget) -> tuple | None:
        """Everything generateDrawSpecs reads, or None when this axis is not a plain linked one."""
        if self._tickLevels is not None or self.grid is not False or type(self).tickStrings is not pg.AxisItem.tickStrings:
            return None
        view = widget.parentWidget() if widget is not None else None
        transform = view.transform() if hasattr(view, "transform") else None
        if transform is None or not transform.isIdentity():
            return None
        st = self.style
        font = st["tickFont"].key() if st["tickFont"] is not None else ""
        pens = tuple(pen.color().rgba() for pen in (self.pen(), self.tickPen(), self.textPen()))
        geo = self.mapRectFromParent(self.geometry()).getRect()
        return (self.orientation, tuple(self.range), geo, self.logMode, self.scale, self.autoSIPrefixScale,
                self._tickDensity, repr(self._tickSpacing), st["tickLength"], st["tickTextOffset"][0],
                st["tickTextOffset"][1], st["showValues"], st["maxTextLevel"], st["maxTickLevel"],
                repr(st["textFillLimits"]), repr(st["stopAxisAtTick"]), st["tickAlpha"], font, pens,
                self.textWidth, self.textHeight, self.labelText, self.labelUnits)

    def _make_specs(self, widget):
        key = self._spec_key(widget)
        self._shared_key = key
        hit = _SPECS.get(key) if key is not None else None
        if hit is not None:
            specs, text_size = hit[:2]
            if text_size is not None:
                self._updateMaxTextSize(text_size)
            return specs
        seen = []
        real = self._updateMaxTextSize
        self._updateMaxTextSize = lambda x: (seen.append(x), real(x))
        picture = QPicture()   # measured on a picture device, as pyqtgraph does
        painter = QPainter(picture)
        try:
            if self.style["tickFont"]:
                painter.setFont(self.style["tickFont"])
            specs = self.generateDrawSpecs(painter)
        finally:
            painter.end()
            del self._updateMaxTextSize
        if key is not None:
            if len(_SPECS) >= _MAX_SPECS:
                _SPECS.clear()
            _SPECS[key] = (specs, seen[-1] if seen else None)
        return specs

    def paint(self, p, opt, widget):  # noqa: D102 - pyqtgraph API
        if self.picture is None:   # the range, size or style changed (pyqtgraph's own flag)
            specs = self._specs = self._make_specs(widget)   # (axis, ticks, texts) last drawn
            key = self._shared_key
            hit = _SPECS.get(key) if key is not None else None
            if hit is not None and len(hit) > 2 and hit[0] is specs:   # recorded by an axis of the same specs
                self.picture = hit[2]
            else:
                self.picture = self._record(specs)
                if hit is not None and hit[0] is specs:
                    _SPECS[key] = (*hit[:2], self.picture)
        self.picture.play(p)

    def drawPicture(self, p, axisSpec, tickSpecs, textSpecs):  # noqa: N802,N803 - pyqtgraph API
        """pyqtgraph's ``AxisItem.drawPicture``, with each :class:`TickLevel` of lean specs drawn by one
        ``drawLines`` (the same lines, in the same order, with the same pens)."""
        if not tickSpecs or not isinstance(tickSpecs[0], TickLevel):
            return super().drawPicture(p, axisSpec, tickSpecs, textSpecs)
        p.setRenderHint(p.RenderHint.Antialiasing, False)
        p.setRenderHint(p.RenderHint.TextAntialiasing, True)
        pen, p1, p2 = axisSpec
        p.setPen(pen)
        p.drawLine(p1, p2)
        for level in tickSpecs:
            if len(level.lines):
                p.setPen(level.pen)
                p.drawLines(*level.lines.drawargs())
        if self.style["tickFont"] is not None:
            p.setFont(self.style["tickFont"])
        p.setPen(self.textPen())
        p.setClipRect(self.boundingRect().toAlignedRect())
        for rect, flags, text in textSpecs:
            p.drawText(rect, int(flags), text)

    def _record(self, specs) -> QPicture:
        """The specs drawn into a picture as pyqtgraph does (recorded once, replayed at each paint: the same
        pixels), shared with the axes of the same specs (the x axes of the Curves plots)."""
        picture = QPicture()
        painter = QPainter(picture)
        try:
            if self.style["tickFont"]:
                painter.setFont(self.style["tickFont"])
            if specs is not None:
                self.drawPicture(painter, *specs)
        finally:
            painter.end()
        return picture

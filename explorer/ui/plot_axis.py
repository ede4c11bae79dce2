"""A pyqtgraph axis that lays out its tick labels for less (the Curves panel's plots).

pyqtgraph's ``AxisItem.generateDrawSpecs`` measures every candidate tick label with
``QPainter.boundingRect`` (a text layout each) each time the range changes, and ``tickValues`` is asked
again by the grid lines for the same range. The Curves panel shows the same labels over and over (every
plot's x axis has the same steps; "0.5", "1", "2"...), so :class:`MeasuredAxis` remembers each label's
size per font and each range's tick values. Same labels, same places: only the measuring is cached.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QRectF

_SIZES: dict[tuple, QRectF] = {}   # (font key, dpi, flags, text) -> the label's bounding rect
_MAX_SIZES = 4096


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

    def boundingRect(self, rect, flags, text):  # noqa: N802 - QPainter API
        if self._font is None:
            dev = self._p.device()
            self._font = (self._p.font().key(), dev.logicalDpiX() if dev is not None else 0)
        key = (self._font, int(flags), rect.width(), rect.height(), text)
        hit = _SIZES.get(key)
        if hit is None:
            if len(_SIZES) >= _MAX_SIZES:
                _SIZES.clear()
            hit = _SIZES[key] = QRectF(self._p.boundingRect(rect, flags, text))
        return QRectF(hit)   # a copy: the caller resizes it


class MeasuredAxis(pg.AxisItem):
    """``pg.AxisItem`` with its label sizes and tick values cached (see the module docstring)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._ticks_key = None
        self._ticks = None

    def generateDrawSpecs(self, p):  # noqa: N802 - pyqtgraph API
        return super().generateDrawSpecs(_MeasuringPainter(p))

    def tickValues(self, minVal, maxVal, size):  # noqa: N802 - pyqtgraph API
        key = (minVal, maxVal, size, self.logMode, self.scale, self._tickDensity, repr(self._tickSpacing),
               self.style["maxTickLevel"])
        if key != self._ticks_key:
            self._ticks_key, self._ticks = key, super().tickValues(minVal, maxVal, size)
        return [(spacing, list(values)) for spacing, values in self._ticks]

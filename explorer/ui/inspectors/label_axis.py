"""A bottom axis that names every column of a map with few columns (the Tag page's tags): the labels lie flat when
each fits its column, and stand upright (read bottom to top) when they do not, so no column goes unnamed.

A flat axis thins its labels to every k-th one where they do not fit: with the nine CoNLL-2003 tags on a 240 px
wide map only O, I-LOC, I-MISC, I-ORG and I-PER were named, the B-* columns not at all. Upright, a label needs only
a line's height along the axis; the axis grows as tall as the longest label. Labels are measured with the axis
font (not estimated), and the ones still too long for an upright column (more columns than lines fit) are thinned
as before.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFont, QFontMetricsF

from .heatmap import TokenAxis

GAP_PX = 6.0   # free pixels between two flat labels


class EveryLabelAxis(TokenAxis):
    """A bottom TokenAxis whose labels stand upright when they do not all fit flat (module docstring).
    ``upright`` tells which, as last drawn."""

    def __init__(self, **kwargs):
        super().__init__("bottom", **kwargs)
        self.upright = False

    def set_labels(self, labels: list[str]) -> None:
        """New labels (another model's tags): an upright axis takes the height of the new longest one."""
        super().set_labels(labels)
        if self.upright:
            self.upright = False
            self._stand(True)

    def _metrics(self) -> QFontMetricsF:
        return QFontMetricsF(self.style.get("tickFont") or QFont())

    def _label_px(self, i: int) -> float:
        fm = self._metrics()
        if self.upright:
            return fm.height() + 2.0
        return fm.horizontalAdvance(self._text(i)) + GAP_PX

    def tickValues(self, minVal, maxVal, size):  # noqa: N802 (Qt naming)
        lo, hi = min(minVal, maxVal), max(minVal, maxVal)
        if self.labels and size > 0 and hi > lo:
            fm = self._metrics()
            widest = max(fm.horizontalAdvance(self._text(i)) for i in range(len(self.labels))) + GAP_PX
            self._stand(widest > size / (hi - lo))   # the width of a column decides, the height never does
        return super().tickValues(minVal, maxVal, size)

    def _stand(self, upright: bool) -> None:
        """Upright or flat; an upright axis is as tall as its longest label."""
        if upright == self.upright:
            return
        self.upright = upright
        fm = self._metrics()
        longest = max((fm.horizontalAdvance(self._text(i)) for i in range(len(self.labels))), default=0.0)
        self.setHeight(int(longest + 14) if upright else None)   # None: pyqtgraph's own height
        self.picture = None

    def drawPicture(self, p, axisSpec, tickSpecs, textSpecs):  # noqa: N802 (Qt naming)
        if not self.upright:
            return super().drawPicture(p, axisSpec, tickSpecs, textSpecs)
        super().drawPicture(p, axisSpec, tickSpecs, [])   # the axis line and ticks; the labels turned below
        top = axisSpec[1].y() + 4
        for rect, _flags, text in textSpecs:
            p.save()
            p.translate(rect.center().x(), top)
            p.rotate(-90)   # read bottom to top, the label's end at the axis
            width = self._metrics().horizontalAdvance(text) + 2
            line = self._metrics().height()
            p.drawText(QRectF(-width, -line / 2, width, line),
                       int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), text)
            p.restore()

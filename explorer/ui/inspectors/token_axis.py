"""A horizontal token axis that always shows readable ticks (the span table's end-token axis).

:class:`TokenAxis` thins its labels by an estimate of the longest label; on a narrow span table with
long tokens that left one tick (or none: pyqtgraph drops a label that would stick out of the axis).
:class:`ReadableTokenAxis` measures the labels with the axis font, keeps at least ``MIN_TICKS`` ticks
when the cells in view allow it, shortens labels with "…" to the room between ticks, and shortens
the ones at the ends so that they stay inside the axis.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetricsF

from .heatmap import TokenAxis

MIN_TICKS = 3      # ticks shown when at least that many cells are in view
GAP_PX = 8.0       # free pixels between two labels
MIN_LABEL = "ab…"  # the shortest label worth drawing


class ReadableTokenAxis(TokenAxis):
    """A bottom / top TokenAxis whose labels never overlap and never thin out to a single tick."""

    def __init__(self, orientation: str = "bottom", **kwargs):
        super().__init__(orientation, **kwargs)
        self._room = math.inf            # pixels a label may take (between ticks)
        self._view = (0.0, 1.0, 1.0)     # (min value, max value, axis length in pixels)

    def _metrics(self) -> QFontMetricsF:
        return QFontMetricsF(self.style.get("tickFont") or QFont())

    def tickValues(self, minVal, maxVal, size):  # noqa: N802 (Qt naming)
        n = len(self.labels)
        minVal, maxVal = min(minVal, maxVal), max(minVal, maxVal)
        if n == 0 or size <= 0 or maxVal <= minVal:
            return []
        self._view = (float(minVal), float(maxVal), float(size))
        lo = max(0, int(math.floor(minVal)))
        hi = min(n, int(math.ceil(maxVal)))
        visible = max(hi - lo, 1)
        px_per_cell = size / (maxVal - minVal)
        fm = self._metrics()
        widest = max(fm.horizontalAdvance(self._clip(s)) for s in self.labels[lo:hi] or [""]) + GAP_PX
        half = (fm.horizontalAdvance(MIN_LABEL) + 2) / 2 / px_per_cell   # cells a label needs each side

        def ticks(step: int) -> list[int]:   # labelled cells whose short label fits inside the axis
            return [i for i in _ticks(lo, hi, step) if i + 0.5 - minVal >= half and maxVal - i - 0.5 >= half]

        step = max(1, math.ceil(widest / px_per_cell))                 # whole labels, none overlapping
        want = min(visible, MIN_TICKS)
        if len(ticks(step)) < want:                                    # too few: shorter labels instead
            shortest = math.ceil((fm.horizontalAdvance(MIN_LABEL) + GAP_PX) / px_per_cell)
            while step > 1 and len(ticks(step)) < want:
                step -= 1
            step = max(step, shortest)
        self._room = step * px_per_cell - GAP_PX
        return [(float(step), [i + 0.5 for i in ticks(step) or _ticks(lo, hi, step)])]

    def tickStrings(self, values, scale, spacing):  # noqa: N802
        fm = self._metrics()
        v0, v1, size = self._view
        px_per_cell = size / max(v1 - v0, 1e-9)
        out = []
        for v in values:
            i = int(math.floor(v))
            text = self._clip(self.labels[i]) if 0 <= i < len(self.labels) else ""
            x = (v - v0) * px_per_cell                      # the tick's pixel on the axis
            room = min(self._room, 2 * x - 2, 2 * (size - x) - 2)   # inside the axis at both ends
            short = fm.elidedText(text, Qt.TextElideMode.ElideRight, max(room, 0.0))
            out.append(short if len(short) > 1 or short == text else "")
        return out

    @staticmethod
    def _clip(s: str) -> str:
        return s if len(s) <= 18 else s[:17] + "…"


def _ticks(lo: int, hi: int, step: int) -> range:
    """Cells lo..hi-1 labelled every ``step`` cells, mid-step (the end labels get room too); the
    positions are multiples of ``step`` apart from lo's, so panning does not make them jump."""
    start = lo - lo % step + step // 2
    return range(start if start < hi else lo, hi, step)

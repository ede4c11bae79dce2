"""The Groups page's learning-curve plot: draws a LearningCurvePlot (explorer.ui.groups.curve_plot_model, which
decides what) with pyqtgraph: the fine-tune's figures with error bars, the bag-of-words baseline beside them, the
fitted curve (dashed) and the next doubling's prediction with its interval."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from explorer.ui.groups.curve_plot_model import CurvePoints, LearningCurvePlot

MODEL_COLOR = "#1f5fa8"
BASELINE_COLOR = "#8a8a8a"
CAP = 0.08   # error-bar cap width, in log2 rows


class LearningCurvePlotWidget(pg.PlotWidget):
    """``show_curve(plot)`` draws a LearningCurvePlot; ``show_curve(None, text)`` an empty plot saying ``text``.
    ``drawn``: what was drawn last (tests read it)."""

    def __init__(self, parent=None):
        super().__init__(parent, background="w")
        self.drawn: LearningCurvePlot | None = None
        self.showGrid(x=True, y=True, alpha=0.2)
        self.getAxis("left").enableAutoSIPrefix(False)
        self.setLabel("bottom", "training rows (log2 scale)")
        self.addLegend(offset=(10, 10), labelTextSize="8pt")   # top left: a rising curve leaves it free

    def _errors(self, pts: CurvePoints, color: str, width: float = 1.5) -> None:
        if len(pts):
            self.addItem(pg.ErrorBarItem(x=pts.x, y=pts.value, top=pts.high - pts.value,
                                         bottom=pts.value - pts.low, beam=CAP, pen=pg.mkPen(color, width=width)))

    def show_curve(self, plot: LearningCurvePlot | None, text: str = "") -> None:
        """Draw ``plot`` (None: clear, with ``text`` as the title)."""
        self.clear()
        self.drawn = plot
        if plot is None:
            self.setTitle(text)
            return
        self.setTitle(plot.title if not plot.notes else f"{plot.title}<br><i>{'; '.join(plot.notes)}</i>", size="9pt")
        self.setLabel("left", plot.y_label)
        self._errors(plot.baseline, BASELINE_COLOR)
        if len(plot.baseline):
            self.plot(plot.baseline.x, plot.baseline.value, pen=pg.mkPen(BASELINE_COLOR, width=1.5), symbol="s",
                      symbolSize=7, symbolBrush=BASELINE_COLOR, symbolPen=None, name="bag-of-words (TF-IDF)")
        if len(plot.fit_x):
            self.plot(plot.fit_x, plot.fit_y, pen=pg.mkPen(MODEL_COLOR, width=1.5, style=Qt.PenStyle.DashLine),
                      name="fitted c - a n^-b")
        self._errors(plot.model, MODEL_COLOR, 2.0)
        if len(plot.model):
            self.plot(plot.model.x, plot.model.value, pen=None, symbol="o", symbolSize=8,
                      symbolBrush=MODEL_COLOR, symbolPen=None, name="fine-tuned (checkpoints/last)")
        if plot.next is not None:
            self._errors(plot.next, MODEL_COLOR, 2.0)
            self.plot(plot.next.x, plot.next.value, pen=None, symbol="o", symbolSize=9, symbolBrush="w",
                      symbolPen=pg.mkPen(MODEL_COLOR, width=2), name="next doubling (predicted, 95%)")
        if plot.baseline_next is not None:
            self._errors(plot.baseline_next, BASELINE_COLOR)
            self.plot(plot.baseline_next.x, plot.baseline_next.value, pen=None, symbol="s", symbolSize=7,
                      symbolBrush="w", symbolPen=pg.mkPen(BASELINE_COLOR, width=1.5))
        self.getAxis("bottom").setTicks([plot.x_ticks])
        xs = [t[0] for t in plot.x_ticks]
        if xs:
            self.setXRange(min(xs) - 0.3, max(xs) + 0.3, padding=0)
        y = plot.y_range()
        if y is not None:
            self.setYRange(*y, padding=0)

    def value_points(self) -> np.ndarray:
        """(n, 2) x and value of the fine-tune's drawn points (tests)."""
        d = self.drawn
        return np.stack([d.model.x, d.model.value], axis=1) if d is not None else np.empty((0, 2))

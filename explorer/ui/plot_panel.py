"""One curve plot (pyqtgraph PlotWidget) with a header line that shows the crosshair values."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QFrame, QLabel, QVBoxLayout

from explorer.ui.plotmath import (IncrementalEMA, finite_gaps, isolated_points, nonfinite_markers, robust_range,
                                  window_mask)
from explorer.ui.run_state import RunState

# Readable on white, distinguishable for common colour-vision deficiencies (Okabe-Ito + extras).
PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#7F3C8D",
           "#3B3B3B", "#B8860B", "#8C564B"]

PANEL_HEIGHT = 240   # three rows (with the axis labels) fit a 940 px high window

TITLES = {
    "loss": ("training loss", "raw (faint) and smoothed; QA loss = −log P_start − log P_end, averaged"),
    "lr": ("learning rate", "linear warmup then linear decay to 0 (paper recipe)"),
    "grad_norm": ("gradient norm", "global L2 norm before clipping at max_grad_norm"),
    "samples_per_second": ("samples / s", "training throughput"),
}


def series_title(key: str) -> tuple[str, str]:
    if key in TITLES:
        return TITLES[key]
    name = key.split("/", 1)[-1]
    return f"dev {name}", f"dev-set metric '{name}' at each evaluation"


class PlotPanel(QFrame):
    """A titled plot of one series key (e.g. 'loss', 'dev/f1') for several runs."""

    def __init__(self, key: str, parent=None):
        super().__init__(parent)
        self.key = key
        self.setObjectName("plotPanel")
        title, tip = series_title(key)
        self.title = title
        self.header = QLabel(f"<b>{title}</b>")
        self.header.setToolTip(tip)
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.widget = pg.PlotWidget()
        self.plot = self.widget.getPlotItem()
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        # On the PlotItem, not only the curves: PlotItem.addItem re-applies its own settings to each item.
        self.plot.setDownsampling(auto=True, mode="peak")
        self.plot.setClipToView(True)
        self.plot.setLabel("bottom", "step")
        self.plot.setMenuEnabled(True)
        self.plot.getViewBox().setMouseEnabled(x=True, y=True)
        self.vline = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen("#888", style=Qt.PenStyle.DashLine))
        self.vline.setVisible(False)
        self.plot.addItem(self.vline, ignoreBounds=True)
        self.items: dict[str, pg.PlotDataItem] = {}
        self.raw_items: dict[str, pg.PlotDataItem] = {}
        self.markers: dict[str, pg.ScatterPlotItem] = {}   # red crosses on non-finite steps, with a tooltip
        self.ema: dict[str, IncrementalEMA] = {}       # loss smoothing, extended as points arrive
        self._state_ids: dict[str, int] = {}
        self.colors: dict[str, str] = {}
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 2, 4, 2)
        lay.setSpacing(0)
        lay.addWidget(self.header)
        lay.addWidget(self.widget, 1)
        self.is_dev = key.startswith("dev/")
        # A fixed height and kept space while hidden: showing one more plot never resizes the others
        # (a resize repaints every plot, a stall the staggered refresh exists to avoid).
        self.setFixedHeight(PANEL_HEIGHT)
        policy = self.sizePolicy()
        policy.setRetainSizeWhenHidden(True)
        self.setSizePolicy(policy)

    # ---- items ---------------------------------------------------------------------------
    def _new_item(self, color: str, width: float = 1.0, alpha: int = 255, name: str | None = None) -> pg.PlotDataItem:
        c = QColor(color)
        c.setAlpha(alpha)
        kw = {}
        if self.is_dev:
            kw = dict(symbol="o", symbolSize=5, symbolBrush=QColor(color), symbolPen=None)
        item = pg.PlotDataItem(pen=pg.mkPen(c, width=width), name=name, autoDownsampleFactor=1.5, connect="finite",
                               **kw)
        self.plot.addItem(item)
        item.setDownsampling(auto=True, method="peak")
        item.setClipToView(True)
        return item

    def set_runs(self, runs: list[tuple[RunState, str]]) -> None:
        """Drop the curves of runs no longer shown; new runs get theirs at their first
        :meth:`update_run` (creating items costs milliseconds: it happens in the staggered refresh)."""
        self.colors = {s.run_id: c for s, c in runs}
        wanted = set(self.colors)
        for run_id in [r for r in self.items if r not in wanted]:
            self.plot.removeItem(self.items.pop(run_id))
            self.ema.pop(run_id, None)
            for extra in (self.raw_items.pop(run_id, None), self.markers.pop(run_id, None)):
                if extra is not None:
                    self.plot.removeItem(extra)
        for state, color in runs:
            if self._state_ids.get(state.run_id) != id(state):   # another object (re-read from disk)
                self._state_ids[state.run_id] = id(state)
                self.ema.pop(state.run_id, None)

    def _item(self, run_id: str) -> pg.PlotDataItem | None:
        item = self.items.get(run_id)
        if item is None and run_id in self.colors:
            color = self.colors[run_id]
            if self.key == "loss":
                self.raw_items[run_id] = self._new_item(color, width=1.0, alpha=70)
            item = self.items[run_id] = self._new_item(color, name=run_id)
        return item

    def update_run(self, state: RunState, smoothing: float) -> None:
        s = state.series.get(self.key)
        if s is None or not len(s):
            if state.run_id in self.items:
                self.items[state.run_id].setData([], [])
            self._mark_nonfinite(state.run_id, np.empty(0), np.empty(0))
            return
        item = self._item(state.run_id)
        if item is None:
            return
        x, y = s.x, s.y
        finite = bool(np.isfinite(y).all())
        if self.key == "loss":
            self.raw_items[state.run_id].setData(x, y if finite else finite_gaps(y), skipFiniteCheck=finite)
            y = self.ema.setdefault(state.run_id, IncrementalEMA()).update(y, smoothing)
        # non-finite values are gaps (connect="finite"), never a line bridging them; each is marked
        item.setData(x, y if finite else finite_gaps(y), skipFiniteCheck=finite)
        if not finite or state.run_id in self.markers:
            self._mark_nonfinite(state.run_id, x, s.y, y)

    def _mark_nonfinite(self, run_id: str, x: np.ndarray, y: np.ndarray, drawn: np.ndarray | None = None) -> None:
        """A red cross on every non-finite step of the run's series (tooltip "loss was nan at step 3"),
        and a dot on each finite point left alone between gaps (no line is drawn for it)."""
        marker = self.markers.get(run_id)
        if marker is None and drawn is None:   # an emptied series that was never marked
            return
        xs, ys, labels = nonfinite_markers(x, y, self.key.split("/", 1)[-1])
        if not labels:
            if marker is not None:
                marker.setData([], [])
            return
        if marker is None:
            marker = self.markers[run_id] = pg.ScatterPlotItem(hoverable=True, tip=lambda x, y, data: data)
            marker.setZValue(10)
            self.plot.addItem(marker)
        red = dict(symbol="x", size=11, pen=pg.mkPen("#d62728", width=2), brush=pg.mkBrush("#d62728"))
        spots = [dict(pos=(a, b), data=t, **red) for a, b, t in zip(xs, ys, labels)]
        drawn = y if drawn is None else drawn
        lone = np.flatnonzero(isolated_points(drawn))
        color = self.colors.get(run_id, "#333")
        name = self.key.split("/", 1)[-1]
        spots += [dict(pos=(float(x[k]), float(drawn[k])), data=f"{name} {drawn[k]:.4g} at step {x[k]:g}",
                       symbol="o", size=5, pen=None, brush=pg.mkBrush(color)) for k in lone]
        marker.setData(spots=spots)
        marker.setToolTip("\n".join(labels[:10]) + (f"\n... {len(labels) - 10} more" if len(labels) > 10 else ""))

    def nonfinite_labels(self, run_id: str) -> list[str]:
        """The tooltips of the run's non-finite markers (empty when every value is finite)."""
        marker = self.markers.get(run_id)
        if marker is None:
            return []
        return [str(d) for d, sym in zip(marker.data["data"], marker.data["symbol"]) if sym == "x"]

    def point_count(self, run_id: str) -> int:
        item = self.items.get(run_id)
        if item is None or item.xData is None:
            return 0
        return len(item.xData)

    # ---- view ----------------------------------------------------------------------------
    def set_log(self, on: bool) -> None:
        self.plot.setLogMode(x=False, y=on)

    def apply_view(self, x_range: tuple[float, float] | None, ignore_outliers: bool, log: bool) -> None:
        """y range for the visible x_range (set by the caller): auto-fit, or from percentiles of the
        visible points when ignoring outliers."""
        vb = self.plot.getViewBox()
        if not ignore_outliers:
            vb.setAutoVisible(y=True)
            vb.enableAutoRange(axis="y")
            return
        arrays = []
        lo, hi = x_range if x_range is not None else (None, None)
        for item in list(self.items.values()) + list(self.raw_items.values()):
            if item.xData is None or not len(item.xData):
                continue
            x, y = np.asarray(item.xData), np.asarray(item.yData)   # the data as given (not log10)
            arrays.append(y[window_mask(x, lo, hi)])
        rng = robust_range(arrays, log=log)
        if rng is not None:
            vb.setYRange(*rng, padding=0)

    def show_crosshair(self, step: float | None, runs: list[tuple[RunState, str]]) -> None:
        """Move the vertical line to ``step`` and print each run's nearest value in the header."""
        if step is None:
            self.vline.setVisible(False)
            self.header.setText(f"<b>{self.title}</b>")
            return
        self.vline.setVisible(True)
        self.vline.setPos(step)
        parts = []
        for state, color in runs:
            s = state.series.get(self.key)
            hit = s.value_at(step) if s is not None else None
            if hit is None:
                continue
            parts.append(f"<span style='color:{color}'>■</span> {hit[1]:.4g} <span style='color:#777'>@{hit[0]:.0f}</span>")
        self.header.setText(f"<b>{self.title}</b>&nbsp;&nbsp;" + "&nbsp;&nbsp;".join(parts))

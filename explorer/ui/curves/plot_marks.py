"""What a Curves plot marks besides its curves: the non-finite steps of a series and the trivial baselines.

:class:`NonfiniteMarks`: a red cross on every step whose value is NaN or inf (tooltip "loss was nan at step 3"),
and a dot on each finite point left alone between gaps (a curve draws no line for it). :class:`BaselineLines`:
dashed horizontal lines at the trivial predictor's score on the shown runs' dev data (all no-answer / majority
class), each labelled where the label covers no point (explorer.ui.curves.plotmath.label_spot).
"""

from __future__ import annotations

from typing import Callable, Iterable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from explorer.ui.curves.plotmath import LABEL_SPOTS, isolated_points, label_spot, nonfinite_markers
from explorer.ui.runs.state import DEV_PREFIX

__all__ = ["BASELINE_LABEL_PAD_PX", "BaselineLines", "NonfiniteMarks"]

BASELINE_LABEL_PAD_PX = 5   # room kept around a point (its marker) when a label is placed


class NonfiniteMarks:
    """The markers of one plot (``plot``: its PlotItem) of series ``key``; ``color_of(run_id)``: the run's colour.
    ``markers``: run id -> its ScatterPlotItem."""

    def __init__(self, plot, key: str, color_of: Callable[[str], str]):
        self.plot, self.key, self.color_of = plot, key, color_of
        self.markers: dict[str, pg.ScatterPlotItem] = {}

    def update(self, run_id: str, data) -> None:
        """Re-mark the non-finite steps of ``data`` (the run's CurveData) when the new points (or their neighbours)
        are not all finite, or when the series or its smoothing changed; a clean append costs no O(n) pass."""
        if (data.marked, data.marked_version) == (data.n, data.version):
            return
        redo = data.marked == 0 or data.marked_version != data.version
        if redo:
            needed = run_id in self.markers or data.series.nonfinite > 0
        else:
            needed = not np.isfinite(data.y[max(data.marked - 2, 0):]).all()
        if needed:
            self.mark(run_id, data.x, data.y, data.shown)
        data.marked, data.marked_version = data.n, data.version

    def mark(self, run_id: str, x: np.ndarray, y: np.ndarray, drawn: np.ndarray | None = None) -> None:
        """A red cross on every non-finite step of the run's series (x, y) and a dot on each finite point of
        ``drawn`` (the curve as drawn, y when None) left alone between gaps."""
        marker = self.markers.get(run_id)
        if marker is None and drawn is None:   # an emptied series that was never marked
            return
        xs, ys, labels = nonfinite_markers(x, y, self.key.split("/", 1)[-1],
                                           undefined=self.key.startswith(DEV_PREFIX))   # a dev metric without value
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
        color = self.color_of(run_id)
        name = self.key.split("/", 1)[-1]
        spots += [dict(pos=(float(x[k]), float(drawn[k])), data=f"{name} {drawn[k]:.4g} at step {x[k]:g}",
                       symbol="o", size=5, pen=None, brush=pg.mkBrush(color)) for k in lone]
        marker.setData(spots=spots)
        marker.setToolTip("\n".join(labels[:10]) + (f"\n... {len(labels) - 10} more" if len(labels) > 10 else ""))

    def remove(self, run_id: str) -> None:
        """The run is no longer shown here: its markers go."""
        if run_id in self.markers:
            self.plot.removeItem(self.markers.pop(run_id))

    def labels(self, run_id: str) -> list[str]:
        """The tooltips of the run's non-finite markers (empty when every value is finite)."""
        marker = self.markers.get(run_id)
        if marker is None:
            return []
        return [str(d) for d, sym in zip(marker.data["data"], marker.data["symbol"]) if sym == "x"]


class BaselineLines:
    """The dashed baselines of one plot (``plot``: its PlotItem); ``lines``: their InfiniteLines."""

    def __init__(self, plot):
        self.plot = plot
        self.lines: list[pg.InfiniteLine] = []
        self._spec: list | None = None

    def set(self, lines: list[tuple[float, str, str]]) -> bool:
        """Dashed horizontal baselines: (value on the display scale, label, colour) each; whether they changed
        (the labels are then to be placed: :meth:`place`)."""
        if lines == self._spec:
            return False
        self._spec = list(lines)
        for ln in self.lines:
            self.plot.removeItem(ln)
        self.lines = []
        for value, label, color in lines:
            pen = pg.mkPen(color, width=1.5, style=Qt.PenStyle.DashLine)
            pos, anchor = LABEL_SPOTS[0]   # place() moves it off the points
            ln = pg.InfiniteLine(pos=value, angle=0, movable=False, pen=pen,
                                 label=f"{label} {value:.2f}",
                                 labelOpts={"position": pos, "anchors": [anchor, anchor], "color": color})
            ln.setToolTip(label)
            self.plot.addItem(ln, ignoreBounds=True)
            self.lines.append(ln)
        return True

    def place(self, data: Iterable) -> None:
        """Put each label at the first of LABEL_SPOTS inside the view that covers none of the points of ``data``
        (the plot's CurveData: x and the curve as drawn), else where it covers the fewest."""
        if not self.lines:
            return
        vb = self.plot.getViewBox()
        view = vb.viewRange()
        px, py = vb.viewPixelSize()   # data units per pixel
        if not (px > 0 and py > 0):
            return
        data = list(data)
        xs = np.concatenate([d.x for d in data] + [np.empty(0)])
        ys = np.concatenate([d.shown for d in data] + [np.empty(0)])
        for ln in self.lines:
            size = ln.label.textItem.boundingRect()   # pixels: the label is not scaled with the view
            i = label_spot(view, (px, py), (size.width(), size.height()), ln.value(), xs, ys, BASELINE_LABEL_PAD_PX)
            pos, anchor = LABEL_SPOTS[i]
            if (pos, anchor) != (ln.label.orthoPos, ln.label.anchors[0]):
                ln.label.anchors = [anchor, anchor]
                ln.label.setPosition(pos)

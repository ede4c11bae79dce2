"""One curve plot (pyqtgraph PlotWidget) with a header line that shows the crosshair values.

Mouse: the wheel scrolls the page the plot sits in (the Curves panel); Ctrl+wheel zooms the plot; drag
pans; "Reset view" (on each plot) returns to the automatic range. Dev plots may show a dashed
baseline per run (the trivial predictor's score on the same dev data: all no-answer / majority class).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QFrame, QGraphicsView, QHBoxLayout, QLabel, QSizePolicy,
                               QToolButton, QVBoxLayout)

from explorer.core.specs.metric_display import metric_label
from explorer.core.specs.metrics import metric_spec

from explorer.ui.curves.curves_model import PALETTE  # noqa: F401 - the run colours, imported from here too
from explorer.ui.curves.decimate import ColumnDecimator, kept_decimator, series_points
from explorer.ui.curves.axis import MeasuredAxis
from explorer.ui.curves.items import CurveLayer, FastCurve
from explorer.ui.curves.grid import GridLines
from explorer.ui.curves.plot_marks import BaselineLines, NonfiniteMarks
from explorer.ui.curves.plot_widget import PageScrollPlotWidget, WheelPassViewBox, scene_changed
from explorer.ui.curves.plotmath import SMOOTHED_SERIES, robust_range, shown_values, window_mask
from explorer.ui.curves.predecimate import PLOT_COLUMNS
from explorer.ui.runs.eval_rows import is_sample, point_event, rows_phrase, sample_mask
from explorer.ui.runs.state import RunState


LEFT_AXIS_TEXT_PX = 44   # room for y tick labels such as "0.0001" / "100"
RAW_ALPHA = 70       # the raw loss drawn faintly behind the smoothed one
PANEL_HEIGHT = 240   # three rows (with the axis labels) fit a 940 px high window

# How the plots draw, for a full redraw and a live tick as cheap as measured (scripts/bench_curves.py, against
# pyqtgraph's own downsampling): one CurveLayer per plot paints all its curves, taking their points as they are
# (items.CurveLayer); the axes skip work whose result does not change (axis.MeasuredAxis); the plot's scene
# reports its changes through QGraphicsScene.changed (plot_widget.scene_changed) and keeps the view's rect, so that after a
# full redraw each plot is painted once; what is known of a series when it is read is used, not computed again
# per plot: its smoothed loss (plotmath.smoothed, computed on the reader thread), whether its steps only grow
# and whether it has non-finite values (kept by its appends).

TITLES = {
    "loss": ("training loss", "raw (faint) and smoothed; QA loss = −log P_start − log P_end, averaged"),
    "lr": ("learning rate", "linear warmup then linear decay to 0 (paper recipe)"),
    "grad_norm": ("gradient norm", "global L2 norm before clipping at max_grad_norm"),
    "samples_per_second": ("samples / s", "training throughput"),
}


def series_title(key: str, task: str | None = None) -> tuple[str, str]:
    """(title, tooltip) of a series key: 'training loss', 'dev F1 (%)', 'loss_scale' (a step scalar
    without a title: its label from core/specs/metrics, or its plain name); ``task``: the one task of the runs
    shown, whose own metric names win ('dev entity F1 (%)' for ner)."""
    if key in TITLES:
        return TITLES[key]
    name = key.split("/", 1)[-1]
    label = metric_label(name, task)
    if not key.startswith("dev/"):
        return label, f"'{name}' as the worker reports it at each logged step"
    extra = " (classification accuracy and F1 are shown in percent too)" if "(%)" in label else ""
    return f"dev {label}", f"dev-set metric '{name}' at each evaluation{extra}"


def non_negative(key: str) -> bool:
    """Whether the series ``key`` can never be negative (its y axis then starts at 0 or above): every
    series whose metric row is not ``signed`` (thresholds in score units and correlations are)."""
    return not metric_spec(key.split("/", 1)[-1]).signed


def y_range(arrays: list[np.ndarray], *, non_neg: bool, log: bool = False,
            pad: float = 0.08) -> tuple[float, float] | None:
    """min..max of the finite values, padded; a flat series gets a band around its value; a
    non-negative series never goes below 0. ``log``: log10 units (positive values only). None if empty."""
    parts = [np.asarray(a, dtype=np.float64) for a in arrays if len(a)]
    v = np.concatenate(parts) if parts else np.empty(0)
    v = v[np.isfinite(v)]
    if log:
        v = np.log10(v[v > 0])
    if not len(v):
        return None
    lo, hi = float(v.min()), float(v.max())
    span = hi - lo
    if span <= 0:   # flat: a band around the value (pyqtgraph would give +-0.5, negative for a flat 0)
        band = abs(hi) * 0.1 if hi != 0 else 1.0
        lo, hi = lo - band / 2, hi + band / 2
    else:
        lo, hi = lo - pad * span, hi + pad * span
    if non_neg and not log and lo < 0 <= float(v.min()):
        lo = 0.0
        if float(v.max()) == 0:
            hi = 1.0
    return lo, hi


class CurveData:
    """The full series behind one run's curves in one plot, and the decimators that draw it."""

    def __init__(self, series, x_factor: float = 1.0):
        self.series = series
        self.x = self.y = self.shown = np.empty(0)
        self.version = "raw"
        self.x_factor = x_factor             # x = the series' steps x this (the x axis' unit)
        # the decimators are kept with the series: a run shown again finds its columns (kept_decimator)
        self.main = kept_decimator(series, "main", x_factor)   # the drawn curve (smoothed for the loss)
        self.raw: ColumnDecimator | None = None   # the faint raw loss behind the smoothed one
        self.drawn = None                    # (grid, n, version) last drawn
        self.samples: np.ndarray | None = None   # a dev curve's points on a dev sample, as x + 1j*y (drawn hollow)
        self.marked = 0                      # points checked for non-finite markers
        self.marked_version = None

    @property
    def n(self) -> int:
        return len(self.x)

    def set(self, x: np.ndarray, y: np.ndarray, shown: np.ndarray, version, with_raw: bool) -> None:
        if len(x) < self.n:
            self.marked = 0
        self.x, self.y, self.shown, self.version = x, y, shown, version
        if with_raw and self.raw is None:
            self.raw = kept_decimator(self.series, "raw", self.x_factor)


class PlotPanel(QFrame):
    """A titled plot of one series key (e.g. 'loss', 'dev/f1') for several runs.

    Signals:
        reset_requested(): the user pressed "Reset view" (the owner re-fits x for every plot).
    """

    reset_requested = Signal()

    def __init__(self, key: str, parent=None):
        super().__init__(parent)
        self.key = key
        self.setObjectName("plotPanel")
        title, tip = series_title(key)
        self.title = title
        self.header = QLabel(f"<b>{title}</b>")
        self.header.setToolTip(tip)
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.reset_button = QToolButton()
        self.reset_button.setText("Reset view")
        self.reset_button.setAutoRaise(True)
        self.reset_button.setToolTip("Back to the automatic range (after a Ctrl+wheel zoom or a drag). "
                                     "The wheel alone scrolls the page.")
        self.reset_button.clicked.connect(self.reset_view)
        sides = ("left", "bottom", "top", "right")
        self.widget = PageScrollPlotWidget(viewBox=WheelPassViewBox(),
                                           axisItems={side: MeasuredAxis(side) for side in sides})
        # No cached background picture: blitting it costs more than filling the plain white it holds.
        self.widget.setCacheMode(QGraphicsView.CacheModeFlag.CacheNone)
        self.widget.updateMatrix()   # the scene takes the view's rect (PageScrollPlotWidget.updateMatrix)
        self.widget.scene().changed.connect(scene_changed)
        self.plot = self.widget.getPlotItem()
        # the hidden top and right axes are MeasuredAxis too, only so that a hidden axis skips the label
        # and SI-prefix work pyqtgraph does on each range change; given axes are shown by default
        self.plot.hideAxis("top")
        self.plot.hideAxis("right")
        self.grid_lines = GridLines(self.plot)   # not showGrid: the axes' grid pictures cost ~3 ms a repaint
        # No pyqtgraph downsampling / clip-to-view: the curves get their min/max points per pixel
        # column from explorer.ui.curves.decimate (cached per curve, so a live tick folds in only new points).
        self.plot.setLabel("bottom", "step")
        # epochs below one read 0.17, never "epoch (x0.001)" with ticks to 170
        self.plot.getAxis("bottom").enableAutoSIPrefix(False)
        # A y axis as wide as typical labels ("0.0001") from the start that only ever grows: a new
        # selection or range then never changes its width, which would re-lay out and repaint the plot.
        left = self.plot.getAxis("left")
        left.textWidth = LEFT_AXIS_TEXT_PX
        left.setStyle(autoReduceTextSpace=False)
        self.plot.setMenuEnabled(True)
        self.plot.getViewBox().setMouseEnabled(x=True, y=True)
        self.plot.getViewBox().sigRangeChangedManually.connect(self._zoomed_by_user)
        self.plot.getViewBox().sigXRangeChanged.connect(self._view_changed)
        self.plot.getViewBox().sigResized.connect(self._view_changed)
        self.plot.hideButtons()   # the small "A" button: "Reset view" above says it in words
        self.baselines = BaselineLines(self.plot)   # dashed trivial-predictor lines, labels off the points
        self.plot.getViewBox().sigRangeChanged.connect(self.place_baseline_labels)   # zoom, live x, resize
        self.plot.getViewBox().sigResized.connect(self.place_baseline_labels)
        self.user_zoomed = False
        self.vline = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen("#888", style=Qt.PenStyle.DashLine))
        self.vline.setVisible(False)
        self.plot.addItem(self.vline, ignoreBounds=True)
        self.items: dict[str, pg.PlotDataItem] = {}
        self.raw_items: dict[str, pg.PlotDataItem] = {}
        self.marks = NonfiniteMarks(self.plot, key, lambda run_id: self.colors.get(run_id, "#333"))
        self.markers = self.marks.markers   # red crosses on non-finite steps, with a tooltip
        self.data: dict[str, CurveData] = {}           # per run: the full series behind its curves
        self._spare: dict[int, list[pg.PlotDataItem]] = {}   # hidden curve items to reuse, by alpha
        self._state_ids: dict[str, int] = {}
        self.colors: dict[str, str] = {}
        self.x_factors: dict[str, float] = {}   # per run: x axis unit per optimizer step (update_run)
        self.layer = CurveLayer(self.plot.getViewBox())   # paints every curve of the plot
        self.plot.addItem(self.layer, ignoreBounds=True)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 2, 4, 2)
        lay.setSpacing(0)
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.header, 1)
        top.addWidget(self.reset_button)
        lay.addLayout(top)
        lay.addWidget(self.widget, 1)
        # "not logged by this run" over an empty plot whose runs have logged steps (set_note)
        self.note = QLabel(self.widget)
        self.note.setObjectName("plotNote")
        self.note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: #777777;")
        self.note.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.note.hide()
        self.widget.installEventFilter(self)   # the note stays centred when the plot is resized
        self.is_dev = key.startswith("dev/")
        # A fixed height and kept space while hidden: showing one more plot never resizes the others
        # (a resize repaints every plot, a stall the staggered refresh exists to avoid).
        self.setFixedHeight(PANEL_HEIGHT)
        policy = self.sizePolicy()
        policy.setRetainSizeWhenHidden(True)
        self.setSizePolicy(policy)

    def set_note(self, text: str) -> None:
        """Say ``text`` in the middle of the plot ("" hides it): what an empty plot means (an HF Trainer folder's
        samples/s plot is empty: it logs none)."""
        if text == self.note.text() and bool(text) == self.note.isVisibleTo(self):
            return
        self.note.setText(text)
        self.note.setVisible(bool(text))
        self._place_note()

    def _place_note(self) -> None:
        width = max(0, self.widget.width() - 40)
        height = self.note.heightForWidth(width)
        self.note.setGeometry((self.widget.width() - width) // 2, max(0, (self.widget.height() - height) // 2),
                              width, height)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt API
        if watched is self.widget and event.type() == QEvent.Type.Resize and self.note.text():
            self._place_note()
        return super().eventFilter(watched, event)

    # ---- items ---------------------------------------------------------------------------
    def _new_item(self, color: str, width: float = 1.0, alpha: int = 255, name: str | None = None) -> pg.PlotDataItem:
        """A curve item in ``color`` (a spare one of an earlier run when there is one: creating and
        adding an item costs ~2 ms, recolouring one next to nothing)."""
        c = QColor(color)
        c.setAlpha(alpha)
        spare = self._spare.get(alpha)
        if spare:   # one that already has this colour (the same run shown again) first
            rgba = c.rgba()
            same = next((k for k, it in enumerate(spare) if it.opts["pen"].color().rgba() == rgba), None)
            item = spare.pop(-1 if same is None else same)
            if same is None:
                item.setPen(pg.mkPen(c, width=width))
                if item.dots is not None:
                    item.dots.set_color(color)
            item.opts["name"] = name
            item.setVisible(True)
            return item
        # dev metrics: a dot (5 px, filled) on each evaluation
        item = FastCurve(pen=pg.mkPen(c, width=width), name=name, connect="finite",
                         dots=QColor(color) if self.is_dev else None)
        item.setZValue(0 if alpha == 255 else -1)   # the faint raw loss behind every smoothed curve
        # no re-clipping of the data on every y range change (it re-sets each curve); the points are
        # few and the view always holds them (apply_view), so there is nothing huge to clip
        item.setDynamicRangeLimit(None)
        self.plot.addItem(item)
        self.layer.add(item)
        return item

    def _retire(self, item: pg.PlotDataItem, alpha: int) -> None:
        """Keep an unused curve item, hidden, for the next run shown here. Its last points stay in it
        (hidden items count for no range): pyqtgraph re-styles an emptied item when it gets points again,
        while a filled one takes new points alone (FastCurve.set_points)."""
        item.setVisible(False)
        self._spare.setdefault(alpha, []).append(item)

    def set_runs(self, runs: list[tuple[RunState, str]]) -> None:
        """Drop the curves of runs no longer shown; new runs get theirs at their first
        :meth:`update_run` (creating items costs milliseconds: it happens in the staggered refresh)."""
        self.colors = {s.run_id: c for s, c in runs}
        tasks = {getattr(s, "task", None) for s, _ in runs}
        title, tip = series_title(self.key, tasks.pop() if len(tasks) == 1 else None)
        if title != self.title:   # runs of one task: its own metric names (ner: entity F1)
            self.title = title
            self.header.setText(f"<b>{title}</b>")
            self.header.setToolTip(tip)
        wanted = set(self.colors)
        for run_id in [r for r in self.items if r not in wanted]:
            self._retire(self.items.pop(run_id), 255)
            self.data.pop(run_id, None)
            if run_id in self.raw_items:
                self._retire(self.raw_items.pop(run_id), RAW_ALPHA)
            self.marks.remove(run_id)
        for state, color in runs:
            if self._state_ids.get(state.run_id) != id(state):   # another object (re-read from disk)
                self._state_ids[state.run_id] = id(state)
                self.data.pop(state.run_id, None)
            if state.run_id in self.items and self.items[state.run_id].opts["pen"].color() != QColor(color):
                self._recolor(state.run_id, color)

    def _recolor(self, run_id: str, color: str) -> None:
        for item, alpha in ((self.items.get(run_id), 255), (self.raw_items.get(run_id), RAW_ALPHA)):
            if item is not None:
                c = QColor(color)
                c.setAlpha(alpha)
                item.setPen(pg.mkPen(c, width=1.0))
                if item.dots is not None:
                    item.dots.set_color(color)

    def _item(self, run_id: str) -> pg.PlotDataItem | None:
        item = self.items.get(run_id)
        if item is None and run_id in self.colors:
            color = self.colors[run_id]
            if self.key == "loss":
                self.raw_items[run_id] = self._new_item(color, width=1.0, alpha=RAW_ALPHA)
            item = self.items[run_id] = self._new_item(color, name=run_id)
        return item

    def set_x_axis(self, label: str, factors: dict[str, float]) -> None:
        """The x axis' unit: its ``label`` ("step", "epoch", "training examples seen") and each run's ``factors``
        (run id -> units per optimizer step; a run not named: 1), used by the next :meth:`update_run`
        (explorer.core.runs.x_units)."""
        self.x_factors = factors
        if self.plot.getAxis("bottom").labelText != label:
            self.plot.setLabel("bottom", label)

    def update_run(self, state: RunState, smoothing: float) -> None:
        """Show the run's current points (``smoothing``: the loss EMA weight in [0, 1)), x in the unit of
        :meth:`set_x_axis`. Only new points are smoothed and folded into the per-column min/max of the curves
        (explorer.ui.curves.decimate)."""
        s = state.series.get(self.key)
        run_id = state.run_id
        x_factor = self.x_factors.get(run_id, 1.0)
        if s is None or not len(s):
            self.data.pop(run_id, None)
            for item in (self.items.get(run_id), self.raw_items.get(run_id)):
                if item is not None:
                    item.set_points(np.empty(0), np.empty(0), True)
            self.marks.mark(run_id, np.empty(0), np.empty(0))
            return
        if self._item(run_id) is None:
            return
        data = self.data.get(run_id)
        if data is None or data.series is not s or data.x_factor != x_factor:   # another unit: drawn anew
            self.data[run_id] = data = CurveData(s, x_factor)
        y, shown, version = shown_values(s, self.key, smoothing)   # smoothed where the run was read
        data.set(s.x if x_factor == 1.0 else s.x * x_factor, y, shown, version, with_raw=self.key in SMOOTHED_SERIES)
        if self.is_dev:   # a few points: which evaluations scored a dev sample (ui/runs/eval_rows)
            mask = sample_mask(state, self.key)
            data.samples = (data.x[mask] + 1j * data.shown[mask]) if mask is not None and len(mask) == data.n else None
        self._draw(run_id)
        self.marks.update(run_id, data)

    def _grid(self) -> tuple[float, float, int]:
        """(x0, x1, pixel columns) of the view the curves are decimated for."""
        vb = self.plot.getViewBox()
        x0, x1 = vb.viewRange()[0]
        columns = int(vb.width() * self.devicePixelRatioF()) or 1000   # device pixels
        PLOT_COLUMNS.publish(self.key, columns)   # runs read from now on are decimated for it ahead
        return float(x0), float(x1), columns

    def _draw(self, run_id: str) -> None:
        data = self.data.get(run_id)
        item = self.items.get(run_id)
        if data is None or item is None:
            return
        grid = self._grid()
        key = (grid, data.n, data.version)
        if data.drawn == key:
            return
        data.drawn = key
        pairs = [(item, data.shown, data.main)]
        if data.raw is not None and run_id in self.raw_items:
            pairs.append((self.raw_items[run_id], data.y, data.raw))
        for target, y, decimator in pairs:
            vers = data.version if y is data.shown else "raw"
            xs, ys = series_points(decimator, data.series, data.x, y, vers, grid)
            # the drawn points are the series' own (x, y): those of a dev sample's evaluations are drawn hollow
            hollow = np.isin(xs + 1j * ys, data.samples) if data.samples is not None and target is item else None
            target.set_points(xs, ys, not np.isnan(ys).any(), hollow)

    def _view_changed(self, *_args) -> None:
        """x range or plot width changed: the columns changed, so do the curves' points."""
        for run_id in list(self.data):
            self._draw(run_id)

    def nonfinite_labels(self, run_id: str) -> list[str]:
        """The tooltips of the run's non-finite markers (empty when every value is finite)."""
        return self.marks.labels(run_id)

    @property
    def baseline_lines(self) -> list[pg.InfiniteLine]:
        """The dashed baselines shown (set_baselines)."""
        return self.baselines.lines

    def point_count(self, run_id: str) -> int:
        """The number of points of the run's series shown here (not the decimated points drawn)."""
        data = self.data.get(run_id)
        return data.n if data is not None and run_id in self.items else 0

    # ---- view ----------------------------------------------------------------------------
    def set_log(self, on: bool) -> None:
        self.plot.setLogMode(x=False, y=on)

    def apply_view(self, x_range: tuple[float, float] | None, ignore_outliers: bool, log: bool) -> None:
        """y range for the visible x_range (set by the caller): auto-fit, or from percentiles of the
        visible points when ignoring outliers."""
        if self.user_zoomed:
            return
        vb = self.plot.getViewBox()
        lo, hi = x_range if x_range is not None else (None, None)
        arrays = []
        if ignore_outliers or log:   # percentiles / the smallest positive value: every point counts
            for data in self.data.values():
                m = window_mask(data.x, lo, hi)
                arrays += [data.shown[m]] + ([data.y[m]] if data.raw is not None else [])
        else:   # min and max: the drawn points hold every column's extremes
            for item in list(self.items.values()) + list(self.raw_items.values()):
                if item.xData is not None and len(item.xData):
                    x, y = np.asarray(item.xData), np.asarray(item.yData)   # the data as given (not log10)
                    arrays.append(y[window_mask(x, lo, hi)])
        if ignore_outliers:
            rng = robust_range(arrays, log=log)
        else:
            rng = y_range(arrays + [np.array([ln.value() for ln in self.baseline_lines])],
                          non_neg=non_negative(self.key), log=log)
        if rng is None:   # nothing to show: a neutral axis, not the previous run's range
            rng = (0.0, 1.0)
        if not vb.state["autoRange"][1] and vb.state["targetRange"][1] == list(rng):
            return   # unchanged (most live ticks): no signals, no axis redraw
        vb.disableAutoRange(axis="y")
        vb.setYRange(*rng, padding=0)

    def _zoomed_by_user(self, *_args) -> None:
        self.user_zoomed = True

    def reset_view(self) -> None:
        """Forget a Ctrl+wheel zoom or drag: y follows the data again, and the owner re-fits x."""
        self.user_zoomed = False
        self.reset_requested.emit()

    def clear_readout(self) -> None:
        """Hide the crosshair and its values (e.g. when other runs are shown)."""
        self.show_crosshair(None, [])

    def set_baselines(self, lines: list[tuple[float, str, str]]) -> None:
        """Dashed horizontal baselines: (value on the display scale, label, colour) each (BaselineLines)."""
        if self.baselines.set(lines):
            self.place_baseline_labels()

    def place_baseline_labels(self, *_args) -> None:
        """Put each baseline's label where it lies inside the view and covers no plotted point (else where it
        covers the fewest): BaselineLines.place."""
        self.baselines.place(self.data.values())

    def show_crosshair(self, step: float | None, runs: list[tuple[RunState, str]]) -> None:
        """Move the vertical line to ``step`` and print each run's nearest value in the header."""
        if step is None:
            self.vline.setVisible(False)
            self.header.setText(f"<b>{self.title}</b>")
            self.widget.setToolTip("")
            return
        self.vline.setVisible(True)
        self.vline.setPos(step)
        parts, tips = [], []
        for state, color in runs:
            s = state.series.get(self.key)
            factor = self.x_factors.get(state.run_id, 1.0)
            hit = s.value_at(step / factor) if s is not None else None
            if hit is None:
                continue
            at = f"{hit[0]:.0f}" if factor == 1.0 else f"{hit[0] * factor:.4g}"
            ev = point_event(state, self.key, step / factor) if self.is_dev else None   # a dev sample's, or all rows'
            rows, short = (rows_phrase(ev), " (sample)" if is_sample(ev) else "") if ev is not None else ("", "")
            parts.append(f"<span style='color:{color}'>■</span> {hit[1]:.4g} <span style='color:#777'>@{at}{short}"
                         "</span>")
            if rows:
                tips.append(f"{state.run_id}: {hit[1]:.4g} at step {hit[0]:.0f}, {rows}")
        self.header.setText(f"<b>{self.title}</b>&nbsp;&nbsp;" + "&nbsp;&nbsp;".join(parts))
        self.widget.setToolTip("\n".join(tips))   # the pointer's points, with the dev rows each scored

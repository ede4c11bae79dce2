"""Curves: training loss (raw + smoothed), lr, grad norm, samples/s and the dev metrics, live.

All selected runs are overlaid, one colour per run (legend strip above the plots). Controls as in
TensorBoard / SLEAP's loss viewer: smoothing slider (TensorBoard's debiased EMA), log-scale y,
ignore outliers (y range from the 2nd-98th percentiles of the visible points), last-N-steps
window, crosshair with values (in each plot's header), export PNG and CSV.

Staying responsive: step events only mark curves dirty; a 100 ms timer collects them (the latest
state wins) and the plots are then refreshed one per event-loop turn, only those with new points.
While a run is live the x axis spans 0..steps_total, so it does not move with every step. Each curve
draws at most four points per pixel column (first, min, max, last: explorer.ui.curves.decimate), cached
per curve, so a live tick folds in only the new points; curve items are reused across selections and
take new points without being re-styled (explorer.ui.curves.items, which also stamps the dev dots); the
grid is one cheap item at the axes' own ticks (explorer.ui.curves.grid); the axes share their draw specs
and draw them directly (explorer.ui.curves.axis). The same pixels as pyqtgraph's own items draw.
"""

from __future__ import annotations

import html
import json

import time

import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QLabel, QProgressBar, QScrollArea, QSizePolicy, \
    QSplitter, QVBoxLayout, QWidget

from explorer.core.specs.metric_display import to_display
from explorer.core.specs.metrics import drawn_by_default, metric_spec, sort_key
from explorer.ui import lazy_menus
from explorer.ui.curves.export import CurvesExport
from explorer.ui.curves.flow_training import FlowOverTraining
from explorer.ui.curves.toolbar import CurvesToolbar, write_curves_csv
from explorer.ui.curves.plot import DRAW_OPTIONS, PALETTE, PlotPanel
from explorer.ui.shell.elided_label import ElidedLabel
from explorer.ui.runs.state import DEV_PREFIX, TRAIN_SERIES, RunState, progress_parts, progress_text, series_name

pg.setConfigOptions(antialias=False, background="w", foreground="#222")
lazy_menus.install()   # plot context menus built when first opened (the window holds 40+ plots)

# Which series get a plot, and in which order, is the metric table's (core/specs/metrics): the rows drawn by
# default have their plots built at start-up (hidden until a run has them); any other scalar a run reports
# (dev metric or step field) is drawn when its row says so or it has no row, and is one click away in the
# "Dev metrics" menu otherwise (plots built on demand).
REDRAW_MS = 100
STAGGER_MS = 15
COLUMNS = 2
MIN_PANEL_HEIGHT = 190     # px: a plot row never gets less (a data area of 120 px: layout_check); else it scrolls
FLOW_SHARE = 0.3           # the attention flow's default share of the plots + flow height
FLOW_OPEN_FROM = 900       # px: a page at least this high opens the flow; a lower one starts with it collapsed
SPLIT_KEY = "curves/flow"  # AppSettings.layout_value key: {"share": flow share of the splitter, "collapsed": bool}

__all__ = ["CurvesPanel", "write_curves_csv"]


# The plot order, decided here only: training loss, then the shown runs' main dev metric (the one that picks
# their best checkpoint: TaskFacts through RunState.primary_metric), so that the first row answers "is it
# learning, and is dev F1 going up?" (issue 25: at 1280x800 dev F1 was below the fold); then the other dev
# metrics, then the optimiser's plots (learning rate, gradient norm, samples/s), then any other step scalar.
# Dev metrics and other scalars go in the metric table's order (core/metric_specs.sort_key).
FIRST_SERIES = ("loss",)


def series_sort_key(key: str, main_metrics: set[str] | frozenset = frozenset()) -> tuple:
    """Where the plot of series ``key`` ('loss', 'dev/f1', 'loss_scale') goes among the Curves plots (a sort
    key, smaller first). ``main_metrics``: the dev metric names that rank the shown runs (first after the loss)."""
    if key in FIRST_SERIES:
        return (0, FIRST_SERIES.index(key), 0, key)
    if key.startswith(DEV_PREFIX):
        name = series_name(key)
        return (1 if name in main_metrics else 2, *sort_key(name), key)
    if key in TRAIN_SERIES:
        return (3, TRAIN_SERIES.index(key), 0, key)
    return (4, *sort_key(series_name(key)), key)


def _mark_updates_now() -> None:
    """Deliver the "update later" requests of widgets just shown: Qt posts them behind the window's
    pending paint, which then paints each shown plot a second time; marked now, one paint draws it."""
    if DRAW_OPTIONS["paint_once"]:
        QCoreApplication.sendPostedEvents(None, QEvent.Type.UpdateLater)


class CurvesPanel(CurvesExport, QWidget):
    """Shows the runs given to :meth:`set_runs`; :meth:`follow` the run store (or call :meth:`run_updated`)
    so that a shown run's new points are drawn."""

    status_message = Signal(str)

    def __init__(self, parent=None, settings=None):
        """``settings``: the app's AppSettings (explorer.ui.shell.settings), where the splitter position between
        the plots and the attention flow is remembered; None remembers nothing."""
        super().__init__(parent)
        self.runs: list[RunState] = []
        self.colors: dict[str, str] = {}
        self._panels: dict[str, PlotPanel] | None = None   # built at the first use (the panels property)
        self.shown: set[str] = {DEV_PREFIX + m for m in drawn_by_default()}   # series keys chosen for a plot
        self._decided: set[str] = set(self.shown)   # keys whose plot was chosen (by the table or the user)
        self.x_follow = True      # x range follows the data (False after the user pans or zooms)
        self._dirty: dict[str, set | None] = {}     # run_id -> series keys with new points (None = all)
        self._pending: dict[str, set] = {}          # plot key -> run ids to redraw (refreshed one per turn)
        self._x_target: tuple[float, float] | None = None
        self._layout_keys: list[str] = []
        self._reveal: list[str] = []               # laid-out plots still hidden, shown one per turn
        self._setting_x = False
        self._hover: tuple[PlotPanel, object] | None = None   # (plot, scene position) of a still pointer
        self._cross_step: float | None = None                  # the step the readouts show (None: none)
        self._planned_end: float | None = None                 # x axis end of the live runs (_axis_end)

        self.toolbar = tb = CurvesToolbar()
        self.smooth, self.log_box, self.outlier_box, self.last_n = tb.smooth, tb.log_box, tb.outlier_box, tb.last_n
        self.name_of = lambda run_id: run_id     # run id -> the name the Runs list shows (set by the main window)
        self.legend = QLabel()
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setWordWrap(True)
        # Fixed size: a legend that changes height would move (and so repaint) every plot below it.
        self.legend.setFixedHeight(2 * self.legend.fontMetrics().lineSpacing() + 6)
        self.legend.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.legend.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.legend.installEventFilter(self)   # a new width lays the entries out again (legend_parts)
        # what a shown run's evaluations say about it (a classifier stuck on one class), under the legend
        self.run_notes = QLabel()
        self.run_notes.setTextFormat(Qt.TextFormat.RichText)
        self.run_notes.setWordWrap(True)
        self.run_notes.setStyleSheet("color: #8a5a00;")
        self.run_notes.setVisible(False)
        self.progress = QProgressBar()
        self.progress.setFixedWidth(220)
        # elides (the whole line in its tooltip) rather than clip "remaining …" at 1280x800 (issue 25)
        self.progress_label = ElidedLabel(min_width=120, elide=Qt.TextElideMode.ElideMiddle)
        self.progress_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        prog = QHBoxLayout()
        prog.addWidget(self.progress)
        prog.addWidget(self.progress_label, 1)
        self.grid_host = QWidget()
        self.grid = QGridLayout(self.grid_host)
        self.grid.setContentsMargins(0, 0, 0, 8)   # room below the last row's axis label
        self.grid.setSpacing(6)
        scroll = self.scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setMinimumHeight(MIN_PANEL_HEIGHT)   # one row at least; the splitter may give it all the rest
        scroll.setWidget(self.grid_host)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)   # no width jump
        lay = QVBoxLayout(self)
        lay.addWidget(tb)
        lay.addWidget(self.legend)
        lay.addWidget(self.run_notes)
        lay.addLayout(prog)
        # the watched questions' attention flow over training, under the curves when a shown run has it; the
        # splitter between them really moves (the flow's minimum is its header line: it collapses to it), and
        # where the user puts it is remembered (AppSettings.layout_value)
        self.settings = settings
        self._flow_share = FLOW_SHARE     # the flow's share of the splitter while open (the user's, once moved)
        self._flow_user_set = False       # the user moved the splitter or pressed Hide / Show (or it was saved)
        self.flow_view = FlowOverTraining()
        self.flow_view.setVisible(False)
        self.flow_view.collapsed_changed.connect(self._flow_collapsed)
        self.curves_split = QSplitter(Qt.Orientation.Vertical)
        self.curves_split.addWidget(scroll)
        self.curves_split.addWidget(self.flow_view)
        self.curves_split.setStretchFactor(0, 1)
        self.curves_split.setStretchFactor(1, 0)
        self.curves_split.setCollapsible(0, False)
        self.curves_split.setCollapsible(1, True)   # dragged below its minimum, the flow folds to its header
        self.curves_split.splitterMoved.connect(lambda _pos, _i: self._split_moved())
        lay.addWidget(self.curves_split, 1)
        scroll.viewport().installEventFilter(self)   # a new viewport height shares it among the rows again


        self._timer = QTimer(self, singleShot=True, interval=REDRAW_MS)
        self._timer.timeout.connect(self._live_tick)
        self._stagger = QTimer(self, interval=STAGGER_MS)
        self._stagger.timeout.connect(self._stagger_tick)
        self._clock = QTimer(self, interval=1000)
        self._clock.timeout.connect(self._update_progress)
        self._clock.start()
        tb.smooth.valueChanged.connect(self._smoothing_changed)
        tb.log_box.toggled.connect(self._log_changed)
        tb.outlier_box.toggled.connect(lambda _: self._schedule(all_runs=True))
        tb.last_n.valueChanged.connect(self._last_n_changed)
        tb.metrics_menu.aboutToShow.connect(self._fill_metrics_menu)
        tb.png_btn.clicked.connect(self._ask_png)
        tb.csv_btn.clicked.connect(self._ask_csv)
        self._update_legend()
        self._update_progress()

    # ---- plots ---------------------------------------------------------------------------
    @property
    def panels(self) -> dict[str, PlotPanel]:
        """The plots by series key. The fixed ones (training series, the metric table's default dev metrics)
        are built at the first use, not in ``__init__`` (12 pyqtgraph plots were 69% of the main window's
        start): the Curves page's first show (before it is painted), its first runs, an export, the window's
        idle turn after its first paint (:meth:`prewarm`), or any code that reads this."""
        if self._panels is None:
            self._panels = {}
            for key in TRAIN_SERIES + tuple(DEV_PREFIX + m for m in drawn_by_default()):
                self._panel(key)
            self._relayout()
        return self._panels

    def plots_built(self) -> bool:
        """Whether the plots exist yet (asking :attr:`panels` builds them)."""
        return self._panels is not None

    def _panel(self, key: str) -> PlotPanel:
        panel = self.panels.get(key)
        if panel is not None:
            return panel
        panel = PlotPanel(key)
        self.panels[key] = panel
        # x axes are kept in step here, not with pyqtgraph's setXLink: a link aligns views by screen
        # position, so plots whose y axes differ in width would show different step ranges.
        panel.plot.getViewBox().sigXRangeChanged.connect(lambda _vb, rng, p=panel: self._x_changed(p, rng))
        panel.set_log(self.log_box.isChecked() and not key.startswith(DEV_PREFIX))
        panel.set_runs(self._pairs())
        panel.reset_requested.connect(self._reset_view)
        panel._proxy = pg.SignalProxy(panel.widget.scene().sigMouseMoved, rateLimit=30,
                                      slot=lambda evt, p=panel: self._mouse_moved(p, evt[0]))
        panel.widget.left.connect(lambda p=panel: self._mouse_left(p))
        return panel

    def _reported_keys(self) -> set[str]:
        """Every series key a displayed run has beyond the fixed training plots; a key seen for the first
        time is shown when the metric table draws it by default (a name without a row: drawn)."""
        have = {k for s in self.runs for k in s.series if k not in TRAIN_SERIES}
        primary = {DEV_PREFIX + m for m in self.main_metrics()}   # each run's best-by metric
        for key in have - self._decided:
            self._decided.add(key)
            if metric_spec(series_name(key)).drawn_by_default or key in primary:
                self.shown.add(key)
        return have

    def visible_keys(self) -> list[str]:
        """Train plots always; any other series (dev metric or step scalar) when it is chosen and a
        displayed run has it."""
        keys = set(TRAIN_SERIES) | {k for k in self._reported_keys() if k in self.shown}
        main = self.main_metrics()
        return sorted(keys, key=lambda k: series_sort_key(k, main))

    def main_metrics(self) -> set[str]:
        """The dev metric names that rank the shown runs (explorer.core.specs.tasks.choose_metric, through
        RunState.primary_metric): F1 for QA, accuracy or macro F1 for classification, ..."""
        return {m for m in (s.primary_metric() for s in self.runs) if m}

    def _relayout(self) -> set[str]:
        """Lay out the plots to show; returns the keys that just joined. Those are revealed one per
        event-loop turn (each first paint of a plot costs tens of ms on a busy machine)."""
        keys = self.visible_keys()
        old = self._layout_keys
        if keys == old:
            return set()
        self._layout_keys = keys
        for panel in self.panels.values():
            self.grid.removeWidget(panel)
        for row in range(self.grid.rowCount()):
            self.grid.setRowStretch(row, 0)
        pairs = self._pairs()
        for i, key in enumerate(keys):
            panel = self._panel(key)
            if key not in old:
                panel.set_runs(pairs)
            self.grid.addWidget(panel, i // COLUMNS, i % COLUMNS)
        self.grid.setRowStretch((len(keys) + COLUMNS - 1) // COLUMNS, 1)   # free space goes below the plots
        self._fit_rows()
        for key, panel in self.panels.items():
            if key not in keys:
                panel.setVisible(False)
            elif panel.isHidden() and key not in self._reveal:
                self._reveal.append(key)
        self._reveal = [k for k in self._reveal if k in keys]
        return set(keys) - set(old)

    def row_height(self) -> int:
        """The height of each plot row, in px: the scroll area's visible height shared among the rows (grid
        margins and spacing taken off), never under MIN_PANEL_HEIGHT (then the page scrolls)."""
        rows = max((len(self._layout_keys) + COLUMNS - 1) // COLUMNS, 1)
        margins = self.grid.contentsMargins()
        avail = (self.scroll.viewport().height() - margins.top() - margins.bottom()
                 - self.grid.verticalSpacing() * (rows - 1))
        return max(MIN_PANEL_HEIGHT, avail // rows)

    def _fit_rows(self) -> None:
        """Give every laid-out plot the row height (fixed heights: showing a plot never resizes the others)."""
        height = self.row_height()
        for key in self._layout_keys:
            panel = self.panels[key]
            if panel.height() != height or panel.minimumHeight() != height:
                panel.setFixedHeight(height)

    # ---- the attention flow under the plots ----------------------------------------------
    def _saved_split(self) -> dict | None:
        """The remembered {"share": float, "collapsed": bool}, or None (nothing saved, or unreadable)."""
        raw = self.settings.layout_value(SPLIT_KEY) if self.settings is not None else ""
        try:
            data = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            return None
        if not isinstance(data, dict) or not isinstance(data.get("share"), (int, float)):
            return None
        return {"share": min(max(float(data["share"]), 0.05), 0.95), "collapsed": bool(data.get("collapsed"))}

    def _place_flow(self) -> None:
        """Size the splitter for the flow view: the remembered position, else collapsed to its header on a page
        lower than FLOW_OPEN_FROM px and FLOW_SHARE of the height otherwise."""
        saved = self._saved_split()
        if saved is not None:
            self._flow_share = saved["share"]
            collapsed = saved["collapsed"]
        else:
            collapsed = self.height() < FLOW_OPEN_FROM
        self.flow_view.set_collapsed(collapsed)
        self._size_split()

    def _size_split(self) -> None:
        total = sum(self.curves_split.sizes()) or self.curves_split.height()
        if self.flow_view.is_collapsed():
            flow = self.flow_view.header_height()
        else:
            flow = max(int(self._flow_share * total), self.flow_view.minimumHeight())
        self.curves_split.setSizes([max(total - flow, 0), flow])

    def _flow_collapsed(self, _collapsed: bool) -> None:
        """The user pressed the flow view's Hide / Show: size the splitter for it and remember it."""
        self._size_split()
        self._remember_split()

    def _split_moved(self) -> None:
        """The user dragged the splitter: a flow dragged shut (size 0) folds to its header line."""
        if self.curves_split.sizes()[1] == 0 and not self.flow_view.is_collapsed():
            self.flow_view.set_collapsed(True)
            self._size_split()
        self._remember_split()

    def _remember_split(self) -> None:
        """Keep the splitter position (the flow's share while open) and whether the flow is collapsed."""
        self._flow_user_set = True
        sizes = self.curves_split.sizes()
        if not self.flow_view.is_collapsed() and sum(sizes) > 0:
            self._flow_share = sizes[1] / sum(sizes)
        if self.settings is not None:
            self.settings.set_layout_value(SPLIT_KEY, json.dumps(
                {"share": round(self._flow_share, 4), "collapsed": self.flow_view.is_collapsed()}))

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt API
        """Until the user moves the splitter, the flow view takes its default place for the new page height."""
        super().resizeEvent(event)
        if not self._flow_user_set and not self.flow_view.isHidden():
            self._place_flow()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt API
        """Coming into view (tab switch): show the plots one per turn instead of all in one paint (the first
        time, the plots are built here, before the page is painted)."""
        panels = self.panels
        for key in self._layout_keys:
            panel = panels[key]
            if not panel.isHidden():
                panel.setVisible(False)
                self._reveal.append(key)
        if self._reveal:
            self._stagger.start()
        super().showEvent(event)

    def _fill_metrics_menu(self) -> None:
        menu = self.toolbar.metrics_menu
        menu.clear()
        # what the shown runs report (a classification run's menu lists no SQuAD or regression metric); the
        # metric table's defaults only while no run is shown
        keys = sorted(self._reported_keys() or {DEV_PREFIX + m for m in drawn_by_default()},
                      key=lambda k: series_sort_key(k, self.main_metrics()))
        for key in keys:   # dev metrics by name (as before), other step scalars as "step: name"
            act = menu.addAction(series_name(key) if key.startswith(DEV_PREFIX) else f"step: {key}")
            act.setCheckable(True)
            act.setChecked(key in self.shown)
            act.toggled.connect(lambda on, k=key: self.show_series(k, on))

    def show_series(self, key: str, on: bool = True) -> None:
        """Plot (or stop plotting) the series ``key`` ('dev/f1', or a step scalar such as 'loss_scale')."""
        self._decided.add(key)
        (self.shown.add if on else self.shown.discard)(key)
        self._schedule(all_runs=True)

    def show_dev_metric(self, name: str, on: bool = True) -> None:
        """Plot (or stop plotting) the dev metric ``name``."""
        self.show_series(DEV_PREFIX + name, on)

    def color(self, run_id: str) -> str:
        if run_id not in self.colors:
            self.colors[run_id] = PALETTE[len(self.colors) % len(PALETTE)]
        return self.colors[run_id]

    def _pairs(self) -> list[tuple[RunState, str]]:
        return [(s, self.color(s.run_id)) for s in self.runs]

    # ---- public --------------------------------------------------------------------------
    def set_runs(self, states: list[RunState]) -> None:
        """Display exactly these runs (in this order); the plots refresh over the next turns
        (call :meth:`redraw_now` to have them all at once)."""
        changed = [s.run_id for s in states] != [s.run_id for s in self.runs]
        self.runs = list(states)
        pairs = self._pairs()
        keys = set(self.visible_keys())
        if changed:   # other runs: no readouts, zooms or ranges left over from the previous ones
            self._forget_view()
        for key, panel in self.panels.items():   # hidden plots catch up when they are shown
            if key in keys or key in self._layout_keys:
                panel.set_runs(pairs)
        for key, panel in self.panels.items():   # at once, also for plots with nothing to redraw (no runs)
            panel.set_note(self.absent_note(key))
        self.x_follow = True
        self._schedule(all_runs=True)
        self._live_tick()
        self._update_flow_view()

    def _update_flow_view(self) -> None:
        self.flow_view.name_of = self.name_of
        self.flow_view.set_runs(self.runs)
        show = bool(self.flow_view.runs)
        appears = show and self.flow_view.isHidden()
        self.flow_view.setVisible(show)
        if appears:   # the remembered place, else collapsed on a low page and FLOW_SHARE of the height otherwise
            self._place_flow()

    def _forget_view(self) -> None:
        self._x_target = None
        empty = self.data_x_range() is None and self._target_x() is None
        self._hover = self._cross_step = None
        self._planned_end = None
        for panel in self.panels.values():
            panel.clear_readout()
            panel.user_zoomed = False
            if empty:
                self._setting_x = True
                try:
                    panel.plot.getViewBox().setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
                finally:
                    self._setting_x = False

    def _reset_view(self) -> None:
        """A plot's "Reset view": every plot follows the data again."""
        for panel in self.panels.values():
            panel.user_zoomed = False
        self.x_follow = True
        self._schedule(all_runs=True)

    def absent_note(self, key: str) -> str:
        """"not logged by this run" for a training plot (TRAIN_SERIES) that none of the shown runs has a point
        of while each has logged steps (an HF Trainer folder logs no samples/s, older ones no gradient norm);
        "" otherwise (a run that has not logged its first step yet: nothing is missing)."""
        if key not in TRAIN_SERIES or not self.runs:
            return ""
        if any(len(s.series.get(key, ())) for s in self.runs):
            return ""
        if not all(any(len(s.series.get(k, ())) for k in TRAIN_SERIES) for s in self.runs):
            return ""
        return "not logged by this run" if len(self.runs) == 1 else "not logged by these runs"

    def baselines_for(self, key: str) -> list[tuple[float, str, str]]:
        """Dashed baseline lines of a dev plot: (value on the display scale, label, run colour), one per
        distinct (dev data, value) among the shown runs (explorer.core.metrics.baselines)."""
        if not key.startswith(DEV_PREFIX):
            return []
        name, out, seen = key[len(DEV_PREFIX):], [], set()
        for state, color in self._pairs():
            base = state.baseline()
            if base is None or name not in base.metrics:
                continue
            value = to_display(name, base.metrics[name], state.task)
            if (round(value, 6), base.name) in seen:
                continue
            seen.add((round(value, 6), base.name))
            out.append((value, f"{base.name} baseline", color if len(self.runs) > 1 else "#666666"))
        return out

    def follow(self, bridge) -> None:
        """Redraw shown runs when the run store says they changed or ended (``bridge``: a StoreBridge,
        explorer.ui.runs.bridge)."""
        bridge.changed.connect(self.run_updated)
        bridge.ended.connect(lambda run_id, _status: self.run_updated(run_id, set()))

    def run_updated(self, run_id: str, changed: set | None = None) -> None:
        """A displayed run got events (``changed``: the series keys with new points; None = all):
        redraw those curves shortly (coalesced)."""
        if any(s.run_id == run_id for s in self.runs):
            if self.flow_view.isVisible():
                self.flow_view.refresh(run_id)
            elif changed is None or any(k.startswith(DEV_PREFIX) for k in changed):   # a first evaluation
                self._update_flow_view()
            if changed is None or self._dirty.get(run_id, ()) is None:
                self._dirty[run_id] = None
            else:
                self._dirty.setdefault(run_id, set()).update(changed)
            if not self._timer.isActive():
                self._timer.start()

    def point_count(self, run_id: str, key: str) -> int:
        panel = self.panels.get(key)
        return panel.point_count(run_id) if panel else 0

    def redraw_now(self) -> None:
        """Show and refresh every pending plot now (tests, benchmarks, exports)."""
        self._timer.stop()
        self._collect()
        while self._reveal:
            self._reveal_next()
        while self._pending:
            self._refresh_next()
        self._stagger.stop()
        self.flow_view.finish_lines()
        self._update_progress()
        self._update_legend()
        # the new row heights (_fit_rows) reach the scroll area through posted layout requests: lay out now, so
        # that the scroll range and a grab (an export) already have them
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        _mark_updates_now()

    # ---- refresh machinery ---------------------------------------------------------------
    def _schedule(self, all_runs: bool = False) -> None:
        if all_runs:
            self._dirty.update({s.run_id: None for s in self.runs})
        if not self._timer.isActive():
            self._timer.start()

    def _live_tick(self) -> None:
        self._collect()
        if (self._pending or self._reveal) and not self._stagger.isActive():
            self._stagger.start()
        self._update_progress()
        self._update_legend()

    def _stagger_tick(self) -> None:
        if self._reveal and self.isVisible():
            self._reveal_next()
            _mark_updates_now()
        elif self._pending:
            self._refresh_next()
        if not self._pending and not (self._reveal and self.isVisible()):
            self._stagger.stop()

    def _reveal_next(self) -> None:
        key = self._reveal.pop(0)
        if key in self._pending:
            self._refresh_next(key)
        self.panels[key].setVisible(True)

    def _collect(self) -> None:
        """Turn the dirty runs into pending plot refreshes and fix the x range they will show."""
        dirty, self._dirty = self._dirty, {}
        newly = self._relayout()
        target = self._target_x()
        x_moved = target != self._x_target
        self._x_target = target
        for key in self._layout_keys:
            runs = {s.run_id for s in self.runs
                    if key in newly or dirty.get(s.run_id, set()) is None or key in dirty.get(s.run_id, set())}
            if runs or x_moved or key in newly:
                self._pending.setdefault(key, set()).update(runs)

    def _refresh_next(self, key: str | None = None) -> None:
        key = key if key is not None else next(iter(self._pending))
        run_ids = self._pending.pop(key)
        panel = self.panels.get(key)
        if panel is None or key not in self._layout_keys:
            return
        if self._x_target is not None:   # first the x range: the curves are decimated for it
            self._set_x(panel, self._x_target)
        weight = self.smooth.value() / 100.0
        for state in self.runs:
            if state.run_id in run_ids:
                panel.update_run(state, weight)
        panel.set_baselines(self.baselines_for(key))
        panel.set_note(self.absent_note(key))
        x_range = self._x_target or tuple(panel.plot.getViewBox().viewRange()[0])
        panel.apply_view(x_range, self.outlier_box.isChecked(),
                         self.log_box.isChecked() and not key.startswith(DEV_PREFIX))
        panel.place_baseline_labels()   # off the new points, also when the ranges stayed the same
        step = self._hover_step()
        if step is not None:   # the readout follows the new data under a still pointer
            self._cross_step = step
            panel.show_crosshair(step, self._pairs())
        # pyqtgraph applies a new view range to the items at the next paint (sigPrepareForPaint), and
        # the items' geometry change then asks for a second paint of the plot: apply it now, so the one
        # paint the refresh asked for draws everything.
        if panel.options["paint_once"]:
            panel.widget.scene().prepareForPaint()

    def _set_x(self, panel: PlotPanel, target: tuple[float, float]) -> None:
        """Show steps target[0]..target[1] (2% padding) in ``panel``; nothing to do when it already does
        (a live tick: setting an unchanged range still costs pyqtgraph a few signals per plot)."""
        vb = panel.plot.getViewBox()
        done = getattr(panel, "_x_applied", None)
        if done is not None and done[0] == target and done[1] == vb.state["targetRange"][0]:
            return
        self._setting_x = True
        try:
            vb.setXRange(*target, padding=0.02)
        finally:
            self._setting_x = False
        panel._x_applied = (target, list(vb.state["targetRange"][0]))

    def data_x_range(self) -> tuple[float, float] | None:
        """(first, last) step over every series of the displayed runs."""
        lo = min((ser.x[0] for s in self.runs for ser in s.series.values() if len(ser)), default=None)
        hi = max((ser.x[-1] for s in self.runs for ser in s.series.values() if len(ser)), default=None)
        if lo is None:
            return None
        return (float(lo), float(hi)) if hi > lo else (float(lo) - 1.0, float(hi) + 1.0)

    def _target_x(self) -> tuple[float, float] | None:
        """The x range all plots show: the last-N window, else (while following) the data extended to
        steps_total of the live runs; None when the user has panned or zoomed."""
        data = self.data_x_range()
        n = self.last_n.value()
        if data is not None and n > 0:
            return (max(data[0], data[1] - n), data[1])
        if not self.x_follow:
            return None
        planned = self._axis_end(max((float(s.steps_total) for s in self.runs if s.is_live and s.steps_total),
                                     default=None))
        if data is None:
            return (0.0, planned) if planned else None
        hi = max(data[1], planned or data[1])
        return (min(data[0], 0.0) if planned else data[0], hi)

    def _axis_end(self, planned: float | None) -> float | None:
        """The x axis end for the live runs' steps_total. A time-budgeted run re-estimates steps_total
        with every step: the end moves only when that passes it (then with 2% to spare) or drops below
        95% of it, so the axis (and every curve's pixel columns) does not shift on each step."""
        end = self._planned_end
        if planned is None or end is None or not (0.95 * end <= planned <= end):
            end = planned if end is None or planned is None or planned < end else planned * 1.02
        self._planned_end = end
        return end

    def _x_changed(self, source: PlotPanel, rng) -> None:
        """The user panned / zoomed one plot (or pressed its auto-range button): all plots follow."""
        if self._setting_x:
            return
        vb = source.plot.getViewBox()
        if vb.state["autoRange"][0]:
            vb.disableAutoRange(axis="x")
            self.x_follow = True
            self._schedule(all_runs=True)
            return
        self.x_follow = False
        self._x_target = None
        self._setting_x = True
        try:
            for panel in self.panels.values():
                if panel is not source:
                    panel.plot.getViewBox().setXRange(rng[0], rng[1], padding=0.0)
        finally:
            self._setting_x = False

    def _last_n_changed(self, _value: int) -> None:
        self.x_follow = True
        self._schedule(all_runs=True)

    def _smoothing_changed(self, value: int) -> None:
        self.toolbar.smooth_label.setText(f"{value / 100:.2f}")
        for s in self.runs:
            d = self._dirty.get(s.run_id, set())
            self._dirty[s.run_id] = None if d is None else d | {"loss"}
        self._schedule()

    def _log_changed(self, on: bool) -> None:
        for key, panel in self.panels.items():
            panel.set_log(on and not key.startswith(DEV_PREFIX))
        self._schedule(all_runs=True)

    # ---- legend / progress ---------------------------------------------------------------
    def update_legend(self) -> None:
        """Redraw the legend strip now (after a run was renamed)."""
        self._update_legend()

    LEGEND_LINES = 2   # the legend strip's height, in lines (fixed: the plots below never move)

    def _update_legend(self) -> None:
        key = ([(id(s), s.status, len(s.evals), c, self.name_of(s.run_id)) for s, c in self._pairs()],
               self.legend.width())
        if key == getattr(self, "_legend_key", None):   # nothing it shows changed (most live ticks)
            return
        self._legend_key = key
        if not self.runs:
            text, tip = ("<span style='color:#666'>No run selected. Launch a run, or select runs in the Runs list "
                         "(Ctrl/Shift-click to overlay several).</span>"), ""
        else:
            text, tip = self.legend_parts()
        if text != self.legend.text():
            self.legend.setText(text)
        self.legend.setToolTip(tip)
        notes = [f"{html.escape(self.name_of(s.run_id))} {html.escape(note, quote=False)}" for s in self.runs
                 if (note := s.one_class_note())]
        self.run_notes.setText("<br>".join(notes))
        self.run_notes.setVisible(bool(notes))

    def legend_parts(self) -> tuple[str, str]:
        """(the legend strip's rich text, its tooltip): one entry per shown run, "■ name (status · best …)", as
        many as fit in LEGEND_LINES lines of the strip's width, then "+N more" (eighth trial: with 16 runs only
        8 showed and nothing said so); the tooltip lists every run, one a line."""
        entries = []
        for state, color in self._pairs():
            best = state.best_text()
            extra = (f" · {best}" if best.startswith("best") else f" · best {best}") if best else ""
            name = self.name_of(state.run_id)
            entries.append((f"■ {name} ({state.status}{extra})",
                            f"<span style='color:{color}'>■</span>&nbsp;{html.escape(name)} "
                            f"<span style='color:#666'>({html.escape(state.status + extra)})</span>"))
        fm = self.legend.fontMetrics()
        bold = self.legend.font()
        bold.setBold(True)
        bold_fm = QFontMetrics(bold)
        width = max(self.legend.contentsRect().width() - fm.averageCharWidth(), 1)   # the label's own margins
        gap = fm.horizontalAdvance("\u00a0" * 3)
        lines, used, shown = 1, 0, []
        for i, (plain, _rich) in enumerate(entries):
            more = bold_fm.horizontalAdvance(f"+{len(entries) - i - 1} more") + gap if i < len(entries) - 1 else 0
            need = fm.horizontalAdvance(plain) + (gap if used else 0)
            last_line = lines == self.LEGEND_LINES
            if used and used + need + (more if last_line else 0) > width:
                if last_line:
                    break
                lines, used, need = lines + 1, 0, fm.horizontalAdvance(plain)
                if lines == self.LEGEND_LINES and need + more > width and shown:
                    break
            shown.append(i)
            used += need
        def compose(k: int) -> str:
            text = "&nbsp;&nbsp;&nbsp;".join(entries[i][1] for i in shown[:k])
            return text + (f"&nbsp;&nbsp;&nbsp;<b>+{len(entries) - k}&nbsp;more</b>" if k < len(entries) else "")
        # the label wraps inside entries too: check its own layout, one entry fewer until it fits the strip
        probe = self._legend_probe()
        k = len(shown)
        while k > 1:
            probe.setText(compose(k))
            if probe.heightForWidth(self.legend.width()) <= self.legend.height():
                break
            k -= 1
        tip = "\n".join(plain for plain, _ in entries) if k < len(entries) else ""
        return compose(k), tip

    def _legend_probe(self) -> QLabel:
        """A label like the legend strip, never shown: what height a text would take in it."""
        if getattr(self, "_probe", None) is None:
            self._probe = QLabel(self)
            self._probe.hide()
            self._probe.setTextFormat(Qt.TextFormat.RichText)
            self._probe.setWordWrap(True)
            self._probe.setFont(self.legend.font())
            self._probe.setStyleSheet(self.legend.styleSheet())
        return self._probe

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt API
        if obj is self.legend and event.type() == QEvent.Type.Resize:
            self._update_legend()
        elif obj is self.scroll.viewport() and event.type() == QEvent.Type.Resize:
            self._fit_rows()
        return super().eventFilter(obj, event)

    def focus_run(self) -> RunState | None:
        """The run the progress line describes: the first live one shown, else the first shown."""
        live = [s for s in self.runs if s.is_live]
        return (live or self.runs or [None])[0]

    def _update_progress(self) -> None:
        state = self.focus_run()
        if state is None:
            self._set_bar(0, 1, 0, "no run")
            self.progress_label.setText("")
            return
        total = max(state.steps_total, 1)
        self._set_bar(0, total, min(state.step, total), f"{state.status} · %p%")
        # the Runs list's name; the step and the time left stay when the line is cut (ninth trial)
        self.progress_label.set_parts(self.name_of(state.run_id), progress_parts(state, time.time()))
        self.progress_label.setToolTip(f"{state.run_id}: {progress_text(state, time.time())}")

    def _set_bar(self, lo: int, hi: int, value: int, fmt: str) -> None:
        """Show ``value`` of ``lo..hi`` in the progress bar, with ``fmt`` (its text); nothing when it already does.
        QProgressBar.setValue (and setRange, past the value) repaint the bar at once (QWidget.repaint) when its
        text changes, and a repaint paints every pending update of the window in that call: after a new
        selection, the plots, which the refresh that follows then changes and has painted again. With updates
        off the bar is only marked for the next paint (re-enabling updates schedules it)."""
        bar = self.progress
        if (bar.minimum(), bar.maximum(), bar.value(), bar.format()) == (lo, hi, value, fmt):
            return
        quiet = DRAW_OPTIONS.get("one_paint")
        if quiet:
            bar.setUpdatesEnabled(False)
        try:
            bar.setRange(lo, hi)
            bar.setValue(value)
            bar.setFormat(fmt)
        finally:
            if quiet:
                bar.setUpdatesEnabled(True)

    # ---- crosshair -----------------------------------------------------------------------
    def _mouse_moved(self, panel: PlotPanel, pos) -> None:
        if panel.plot.sceneBoundingRect().contains(pos):
            self._hover = (panel, pos)
            self.set_crosshair(panel.plot.getViewBox().mapSceneToView(pos).x())
        elif self._hover is not None and self._hover[0] is panel:
            self._mouse_left(panel)

    def _mouse_left(self, panel: PlotPanel) -> None:
        """The pointer left the plot it was over: no readout is left standing."""
        if self._hover is not None and self._hover[0] is panel:
            self._hover = None
            self.set_crosshair(None)

    def _hover_step(self) -> float | None:
        """The step under a still pointer, for the plots' current x range (None: no readout)."""
        if self._hover is None:
            return self._cross_step
        panel, pos = self._hover
        return panel.plot.getViewBox().mapSceneToView(pos).x()

    def set_crosshair(self, step: float | None) -> None:
        """Show the values of every displayed run at ``step`` in each plot header (None hides).
        Refreshed plots show it again with their new data (a live run under a still pointer)."""
        self._cross_step = step
        pairs = self._pairs()
        for key in self._layout_keys:
            self.panels[key].show_crosshair(step, pairs)

    def prewarm(self) -> None:
        """Build the plots and render them once off-screen (fonts, axis pictures) so that switching to the
        Curves tab at the first launch does not stall the event loop (the main window calls it in the
        event-loop turn after its first paint)."""
        if self.panels:
            self.grid_host.grab()

"""Curves: training loss (raw + smoothed), lr, grad norm, samples/s and the dev metrics, live.

All selected runs are overlaid, one colour per run (legend strip above the plots). Controls as in
TensorBoard / SLEAP's loss viewer: smoothing slider (TensorBoard's debiased EMA), log-scale y,
ignore outliers (y range from the 2nd-98th percentiles of the visible points), last-N-steps
window, crosshair with values (in each plot's header), export PNG and CSV.

What is shown (the runs, their colours, which plots in which order, the x range, which plots a refresh redraws,
the notes, baselines, legend and progress line) is decided by the Qt-free
:class:`~explorer.ui.curves.curves_model.CurvesModel` (``CurvesPanel.model``); the panel lays out and refreshes
the plots (explorer.ui.curves.plot.PlotPanel) and shows the rest.

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

import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QEvent, QTimer, Signal
from PySide6.QtWidgets import QVBoxLayout, QWidget

from explorer.ui import lazy_menus
from explorer.ui.curves.crosshair import Crosshair
from explorer.ui.curves.curves_model import CurvesModel, series_sort_key
from explorer.ui.curves.export import CurvesExport
from explorer.ui.curves.flow_split import FlowSplit
from explorer.ui.curves.plot import PlotPanel
from explorer.ui.curves.plot_grid import MIN_PANEL_HEIGHT, PlotGrid
from explorer.ui.curves.header import CurvesHeader
from explorer.ui.curves.run_legend import LEGEND_LINES
from explorer.ui.curves.toolbar import CurvesToolbar, write_curves_csv
from explorer.ui.curves.x_unit_control import XUnitControl
from explorer.ui.runs.state import DEV_PREFIX, RunState, series_name

pg.setConfigOptions(antialias=False, background="w", foreground="#222")
lazy_menus.install()   # plot context menus built when first opened (the window holds 40+ plots)

REDRAW_MS = 100
STAGGER_MS = 15

__all__ = ["CurvesPanel", "LEGEND_LINES", "MIN_PANEL_HEIGHT", "series_sort_key", "write_curves_csv"]


def _mark_updates_now() -> None:
    """Deliver the "update later" requests of widgets just shown: Qt posts them behind the window's
    pending paint, which then paints each shown plot a second time; marked now, one paint draws it."""
    QCoreApplication.sendPostedEvents(None, QEvent.Type.UpdateLater)


class CurvesPanel(CurvesExport, QWidget):
    """Shows the runs given to :meth:`set_runs`; :meth:`follow` the run store (or call :meth:`run_updated`)
    so that a shown run's new points are drawn. ``model``: what is shown (CurvesModel)."""

    status_message = Signal(str)

    def __init__(self, parent=None, settings=None):
        """``settings``: the app's AppSettings (explorer.ui.shell.settings), where the splitter position between
        the plots and the attention flow is remembered; None remembers nothing."""
        super().__init__(parent)
        self.model = CurvesModel()
        self._setting_x = False
        self.crosshair = Crosshair(lambda: [self.panels[k] for k in self.layout_keys], self.model.pairs)

        self.toolbar = tb = CurvesToolbar()
        self.smooth, self.log_box, self.outlier_box, self.last_n = tb.smooth, tb.log_box, tb.outlier_box, tb.last_n
        self.header = CurvesHeader(self.model)   # legend strip, run notes, progress line
        self.legend, self.run_notes = self.header.legend, self.header.run_notes
        self.progress, self.progress_label = self.header.progress, self.header.progress_label
        self.plot_grid = self.scroll = PlotGrid(self.model, self._wire)
        self.grid_host, self.grid = self.plot_grid.grid_host, self.plot_grid.grid
        lay = QVBoxLayout(self)
        lay.addWidget(tb)
        lay.addWidget(self.legend)
        lay.addWidget(self.run_notes)
        lay.addLayout(self.header.progress_row)
        # the watched questions' attention flow over training, under the curves when a shown run has it
        self.settings = settings
        self.curves_split = FlowSplit(self.plot_grid, settings)
        self.flow_view = self.curves_split.flow_view
        self.x_control = XUnitControl(self, lambda: self._schedule(all_runs=True))   # step, epoch or examples
        lay.addWidget(self.curves_split, 1)

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

    # ---- what the model holds ----------------------------------------------------------------
    @property
    def runs(self) -> list[RunState]:
        """The shown runs, in order."""
        return self.model.runs

    @property
    def name_of(self):
        """run id -> the name the Runs list shows (set by the main window)."""
        return self.model.name_of

    @name_of.setter
    def name_of(self, getter) -> None:
        self.model.name_of = getter

    def color(self, run_id: str) -> str:
        """The run's colour (CurvesModel.color)."""
        return self.model.color(run_id)

    def visible_keys(self) -> list[str]:
        """The series keys that get a plot, in plot order (CurvesModel.visible_keys)."""
        return self.model.visible_keys()

    def main_metrics(self) -> set[str]:
        """The dev metric names that rank the shown runs (CurvesModel.main_metrics)."""
        return self.model.main_metrics()

    def baselines_for(self, key: str) -> list[tuple[float, str, str]]:
        """A dev plot's dashed baselines (CurvesModel.baselines_for)."""
        return self.model.baselines_for(key)

    def focus_run(self) -> RunState | None:
        """The run the progress line describes: the first live one shown, else the first shown."""
        return self.model.focus_run()

    # ---- plots ---------------------------------------------------------------------------
    @property
    def panels(self) -> dict[str, PlotPanel]:
        """The plots by series key (PlotGrid.panels): built at the first use, not in ``__init__``: the Curves
        page's first show (before it is painted), its first runs, an export, the window's idle turn after its
        first paint (:meth:`prewarm`), or any code that reads this."""
        return self.plot_grid.panels

    @property
    def layout_keys(self) -> list[str]:
        """The series keys of the laid-out plots, in grid order."""
        return self.plot_grid.layout_keys

    def plots_built(self) -> bool:
        """Whether the plots exist yet (asking :attr:`panels` builds them)."""
        return self.plot_grid.built()

    def row_height(self) -> int:
        """The height of each plot row, in px (PlotGrid.row_height)."""
        return self.plot_grid.row_height()

    def _wire(self, panel: PlotPanel) -> None:
        """A new plot: its x range kept in step with the others, its log scale, runs, reset and crosshair."""
        # x axes are kept in step here, not with pyqtgraph's setXLink: a link aligns views by screen
        # position, so plots whose y axes differ in width would show different step ranges.
        panel.plot.getViewBox().sigXRangeChanged.connect(lambda _vb, rng, p=panel: self._x_changed(p, rng))
        panel.set_log(self.log_box.isChecked() and not panel.key.startswith(DEV_PREFIX))
        panel.set_runs(self.model.pairs())
        panel.reset_requested.connect(self._reset_view)
        panel._proxy = pg.SignalProxy(panel.widget.scene().sigMouseMoved, rateLimit=30,
                                      slot=lambda evt, p=panel: self.crosshair.mouse_moved(p, evt[0]))
        panel.widget.left.connect(lambda p=panel: self.crosshair.mouse_left(p))

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt API
        """Until the user moves the splitter, the flow view takes its default place for the new page height."""
        super().resizeEvent(event)
        self.curves_split.page_resized(self.height())

    def showEvent(self, event) -> None:  # noqa: N802 - Qt API
        """Coming into view (tab switch): show the plots one per turn instead of all in one paint (the first
        time, the plots are built here, before the page is painted)."""
        if self.plot_grid.hide_for_reveal():
            self._stagger.start()
        super().showEvent(event)

    def _fill_metrics_menu(self) -> None:
        menu = self.toolbar.metrics_menu
        menu.clear()
        for key in self.model.menu_keys():   # dev metrics by name, other step scalars as "step: name"
            act = menu.addAction(series_name(key) if key.startswith(DEV_PREFIX) else f"step: {key}")
            act.setCheckable(True)
            act.setChecked(key in self.model.shown)
            act.toggled.connect(lambda on, k=key: self.show_series(k, on))

    def show_series(self, key: str, on: bool = True) -> None:
        """Plot (or stop plotting) the series ``key`` ('dev/f1', or a step scalar such as 'loss_scale')."""
        self.model.show(key, on)
        self._schedule(all_runs=True)

    def show_dev_metric(self, name: str, on: bool = True) -> None:
        """Plot (or stop plotting) the dev metric ``name``."""
        self.show_series(DEV_PREFIX + name, on)

    # ---- public --------------------------------------------------------------------------
    def set_runs(self, states: list[RunState]) -> None:
        """Display exactly these runs (in this order); the plots refresh over the next turns
        (call :meth:`redraw_now` to have them all at once)."""
        changed = self.model.set_runs(states)
        pairs = self.model.pairs()
        keys = set(self.model.visible_keys())
        if changed:   # other runs: no readouts, zooms or ranges left over from the previous ones
            self._forget_view()
        for key, panel in self.panels.items():   # hidden plots catch up when they are shown
            if key in keys or key in self.layout_keys:
                panel.set_runs(pairs)
        for key, panel in self.panels.items():   # at once, also for plots with nothing to redraw (no runs)
            panel.set_note(self.model.absent_note(key))
        self.model.x_follow = True
        self._schedule(all_runs=True)
        self._live_tick()
        self._update_flow_view()

    def _update_flow_view(self) -> None:
        self.flow_view.name_of = self.model.name_of
        self.flow_view.set_runs(self.runs)
        self.curves_split.show_flow(bool(self.flow_view.runs), self.height())

    def _forget_view(self) -> None:
        empty = self.model.forget_view(self.last_n.value())
        self.crosshair.forget()
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
        self.model.x_follow = True
        self._schedule(all_runs=True)

    def follow(self, bridge) -> None:
        """Redraw shown runs when the run store says they changed or ended (``bridge``: a StoreBridge,
        explorer.ui.runs.bridge)."""
        bridge.changed.connect(self.run_updated)
        bridge.ended.connect(lambda run_id, _status: self.run_updated(run_id, set()))

    def run_updated(self, run_id: str, changed: set | None = None) -> None:
        """A displayed run got events (``changed``: the series keys with new points; None = all):
        redraw those curves shortly (coalesced)."""
        if self.model.shows(run_id):
            if self.flow_view.isVisible():
                self.flow_view.refresh(run_id)
            elif changed is None or any(k.startswith(DEV_PREFIX) for k in changed):   # a first evaluation
                self._update_flow_view()
            self.model.mark(run_id, changed)
            if not self._timer.isActive():
                self._timer.start()

    def point_count(self, run_id: str, key: str) -> int:
        panel = self.panels.get(key)
        return panel.point_count(run_id) if panel else 0

    def redraw_now(self) -> None:
        """Show and refresh every pending plot now (tests, benchmarks, exports)."""
        self._timer.stop()
        self._collect()
        while self.plot_grid.reveal:
            self._reveal_next()
        while self.model.pending:
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
            self.model.mark_all()
        if not self._timer.isActive():
            self._timer.start()

    def _live_tick(self) -> None:
        self._collect()
        if (self.model.pending or self.plot_grid.reveal) and not self._stagger.isActive():
            self._stagger.start()
        self._update_progress()
        self._update_legend()

    def _stagger_tick(self) -> None:
        reveal = self.plot_grid.reveal
        if reveal and self.isVisible():
            self._reveal_next()
            _mark_updates_now()
        elif self.model.pending:
            self._refresh_next()
        if not self.model.pending and not (self.plot_grid.reveal and self.isVisible()):
            self._stagger.stop()

    def _reveal_next(self) -> None:
        key = self.plot_grid.reveal.pop(0)
        if key in self.model.pending:
            self._refresh_next(key)
        self.panels[key].setVisible(True)

    def _collect(self) -> None:
        """Lay out the plots to show, then turn the dirty runs into pending plot refreshes (CurvesModel.collect)."""
        newly = self.plot_grid.relayout()
        self.model.collect(self.layout_keys, newly, self.last_n.value())

    def _refresh_next(self, key: str | None = None) -> None:
        key, run_ids = self.model.next_refresh(key)
        panel = self.panels.get(key)
        if panel is None or key not in self.layout_keys:
            return
        target = self.model.x_target
        if target is not None:   # first the x range: the curves are decimated for it
            self._set_x(panel, target)
        weight = self.smooth.value() / 100.0
        axis = self.x_control.axis()
        panel.set_x_axis(axis.label, axis.factors)
        for state in self.runs:
            if state.run_id in run_ids:
                panel.update_run(state, weight)
        panel.set_baselines(self.model.baselines_for(key))
        panel.set_note(self.model.absent_note(key))
        x_range = target or tuple(panel.plot.getViewBox().viewRange()[0])
        panel.apply_view(x_range, self.outlier_box.isChecked(),
                         self.log_box.isChecked() and not key.startswith(DEV_PREFIX))
        panel.place_baseline_labels()   # off the new points, also when the ranges stayed the same
        self.crosshair.refreshed(panel)   # the readout follows the new data under a still pointer
        # pyqtgraph applies a new view range to the items at the next paint (sigPrepareForPaint), and
        # the items' geometry change then asks for a second paint of the plot: apply it now, so the one
        # paint the refresh asked for draws everything.
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

    def _target_x(self) -> tuple[float, float] | None:
        """The x range all plots show now (CurvesModel.target_x for the last-N window)."""
        return self.model.target_x(self.last_n.value())

    def _x_changed(self, source: PlotPanel, rng) -> None:
        """The user panned / zoomed one plot (or pressed its auto-range button): all plots follow."""
        if self._setting_x:
            return
        vb = source.plot.getViewBox()
        if vb.state["autoRange"][0]:
            vb.disableAutoRange(axis="x")
            self.model.x_follow = True
            self._schedule(all_runs=True)
            return
        self.model.x_follow = False
        self.model.x_target = None
        self._setting_x = True
        try:
            for panel in self.panels.values():
                if panel is not source:
                    panel.plot.getViewBox().setXRange(rng[0], rng[1], padding=0.0)
        finally:
            self._setting_x = False

    def _last_n_changed(self, _value: int) -> None:
        self.model.x_follow = True
        self._schedule(all_runs=True)

    def _smoothing_changed(self, value: int) -> None:
        self.toolbar.smooth_label.setText(f"{value / 100:.2f}")
        self.model.mark_smoothing()
        self._schedule()

    def _log_changed(self, on: bool) -> None:
        for key, panel in self.panels.items():
            panel.set_log(on and not key.startswith(DEV_PREFIX))
        self._schedule(all_runs=True)

    # ---- legend / progress ---------------------------------------------------------------
    def update_legend(self) -> None:
        """Redraw the legend strip now (after a run was renamed)."""
        self._update_legend()

    def _update_legend(self) -> None:
        self.header.update_legend()

    def legend_parts(self) -> tuple[str, str]:
        """(the legend strip's rich text, its tooltip): CurvesHeader.legend_parts."""
        return self.header.legend_parts()

    def _update_progress(self) -> None:
        self.header.update_progress()

    # ---- crosshair -----------------------------------------------------------------------
    def set_crosshair(self, step: float | None) -> None:
        """Show the values of every displayed run at ``step`` in each plot header (None hides).
        Refreshed plots show it again with their new data (a live run under a still pointer)."""
        self.crosshair.show(step)

    def prewarm(self) -> None:
        """Render the plots and the hidden flow view once off-screen (fonts, axes, layout): the first visit of the
        Curves tab and the first evaluation do not stall the event loop (called in the turn after the first paint)."""
        if self.panels:
            self.grid_host.grab()
        self.flow_view.prewarm(self.curves_split.width())

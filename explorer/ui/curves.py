"""Curves: training loss (raw + smoothed), lr, grad norm, samples/s and every dev metric, live.

All selected runs are overlaid, one colour per run (legend strip above the plots; a pyqtgraph
LegendItem in x-linked plots crashes PySide6 6.12 at interpreter exit, so there is none in the plots).
Controls as in TensorBoard / SLEAP's loss viewer: smoothing slider (TensorBoard's debiased EMA),
log-scale y, ignore outliers (y range from the 2nd-98th percentiles of the visible points),
last-N-steps window, crosshair with values (header of each plot), export PNG and CSV.
Redraws are coalesced by a timer, so a fast stream of step events costs one setData per curve
per tick; curves use pyqtgraph peak downsampling and clip-to-view.
"""

from __future__ import annotations

import csv
import time
from pathlib import Path

import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (QCheckBox, QFileDialog, QGridLayout, QHBoxLayout, QLabel, QMenu, QProgressBar,
                               QPushButton, QScrollArea, QSlider, QSpinBox, QToolButton, QVBoxLayout, QWidget)

from explorer.ui.plot_panel import PALETTE, PlotPanel
from explorer.ui.run_state import DEV_PREFIX, TRAIN_SERIES, RunState, progress_text
from explorer.ui.tasks import run_in_thread

pg.setConfigOptions(antialias=False, background="w", foreground="#222")

DEV_ORDER = ("f1", "exact_match", "accuracy", "HasAns_f1", "NoAns_f1", "best_f1", "HasAns_exact",
             "NoAns_exact", "best_exact", "best_f1_thresh", "best_tau", "eval_loss")
# Dev metrics plotted by default (their plots are built at start-up, hidden until a run has them);
# the others are one click away in the "Dev metrics" menu (built on demand: ~80 ms per plot).
DEFAULT_DEV = ("f1", "exact_match", "HasAns_f1", "NoAns_f1", "accuracy")
REDRAW_MS = 150
COLUMNS = 2


def _dev_sort_key(key: str) -> tuple[int, str]:
    name = key[len(DEV_PREFIX):]
    return (DEV_ORDER.index(name) if name in DEV_ORDER else len(DEV_ORDER), name)


def write_curves_csv(path: str | Path, rows: list[tuple[str, str, list, list]]) -> int:
    """rows: (run_id, series, xs, ys) -> long-format CSV run_id,series,step,value; returns data rows."""
    n = 0
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["run_id", "series", "step", "value"])
        for run_id, name, xs, ys in rows:
            for x, y in zip(xs, ys):
                w.writerow([run_id, name, int(x) if float(x).is_integer() else x, repr(float(y))])
                n += 1
    return n


class CurvesPanel(QWidget):
    """Shows the runs given to :meth:`set_runs`; call :meth:`run_updated` when a run got events."""

    status_message = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.runs: list[RunState] = []
        self.colors: dict[str, str] = {}
        self.panels: dict[str, PlotPanel] = {}
        self._dirty: dict[str, set | None] = {}   # run_id -> series keys with new points (None = all)
        self._crosshair_step: float | None = None
        self._setting_x = False
        self.x_follow = True    # x range follows the data (False after the user pans or zooms)

        self.smooth = QSlider(Qt.Orientation.Horizontal)
        self.smooth.setRange(0, 99)
        self.smooth.setValue(60)
        self.smooth.setFixedWidth(140)
        self.smooth.setToolTip("Smoothing of the training loss, like TensorBoard: an exponential moving average "
                               "with this weight, debiased so the first points follow the data.")
        self.smooth_label = QLabel("0.60")
        self.log_box = QCheckBox("Log y")
        self.log_box.setToolTip("Logarithmic y axis (non-positive values are not drawn).")
        self.outlier_box = QCheckBox("Ignore outliers")
        self.outlier_box.setToolTip("Set each y range from the 2nd-98th percentiles of the visible points, "
                                    "so one loss spike does not flatten the curve.")
        self.last_n = QSpinBox()
        self.last_n.setRange(0, 10_000_000)
        self.last_n.setSingleStep(100)
        self.last_n.setSpecialValueText("all")
        self.last_n.setToolTip("Show only the last N optimizer steps (0 = all).")
        self.last_n.setFixedWidth(90)
        self.metrics_btn = QToolButton()
        self.metrics_btn.setText("Dev metrics")
        self.metrics_btn.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.metrics_btn.setToolTip("Which dev metrics get a plot (all the metrics of every evaluation are "
                                    "kept; this only chooses what is drawn).")
        self.metrics_menu = QMenu(self)
        self.metrics_menu.aboutToShow.connect(self._fill_metrics_menu)
        self.metrics_btn.setMenu(self.metrics_menu)
        self.shown_dev: set[str] = set(DEFAULT_DEV)
        self.png_btn = QPushButton("Export PNG…")
        self.csv_btn = QPushButton("Export CSV…")

        bar = QHBoxLayout()
        bar.addWidget(QLabel("Smoothing"))
        bar.addWidget(self.smooth)
        bar.addWidget(self.smooth_label)
        bar.addSpacing(12)
        bar.addWidget(self.log_box)
        bar.addWidget(self.outlier_box)
        bar.addSpacing(12)
        bar.addWidget(QLabel("Last N steps"))
        bar.addWidget(self.last_n)
        bar.addSpacing(12)
        bar.addWidget(self.metrics_btn)
        bar.addStretch(1)
        bar.addWidget(self.png_btn)
        bar.addWidget(self.csv_btn)

        self.legend = QLabel()
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setWordWrap(True)
        self.progress = QProgressBar()
        self.progress.setFixedWidth(220)
        self.progress.setTextVisible(True)
        self.progress_label = QLabel()
        prog = QHBoxLayout()
        prog.addWidget(self.progress)
        prog.addWidget(self.progress_label, 1)

        self.grid_host = QWidget()
        self.grid = QGridLayout(self.grid_host)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setSpacing(6)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.grid_host)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)

        lay = QVBoxLayout(self)
        lay.addLayout(bar)
        lay.addWidget(self.legend)
        lay.addLayout(prog)
        lay.addWidget(scroll, 1)

        for key in TRAIN_SERIES + tuple(DEV_PREFIX + m for m in DEFAULT_DEV):
            self._panel(key, relayout=False)
        self._relayout()

        self._timer = QTimer(self, singleShot=True, interval=REDRAW_MS)
        self._timer.timeout.connect(self.redraw_now)
        self._clock = QTimer(self, interval=1000)
        self._clock.timeout.connect(self._update_progress)
        self._clock.start()
        self.smooth.valueChanged.connect(self._smoothing_changed)
        self.log_box.toggled.connect(self._log_changed)
        self.outlier_box.toggled.connect(lambda _: self._schedule(all_runs=True))
        self.last_n.valueChanged.connect(self._last_n_changed)
        self.png_btn.clicked.connect(self._ask_png)
        self.csv_btn.clicked.connect(self._ask_csv)
        self._update_legend()
        self._update_progress()

    # ---- panels --------------------------------------------------------------------------
    def _panel(self, key: str, relayout: bool = True) -> PlotPanel:
        panel = self.panels.get(key)
        if panel is not None:
            return panel
        panel = PlotPanel(key)
        self.panels[key] = panel
        # x axes are kept in step here, not with pyqtgraph's setXLink: a link aligns views by screen
        # position, so plots whose y axes differ in width would show different step ranges.
        panel.plot.getViewBox().sigXRangeChanged.connect(lambda _vb, rng, p=panel: self._x_changed(p, rng))
        panel.set_log(self.log_box.isChecked())
        proxy = pg.SignalProxy(panel.widget.scene().sigMouseMoved, rateLimit=30,
                               slot=lambda evt, p=panel: self._mouse_moved(p, evt[0]))
        panel._proxy = proxy
        if relayout:
            self._relayout()
        return panel

    def _x_changed(self, source: PlotPanel, rng) -> None:
        """The user panned / zoomed one plot (or pressed its auto-range button): follow in all plots."""
        if self._setting_x:
            return
        vb = source.plot.getViewBox()
        if vb.state["autoRange"][0]:
            vb.disableAutoRange(axis="x")
            self.x_follow = True
            self._schedule()
            return
        self.x_follow = False
        self._set_x(tuple(rng), padding=0.0)

    def _set_x(self, rng: tuple[float, float], padding: float = 0.02) -> None:
        self._setting_x = True
        try:
            for panel in self.panels.values():
                panel.plot.getViewBox().setXRange(rng[0], rng[1], padding=padding)
        finally:
            self._setting_x = False

    def data_x_range(self) -> tuple[float, float] | None:
        """(first, last) step over every series of the displayed runs."""
        lo = min((ser.x[0] for s in self.runs for ser in s.series.values() if len(ser)), default=None)
        hi = max((ser.x[-1] for s in self.runs for ser in s.series.values() if len(ser)), default=None)
        if lo is None:
            return None
        return (float(lo), float(hi)) if hi > lo else (float(lo) - 1.0, float(hi) + 1.0)

    def visible_keys(self) -> list[str]:
        """Train plots always; a dev plot when its metric is chosen and a displayed run has it."""
        have = {k for s in self.runs for k in s.series if k.startswith(DEV_PREFIX)}
        dev = sorted((k for k in have if k[len(DEV_PREFIX):] in self.shown_dev), key=_dev_sort_key)
        return list(TRAIN_SERIES) + dev

    def _relayout(self) -> set[str]:
        """Lay out the visible plots; returns the keys that just became visible."""
        keys = self.visible_keys()
        old = getattr(self, "_layout_keys", [])
        if keys == old:
            return set()
        self._layout_keys = keys
        for panel in self.panels.values():
            self.grid.removeWidget(panel)
        for i, key in enumerate(keys):
            self.grid.addWidget(self.panels[key], i // COLUMNS, i % COLUMNS)
        for key, panel in self.panels.items():
            panel.setVisible(key in keys)
        return set(keys) - set(old)

    def _fill_metrics_menu(self) -> None:
        self.metrics_menu.clear()
        names = sorted({k[len(DEV_PREFIX):] for s in self.runs for k in s.series if k.startswith(DEV_PREFIX)}
                       | set(DEFAULT_DEV), key=lambda n: _dev_sort_key(DEV_PREFIX + n))
        for name in names:
            act = self.metrics_menu.addAction(name)
            act.setCheckable(True)
            act.setChecked(name in self.shown_dev)
            act.toggled.connect(lambda on, n=name: self.show_dev_metric(n, on))

    def show_dev_metric(self, name: str, on: bool = True) -> None:
        """Plot (or stop plotting) the dev metric ``name``."""
        (self.shown_dev.add if on else self.shown_dev.discard)(name)
        self._schedule(all_runs=True)

    def color(self, run_id: str) -> str:
        if run_id not in self.colors:
            self.colors[run_id] = PALETTE[len(self.colors) % len(PALETTE)]
        return self.colors[run_id]

    def _pairs(self) -> list[tuple[RunState, str]]:
        return [(s, self.color(s.run_id)) for s in self.runs]

    # ---- public --------------------------------------------------------------------------
    def set_runs(self, states: list[RunState]) -> None:
        """Display exactly these runs (in this order)."""
        self.runs = list(states)
        pairs = self._pairs()
        for panel in self.panels.values():
            panel.set_runs(pairs)
        self._update_legend()
        self._schedule(all_runs=True)
        self.redraw_now()

    def run_updated(self, run_id: str, changed: set | None = None) -> None:
        """A displayed run got events (``changed``: the series keys with new points; None = all):
        redraw those curves on the next timer tick."""
        if any(s.run_id == run_id for s in self.runs):
            if changed is None or run_id in self._dirty and self._dirty[run_id] is None:
                self._dirty[run_id] = None
            else:
                self._dirty.setdefault(run_id, set()).update(changed)
            if not self._timer.isActive():
                self._timer.start()

    def point_count(self, run_id: str, key: str) -> int:
        panel = self.panels.get(key)
        return panel.point_count(run_id) if panel else 0

    def _schedule(self, all_runs: bool = False) -> None:
        if all_runs:
            self._dirty.update({s.run_id: None for s in self.runs})
        if not self._timer.isActive():
            self._timer.start()

    def redraw_now(self) -> None:
        self._timer.stop()
        dirty, self._dirty = self._dirty, {}
        pairs = self._pairs()
        keys = set(self.visible_keys())
        for key in sorted(keys - set(self.panels)):
            self._panel(key, relayout=False).set_runs(pairs)
            for state in self.runs:
                dirty.setdefault(state.run_id, set())
                if dirty[state.run_id] is not None:
                    dirty[state.run_id].add(key)
        newly = self._relayout()
        weight = self.smooth.value() / 100.0
        for state in self.runs:
            wanted = dirty.get(state.run_id, set())
            for key in keys:
                if key in newly or wanted is None or key in wanted:
                    self.panels[key].update_run(state, weight)
        self._apply_view()
        self._update_progress()
        if any(s.run_id in dirty for s in self.runs):
            self._update_legend()

    def _apply_view(self) -> None:
        n = self.last_n.value()
        data = self.data_x_range()
        x_range = None
        if data is not None and n > 0:
            x_range = (max(data[0], data[1] - n), data[1])
            self._set_x(x_range, padding=0.01)
        elif data is not None and self.x_follow:
            x_range = data
            self._set_x(x_range)
        elif not self.x_follow:
            x_range = tuple(next(iter(self.panels.values())).plot.getViewBox().viewRange()[0])
        log, outliers = self.log_box.isChecked(), self.outlier_box.isChecked()
        for key in self.visible_keys():
            panel = self.panels[key]
            panel.apply_view(x_range, outliers, log and not panel.key.startswith(DEV_PREFIX))

    def _last_n_changed(self, _value: int) -> None:
        self.x_follow = True
        self._schedule(all_runs=True)

    def _smoothing_changed(self, value: int) -> None:
        self.smooth_label.setText(f"{value / 100:.2f}")
        self._schedule(all_runs=True)

    def _log_changed(self, on: bool) -> None:
        for key, panel in self.panels.items():
            panel.set_log(on and not key.startswith(DEV_PREFIX))
        self._schedule(all_runs=True)

    # ---- legend / progress ---------------------------------------------------------------
    def _update_legend(self) -> None:
        if not self.runs:
            self.legend.setText("<span style='color:#666'>No run selected. Launch a run, or select runs in the "
                                "Runs list (Ctrl/Shift-click to overlay several).</span>")
            return
        parts = []
        for state, color in self._pairs():
            best = state.best_metric()
            extra = f" · best {best[0]} {best[1]:.2f}" if best else ""
            parts.append(f"<span style='color:{color};font-size:14pt'>■</span> {state.run_id} "
                         f"<span style='color:#666'>({state.status}{extra})</span>")
        self.legend.setText("&nbsp;&nbsp;&nbsp;".join(parts))

    def focus_run(self) -> RunState | None:
        """The run the progress line describes: the first live one shown, else the first shown."""
        live = [s for s in self.runs if s.is_live]
        return (live or self.runs or [None])[0]

    def _update_progress(self) -> None:
        state = self.focus_run()
        if state is None:
            self.progress.setRange(0, 1)
            self.progress.setValue(0)
            self.progress.setFormat("no run")
            self.progress_label.setText("")
            return
        total = max(state.steps_total, 1)
        self.progress.setRange(0, total)
        self.progress.setValue(min(state.step, total))
        self.progress.setFormat(f"{state.status} · %p%")
        self.progress_label.setText(f"{state.run_id}: {progress_text(state, time.time())}")

    # ---- crosshair -----------------------------------------------------------------------
    def _mouse_moved(self, panel: PlotPanel, pos) -> None:
        vb = panel.plot.getViewBox()
        if not panel.plot.sceneBoundingRect().contains(pos):
            return
        step = vb.mapSceneToView(pos).x()
        self.set_crosshair(step)

    def set_crosshair(self, step: float | None) -> None:
        """Show the values of every displayed run at ``step`` in each plot header (None hides)."""
        self._crosshair_step = step
        pairs = self._pairs()
        for panel in self.panels.values():
            panel.show_crosshair(step, pairs)

    def prewarm(self) -> None:
        """Render the plots once off-screen (fonts, axis pictures) so that switching to the Curves
        tab at the first launch does not stall the event loop."""
        self.grid_host.grab()

    # ---- export --------------------------------------------------------------------------
    def export_png(self, path: str | Path) -> bool:
        """The plot grid as it is shown (all plots, also those scrolled out of view)."""
        return self.grid_host.grab().save(str(path))

    def csv_rows(self) -> list[tuple[str, str, list, list]]:
        return [(s.run_id, key, ser.x.copy(), ser.y.copy())
                for s in self.runs for key, ser in s.series.items() if len(ser)]

    def export_csv(self, path: str | Path, on_done=None) -> None:
        """Write run_id,series,step,value rows on a worker thread (large runs take a moment)."""
        rows = self.csv_rows()

        def done(n: int) -> None:
            self.status_message.emit(f"Wrote {n:,} points to {path}")
            if on_done:
                on_done(n)

        run_in_thread(write_curves_csv, path, rows, on_done=done,
                      on_error=lambda msg, _tb: self.status_message.emit(f"CSV export failed: {msg}"))

    def _ask_png(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export curves as PNG", "curves.png", "PNG images (*.png)")
        if path:
            ok = self.export_png(path)
            self.status_message.emit(f"Saved {path}" if ok else f"Could not write {path}")

    def _ask_csv(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export curves as CSV", "curves.csv", "CSV files (*.csv)")
        if path:
            self.export_csv(path)

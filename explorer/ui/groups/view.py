"""Group view: a run group's dev-metric curves (mean + band, runs faint behind), its table, and for a grid
the heat map of the dev metric over two chosen settings (restart spread in the tooltip).

Renders plain data from core (explorer/core/studies/groups.py load_group_data, explorer/core/studies/group_stats.py);
``export_png(path)`` grabs the whole view (also offscreen), ``export_report(folder)`` writes the report
folder (explorer/core/studies/reports.py) with the figures as PNG.
"""

from __future__ import annotations

import html
import math
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QFrame, QHBoxLayout, QLabel, QScrollArea, QSplitter, QTableWidget, \
    QTableWidgetItem, QVBoxLayout, QWidget

from explorer.core.specs.metric_display import display_number
from explorer.core.studies.group_stats import BAND_MODES, group_table, heat_map, mean_band
from explorer.ui.groups.curve_plot import LearningCurvePlotWidget
from explorer.ui.groups.group_summary import summary_head, summary_tail

pg.setConfigOptions(background="w", foreground="#222")   # the same as explorer/ui/curves/panel.py

BAND_LABELS = {"minmax": "min-max band", "sd": "± one sd band"}
MEAN_PEN = pg.mkPen("#1f5fa8", width=2.5)
RUN_PEN = pg.mkPen(color=(120, 120, 120, 90), width=1)
BAND_BRUSH = pg.mkBrush(31, 95, 168, 60)
SUMMARY_MIN_LINES = 6   # the summary area never shrinks below this many text lines (it scrolls beyond)
PLOTS_SHARE = 45        # percent of the height for the plots at first; the summary and member table get the rest


class _NumberItem(QTableWidgetItem):
    """A table cell that sorts by number (NaN last); a value of ``metric`` (display scale) reads as in the Runs
    list (core.specs.metric_display.display_number), another number with 4 significant digits."""

    def __init__(self, value, metric: str = ""):
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        digits = (lambda v: display_number(metric, v)) if metric else (lambda v: f"{v:.4g}")
        text = ("" if math.isnan(value) else digits(value)) if isinstance(value, float) else str(value)
        super().__init__(text if value is not None else "")
        self.key = (0, float(value)) if number and not math.isnan(float(value)) else (1, text)

    def __lt__(self, other):
        return self.key < getattr(other, "key", (1, other.text()))


class GroupView(QWidget):
    """``set_group(group, members, notes)`` shows a group; the band mode and heat-map axes are selectable."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.group, self.members, self.notes, self.table_data, self.heat = None, [], [], None, None
        self.pooled = None
        self.label_issues = None
        self.title = QLabel("No group")
        self.title.setWordWrap(True)
        self.band_mode = QComboBox()
        for mode in BAND_MODES:
            self.band_mode.addItem(BAND_LABELS[mode], mode)
        self.band_mode.currentIndexChanged.connect(self._draw_curves)
        self.x_axis, self.y_axis = QComboBox(), QComboBox()
        self.x_axis.currentIndexChanged.connect(self._draw_heat)
        self.y_axis.currentIndexChanged.connect(self._draw_heat)
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        self.axis_labels = []
        for label, w in (("Band", self.band_mode), ("Heat map x", self.x_axis), ("y", self.y_axis)):
            top.addWidget(QLabel(label))
            top.addWidget(w)
            self.axis_labels.append(top.itemAt(top.count() - 2).widget())
        self.curves = pg.PlotWidget(background="w")
        self.curves.setLabel("bottom", "step")
        self.curves.showGrid(x=True, y=True, alpha=0.2)
        for side in ("left", "bottom"):
            self.curves.getAxis(side).enableAutoSIPrefix(False)   # accuracy 0.69, not 690 x0.001
        self.curve_plot = LearningCurvePlotWidget()   # a learning curve group's sizes, baseline and fit
        self.heat_plot = pg.PlotWidget(background="w")
        self.heat_image = pg.ImageItem()
        self.heat_image.setColorMap(pg.colormap.get("viridis"))
        self.heat_plot.addItem(self.heat_image)
        self.heat_plot.setMouseEnabled(False, False)
        self.heat_image.setAcceptHoverEvents(True)
        self.heat_image.hoverEvent = self._heat_hover
        self.heat_labels: list = []
        self.table = QTableWidget()
        self.table.setSortingEnabled(True)
        self.summary = QLabel("")
        self.summary.setWordWrap(True)
        self.summary.setAlignment(Qt.AlignLeft | Qt.AlignTop)
        # the summary grows with the group (metrics, intervals, baseline, label errors): it scrolls in its own
        # area (the wheel scrolls it) instead of being cut by the splitter pane below the plots
        self.summary_area = QScrollArea()
        self.summary_area.setWidget(self.summary)
        self.summary_area.setWidgetResizable(True)
        self.summary_area.setFrameShape(QFrame.NoFrame)
        self.summary_area.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.summary_area.setMinimumHeight(SUMMARY_MIN_LINES * self.summary.fontMetrics().lineSpacing())
        self.plots = plots = QSplitter(Qt.Horizontal)
        plots.addWidget(self.curves)
        plots.addWidget(self.curve_plot)
        plots.addWidget(self.heat_plot)
        below = QWidget()
        lay = QVBoxLayout(below)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.summary_area, 3)
        lay.addWidget(self.table, 2)
        self.split = split = QSplitter(Qt.Vertical)
        split.addWidget(plots)
        split.addWidget(below)
        split.setChildrenCollapsible(False)
        split.setStretchFactor(0, 1)   # the plots and the figures under them share the height
        split.setStretchFactor(1, 1)
        self._shared = False           # the first share is set once the splitter has its height (showEvent)
        main = QVBoxLayout(self)
        main.addLayout(top)
        main.addWidget(split, 1)
        for w in (self.x_axis, self.y_axis, self.heat_plot, self.curve_plot, *self.axis_labels[1:]):
            w.setVisible(False)  # the heat map is for a grid, the learning curve for a curve group: set_group
        self._draw_curves()      # the empty state says what to do

    def showEvent(self, event) -> None:  # noqa: N802 (Qt naming)
        """The first time shown: PLOTS_SHARE of the height to the plots, the rest to the summary and the table
        (by size hints alone the figures took all but a strip, or the plots all but the summary's first lines)."""
        super().showEvent(event)
        if not self._shared and self.split.height() > 0:
            self._shared = True
            height = sum(self.split.sizes()) or self.split.height()
            self.split.setSizes([height * PLOTS_SHARE // 100, height - height * PLOTS_SHARE // 100])

    # -- data --------------------------------------------------------------------------------
    def show_label_issues(self, issues: dict | None) -> None:
        """Add a cv group's share of suspected label errors per class (core.studies.label_issues.
        read_group_label_issues; None: none written) under its figures, and keep it for the report."""
        self.label_issues = issues
        if issues and issues.get("withheld"):   # fold models that learned nothing judge no label: why, in amber
            self.summary.setText(self.summary.text() + "<br><span style='color:#b26a00'>suspected label errors: "
                                 f"none listed: {html.escape(issues['withheld'])}</span>")
        elif issues:
            self.summary.setText(self.summary.text() + "<br>suspected label errors (cleanlab, out-of-fold): "
                                 + "; ".join(issues.get("lines", [])))

    def show_baselines(self, lines: list[str]) -> None:
        """Add the group's bag-of-words baseline in words (explorer.ui.groups.group_baselines) under its figures."""
        if lines:
            self.summary.setText(self.summary.text() + "<br>" + "<br>".join(html.escape(x) for x in lines))

    def set_group(self, group, members, notes=(), pooled=None) -> None:
        """Show ``group`` (core.studies.groups.Group) with its members ([group_stats.MemberData]); for a cross-validation
        group ``pooled`` is its core.studies.cv_runs.OofResult (the pooled out-of-fold figures), for a learning curve
        its figures in words and its plot (explorer.ui.groups.curve_plot_model.CurveShown), or None (not yet)."""
        self.group, self.members, self.notes, self.pooled = group, list(members), list(notes), pooled
        self.label_issues = None
        self.table_data = group_table(self.members, list(group.varied))
        counts = {}
        for m in self.members:
            counts[m.status] = counts.get(m.status, 0) + 1
        status = ", ".join(f"{n} {s}" for s, n in counts.items())
        self.title.setText(f"<b>{group.name}</b>: {group.kind}, {len(self.members)} runs ({status}); "
                           f"varied {', '.join(group.varied)}")
        if group.kind == "cv":
            self.title.setText(f"<b>{group.name}</b>: {group.cv.get('k', len(self.members))}-fold cross-validation "
                               f"of {Path(str(group.cv.get('source', ''))).name}, {len(self.members)} folds "
                               f"({status}); each fold's run trains on the other folds and is scored on its own")
        name = self.table_data.label or "dev metric"
        said = group.kind == "cv" and self.pooled is not None and bool(self.pooled.one_class_note(group.base))
        self.summary.setText(summary_head(group, self.members, self.table_data, self.notes, said))
        if group.kind == "curve":   # each size's figure with its interval, the baseline and the next doubling
            waiting = ("learning curve: not scored yet (each size's dev rows are predicted when every size's run "
                       "has finished)")
            lines = self.pooled.lines if self.pooled is not None else [waiting]
            self.summary.setText(self.summary.text() + "<br>" + "<br>".join(html.escape(x) for x in lines)
                                 + summary_tail(group, self.members, self.table_data))
            self.curve_plot.show_curve(self.pooled.plot if self.pooled is not None else None, waiting)
        if group.kind == "curve" and not self.curve_plot.isVisibleTo(self):   # the curve first: 2/3 of the width
            self.curve_plot.setVisible(True)
            third = max(self.plots.width(), 900) // 3
            self.plots.setSizes([third, 2 * third, 0])
        self.curve_plot.setVisible(group.kind == "curve")
        if group.kind == "cv":   # the pooled figures answer the cross-validation: first, in bold
            self.summary.setText(self._pooled_lines() + "<br>" + self.summary.text())
        from explorer.core.metrics.optimism import figure_marks

        best_mark = figure_marks(chosen_on_rows=("each run's best evaluation (best " + name + ")",))
        self.summary.setText(self.summary.text() + "".join(f"<br><i>! {m.text}</i>" for m in best_mark))
        self.summary.setToolTip("\n".join(self.notes))
        self._fill_table()
        axes = [v for v in group.varied if v != "seed"] or list(group.varied)
        for combo, pick in ((self.x_axis, 0), (self.y_axis, 1)):
            combo.blockSignals(True)
            combo.clear()
            combo.addItems(axes)
            combo.setCurrentIndex(min(pick, len(axes) - 1))
            combo.blockSignals(False)
        grid = group.kind == "grid" and len(axes) >= 2
        for w in (self.x_axis, self.y_axis, self.heat_plot, *self.axis_labels[1:]):
            w.setVisible(grid)
        for w in (self.band_mode, self.axis_labels[0]):   # a band spans restarts or folds, not sizes
            w.setVisible(group.kind != "curve")
        self._draw_curves()
        self._draw_heat()

    def _pooled_lines(self) -> str:
        """A cv group's pooled out-of-fold line (every example predicted once by the fold's run that never saw it)
        with the group's ranking metric first, and where its predictions are."""
        task = next((m.task for m in self.members if m.task), None)
        text = (self.pooled.text(task, first=self.table_data.metric_name) if self.pooled is not None
                else "pooled out-of-fold: not yet (the folds are predicted when every fold's run has finished)")
        where = f"<br>out-of-fold predictions: {self.pooled.path}" if self.pooled and self.pooled.path else ""
        from explorer.core.studies.cv_runs import group_rare_note

        rare = group_rare_note(self.group)   # classes held out in only some folds: said under the pooled figures
        stuck = self.pooled.one_class_note(self.group.base) if self.pooled is not None else ""
        return (f"<b>{text}</b>{where}" + (f"<br><span style='color:#b26a00'>{html.escape(stuck)}</span>" if stuck
                                           else "") + (f"<br>{html.escape(rare)}" if rare else ""))

    def _fill_table(self) -> None:
        t = self.table_data
        self.table.setSortingEnabled(False)
        self.table.clear()
        self.table.setColumnCount(len(t.columns))
        self.table.setHorizontalHeaderLabels([c if c not in ("final", "best") else f"{c} {t.label}"
                                              for c in t.columns])
        self.table.setRowCount(len(t.rows))
        for i, row in enumerate(t.rows):
            for j, col in enumerate(t.columns):
                item = _NumberItem(row.get(col), t.metric_name if col in ("final", "best") else "")
                why = t.undefined.get(row.get("run_id")) if col in ("final", "best") else None
                if why and not item.text():   # the metric undefined (constant predictions), not missing
                    item.setText("undefined")
                    item.setToolTip(why)
                self.table.setItem(i, j, item)
        self.table.setSortingEnabled(True)
        self.table.resizeColumnsToContents()

    # -- drawing -----------------------------------------------------------------------------
    def _draw_curves(self) -> None:
        self.curves.clear()
        if not self.members:
            self.curves.setTitle("no group: pick one in the list beside or in the Runs dock")
            return
        name = (self.table_data.label if self.table_data else "") or "metric"
        if self.group is not None and self.group.kind == "curve":
            self._draw_sizes(name)   # one run per size on other rows: no mean across them
            return
        for m in self.members:
            if len(m.eval_steps):
                self.curves.plot(m.eval_steps, m.eval_values, pen=RUN_PEN)
        band = mean_band([(m.eval_steps, m.eval_values) for m in self.members], self.band_mode.currentData())
        if len(band.steps):
            low = self.curves.plot(band.steps, band.low, pen=None)
            high = self.curves.plot(band.steps, band.high, pen=None)
            self.curves.addItem(pg.FillBetweenItem(low, high, brush=BAND_BRUSH))
            self.curves.plot(band.steps, band.mean, pen=MEAN_PEN, symbol="o", symbolSize=5,
                             symbolBrush="#1f5fa8", name="mean")
        values = np.concatenate([m.eval_values for m in self.members] + [band.low, band.high])
        values = values[np.isfinite(values)]
        if len(values):   # the data's own range (a fill item would otherwise pull the axis down to 0)
            low, high = float(values.min()), float(values.max())
            pad = max((high - low) * 0.08, 1e-3)
            self.curves.setYRange(low - pad, high + pad, padding=0)
        with_points = sum(1 for m in self.members if len(m.eval_steps))
        if not with_points:
            self.curves.setTitle(f"no dev evaluation yet in the {len(self.members)} runs of this group")
        else:
            self.curves.setTitle(f"dev {name}: mean of {with_points} of {len(self.members)} runs (grey: each run), "
                                 f"{BAND_LABELS[self.band_mode.currentData()]}")
        self.curves.setLabel("left", name)

    def _draw_sizes(self, name: str) -> None:
        """A learning curve's dev curves, one coloured line per size with its size in the legend."""
        from explorer.core.studies.group_stats import size_of

        legend = self.curves.addLegend(offset=(10, 10))   # top left: rising curves leave it free
        legend.clear()
        drawn = [m for m in self.members if len(m.eval_steps)]
        for i, m in enumerate(drawn):
            self.curves.plot(m.eval_steps, m.eval_values, pen=pg.mkPen(pg.intColor(i, hues=max(len(drawn), 1)),
                                                                      width=2), symbol="o", symbolSize=4,
                             name=size_of(m))
        # the legend names the sizes and the axis the metric: a title would widen this narrow plot past its pane
        self.curves.setTitle("" if drawn else "no evaluation yet")   # "" first: a hidden title keeps its width
        if drawn:
            self.curves.setTitle(None)
        self.curves.setLabel("left", f"dev {name}")

    def _draw_heat(self) -> None:
        for item in self.heat_labels:
            self.heat_plot.removeItem(item)
        self.heat_labels, self.heat = [], None
        x, y = self.x_axis.currentText(), self.y_axis.currentText()
        if not self.heat_plot.isVisibleTo(self) and self.group is not None and self.group.kind != "grid":
            return
        if not x or not y or x == y or self.table_data is None:
            self.heat_image.clear()
            return
        self.heat = heat_map(self.table_data.rows, x, y, "best")
        data = np.nan_to_num(self.heat.mean.T, nan=np.nanmin(self.heat.mean) if np.isfinite(self.heat.mean).any() else 0)
        self.heat_image.setImage(data, autoLevels=True)
        for iy in range(len(self.heat.y_values)):
            for ix in range(len(self.heat.x_values)):
                v = self.heat.mean[iy, ix]
                text = pg.TextItem("-" if math.isnan(v) else f"{v:.3g}", color="w", anchor=(0.5, 0.5))
                text.setPos(ix + 0.5, iy + 0.5)
                self.heat_plot.addItem(text)
                self.heat_labels.append(text)
        ax_b, ax_l = self.heat_plot.getAxis("bottom"), self.heat_plot.getAxis("left")
        ax_b.setTicks([[(i + 0.5, f"{v:g}" if isinstance(v, float) else str(v)) for i, v in enumerate(self.heat.x_values)]])
        ax_l.setTicks([[(i + 0.5, f"{v:g}" if isinstance(v, float) else str(v)) for i, v in enumerate(self.heat.y_values)]])
        self.heat_plot.setLabel("bottom", x)
        self.heat_plot.setLabel("left", y)
        self.heat_plot.setTitle(f"best {self.table_data.label} (mean over restarts)")

    def heat_tooltip(self, ix: int, iy: int) -> str:
        """The tooltip of heat-map cell (ix, iy): value, ± sd, range and n over the restarts."""
        return self.heat.tooltip(iy, ix) if self.heat is not None else ""

    def _heat_hover(self, event) -> None:
        if event.isExit() or self.heat is None:
            self.heat_plot.setToolTip("")
            return
        pos = event.pos()
        ix, iy = int(pos.x()), int(pos.y())
        if 0 <= ix < len(self.heat.x_values) and 0 <= iy < len(self.heat.y_values):
            self.heat_plot.setToolTip(self.heat_tooltip(ix, iy))

    # -- export ------------------------------------------------------------------------------
    def export_png(self, path: str | Path) -> bool:
        """The whole view as PNG (works offscreen)."""
        return self.grab().save(str(path))

    def export_report(self, folder: str | Path) -> Path:
        """The report folder: group.png + curves.png (+ heatmap.png for a grid), report.md, CSV tables."""
        from explorer.core.studies.reports import write_group_report

        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        self.export_png(folder / "group.png")
        self.curves.grab().save(str(folder / "curves.png"))
        if self.group.kind == "curve" and self.curve_plot.drawn is not None:
            self.curve_plot.grab().save(str(folder / "learning_curve.png"))
        if self.heat is not None and self.heat_plot.isVisibleTo(self):
            self.heat_plot.grab().save(str(folder / "heatmap.png"))
        out = write_group_report(folder, self.group, self.members, self.table_data,
                                 self.heat if self.group.kind == "grid" else None, self.notes,
                                 band_mode=self.band_mode.currentData(),
                                 pooled=self.pooled if self.group.kind == "cv" else None,
                                 label_issues=self.label_issues,
                                 curve_lines=self.pooled.lines if self.group.kind == "curve" and self.pooled else None)
        return out


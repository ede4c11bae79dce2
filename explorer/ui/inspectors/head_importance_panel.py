"""The Attention page's head importance: a dev file scored in the inspector child (op ``head_importance``), drawn as
a layer x head heat map of the importance (the gradient of the dev loss with respect to a gate on each head,
per-layer normalised; Michel et al. 2019) beside the "prune the least important heads" curve. The texts and the
request come from explorer.ui.inspectors.components.head_masking. The scoring is one dev pass for the map and
one per curve point: the progress row (JobBar) counts its dev batches, says the time left and cancels between
batches.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPoint, QTimer
from PySide6.QtWidgets import (QCheckBox, QComboBox, QHBoxLayout, QLabel, QLineEdit, QPushButton,
                               QSpinBox, QVBoxLayout, QWidget)

from explorer.ui.shell.file_dialogs import open_file
from explorer.ui.shell.panes_or_tabs import PanesOrTabs
from explorer.ui.shell.scrolling import page_scroll_area

from .components.head_masking import (curve_points, importance_axes, importance_hover, importance_matrix,
                                      importance_request, importance_summary)
from .heatmap import TokenHeatmap
from .job_bar import JobBar
from .remote import RemoteJob

# px each plot needs side by side; narrower, the two are tabs of the whole width (at 1280x800 beside each other the
# map's data area was 71 px wide for all of a layer's heads, colour bar and layer labels taking the rest)
MAP_MIN_WIDTH = 380
CURVE_MIN_WIDTH = 260
SCORING_MIN_WIDTH = 250   # px of the fields and the caption as a pane beside the plots (all three at 1920x1080)
# px each plot keeps: a data area of 120 px or more inside its axes, and with the tab bar and the readout no more
# than the lower tab's page at 1280x800 (229 px), so the whole map is in view there without scrolling the page
PLOT_MIN_HEIGHT = 165


class HeadImportancePanel(QWidget):
    """Dev file, cap and curve points, "Score heads", the heat map and the curve. ``window()`` gives the page's
    window settings (max_seq_length, doc_stride, max_query_length) for the request, or {}."""

    def __init__(self, client, slot: str, window: Callable[[], dict] | None = None, parent=None):
        super().__init__(parent)
        self.slot = slot
        self.window = window or dict
        self.report: dict | None = None
        self._dev_from_run = ""   # the dev file a run put in (replaced by the next run's; a typed one stays)
        self._dev_file = None     # that file as shown and as read (core.models.checkpoint_windows.RunDevFile)
        self.job = RemoteJob(client, self)
        self.job.finished.connect(self.show_report)
        self.job.failed.connect(lambda msg, _tb: self._stopped(msg))
        self.job.cancelled.connect(lambda: self._stopped("Scoring cancelled; the map and the curve are not drawn."))
        self.job_bar = JobBar("dev batches", cancel_tip="Stop after the current dev batch; nothing of this scoring "
                                                        "is shown")
        self.job_bar.cancel_requested.connect(self.job.cancel)
        self.job.progress.connect(self.job_bar.set_progress)
        self.dev = QLineEdit()
        self.dev.setPlaceholderText("a dev file of the model's task (SQuAD JSON, TSV/CSV, CoNLL)")
        browse = QPushButton("…")
        browse.setMaximumWidth(32)
        browse.clicked.connect(self._browse)
        self.cap = QSpinBox(minimum=1, maximum=100_000, value=200)
        self.cap.setToolTip("dev examples scored")
        self.steps = QSpinBox(minimum=0, maximum=50, value=10)
        self.steps.setToolTip("points of the pruning curve (10: 10% more heads masked at each)")
        self.iterative = QCheckBox("iterative")
        self.iterative.setToolTip("rank the heads again with the masked ones off before each step of the curve "
                                  "(Michel et al. 2019; one forward and backward pass per point)")
        self.task = QComboBox()
        self.task.setToolTip("the task the dev file is read as (its reader, loss and metric)")
        self.run_button = QPushButton("Score heads")
        self.run_button.clicked.connect(self.run)
        self.task.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.task.setMinimumContentsLength(12)
        row = QHBoxLayout()   # three rows: one would widen the window beyond 1280 px
        for w in (QLabel("Task"), self.task):
            row.addWidget(w)
        row.addStretch(1)
        row.addWidget(self.run_button)
        dev_row = QHBoxLayout()
        for w in (QLabel("Dev file"), self.dev, browse, self.iterative):
            dev_row.addWidget(w)
        dev_row.setStretchFactor(self.dev, 1)
        row2 = QHBoxLayout()
        for w in (QLabel("Examples"), self.cap, QLabel("Curve points"), self.steps):
            row2.addWidget(w)
        row2.addStretch(1)
        self.caption = QLabel("Head importance: the gradient of the dev loss with respect to a gate on each head, "
                              "normalised per layer (Michel et al. 2019). Choose a dev file and press Score heads.")
        self.caption.setWordWrap(True)
        self.heat = TokenHeatmap(cmap="viridis", colorbar_label="importance")
        self.heat.hovered.connect(self._hover)
        self.readout = QLabel("")   # the head under the mouse, named as the Attention page and Heads off name it
        self.curve = pg.PlotWidget(background="w")
        self.curve.setLabel("bottom", "heads kept")
        self.curve.setLabel("left", "dev metric")
        self.curve.showGrid(x=True, y=True, alpha=0.3)
        for plot in (self.heat, self.curve):
            plot.setMinimumHeight(PLOT_MIN_HEIGHT)
        # the fields and the caption share the space with the plots: a pane beside them where all three fit, else
        # the first of three tabs, so the map gets the tab's whole height (under the fields it was a scroll away
        # in the lower tab at 1280x800)
        self.scoring = QWidget()
        fields = QVBoxLayout(self.scoring)
        fields.setContentsMargins(0, 0, 0, 0)
        fields.addLayout(row)
        fields.addLayout(dev_row)
        fields.addLayout(row2)
        fields.addWidget(self.job_bar)
        fields.addWidget(self.caption)
        fields.addStretch(1)
        split = self.plots = PanesOrTabs()
        split.add(self.scoring, "Scoring", SCORING_MIN_WIDTH)
        split.add(self.heat, "Importance map", MAP_MIN_WIDTH)
        split.add(self.curve, "Pruning curve", CURVE_MIN_WIDTH)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 0)
        layout.addWidget(split, 1)
        layout.addWidget(self.readout)

    def set_tasks(self, names, current: str | None = None) -> None:
        """The tasks the model's head can be scored as (explorer.core.specs.tasks names), ``current`` chosen."""
        self.task.clear()
        self.task.addItems(list(names))
        if current in names:
            self.task.setCurrentText(current)

    def prefill_dev(self, dev) -> None:
        """Put the inspected run's dev file ``dev`` (core.models.checkpoint_windows.RunDevFile, or None) in the Dev file
        field, as the user gave it, unless the user typed another one there; None (a model without a run's dev
        file) clears only what a previous run put in. The file read is ``dev.path`` (a remote run's copy on its
        host; the tooltip says so) while the field shows it."""
        now = self.dev.text().strip()
        shown = dev.shown if dev is not None else ""
        if not now or now == self._dev_from_run:
            self.dev.setText(shown)
            self._dev_from_run = shown
        self._dev_file = dev
        self.dev.setToolTip(dev.note if dev is not None and self.dev.text().strip() == shown else "")

    def _browse(self) -> None:
        path = open_file(self, "Dev file", "data", "", self.dev.text())
        if path:
            self.dev.setText(path)

    def run(self) -> int | None:
        """Ask the child to score the heads; the request id, or None when no dev file is named."""
        dev = self._dev_file.to_read(self.dev.text()) if self._dev_file is not None else self.dev.text()
        data = importance_request(self.slot, dev, self.cap.value(), self.steps.value(), self.window(),
                                  task=self.task.currentText(), iterative=self.iterative.isChecked())
        if data is None:
            self.caption.setText("Choose a dev file of the model's task first.")
            return None
        self.caption.setText("scoring heads on the dev set: one pass for the map, one per curve point …")
        self.run_button.setEnabled(False)
        self.job_bar.start()
        return self.job.start("head_importance", data)

    def _stopped(self, message: str) -> None:
        """The scoring ended without a report (failed or cancelled): the row goes, ``message`` says why."""
        self.job_bar.finish()
        self.run_button.setEnabled(True)
        self.caption.setText(message)

    def show_report(self, report: dict) -> None:
        """Draw a head_importance report (explorer.core.ablation.importance.importance_report)."""
        self.job_bar.finish()
        self.run_button.setEnabled(True)
        self.report = report
        m = np.asarray(importance_matrix(report), dtype=np.float32)
        self.heat.set_matrix(m, *importance_axes(report), levels=(0.0, 1.0))
        self.caption.setText(importance_summary(report))
        x, y = curve_points(report)
        self.curve.clear()
        self.curve.setLabel("left", report["importance"]["metric"])
        if x:
            self.curve.plot(x, y, pen=pg.mkPen("#1f77b4", width=2), symbol="o", symbolSize=6)
        if self.plots.tabbed:   # the map is what a scoring is for: its tab, the caption one click away
            self.plots.tabs.setCurrentWidget(self.heat)
        QTimer.singleShot(0, self._scroll_to_plots)   # once the caption's new lines are laid out

    def _scroll_to_plots(self) -> None:
        """Where this page scrolls inside a low tab (the Attention page's lower tabs at 1280x800), bring the plots'
        top into view: the fields and caption above them stay a scroll away, the map is what a scoring is for."""
        area = page_scroll_area(self)
        if area is None or area.verticalScrollBar().maximum() <= 0:
            return
        area.verticalScrollBar().setValue(self.plots.mapTo(area.widget(), QPoint(0, 0)).y())

    def _hover(self, row: int, col: int) -> None:
        self.readout.setText(importance_hover(self.report, row, col) if self.report else "")

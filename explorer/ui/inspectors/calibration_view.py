"""The calibration view: reliability diagrams before and after temperature scaling, side by side
(explorer.core.metrics.calibration). Opened from Classify: dev set ("Calibration..."), from the dev logits the
inspector child scored (core.classify.dev_report.ClassificationDevReport.logits).

Each diagram: 10 confidence bins; a bar per bin at its accuracy (share right), the dashed diagonal =
perfectly calibrated, the count of examples above each bar. "Before" = softmax(z); "after" = softmax(z / T)
with T fitted on the other half of dev (both halves held out, pooled). "Save with the run" writes
``<run>/calibration.json``, which ``bert-explorer predict`` applies unless ``--no-calibration``.

``SquadCalibrationView``: SQuAD's two diagrams (core.metrics.calibration.squad_calibration), opened from the τ on a dev
set page after a study: the best span's probability against exact match, and answering vs abstaining
(P(answer) = sigmoid(score_diff − τ) against "has an answer"), each with ECE, MCE and Brier."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from explorer.core.metrics.calibration import run_dir_of_checkpoint, save_calibration
from explorer.ui.shell.screen_fit import keep_on_screen

from .common import StatusLabel

pg.setConfigOptions(background="w", foreground="#222")   # the same as explorer/ui/curves/panel.py


class CalibrationView(QWidget):
    """``set_calibration(core.metrics.calibration.Calibration, checkpoint="")``; ``save()`` writes calibration.json."""

    def __init__(self, parent=None):
        super().__init__(parent)
        keep_on_screen(self)   # shown or resized, its frame stays inside the screen
        self.calibration, self.checkpoint = None, ""
        self.setWindowTitle("Calibration")
        self.summary = QLabel("No calibration")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.plots = []
        row = QHBoxLayout()
        for title in ("before", "after"):
            p = pg.PlotWidget(background="w")
            p.setMouseEnabled(False, False)
            p.setLabel("bottom", "confidence (P of the predicted class)")
            p.setLabel("left", "accuracy in the bin")
            p.setXRange(0, 1, padding=0.02)
            p.setYRange(0, 1.08, padding=0.02)
            self.plots.append(p)
            row.addWidget(p)
        self.save_button = QPushButton("Save with the run")
        self.save_button.setToolTip("Write calibration.json into the checkpoint's run folder; bert-explorer predict "
                                    "then divides the logits by T (unless --no-calibration)")
        self.save_button.clicked.connect(self.save)
        self.status = StatusLabel("")
        bottom = QHBoxLayout()
        bottom.addWidget(self.save_button)
        bottom.addWidget(self.status, 1)
        lay = QVBoxLayout(self)
        lay.addWidget(self.summary)
        lay.addLayout(row, 1)
        lay.addLayout(bottom)

    def set_calibration(self, calibration, checkpoint: str = "") -> None:
        """Show a core.metrics.calibration.Calibration; ``checkpoint``: where it came from (its run gets the file)."""
        c = self.calibration = calibration
        self.checkpoint = str(checkpoint or "")
        self.setWindowTitle(f"Calibration of {self.checkpoint}" if self.checkpoint else "Calibration")
        self.summary.setText("<br>".join(c.lines()) + "<br><i>bars: accuracy in each confidence bin (count above); "
                             "◆ the bin's mean confidence; dashed: perfectly calibrated. After = each half at the T "
                             "fitted on the other half.</i>")
        for plot, rel, name in ((self.plots[0], c.before, "before softmax(z)"),
                                (self.plots[1], c.after, "after softmax(z/T)")):
            self._draw(plot, rel, f"{name}: ECE {rel.ece:.3f}, MCE {rel.mce:.3f}, Brier {rel.brier:.3f}")
        run = run_dir_of_checkpoint(self.checkpoint) if self.checkpoint else None
        self.save_button.setEnabled(run is not None)
        self.status.setText(f"saves to {run}/calibration.json" if run else "not a run checkpoint: nothing to save to")

    @staticmethod
    def _draw(plot, rel, title: str) -> None:
        plot.clear()
        edges = np.asarray(rel.edges)
        mids, width = (edges[:-1] + edges[1:]) / 2, float(edges[1] - edges[0])
        acc = np.nan_to_num(np.asarray(rel.accuracy, dtype=float))
        conf = np.asarray(rel.confidence, dtype=float)
        full = np.asarray(rel.counts) > 0   # an empty bin draws nothing
        plot.addItem(pg.BarGraphItem(x=mids[full], height=acc[full], width=width * 0.9,
                                     brush=pg.mkBrush(31, 95, 168, 170)))
        plot.plot(mids[full], conf[full], pen=None, symbol="d", symbolSize=7, symbolBrush="#d07a12", symbolPen=None)
        plot.plot([0, 1], [0, 1], pen=pg.mkPen("#888", style=Qt.DashLine))
        for x, h, n in zip(mids, acc, rel.counts):
            if n:
                t = pg.TextItem(str(n), color="#222", anchor=(0.5, 1.0))
                t.setPos(float(x), float(h) + 0.01)
                plot.addItem(t)
        plot.setTitle(title)
        plot.disableAutoRange()
        plot.setXRange(0, 1, padding=0.02)
        plot.setYRange(0, 1.08, padding=0.02)

    def save(self) -> Path | None:
        """Write calibration.json into the checkpoint's run folder; returns its path (None: nowhere to save)."""
        run = run_dir_of_checkpoint(self.checkpoint) if self.checkpoint else None
        if self.calibration is None or run is None:
            return None
        path = save_calibration(run, self.calibration)
        self.status.setText(f"saved {path}")
        return path

    def export_png(self, path: str | Path) -> bool:
        return self.grab().save(str(path))


class SquadCalibrationView(QWidget):
    """``set_calibration(core.metrics.calibration.SquadCalibration)``: the best span and answering diagrams side by side."""

    def __init__(self, parent=None):
        super().__init__(parent)
        keep_on_screen(self)   # shown or resized, its frame stays inside the screen
        self.calibration = None
        self.setWindowTitle("SQuAD calibration")
        self.summary = QLabel("No calibration")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.plots = []
        row = QHBoxLayout()
        for x_label, y_label in (("probability of the best span", "exact match in the bin"),
                                 ("P(answer) = sigmoid(score_diff − τ)", "share with an answer in the bin")):
            p = pg.PlotWidget(background="w")
            p.setMouseEnabled(False, False)
            p.setLabel("bottom", x_label)
            p.setLabel("left", y_label)
            self.plots.append(p)
            row.addWidget(p)
        lay = QVBoxLayout(self)
        lay.addWidget(self.summary)
        lay.addLayout(row, 1)

    def set_calibration(self, calibration) -> None:
        """Show a core.metrics.calibration.SquadCalibration (a diagram it lacks says why)."""
        c = self.calibration = calibration
        self.summary.setText("<br>".join(c.lines()) + "<br><i>bars: share right in each bin (count above); ◆ the "
                             "bin's mean probability; dashed: perfectly calibrated.</i>")
        for plot, rel, name, none in ((self.plots[0], c.best_span, "best span", "no question with an answer"),
                                      (self.plots[1], c.answering, f"answer vs abstain (τ {c.tau:+.2f})",
                                       "SQuAD v1.1 dev set: every question has an answer")):
            if rel is None:
                plot.clear()
                plot.setTitle(f"{name}: {none}")
                continue
            CalibrationView._draw(plot, rel, f"{name}: ECE {rel.ece:.3f}, MCE {rel.mce:.3f}, Brier {rel.brier:.3f}")

    def export_png(self, path: str | Path) -> bool:
        return self.grab().save(str(path))


def show_squad_calibration(view: "SquadCalibrationView | None", study, figures, tau: float):
    """The calibration of a τ study (explorer.core.qa.tau_study.TauStudy and its figures) at ``tau`` in ``view``
    (a new window when None), shown and raised: (view, "") or (view unchanged, the reason it cannot be computed)."""
    from explorer.core.metrics.calibration import squad_calibration

    try:
        cal = squad_calibration(study.decodings, figures.scores, tau=tau)
    except ValueError as exc:
        return view, f"calibration: {exc}"
    if view is None:
        view = SquadCalibrationView()
        view.resize(1100, 520)
    view.set_calibration(cal)
    view.show()
    view.raise_()
    return view, ""

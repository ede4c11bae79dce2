"""τ on a dev set: run the model over a SQuAD v2.0 file once, then see F1, EM, HasAns_f1, NoAns_f1
and the answer rate against τ, the best τ, the honest τ (chosen on one half, scored on the other),
and the questions a small move of τ would flip. Results are cached per (model, file, cap) by
explorer.core.tau_study, so reopening is instant. All numbers come from explorer.core.metrics.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QFileDialog, QHBoxLayout, QHeaderView, QLabel, QLineEdit,
                               QProgressBar, QPushButton, QSpinBox, QSplitter, QTableWidget, QTableWidgetItem,
                               QVBoxLayout, QWidget)

from explorer.core.tau_study import StudyCancelled, questions_near, run_study, study_figures

from .common import header, tip
from .tau_spin import tau_spin_box
from .workers import CancellableJob

NEAR_ROWS = 100
CURVES = [("f1", "F1", "#d62728", 2.5), ("exact_match", "EM", "#9467bd", 1.5),
          ("HasAns_f1", "HasAns_f1", "#2ca02c", 1.5), ("NoAns_f1", "NoAns_f1", "#1f77b4", 1.5),
          ("answer_rate", "answer rate %", "#7f7f7f", 1.5)]


def _study_and_figures(loaded, path: str, cap: int | None, cache_dir, progress=None):
    """Worker: run (or reload) the study, then its figures."""
    study = run_study(loaded, path, cap, progress=progress, cache_dir=cache_dir)
    return study, study_figures(study)


class DevTauView(QWidget):
    """The τ study. set_model(LoadedModel); run(path, cap) or the Run button.

    Signals:
        open_question(question, passage, tau): the user clicked a question of the table.
        study_ready(object): a TauStudy is shown (tests and the hub may listen).
    """

    open_question = Signal(str, str, float)
    study_ready = Signal(object)

    def __init__(self, parent=None, cache_dir: Path | None = None):
        super().__init__(parent)
        self.loaded = None
        self.cache_dir = cache_dir
        self.study = None
        self.figures = None
        self._near: np.ndarray = np.zeros(0, dtype=np.int64)
        self._syncing = False
        self.job = CancellableJob(parent=self, cancel_exceptions=(StudyCancelled,))
        self.job.progress.connect(self._on_progress)
        self.job.finished.connect(self._on_finished)
        self.job.failed.connect(self._on_failed)
        self.job.cancelled.connect(lambda: self._done_running("cancelled"))

        self.path = QLineEdit()
        self.path.setPlaceholderText("SQuAD v2.0 dev file (official JSON)")
        self.browse = QPushButton("Browse…")
        self.cap = QSpinBox()
        self.cap.setRange(0, 1_000_000)
        self.cap.setSpecialValueText("all questions")
        self.cap.setPrefix("first ")
        self.cap.setSuffix(" questions")
        self.cap.setToolTip("Use only the first N questions of the file (0 = all). Inference is the slow part.")
        self.run_button = QPushButton("Run")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.progress = QProgressBar()
        self.progress.setFormat("%v / %m windows")
        self.progress.setValue(0)
        self.status = QLabel("Pick a SQuAD v2.0 file and press Run; results are cached per model, file and cap.")
        self.status.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.path, 1)
        row.addWidget(self.browse)
        row.addWidget(self.cap)
        row.addWidget(self.run_button)
        row.addWidget(self.cancel_button)

        self.plot = pg.PlotWidget(background="w")
        self.plot.setLabel("bottom", "τ (answer iff score_diff > τ)")
        self.plot.setLabel("left", "percent")
        self.plot.addLegend(offset=(-5, 5))
        self.plot.setToolTip(tip("tau"))
        self.curves = {}
        for key, name, color, width in CURVES:
            self.curves[key] = self.plot.plot([], [], pen=pg.mkPen(color, width=width), name=name)
        self.exact_curve = self.plot.plot([], [], pen=pg.mkPen("#d62728", width=1, style=Qt.PenStyle.DotLine),
                                          name="F1, exact sweep")
        self.best_line = pg.InfiniteLine(angle=90, pen=pg.mkPen("#d62728", width=1, style=Qt.PenStyle.DashLine),
                                         label="best τ {value:+.2f}", labelOpts={"position": 0.88, "color": "#d62728"})
        self.tau_line = pg.InfiniteLine(angle=90, movable=True, pen=pg.mkPen("#222", width=2),
                                        label="τ {value:+.2f}", labelOpts={"position": 0.95, "color": "#222"})
        self.best_marker = pg.ScatterPlotItem(symbol="star", size=16, brush="#d62728", pen=None)
        for item in (self.best_line, self.tau_line, self.best_marker):
            self.plot.addItem(item)
        self.best_line.setVisible(False)
        self.tau_line.setVisible(False)

        self.summary = QLabel("")
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary.setToolTip(tip("honest_tau"))

        self.tau = tau_spin_box()
        self.export_button = QPushButton("Export predictions.json + null_odds.json…")
        self.export_button.setEnabled(False)
        self.export_button.setToolTip("Writes predictions.json (answers at this τ), nbest_predictions.json and "
                                      "null_odds.json (-score_diff, the file evaluate-v2.0.py reads with "
                                      "--na-prob-file).")
        self.at_tau = QLabel("")
        trow = QHBoxLayout()
        trow.addWidget(QLabel("chosen τ"))
        trow.addWidget(self.tau)
        trow.addWidget(self.at_tau, 1)
        trow.addWidget(self.export_button)

        self.table = QTableWidget(0, 7)
        self.table.setHorizontalHeaderLabels(["score_diff", "|score_diff − τ|", "at τ", "gold", "best span",
                                              "F1 at τ", "question"])
        self.table.horizontalHeader().setSectionResizeMode(6, QHeaderView.ResizeMode.Stretch)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(False)
        self.table.setToolTip("The questions whose score_diff is nearest to τ: a small move of τ flips them. "
                              "Click one to open it in the Spans & τ view.")

        top = QWidget()
        tl = QVBoxLayout(top)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addWidget(self.plot, 1)
        tl.addWidget(self.summary)
        bottom = QWidget()
        bl = QVBoxLayout(bottom)
        bl.setContentsMargins(0, 0, 0, 0)
        bl.addLayout(trow)
        bl.addWidget(self.table, 1)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(top)
        split.addWidget(bottom)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)

        layout = QVBoxLayout(self)
        layout.addWidget(header("Choose τ on a dev set: F1, EM, HasAns_f1, NoAns_f1 and answer rate against τ, the "
                                "best τ, the honest figure (τ chosen on one half, scored on the other), and the "
                                "questions a small move of τ would flip.", panel="τ on dev set"))
        layout.addLayout(row)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addWidget(split, 1)

        self.browse.clicked.connect(self._browse)
        self.run_button.clicked.connect(lambda: self.run(self.path.text(), self.cap.value()))
        self.cancel_button.clicked.connect(self.cancel)
        self.tau.valueChanged.connect(self._on_tau_spin)
        self.tau_line.sigPositionChanged.connect(self._on_tau_line)
        self.table.cellClicked.connect(self._on_row_clicked)
        self.export_button.clicked.connect(self._export_dialog)

    # ----------------------------------------------------------------------------------- public
    def set_model(self, loaded) -> None:
        self.loaded = loaded

    def run(self, path: str, cap: int | None = None) -> bool:
        """Start the study in the background; False (with a message) when it cannot start."""
        path = (path or "").strip()
        if self.loaded is None:
            self._message("Load a model first (probe panel, Attention or Spans tab).", error=True)
            return False
        if not path:
            self._message("Pick a SQuAD v2.0 file first.", error=True)
            return False
        if not Path(path).expanduser().is_file():
            self._message(f"{path}: no such file", error=True)
            return False
        self.path.setText(path)
        self.progress.setFormat("%v / %m windows")
        self.progress.setRange(0, 0)
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self._message(f"running {self.loaded.source} on {Path(path).name} …")
        self.job.start(_study_and_figures, self.loaded, path, cap or None, self.cache_dir)
        return True

    def cancel(self) -> None:
        self.job.cancel()
        self._message("cancelling after the current batch …")

    def set_tau(self, tau: float) -> None:
        self.tau.setValue(tau)

    def export(self, folder: str) -> dict:
        """write_official_files at the chosen τ into folder; returns name -> path."""
        from explorer.core.decoding import write_official_files

        paths = write_official_files(self.study.decodings, folder, tau=self.tau.value())
        self._message("wrote " + ", ".join(str(p) for p in paths.values()))
        return paths

    # ----------------------------------------------------------------------------------- results
    def _on_progress(self, done: int, total: int) -> None:
        if self.progress.maximum() != total:
            self.progress.setRange(0, total)
        self.progress.setValue(done)

    def _on_failed(self, message: str, _tb: str) -> None:
        self._done_running(None)
        self._message(message, error=True)

    def _done_running(self, text: str | None) -> None:
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        if self.progress.maximum() == 0:
            self.progress.setRange(0, 1)
            self.progress.setValue(0)
        if text:
            self._message(text)

    def _on_finished(self, payload) -> None:
        self.study, self.figures = payload
        self._done_running(None)
        s, f = self.study, self.figures
        if s.from_cache or self.progress.maximum() <= 1:
            self.progress.setRange(0, 1)
            self.progress.setValue(1)
            self.progress.setFormat("from the cache" if s.from_cache else "done")
        how = "from the cache (instant)" if s.from_cache else f"inference {s.seconds:.1f} s"
        self._message(f"{len(s)} questions of {Path(s.data_path).name}, model {s.source}: {how}."
                      + (f" Note: {s.note}" if s.note else ""))
        grid = f.grid
        for key, *_ in CURVES:
            self.curves[key].setData(grid.taus, getattr(grid, key))
        lo, hi = float(grid.taus.min()), float(grid.taus.max())
        ex = f.exact
        inside = (ex.taus >= lo) & (ex.taus <= hi)
        self.exact_curve.setData(ex.taus[inside], ex.f1[inside])
        self.best_line.setVisible(True)   # (an InfiniteLine's label only follows its value while visible)
        self.tau_line.setVisible(True)
        self.best_line.setValue(grid.best_tau)
        self.best_marker.setData([grid.best_tau], [grid.best_f1])
        self.plot.setXRange(lo, hi, padding=0.02)
        self.plot.setYRange(0, 100, padding=0.02)
        self._render_summary()
        self.export_button.setEnabled(True)
        self.tau.blockSignals(True)
        self.tau.setValue(grid.best_tau)
        self.tau.blockSignals(False)
        self._apply_tau(grid.best_tau)
        self.study_ready.emit(self.study)

    def _render_summary(self) -> None:
        f = self.figures
        o = f.official
        g0 = f.grid.at(0.0)
        parts = [f"<b>at τ = 0</b>: EM {o['exact_match']:.2f}, F1 {o['f1']:.2f}"]
        if "HasAns_f1" in o:
            parts.append(f"HasAns_f1 {o['HasAns_f1']:.2f} ({o['HasAns_total']} q)")
        if "NoAns_f1" in o:
            parts.append(f"NoAns_f1 {o['NoAns_f1']:.2f} ({o['NoAns_total']} q)")
        parts.append(f"answers {g0['answer_rate']:.1f}% of questions")
        lines = [", ".join(parts)]
        lines.append(f"<b>best τ on the grid</b> (-6..+6, step 0.25): <b>{f.grid.best_tau:+.2f}</b>, F1 "
                     f"{f.grid.best_f1:.2f}; <b>official exact search</b>: best_f1 {o['best_f1']:.2f} at "
                     f"best_f1_thresh {o['best_f1_thresh']:.3f} (null-odds units) = τ {o['best_tau']:+.3f}")
        h = f.honest
        if h is not None:
            lines.append(f"<b>honest τ</b>: chosen on half A ({h['n_A']} q) τ = {h['tau_A']:+.2f} → F1 on half B "
                         f"{h['f1_B_at_tau_A']:.2f}; chosen on B τ = {h['tau_B']:+.2f} → F1 on A "
                         f"{h['f1_A_at_tau_B']:.2f}; honest F1 <b>{h['honest_f1']:.2f}</b> vs "
                         f"{h['dev_best_f1']:.2f} when τ is chosen and scored on the same questions")
        self.summary.setText("<br>".join(lines))

    # ----------------------------------------------------------------------------------- τ and the table
    def _on_tau_spin(self, value: float) -> None:
        self._apply_tau(float(value))

    def _on_tau_line(self) -> None:
        if self._syncing:
            return
        value = round(float(self.tau_line.value()), 2)
        if abs(value - self.tau.value()) >= 0.005:
            self.tau.setValue(value)

    def _apply_tau(self, tau: float) -> None:
        if self.figures is None:
            return
        from explorer.core.metrics import tau_sweep

        self._syncing = True   # (signals stay on: the line's label follows sigPositionChanged)
        self.tau_line.setValue(tau)
        self._syncing = False
        at = tau_sweep(self.figures.scores, taus=[tau])
        self.at_tau.setText(f"F1 {at.f1[0]:.2f}, EM {at.exact_match[0]:.2f}, HasAns_f1 {at.HasAns_f1[0]:.2f}, "
                            f"NoAns_f1 {at.NoAns_f1[0]:.2f}, answers {at.answer_rate[0]:.1f}%")
        self._fill_table(tau)

    def _fill_table(self, tau: float) -> None:
        sc = self.figures.scores
        self._near = questions_near(sc.score_diff, tau, NEAR_ROWS)
        self.table.setRowCount(len(self._near))
        index_of = {q: k for k, q in enumerate(self.study.ids)}
        for r, i in enumerate(self._near):
            qid = sc.ids[i]
            k = index_of[qid]
            d = self.study.decodings[qid]
            answered = bool(sc.score_diff[i] > tau)
            f1 = sc.f1_span[i] if answered else sc.f1_null[i]
            gold = self.study.gold[qid]
            values = [f"{sc.score_diff[i]:+.3f}", f"{abs(sc.score_diff[i] - tau):.3f}",
                      "answer" if answered else "no answer", gold[0] if gold else "(no answer)",
                      d.best_text, f"{100 * f1:.0f}", self.study.questions[k]]
            for c, v in enumerate(values):
                item = QTableWidgetItem(v)
                item.setToolTip(v)
                if c in (0, 1, 5):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if c == 5:
                    item.setForeground(Qt.GlobalColor.darkGreen if f1 >= 0.5 else Qt.GlobalColor.red)
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
        for c in (3, 4):
            self.table.setColumnWidth(c, min(self.table.columnWidth(c), 240))
        self.table.horizontalHeader().setSectionResizeMode(6, QHeaderView.ResizeMode.Stretch)

    def row_question(self, row: int) -> tuple[str, str]:
        """(question, passage) of a table row."""
        qid = self.figures.scores.ids[self._near[row]]
        k = self.study.ids.index(qid)
        return self.study.questions[k], self.study.context(k)

    def _on_row_clicked(self, row: int, _col: int) -> None:
        question, passage = self.row_question(row)
        self.open_question.emit(question, passage, float(self.tau.value()))

    # ----------------------------------------------------------------------------------- misc
    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "SQuAD v2.0 dev file", "", "JSON (*.json);;All files (*)")
        if path:
            self.path.setText(path)

    def _export_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Folder for predictions.json and null_odds.json")
        if folder:
            self.export(folder)

    def _message(self, text: str, error: bool = False) -> None:
        self.status.setStyleSheet("color:#b03030;" if error else "")
        self.status.setText(text)


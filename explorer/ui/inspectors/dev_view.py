"""τ on a dev set: run the model over a SQuAD v2.0 file once, then see F1, EM, HasAns_f1, NoAns_f1
and the answer rate against τ, the best τ, the honest τ (chosen on one half, scored on the other),
and the questions a small move of τ would flip. Results are cached per (model, file, cap) by
explorer.core.tau_study, so reopening is instant. All numbers come from explorer.core.metrics. The study
runs in the inspector child process (request "study", with progress and cancel), never in the GUI.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QFileDialog, QHBoxLayout, QHeaderView, QLabel, QLineEdit,
                               QPushButton, QSpinBox, QSplitter, QTableWidget, QTableWidgetItem,
                               QTabWidget, QVBoxLayout, QWidget)

from explorer.core.tau_study import default_cache_dir, questions_near
from explorer.core.checkpoint_windows import WindowSettings, run_config_for_checkpoint, window_settings_for_checkpoint

from .common import StatusLabel, ResultSource, header, tip
from .tau_spin import tau_spin_box
from .client import shared_client
from .remote import CANCELLED_NOTE, RemoteJob
from explorer.ui.curves.legend import legend_below
from explorer.ui.shell.scrolling import scrolling
from explorer.ui.shell.turns import PaintLaterProgressBar, after_paint

PLOT_MIN_HEIGHT = 250   # px: the τ curves (about 130 px of graph), their axis and the two-row legend below
TABLE_MIN_ROWS = 4      # rows each table keeps in view at 1280x800 (stacked under the curves: one row of each)


def rows_tall(table: QTableWidget, rows: int) -> int:
    """The height in pixels that shows ``table``'s header and ``rows`` rows of its default height (frame
    included), with no scroll bar's worth of slack."""
    return (table.horizontalHeader().sizeHint().height() + rows * table.verticalHeader().defaultSectionSize()
            + 2 * table.frameWidth())

NEAR_ROWS = 100
CURVES = [("f1", "F1", "#d62728", 2.5), ("exact_match", "EM", "#9467bd", 1.5),
          ("HasAns_f1", "HasAns_f1", "#2ca02c", 1.5), ("NoAns_f1", "NoAns_f1", "#1f77b4", 1.5),
          ("answer_rate", "answer rate %", "#7f7f7f", 1.5)]


# Questions per second of dev-set inference, measured by the last study run here (not from the cache);
# before that, a rough figure for the bundled encoder on a 2-core CPU, said to be a guess.
ASSUMED_QPS = 10.0
_measured_qps: float | None = None
_question_counts: dict[tuple, int] = {}


def _run_dev_file(checkpoint: str) -> str:
    """The local dev file of the run a checkpoint belongs to, when that run is SQuAD 2.0 ("" otherwise:
    a v1.1 dev file has no unanswerable question, so a τ study on it has no NoAns side)."""
    import json

    from explorer.core.task_facts import find_task_facts

    config_path = run_config_for_checkpoint(checkpoint) if checkpoint else None
    if config_path is None:
        return ""
    try:
        config = json.loads(config_path.read_text(encoding="utf-8"))
        dev, task = str(config.get("dev") or ""), str(config.get("task") or "")
    except (OSError, ValueError, AttributeError):
        return ""
    facts = find_task_facts(task)
    if facts is None or facts.squad_version != "v2.0":
        return ""
    return dev if dev and Path(dev).expanduser().is_file() else ""


def count_questions(path: str) -> int | None:
    """Questions in a SQuAD JSON file, counted from its bytes (fast, cached on path/size/mtime; for the
    time estimate only). None when the file cannot be read."""
    try:
        p = Path(path).expanduser()
        st = p.stat()
        key = (str(p), st.st_size, st.st_mtime_ns)
        if key not in _question_counts:
            _question_counts[key] = p.read_bytes().count(b'"question"')
        return _question_counts[key]
    except OSError:
        return None


def measured_qps() -> float | None:
    """Questions/s of the last τ study on this machine: this session's, else the one the settings remember
    from an earlier session (a restart keeps the measured rate); None when never measured."""
    if _measured_qps:
        return _measured_qps
    from explorer.ui.shell.settings import current_settings

    settings = current_settings()
    return settings.tau_questions_per_second() if settings is not None else None


def remember_qps(qps: float) -> None:
    """Keep a measured rate for this session and in the settings (the next start's estimate)."""
    global _measured_qps
    from explorer.ui.shell.settings import current_settings

    _measured_qps = qps
    settings = current_settings()
    if settings is not None:
        settings.set_tau_questions_per_second(qps)


def estimate_text(n_questions: int | None, cap: int) -> str:
    """'≈ 6 min 40 s for 4,000 questions at 10.0 questions/s (...)' for the chosen file and cap."""
    if not n_questions:
        return ""
    n = min(n_questions, cap) if cap else n_questions
    measured = measured_qps()
    qps = measured or ASSUMED_QPS
    seconds = n / qps
    how = "measured here by the last run" if measured else "a guess until the first run here measures it"
    when = f"{seconds / 60:.0f} min" if seconds >= 90 else f"{seconds:.0f} s"
    text = f"≈ {when} for {n:,} of {n_questions:,} questions at {qps:.1f} questions/s ({how})"
    if seconds > 120 and not cap:
        text += "; set \"first N questions\" to try a part first"
    return text


class DevTauView(QWidget):
    """The τ study. set_model(LoadedModel); run(path, cap) or the Run button.

    Signals:
        open_question(question, passage, tau): the user clicked a question of the table.
        study_ready(object): a TauStudy is shown (tests and the hub may listen).
    """

    open_question = Signal(str, str, float)
    study_ready = Signal(object)

    def __init__(self, parent=None, cache_dir: Path | None = None, *, client=None, slot: str = "qa"):
        super().__init__(parent)
        self.client = client or shared_client()
        self.slot = slot
        self.loaded = None
        self.cache_dir = cache_dir
        self.study = None
        self.figures = None
        self._near: np.ndarray = np.zeros(0, dtype=np.int64)
        self._syncing = False
        self.job = RemoteJob(self.client, self)
        self.job.progress.connect(self._on_progress)
        self.job.finished.connect(self._arrived)
        self.source = ResultSource(self.clear_results)   # which model the study is of; cleared on a switch
        self.job.failed.connect(self._on_failed)
        self.job.cancelled.connect(lambda: self._done_running(CANCELLED_NOTE))

        self._build_inputs()
        row = QHBoxLayout()
        row.addWidget(self.path, 1)
        row.addWidget(self.browse)
        row.addWidget(self.cap)
        row.addWidget(self.run_button)
        row.addWidget(self.cancel_button)

        self._build_plot()
        self._build_tau_table()

        self.summary = QLabel("")
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary.setToolTip(tip("honest_tau"))

        trow = self._build_tau_row()
        self._build_near_table()
        split = self._build_split(trow)

        layout = QVBoxLayout(self)
        layout.addWidget(header("Choose τ on a dev set: F1, EM, HasAns_f1, NoAns_f1 and answer rate against τ, the "
                                "best τ, the honest figure (τ chosen on one half, scored on the other), and the "
                                "questions a small move of τ would flip.", panel="τ on dev set"))
        layout.addWidget(self.head_note)
        layout.addLayout(row)
        layout.addWidget(self.estimate)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addWidget(self.source.label)
        layout.addWidget(split, 1)

        self.browse.clicked.connect(self._browse)
        self.path.textChanged.connect(self._update_estimate)
        self.cap.valueChanged.connect(self._update_estimate)
        self.run_button.clicked.connect(lambda: self.run(self.path.text(), self.cap.value()))
        self.cancel_button.clicked.connect(self.cancel)
        self.tau.valueChanged.connect(self._on_tau_spin)
        self.tau_line.sigPositionChanged.connect(self._on_tau_line)
        self.table.cellClicked.connect(self._on_row_clicked)
        self.export_button.clicked.connect(self._export_dialog)

    def _build_tau_row(self) -> QHBoxLayout:
        """The chosen τ, the figures at it, Calibration… and the export of the official files."""
        self.tau = tau_spin_box()
        self.calibration_button = QPushButton("Calibration…")
        self.calibration_button.setToolTip("Reliability diagrams of this dev set: the best span's probability "
                                           "against exact match, and answering vs abstaining at the τ shown")
        self.calibration_button.setEnabled(False)
        self.calibration_button.clicked.connect(self.open_calibration)
        self.calibration_view = None
        self.export_button = QPushButton("Export predictions.json + null_odds.json…")
        self.export_button.setEnabled(False)
        self.export_button.setToolTip("Writes predictions.json (answers at this τ), nbest_predictions.json and "
                                      "null_odds.json (-score_diff, the file evaluate-v2.0.py reads with "
                                      "--na-prob-file).")
        self.at_tau = QLabel("")
        self.at_tau.setWordWrap(True)   # its figures wrap: the row's minimum width is the buttons', not the text's
        trow = QHBoxLayout()
        trow.addWidget(QLabel("chosen τ"))
        trow.addWidget(self.tau)
        trow.addWidget(self.at_tau, 1)
        trow.addWidget(self.calibration_button)
        trow.addWidget(self.export_button)

        return trow

    def _build_split(self, trow: QHBoxLayout) -> QSplitter:
        """The curves above; below them the chosen-τ row and two tabs, the τ values (table and summary) and the
        questions near τ, each with TABLE_MIN_ROWS rows in view at 1280x800 (stacked under the curves they had one
        row each). A splitter between curves and tabs."""
        self.plot.setMinimumHeight(PLOT_MIN_HEIGHT)   # a readable graph (else 70 px at 1280x800)
        for table in (self.tau_table, self.table):
            table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 8)   # compact rows
        details = QWidget()
        dl = QVBoxLayout(details)
        dl.setContentsMargins(0, 0, 0, 0)
        dl.addWidget(self.tau_table)
        dl.addWidget(self.summary)
        dl.addStretch(1)
        self.result_tabs = QTabWidget()
        self.result_tabs.setDocumentMode(True)
        self.result_tabs.addTab(scrolling(details, horizontal=False), "τ values")
        self.result_tabs.addTab(self.table, "Questions near τ")
        self.result_tabs.setTabToolTip(1, self.table.toolTip())
        self.result_tabs.setMinimumHeight(self.result_tabs.tabBar().sizeHint().height()
                                          + rows_tall(self.table, TABLE_MIN_ROWS))
        bottom = QWidget()
        bl = QVBoxLayout(bottom)
        bl.setContentsMargins(0, 0, 0, 0)
        bl.addLayout(trow)
        bl.addWidget(self.result_tabs, 1)
        # the chosen-τ figures wrap to two lines in a narrow pane: room for them, so the tabs keep their rows
        bottom.setMinimumHeight(self.result_tabs.minimumHeight() + 2 * self.at_tau.fontMetrics().lineSpacing()
                                + 2 * bl.spacing() + 4)
        split = QSplitter(Qt.Orientation.Vertical)
        split.setChildrenCollapsible(False)
        split.addWidget(self.plot)
        split.addWidget(bottom)
        split.setStretchFactor(0, 1)   # a tall window gives the tables room too (the summary under the τ values)
        split.setStretchFactor(1, 1)
        return split

    def _build_inputs(self) -> None:
        """File, cap, Run / Cancel, progress, status, the time estimate and the untrained-head note."""
        self.path = QLineEdit()
        self.path.setPlaceholderText("SQuAD v2.0 dev file (official JSON)")
        self.browse = QPushButton("Browse…")
        self.cap = QSpinBox()
        self.cap.setRange(0, 1_000_000)
        self.cap.setSpecialValueText("all questions")
        self.cap.setPrefix("first ")
        self.cap.setSuffix(" questions")
        self.cap.setToolTip("Use only the first N questions of the file (0 = all). Inference is the slow part: "
                            "the line below the bar estimates the time.")
        self.run_button = QPushButton("Run")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.progress = PaintLaterProgressBar()
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.progress.setFormat("no study yet")
        self.status = StatusLabel("Pick a SQuAD v2.0 file and press Run; results are cached per model, file and cap.")
        self.status.setWordWrap(True)
        self.estimate = QLabel("")
        self.estimate.setObjectName("hint")
        self.estimate.setWordWrap(True)
        self.head_note = QLabel("")
        self.head_note.setWordWrap(True)
        self.head_note.setStyleSheet("color:#b05000;")
        self.head_note.setVisible(False)
        self.window = WindowSettings()
        self._auto_path = ""

    def _build_near_table(self) -> None:
        """The questions nearest to the chosen τ (a small move of τ flips them); a click opens one."""
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

    def _build_plot(self) -> None:
        """The sweep plot: F1 / EM / HasAns_f1 / NoAns_f1 / answer rate against τ, the chosen τ line, the best
        τ line and star, and a legend naming each (no labels on the lines: they overlapped)."""
        self.plot = pg.PlotWidget(background="w")
        self.plot.setLabel("bottom", "τ (answer iff score_diff > τ)")
        self.plot.setLabel("left", "percent")
        legend_below(self.plot, columns=4)   # under the axis: a top-right legend hid the best τ and the star
        self.plot.setToolTip(tip("tau"))
        self.curves = {}
        for key, name, color, width in CURVES:
            self.curves[key] = self.plot.plot([], [], pen=pg.mkPen(color, width=width), name=name)
        self.exact_curve = self.plot.plot([], [], pen=pg.mkPen("#d62728", width=1, style=Qt.PenStyle.DotLine),
                                          name="F1, exact sweep")
        # The τ values are named in the legend and the table below, not by labels on the lines (those
        # overlapped each other when the values were close).
        best_pen = pg.mkPen("#d62728", width=1, style=Qt.PenStyle.DashLine)
        self.best_line = pg.InfiniteLine(angle=90, pen=best_pen)
        self.tau_line = pg.InfiniteLine(angle=90, movable=True, pen=pg.mkPen("#222", width=2))
        self.tau_line.setToolTip("chosen τ: drag it, or type it below")
        self.best_marker = pg.ScatterPlotItem(symbol="star", size=16, brush="#d62728", pen=None)
        for item in (self.best_line, self.tau_line, self.best_marker):
            self.plot.addItem(item)
        self.plot.plotItem.legend.addItem(pg.PlotDataItem(pen=pg.mkPen("#222", width=2)), "chosen τ (drag)")
        self.plot.plotItem.legend.addItem(pg.PlotDataItem(pen=best_pen, symbol="star", symbolBrush="#d62728",
                                                          symbolPen=None), "best τ on the grid")
        self.plot.setXRange(-6, 6, padding=0.02)
        self.plot.setYRange(0, 100, padding=0.02)
        self.best_line.setVisible(False)
        self.tau_line.setVisible(False)

    def _build_tau_table(self) -> None:
        """The τ values table (chosen, best on the grid, official, honest), hidden until a study exists."""
        self.tau_table = QTableWidget(0, 4)
        self.tau_table.setHorizontalHeaderLabels(["τ", "value (score_diff units)", "F1 (%)", "what it is"])
        self.tau_table.verticalHeader().setVisible(False)
        self.tau_table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.tau_table.horizontalHeader().setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.tau_table.setWordWrap(False)
        self.tau_table.setToolTip("Every τ is in score_diff units: answer iff score_diff > τ "
                                  "(score_diff = best_non_null_score − null_score).")
        self.tau_table.setVisible(False)   # until a study has τ values to list

    # ----------------------------------------------------------------------------------- public
    def set_model(self, loaded) -> None:
        """Use this model (the ModelInfo of the child's slot, or a LoadedModel, which the child is given). A
        run checkpoint brings its run's window settings and dev file (pre-filled unless the user typed
        another one); an untrained head gets the same warning as the Spans tab."""
        from explorer.core.model_info import ModelInfo, model_info

        if not isinstance(loaded, ModelInfo):
            self.client.adopt(self.slot, loaded)
            loaded = model_info(loaded, self.slot)
        self.loaded = loaded
        self.source.model_changed(loaded)
        where = getattr(loaded, "path", "") or getattr(loaded, "source", "")
        self.window = window_settings_for_checkpoint(where)
        dev = _run_dev_file(where)
        if dev and (not self.path.text().strip() or self.path.text().strip() == self._auto_path):
            self._auto_path = dev
            self.path.setText(dev)
        untrained = bool(getattr(loaded, "head_initialised", False))
        self.head_note.setVisible(untrained)
        self.head_note.setText("Honest note: this model's QA head is freshly initialised (random), so its "
                               "score_diff values, τ and F1 here mean nothing until it is fine-tuned."
                               if untrained else "")
        self._update_estimate()

    def _update_estimate(self, *_args) -> None:
        path = self.path.text().strip()
        n = count_questions(path) if path else None
        text = estimate_text(n, self.cap.value())
        if text and self.window.source:
            w = self.window
            text += (f". Windows as the run trained: max_seq_length {w.max_seq_length}, doc_stride {w.doc_stride}, "
                     f"max_query_length {w.max_query_length}")
            self.estimate.setToolTip(w.describe())
        self.estimate.setText(text)
        self.estimate.setVisible(bool(text))

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
        cache_dir = self.cache_dir if self.cache_dir is not None else default_cache_dir()
        self.source.ask(self.loaded)
        self.job.start("study", {"slot": self.slot, "path": path, "cap": cap or None, "cache_dir": str(cache_dir),
                                 "settings": self.window.as_dict()})
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

    def _arrived(self, payload) -> None:
        name = self.source.take()
        if name is None:   # a study of the model before the one loaded now
            self._done_running(None)
            return
        self._on_finished(payload, model=name)

    def clear_results(self) -> None:
        """Forget the study shown: curves, τ table, summary and questions emptied, export off."""
        self.study = self.figures = None
        for curve in list(self.curves.values()) + [self.exact_curve, self.best_marker]:
            curve.setData([], [])
        self.best_line.setVisible(False)
        self.tau_line.setVisible(False)
        self.tau_table.setRowCount(0)
        self.tau_table.setVisible(False)
        self.summary.setText("")
        self.at_tau.setText("")
        self.table.setRowCount(0)
        self._near = np.zeros(0, dtype=np.int64)
        self.export_button.setEnabled(False)
        self._message("")

    def _on_finished(self, payload, model: str | None = None) -> None:
        """Show a (TauStudy, figures) pair; ``model`` names the model it is of."""
        self.study, self.figures = payload
        self.source.show(model, Path(self.study.data_path).name)
        self._done_running(None)
        s, f = self.study, self.figures
        if not s.from_cache and s.seconds > 0 and len(s):
            remember_qps(len(s) / s.seconds)
            self._update_estimate()
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
        self.export_button.setEnabled(True)
        self.calibration_button.setEnabled(True)
        self.tau.blockSignals(True)
        self.tau.setValue(grid.best_tau)
        self.tau.blockSignals(False)
        # the curves now; the summary with its τ table, then τ's figures and the questions near it (100 rows), each
        # in the turn after the paint of the one before (all at once would hold the GUI thread for 90 ms)
        self._show_in_turns(self.study, [self._render_summary, self._show_questions])

    def _show_in_turns(self, study, steps: list) -> None:
        """Run ``steps`` one per event-loop turn, each after the paint of the turn before (all now when the view is
        hidden), while ``study`` is still the one shown."""
        if not steps or study is not self.study:
            return
        if self.isVisible():
            after_paint(self, lambda: (steps[0](), self._show_in_turns(study, steps[1:]))
                        if study is self.study else None)
            return
        for step in steps:
            step()

    def _show_questions(self) -> None:
        """The last turn of showing a study: τ's line and figures and the questions near it; then study_ready."""
        self._apply_tau(float(self.tau.value()))
        self.study_ready.emit(self.study)

    def open_calibration(self):
        """The SQuAD calibration view (calibration_view.SquadCalibrationView) of the study shown, at the τ shown."""
        from explorer.core.calibration import squad_calibration

        from .calibration_view import SquadCalibrationView

        if self.study is None or self.figures is None:
            return None
        try:
            cal = squad_calibration(self.study.decodings, self.figures.scores, tau=self.tau.value())
        except ValueError as exc:
            self._message(f"calibration: {exc}")
            return None
        if self.calibration_view is None:
            self.calibration_view = SquadCalibrationView()
            self.calibration_view.resize(1100, 520)
        self.calibration_view.set_calibration(cal)
        self.calibration_view.show()
        self.calibration_view.raise_()
        return self.calibration_view

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
        best = f.grid.at(f.grid.best_tau)
        if best["answer_rate"] == 0 and "NoAns_total" in o:   # the best τ abstains everywhere: say what that means
            total = o.get("HasAns_total", 0) + o["NoAns_total"]
            lines.append(f"<b>note</b>: the best τ on the grid ({f.grid.best_tau:+.2f}) answers no question: its F1 "
                         f"{f.grid.best_f1:.2f} is the all-no-answer baseline (the {o['NoAns_total']} unanswerable of "
                         f"{total} questions); the model's answers do not beat abstaining yet")
        edge = f.grid_edge_note()
        if edge:
            lines.append(f"<b>note</b>: {edge}")
        self._fill_tau_table()
        h = f.honest
        if h is not None:
            lines.append(f"<b>honest τ</b>: chosen on half A ({h['n_A']} q) τ = {h['tau_A']:+.2f} → F1 on half B "
                         f"{h['f1_B_at_tau_A']:.2f}; chosen on B τ = {h['tau_B']:+.2f} → F1 on A "
                         f"{h['f1_A_at_tau_B']:.2f}; honest F1 <b>{h['honest_f1']:.2f}</b> (the figure to quote) vs "
                         f"{h['dev_best_f1']:.2f} when τ is chosen and scored on the same questions")
        self.summary.setText("<br>".join(lines))

    def _fill_tau_table(self) -> None:
        """One row per τ value: chosen, best on the grid, the official search's, and the honest ones."""
        f, o = self.figures, self.figures.official
        chosen = float(self.tau.value())
        from explorer.core.metrics import tau_sweep

        rows = [("chosen τ", f"{chosen:+.2f}", f"{tau_sweep(f.scores, taus=[chosen]).f1[0]:.2f}",
                 "the black line: drag it or type it; the Questions near τ tab is sorted around it"),
                ("best τ on the grid", f"{f.grid.best_tau:+.2f}", f"{f.grid.best_f1:.2f}",
                 "red dashed line and star: the highest F1 of the curve (τ from −6 to +6, step 0.25)")]
        if "best_tau" in o:
            thresh = o.get("best_f1_thresh")
            answered = int((f.scores.score_diff > o["best_tau"]).sum())
            if thresh is None:
                what = "evaluate-v2.0's exact search"
            elif answered == 0:
                what = ("evaluate-v2.0's exact search: abstaining on every question scores best; its "
                        f"best_f1_thresh {thresh:.3f} is then only the script's starting value")
            else:
                from explorer.core.metric_display import threshold_relation

                what = (f"evaluate-v2.0's exact search ({answered} question{'s' if answered != 1 else ''} answered); "
                        + threshold_relation(o["best_tau"], thresh))
            rows.append(("official best τ", f"{o['best_tau']:+.3f}", f"{o['best_f1']:.2f}", what))
        h = f.honest
        if h is not None:
            rows.append(("honest τ (two halves)", f"{h['tau_A']:+.2f} / {h['tau_B']:+.2f}",
                         f"{h['honest_f1']:.2f}", "the F1 to quote: τ chosen on one half of the questions, F1 "
                         "scored on the other (the rows above choose and score τ on the same questions)"))
        self.tau_table.setVisible(True)
        self.tau_table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                if c in (1, 2):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.tau_table.setItem(r, c, item)
        self.tau_table.resizeColumnsToContents()
        self.tau_table.horizontalHeader().setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.tau_table.setFixedHeight(rows_tall(self.tau_table, len(rows)))   # every τ row in view

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
        if self.tau_table.rowCount():
            self.tau_table.item(0, 1).setText(f"{tau:+.2f}")
            self.tau_table.item(0, 2).setText(f"{at.f1[0]:.2f}")
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
        if self.study is None or not self.source.is_for(self.loaded):
            return
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


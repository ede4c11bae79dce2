"""τ on a dev set: run the model over a SQuAD v2.0 file once, then see F1, EM, HasAns_f1, NoAns_f1
and the answer rate against τ, the best τ, the honest τ (chosen on one half, scored on the other),
and the questions a small move of τ would flip. Results are cached per (model, file, cap) by
explorer.core.qa.tau_study, so reopening is instant. All numbers come from explorer.core.qa.scores; what the page says
about them from explorer.ui.inspectors.components.dev_tau; the curves and tables are
explorer.ui.inspectors.dev_panels. The study runs in the inspector child process (request "study", with progress
and cancel), never in the GUI.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QHBoxLayout, QLabel, QLineEdit, QPushButton, QSpinBox, QSplitter,
                               QTabWidget, QVBoxLayout, QWidget)

from explorer.core.models.checkpoint_windows import WindowSettings, window_settings_for_checkpoint
from explorer.core.qa.tau_study import default_cache_dir
from explorer.ui.shell.columns import rows_tall
from explorer.ui.shell.scrolling import scrolling
from explorer.ui.shell.settings import current_settings
from explorer.ui.shell.turns import after_paint
from explorer.ui.shell.file_dialogs import EXPORT_KIND, open_file, open_folder

from .client import shared_client
from .common import ResultSource, StatusLabel, header, model_in_child, tip
from .components.dev_tau import (COMPUTING_NOTE, UNTRAINED_HEAD_NOTE, at_tau, count_questions, estimate_line,
                                 near_question, questions_near_tau, running_line, study_line, summary_lines, tau_rows,
                                 windows_note)
from .dev_panels import NearTable, TauPlot, TauSplit, TauTable
from .job_bar import JobBar, veil
from .remote import CANCELLED_NOTE, RemoteJob
from .tau_spin import tau_spin_box

PLOT_MIN_HEIGHT = 240   # px: the τ curves (about 120 px of graph), their axis and the two-row legend below
TABLE_MIN_ROWS = 4      # rows each table keeps in view at 1280x800 (stacked under the curves: one row of each)

# Questions per second of dev-set inference, measured by the last study run here (not from the cache)
_measured_qps: float | None = None


def measured_qps() -> float | None:
    """Questions/s of the last τ study on this machine: this session's, else the one the settings remember
    from an earlier session (a restart keeps the measured rate); None when never measured."""
    if _measured_qps:
        return _measured_qps
    settings = current_settings()
    return settings.tau_questions_per_second() if settings is not None else None


def remember_qps(qps: float) -> None:
    """Keep a measured rate for this session and in the settings (the next start's estimate)."""
    global _measured_qps
    _measured_qps = qps
    settings = current_settings()
    if settings is not None:
        settings.set_tau_questions_per_second(qps)


def estimate_text(n_questions: int | None, cap: int) -> str:
    """'≈ 6 min 40 s for 4,000 questions at 10.0 questions/s (...)' for the chosen file and cap, at the rate
    measured here (components.dev_tau.estimate_line)."""
    return estimate_line(n_questions, cap, measured_qps())


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

        self.plot = TauPlot()
        self.curves, self.tau_line = self.plot.curves, self.plot.tau_line
        self.tau_table = TauTable()

        self.summary = QLabel("")
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary.setToolTip(tip("honest_tau"))

        trow = self._build_tau_row()
        self.table = NearTable()
        split = self._build_split(trow)
        # veiled while a new study runs: the split inside a plain widget, since a veil laid on a QSplitter itself
        # became a third pane of it (37 px taken from the curves, which then folded into their tab for the run)
        self.results = QWidget()
        box = QVBoxLayout(self.results)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(split)

        layout = QVBoxLayout(self)
        # one line at 1280x800: the τ table under the curves keeps its rows in view (the page's help says the rest)
        layout.addWidget(header("Choose τ on a dev set: the scores against τ, the best and the honest τ, the questions "
                                "near τ.", panel="τ on dev set"))
        layout.addWidget(self.head_note)
        layout.addLayout(row)
        progress_row = QHBoxLayout()   # the estimate beside the bar: one line less above the τ table at 1280x800
        progress_row.addWidget(self.estimate, 1)
        progress_row.addWidget(self.job_bar, 1)
        layout.addLayout(progress_row)
        status_row = QHBoxLayout()   # what ran and which model the results are of, side by side: one line less
        status_row.addWidget(self.status, 1)
        status_row.addWidget(self.source.label, 1)
        layout.addLayout(status_row)
        layout.addWidget(self.results, 1)

        self.browse.clicked.connect(self._browse)
        self.path.textChanged.connect(self._update_estimate)
        self.cap.valueChanged.connect(self._update_estimate)
        self.run_button.clicked.connect(lambda: self.run(self.path.text(), self.cap.value()))
        self.job.progress.connect(self.job_bar.set_progress)
        self.job_bar.cancel_requested.connect(self.cancel)
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
        self.split = TauSplit(self.plot, bottom, self.result_tabs)   # the τ values' rows in view, the curves
        # get the rest, or a tab of their own where both do not fit
        return self.split

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
                            "the line beside the bar estimates the time.")
        self.run_button = QPushButton("Run")
        self.job_bar = JobBar("windows", cancel_tip="Stop after the current batch; nothing of this study is shown")
        keep = self.job_bar.sizePolicy()   # its room beside the estimate stays when idle: the estimate wraps the
        keep.setRetainSizeWhenHidden(True)   # same before and during a run, and the curves below do not move
        self.job_bar.setSizePolicy(keep)
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
        settings = current_settings()   # the last study's file (its results are cached): a run's own dev file replaces
        self._auto_path = settings.tau_dev_file() if settings is not None else ""   # it, a typed one stays
        self._dev_file = None   # the run's dev file (core.models.checkpoint_windows.RunDevFile), as shown and read
        self.path.setText(self._auto_path)

    # ----------------------------------------------------------------------------------- public
    def set_model(self, loaded) -> None:
        """Use this model (the ModelInfo of the child's slot, or a LoadedModel, which the child is given). A
        run checkpoint brings its run's window settings and dev file (pre-filled unless the user typed
        another one); an untrained head gets the same warning as the Spans tab."""
        from .components.dev_tau import no_answer_training_note, run_dev

        self.loaded = loaded = model_in_child(self.client, self.slot, loaded)
        self.source.model_changed(loaded)
        where = getattr(loaded, "path", "") or getattr(loaded, "source", "")
        self.window = window_settings_for_checkpoint(where)
        self._dev_file = dev = run_dev(where)   # as the user gave it; the file read may be a host's copy
        if dev and (not self.path.text().strip() or self.path.text().strip() == self._auto_path):
            self._auto_path = dev.shown
            self.path.setText(dev.shown)
        self.path.setToolTip(dev.note if dev else "")
        untrained = bool(getattr(loaded, "head_initialised", False))
        note = UNTRAINED_HEAD_NOTE if untrained else no_answer_training_note(where)
        self.head_note.setVisible(bool(note))
        self.head_note.setText(note)
        self._update_estimate()

    def _update_estimate(self, *_args) -> None:
        path = self.path.text().strip()
        n = count_questions(path) if path else None
        text = estimate_text(n, self.cap.value())
        if text and self.window.source:
            text += windows_note(self.window)
            self.estimate.setToolTip(self.window.describe())
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
        read = self._dev_file.to_read(path) if self._dev_file is not None else path
        if read == path and not Path(path).expanduser().is_file():   # a host's copy is checked there
            self._message(f"{path}: no such file", error=True)
            return False
        self.path.setText(path)
        if current_settings() is not None:
            current_settings().set_tau_dev_file(path)
        veil(self.results, True)   # the study shown is of the previous request until the new one replaces it
        self.split.hold(True)   # the curves keep their place while it runs
        if self.figures is None:
            self.plot.set_note(COMPUTING_NOTE)
        self.run_button.setEnabled(False)
        self.job_bar.start()
        self._message(running_line(str(self.loaded.source), path))
        cache_dir = self.cache_dir if self.cache_dir is not None else default_cache_dir()
        self.source.ask(self.loaded)
        self.job.start("study", {"slot": self.slot, "path": read, "cap": cap or None, "cache_dir": str(cache_dir),
                                 "settings": self.window.as_dict()})
        return True

    def cancel(self) -> None:
        """Stop the running study after its current batch (nothing of it is shown)."""
        self.job.cancel()
        self._message("cancelling after the current batch …")

    def set_tau(self, tau: float) -> None:
        self.tau.setValue(tau)

    def export(self, folder: str) -> dict:
        """write_official_files at the chosen τ into folder; returns name -> path."""
        from explorer.core.qa.decoding import write_official_files

        paths = write_official_files(self.study.decodings, folder, tau=self.tau.value())
        self._message("wrote " + ", ".join(str(p) for p in paths.values()))
        return paths

    # ----------------------------------------------------------------------------------- results
    def _on_failed(self, message: str, _tb: str) -> None:
        self._done_running(None)
        self._message(message, error=True)

    def _done_running(self, text: str | None) -> None:
        self.run_button.setEnabled(True)
        self.job_bar.finish()
        veil(self.results, False)   # cancelled or failed: the study shown before is whole again (its source says whose)
        self.plot.set_note("")
        self.split.hold(False)
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
        self.plot.clear_figures()
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
        self._message(study_line(s))
        self.plot.show_figures(f)
        self.export_button.setEnabled(True)
        self.calibration_button.setEnabled(True)
        self.tau.blockSignals(True)
        self.tau.setValue(f.grid.best_tau)
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
        self.split.bring_curves()   # the Run's curves in view, also where they are a tab of their own
        self.study_ready.emit(self.study)

    def open_calibration(self):
        """The SQuAD calibration view (calibration_view.SquadCalibrationView) of the study shown, at the τ shown."""
        from .calibration_view import show_squad_calibration

        if self.study is None or self.figures is None:
            return None
        self.calibration_view, problem = show_squad_calibration(self.calibration_view, self.study, self.figures,
                                                                self.tau.value())
        if problem:
            self._message(problem)
            return None
        return self.calibration_view

    def _render_summary(self) -> None:
        """The τ table and the summary under it."""
        lines = summary_lines(self.figures)
        self.tau_table.fill(tau_rows(self.figures, float(self.tau.value())))
        self.summary.setText("<br>".join(lines))
        self.split.fit()   # with the sentence: the curves leave room for it, or go into their tab

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
        self._syncing = True   # (signals stay on: the line's label follows sigPositionChanged)
        self.tau_line.setValue(tau)
        self._syncing = False
        at = at_tau(self.figures, tau)
        self.tau_table.show_chosen(at.tau, at.f1)
        self.at_tau.setText(at.line)
        self._near, rows = questions_near_tau(self.study, self.figures, tau)
        self.table.fill(rows)

    def row_question(self, row: int) -> tuple[str, str]:
        """(question, passage) of a table row."""
        return near_question(self.study, self.figures, self._near, row)

    def _on_row_clicked(self, row: int, _col: int) -> None:
        if self.study is None or not self.source.is_for(self.loaded):
            return
        question, passage = self.row_question(row)
        self.open_question.emit(question, passage, float(self.tau.value()))

    # ----------------------------------------------------------------------------------- misc
    def _browse(self) -> None:
        path = open_file(self, "SQuAD v2.0 dev file", "data", "JSON (*.json);;All files (*)", self.path.text())
        if path:
            self.path.setText(path)

    def _export_dialog(self) -> None:
        folder = open_folder(self, "Folder for predictions.json and null_odds.json", EXPORT_KIND, into=True)
        if folder:
            self.export(folder)

    def _message(self, text: str, error: bool = False) -> None:
        self.status.setStyleSheet("color:#b03030;" if error else "")
        self.status.setText(text)

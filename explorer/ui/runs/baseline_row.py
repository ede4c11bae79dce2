"""The bag-of-words baseline under the Runs list: while `bert-explorer baseline` runs in its child
(explorer.ui.runs.baseline_jobs), the stage in words and the job row every long GUI operation has (bar, dev rows
scored, time left, Cancel: explorer.ui.inspectors.job_bar.JobBar; a stage not counted in rows, reading or fitting,
shows the time since the start, ticking, so the row never sits still); when it ends, the verdict where the person is
looking (the paired test's sentence and both models' figures, explorer.ui.runs.baseline_cells.verdict_lines) until
closed, and the list's "vs BoW" column shown once any listed run has a saved comparison. Without this the job ran
with only a status-bar line and its result sat in a hidden column: a significantly better TF-IDF went unseen."""

from __future__ import annotations

import time

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from explorer.ui.inspectors.job_bar import JobBar
from explorer.ui.runs.baseline_cells import verdict_lines
from explorer.ui.runs.run_cells import COLUMNS

__all__ = ["BaselineRow", "reveal_baseline_column"]

COLUMN = "vs BoW"


def reveal_baseline_column(panel) -> bool:
    """Show the list's "vs BoW" column (through its header menu's entry, so the entry stays checked) when it is
    hidden and a listed run has a saved comparison; returns whether it is shown now."""
    col = COLUMNS.index(COLUMN)
    table = panel.table
    if not table.isColumnHidden(col):
        return True
    cells = panel.model.cells.baselines
    if not any(cells.saved(s) for s in panel.model.rows):
        return False
    entry = next((a for a in table.header().actions() if a.text() == f"Show {COLUMN}"), None)
    if entry is not None:
        entry.setChecked(True)
    table.setColumnHidden(col, False)
    table.fit_timer.start()
    return True


class BaselineRow(QWidget):
    """Under the list of ``panel`` (a RunsPanel): hidden until a baseline starts. :meth:`follow` binds it to the
    panel's BaselineJobs."""

    def __init__(self, panel):
        super().__init__(panel)
        self.panel = panel
        self.jobs = None
        self.run_id = ""                      # the run whose job the row shows
        self.stage = QLabel()
        self.stage.setWordWrap(True)
        self.job_bar = JobBar("dev rows", cancel_tip="Stop the baseline now; nothing is written")
        # the Runs dock is some 450 px wide at 1280x800: the row fits it (a wider row widened the window)
        self.job_bar.bar.setMinimumWidth(40)
        self.job_bar.detail.setMinimumWidth(self.fontMetrics().horizontalAdvance("1,240 of 2,478 dev rows · "
                                                                                 "about 0:40 left"))
        self.notice = QFrame()
        self.notice.setObjectName("baselineVerdict")
        self.notice.setFrameShape(QFrame.Shape.StyledPanel)
        self.verdict = QLabel()
        self.verdict.setWordWrap(True)
        self.verdict.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.close_button = QPushButton("Close")
        self.close_button.setToolTip("Hide this verdict (the vs BoW column and the Best dev tooltip keep it)")
        self.close_button.clicked.connect(self.notice.hide)
        inner = QHBoxLayout(self.notice)
        inner.setContentsMargins(6, 4, 6, 4)
        inner.addWidget(self.verdict, 1)
        inner.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.stage)
        lay.addWidget(self.job_bar)
        lay.addWidget(self.notice)
        self.stage.hide()
        self.notice.hide()
        self.job_bar.cancel_requested.connect(lambda: self.jobs is not None and self.jobs.cancel(self.run_id))
        # once per batch of listed rows, until it was shown: a column the user hides again stays hidden
        self._reveal = QTimer(self, singleShot=True, interval=0)
        self._reveal.timeout.connect(self._reveal_listed)
        self._revealed = False
        for signal in (panel.model.rowsInserted, panel.model.modelReset):
            signal.connect(lambda *_: self._reveal.start())
        self.now = time.monotonic          # the clock of the elapsed time (a test's own)
        self._started_at = 0.0
        self._clock = QTimer(self, interval=1000)   # a stage without a count: its elapsed time, each second
        self._clock.timeout.connect(self._show_elapsed)

    def _reveal_listed(self) -> None:
        if not self._revealed:
            self._revealed = reveal_baseline_column(self.panel)

    def follow(self, jobs) -> None:
        """Show ``jobs``' (a BaselineJobs) starts, progress and ends."""
        self.jobs = jobs
        jobs.started.connect(self._started)
        jobs.progress.connect(self._progress)
        jobs.done.connect(self._done)

    def _name(self, run_id: str) -> str:
        return self.panel.name_of(run_id)

    def _started(self, run_id: str) -> None:
        self.run_id = run_id
        self.notice.hide()
        self.stage.setText(f"Bag-of-words baseline of {self._name(run_id)}: starting …")
        self.stage.show()
        self.job_bar.start("dev rows")
        self._started_at = self.now()
        self._show_elapsed()
        self._clock.start()

    def _progress(self, run_id: str, stage: str, done: int, total: int) -> None:
        if run_id != self.run_id or self.job_bar.is_cancelling:
            return
        self.stage.setText(f"Bag-of-words baseline of {self._name(run_id)}: {stage} …")
        if total > 0:   # dev rows scored: "40 of 119 dev rows · about 0:12 left" once the rate is measured
            self._clock.stop()
            self.job_bar.set_progress(done, total)
        else:   # a stage not counted in rows: the bar is busy, the line says what it does and how long it has run
            self.job_bar.bar.setRange(0, 0)
            self._show_elapsed()
            self._clock.start()

    def _show_elapsed(self) -> None:
        """'0:05 elapsed' in the job row (a stage whose length cannot be estimated)."""
        from explorer.ui.runs.state import format_seconds

        if self.job_bar.running and not self.job_bar.is_cancelling:
            self.job_bar.detail.setText(f"{format_seconds(self.now() - self._started_at)} elapsed")

    def _done(self, run_id: str, ok: bool) -> None:
        if run_id == self.run_id:
            self._clock.stop()
            self.job_bar.finish()
            self.stage.hide()
        if ok:
            state = self.panel.state(run_id)
            data = self.panel.model.cells.baselines.saved(state) if state is not None else None
            if data:
                self.verdict.setText("\n".join(verdict_lines(data, self._name(run_id),
                                                             state.task if state is not None else "")))
                self.notice.show()
            reveal_baseline_column(self.panel)
        elif self.jobs is not None and self.jobs.errors.get(run_id) != "cancelled":
            self.verdict.setText(f"No bag-of-words baseline for {self._name(run_id)}: "
                                 f"{self.jobs.errors.get(run_id, 'the command failed')}")
            self.notice.show()

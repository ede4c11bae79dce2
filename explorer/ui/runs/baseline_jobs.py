"""The Runs list's "Compute bag-of-words baseline": `bert-explorer baseline RUN --progress` in a child process (it
loads the checkpoint with torch, which the GUI process never imports) at a training's niceness
(explorer.core.priorities), its stages and dev rows read from the child's 'progress {JSON}' lines, Cancel, and the
run's row refreshed when the comparison is written (baseline_bag_of_words.json, read by
explorer.ui.runs.baseline_cells). The panel's job row and verdict: explorer.ui.runs.baseline_row."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from PySide6.QtCore import QObject, QProcess, QTimer, Signal

from explorer.core.priorities import worker_niceness

__all__ = ["BaselineJobs", "add_baseline_action"]

ACTION_TEXT = "Compute bag-of-words baseline"


def baseline_command(run_dir: str | Path) -> list[str]:
    """The child's argv: ``python -m explorer baseline RUN`` (the CLI command, which writes the file)."""
    return [sys.executable, "-m", "explorer", "baseline", str(run_dir), "--progress"]


def progress_of(line: str) -> tuple[str, int, int] | None:
    """(stage, done, total) of a child's 'progress {JSON}' line; None for any other line."""
    from explorer.core.studies.run_baseline import PROGRESS_PREFIX

    if not line.startswith(PROGRESS_PREFIX):
        return None
    try:
        doc = json.loads(line[len(PROGRESS_PREFIX):])
        return str(doc["stage"]), int(doc.get("done", 0)), int(doc.get("total", 0))
    except (ValueError, KeyError, TypeError):
        return None


def _error_line(stderr: str) -> str:
    """The command's 'error: …' line (exits_on_user_error), else its last line."""
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    return next((ln for ln in reversed(lines) if ln.startswith("error: ")), lines[-1] if lines else "no message")


class BaselineJobs(QObject):
    """One child process per run at a time. Signals: ``message(str)`` (progress and outcome, for the status bar),
    ``started(run_id)``, ``progress(run_id, stage, done, total)`` (dev rows scored; total 0 for a stage not
    counted in rows), ``done(run_id, ok)`` (``errors[run_id]``: the child's error line when not ok; a cancelled
    job ends not ok with "cancelled")."""

    message = Signal(str)
    started = Signal(str)
    progress = Signal(str, str, int, int)
    done = Signal(str, bool)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.running: dict[str, tuple[QProcess, float]] = {}   # run id -> (process, start time)
        self.errors: dict[str, str] = {}
        self._stderr: dict[str, list[str]] = {}                # the child's other stderr lines
        self._partial: dict[str, str] = {}                     # a stderr line not yet ended
        self._cancelled: set[str] = set()
        self._clock = QTimer(self, interval=1000)
        self._clock.timeout.connect(self._tick)

    def start(self, run_dir: str | Path) -> bool:
        """Compute the run's baseline in a child process; False when one is already running for it."""
        run_dir = Path(run_dir)
        run_id = run_dir.name
        if run_id in self.running:
            self.message.emit(f"The bag-of-words baseline of {run_id} is already being computed")
            return False
        proc = QProcess(self)
        argv = baseline_command(run_dir)
        proc.setProgram(argv[0])
        proc.setArguments(argv[1:])
        proc.finished.connect(lambda code, _status, r=run_id: self._finished(r, code))
        proc.started.connect(lambda p=proc: self._lower_priority(p))
        proc.readyReadStandardError.connect(lambda r=run_id, p=proc: self._read_stderr(r, p))
        self.running[run_id] = (proc, time.monotonic())
        self._stderr[run_id] = []
        self._cancelled.discard(run_id)
        self.errors.pop(run_id, None)
        proc.start()
        self._clock.start()
        self.started.emit(run_id)
        self._tick()
        return True

    def cancel(self, run_id: str) -> None:
        """Stop the run's child now (nothing is written: the command writes its file at the end)."""
        if run_id in self.running:
            self._cancelled.add(run_id)
            self.running[run_id][0].kill()

    @staticmethod
    def _lower_priority(proc: QProcess) -> None:
        """The child at a training's niceness (the GUI and the inspector child win the CPU when they need it)."""
        nice = worker_niceness()
        if nice > 0 and hasattr(os, "setpriority"):
            try:
                os.setpriority(os.PRIO_PROCESS, int(proc.processId()), nice)
            except OSError:
                pass

    def _read_stderr(self, run_id: str, proc: QProcess) -> None:
        """The child's complete stderr lines so far (a partial last line waits for its end)."""
        text = self._partial.pop(run_id, "") + bytes(proc.readAllStandardError()).decode("utf-8", "replace")
        *lines, self._partial[run_id] = text.split("\n")
        for line in lines:
            self._take_line(run_id, line)

    def _take_line(self, run_id: str, line: str) -> None:
        report = progress_of(line)
        if report is not None:
            self.progress.emit(run_id, *report)
        elif line.strip():
            self._stderr.setdefault(run_id, []).append(line)

    def _tick(self) -> None:
        if not self.running:
            self._clock.stop()
            return
        parts = [f"{rid} ({time.monotonic() - t0:.0f} s)" for rid, (_p, t0) in self.running.items()]
        self.message.emit("Computing the bag-of-words baseline of " + ", ".join(parts)
                          + ": TF-IDF fitted on the training rows, the checkpoint scored on the dev rows…")

    def _finished(self, run_id: str, code: int) -> None:
        proc, _t0 = self.running.pop(run_id)
        out = bytes(proc.readAllStandardOutput()).decode("utf-8", "replace")
        rest = self._partial.pop(run_id, "") + bytes(proc.readAllStandardError()).decode("utf-8", "replace")
        for line in rest.splitlines():
            self._take_line(run_id, line)
        err = "\n".join(self._stderr.pop(run_id, []))
        proc.deleteLater()
        ok = code == 0 and run_id not in self._cancelled
        if ok:
            lines = [ln.strip() for ln in out.splitlines() if ln.strip()]
            self.message.emit(f"{run_id} vs bag-of-words: {lines[1] if len(lines) > 1 else 'done'}")
        else:
            self.errors[run_id] = "cancelled" if run_id in self._cancelled else _error_line(err)
            self.message.emit(f"No bag-of-words baseline for {run_id}: {self.errors[run_id]}")
        self._cancelled.discard(run_id)
        self.done.emit(run_id, ok)
        if not self.running:
            self._clock.stop()


def add_baseline_action(menu, state, panel) -> None:
    """A run menu's "Compute bag-of-words baseline", on for one ended run with a folder whose task has one
    (core.studies.run_baseline.baseline_problem); chosen, it starts in ``panel``'s BaselineJobs (made on first use,
    its messages to ``panel.message``, the run's row refreshed when done)."""
    from explorer.core.studies.run_baseline import baseline_problem

    problem = baseline_problem(state.task) if state is not None else "select one run"
    action = menu.addAction(ACTION_TEXT, lambda: jobs_of(panel).start(str(state.path)))
    action.setEnabled(state is not None and state.path is not None and not state.is_live and not problem)
    action.setToolTip(problem or "Fit a TF-IDF + linear baseline on the run's training rows and score it beside the "
                                 "run's checkpoints/last on its dev rows, with the paired test (bert-explorer baseline); "
                                 "its progress and then its verdict show under the list, then in the vs BoW column")


def jobs_of(panel) -> BaselineJobs:
    """``panel``'s BaselineJobs, made on first use and wired to its message signal, row refresh and its
    BaselineRow (the job row and the verdict under the list), when it has one."""
    from explorer.ui.runs.baseline_row import BaselineRow

    jobs = panel.findChild(BaselineJobs)
    if jobs is None:
        jobs = BaselineJobs(panel)
        jobs.message.connect(panel.message)
        jobs.done.connect(lambda run_id, _ok: panel.refresh(run_id))
        row = panel.findChild(BaselineRow)
        if row is not None:
            row.follow(jobs)
    return jobs

"""The Runs list's "Compute bag-of-words baseline": `bert-explorer baseline RUN` in a child process (it loads the
checkpoint with torch, which the GUI process never imports), its progress as a status line counting the seconds,
and the run's row refreshed when the comparison is written (baseline_bag_of_words.json, read by
explorer.ui.runs.baseline_cells)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from PySide6.QtCore import QObject, QProcess, QTimer, Signal

__all__ = ["BaselineJobs", "add_baseline_action"]

ACTION_TEXT = "Compute bag-of-words baseline"


def baseline_command(run_dir: str | Path) -> list[str]:
    """The child's argv: ``python -m explorer baseline RUN`` (the CLI command, which writes the file)."""
    return [sys.executable, "-m", "explorer", "baseline", str(run_dir)]


def _error_line(stderr: str) -> str:
    """The command's 'error: …' line (exits_on_user_error), else its last line."""
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    return next((ln for ln in reversed(lines) if ln.startswith("error: ")), lines[-1] if lines else "no message")


class BaselineJobs(QObject):
    """One child process per run at a time. Signals: ``message(str)`` (progress and outcome, for the status bar),
    ``done(run_id, ok)``."""

    message = Signal(str)
    done = Signal(str, bool)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.running: dict[str, tuple[QProcess, float]] = {}   # run id -> (process, start time)
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
        self.running[run_id] = (proc, time.monotonic())
        proc.start()
        self._clock.start()
        self._tick()
        return True

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
        err = bytes(proc.readAllStandardError()).decode("utf-8", "replace")
        proc.deleteLater()
        if code == 0:
            lines = [ln.strip() for ln in out.splitlines() if ln.strip()]
            self.message.emit(f"{run_id} vs bag-of-words: {lines[1] if len(lines) > 1 else 'done'}")
        else:
            self.message.emit(f"No bag-of-words baseline for {run_id}: {_error_line(err)}")
        self.done.emit(run_id, code == 0)
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
                                 "the Runs list's vs BoW column and the Best dev tooltip show it")


def jobs_of(panel) -> BaselineJobs:
    """``panel``'s BaselineJobs, made on first use and wired to its message signal and row refresh."""
    jobs = panel.findChild(BaselineJobs)
    if jobs is None:
        jobs = BaselineJobs(panel)
        jobs.message.connect(panel.message)
        jobs.done.connect(lambda run_id, _ok: panel.refresh(run_id))
    return jobs

"""A cross-validation group's held-out folds (or a learning curve's dev rows) predicted once its runs have all
finished: in the inspector child (ops cv_oof / curve_score, core.studies.cv_runs.collect_oof; the GUI never
waits), once per group and session, with its progress, time left and Cancel in a JobBar. Started when the group
is read for the Groups page, and when the last of its runs ends while another group (or another page) is shown,
so the pooled out-of-fold figure is there without a restart."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from PySide6.QtCore import QObject, Signal

from explorer.core.runs.status import FINISHED
from explorer.ui.inspectors.job_bar import JobBar


class FoldPrediction(QObject):
    """Predicts groups' held-out rows; ``predicted(name)`` when a group's are in (its pooled figures on disk).

    ``bar``: the JobBar that shows the job; ``say(text)``: the page's message line."""

    predicted = Signal(str)

    def __init__(self, runs_dir: str | Path, bar: JobBar, say: Callable[[str], None], parent=None):
        super().__init__(parent)
        self.runs_dir = Path(runs_dir)
        self.bar, self.say = bar, say
        self.started: set[str] = set()   # groups whose held-out rows were sent to the inspector child
        self.client = None   # the InspectClient for that (shared_client() on first use)
        self.job = None      # the group's prediction under way (the bar shows it)
        bar.cancel_requested.connect(lambda: self.job is not None and self.job.cancel())

    def start(self, group, members, pooled) -> None:
        """Predict ``group``'s held-out folds (cv) or dev rows of each size (curve) when its ``members`` have all
        finished and it has no pooled figure yet (``pooled`` None), unless already started this session."""
        if group.kind not in ("cv", "curve") or pooled is not None or group.name in self.started:
            return
        if not members or any(m.status != FINISHED for m in members):
            return
        from explorer.ui.inspectors.remote import RemoteJob

        if self.client is None:
            from explorer.ui.inspectors.client import shared_client

            self.client = shared_client()
        self.started.add(group.name)
        job = RemoteJob(self.client, self)
        job.finished.connect(lambda _value, n=group.name: self.predicted.emit(n))
        what = "the dev rows of each size" if group.kind == "curve" else "the held-out folds"
        job.failed.connect(lambda msg, _tb, n=group.name: self.say(f"Cannot predict {what} of {n}: {msg}"))
        self._show_progress(job, group.name, what, group.kind)
        job.start("curve_score" if group.kind == "curve" else "cv_oof", {"runs_dir": str(self.runs_dir),
                                                                         "name": group.name})
        self.say(f"Predicting {what} of {group.name} (each run's last checkpoint)…" if group.kind == "curve" else
                 f"Pooling {what} of {group.name} (each fold's final evaluation; a fold without its rows kept is "
                 "predicted with its last checkpoint)…")

    def _show_progress(self, job, name: str, what: str, group_kind: str) -> None:
        """``job`` (``what`` of group ``name`` being predicted) in the bar: rows done, the time left and Cancel
        (the folds or sizes predicted so far stay cached)."""
        def ended(*_args) -> None:
            self.bar.finish()

        def cancelled() -> None:
            self.started.discard(name)   # selecting the group again continues from the folds kept
            self.say(f"Predicting {what} of {name} cancelled; those predicted so far are kept")
        self.bar.start("dev rows" if group_kind == "curve" else "held-out rows")
        job.progress.connect(self.bar.set_progress)
        for signal in (job.finished, job.failed, job.cancelled):
            signal.connect(ended)
        job.cancelled.connect(cancelled)
        self.job = job

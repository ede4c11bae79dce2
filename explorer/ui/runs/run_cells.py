"""What the Runs list says about a run and a run group, without Qt: the columns, each cell's text, sort key and
tooltip, the status as listed and its colour. explorer.ui.runs.dock.RunsModel serves them to the tree view.
"""

from __future__ import annotations

import math
import weakref

from explorer.core.runs import status as run_status
from explorer.core.runs.reading import OURS
from explorer.ui.runs.baseline_cells import BaselineCells
from explorer.ui.runs.best_rows import SAMPLE_MARK, best_rows_note, sample_mark
from explorer.ui.runs.disk import format_size
from explorer.ui.runs.evaluating import evaluating_short, evaluating_text
from explorer.ui.runs.stopping import stopping_short, stopping_text
from explorer.ui.runs.group_rows import GroupRow
from explorer.ui.runs.names import effective_setting
from explorer.ui.runs.queue_wait import waits_cell, waits_sentence
from explorer.ui.runs.state import (DEV_PREFIX, NOT_STARTED, RunState, format_seconds, listed_status,
                                    undefined_best_text)
from explorer.ui.runs.step_zero import untrained_note

__all__ = ["COLUMNS", "EMPTY_TEXT", "FINISHED", "HEADER_TIPS", "HIDDEN_COLUMNS", "LOADING_TEXT", "STATUS_COLORS",
           "STATUS_TIPS", "RunCells", "status_text"]

COLUMNS = ("Run", "Status", "Best dev", "Size", "Duration", "Step", "Task", "Model", "Host", "vs BoW")
# Hidden at start, so the narrow dock needs no horizontal scrolling and the run names have the room; the header's
# context menu shows them and the Run tooltip lists them (Size too: shown, it cut "stance-4" to "st…-4"; Host too:
# shown beside the names it leaves them "minilm · …n · train"; a remote run has a network icon before its name
# instead, and its tooltip names the host). "Host" sits right after Run.
HIDDEN_COLUMNS = ("Size", "Duration", "Step", "Task", "Model", "Host", "vs BoW")
# The marks after a Best dev figure are one sign each, so the figure and its mark fit whole in the narrow dock of a
# 1280x800 window (" (1 eval)" and " · one class" were cut to "(1 …" and "· one cl…"); the cell's tooltip and the
# column's header tip say what each means.
ONE_EVALUATION = " ¹"   # after a Best dev figure that is the only evaluation of a run still training
ONE_CLASS = " !"   # after a Best dev figure of a run that predicted one class for every dev row (drawn amber)
MISSED_CLASSES = " !"   # ... of a run that never predicted some classes of its dev rows (amber; the tooltip says which)
HEADER_TIPS = {"Best dev": "The dev figure of checkpoints/best in the metric that picks it (f1 for SQuAD 1.1, "
                           "accuracy for classification); SQuAD 2.0: the checkpoint best_f1 picks, listed by its f1 "
                           "at τ = 0 (the model's own answer/abstain decision), as best_f1 tunes its threshold on the "
                           "same dev questions it scores (the tooltip gives both); in percent (acc = accuracy, "
                           "MCC = Matthews correlation); "
                           "a cell's tooltip gives the step of checkpoints/best (a tie keeps the earlier step, the "
                           "untrained model at step 0 is never saved) and, after '·', the trivial baseline on the same "
                           "dev data (all no-answer / majority class). "
                           f"{SAMPLE_MARK} before a figure: measured on the stratified dev sample that evaluations "
                           "during training score, not on all dev rows (the cell's tooltip gives the rows). "
                           f"After a figure:{ONE_EVALUATION} the only evaluation so far (a live run's best of one);"
                           f"{ONE_CLASS} in amber: the run predicts one class for every dev row, or never predicts "
                           "some classes (the tooltip says which).",
               "vs BoW": "The fine-tune against a TF-IDF + linear (bag-of-words) baseline on the run's own dev rows: "
                         "the judged metric's difference and whether its 95% paired interval lies above 0 (better), "
                         "below (worse) or around it (tie). Right-click a run: Compute bag-of-words baseline.",
               "Duration": "Wall-clock time from start to end (still counting while the run is live).",
               "Step": "Optimizer steps done / planned.",
               "Host": "The remote host the run trains on (Launch: Run on); empty for this machine.",
               "Size": "Disk space of the run folder (checkpoints/last and best with optimizer state are most "
                       "of it). Right-click a finished run to keep only its best checkpoint or drop the "
                       "optimizer state."}
FINISHED = run_status.TERMINAL
LOADING_TEXT = "Loading runs…"
EMPTY_TEXT = ("No runs in this folder yet: launch one from the Launch tab (Ctrl+Return there), or open a run "
              "folder from disk (Ctrl+O).")
STATUS_COLORS = {run_status.RUNNING: "#0a58ca", run_status.STARTING: "#0a58ca", run_status.STOPPING: "#b35c00",
                 run_status.CANCELLING: "#b35c00", run_status.QUEUED: "#6c757d", run_status.FINISHED: "#19692c",
                 run_status.STOPPED: "#19692c", run_status.FAILED: "#b02a37", run_status.CANCELLED: "#6c757d",
                 run_status.CRASHED: "#b02a37", run_status.TENSORBOARD_RUN: "#0f6674",
                 run_status.IN_PROGRESS: "#0a58ca", NOT_STARTED: "#6c757d"}
STATUS_TIPS = {
    run_status.QUEUED: "waiting for the previous run to finish",
    run_status.STARTING: "the worker process is loading the model and data",
    run_status.RUNNING: "training; the curves grow live",
    run_status.STOPPING: "stop early requested: the worker finishes its step, saves and evaluates",
    run_status.CANCELLING: "cancel requested: the worker was sent SIGTERM (SIGKILL after 5 s)",
    run_status.FINISHED: "trained to the end",
    run_status.STOPPED: "stopped early on request; checkpoint saved and evaluated",
    run_status.FAILED: "the worker reported an error or died; select it to see why",
    run_status.CANCELLED: "cancelled: no final evaluation",
    "cancelled (queued)": "cancelled while it waited in the queue: it never started (its config is kept)",
    NOT_STARTED: "queued when the app quit; the status bar offers to queue it again",
    run_status.CRASHED: "the event log ends without a result and no worker process is alive",
    run_status.TENSORBOARD_RUN: "a folder of TensorBoard event files: its scalars as curves",
    run_status.IN_PROGRESS: "another tool's run whose files changed in the last minutes: re-read while it grows",
}


def status_text(s: RunState) -> str:
    """The status as listed: 'not started' for a run that waited in the queue when the app quit
    (state.listed_status), 'cancelled (queued)' for a run cancelled before it ever started, 'queued (SLURM job
    12: Priority)' for a job waiting on its cluster."""
    if listed_status(s) == NOT_STARTED:
        return NOT_STARTED
    if s.status == run_status.CANCELLED and s.started_at is None and not s.step:
        return "cancelled (queued)"
    if s.status == run_status.QUEUED and s.waits_for:
        return waits_cell(s.waits_for)   # the place is taken by a run training outside this window
    if s.status == run_status.QUEUED and s.queue_note:
        return f"queued ({s.queue_note})"   # a SLURM job waiting on its cluster
    # a long final evaluation is no hung run, nor a stop that waits for it (the tooltip: its rows)
    return evaluating_short(s) or stopping_short(s) or s.status


class RunCells:
    """The cells of the Runs list. ``source``: what the list knows beside the runs, read live: ``source.names``
    (run id -> short readable name) and ``source.sizes`` (run id -> bytes on disk)."""

    def __init__(self, source):
        self._source = source
        self.baselines = BaselineCells()   # the saved bag-of-words comparison, read once per change
        self._judged: dict[str, tuple] = {}   # run id -> (its state, weakly; revision; (best_metric, one_class_note))

    @property
    def names(self) -> dict[str, str]:
        return self._source.names

    @property
    def sizes(self) -> dict[str, int]:
        return self._source.sizes

    def text(self, s: RunState, col: int) -> str:
        """The text of run ``s``'s cell in column ``col``."""
        name = COLUMNS[col]
        if name == "Run":
            return self.names.get(s.run_id) or s.run_id
        if name == "Status":
            return status_text(s)
        if name == "Size":
            return format_size(self.sizes.get(s.run_id))
        if name == "Model":
            return s.model
        if name == "Task":
            return s.task
        if name == "Best dev":
            best, note = self.judged(s)
            if best is None:
                return s.best_cell_text() or undefined_best_text(s, short=True)
            return (sample_mark(s.evals + s.rescorings, best[2]) + s.best_cell_text()   # "≈": a dev sample's figure
                    + (ONE_EVALUATION if only_evaluation(s) else "")
                    + class_mark(note))   # the majority rate, not a model that learned
        if name == "Duration":
            return format_seconds(s.live_elapsed()) if s.status != run_status.QUEUED else ""
        if name == "Step":
            if not s.step and not s.steps_total:
                return ""
            return f"{s.step}/{s.steps_total}" if s.steps_total else str(s.step)
        if name == "Host":
            return s.host
        if name == "vs BoW":
            return self.baselines.text(s)
        return ""

    def sort_key(self, s: RunState, col: int):
        """What column ``col`` sorts run ``s`` by (numbers for Best dev, Size, Duration and Step)."""
        name = COLUMNS[col]
        if name == "Best dev":
            best = s.listed_best()   # the figure the cell shows (SQuAD 2.0: f1 at τ = 0, not best_f1)
            return best[1] if best else -1.0
        if name == "Size":
            return self.sizes.get(s.run_id, -1)
        if name == "Run":
            return s.run_id          # start time first: names sort like the runs were made
        if name == "Duration":
            return s.live_elapsed() or 0.0
        if name == "Step":
            return s.step
        if name == "vs BoW":
            return self.baselines.sort_key(s)
        return self.text(s, col)

    def warns(self, s: RunState, col: int) -> bool:
        """Whether cell ``col`` of run ``s`` is drawn in the warning colour: a Best dev figure of a run that
        predicted one class for every dev row (its " · one class" mark may be elided in a narrow column)."""
        if COLUMNS[col] != "Best dev":
            return False
        best, note = self.judged(s)
        return best is not None and bool(note)

    def judged(self, s: RunState) -> tuple:
        """(``s.best_metric()``, ``s.one_class_note()``), worked out once per change of the run's state (its events,
        status and best), not again for each role of a Best dev cell's paint (its text, then its colour). The note's
        kind is what these use; a tooltip makes its words afresh (a live run's share of time spent evaluating)."""
        revision = (s.last_event_at, s.status, s.step, s.steps_total, len(s.evals), len(s.rescorings), s.best_pick,
                    s.declared_best, s.task, (s.config or {}).get("learning_rate"))
        held = self._judged.get(s.run_id)
        if held is not None and held[0]() is s and held[1] == revision:
            return held[2]
        value = (s.best_metric(), s.one_class_note())
        self._judged[s.run_id] = (weakref.ref(s), revision, value)
        return value

    def tooltip(self, s: RunState, col: int) -> str:
        """The tooltip of run ``s``'s cell in column ``col`` (plain text, lines)."""
        if COLUMNS[col] == "Status":
            tip = stopping_text(s) or evaluating_text(s) or STATUS_TIPS.get(status_text(s), s.status)
            if s.kind != OURS and s.status in FINISHED:   # another tool's run: why, in its first read notes
                tip = (f"{s.kind} run, read from its files (curves from its trainer_state.json, its checkpoint-N "
                       "folders, its own best checkpoint)")
            if s.status == run_status.QUEUED and s.queue_note:
                tip = "waiting in the cluster's queue: the job starts when SLURM gives it a node"
            if s.status == run_status.QUEUED and s.waits_for:
                tip = waits_sentence(s.waits_for)
            tip = f"{tip}\n{s.error}" if s.error else tip
            tip = f"{tip}\n{s.eval_plan}" if s.eval_plan else tip   # the evaluations' plan, as the run decided it
            return tip + "".join(f"\nnote: {n}" for n in s.read_notes)
        if COLUMNS[col] == "Run":   # the whole name first: a long one elides at its end in the list
            name = self.names.get(s.run_id)
            return (f"{name}\n" if name and name != s.run_id else "") + self._run_tooltip(s)
        if COLUMNS[col] == "Best dev":
            note = s.one_class_note()   # a classifier stuck on one class (explorer.core.metrics.baselines)
            best = s.best_metric()
            rows = best_rows_note(s.evals + s.rescorings, best[2]) if best else ""   # a dev sample's figure, or all rows'
            mark = sample_mark(s.evals + s.rescorings, best[2]) if best else ""
            rows = f"{mark}: {rows}" if mark and rows else rows   # what the cell's mark means
            untrained = untrained_note(s)   # a step-0 figure above the best: never a candidate
            if best and only_evaluation(s):
                rows = (f"{ONE_EVALUATION.strip()}: the only evaluation so far (step {best[2]}): the best of one, replaced by a later "
                        "evaluation that scores better" + (f"\n{rows}" if rows else ""))
            overlap = s.dev_overlap.text if s.dev_overlap is not None else ""   # dev rows repeating training rows
            picked = picked_by_note(s)   # SQuAD 2.0: the dev-tuned best_f1 that picked the checkpoint
            return ((s.best_text() or undefined_best_text(s) or "no saved evaluation yet") + (f"\n{picked}" if picked else "")
                    + (f"\n{rows}" if rows else "")
                    + (f"\n{overlap}" if overlap else "") + (f"\n{untrained}" if untrained else "")
                    + (f"\n{class_mark(note).strip()} note: {_whose(s)} {note.text}" if note else "")
                    + "".join(f"\n{line}" for line in self.baselines.tooltip_lines(s)))
        if COLUMNS[col] == "vs BoW":
            return "\n".join(self.baselines.tooltip_lines(s))
        return self.text(s, col)

    def _run_tooltip(self, s: RunState) -> str:
        """The Run cell's tooltip after the name: the run's id, folder, task, model, settings and size."""
        if s.kind != "BERT Explorer":
            st = s.settings
            read = (f"lr {st.get('learning_rate', '-')} · batch {st.get('per_device_train_batch_size', '-')} · "
                    f"epochs {st.get('num_train_epochs', '-')} · seed {st.get('seed', '-')}\n") if st else ""
            return (f"{s.run_id}\n{s.kind} run, read from {s.path or ''}\ntask: {s.task or '-'}\n{read}"
                    f"step: {self.text(s, COLUMNS.index('Step')) or '-'}"
                    + "".join(f"\n{n}" for n in s.read_notes))
        cfg = s.config
        return (f"{s.run_id}\n{s.path or ''}\n" + (f"trains on {s.host} (a local mirror of its events)\n" if s.host else "")
                + f"task: {s.task}\nmodel: {s.model}\n"
                f"lr {effective_setting(cfg, 'learning_rate') or '-'} · batch {cfg.get('batch_size', '-')} · "
                f"epochs {cfg.get('epochs', '-')} · seed {cfg.get('seed', '-')}\n"
                f"duration: {self.text(s, COLUMNS.index('Duration')) or '-'}\n"
                f"step: {self.text(s, COLUMNS.index('Step')) or '-'}\n"
                f"size on disk: {self.text(s, COLUMNS.index('Size')) or '-'}\n"
                f"device: {s.device or '-'}, mixed precision: {s.mixed_precision or '-'}\n"
                "(F2 renames, Delete deletes)")

    def group_text(self, row: GroupRow, col: int) -> str:
        """The text of a group row's cell: its name, status counts, mean ± sd, total size, task, model, steps and
        time of its listed members."""
        name = COLUMNS[col]
        size = self.group_size(row)
        listed = [st for st in row.states if st is not None]
        steps, total = sum(st.step for st in listed), sum(st.steps_total for st in listed)
        seconds = sum(st.live_elapsed() or 0.0 for st in listed if st.status != run_status.QUEUED)
        return {"Run": row.name, "Status": row.status_text(), "Best dev": row.best_cell_text(),
                "Size": format_size(size) if size else "", "Task": row.task, "Model": row.model,
                "Step": f"{steps}/{total}" if total else "",
                "Duration": format_seconds(seconds) if seconds else ""}.get(name, "")

    def group_sort_key(self, row: GroupRow, col: int):
        """What column ``col`` sorts a group row by."""
        return {"Run": row.sort_name(), "Best dev": row.best_sort_key(), "Size": self.group_size(row)}.get(
            COLUMNS[col], "")

    def group_size(self, row: GroupRow) -> int:
        """The bytes on disk of a group's listed members."""
        return sum(self.sizes.get(s.run_id, 0) for s in row.states if s is not None)


def class_mark(note) -> str:
    """The Best dev cell's mark for RunState.one_class_note's ``note`` (a ClassNote), by its kind: classes never
    predicted; one class (a regression no better than the mean too); or ""."""
    from explorer.core.metrics import baselines

    if not note:
        return ""
    return MISSED_CLASSES if note.kind == baselines.MISSED_CLASSES else ONE_CLASS


def picked_by_note(s: RunState) -> str:
    """'F1 at τ = 0: the model's own answer/abstain decision. checkpoints/best was picked by best F1 (%) 58.54 at
    this step, the figure at the threshold chosen on these same dev questions, so optimistic, …' under the Best dev
    tooltip's first line for a run listed by another figure than the one that picked its checkpoint
    (RunState.picked_by: a SQuAD 2.0 run's best_f1); '' otherwise."""
    from explorer.core.specs.metric_display import metric_label, metric_short

    picked = s.picked_by()
    if picked is None:
        return ""
    return (f"{metric_short(s.listed_best()[0])} at τ = 0: the model's own answer/abstain decision. checkpoints/best "
            f"was picked by {metric_label(picked[0], s.task)} {picked[1]:.2f} at this step, the figure at the "
            "threshold chosen on these same dev questions, so optimistic, not one to quote; Inspect > τ on dev set "
            "gives the honest half-split F1 for this checkpoint")


def only_evaluation(s: RunState) -> bool:
    """A run still training whose Best dev figure is its only scored evaluation after training began (the step-0
    evaluation of the untrained model is never a best): "best" of one, so the cell says it (a negative Pearson
    read as the best the run did)."""
    name = s.primary_metric()
    if not s.is_live or name is None or DEV_PREFIX + name not in s.series:
        return False
    series = s.series[DEV_PREFIX + name]
    return sum(1 for x, y in zip(series.x.tolist(), series.y.tolist()) if x > 0 and math.isfinite(y)) == 1


def _whose(s: RunState) -> str:
    """Who the Best dev tooltip's note speaks of: a regression run's best evaluation ("the run": its best is no
    better than the mean), a classifier's or tagger's last evaluation."""
    from explorer.core.metrics.baselines import regression_task

    return "the run" if regression_task(s.task) else "the last evaluation"

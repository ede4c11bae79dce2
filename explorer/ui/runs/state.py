"""What the GUI knows about one run, built from its worker events (Qt-free, testable headless).

A :class:`RunState` is fed events one by one (live from the worker's stdout, or replayed from
``runs/<run_id>/events.jsonl``) and keeps growable numpy series for the curves:

- ``loss``, ``lr``, ``grad_norm``, ``samples_per_second`` against optimizer step (``step`` events), and
  every other numeric field a worker adds to its step events (an open vocabulary, as accelerate's
  ``GeneralTracker.log(values, step)``: a new scalar needs no change here);
- ``dev/<metric>`` for every numeric metric of every ``eval`` event (e.g. ``dev/f1``), on the display
  scale: percent for shares (classification accuracy/F1 are multiplied by 100; core.specs.metric_display).
  Counts (``total``, ``HasAns_total``, ...: rows of unit "count" in core.specs.metrics) and nested values
  (``per_class``) are not scalars and get no series.

Event fields follow the records in explorer/core/protocol/events.py (docs/architecture.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from explorer.core.metrics.optimism import dev_overlap_mark
from explorer.core.runs import status as run_status
from explorer.core.runs.reading import STEP_EVENTS
from explorer.core.specs.metric_display import to_display
from explorer.core.protocol.events import STEP_CONTEXT_FIELDS, is_rescoring   # STEP_CONTEXT_FIELDS: no series
from explorer.core.specs.metrics import UNDEFINED, metric_spec
from explorer.core.specs.tasks import choose_metric
from explorer.ui.runs.eta import SETTLED_SECONDS, SETTLED_STEPS, EtaMeter  # noqa: F401 - also read from here
from explorer.ui.runs.time_left import TimeLeft, _num, as_float

# The step-event series that always have a plot (their titles: ui/curves/plot.TITLES).
TRAIN_SERIES = ("loss", "lr", "grad_norm", "samples_per_second")
DEV_PREFIX = "dev/"
NOT_STARTED = "not started"   # a run queued when the app quit, as the Runs list shows it (listed_status)


def series_name(key: str) -> str:
    """The metric or scalar name of a series key: 'dev/f1' -> 'f1', 'loss_scale' -> 'loss_scale'."""
    return key.removeprefix(DEV_PREFIX)


def _is_scalar(value) -> bool:
    """A number a curve can show (bool, text, lists and dicts such as per_class are not)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class Series:
    """An append-only (x, y) series on capacity-doubling float64 buffers.

    ``x`` and ``y`` return views of length ``len(self)``; appends never copy old views. ``steps_sorted``
    (x never went down) and ``nonfinite`` (how many y are NaN / +-inf) are kept up to date by the appends,
    so a reader never scans the series for them. ``derived``: what a reader computed from the points and
    keeps with them (the Curves panel's smoothed loss: explorer.ui.curves.plotmath.smoothed); an entry
    extends itself as points are appended (the points never change).
    """

    __slots__ = ("_x", "_y", "_n", "_last_x", "steps_sorted", "nonfinite", "derived")

    def __init__(self, capacity: int = 256):
        self._x = np.empty(capacity, dtype=np.float64)
        self._y = np.empty(capacity, dtype=np.float64)
        self._n = 0
        self._last_x = -math.inf
        self.steps_sorted = True
        self.nonfinite = 0
        self.derived: dict = {}

    def __len__(self) -> int:
        return self._n

    def append(self, x: float, y: float) -> None:
        n = self._n
        if n == len(self._x):
            cap = 2 * len(self._x)
            self._x = np.concatenate([self._x[: n], np.empty(cap - n)])
            self._y = np.concatenate([self._y[: n], np.empty(cap - n)])
        if x < self._last_x:
            self.steps_sorted = False
        if not math.isfinite(y):
            self.nonfinite += 1
        self._last_x = x
        self._x[n] = x
        self._y[n] = y
        self._n = n + 1

    def extend(self, xs: np.ndarray, ys: np.ndarray) -> None:
        xs, ys = np.asarray(xs, dtype=np.float64), np.asarray(ys, dtype=np.float64)
        need = self._n + len(xs)
        if need > len(self._x):
            cap = max(need, 2 * len(self._x))
            self._x = np.concatenate([self._x[: self._n], np.empty(cap - self._n)])
            self._y = np.concatenate([self._y[: self._n], np.empty(cap - self._n)])
        if len(xs):
            if self.steps_sorted and (xs[0] < self._last_x or bool(np.any(xs[1:] < xs[:-1]))):
                self.steps_sorted = False
            self.nonfinite += len(ys) - int(np.count_nonzero(np.isfinite(ys)))
            self._last_x = float(xs[-1])
        self._x[self._n : need] = xs
        self._y[self._n : need] = ys
        self._n = need

    @property
    def x(self) -> np.ndarray:
        return self._x[: self._n]

    @property
    def y(self) -> np.ndarray:
        return self._y[: self._n]

    def value_at(self, step: float) -> tuple[float, float] | None:
        """The point whose x is nearest to ``step`` (x is sorted: steps only grow)."""
        i = self.index_at(step)
        return None if i is None else (float(self._x[i]), float(self._y[i]))

    def index_at(self, step: float) -> int | None:
        """The index of the point whose x is nearest to ``step`` (the earlier one of a tie); None when empty."""
        if self._n == 0:
            return None
        xs = self.x
        i = int(np.searchsorted(xs, step))
        if i >= self._n:
            i = self._n - 1
        elif i > 0 and abs(xs[i - 1] - step) <= abs(xs[i] - step):
            i -= 1
        return i


def _nonfinite(value) -> float | None:
    """NaN / +-inf for a reported value that is not finite: JSON null (the worker writes NaN and inf as
    null), the strings "nan" / "inf" / "-inf", or a float NaN / inf; None for a finite number or text."""
    if value is None:
        return math.nan
    out = as_float(value)
    return None if out is None or math.isfinite(out) else out


ESTIMATING = "remaining: estimating…"   # the progress line's words while the step rate is not measured yet


@dataclass
class RunState(TimeLeft):
    """One run as the GUI shows it. ``status`` is one of explorer.core.runs.status.STATUSES, changed only
    through that module's state machine.

    Times are seconds; ``steps_total`` is the optimizer steps the worker plans (``started``).
    """

    run_id: str
    path: Path | None = None
    config: dict = field(default_factory=dict)
    status: str = run_status.CRASHED
    steps_total: int = 0
    steps_per_epoch: int = 0       # the started event's (0: not recorded); Curves' x axis by epoch
    effective_batch_size: int = 0  # batch x accumulation x processes (started); Curves' x axis by examples seen
    train_seconds: float = 0.0     # a time-budgeted run: seconds of training so far (step events)
    train_budget: float = 0.0      # a time-budgeted run: training seconds its wall-time budget leaves (step events)
    step_bound: int = 0            # the steps its epochs or Max steps allow (the started event's; 0: unknown)
    planned_eval_every: int | None = None   # the evaluation cadence the run planned (step events' eval_every)
    step: int = 0
    epoch: float = 0.0
    elapsed: float = 0.0
    duration: float | None = None
    device: str = ""
    mixed_precision: str = ""
    num_parameters: int = 0
    started_at: float | None = None   # wall clock (event "time") of the started event
    last_event_at: float | None = None
    series: dict[str, Series] = field(default_factory=dict)
    evals: list[dict] = field(default_factory=list)
    eval_points: dict[str, list[int]] = field(default_factory=dict)   # dev series key -> its points' evals index
    rescorings: list[dict] = field(default_factory=list)   # checkpoints/best rescored on all dev rows, not in evals
    final_metrics: dict = field(default_factory=dict)
    checkpoints: dict[str, str] = field(default_factory=dict)   # kind ("last"/"best") -> path
    best_checkpoint: str | None = None
    error: str = ""
    queue_note: str = ""          # where a queued run waits, e.g. "SLURM job 123" (the Runs dock's status)
    waits_for: tuple[str, ...] = ()   # the runs training outside this window a queued run waits for (queue_wait)
    traceback: str = ""
    stderr_tail: str = ""
    logs: list[str] = field(default_factory=list)
    read_notes: list[str] = field(default_factory=list)   # what reading the run folder skipped (core.runs.reading)
    stopped_early: bool = False
    loaded: bool = True     # False for a summary read from disk whose events are not loaded yet
    shown_share: float = 0.0   # the largest share done a progress bar was given (done_share)
    kind: str = "BERT Explorer"   # who wrote the run folder (explorer.core.runs.reading.run_kinds)
    host: str = ""     # the remote host the run trains on (its mirror's remote.json); "" = this machine
    settings: dict = field(default_factory=dict)   # another tool's training settings (core.runs.reading.RunRecord)
    declared_best: tuple[str, float, int] | None = None   # another tool's own best (name, display value, step)
    best_pick: tuple[int, str | None] | None = None   # the loop's last "best" checkpoint: (step, metric it used)
    _baseline: tuple | None = field(default=None, repr=False, compare=False)   # (config key, Baseline)
    # the started event's dev_baseline (core.metrics.baselines.Baseline): computed by the worker, where the data is
    reported_baseline: object = field(default=None, repr=False, compare=False)
    _eta: EtaMeter = field(default_factory=EtaMeter, repr=False, compare=False)
    evaluating: dict | None = None   # the evaluation under way: its latest ``evaluating`` event (ui/runs/evaluating)
    eval_plan: str = ""   # the run's evaluation plan as it decided it (its ``log`` event of topic eval_plan)
    # its dev rows that repeat training rows, a core.metrics.optimism.OptimismMark (its ``log`` event of topic
    # dev_overlap): every dev figure of the run is optimistic, said beside them; None: none repeat one
    dev_overlap: object = None
    # its ``cancelled`` event dropped it from the queue because the app quit (``queued`` and ``at_quit``: the queue's
    # record, explorer.ui.runs.runner.record_cancelled_queued), not because the person cancelled it
    dropped_at_quit: bool = False

    # ---- derived -------------------------------------------------------------------------
    @property
    def timing(self) -> EtaMeter:
        """What the run's steps and evaluations took, read from its events (ui/runs/eta.EtaMeter)."""
        return self._eta

    @property
    def model(self) -> str:
        return str(self.config.get("model", ""))

    @property
    def task(self) -> str:
        return str(self.config.get("task", ""))

    @property
    def is_live(self) -> bool:
        return run_status.is_live(self.status)

    def one_class_note(self):
        """A ClassNote (explorer.core.metrics.baselines: its kind and its words), 'predicts only 'NONE' for every dev
        row: try …' when the run's evaluations predicted one class for everything its head counts them over (a
        classifier's dev rows, a tagger's dev tokens: "only 'O'"), else none, false
        (explorer.core.metrics.baselines.run_one_class_note: while the run trains, once that persists)."""
        from explorer.core.metrics.baselines import run_one_class_note

        elapsed = self.live_elapsed()
        share = self._eta.eval_seconds[0] / elapsed if elapsed > 0 and self._eta.eval_seconds[1] else None
        return run_one_class_note(self.task, self.evals, _num((self.config or {}).get("learning_rate")),
                                  step=self.step, steps_total=self.steps_total, live=self.is_live,
                                  budget_seconds=self.budget_seconds, eval_share=share)

    def primary_metric(self) -> str | None:
        """The dev metric used to rank runs (explorer.core.specs.tasks.choose_metric: the one that picks
        the run's best checkpoint when evaluated), else the first name seen in sorted order."""
        names = set(self.dev_metric_names())
        chosen = choose_metric(names, self.config)
        return chosen or (sorted(names)[0] if names else None)

    def best_by_metric(self) -> str | None:
        """The dev metric that picks this run's best checkpoint: another tool's declared one (a Trainer folder's
        metric_for_best_model, "loss" for eval_loss), else :meth:`primary_metric`."""
        return self.declared_best[0] if self.declared_best is not None else self.primary_metric()

    def best_metric(self) -> tuple[str, float, int] | None:
        """(name, best value, step of it): the evaluation ``checkpoints/best`` holds: the loop's last "best"
        checkpoint where the log has one (its step and the last evaluation at it, as core.specs.best.best_of_events),
        else by the training loop's own rule (explorer.core.specs.best: strictly better in the metric's direction wins, a tie keeps the earlier step, the
        step-0 evaluation of the untrained model is never saved). None before such an evaluation.
        The value is on the display scale (percent; see dev series)."""
        from explorer.core.specs.best import best_evaluation

        if self.declared_best is not None:
            return self.declared_best
        name = self.primary_metric()
        if name is None:
            return None
        s = self.series[DEV_PREFIX + name]
        if self.best_pick is not None and self.best_pick[1] in (None, name):   # the loop's own pick (core/specs/best)
            again = [_num((e.get("metrics") or {}).get(name)) for e in self.rescorings if e.get("step") == self.best_pick[0]]
            at = [y for x, y in zip(s.x.tolist(), s.y.tolist()) if int(x) == self.best_pick[0] and math.isfinite(y)]
            at += [to_display(name, v, self.task) for v in again if v is not None and math.isfinite(v)]
            if at:
                return name, at[-1], self.best_pick[0]
        found = best_evaluation(zip(s.x.tolist(), s.y.tolist()), metric=name)
        if found is None:
            return None
        return name, found[1], found[0]

    def listed_best(self) -> tuple[str, float, int] | None:
        """(name, value, step) the Runs list shows and ranks the run by: :meth:`best_metric`'s evaluation, read in
        its listed metric (core.specs.best.listed_metric). A SQuAD 2.0 run picked by best_f1, F1 at the threshold
        chosen on the very dev questions it scores, is listed by f1 at τ = 0 at the same step (the model's own
        answer/abstain decision); :meth:`picked_by` gives the best_f1. The picking figure itself when that
        evaluation lacks the listed metric; another tool's declared best as it is."""
        best = self.best_metric()
        if best is None or self.declared_best is not None:
            return best
        from explorer.core.specs.best import listed_metric

        name = listed_metric(best[0])
        s = self.series.get(DEV_PREFIX + name)
        at = [y for x, y in zip(s.x.tolist(), s.y.tolist()) if int(x) == best[2] and math.isfinite(y)] if s else []
        again = [_num((e.get("metrics") or {}).get(name)) for e in self.rescorings if e.get("step") == best[2]]
        at += [to_display(name, v, self.task) for v in again if v is not None and math.isfinite(v)]
        return (name, at[-1], best[2]) if name != best[0] and at else best

    def picked_by(self) -> tuple[str, float, int] | None:
        """The figure that picked checkpoints/best (:meth:`best_metric`) when the run is listed by another one of
        the same evaluation (:meth:`listed_best`: a SQuAD 2.0 run's best_f1 behind its f1); None otherwise."""
        best, listed = self.best_metric(), self.listed_best()
        return best if best is not None and listed is not None and listed[0] != best[0] else None

    def baseline(self):
        """The trivial baseline of this run's dev data (explorer.core.metrics.baselines.Baseline) or None: the one the
        worker reported where the data is (a remote run's), else computed here from the files (older runs)."""
        from explorer.core.metrics.baselines import dev_baseline

        if self.reported_baseline is not None:
            return self.reported_baseline
        if not self.config:
            return None
        key = (self.config.get("task"), self.config.get("dev"), self.config.get("dev_cap"))
        if self._baseline is None or self._baseline[0] != key:   # read once per run (the list repaints often)
            self._baseline = (key, dev_baseline(self.config, self.path))
        return self._baseline[1]

    def best_text(self) -> str:
        """'F1 (%) 66.70 @120 · all no-answer 34.29' ('' before a saved evaluation; 'F1 (%) 55.68 @70 (τ = 0) · ...'
        for a SQuAD 2.0 run, listed by its F1 at τ = 0, not by the best_f1 that picked it): after the dot the trivial
        predictor's score on the same dev data, under its own name ("majority class", "all no-answer"), so it is
        never taken for the bag-of-words baseline of the "vs BoW" column. The Runs list's cell is the
        short best_cell_text; this is its tooltip and the Curves' summary."""
        from explorer.core.specs.metric_display import metric_label, to_display

        best = self.listed_best()   # a SQuAD 2.0 run: f1 at τ = 0, not the dev-tuned best_f1 that picked it
        if best is None:
            return ""
        label = metric_label(best[0], self.task)
        text = f"{label} {best[1]:.2f} @{best[2]}"
        if self.picked_by() is not None:   # listed by another figure than the one that picked the checkpoint: which
            text += " (τ = 0)"             # (Curves' legend sits beside the plot of the dev-tuned best_f1)
        base = self.baseline()
        if base is not None and best[0] in base.metrics:
            text += f" · {base.name} {to_display(best[0], base.metrics[best[0]], self.task):.2f}"
        return text

    def best_cell_text(self) -> str:
        """'66.70% F1': the best dev value, then its metric ('' before a saved evaluation), for the Runs
        list's "Best dev" column, whole in the default dock width (not "60.00 a…"); the step of
        checkpoints/best and the baseline are in the cell's tooltip (best_text)."""
        from explorer.core.specs.metric_display import value_then_metric

        best = self.listed_best()
        return "" if best is None else value_then_metric(best[0], best[1], self.task)

    def dev_metric_names(self) -> list[str]:
        return [k[len(DEV_PREFIX):] for k in self.series if k.startswith(DEV_PREFIX)]

    # ---- events --------------------------------------------------------------------------
    def _point(self, name: str, x: float, value) -> bool:
        y = _num(value)
        if y is None:
            return False
        self.series.setdefault(name, Series()).append(x, y)
        return True

    def apply(self, ev: dict) -> set[str]:
        """Update from one event; returns the names of the series that got new points."""
        kind = ev.get("event")
        changed: set[str] = set()
        t = _num(ev.get("time"))
        if t is not None:
            self.last_event_at = t
        self.status = run_status.after_event(self.status, ev)
        if kind in ("evaluating", "eval", "started") or kind in run_status.TERMINAL:   # under way until its eval event
            self.evaluating = ev if kind == "evaluating" else None
        if kind == "started":
            self._apply_started(ev, t)
        elif kind == "step":
            changed = self._apply_step(ev)
        elif kind == "eval" and is_rescoring(ev):   # an earlier step's figure on all dev rows: not a curve point
            self.rescorings.append(ev)
        elif kind == "eval":
            changed = self._apply_eval(ev)
        elif kind == "checkpoint":
            kind_ = str(ev.get("kind", "last"))
            self.checkpoints[kind_] = str(ev.get("path", ""))
            if kind_ == "best":
                self.best_checkpoint = self.checkpoints[kind_]
                if _num(ev.get("step")) is not None:
                    self.best_pick = (int(ev["step"]), ev.get("metric"))
        elif kind == run_status.FINISHED:   # terminal events are named as the status they end a run in
            self.stopped_early = bool(ev.get("stopped_early"))
            self.final_metrics = dict(ev.get("metrics") or {})
            self.duration = _num(ev.get("seconds"))
            if ev.get("best_checkpoint"):
                self.best_checkpoint = str(ev["best_checkpoint"])
        elif kind == run_status.FAILED:
            self.error = str(ev.get("error", "")) or "the worker failed without a message"
            self.traceback = str(ev.get("traceback", ""))
            self._end_duration()
        elif kind == run_status.CANCELLED:
            self.duration = _num(ev.get("seconds")) or self.duration
            self.dropped_at_quit = bool(ev.get("queued") and ev.get("at_quit"))
            self._end_duration()
        elif kind == "log":
            self.logs.append(f"[{ev.get('level', 'info')}] {ev.get('message', '')}")
            if ev.get("topic") == "eval_plan":
                self.eval_plan = str(ev.get("message", ""))
            self.dev_overlap = dev_overlap_mark([ev], example=False) or self.dev_overlap
        if kind != "step" and kind in STEP_EVENTS and _num(ev.get("step")) is not None:   # reached, as `runs` says
            self.step = max(self.step, int(_num(ev.get("step"))))
        return changed

    def _apply_started(self, ev: dict, t: float | None) -> None:
        """A ``started`` event: the run's config, device, sizes and step plan."""
        if isinstance(ev.get("config"), dict):
            self.config = ev["config"]
        self.device = str(ev.get("device", ""))
        self.mixed_precision = str(ev.get("mixed_precision", ""))
        self.num_parameters = int(_num(ev.get("num_parameters")) or 0)
        self.steps_total = self.step_bound = int(_num(ev.get("steps_total")) or 0)
        self.steps_per_epoch = int(_num(ev.get("steps_per_epoch")) or 0)
        self.effective_batch_size = int(_num(ev.get("effective_batch_size")) or 0)
        if self.budget_seconds:   # a time-budgeted run: the steps that fit are unknown until it has run a few
            self.steps_total = 0
        self.started_at = t
        if "dev_baseline" in ev:
            from explorer.core.metrics.baselines import Baseline

            self.reported_baseline = Baseline.from_dict(ev["dev_baseline"])

    def _apply_step(self, ev: dict) -> set[str]:
        """A ``step`` event: the step, its clocks and every scalar it reports; the series that got points."""
        changed: set[str] = set()
        step = _num(ev.get("step"))
        if step is None:
            return set()
        self.step = int(step)
        self.epoch = _num(ev.get("epoch")) or self.epoch
        self.elapsed = _num(ev.get("elapsed")) or self.elapsed
        if _num(ev.get("steps_total")):   # a time-budgeted run re-estimates the steps that fit
            self.steps_total = int(_num(ev.get("steps_total")))
        self.train_seconds = _num(ev.get("train_seconds")) or self.train_seconds
        self.train_budget = _num(ev.get("train_budget")) or self.train_budget
        if _num(ev.get("eval_every")) is not None:
            self.planned_eval_every = int(_num(ev.get("eval_every")))
        self._eta.step(step, _num(ev.get("elapsed")))
        for name in TRAIN_SERIES:
            if name in ev and _nonfinite(ev[name]):   # kept as NaN/inf: the curve shows a marked gap
                self.series.setdefault(name, Series()).append(step, _nonfinite(ev[name]))
                changed.add(name)
            elif self._point(name, step, ev.get(name)):
                changed.add(name)
        for name, value in ev.items():   # any other scalar the worker reports
            if name in TRAIN_SERIES or name in STEP_CONTEXT_FIELDS or name.startswith(DEV_PREFIX):
                continue
            if _is_scalar(value) or (value is None and name in self.series):   # null: NaN/inf, a gap
                y = float(value) if value is not None else math.nan
                self.series.setdefault(name, Series()).append(step, y)
                changed.add(name)
        return changed

    def _apply_eval(self, ev: dict) -> set[str]:
        """An ``eval`` event (not a re-scoring): its metrics as dev series points; the series that got points."""
        changed: set[str] = set()
        step = _num(ev.get("step")) or 0.0
        metrics = ev.get("metrics") or {}
        self.evals.append(ev)
        self._eta.evaluation(_num(ev.get("seconds")))
        undefined = metrics.get(UNDEFINED) if isinstance(metrics.get(UNDEFINED), dict) else {}
        for name, value in metrics.items():
            if not metric_spec(name).is_plotted or not (_is_scalar(value) or value is None):
                continue
            if _num(value) is not None:   # one display scale: percent (core.specs.metric_display)
                value = to_display(name, float(value), self.task)
            elif value is None and name in undefined:   # a correlation of constant predictions: a marked gap
                self.series.setdefault(DEV_PREFIX + name, Series()).append(step, math.nan)
                changed.add(DEV_PREFIX + name)
            if self._point(DEV_PREFIX + name, step, value):
                changed.add(DEV_PREFIX + name)
        for key in changed:   # which evaluation (and so which dev rows: ui/runs/eval_rows) made each point
            self.eval_points.setdefault(key, []).append(len(self.evals) - 1)
        return changed

    def _end_duration(self) -> None:
        if self.duration is None:
            if self.started_at and self.last_event_at:
                self.duration = max(self.elapsed, self.last_event_at - self.started_at)
            else:
                self.duration = self.elapsed or None

    def best_checkpoint_path(self) -> str | None:
        """The best checkpoint folder if known, else the last one, else None."""
        for candidate in (self.best_checkpoint, self.checkpoints.get("best"), self.checkpoints.get("last")):
            if candidate:
                return candidate
        if self.path is not None:
            from explorer.core.runs.layout import checkpoint_path

            for kind in ("best", "last"):
                p = checkpoint_path(self.path, kind)
                if p.is_dir():
                    return str(p)
        return None

    @classmethod
    def from_events(cls, run_id: str, events: list[dict], *, path: Path | None = None,
                    config: dict | None = None, alive: bool = False) -> "RunState":
        """Replay a run's events (a past run on disk). A log with no terminal event is ``running``
        when its worker process is alive (``alive``: launched elsewhere, e.g. from the CLI), else
        ``crashed`` (the worker died without reporting): explorer.core.runs.status.replay."""
        state = cls(run_id=run_id, path=path, config=dict(config or {}), status=run_status.STARTING)
        for ev in events:
            state.apply(ev)
        state.status = run_status.replay([], alive, state.status)
        if state.status == run_status.CRASHED:
            state._end_duration()
        return state


def listed_status(s: RunState) -> str:
    """The status as the Runs list counts it: NOT_STARTED for a run that waited in the queue when the app quit and
    never started (the status bar offers to queue it again; "cancelled" would read as a failure or as the person's
    own cancel), else ``s.status``."""
    if s.status == run_status.CANCELLED and s.dropped_at_quit and s.started_at is None and not s.step:
        return NOT_STARTED
    return s.status


def format_seconds(seconds: float | None) -> str:
    """1:02:03 / 4:05 style; '' for None."""
    if seconds is None or not math.isfinite(seconds):
        return ""
    s = int(round(seconds))
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def progress_parts(state: RunState, now: float | None = None) -> list[tuple[str, int]]:
    """The progress line's parts, each with the rank in which it gives way when the line does not fit (0: never,
    the step and the time left; 1: the elapsed time and the budget trained; 2, first: the epoch)."""
    budget = state.budget_seconds
    step = f"step {state.step:,} of {'~' if budget else ''}{state.steps_total:,}" if state.steps_total else \
        f"step {state.step:,}"
    parts = [(step, 0)]
    if budget:      # the steps that fit in a time budget are an estimate that follows the speed
        parts.append((_budget_trained_text(state, budget), 1))
    parts.append((f"epoch {state.epoch:.2f}", 2))
    elapsed = state.live_elapsed(now)
    if elapsed > 0 or state.is_live:   # an ended run whose files hold no times (a Trainer folder) says nothing
        parts.append((f"elapsed {format_seconds(elapsed) or '0:00'}", 1))
    if state.is_live:
        eta = state.eta()
        parts.append((f"remaining {format_seconds(eta)}" if eta is not None else ESTIMATING, 0))
    return parts


def _budget_trained_text(state: RunState, budget: float) -> str:
    """'0:50 of ~8:00 trained (10:00 budget)' while the training stays within the time its budget leaves it; past
    that plan an estimate below the actual reads as an error, so the line says the training and the evaluations
    the budget went to instead: '2:03 trained of the 4:00 budget; evaluations 1:25'."""
    trained = format_seconds(state.train_seconds) or "0:00"
    if not state.train_budget:
        return f"{trained} of {format_seconds(budget)} budget trained"
    if state.train_seconds <= state.train_budget:
        return f"{trained} of ~{format_seconds(state.train_budget)} trained ({format_seconds(budget)} budget)"
    evals, count = state._eta.eval_seconds
    spent = f"; evaluations {format_seconds(evals)}" if count else ""
    return f"{trained} trained of the {format_seconds(budget)} budget{spent}"


def progress_text(state: RunState, now: float | None = None) -> str:
    """'step 120 of 400 · epoch 0.30 · elapsed 1:02 · remaining 3:20' for the progress line."""
    return " · ".join(text for text, _rank in progress_parts(state, now))


def undefined_best_text(s: "RunState", *, short: bool = False) -> str:
    """A run with no best value because its selection metric was undefined at every evaluation after step 0 (a
    regression head predicting one score: Pearson and Spearman have no value): 'undefined pearson' (``short``,
    the cell) or 'pearson undefined: the predictions are constant (…)' (the tooltip); '' otherwise."""
    from explorer.core.specs.best import undefined_best
    from explorer.core.specs.metric_display import undefined_text

    name = s.primary_metric() if s.declared_best is None else None
    reason = undefined_best(s.evals, name) if name else ""
    return undefined_text(name, reason, s.task, short=short) if reason else ""

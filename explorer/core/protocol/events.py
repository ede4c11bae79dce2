"""The worker protocol: JSON-lines events written by the training process, read by the GUI.

This module is the contract between ``explorer.worker`` (writes) and ``explorer.ui`` (reads); neither
imports the other (docs/architecture.md). One JSON object per line, each with ``"event"``, ``"run_id"``
and ``"time"`` (unix seconds). The worker prints each line on stdout and appends the same line,
flushed, to ``runs/<run_id>/events.jsonl`` so a crash loses nothing that was reported.

Each line the worker writes also carries ``seq``, its 1-based line number in events.jsonl
(:class:`EventWriter`; older files have none). The fields of each event type are the TypedDicts below (:class:`StartedEvent` ... :class:`LogEvent`);
all numbers are plain JSON numbers (NaN / inf are written as null), times in seconds.
"""

from __future__ import annotations

import contextlib
import json
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Iterable, Iterator, Literal, TypedDict, Union

TERMINAL_EVENTS = ("finished", "failed", "cancelled")
EVENTS_FILE = "events.jsonl"


class _Numbered(TypedDict, total=False):
    seq: int                        # 1-based line number in events.jsonl (EventWriter); absent in older files


class _Event(_Numbered):
    event: str
    run_id: str
    time: float


class StartedEvent(_Event, total=False):
    """``started``: the run's settings and sizes, once per start (again after a resume)."""

    config: dict                    # TrainConfig as a dict
    device: str                     # "cpu", "cuda:0", ...
    mixed_precision: str            # "no" | "fp16" | "bf16" (resolved)
    num_parameters: int
    steps_total: int                # optimizer steps planned
    steps_per_epoch: int
    warmup_steps: int
    effective_batch_size: int       # batch_size x gradient_accumulation_steps x processes
    num_train_examples: int
    num_train_features: int         # rows after tokenization (QA: windows)
    num_dev_examples: int
    num_processes: int
    resumed_from_step: int | None
    load_report: dict               # what loading the model found (missing / unexpected / new weights;
                                    # "warning" when weights outside the task head are random)
    label_names: list               # classification: class names in id order (id2label)
    class_counts: dict              # classification: training examples per class name
    class_weights: dict             # classification with class_weights: loss weight per class name
    train_unanswerable: int         # SQuAD: unanswerable training questions (0: the model never learns to abstain)
    dev_baseline: dict              # the trivial predictor's dev metrics, computed where the data is (name,
                                    # metrics, detail: explorer.core.metrics.baselines.Baseline.to_dict); absent: none


class StepEvent(_Event, total=False):
    """``step``: one optimizer step (every ``log_every``)."""

    step: int                       # optimizer steps done
    epoch: float
    loss: float                     # mean micro-batch loss since the last step event
    lr: float                       # learning rate used by this step
    grad_norm: float                # before clipping
    samples_per_second: float
    elapsed: float
    train_seconds: float            # time-budgeted runs: seconds in training steps (evaluations not counted)
    steps_total: int                # time-budgeted runs: the steps now expected to fit in the budget
    eval_every: int                 # the evaluation cadence now planned (core/training/eval_plan.py)


class WatchRow(TypedDict, total=False):
    """One watched question at an evaluation (QA)."""

    question: str
    passage: str
    answer: str
    best_span: str
    score_diff: float
    null_score: float
    best_non_null_score: float
    window: int
    flow: dict[str, list[float]]    # "question->passage" etc. (9 block pairs) -> one value per layer


class EvalEvent(_Event, total=False):
    """``eval``: dev metrics at a step (step 0 = before training)."""

    step: int
    epoch: float
    metrics: dict[str, float]       # exact_match, f1, HasAns_*, NoAns_*, best_f1, ...; accuracy, ...
    seconds: float
    dev_rows: int                   # dev rows this evaluation scored (a stratified sample during training)
    dev_total: int                  # rows of the whole dev set (the final evaluation scores them all)
    rows_per_second: float          # the evaluation's forward rate after its first batch (what more rows cost)
    watch: list[WatchRow]
    rescored: bool                  # checkpoints/best of an earlier step scored on every dev row after the final
    #                                 evaluation (core/training/best_rescore); not a point of the run's curve


class EvaluatingEvent(_Event, total=False):
    """``evaluating``: an evaluation under way (at its start, then every few seconds until its ``eval`` event), so
    a long one (the final evaluation on the whole dev set) shows its progress rather than a run that looks hung."""

    step: int
    final: bool                     # the final evaluation (the whole dev set), else one during training
    rows_done: int                  # dev rows forwarded so far (a tagging run: its windows done, counted in sentences)
    rows_total: int                 # dev rows this evaluation scores (the dev sample during training)
    dev_total: int                  # rows of the whole dev set
    seconds: float                  # since the evaluation began
    rows_per_second: float          # its forward rate so far (0 before a batch is done)
    rescoring: bool                 # checkpoints/best of ``step`` scored on all dev rows after the final evaluation


class CheckpointEvent(_Event, total=False):
    """``checkpoint``: a checkpoint folder was written."""

    step: int
    path: str
    kind: Literal["last", "best"]
    metric: str                     # best: the dev metric it was picked by
    picked_on: str                  # best: the dev rows compared ("the 347-row stratified sample of the 2,478 dev rows")
    scored_on: str                  # best: the dev rows its figure (checkpoint.json, the last eval at its step) counts


class FinishedEvent(_Event, total=False):
    """``finished``: the run ended normally (also after stop early)."""

    metrics: dict[str, float]       # final dev metrics ({} without dev data)
    seconds: float
    best_checkpoint: str | None
    stopped_early: bool
    steps: int


class FailedEvent(_Event, total=False):
    """``failed``: one specific human message, and the traceback for internal errors."""

    error: str
    traceback: str
    source: str                     # "gui" when the GUI wrote it for a worker that died silently


class CancelledEvent(_Event, total=False):
    """``cancelled``: the run was cancelled (SIGTERM, or the GUI for a worker that ignored it)."""

    step: int | None
    seconds: float | None
    source: str


class LogEvent(_Event, total=False):
    """``log``: a phase or a warning for the user."""

    message: str
    level: Literal["info", "warning"]
    topic: str                      # what the message decides, for where it is shown ("eval_plan": the
                                    # evaluations' plan, shown beside the run's curves)


Event = Union[StartedEvent, StepEvent, EvalEvent, EvaluatingEvent, CheckpointEvent, FinishedEvent, FailedEvent,
              CancelledEvent, LogEvent]
EVENT_RECORDS: dict[str, type] = {"started": StartedEvent, "step": StepEvent, "eval": EvalEvent,
                                  "evaluating": EvaluatingEvent, "checkpoint": CheckpointEvent, "finished": FinishedEvent, "failed": FailedEvent,
                                  "cancelled": CancelledEvent, "log": LogEvent}
EVENT_TYPES = tuple(EVENT_RECORDS)


class EventParseError(ValueError):
    """A line that is not a valid event (not JSON, no "event"/"run_id", unknown type)."""


def is_rescoring(event: dict) -> bool:
    """An ``eval`` event that scores an earlier step's ``checkpoints/best`` on the whole dev set after the final
    evaluation (``"rescored": true``): it names that checkpoint's figure on all dev rows, but it is neither the run's
    final evaluation nor a point of its curve in step order."""
    return event.get("event") == "eval" and event.get("rescored") is True


def run_evaluations(events: Iterable[dict]) -> list[dict]:
    """The ``eval`` events of a run's curve, in order: every one but the rescorings (:func:`is_rescoring`)."""
    return [e for e in events if e.get("event") == "eval" and not is_rescoring(e)]


def json_safe(value: Any) -> Any:
    """A value strict JSON can hold (events, checkpoint.json): NaN / inf become null, numpy / torch scalars
    plain numbers, paths text; dicts, lists and tuples converted throughout."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if hasattr(value, "item") and callable(value.item):  # numpy / torch scalar
        return json_safe(value.item())
    if isinstance(value, Path):
        return str(value)
    return value


def make_event(event: str, run_id: str, **fields: Any) -> dict:
    """Build one event dict; raises ValueError for an unknown event type."""
    if event not in EVENT_TYPES:
        raise ValueError(f"unknown event type {event!r}; expected one of {EVENT_TYPES}")
    out = {"event": event, "run_id": run_id, "time": time.time()}
    out.update(json_safe(fields))
    return out


def encode_event(event: dict) -> str:
    """One event -> one JSON line (no trailing newline)."""
    return json.dumps(event, ensure_ascii=False, separators=(",", ":"))


# Fields that must be numbers (or null) and objects when present; a line breaking this is not an event.
# step-event fields that say where and when, not what was measured: never drawn or exported as a scalar
STEP_CONTEXT_FIELDS = ("event", "run_id", "time", "seq", "step", "epoch", "elapsed", "train_seconds", "train_budget",
                       "steps_total", "eval_every")
NUMBER_FIELDS = ("time", "seq", "step", "epoch", "loss", "lr", "grad_norm", "samples_per_second", "elapsed", "seconds",
                 "steps_total")
OBJECT_FIELDS = ("config", "metrics")


def _field_problem(obj: dict) -> str:
    for name in NUMBER_FIELDS:
        value = obj.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            return f"field {name!r} is {value!r}, not a number"
    for name in OBJECT_FIELDS:
        if name in obj and obj[name] is not None and not isinstance(obj[name], dict):
            return f"field {name!r} is not an object"
    return ""


def parse_event(line: str) -> dict:
    """One line -> event dict. Raises EventParseError with the reason (not JSON, no "event"/"run_id",
    unknown type, a number field such as ``loss`` that is not a number, ``metrics`` not an object)."""
    line = line.strip()
    if not line:
        raise EventParseError("empty line")
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise EventParseError(f"not JSON ({exc.msg} at column {exc.colno}): {line[:80]!r}") from None
    if not isinstance(obj, dict) or "event" not in obj or "run_id" not in obj:
        raise EventParseError(f"not an event (needs 'event' and 'run_id'): {line[:80]!r}")
    if obj["event"] not in EVENT_TYPES:
        raise EventParseError(f"unknown event type {obj['event']!r}")
    problem = _field_problem(obj)
    if problem:
        raise EventParseError(f"{obj['event']} event: {problem}")
    return obj


@dataclass
class EventLog:
    """What :func:`read_event_log` found in an events.jsonl.

    Attributes:
        events: the parseable events, in file order.
        skipped: (line number, reason) of every non-blank line that is not an event, 1-based.
        path: the file read.
        omitted: step lines left out unparsed (``steps="last"``); counted as kept in :meth:`note`.
    """

    events: list[dict]
    skipped: list[tuple[int, str]]
    path: Path
    omitted: int = 0

    def note(self) -> str:
        """'' when nothing was skipped, else one line naming the file, the count and the first lines."""
        if not self.skipped:
            return ""
        first = "; ".join(f"line {n}: {why}" for n, why in self.skipped[:3])
        more = f" (and {len(self.skipped) - 3} more)" if len(self.skipped) > 3 else ""
        return (f"{self.path}: skipped {len(self.skipped)} unreadable line(s), kept {len(self.events) + self.omitted} "
                f"events; "
                f"{first}{more}")


STEP_MARKERS = ('"event":"step"', '"event": "step"')   # how a step line looks before it is parsed


def read_event_log(path: str | Path, *, steps: str = "all") -> EventLog:
    """Read an events.jsonl, keeping every parseable event and naming every line that was skipped.

    Tolerates what a crash, a full disk or a stray editor leaves: a torn last line, garbage lines in the
    middle, bytes that are not UTF-8 (replaced, so the other lines still read), NUL padding, an empty file.
    ``steps="last"`` (the runs list) leaves out every ``step`` line but the last one, unparsed: status,
    best dev metric, steps and duration come out as from the whole log without parsing thousands of
    step lines.

    Raises:
        OSError: the file cannot be read at all (missing, a directory, no permission).
    """
    path = Path(path)
    text = path.read_bytes().decode("utf-8", errors="replace")
    events, skipped, omitted = [], [], 0
    lines = text.split("\n")
    last_step = -1
    if steps == "last":
        last_step = max((n for n, ln in enumerate(lines, 1) if any(m in ln for m in STEP_MARKERS)), default=-1)
    for n, line in enumerate(lines, 1):
        line = line.replace("\x00", "")
        if not line.strip():
            continue
        if last_step > 0 and n != last_step and any(m in line for m in STEP_MARKERS):
            omitted += 1
            continue
        try:
            events.append(parse_event(line))
        except EventParseError as exc:
            torn = n == len(lines) and not text.endswith("\n")
            skipped.append((n, ("torn last line (the writer stopped mid-line): " if torn else "") + str(exc)))
    return EventLog(events=events, skipped=skipped, path=path, omitted=omitted)


def read_events(path: str | Path) -> list[dict]:
    """All parseable events of an events.jsonl (see :func:`read_event_log`; this drops the notes).

    Raises:
        OSError: the file cannot be read at all.
    """
    return read_event_log(path).events


def iter_events(lines: Iterable[str]) -> Iterator[dict]:
    """Parse lines, skipping blank and non-event lines (e.g. library warnings on stdout)."""
    for line in lines:
        try:
            yield parse_event(line)
        except EventParseError:
            continue


def _ends_mid_line(path: Path) -> bool:
    """Does the file end without a newline (a line torn by a crash)? False for a missing/empty file."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, 2)
            if fh.tell() == 0:
                return False
            fh.seek(-1, 2)
            return fh.read(1) != b"\n"
    except OSError:
        return False


def count_lines(path: Path) -> int:
    """Newline-terminated lines of a regular file (0 when it is missing or not a regular file: a device such as
    /dev/full reads zeros without end)."""
    if not Path(path).is_file():
        return 0
    try:
        with open(path, "rb") as fh:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: fh.read(1 << 20), b""))
    except FileNotFoundError:
        return 0


@dataclass
class EventWriter:
    """Writes events to stdout (or any stream) and appends them, flushed, to events.jsonl.

    Only the main process of a distributed run should own a writer (``enabled=False`` elsewhere).
    If appending to the file fails (disk full), ``file_error`` says why, a warning goes to stderr and
    the events keep going to the stream (the GUI still receives them). ``listeners``: callables given
    every event written (e.g. explorer.core.runs.tensorboard.TensorBoardWriter.write for ``report_to``); one that
    raises is dropped with a warning on stderr, and the events go on.

    Every event written gets ``seq``: its 1-based line number in events.jsonl (a resumed run or the GUI's
    own terminal event continue the count of the lines already there; without a file, the count of events
    written). A follower that mirrors the file (explorer.core.remote.follow) checks it: no line lost or
    doubled.
    """

    run_id: str
    path: Path | None = None
    stream: IO[str] | None = None
    enabled: bool = True
    file_error: str | None = field(default=None, init=False)   # why appending to path stopped (disk full...)
    listeners: list = field(default_factory=list)
    _file: IO[str] | None = field(default=None, init=False, repr=False)
    _seq: int = field(default=0, init=False, repr=False)        # lines in the file (events written)

    def emit(self, event: str, **fields: Any) -> dict:
        """Make one event (:func:`make_event`) and :meth:`write` it; returns the event."""
        return self.write(make_event(event, self.run_id, **fields))

    def write(self, ev: dict) -> dict:
        """Append an event made elsewhere (e.g. the GUI's ``failed`` for a worker that died without one)
        to the file and the stream, as :meth:`emit` does; returns it. Check ``file_error`` after."""
        if not self.enabled:
            return ev
        if self.path is not None and self.file_error is None:
            try:
                self._open()
            except OSError as exc:
                self._failed(exc)
        self._seq += 1
        ev["seq"] = self._seq
        line = encode_event(ev)
        if self.path is not None and self.file_error is None:
            try:
                self._file.write(line + "\n")
                self._file.flush()
            except OSError as exc:   # disk full, folder removed: the stream still carries every event
                self._failed(exc)
        if self.stream is not None:
            try:
                self.stream.write(line + "\n")
                self.stream.flush()
            except (OSError, ValueError):   # the reader went away (GUI quit, "leave it training"):
                self.stream = None          # keep training; the events file has every line
        for listener in list(self.listeners):
            try:
                listener(ev)
            except Exception as exc:  # noqa: BLE001 - a mirror failing must never stop the run
                self.listeners.remove(listener)
                sys.stderr.write(f"warning: stopped writing events to {getattr(listener, '__self__', listener)} "
                                 f"({type(exc).__name__}: {exc}); events.jsonl goes on\n")
        return ev

    def _failed(self, exc: OSError) -> None:
        self.file_error = f"{self.path}: {exc.strerror or exc}"
        with contextlib.suppress(OSError):
            self.close()
        sys.stderr.write(f"warning: cannot append to {self.path} ({exc.strerror or exc}); "
                         "events continue on stdout only\n")

    def _open(self) -> None:
        """Open the file for appending (once), ending a torn last line; ``_seq`` = the lines already there."""
        if self._file is not None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        torn = _ends_mid_line(self.path)
        self._seq = count_lines(self.path) + (1 if torn else 0)
        self._file = open(self.path, "a", encoding="utf-8")
        if torn:  # a crash tore the last line: never glue a new event onto it
            self._file.write("\n")

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

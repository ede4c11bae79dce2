"""Reading run folders (Qt-free, torch-free): one run (:func:`load_run`, :func:`read_summary`), every run of a
folder (:func:`read_runs`, :func:`list_runs`, :func:`find_runs`) and who wrote a folder (:func:`run_kind`).

Reading never fails on what is inside a run folder: garbled ``events.jsonl`` lines are skipped and a broken
``config.json`` falls back to the ``started`` event's config; each fallback is one line in ``notes``.
``steps="last"`` is the quick list read (every step event but the last left out, unparsed).

Other tools' run folders (an HF Trainer output_dir, TensorBoard event files) list and draw beside ours, read
through the reader table (explorer.core.runs.readers), never written.

Status: explorer.core.runs.status.replay over the events (the last ``started`` counts, so a resumed run
counts from its resume): ``finished`` / ``stopped`` (finished early on request) / ``failed`` /
``cancelled`` = the terminal event; no terminal event and a live worker process = ``running``; no
terminal event and no live process = ``crashed``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from explorer.core.protocol.events import EVENTS_FILE, read_event_log, run_evaluations
from explorer.core.runs import status as run_status
from explorer.core.runs.layout import CONFIG_FILE, checkpoint_dir, config_file, events_file, run_dir_of
from explorer.core.runs.readers.base import reader_for_kind, run_readers
from explorer.core.runs.workers import worker_alive
from explorer.core.runs.restarts import drop_orphaned
from explorer.core.specs.best import best_of_events, listed_best, undefined_best
from explorer.core.specs.tasks import best_metric_name, choose_metric

OURS = "BERT Explorer"   # the kind of our own run folders (RunSummary.kind); other kinds are the readers'


@dataclass
class RunSummary:
    """One line of the runs table.

    Attributes:
        run_id, path: the run folder's name and path.
        status: one of explorer.core.runs.status.STATUSES (running or terminal).
        model, task: from config.json.
        metric_name, metric_value: the best value of the run's selection metric over its eval events
            (None before the first evaluation).
        metric_undefined: why the selection metric has no best value when every evaluation after step 0 gave
            it as undefined (a correlation of constant predictions: "the predictions are constant (…)"); "".
        listed_name, listed_value: the figure the run is listed by, of the same evaluation
            (core.specs.best.listed_best): the selection metric's own, except a SQuAD 2.0 run picked by best_f1
            (a threshold tuned on the dev questions it scores), listed by f1 at τ = 0 ("" / None before a best).
        duration: seconds from the first event to the last (or the ``finished`` event's seconds).
        steps: optimizer steps done (last ``step``/``eval`` event); steps_total from ``started``.
        stopped_early: the run finished because it was asked to stop.
        error: the ``failed`` event's message ("" otherwise).
        started_at: unix time of the first event (0 if none).
        notes: one line per thing reading the folder skipped or fell back on (garbled events lines,
            an unreadable config.json, ...); [] when all was well.
    """

    run_id: str
    path: str
    status: str
    model: str = ""
    task: str = ""
    metric_name: str = ""
    metric_value: float | None = None
    metric_undefined: str = ""
    listed_name: str = ""
    listed_value: float | None = None
    duration: float = 0.0
    steps: int = 0
    steps_total: int = 0
    stopped_early: bool = False
    error: str = ""
    started_at: float = 0.0
    notes: list[str] = field(default_factory=list)   # what reading the folder skipped or fell back on
    kind: str = OURS   # who wrote the folder: OURS or a reader's kind (run_kinds)

    def listed(self) -> tuple[str, float | None]:
        """(name, stored value) of the figure the run is listed by: ``listed_name`` / ``listed_value`` where set,
        else the selection metric's best (``metric_name`` / ``metric_value``)."""
        if self.listed_name:
            return self.listed_name, self.listed_value
        return self.metric_name, self.metric_value


@dataclass
class RunRecord:
    """Everything about one run: config (dict), all events, checkpoint folders, final metrics."""

    run_id: str
    path: str
    config: dict
    events: list[dict]
    checkpoints: dict[str, str] = field(default_factory=dict)   # kind -> folder
    final_metrics: dict = field(default_factory=dict)
    summary: RunSummary | None = None
    notes: list[str] = field(default_factory=list)   # see RunSummary.notes
    kind: str = OURS                                  # run_kinds()
    settings: dict = field(default_factory=dict)      # another tool's training settings, as far as readable
    best: tuple[str, float, int] | None = None        # another tool's own best (metric, stored value, step)

    @property
    def status(self) -> str:
        return self.summary.status if self.summary else run_status.CRASHED

    @property
    def started_at(self) -> float:
        return self.summary.started_at if self.summary else 0.0

    @property
    def alive(self) -> bool:
        """The run has no terminal event and its worker process lives (run_status: ``running``)."""
        return self.status == run_status.RUNNING

    def evals(self) -> list[dict]:
        """The run's evaluations in step order (a best checkpoint's rescoring after the final one left out)."""
        return run_evaluations(self.events)

    def steps(self) -> list[dict]:
        return [e for e in self.events if e.get("event") == "step"]


def run_config_of(path: str | Path) -> dict:
    """The run config (config.json, as :func:`read_config` checks it) of the run a checkpoint belongs to;
    {} when ``path`` is not inside a run folder or the run has no readable config.json."""
    run_dir = run_dir_of(path)
    if run_dir is None or not config_file(run_dir).is_file():
        return {}
    return read_config(run_dir)[0]


def _since_last_start(events: list[dict]) -> list[dict]:
    starts = [i for i, e in enumerate(events) if e.get("event") == "started"]
    return events[starts[-1]:] if starts else events


# the events whose step a run has reached: a run's step is the largest of theirs (the Runs list, `runs`, Curves).
# An HF Trainer folder logs its loss every logging_steps (45 of 48) but evaluates and saves at step 48.
STEP_EVENTS = ("step", "eval", "checkpoint")


def derive_status(events: list[dict], alive: bool) -> str:
    """Status from the events and whether the worker process lives (explorer.core.runs.status.replay)."""
    return run_status.replay(events, alive)


def summarize(run_id: str, path: Path, config: dict, events: list[dict], alive: bool) -> RunSummary:
    s = RunSummary(run_id=run_id, path=str(path), status=derive_status(events, alive),
                   model=str(config.get("model", "")), task=str(config.get("task", "")))
    evals = [e for e in events if e.get("event") == "eval" and isinstance(e.get("metrics"), dict)]
    seen = {name for e in evals for name in e["metrics"]}
    name = choose_metric(seen, config) or best_metric_name(config)
    best = best_of_events(events, name)   # core/specs/best: the loop's own pick where logged, else the rule
    s.metric_name = name
    s.metric_value = best[1] if best else None
    s.metric_undefined = "" if best else undefined_best(evals, name)
    listed = listed_best(events, name)   # best_f1 picks a SQuAD 2.0 checkpoint; f1 at τ = 0 lists it
    if listed is not None:
        s.listed_name, s.listed_value = listed[0], listed[2]
    steps = [int(e.get("step") or 0) for e in events if e.get("event") in STEP_EVENTS]
    s.steps = max(steps) if steps else 0
    started = [e for e in events if e.get("event") == "started"]
    if started:
        s.steps_total = int(started[-1].get("steps_total", 0) or 0)
    budgeted = [e for e in events if e.get("event") == "step" and e.get("steps_total")]
    if budgeted:   # a time-budgeted run: its latest estimate of the steps that fit
        s.steps_total = int(budgeted[-1]["steps_total"])
    if events:
        s.started_at = float(events[0].get("time", 0) or 0)
        s.duration = max(0.0, float(events[-1].get("time", 0) or 0) - s.started_at)
    tail = _since_last_start(events)
    for e in tail:
        if e.get("event") == "finished":
            s.stopped_early = bool(e.get("stopped_early"))
        elif e.get("event") == "failed":
            s.error = str(e.get("error", ""))
    return s


def read_config(path: Path, events: list[dict] | None = None) -> tuple[dict, list[str]]:
    """A run folder's config.json, checked: (config dict, notes).

    Falls back rather than fails: a missing or unreadable config.json (not JSON, not an object, not UTF-8,
    a directory) gives the config of the last ``started`` event when there is one, else {}; settings of
    the wrong type (e.g. ``batch_size: "abc"``) and unknown settings are left out. Every fallback adds a
    note naming the file and what was wrong.
    """
    from explorer.core.specs.train_config import TrainConfig, type_problems

    file = config_file(path)
    notes: list[str] = []
    data = None
    try:
        data = json.loads(file.read_bytes().decode("utf-8"))
        if not isinstance(data, dict):
            notes.append(f"{file}: holds a {type(data).__name__}, not an object; ignored")
            data = None
    except FileNotFoundError:
        notes.append(f"{file}: missing")
    except json.JSONDecodeError as exc:
        notes.append(f"{file}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); ignored")
    except UnicodeDecodeError as exc:
        notes.append(f"{file}: not UTF-8 text (byte {exc.start}); ignored")
    except OSError as exc:
        notes.append(f"{file}: unreadable ({exc.strerror or type(exc).__name__}); ignored")
    if data is None:
        started = [e for e in events or [] if e.get("event") == "started" and isinstance(e.get("config"), dict)]
        data = dict(started[-1]["config"]) if started else {}
        if started:
            notes[-1] += "; using the config of the run's started event"
    fields = TrainConfig.__dataclass_fields__
    unknown = sorted(k for k in data if k not in fields)
    if unknown:
        notes.append(f"{file}: unknown setting(s) {', '.join(unknown)} left out")
    known = {k: v for k, v in data.items() if k in fields}
    problems = type_problems(known)
    if problems:
        notes.append(f"{file}: {'; '.join(problems)}; left out")
        bad = {p.split(" ", 1)[0] for p in problems}
        known = {k: v for k, v in known.items() if k not in bad}
    return known, notes


def read_run_events(path: Path, steps: str = "all") -> tuple[list[dict], list[str]]:
    """A run folder's events (parseable lines, file order) and notes (skipped lines, unreadable file).

    ``steps="last"`` leaves out every step event but the last (events.read_event_log: the list read).
    """
    file = events_file(path)
    if not file.exists():
        return [], []
    try:
        log = read_event_log(file, steps=steps)
    except OSError as exc:
        return [], [f"{file}: unreadable ({exc.strerror or type(exc).__name__}); the run shows no points"]
    note = log.note()
    if not log.events and not log.skipped:
        return [], [f"{file}: empty (the run was stopped before its first event)"]
    return log.events, [note] if note else []


def _read_run(path: Path, steps: str = "all") -> tuple[str, dict, list[dict], list[str]]:
    """(run_id, config, events, notes) of a run folder, never raising for what is inside it; the events a
    resume orphaned (steps logged past the checkpoint it resumed from) are dropped and named in the notes
    (explorer.core.runs.restarts)."""
    events, notes = read_run_events(path, steps)
    events, restart_notes = drop_orphaned(events)
    config, config_notes = read_config(path, events)
    run_id = str(config.get("run_id") or path.name)
    return run_id, config, events, config_notes + notes + restart_notes


def _is_model_config(file: Path) -> bool:
    """A model's config.json (save_pretrained: ``model_type`` / ``architectures``), not a run config."""
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and ("model_type" in data or "architectures" in data)


def run_kind(path: str | Path) -> str | None:
    """Who wrote a folder: OURS (events.jsonl, or a config.json that is a run config, not a model's) or the kind
    of the reader that recognises it (explorer.core.runs.readers: an HF Trainer output_dir or checkpoint-N,
    TensorBoard event files), matched in the order the reader table gives; None for any other folder and for
    dot-folders (``.launch``, ``.groups``, ``.trash``)."""
    path = Path(path)
    if not path.is_dir() or path.name.startswith("."):
        return None
    if events_file(path).is_file():
        return OURS
    readers = run_readers()
    for reader in (r for r in readers if not r.shared_with_ours):
        if reader.recognises(path):
            return reader.kind
    if config_file(path).is_file() and not _is_model_config(config_file(path)):
        return OURS
    for reader in (r for r in readers if r.shared_with_ours):
        if reader.recognises(path):
            return reader.kind
    return None


def run_kinds() -> tuple[str, ...]:
    """OURS, then every registered reader's kind (explorer.core.runs.readers)."""
    return (OURS,) + tuple(r.kind for r in run_readers())




def is_run_dir(path: Path) -> bool:
    """A run folder of any kind (:func:`run_kind`): ours (config.json or events.jsonl) or one a reader of the
    table recognises (an HF Trainer output_dir or checkpoint-N, a folder of TensorBoard event files)."""
    return run_kind(path) is not None


def find_runs(folder: str | Path, depth: int = 3) -> list[Path]:
    """Every run folder at or under ``folder`` (up to ``depth`` levels down), by path; a run folder's own
    sub-folders (checkpoints, an HF run's checkpoint-N) are not searched. [] for a missing folder."""
    folder = Path(folder)
    if is_run_dir(folder):
        return [folder]
    if depth <= 0 or not folder.is_dir():
        return []
    out: list[Path] = []
    for child in sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")):
        out += find_runs(child, depth - 1)
    return out


def run_dirs(folder: str | Path) -> list[Path]:
    """The run folders directly under ``folder`` (:func:`is_run_dir`), by name; [] for a missing folder."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if is_run_dir(p))


def read_runs(folder: str | Path, read=None) -> tuple[list, list[str]]:
    """``read(run_dir)`` (default :func:`load_run`) for every run folder under ``folder`` -> (results
    oldest first by their ``started_at`` then ``run_id``, problems: one line per folder whose read
    raised; one bad folder never hides the others). The one discovery loop: the CLI, Groups and the
    GUI's Runs list go through it."""
    read = read or load_run
    results, problems = [], []
    for p in run_dirs(folder):
        try:
            results.append(read(p))
        except Exception as exc:  # noqa: BLE001 - one bad folder must not hide the others
            problems.append(f"{p}: {exc}")
    results.sort(key=lambda r: (getattr(r, "started_at", None) or 0.0, r.run_id))
    return results, problems


def list_runs(folder: str | Path) -> list[RunSummary]:
    """Every run folder under ``folder`` (those with config.json or events.jsonl), oldest first.

    A missing folder gives []. What cannot be read inside a run folder (garbled events lines, a broken
    config.json) is skipped and named in the summary's ``notes``; the run is still listed.
    """
    out = [read_summary(path) for path in run_dirs(folder)]
    out.sort(key=lambda s: (s.started_at or _mtime(Path(s.path)), s.run_id))
    return out


def read_summary(path: str | Path) -> RunSummary | None:
    """The RunSummary of one run folder (notes included), or None when it is not a run folder."""
    path = Path(path)
    if not is_run_dir(path):
        return None
    if run_kind(path) != OURS:
        return load_run(path).summary
    run_id, config, events, notes = _read_run(path)
    summary = summarize(run_id, path, config, events, worker_alive(path))
    summary.notes = notes
    return summary


def _mtime(path: Path) -> float:
    try:
        return config_file(path).stat().st_mtime
    except OSError:
        return 0.0


def load_run(path: str | Path, *, steps: str = "all") -> RunRecord:
    """A run folder -> RunRecord (config dict, all events, checkpoints, final metrics, summary, notes).

    Garbled events lines and a missing/broken config.json never fail the load: they are skipped and
    named in ``notes`` (see :func:`read_config`, :func:`read_run_events`). ``steps="last"`` reads only the
    last step event (the runs list: everything but the per-step curves comes out the same).

    Another tool's folder (:func:`run_kind`: an HF Trainer output_dir or checkpoint-N, TensorBoard event
    files) reads as events made from its files by its reader (:func:`load_foreign_run`).

    Raises:
        ValueError: the folder is no run folder of any kind (the message says what was looked for).
    """
    path = Path(path)
    kind = run_kind(path)
    if kind is None:
        looked = [f"no {CONFIG_FILE} or {EVENTS_FILE} (ours)"] + [r.looks_for for r in run_readers()]
        raise ValueError(f"{path} is not a run folder: it has {', '.join(looked[:-1])} and {looked[-1]}")
    if kind != OURS:
        return load_foreign_run(path, kind)
    run_id, config, events, notes = _read_run(path, steps)
    checkpoints = {k: str(p) for k in ("last", "best") if (p := checkpoint_dir(path, k)) is not None}
    final = {}
    for e in _since_last_start(events):
        if e.get("event") == "finished":
            final = dict(e.get("metrics") or {})
    if not final:
        evals = run_evaluations(events)
        final = dict(evals[-1].get("metrics") or {}) if evals else {}
    summary = summarize(run_id, path, config, events, worker_alive(path))
    summary.notes = notes
    return RunRecord(run_id=run_id, path=str(path), config=config, events=events, checkpoints=checkpoints,
                     final_metrics=final, summary=summary, notes=notes)


def load_foreign_run(path: str | Path, kind: str) -> RunRecord:
    """Another tool's run folder -> RunRecord, through the reader registered for ``kind``
    (explorer.core.runs.readers: the HF Trainer reader, the TensorBoard reader). Its status is the reader's
    (finished / stopped / in progress for an HF Trainer run, TensorBoard run / in progress for event files);
    never crashed.

    Raises:
        ValueError: the files cannot be read as that kind (the message names the file), or no reader has that kind.
        explorer.core.runs.tensorboard.TensorBoardMissing: TensorBoard event files without the tensorboard package.
    """
    path = Path(path)
    reader = reader_for_kind(kind)
    if reader is None:
        raise ValueError(f"{path}: no reader for run folders of kind {kind!r}")
    run = reader.read(path, time.time())
    summary = summarize(run.run_id, path, run.config, run.events, False)
    summary.status, summary.kind, summary.notes = run.status, kind, run.notes
    ended = [e for e in run.events if e.get("event") == "finished" and e.get("seconds")]
    if ended:   # another tool's event times are its files' (all alike): the duration it logged
        summary.duration = float(ended[-1]["seconds"])
    if run.best is not None:
        summary.metric_name, summary.metric_value = run.best[0], run.best[1]
        summary.listed_name, summary.listed_value = run.best[0], run.best[1]   # another tool's own best lists it
    evals = [e for e in run.events if e.get("event") == "eval"]
    return RunRecord(run_id=run.run_id, path=str(path), config=run.config, events=run.events,
                     checkpoints=dict(run.checkpoints), final_metrics=dict(evals[-1]["metrics"]) if evals else {},
                     summary=summary, notes=run.notes, kind=kind, settings=run.settings, best=run.best)

"""A run on disk: config, events log, checkpoints; listing and reloading past runs.

Layout (docs/architecture.md, "The run store")::

    <runs folder>/<run_id>/config.json        TrainConfig, written first
    <runs folder>/<run_id>/events.jsonl       one event per line, flushed per line
    <runs folder>/<run_id>/worker.pid         {"pid", "host", "time"} while the worker process lives
    <runs folder>/<run_id>/checkpoints/last/  save_pretrained + tokenizer + training_state.pt
    <runs folder>/<run_id>/checkpoints/best/  same, best dev metric so far
    <runs folder>/<run_id>/STOP               created by the GUI (or a user) for "stop early"
    <runs folder>/<run_id>/predictions.json, nbest_predictions.json, null_odds.json (last QA evaluation)

This module is the run store: the one place that knows that layout (:func:`run_dir_of`,
:func:`config_file`, :func:`events_file`, :func:`checkpoint_path`, ...), the run id rule
(:func:`new_run_id`), how a run folder is read (:func:`load_run`, :func:`list_runs`, :func:`run_dirs`;
``steps="last"`` for the quick list read), how events are appended outside the worker
(:func:`append_event`, through :class:`~explorer.core.protocol.events.EventWriter`), and :class:`RunStore`, the
observable model of the listed runs (per-field events; explorer.core.evented).

Other kinds of run folder (:func:`run_kind`) list and draw beside ours, read, never written:

    <output_dir>/trainer_state.json, <output_dir>/checkpoint-N/{trainer_state.json, training_args.bin,
        config.json, model.safetensors}   an HF Trainer run (explorer.core.runs.trainer_folder), also one checkpoint-N
    <folder>/events.out.tfevents.*        a folder of TensorBoard event files (explorer.core.runs.tensorboard)

Status: explorer.core.runs.status.replay over the events (the last ``started`` counts, so a resumed run
counts from its resume): ``finished`` / ``stopped`` (finished early on request) / ``failed`` /
``cancelled`` = the terminal event; no terminal event and a live worker process = ``running``; no
terminal event and no live process = ``crashed``.
"""

from __future__ import annotations

import json
import os
import re
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path

from explorer.core.runs import status as run_status
from explorer.core.specs.best import best_of_events
from explorer.core.evented import EmitterGroup
from explorer.core.runs.trainer_folder import WriterWatch, writer_fingerprint
from explorer.core.protocol.events import EVENTS_FILE, EventWriter, read_event_log
from explorer.core.specs.tasks import best_metric_name, choose_metric
from explorer.core.training.checkpoints import CHECKPOINTS, checkpoint_dir

CONFIG_FILE = "config.json"
DEV_SPLIT_FILE = "dev_split.csv"   # a run without a dev file: the training rows held out as dev (core/data/split.py)
PID_FILE = "worker.pid"
STOP_FILE = "STOP"
REMOTE_FILE = "remote.json"   # a local mirror of a run on a remote host: where it runs (core/remote/hosts.py)
# the kinds of run folder (run_kind) and the files that tell the other tools' kinds apart
OURS, HF_TRAINER, TENSORBOARD = "BERT Explorer", "HF Trainer", "TensorBoard"
RUN_KINDS = (OURS, HF_TRAINER, TENSORBOARD)
TRAINER_STATE_FILE = "trainer_state.json"
TRAINING_ARGS_BIN = "training_args.bin"     # a pickle: never loaded (explorer.core.runs.trainer_folder)
TRAINING_ARGS_JSON = "training_args.json"   # TrainingArguments.to_json_string(), when a script saved it
HF_CHECKPOINT = re.compile(r"checkpoint-\d+")
IN_PROGRESS_SECONDS = 300.0   # another tool's run whose files changed this recently is "in progress"
# HF Trainer folders this process saw being written to (its own clock, never the files' times: a copy's are the
# copy's; explorer.core.runs.trainer_folder.WriterWatch)
TRAINER_WRITERS = WriterWatch(IN_PROGRESS_SECONDS)


@dataclass
class RunSummary:
    """One line of the runs table.

    Attributes:
        run_id, path: the run folder's name and path.
        status: one of explorer.core.runs.status.STATUSES (running or terminal).
        model, task: from config.json.
        metric_name, metric_value: the best value of the run's selection metric over its eval events
            (None before the first evaluation).
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
    duration: float = 0.0
    steps: int = 0
    steps_total: int = 0
    stopped_early: bool = False
    error: str = ""
    started_at: float = 0.0
    notes: list[str] = field(default_factory=list)   # what reading the folder skipped or fell back on
    kind: str = OURS   # RUN_KINDS: who wrote the folder


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
    kind: str = OURS                                  # RUN_KINDS
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
        return [e for e in self.events if e.get("event") == "eval"]

    def steps(self) -> list[dict]:
        return [e for e in self.events if e.get("event") == "step"]


# -- the layout: every path inside a run folder comes from here ---------------------------------
def config_file(run_dir: str | Path) -> Path:
    """``<run_dir>/config.json``: the run's TrainConfig, written first."""
    return Path(run_dir) / CONFIG_FILE


def dev_split_file(run_dir: str | Path) -> Path:
    """``<run>/dev_split.csv``: the ids and lines of the training rows a run without a dev file held out as
    dev (written by the classification task; read back by resume, prediction and Classify: dev set)."""
    return Path(run_dir) / DEV_SPLIT_FILE


def events_file(run_dir: str | Path) -> Path:
    """``<run_dir>/events.jsonl``: one event per line (explorer.core.protocol.events)."""
    return Path(run_dir) / EVENTS_FILE


def pid_file(run_dir: str | Path) -> Path:
    """``<run_dir>/worker.pid``: {"pid", "host", "time"} while the worker lives."""
    return Path(run_dir) / PID_FILE


def stop_file(run_dir: str | Path) -> Path:
    """``<run_dir>/STOP``: "stop early" (the worker finishes its step, evaluates, saves)."""
    return Path(run_dir) / STOP_FILE


def remote_file(run_dir: str | Path) -> Path:
    """``<run_dir>/remote.json``: in the local mirror of a run that trains on a remote host, the host and
    the run's folder there (explorer.core.remote.hosts.RemoteRun); absent for a local run."""
    return Path(run_dir) / REMOTE_FILE


def checkpoint_path(run_dir: str | Path, kind: str = "last") -> Path:
    """``<run_dir>/checkpoints/<kind>`` (kind "last" or "best"), whether or not it exists yet; use
    explorer.core.training.checkpoints.checkpoint_dir for the folder of a *complete* checkpoint."""
    return Path(run_dir) / CHECKPOINTS / kind


def run_dir_of(path: str | Path) -> Path | None:
    """The run folder a checkpoint folder belongs to: ``<run>/checkpoints/<kind>`` -> ``<run>`` (also for
    ``last.old`` and the like); a run folder (it holds ``checkpoints/``) -> itself; else None (a hub
    model, a folder saved elsewhere)."""
    p = Path(str(path).rstrip("/"))
    if p.parent.name == CHECKPOINTS:
        return p.parent.parent
    if (p / CHECKPOINTS).is_dir():
        return p
    return None


def run_config_of(path: str | Path) -> dict:
    """The run config (config.json, as :func:`read_config` checks it) of the run a checkpoint belongs to;
    {} when ``path`` is not inside a run folder or the run has no readable config.json."""
    run_dir = run_dir_of(path)
    if run_dir is None or not config_file(run_dir).is_file():
        return {}
    return read_config(run_dir)[0]


# -- run ids --------------------------------------------------------------------------------------
def model_short_name(model: str) -> str:
    """The model part of a run id: the last path or hub part ('bundled:minilm' -> 'minilm',
    'google-bert/bert-base-uncased' -> 'bert-base-uncased'); a run's checkpoint folder
    '<runs>/<run_id>/checkpoints/best' (or last, last.old) -> '<that run's model>-ft' (not 'best'), the
    run folder's name standing in for a model it does not record."""
    path = Path((model or "").rstrip("/"))
    if path.parent.name == CHECKPOINTS and path.name.split(".")[0] in ("best", "last"):
        run_dir = path.parent.parent
        parent_model = run_config_of(path).get("model") or ""
        return f"{model_short_name(str(parent_model)) if parent_model else run_dir.name}-ft"
    return (model or "model").rstrip("/").split("/")[-1].split(":")[-1] or "model"


# words of a data file's name that say nothing of the data (train.tsv, dev.csv, train-subset.json, dev-part1.json)
GENERIC_DATA_WORDS = frozenset({"train", "training", "dev", "test", "testing", "valid", "validation", "val", "eval",
                                "data", "dataset", "all", "full", "subset", "sample", "small", "part", "split",
                                "set"})


def _generic_data_name(name: str) -> bool:
    """Whether every word of ``name`` ('train', 'train-subset', 'dev_part1') is one of GENERIC_DATA_WORDS (digits
    left out)."""
    words = [w for w in re.split(r"[^a-z]+", name.lower()) if w]
    return all(w in GENERIC_DATA_WORDS for w in words)


def data_short_name(data: str) -> str:
    """The data part of a run id and of a run's automatic name: a file's stem ('…/mrpc_train.tsv' ->
    'mrpc_train'), or its folder's name when the stem says nothing of the data ('…/glue_sst2/train.tsv' ->
    'glue_sst2', '…/stance_semeval2016/train.txt' -> 'stance_semeval2016': two runs on files called train.*
    differ; tenth trial), a hub id's last part and config ('nyu-mll/glue::sst2' -> 'glue-sst2'); "" when no data."""
    data = (data or "").strip().rstrip("/")
    if not data:
        return ""
    name, _, config = data.partition("::")
    path = Path(name)
    stem = path.stem if path.suffix.lower() in (".json", ".jsonl", ".tsv", ".csv", ".txt", ".conll", ".gz", ".parquet") \
        else path.name
    stem = stem[:-len(".jsonl")] if stem.endswith((".jsonl", ".json", ".tsv", ".csv")) else stem   # x.jsonl.gz
    if not config and _generic_data_name(stem):
        folder = next((p.name for p in path.parents if p.name and not _generic_data_name(p.name)), "")
        stem = folder or stem
    return f"{stem}-{config}" if config else stem


def free_run_id(name: str, runs_dir: str | Path | None = None, *,
                taken: set[str] | frozenset[str] = frozenset()) -> str:
    """``name`` when no run has it, else the first free ``name-2``, ``name-3``...: free means not in ``taken``
    (ids handed out but not yet on disk, e.g. queued runs) and no folder ``runs_dir/name``."""
    run_id, n = name, 1
    while run_id in taken or (runs_dir is not None and (Path(runs_dir) / run_id).exists()):
        n += 1
        run_id = f"{name}-{n}"
    return run_id


def new_run_id(model: str, task: str, runs_dir: str | Path | None = None, now: float | None = None, *,
               suffix: str = "", taken: set[str] | frozenset[str] = frozenset(), data: str = "") -> str:
    """The one run id rule: ``YYYYmmdd-HHMMSS-<model>-<task>[-<data>]<suffix>`` (local time; ``data``, the
    train data, as :func:`data_short_name` shortens it, so two runs of a task on different files differ;
    filesystem-safe: other characters become '-'); suffixed -2, -3... while the id is taken
    (:func:`free_run_id`). Used by the worker (``train`` without --run-id) and the GUI's run queue."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now if now is not None else time.time()))
    part = data_short_name(data)
    text = f"{stamp}-{model_short_name(model)}-{task or 'task'}{'-' + part if part else ''}{suffix}"
    base = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")
    return free_run_id(base, runs_dir, taken=taken)


def is_generated_run_id(run_id: str) -> bool:
    """Does ``run_id`` follow :func:`new_run_id`'s pattern (a date-time stamp first)? False for a name the
    user typed in the launcher's Run name (the Runs list shows that name as it is)."""
    return re.match(r"^\d{8}-\d{6}-", run_id or "") is not None


# -- the worker process ---------------------------------------------------------------------------
def write_pid_file(run_dir: str | Path) -> Path:
    """Record this process as the run's worker (removed by :func:`remove_pid_file` on exit)."""
    path = pid_file(run_dir)
    path.write_text(json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "time": time.time()}),
                    encoding="utf-8")
    return path


def remove_pid_file(run_dir: str | Path) -> None:
    try:
        path = pid_file(run_dir)
        info = json.loads(path.read_text(encoding="utf-8"))
        if info.get("pid") == os.getpid():
            path.unlink()
    except (OSError, json.JSONDecodeError):
        pass


def worker_alive(run_dir: str | Path) -> bool:
    """Is the run's worker process still alive? (pid file present, same host, process exists and
    is not a zombie). On another host the answer is "assume yes"."""
    try:
        info = json.loads(pid_file(run_dir).read_text(encoding="utf-8"))
        pid = int(info["pid"])
    except (OSError, ValueError, KeyError, TypeError, json.JSONDecodeError):
        return False
    if info.get("host") and info.get("host") != socket.gethostname():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    if stat.exists():
        try:
            if stat.read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return False
        except (OSError, IndexError):
            pass
    return True


def request_stop(run_dir: str | Path) -> Path:
    """Create the STOP file: the worker finishes its step, evaluates, saves and finishes."""
    path = stop_file(run_dir)
    path.write_text(str(time.time()), encoding="utf-8")
    return path


def worker_pid(run_dir: str | Path) -> int | None:
    """The pid in ``<run_dir>/worker.pid`` when that worker is alive (this host), else None."""
    if not worker_alive(run_dir):
        return None
    try:
        return int(json.loads(pid_file(run_dir).read_text(encoding="utf-8"))["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def terminate_worker(run_dir: str | Path) -> str:
    """SIGTERM the worker of a run this process did not start (the worker then logs ``cancelled``).

    Returns a one-line message for the status bar (what was done, or why nothing was).
    """
    import signal

    pid = worker_pid(run_dir)
    if pid is None:
        return f"{Path(run_dir).name}: no live worker process to cancel"
    try:
        os.kill(pid, signal.SIGTERM)
    except OSError as exc:
        return f"{Path(run_dir).name}: cannot signal worker {pid}: {exc}"
    return f"{Path(run_dir).name}: cancel sent to worker {pid}"


# -- appending events (only through EventWriter) ----------------------------------------------------
def append_event(run_dir: str | Path, event: dict) -> dict:
    """Append one event (made with explorer.core.protocol.events.make_event) to ``<run_dir>/events.jsonl``
    through :class:`~explorer.core.protocol.events.EventWriter` (a torn last line is ended first); returns it.

    Raises:
        OSError: the line could not be written; the message names the file and the reason.
    """
    writer = EventWriter(str(event.get("run_id", "")), path=events_file(run_dir))
    try:
        writer.write(event)
    finally:
        writer.close()
    if writer.file_error is not None:
        raise OSError(f"cannot append the {event.get('event')} event to {writer.file_error}")
    return event


# -- status and summaries ---------------------------------------------------------------------
def _since_last_start(events: list[dict]) -> list[dict]:
    starts = [i for i, e in enumerate(events) if e.get("event") == "started"]
    return events[starts[-1]:] if starts else events


def derive_status(events: list[dict], alive: bool) -> str:
    """Status from the events and whether the worker process lives (explorer.core.runs.status.replay)."""
    return run_status.replay(events, alive)


def summarize(run_id: str, path: Path, config: dict, events: list[dict], alive: bool) -> RunSummary:
    s = RunSummary(run_id=run_id, path=str(path), status=derive_status(events, alive),
                   model=str(config.get("model", "")), task=str(config.get("task", "")))
    evals = [e for e in events if e.get("event") == "eval" and isinstance(e.get("metrics"), dict)]
    seen = {name for e in evals for name in e["metrics"]}
    name = choose_metric(seen, config) or best_metric_name(config)
    best = best_of_events(evals, name)   # core/specs/best: the metric's direction, step 0 skipped, ties keep the earlier
    s.metric_name = name
    s.metric_value = best[1] if best else None
    steps = [int(e.get("step") or 0) for e in events if e.get("event") in ("step", "eval", "checkpoint")]
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
    """(run_id, config, events, notes) of a run folder, never raising for what is inside it."""
    events, notes = read_run_events(path, steps)
    config, config_notes = read_config(path, events)
    run_id = str(config.get("run_id") or path.name)
    return run_id, config, events, config_notes + notes


def _is_model_config(file: Path) -> bool:
    """A model's config.json (save_pretrained: ``model_type`` / ``architectures``), not a run config."""
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and ("model_type" in data or "architectures" in data)


def is_hf_trainer_dir(path: str | Path) -> bool:
    """An HF Trainer ``output_dir`` (trainer_state.json at the top or in a ``checkpoint-N`` folder) or one
    ``checkpoint-N`` folder holding trainer_state.json."""
    path = Path(path)
    if (path / TRAINER_STATE_FILE).is_file():
        return True
    return path.is_dir() and any(HF_CHECKPOINT.fullmatch(p.name) and (p / TRAINER_STATE_FILE).is_file()
                                 for p in path.iterdir())


def run_kind(path: str | Path) -> str | None:
    """Who wrote a folder: OURS (events.jsonl, or a config.json that is a run config, not a model's),
    HF_TRAINER (:func:`is_hf_trainer_dir`), TENSORBOARD (TensorBoard event files, no events.jsonl); None for
    any other folder and for dot-folders (``.launch``, ``.groups``, ``.trash``)."""
    from explorer.core.runs.tensorboard import tensorboard_files

    path = Path(path)
    if not path.is_dir() or path.name.startswith("."):
        return None
    if events_file(path).is_file():
        return OURS
    if is_hf_trainer_dir(path):
        return HF_TRAINER
    if config_file(path).is_file() and not _is_model_config(config_file(path)):
        return OURS
    if tensorboard_files(path):
        return TENSORBOARD
    return None


def is_run_dir(path: Path) -> bool:
    """A run folder of any kind (:func:`run_kind`): ours (config.json or events.jsonl), an HF Trainer
    output_dir or checkpoint-N, a folder of TensorBoard event files."""
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
    files) reads as events made from its files (:func:`load_foreign_run`).

    Raises:
        ValueError: the folder is no run folder of any kind (the message says what was looked for).
    """
    path = Path(path)
    kind = run_kind(path)
    if kind is None:
        raise ValueError(f"{path} is not a run folder: it has no {CONFIG_FILE} or {EVENTS_FILE} (ours), no "
                         f"{TRAINER_STATE_FILE} (an HF Trainer output_dir or checkpoint-N) and no TensorBoard "
                         "event files")
    if kind != OURS:
        return load_foreign_run(path, kind)
    run_id, config, events, notes = _read_run(path, steps)
    checkpoints = {k: str(p) for k in ("last", "best") if (p := checkpoint_dir(path, k)) is not None}
    final = {}
    for e in _since_last_start(events):
        if e.get("event") == "finished":
            final = dict(e.get("metrics") or {})
    if not final:
        evals = [e for e in events if e.get("event") == "eval"]
        final = dict(evals[-1].get("metrics") or {}) if evals else {}
    summary = summarize(run_id, path, config, events, worker_alive(path))
    summary.notes = notes
    return RunRecord(run_id=run_id, path=str(path), config=config, events=events, checkpoints=checkpoints,
                     final_metrics=final, summary=summary, notes=notes)


def load_foreign_run(path: str | Path, kind: str) -> RunRecord:
    """Another tool's run folder -> RunRecord: an HF Trainer run (explorer.core.runs.trainer_folder) or a folder of
    TensorBoard event files (explorer.core.runs.tensorboard.tensorboard_events). Its status: an HF Trainer run is
    FINISHED when its files say it ended, IN_PROGRESS while TRAINER_WRITERS saw them change in the last
    IN_PROGRESS_SECONDS, else STOPPED (explorer.core.runs.trainer_folder.read_trainer_run); a TensorBoard run is
    TENSORBOARD_RUN, or IN_PROGRESS while its files changed in the last IN_PROGRESS_SECONDS; never crashed.

    Raises:
        ValueError: the files cannot be read as that kind (the message names the file).
        explorer.core.runs.tensorboard.TensorBoardMissing: TensorBoard event files without the tensorboard package.
    """
    from explorer.core.runs.trainer_folder import ForeignRun, read_trainer_run
    from explorer.core.runs.tensorboard import tensorboard_events, tensorboard_files

    path = Path(path)
    now = time.time()
    if kind == HF_TRAINER:
        run = read_trainer_run(path, state_name=TRAINER_STATE_FILE, json_name=TRAINING_ARGS_JSON,
                               bin_name=TRAINING_ARGS_BIN, kind=kind, finished_status=run_status.FINISHED,
                               stopped_status=run_status.STOPPED, live_status=run_status.IN_PROGRESS, now=now,
                               watch=TRAINER_WRITERS)
    else:
        files = tensorboard_files(path)
        newest = max(f.stat().st_mtime for f in files)
        run = ForeignRun(kind=kind, run_id=path.name, events=tensorboard_events(path.name, path),
                         status=run_status.IN_PROGRESS if now - newest < IN_PROGRESS_SECONDS else run_status.TENSORBOARD_RUN,
                         notes=[f"TensorBoard run: scalars from {len(files)} event file(s) in {path}"])
    summary = summarize(run.run_id, path, run.config, run.events, False)
    summary.status, summary.kind, summary.notes = run.status, kind, run.notes
    ended = [e for e in run.events if e.get("event") == "finished" and e.get("seconds")]
    if ended:   # another tool's event times are its files' (all alike): the duration it logged
        summary.duration = float(ended[-1]["seconds"])
    if run.best is not None:
        summary.metric_name, summary.metric_value = run.best[0], run.best[1]
    evals = [e for e in run.events if e.get("event") == "eval"]
    return RunRecord(run_id=run.run_id, path=str(path), config=run.config, events=run.events,
                     checkpoints=dict(run.checkpoints), final_metrics=dict(evals[-1]["metrics"]) if evals else {},
                     summary=summary, notes=run.notes, kind=kind, settings=run.settings, best=run.best)


# -- the observable store of listed runs ----------------------------------------------------------
class RunStore:
    """The runs a window lists, as an observable model (Qt-free; the napari ``Dims`` pattern).

    A run's state object (the GUI's explorer.ui.runs.state.RunState, or anything with ``run_id``,
    ``status``, ``path``) comes from one of two places: a *driver* that runs its worker in this process
    (the GUI's run queue, explorer.ui.runs.runner.RunManager: :meth:`add` with ``driver=``), or a read
    of its folder (:meth:`offer`). The store decides who owns a run: a driven run is never replaced by
    a read from disk, and stop / cancel go to its driver, or for a run whose worker was started
    elsewhere (an earlier window that left it training, the CLI) to the folder (the STOP file; SIGTERM
    to the pid in worker.pid).

    Events (``store.events.<name>.connect(callback)``; explorer.core.evented):
        added(state): a run is listed, or its state object was replaced (a fresh read from disk);
        changed(run_id, series): the run's state changed in place (``series``: the set of series keys
            with new points, empty for a status / progress change);
        ended(run_id, status): its driven worker is done (or a queued run was cancelled);
        removed(run_id): it is no longer listed (its folder went to the trash);
        message(text): a one-line note for the status bar (e.g. an event that could not be recorded).
    """

    def __init__(self, folder: str | Path | None = None):
        self.folder = Path(folder) if folder is not None else None
        self.events = EmitterGroup("added", "changed", "ended", "removed", "message")
        self._states: dict = {}
        self._drivers: dict = {}   # run_id -> the object running its worker in this process

    # ---- what is listed --------------------------------------------------------------------------
    def get(self, run_id: str):
        """The state of a listed run, or None."""
        return self._states.get(run_id)

    def ids(self) -> list[str]:
        return list(self._states)

    def states(self) -> list:
        return list(self._states.values())

    def __contains__(self, run_id: str) -> bool:
        return run_id in self._states

    def run_of(self, path: str | Path):
        """The listed run a checkpoint folder (or run folder) belongs to (:func:`run_dir_of`), or None."""
        run_dir = run_dir_of(path)
        if run_dir is None:
            return None
        return next((s for s in self._states.values() if s.path is not None and Path(s.path) == run_dir), None)

    def config_of(self, path: str | Path) -> dict:
        """The run config of the run a checkpoint belongs to: the listed run's (as it knows it, e.g. from
        its ``started`` event), else its config.json (:func:`run_config_of`); {} outside a run folder."""
        state = self.run_of(path)
        return dict(state.config) if state is not None else run_config_of(path)

    def is_driven(self, run_id: str) -> bool:
        """Is the run's worker (or its place in the queue) handled by a driver in this process?"""
        return run_id in self._drivers

    def driven(self) -> list:
        """The states of the runs driven in this process, in the order they were added."""
        return [self._states[r] for r in self._drivers if r in self._states]

    def running_elsewhere(self) -> list:
        """Listed runs that are running with a worker this process did not start (followed by re-reading
        their folders)."""
        return [s for r, s in self._states.items()
                if r not in self._drivers and s.status in run_status.FOLLOWED and s.path is not None]

    def trainer_folders_to_recheck(self, now: float | None = None) -> list:
        """Listed HF Trainer runs read as stopped whose folder TRAINER_WRITERS still watches (first seen or last
        changed under IN_PROGRESS_SECONDS ago) and whose files changed since that look (stat calls only): a
        writer is at work after all; re-read them (they become IN_PROGRESS)."""
        now = time.time() if now is None else now
        out = []
        for s in self._states.values():
            if s.kind != HF_TRAINER or s.status != run_status.STOPPED or s.path is None:
                continue
            if TRAINER_WRITERS.watching(s.path, now) and TRAINER_WRITERS.changed_since(
                    s.path, writer_fingerprint(s.path, TRAINER_STATE_FILE)):
                out.append(s)
        return out

    def tracked(self) -> list:
        """The runs driven here, then the runs running elsewhere (the status bar's activity)."""
        return self.driven() + self.running_elsewhere()

    # ---- changes ----------------------------------------------------------------------------------
    def add(self, state, driver=None) -> None:
        """List a run (replacing a state of the same id); ``driver``: the object that runs its worker
        here (it must have ``stop_early(run_id)`` and ``cancel(run_id)``). Emits ``added``."""
        self._states[state.run_id] = state
        if driver is not None:
            self._drivers[state.run_id] = driver
        self.events.added.emit(state)

    def offer(self, state) -> bool:
        """A state read from disk: listed (new, or replacing the listed one) unless the run is driven
        here, whose live state wins. Returns whether it was taken (``added`` was emitted)."""
        if state.run_id in self._drivers:
            return False
        self.add(state)
        return True

    def changed(self, run_id: str, series=frozenset()) -> None:
        """The run's state changed in place; emits ``changed(run_id, set(series))``."""
        if run_id in self._states:
            self.events.changed.emit(run_id, set(series))

    def ended(self, run_id: str, status: str) -> None:
        """Its driven worker is done (the driver keeps the run listed); emits ``ended``."""
        if run_id in self._states:
            self.events.ended.emit(run_id, status)

    def remove(self, run_id: str) -> None:
        """No longer list the run (its folder went to the trash); emits ``removed``."""
        if self._states.pop(run_id, None) is not None:
            self._drivers.pop(run_id, None)
            self.events.removed.emit(run_id)

    def note(self, text: str) -> None:
        """A one-line message for whoever shows them; emits ``message``."""
        self.events.message.emit(text)

    # ---- requests ---------------------------------------------------------------------------------
    def _request(self, run_id: str, request: str, elsewhere) -> str:
        """``request`` ("stop_early" | "cancel") through the run's driver (-> ""), else ``elsewhere(run_dir)``
        for a run running with a worker started elsewhere, else "" (nothing to do)."""
        driver = self._drivers.get(run_id)
        if driver is not None:
            getattr(driver, request)(run_id)
            return ""
        s = self._states.get(run_id)
        if s is None or s.path is None or s.status != run_status.RUNNING:
            return ""
        return elsewhere(Path(s.path))

    def stop_early(self, run_id: str) -> str:
        """Stop early: through its driver, or (a worker started elsewhere) its STOP file. Returns a
        message for the status bar ("" when the driver handled it or nothing could be done)."""
        def by_file(run_dir: Path) -> str:
            try:
                request_stop(run_dir)
            except OSError as exc:
                return f"cannot create {stop_file(run_dir)}: {exc}"
            return f"Asked {run_id} to stop early (it saves and evaluates first)"

        return self._request(run_id, "stop_early", by_file)

    def cancel(self, run_id: str) -> str:
        """Cancel: through its driver (a queued run is dropped), or SIGTERM to a worker started elsewhere.
        Returns a message for the status bar ("" when the driver handled it or nothing could be done)."""
        return self._request(run_id, "cancel", terminate_worker)

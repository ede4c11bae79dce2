"""A run on disk: config, events log, checkpoints; listing and reloading past runs.

Layout (docs/architecture.md, "Runs on disk")::

    <runs folder>/<run_id>/config.json        TrainConfig, written first
    <runs folder>/<run_id>/events.jsonl       one event per line, flushed per line
    <runs folder>/<run_id>/worker.pid         {"pid", "host", "time"} while the worker process lives
    <runs folder>/<run_id>/checkpoints/last/  save_pretrained + tokenizer + training_state.pt
    <runs folder>/<run_id>/checkpoints/best/  same, best dev metric so far
    <runs folder>/<run_id>/STOP               created by the GUI (or a user) for "stop early"
    <runs folder>/<run_id>/predictions.json, nbest_predictions.json, null_odds.json (last QA evaluation)

Status: explorer.core.run_status.replay over the events (the last ``started`` counts, so a resumed run
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

from explorer.core import run_status
from explorer.core.best import best_of_events
from explorer.core.events import EVENTS_FILE, read_event_log
from explorer.core.task_facts import best_metric_name, choose_metric
from explorer.core.training.checkpoints import checkpoint_dir

CONFIG_FILE = "config.json"
PID_FILE = "worker.pid"
STOP_FILE = "STOP"


@dataclass
class RunSummary:
    """One line of the runs table.

    Attributes:
        run_id, path: the run folder's name and path.
        status: one of explorer.core.run_status.STATUSES (running or terminal).
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

    @property
    def status(self) -> str:
        return self.summary.status if self.summary else run_status.CRASHED

    def evals(self) -> list[dict]:
        return [e for e in self.events if e.get("event") == "eval"]

    def steps(self) -> list[dict]:
        return [e for e in self.events if e.get("event") == "step"]


# -- run ids and folders ----------------------------------------------------------------------
def new_run_id(model: str, task: str, runs_dir: str | Path | None = None, now: float | None = None) -> str:
    """``YYYYmmdd-HHMMSS-<model>-<task>`` (filesystem-safe); suffixed -2, -3... if the folder exists."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now if now is not None else time.time()))
    short = (model or "model").rstrip("/").split("/")[-1].split(":")[-1] or "model"
    base = re.sub(r"[^A-Za-z0-9._-]+", "-", f"{stamp}-{short}-{task or 'task'}").strip("-")
    if runs_dir is None:
        return base
    run_id, n = base, 1
    while (Path(runs_dir) / run_id).exists():
        n += 1
        run_id = f"{base}-{n}"
    return run_id


def write_pid_file(run_dir: str | Path) -> Path:
    """Record this process as the run's worker (removed by :func:`remove_pid_file` on exit)."""
    path = Path(run_dir) / PID_FILE
    path.write_text(json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "time": time.time()}),
                    encoding="utf-8")
    return path


def remove_pid_file(run_dir: str | Path) -> None:
    try:
        path = Path(run_dir) / PID_FILE
        info = json.loads(path.read_text(encoding="utf-8"))
        if info.get("pid") == os.getpid():
            path.unlink()
    except (OSError, json.JSONDecodeError):
        pass


def worker_alive(run_dir: str | Path) -> bool:
    """Is the run's worker process still alive? (pid file present, same host, process exists and
    is not a zombie). On another host the answer is "assume yes"."""
    try:
        info = json.loads((Path(run_dir) / PID_FILE).read_text(encoding="utf-8"))
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
    path = Path(run_dir) / STOP_FILE
    path.write_text(str(time.time()), encoding="utf-8")
    return path


# -- status and summaries ---------------------------------------------------------------------
def _since_last_start(events: list[dict]) -> list[dict]:
    starts = [i for i, e in enumerate(events) if e.get("event") == "started"]
    return events[starts[-1]:] if starts else events


def derive_status(events: list[dict], alive: bool) -> str:
    """Status from the events and whether the worker process lives (explorer.core.run_status.replay)."""
    return run_status.replay(events, alive)


def summarize(run_id: str, path: Path, config: dict, events: list[dict], alive: bool) -> RunSummary:
    s = RunSummary(run_id=run_id, path=str(path), status=derive_status(events, alive),
                   model=str(config.get("model", "")), task=str(config.get("task", "")))
    evals = [e for e in events if e.get("event") == "eval" and isinstance(e.get("metrics"), dict)]
    seen = {name for e in evals for name in e["metrics"]}
    name = choose_metric(seen, config) or best_metric_name(config)
    best = best_of_events(evals, name)   # core/best: the metric's direction, step 0 skipped, ties keep the earlier
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
    from explorer.core.training.config import TrainConfig, type_problems

    file = path / CONFIG_FILE
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


def read_run_events(path: Path) -> tuple[list[dict], list[str]]:
    """A run folder's events (parseable lines, file order) and notes (skipped lines, unreadable file)."""
    file = path / EVENTS_FILE
    if not file.exists():
        return [], []
    try:
        log = read_event_log(file)
    except OSError as exc:
        return [], [f"{file}: unreadable ({exc.strerror or type(exc).__name__}); the run shows no points"]
    note = log.note()
    if not log.events and not log.skipped:
        return [], [f"{file}: empty (the run was stopped before its first event)"]
    return log.events, [note] if note else []


def _read_run(path: Path) -> tuple[str, dict, list[dict], list[str]]:
    """(run_id, config, events, notes) of a run folder, never raising for what is inside it."""
    events, notes = read_run_events(path)
    config, config_notes = read_config(path, events)
    run_id = str(config.get("run_id") or path.name)
    return run_id, config, events, config_notes + notes


def is_run_dir(path: Path) -> bool:
    return path.is_dir() and not path.name.startswith(".") and \
        ((path / CONFIG_FILE).is_file() or (path / EVENTS_FILE).is_file())


def list_runs(folder: str | Path) -> list[RunSummary]:
    """Every run folder under ``folder`` (those with config.json or events.jsonl), oldest first.

    A missing folder gives []. What cannot be read inside a run folder (garbled events lines, a broken
    config.json) is skipped and named in the summary's ``notes``; the run is still listed.
    """
    folder = Path(folder)
    if not folder.is_dir():
        return []
    out = []
    for path in folder.iterdir():
        if not is_run_dir(path):
            continue
        run_id, config, events, notes = _read_run(path)
        summary = summarize(run_id, path, config, events, worker_alive(path))
        summary.notes = notes
        out.append(summary)
    out.sort(key=lambda s: (s.started_at or _mtime(Path(s.path)), s.run_id))
    return out


def _mtime(path: Path) -> float:
    try:
        return (path / CONFIG_FILE).stat().st_mtime
    except OSError:
        return 0.0


def load_run(path: str | Path) -> RunRecord:
    """A run folder -> RunRecord (config dict, all events, checkpoints, final metrics, summary, notes).

    Garbled events lines and a missing/broken config.json never fail the load: they are skipped and
    named in ``notes`` (see :func:`read_config`, :func:`read_run_events`).

    Raises:
        ValueError: the folder holds neither config.json nor events.jsonl.
    """
    path = Path(path)
    if not is_run_dir(path):
        raise ValueError(f"{path} is not a run folder: it has neither {CONFIG_FILE} nor {EVENTS_FILE}")
    run_id, config, events, notes = _read_run(path)
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

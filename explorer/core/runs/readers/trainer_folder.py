"""A Hugging Face ``Trainer`` output folder read as a run: the "HF Trainer" entry of the reader table
(explorer.core.runs.readers.base; torch-free, Qt-free, never unpickles).

The folder: ``trainer_state.json`` at the top of an ``output_dir`` or in its ``checkpoint-N`` folders,
``training_args.bin`` / ``training_args.json``, ``config.json``. This module turns what they hold into the
event dicts of explorer.core.protocol.events, so the Runs list, the Curves and the CSV / TensorBoard exports
treat the run like one of ours:

- every ``log_history`` entry with ``loss`` -> a ``step`` event (``loss``, ``lr`` from ``learning_rate``,
  ``grad_norm``, ``epoch`` and any other number the entry holds);
- every entry with ``eval_*`` keys -> an ``eval`` event whose metrics are those keys without ``eval_``
  (``eval_loss`` -> ``loss``, ``eval_accuracy`` -> ``accuracy``), at the entry's ``step``;
- the final summary entry (``train_runtime``, ``train_loss``, ...) -> a ``finished`` event;
- each ``checkpoint-N`` folder -> a ``checkpoint`` event (kind ``checkpoint-N``; the newest is also
  ``last``); ``best_model_checkpoint`` -> kind ``best`` and, with ``best_metric``, the run's best value.

Settings: a ``TrainingArguments`` saved as JSON (``training_args.json``, e.g. ``args.to_json_string()``)
is read as is; ``training_args.bin`` is a pickle, never unpickled: only the settings stored as plain values
are read from its opcodes (explorer.core.runs.readers.pickled_settings).

Status, from the files and what this process saw of them, never from their times (a copy's are the copy's):
finished when they say the run ended, in progress while a writer was seen changing them
(:data:`TRAINER_WRITERS`), else stopped (see :func:`read_trainer_run`).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

from explorer.core.runs import status as run_status
from explorer.core.runs.readers.base import IN_PROGRESS_SECONDS, ForeignRun, RunReader, WriterWatch, register_reader
from explorer.core.runs.readers.pickled_settings import read_pickled_settings
from explorer.core.specs.metrics import UNDEFINED, metric_spec

HF_TRAINER = "HF Trainer"   # the kind's name (RunReader.kind)
TRAINER_STATE_FILE = "trainer_state.json"
TRAINING_ARGS_BIN = "training_args.bin"     # a pickle: never loaded (explorer.core.runs.readers.pickled_settings)
TRAINING_ARGS_JSON = "training_args.json"   # TrainingArguments.to_json_string(), when a script saved it
HF_CHECKPOINT = re.compile(r"checkpoint-\d+")
# HF Trainer folders this process saw being written to (its own clock, never the files' times: a copy's are the
# copy's)
TRAINER_WRITERS = WriterWatch(IN_PROGRESS_SECONDS)

# log_history keys that place an entry, not measure something (explorer.core.protocol.events.StepEvent's context)
_CONTEXT_KEYS = ("step", "epoch", "total_flos")
_SUMMARY_KEY = "train_runtime"   # present only in the entry Trainer.train adds at its end
_EVAL_PREFIX = "eval_"


def _number(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _undefined_as_ours(metrics: dict) -> dict:
    """An evaluation's metrics with each NaN as our runs save an undefined metric: null, and the reason under
    ``metrics["undefined"]`` (the Trainer's compute_metrics gives scipy's NaN for a correlation of constant
    predictions), so every display says "undefined" and the best rule never ranks it."""
    nan = [name for name, value in metrics.items() if isinstance(value, float) and math.isnan(value)]
    if not nan:
        return metrics
    return {**{k: (None if k in nan else v) for k, v in metrics.items()},
            UNDEFINED: {name: f"the Trainer logged eval_{name} as NaN" for name in nan}}


def log_history_events(run_id: str, log_history: list, time: float = 0.0) -> list[dict]:
    """``trainer_state.json``'s ``log_history`` -> step / eval / finished event dicts, in order.

    Args:
        log_history: the list of dicts Trainer logs (``{"loss", "learning_rate", "grad_norm", "epoch",
            "step"}``, ``{"eval_loss", "eval_<metric>", ..., "epoch", "step"}``, the end summary).
        time: the unix time given to every event (the file's time: Trainer logs no wall clock).
    Entries that are not objects or have no integer ``step`` are skipped.
    """
    events: list[dict] = []
    last_eval: dict = {}
    for entry in log_history or []:
        if not isinstance(entry, dict) or _number(entry.get("step")) is None:
            continue
        step = int(entry["step"])
        base = {"run_id": run_id, "time": time, "step": step}
        if _number(entry.get("epoch")) is not None:
            base["epoch"] = float(entry["epoch"])
        if _SUMMARY_KEY in entry:
            events.append({**base, "event": "finished", "seconds": _number(entry.get(_SUMMARY_KEY)),
                           "metrics": dict(last_eval), "steps": step, "stopped_early": False,
                           "train_loss": _number(entry.get("train_loss"))})
            continue
        metrics = {k[len(_EVAL_PREFIX):]: v for k, v in entry.items()
                   if k.startswith(_EVAL_PREFIX) and (_number(v) is not None or v is None)}
        if metrics:
            metrics = _undefined_as_ours(metrics)
            last_eval = metrics
            events.append({**base, "event": "eval", "metrics": metrics})
            continue
        if "loss" in entry or "learning_rate" in entry:
            step_event = {**base, "event": "step"}
            for key, value in entry.items():
                if key in _CONTEXT_KEYS or key.startswith(_EVAL_PREFIX):
                    continue
                name = "lr" if key == "learning_rate" else key
                if _number(value) is not None or value is None:
                    step_event[name] = value
            events.append(step_event)
    return events


def best_metric_name(log_history: list, best_metric, best_step: int | None, declared: str = "") -> str:
    """The metric ``best_metric`` is a value of: ``declared`` (TrainingArguments.metric_for_best_model,
    without ``eval_``) when known, else the eval metric whose value at ``best_step`` equals it (Trainer
    does not store the name in trainer_state.json); "" when none matches."""
    if declared:
        return declared.removeprefix(_EVAL_PREFIX)
    value = _number(best_metric)
    if value is None:
        return ""
    for entry in log_history or []:
        if isinstance(entry, dict) and (best_step is None or entry.get("step") == best_step):
            for key, v in entry.items():
                name = key[len(_EVAL_PREFIX):]
                if key.startswith(_EVAL_PREFIX) and _number(v) is not None and abs(float(v) - value) <= 1e-12 \
                        and metric_spec(name).can_pick_best:   # never a timing (eval_runtime) that happens to match
                    return name
    return ""


def _checkpoint_step(folder: Path) -> int:
    match = re.fullmatch(r"checkpoint-(\d+)", folder.name)
    return int(match.group(1)) if match else -1


def read_training_settings(folders: list[Path], json_name: str, bin_name: str) -> tuple[dict, list[str]]:
    """The TrainingArguments of a Trainer run: ``json_name`` (JSON) in the first of ``folders`` that has
    it, else the plain values of ``bin_name`` (:func:`read_pickled_settings`, never unpickled). Returns
    (settings, notes: where they came from and which could not be read)."""
    for folder in folders:
        file = folder / json_name
        if file.is_file():
            try:
                data = json.loads(file.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                return {}, [f"{file}: not readable JSON ({exc}); no settings read"]
            if isinstance(data, dict):
                return data, [f"settings read from {file}"]
            return {}, [f"{file}: holds a {type(data).__name__}, not an object; no settings read"]
    for folder in folders:
        file = folder / bin_name
        if file.is_file():
            settings, not_read, note = read_pickled_settings(file)
            if note:
                return {}, [note + " (it is a pickle: never loaded, as loading it could run code)"]
            notes = [f"{file} is a pickle: it was not loaded (loading it could run code); {len(settings)} "
                     "settings stored as plain values were read from its opcodes"]
            if not_read:
                notes.append(f"{file}: settings held as objects could not be read: {', '.join(not_read)}")
            return settings, notes
    return {}, ["no TrainingArguments saved (training_args.json / training_args.bin); no settings read"]


def trainer_state_of(path: Path, state_name: str) -> tuple[Path | None, list[Path]]:
    """(the trainer_state file to read, the checkpoint-N folders by step) of an output_dir or of one
    checkpoint-N: the top-level file unless a checkpoint's holds more steps; None when there is none."""
    path = Path(path)
    if _checkpoint_step(path) >= 0:
        return (path / state_name if (path / state_name).is_file() else None), [path]
    checkpoints = sorted((p for p in path.iterdir() if p.is_dir() and _checkpoint_step(p) >= 0), key=_checkpoint_step) \
        if path.is_dir() else []
    candidates = [p / state_name for p in checkpoints if (p / state_name).is_file()]
    top = path / state_name
    if top.is_file():
        candidates.append(top)

    def steps(file: Path) -> int:
        try:
            return int(json.loads(file.read_text(encoding="utf-8")).get("global_step") or 0)
        except (OSError, ValueError, AttributeError, TypeError):
            return -1
    best = max(candidates, key=lambda f: (steps(f), f == top), default=None)
    return best, checkpoints


def own_best_checkpoint(path: Path, recorded: str) -> tuple[Path, str]:
    """(the opened folder's own checkpoint named like ``recorded``, a note or "") for a trainer_state.json's
    ``best_model_checkpoint``.

    ``recorded`` is the absolute path the Trainer wrote when it ran; a copied or moved output_dir still names the
    old place, which may exist and hold another run's weights. The best checkpoint is therefore always
    ``<output_dir>/<basename of recorded>`` (``path`` itself or, when ``path`` is one ``checkpoint-N``, its
    parent); a folder outside the opened one is never used. The note says when ``recorded`` pointed elsewhere.
    The returned folder may not exist (the caller says so)."""
    path = Path(path)
    root = path.parent if _checkpoint_step(path) >= 0 else path
    local = root / Path(recorded).name
    note = ""
    try:   # a relative path was relative to the training's working folder: only its name says anything
        elsewhere = Path(recorded).is_absolute() and Path(recorded).resolve() != local.resolve()
    except (OSError, RuntimeError):
        elsewhere = True
    if elsewhere:
        note = (f"best_model_checkpoint {recorded} was written for another place (a copied or moved folder); "
                f"{local} is used instead" + ("" if local.is_dir() else " and it is not there"))
    return local, note


def writer_fingerprint(path: str | Path, state_name: str) -> tuple:
    """What changes when a Trainer writes into ``path`` (an output_dir or one checkpoint-N): the names of its
    checkpoint-N folders and the (name, size, mtime in ns) of every trainer_state file, top level and per
    checkpoint. Only stat calls: cheap enough to look at every few seconds."""
    path = Path(path)
    folders = [path] if _checkpoint_step(path) >= 0 else [path] + sorted(
        (p for p in path.iterdir() if p.is_dir() and _checkpoint_step(p) >= 0), key=_checkpoint_step) \
        if path.is_dir() else []
    marks = []
    for folder in folders:
        try:
            st = (folder / state_name).stat()
            marks.append((folder.name, st.st_size, st.st_mtime_ns))
        except OSError:
            marks.append((folder.name, -1, -1))
    return tuple(marks)


def trainer_end(state: dict, history: list, checkpoints: list[Path]) -> str:
    """Why a Trainer run's files say it ended ('' when they do not): the end summary Trainer.train logs, the
    global_step at max_steps, or a checkpoint-N with N = max_steps."""
    if any(isinstance(e, dict) and _SUMMARY_KEY in e for e in history):
        return f"its log has Trainer's end summary ({_SUMMARY_KEY})"
    planned = int(_number(state.get("max_steps")) or 0)
    step = int(_number(state.get("global_step")) or 0)
    if planned > 0 and step >= planned:
        return f"global_step {step} reached max_steps {planned}"
    last = max((_checkpoint_step(c) for c in checkpoints), default=-1)
    if planned > 0 and last >= planned:
        return f"checkpoint-{last} is at max_steps {planned}"
    return ""


def one_checkpoint_of(path: Path) -> bool:
    """``path`` is one ``checkpoint-N`` folder opened alone (not an output_dir)."""
    return _checkpoint_step(path) >= 0


def tensorboard_runtime(output_dir: Path) -> tuple[float, Path] | None:
    """(train_runtime in seconds, its event file's folder) from the TensorBoard files Trainer writes beside its
    checkpoints (the default ``logging_dir``: ``<output_dir>/runs/<date>_<host>/``; ``report_to`` tensorboard),
    the latest logged when there are several (a resumed run); None when there is none, tensorboard is not
    installed or a file cannot be read. Trainer logs its end summary (``train/train_runtime``) after the last
    checkpoint is saved, so a folder without ``trainer.save_state()`` holds it only there (without this its
    duration would read 0:00)."""
    from explorer.core.runs.tensorboard import read_tensorboard_scalars, tensorboard_files

    runs = output_dir / "runs"
    folders = [runs] + sorted(p for p in runs.iterdir() if p.is_dir()) if runs.is_dir() else []
    found: list[tuple[float, float, Path]] = []
    for folder in (f for f in folders if tensorboard_files(f)):
        try:
            rows = read_tensorboard_scalars(folder)
        except Exception:   # noqa: BLE001 - no tensorboard package, a truncated or foreign file: no duration
            continue
        found += [(wall, value, folder) for _step, tag, value, wall in rows if tag == "train/" + _SUMMARY_KEY]
    if not found:
        return None
    _wall, seconds, folder = max(found, key=lambda f: f[0])
    return seconds, folder


def logged_summary_events(output_dir: Path, run_id: str, time: float, events: list[dict], notes: list[str]) -> list[dict]:
    """[the ``finished`` event of Trainer's end summary read from its TensorBoard files (:func:`tensorboard_runtime`)]
    for an output_dir whose trainer_state has none, with a note naming the file; [] when they hold none either."""
    found = tensorboard_runtime(output_dir)
    if found is None:
        return []
    seconds, folder = found
    steps = [int(e["step"]) for e in events if isinstance(e.get("step"), int)]
    evals = [e for e in events if e.get("event") == "eval"]
    notes.append(f"{_SUMMARY_KEY} {seconds:.1f} s from the TensorBoard log in {folder} (the trainer_state has no "
                 "end summary: Trainer logs it after its last checkpoint)")
    return [{"event": "finished", "run_id": run_id, "time": time, "step": max(steps, default=0), "seconds": seconds,
             "metrics": dict(evals[-1]["metrics"]) if evals else {}, "steps": max(steps, default=0),
             "stopped_early": False}]


def read_trainer_run(path: str | Path, *, state_name: str, json_name: str, bin_name: str, kind: str,
                     finished_status: str, stopped_status: str, live_status: str, now: float,
                     watch: WriterWatch) -> ForeignRun:
    """An HF Trainer ``output_dir`` or one of its ``checkpoint-N`` folders -> :class:`ForeignRun`.

    ``state_name``, ``json_name``, ``bin_name``: the file names (:data:`TRAINER_STATE_FILE`, ...). The status, from the files and what ``watch``
    saw of them, never from their times (a copy's are the copy's): ``finished_status`` when they say the run
    ended (trainer_end); else ``live_status`` while ``watch`` saw them change in its window (a writer is at
    work; one checkpoint-N opened alone never grows); else ``stopped_status`` (it ended before max_steps; never
    crashed: Trainer writes no end marker a crash would leave out). The reason is the first note.

    Raises:
        ValueError: no trainer_state file in the folder or its checkpoints, or it is not a JSON object
            (the message names the file).
    """
    from explorer.core.specs.heads import recognise
    from explorer.core.specs.tasks import task_for_checkpoint

    path = Path(path)
    state_file, checkpoints = trainer_state_of(path, state_name)
    if state_file is None:
        raise ValueError(f"{path} is not an HF Trainer folder: no {state_name} in it or its checkpoint-N folders")
    try:
        state = json.loads(state_file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{state_file}: not readable JSON ({exc})") from None
    if not isinstance(state, dict):
        raise ValueError(f"{state_file}: holds a {type(state).__name__}, not an object")
    run_id = f"{path.parent.name}-{path.name}" if _checkpoint_step(path) >= 0 else path.name
    mtime = state_file.stat().st_mtime
    history = state.get("log_history") if isinstance(state.get("log_history"), list) else []
    model_folders = [c for c in reversed(checkpoints) if (c / "config.json").is_file()]
    if (path / "config.json").is_file():
        model_folders.insert(0, path)
    head = recognise(model_folders[0]) if model_folders else None   # the head its config.json records
    task = task_for_checkpoint(head)
    settings, notes = read_training_settings([path] + list(reversed(checkpoints)), json_name, bin_name)
    model = str(settings.get("_name_or_path") or "")
    if model_folders:
        try:
            model = str(json.loads((model_folders[0] / "config.json").read_text(encoding="utf-8"))
                        .get("_name_or_path") or model)
        except (OSError, ValueError, AttributeError):
            pass
    config = {"model": model, "task": task or (head.model_head if head is not None else "")}
    events: list[dict] = [{"event": "started", "run_id": run_id, "time": mtime, "config": config,
                           "steps_total": int(_number(state.get("max_steps")) or 0)}]
    events += log_history_events(run_id, history, mtime)
    if not one_checkpoint_of(path) and not any(e["event"] == "finished" for e in events):
        events += logged_summary_events(path, run_id, mtime, events, notes)
    found: dict[str, str] = {}
    for folder in checkpoints:
        found[folder.name] = str(folder)
        events.append({"event": "checkpoint", "run_id": run_id, "time": mtime, "step": _checkpoint_step(folder),
                       "path": str(folder), "kind": folder.name})
    if checkpoints:
        found["last"] = str(checkpoints[-1])
    best = None
    best_dir = state.get("best_model_checkpoint")
    if isinstance(best_dir, str) and best_dir:
        local, moved = own_best_checkpoint(path, best_dir)
        if moved:
            notes.append(moved)
        best_step = _number(state.get("best_global_step"))
        best_step = int(best_step) if best_step is not None else _checkpoint_step(Path(best_dir))
        if local.is_dir():
            found["best"] = str(local)
            events.append({"event": "checkpoint", "run_id": run_id, "time": mtime, "step": best_step,
                           "path": str(local), "kind": "best"})
        elif not moved:
            notes.append(f"best_model_checkpoint {best_dir} is not in {local.parent}")
        name = best_metric_name(history, state.get("best_metric"), best_step,
                                str(settings.get("metric_for_best_model") or ""))
        value = _number(state.get("best_metric"))
        if name and value is not None and math.isfinite(value):
            best = (name, value, best_step)
        elif name and value is not None:   # the Trainer ranks a first NaN best and keeps it: Best dev is ranked here
            notes.append(f"the Trainer's best_metric is {value} ({name} undefined at step {best_step}); Best dev is "
                         f"ranked from the evaluations instead, never on an undefined value")
    ended = trainer_end(state, history, checkpoints)
    one_checkpoint = one_checkpoint_of(path)   # a saved checkpoint never grows
    live = watch.look(path, writer_fingerprint(path, state_name), now) and not one_checkpoint
    if ended:
        status, why = finished_status, f"{finished_status}: {ended}"
    elif live:
        status, why = live_status, f"{live_status}: its files changed while listed here; re-read as they grow"
    else:
        step, planned = int(_number(state.get("global_step")) or 0), int(_number(state.get("max_steps")) or 0)
        status, why = stopped_status, (f"{stopped_status}: step {step}" + (f" of {planned}" if planned else "")
                                       + ", no end summary, and no writer seen changing its files")
    notes.insert(0, why)
    notes.insert(0, f"{kind} run: curves from {state_file}")
    return ForeignRun(kind=kind, run_id=run_id, status=status, config=config, events=events, checkpoints=found,
                      best=best, settings=settings, notes=notes)


def is_hf_trainer_dir(path: str | Path) -> bool:
    """An HF Trainer ``output_dir`` (trainer_state.json at the top or in a ``checkpoint-N`` folder) or one
    ``checkpoint-N`` folder holding trainer_state.json."""
    path = Path(path)
    if (path / TRAINER_STATE_FILE).is_file():
        return True
    return path.is_dir() and any(HF_CHECKPOINT.fullmatch(p.name) and (p / TRAINER_STATE_FILE).is_file()
                                 for p in path.iterdir())


def _read(path: Path, now: float) -> ForeignRun:
    """The reader's ``read``: :func:`read_trainer_run` with this kind's file names and statuses, watched by
    TRAINER_WRITERS."""
    return read_trainer_run(path, state_name=TRAINER_STATE_FILE, json_name=TRAINING_ARGS_JSON,
                            bin_name=TRAINING_ARGS_BIN, kind=HF_TRAINER, finished_status=run_status.FINISHED,
                            stopped_status=run_status.STOPPED, live_status=run_status.IN_PROGRESS, now=now,
                            watch=TRAINER_WRITERS)


def _recheck(path: Path, status: str, now: float) -> bool:
    """A run read as stopped whose folder TRAINER_WRITERS still watches (first seen or last changed under
    IN_PROGRESS_SECONDS ago) and whose files changed since that look (stat calls only): a writer is at work after
    all, so it is read again (it becomes in progress)."""
    return status == run_status.STOPPED and TRAINER_WRITERS.watching(path, now) and TRAINER_WRITERS.changed_since(
        path, writer_fingerprint(path, TRAINER_STATE_FILE))


register_reader(RunReader(kind=HF_TRAINER, looks_for=f"no {TRAINER_STATE_FILE} (an HF Trainer output_dir or checkpoint-N)",
                          recognises=is_hf_trainer_dir, read=_read, recheck=_recheck))

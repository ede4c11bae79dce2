"""`bert-explorer train`: one fine-tune in this process, reported as JSON-lines events.

Usage::

    bert-explorer train --config run.json [--flag value ...]      # flags override the file
    bert-explorer train --model bundled:minilm --task squad_v1 --train train.json --dev dev.json ...
    bert-explorer train --resume runs/<run_id>                     # continue from checkpoints/last

Every TrainConfig field is a flag (``learning_rate`` <-> ``--learning-rate``; booleans also take
``--no-...``; lists take "a,b" or JSON). ``TrainConfig.to_cli_args`` produces
exactly these flags. The run lives in ``<output_dir>/<run_id>`` (output_dir default:
$EXPLORER_RUNS_DIR, else ~/bert-explorer-runs; run_id default: generated). ``config.json`` is
written first; events go to stdout and to ``events.jsonl`` (the JSON-lines events described in
docs/architecture.md and the README); when stdout is a terminal it gets a progress bar and a closing summary
instead (explorer.worker.progress; ``--json`` keeps the events there). Help texts: ``config.field_help`` (each field's Setting, beside it in TrainConfig).
``--preset NAME`` applies a run preset of resources/presets (``fast-cpu``, ``paper``, ...) over ``--config``;
flags given explicitly win over both.

Exit codes (the convention of every command, explorer.cli): 0 finished (also after stop early), 1 failed
for another reason (internal error, out of memory, disk full), 2 user error: unusable arguments (bad flag values are
argparse errors; other unusable settings, e.g. a bad ``--config`` file or resuming a finished run, give a
``failed`` event on stdout and no run folder; so does bad data found before the first step), 143 cancelled
(SIGTERM). Every failure also prints one ``error: ...`` message on stderr (an internal error's traceback
stays in the event; a user error's event has none).
Stop early: SIGINT or a file named STOP in the run folder.
"""

from __future__ import annotations

import argparse
import dataclasses
import errno
import json
import os
import re
import sys
import time
import traceback
from pathlib import Path

from explorer.core.runs import status as run_status
from explorer.core.errors import (EXIT_CANCELLED, EXIT_FAILED, EXIT_OK, EXIT_USER, Cancelled, ConfigError, DiskFullError,
                                  UserError, exits_on_user_error, user_message)
from explorer.core.protocol.events import EVENTS_FILE, EventWriter, make_event, read_events
from explorer.core.priorities import TRAIN_NICE, worker_niceness
from explorer.core.threads import TRAINING
from explorer.core.runs.layout import (CONFIG_FILE, PID_FILE, STOP_FILE, checkpoint_path, config_file, events_file,
                                       stop_file)
from explorer.core.runs.naming import new_run_id
from explorer.core.runs.workers import remove_pid_file, write_pid_file
from explorer.core.specs.tasks import is_qa_task, recorded_metric_for_best, task_names
from explorer.core.specs.train_config import MIXED_PRECISION, REPORT_TO, TrainConfig, field_flag, field_help
from explorer.core.specs.run_presets import load_preset, preset_names
from explorer.core.models.window_settings import WindowSettingsError, check_source_settings
from explorer.paths import default_runs_dir
from explorer.worker.signals import GuardedWriter, SignalHandlers
from explorer.worker.threads import apply_thread_policy

EXIT_USAGE = EXIT_USER   # the exit codes of every command: explorer.core.errors
NOT_FLAGS = ("config", "preset", "resume", "json", "command", "_module", "_own_process")
DESCRIPTION = ("Fine-tune a model in this process; prints the JSON-lines events described in "
               "docs/runs-on-disk.md on stdout and appends them to <run folder>/events.jsonl.")
EPILOG = ("Exit codes: 0 finished (also after stop early), 1 failed (internal error, out of memory, disk full), "
          "2 user error (unknown or misspelt flag, bad setting or data, also when found during training), "
          "143 cancelled. "
          "Errors are also printed on stderr as 'error: ...'. Stop early: Ctrl-C or a file named STOP in the "
          "run folder; continue with --resume RUN_DIR.")


def _field_type(f: dataclasses.Field) -> str:
    return str(f.type).replace(" ", "")


def _json_list(text: str) -> list:
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return [part.strip() for part in text.split(",") if part.strip()]
    if isinstance(value, (int, float, str)) and not isinstance(value, bool):
        return [str(value)]   # one item: --text-columns 6, --text-columns Tweet
    if not isinstance(value, list):
        raise argparse.ArgumentTypeError(f"expected a JSON list or \"a,b\", got {text!r}")
    return value


def _flag_help_without_default(name: str) -> str:
    return field_help(name, with_default=False).replace("%", "%%")


def _flag_help(name: str) -> str:
    """The --help line of a TrainConfig field (config.field_help, escaped for argparse)."""
    return field_help(name).replace("%", "%%")


def _tensorboard_writer(config, run_dir, writer):
    """``report_to="tensorboard"``: a TensorBoardWriter into the run folder fed every event the writer
    writes (explorer.core.runs.tensorboard), else None; without the tensorboard package the run goes on with a
    warning log event saying so."""
    if config.report_to != "tensorboard":
        return None
    from explorer.core.runs.tensorboard import TensorBoardMissing, TensorBoardWriter

    try:
        tensorboard = TensorBoardWriter(run_dir)
    except TensorBoardMissing as exc:
        writer.emit("log", level="warning", message=f"no TensorBoard event files: {exc}")
        return None
    tensorboard.write_config(config.to_dict())   # the settings that decide Best dev, read back with the files
    writer.listeners.append(tensorboard.write)
    return tensorboard


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags: --config, --resume, and one flag per TrainConfig field (default: unset); help from each field's Setting."""
    parser.description = DESCRIPTION
    parser.epilog = EPILOG
    parser.add_argument("--config", metavar="RUN_JSON", default=argparse.SUPPRESS,
                        help="a run config (TrainConfig as JSON); flags given as well override its values")
    parser.add_argument("--preset", metavar="NAME", default=argparse.SUPPRESS,
                        help=f"a run preset of resources/presets ({', '.join(preset_names())}) applied over "
                             "--config; flags given as well override it")
    parser.add_argument("--resume", metavar="RUN_DIR", default=argparse.SUPPRESS,
                        help="continue the unfinished run in RUN_DIR from its last checkpoint, same schedule")
    parser.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                        help="print the JSON-lines events on stdout also in a terminal (where a progress bar and a "
                             "closing summary show instead; piped or redirected, stdout always gets the events)")
    for f in dataclasses.fields(TrainConfig):
        flag = field_flag(f.name)
        kind = _field_type(f)
        help_text = _flag_help(f.name)
        common = {"dest": f.name, "default": argparse.SUPPRESS, "help": help_text}
        if f.name == "task":
            common["help"] = _flag_help_without_default(f.name) + f" ({TASK_DEFAULT_HELP})"
            parser.add_argument(flag, type=str, choices=task_names(), **common)
        elif f.name == "mixed_precision":
            parser.add_argument(flag, type=str, choices=MIXED_PRECISION, **common)
        elif f.name == "report_to":
            parser.add_argument(flag, type=str, choices=[c for c in REPORT_TO if c], **common)
        elif kind == "bool" and f.name.startswith("no_"):
            # BooleanOptionalAction reads any "--no-..." as False: --no-header must mean no_header = True
            parser.add_argument(flag, action="store_const", const=True, **common)
        elif kind == "bool":
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, **common)
        elif kind.startswith("list"):
            common["help"] += '; a JSON list or "a,b"'

            parser.add_argument(flag, type=_json_list, metavar="JSON", **common)
        elif kind.startswith("int"):
            parser.add_argument(flag, type=int, metavar="N", **common)
        elif kind.startswith("float"):
            parser.add_argument(flag, type=float, metavar="X", **common)
        else:
            parser.add_argument(flag, type=str, metavar=flag[2:].upper().replace("-", "_"), **common)


TASK_DEFAULT_HELP = ("default: from the training data, squad_v2 when it holds unanswerable questions "
                     "(is_impossible, or a hub id naming squad_v2), else squad_v1, the task of the app's first run")
_IMPOSSIBLE = re.compile(rb'"is_impossible"\s*:\s*true')


def default_task(train: str) -> str:
    """The task of a run that names none (no --task, none in its --config): squad_v2 for SQuAD 2.0 data (a
    local file with an ``"is_impossible": true`` question, or a hub id containing "squad_v2"), squad_v1 for
    other SQuAD JSON and hub ids containing "squad" (the app's first run: squad_v1 on the answerable sample),
    else TrainConfig's default. Reads the file as bytes, no parsing (the loader checks it properly)."""
    source = str(train or "").strip()
    path = Path(source).expanduser()
    if path.is_file() and path.suffix.lower() in (".json", ".jsonl"):
        try:
            return "squad_v2" if _IMPOSSIBLE.search(path.read_bytes()) else "squad_v1"
        except OSError:
            return TrainConfig.task
    lowered = source.lower()
    if "squad_v2" in lowered:
        return "squad_v2"
    if "squad" in lowered and not path.exists():
        return "squad_v1"
    return TrainConfig.task


def config_from_args(args: argparse.Namespace) -> TrainConfig:
    """--config file (if any), then --preset (resources/presets), overridden by the flags given; a run that
    names no task gets :func:`default_task` of its training data, one that names no ``metric_for_best`` the
    launcher's automatic choice (core.specs.tasks.recorded_metric_for_best: f_avg with F1 classes). Raises
    ConfigError (an unknown preset names the known ones)."""
    given = {k: v for k, v in vars(args).items() if k not in NOT_FLAGS}
    base = TrainConfig.load(args.config).to_dict() if getattr(args, "config", None) else {}
    if getattr(args, "preset", None):
        base = load_preset(args.preset).apply(TrainConfig.from_dict(base, source="--config")).to_dict()
    named_task = "task" in given or (getattr(args, "config", None) and _config_names_task(args.config))
    base.update(given)
    if not named_task:
        base["task"] = default_task(base.get("train", ""))
    # "Best checkpoint by" left automatic picks as the launcher's does: F_avg when F1 classes are named
    base["metric_for_best"] = recorded_metric_for_best(base)
    return TrainConfig.from_dict(base, source=getattr(args, "config", None) or "flags")


def _config_names_task(path: str) -> bool:
    try:
        return "task" in json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError, TypeError):
        return True    # TrainConfig.load has already read it; keep what it gave


def _out_of_memory(exc: BaseException) -> bool:
    """Is ``exc`` an out-of-memory error (by type: MemoryError, core's OutOfMemory, torch's)?"""
    import torch

    return isinstance(exc, (MemoryError, getattr(torch, "OutOfMemoryError", MemoryError)))


def is_internal_error(exc: BaseException) -> bool:
    """True unless ``exc`` is a user error, out of memory or a full disk (by type)."""
    return not (isinstance(exc, UserError) or _out_of_memory(exc)
                or (isinstance(exc, OSError) and exc.errno == errno.ENOSPC))


def describe_error(exc: BaseException, config: TrainConfig | None, step: int) -> str:
    """One specific human message for a failure, chosen by the error's type (never by its text).

    UserError (bad settings or data, see explorer.core.errors): its own message. Out of memory: the
    settings to lower. Disk full (OSError ENOSPC): where. Anything else: "internal error <type>: ...".
    """
    if isinstance(exc, WindowSettingsError):
        return f"window settings do not fit the model: {exc}"
    message = user_message(exc)
    if message is not None:
        return message
    text = str(exc)
    if _out_of_memory(exc):
        hint = ""
        if config is not None:
            hint = (f" (batch_size {config.batch_size}, max_seq_length {config.resolved_max_seq_length()}); "
                    "lower --batch-size (raise --gradient-accumulation-steps to keep the effective batch) "
                    "or --max-seq-length")
        return f"out of memory at step {step}{hint}. Detail: {text.splitlines()[0][:200] if text else type(exc).__name__}"
    if isinstance(exc, DiskFullError):
        return text
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return f"disk full while writing {exc.filename or 'the run folder'}: free space or use another --output-dir"
    return f"internal error {type(exc).__name__}: {text}".strip()


def _print_failed(run_id: str, message: str) -> None:
    EventWriter(run_id, stream=sys.stdout).write(make_event("failed", run_id, error=message, traceback=""))


def print_error(message: str, traceback_in: Path | None = None) -> None:
    """The human side of a failure: ``error: <message>`` on stderr (the ``failed`` event stays the
    machine-readable side), plus ``traceback_in`` (the run folder whose events hold the traceback)
    for internal errors."""
    text = f"error: {message.strip()}"
    if traceback_in is not None:
        text += f"\n(the traceback is in the failed event in {events_file(traceback_in)})"
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def _already_finished(run_dir: Path) -> int | None:
    """The step at which the run in run_dir finished for good (a ``finished`` event after its last
    ``started`` that did not stop early), else None. A run stopped early can be resumed."""
    try:
        events = read_events(events_file(run_dir))
    except (OSError, ValueError):
        return None
    if run_status.replay(events, alive=False) != run_status.FINISHED:
        return None
    last = [e for e in events if e.get("event") == "finished"][-1]
    return int(last.get("steps") or last.get("step") or 0)


def _write_json_atomically(path: Path, data: dict) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=2), encoding="utf-8")
    os.replace(tmp, path)


def _distributed() -> tuple[bool, bool]:
    """(several processes?, is this the main process?) without initialising anything when single."""
    if int(os.environ.get("WORLD_SIZE", "1")) <= 1:
        return False, True
    from explorer.core.training.loop import process_state

    state = process_state()
    return state.num_processes > 1, state.is_main_process


def _broadcast(value: str) -> str:
    from accelerate.utils import broadcast_object_list

    box = [value]
    broadcast_object_list(box, from_process=0)
    return box[0]


def prepare_run(args: argparse.Namespace) -> tuple[TrainConfig, Path, bool]:
    """(config, run folder, resume?) from the arguments; creates the folder and config.json.

    Raises ConfigError for unusable arguments.
    """
    multi, main = _distributed()
    if getattr(args, "resume", None):
        run_dir = Path(args.resume).expanduser()
        extra = sorted(k for k in vars(args) if k not in NOT_FLAGS)
        if extra or getattr(args, "config", None):
            raise ConfigError("--resume continues a run with its own config.json; do not combine it with "
                              f"other settings (got {', '.join('--' + k.replace('_', '-') for k in extra) or '--config'})")
        if not config_file(run_dir).is_file():
            raise ConfigError(f"cannot resume {run_dir}: no {CONFIG_FILE} there (is it a run folder?)")
        config = TrainConfig.load(config_file(run_dir))
        done = _already_finished(run_dir)
        if done is not None:
            raise ConfigError(f"run {config.run_id or run_dir.name} already finished at step {done}; nothing to "
                              f"resume (start a new run, e.g. with --config {config_file(run_dir)} --run-name NEW_NAME)")
        return config, run_dir, True
    config = config_from_args(args)
    refuse_before_the_folder(config)
    runs_dir = Path(config.output_dir).expanduser() if config.output_dir else default_runs_dir()
    run_id = config.run_id or (new_run_id(config.model, config.task, runs_dir, data=config.train) if main else "")
    if multi:
        run_id = _broadcast(run_id)
    if any(c in run_id for c in "/\\") or run_id in (".", ".."):
        raise ConfigError(f"run_id {run_id!r} must be a plain folder name")
    run_dir = runs_dir / run_id
    config = dataclasses.replace(config, run_id=run_id, output_dir=str(runs_dir))
    if main:
        if events_file(run_dir).exists():
            if checkpoint_path(run_dir, "last").exists():
                raise ConfigError(f"run folder {run_dir} already holds a run; use --resume {run_dir} to continue "
                                  "it or choose another run_id")
            raise ConfigError(f"run folder {run_dir} already holds a run that left no checkpoint (it failed or was "
                              "cancelled before its first save), so there is nothing to resume; choose another "
                              "run_id, or delete that folder to reuse the name")
        try:
            run_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"cannot create the run folder {run_dir}: {exc.strerror}") from None
        _write_json_atomically(config_file(run_dir), config.to_dict())
    return config, run_dir, False


def window_settings_error(config: TrainConfig) -> str | None:
    """The window settings checked against the model before any work (max_seq_length against its position
    embeddings and the tokenizer's maximum; QA: question + special tokens + doc_stride overlap room); one
    message naming the numbers, or None. Models whose files cannot be read here are checked when loaded."""
    qa = is_qa_task(config.task)
    problems = check_source_settings(config.model, config.resolved_max_seq_length(),
                                     config.doc_stride if qa else None, config.max_query_length if qa else None)
    errors = [p.message for p in problems if p.severity == "error"]
    return "window settings do not fit the model: " + "; ".join(errors) if errors else None


UNSTARTED_RUN_FILES = frozenset({CONFIG_FILE, EVENTS_FILE, PID_FILE, STOP_FILE})


def remove_unstarted_run(run_dir: Path) -> bool:
    """Remove the folder of a run refused before its first step (bad data found while preparing it: the
    ``failed`` event on stdout says why), so no run that never started is listed. Only a folder holding
    nothing but this worker's own files (config.json, events.jsonl, the pid and STOP files) goes; returns
    True when it went."""
    try:
        entries = list(run_dir.iterdir())
        if any(e.name not in UNSTARTED_RUN_FILES or not e.is_file() for e in entries):
            return False
        for entry in entries:
            entry.unlink()
        run_dir.rmdir()
        return True
    except OSError:
        return False


def refuse_before_the_folder(config: TrainConfig) -> None:
    """Raise ConfigError for a setting that can be refused before anything is made: the task name, the
    window settings against the model (:func:`window_settings_error`), then the rest of
    ``TrainConfig.validate``. A refused run leaves no run folder behind."""
    if config.task not in task_names():
        config.validate()
    settings_error = window_settings_error(config)
    if settings_error:
        raise ConfigError(settings_error)
    config.validate()


def lower_priority(default: int = TRAIN_NICE) -> int:
    """Run at niceness >= $EXPLORER_WORKER_NICE (default 10), before torch starts its threads (they inherit
    it): a fine-tune using every core then leaves the GUI (niceness 0) and the inspector child (5) the CPU
    when they need it, and only loses the time they use. Absolute, so calling it twice adds nothing.
    Returns the niceness now (0 where the OS has no nice)."""
    target = worker_niceness(default)
    if not hasattr(os, "nice"):
        return 0
    current = os.nice(0)
    if target > current:
        try:
            return os.nice(target - current)
        except OSError:
            return current
    return current


@exits_on_user_error
def run(args: argparse.Namespace) -> int:
    """Run one fine-tune; returns the exit code (see module docstring). Unusable settings found before the
    run starts: a ``failed`` event on stdout (and in events.jsonl when the run folder exists), then the
    UserError is raised (``exits_on_user_error``: ``error: ...`` on stderr, exit 2)."""
    if getattr(args, "_module", None) or getattr(args, "_own_process", False):
        lower_priority()   # a worker process of its own (the CLI); never a caller's process (tests, scripts)
        apply_thread_policy(TRAINING)   # throughput: the cores the load leaves free (explorer.core.threads)
    _quiet_libraries()
    try:
        config, run_dir, resume = prepare_run(args)
    except ConfigError as exc:
        _print_failed(getattr(args, "run_id", "") or "", str(exc))
        raise
    _, main = _distributed()
    human = main and not getattr(args, "json", False) and _is_terminal(sys.stdout)
    writer = GuardedWriter(config.run_id, path=events_file(run_dir), stream=None if human else sys.stdout,
                           enabled=main)
    if human:   # a person at a terminal: a bar and a summary; the events still go to events.jsonl
        from explorer.worker.progress import TrainProgress

        writer.listeners.append(TrainProgress(run_dir))
    if main:
        write_pid_file(run_dir)
    tensorboard = _tensorboard_writer(config, run_dir, writer) if main else None
    from explorer.core.training.loop import Control

    control = Control(stop_file=stop_file(run_dir))
    if resume and main and control.stop_file.exists():
        control.stop_file.unlink()  # a STOP left from the stopped run must not stop the resumed one
    code = EXIT_FAILED
    never_started = False
    t0 = time.time()
    try:
        with SignalHandlers(control, writer):
            try:
                from explorer.core.training.loop import train
                result = train(config, run_dir, writer, control, resume=resume)
                control.raise_on_cancel = False
                writer.emit("finished", **result)
                code = EXIT_OK
            except BaseException as exc:  # noqa: BLE001 - every failure becomes an event
                control.raise_on_cancel = False
                if isinstance(exc, Cancelled):
                    writer.emit("cancelled", step=control.step, seconds=time.time() - t0)
                    code = EXIT_CANCELLED
                elif isinstance(exc, (SystemExit,)):
                    raise
                else:
                    message = describe_error(exc, config, control.step)
                    never_started = (isinstance(exc, UserError) and not resume and control.step == 0
                                     and not checkpoint_path(run_dir).parent.exists())   # no checkpoints/ yet
                    # a user error's message is the whole story; other failures keep the traceback
                    writer.emit("failed", error=message,
                                traceback="" if isinstance(exc, UserError) else "".join(traceback.format_exception(exc)))
                    if main:
                        print_error(message, run_dir if is_internal_error(exc) else None)
                    # one convention for every command (explorer.cli): 2 = the user's input, 1 = ours
                    code = EXIT_USER if isinstance(exc, UserError) else EXIT_FAILED
    finally:
        writer.close()
        if tensorboard is not None:
            tensorboard.close()
        if main:
            remove_pid_file(run_dir)
            if never_started:
                remove_unstarted_run(run_dir)
    return code


def _is_terminal(stream) -> bool:
    """Whether ``stream`` is a terminal (then a person reads it: :mod:`explorer.worker.progress`)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _quiet_libraries() -> None:
    """No progress bars or info chatter from transformers/datasets/hub on stderr (the GUI shows stderr
    as the error view); warnings and errors still come through."""
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_warning()
    except ImportError:
        pass
    try:
        import datasets

        datasets.disable_progress_bars()
        datasets.logging.set_verbosity_warning()
    except ImportError:
        pass


def main(argv: list[str] | None = None) -> int:
    """Entry point for ``python -m explorer.worker.train`` (same as ``bert-explorer train``)."""
    from explorer.cli_vocabulary import translate_renamed

    parser = argparse.ArgumentParser(prog="bert-explorer train")
    add_arguments(parser)
    args = parser.parse_args(translate_renamed(sys.argv[1:] if argv is None else list(argv), parser))
    args._own_process = argv is None   # started from the command line: lower this process's priority
    return run(args)


if __name__ == "__main__":
    sys.exit(main())

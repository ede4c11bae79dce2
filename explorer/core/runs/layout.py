"""What a run folder holds, by name: every path inside a run folder comes from here (Qt-free, torch-free).

::

    <runs folder>/<run_id>/config.json        TrainConfig, written first                 config_file
    <runs folder>/<run_id>/events.jsonl       one event per line, flushed per line        events_file
    <runs folder>/<run_id>/worker.pid         {"pid", "host", "time"} while the worker lives  pid_file
    <runs folder>/<run_id>/checkpoints/last/  save_pretrained + tokenizer + training_state.pt  checkpoint_path
    <runs folder>/<run_id>/checkpoints/best/  same, best dev metric so far (no training_state.pt)
    <runs folder>/<run_id>/STOP               "stop early", created by the GUI or a user   stop_file
    <runs folder>/<run_id>/dev_split.csv      the training rows a run without a dev file held out  dev_split_file
    <runs folder>/<run_id>/remote.json        in a local mirror: where the run trains      remote_file
    <runs folder>/<run_id>/dev_outputs.json   gold and model outputs of each dev row (last table evaluation)  dev_outputs_file
    <runs folder>/<run_id>/predictions.json, nbest_predictions.json, null_odds.json (last QA evaluation)

A checkpoint folder is complete once its ``checkpoint.json`` is written (:func:`checkpoint_dir`; how a
checkpoint is saved atomically is explorer.core.training.checkpoints). No other module joins these names
or walks from a checkpoint up to its run (:func:`run_dir_of`).
"""

from __future__ import annotations

from pathlib import Path

from explorer.core.protocol.events import EVENTS_FILE

CONFIG_FILE = "config.json"
DEV_SPLIT_FILE = "dev_split.csv"   # a run without a dev file: the training rows held out as dev (core/data/split.py)
PID_FILE = "worker.pid"
# a classification or regression run's last evaluation, row by row: what its figures' bootstrap intervals resample
DEV_OUTPUTS_FILE = "dev_outputs.json"
# `bert-explorer baseline` / the Runs list's "Compute baseline": the run against a bag-of-words baseline
# (core/studies/run_baseline.py); the capsule gathers every baseline*.json of the run
BAG_OF_WORDS_FILE = "baseline_bag_of_words.json"
STOP_FILE = "STOP"
REMOTE_FILE = "remote.json"   # a local mirror of a run on a remote host: where it runs (core/remote/hosts.py)
CHECKPOINTS = "checkpoints"   # <run>/checkpoints/<kind>: "last", "best" (and "<kind>.old" during a save)
INFO_FILE = "checkpoint.json"   # in a checkpoint folder: step, kind, metrics; written last, so it marks a complete one


def config_file(run_dir: str | Path) -> Path:
    """``<run_dir>/config.json``: the run's TrainConfig, written first."""
    return Path(run_dir) / CONFIG_FILE


def dev_split_file(run_dir: str | Path) -> Path:
    """``<run>/dev_split.csv``: the ids and lines of the training rows a run without a dev file held out as
    dev (written by the classification task; read back by resume, prediction and Classify: dev set)."""
    return Path(run_dir) / DEV_SPLIT_FILE


def dev_outputs_file(run_dir: str | Path) -> Path:
    """``<run>/dev_outputs.json``: each dev row's gold label and the model's outputs at the run's last evaluation
    (core/runs/dev_outputs.py writes and reads it; the replication capsule's intervals resample it)."""
    return Path(run_dir) / DEV_OUTPUTS_FILE


def bag_of_words_file(run_dir: str | Path) -> Path:
    """``<run>/baseline_bag_of_words.json``: the run against its TF-IDF baseline (core/studies/run_baseline.py)."""
    return Path(run_dir) / BAG_OF_WORDS_FILE


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
    :func:`checkpoint_dir` for the folder of a *complete* checkpoint."""
    return Path(run_dir) / CHECKPOINTS / kind


def checkpoint_dir(run_dir: str | Path, kind: str = "last") -> Path | None:
    """The folder of a complete checkpoint of this kind (it holds ``checkpoint.json``, written last), or None;
    falls back to ``<kind>.old`` when a save was cut between its two renames
    (explorer.core.training.checkpoints)."""
    base = Path(run_dir) / CHECKPOINTS
    for name in (kind, kind + ".old"):
        p = base / name
        if (p / INFO_FILE).is_file():
            return p
    return None


def checkpoint_stamp(path: str | Path) -> tuple[int, tuple] | None:
    """What tells the weights of one save of the checkpoint folder ``path`` from another's: (the step in its
    INFO_FILE, the (name, size, mtime_ns) of each weights file); None while it holds no INFO_FILE (not a run's
    checkpoint, or a save under way). A run that puts other weights in checkpoints/best (a better evaluation, the
    end-of-run re-scoring picking the final step) changes it; the re-scoring's rewrite of INFO_FILE alone for the
    same step (its figures on all dev rows; the weights hard-linked or copied with their times) does not."""
    import json

    folder = Path(path)
    try:
        step = json.loads((folder / INFO_FILE).read_text(encoding="utf-8")).get("step")
        weights = tuple((f.name, st.st_size, st.st_mtime_ns) for f in sorted(folder.glob("*.safetensors"))
                        + sorted(folder.glob("*.bin")) for st in (f.stat(),))
    except (OSError, ValueError, AttributeError):
        return None
    return (int(step) if isinstance(step, (int, float)) else -1, weights)


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

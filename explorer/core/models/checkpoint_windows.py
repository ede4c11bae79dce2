"""The QA window settings a checkpoint was trained with, read from its run's config.json (Qt-free).

(Checking settings against a model is explorer.core.models.window_settings; this module only finds them.)

A checkpoint saved by a run lives in ``<runs folder>/<run_id>/checkpoints/<name>/`` next to the run's
``config.json`` (a TrainConfig). Inference on that checkpoint (the probe panel, the τ-on-dev-set view,
``bert-explorer eval``) should cut passages the way training did: the same max_seq_length, doc_stride
(overlap in tokens) and max_query_length. Explicit settings (command-line flags) still win.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from explorer.core.specs.run_presets import ABSTAIN_PRESET_HINT

DEFAULTS = {"max_seq_length": 384, "doc_stride": 128, "max_query_length": 64}   # DESIGN.md standard values


@dataclass(frozen=True)
class WindowSettings:
    """max_seq_length / doc_stride / max_query_length (tokens), and where they came from.

    ``source`` is the config.json path they were read from, or "" for the defaults.
    """

    max_seq_length: int = DEFAULTS["max_seq_length"]
    doc_stride: int = DEFAULTS["doc_stride"]
    max_query_length: int = DEFAULTS["max_query_length"]
    source: str = ""

    def as_dict(self) -> dict:
        return {"max_seq_length": self.max_seq_length, "doc_stride": self.doc_stride,
                "max_query_length": self.max_query_length}

    def describe(self) -> str:
        """'max_seq_length 256, doc_stride 128, max_query_length 64 (from runs/x/config.json)'."""
        where = f" (from {self.source})" if self.source else " (defaults)"
        return (f"max_seq_length {self.max_seq_length}, doc_stride {self.doc_stride}, "
                f"max_query_length {self.max_query_length}{where}")


def run_config_for_checkpoint(path: str | Path) -> Path | None:
    """The config.json of the run a checkpoint folder belongs to, or None.

    Looks at ``<path>/../../config.json`` when ``<path>`` sits in a ``checkpoints`` folder, and at
    ``<path>/config.json`` only when it is a run folder (a TrainConfig, not a model's config.json).
    """
    from explorer.core.runs.layout import config_file, run_dir_of

    run_dir = run_dir_of(path)
    if run_dir is None or not config_file(run_dir).is_file():
        return None
    return config_file(run_dir)


@dataclass(frozen=True, kw_only=True)
class RunDevFile:
    """The dev file of the run a checkpoint belongs to, as every page that fills it in shows and reads it.

    Attributes:
        shown: the file as the user gave it (the launcher's Dev file, ``--dev``; a relative one where it was found).
        path: the file the inspector reads: ``shown`` for a checkpoint inspected on this machine; the host's copy
            (``RUNS/.blobs/<hash>/<name>``, where the launch copied it) for a checkpoint inspected on its host.
        note: a tooltip naming the copy read when it is not ``shown`` ("" otherwise).
    """

    shown: str
    path: str
    note: str = ""

    def to_read(self, typed: str) -> str:
        """The path a request carries for the field's text ``typed``: :attr:`path` while the field shows
        :attr:`shown`, else what was typed."""
        typed = (typed or "").strip()
        return self.path if typed and typed == self.shown else typed


def run_dev_file(path: str | Path) -> RunDevFile | None:
    """The dev file of the run a checkpoint folder belongs to (see :class:`RunDevFile`); None outside a run, for a
    run without a dev file (one that held training rows out) or when the file is gone. Every page that pre-fills a
    run's dev file (Classify: dev set, τ on dev set, Tag: dev set, Head importance) asks here.

    A checkpoint of a remote run inspected on its host (explorer.core.remote.on_host) is named by its run's local
    mirror: the dev file as launched (its config.json) is shown, the host's copy (its ``started`` event's config) is
    read. Else the run folder's config.json ``dev``, found as :func:`run_dev_path` finds it."""
    from explorer.core.remote.on_host import run_on_host

    run = run_on_host(str(path)) if path else None
    if run is not None:
        return _dev_on_host(run)
    dev = run_dev_path(path)
    return RunDevFile(shown=dev, path=dev) if dev else None


def checkpoint_run_config(path: str | Path) -> dict:
    """The config of the run a checkpoint belongs to, as it was launched: its local mirror's config.json for a
    checkpoint of a remote run inspected on its host (explorer.core.remote.on_host: the host's folder is not read
    here), else the run folder's config.json (explorer.core.runs.reading.run_config_of); {} outside a run."""
    from explorer.core.remote.on_host import run_on_host
    from explorer.core.runs.reading import read_config, run_config_of

    run = run_on_host(str(path)) if path else None
    if run is not None:
        return read_config(Path(run.local_dir))[0]
    return run_config_of(path)


def _dev_on_host(run) -> RunDevFile | None:
    """The dev file of a remote run whose checkpoint is inspected on its host (see :func:`run_dev_file`)."""
    from explorer.core.runs.reading import read_config, read_run_events

    mirror = Path(run.local_dir)
    dev = str(read_config(mirror)[0].get("dev") or "").strip()
    events, _notes = read_run_events(mirror, steps="last")
    started = [e for e in events if e.get("event") == "started" and isinstance(e.get("config"), dict)]
    there = str(started[-1]["config"].get("dev") or "").strip() if started else ""
    if not dev or not there:
        return None
    if there == dev:   # not a file copied by the launch (a path on the host as typed)
        return RunDevFile(shown=dev, path=dev)
    return RunDevFile(shown=dev, path=there,
                      note=f"{run.host.name}'s copy of this file is read (the one the run trained on): {there}")


def run_dev_path(path: str | Path) -> str:
    """The dev file of the run a checkpoint folder belongs to (its config.json's ``dev``), when it exists here;
    "" outside a run, for a run without a dev file (one that held training rows out) or when the file is gone.
    A relative ``dev`` (a run launched from the command line: ``--dev dev-v2.0.json``) is found where the run was
    launched from (the run folder less its relative ``output_dir``) or in the run folder, not only in the app's
    working folder. The pages ask :func:`run_dev_file`, which also names a remote run's file inspected on its host."""
    config_path = run_config_for_checkpoint(path) if path else None
    if config_path is None:
        return ""
    try:
        config = json.loads(config_path.read_text(encoding="utf-8"))
        dev, output_dir = str(config.get("dev") or ""), str(config.get("output_dir") or "")
    except (OSError, ValueError, AttributeError):
        return ""
    if not dev:
        return ""
    return next((str(p) for p in _dev_candidates(Path(dev).expanduser(), config_path.parent, output_dir)
                 if p.is_file()), "")


def _dev_candidates(dev: Path, run_dir: Path, output_dir: str) -> list[Path]:
    """Where a run's ``dev`` path may be: as written, then for a relative one the folder the run was launched from
    (``run_dir``'s parent less the parts of a relative ``output_dir``) and the run folder."""
    if dev.is_absolute():
        return [dev]
    launched = run_dir.parent
    out = Path(output_dir)
    if output_dir and not out.is_absolute():
        for _part in out.parts:
            launched = launched.parent
    return [dev, launched / dev, run_dir / dev]


def run_task_of(path: str | Path) -> str | None:
    """The task named in the config.json of the run a checkpoint folder belongs to; None outside a run or when
    the file cannot be read."""
    config_path = run_config_for_checkpoint(path)
    if config_path is None:
        return None
    try:
        task = json.loads(config_path.read_text(encoding="utf-8")).get("task")
    except (OSError, ValueError, AttributeError):
        return None
    return task if isinstance(task, str) else None


def checkpoint_task_name(path: str | Path) -> tuple[str | None, str | None]:
    """(model head, task) of a checkpoint folder: the ``model_head`` of the head it was saved with
    (``core.specs.heads.recognise`` on its config.json, its run's task deciding between the heads of one
    architecture when config.json records no problem_type) and the task it opens as
    (``core.specs.tasks.task_for_checkpoint``: the run's task when it has this head, e.g. "pair" for an MRPC run,
    else the table's first task with the head). (None, None) for a bare encoder or an unreadable folder."""
    from explorer.core.specs.heads import recognise
    from explorer.core.specs.tasks import head_of_task, task_for_checkpoint

    run_task = run_task_of(path)
    head = recognise(path, run_head=head_of_task(run_task))
    return (head.model_head if head is not None else None), task_for_checkpoint(head, run_task)


def window_settings_for_checkpoint(path: str | Path) -> WindowSettings:
    """The window settings to run a checkpoint with: its run's config.json when present, else defaults.

    A run config's ``max_seq_length`` of null means the task default (384 for QA). An unreadable or
    foreign config gives the defaults (never an error: this only pre-fills settings).
    """
    config_path = run_config_for_checkpoint(path) if path and not str(path).startswith("bundled:") else None
    if config_path is None:
        return WindowSettings()
    try:
        data = json.loads(config_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return WindowSettings()
    if not isinstance(data, dict) or "task" not in data:
        return WindowSettings()
    values = {}
    for name, default in DEFAULTS.items():
        value = data.get(name)
        values[name] = int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
            and value > 0 else default
    return WindowSettings(**values, source=str(config_path))


def resolve_window_settings(model: str, **explicit) -> WindowSettings:
    """The settings for ``model``: explicit values (not None) win over the run's config, which wins over
    the defaults. ``explicit`` keys: max_seq_length, doc_stride, max_query_length."""
    base = window_settings_for_checkpoint(model)
    given = {k: int(v) for k, v in explicit.items() if v is not None and k in DEFAULTS}
    if not given:
        return base
    values = {**base.as_dict(), **given}
    source = base.source if len(given) < len(DEFAULTS) else ""
    return WindowSettings(**values, source=source)


V11_ABSTAIN_NOTE = ("This model was fine-tuned on SQuAD v1.1, where every question has an answer: it was never "
                    "trained to abstain, so its null_score (and τ) carry no learned \"no answer\"; read the best "
                    f"span, and use a SQuAD v2.0 model to study abstaining: {ABSTAIN_PRESET_HINT}.")


def squad_version_of(source: str, path: str = "") -> str:
    """The SQuAD version ("v1.1" / "v2.0") a QA model was fine-tuned on: its run's config.json task for a run
    checkpoint, else the hub preset's task (explorer.core.specs.hub_checkpoints); "" when not known (a bare encoder, a
    folder without a run)."""
    from explorer.core.specs.hub_checkpoints import preset_for
    from explorer.core.specs.tasks import find_task_facts

    task = None
    for where in (path, source):
        config_path = run_config_for_checkpoint(where) if where else None
        if config_path is not None:
            try:
                task = json.loads(config_path.read_text(encoding="utf-8")).get("task")
            except (OSError, ValueError, AttributeError):
                task = None
            break
    if task is None:
        preset = preset_for(source or "")
        task = preset.task if preset is not None else None
    facts = find_task_facts(task) if isinstance(task, str) else None
    return facts.squad_version if facts is not None else ""


def abstain_note(source: str, path: str = "") -> str:
    """The Spans & τ note for a model that never learnt to abstain (SQuAD v1.1, V11_ABSTAIN_NOTE); "" otherwise."""
    return V11_ABSTAIN_NOTE if squad_version_of(source, path) == "v1.1" else ""

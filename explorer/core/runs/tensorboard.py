"""TensorBoard event files both ways (Qt-free; torch and tensorboard imported only when used).

- :class:`TensorBoardWriter`: mirrors events into TensorBoard event files while a run trains
  (``report_to="tensorboard"``; torch.utils.tensorboard.SummaryWriter, which needs the ``tensorboard``
  package: the optional extra ``bert-explorer[tensorboard]``); :func:`export_tensorboard` for a
  finished run;
- :func:`read_tensorboard_scalars` / :func:`tensorboard_events`: a folder of event files read back
  (TensorBoard's own EventAccumulator) as rows / as events, so it lists and draws as a run
  (explorer.core.runs.readers.tensorboard_folder).

Scalar names: explorer.core.runs.scalars (``train/<field>``, ``eval/<metric>``, ``eval_sample/<metric>``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from explorer.core.errors import UserError
from explorer.core.runs.scalars import EVAL_PREFIX, EVAL_SAMPLE_PREFIX, RENAMED, TRAIN_PREFIX, event_scalars, scalar
from explorer.core.runs.tensorboard_args import ARGS_TAG, args_json
from explorer.core.specs.metrics import UNDEFINED   # the metrics key naming the metrics without a value

_EXTRA_HINT = "pip install 'bert-explorer[tensorboard]' (or pip install tensorboard)"
TB_FILE_MARK = "tfevents"   # TensorBoard event files are named events.out.tfevents.<time>.<host>...


class TensorBoardMissing(UserError):
    """The ``tensorboard`` package is not installed (needed to write or read event files)."""


# -- TensorBoard: writing ------------------------------------------------------------------------------
def _summary_writer(log_dir: Path):
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError as exc:
        raise TensorBoardMissing(f"writing TensorBoard event files needs the tensorboard package ({exc}): "
                                 f"{_EXTRA_HINT}") from None
    return SummaryWriter(log_dir=str(log_dir))


class TensorBoardWriter:
    """Writes a run's scalars to TensorBoard event files in ``log_dir`` (the run folder, beside
    events.jsonl), one :meth:`write` per event, flushed at each evaluation and on :meth:`close`; a step event's
    epoch as ``train/epoch`` (HF's name) and the run config once, as the ``args`` text
    (explorer.core.runs.tensorboard_args), so the files read back with the same Best dev and epochs.

    Raises:
        TensorBoardMissing: the tensorboard package is not installed (at construction).
    """

    def __init__(self, log_dir: str | Path):
        self.log_dir = Path(log_dir)
        self._writer = _summary_writer(self.log_dir)
        self._config_written = False

    def write_config(self, config: dict) -> None:
        """Store the run ``config`` as the ``args`` text summary (once; later calls do nothing)."""
        if config and not self._config_written:
            self._writer.add_text(ARGS_TAG, args_json(config), global_step=0)
            self._config_written = True

    def write(self, event: dict) -> None:
        """Add the event's scalars (:func:`event_scalars`, and a step event's epoch) at their step, with the
        event's time; a ``started`` event's config as :meth:`write_config`."""
        if event.get("event") == "started" and isinstance(event.get("config"), dict):
            self.write_config(event["config"])
        rows = event_scalars(event)
        epoch = scalar(event.get("epoch"))
        if event.get("event") == "step" and epoch is not None and rows:
            rows.append((rows[0][0], TRAIN_PREFIX + "epoch", epoch))
        wall = scalar(event.get("time"))
        for step, name, value in rows:
            self._writer.add_scalar(name, value, global_step=step, walltime=wall)
        if event.get("event") in ("eval", "finished", "failed", "cancelled"):
            self._writer.flush()

    def close(self) -> None:
        self._writer.close()


def export_tensorboard(run_dir: str | Path, events: list[dict], log_dir: str | Path | None = None,
                       config: dict | None = None) -> Path:
    """Write ``events``' scalars as TensorBoard event files into ``log_dir`` (default ``run_dir``), with the
    run ``config`` (else the ``started`` event's) as the ``args`` text; returns the folder. Raises
    TensorBoardMissing without the tensorboard package, OSError when the folder cannot be written."""
    out = Path(log_dir) if log_dir is not None else Path(run_dir)
    out.mkdir(parents=True, exist_ok=True)
    writer = TensorBoardWriter(out)
    try:
        if config:
            writer.write_config(config)
        for event in events:
            writer.write(event)
    finally:
        writer.close()
    return out


# -- TensorBoard: reading ------------------------------------------------------------------------------
def tensorboard_files(folder: str | Path) -> list[Path]:
    """The TensorBoard event files directly in ``folder`` (``events.out.tfevents.*``), by name."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_file() and TB_FILE_MARK in p.name)


@dataclass(frozen=True, kw_only=True)
class Restart:
    """A writer that started again from an earlier step: ``file`` begins at ``step`` while the files before it
    reached ``reached``; ``purged`` of their points (steps ``step`` and on) were dropped."""

    file: str
    step: int
    reached: int
    purged: int
    marked: bool = False   # the file marks the restart (purge_step); False: found from its tags' first steps
    tags: tuple[str, ...] = ()   # an unmarked restart: the tags it starts again (only theirs were purged)

    def note(self) -> str:
        """The sentence a run's notes show."""
        how = (f"marks a restart at step {self.step} (purge_step)" if self.marked
               else f"starts {', '.join(self.tags) or 'its tags'} again at step {self.step}")
        return (f"restart found: {self.file} {how} after the earlier file(s) reached step {self.reached}; "
                f"{self.purged} earlier point(s) from step {self.step} on were dropped, as TensorBoard drops them")


@dataclass(frozen=True, kw_only=True)
class TensorBoardScalars:
    """The scalars of a folder's event files: ``rows`` (step, tag, value, wall time) sorted by step then tag,
    and the ``restarts`` found between its files."""

    rows: list[tuple[int, str, float, float]]
    restarts: list[Restart]


def _purge_step(file: Path, *, head: int = 8) -> int | None:
    """The step of the ``SessionLog.START`` event a restarted writer puts at the start of its file
    (``SummaryWriter(purge_step=N)``: after the file-version records, before any summary); None when the file
    has none among its first ``head`` events."""
    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader
    from tensorboard.compat.proto.event_pb2 import SessionLog

    try:
        for k, event in enumerate(EventFileLoader(str(file)).Load()):
            if event.HasField("session_log") and event.session_log.status == SessionLog.START:
                return int(event.step)
            if k + 1 >= head or event.HasField("summary"):
                return None
    except Exception:  # noqa: BLE001 - a torn file's scalars are read (or skipped) by the accumulator
        return None
    return None


def _file_scalars(file: Path, accumulator) -> list[tuple[int, str, float, float]]:
    acc = accumulator(str(file), size_guidance={"scalars": 0, "tensors": 0})
    acc.Reload()
    tags = acc.Tags()
    rows = []
    for tag in tags.get("scalars", []):
        rows += [(int(s.step), tag, float(s.value), float(s.wall_time)) for s in acc.Scalars(tag)]
    for tag in tags.get("tensors", []):   # TF2 writers store scalars as rank-0 tensors
        for t in acc.Tensors(tag):
            try:
                from tensorboard.util import tensor_util

                value = tensor_util.make_ndarray(t.tensor_proto)
            except (ImportError, ValueError, TypeError):
                continue
            if getattr(value, "shape", None) == ():
                rows.append((int(t.step), tag, float(value), float(t.wall_time)))
    return rows


Rows = list[tuple[int, str, float, float]]


def _marked_restart(name: str, step: int, rows: Rows) -> tuple[Restart, Rows] | None:
    """A file marking a restart at ``step``: every earlier point from ``step`` on goes, whatever its tag (the
    Restart and the rows kept; None when the earlier files never reached ``step``)."""
    reached = max(r[0] for r in rows)
    if step > reached:
        return None
    kept = [r for r in rows if r[0] < step]
    return Restart(file=name, step=step, reached=reached, purged=len(rows) - len(kept), marked=True), kept


def _unmarked_restart(name: str, found: Rows, rows: Rows) -> tuple[Restart, Rows] | None:
    """A file without the mark: each tag it logs at or before a step the earlier files reached for that tag, after
    their last point of it (a writer that started again once the other stopped, by the points' own wall times),
    purges that tag's earlier points from its first step here on (the Restart and the rows kept; None when no
    tag starts again). Two writers of one tag at the same time overlap in time: both are kept, as TensorBoard
    draws them."""
    first: dict[str, tuple[int, float]] = {}
    for step, tag, _, wall in found:
        old = first.get(tag, (step, wall))
        first[tag] = (min(step, old[0]), min(wall, old[1]))
    reached: dict[str, tuple[int, float]] = {}
    for step, tag, _, wall in rows:
        old = reached.get(tag, (step, wall))
        reached[tag] = (max(step, old[0]), max(wall, old[1]))
    again = {tag: step for tag, (step, wall) in first.items()
             if tag in reached and step <= reached[tag][0] and wall >= reached[tag][1]}
    if not again:
        return None
    kept = [r for r in rows if r[1] not in again or r[0] < again[r[1]]]
    return Restart(file=name, step=min(again.values()), reached=max(reached[t][0] for t in again),
                   purged=len(rows) - len(kept), tags=tuple(sorted(again))), kept


def read_tensorboard_folder_scalars(folder: str | Path) -> TensorBoardScalars:
    """Every scalar of the event files in ``folder`` (TensorBoard's EventAccumulator, one file at a time in
    the order the writers made them: by name, which starts with the writer's start time), with TensorBoard's
    rule for a restarted writer: a file that marks a restart (``SummaryWriter(purge_step=N)`` writes a
    ``SessionLog.START`` at step N, on which TensorBoard's EventAccumulator purges every earlier point from step
    N on, whatever steps the new writer logs, even none) purges the earlier files' points from N on, so each step
    shows the restarted values once and the crashed writer's orphaned later points are gone (TensorBoard:
    "Detected out of order event.step likely caused by a TensorFlow restart. Purging ..."). A file without the
    mark (a run resumed from a checkpoint by a writer not told its purge_step) is TensorBoard's out-of-order rule,
    tag by tag as TensorBoard purges out-of-order steps: a tag whose first step in the file is at or before a step
    the earlier files reached for that same tag purges that tag's earlier points from that step on (where
    TensorBoard, for a file with a version record, would draw both); a tag the earlier files never logged purges
    nothing, so a second writer logging other tags beside the first (an eval writer in the training writer's
    folder) keeps every point of both.

    Raises:
        TensorBoardMissing: the tensorboard package is not installed.
    """
    try:
        from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    except ImportError as exc:
        raise TensorBoardMissing(f"reading TensorBoard event files needs the tensorboard package ({exc}): "
                                 f"{_EXTRA_HINT}") from None
    rows: Rows = []
    restarts: list[Restart] = []
    for file in tensorboard_files(folder):
        found = _file_scalars(file, EventAccumulator)
        if rows:
            marked = _purge_step(file)   # the writer's purge_step, TensorBoard's own restart mark
            restart = (_marked_restart(file.name, marked, rows) if marked is not None
                       else _unmarked_restart(file.name, found, rows))
            if restart is not None:
                rows = restart[1]
                restarts.append(restart[0])
        rows += found
    rows.sort(key=lambda r: (r[0], r[1]))
    return TensorBoardScalars(rows=rows, restarts=restarts)


def read_tensorboard_scalars(folder: str | Path) -> list[tuple[int, str, float, float]]:
    """The rows of :func:`read_tensorboard_folder_scalars`: (step, tag, value, wall time) sorted by step then
    tag, a restarted writer's orphaned points purged.

    Raises:
        TensorBoardMissing: the tensorboard package is not installed.
    """
    return read_tensorboard_folder_scalars(folder).rows


def tensorboard_events(run_id: str, folder: str | Path, scalars: TensorBoardScalars | None = None) -> list[dict]:
    """The event files in ``folder`` as explorer.core.protocol.events dicts: the inverse of the export. Tags
    ``train/<x>`` (and tags without a prefix) become fields of one ``step`` event per step
    (``train/learning_rate`` -> ``lr``), ``eval/<metric>`` and ``eval_sample/<metric>`` (an evaluation on a
    sample of the dev rows) the metrics of one ``eval`` event per step (a NaN one
    undefined, null with its reason under ``metrics["undefined"]``, as our runs save a correlation of constant
    predictions and the export writes it);
    a ``started`` event comes first. ``scalars``: the folder's, when already read."""
    rows = (scalars or read_tensorboard_folder_scalars(folder)).rows
    back = {v: k for k, v in RENAMED.items()}
    steps: dict[int, dict] = {}
    evals: dict[int, dict] = {}
    first = min((r[3] for r in rows), default=0.0)
    for step, tag, value, wall in rows:
        prefix = next((p for p in (EVAL_PREFIX, EVAL_SAMPLE_PREFIX) if tag.startswith(p)), None)
        if prefix is not None:
            ev = evals.setdefault(step, {"event": "eval", "run_id": run_id, "time": wall, "step": step, "metrics": {}})
            name = tag[len(prefix):]
            ev["metrics"][name] = value if math.isfinite(value) else None
            if math.isnan(value):   # as our runs save an undefined metric: null and the reason
                ev["metrics"].setdefault(UNDEFINED, {})[name] = f"{tag} is NaN in the event file"
        else:
            name = tag[len(TRAIN_PREFIX):] if tag.startswith(TRAIN_PREFIX) else tag
            ev = steps.setdefault(step, {"event": "step", "run_id": run_id, "time": wall, "step": step})
            ev[back.get(name, name)] = value if math.isfinite(value) else None
    ordered = sorted(list(steps.values()) + list(evals.values()), key=lambda e: (e["step"], e["event"] == "eval"))
    return [{"event": "started", "run_id": run_id, "time": first, "config": {}}] + ordered

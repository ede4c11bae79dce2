"""A run's scalars as (step, name, value) rows: TensorBoard event files both ways, and one CSV for many runs.

One naming for every export (Qt-free): a ``step`` event's numbers are ``train/<field>`` (``lr`` is
written ``train/learning_rate``, the name Hugging Face's TensorBoard callback uses), an ``eval`` event's
metrics are ``eval/<metric>`` on their stored scale (shares in [0, 1], not the Curves' percent).

- :func:`run_scalars`: the rows of one run's events (explorer.core.protocol.events dicts);
- :class:`TensorBoardWriter`: mirrors events into TensorBoard event files while a run trains
  (``report_to="tensorboard"``; torch.utils.tensorboard.SummaryWriter, which needs the ``tensorboard``
  package: the optional extra ``bert-explorer[tensorboard]``); :func:`export_tensorboard` for a
  finished run;
- :func:`read_tensorboard_scalars` / :func:`tensorboard_events`: a folder of event files read back
  (TensorBoard's own EventAccumulator) as rows / as events, so it lists and draws as a run;
- :func:`write_long_csv` (``run, step, name, value``) and :func:`write_wide_csv` (``run, step`` and one
  column per name) for every selected run in one table.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

from explorer.core.errors import UserError
from explorer.core.protocol.events import STEP_CONTEXT_FIELDS as _STEP_CONTEXT   # where and when, not what was measured

TRAIN_PREFIX, EVAL_PREFIX = "train/", "eval/"
_RENAMED = {"lr": "learning_rate"}
_EXTRA_HINT = "pip install 'bert-explorer[tensorboard]' (or pip install tensorboard)"
TB_FILE_MARK = "tfevents"   # TensorBoard event files are named events.out.tfevents.<time>.<host>...


class TensorBoardMissing(UserError):
    """The ``tensorboard`` package is not installed (needed to write or read event files)."""


def _scalar(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def event_scalars(event: dict) -> list[tuple[int, str, float]]:
    """The (step, name, value) rows of one event: a step event's numbers as ``train/<field>``, an eval
    event's metrics as ``eval/<metric>``; other events and non-numbers (per_class tables, null) give []."""
    kind, step = event.get("event"), _scalar(event.get("step"))
    if step is None or kind not in ("step", "eval"):
        return []
    if kind == "step":
        items = ((TRAIN_PREFIX + _RENAMED.get(k, k), v) for k, v in event.items() if k not in _STEP_CONTEXT)
    else:
        items = ((EVAL_PREFIX + k, v) for k, v in (event.get("metrics") or {}).items())
    return [(int(step), name, float(v)) for name, v in items if _scalar(v) is not None]


def run_scalars(events: list[dict]) -> list[tuple[int, str, float]]:
    """Every (step, name, value) of a run's events, in event order (see :func:`event_scalars`)."""
    return [row for event in events for row in event_scalars(event)]


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
    events.jsonl), one :meth:`write` per event, flushed at each evaluation and on :meth:`close`.

    Raises:
        TensorBoardMissing: the tensorboard package is not installed (at construction).
    """

    def __init__(self, log_dir: str | Path):
        self.log_dir = Path(log_dir)
        self._writer = _summary_writer(self.log_dir)

    def write(self, event: dict) -> None:
        """Add the event's scalars (:func:`event_scalars`) at their step, with the event's time."""
        rows = event_scalars(event)
        wall = _scalar(event.get("time"))
        for step, name, value in rows:
            self._writer.add_scalar(name, value, global_step=step, walltime=wall)
        if event.get("event") in ("eval", "finished", "failed", "cancelled"):
            self._writer.flush()

    def close(self) -> None:
        self._writer.close()


def export_tensorboard(run_dir: str | Path, events: list[dict], log_dir: str | Path | None = None) -> Path:
    """Write ``events``' scalars as TensorBoard event files into ``log_dir`` (default ``run_dir``);
    returns the folder. Raises TensorBoardMissing without the tensorboard package, OSError when the
    folder cannot be written."""
    out = Path(log_dir) if log_dir is not None else Path(run_dir)
    out.mkdir(parents=True, exist_ok=True)
    writer = TensorBoardWriter(out)
    try:
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


def read_tensorboard_scalars(folder: str | Path) -> list[tuple[int, str, float, float]]:
    """Every scalar of the event files in ``folder`` (TensorBoard's EventAccumulator, every point kept):
    (step, tag, value, wall time) sorted by step then tag.

    Raises:
        TensorBoardMissing: the tensorboard package is not installed.
    """
    try:
        from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    except ImportError as exc:
        raise TensorBoardMissing(f"reading TensorBoard event files needs the tensorboard package ({exc}): "
                                 f"{_EXTRA_HINT}") from None
    rows = []
    for file in tensorboard_files(folder):
        acc = EventAccumulator(str(file), size_guidance={"scalars": 0, "tensors": 0})
        acc.Reload()
        tags = acc.Tags()
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
    rows.sort(key=lambda r: (r[0], r[1]))
    return rows


def tensorboard_events(run_id: str, folder: str | Path) -> list[dict]:
    """The event files in ``folder`` as explorer.core.protocol.events dicts: the inverse of the export. Tags
    ``train/<x>`` (and tags without a prefix) become fields of one ``step`` event per step
    (``train/learning_rate`` -> ``lr``), ``eval/<metric>`` the metrics of one ``eval`` event per step;
    a ``started`` event comes first."""
    rows = read_tensorboard_scalars(folder)
    back = {v: k for k, v in _RENAMED.items()}
    steps: dict[int, dict] = {}
    evals: dict[int, dict] = {}
    first = min((r[3] for r in rows), default=0.0)
    for step, tag, value, wall in rows:
        if tag.startswith(EVAL_PREFIX):
            ev = evals.setdefault(step, {"event": "eval", "run_id": run_id, "time": wall, "step": step, "metrics": {}})
            ev["metrics"][tag[len(EVAL_PREFIX):]] = value if math.isfinite(value) else None
        else:
            name = tag[len(TRAIN_PREFIX):] if tag.startswith(TRAIN_PREFIX) else tag
            ev = steps.setdefault(step, {"event": "step", "run_id": run_id, "time": wall, "step": step})
            ev[back.get(name, name)] = value if math.isfinite(value) else None
    ordered = sorted(list(steps.values()) + list(evals.values()), key=lambda e: (e["step"], e["event"] == "eval"))
    return [{"event": "started", "run_id": run_id, "time": first, "config": {}}] + ordered


# -- many runs in one CSV ---------------------------------------------------------------------------------
LONG_HEADER = ("run", "step", "name", "value")


def write_long_csv(path: str | Path, runs: list[tuple[str, list[dict]]]) -> int:
    """One row per (run, step, name, value) of every run (``runs``: (run id, events) pairs, in that
    order); returns the rows written (header not counted). Raises OSError naming nothing else."""
    n = 0
    with open(path, "w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow(LONG_HEADER)
        for run_id, events in runs:
            for step, name, value in run_scalars(events):
                out.writerow((run_id, step, name, repr(value)))
                n += 1
    return n


def wide_table(runs: list[tuple[str, list[dict]]]) -> tuple[list[str], list[list]]:
    """(columns, rows) of the wide table: one row per run and step (steps ascending), ``run, step``
    then one column per scalar name (first seen first); a name a step did not log is empty; a name
    logged twice at one step keeps the last value."""
    names: dict[str, None] = {}
    table: list[list] = []
    for run_id, events in runs:
        by_step: dict[int, dict[str, float]] = {}
        for step, name, value in run_scalars(events):
            names.setdefault(name, None)
            by_step.setdefault(step, {})[name] = value
        for step in sorted(by_step):
            table.append([run_id, step, by_step[step]])
    columns = list(names)
    rows = [[run_id, step] + [values.get(c, "") for c in columns] for run_id, step, values in table]
    return ["run", "step"] + columns, rows


def write_wide_csv(path: str | Path, runs: list[tuple[str, list[dict]]]) -> int:
    """The :func:`wide_table` of ``runs`` as a CSV file; returns the rows written (header not counted)."""
    columns, rows = wide_table(runs)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow(columns)
        for row in rows:
            out.writerow([repr(v) if isinstance(v, float) else v for v in row])
    return len(rows)


def export_runs_csv(run_dirs: list[str | Path], path: str | Path, *, wide: bool = False) -> tuple[int, int]:
    """Read every run folder (explorer.core.runs.store.load_run: any kind) and write their scalars to one CSV
    (:func:`write_wide_csv` when ``wide``, else :func:`write_long_csv`). Returns (rows, runs).

    Raises:
        ValueError: a folder is no run folder; OSError: a file cannot be read or the CSV written.
    """
    from explorer.core.runs.store import load_run

    records = [load_run(p) for p in run_dirs]
    write = write_wide_csv if wide else write_long_csv
    return write(path, [(r.run_id, r.events) for r in records]), len(records)

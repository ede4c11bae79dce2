"""Many runs' scalars in one CSV (Qt-free, torch-free): ``bert-explorer runs --export-csv`` and the Runs list's
"Export scalars".

- :func:`write_long_csv`: ``run, step, name, value``, one row per scalar;
- :func:`write_wide_csv`: ``run, step`` and one column per scalar name;
- :func:`export_runs_csv`: read run folders of any kind (explorer.core.runs.reading.load_run) and write either.

With ``x_unit`` "epoch" or "examples" (explorer.core.runs.x_units), a column of that name follows ``step``: the
step times the run's factor, so runs of different batch or training-set sizes line up as on the Curves page.

A metric an evaluation declares undefined (a correlation of constant predictions) is an empty value: its row is
there in the long CSV, so the evaluation is not lost, and no CSV holds a ``nan`` a spreadsheet reads as text.

Scalar names: explorer.core.runs.scalars.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

from explorer.core.runs.reading import load_run
from explorer.core.runs.scalars import run_scalars

LONG_HEADER = ("run", "step", "name", "value")


def _x(step: int, factor: float):
    """step x factor: a whole number (examples seen) as an int, else its repr (epochs)."""
    x = step * factor
    return int(x) if float(x).is_integer() else repr(x)


def _cell(value: float) -> str:
    """A scalar as the CSV writes it: its repr (every digit), empty where it has no value (NaN: undefined)."""
    return repr(value) if math.isfinite(value) else ""


def write_long_csv(path: str | Path, runs: list[tuple[str, list[dict]]], x_unit: str = "step",
                   factors: dict | None = None) -> int:
    """One row per (run, step, name, value) of every run (``runs``: (run id, events) pairs, in that
    order); with ``x_unit`` other than "step", its column after step (step x ``factors[run id]``). Returns the
    rows written (header not counted). Raises OSError naming nothing else."""
    n = 0
    extra = x_unit != "step"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow(LONG_HEADER[:2] + ((x_unit,) if extra else ()) + LONG_HEADER[2:])
        for run_id, events in runs:
            for step, name, value in run_scalars(events):
                x = (_x(step, (factors or {}).get(run_id, 1.0)),) if extra else ()
                out.writerow((run_id, step, *x, name, _cell(value)))
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


def write_wide_csv(path: str | Path, runs: list[tuple[str, list[dict]]], x_unit: str = "step",
                   factors: dict | None = None) -> int:
    """The :func:`wide_table` of ``runs`` as a CSV file (with ``x_unit`` other than "step", its column after
    step, as :func:`write_long_csv`); returns the rows written (header not counted)."""
    columns, rows = wide_table(runs)
    if x_unit != "step":
        columns = columns[:2] + [x_unit] + columns[2:]
        rows = [row[:2] + [_x(row[1], (factors or {}).get(row[0], 1.0))] + row[2:] for row in rows]
    with open(path, "w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow(columns)
        for row in rows:
            out.writerow([_cell(v) if isinstance(v, float) else v for v in row])
    return len(rows)


def export_runs_csv(run_dirs: list[str | Path], path: str | Path, *, wide: bool = False,
                    x_unit: str = "step") -> tuple[int, int]:
    """Read every run folder (explorer.core.runs.reading.load_run: any kind) and write their scalars to one CSV
    (:func:`write_records_csv`). Returns (rows, runs).

    Raises:
        ValueError: a folder is no run folder, or a run lacks ``x_unit``; OSError: a file cannot be read or the
        CSV written.
    """
    records = [load_run(p) for p in run_dirs]
    return write_records_csv(path, records, wide=wide, x_unit=x_unit), len(records)


def write_records_csv(path: str | Path, records: list, *, wide: bool = False, x_unit: str = "step") -> int:
    """The scalars of core.runs.reading.RunRecords in one CSV (:func:`write_wide_csv` when ``wide``, else
    :func:`write_long_csv`), with an ``x_unit`` column (explorer.core.runs.x_units.record_factors); the rows
    written. Raises ValueError (a run lacks the unit; nothing written) or OSError."""
    from explorer.core.runs.x_units import record_factors

    factors = record_factors(records, x_unit) if x_unit != "step" else {}
    write = write_wide_csv if wide else write_long_csv
    return write(path, [(r.run_id, r.events) for r in records], x_unit, factors)

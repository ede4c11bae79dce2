"""Many runs' scalars in one CSV (Qt-free, torch-free): ``bert-explorer runs --export-csv`` and the Runs list's
"Export scalars".

- :func:`write_long_csv`: ``run, step, name, value``, one row per scalar;
- :func:`write_wide_csv`: ``run, step`` and one column per scalar name;
- :func:`export_runs_csv`: read run folders of any kind (explorer.core.runs.reading.load_run) and write either.

Scalar names: explorer.core.runs.scalars.
"""

from __future__ import annotations

import csv
from pathlib import Path

from explorer.core.runs.reading import load_run
from explorer.core.runs.scalars import run_scalars

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
    """Read every run folder (explorer.core.runs.reading.load_run: any kind) and write their scalars to one CSV
    (:func:`write_wide_csv` when ``wide``, else :func:`write_long_csv`). Returns (rows, runs).

    Raises:
        ValueError: a folder is no run folder; OSError: a file cannot be read or the CSV written.
    """
    records = [load_run(p) for p in run_dirs]
    write = write_wide_csv if wide else write_long_csv
    return write(path, [(r.run_id, r.events) for r in records]), len(records)

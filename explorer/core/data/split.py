"""A seeded, stratified dev split of training rows, and its record in the run folder (``dev_split.csv``).

Stratified as scikit-learn's ``StratifiedShuffleSplit`` intends (each class keeps its share), written out
by hand so that every class with at least 2 rows keeps at least one in training and one in dev, and the
same seed gives the same split on every machine (numpy's ``default_rng``).
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from explorer.core.errors import ClassificationDataError


def class_dev_rows(n: int, fraction: float) -> int:
    """Rows of a class of ``n`` rows that the stratified split holds out: round(n * fraction), at least 1 when
    n >= 2, never all of them; 0 for a class of one row."""
    return min(max(round(n * fraction), 1), n - 1) if n >= 2 else 0


def random_dev_rows(n: int, fraction: float) -> int:
    """Rows the random split (rows without classes) holds out of ``n``: round(n * fraction), at least 1 and never
    all of them; 0 below 2 rows."""
    return min(max(1, round(n * fraction)), n - 1) if n >= 2 else 0


def held_out_rows(n: int, fraction: float, class_sizes=None) -> int:
    """The dev rows a run holds out of ``n`` training rows (after its Train cap), by the rule it splits with: the
    stratified split's per-class counts when ``class_sizes`` (rows per class of those ``n`` rows) is given, else
    the random split's. What the launcher's estimate says, so it is the count the run's log gives."""
    if fraction <= 0:
        return 0
    if class_sizes is not None:
        return sum(class_dev_rows(int(k), fraction) for k in class_sizes)
    return random_dev_rows(n, fraction)


def stratified_split(labels: list[int], fraction: float, seed: int, names: list[str] | None = None
                     ) -> tuple[list[int], list[tuple[str, str]]]:
    """(dev row indices sorted, notes). Per class c with n_c rows: round(n_c * fraction) rows go to dev, at
    least 1 when n_c >= 2, never all of them; a class with a single row stays in training (a warning says so).

    Args:
        labels: class id per row, shape (n,).
        fraction: share held out, in (0, 1).
        seed: the run's seed.
        names: class names for the notes (default: the ids).
    """
    y = np.asarray(labels, dtype=np.int64)
    rng = np.random.default_rng(seed)
    dev: list[int] = []
    notes: list[tuple[str, str]] = []
    thin = []
    for c in np.unique(y):
        rows = np.flatnonzero(y == c)
        k = class_dev_rows(len(rows), fraction)
        if k < 1 or len(rows) * fraction < 1:
            thin.append((names[c] if names and c < len(names) else str(c), len(rows)))
        dev.extend(int(i) for i in rng.permutation(rows)[:k])
    if thin:
        notes.append(("warning", "classes with fewer rows than a dev split of this size needs: "
                      + ", ".join(f"{n} ({k} row{'s' if k != 1 else ''})" for n, k in thin)
                      + "; their dev scores rest on one row or none"))
    return sorted(dev), notes


def random_split(n: int, fraction: float, seed: int) -> tuple[list[int], list[tuple[str, str]]]:
    """(dev row indices sorted, notes) for rows without classes (regression scores): round(n * fraction)
    rows drawn with the run's seed, at least 1 and never all of them when n >= 2.

    Args:
        n: rows; fraction: share held out, in (0, 1); seed: the run's seed.
    """
    if n < 2:
        return [], [("warning", f"{n} training row(s): too few to hold any out as dev")]
    k = random_dev_rows(n, fraction)
    rng = np.random.default_rng(seed)
    return sorted(int(i) for i in rng.permutation(n)[:k]), []


def write_dev_split(path: Path, data, dev_indices: list[int]) -> None:
    """``dev_split.csv``: one row per dev example: row_id (the id column, else the line), line, label."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow(["row_id", "line", "label"])
        for i in dev_indices:
            out.writerow([data.row_ids[i], data.lines[i], data.raw_labels[i]])
    tmp.replace(path)


def load_dev_split(path: Path, data) -> list[int]:
    """The row indices of ``data`` named in a ``dev_split.csv`` (by row_id and line).

    Raises:
        ClassificationDataError: a row of the file is not in the training data (it changed since).
    """
    where = {(rid, str(line)): i for i, (rid, line) in enumerate(zip(data.row_ids, data.lines))}
    out = []
    with open(path, newline="", encoding="utf-8") as fh:
        for n, row in enumerate(csv.DictReader(fh), start=2):
            key = (row.get("row_id", ""), row.get("line", ""))
            if key not in where:
                raise ClassificationDataError(f"{path} line {n}: row {key[0]!r} (line {key[1]}) is not in the "
                                              f"training data {data.source} any more; did the file change?")
            out.append(where[key])
    return sorted(out)

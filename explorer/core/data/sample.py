"""Seeded orders of rows whose every prefix is a stratified sample, and the training rows a Train cap keeps.

One order serves two readers: the dev rows an evaluation during training samples
(explorer.core.training.eval_plan) and the training rows a run with a Train cap trains on
(:func:`capped_rows`). A prefix of the order keeps every class in its share, and a shorter prefix lies inside a
longer one, so a smaller cap trains on a subset of a larger cap's rows.
"""

from __future__ import annotations

import numpy as np


def sample_order(labels, n_rows: int, seed: int = 0) -> np.ndarray:
    """A seeded order of ``n_rows`` dev rows whose every prefix is a stratified sample: the first k rows hold
    each class in its share of the whole (within one row), so the rows an evaluation samples are the same at
    every evaluation and a larger sample contains a smaller one.

    ``labels``: one class id per row (hashable), or None (multi-label, scores, spans: a seeded shuffle).
    Each class's rows are shuffled and spread evenly over [0, 1) (the j-th of n at (j + u) / n, u uniform in
    [0, 1)); sorting by that position interleaves the classes in proportion (systematic stratified sampling).
    Returns an int array, a permutation of range(n_rows).
    """
    rng = np.random.default_rng(seed)
    if labels is None or len(labels) != n_rows or n_rows == 0:
        return rng.permutation(n_rows)
    try:
        keys = np.asarray([hash(x) for x in labels])
    except TypeError:   # unhashable (a label set)
        return rng.permutation(n_rows)
    _, codes, counts = np.unique(keys, return_inverse=True, return_counts=True)
    shuffled = rng.permutation(n_rows)
    rows = shuffled[np.argsort(codes[shuffled], kind="stable")]       # class by class, shuffled within each
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    rank = np.arange(n_rows) - starts[codes[rows]]                     # j: the row's place within its class
    position = np.empty(n_rows)
    position[rows] = (rank + rng.random(n_rows)) / counts[codes[rows]]
    return np.argsort(position, kind="stable")


def capped_rows(n_rows: int, cap: int, seed: int, labels=None) -> list[int]:
    """The row indices (ascending: the file's order) a Train cap of ``cap`` keeps of ``n_rows`` training rows.

    ``labels``: one class id per row, for a class-stratified subset; None (scores, label sets): a seeded random
    subset. The rows are the first ``cap`` of :func:`sample_order`, with each class's first row there moved to
    the front, so every class keeps its share and, when ``cap`` is at least the number of classes, at least one
    row; the same seed gives the same rows, and a smaller cap's rows lie inside a larger cap's. ``cap`` <= 0 or
    >= ``n_rows``: every row.
    """
    if cap <= 0 or cap >= n_rows:
        return list(range(n_rows))
    order = sample_order(labels, n_rows, seed)
    if labels is not None and len(labels) == n_rows:
        seen: set = set()
        first = []
        for i in order:
            if labels[i] not in seen:
                seen.add(labels[i])
                first.append(int(i))
        chosen = set(first)
        order = np.concatenate([np.asarray(first, dtype=np.int64),
                                np.asarray([i for i in order if int(i) not in chosen], dtype=np.int64)])
    return sorted(int(i) for i in order[:cap])


def stratified_by_class(data) -> bool:
    """A capped subset of ``data`` (a ClassificationData) keeps each class's share: one class per row (not scores,
    not label sets)."""
    return not data.regression and not (data.labels and isinstance(data.labels[0], (list, tuple)))


def capped_rows_of(data, cap: int, seed: int, *, by_class: bool = True) -> list[int]:
    """The indices of ``data``'s rows (a ClassificationData read whole) a Train cap of ``cap`` keeps with ``seed``
    (the run's ``dev_split_seed``): :func:`capped_rows`, by class where :func:`stratified_by_class` (and
    ``by_class``: False for a multi-label run's file read with one label per row)."""
    labels = list(data.labels) if by_class and stratified_by_class(data) else None
    return capped_rows(len(data), cap, seed, labels)

"""k-fold cross-validation folds and out-of-fold predictions (scikit-learn; Qt- and torch-free).

:func:`cv_folds` assigns every labelled example to one of k dev folds: stratified by label
(sklearn.model_selection.StratifiedKFold, shuffled with the seed) for classification; grouped
(sklearn.model_selection.GroupKFold, shuffled with the seed) when ``groups`` is given - the article title for
SQuAD, so no passage is in two folds, or the user's ``--cv-group-column`` (one author, one target per fold).
A class with fewer rows than folds is allowed, as StratifiedKFold allows it: its rows go into as many folds'
held-out parts as it has rows, and the other folds' held-out parts lack it (:func:`rare_class_note` says so by
class name); folds are impossible only when every class has fewer rows than folds.
Fold i trains on every other fold and is scored on fold i; :func:`out_of_fold` puts the members' dev
predictions back in the input order, one per example, for one file in predict's format. The spread across
folds is core.metrics.significance.t_interval (mean ± sd, 95% t interval).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from explorer.core.errors import UserError


class CrossValidationError(UserError):
    """Folds that cannot be made: k below 2, more folds than examples, classes or groups."""


@dataclass(frozen=True)
class Fold:
    """Fold ``index`` (0-based): ``train`` and ``dev`` (sorted example indices into the input, disjoint)."""

    index: int
    train: np.ndarray
    dev: np.ndarray


def cv_folds(labels, k: int = 5, seed: int = 0, groups=None, class_names=None) -> list[Fold]:
    """k folds over the examples (n,): stratified by ``labels``, or grouped by ``groups`` (n,) when given.

    ``class_names``: the name of each class id in ``labels`` (messages name classes, never ids); None: the labels
    as written. A class with fewer than k examples is held out in as many folds as it has examples (sklearn's
    StratifiedKFold; :func:`rare_class_note` words it). Raises CrossValidationError: k < 2; fewer examples than
    k; with groups, fewer distinct groups than k; stratified, every class with fewer than k examples."""
    from sklearn.model_selection import GroupKFold, StratifiedKFold

    y = np.asarray(labels).ravel()
    n = len(y)
    if k < 2:
        raise CrossValidationError(f"--cv needs at least 2 folds (got {k})")
    if n < k:
        raise CrossValidationError(f"--cv {k}: only {n} labelled examples")
    if groups is not None:
        g = np.asarray([str(x) for x in groups])
        if len(g) != n:
            raise CrossValidationError(f"cross-validation: {len(g)} group values for {n} examples")
        distinct = len(set(g.tolist()))
        if distinct < k:
            raise CrossValidationError(f"--cv {k}: only {distinct} distinct groups (each group stays in one fold)")
        try:
            splitter = GroupKFold(n_splits=k, shuffle=True, random_state=seed)
        except TypeError:   # scikit-learn < 1.6: GroupKFold does not shuffle
            splitter = GroupKFold(n_splits=k)
        splits = list(splitter.split(np.zeros(n), y, g))
    else:
        problem = fold_class_problem(class_counts(y, class_names), k)
        if problem:
            raise CrossValidationError(problem)
        with warnings.catch_warnings():   # "The least populated class in y has only 1 members": said by name instead
            warnings.simplefilter("ignore", UserWarning)
            splits = list(StratifiedKFold(n_splits=k, shuffle=True, random_state=seed).split(np.zeros(n), y.astype(str)))
    return [Fold(i, np.sort(tr), np.sort(dv)) for i, (tr, dv) in enumerate(splits)]


def class_counts(labels, class_names=None) -> dict[str, int]:
    """Examples per class, by name (``class_names[id]`` for integer ids, else the label as written), in the sorted
    order of the labels as text."""
    values, counts = np.unique(np.asarray(labels).ravel().astype(str), return_counts=True)
    names = list(class_names or [])

    def name(v: str) -> str:
        return names[int(v)] if v.lstrip("-").isdigit() and 0 <= int(v) < len(names) else v

    return {name(v): int(c) for v, c in zip(values.tolist(), counts.tolist())}


def fold_class_problem(counts: dict[str, int], k: int) -> str | None:
    """Why stratified folds cannot be made from ``counts`` (class name -> examples) with ``k`` folds, or None.
    Only when every class has fewer examples than folds: some fold's held-out part would then be empty."""
    if not counts or max(counts.values()) >= k:
        return None
    big = max(counts, key=counts.get)
    return (f"--cv {k}: every class has fewer rows than the {k} folds (the largest, {big}, has {counts[big]}), so "
            f"some folds would hold out no row; use at most {counts[big]} folds" if counts[big] >= 2 else
            f"--cv {k}: every class has a single row, so folds stratified by label cannot be made; a group column "
            "(--cv-group-column) can fold such rows")


def _rows(c: int) -> str:
    return f"{c} row" if c == 1 else f"{c} rows"


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


RARE_NAMED = 6   # classes named in the note; more are counted


def rare_class_note(counts: dict[str, int], k: int) -> str:
    """A sentence on the classes of ``counts`` (name -> examples) with fewer examples than ``k`` folds, "" when
    there are none: "sad|disgust|angry has 1 row and sad|angry 2, fewer than the 3 folds: they are held out in only
    1 and 2 of the 3 folds; ..."; what that does to the per-fold and the pooled figures follows."""
    rare = sorted(((c, name) for name, c in counts.items() if 0 < c < k), key=lambda x: x[0])
    if not rare:
        return ""
    shown = rare[:RARE_NAMED]
    first_c, first = shown[0]
    parts = [f"{first} has {_rows(first_c)}"] + [f"{name} {c}" for c, name in shown[1:]]
    held = [str(c) for c, _ in shown]
    more = len(rare) - len(shown)
    if more:
        parts.append(f"{more} other classes {rare[len(shown)][0]} to {rare[-1][0]}")
        held.append(f"{rare[len(shown)][0]} to {rare[-1][0]}")
    one = len(rare) == 1
    text = (f"{_and(parts)}, fewer than the {k} folds: {'it is' if one else 'they are'} held out in only {_and(held)} of "
            f"the {k} folds; the other folds' held-out rows lack {'it' if one else 'them'}, so {'its' if one else 'their'} "
            "per-fold figures come from fewer folds (each fold's macro F1 averages over the classes in its held-out "
            "rows or its predictions), and the pooled out-of-fold figure counts each of "
            f"{'its' if one else 'their'} rows once")
    if any(c == 1 for c, _ in rare):
        text += "; a class with 1 row is absent from the training rows of the fold that holds it out"
    return text


# A fold's held-out rows below which its own figure means little: fewer than this many rows, or fewer than this many
# per class (on 4 rows one row moves accuracy 25 points, and folds' figures swing from 0 to 100%).
SMALL_FOLD_ROWS = 30
SMALL_FOLD_ROWS_PER_CLASS = 5


def small_fold_note(counts: dict[str, int], k: int) -> str:
    """A sentence when the ``k`` folds of ``counts`` (class name -> rows) hold out too few rows each for a fold's
    figure to mean much (under SMALL_FOLD_ROWS, or under SMALL_FOLD_ROWS_PER_CLASS times the classes), with what
    to do instead; "" otherwise."""
    rows = sum(c for c in counts.values() if c > 0)
    classes = sum(1 for c in counts.values() if c > 0)
    if not rows or k < 2:
        return ""
    per = rows // k
    need = max(SMALL_FOLD_ROWS, SMALL_FOLD_ROWS_PER_CLASS * classes)
    if per >= need:
        return ""
    held = f"{_rows(per)}" if rows % k == 0 else f"about {_rows(per)}"
    swing = f" (one row moves its accuracy {100 / per:.0f} points)" if per else ""
    return (f"Each of the {k} folds holds out {held} of the {rows:,}: a fold's figure on so few rows swings "
            f"widely{swing}, so the folds' mean ± sd says little (at least {need} rows a fold are wanted for "
            f"{classes} classes). Use fewer folds or more data, or quote the pooled out-of-fold figure, which "
            f"scores all {rows:,} rows once.")


def out_of_fold(folds: list[Fold], predictions: list[list[dict]], n: int) -> list[dict]:
    """The members' dev predictions (one list per fold, in that fold's ``dev`` order) back in input order,
    each row with its ``fold`` (1-based). Raises ValueError when a fold's count does not match or an example
    is predicted twice or never."""
    out: list[dict | None] = [None] * n
    for fold, rows in zip(folds, predictions):
        if len(rows) != len(fold.dev):
            raise ValueError(f"fold {fold.index + 1}: {len(rows)} predictions for {len(fold.dev)} dev examples")
        for i, row in zip(fold.dev.tolist(), rows):
            if out[i] is not None:
                raise ValueError(f"example {i} is in two folds' dev sets")
            out[i] = {**row, "fold": fold.index + 1}
    missing = [i for i, r in enumerate(out) if r is None]
    if missing:
        raise ValueError(f"{len(missing)} examples have no out-of-fold prediction (first: {missing[0]})")
    return out  # type: ignore[return-value]


def fold_disk_line(weights: int | None, k: int) -> str:
    """What K fold runs keep on disk, from the model's weight files (``weights`` bytes, fp32: 4 bytes a parameter;
    explorer.core.models.sources.weight_bytes): "each fold keeps checkpoints/last (model + optimizer state) and
    checkpoints/best: about 360 MB per fold, 1,800 MB for 5". Folds always save checkpoints (their final model
    predicts their held-out rows: cv_runs.fold_checkpoints). "" while the model's size is unknown."""
    from explorer.core.training.checkpoints import checkpoint_bytes, megabytes

    if not weights:
        return ""
    each = checkpoint_bytes(int(weights) // 4)["total"]
    return (f"each fold keeps checkpoints/last (model + optimizer state) and checkpoints/best: about "
            f"{megabytes(each)} per fold, {megabytes(each * int(k))} for {int(k)}")

"""k-fold cross-validation folds and out-of-fold predictions (scikit-learn; Qt- and torch-free).

:func:`cv_folds` assigns every labelled example to one of k dev folds: stratified by label
(sklearn.model_selection.StratifiedKFold, shuffled with the seed) for classification; grouped
(sklearn.model_selection.GroupKFold, shuffled with the seed) when ``groups`` is given - the article title for
SQuAD, so no passage is in two folds, or the user's ``--cv-group-column`` (one author, one target per fold).
Fold i trains on every other fold and is scored on fold i; :func:`out_of_fold` puts the members' dev
predictions back in the input order, one per example, for one file in predict's format. The spread across
folds is core.metrics.significance.t_interval (mean ± sd, 95% t interval).
"""

from __future__ import annotations

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


def cv_folds(labels, k: int = 5, seed: int = 0, groups=None) -> list[Fold]:
    """k folds over the examples (n,): stratified by ``labels``, or grouped by ``groups`` (n,) when given.

    Raises CrossValidationError: k < 2; fewer examples than k; with groups, fewer distinct groups than k;
    stratified, a class with fewer than k examples (sklearn would leave it out of some folds' dev)."""
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
        splits = splitter.split(np.zeros(n), y, g)
    else:
        values, counts = np.unique(y.astype(str), return_counts=True)
        small = [f"{v} ({c})" for v, c in zip(values, counts) if c < k]
        if small:
            raise CrossValidationError(f"--cv {k}: class {small[0]} has fewer examples than folds; "
                                       "use fewer folds or merge rare classes")
        splits = StratifiedKFold(n_splits=k, shuffle=True, random_state=seed).split(np.zeros(n), y.astype(str))
    return [Fold(i, np.sort(tr), np.sort(dv)) for i, (tr, dv) in enumerate(splits)]


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

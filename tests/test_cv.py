"""core/studies/cv.py: seeded stratified / grouped folds, each example in one dev fold; out-of-fold order."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.core.studies.cv import CrossValidationError, cv_folds, out_of_fold


def test_stratified_folds_cover_every_example_once_and_keep_the_class_shares():
    y = np.array(["a"] * 60 + ["b"] * 30 + ["c"] * 10)
    folds = cv_folds(y, 5, seed=1)
    dev = np.concatenate([f.dev for f in folds])
    assert sorted(dev.tolist()) == list(range(100))
    for f in folds:
        assert not set(f.train.tolist()) & set(f.dev.tolist()) and len(f.train) + len(f.dev) == 100
        assert (y[f.dev] == "a").sum() == 12 and (y[f.dev] == "c").sum() == 2
    again = cv_folds(y, 5, seed=1)
    assert all(np.array_equal(a.dev, b.dev) for a, b in zip(folds, again))
    assert any(not np.array_equal(a.dev, b.dev) for a, b in zip(folds, cv_folds(y, 5, seed=2)))


def test_grouped_folds_keep_each_article_in_one_fold():
    groups = [f"article{i // 7}" for i in range(70)]
    folds = cv_folds(np.zeros(70), 5, seed=0, groups=groups)
    where = {}
    for f in folds:
        for i in f.dev.tolist():
            where.setdefault(groups[i], set()).add(f.index)
    assert all(len(s) == 1 for s in where.values()) and len(where) == 10


def test_clear_errors():
    with pytest.raises(CrossValidationError, match="class b \\(2\\) has fewer examples than folds"):
        cv_folds(["a"] * 10 + ["b"] * 2, 5)
    with pytest.raises(CrossValidationError, match="only 3 distinct groups"):
        cv_folds(np.zeros(9), 5, groups=["x", "y", "z"] * 3)
    with pytest.raises(CrossValidationError, match="at least 2 folds"):
        cv_folds([0, 1], 1)


def test_out_of_fold_puts_rows_back_in_input_order():
    y = np.array([0, 1] * 10)
    folds = cv_folds(y, 4, seed=0)
    preds = [[{"predicted_label": str(i)} for i in f.dev.tolist()] for f in folds]
    rows = out_of_fold(folds, preds, 20)
    assert [r["predicted_label"] for r in rows] == [str(i) for i in range(20)]
    assert {r["fold"] for r in rows} == {1, 2, 3, 4}
    with pytest.raises(ValueError, match="fold 1: 0 predictions"):
        out_of_fold(folds, [[]] + preds[1:], 20)

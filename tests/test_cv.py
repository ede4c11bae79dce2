"""core/studies/cv.py: seeded stratified / grouped folds, each example in one dev fold; out-of-fold order."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.core.studies.cv import CrossValidationError, class_counts, cv_folds, out_of_fold, rare_class_note


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
    with pytest.raises(CrossValidationError, match="every class has fewer rows than the 5 folds \\(the largest, "
                                                   "pos, has 4\\).*use at most 4 folds"):
        cv_folds([0] * 3 + [1] * 4, 5, class_names=["neg", "pos"])
    with pytest.raises(CrossValidationError, match="every class has a single row"):
        cv_folds(["a", "b", "c"], 2)
    with pytest.raises(CrossValidationError, match="only 3 distinct groups"):
        cv_folds(np.zeros(9), 5, groups=["x", "y", "z"] * 3)
    with pytest.raises(CrossValidationError, match="at least 2 folds"):
        cv_folds([0, 1], 1)


def test_a_class_with_fewer_rows_than_folds_is_held_out_in_as_many_folds_as_it_has_rows():
    """As scikit-learn's StratifiedKFold: a 1-row class in one fold's held-out rows, a 2-row class in two; every
    row held out once; the other classes keep their shares."""
    y = np.array([0] * 30 + [1] * 15 + [2] + [3] * 2)
    folds = cv_folds(y, 3, seed=4, class_names=["happy", "sad", "sad|disgust|angry", "sad|angry"])
    assert sorted(np.concatenate([f.dev for f in folds]).tolist()) == list(range(len(y)))
    assert sorted(int((y[f.dev] == 2).sum()) for f in folds) == [0, 0, 1]
    assert sorted(int((y[f.dev] == 3).sum()) for f in folds) == [0, 1, 1]
    assert all((y[f.dev] == 0).sum() == 10 and (y[f.dev] == 1).sum() == 5 for f in folds)


def test_the_rare_class_note_names_the_classes_and_the_folds_that_hold_them_out():
    counts = class_counts([0] * 30 + [1] * 15 + [2] + [3] * 2, ["happy", "sad", "sad|disgust|angry", "sad|angry"])
    assert counts == {"happy": 30, "sad": 15, "sad|disgust|angry": 1, "sad|angry": 2}
    three = rare_class_note(counts, 3)
    assert three.startswith("sad|disgust|angry has 1 row and sad|angry 2, fewer than the 3 folds: they are held out "
                            "in only 1 and 2 of the 3 folds;")
    assert "macro F1 averages over the classes in its held-out rows or its predictions" in three
    assert three.endswith("a class with 1 row is absent from the training rows of the fold that holds it out")
    assert rare_class_note(counts, 2).startswith("sad|disgust|angry has 1 row, fewer than the 2 folds: it is held "
                                                 "out in only 1 of the 2 folds;")
    assert rare_class_note(counts, 1) == "" and rare_class_note({"a": 5, "b": 0}, 3) == ""


def test_out_of_fold_puts_rows_back_in_input_order():
    y = np.array([0, 1] * 10)
    folds = cv_folds(y, 4, seed=0)
    preds = [[{"predicted_label": str(i)} for i in f.dev.tolist()] for f in folds]
    rows = out_of_fold(folds, preds, 20)
    assert [r["predicted_label"] for r in rows] == [str(i) for i in range(20)]
    assert {r["fold"] for r in rows} == {1, 2, 3, 4}
    with pytest.raises(ValueError, match="fold 1: 0 predictions"):
        out_of_fold(folds, [[]] + preds[1:], 20)

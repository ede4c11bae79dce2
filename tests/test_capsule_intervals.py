"""The replication capsule's bootstrap intervals (explorer/core/studies/capsule_intervals.py): each headline
figure's interval over the run's kept dev rows is the one scipy.stats.bootstrap gives with scikit-learn's or
scipy's own figure on the same resamples; rows that are not the final evaluation's give no interval."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.core.runs.dev_outputs import DevOutputs, read_dev_outputs, write_dev_outputs
from explorer.core.studies.capsule_intervals import headline_intervals

RESAMPLES = 100


def _library_interval(statistic, *samples, seed=0):
    """scipy.stats.bootstrap with a per-resample library statistic, drawn as the capsule draws."""
    from scipy.stats import bootstrap

    res = bootstrap(samples, statistic, paired=True, vectorized=False, n_resamples=RESAMPLES, batch=200,
                    method="percentile", random_state=np.random.default_rng(seed))
    return res.confidence_interval.low, res.confidence_interval.high


def _classifier_rows(tmp_path, n=60, k=3, seed=3):
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, k, n)
    logits = rng.normal(size=(n, k))
    logits[np.arange(n), gold] += 1.0          # better than chance, not perfect
    write_dev_outputs(tmp_path, DevOutputs(kind="classes", gold=gold.tolist(), logits=logits.tolist(),
                                           label_names=["AGAINST", "FAVOR", "NONE"]))
    return gold, logits.argmax(axis=1)


def test_classifier_intervals_match_scikit_learn_on_the_same_resamples(tmp_path):
    from sklearn.metrics import accuracy_score, f1_score, matthews_corrcoef

    gold, pred = _classifier_rows(tmp_path)
    assert read_dev_outputs(tmp_path).n == 60
    figures = {"accuracy": accuracy_score(gold, pred), "macro_f1": f1_score(gold, pred, average="macro"),
               "matthews_corrcoef": matthews_corrcoef(gold, pred),
               "f_avg": f1_score(gold, pred, labels=[0, 1], average="macro"), "loss": 0.9}
    found, note = headline_intervals(tmp_path, figures, 60, f1_classes=("AGAINST", "FAVOR"), resamples=RESAMPLES)
    assert note == "" and set(found) == {"accuracy", "macro_f1", "matthews_corrcoef", "f_avg"}
    library = {"accuracy": lambda g, p: np.mean(g == p),
               "macro_f1": lambda g, p: f1_score(g, p, labels=[0, 1, 2], average="macro", zero_division=0),
               "matthews_corrcoef": matthews_corrcoef,
               "f_avg": lambda g, p: f1_score(g, p, labels=[0, 1], average="macro", zero_division=0)}
    for name, fn in library.items():
        low, high = _library_interval(lambda g, p, fn=fn: fn(g, p), gold, pred)
        assert found[name].value == pytest.approx(figures[name], abs=1e-9)
        assert (found[name].low, found[name].high) == pytest.approx((low, high), abs=1e-9), name
        assert found[name].low < found[name].value < found[name].high


def test_regression_intervals_match_scipy_on_the_same_resamples(tmp_path):
    from scipy.stats import pearsonr, spearmanr

    rng = np.random.default_rng(5)
    gold = rng.uniform(0, 5, 40)
    scores = gold + rng.normal(0, 1.2, 40)
    write_dev_outputs(tmp_path, DevOutputs(kind="scores", gold=gold.tolist(), scores=scores.tolist()))
    figures = {"pearson": pearsonr(scores, gold)[0], "spearman": spearmanr(scores, gold)[0], "mse": 1.0}
    found, note = headline_intervals(tmp_path, figures, 40, resamples=RESAMPLES)
    assert note == "" and set(found) == {"pearson", "spearman"}
    for name, fn in (("pearson", pearsonr), ("spearman", spearmanr)):
        low, high = _library_interval(lambda g, s, fn=fn: fn(g, s)[0], gold, scores)
        assert (found[name].low, found[name].high) == pytest.approx((low, high), abs=1e-9), name


def test_rows_of_another_evaluation_give_no_interval(tmp_path):
    gold, pred = _classifier_rows(tmp_path)
    found, note = headline_intervals(tmp_path, {"accuracy": 0.5}, 59, resamples=RESAMPLES)
    assert found == {} and "not the final evaluation's" in note
    right = float(np.mean(gold == pred))
    found, note = headline_intervals(tmp_path, {"accuracy": right, "macro_f1": 0.123}, 60, resamples=RESAMPLES)
    assert set(found) == {"accuracy"} and "macro_f1" in note and "differ" in note
    found, note = headline_intervals(tmp_path / "none", {"accuracy": right}, 60)
    assert found == {} and "dev_outputs.json" in note

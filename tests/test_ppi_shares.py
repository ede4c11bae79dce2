"""Class shares of a predicted file (explorer/core/metrics/ppi.py, `bert-explorer shares`): naive and
prediction-powered intervals against ppi-python and the published closed form on the same numbers, the reviewed
rows a width needs, a random review sample kept in the review, and coverage by simulation on the stance data."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import norm

from explorer.core.metrics.ppi import SharesError, class_shares, draw_sample, power_lambda, rows_for_width

NAMES = ["a", "b", "c"]


def _population(seed=0, n=3000, reviewed=250):
    """A model that over-predicts "a": true labels, predicted labels, gold shown on a random sample only."""
    rng = np.random.default_rng(seed)
    true = rng.choice(3, n, p=[0.5, 0.3, 0.2])
    pred = np.where(rng.random(n) < 0.7, true, 0)
    sample = rng.choice(n, reviewed, replace=False)
    gold = np.full(n, "", dtype=object)
    gold[sample] = np.asarray(NAMES)[true[sample]]
    return np.asarray(NAMES)[true], np.asarray(NAMES)[pred], gold, sample


def test_intervals_are_ppi_pythons_and_the_closed_form_on_the_same_numbers():
    from ppi_py import classical_mean_ci, ppi_mean_ci

    true, pred, gold, sample = _population()
    report = class_shares(pred.tolist(), gold.tolist(), NAMES)
    reviewed = gold != ""
    z = norm.ppf(0.975)
    for c in report.classes:
        y = (gold[reviewed] == c.label).astype(float)
        yhat = (pred[reviewed] == c.label).astype(float)
        yhat_u = (pred[~reviewed] == c.label).astype(float)
        # ppi-python's own power tuning (lam=None) gives the same interval as ours
        low, high = (float(np.ravel(v)[0]) for v in ppi_mean_ci(y, yhat, yhat_u, alpha=0.05))
        assert (c.corrected.low, c.corrected.high) == pytest.approx((low, high), abs=1e-12)
        # the closed form with that λ, by hand
        lam = c.lam
        point = lam * yhat_u.mean() + (y - lam * yhat).mean()
        half = z * math.sqrt(lam ** 2 * yhat_u.var() / len(yhat_u) + (y - lam * yhat).var() / len(y))
        assert c.corrected.estimate == pytest.approx(point)
        assert (c.corrected.low, c.corrected.high) == pytest.approx((point - half, point + half), rel=1e-6)
        # naive: the predicted labels of every row counted as a mean; gold: the reviewed rows alone
        all_pred = (pred == c.label).astype(float)
        assert (c.naive.low, c.naive.high) == pytest.approx(tuple(float(np.ravel(v)[0]) for v in
                                                                  classical_mean_ci(all_pred, alpha=0.05)))
        assert c.naive.estimate == pytest.approx(all_pred.mean())
        assert c.gold.estimate == pytest.approx(y.mean())
    # the model over-predicts "a": the naive share is far above the truth, the corrected one covers it
    a = report.classes[0]
    truth = float(np.mean(true == "a"))
    assert a.naive.low > truth + 0.05 and a.corrected.low <= truth <= a.corrected.high


def test_lambda_is_ppi_pythons_power_tuning():
    from ppi_py import ppi_mean_ci

    _, pred, gold, _ = _population(seed=3)
    reviewed = gold != ""
    y = (gold[reviewed] == "b").astype(float)
    yhat = (pred[reviewed] == "b").astype(float)
    yhat_u = (pred[~reviewed] == "b").astype(float)
    lam = power_lambda(y, yhat, yhat_u)
    assert 0 < lam < 1
    ours = ppi_mean_ci(y, yhat, yhat_u, alpha=0.05, lam=lam)
    theirs = ppi_mean_ci(y, yhat, yhat_u, alpha=0.05)
    assert np.allclose(np.ravel(ours), np.ravel(theirs))
    assert not np.allclose(np.ravel(ppi_mean_ci(y, yhat, yhat_u, alpha=0.05, lam=1.0)), np.ravel(theirs))


def test_rows_for_width_is_the_closed_form_against_ppi_python():
    from ppi_py import ppi_mean_ci

    _, pred, gold, _ = _population(seed=5, reviewed=400)
    reviewed = gold != ""
    y = (gold[reviewed] == "a").astype(float)
    yhat = (pred[reviewed] == "a").astype(float)
    yhat_u = (pred[~reviewed] == "a").astype(float)
    low, high = (float(np.ravel(v)[0]) for v in ppi_mean_ci(y, yhat, yhat_u, alpha=0.05, lam=1.0))
    width_now = high - low
    # asking for today's width needs today's rows; twice as narrow needs more than four times... as the form says
    assert rows_for_width(y, yhat, len(yhat_u), yhat_u.var(), width_now) == pytest.approx(len(y), abs=1)
    need = rows_for_width(y, yhat, len(yhat_u), yhat_u.var(), width_now / 2)
    z = norm.ppf(0.975)
    expected = (y - yhat).var() / ((width_now / 4 / z) ** 2 - yhat_u.var() / len(yhat_u))
    assert need == math.ceil(expected) and need > 4 * len(y)
    # narrower than the unreviewed rows alone allow: no number of reviewed rows reaches it
    tiny = 2 * z * math.sqrt(yhat_u.var() / len(yhat_u)) * 0.9
    assert rows_for_width(y, yhat, len(yhat_u), yhat_u.var(), tiny) is None


def test_shares_refuse_too_few_reviewed_rows_and_unknown_labels():
    with pytest.raises(SharesError, match="at least 2 reviewed"):
        class_shares(["a", "b", "a"], ["a", "", ""], NAMES)
    with pytest.raises(SharesError, match="'z' is not a class"):
        class_shares(["a", "b", "a"], ["a", "z", ""], NAMES)
    with pytest.raises(SharesError, match="1 to 3"):
        draw_sample(3, 4)
    assert draw_sample(100, 10, seed=1) == draw_sample(100, 10, seed=1) != draw_sample(100, 10, seed=2)


def _predictions_file(tmp_path):
    true, pred, gold, _ = _population(n=400, reviewed=1)
    path = tmp_path / "pred.csv"
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["text", "predicted_label", "p_a", "p_b", "p_c", "margin"])
        for i, p in enumerate(pred):
            w.writerow([f"t{i}"] + [p] + [f"{float(p == x):.1f}" for x in NAMES] + ["1.0"])
    return path, true, pred


def test_cli_draws_a_sample_then_reports_naive_and_corrected_side_by_side(tmp_path):
    from helpers import run_cli

    from explorer.core.predict.review import Review, load_predictions

    path, true, pred = _predictions_file(tmp_path)
    p = run_cli(["shares", str(path)])
    assert p.returncode == 2 and "--draw N" in p.stderr
    p = run_cli(["shares", str(path), "--draw", "60", "--seed", "4", "--json"])
    assert p.returncode == 0, p.stderr[-2000:]
    rows = json.loads(p.stdout)["sample"]
    assert rows == [i + 1 for i in draw_sample(400, 60, seed=4)]
    review = Review.load(path)
    assert review.sample == [r - 1 for r in rows]
    for i in review.sample[:50]:            # a person labels 50 of the 60 drawn rows
        review.set_label(i, str(true[i]))
    review.save()
    p = run_cli(["shares", str(path), "--json", "--width", "0.1"])
    assert p.returncode == 0, p.stderr[-2000:]
    doc = json.loads(p.stdout)
    assert doc["n_reviewed"] == 50 and any("50 of the 60" in n for n in doc["notes"])
    gold = [""] * 400
    for i in review.sample[:50]:
        gold[i] = str(true[i])
    expected = class_shares(load_predictions(path).column("predicted_label"), gold, NAMES, width=0.1).to_dict()
    assert doc["classes"] == expected["classes"]
    text = run_cli(["shares", str(path)]).stdout
    assert "naive (predicted labels)" in text and "prediction-powered" in text


@pytest.mark.real_data
@pytest.mark.slow
def test_corrected_intervals_cover_the_true_share_on_the_stance_data(real_data):
    """500 draws of 300 reviewed tweets (seed 0) from the SemEval-2016 stance data, labelled by a cheap
    out-of-fold model (accuracy about 0.6, over-predicting AGAINST): the 95% prediction-powered intervals cover
    each class's true share in at least 93% of the draws; the naive ones, which count the model's labels as
    right, almost never do."""
    root = real_data   # the shared data folder (conftest: skips when EXPLORER_REAL_DATA is unset or missing)
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
    from bench_ppi_coverage import coverage

    r = coverage(Path(root) / "stance_semeval2016" / "train.txt", draws=500, reviewed=300, seed=0)
    assert min(r["corrected coverage"].values()) >= 0.93, r["corrected coverage"]
    assert max(r["naive coverage"].values()) <= 0.5, r["naive coverage"]
    assert r["corrected mean width"] < r["gold mean width"]

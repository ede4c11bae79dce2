"""core/metrics/significance.py against hand-computed and library values on small tables."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import f1_score

from explorer.core.metrics import significance as S


def test_mcnemar_10_vs_2_discordant_pairs():
    r = S.mcnemar_from_counts(10, 2)
    assert r.p == pytest.approx(0.0386, abs=5e-5)   # 2 * P(X <= 2), X ~ Bin(12, 0.5) = 2 * 79 / 4096
    assert r.p == pytest.approx(2 * 79 / 4096)
    a = np.array([1] * 10 + [0] * 2 + [1] * 5 + [0] * 3, bool)   # 10 only A, 2 only B, 5 both, 3 neither
    b = np.array([0] * 10 + [1] * 2 + [1] * 5 + [0] * 3, bool)
    assert S.mcnemar_exact(a, b) == r
    assert S.mcnemar_from_counts(0, 0).p == 1.0
    with pytest.raises(ValueError, match="same examples"):
        S.mcnemar_exact([1, 0], [1])


def test_cohen_kappa_textbook_2x2():
    # 50 items: both yes 20, A yes/B no 5, A no/B yes 10, both no 15 -> po 0.7, pe 0.5, kappa 0.4
    a = ["yes"] * 20 + ["yes"] * 5 + ["no"] * 10 + ["no"] * 15
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    assert S.cohen_kappa(a, b) == pytest.approx(0.4)
    assert S.cohen_kappa([1, 2, 3], [1, 2, 3]) == pytest.approx(1.0)


def test_krippendorff_alpha_perfect_and_hand_value():
    assert S.krippendorff_alpha({"x": ["a", "b", "a", "b"], "y": ["a", "b", "a", "b"]}) == pytest.approx(1.0)
    # two coders, 4 units, one disagreement: nominal alpha = 1 - (n-1) * D_o / D_e with pairable values
    # n = 8 values; o_ab = o_ba = 1, o_aa = 4 (units 1,3 agree 'a'? see below), computed by hand:
    x, y = ["a", "a", "b", "b"], ["a", "b", "b", "b"]
    # coincidences: aa 2, ab 1, ba 1, bb 4; n_a 3, n_b 5, n 8 -> D_o = 2/8, D_e = 2*3*5/(8*7)
    expected = 1 - (2 / 8) / (2 * 3 * 5 / (8 * 7))
    assert S.krippendorff_alpha({"x": x, "y": y}) == pytest.approx(expected)
    with_missing = S.krippendorff_alpha({"x": x + [None], "y": y + ["a"]})   # a lone value is not pairable
    assert with_missing == pytest.approx(expected)
    with pytest.raises(ValueError, match="at least two"):
        S.krippendorff_alpha({"x": x})


def test_agreement_table_has_pairs_model_and_alpha():
    rows = S.agreement_table({"ann1": ["a", "b", "a"], "ann2": ["a", "b", "b"]}, model=["a", "b", "a"])
    pairs = [r["pair"] for r in rows]
    assert pairs == ["ann1 vs ann2", "ann1 vs model", "ann2 vs model", "all annotators"]
    assert rows[1]["kappa"] == pytest.approx(1.0)


def test_bootstrap_mean_seeded_reproducible_and_sensible():
    rng = np.random.default_rng(1)
    a = (rng.random(400) < 0.70).astype(float)
    b = np.where(rng.random(400) < 0.15, 1.0, a)                 # B = A plus some extra right answers
    r1 = S.paired_bootstrap_mean(a, b, metric="accuracy", resamples=2000, seed=7)
    r2 = S.paired_bootstrap_mean(a, b, metric="accuracy", resamples=2000, seed=7)
    assert r1 == r2
    assert r1.difference == pytest.approx(b.mean() - a.mean())
    assert 0 < r1.low < r1.difference < r1.high
    c = rng.random(400)
    assert S.paired_bootstrap_mean(a, c, resamples=500, seed=8).low != S.paired_bootstrap_mean(a, c, resamples=500, seed=9).low
    same = S.paired_bootstrap_mean(a, a, resamples=200)
    assert same.low == same.high == 0.0 and same.contains_zero


def test_bootstrap_mean_matches_the_python_loop_form():
    rng = np.random.default_rng(2)
    a, b = rng.random(50), rng.random(50)
    fast = S.paired_bootstrap_mean(a, b, resamples=300, seed=3, chunk=300, method="indices")
    slow = S.paired_bootstrap(lambda idx, v: v[idx].mean(), a, b, resamples=300, seed=3)
    # same generator, same draws in the same order (one (300, 50) matrix vs 300 rows of 50)
    assert fast.low == pytest.approx(slow.low) and fast.high == pytest.approx(slow.high)


def test_bootstrap_macro_f1_agrees_with_sklearn():
    rng = np.random.default_rng(4)
    gold = rng.integers(0, 3, 120)
    pa = np.where(rng.random(120) < 0.6, gold, rng.integers(0, 3, 120))
    pb = np.where(rng.random(120) < 0.8, gold, rng.integers(0, 3, 120))
    r = S.paired_bootstrap_macro_f1(gold, pa, pb, resamples=60, seed=5)
    assert r.value_a == pytest.approx(f1_score(gold, pa, average="macro"))
    assert r.value_b == pytest.approx(f1_score(gold, pb, average="macro"))
    slow = S.paired_bootstrap(lambda idx, p: f1_score(gold[idx], p[idx], average="macro", labels=[0, 1, 2],
                                                      zero_division=0), pa, pb, resamples=60, seed=5)
    fast = S.paired_bootstrap_macro_f1(gold, pa, pb, resamples=60, seed=5, chunk=60, method="indices")
    assert fast.low == pytest.approx(slow.low) and fast.high == pytest.approx(slow.high)


def test_bootstrap_counts_form_has_the_distribution_of_the_index_form():
    """Multinomial counts of the distinct outcomes are the index bootstrap's distribution: with many
    resamples both forms give the same interval up to Monte Carlo error (SE of a 2.5% quantile of 20,000
    draws is about 0.1 of the interval's scale here), for 0/1 accuracy and for macro F1."""
    rng = np.random.default_rng(11)
    a = (rng.random(300) < 0.70).astype(float)
    b = np.where(rng.random(300) < 0.10, 1.0, a)
    by_counts = S.paired_bootstrap_mean(a, b, resamples=20_000, seed=1, method="counts")
    by_index = S.paired_bootstrap_mean(a, b, resamples=20_000, seed=2, method="indices")
    assert S.paired_bootstrap_mean(a, b, resamples=100, seed=1) == S.paired_bootstrap_mean(
        a, b, resamples=100, seed=1, method="counts")            # 3 distinct differences: auto draws counts
    assert by_counts.difference == by_index.difference == pytest.approx(b.mean() - a.mean())
    assert by_counts.low == pytest.approx(by_index.low, abs=0.004)
    assert by_counts.high == pytest.approx(by_index.high, abs=0.004)
    gold = rng.integers(0, 3, 300)
    pa = np.where(rng.random(300) < 0.6, gold, rng.integers(0, 3, 300))
    pb = np.where(rng.random(300) < 0.75, gold, rng.integers(0, 3, 300))
    f_counts = S.paired_bootstrap_macro_f1(gold, pa, pb, resamples=20_000, seed=3, method="counts")
    f_index = S.paired_bootstrap_macro_f1(gold, pa, pb, resamples=20_000, seed=4, method="indices")
    assert f_counts.value_b == pytest.approx(f1_score(gold, pb, average="macro"))
    assert f_counts.low == pytest.approx(f_index.low, abs=0.008)
    assert f_counts.high == pytest.approx(f_index.high, abs=0.008)
    assert f_counts.low > 0                                       # B is clearly better here
    with pytest.raises(ValueError, match="method must be one of"):
        S.paired_bootstrap_mean(a, b, method="fast")


def test_t_interval_by_hand():
    r = S.t_interval([80.0, 82.0, 84.0])      # mean 82, sd 2, t_{0.975,2} = 4.302653
    assert r.mean == 82.0 and r.sd == pytest.approx(2.0)
    half = 4.302652729911275 * 2.0 / math.sqrt(3)
    assert r.low == pytest.approx(82 - half) and r.high == pytest.approx(82 + half)
    assert "95% interval 77.03 to 86.97 (n 3)" in r.text()
    assert S.t_interval([5.0]).n == 1 and math.isnan(S.t_interval([5.0]).low)
    assert S.t_interval([]).text() == "-"


def test_welch_matches_scipy_and_hand_df():
    from scipy.stats import ttest_ind

    a, b = [80.0, 81.0, 82.0], [83.0, 85.0, 87.0, 86.0]
    r = S.welch_test(a, b)
    ref = ttest_ind(b, a, equal_var=False)
    assert r.p == pytest.approx(ref.pvalue) and r.t == pytest.approx(ref.statistic)
    assert r.difference == pytest.approx(np.mean(b) - 81.0)
    va, vb = np.var(a, ddof=1) / 3, np.var(b, ddof=1) / 4
    assert r.df == pytest.approx((va + vb) ** 2 / (va**2 / 2 + vb**2 / 3))
    assert math.isnan(S.welch_test([1.0], [2.0, 3.0]).p)


def test_difference_in_words():
    boot = S.BootstrapResult("f1", 0.80, 0.823, 0.023, 0.008, 0.039, 0.95, 10000, 0, 300)
    assert S.difference_in_words(boot, label="F1", p=0.004, p_for="exact match") == \
        "B is better by 2.3 F1 points, 95% interval 0.8 to 3.9; p = 0.004 for exact match"
    worse = S.BootstrapResult("f1", 0.823, 0.80, -0.023, -0.039, -0.008, 0.95, 10000, 0, 300)
    assert S.difference_in_words(worse, label="F1").startswith("A is better by 2.3 F1 points, 95% interval 0.8 to 3.9")
    none = S.BootstrapResult("f1", 0.80, 0.804, 0.004, -0.011, 0.019, 0.95, 10000, 0, 300)
    assert S.difference_in_words(none, label="F1").startswith("no detectable difference in F1")


def test_an_interval_that_touches_zero_says_so_with_the_rows_only_one_model_got_right():
    touching = S.BootstrapResult("accuracy", 0.80, 0.821, 0.021, -0.0004, 0.071, 0.95, 10000, 0, 100)
    text = S.difference_in_words(touching, label="accuracy", mcnemar=S.McNemarResult(only_a=0, only_b=2, p=0.5))
    assert text == ("no detectable difference in accuracy at the 95% level (B - A = +2.1 points; interval 0.0 to 7.1 "
                    "touches 0); B was right on 2 rows A got wrong and never the other way")
    assert S.discordant_in_words(S.McNemarResult(only_a=3, only_b=1, p=0.6)) == \
        "A was right on 3 rows B got wrong, B on 1 row A got wrong"
    # the same comparison with A and B swapped: its end at 0 fell just below 0 (its percentile is no exact
    # negative of the other's): the verdict is the same, never "A is better"
    swapped = S.BootstrapResult("accuracy", 0.821, 0.80, -0.021, -0.071, -0.0003, 0.95, 10000, 0, 100)
    text = S.difference_in_words(swapped, label="accuracy", mcnemar=S.McNemarResult(only_a=2, only_b=0, p=0.5))
    assert text.startswith("no detectable difference in accuracy at the 95% level (B - A = -2.1 points; interval "
                           "-7.1 to 0.0 touches 0)"), text
    lifted = S.BootstrapResult("accuracy", 0.80, 0.821, 0.021, 0.0003, 0.071, 0.95, 10000, 0, 100)
    assert S.difference_in_words(lifted, label="accuracy").startswith("no detectable difference"), "an end of +0.0"
    wide = S.BootstrapResult("f1", 0.80, 0.804, 0.004, -0.011, 0.019, 0.95, 10000, 0, 300)
    assert "touches" not in S.difference_in_words(wide, label="F1", mcnemar=S.McNemarResult(1, 2, 1.0))


@pytest.mark.parametrize("method", ["counts", "indices"])
def test_swapping_a_and_b_mirrors_the_bootstrap_interval_exactly(method):
    """B vs A is the mirror of A vs B: the same resamples, the interval's ends negated and swapped, so the verdict
    in words is the same either way (281 dev rows, 17 only A got right and 31 only B: one order's interval ended
    at 0.4 points, the other's at 0.0, and only one said "better")."""
    rng = np.random.default_rng(3)
    gold = rng.integers(0, 3, 281)
    right_a = np.r_[np.ones(17), np.zeros(31), np.ones(150), np.zeros(83)].astype(bool)
    right_b = np.r_[np.zeros(17), np.ones(31), np.ones(150), np.zeros(83)].astype(bool)
    ab = S.paired_bootstrap_mean(right_a, right_b, metric="accuracy", method=method)
    ba = S.paired_bootstrap_mean(right_b, right_a, metric="accuracy", method=method)
    assert (ba.low, ba.high, ba.difference) == (-ab.high, -ab.low, -ab.difference)
    assert (ba.value_a, ba.value_b) == (ab.value_b, ab.value_a)
    words_ab = S.difference_in_words(ab, label="accuracy", name_a="x", name_b="y")
    words_ba = S.difference_in_words(ba, label="accuracy", name_a="y", name_b="x")
    assert words_ab.split(" ")[:3] == words_ba.split(" ")[:3]
    pred_a = np.where(right_a, gold, (gold + 1) % 3)
    pred_b = np.where(right_b, gold, (gold + 2) % 3)
    ab = S.paired_bootstrap_macro_f1(gold, pred_a, pred_b, method=method)
    ba = S.paired_bootstrap_macro_f1(gold, pred_b, pred_a, method=method)
    assert (ba.low, ba.high, ba.difference) == (-ab.high, -ab.low, -ab.difference)


# -- the same numbers through scipy / scikit-learn --------------------------------------------------------------
@pytest.mark.parametrize(("only_a", "only_b"), [(10, 2), (0, 7), (31, 29), (120, 95), (1, 1)])
def test_mcnemar_is_scipys_two_sided_exact_binomial_test(only_a, only_b):
    from scipy.stats import binomtest

    assert S.mcnemar_from_counts(only_a, only_b).p == pytest.approx(
        binomtest(only_b, only_a + only_b, 0.5, alternative="two-sided").pvalue, rel=1e-9)


def test_cohen_kappa_is_sklearns():
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(6)
    a = rng.choice(["FAVOR", "AGAINST", "NONE"], 150).tolist()
    b = [x if r < 0.7 else y for x, y, r in zip(a, rng.choice(["FAVOR", "AGAINST", "NONE"], 150), rng.random(150))]
    assert S.cohen_kappa(a, b) == pytest.approx(cohen_kappa_score(a, b))


def test_t_interval_is_scipys_student_t_interval():
    from scipy import stats

    values = [0.712, 0.695, 0.731, 0.704, 0.688]
    r = S.t_interval(values, level=0.9)
    low, high = stats.t.interval(0.9, len(values) - 1, loc=np.mean(values), scale=stats.sem(values))
    assert (r.low, r.high) == pytest.approx((low, high))


def test_paired_mean_difference_interval_is_scipys_paired_percentile_bootstrap():
    """Drawn as index matrices from the same seed, the resamples are scipy.stats.bootstrap's own."""
    from scipy.stats import bootstrap

    rng = np.random.default_rng(11)
    a = (rng.random(300) < 0.7).astype(float)
    b = np.where(rng.random(300) < 0.1, 1.0, a)
    got = S.paired_bootstrap_mean(a, b, resamples=500, seed=3, method="indices", chunk=500)
    ref = bootstrap((a, b), lambda x, y, axis=-1: (y - x).mean(axis=axis), paired=True, vectorized=True,
                    n_resamples=500, method="percentile", random_state=np.random.default_rng(3))
    assert (got.low, got.high) == pytest.approx((ref.confidence_interval.low, ref.confidence_interval.high))


@pytest.mark.parametrize("name", ["matthews_corrcoef", "f_avg"])
def test_paired_confusion_difference_interval_is_scipys_bootstrap_of_sklearn(name):
    """MCC and SemEval's F_avg (mean F1 of chosen classes) differences: the figures are
    scikit-learn's and the interval scipy.stats.bootstrap's percentile interval on the same draws."""
    from scipy.stats import bootstrap
    from sklearn.metrics import f1_score, matthews_corrcoef

    from explorer.core.classify.compare import CONFUSION_SCORES

    chosen = (1, 2)
    reference = {"matthews_corrcoef": matthews_corrcoef,
                 "f_avg": lambda g, p: f1_score(g, p, labels=list(chosen), average="macro", zero_division=0)}[name]
    rng = np.random.default_rng(12)
    gold = rng.integers(0, 3, 200)
    pa = np.where(rng.random(200) < 0.6, gold, rng.integers(0, 3, 200))
    pb = np.where(rng.random(200) < 0.75, gold, rng.integers(0, 3, 200))
    got = S.paired_bootstrap_confusion(lambda c: CONFUSION_SCORES[name](c, chosen), gold, pa, pb, labels=[0, 1, 2],
                                       resamples=40, seed=5, method="indices", chunk=40)
    assert (got.value_a, got.value_b) == pytest.approx((reference(gold, pa), reference(gold, pb)))
    ref = bootstrap((gold, pa, pb), lambda g, x, y: reference(g, y) - reference(g, x), paired=True,
                    vectorized=False, n_resamples=40, method="percentile", random_state=np.random.default_rng(5))
    assert (got.low, got.high) == pytest.approx((ref.confidence_interval.low, ref.confidence_interval.high))

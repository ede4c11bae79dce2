"""The statistics behind the learning curve and the bag-of-words baseline, checked against scipy and
scikit-learn on the same numbers: the inverse power law fit, a dev figure's bootstrap interval, the TF-IDF
baselines."""

import numpy as np
import pytest

from explorer.core.metrics.bag_of_words import LOGISTIC, ONE_VS_REST, RIDGE, fit_bag_of_words
from explorer.core.metrics.intervals import confusion_interval, confusions, correlation_interval
from explorer.core.metrics.power_law import CurveFitError, fit_power_law, inverse_power_law


# -- the fitted curve ------------------------------------------------------------------------------
def test_power_law_recovers_exact_points_and_predicts_the_next_doubling():
    sizes = np.array([250, 500, 1000, 2000])
    values = inverse_power_law(sizes, 3.0, 0.5, 0.8)
    fit = fit_power_law(sizes, values, ceiling=1.0)
    assert fit.params == pytest.approx((3.0, 0.5, 0.8), rel=1e-4)
    value, _ = fit.predict(4000)
    assert value == pytest.approx(0.8 - 3.0 * 4000 ** -0.5, rel=1e-6)


def test_power_law_fit_and_its_covariance_equal_curve_fit_on_the_same_numbers():
    from scipy.optimize import curve_fit

    sizes = np.array([300.0, 600, 1200, 2400])
    values = np.array([0.52, 0.58, 0.63, 0.655])
    sigma = np.array([0.03, 0.025, 0.02, 0.02])
    fit = fit_power_law(sizes, values, sigma, ceiling=1.0)
    p, cov = curve_fit(inverse_power_law, sizes, values, p0=fit.params, sigma=sigma, absolute_sigma=True,
                       bounds=([0, 0, -np.inf], [np.inf, 2, 1.0]))
    assert fit.params == pytest.approx(tuple(p), rel=1e-3)
    assert np.allclose(fit.covariance, cov, rtol=1e-2)


def test_the_prediction_error_is_the_delta_method_of_the_parameter_covariance():
    sizes = np.array([300.0, 600, 1200, 2400])
    fit = fit_power_law(sizes, [0.52, 0.58, 0.63, 0.655], [0.03, 0.025, 0.02, 0.02], ceiling=1.0)
    p = np.array(fit.params)
    grad = []
    for i in range(3):      # central differences of the curve at n = 4800 in each parameter
        h = np.zeros(3)
        h[i] = 1e-6 * max(1.0, abs(p[i]))
        grad.append((inverse_power_law(4800.0, *(p + h)) - inverse_power_law(4800.0, *(p - h))) / (2 * h[i]))
    grad = np.array(grad)
    value, se = fit.predict(4800.0)
    assert value == pytest.approx(inverse_power_law(4800.0, *p))
    assert se == pytest.approx(np.sqrt(grad @ fit.covariance @ grad), rel=1e-4)
    v, lo, hi = fit.interval(4800.0)
    assert lo < v < hi and hi - v == pytest.approx(1.959964 * se, rel=1e-4)


def test_too_few_points_are_refused():
    with pytest.raises(CurveFitError, match="at least 3"):
        fit_power_law([100, 200], [0.5, 0.6])


# -- one figure's interval -------------------------------------------------------------------------
def _labels(n=120, k=3, seed=1):
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, k, n)
    pred = np.where(rng.random(n) < 0.6, gold, rng.integers(0, k, n))
    return gold, pred


def test_confusions_equal_sklearn():
    from sklearn.metrics import confusion_matrix

    gold, pred = _labels()
    assert np.array_equal(confusions(gold, pred, 3), confusion_matrix(gold, pred, labels=[0, 1, 2]))


def test_macro_f1_interval_equals_scipy_bootstrap_of_sklearn_f1():
    from scipy.stats import bootstrap
    from sklearn.metrics import f1_score

    from explorer.core.classify.compare import CONFUSION_SCORES

    gold, pred = _labels()
    got = confusion_interval(lambda c: CONFUSION_SCORES["macro_f1"](c, ()), gold, pred, 3, resamples=300, seed=4)
    assert got.value == pytest.approx(f1_score(gold, pred, average="macro"))
    ref = bootstrap((gold, pred), lambda g, p: f1_score(g, p, average="macro", labels=[0, 1, 2], zero_division=0),
                    paired=True, vectorized=False, n_resamples=300, method="percentile",
                    random_state=np.random.default_rng(4))
    assert got.low == pytest.approx(ref.confidence_interval.low)
    assert got.high == pytest.approx(ref.confidence_interval.high)
    assert got.se == pytest.approx(ref.standard_error)


def test_pearson_interval_equals_scipy():
    from scipy.stats import bootstrap, pearsonr

    rng = np.random.default_rng(2)
    gold = rng.normal(size=80)
    pred = gold + rng.normal(scale=1.0, size=80)
    got = correlation_interval(gold, pred, resamples=300, seed=3)
    assert got.value == pytest.approx(pearsonr(gold, pred).statistic)
    ref = bootstrap((gold, pred), lambda g, p: pearsonr(g, p).statistic, paired=True, vectorized=False,
                    n_resamples=300, method="percentile", random_state=np.random.default_rng(3))
    assert (got.low, got.high) == pytest.approx((ref.confidence_interval.low, ref.confidence_interval.high))


# -- the bag-of-words baseline ---------------------------------------------------------------------
TEXTS = ["good film", "great fun", "bad plot", "awful acting", "good acting", "bad film", "great plot",
         "awful fun"]
CLASSES = [1, 1, 0, 0, 1, 0, 1, 0]


def test_logistic_baseline_equals_sklearn_pipeline():
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    model = fit_bag_of_words(TEXTS, CLASSES, estimator=LOGISTIC)
    ref = make_pipeline(TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True),
                        LogisticRegression(max_iter=1000, random_state=0)).fit(TEXTS, CLASSES)
    dev = ["good plot", "awful film"]
    assert np.allclose(np.exp(model.log_probabilities(dev)), ref.predict_proba(dev))


def test_a_class_missing_from_training_gets_probability_zero():
    model = fit_bag_of_words(TEXTS, [2 if c else 0 for c in CLASSES], estimator=LOGISTIC)
    logp = model.log_probabilities(["good plot"], num_classes=3)
    assert logp.shape == (1, 3) and np.exp(logp[0, 1]) < 1e-10


def test_pair_ridge_baseline_equals_sklearn_ridge_on_the_pair_features():
    from scipy.sparse import hstack
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import Ridge

    a, b = TEXTS, TEXTS[::-1]
    y = np.linspace(0, 5, len(a))
    model = fit_bag_of_words(a, y, b, estimator=RIDGE)
    vec = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True).fit(a + b)
    xa, xb = vec.transform(a), vec.transform(b)
    ref = Ridge(alpha=1.0).fit(hstack([xa, xb, xa.multiply(xb)]), y)
    assert np.allclose(model.scores(a, b), ref.predict(hstack([xa, xb, xa.multiply(xb)])))


def test_one_vs_rest_baseline_equals_sklearn():
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier

    y = np.array([[c, 1 - c, i % 2] for i, c in enumerate(CLASSES)])
    model = fit_bag_of_words(TEXTS, y, estimator=ONE_VS_REST)
    vec = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True).fit(TEXTS)
    ref = OneVsRestClassifier(LogisticRegression(max_iter=1000)).fit(vec.transform(TEXTS), y)
    assert np.allclose(model.scores(["good plot"]), ref.predict_proba(vec.transform(["good plot"])))


def test_one_class_and_unknown_estimator_are_refused():
    with pytest.raises(ValueError, match="one class"):
        fit_bag_of_words(TEXTS, [1] * len(TEXTS))
    with pytest.raises(ValueError, match="estimator must be"):
        fit_bag_of_words(TEXTS, CLASSES, estimator="svm")

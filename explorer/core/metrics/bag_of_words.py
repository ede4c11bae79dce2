"""The bag-of-words baseline a fine-tune has to beat: TF-IDF features and a linear model (scikit-learn).

- single-label classification: sklearn.linear_model.LogisticRegression (multinomial, L2, C = 1) on
  sklearn.feature_extraction.text.TfidfVectorizer (word 1-2 grams, sublinear tf, min_df 1);
- regression: sklearn.linear_model.Ridge (alpha 1) on the same features;
- multi-label: sklearn.multiclass.OneVsRestClassifier(LogisticRegression), one binary model per label.

A sentence pair is the TF-IDF of the first text, of the second, and their element-wise product (the words
they share), side by side (one vocabulary fitted on both columns), the usual linear baseline for paraphrase
and similarity (e.g. the GLUE paper's bag-of-words baselines, Wang et al. 2019). Fitted on the training rows
only; scored on the dev rows the fine-tune is scored on. Torch-free.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

NGRAMS = (1, 2)
LOGISTIC, RIDGE, ONE_VS_REST = "logistic", "ridge", "one_vs_rest"   # what a head spec's ``bag_of_words`` names
ESTIMATORS = (LOGISTIC, RIDGE, ONE_VS_REST)


@dataclass(frozen=True, kw_only=True)
class BagOfWordsModel:
    """A fitted baseline: ``vectorizer`` (TfidfVectorizer), ``model`` (the sklearn estimator), ``estimator``
    (one of ESTIMATORS), ``classes`` (class ids 0..K-1 it knows; () for
    regression), ``pair`` (two text columns)."""

    vectorizer: object
    model: object
    estimator: str
    classes: tuple
    pair: bool

    def features(self, texts_a, texts_b=None):
        """The (n, features) sparse matrix of :func:`pair_features` (or of one column)."""
        return _features(self.vectorizer, texts_a, texts_b if self.pair else None)

    def log_probabilities(self, texts_a, texts_b=None, num_classes: int | None = None) -> np.ndarray:
        """(n, K) log class probabilities (classification), K = ``num_classes`` or the classes seen; a class
        the training rows never had gets log 1e-12 (probability 0)."""
        proba = self.model.predict_proba(self.features(texts_a, texts_b))
        k = num_classes or (max(self.classes) + 1 if self.classes else proba.shape[1])
        out = np.full((proba.shape[0], k), 1e-12)
        out[:, list(self.classes)] = np.clip(proba, 1e-12, 1.0)
        return np.log(out)

    def scores(self, texts_a, texts_b=None) -> np.ndarray:
        """(n,) predicted scores (regression) or (n, K) label probabilities (multi-label)."""
        x = self.features(texts_a, texts_b)
        return self.model.predict_proba(x) if self.estimator == ONE_VS_REST else self.model.predict(x)


def _features(vectorizer, texts_a, texts_b):
    from scipy.sparse import hstack

    a = vectorizer.transform(list(texts_a))
    if texts_b is None:
        return a
    b = vectorizer.transform(list(texts_b))
    return hstack([a, b, a.multiply(b)]).tocsr()


def fit_bag_of_words(texts_a, labels, texts_b=None, *, estimator: str = "logistic", seed: int = 0
                     ) -> BagOfWordsModel:
    """Fit the baseline on training rows: (n,) texts (and (n,) second texts for a pair) and (n,) labels
    (class ids for ``estimator`` LOGISTIC; floats for RIDGE; (n, K) 0/1 rows for ONE_VS_REST).

    Raises ValueError: no rows, lengths that differ, one class only, or an unknown ``estimator``."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression, Ridge
    from sklearn.multiclass import OneVsRestClassifier

    a = [str(t) for t in texts_a]
    if not a:
        raise ValueError("bag-of-words baseline: no training rows")
    if texts_b is not None and len(texts_b) != len(a):
        raise ValueError(f"bag-of-words baseline: {len(a)} first texts but {len(texts_b)} second texts")
    y = np.asarray(labels)
    if len(y) != len(a):
        raise ValueError(f"bag-of-words baseline: {len(a)} texts but {len(y)} labels")
    vectorizer = TfidfVectorizer(ngram_range=NGRAMS, sublinear_tf=True, min_df=1)
    vectorizer.fit(a + ([str(t) for t in texts_b] if texts_b is not None else []))
    x = _features(vectorizer, a, [str(t) for t in texts_b] if texts_b is not None else None)
    if estimator == RIDGE:
        model, classes = Ridge(alpha=1.0).fit(x, y.astype(float)), ()
    elif estimator == ONE_VS_REST:
        model = OneVsRestClassifier(LogisticRegression(max_iter=1000)).fit(x, y.astype(int))
        classes = tuple(range(y.shape[1]))
    elif estimator == LOGISTIC:
        seen = np.unique(y.astype(int))
        if len(seen) < 2:
            raise ValueError(f"bag-of-words baseline: the training rows hold one class only ({seen.tolist()})")
        model = LogisticRegression(max_iter=1000, random_state=seed).fit(x, y.astype(int))
        classes = tuple(int(c) for c in model.classes_)
    else:
        raise ValueError(f"bag-of-words baseline: estimator must be one of {', '.join(ESTIMATORS)} "
                         f"(got {estimator!r})")
    return BagOfWordsModel(vectorizer=vectorizer, model=model, estimator=estimator, classes=classes,
                           pair=texts_b is not None)

"""Is BERT worth it here: the bag-of-words baseline beside a fine-tune, on the same dev rows (Qt-free).

:func:`baseline_outputs` fits core.metrics.bag_of_words on the training rows a run (or a learning curve's
member) trained on and scores the dev rows it was scored on: (n, K) log probabilities for a single-label head,
(n,) scores for a regression head, (n, K) label probabilities for a multi-label head (the head spec's
``bag_of_words`` names the estimator). :func:`versus_model`
says whether the fine-tune beats it: for classes, core.classify.compare.compare_classifiers (the paired
bootstrap of accuracy, macro F1 and the judged metric, McNemar's exact test), the baseline as A and the model as
B, exactly as Compare does for two runs; for scores, the paired bootstrap of the mean squared error
(core.metrics.significance.paired_bootstrap_mean of each row's negated squared error) and both Pearson r with
their intervals (core.metrics.intervals); for label sets, both thresholded at 0.5 (no threshold tuned on the dev
rows for either), micro F1 with the paired bootstrap of its difference, macro F1, and the share of rows whose
whole label set is right with McNemar's exact test on those rows.

The model's dev outputs come from predict's file of the dev rows (``p_<class>`` columns, or ``predicted_score``),
which core/studies/run_baseline.py and core/studies/curve_results.py write with the run's checkpoints/last.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from explorer.core.specs.heads import HeadSpec, Scores


def load_rows(path: str, config, *, regression: bool, pair: bool, class_names=None):
    """A table's rows (core.data.classification.ClassificationData) read with a run config's column settings;
    class ids follow ``class_names`` (the training data's) when given."""
    from explorer.core.data.classification import load_classification

    data = load_classification(path, pair=pair, text_columns=config.get("text_columns") or None,
                               label_column=str(config.get("label_column") or ""),
                               id_column=str(config.get("id_column") or ""),
                               no_header=bool(config.get("no_header")), encoding=str(config.get("encoding") or ""),
                               regression=regression, label_names=config.get("label_names") or None,
                               skip_invalid=bool(config.get("skip_invalid")))
    return data.relabel(list(class_names)) if class_names and not regression else data


def baseline_outputs(train, dev, head: HeadSpec, num_classes: int | None = None, seed: int = 0) -> np.ndarray:
    """The baseline's outputs on ``dev`` after fitting on ``train`` (ClassificationData each): (n, K) log
    probabilities (softmax heads), (n,) scores (score heads) or (n, K) label probabilities (sigmoid heads, whose
    rows hold label-id lists; K = ``num_classes``). Raises ValueError for a head without a
    baseline (``head.bag_of_words`` empty) and fit_bag_of_words' errors."""
    from explorer.core.metrics.bag_of_words import fit_bag_of_words

    if not head.bag_of_words:
        raise ValueError(f"no bag-of-words baseline for {head.words} models")
    labels = train.labels
    if head.scores is Scores.SIGMOID:
        from explorer.core.data.scores_and_label_sets import multi_hot

        labels = multi_hot(train.labels, num_classes or train.num_labels)
    model = fit_bag_of_words(train.texts_a, labels, train.texts_b, estimator=head.bag_of_words, seed=seed)
    if head.scores in (Scores.SCORE, Scores.SIGMOID):
        return np.asarray(model.scores(dev.texts_a, dev.texts_b), dtype=float)
    return model.log_probabilities(dev.texts_a, dev.texts_b, num_classes=num_classes)


def model_outputs(rows: list[dict], head: HeadSpec, class_names: list[str]) -> np.ndarray:
    """The model's outputs from predict's rows of the dev file: (n, K) log probabilities in ``class_names``
    order (its ``p_<class>`` columns), or (n,) ``predicted_score``. Raises ValueError when a class has no
    column."""
    if head.scores is Scores.SCORE:
        return np.asarray([float(r.get("predicted_score") or math.nan) for r in rows])
    missing = [c for c in class_names if rows and f"p_{c}" not in rows[0]]
    if missing:
        raise ValueError(f"the predictions have no p_ column for class(es) {', '.join(missing)}")
    probs = np.asarray([[float(r.get(f"p_{c}") or 0.0) for c in class_names] for r in rows])
    return np.log(np.clip(probs, 1e-12, 1.0))


@dataclass
class BaselineVerdict:
    """The baseline (A) against the fine-tune (B) on the same ``n`` dev rows: ``lines`` in words,
    ``figures`` {"baseline": {metric: value}, "model": {...}} (fractions / r), ``comparison`` (the
    ClassifierComparison for classes; None for scores), ``difference`` (the judged metric's B - A with its
    interval, as a dict)."""

    n: int
    lines: list[str] = field(default_factory=list)
    figures: dict = field(default_factory=dict)
    comparison: object | None = None
    difference: dict = field(default_factory=dict)


def versus_model(gold, baseline, model, head: HeadSpec, *, class_names=(), f1_classes=(), metric: str = "",
                 resamples: int = 10_000, seed: int = 0, name_model: str = "fine-tuned",
                 source: str = "") -> BaselineVerdict:
    """Whether the fine-tune beats the baseline on the same rows (see the module docstring). ``gold``: (n,)
    class ids or scores, or (n, K) 0/1 label sets; ``baseline``, ``model``: the outputs of :func:`baseline_outputs`
    and :func:`model_outputs` (for label sets, the model's (n, K) logits); ``metric``: the metric the run is
    judged by (its metric_for_best); ``source``: the file the dev rows come from, named in the last line."""
    if head.scores is Scores.SCORE:
        return _scores_verdict(np.asarray(gold, dtype=float), np.asarray(baseline, dtype=float),
                               np.asarray(model, dtype=float), resamples, seed, name_model)
    if head.scores is Scores.SIGMOID:
        return _label_sets_verdict(np.asarray(gold), np.asarray(baseline, dtype=float), np.asarray(model, dtype=float),
                                   resamples, seed, name_model)
    from explorer.core.classify.compare import compare_classifiers

    cmp = compare_classifiers(gold, baseline, model, name_a="bag-of-words", name_b=name_model, source=source,
                              resamples=resamples, seed=seed, picked_by=(metric, metric) if metric else ("", ""),
                              label_names=list(class_names), f1_classes=list(f1_classes))
    judged = cmp.judged if cmp.judged is not None and cmp.judged_by == cmp.judged.metric else \
        (cmp.accuracy if cmp.judged_by == "accuracy" else cmp.macro_f1)
    figures = {"baseline": {"accuracy": cmp.accuracy.value_a, "macro_f1": cmp.macro_f1.value_a},
               "model": {"accuracy": cmp.accuracy.value_b, "macro_f1": cmp.macro_f1.value_b}}
    if cmp.judged is not None:
        figures["baseline"][cmp.judged.metric] = cmp.judged.value_a
        figures["model"][cmp.judged.metric] = cmp.judged.value_b
    return BaselineVerdict(n=cmp.n, lines=cmp.lines(), figures=figures, comparison=cmp,
                           difference=_difference(judged, cmp.mcnemar.p))


def _difference(boot, p=None) -> dict:
    out = {"metric": boot.metric, "baseline": boot.value_a, "model": boot.value_b, "difference": boot.difference,
           "low": boot.low, "high": boot.high, "level": boot.level}
    if p is not None:
        out["mcnemar_p"] = p
    return out


def _scores_verdict(gold, base, model, resamples, seed, name_model) -> BaselineVerdict:
    from explorer.core.metrics.intervals import correlation_interval
    from explorer.core.metrics.significance import difference_in_words, paired_bootstrap_mean

    ok = np.isfinite(gold) & np.isfinite(base) & np.isfinite(model)
    g, a, b = gold[ok], base[ok], model[ok]
    boot = paired_bootstrap_mean(-(a - g) ** 2, -(b - g) ** 2, metric="negative_mse", resamples=resamples,
                                 seed=seed)
    ra, rb = correlation_interval(g, a, seed=seed), correlation_interval(g, b, seed=seed)
    lines = [f"mean squared error: bag-of-words {-boot.value_a:.3f}, {name_model} {-boot.value_b:.3f}; "
             + difference_in_words(boot, label="negative MSE", name_a="bag-of-words", name_b=name_model,
                                   scale=1.0, unit="", digits=3),
             f"Pearson r: bag-of-words {ra.text()}, {name_model} {rb.text()} (95% bootstrap intervals, "
             f"n {int(ok.sum())})"]
    return BaselineVerdict(n=int(ok.sum()), lines=lines, figures={   # an undefined r is null (strict JSON)
        "baseline": {"pearson": ra.to_dict()["value"], "mse": -boot.value_a},
        "model": {"pearson": rb.to_dict()["value"], "mse": -boot.value_b}}, difference=_difference(boot))


LABEL_SET_THRESHOLD = 0.5   # both sides' probability threshold per label in the label-set comparison


def _label_sets_verdict(gold, base_probabilities, model_logits, resamples, seed, name_model) -> BaselineVerdict:
    from explorer.core.metrics.multilabel import multilabel_scores, paired_bootstrap_micro_f1, predict, sigmoid
    from explorer.core.metrics.significance import difference_in_words, fmt_p, mcnemar_exact

    y = np.asarray(gold, dtype=np.int64)
    a = predict(base_probabilities, LABEL_SET_THRESHOLD)
    b = predict(sigmoid(model_logits), LABEL_SET_THRESHOLD)
    sa, sb = multilabel_scores(y, a), multilabel_scores(y, b)
    boot = paired_bootstrap_micro_f1(y, a, b, resamples=resamples, seed=seed)
    exact = mcnemar_exact((a == y).all(axis=1), (b == y).all(axis=1))
    lines = [f"micro F1: bag-of-words {100 * sa['micro_f1']:.1f}%, {name_model} {100 * sb['micro_f1']:.1f}%; "
             + difference_in_words(boot, label="micro F1", name_a="bag-of-words", name_b=name_model),
             f"macro F1: bag-of-words {100 * sa['macro_f1']:.1f}%, {name_model} {100 * sb['macro_f1']:.1f}%; rows with "
             f"the whole label set right: {100 * sa['subset_accuracy']:.1f}% and {100 * sb['subset_accuracy']:.1f}%, "
             f"McNemar's exact test on them {fmt_p(exact.p)}",
             f"(every label at probability {LABEL_SET_THRESHOLD:g} on both sides: no threshold tuned on these "
             f"{len(y)} rows; 95% paired bootstrap of the rows)"]
    keep = ("micro_f1", "macro_f1", "subset_accuracy")
    return BaselineVerdict(n=len(y), lines=lines, figures={"baseline": {k: sa[k] for k in keep},
                                                           "model": {k: sb[k] for k in keep}},
                           difference=_difference(boot, exact.p))

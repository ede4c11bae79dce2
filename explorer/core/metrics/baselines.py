"""Trivial baselines a dev metric must beat, computed from the dev data alone (Qt-free).

- SQuAD 2.0, "always no answer": every prediction is "" (abstain). The official v2.0 script scores
  an abstention 1 on an unanswerable question and 0 on an answerable one (EM and F1 alike), so
  exact_match = f1 = 100 x (share of unanswerable questions); HasAns_f1 = 0, NoAns_f1 = 100.
  Source: evaluate-v2.0.py (compute_exact / compute_f1 with an empty gold or prediction).
  A run whose dev F1 sits flat on this line has learnt to abstain everywhere, not to find spans.
- Classification, "always the majority class": accuracy = (count of the most common dev label) / n,
  a fraction in [0, 1] like the run's own accuracy.

SQuAD 1.1 has no abstention: its trivial baseline is 0, so none is reported.
"""

from __future__ import annotations

import json
import math
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from explorer.core.specs.tasks import find_task_facts


@dataclass(frozen=True)
class Baseline:
    """A trivial predictor's dev metrics.

    Attributes:
        name: short label for a plot line ("all no-answer", "majority class").
        metrics: metric name -> value, on the same scale as the run's metrics (SQuAD: percent;
            classification: fraction).
        detail: one plain sentence: what the baseline predicts and why its value is what it is.
        rows: the dev rows (questions) it is counted on, 0 when unknown (a run recorded before it was kept):
            a run that evaluates a dev sample scores on fewer rows, so a line says its rows.
    """

    name: str
    metrics: dict = field(default_factory=dict)
    detail: str = ""
    rows: int = 0

    @property
    def label(self) -> str:
        """The plot line's label: "majority class baseline (all 847 dev rows)"."""
        return f"{self.name} baseline" + (f" (all {self.rows:,} dev rows)" if self.rows else "")

    def to_dict(self) -> dict:
        """JSON-ready, for the ``started`` event's ``dev_baseline`` (explorer.core.protocol.events)."""
        return {"name": self.name, "metrics": dict(self.metrics), "detail": self.detail, "rows": self.rows}

    @classmethod
    def from_dict(cls, data) -> "Baseline | None":
        """The inverse of :meth:`to_dict`; None for anything else (a hint is never an error): a name and at
        least one finite number among the metrics."""
        if not isinstance(data, dict) or not isinstance(data.get("name"), str) or not data["name"]:
            return None
        raw = data.get("metrics") if isinstance(data.get("metrics"), dict) else {}
        metrics = {str(k): float(v) for k, v in raw.items()
                   if isinstance(v, (int, float)) and not isinstance(v, bool) and v == v and abs(v) != float("inf")}
        if not metrics:
            return None
        rows = data.get("rows")
        rows = rows if isinstance(rows, int) and not isinstance(rows, bool) and rows > 0 else 0
        return cls(data["name"], metrics, str(data.get("detail") or ""), rows)


def squad_no_answer_baseline(gold: dict[str, list[str]]) -> Baseline | None:
    """The all-no-answer baseline of SQuAD 2.0 gold answers (id -> gold texts, [] = unanswerable).

    Returns None when no question is unanswerable (SQuAD 1.1 data: the baseline would be 0).
    """
    n = len(gold)
    n_no = sum(1 for texts in gold.values() if not texts)
    if n == 0 or n_no == 0:
        return None
    share = 100.0 * n_no / n
    metrics = {"exact_match": share, "f1": share, "HasAns_exact": 0.0, "HasAns_f1": 0.0,
               "NoAns_exact": 100.0, "NoAns_f1": 100.0, "best_f1": share, "best_exact": share}
    detail = (f"answering \"no answer\" to every question scores F1 {share:.2f}: "
              f"{n_no} of {n} dev questions are unanswerable")
    return Baseline("all no-answer", metrics, detail, n)


def majority_class_baseline(labels: list) -> Baseline | None:
    """The always-the-majority-class baseline of dev labels (class ids or names; None for no labels)."""
    if not labels:
        return None
    label, count = Counter(labels).most_common(1)[0]
    acc = count / len(labels)
    detail = (f"predicting class {label} for every example scores accuracy {100 * acc:.2f}%: "
              f"{count} of {len(labels)} dev labels are {label}")
    return Baseline("majority class", {"accuracy": acc}, detail, len(labels))


def predicted_for_every_row(metrics: dict) -> str | None:
    """The class a classification evaluation predicted for every dev row, else None.

    Read from the evaluation's ``per_class`` table (explorer.core.metrics.glue.per_class_metrics:
    precision, recall as fractions, support as counts): class c was predicted TP_c / precision_c times, with
    TP_c = recall_c * support_c; when that is every row (the supports' sum) the model is stuck on c. None for a
    dev set of one class (nothing to tell apart), fewer than two rows, or no per_class table."""
    per = metrics.get("per_class") if isinstance(metrics, dict) else None
    if not isinstance(per, dict) or len(per) < 2:
        return None
    try:
        supports = {name: int(row["support"]) for name, row in per.items()}
        total = sum(supports.values())
        if total < 2 or sum(n > 0 for n in supports.values()) < 2:
            return None
        for name, row in per.items():
            precision, recall = float(row["precision"]), float(row["recall"])
            if precision > 0 and abs(recall * supports[name] / precision - total) < 0.5:
                return str(name)
    except (KeyError, TypeError, ValueError):
        return None
    return None


def predicted_for_every_token(metrics: dict) -> str | None:
    """The tag a token-tagging evaluation predicted for every dev word, else None: its ``predicted_tags``
    (explorer.core.metrics.tagging.tagging_metrics) hold one tag while the dev words hold entities (a tagger
    predicting only "O" scores entity F1 0 and a high token accuracy). None without that table."""
    tags = metrics.get("predicted_tags") if isinstance(metrics, dict) else None
    if not isinstance(tags, dict) or len(tags) != 1:
        return None
    try:
        return str(next(iter(tags))) if int(metrics.get("entities", 0)) > 0 else None
    except (TypeError, ValueError):
        return None


def predicted_for_everything(metrics: dict) -> str | None:
    """The one class (a classifier's, per dev row) or tag (a tagger's, per dev word) an evaluation predicted for
    everything, read from the table its metrics carry (``per_class`` or ``predicted_tags``); else None."""
    return predicted_for_every_row(metrics) or predicted_for_every_token(metrics)


def learning_rate_text(rate: float) -> str:
    """A learning rate as the advice writes rates: mantissa and exponent, no padding (1e-4, 2e-5, 2.5e-5, 3e-3)."""
    mantissa, exponent = f"{float(rate):.3e}".split("e")
    return f"{mantissa.rstrip('0').rstrip('.')}e{int(exponent)}"


ONE_CLASS = "one class"                        # one class (a tagger's one tag) predicted for everything
MISSED_CLASSES = "classes never predicted"      # classes the dev rows hold never predicted
MEAN_SCORE = "no better than the mean"          # a regression's scores no better than the mean score
AT_MAJORITY = "no better than the majority class"   # a classifier's accuracy within MAJORITY_MARGIN of the majority's


@dataclass(frozen=True)
class ClassNote:
    """What a run's evaluations say about the classes it predicts: ``kind`` (:data:`ONE_CLASS`,
    :data:`MISSED_CLASSES`, :data:`MEAN_SCORE`; "" for none), decided where the sentence is made, so that a display
    marks the figure by it, and ``text``, the sentence with what to try ("" for none); ``what``, the part of the
    sentence saying what the evaluation shows without the advice ("predicts only '3' for every dev row"), which a
    group's sentence over its members reuses. False when there is none."""

    kind: str = ""
    text: str = ""
    what: str = field(default="", compare=False)

    def __bool__(self) -> bool:
        return bool(self.text)

    def __str__(self) -> str:
        return self.text


NO_NOTE = ClassNote()

SUGGESTED_LEARNING_RATE = "1e-4"   # where bundled:minilm leaves the majority class on a few hundred rows
LARGE_EVAL_SHARE = 0.25     # evaluations took this share of a run or more: "little time was left to train"


def one_class_note(metrics: dict, learning_rate: float | None = None, *, steps: int = 0,
                   budget_seconds: float = 0.0, eval_share: float | None = None, unit: str = "dev row") -> ClassNote:
    """A :class:`ClassNote`, one line, when an evaluation predicted one class for every ``unit``, or never predicted classes that a
    classifier's dev rows hold (:func:`never_predicted`: "never predicts 'NONE' (148 of 563 dev rows are theirs),
    answering 'AGAINST' for 402 of the 563 rows", the class it answers most by :func:`most_predicted`) ('' otherwise;
    the head's
    ``one_class_unit``, explorer.core.specs.heads: "dev row" for a classifier, "dev token" for a tagger, whose
    one tag is read from ``predicted_tags``): a small model left at the majority class (bundled:minilm at lr 2e-5
    ends there; a tagger at "O"), and what to try; rates are written one way (:func:`learning_rate_text`). The
    advice never
    proposes what the run already did: a run whose ``learning_rate`` is already :data:`SUGGESTED_LEARNING_RATE` or
    more is told to train longer (a longer time budget when ``budget_seconds`` > 0, more epochs or more training
    rows), after its ``steps`` optimizer steps; an ``eval_share`` (evaluation seconds / the run's seconds) of
    :data:`LARGE_EVAL_SHARE` or more is said, since it left little of the run to training. A classifier whose accuracy
    is no better than always answering its dev rows' majority class (:func:`at_majority_what`) gets that note
    instead of "never predicts": it learned nothing though it predicts several classes. Its kind:
    :data:`ONE_CLASS`, :data:`AT_MAJORITY` or :data:`MISSED_CLASSES`."""
    name = predicted_for_everything(metrics) if unit else None
    at_majority = at_majority_what(metrics) if name is None and unit == "dev row" else ""
    if at_majority:
        return ClassNote(AT_MAJORITY, advice_note(at_majority, learning_rate, steps=steps,
                                                  budget_seconds=budget_seconds, eval_share=eval_share), at_majority)
    if name is None:
        missed = never_predicted(metrics) if unit == "dev row" else []
        if not missed:
            return NO_NOTE
        rows = sum(int(metrics["per_class"][c]["support"]) for c in missed)
        total = sum(int(row["support"]) for row in metrics["per_class"].values())
        named = " or ".join(f"'{c}'" for c in missed)
        top = most_predicted(metrics)   # read from the same predicted counts: named as the at-majority note does
        answers = f", answering '{top[0]}' for {top[1]:,} of the {total:,} rows" if top is not None else ""
        what = f"never predicts {named} ({rows:,} of {total:,} dev rows are theirs){answers}"
        return ClassNote(MISSED_CLASSES, advice_note(what, learning_rate, steps=steps, budget_seconds=budget_seconds,
                                                     eval_share=eval_share), what)
    what = f"predicts only '{name}' for every {unit}"
    return ClassNote(ONE_CLASS, advice_note(what, learning_rate, steps=steps, budget_seconds=budget_seconds,
                                            eval_share=eval_share), what)


# A classifier's accuracy at most this far (a share: 2 points) above the majority class's share on the same rows is
# no result: always answering that class scores the share, and a model that learned nothing lands a point above it
# by chance (a fold trained 6 steps scored 34.11% on 1,979 held-out rows whose majority class is 33.70%; two
# standard errors of that share are 2.1 points). A fixed margin rather than the standard error alone: on a
# 6-row dev set two standard errors are 41 points, and 83% against 50% would read as no better.
MAJORITY_MARGIN = 0.02


def majority_share(metrics: dict) -> tuple[str, float, int] | None:
    """(the majority class, its share of the rows, the rows) of a classification evaluation's ``per_class`` table
    (supports as counts): what always answering that class scores on the same rows; None without the table, or
    for fewer than two classes with rows."""
    per = metrics.get("per_class") if isinstance(metrics, dict) else None
    if not isinstance(per, dict) or len(per) < 2:
        return None
    try:
        supports = {str(name): int(row["support"]) for name, row in per.items()}
    except (KeyError, TypeError, ValueError):
        return None
    total = sum(supports.values())
    if total < 2 or sum(n > 0 for n in supports.values()) < 2:
        return None
    name = max(supports, key=supports.get)
    return name, supports[name] / total, total


def at_majority_what(metrics: dict) -> str:
    """"scores 28.42% accuracy on the 380 rows evaluated, answering 'Positive' for 215 of them: no better than the
    27.37% of always answering the majority class 'Negative'" when a classification evaluation's
    accuracy is at most MAJORITY_MARGIN above its majority class's share on the same rows (:func:`majority_share`;
    a model that learned nothing lands about there by chance), else ''. The rows are said (a run evaluating a dev
    sample shows a baseline on all dev rows beside it), and so is the class the model answers most
    (:func:`most_predicted`), which is often not the majority class: naming only the majority class read as if
    the model predicted it."""
    found = majority_share(metrics)
    try:
        acc = float(metrics.get("accuracy"))
    except (AttributeError, TypeError, ValueError):
        return ""
    if found is None or not math.isfinite(acc):
        return ""
    name, share, rows = found
    if acc > share + MAJORITY_MARGIN:
        return ""
    top = most_predicted(metrics)
    answers = f", answering '{top[0]}' for {top[1]:,} of them" if top is not None else ""
    return (f"scores {100 * acc:.2f}% accuracy on the {rows:,} rows evaluated{answers}: no better than the "
            f"{100 * share:.2f}% of always answering the majority class '{name}'")


def most_predicted(metrics: dict) -> tuple[str, int] | None:
    """(the class a classification evaluation predicted most often, how many rows) from its ``per_class``
    table's ``predicted`` counts (explorer.core.metrics.glue.per_class_metrics); None without those counts (an
    evaluation recorded before they were) or when nothing was predicted."""
    per = metrics.get("per_class") if isinstance(metrics, dict) else None
    if not isinstance(per, dict) or not per:
        return None
    try:
        counts = {str(name): int(row["predicted"]) for name, row in per.items()}
    except (KeyError, TypeError, ValueError):
        return None
    name = max(counts, key=counts.get)
    return (name, counts[name]) if counts[name] > 0 else None


def never_predicted(metrics: dict) -> list[str]:
    """The classes a classification evaluation never predicted though the dev rows hold some (its ``per_class``
    table's ``predicted`` counts, explorer.core.metrics.glue.per_class_metrics), in table order; [] for a table
    without those counts (an evaluation recorded before they were) or when every class with rows was predicted."""
    per = metrics.get("per_class") if isinstance(metrics, dict) else None
    if not isinstance(per, dict) or len(per) < 2:
        return []
    try:
        return [str(c) for c, row in per.items() if int(row["support"]) > 0 and int(row["predicted"]) == 0]
    except (KeyError, TypeError, ValueError):
        return []


def advice_note(head: str, learning_rate: float | None = None, *, steps: int = 0, budget_seconds: float = 0.0,
                eval_share: float | None = None) -> str:
    """``head`` (what the evaluations show: one class for everything, a regression no better than the mean) with
    what to try, one rule for every such note: a larger learning rate when the run's is below
    :data:`SUGGESTED_LEARNING_RATE`, else train longer after its ``steps``; a large ``eval_share`` is said."""
    if not learning_rate or learning_rate < 0.9 * float(SUGGESTED_LEARNING_RATE):
        lr = f" (this run: {learning_rate_text(learning_rate)})" if learning_rate else ""
        note = f"{head}: try a larger learning rate, e.g. {SUGGESTED_LEARNING_RATE}{lr}, or more epochs"
    else:   # advising the rate it already has helps no one
        after = f" after {steps:,} training step{'s' if steps != 1 else ''}" if steps else ""
        budget = "a longer time budget, " if budget_seconds > 0 else ""
        note = (f"{head}{after} at learning rate {learning_rate_text(learning_rate)}: train longer ({budget}more "
                "epochs or more training rows)")
    if eval_share is not None and eval_share >= LARGE_EVAL_SHARE:
        note += (f"; evaluations took {eval_share:.0%} of the run, leaving little time to train (evaluate less "
                 "often, or on fewer dev rows)")
    return note


FLAT_CORRELATION = 0.1   # |Pearson| and |Spearman| below this: the scores follow the gold no better than a constant
# |Pearson| below this (a weak correlation, by the usual reading) with an MSE no better than the mean predictor's: the
# run is said to predict no better than the mean; a stronger correlation ranks the pairs, and only the scale is off
WEAK_CORRELATION = 0.3


def _finite(metrics: dict, name: str) -> float | None:
    """A finite figure of an evaluation's metrics, else None (absent, null, or NaN)."""
    try:
        value = float(metrics[name])
    except (KeyError, TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def _two_decimals(value: float) -> str:
    """An MSE or R² written with 2 decimals (3.04, -0.35), or 2 significant digits where 2 decimals would read 0
    (-0.004)."""
    return f"{value:.2f}" if abs(value) >= 0.01 or value == 0 else f"{value:.2g}"


def below_mean(metrics: dict) -> str:
    """"MSE 3.04 against 2.25 of always predicting the dev mean; R² -0.35" when a regression evaluation's MSE is no
    better than the mean predictor's (its ``r2``, explorer.core.metrics.regression, is 0 or less), else '': also
    for an evaluation recorded before ``r2`` and ``mse_of_mean`` were (nothing to compare), or an undefined R²
    (constant gold scores)."""
    if not isinstance(metrics, dict):
        return ""
    r2, mse, of_mean = (_finite(metrics, name) for name in ("r2", "mse", "mse_of_mean"))
    if r2 is None or mse is None or of_mean is None or r2 > 0:
        return ""
    return (f"MSE {_two_decimals(mse)} against {_two_decimals(of_mean)} of always predicting the dev mean; "
            f"R² {_two_decimals(r2)}")


# An R² within this of 0 (an MSE within 1% of the mean predictor's) is about the mean's, not worse: a model that
# learned to predict the training rows' mean score lands a little below 0 on dev rows whose mean differs slightly
R2_ABOUT_ZERO = 0.01


def below_mean_what(metrics: dict, lead: str = "") -> str:
    """"predicts worse than always predicting the mean score (MSE 3.04 against 2.25 of always predicting the
    dev mean; R² -0.35)" (:func:`below_mean`; "no better than" for an R² within :data:`R2_ABOUT_ZERO` of 0),
    ``lead`` written first inside the brackets ("best dev Pearson 0.163: "); '' when the evaluation beats the mean
    or cannot say."""
    said = below_mean(metrics)
    if not said:
        return ""
    worse = "worse than" if _finite(metrics, "r2") < -R2_ABOUT_ZERO else "no better than"
    return f"predicts {worse} always predicting the mean score ({lead}{said})"


def mean_score_note(metrics: dict, learning_rate: float | None = None, **kw) -> ClassNote:
    """A :class:`ClassNote` of kind :data:`MEAN_SCORE`, one line, when a regression evaluation is no better than
    always predicting the mean score ('' otherwise), with what to try (:func:`advice_note`; ``kw``:
    steps, budget_seconds, eval_share):

    - both its Pearson and Spearman correlations below :data:`FLAT_CORRELATION` in size: "predicts no better than
      always predicting the mean score (best dev Pearson 0.068, Spearman -0.086)"; where its R² is 0 or less the
      MSE against the mean predictor's and R² are said too (:func:`below_mean_what`), and an R² below
      -:data:`R2_ABOUT_ZERO` reads "predicts worse than always predicting the mean score (best dev Pearson
      -0.008, Spearman -0.006; MSE 7.39 against 2.25 of always predicting the dev mean; R² -2.28)";
    - a Pearson correlation below :data:`WEAK_CORRELATION` in size with an MSE no better than the mean predictor's,
      R² 0 or less (:func:`below_mean_what`; an STS-B model predicting about 1.4 for every pair: Pearson 0.163, MSE
      3.04 against the gold's variance 2.25).

    '' for metrics without a Pearson correlation (no regression head) or with an undefined one (constant
    predictions have their own note: explorer.core.metrics.regression.undefined_note). An evaluation recorded
    before ``r2`` was is judged by its correlations alone."""
    if not isinstance(metrics, dict) or "pearson" not in metrics:
        return NO_NOTE
    pearson, spearman = _finite(metrics, "pearson"), _finite(metrics, "spearman")
    if pearson is None:
        return NO_NOTE   # undefined (constant predictions) has its own note: regression.undefined_note
    if flat_correlations(metrics):   # the MSE against the mean's where R² says it (below 0: worse than the mean)
        said = f"Pearson {pearson:.3f}" + (f", Spearman {spearman:.3f}" if spearman is not None else "")
        what = (below_mean_what(metrics, f"best dev {said}; ")
                or f"predicts no better than always predicting the mean score (best dev {said})")
    elif abs(pearson) < WEAK_CORRELATION:   # a model that ranks the pairs well and misses the scale learned something
        what = below_mean_what(metrics, f"best dev Pearson {pearson:.3f}: ")
    else:
        what = ""
    return ClassNote(MEAN_SCORE, advice_note(what, learning_rate, **kw), what) if what else NO_NOTE


def flat_correlations(metrics: dict) -> bool:
    """Whether a regression evaluation's finite Pearson and Spearman (the latter where defined) are both below
    :data:`FLAT_CORRELATION` in size: its scores follow the gold no better than a constant would."""
    pearson, spearman = _finite(metrics, "pearson"), _finite(metrics, "spearman")
    return (pearson is not None and abs(pearson) < FLAT_CORRELATION
            and (spearman is None or abs(spearman) < FLAT_CORRELATION))


def regression_task(task: str) -> bool:
    """Whether ``task``'s head predicts one score (a regression: explorer.core.specs.heads.Scores.SCORE)."""
    from explorer.core.specs.heads import Scores

    facts = find_task_facts(task)
    return facts is not None and facts.head.scores is Scores.SCORE


def _best_by_pearson(evals: list[dict]) -> dict:
    """The metrics of the evaluation with the highest finite Pearson correlation (the last one when none has)."""
    scored = [e.get("metrics") or {} for e in evals]
    finite = [m for m in scored if _finite(m, "pearson") is not None]
    return max(finite, key=lambda m: _finite(m, "pearson")) if finite else scored[-1]


def _judged_regression(evals: list[dict]) -> dict:
    """The metrics a regression run is judged by: its best evaluation by Pearson (:func:`_best_by_pearson`), with
    the run's best R² in its place when some evaluation beat the mean (R² above 0): a run is said to be no better
    than the mean only when none of its evaluations was better."""
    best = _best_by_pearson(evals)
    r2s = [r2 for e in evals if (r2 := _finite(e.get("metrics") or {}, "r2")) is not None]
    return {**best, "r2": max(r2s)} if r2s and max(r2s) > 0 else best


def task_one_class_note(task: str, metrics: dict, learning_rate: float | None = None, **kw) -> ClassNote:
    """:func:`one_class_note` for a run of ``task`` (a task name of explorer.core.specs.tasks), counted over its
    head's ``one_class_unit`` (:func:`mean_score_note` for a regression): none for a task whose head has neither,
    or an unknown task. ``kw``: steps, budget_seconds, eval_share."""
    facts = find_task_facts(task)
    unit = facts.head.one_class_unit if facts is not None else ""
    if not unit and regression_task(task):
        return mean_score_note(metrics, learning_rate, **kw)
    return one_class_note(metrics, learning_rate, unit=unit, **kw) if unit else NO_NOTE


EARLY_SHARE = 1 / 3   # before this share of its planned steps a run stuck on one class often comes out of it


def run_one_class_note(task: str, evals: list[dict], learning_rate: float | None = None, *, step: int = 0,
                       steps_total: int = 0, live: bool = False, **kw) -> ClassNote:
    """:func:`task_one_class_note` of a run's last evaluation (``evals``: its ``eval`` events, in order). While the
    run trains (``live``) the note waits until it persists: past EARLY_SHARE of the ``steps_total`` planned, or the
    evaluation before (after step 0) stuck on one class too; a first evaluation a few dozen steps in often
    predicts one class and the next does not (an SST-2 run: one class at step 31, 83% two evaluations later); and
    it says it describes the model so far, with the steps still to come (:func:`so_far`). The step-0 evaluation
    (the untrained model, before any training) is never judged once the run has trained: what it predicts says
    nothing of what training did. "after N training steps" counts the steps of the evaluation judged.
    A regression run (a one-score head) is judged by its best evaluation after step 0 (the highest Pearson):
    :func:`mean_score_note` when even that is no better than the mean, while it trains once two evaluations say
    so. ``kw``: budget_seconds, eval_share. :data:`NO_NOTE` when there is nothing to say."""
    if step > 0:   # a run that trained: the untrained model's evaluation is not its result
        evals = [e for e in evals if int(e.get("step") or 0) > 0]
    if not evals:
        return NO_NOTE
    if regression_task(task):   # a regression: its best evaluation no better than the mean, once two say so
        scored = [e for e in evals if int(e.get("step") or 0) > 0] or evals
        best = _judged_regression(scored)
        note = mean_score_note(best, learning_rate, steps=_eval_step(scored[-1], step), **kw)
        early = live and not (steps_total and step >= EARLY_SHARE * steps_total)
        if early and len(scored) < 2:
            return NO_NOTE
        return so_far(note, _eval_step(scored[-1], step), step, steps_total) if live else note
    last = evals[-1]
    note = task_one_class_note(task, last.get("metrics") or {}, learning_rate, steps=_eval_step(last, step), **kw)
    if not note or not live:
        return note
    if not (steps_total and step >= EARLY_SHARE * steps_total):
        before = [e for e in evals[:-1] if int(e.get("step") or 0) > 0]
        if not (before and task_one_class_note(task, before[-1].get("metrics") or {}, learning_rate)):
            return NO_NOTE
    return so_far(note, _eval_step(last, step), step, steps_total)


def _eval_step(evaluation: dict, step: int) -> int:
    """The optimizer steps the model of ``evaluation`` had trained; the run's ``step`` for one without a step."""
    return int(evaluation.get("step") or 0) or step


def so_far(note: ClassNote, evaluated_at: int, step: int, steps_total: int = 0) -> ClassNote:
    """``note`` said of a run still training, at ``step`` of its ``steps_total`` planned: "so far (the evaluation at
    step 96; 224 of 320 steps to go) predicts only 'AGAINST' …": the model of the evaluation at ``evaluated_at``,
    with the steps still to come (a model stuck at its first evaluations often comes out of it later). ``what``
    stays as it was; ``note`` itself when empty."""
    if not note:
        return note
    where = f"the evaluation at step {evaluated_at:,}" if evaluated_at > 0 else "the first evaluation"
    if steps_total > step:
        where += f"; {steps_total - step:,} of {steps_total:,} steps to go"
    return ClassNote(note.kind, f"so far ({where}) {note.text}", note.what)


NARROW_SHARE = 0.1   # predictions spread over less than this share of the gold range: "about one score"
SCORES_ADVICE = "train longer or with a larger learning rate"   # a regression's scores that say little of the gold


def narrow_scores_note(predicted, gold) -> str:
    """One line when a regression head's dev predictions sit in a narrow band of the gold range ('' otherwise):
    the regression twin of :func:`one_class_note` (STS-B predictions of 2.74-2.78 on a 0-5 axis read as a flat
    plot while Pearson says 0.57). ``predicted``, ``gold``: sequences of floats, the same length."""
    pred = [float(p) for p in predicted]
    gold = [float(g) for g in gold]
    if len(pred) < 2 or not gold:
        return ""
    g_lo, g_hi, p_lo, p_hi = min(gold), max(gold), min(pred), max(pred)
    span = g_hi - g_lo
    if span <= 0 or p_hi - p_lo >= NARROW_SHARE * span:
        return ""
    mean = sum(gold) / len(gold)
    centre = (p_lo + p_hi) / 2
    what = ("the model predicts about the mean" if abs(centre - mean) <= NARROW_SHARE * span
            else "the model predicts about the same score for every example")
    return f"the predictions span {p_lo:.2f}-{p_hi:.2f} of the gold {g_lo:g}-{g_hi:g}: {what}; {SCORES_ADVICE}"


def _squad_gold_from_file(path: Path) -> dict[str, list[str]]:
    """id -> gold texts of an official SQuAD JSON file, read directly (no validation, fast)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    gold = {}
    for article in data.get("data", []):
        for para in article.get("paragraphs", []):
            for qa in para.get("qas", []):
                answers = qa.get("answers") or []
                gold[str(qa.get("id"))] = [a.get("text", "") for a in answers if isinstance(a, dict)]
    return gold


_CACHE: dict[tuple, Baseline | None] = {}


def dev_baseline(config: dict, run_dir: str | Path | None = None) -> Baseline | None:
    """The baseline for a run config's dev data (``task`` and ``dev`` keys of a TrainConfig dict).

    Local files only (a hub id or a missing / unreadable file gives None: a baseline is a hint, never
    an error). ``dev_cap`` > 0 limits it to the first N dev examples, as the run's evaluations are.
    A run without a dev file that held training rows out as dev (``run_dir``'s ``dev_split.csv``, see
    explorer.core.data.split) gets the majority class of those rows' labels.
    Cached on (path, size, mtime_ns, task, label column, cap). The training worker reports it in its ``started``
    event (``dev_baseline``), where the run's data is: a remote run's files stay on its host.
    """
    task, dev = str(config.get("task", "")), str(config.get("dev", "") or "")
    facts = find_task_facts(task)
    if not dev and run_dir is not None and facts is not None and facts.data_kind == "table":
        from explorer.core.runs.layout import dev_split_file

        return _split_baseline(dev_split_file(run_dir), int(config.get("dev_cap", 0) or 0))
    if not dev or facts is None or (facts.is_qa and not facts.has_no_answer):
        return None
    path = Path(dev)
    try:
        st = path.stat()
    except OSError:
        return None
    cap = int(config.get("dev_cap", 0) or 0)
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns, task, str(config.get("label_column", "")), cap)
    if key not in _CACHE:
        _CACHE[key] = _compute(path, config)
    return _CACHE[key]


def _split_baseline(path: Path, cap: int) -> Baseline | None:
    """The majority class of a dev_split.csv's ``label`` column (the raw labels as the file wrote them)."""
    import csv

    try:
        st = path.stat()
    except OSError:
        return None
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns, "dev_split", "", cap)
    if key not in _CACHE:
        try:
            with open(path, newline="", encoding="utf-8") as fh:
                labels = [row.get("label", "") for row in csv.DictReader(fh)]
        except (OSError, ValueError):
            labels = []
        labels = [x for x in labels if x != ""][:cap or None]
        _CACHE[key] = majority_class_baseline(labels)
    return _CACHE[key]


def _compute(path: Path, config: dict) -> Baseline | None:
    facts = find_task_facts(str(config.get("task", "")))
    cap = int(config.get("dev_cap", 0) or 0)
    try:
        if facts is not None and facts.has_no_answer:
            gold = _squad_gold_from_file(path)
            if cap > 0:
                gold = dict(list(gold.items())[:cap])
            return squad_no_answer_baseline(gold)
        if facts is not None and facts.data_kind == "table":
            from explorer.core.data.classification import load_classification

            data = load_classification(os.fspath(path), pair=facts.pair,
                                       text_columns=config.get("text_columns") or None,
                                       label_column=str(config.get("label_column", "")), cap=cap)
            return None if data.regression else majority_class_baseline(list(data.labels))
    except (OSError, ValueError, TypeError, AttributeError):
        return None
    return None

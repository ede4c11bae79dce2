"""Every dev metric and logged scalar declared once: name, label, unit, scale, direction (Qt-free).

One :class:`MetricSpec` row per name, as LIT declares each metric once with ``meta_spec``. Everything that
needs a fact about a metric reads it here: the display scale and labels (``core/specs/metric_display``), which
evaluation is best (``core/specs/best``: direction), which metric may pick ``checkpoints/best`` and rank runs
(``core/specs/tasks``), the Curves plots (drawn by default, their order, whether the y axis may go below 0),
the run states (counts are never plotted) and the glossary (``help``). Adding a metric is one row here;
a name without a row still works (:func:`metric_spec` builds a plain one, see :func:`default_spec`).

Scales and sources:
- the official SQuAD scripts (evaluate-v1.1.py, evaluate-v2.0.py) report exact_match, f1, HasAns_*,
  NoAns_* and best_* in percent; GLUE-style classification metrics (accuracy, f1, Matthews; sklearn,
  HF ``evaluate``) are fractions under the same key names. So ``scale`` is the factor from a stored
  fraction to the displayed percent (100), and QA tasks, whose shares are already percent, display their
  values as stored (``metric_display.display_scale``).
- Correlations (Matthews, Pearson, Spearman) are not shares: -1..1, unscaled. Losses and thresholds
  carry units (nats, score units) and are never scaled.
- Direction: every share and correlation is higher-is-better; ``loss``, ``mse``, ``mae``, ``rmse`` and any
  unknown name ending in one of those is lower-is-better (transformers' Trainer rule for
  ``greater_is_better``, PR #31142). Thresholds, counts and rates are no score (direction None) and may
  never pick the best checkpoint.
- Timings (an HF Trainer's ``eval_runtime``, ``eval_samples_per_second``, ``eval_steps_per_second``, and any
  name ending like them) are how long an evaluation took, not its quality: never a dev plot, never the best
  checkpoint's metric (so no "dev runtime" plot stands between the real metrics).
"""

from __future__ import annotations

from dataclasses import dataclass

UNDEFINED = "undefined"   # an evaluation's metrics key holding {metric: why it has no value} (a correlation of constant
#                          predictions: explorer.core.metrics.regression); the metric itself is NaN, saved as null

LOWER_IS_BETTER_SUFFIXES = ("loss", "mse", "mae", "rmse")
TIMING_SUFFIXES = ("runtime", "_per_second", "_seconds", "compilation_time", "preparation_time")
TIMING_UNITS = ("s", "per second")


@dataclass(frozen=True, kw_only=True)
class MetricSpec:
    """One metric (or logged scalar) name and how it is read.

    Attributes:
        name: the key in ``eval`` events' ``metrics`` (and config's ``metric_for_best``).
        label: short display name ("F1"); a percent metric's label gets " (%)" where it is shown.
        unit: "%" for shares, "count" for sizes (never plotted), "" for unitless (correlations), or the
            unit in words ("nats", "null-odds units", ...).
        scale: factor from the stored value to the displayed one for tasks that store fractions
            (100 for classification shares; 1 for everything else). QA tasks never scale (their shares
            are percent already).
        higher_is_better: True / False; None for a figure that is no score (threshold, count, rate).
        signed: whether the value can be negative (its y axis may go below 0).
        drawn_by_default: Curves plots it without being asked.
        order: position among the dev plots in Curves and in menus (lower first).
        can_pick_best: may be ``metric_for_best`` (pick ``checkpoints/best``) and rank runs.
        help: one or two sentences for the glossary tooltip ("" = none).
        short: the label in a narrow column (the Runs list's Best dev: "79.25% acc"); "" = ``label``.
        correlation: a correlation on -1..1 (Matthews, Pearson, Spearman), written with 3 decimals and never
            rounded up to a perfect 1 (``metric_display.correlation_number``).
        listed_as: for a figure tuned on the dev questions it is scored on (SQuAD 2.0's best_f1: F1 at the
            answer/abstain threshold evaluate-v2.0 picks on those questions), the metric of the same evaluation
            without that tuning (f1: F1 at τ = 0, the model's own decision), which lists and ranks a run picked by
            this one (``core/specs/best.listed_best``); "" = the metric lists itself.
    """

    name: str
    label: str
    unit: str = ""
    scale: float = 1.0
    higher_is_better: bool | None = True
    signed: bool = False
    drawn_by_default: bool = False
    order: int = 1000
    can_pick_best: bool = True
    help: str = ""
    short: str = ""
    correlation: bool = False
    listed_as: str = ""

    @property
    def is_percent(self) -> bool:
        """Shown in percent (its label gets " (%)")."""
        return self.unit == "%"

    @property
    def is_count(self) -> bool:
        """A size (total, HasAns_total, ...), not a score: never plotted."""
        return self.unit == "count"

    @property
    def is_timing(self) -> bool:
        """How long an evaluation took (seconds, or a rate per second), not a score: never plotted."""
        return self.unit in TIMING_UNITS

    @property
    def is_plotted(self) -> bool:
        """A dev value Curves may plot and a group may summarise: anything but sizes and timings."""
        return not (self.is_count or self.is_timing)


def _share(name, label, order, *, scale=100.0, drawn=False, help="", short=""):   # noqa: A002 - the field it fills
    """A share: percent on screen, >= 0, higher is better. scale 100 = stored as a fraction outside QA."""
    return MetricSpec(name=name, label=label, unit="%", scale=scale, drawn_by_default=drawn, order=order, help=help,
                      short=short)


def _qa_share(name, label, order, *, drawn=False, help="", listed_as=""):   # noqa: A002 - the field it fills
    """A SQuAD share that only the official QA scripts report (percent already)."""
    return MetricSpec(name=name, label=label, unit="%", drawn_by_default=drawn, order=order, help=help,
                      listed_as=listed_as)


def _correlation(name, label, order, *, help="", short=""):   # noqa: A002 - the MetricSpec field it fills
    return MetricSpec(name=name, label=label, signed=True, order=order, help=help, short=short, correlation=True)


def _figure(name, label, order, unit, *, signed=True, help=""):   # noqa: A002 - the MetricSpec field it fills
    """A threshold or setting echoed with the metrics: no direction, never picks the best checkpoint."""
    return MetricSpec(name=name, label=label, unit=unit, higher_is_better=None, signed=signed, order=order,
                      can_pick_best=False, help=help)


def _lower(name, label, order, unit, *, help=""):   # noqa: A002 - the MetricSpec field it fills
    return MetricSpec(name=name, label=label, unit=unit, higher_is_better=False, order=order, help=help)


def _count(name):
    return MetricSpec(name=name, label=name, unit="count", higher_is_better=None, order=2000, can_pick_best=False)


def _timing(name):
    """A timing of the evaluation (HF Trainer's eval_runtime, ...): no direction, never plotted, never picks."""
    unit = "per second" if name.endswith("_per_second") else "s"
    return MetricSpec(name=name, label=name, unit=unit, higher_is_better=None, order=2100, can_pick_best=False)


_ROWS = (
    # ---- SQuAD (official evaluate-v1.1.py / evaluate-v2.0.py; percent) ---------------------------------
    _share("f1", "F1", 0, drawn=True, help=(
        "The average token-overlap F1 between prediction and gold answer, in percent: "
        "F1 = 2·precision·recall / (precision + recall) on normalised tokens, the best over the gold answers. "
        "An unanswerable question scores 100 for an empty prediction and 0 otherwise.")),
    _share("exact_match", "EM", 10, drawn=True, help=(
        "EM: the percentage of questions whose prediction equals a gold answer after normalisation (lower "
        "case, punctuation and a/an/the removed, spaces collapsed). For an unanswerable question the "
        "prediction must be empty.")),
    _share("accuracy", "accuracy", 20, drawn=True, short="acc", help=(
        "Classification: the percentage of examples whose predicted label equals the gold label.")),
    _qa_share("HasAns_f1", "HasAns F1", 30, drawn=True, help=(
        "F1 over the questions that have an answer only. It drops when τ is too high (the model abstains "
        "on questions it could answer).")),
    _qa_share("NoAns_f1", "NoAns F1", 40, drawn=True, help=(
        "F1 over the unanswerable questions only, which equals the percentage of them the model correctly "
        "left unanswered. It drops when τ is too low.")),
    _qa_share("best_f1", "best F1", 50, listed_as="f1", help=(
        "The highest overall F1 reachable on this dev set by choosing the threshold, in percent. The threshold is "
        "chosen on the same dev questions it is scored on, so the figure is optimistic; τ on dev set gives the "
        "honest half-split F1.")),
    _qa_share("HasAns_exact", "HasAns EM", 60, help="Exact match over the questions that have an answer only."),
    _qa_share("NoAns_exact", "NoAns EM", 70, help=(
        "Exact match over the unanswerable questions only (the same as NoAns_f1).")),
    _qa_share("best_exact", "best EM", 80, listed_as="exact_match"),
    _figure("best_f1_thresh", "best_f1_thresh", 90, "null-odds units", help=(
        "The threshold that gives best_f1, in the official script's null-odds units "
        "(null_score − best_non_null_score = −score_diff): answer iff null odds ≤ it, i.e. score_diff ≥ "
        "−best_f1_thresh. best_tau is the same decision in τ units, halfway between −best_f1_thresh and the "
        "next lower score_diff.")),
    _figure("best_exact_thresh", "best_exact_thresh", 91, "null-odds units"),
    _figure("best_tau", "best_tau", 100, "score_diff units", help=(
        "The τ that maximises F1 on the dev set (answer iff score_diff > best_tau): halfway between "
        "−best_f1_thresh and the next lower score_diff, so it answers the questions the official threshold does.")),
    _figure("tau", "tau", 101, "score_diff units"),
    MetricSpec(name="answer_rate", label="answer_rate", unit="%", higher_is_better=None, order=102,
               can_pick_best=False, help=(
        "The percentage of questions the model answers at a given τ, i.e. with score_diff > τ. Compare it "
        "with the share of dev questions that really have an answer.")),
    # ---- every task -------------------------------------------------------------------------------------
    _lower("loss", "loss", 110, "nats", help=(
        "The task's training objective averaged over the dev set (cross-entropy in nats; QA: the mean of the "
        "start and end cross-entropies; regression: squared error). Lower is better.")),
    # ---- classification (fractions, shown in percent; correlations unscaled) ----------------------------
    _share("macro_f1", "macro F1", 120, drawn=True, help=(
        "The unweighted mean of the per-class F1 scores, in percent: every class counts the same, however rare.")),
    _share("weighted_f1", "weighted F1", 121),
    _share("f_avg", "F_avg", 122),
    _share("precision", "precision", 123),
    _share("recall", "recall", 124),
    _correlation("matthews_corrcoef", "matthews_corrcoef", 130, short="MCC", help=(
        "Matthews correlation between predicted and gold labels, from −1 to 1 (0 = chance), the CoLA metric of "
        "GLUE; unlike accuracy it is not flattered by a majority class.")),
    # ---- regression (STS-B style) ----------------------------------------------------------------------
    MetricSpec(name="pearson", label="pearson", signed=True, drawn_by_default=True, order=140, correlation=True, help=(
        "Pearson correlation between predictions and gold scores, from −1 to 1 (STS-B's main metric).")),
    _correlation("spearman", "spearman", 141, help=(
        "Spearman rank correlation between predictions and gold scores, from −1 to 1 (STS-B).")),
    _lower("mse", "mse", 142, "label units²", help=(
        "Mean squared error between predicted and gold scores, in squared label units. Lower is better.")),
    _lower("rmse", "rmse", 143, "label units"),
    _lower("mae", "mae", 144, "label units"),
    MetricSpec(name="r2", label="R²", signed=True, order=145, help=(
        "Coefficient of determination, 1 − mse / (mse of always predicting the dev mean): 1 = exact, 0 or below = "
        "no better than predicting the mean score for every row (sklearn's r2_score).")),
    _figure("mse_of_mean", "mse of the mean", 146, "label units²", signed=False, help=(
        "The mse of always predicting the dev gold mean (the gold scores' variance): the mse a model must beat.")),
    # ---- multi-label, token tagging ---------------------------------------------------------------------
    _share("micro_f1", "micro F1", 150, drawn=True),
    _share("subset_accuracy", "subset accuracy", 151, short="subset acc"),
    # multi-label thresholds tuned on one half of dev and scored on the other, both ways (the honest τ's rule)
    _share("honest_micro_f1", "micro F1 (thresholds tuned on the other half)", 152),
    _share("honest_macro_f1", "macro F1 (thresholds tuned on the other half)", 153),
    _share("honest_subset_accuracy", "subset accuracy (thresholds tuned on the other half)", 154),
    _share("micro_f1_B_at_A", "micro F1 of half B at half A's thresholds", 155),
    _share("micro_f1_A_at_B", "micro F1 of half A at half B's thresholds", 156),
    _share("dev_tuned_micro_f1", "micro F1 at thresholds tuned on all of dev (flattered)", 157),
    _share("token_accuracy", "token accuracy", 160, short="token acc"),
    # ---- sizes (reported with the metrics, never plotted) -----------------------------------------------
    _count("total"), _count("HasAns_total"), _count("NoAns_total"), _count("n_examples"), _count("num_examples"),
    _count("entities"),   # token tagging: the gold entities of the dev set
)
# timings have no rows: default_spec's suffix rule (samples_per_second is also a training step scalar's name)

METRICS: dict[str, MetricSpec] = {spec.name: spec for spec in _ROWS}


def lower_is_better_name(name: str) -> bool:
    """The rule for a name without a row: ``*loss``, ``*mse``, ``*mae``, ``*rmse`` are lower-is-better."""
    return str(name).lower().endswith(LOWER_IS_BETTER_SUFFIXES)


def default_spec(name: str) -> MetricSpec:
    """The spec of a name without a row: its name as label, unscaled, drawn by default (a worker that
    reports a new scalar wants it seen), after the known ones; lower-is-better by
    :func:`lower_is_better_name`, else higher-is-better. ``signed`` False: the y axis pads no further
    below 0 than the data go (``ui/curves/plot.y_range`` clamps only a series without negative values).
    A name ending like a timing (TIMING_SUFFIXES: ``*_runtime``, ``*_per_second``, ...) is a timing."""
    if str(name).lower().endswith(TIMING_SUFFIXES):
        return _timing(str(name))
    return MetricSpec(name=str(name), label=str(name), higher_is_better=not lower_is_better_name(name),
                      drawn_by_default=True, order=1000)


def metric_spec(name: str) -> MetricSpec:
    """The row of ``name``, or :func:`default_spec` for a name without one (never raises)."""
    return METRICS.get(name) or default_spec(name)


def known_metric(name: str) -> bool:
    """Whether ``name`` has a row."""
    return name in METRICS


def higher_is_better(name: str | None) -> bool:
    """The direction used to pick the best evaluation: False for lower-is-better metrics (loss, mse, ...),
    True otherwise (also for None and for figures without a direction)."""
    if name is None:
        return True
    return metric_spec(name).higher_is_better is not False


def signed_metrics() -> tuple[str, ...]:
    """The names with a row that can be negative (correlations, thresholds)."""
    return tuple(s.name for s in _ROWS if s.signed)


def count_metrics() -> tuple[str, ...]:
    """The names that are sizes, not scores (never plotted)."""
    return tuple(s.name for s in _ROWS if s.is_count)


def drawn_by_default() -> tuple[str, ...]:
    """The rows Curves plots without being asked, in plot order."""
    return tuple(s.name for s in sorted(_ROWS, key=lambda s: s.order) if s.drawn_by_default)


def ranking_fallbacks() -> tuple[str, ...]:
    """Higher-is-better metrics that may rank a run whose evaluations lack its chosen metric, in plot order
    (f1, exact_match, accuracy, ..., pearson, spearman, ...)."""
    return tuple(s.name for s in sorted(_ROWS, key=lambda s: s.order) if s.can_pick_best and s.higher_is_better)


def sort_key(name: str) -> tuple[int, str]:
    """Order of dev metrics in Curves and menus: the rows' ``order``, unknown names after, by name."""
    return (metric_spec(name).order, name)


def help_texts() -> dict[str, str]:
    """name -> glossary tooltip of every row that has one."""
    return {s.name: s.help for s in _ROWS if s.help}


# ---- the figure a field quotes for a kind of data -----------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class FieldFigure:
    """The figure papers on one kind of data report, recognised by its label names.

    Attributes:
        classes: the label names that identify the data (exactly these, as the field's files spell them).
        averaged: the classes whose F1 the figure averages (``--f1-classes``; the run then reports ``f_avg``).
        words: the figure in a sentence, with its source.
    """

    classes: frozenset[str]
    averaged: tuple[str, ...]
    words: str


FIELD_FIGURES = (
    FieldFigure(classes=frozenset({"FAVOR", "AGAINST", "NONE"}), averaged=("FAVOR", "AGAINST"),
                words="SemEval-2016 Task 6 (stance) quotes F_avg = (F1(FAVOR) + F1(AGAINST)) / 2, the official "
                      "score (Mohammad et al. 2016), not accuracy or macro F1 over the three classes"),
)


def field_f1_classes(label_names) -> tuple[str, ...]:
    """The F1 classes of the figure a field quotes when ``label_names`` are that field's classes (FAVOR, AGAINST,
    NONE -> ("FAVOR", "AGAINST"): SemEval-2016 stance's F_avg), else (). The launcher fills F1 classes with them."""
    names = frozenset(str(n) for n in (label_names or ()))
    return next((figure.averaged for figure in FIELD_FIGURES if names == figure.classes), ())


def field_figure_note(label_names, f1_classes=()) -> tuple[str, str] | None:
    """A (level, message) note for a data report when ``label_names`` are a known field's classes: which figure
    the field quotes, and, when ``f1_classes`` do not name its classes, how to get it; None otherwise."""
    names = frozenset(str(n) for n in (label_names or ()))
    for figure in FIELD_FIGURES:
        if names != figure.classes:
            continue
        flag = ",".join(figure.averaged)
        if list(f1_classes or ()) and set(f1_classes) == set(figure.averaged):
            return "info", f"the labels are {', '.join(sorted(names))}: {figure.words}; this run reports it as f_avg"
        return "info", (f"the labels are {', '.join(sorted(names))}: {figure.words}. This run reports accuracy and "
                        f"macro F1; to report F_avg (and pick the best checkpoint by it), add --f1-classes {flag} "
                        f"(launcher: F1 classes {flag})")
    return None

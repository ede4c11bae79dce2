"""One display scale for dev metrics: percent, labelled (Qt-free).

The official SQuAD scripts report exact_match / f1 in percent (0-100) while GLUE-style classification
metrics (accuracy, f1) are fractions (0-1) under the same key names. Every display (curves, the Runs
list, the CLI) shows the percent form and says so in its label: "F1 (%)". Correlations (Matthews,
Pearson, Spearman) are not shares and stay on their own -1..1 scale; loss and thresholds are
unit-bearing numbers, never scaled. Labels, units and scales are rows of ``core/specs/metrics``.
"""

from __future__ import annotations

import math

from explorer.core.specs.metrics import metric_spec
from explorer.core.specs.tasks import find_task_facts, is_qa_task


def is_percent(name: str, task: str | None = None) -> bool:
    """Whether metric ``name`` is shown as a percentage (its row's unit is "%"; core/specs/metrics).
    ``task`` is accepted for callers that have one: a name means the same share in every task."""
    return metric_spec(name).is_percent


def display_scale(name: str, task: str) -> float:
    """Factor from the stored value to the displayed one: the row's ``scale`` (100 for classification
    shares stored as fractions), 1 for the QA tasks (the official SQuAD scripts report percent)."""
    return 1.0 if is_qa_task(task) else metric_spec(name).scale


def display_range(name: str) -> tuple[float | None, float | None]:
    """The values a metric can take on the display scale: 0..100 for a share shown in percent (accuracy, F1,
    exact match), -1..1 for a correlation (Matthews, Pearson, Spearman), (None, None) for an unbounded figure
    (a loss, an error, a threshold). An interval of the metric is clipped to it (MeanInterval.clipped)."""
    spec = metric_spec(name)
    if spec.is_percent:
        return 0.0, 100.0
    if spec.correlation:
        return -1.0, 1.0
    return None, None


def to_display(name: str, value: float, task: str) -> float:
    """The displayed value of a stored metric (see module docstring)."""
    return float(value) * display_scale(name, task)


def metric_name(name: str, task: str | None = None) -> str:
    """The metric's name without a unit ('accuracy', 'F_avg', 'entity F1' for ner's f1): its row's label, or
    the name the task's TaskFacts give it."""
    facts = find_task_facts(task) if task else None
    label = metric_spec(name).label
    return dict(facts.metric_labels).get(name, label) if facts is not None else label


def metric_label(name: str, task: str | None = None) -> str:
    """'F1 (%)', 'accuracy (%)', 'matthews_corrcoef', 'best_f1_thresh', ... for axes and columns; with a
    ``task`` whose TaskFacts name the metric otherwise, that name ('entity F1 (%)' for ner)."""
    spec = metric_spec(name)
    label = metric_name(name, task)
    return f"{label} (%)" if spec.is_percent else label


def value_then_metric(name: str, value: float, task: str | None = None, sd: float | None = None) -> str:
    """'66.70% F1', '70.6 ± 15.0% acc', '0.412 MCC': a display-scale ``value`` (and sample sd ``sd``, with one
    digit less: a spread over a few seeds has no second decimal) first, then the metric's short name (its row's
    ``short``, else its label; a task's longer name for it, "entity F1", is left to the tooltip, so ``task`` only
    keeps the callers' signature), the form of a narrow column (the Runs list's "Best dev", where "79.25%
    accuracy" is elided at 1280 px); the unit sits on the number instead of a " (%)" after the name."""
    return f"{value_with_unit(name, value, sd)} {metric_short(name)}"


def metric_short(name: str) -> str:
    """A metric's short name for a narrow place ('F1', 'acc', 'MCC'): its row's ``short``, else its label."""
    spec = metric_spec(name)
    return spec.short or spec.label   # the task's longer name ("entity F1") is in the cell's tooltip


def value_with_unit(name: str, value: float, sd: float | None = None) -> str:
    """'66.70%', '70.6 ± 15.0%', '0.412': a display-scale ``value`` (and sample sd ``sd``, one digit less) with the
    metric's unit on the number."""
    number = display_number(name, value, sd=sd is not None)
    number = number if sd is None else f"{number} ± {display_number(name, sd, sd=True)}"
    return f"{number}{'%' if metric_spec(name).is_percent else ''}"


def display_number(name: str, value: float, *, sd: bool = False) -> str:
    """A display-scale value as the Runs list writes it: 2 decimals for a share in percent ('41.46'), 3 for
    other metrics ('0.141'); one less for a spread (``sd``) or a mean beside it. For table cells whose column
    header carries the metric and unit."""
    if metric_spec(name).correlation and not sd:
        return correlation_number(value)
    digits = (2 if metric_spec(name).is_percent else 3) - sd
    return f"{value:.{digits}f}"


def correlation_number(value: float) -> str:
    """A correlation (-1..1) with 3 decimals, '0.412'; one within 0.0005 of ±1 but not ±1 gets 4 decimals,
    cut rather than rounded ('0.9997', 0.99996 -> '0.9999'), so only a perfect correlation reads '1.000'."""
    magnitude = abs(value)
    if 0.9995 <= magnitude < 1.0:
        return f"{math.copysign(math.floor(magnitude * 1e4) / 1e4, value):.4f}"
    return f"{value:.3f}"


def name_equals_value(name: str, value: float, task: str) -> str:
    """'f_avg=49.85%', 'f1=35.66%', 'pearson=0.8123', 'loss=0.3412': a stored metric value on the display scale
    under its field name, for lines scripts read (``bert-explorer runs``): every share in percent, whatever scale
    its source stored it on (a fraction in GLUE-style metrics, percent in SQuAD's); "undefined" when not finite."""
    if value is None or not math.isfinite(value):
        return f"{name}=undefined"
    if is_percent(name, task):
        return f"{name}={to_display(name, value, task):.2f}%"
    return f"{name}={value:.4g}"


def format_metric(name: str, value: float, task: str) -> str:
    """'F1 (%) 66.70' style text of one stored metric value, on the display scale (a correlation: 3 decimals,
    'matthews_corrcoef 0.412', see correlation_number); a value that is missing or
    not finite (a correlation of constant predictions) reads "undefined", never a number."""
    if value is None or not math.isfinite(value):
        return f"{metric_label(name, task)} undefined"
    shown = to_display(name, value, task)
    number = correlation_number(shown) if metric_spec(name).correlation else f"{shown:.2f}"
    return f"{metric_label(name, task)} {number}"


def undefined_text(name: str, reason: str, task: str | None = None, *, short: bool = False) -> str:
    """A metric that has no value, with why: 'pearson undefined: the predictions are constant (2.5 for all 16
    rows)'; ``short``: 'undefined pearson' (the row's short name where it has one), the form of a narrow column
    (the Runs list's Best dev), whose tooltip gives the reason."""
    if short:
        spec = metric_spec(name)
        return f"undefined {spec.short or spec.label}"
    return f"{metric_name(name, task)} undefined" + (f": {reason}" if reason else "")


def abstaining_scores_best(metrics: dict) -> bool:
    """Whether the official best threshold is the all-abstain one: best_f1 equals the share of unanswerable
    questions (NoAns_total / total, in percent) and best_f1_thresh kept the script's starting value 0.0.
    Then the model's span scores never beat "no answer" anywhere, and 0.0 is not a threshold to use."""
    try:
        total = metrics["HasAns_total"] + metrics["NoAns_total"] if "HasAns_total" in metrics else metrics["NoAns_total"]
        share = 100.0 * metrics["NoAns_total"] / total
        return metrics.get("best_f1_thresh") == 0.0 and abs(metrics["best_f1"] - share) < 1e-6
    except (KeyError, TypeError, ZeroDivisionError):
        return False


def abstain_note(metrics: dict) -> str:
    """One line for an all-abstain best threshold (see abstaining_scores_best), '' otherwise."""
    if not abstaining_scores_best(metrics):
        return ""
    return (f"note: best_f1 {metrics['best_f1']:.2f} is what answering nothing scores (the share of unanswerable "
            f"questions, {metrics['NoAns_total']} of {metrics.get('HasAns_total', 0) + metrics['NoAns_total']}); "
            "best_f1_thresh 0.000 is the official script's starting value, not a threshold to use: no threshold "
            "made the model's answers score better than abstaining everywhere")


def threshold_relation(best_tau: float, best_f1_thresh: float) -> str:
    """One line relating the official best_f1_thresh to the app's best τ (core.metrics.squad._tau_between): null odds
    = null_score - best_non_null_score = -score_diff, so the script's "answer iff null odds <= t" is "answer iff
    score_diff >= -t"; best τ sits halfway between -t and the next lower score_diff, so "score_diff > τ" answers
    the same questions (τ is a little below -t, never exactly -t)."""
    return (f"best_f1_thresh {best_f1_thresh:.3f} is in null-odds units (null_score − best_non_null_score = "
            f"−score_diff; answer iff null odds ≤ it, i.e. score_diff ≥ {-best_f1_thresh:+.3f}); τ {best_tau:+.3f} "
            "is in score_diff units, halfway from there to the next lower score_diff, so score_diff > τ answers "
            "the same questions")


def explain_best_threshold(metrics: dict, n_answered: int | None = None) -> list[str]:
    """Plain lines that explain SQuAD 2.0's two best-threshold numbers, each in its own units.

    - ``best_f1_thresh``: the official evaluate-v2.0 search over null_odds.json; null odds = null_score -
      best_non_null_score; a question is answered iff its null odds <= the threshold. When abstaining on
      every question scores best the script keeps its starting value 0.0, which then means nothing.
    - ``best_tau``: the same decision in score_diff units (score_diff = best_non_null_score - null_score;
      answer iff score_diff > tau), the τ of the inspectors and ``--tau``.

    ``n_answered``: how many questions ``score_diff > best_tau`` answers (None: not said).
    """
    if "best_f1" not in metrics:
        return []
    tau, thresh = metrics.get("best_tau"), metrics.get("best_f1_thresh")
    lines = [f"best_f1 {metrics['best_f1']:.2f}: the F1 with the best answer/abstain threshold "
             f"(official evaluate-v2.0 search), given two ways:"]
    if thresh is not None:
        note = ("; 0.000 is the script's starting value: abstaining on every question scored best"
                if n_answered == 0 or abstaining_scores_best(metrics) else "")
        lines.append(f"  best_f1_thresh {thresh:.3f}  official, null-odds units (null_odds.json = null_score - "
                     f"best_non_null_score): answer iff null odds <= it{note}")
    if tau is not None:
        answered = f"; answers {n_answered} questions" if n_answered is not None else ""
        lines.append(f"  best_tau {tau:+.3f}  this app's τ, score_diff units (best_non_null_score - null_score): "
                     f"answer iff score_diff > τ (use it as --tau or in the Spans & τ tab){answered}")
        if thresh is not None and n_answered != 0 and not abstaining_scores_best(metrics):
            lines.append(f"  ({threshold_relation(tau, thresh)})")
    return lines

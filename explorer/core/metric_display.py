"""One display scale for dev metrics: percent, labelled (Qt-free).

The official SQuAD scripts report exact_match / f1 in percent (0-100) while GLUE-style classification
metrics (accuracy, f1) are fractions (0-1) under the same key names. Every display (curves, the Runs
list, the CLI) shows the percent form and says so in its label: "F1 (%)". Correlations (Matthews,
Pearson, Spearman) are not shares and stay on their own -1..1 scale; loss and thresholds are
unit-bearing numbers, never scaled.
"""

from __future__ import annotations

QA_TASKS = ("squad_v1", "squad_v2")
# Shares that classification reports as fractions; SQuAD's are already percent.
FRACTION_METRICS = ("accuracy", "f1", "precision", "recall", "exact_match")
# Metrics of SQuAD that are percentages (the official scripts' scale).
PERCENT_METRICS = ("exact_match", "f1", "HasAns_exact", "HasAns_f1", "NoAns_exact", "NoAns_f1",
                   "best_exact", "best_f1", "answer_rate")
LABELS = {"f1": "F1", "exact_match": "EM", "accuracy": "accuracy", "HasAns_f1": "HasAns F1",
          "HasAns_exact": "HasAns EM", "NoAns_f1": "NoAns F1", "NoAns_exact": "NoAns EM", "best_f1": "best F1",
          "best_exact": "best EM", "precision": "precision", "recall": "recall"}


def is_percent(name: str, task: str | None = None) -> bool:
    """Whether metric ``name`` of a ``task`` run is shown as a percentage (task None: of any run)."""
    if task is None:
        return name in PERCENT_METRICS or name in FRACTION_METRICS
    if task in QA_TASKS:
        return name in PERCENT_METRICS
    return name in FRACTION_METRICS


def display_scale(name: str, task: str) -> float:
    """Factor from the stored value to the displayed one: 100 for classification shares, else 1."""
    return 100.0 if task not in QA_TASKS and name in FRACTION_METRICS else 1.0


def to_display(name: str, value: float, task: str) -> float:
    """The displayed value of a stored metric (see module docstring)."""
    return float(value) * display_scale(name, task)


def metric_label(name: str, task: str | None = None) -> str:
    """'F1 (%)', 'accuracy (%)', 'matthews_correlation', 'best_f1_thresh', ... for axes and columns."""
    label = LABELS.get(name, name)
    return f"{label} (%)" if is_percent(name, task) else label


def format_metric(name: str, value: float, task: str) -> str:
    """'F1 (%) 66.70' style text of one stored metric value, on the display scale."""
    return f"{metric_label(name, task)} {to_display(name, value, task):.2f}"

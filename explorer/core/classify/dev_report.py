"""The classification dev-set view's numbers: accuracy, F1, MCC, the confusion matrix, the examples nearest
the decision boundary and the most confident mistakes (numpy only; explorer.core.training.dev_scoring runs a
model over a dev file and makes them).

Margin of an example = P(top class) - P(second class) (0 = on the boundary). Confidence of a mistake =
P(predicted class). Metric definitions: explorer.core.metrics.glue (GLUE, Wang et al. 2019).

A regression head (STS-B) gets a :class:`RegressionDevReport` instead: Pearson, Spearman, MSE
(explorer.core.metrics.regression), every (gold, predicted) pair for the scatter against the identity
line, and the examples with the largest errors. A multi-label head gets a :class:`MultiLabelDevReport`: micro /
macro F1 and subset accuracy at the checkpoint's saved thresholds (``label_thresholds``; 0.5 without) and per
label (explorer.core.metrics.multilabel).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from explorer.core.metrics.glue import accuracy, binary_f1, matthews_corrcoef


@dataclass
class DevRow:
    """One dev example as the view lists it: its index, texts, gold label, prediction and probabilities."""

    index: int
    text_a: str
    text_b: str
    label: int
    prediction: int
    probabilities: list[float]
    margin: float

    @property
    def confidence(self) -> float:
        return float(self.probabilities[self.prediction])


@dataclass
class ClassificationDevReport:
    """Dev-set summary for a classifier or a multiple-choice model.

    Attributes:
        accuracy, f1 (binary, class 1; macro-averaged over classes when K > 2), mcc: fractions.
        confusion: (K, K) int counts, rows = gold label, columns = prediction.
        boundary: the ``n`` examples with the smallest margin (nearest the decision boundary).
        mistakes: the ``n`` wrong examples with the highest confidence, most confident first.
        total: examples scored.
        logits: (N, K) float64 and labels: (N,) int64 of every scored example, for calibration
            (explorer.core.metrics.calibration: reliability, temperature scaling); None in reports built elsewhere.
        per_class: {class name: {precision, recall, f1, support}} (fractions; support a count), as the
            training run's dev evaluation reports it (explorer.core.metrics.glue.per_class_metrics);
            empty for multiple choice (its "classes" are ending positions).
        macro_f1, weighted_f1: F1 averaged over the classes, unweighted / weighted by support (fractions).
        f1_classes, f_avg: the classes the run averaged into F_avg (SemEval-2016's official measure,
            ``--f1-classes``) and that average; () and None when the run named none.
    """

    accuracy: float
    f1: float
    mcc: float
    confusion: np.ndarray
    boundary: list[DevRow] = field(default_factory=list)
    mistakes: list[DevRow] = field(default_factory=list)
    total: int = 0
    label_names: list[str] = field(default_factory=list)
    logits: np.ndarray | None = None
    labels: np.ndarray | None = None
    per_class: dict = field(default_factory=dict)
    macro_f1: float = 0.0
    weighted_f1: float = 0.0
    f1_classes: tuple = ()
    f_avg: float | None = None


@dataclass
class ScoreRow:
    """One regression dev example: its index, texts, gold and predicted score, and predicted - gold."""

    index: int
    text_a: str
    text_b: str
    gold: float
    predicted: float

    @property
    def error(self) -> float:
        return float(self.predicted - self.gold)


@dataclass
class RegressionDevReport:
    """Dev-set summary of a regression head.

    Attributes:
        pearson, spearman: correlations in [-1, 1]; mse: mean squared error (label units squared).
        gold, predicted: (N,) float64, for the scatter of predicted against gold (identity line = perfect).
        worst: the ``n`` examples with the largest |predicted - gold|, largest first.
        total: examples scored; label_names: the output's name (e.g. ["score"]).
        undefined: why a correlation has no value (NaN): "pearson and spearman undefined: the predictions are
            constant (2.5 for all 200 rows)" (explorer.core.metrics.regression.undefined_note); "" when both are
            defined.
        r2: the coefficient of determination, 1 - mse / mse_of_mean (sklearn.metrics.r2_score; 0 or less: no
            better than always predicting the gold mean; NaN for constant gold scores); mse_of_mean: that mean
            predictor's MSE, the gold's population variance (label units squared).
    """

    pearson: float
    spearman: float
    mse: float
    gold: np.ndarray
    predicted: np.ndarray
    worst: list[ScoreRow] = field(default_factory=list)
    total: int = 0
    label_names: list[str] = field(default_factory=list)
    undefined: str = ""
    r2: float = math.nan
    mse_of_mean: float = math.nan

    def mean_figures(self) -> dict:
        """mse, mse_of_mean and r2 under their evaluation metrics' names (explorer.core.metrics.regression), for
        the notes that compare the model with the mean predictor (explorer.core.metrics.baselines.below_mean)."""
        return {"mse": self.mse, "mse_of_mean": self.mse_of_mean, "r2": self.r2}


def regression_dev_report(scores, gold, texts_a: list[str], texts_b: list[str] | None = None, *,
                          n: int = 10, label_names: list[str] | None = None) -> RegressionDevReport:
    """Summarise regression dev predictions. scores: (N,) or (N, 1); gold: (N,).

    Raises:
        ValueError: the lengths differ."""
    from explorer.core.metrics.regression import regression_metrics, undefined_note

    pred = np.asarray(scores, dtype=np.float64).reshape(-1)
    y = np.asarray(gold, dtype=np.float64).reshape(-1)
    m = regression_metrics(pred, y)
    texts_b = texts_b or [""] * len(y)
    rows = [ScoreRow(i, texts_a[i], texts_b[i], float(y[i]), float(pred[i])) for i in range(len(y))]
    worst = sorted(rows, key=lambda r: -abs(r.error))[:n]
    return RegressionDevReport(m["pearson"], m["spearman"], m["mse"], y, pred, worst, int(len(y)),
                               label_names or ["score"], undefined=undefined_note(m), r2=m["r2"],
                               mse_of_mean=m["mse_of_mean"])


@dataclass
class MultiLabelDevReport:
    """Dev-set summary of a multi-label head at its saved thresholds.

    Attributes:
        micro_f1, macro_f1, subset_accuracy: fractions (explorer.core.metrics.multilabel).
        label_names; thresholds: (K,) the tau used per label; label_f1: (K,) F1 per label; support: (K,) gold
        positives per label; total: examples scored.
    """

    micro_f1: float
    macro_f1: float
    subset_accuracy: float
    label_names: list[str]
    thresholds: np.ndarray
    label_f1: np.ndarray
    support: np.ndarray
    total: int = 0


def multilabel_dev_report(logits, gold_ids: list[list[int]], label_names: list[str],
                          thresholds) -> MultiLabelDevReport:
    """Summarise multi-label dev predictions. logits: (N, K); gold_ids: the gold label ids per example."""
    from explorer.core.data.scores_and_label_sets import multi_hot
    from explorer.core.metrics.multilabel import multilabel_scores, predict, sigmoid

    z = np.asarray(logits, dtype=np.float64)
    y = multi_hot(gold_ids, z.shape[1]).astype(np.int64)
    tau = np.asarray(thresholds, dtype=np.float64)
    s = multilabel_scores(y, predict(sigmoid(z), tau))
    return MultiLabelDevReport(s["micro_f1"], s["macro_f1"], s["subset_accuracy"], list(label_names), tau,
                               np.asarray(s["label_f1"]), y.sum(0), int(len(y)))


def _f1(labels: np.ndarray, preds: np.ndarray, k: int) -> float:
    """The binary F1 of class 1 for two classes, else the macro F1 by the run's own rule (the classes in the gold
    labels or the predictions: core.metrics.glue.per_class_metrics), so the page's headline and its per-class
    table's macro row are one figure."""
    if k <= 2:
        return binary_f1(labels, preds)
    from explorer.core.metrics.glue import per_class_metrics

    return per_class_metrics(labels, preds, [str(c) for c in range(k)])["macro_f1"]


def dev_report(logits, labels, texts_a: list[str], texts_b: list[str] | None = None, *, n: int = 10,
               label_names: list[str] | None = None, f1_classes=(), multiple_choice: bool = False
               ) -> ClassificationDevReport:
    """Summarise dev predictions. logits: (N, K) (scores per class, or per choice for SWAG); labels: (N,) ints.

    ``f1_classes``: class names averaged into F_avg (the run's ``f1_classes``; names the head lacks are left
    out). ``multiple_choice``: no per-class figures (the columns are ending positions, not classes).

    Raises:
        ValueError: logits and labels disagree in length, or logits are not 2-D.
    """
    z = np.asarray(logits, dtype=np.float64)
    y = np.asarray(labels, dtype=np.int64)
    if z.ndim != 2 or z.shape[0] != y.shape[0]:
        raise ValueError(f"dev_report: logits {z.shape} and labels {y.shape} do not match (expected (N, K), (N,))")
    k = z.shape[1]
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    pred = p.argmax(axis=1)
    top2 = np.sort(p, axis=1)[:, -2:] if k > 1 else np.concatenate([np.zeros_like(p), p], 1)
    margin = top2[:, 1] - top2[:, 0]
    confusion = np.zeros((k, k), dtype=np.int64)
    np.add.at(confusion, (y, pred), 1)
    texts_b = texts_b or [""] * len(y)
    rows = [DevRow(i, texts_a[i], texts_b[i], int(y[i]), int(pred[i]), p[i].tolist(), float(margin[i]))
            for i in range(len(y))]
    boundary = sorted(rows, key=lambda r: r.margin)[:n]
    mistakes = sorted((r for r in rows if r.prediction != r.label), key=lambda r: -r.confidence)[:n]
    names = list(label_names or [str(c) for c in range(k)])
    extra: dict = {}
    if not multiple_choice and len(y):
        from explorer.core.metrics.glue import f_avg, per_class_metrics

        figures = per_class_metrics(y, pred, names)
        chosen = tuple(c for c in (f1_classes or ()) if c in figures["per_class"])
        extra = {"per_class": figures["per_class"], "macro_f1": figures["macro_f1"],
                 "weighted_f1": figures["weighted_f1"], "f1_classes": chosen,
                 "f_avg": f_avg(figures["per_class"], list(chosen)) if chosen else None}
    return ClassificationDevReport(accuracy(y, pred), _f1(y, pred, k), matthews_corrcoef(y, pred), confusion,
                                   boundary, mistakes, int(len(y)), names, logits=z, labels=y, **extra)


# how a run read its table, which a page scoring the run's rows must read it by too: without skip_invalid, the rows
# the run skipped (empty texts) made Classify: dev set and Compare refuse the file the run trained on
TABLE_SETTINGS = ("text_columns", "label_column", "id_column", "no_header", "encoding", "label_names", "skip_invalid")


def run_data_settings(model_source: str) -> dict:
    """The data settings of the run a checkpoint belongs to, read from ``runs/<id>/config.json`` two folders
    above ``runs/<id>/checkpoints/<name>``: {"dev", "train", "task", "f1_classes", "dev_cap" (the first N dev rows
    its evaluations scored, 0 = all), "metric_for_best", text_columns, label_column, id_column, no_header, encoding, label_names, skip_invalid},
    plus "dev_split" (the path of ``<run>/dev_split.csv``) when the run had
    no dev file and held training rows out as dev; {} when the source is not a run checkpoint. Reads JSON
    only (no torch)."""
    import json
    from pathlib import Path

    from explorer.core.models.checkpoint_windows import checkpoint_run_config
    from explorer.core.runs.layout import CHECKPOINTS, dev_split_file, run_dir_of

    folder = Path(str(model_source or "")).expanduser()
    if folder.parent.name != CHECKPOINTS:
        return {}
    data = checkpoint_run_config(folder)   # its config.json; a remote run's on its host: its mirror's (as launched)
    if not data and (folder / "run_config.json").is_file():
        try:
            data = json.loads((folder / "run_config.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
    if not isinstance(data, dict):
        return {}
    out = {k: data.get(k) for k in ("dev", "train", "task", "f1_classes", "dev_cap", "metric_for_best") + TABLE_SETTINGS
           if k in data}
    run_dir = run_dir_of(folder)
    split = dev_split_file(run_dir) if run_dir is not None else None
    if not out.get("dev") and split is not None and split.is_file():
        out["dev_split"] = str(split)
    return out


def run_max_seq_length(model_source: str, default: int = 128) -> int:
    """The tokens per input the run of checkpoint ``model_source`` trained and evaluated with (its config's
    max_seq_length, else its task's default), so a dev set scored again is cut where the run's evaluations cut
    it and prints the same figure; ``default`` for a checkpoint that is not a run of this app."""
    from explorer.core.runs.reading import run_config_of
    from explorer.core.specs.train_config import TrainConfig

    config = run_config_of(str(model_source or ""))
    if not config:
        return default
    try:
        return TrainConfig.from_dict(config).resolved_max_seq_length()
    except (TypeError, ValueError):
        return default

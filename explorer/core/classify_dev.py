"""The classification dev-set view's numbers: accuracy, F1, MCC, the confusion matrix, the examples nearest
the decision boundary and the most confident mistakes (numpy only; ``score_classification_dev`` runs a model).

Margin of an example = P(top class) - P(second class) (0 = on the boundary). Confidence of a mistake =
P(predicted class). Metric definitions: explorer.core.training.glue_metrics (GLUE, Wang et al. 2019).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from explorer.core.training.glue_metrics import accuracy, binary_f1, matthews_corrcoef


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
    """

    accuracy: float
    f1: float
    mcc: float
    confusion: np.ndarray
    boundary: list[DevRow] = field(default_factory=list)
    mistakes: list[DevRow] = field(default_factory=list)
    total: int = 0
    label_names: list[str] = field(default_factory=list)


def _f1(labels: np.ndarray, preds: np.ndarray, k: int) -> float:
    if k <= 2:
        return binary_f1(labels, preds)
    return float(np.mean([binary_f1(labels, preds, positive=c) for c in range(k)]))


def dev_report(logits, labels, texts_a: list[str], texts_b: list[str] | None = None, *, n: int = 10,
               label_names: list[str] | None = None) -> ClassificationDevReport:
    """Summarise dev predictions. logits: (N, K) (scores per class, or per choice for SWAG); labels: (N,) ints.

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
    return ClassificationDevReport(accuracy(y, pred), _f1(y, pred, k), matthews_corrcoef(y, pred), confusion,
                                   boundary, mistakes, int(len(y)), label_names or [str(c) for c in range(k)])


def score_classification_dev(model, tokenizer, task: str, source: str, *, cap: int | None = 200,
                             max_seq_length: int = 128, batch_size: int = 16, n: int = 10) -> ClassificationDevReport:
    """Run ``model`` over a dev file of ``task`` (a task with a classification or multiple-choice head: "single", "pair",
    "swag") and summarise it.

    Raises the loaders' UserErrors (file, line) for bad data."""
    import torch

    from explorer.core.training.config import TrainConfig
    from explorer.core.training.tasks import get_task

    t = get_task(task)
    config = TrainConfig(task=task, dev=source, dev_cap=cap or 0, max_seq_length=max_seq_length)
    data = t.load(config, "dev")
    feats = t.featurize(data, tokenizer, config, train=False)
    device = next(model.parameters()).device
    logits = []
    with torch.inference_mode():
        for i in range(0, len(feats), batch_size):
            batch = feats.collate(list(range(i, min(i + batch_size, len(feats)))))
            out = model(**{k: v.to(device) for k, v in t.model_inputs(batch).items()})
            logits.append(out.logits.float().cpu().numpy())
    z = np.concatenate(logits) if logits else np.zeros((0, 2))
    if t.facts.is_multiple_choice:
        texts_a = [data.contexts[i] for i in range(len(data))]
        texts_b = [" | ".join(data.choice_pairs(i)[1]) for i in range(len(data))]  # sent2 + ending k
        names = [f"ending {k}" for k in range(z.shape[1])]
    else:
        texts_a, texts_b = list(data.texts_a), list(data.texts_b) if data.texts_b is not None else None
        id2label = getattr(model.config, "id2label", None) or {}
        names = [str(id2label.get(c, c)) for c in range(z.shape[1])]
    return dev_report(z, data.labels, texts_a, texts_b, n=n, label_names=names)

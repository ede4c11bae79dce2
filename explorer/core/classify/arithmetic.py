"""The classifier heads' arithmetic, with the model's own numbers (GLUE single / pair, SWAG).

BERT paper Section 4.1 (GLUE): the final hidden vector of [CLS] is pooled (BERT's pooler,
C = tanh(W_p h_[CLS] + b_p)), then logits = C W^T + b (W: K x H), P = softmax(logits), and the training loss
for gold label y is -log P_y. Section 4.4 (SWAG): BERT reads "context + ending k" for each of the 4 endings;
score_k = C_k . w + b (w: one H-vector), and the softmax runs across the four choices.

Two more heads on the same C (``problem_type`` in the model's config): regression (GLUE STS-B, one output):
score = C . w + b is the prediction itself, no softmax, loss (score - gold)^2; multi-label: one sigmoid per
label, P_k = sigmoid(logit_k), label k predicted when P_k >= tau_k (the thresholds tuned on dev and saved in
the checkpoint's config.json, ``label_thresholds``; 0.5 when there are none), loss = the mean binary
cross-entropy over the labels.

:func:`softmax_loss` and :func:`head_logits` are plain numpy (the seed's toy numbers are tests);
:func:`classify` runs a model once and returns a :class:`ClassifyResult` (numpy only, no torch objects),
which the Classify inspector renders. The by-hand check recomputes C from the last hidden state of [CLS]
with the pooler's weights, and the logits from C with the classifier's weights, and reports the largest
difference from the model's logits.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from explorer.core.errors import UserError
from explorer.core.specs.heads import REGRESSION, SINGLE_LABEL, HeadSpec, Scores, classification_head
from explorer.core.specs.tasks import find_task_facts

FLOW_BLOCKS = ("sentence A", "sentence B", "[CLS]/[SEP]")  # the order of attention.BLOCKS


class ClassifyError(UserError):
    """The inputs or the model cannot be classified (empty text, wrong head, not BERT-style, bad label)."""


def softmax_loss(logits, label: int | None = None) -> tuple[np.ndarray, float | None]:
    """(P, loss): P = softmax(logits) (float64, shape (K,)); loss = -log P[label] (nats), None without a label.

    Raises:
        ClassifyError: label outside 0..K-1.
    """
    z = np.asarray(logits, dtype=np.float64).reshape(-1)
    e = np.exp(z - z.max())
    p = e / e.sum()
    if label is None:
        return p, None
    if not 0 <= int(label) < z.size:
        raise ClassifyError(f"label {label} is out of range: the head has {z.size} outputs (0..{z.size - 1})")
    return p, float(-np.log(p[int(label)]))


def head_logits(C, W, b=None) -> np.ndarray:
    """logits = C W^T + b. C: (H,) or (n, H); W: (K, H); b: (K,) or None. Returns (K,) or (n, K), float64."""
    C, W = np.asarray(C, dtype=np.float64), np.asarray(W, dtype=np.float64)
    out = C @ W.T
    return out + np.asarray(b, dtype=np.float64) if b is not None else out


NO_GOLD_LINE = "gold label: none chosen, so no loss (choose the gold label to see the loss for it)"


def readable_label_names(head_names, run_names) -> list[str]:
    """The class names to show for a head: its own (the checkpoint's id2label), or the run's ``label_names`` (its
    config) when the head's are only generic (``LABEL_0``, ``LABEL_1``... as transformers names an unnamed head,
    or the ids "0", "1"...) and the run names as many classes: an SST-2 run's checkpoint then reads negative /
    positive, not LABEL_0 / LABEL_1; with no names anywhere, the ids "0", "1". Returns a new list, in id order."""
    head = [str(n) for n in head_names or []]
    run = [str(n) for n in run_names or []]
    generic = all(n in (f"LABEL_{i}", str(i)) for i, n in enumerate(head))
    if head and generic and len(run) == len(head):
        return run
    # no names anywhere: the class ids as the data had them ("0" / "1"), not transformers' placeholder LABEL_k (a
    # one-output regression head keeps its name: it is no class)
    return [str(i) for i in range(len(head))] if generic and len(head) > 1 else head


def class_words(label_names, k: int) -> str:
    """Class ``k`` as every line about one prediction names it (the Arithmetic pane, the Classify summary): its id
    where the name is the id ("1"); else its name first, quoted when it reads as a number, and the id after
    ("'4' (class id 3)", "FAVOR (class id 1)"), so a class named by a number is never read as another class's id."""
    name = str(label_names[k])
    if name == str(k):
        return name
    try:
        float(name)
    except ValueError:
        return f"{name} (class id {k})"
    return f"{name!r} (class id {k})"


REGRESSION_OUTPUT = REGRESSION.output_label   # "score": the one output of a regression head, wherever it is named


def score_column_words(label_column: str = "", no_header: bool = False) -> str:
    """How the gold of a regression dev file is named where its column matters: "score (column 5)" for a column
    given by position (a header-less file), "score (column 'similarity')" for a named one, "score" when none is
    given. Never the bare column name, which for a header-less file is a number that reads as a score."""
    column = str(label_column or "").strip()
    if not column:
        return REGRESSION_OUTPUT
    if no_header or column.isdigit():
        return f"{REGRESSION_OUTPUT} (column {column})"
    return f"{REGRESSION_OUTPUT} (column {column!r})"


def sigmoid_loss(logits, thresholds=None, gold=None) -> tuple[np.ndarray, list[int], float | None]:
    """Multi-label head: (P, predicted, loss). P = sigmoid(logits) (K,); predicted = the k with P_k >= tau_k
    (``thresholds``: (K,), default 0.5); loss = mean_k BCE(logit_k, y_k) in nats for the gold label ids
    ``gold`` (None: no loss).

    Raises:
        ClassifyError: a gold id outside 0..K-1.
    """
    z = np.asarray(logits, dtype=np.float64).reshape(-1)
    p = 1.0 / (1.0 + np.exp(-z))
    tau = np.full(z.size, 0.5) if thresholds is None else np.asarray(thresholds, dtype=np.float64)
    predicted = [int(k) for k in np.flatnonzero(p >= tau)]
    if gold is None:
        return p, predicted, None
    ids = [int(k) for k in gold]
    if any(not 0 <= k < z.size for k in ids):
        raise ClassifyError(f"labels {ids} are out of range: the head has {z.size} outputs (0..{z.size - 1})")
    y = np.zeros(z.size)
    y[ids] = 1.0
    loss = np.maximum(z, 0) - z * y + np.log1p(np.exp(-np.abs(z)))     # BCE with logits, stable form
    return p, predicted, float(loss.mean())


@dataclass
class ClassifyInput:
    """One sequence the model read: its tokens, the block of each token and its C vector.

    Attributes:
        text_a / text_b: sentence A and sentence B ("" for single sentences); for SWAG, the context and
            "sent2 + ending k".
        tokens: the word pieces, [CLS] first.
        C: (H,) float32, the pooled [CLS] vector fed to the classifier.
        h_cls: (H,) float32, the last hidden state of [CLS] (before the pooler).
    """

    text_a: str
    text_b: str
    tokens: list[str]
    C: np.ndarray
    h_cls: np.ndarray


@dataclass
class ClassifyResult:
    """The arithmetic of one classification (numpy only; the UI renders it).

    Attributes:
        kind: the task the inputs were classified as ("single", "pair", "swag", "regression", "multilabel"; core/specs/tasks.py).
        inputs: one ClassifyInput (single/pair) or four (swag, one per ending).
        W: (K, H) classifier weights (K = num_labels; K = 1 for swag, the vector w).
        b: (K,) classifier bias.
        logits: (K,) model logits (single/pair) or (4,) choice scores (swag), float64.
        probabilities: softmax of ``logits``, float64.
        prediction: argmax of ``logits``.
        label: the chosen (gold) label / ending, or None.
        loss: -log probabilities[label] in nats, or None.
        by_hand_logits: the logits recomputed from h_[CLS] -> pooler -> C W^T + b in float64.
        max_abs_diff: largest |by_hand_logits - logits|.
        label_names: class names of the head (id2label), K of them (or "ending 0".."ending 3").
        flow: (layers, heads, 3, 3) attention block flow between FLOW_BLOCKS (pairs only), else None.
        pooler: how C was made, in words.
        problem_type: "single_label_classification" (softmax), "regression" (one output, ``logits[0]`` is the
            score, no probabilities) or "multi_label_classification" (``probabilities`` are sigmoids).
        thresholds: multi-label: (K,) the decision thresholds used; None otherwise.
        predicted: multi-label: the label ids with P_k >= tau_k; else [prediction].
    """

    kind: str
    inputs: list[ClassifyInput]
    W: np.ndarray
    b: np.ndarray
    logits: np.ndarray
    probabilities: np.ndarray
    prediction: int
    label: int | None
    loss: float | None
    by_hand_logits: np.ndarray
    max_abs_diff: float
    label_names: list[str] = field(default_factory=list)
    flow: np.ndarray | None = None
    pooler: str = "C = tanh(W_p h_[CLS] + b_p)"
    problem_type: str = SINGLE_LABEL.problem_type
    thresholds: np.ndarray | None = None
    predicted: list[int] = field(default_factory=list)

    @property
    def head(self) -> HeadSpec:
        """The sequence-classification head of ``problem_type`` (explorer.core.specs.heads): what follows the
        logits (``head.scores``)."""
        return classification_head(self.problem_type)

    @property
    def score(self) -> float:
        """Regression: the prediction score = C . w + b."""
        return float(self.logits[0])

    @property
    def flow_mean(self) -> np.ndarray | None:
        """(layers, 3, 3): the block flow averaged over heads, or None."""
        return None if self.flow is None else np.nanmean(self.flow, axis=1)

    def arithmetic_lines(self, digits: int = 3) -> list[str]:
        """The arithmetic written out with this result's numbers, one line each (for text views and the CLI)."""
        f = f"{{:.{digits}f}}"
        if self.head.scores is Scores.SCORE:
            return self._regression_lines(f)
        if self.head.scores is Scores.SIGMOID:
            return self._multilabel_lines(f)
        lines = []
        facts = find_task_facts(self.kind)
        for k, name in enumerate(self.label_names):
            if facts is not None and facts.is_multiple_choice:
                lines.append(f"score {k} = C_{k} . w + b = {f.format(self.logits[k])}   P = "
                             f"{f.format(self.probabilities[k])}   ({name})")
            else:
                lines.append(f"logit {k} = C . W_{k} + b_{k} = {f.format(self.logits[k])}   P = "
                             f"{f.format(self.probabilities[k])}   ({name})")
        lines.append(f"prediction: {class_words(self.label_names, self.prediction)}")
        if self.label is not None:
            lines.append(f"loss for label {class_words(self.label_names, self.label)} = -log {f.format(self.probabilities[self.label])} = "
                         f"{f.format(self.loss)}")
        else:
            lines.append(NO_GOLD_LINE)
        lines.append(f"by-hand check: largest |logit by hand - model logit| = {self.max_abs_diff:.2e}")
        return lines

    def _regression_lines(self, f: str) -> list[str]:
        lines = [f"score = C . w + b = {f.format(self.score)}   (one output, no softmax: the score is the "
                 "prediction)"]
        if self.label is not None:
            lines.append(f"loss for gold {f.format(float(self.label))} = (score - gold)^2 = {f.format(self.loss)}")
        else:
            lines.append(NO_GOLD_LINE)
        lines.append(f"by-hand check: |score by hand - model score| = {self.max_abs_diff:.2e}")
        return lines

    def _multilabel_lines(self, f: str) -> list[str]:
        tau = self.thresholds if self.thresholds is not None else np.full(len(self.logits), 0.5)
        lines = []
        for k, name in enumerate(self.label_names):
            mark = ">=" if self.probabilities[k] >= tau[k] else "< "
            lines.append(f"logit {k} = C . W_{k} + b_{k} = {f.format(self.logits[k])}   P = sigmoid = "
                         f"{f.format(self.probabilities[k])} {mark} tau {f.format(tau[k])}   ({name})")
        shown = ", ".join(self.label_names[k] for k in self.predicted) or "no label"
        lines.append(f"predicted labels (P >= tau, each label on its own): {shown}")
        if self.label is not None:
            gold = ", ".join(self.label_names[k] for k in self.label) or "no label"
            lines.append(f"loss for gold {{{gold}}} = mean binary cross-entropy over the labels = {f.format(self.loss)}")
        lines.append(f"by-hand check: largest |logit by hand - model logit| = {self.max_abs_diff:.2e}")
        return lines

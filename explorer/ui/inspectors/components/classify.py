"""What the Classify page decides and says, without Qt: the tasks it shows and what each one's input and gold are
(one class, a score, a label set; a sentence, a pair, a context with endings), the gold typed in its box, the
logit table and the arithmetic text of a ClassifyResult, its one-line verdict, and the note on a pair model given
one sentence. explorer.ui.inspectors.classify_view draws it.
"""

from __future__ import annotations

import numpy as np

from explorer.core.classify.arithmetic import class_words
from explorer.core.specs.heads import Scores, classification_head
from explorer.core.specs.tasks import find_task_facts, get_task_facts, tasks_on_page
from explorer.ui.inspectors.registry import CLASSIFY_PAGE

# (label, colour) of the per-layer flow curves; (from, to) indices in explorer.core.classify.arithmetic.FLOW_BLOCKS order
FLOW_CURVES = (("A → B", "#1f77b4"), ("B → A", "#2ca02c"), ("A → [CLS]/[SEP]", "#9467bd"),
               ("B → [CLS]/[SEP]", "#8c564b"))
FLOW_CELLS = ((0, 1), (1, 0), (0, 2), (1, 2))
LONE_SENTENCE_NOTE = ("this model reads sentence pairs and Sentence B is empty: its score for Sentence A alone means "
                      "little; type Sentence B")


def classify_tasks() -> dict[str, str]:
    """GUI label -> task name of every task whose head opens in this page (its HeadSpec's ``pages``: a [CLS]
    classifier or a multiple-choice head), in table order."""
    return {get_task_facts(name).label: name for name in tasks_on_page(CLASSIFY_PAGE)}


def is_choice(task: str) -> bool:
    """A multiple-choice task (a context and endings, not sentences)."""
    facts = find_task_facts(task)
    return bool(facts and facts.is_multiple_choice)


def is_regression(task: str) -> bool:
    facts = find_task_facts(task)
    return bool(facts and facts.is_regression)


def is_multilabel(task: str) -> bool:
    facts = find_task_facts(task)
    return bool(facts and facts.is_multilabel)


def free_gold(task: str) -> bool:
    """The gold is a float score (regression) or a set of labels (multi-label), not one class id."""
    return is_regression(task) or is_multilabel(task)


def reads_pairs(task: str, run_pairs: bool) -> bool:
    """Does a model of ``task`` read sentence pairs: a pair task, or a regression / multi-label run that read two
    text columns (``run_pairs``, STS-B)?"""
    if is_choice(task):
        return False
    facts = get_task_facts(task)
    return facts.pair or (facts.takes_pairs and run_pairs)


def takes_sentence_b(task: str) -> bool:
    """Can a model of ``task`` read a sentence B at all: a pair task, or a regression / multi-label head (which
    reads one when its run had two text columns)? A single-sentence or multiple-choice head cannot."""
    facts = get_task_facts(task)
    return not is_choice(task) and (facts.pair or facts.takes_pairs)


def parse_gold(text: str, task: str, names: list[str]):
    """The gold typed in the score / label-set box: a float (regression), sorted label ids (multi-label; names or
    ids separated by ';') or None when empty.

    Raises:
        ValueError: a score that is not a number, or a label name the head does not have."""
    text = text.strip()
    if not text:
        return None
    if is_regression(task):
        try:
            return float(text)
        except ValueError:
            raise ValueError(f"gold score {text!r} is not a number") from None
    out = []
    for part in (p.strip() for p in text.split(";")):
        if not part:
            continue
        if part in names:
            out.append(names.index(part))
        elif part.isdigit():
            out.append(int(part))
        else:
            raise ValueError(f"gold label {part!r} is not one of the head's labels ({', '.join(names)})")
    return sorted(set(out))


def gold_text(task: str, gold) -> str:
    """An example's gold as the score / label-set box shows it ("" for no gold)."""
    if is_regression(task):
        return "" if gold is None else f"{float(gold):g}"
    return ";".join(str(g) for g in gold or [])


def table_headers(res) -> list[str]:
    """The logit table's titles for a ClassifyResult: its head's score and what turns it into a probability."""
    scores = classification_head(getattr(res, "problem_type", "")).scores   # what follows the logits
    word = "score = C_k·w + b" if is_choice(res.kind) else "logit = C·W_k + b_k"
    third = "P = softmax"
    if scores is Scores.SCORE:
        word, third = "score = C·w + b", "(no softmax)"
    elif scores is Scores.SIGMOID:
        third = "P = sigmoid  (τ)"
    return ["class / ending", word, third]


def table_rows(res) -> list[tuple[str, str, str]]:
    """The logit table: (class or ending, marked when predicted; its logit; its probability) per class."""
    scores = classification_head(getattr(res, "problem_type", "")).scores   # what follows the logits
    chosen = set(res.predicted) if scores is Scores.SIGMOID else {res.prediction}
    rows = []
    for k, z in enumerate(res.logits):
        name = res.label_names[k] + (" ← prediction" if k in chosen else "")
        if scores is Scores.SCORE:
            p = "the score is the prediction"
        elif scores is Scores.SIGMOID:
            p = f"{res.probabilities[k]:.4f}  (τ {res.thresholds[k]:.2f})"
        else:
            p = f"{res.probabilities[k]:.4f}"
        rows.append((name, f"{z:+.4f}", p))
    return rows


def verdict(res) -> str:
    """What the head says: "score 3.8120", "predicted labels: a, b" or "prediction FAVOR (class id 1)" (the class
    worded as the Arithmetic pane words it: core.classify.arithmetic.class_words)."""
    scores = classification_head(getattr(res, "problem_type", "")).scores   # what follows the logits
    if scores is Scores.SCORE:
        return f"score {res.score:.4f}"
    if scores is Scores.SIGMOID:
        return "predicted labels: " + (", ".join(res.label_names[k] for k in res.predicted) or "none")
    return f"prediction {class_words(res.label_names, res.prediction)}"


def lone_sentence_note(res, pairs: bool, asked: tuple) -> str:
    """LONE_SENTENCE_NOTE when ``res`` is a pair model's answer (``pairs``) for Sentence A alone (``asked``: the
    inputs it answered, Sentence B second), else ''."""
    if is_choice(res.kind) or not pairs or len(res.inputs) != 1 or asked[1].strip():
        return ""
    return LONE_SENTENCE_NOTE


def flow_lines(flow_mean: np.ndarray) -> list[str]:
    """Per-layer A -> B, B -> A, A -> [CLS]/[SEP], B -> [CLS]/[SEP] lines from a (layers, 3, 3) flow table."""
    f = np.asarray(flow_mean)
    return [f"layer {i + 1:2d}: A -> B {f[i, 0, 1]:.3f}   B -> A {f[i, 1, 0]:.3f}   "
            f"A -> [CLS]/[SEP] {f[i, 0, 2]:.3f}   B -> [CLS]/[SEP] {f[i, 1, 2]:.3f}" for i in range(f.shape[0])]


def result_lines(res) -> list[str]:
    """The Arithmetic pane: inputs, shapes, the pooler, the arithmetic, and the pair flow table."""
    lines = []
    for k, x in enumerate(res.inputs):
        prefix = f"input {k}: " if len(res.inputs) > 1 else "input: "
        lines.append(prefix + " ".join(x.tokens))
    H = res.inputs[0].C.shape[0]
    lines += ["", f"{res.pooler}   (C: {len(res.inputs)} x {H}; W: {res.W.shape[0]} x {res.W.shape[1]}; "
              f"b: {res.b.shape[0]})", ""]
    lines += res.arithmetic_lines(4)
    if res.flow is not None:
        lines += ["", "attention block flow (mean over heads; row = from, share of attention on the block):"]
        lines += flow_lines(res.flow_mean)
    return lines

"""What the Compare page says it compares, for the head of the checkpoint a person put in it (Qt-free).

The page compares question-answering checkpoints question by question; two single-label classifiers are
compared on their dev rows from the Runs list; other heads are not compared in the app. The head spec
(explorer.core.specs.heads) decides which is which: a head is never told by its name here.
"""

from __future__ import annotations

from explorer.core.specs.heads import HeadSpec, Inputs, Scores

SWAP_KEYS = "Ctrl+Shift+X"   # swap A and B: the Compare page and the two-classifier window
QA_LINE = "Two question-answering (SQuAD) checkpoints on a SQuAD dev file, question by question."


def classifiers_line(action: str) -> str:
    """Where two classifiers are compared: ``action`` is the Runs list's menu entry."""
    return f"Two classifiers (single sentence or pair runs): select both runs in the Runs list, right-click → {action}"


def is_compared_on_dev_rows(head: HeadSpec | None) -> bool:
    """A single-label classifier of texts: two of them are compared on the first run's dev rows (Runs list)."""
    return head is not None and head.inputs is Inputs.TEXT and head.scores is Scores.SOFTMAX


def compare_hint(head: HeadSpec | None, action: str) -> str:
    """The Compare page's first line for the head of checkpoint A (None: none given or not told): for a QA
    checkpoint (or none) what the page compares, then where two classifiers are compared; for a classifier that
    first, then what the page compares; for another head that the app does not compare it. ``action``: the
    Runs list's menu entry that compares two classifiers."""
    if head is None or head.inputs is Inputs.QUESTION_PASSAGE:
        return f"{QA_LINE} {classifiers_line(action)}"
    if is_compared_on_dev_rows(head):
        return (f"Checkpoint A is a classifier: two classifiers are compared on the first run's dev rows (accuracy, "
                f"macro F1, the runs' own metric, McNemar's test) from the Runs list: select both runs, right-click → "
                f"{action}. This page compares {QA_LINE[0].lower()}{QA_LINE[1:]}")
    return (f"Checkpoint A is {head.model_words}: the app compares question-answering checkpoints here and "
            f"single-label classifiers from the Runs list, not {head.words} models. {QA_LINE}")

"""The launcher's warning before a run on strongly imbalanced training labels without class weights, Qt-free.

A short fine-tune on a table where one class holds most rows tends to settle on predicting that class: its loss
falls fastest that way, and accuracy then reads as the majority's share. A table of 78% one class trained at lr
1e-4 ended predicting only that class, and nothing before Launch had said so. So while the training labels the
data check counted give one class at least :data:`MAJORITY_SHARE` of the rows and Class weights is off, the line
under the form says the shares by class name and offers class weights "balanced" in one click
(:data:`BALANCED_LINK`: each class weighted by n / (K x its count), so every class counts alike in the loss).
Balanced tables and runs with class weights get no warning.
"""

from __future__ import annotations

from collections.abc import Mapping

from explorer.ui.launch.field_specs import applies, field_spec

__all__ = ["BALANCED_LINK", "MAJORITY_SHARE", "imbalance_note"]

MAJORITY_SHARE = 0.70                       # one class's share of the training rows from which the warning shows
BALANCED_LINK = "use-balanced-class-weights"   # the href of the warning's one-click class weights
SHOWN_CLASSES = 4                           # classes named with their share; the rest are "others"


def _shares(counts: Mapping[str, int], total: int) -> str:
    """"'negative' 78%, 'positive' 22%": the classes by share, the largest first (at most SHOWN_CLASSES)."""
    ranked = sorted(counts.items(), key=lambda kv: -kv[1])
    said = [f"{name!r} {count / total:.0%}" for name, count in ranked[:SHOWN_CLASSES]]
    rest = sum(count for _, count in ranked[SHOWN_CLASSES:])
    if rest:
        said.append(f"others {rest / total:.0%}")
    return ", ".join(said)


def imbalance_note(task: str, class_counts: Mapping[str, int] | None, class_weights: str) -> str:
    """The warning for training labels whose largest class holds at least MAJORITY_SHARE of the rows while
    ``class_weights`` is off, on a task that takes class weights; "" otherwise (balanced labels, class weights
    set, no counts yet, or another task)."""
    counts = {str(k): int(v) for k, v in (class_counts or {}).items() if int(v) > 0}
    total = sum(counts.values())
    if (str(class_weights or "").strip() or len(counts) < 2 or not applies(field_spec("class_weights"), task)):
        return ""
    majority, largest = max(counts.items(), key=lambda kv: kv[1])
    if largest < MAJORITY_SHARE * total:
        return ""
    return (f"Imbalanced training labels ({_shares(counts, total)}) and no class weights: a short run tends to "
            f"predict only the majority class {majority!r}; class weights \"balanced\" make each class count alike "
            "in the loss")

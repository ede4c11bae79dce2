"""Whose text an inspector's inputs hold: the person's (typed or edited since the page's last example fill) or the
page's (empty, or as an example filled them). A checkpoint opened, or a run, fills only the page's: what a person
typed before the open or while the model loaded is kept and run through the new model (Qt-free)."""

from __future__ import annotations

import json
from pathlib import Path


def holds_typed_inputs(values, example_values) -> bool:
    """Do ``values`` (the inputs' texts now) hold the person's text: some text, other than ``example_values`` (the
    texts the last example fill left, None when none)?"""
    values = tuple(str(v) for v in values)
    if not any(v.strip() for v in values):
        return False
    return example_values is None or values != tuple(str(v) for v in example_values)


def kept_gold(gold: int, class_count: int) -> tuple[int, str]:
    """The gold class id ``gold`` (-1: none) chosen for typed text, against a head of ``class_count`` classes: the
    id kept and '' when the head has it, else -1 and a line saying why it was cleared."""
    if gold < 0 or class_count <= 0 or gold < class_count:
        return gold, ""
    return -1, f"gold label {gold} cleared: the loaded model has {class_count} classes (0 to {class_count - 1})"


def checkpoint_label_names(path: str) -> list[str]:
    """The class names of the sequence-classification checkpoint folder ``path`` as its config.json says, known
    before the model is loaded: its id2label; without one, LABEL_k for its num_labels, or for two classes (the
    default transformers leaves out of the file); [] for another head or a config that cannot be read."""
    try:
        config = json.loads((Path(path) / "config.json").read_text(encoding="utf-8"))
        id2label = config.get("id2label") or {}
        if id2label:
            return [str(id2label[k]) for k in sorted(id2label, key=lambda k: int(k))]
        if not any(str(a).endswith("ForSequenceClassification") for a in config.get("architectures") or []):
            return []
        return [f"LABEL_{k}" for k in range(int(config.get("num_labels") or 2))]
    except (OSError, ValueError, TypeError, AttributeError, KeyError):
        return []

"""Whether a checkpoint's head can take a data set's labels as it is, decided from its config.json alone.

A head whose spec maps labels by name (core.specs.heads ``label_mapping``: single- and multi-label classes,
token tags) keeps its rows when fine-tuned again: the data's labels must all be among the head's id2label
(mapped by name), or, for a head whose labels have no names (LABEL_0, 0, ...), be as many. Otherwise the run
needs a fresh head. The training run refuses such a checkpoint (core.training.setup) and the launcher says so
before the launch (explorer.ui.launch.launch_check), both by :func:`head_fit`; the launcher reads the
checkpoint's labels with :func:`checkpoint_head_labels` (no weights, no torch).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

__all__ = ["HeadFit", "checkpoint_head_labels", "head_fit"]


@dataclass(frozen=True, kw_only=True)
class HeadFit:
    """A checkpoint's head against the data's labels.

    ``fits``: the head takes the data as it is (``mapped``: by name, the data's labels among its id2label);
    ``head`` / ``data``: "the checkpoint's head has 3 labels (negative, neutral, positive)" / "the data has 3
    (AGAINST, FAVOR, NONE)"; ``missing``: the data's labels the head lacks (by name); ``k``: the data's label
    count (the size of a fresh head); ``unused``: the head's labels the data lacks (by name; kept, not trained,
    when the head fits), so a refusal of labels that partly match shows both sides, as B-PERSON in the data
    against B-PER in the head."""

    fits: bool
    mapped: bool
    head: str
    data: str
    missing: tuple[str, ...]
    k: int
    unused: tuple[str, ...] = ()

    def refusal(self, fresh: str) -> str:
        """Why the head cannot take the data, ending with how to start a fresh head: ``fresh`` is the way to ask
        for one where the message is read ("Use --new-head" on the command line, "Tick “New head”" in the
        launcher); "" when it fits."""
        if self.fits:
            return ""
        if self.missing:
            quoted = ", ".join(repr(n) for n in self.missing)
            # where the two share labels, the head's others are named too (disjoint ones are all in the lists)
            shared = len(self.missing) < self.k
            other = (f", and the head's {', '.join(repr(n) for n in self.unused)} "
                     f"{'is' if len(self.unused) == 1 else 'are'} not in the data") if self.unused and shared else ""
            return (f"{self.head}; {self.data}: {quoted} {'is' if len(self.missing) == 1 else 'are'} not in the head"
                    f"{other}. "
                    f"{fresh} to start a fresh {self.k}-label head (the encoder is kept), or fine-tune a checkpoint "
                    "with these labels")
        return (f"{self.head}; {self.data}. {fresh} to start a fresh {self.k}-label head (the encoder is kept), or "
                "give data with the head's labels")


def head_fit(head_names: list[str], data_names: list[str] | None, k: int) -> HeadFit:
    """``head_names``: the checkpoint head's labels in row order (its id2label); ``data_names``: the data's label
    names, None when they are plain ids 0..k-1; ``k``: the data's label count. The rule is the module's."""
    ck = len(head_names)
    generic = all(n in (f"LABEL_{i}", str(i)) for i, n in enumerate(head_names))   # unnamed: transformers' or ours
    shown = list(data_names) if data_names else [str(i) for i in range(k)]
    head = f"the checkpoint's head has {ck} label{'s' if ck != 1 else ''} ({', '.join(head_names)})"
    data = f"the data has {k} ({', '.join(shown)})"
    if data_names and not generic:
        missing = tuple(n for n in data_names if n not in head_names)
        unused = tuple(n for n in head_names if n not in data_names)
        return HeadFit(fits=not missing, mapped=not missing, head=head, data=data, missing=missing, k=k,
                       unused=unused)
    return HeadFit(fits=ck == k, mapped=False, head=head, data=data, missing=(), k=k)


def checkpoint_head_labels(model: str, task: str) -> list[str] | None:
    """The labels of the head a local checkpoint folder ``model`` would bring to a run of ``task`` (its
    config.json id2label, in row order), or None when no head of that task's kind comes with it: a hub id or a
    bundled encoder (the run checks those), a folder without a readable config.json, another head, or a task
    whose head does not map labels by name."""
    from explorer.core.specs.heads import recognise
    from explorer.core.specs.tasks import find_task_facts

    facts = find_task_facts(task)
    path = Path(str(model or "")).expanduser()
    if facts is None or not facts.head.label_mapping or not (path / "config.json").is_file():
        return None
    try:
        config = json.loads((path / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(config, dict):
        return None
    recorded = recognise(config)
    if recorded is None or recorded.model_head != facts.head.model_head:
        return None   # the head is new anyway
    id2label = config.get("id2label") or {}
    id2label = id2label if isinstance(id2label, dict) else {}
    n = int(config.get("num_labels") or 0) or len(id2label)
    return [str(id2label.get(str(i), id2label.get(i, f"LABEL_{i}"))) for i in range(n)]

"""A question and passage to probe a run's checkpoint with (Qt-free; may read a file: use a worker thread).

"Open best checkpoint in inspectors" fills the probe panel from the run's own dev data: the first
answerable question of its local SQuAD-format dev file; else the run's first watch example; else the
launcher's default example.
"""

from __future__ import annotations

import json
from pathlib import Path

from explorer.ui.launch.presets import DEFAULT_WATCH


def first_dev_question(path: str | Path) -> tuple[str, str] | None:
    """(question, passage) of the first question with a gold answer in a local SQuAD JSON, else None."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    for article in data.get("data", []) if isinstance(data, dict) else []:
        for para in article.get("paragraphs", []) if isinstance(article, dict) else []:
            context = para.get("context", "") if isinstance(para, dict) else ""
            for qa in para.get("qas", []) if isinstance(para, dict) else []:
                if isinstance(qa, dict) and qa.get("answers") and qa.get("question", "").strip() and context.strip():
                    return qa["question"], context
    return None


def example_for_run(config: dict) -> tuple[str, str]:
    """(question, passage) for probing a run's checkpoint, from its config (see the module docstring)."""
    dev = str(config.get("dev") or "")
    if dev and Path(dev).is_file():
        found = first_dev_question(dev)
        if found is not None:
            return found
    for ex in config.get("watch") or []:
        if isinstance(ex, dict) and ex.get("question") and (ex.get("passage") or ex.get("context")):
            return str(ex["question"]), str(ex.get("passage") or ex.get("context"))
    return DEFAULT_WATCH[0]["question"], DEFAULT_WATCH[0]["passage"]

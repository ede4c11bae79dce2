"""Which of a replication capsule's figures are optimistic, and why (core.metrics.optimism's marks).

- the best evaluation: its checkpoint was chosen on the same dev rows it is scored on;
- the final (and best) figures: a class with fewer than 30 dev rows; dev rows that repeat training rows (the
  warning the training run logged when it found them: core.metrics.optimism.dev_overlap_mark);
- the calibration: the temperature was fitted on the dev rows it is judged on.

Qt-free, torch-free; capsule.py states them in capsule.json, metrics.md and the methods paragraph.
"""

from __future__ import annotations


def capsule_marks(*, events: list[dict], final: dict, metric: str, calibration: dict | None) -> dict:
    """{"final": [mark dicts], "best": [...], "calibration": [...]} (core.metrics.optimism.OptimismMark.to_dict):
    ``events`` the run's events, ``final`` the final evaluation's event metrics (per_class with support),
    ``metric`` the metric the best checkpoint was chosen by."""
    from explorer.core.metrics.optimism import dev_overlap_mark, figure_marks

    support = {str(k): int(v.get("support", 0)) for k, v in (final.get("per_class") or {}).items()
               if isinstance(v, dict) and v.get("support") is not None}
    shared = figure_marks(class_support=support)
    shared += [mark] if (mark := dev_overlap_mark(events)) is not None else []
    best = figure_marks(chosen_on_rows=(f"the best evaluation's checkpoint (best by {metric or 'its metric'})",))
    temperature = figure_marks(chosen_on_rows=("the temperature",)) if calibration else []
    return {"final": [m.to_dict() for m in shared], "best": [m.to_dict() for m in best + shared],
            "calibration": [m.to_dict() for m in temperature]}


def mark_lines(marks: list[dict]) -> list[str]:
    """metrics.md's lines of a section's marks: "- ! optimistic: ..."."""
    return [f"- ! {m['text']}" for m in marks]


def methods_sentence(marks: dict) -> str:
    """The methods paragraph's sentence on what is optimistic ("" when nothing is)."""
    texts = list(dict.fromkeys(m["text"] for section in ("final", "calibration") for m in marks.get(section, [])))
    if not texts:
        return ""
    return " Figures to read with care: " + "; ".join(t.removeprefix("optimistic: ") for t in texts) + "."

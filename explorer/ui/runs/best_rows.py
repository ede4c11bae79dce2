"""Which dev rows a run's best figure was measured on (Qt-free), for the Runs list's Best dev tooltip.

A run whose dev set has more than a few hundred rows evaluates a stratified sample of them during training
(core/training/eval_schedule) and all of them at the end; its best figure is usually a sample's. Classify: dev set
scores the best checkpoint on all of the run's dev rows, so the two figures differ by the rows they count (a
stance run: 49.85 F_avg on the 200-row sample, 49.61 on all 281 held-out rows), not by a fault; this says so.
"""

from __future__ import annotations

__all__ = ["best_rows_note"]


def best_rows_note(evals: list[dict], step: int) -> str:
    """'measured on the 200-row dev sample of the 281 dev rows (…)' / 'measured on all 281 dev rows' for the eval
    event at ``step`` (the last one there) among ``evals``; '' when the events do not say (older runs, other
    tools' folders)."""
    at = [ev for ev in evals if ev.get("step") == step and ev.get("dev_rows")]
    if not at:
        return ""
    rows, total = int(at[-1]["dev_rows"]), int(at[-1].get("dev_total") or at[-1]["dev_rows"])
    if rows >= total:
        return f"measured on all {total:,} dev rows"
    return (f"measured on the {rows:,}-row stratified sample of the {total:,} dev rows that every evaluation during "
            f"training scores; Classify: dev set scores all {total:,} rows, so its figure differs by those rows")

"""Which dev rows a run's best figure was measured on (Qt-free), for the Runs list's Best dev tooltip.

A run whose dev set has more than a few hundred rows evaluates a stratified sample of them during training
(core/training/eval_schedule) and all of them at the end; its best figure is usually a sample's. Classify: dev set
scores the best checkpoint on all of the run's dev rows, so the two figures differ by the rows they count (a
stance run: 49.85 F_avg on the 200-row sample, 49.61 on all 281 held-out rows), not by a fault; this says so. A run
that scored its sample-picked checkpoints/best on all dev rows at its end (core/training/best_rescore) logs that
figure as the last evaluation at the best step, so its Best dev counts all rows.
"""

from __future__ import annotations

__all__ = ["SAMPLE_MARK", "best_checkpoint_rows", "best_rows_note", "rows_at", "sample_mark", "scored_rows_note"]

SAMPLE_MARK = "≈"   # before a Best dev figure measured on the dev sample: about the figure on all dev rows


def rows_at(evals: list[dict], step: int) -> tuple[int, int] | None:
    """(dev rows, dev rows in all) of the eval event at ``step`` (the last one there) among ``evals``; None when
    the events do not say (older runs, other tools' folders)."""
    at = [ev for ev in evals if ev.get("step") == step and ev.get("dev_rows")]
    if not at:
        return None
    rows = int(at[-1]["dev_rows"])
    return rows, int(at[-1].get("dev_total") or rows)


def best_rows_note(evals: list[dict], step: int) -> str:
    """'measured on the 200-row stratified sample of the 281 dev rows (…)' / 'measured on all 281 dev rows' for the
    eval event at ``step`` among ``evals``; '' when the events do not say."""
    found = rows_at(evals, step)
    if found is None:
        return ""
    rows, total = found
    if rows >= total and any(ev.get("rescored") is True and ev.get("step") == step for ev in evals):
        return (f"measured on all {total:,} dev rows after the final evaluation (checkpoints/best was picked on the "
                "dev sample during training, then scored on every dev row against the final step)")
    if rows >= total:
        return f"measured on all {total:,} dev rows"
    return (f"measured on the {rows:,}-row stratified sample of the {total:,} dev rows that every evaluation during "
            f"training scores; Classify: dev set scores all {total:,} rows, so its figure differs by those rows")


def sample_mark(evals: list[dict], step: int) -> str:
    """SAMPLE_MARK before a Best dev figure whose evaluation at ``step`` scored a stratified dev sample, not all dev
    rows (Classify: dev set, which scores them all, then gives another figure for the same checkpoint); "" for
    one on all rows or when the events do not say. The tooltip's :func:`best_rows_note` says which rows.

    The mark comes before the figure, not after it: in the narrow dock of a 1280x800 window the cell is cut at its
    end, and a " (sample)" after "83.54% acc" read "83.54% acc (sam…"."""
    found = rows_at(evals, step)
    return SAMPLE_MARK if found is not None and found[0] < found[1] else ""


def best_checkpoint_rows(run_dir) -> tuple[int, int] | None:
    """(dev rows, dev rows in all) of the evaluation that made the run's ``checkpoints/best`` (its last best
    checkpoint event's step), read from the run's events without its step events; None when unknown."""
    from explorer.core.runs.reading import read_run_events

    if run_dir is None:
        return None
    events, _notes = read_run_events(run_dir, steps="last")
    best = [ev for ev in events if ev.get("event") == "checkpoint" and ev.get("kind") == "best"]
    if not best:
        return None
    return rows_at([ev for ev in events if ev.get("event") == "eval"], best[-1].get("step"))


def scored_rows_note(best_rows: tuple[int, int] | None, scored: int) -> str:
    """Beside a dev-set figure of ``scored`` rows of a run's best checkpoint: 'the run's Best dev for this
    checkpoint counts a 200-row stratified sample of these 281 rows …' when the run's own figure counted a sample
    of them; '' otherwise."""
    if best_rows is None or best_rows[0] >= best_rows[1] or scored != best_rows[1]:
        return ""
    return (f"the run's Best dev for this checkpoint counts the {best_rows[0]:,}-row stratified dev sample of these "
            f"{scored:,} rows (its evaluations during training), so the two figures differ by those rows")

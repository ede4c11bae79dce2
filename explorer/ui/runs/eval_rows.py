"""Which dev rows each evaluation of a run scored, for the Curves page (Qt-free).

A run whose dev set has more than a few hundred rows evaluates a stratified sample of them during training and all
of them at the end (core/training/eval_schedule; its ``eval`` events carry ``dev_rows`` of ``dev_total``); a run
whose evaluation plan changed scores the sample at some steps and every row at others. The two figures count other
rows: a stance run's 74.8 at step 0 on the 200-row sample, then 65.1 on all 281 rows, read as a run getting worse
when drawn alike. The Curves page draws a sample's point hollow and an all-rows point filled, names the rows in the
point's readout and says so in one line under its legend; this module decides all three.
"""

from __future__ import annotations

import numpy as np

__all__ = ["is_sample", "mixed_rows_note", "point_event", "rows_of", "rows_phrase", "sample_mask"]


def rows_of(ev: dict) -> tuple[int, int] | None:
    """(dev rows scored, dev rows in all) of an ``eval`` event; None when it does not say (older runs, other tools'
    folders)."""
    rows = ev.get("dev_rows")
    if not isinstance(rows, (int, float)) or isinstance(rows, bool) or rows <= 0:
        return None
    total = ev.get("dev_total")
    total = int(total) if isinstance(total, (int, float)) and not isinstance(total, bool) and total > 0 else int(rows)
    return int(rows), max(total, int(rows))


def is_sample(ev: dict) -> bool:
    """Whether the ``eval`` event scored fewer dev rows than the whole dev set."""
    found = rows_of(ev)
    return found is not None and found[0] < found[1]


def rows_phrase(ev: dict) -> str:
    """'on a 200-row stratified sample of the 281 dev rows' / 'on all 281 dev rows' for an ``eval`` event; '' when
    it does not say."""
    found = rows_of(ev)
    if found is None:
        return ""
    rows, total = found
    return (f"on a {rows:,}-row stratified sample of the {total:,} dev rows" if rows < total
            else f"on all {total:,} dev rows")


def _point_events(state, key: str) -> list[dict]:
    """The ``eval`` event behind each point of the run's series ``key`` (RunState.eval_points), in point order."""
    return [state.evals[i] for i in state.eval_points.get(key, ())]


def sample_mask(state, key: str) -> np.ndarray | None:
    """One bool per point of the run's dev series ``key`` ('dev/f1'): True where the point's evaluation scored a
    dev sample (drawn hollow). None when no point did (every point filled, nothing to compute while drawing)."""
    flags = [is_sample(ev) for ev in _point_events(state, key)]
    return np.asarray(flags, dtype=bool) if any(flags) else None


def point_event(state, key: str, step: float) -> dict | None:
    """The ``eval`` event behind the point of the run's series ``key`` nearest ``step`` (the crosshair's readout:
    its rows_phrase, whether it is_sample); None without one."""
    series = state.series.get(key)
    index = series.index_at(step) if series is not None else None
    events = _point_events(state, key)
    return events[index] if index is not None and index < len(events) else None


def _mixes(state) -> tuple[int, int] | None:
    """(sample rows, dev rows in all) of a run whose evaluations scored both a dev sample and every dev row (the
    last sample's sizes); None otherwise."""
    found = [rows_of(ev) for ev in state.evals]
    samples = [f for f in found if f is not None and f[0] < f[1]]
    whole = any(f is not None and f[0] >= f[1] for f in found)
    return samples[-1] if samples and whole else None


def mixed_rows_note(states, name_of) -> str:
    """One line for the shown runs (``states``; ``name_of(run_id)``: the name the Runs list shows) whose dev
    curves join evaluations on a dev sample with evaluations on every dev row: 'stance-b: ○ hollow dots score a
    200-row stratified sample of the 281 dev rows, ● filled dots all of them: compare a dot with dots of its kind';
    '' when no shown run mixes them."""
    mixed = [(s, sizes) for s in states if (sizes := _mixes(s)) is not None]
    if not mixed:
        return ""
    names = ", ".join(name_of(s.run_id) for s, _ in mixed)
    sizes = {sizes for _, sizes in mixed}
    if len(sizes) == 1:
        rows, total = sizes.pop()
        sample = f"a {rows:,}-row stratified sample of the {total:,} dev rows"
    else:
        sample = "a stratified sample of their dev rows"
    return (f"{names}: ○ hollow dots score {sample}, ● filled dots all of them: compare a dot with dots of its "
            "kind")

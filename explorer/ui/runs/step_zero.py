"""What the displays of a run's best dev figure say of its step-0 evaluation (Qt-free).

The evaluation at step 0 scores the model before any training step (the base encoder with a new head, or the
checkpoint a run starts from) and is never a best candidate (core/specs/best: the loop saves
no checkpoint there). A tagger whose untrained model scored 3.90 entity F1 and whose trained one scored 0.00 was
listed "best entity F1 (%) 0.00 @16" beside a dev curve starting at 3.9, with nothing saying why. One sentence,
used by the Curves page's run notes and the Runs list's Best dev tooltip.
"""

from __future__ import annotations

import math

__all__ = ["untrained_note"]


def untrained_note(state) -> str:
    """'step 0 (before training, 3.90) is never saved as best' for a run (a RunState) whose step-0 evaluation
    in the metric its best is listed by (RunState.listed_best) is better than that best (in the metric's
    direction); '' otherwise: without a best (a run
    just started has not been evaluated since; a metric undefined since has its own note), and for another tool's
    run, whose best is its own."""
    from explorer.core.specs.best import is_improvement

    if state.declared_best is not None:
        return ""
    best = state.listed_best()   # the figure the displays show (SQuAD 2.0: f1 at τ = 0 of best_f1's pick)
    name = best[0] if best is not None else state.primary_metric()
    series = state.series.get(f"dev/{name}") if name else None
    if series is None or not len(series) or series.x[0] > 0 or not math.isfinite(series.y[0]):
        return ""   # steps only grow: a step-0 evaluation is the series' first point
    untrained = float(series.y[0])
    if best is None or not is_improvement(untrained, best[1], name):
        return ""   # no best: nothing evaluated since, or the metric undefined since (that note says why)
    return f"step 0 (before training, {untrained:.2f}) is never saved as best"

"""File → New run on the launcher form, Qt-free: the form starts a new run from the defaults where the last run's
choices would otherwise carry over unseen.

The form keeps what the last run was launched with, so that a second run of the same data is one click. A new
run is another matter: a Time budget set for the last run silently cut the next one short, and Run on still named
the host the last run went to. New run puts the Time budget back to its default (and Evaluate every, unless the
user set it, is fitted to the steps again) and Run on to this machine; the banner names what it changed. A form
that something else filled for one run (Fine-tune on reviewed rows: its combined file, its checkpoint, its banner)
is that run's, not the user's: New run gives the defaults' form instead (LaunchForm.filled_by), said so.
"""

from __future__ import annotations

from explorer.core.specs.train_config import TrainConfig

__all__ = ["start_new_run"]


def _minutes(value: float) -> str:
    return f"{value:g} min" if value else "none"


def start_new_run(form, host: str = "", filled_by: str = "") -> str:
    """Put ``form`` (a LaunchForm) to a new run's defaults: the Time budget to TrainConfig's (no longer counted as
    the user's), Evaluate every fitted again; ``host``: the host Run on names now ("" for this machine), which the
    launcher puts back to this machine; ``filled_by``: what had filled the form for one run (the launcher has put
    the defaults' form back before this call). Returns the banner's sentence naming what changed ("" when nothing
    did)."""
    if filled_by:
        said = [f"the form holds the defaults again (it held the run {filled_by} filled in)"]
        if host:
            said.append(f"Run on back to this machine (was {host})")
        return f"New run: {'; '.join(said)}."
    default = TrainConfig().time_budget_minutes
    budget = float(form.values.get("time_budget_minutes") or 0.0)
    form.edited.discard("time_budget_minutes")
    said = []
    if budget != default:
        form.set("time_budget_minutes", default)
        form.fit_eval_every()
        said.append(f"Time budget back to {_minutes(default)} (was {_minutes(budget)})")
    if host:
        said.append(f"Run on back to this machine (was {host})")
    return f"New run: {'; '.join(said)}." if said else ""

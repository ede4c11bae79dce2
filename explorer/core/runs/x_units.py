"""What the Curves x axis (and ``bert-explorer runs --export-csv --x``) counts (Qt-free): optimizer steps, epochs,
or training examples seen.

Runs of different batch sizes or training-set sizes are compared fairly by epoch (passes over their own training
rows) or by examples seen (steps x effective batch size); by step, a run with a batch of 8 looks four times slower
than one with 32. Each run's steps map to the chosen unit by one factor per run, so curves, ranges and the
crosshair all read the run's own step series multiplied by it:

- epoch: 1 / ``steps_per_epoch`` of the run's started event; else (an HF Trainer folder, whose log entries carry
  an epoch) the epoch / step of its last step event; a run with neither has no epoch;
- examples: the started event's ``effective_batch_size`` (batch size x gradient accumulation x processes); else
  the run's settings (this app's ``batch_size`` x ``gradient_accumulation_steps``, a Trainer folder's
  ``per_device_train_batch_size`` x ``gradient_accumulation_steps``: one device assumed, said in the note).

When a shown run lacks its factor, the whole axis stays in steps and :func:`axis_for` says which run lacks what:
one axis never mixes units.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

__all__ = ["X_UNITS", "X_UNIT_CHOICES", "X_UNIT_LABELS", "XAxis", "axis_for", "record_factors", "run_factor"]

X_UNITS = ("step", "epoch", "examples")
# the axis label of each unit; the selector's entries
X_UNIT_LABELS = {"step": "step", "epoch": "epoch", "examples": "training examples seen"}
X_UNIT_CHOICES = {"step": "x: steps", "epoch": "x: epochs", "examples": "x: examples seen"}


def _positive(value) -> float | None:
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if out > 0 else None


def run_factor(state, unit: str) -> tuple[float | None, str]:
    """(the factor from run ``state``'s optimizer steps to ``unit``, a note on how it was found; "" when exact),
    or (None, what the run lacks). ``state``: a RunState (steps_per_epoch, effective_batch_size, epoch, step,
    config, settings)."""
    if unit == "step":
        return 1.0, ""
    if unit == "epoch":
        spe = _positive(getattr(state, "steps_per_epoch", 0))
        if spe:
            return 1.0 / spe, ""
        if _positive(state.epoch) and _positive(state.step):
            return state.epoch / state.step, ""
        return None, "records no epochs"
    if unit == "examples":
        ebs = _positive(getattr(state, "effective_batch_size", 0))
        if ebs:
            return ebs, ""
        cfg, st = state.config or {}, state.settings or {}
        accumulation = _positive(cfg.get("gradient_accumulation_steps") or st.get("gradient_accumulation_steps")) or 1
        if _positive(cfg.get("batch_size")):
            return float(cfg["batch_size"]) * accumulation, ""
        if _positive(st.get("per_device_train_batch_size")):
            return float(st["per_device_train_batch_size"]) * accumulation, "one device assumed"
        return None, "records no batch size"
    raise ValueError(f"unknown x unit {unit!r}; one of {', '.join(X_UNITS)}")


@dataclass(frozen=True, kw_only=True)
class XAxis:
    """The x axis the Curves plots share: ``unit`` drawn (one of X_UNITS), ``wanted`` (the user's choice),
    ``factors`` (run id -> factor from its steps), ``note`` (why the unit fell back to steps, or how a factor was
    guessed; "" when nothing to say)."""

    unit: str
    wanted: str
    factors: dict = field(default_factory=dict)
    note: str = ""

    @property
    def label(self) -> str:
        """The axis label: the unit's name."""
        return X_UNIT_LABELS[self.unit]

    def factor(self, run_id: str) -> float:
        """The factor of run ``run_id`` (1.0 for a run not shown)."""
        return self.factors.get(run_id, 1.0)


def axis_for(states, wanted: str, name_of=lambda run_id: run_id) -> XAxis:
    """The shared x axis for the shown runs ``states`` when the user wants ``wanted``: that unit when every run
    has its factor, else steps with a note naming the runs that lack it (``name_of``: run id -> shown name)."""
    if wanted not in X_UNITS:
        wanted = "step"
    found = {s.run_id: run_factor(s, wanted) for s in states}
    lacking = [f"{name_of(rid)} {why}" for rid, (f, why) in found.items() if f is None]
    if lacking:
        return XAxis(unit="step", wanted=wanted, factors={rid: 1.0 for rid in found},
                     note=f"x by step: {'; '.join(lacking)}")
    guessed = [f"{name_of(rid)}: {why}" for rid, (_f, why) in found.items() if why]
    return XAxis(unit=wanted, wanted=wanted, factors={rid: f for rid, (f, _w) in found.items()},
                 note="; ".join(guessed))


def record_factors(records, unit: str) -> dict[str, float]:
    """run id -> the factor from each run's steps to ``unit``, for core.runs.reading.RunRecords (any kind of run
    folder): its started event's steps_per_epoch and effective_batch_size, its last step event's epoch and step,
    its config and settings, by :func:`run_factor`'s rules. Raises ValueError naming the runs that lack it (one
    file never mixes units) or an unknown unit."""
    found = {}
    for rec in records:
        started = next((e for e in reversed(rec.events) if e.get("event") == "started"), {})
        last = next((e for e in reversed(rec.events) if e.get("event") == "step" and e.get("epoch")), {})
        state = SimpleNamespace(steps_per_epoch=started.get("steps_per_epoch") or 0,
                                effective_batch_size=started.get("effective_batch_size") or 0,
                                epoch=last.get("epoch"), step=last.get("step"), config=rec.config or {},
                                settings=rec.settings or {})
        found[rec.run_id] = run_factor(state, unit)
    lacking = [f"{rid} {why}" for rid, (f, why) in found.items() if f is None]
    if lacking:
        raise ValueError(f"no {X_UNIT_LABELS[unit]} for every run: {'; '.join(lacking)}")
    return {rid: f for rid, (f, _why) in found.items()}


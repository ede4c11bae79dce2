"""A resumed run's orphaned events (Qt-free, torch-free): the rule every reader of a run log applies to it.

A run that crashed at step 15 after its last checkpoint at step 10 and was resumed (``train --resume``) logs a
``started`` event with ``resumed_from_step: 10`` and then steps 11, 12, ... again. The crashed worker's steps 11..15
are orphaned: no checkpoint holds the weights they describe, and drawn beside the resumed ones they make a
zig-zag. TensorBoard purges such points when a restarted writer marks its restart (``SummaryWriter(purge_step=N)``;
explorer.core.runs.tensorboard applies that to event files); a run log here marks it with ``resumed_from_step``,
so the same purge applies: every ``step``, ``eval``, ``evaluating`` and ``checkpoint`` event before the resumed
``started`` whose step is past the resume step is dropped, and a note says so. Readers: the run folder reader
(explorer.core.runs.reading, hence the Runs list and Curves of a run read from its folder, ``bert-explorer runs``,
its CSV export, Groups) and the capsule's evaluations (explorer.core.studies.capsule).
"""

from __future__ import annotations

STEPPED = ("step", "eval", "evaluating", "checkpoint")   # the events that belong to one step of training


def resume_step(event: dict) -> int | None:
    """The step a ``started`` event says its run resumed from; None for a fresh start or another event."""
    value = event.get("resumed_from_step") if event.get("event") == "started" else None
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def is_orphaned(event: dict, resumed_from: int) -> bool:
    """Whether an event logged before a resume from step ``resumed_from`` is orphaned by it (a stepped event
    past that step)."""
    step = event.get("step")
    return (event.get("event") in STEPPED and isinstance(step, (int, float)) and not isinstance(step, bool)
            and step > resumed_from)


def drop_orphaned(events: list[dict]) -> tuple[list[dict], list[str]]:
    """(``events`` without those each resume orphaned, one note per resume that dropped any: "restart found:
    resumed from step 10 after the log reached step 15; 7 event(s) of steps 11..15 logged before the resume were
    dropped, as TensorBoard drops a restarted writer's"). Events keep their order; a fresh run is returned as is."""
    if not any(resume_step(e) is not None for e in events):
        return events, []
    kept: list[dict] = []
    notes: list[str] = []
    for event in events:
        at = resume_step(event)
        if at is not None:
            orphaned = [e for e in kept if is_orphaned(e, at)]
            if orphaned:
                reached = max(int(e["step"]) for e in orphaned)
                kept = [e for e in kept if not is_orphaned(e, at)]
                notes.append(f"restart found: resumed from step {at} after the log reached step {reached}; "
                             f"{len(orphaned)} event(s) of steps {at + 1}..{reached} logged before the resume were "
                             "dropped, as TensorBoard drops a restarted writer's")
        kept.append(event)
    return kept, notes

"""How far a group of runs queued from the GUI is (a cross-validation's folds, restarts, a grid, a learning
curve), without Qt: "2 of 5 runs of cv-sst2 done", the units the group's JobMeter measures its rate in, which
members a Cancel stops, and the sentence once the group has ended.

Each member counts :data:`UNITS` when it has ended; a running member its share of training done (steps of its
planned steps, or training seconds of its time budget), so the measured rate, and the time left at it, follows
the running member instead of jumping once per finished run. Members that ended (finished, stopped early,
failed) are never touched by a Cancel: their folders and figures stay in the group.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from explorer.core.runs import status as run_status

UNITS = 1000   # one member's share of the group's progress


def member_share(state) -> float:
    """0..1: how much of one member is done (a RunState or None for a member not listed yet)."""
    if state is None or state.status == run_status.QUEUED:
        return 0.0
    if state.status in run_status.TERMINAL:
        return 1.0
    budget = state.budget_seconds
    if budget:
        return min(1.0, state.train_seconds / budget)
    return min(1.0, state.step / state.steps_total) if state.steps_total else 0.0


def member_left(state) -> float | None:
    """A running member's seconds left: its own time left (RunState.eta) once its step rate is measured; before that,
    for a member with a Time budget, the budget less its elapsed time (the budget bounds its wall time: the first
    minute of a 1-minute member is not "estimating …"); None for a member with neither."""
    left = state.eta()
    if left is None and state.budget_seconds:
        left = max(0.0, state.budget_seconds - state.live_elapsed())
    return left


@dataclass(kw_only=True)
class GroupProgress:
    """The members ``run_ids`` of group ``name``; ``state_of(run_id)`` gives a member's RunState (or None)."""

    name: str
    run_ids: list[str]
    state_of: Callable[[str], object]
    cancelled_by_user: bool = field(default=False)

    def statuses(self) -> list[str]:
        return [getattr(self.state_of(r), "status", run_status.QUEUED) for r in self.run_ids]

    def ended(self) -> int:
        """Members that have ended, in any way."""
        return sum(s in run_status.TERMINAL for s in self.statuses())

    def is_over(self) -> bool:
        return self.ended() == len(self.run_ids)

    def measure(self) -> tuple[float, float, str]:
        """(units done, units in all, the head "2 of 5 runs of <name> done") for the group's JobMeter."""
        done = sum(member_share(self.state_of(r)) for r in self.run_ids) * UNITS
        head = f"{self.ended()} of {len(self.run_ids)} runs of {self.name} done"
        return done, len(self.run_ids) * UNITS, head

    def seconds_left(self) -> float | None:
        """The group's time left from its members' own clocks: each running member's time left (:func:`member_left`:
        RunState.eta, or before its step rate is measured, a Time budget less its elapsed time), plus each queued
        member at the duration of a member: the mean of those that finished or stopped, else a running one's
        elapsed time plus its time left. None while a running member has no time left to go by (no step rate and no
        budget yet; the bar then measures the group's rate). A rate over the group's first seconds is mostly a
        member's set-up, and a group of 1-minute runs read "about 52:47 left"."""
        states = [self.state_of(r) for r in self.run_ids]
        ended = [s.duration for s in states if s is not None and s.status in (run_status.FINISHED, run_status.STOPPED)
                 and s.duration]
        running = [s for s in states if s is not None and s.status in run_status.LIVE
                   and s.status != run_status.QUEUED]
        lefts = [member_left(s) for s in running]
        per_member = (sum(ended) / len(ended) if ended else
                      next((s.live_elapsed() + left for s, left in zip(running, lefts) if left is not None), None))
        queued = sum(s is None or s.status == run_status.QUEUED for s in states)
        if per_member is None or any(left is None for left in lefts):
            return None
        return sum(lefts) + queued * per_member

    def to_cancel(self) -> list[str]:
        """The members a Cancel stops: queued ones first (so the queue starts none of them when the running one
        ends), then the running ones. Ended members are kept."""
        queued = [r for r, s in zip(self.run_ids, self.statuses()) if s == run_status.QUEUED]
        live = [r for r, s in zip(self.run_ids, self.statuses()) if s in run_status.LIVE and r not in queued]
        return queued + live

    def end_text(self) -> str:
        """'Group cv-sst2: 5 finished' or, after a Cancel, 'Group cv-sst2 cancelled: 2 finished kept, 3 cancelled'."""
        counts: dict[str, int] = {}
        for s in self.statuses():
            counts[s] = counts.get(s, 0) + 1
        parts = ", ".join(f"{n} {s}" for s, n in counts.items())
        if self.cancelled_by_user:
            kept = sum(n for s, n in counts.items() if s in (run_status.FINISHED, run_status.STOPPED))
            return f"Group {self.name} cancelled: {kept} ended runs kept ({parts})"
        return f"Group {self.name}: {parts}"

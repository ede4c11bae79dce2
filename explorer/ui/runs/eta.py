"""What a run's steps and its evaluations take, read from its step and eval events (Qt-free): the timing behind a
run's time remaining (explorer.ui.runs.state.RunState.eta).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["ENDS_AT_LAST_STEP", "ENDS_BY_BUDGET", "EtaMeter", "SETTLED_SECONDS", "SETTLED_STEPS", "budget_training_left"]

SETTLED_STEPS = 3        # timed steps (between step events) before the time left is estimated
SETTLED_SECONDS = 5.0    # or seconds of them, whichever comes first (a slow step times enough alone)
ENDS_BY_BUDGET = "ends by its time budget"     # what bounds a time-budgeted run's training left, in words
ENDS_AT_LAST_STEP = "ends at its last step"


def budget_training_left(budget_left: float, per_step: float | None, steps_left: int | None) -> tuple[float, str]:
    """(training seconds left, what bounds them) of a time-budgeted run: the smaller of the budget left and the
    steps left (``steps_left``: its step bound less the steps done; None: no bound but time) at the measured
    ``per_step`` seconds (None: not measured yet). A run whose last step comes before its budget ends then: its
    budget's time left would promise minutes it will not run."""
    budget_left = max(0.0, budget_left)
    if per_step is not None and steps_left is not None and per_step * max(0, steps_left) < budget_left:
        return per_step * max(0, steps_left), ENDS_AT_LAST_STEP
    return budget_left, ENDS_BY_BUDGET


@dataclass
class EtaMeter:
    """What a run's steps and its evaluations take, read from its step and eval events, for the time remaining.

    Seconds per step: from the intervals between step events with no evaluation in them (so neither the set-up nor
    an evaluation counts as training). Seconds per evaluation: from the intervals with one (the evaluation, the
    checkpoint saved after it, the steps at the per-step rate taken off), else from the eval events' own
    ``seconds`` (the evaluation before the first step). The mean time per step so far times the steps left would
    count the evaluations in the step rate and go up after every evaluation (3:31 at step 22, 3:49 at step 26).
    """

    last: tuple[float, float] | None = None   # (step, elapsed) of the last step event
    evals_since: int = 0          # evaluations after that step event
    clean: list = field(default_factory=lambda: [0.0, 0.0])        # [seconds, steps] of intervals without one
    with_eval: list = field(default_factory=lambda: [0.0, 0.0, 0])  # [seconds, steps, evaluations] with
    eval_seconds: list = field(default_factory=lambda: [0.0, 0])    # [seconds, evaluations] the eval events say

    def step(self, step: float, elapsed: float | None) -> None:
        """A step event at ``step`` with the run's ``elapsed`` seconds (None: the event has no time)."""
        if elapsed is None:
            return
        if self.last is not None and step > self.last[0] and elapsed >= self.last[1]:
            gap = (elapsed - self.last[1], step - self.last[0])
            if self.evals_since:
                self.with_eval[0] += gap[0]
                self.with_eval[1] += gap[1]
                self.with_eval[2] += self.evals_since
            else:
                self.clean[0] += gap[0]
                self.clean[1] += gap[1]
        self.last, self.evals_since = (step, elapsed), 0

    def evaluation(self, seconds: float | None) -> None:
        """An eval event (``seconds``: the evaluation's own time, when the event gives it)."""
        if self.last is not None:
            self.evals_since += 1
        if seconds is not None and seconds >= 0:
            self.eval_seconds[0] += seconds
            self.eval_seconds[1] += 1

    def per_step(self) -> float | None:
        return self.clean[0] / self.clean[1] if self.clean[1] else None

    def settled(self) -> bool:
        """Whether the step rate is measured well enough to estimate from: SETTLED_STEPS steps or SETTLED_SECONDS
        seconds of intervals between step events. The elapsed time at the first step event holds the set-up and
        the first step's warm-up (model load, first graph, allocator): divided by one step it gave 14:19 left for
        a run that took 1:43, so neither counts, and too few timed steps say "estimating"."""
        return self.clean[1] >= SETTLED_STEPS or self.clean[0] >= SETTLED_SECONDS

    def per_eval(self, per_step: float, *, intervals_only: bool = False) -> float | None:
        """Seconds an evaluation adds to the run (None before one has been timed; with ``intervals_only``, before
        one between step events has)."""
        seconds, steps, evals = self.with_eval
        if evals and seconds - per_step * steps >= 0:
            return (seconds - per_step * steps) / evals
        if intervals_only:
            return None
        return self.eval_seconds[0] / self.eval_seconds[1] if self.eval_seconds[1] else None

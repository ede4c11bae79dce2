"""How much of a run is done and how long it has left, from the fields of the run's state it is mixed into
(explorer.ui.runs.state.RunState: config, step, steps_total, train_seconds, train_budget, step_bound, evals, the
EtaMeter ``_eta``, status): the progress bar's share, the time remaining with the evaluations still to come, what
ends a time-budgeted run, the elapsed time. Qt-free."""

from __future__ import annotations

import math
import time

from explorer.core.runs import status as run_status


def _num(value) -> float | None:
    """A finite float, or None for missing / non-numeric / NaN values."""
    out = as_float(value)
    return out if out is not None and math.isfinite(out) else None


def as_float(value) -> float | None:
    """``value`` as a float (NaN and inf too), None for None, a bool or a value that is no number."""
    if isinstance(value, bool) or value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


class TimeLeft:
    """The time arithmetic of a RunState (mixed into it; reads its fields, keeps none of its own but
    ``shown_share`` on it)."""

    @property
    def budget_seconds(self) -> float:
        """The run's time budget in seconds of wall time (config ``time_budget_minutes``); 0 without one."""
        value = _num((self.config or {}).get("time_budget_minutes"))
        return 60.0 * value if value and value > 0 else 0.0

    def done_share(self) -> float:
        """0..1: how much of the run is done, for a progress bar: step / steps_total, and for a time-budgeted run at
        least the share of its training seconds trained. Never below a share given before: a time-budgeted run
        re-estimates the steps that fit as it times itself (a CoNLL run's ~71 became ~225 as its steps got faster
        than its first ones), and a bar that followed step / steps_total went back."""
        share = min(1.0, self.step / self.steps_total) if self.steps_total else 0.0
        budget = self.train_budget or self.budget_seconds
        if budget and self.train_seconds > 0:
            share = max(share, min(1.0, self.train_seconds / budget))
        self.shown_share = max(self.shown_share, share)
        return self.shown_share

    def eta(self) -> float | None:
        """Remaining seconds: the training left (a time-budgeted run: the budget not yet trained; otherwise the
        time per step times the steps left) plus the evaluations still to come at their measured cost
        (:meth:`evals_to_come_seconds`). EtaMeter times steps and evaluations apart; before a step interval is
        timed, the mean time per step so far (a time-budgeted run, whose training left is known). None before the
        step rate is measured (:meth:`EtaMeter.settled`: the set-up and the first step are not a rate). During the
        final evaluation: what it has left (ui/runs/evaluating)."""
        from explorer.ui.runs.evaluating import evaluating_now, evaluation_left_seconds
        from explorer.ui.runs.stopping import stop_seconds

        under_way = evaluating_now(self)
        if under_way is not None and under_way.get("final"):   # only the final evaluation is left: its rows
            return evaluation_left_seconds(self)
        if self.status == run_status.STOPPING:   # one evaluation and a save are left (ui/runs/stopping)
            return stop_seconds(self)
        budgeted = bool(self.budget_seconds and self.train_seconds > 0)
        if not budgeted and (self.step <= 0 or self.steps_total <= 0 or self.elapsed <= 0
                             or not self._eta.settled()):
            return None
        per_step = self._eta.per_step()
        if per_step is None:   # a budgeted run before two step events: the set-up counts in its evaluations' share
            per_step = max(0.0, self.elapsed - self._eta.eval_seconds[0]) / max(1, self.step)
        training = (self.budget_training_left()[0] if budgeted
                    else per_step * max(0, self.steps_total - self.step))
        return max(0.0, training + self.evals_to_come_seconds(per_step))

    def budget_training_left(self) -> tuple[float, str]:
        """A time-budgeted run's (training seconds left, what bounds them: eta.ENDS_BY_BUDGET or ENDS_AT_LAST_STEP):
        the budget left, or its last step's time at the measured step rate where that comes first (eta)."""
        from explorer.ui.runs.eta import budget_training_left

        left = (self.train_budget or self.budget_seconds) - self.train_seconds
        steps_left = self.step_bound - self.step if self.step_bound > 0 else None
        return budget_training_left(left, self._eta.per_step() if self._eta.settled() else None, steps_left)

    def ends_by(self) -> str:
        """What ends a live time-budgeted run's training, for the tooltip of its time remaining: "ends by its time
        budget" or "ends at its last step"; "" for other runs."""
        if not (self.is_live and self.budget_seconds and self.train_seconds > 0):
            return ""
        return self.budget_training_left()[1]

    def evals_to_come_seconds(self, per_step: float) -> float:
        """Seconds of the evaluations still to come. With the eval events' forward rate (rows_per_second, after
        their first batch) and rows (dev_rows of dev_total: a run evaluating on a dev sample): those between at
        the time measured between step events (else their rows at that rate) and the final one on the whole dev
        set at that rate; without them, each at the measured time per evaluation. 0 before one was timed."""
        if not self.evals:
            return 0.0
        between, final = self.evals_left_parts()
        timed = [ev for ev in self.evals if (_num(ev.get("rows_per_second")) or 0) > 0 and _num(ev.get("dev_rows"))]
        if timed:
            last = timed[-1]
            rate, rows = _num(last["rows_per_second"]), _num(last["dev_rows"])
            total = _num(last.get("dev_total")) or rows
            measured = self._eta.per_eval(per_step, intervals_only=True)
            return between * (measured if measured is not None else rows / rate) + final * total / rate
        per_eval = self._eta.per_eval(per_step)
        if not per_eval:
            return 0.0
        sized = [ev for ev in self.evals if (_num(ev.get("dev_rows")) or 0) > 0]
        rows = _num(sized[-1].get("dev_rows")) if sized else None
        total = _num(sized[-1].get("dev_total")) if sized else None
        return per_eval * (between + final * (total / rows if rows and total and total > rows else 1.0))

    def eval_every(self) -> int:
        """Steps between evaluations: the cadence the run planned (its step events' eval_every), else the
        config's."""
        if self.planned_eval_every is not None:
            return self.planned_eval_every
        return int(_num(self.config.get("eval_every")) or 0)

    def evals_left_parts(self) -> tuple[int, int]:
        """(evaluations still to come before the end, 1 if the final one is still to come else 0): one every
        eval_every steps after the last evaluation, below steps_total (explorer.core.training.loop)."""
        every = self.eval_every()
        last = max((_num(ev.get("step")) or 0 for ev in self.evals), default=0)
        between = max(0, (self.steps_total - 1 - int(last)) // every) if every > 0 and self.steps_total else 0
        final_done = self.steps_total > 0 and last >= self.steps_total
        return between, 0 if final_done else 1

    def evals_left(self) -> int:
        """Evaluations the run still makes, the final one included."""
        return sum(self.evals_left_parts())

    def live_elapsed(self, now: float | None = None) -> float:
        """Elapsed seconds; while running, counts on from the last step event."""
        if self.status in (run_status.RUNNING, run_status.STOPPING, run_status.CANCELLING) and self.started_at:
            return max(self.elapsed, (now or time.time()) - self.started_at)
        return self.duration if self.duration is not None else self.elapsed

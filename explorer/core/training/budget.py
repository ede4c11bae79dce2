"""A run's time budget as wall time: the training seconds it leaves once evaluations and saves are paid for.

``time_budget_minutes`` is the whole run from its first evaluation to its end: training, the evaluations
before and during training, checkpoint saves, and the final evaluation on the whole dev set. Training stops
early enough for the final evaluation to fit: the training seconds allowed are the budget less the seconds
already spent outside training steps (:meth:`WallBudget.spent_outside`) and those still expected outside them
(``ahead``: the evaluations still to come at their measured cost, set by the loop after each plan and
evaluation). A budget counted in training seconds alone let a "5-minute" run take 18 minutes of wall time.
"""

from __future__ import annotations

import math

from explorer.core.training import clock as clock_module
from explorer.core.training.clock import TrainClock


class WallBudget:
    """The wall-time budget of one run and the training seconds it leaves.

    Args:
        budget_seconds: the whole run's budget in seconds (> 0; 0 = no budget).
        clock: the run's training clock (seconds in training steps).
        wall_before: wall seconds counted before a resume (``training_state.pt``'s ``wall_seconds``).
    """

    def __init__(self, budget_seconds: float, clock: TrainClock, wall_before: float = 0.0):
        self.total = float(budget_seconds)
        self.clock = clock
        self.wall_before = float(wall_before)
        self.ahead = 0.0           # seconds expected outside training steps from now to the end
        self._since: float | None = None

    def begin(self) -> None:
        """Start counting the wall time (the run's first evaluation, or its first step when resumed)."""
        if self._since is None:
            self._since = clock_module._now()

    def wall_seconds(self) -> float:
        """Wall seconds of the run so far (0 before :meth:`begin`)."""
        return self.wall_before + (clock_module._now() - self._since if self._since is not None else 0.0)

    def spent_outside(self) -> float:
        """Wall seconds spent outside training steps so far (evaluations, saves, loaders)."""
        return max(0.0, self.wall_seconds() - self.clock.seconds())

    def training_seconds(self) -> float:
        """The training seconds the budget allows: the budget less what was and will be spent outside training
        (0 at the least). Training is over once the clock reaches it (:meth:`spent`)."""
        if self.total <= 0:
            return 0.0
        return training_seconds_left(self.total, self.spent_outside(), self.ahead)

    def spent(self) -> bool:
        """The training clock has reached the training seconds the budget allows."""
        return self.total > 0 and self.clock.seconds() >= self.training_seconds()

    def left(self) -> float:
        """Wall seconds of the budget not yet used."""
        return max(0.0, self.total - self.wall_seconds())


def seconds_ahead(*, steps: int, step: int, last_eval_step: int, every: int, rows: int, dev_total: int,
                  eval_rate: float, save_seconds: float = 0.0) -> float:
    """Seconds a run still expects outside its training steps: the evaluations still to come on ``rows`` dev
    rows (one every ``every`` steps after ``last_eval_step``, below ``steps``; the loop's cadence), the final
    one on all ``dev_total`` rows, each at ``eval_rate`` rows/s and costing ``save_seconds`` besides (its metrics
    and the checkpoint saves after it: eval_schedule.EvalSchedule.overhead), and, when the evaluations score a
    sample (``rows`` < ``dev_total``), the forward of all dev rows again for a best checkpoint of an earlier step
    picked on the sample (best_rescore).
    0 without a measured rate (nothing to plan with yet: no dev data, or before the first evaluation)."""
    if eval_rate <= 0:
        return save_seconds
    between = max(0, (steps - 1 - last_eval_step) // every) if every > 0 and steps > step else 0
    rescoring = dev_total / eval_rate if rows < dev_total else 0.0
    return between * (rows / eval_rate + save_seconds) + dev_total / eval_rate + save_seconds + rescoring


def training_seconds_left(budget_seconds: float, spent_outside: float, ahead: float) -> float:
    """The training seconds a ``budget_seconds`` budget leaves once ``spent_outside`` seconds were spent outside
    training steps and ``ahead`` more are expected there (0 at the least). The run stops training by it
    (:meth:`WallBudget.training_seconds`) and the launcher foresees a budget with none left by it
    (:func:`no_time_note`)."""
    return max(0.0, budget_seconds - spent_outside - ahead)


def seconds_at_start(*, first_rows: int, dev_total: int, eval_rate: float, save_seconds: float = 0.0) -> tuple[float, float]:
    """(the seconds the evaluation before training takes on ``first_rows`` dev rows, the seconds expected outside
    training after it: :func:`seconds_ahead` at step 0, the final evaluation on all ``dev_total`` rows and a best
    rescored on them) at ``eval_rate`` dev rows/s: what a run's budget has spent and still expects outside training
    when it checks, before its first step, that it leaves time to train (0.0, 0.0 without a rate)."""
    if eval_rate <= 0:
        return 0.0, 0.0
    first = first_rows / eval_rate + save_seconds if first_rows > 0 else 0.0
    ahead = seconds_ahead(steps=0, step=0, last_eval_step=0, every=0, rows=first_rows, dev_total=dev_total,
                          eval_rate=eval_rate, save_seconds=save_seconds)
    return first, ahead


def no_time_to_train(budget_seconds: float, spent_outside: float, ahead: float, dev_total: int) -> str:
    """The message of a time budget that leaves no training seconds once the evaluations are paid for: which
    setting, what took the time, and what to change (a run that trained nothing and reported "finished" opened
    its untrained head as its best checkpoint)."""
    rows = f" on all {dev_total:,} dev rows" if dev_total else ""
    return (f"time_budget_minutes: the {budget_seconds / 60:g}-minute budget leaves no time to train: the run spent "
            f"{spent_outside:.0f} s before its first step (the evaluation before training included) and expects "
            f"{ahead:.0f} s for the final evaluation{rows} at the rate it measured. Raise the time budget, or "
            "evaluate fewer rows (Dev cap, Dev fraction); a busy machine makes both take longer.")


def steps_fitting(run, training_seconds: float) -> int:
    """The optimizer steps a time-budgeted ``run`` (a TrainingRun) expects to have done when its training clock
    reaches ``training_seconds``: the steps done, then the seconds left at the step rate measured after this
    process's first step (``run.first_step``: its step and clock then) once a later step is timed, else over all
    steps so far; at least the steps done, at most ``run.steps_total``. The first step holds the data loader's
    start and the model's warm-up, which are no rate: counted in, a slow first step made the plan start low and
    grow all through the run (the progress line's "step 2 of ~71" became "of ~225")."""
    return steps_in(training_seconds, step_rate(run), run.steps_total, step=run.progress.step,
                    seconds=run.clock.seconds())


def step_rate(run) -> float:
    """The optimizer steps per training second of ``run`` (a TrainingRun with a step done): after this process's
    first step (``run.first_step``) once a later step is timed, else over all steps so far. The first step holds
    the data loader's start and the model's warm-up: the steps a budget fits and the training seconds the
    evaluations are planned against are both counted at this rate."""
    seconds, step = run.clock.seconds(), run.progress.step
    first = getattr(run, "first_step", None)
    if first is not None and step > first[0] and seconds > first[1]:
        return (step - first[0]) / (seconds - first[1])
    return step / seconds


def steps_in(training_seconds: float, steps_per_second: float, steps_total: int, *, step: int = 0,
             seconds: float = 0.0) -> int:
    """The optimizer steps done when a training clock now at ``seconds`` (after ``step`` steps) reaches
    ``training_seconds`` at ``steps_per_second``: at least ``step``, at most ``steps_total``. The run counts its
    steps by it (:func:`steps_fitting`), and the launcher the steps a time budget fits before any is timed."""
    return min(steps_total, max(step, step + round((training_seconds - seconds) * steps_per_second)))


def training_seconds_planned(budget_seconds: float, share: float) -> float:
    """The training seconds a time budget of ``budget_seconds`` is planned with: what is left once evaluations take
    their ``share`` of it (eval_share; the whole budget when the share is not in (0, 1))."""
    return (1.0 - share) * budget_seconds if 0 < share < 1 else budget_seconds


# Fewer optimizer steps than this in a time budget learn too little to read as a result. Recorded runs of the
# bundled encoder on a 400-row SST-2 table (benchmarks/results/small_table_learning_rate.json, majority 50.5%):
# at lr 1e-4 it scored 56.5% after 13 steps and 74.5% after 26; at lr 2e-5 it was still at 53.0% after 52 steps.
MIN_BUDGET_STEPS = 50


def budget_for_steps(steps: int, steps_per_second: float, share: float) -> float:
    """The time budget in seconds whose planned training seconds (:func:`training_seconds_planned` at ``share``)
    fit ``steps`` optimizer steps at ``steps_per_second``: the inverse of the plan a budgeted run makes."""
    train = steps / steps_per_second
    return train / (1.0 - share) if 0 < share < 1 else train


def few_steps_note(steps: int, steps_total: int, budget_seconds: float, steps_per_second: float, share: float, *,
                   member: str = "run", held_out: str = "", fmt=None, single: bool = False) -> str:
    """"each fold trains about 6 steps in its 1:00 budget (evaluating its 1,979 held-out rows takes the rest): too
    few to learn; give each fold about 9 minutes" when a time budget cuts a run (``member``: what one run of the
    queue is) to fewer than :data:`MIN_BUDGET_STEPS` of its ``steps_total`` optimizer steps, ``steps`` being what the
    budget's plan fits at ``steps_per_second``; the minutes are the budget whose plan reaches the floor (or the
    whole run, where it has fewer steps). ``held_out``: what its evaluations score ("its 1,979 held-out rows");
    ``single``: one run, said as "the run trains about 6 steps …; give it about 9 minutes". '' when the budget
    leaves enough steps, or the run is short of them without it (its data, its epochs)."""
    if budget_seconds <= 0 or steps_per_second <= 0 or steps >= min(MIN_BUDGET_STEPS, steps_total):
        return ""
    from explorer.core.runs.throughput import format_duration

    fmt = fmt or format_duration
    minutes = max(1, math.ceil(budget_for_steps(min(MIN_BUDGET_STEPS, steps_total), steps_per_second, share) / 60))
    rest = f" (evaluating {held_out} takes the rest)" if held_out else ""
    who, whom = (f"the {member}", "it") if single else (f"each {member}", f"each {member}")
    return (f"{who} trains about {steps:,} step{'s' if steps != 1 else ''} in its {fmt(budget_seconds)} "
            f"budget{rest}: too few to learn; give {whom} about {minutes} minute{'s' if minutes != 1 else ''}")


def no_time_note(budget_seconds: float, *, dev_total: int, rows_at_start, eval_rate: float, steps_per_second: float,
                 steps_total: int, share: float, what: str = "dev rows", fmt=None) -> str:
    """"the 1:00 budget leaves no time to train: the evaluation before training and the final one on all 1,500 dev
    rows take about 1:04 of it; give the run about 3 minutes, or a Dev cap of at most 700 rows" where a time budget
    of ``budget_seconds`` leaves no training seconds (:func:`training_seconds_left`) once the evaluations the run
    makes before its first step and at its end (:func:`seconds_at_start`) take their time at ``eval_rate`` dev
    rows/s: the check the run makes before its first step, at the launcher's rates. ``rows_at_start``: a function
    of the dev rows giving those the evaluation before training scores (eval_schedule.first_rows). The minutes
    cover those evaluations and :data:`MIN_BUDGET_STEPS` steps (at most ``steps_total``) at ``steps_per_second``;
    the Dev cap is the most rows whose evaluations take at most half the budget. '' when the budget leaves time."""
    if budget_seconds <= 0 or eval_rate <= 0 or dev_total <= 0:
        return ""

    def outside(rows: int) -> float:
        return sum(seconds_at_start(first_rows=rows_at_start(rows), dev_total=rows, eval_rate=eval_rate))

    first, ahead = seconds_at_start(first_rows=rows_at_start(dev_total), dev_total=dev_total, eval_rate=eval_rate)
    if training_seconds_left(budget_seconds, first, ahead) > 0:
        return ""
    taken = first + ahead
    from explorer.core.runs.throughput import format_duration

    fmt = fmt or format_duration
    steps = min(MIN_BUDGET_STEPS, steps_total) if steps_total > 0 else MIN_BUDGET_STEPS
    train = steps / steps_per_second if steps_per_second > 0 else 0.0
    planned = budget_for_steps(steps, steps_per_second, share) if steps_per_second > 0 else 0.0
    minutes = max(1, math.ceil(max(taken + train, planned) / 60))
    low, high = 0, dev_total   # the most rows whose evaluations take at most half the budget (monotone in rows)
    while low < high:
        mid = (low + high + 1) // 2
        low, high = (mid, high) if outside(mid) <= budget_seconds / 2 else (low, mid - 1)
    cap = f", or a Dev cap of at most {low:,} rows" if low >= 10 else ""
    return (f"the {fmt(budget_seconds)} budget leaves no time to train: the evaluation before training and the final "
            f"one on all {dev_total:,} {what} take about {fmt(taken)} of it; give the run about {minutes} "
            f"minute{'s' if minutes != 1 else ''}{cap}")

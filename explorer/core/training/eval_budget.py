"""A run's evaluations against its time: the plan made from the measured rates, and what a time-budgeted run's
wall budget still expects outside training.

A time-budgeted run plans its evaluations on the wall budget itself: evaluations (the final one on the whole
dev set, their metrics and saves included) get at most ``eval_share`` of it and training the rest. Planned on
the steps the budget would allow if nothing but training used it, the evaluations took their share of a
longer run than the budget, and a 10-minute run trained less than (1 - eval_share) of it.
"""

from __future__ import annotations

from explorer.core.training.budget import seconds_ahead, step_rate, steps_fitting, steps_in, training_seconds_planned

def steps_for_plan(run) -> int:
    """The optimizer steps the evaluations are planned around: a time-budgeted run's steps that fit in the
    (1 - eval_share) of its wall budget left to training, at the training rate after its first step
    (budget.steps_fitting: at most steps_total, at least the steps done); otherwise the run's planned steps."""
    seconds, step = run.clock.seconds(), run.progress.step
    share = float(run.config.eval_share)
    if run.wall is None or step <= 0 or seconds <= 0 or not 0 < share < 1:
        return run.planned_steps()
    return steps_fitting(run, training_seconds_planned(run.wall.total, share))


def budget_plan_steps(budget_seconds: float, share: float, steps_per_second: float, steps_total: int) -> int:
    """:func:`steps_for_plan` before the run has made a step: the steps of at most ``steps_total`` (its epochs or
    Max steps) that fit the training seconds a ``budget_seconds`` time budget is planned with, at
    ``steps_per_second`` (the launcher's estimate; the run measures its own); ``steps_total`` without a budget."""
    if budget_seconds <= 0 or steps_per_second <= 0:
        return steps_total
    return max(1, steps_in(training_seconds_planned(budget_seconds, share), steps_per_second, steps_total))


def plan_evaluations_now(run) -> None:
    """Plan (or re-plan) the evaluations from the training and evaluation rates measured so far
    (eval_schedule); the first plan goes to the run's log, with what it chose and why."""
    schedule, seconds = run.schedule, run.clock.seconds()
    if schedule is None or seconds <= 0 or run.progress.step <= 0:
        return
    before = schedule.plan
    windows = run.plan["effective_batch_size"]
    # the training rate after the first step (its warm-up is no rate), as the steps are counted: counted over all
    # steps, a slow first step made training look longer and gave the evaluations more rows than planned
    plan = schedule.make_plan(steps=steps_for_plan(run), windows_per_step=windows,
                              train_rate=step_rate(run) * windows)
    if plan is not None and before is None:
        run.writer.emit("log", level="info", message=plan.describe(), topic="eval_plan")
    elif plan is not None and plan.eval_every != before.eval_every:
        run.writer.emit("log", level="info", message=replan_text(before, plan, run.progress.step), topic="eval_plan")
    expect_ahead(run)


def replan_text(before, plan, step: int) -> str:
    """The log line of a cadence that changed after the evaluation at optimizer step ``step``: the new cadence,
    the old one and the measured costs that moved it, in one sentence (the first plan's full text stays in the
    run's log). Without it a run that dropped its later evaluations under load showed the first plan's "every 21
    steps" to the end."""
    def cadence(p) -> str:
        return f"every {p.eval_every:,} steps" if p.eval_every > 0 else "at the end only"

    cost = (f"an evaluation with its saves now takes about {plan.dev_rows / plan.eval_rate + plan.overhead:,.1f} s "
            f"and training runs at {plan.train_rate:,.1f} windows/s" if plan.eval_rate > 0 else "the measured costs")
    return (f"Evaluations re-planned after step {step:,}: {cadence(plan)} from now on, not {cadence(before)}: "
            f"{cost}, and evaluations may take at most {plan.share:.0%} of the run.")


def expect_ahead(run) -> None:
    """Tell a time-budgeted run's wall budget what its evaluations and saves still to come will take
    (budget.seconds_ahead), so that training stops early enough for them, the final evaluation included."""
    schedule = run.schedule
    if run.wall is None or schedule is None:
        return
    # before the first steps are timed (and the cadence planned) the steps that fit are unknown: the final
    # evaluation alone is counted until then
    known = run.progress.step > 0 and (schedule.plan is not None or not schedule.active)
    run.wall.ahead = seconds_ahead(steps=run.planned_steps(), step=run.progress.step,
                                   last_eval_step=schedule.last_eval_step, every=schedule.eval_every if known else 0,
                                   rows=schedule.rows, dev_total=schedule.dev_total, eval_rate=schedule.eval_rate,
                                   save_seconds=schedule.overhead)

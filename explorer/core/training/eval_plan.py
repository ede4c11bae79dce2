"""How often a run evaluates and on how many dev rows, so that evaluations take at most a share of its wall time.

A run's dev evaluations cost ``rows / eval_rate`` seconds each, plus what each one costs whatever its rows (the
metrics, the checkpoint saves after it: ``overhead``); its training costs ``steps x windows per step /
train_rate``. With a large dev set evaluated often (2,478 rows every 43 steps of batch 16), evaluations took most
of the wall time and a "5-minute" run needed 18. :func:`plan_evaluations` picks, from the measured rates:

- the dev rows each evaluation during training scores: all of them when they fit, else a stratified sample
  (explorer.core.data.sample.sample_order: the same rows at every evaluation; never fewer than :data:`MIN_SAMPLE_ROWS`); a sample
  that would hold at least :data:`WHOLE_DEV_SHARE` of the dev rows is all of them (:func:`worth_sampling`), and
- the cadence: the wanted one (the task's evaluations per epoch, or the user's Evaluate every) when the sample
  fits it, else the most frequent one that keeps the share,

so that the evaluations (the one before training, those between, and the final one, always on the whole dev
set) stay within ``share`` of training + evaluating. ``full_dev`` keeps every evaluation on the whole dev set
and fits the cadence alone. Pure arithmetic (no timing, no torch): the loop measures, this decides.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


# evaluations with their metrics and saves take at most this share, so a time-budgeted run trains at least about
# 8 of every 10 minutes once the set-up and the final evaluation are paid for
DEFAULT_SHARE = 0.15
# fewer rows than this make a dev metric too noisy to pick a checkpoint by: at accuracy 0.85 the 95% interval
# of 200 rows is about +-5 points
MIN_SAMPLE_ROWS = 200
# a sample of at least this share of the dev rows saves little of an evaluation's time, and a best checkpoint picked
# on it still needs the whole dev set to be named: such a run evaluates all of its dev rows every time
WHOLE_DEV_SHARE = 0.8


def worth_sampling(rows: int, dev_total: int) -> bool:
    """A dev sample of ``rows`` of the ``dev_total`` dev rows is worth evaluating on instead of all of them: it holds
    fewer than :data:`WHOLE_DEV_SHARE` of them."""
    return rows < WHOLE_DEV_SHARE * dev_total


def clock_text(seconds: float) -> str:
    """'12:30' (minutes:seconds) or '1:02:05' for ``seconds`` >= 0."""
    s = int(round(max(0.0, seconds)))
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def evaluations_between(steps: int, every: int) -> int:
    """Evaluations at the multiples of ``every`` strictly below ``steps`` (the loop's cadence; the final
    evaluation at ``steps`` is counted apart); 0 when ``every`` <= 0."""
    return (max(0, steps) - 1) // every if every > 0 and steps > 0 else 0


def cadence_for(steps: int, evaluations: int) -> int:
    """The smallest Evaluate every that makes at most ``evaluations`` evaluations below ``steps``; 0 (start and
    end only) when ``evaluations`` <= 0."""
    if evaluations <= 0 or steps <= 1:
        return 0
    return (steps - 1) // (evaluations + 1) + 1


@dataclass(frozen=True, kw_only=True)
class EvalPlan:
    """What :func:`plan_evaluations` chose, and what it expects the run to take.

    Attributes:
        steps: optimizer steps the run was planned with.
        eval_every: optimizer steps between evaluations during training; 0 = only before training and at the end.
        wanted_every: the cadence asked for (the task's per-epoch default or the user's Evaluate every).
        dev_rows: rows each evaluation before and during training scores (== dev_total: the whole dev set).
        dev_total: rows of the whole dev set (the final evaluation's).
        evaluations: evaluations on ``dev_rows`` (the one before training included; the final one not).
        train_seconds / eval_seconds: expected seconds of training and of all evaluations (final included).
        train_rate: measured training windows/s; eval_rate: measured dev rows/s.
        overhead: measured seconds each evaluation costs besides its rows' forward (metrics, checkpoint saves).
        share: the largest share of the wall time evaluations were to take.
        full_dev: every evaluation scores the whole dev set; ``full_dev_why`` says why (asked, or dev data that
            cannot be sampled: QA windows, choices; eval_schedule.can_sample).
    """

    steps: int
    eval_every: int
    wanted_every: int
    dev_rows: int
    dev_total: int
    evaluations: int
    train_seconds: float
    eval_seconds: float
    train_rate: float
    eval_rate: float
    share: float
    full_dev: bool = False
    overhead: float = 0.0
    full_dev_why: str = "as asked"

    @property
    def sampled(self) -> bool:
        """Evaluations during training score a sample, not the whole dev set."""
        return self.dev_rows < self.dev_total

    @property
    def total_seconds(self) -> float:
        return self.train_seconds + self.eval_seconds

    @property
    def eval_fraction(self) -> float:
        """Share of the run's wall time spent evaluating (0..1)."""
        return self.eval_seconds / self.total_seconds if self.total_seconds > 0 else 0.0

    def rows_text(self) -> str:
        """'a stratified sample of 600 of the 2,478 dev rows (the same rows each time; all at the end)' or
        'all 2,478 dev rows'."""
        if self.sampled:
            return (f"a stratified sample of {self.dev_rows:,} of the {self.dev_total:,} dev rows (the same rows "
                    "each time; all of them at the end)")
        return f"all {self.dev_total:,} dev rows"

    def less_often_than_asked(self) -> bool:
        """The plan evaluates fewer times than ``wanted_every`` would (more often would not fit the share)."""
        return (self.eval_every != self.wanted_every
                and evaluations_between(self.steps, self.wanted_every) != evaluations_between(self.steps, self.eval_every))

    def describe(self, estimated_from: str = "the first steps", rates_are: str = "measured") -> str:
        """What was chosen and why, with the whole run's time labelled as an estimate (``estimated_from``: the
        rates it comes from, "the first steps" in the run's log, past runs' rates in the launcher), for the
        launcher and the run's log; ``rates_are`` says what the rates are ("measured", or "rough" for the
        launcher's rates when no run measured them)."""
        between = evaluations_between(self.steps, self.eval_every)
        when = f"every {self.eval_every:,} steps" if between else "before training and at the end only"
        if self.less_often_than_asked():
            wanted = f"every {self.wanted_every:,}" if self.wanted_every else "start and end only"
            when += f" (not {wanted}: more often would not fit)"
        why = (f"so evaluations take about {self.eval_fraction:.0%} of the run (at most {self.share:.0%} wanted)"
               if self.eval_fraction <= self.share + 1e-9 else
               f"evaluations still take about {self.eval_fraction:.0%} of the run, over the {self.share:.0%} wanted: "
               "the final evaluation on the whole dev set alone is that long")
        asked = f"; the whole dev set each time, {self.full_dev_why}" if self.full_dev else ""
        return (f"Evaluate {when} on {self.rows_text()}{asked}, {why}. Whole run about "
                f"{clock_text(self.total_seconds)} (estimate from {estimated_from}): training {clock_text(self.train_seconds)}, "
                f"{self.evaluations + 1} evaluations {clock_text(self.eval_seconds)} ({rates_are} "
                f"{self.train_rate:,.1f} training windows/s, {self.eval_rate:,.1f} dev rows/s).")

    def to_dict(self) -> dict:
        return {"steps": self.steps, "eval_every": self.eval_every, "wanted_every": self.wanted_every, "dev_rows": self.dev_rows,
                "dev_total": self.dev_total, "evaluations": self.evaluations, "train_seconds": self.train_seconds,
                "eval_seconds": self.eval_seconds, "train_rate": self.train_rate, "eval_rate": self.eval_rate,
                "share": self.share, "full_dev": self.full_dev}


def plan_evaluations(*, steps: int, windows_per_step: float, train_rate: float, eval_rate: float, dev_total: int,
                     wanted_every: int, share: float = DEFAULT_SHARE, full_dev: bool = False,
                     min_rows: int = MIN_SAMPLE_ROWS, start_evaluation: bool = True,
                     fixed_rows: int = 0, overhead: float = 0.0, full_dev_why: str = "as asked") -> EvalPlan:
    """The cadence and the dev rows per evaluation that keep evaluations within ``share`` of the wall time.

    Args:
        steps: optimizer steps the run will make (a time-budgeted run: those that fit the budget).
        windows_per_step: training windows (rows after tokenization) per optimizer step.
        train_rate: measured training windows per second (> 0).
        eval_rate: measured dev rows per second in evaluation (> 0).
        dev_total: rows of the whole dev set (> 0).
        wanted_every: the cadence asked for; 0 = before training and at the end only.
        share: the largest share of training + evaluating that evaluations may take, in (0, 1).
        full_dev: every evaluation scores the whole dev set (only the cadence adapts); ``full_dev_why``: why, said in
            the plan ("as asked", or why the rows cannot be sampled).
        min_rows: the smallest sample worth evaluating on (capped at dev_total).
        start_evaluation: the run evaluates before its first step (a resumed run does not).
        fixed_rows: > 0: the rows per evaluation are already chosen (a run re-planning with the rates its
            evaluations measured keeps the same sample); only the cadence adapts.
        overhead: seconds each evaluation costs besides its rows' forward (>= 0): computing the metrics and the
            checkpoint saves that follow it. Without it a run whose saves take as long as its evaluations spent
            twice the planned share outside training.

    Raises:
        ValueError: a rate or dev_total <= 0, or share outside (0, 1).
    """
    if train_rate <= 0 or eval_rate <= 0 or dev_total <= 0:
        raise ValueError(f"rates and dev rows must be > 0, got train {train_rate}, eval {eval_rate}, dev {dev_total}")
    if not 0 < share < 1:
        raise ValueError(f"share must be in (0, 1), got {share}")
    train_seconds = max(0, steps) * windows_per_step / train_rate
    allowed = share / (1 - share) * train_seconds     # evaluations <= share x (training + evaluations)
    overhead = max(0.0, float(overhead))
    final = dev_total / eval_rate + overhead
    start = 1 if start_evaluation else 0

    def plan(every: int, rows: int) -> EvalPlan:
        rows = rows if worth_sampling(rows, dev_total) else dev_total
        count = evaluations_between(steps, every) + start
        return EvalPlan(steps=steps, eval_every=every, wanted_every=wanted_every, dev_rows=rows, dev_total=dev_total,
                        evaluations=count, train_seconds=train_seconds,
                        eval_seconds=count * (rows / eval_rate + overhead) + final, train_rate=train_rate,
                        eval_rate=eval_rate, share=share, full_dev=full_dev, overhead=overhead,
                        full_dev_why=full_dev_why)

    left = allowed - final                              # seconds for the evaluations before the final one
    floor_rows = dev_total if full_dev else min(fixed_rows or min_rows, dev_total)
    wanted_count = evaluations_between(steps, wanted_every) + start
    if not full_dev and not fixed_rows and wanted_count:
        rows = int((left / wanted_count - overhead) * eval_rate) if left > 0 else 0
        if rows >= floor_rows:
            return plan(wanted_every, min(rows, dev_total))
    elif not wanted_count:
        return plan(wanted_every, floor_rows if full_dev or fixed_rows else dev_total)
    per_eval = floor_rows / eval_rate + overhead
    fits = int(math.floor(left / per_eval + 1e-9)) - start if left > 0 else 0
    if fits >= evaluations_between(steps, wanted_every):
        return plan(wanted_every, floor_rows)
    return plan(cadence_for(steps, fits), floor_rows)

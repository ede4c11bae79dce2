"""When a training run evaluates and on which dev rows: the loop's side of explorer.core.training.eval_plan.

The run evaluates before training on a probe of the dev set (the first rows of the stratified sample order,
so they are part of any later sample) and times it; after its first steps (:meth:`EvalSchedule.plan_due`)
it knows its training rate too and plans the cadence and the sample (:func:`plan_evaluations`), writes the
plan to its log, and re-plans the cadence with every evaluation's measured cost (the sample stays the same).
The final evaluation scores the whole dev set; checkpoints/best is picked on the sample's rows, which the
final evaluation also scores first, so every evaluation is compared on the same rows; a best of an earlier step is
then scored on the whole dev set against the final step (best_rescore), which keeps the better of the two.

Dev rows are examples: a table's rows (one feature each), a tagging file's sentences (a sentence longer than
max_seq_length is several windows). A dev set can be sampled when its features follow its examples in order
(:func:`features_follow_examples`: the first k examples' features are then the first features, so the sample's
features are a prefix of the dev features) and the examples can be subset (classification, scores, label sets,
tagging); for the others (QA windows, multiple choice) every evaluation scores the whole dev set, its rows are
counted in features, and only the cadence adapts. ``eval_share`` 0 turns planning off (the config's eval_every on
the whole dev set), as does a dev set of at most MIN_SAMPLE_ROWS / WHOLE_DEV_SHARE rows (250: any sample would hold
most of it).
"""

from __future__ import annotations

from explorer.core.data.sample import sample_order
from explorer.core.training.eval_plan import MIN_SAMPLE_ROWS, EvalPlan, plan_evaluations, worth_sampling

# the plan waits until the training rate is measured over this many seconds and steps (or this many steps)
PLAN_AFTER_SECONDS, PLAN_AFTER_STEPS, PLAN_BY_STEP = 5.0, 3, 30


def features_follow_examples(dev_ex, dev_feats) -> bool:
    """Every dev example has at least one feature and the features follow the examples in order (example 0's,
    then example 1's, ...), so the features of the first k examples are the first features: one feature per row,
    or a tagging sentence's windows one after another. Checked, not assumed: a task whose features were grouped
    another way is not sampled."""
    rows = getattr(dev_feats, "examples_of_rows", None)
    if rows is None:
        return len(dev_feats) == len(dev_ex)
    rows = [int(r) for r in rows]
    return (len(rows) == len(dev_feats) and len(dev_ex) > 0 and bool(rows) and rows[0] == 0
            and rows[-1] == len(dev_ex) - 1 and all(b - a in (0, 1) for a, b in zip(rows, rows[1:])))


def can_sample(dev_ex, dev_feats) -> bool:
    """A sample of ``dev_ex`` is ``dev_ex.subset(rows)`` (its first rows ``dev_ex.head(k)``) and its features are a
    prefix of ``dev_feats`` (:func:`features_follow_examples`)."""
    return hasattr(dev_ex, "subset") and hasattr(dev_ex, "head") and features_follow_examples(dev_ex, dev_feats)


def dev_rows_of(dev_ex, dev_feats) -> int:
    """The dev rows a run counts, samples and reports: its examples where :func:`can_sample` (a tagging dev set's
    sentences, however many windows each), else its features (QA windows), as scored."""
    return len(dev_ex) if can_sample(dev_ex, dev_feats) else len(dev_feats)


FULL_DEV_WHY_ASKED = "as asked"
FULL_DEV_WHY_UNSAMPLEABLE = "as a dev set of QA windows or choices cannot be sampled"


def plans_evaluations(share: float, dev_total: int) -> bool:
    """A run with ``eval_share`` ``share`` and ``dev_total`` dev rows fits its evaluations to its time; otherwise
    it scores the whole dev set at the asked cadence: Evaluation share 0, or a dev set whose smallest sample
    (MIN_SAMPLE_ROWS) would hold most of its rows (nothing worth sampling, and it costs little next to training)."""
    return share > 0 and worth_sampling(MIN_SAMPLE_ROWS, dev_total)


def plan_for_run(*, wanted_every: int, share: float, full_dev_asked: bool, sampleable: bool, dev_total: int,
                 steps: int, windows_per_step: float, train_rate: float, eval_rate: float, overhead: float = 0.0,
                 start_evaluation: bool = True, fixed_rows: int = 0) -> EvalPlan | None:
    """The evaluation plan a run of these settings makes at these rates (plan_evaluations), None when it plans
    none (:func:`plans_evaluations`) or a rate is unknown. The run (:meth:`EvalSchedule.make_plan`) and the
    launcher's preview of it both plan through here, so the launcher says the rows and the evaluations the run
    will choose at the same rates.

    Args:
        wanted_every: the run's eval_every; share: its eval_share (at most 0.95 is planned with: a share of 1
            would leave training nothing); full_dev_asked: its full_dev_evals; sampleable: its dev rows are one
            feature each or sentences whose windows follow them (:func:`can_sample`).
        dev_total: the dev rows after Dev cap; steps: the steps the plan is made around (a time-budgeted run:
            eval_budget.steps_for_plan, before the run eval_budget.budget_plan_steps).
        the rest: as plan_evaluations.
    """
    if not plans_evaluations(share, dev_total) or eval_rate <= 0 or train_rate <= 0:
        return None
    full_dev = bool(full_dev_asked) or not sampleable
    return plan_evaluations(steps=steps, windows_per_step=windows_per_step, train_rate=train_rate,
                            eval_rate=eval_rate, dev_total=dev_total, wanted_every=wanted_every,
                            share=min(float(share), 0.95), full_dev=full_dev, start_evaluation=start_evaluation,
                            fixed_rows=fixed_rows, overhead=overhead,
                            full_dev_why=FULL_DEV_WHY_ASKED if full_dev_asked else FULL_DEV_WHY_UNSAMPLEABLE)


def first_rows(dev_total: int, *, planned: bool, full_dev: bool) -> int:
    """The dev rows of a run's first evaluation, at step 0 before training: where it fits its evaluations to its time
    (``planned``: :func:`plans_evaluations`) on a sample (not ``full_dev``: asked, or dev data that cannot be
    sampled), the first MIN_SAMPLE_ROWS rows of the sample order, which time the evaluation for the plan and are part
    of any later sample; else all ``dev_total``. The run (:class:`EvalSchedule`) and the launcher's Evaluation line
    both count it here."""
    return dev_total if (full_dev or not planned) else min(dev_total, MIN_SAMPLE_ROWS)


class EvalSchedule:
    """The cadence and the dev rows of one run's evaluations.

    Args:
        config: the run's TrainConfig (eval_every, eval_share, full_dev_evals, seed, batch_size).
        dev_total: rows of the whole dev set.
        sampleable: :func:`can_sample` of the run's dev data.
        start_evaluation: the run evaluates before training (not a resumed run).
    """

    def __init__(self, config, dev_total: int, *, sampleable: bool, start_evaluation: bool = True):
        self.config = config
        self.dev_total = dev_total
        # a dev set whose smallest sample (MIN_SAMPLE_ROWS) would hold most of its rows has nothing worth sampling
        # and costs little next to training: it is evaluated whole at the asked cadence, as with eval_share 0
        self.active = plans_evaluations(config.eval_share, dev_total)
        self.sampleable = sampleable
        self.full_dev = bool(config.full_dev_evals) or not sampleable
        self.start_evaluation = start_evaluation
        self.plan: EvalPlan | None = None
        self.last_eval_step = 0
        self.eval_rows = 0           # rows scored by the evaluations timed so far
        self.eval_seconds = 0.0
        self.overhead = 0.0          # the last evaluation's seconds besides its rows' forward, its saves included
        self.rows = first_rows(dev_total, planned=self.active, full_dev=self.full_dev)

    # -- which rows ---------------------------------------------------------------------------------
    def order(self, labels) -> list[int]:
        """The dev rows in sample order (explorer.core.data.sample.sample_order, seeded by the run)."""
        return sample_order(labels, self.dev_total, seed=self.config.dev_split_seed()).tolist()

    @property
    def sampled(self) -> bool:
        """Evaluations during training score fewer rows than the whole dev set."""
        return self.rows < self.dev_total

    def rows_note(self) -> str:
        """'the 347-row stratified sample of 2,478 dev rows' or 'all 2,478 dev rows': what best is chosen on."""
        if self.sampled:
            return f"the {self.rows:,}-row stratified sample of the {self.dev_total:,} dev rows"
        return f"all {self.dev_total:,} dev rows"

    # -- when ---------------------------------------------------------------------------------------
    def plan_due(self, step: int, train_seconds: float) -> bool:
        """The training rate is measured well enough to plan (and no plan yet)."""
        if not self.active or self.plan is not None or step <= 0:
            return False
        every = self.config.eval_every
        return ((train_seconds >= PLAN_AFTER_SECONDS and step >= PLAN_AFTER_STEPS) or step >= PLAN_BY_STEP
                or (every > 0 and step + 1 >= every))

    def timed(self, rows: int, seconds: float, overhead: float | None = None) -> None:
        """An evaluation's forward of ``rows`` rows took ``seconds`` (the rate the plan uses); ``overhead``: what
        it cost besides (metrics, checkpoint saves; eval_plan.plan_evaluations), kept as the latest measure."""
        if rows > 0 and seconds > 0:
            self.eval_rows += rows
            self.eval_seconds += seconds
        if overhead is not None:
            self.overhead = max(0.0, overhead)

    @property
    def eval_rate(self) -> float:
        return self.eval_rows / self.eval_seconds if self.eval_seconds > 0 else 0.0

    def make_plan(self, *, steps: int, windows_per_step: float, train_rate: float) -> EvalPlan | None:
        """Plan (or re-plan the cadence of) the evaluations from the rates measured so far; None while an
        evaluation rate is not known. The first plan fixes the sample's rows."""
        plan = plan_for_run(wanted_every=self.config.eval_every, share=self.config.eval_share,
                            full_dev_asked=bool(self.config.full_dev_evals), sampleable=self.sampleable,
                            dev_total=self.dev_total, steps=steps, windows_per_step=windows_per_step,
                            train_rate=train_rate, eval_rate=self.eval_rate, overhead=self.overhead,
                            start_evaluation=self.start_evaluation,
                            fixed_rows=self.rows if self.plan is not None else 0)
        if plan is None:
            return None
        self.plan = plan
        self.rows = self.plan.dev_rows
        return self.plan

    @property
    def eval_every(self) -> int:
        """Steps between evaluations now: the plan's, else the config's."""
        return self.plan.eval_every if self.plan is not None else self.config.eval_every

    def due(self, step: int) -> bool:
        """Evaluate after optimizer step ``step``?"""
        every = self.eval_every
        if every <= 0:
            return False
        if self.plan is None:
            return step % every == 0
        return step - self.last_eval_step >= every

    def evaluated(self, step: int) -> None:
        self.last_eval_step = step

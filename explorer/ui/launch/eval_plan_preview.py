"""What the launcher says, before a run starts, about its evaluations: how often, on which dev rows, and why
(Qt-free; the line under the form).

A run decides its evaluations itself once it has timed its first steps and its first evaluation
(explorer.core.training.eval_schedule, explorer.core.training.eval_plan.plan_evaluations): the cadence and a
stratified dev sample that keep evaluations within ``eval_share`` of its wall time, the whole dev set for the final
evaluation. Before launch no rate of this run is measured, so :func:`eval_plan_preview` says the rule in the form's
numbers, and where past runs of the same model on this machine measured both rates, what the same rule would
choose with them and how long the whole run would take; with no such run, what it would choose at the rough
training rate the whole run's time already uses and a rough evaluation rate (:data:`ROUGH_EVAL_FACTOR`), said as
rough. Without this a run of 2,478 dev rows every 43 steps spent most of its wall time evaluating and the form had
not said so; and a form with no past run said the Evaluate every it asks for (every 4 steps) as the cadence while
the run's rule, once timed, chose every 48.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from explorer.core.specs.heads import Inputs
from explorer.core.specs.tasks import head_of_task
from explorer.core.training.eval_budget import budget_plan_steps
from explorer.core.training.eval_plan import DEFAULT_SHARE, MIN_SAMPLE_ROWS, clock_text, evaluations_between, worth_sampling
from explorer.core.training.eval_schedule import first_rows, plan_for_run, plans_evaluations

__all__ = ["ROUGH_EVAL_FACTOR", "EvalPreviewInput", "comparable_runs", "eval_plan_preview", "eval_plan_summary",
           "expected_plan", "few_steps_sentence", "measured_eval_rate", "no_time_sentence", "other_task_run", "rates_of", "rough_plan", "run_length",
           "samples_dev_rows", "shown_plan", "slower_cadence_note"]

# Dev rows/s an evaluation scores per training row/s of the same model, for the rough plan made before any run of
# it measured both rates: an evaluation's forward-only pass (no backward, no optimizer step) costs about a third
# of a training step's forward and backward per row. Recorded rates agree: the 10-minute SST-2 run of
# benchmarks/results/budget_run.json started at 75.7 training windows/s and 201.5 dev rows/s (2.7x);
# tests/recorded_first_steps_events.jsonl measured 1.4 training rows/s and 3.1 dev rows/s (2.2x, its first
# evaluation holding the warm-up); 87 runs of the bundled encoder on 2-core CPUs (tables, regression, tagging and
# QA) measured a median of 3.2x, the middle half 2.9x to 3.6x.
ROUGH_EVAL_FACTOR = 3.0

def samples_dev_rows(task: str) -> bool:
    """A run of ``task`` can evaluate on a sample of its dev rows, as eval_schedule.can_sample finds at run time: a
    text or a pair (classification, scores, label sets: one feature per row) or a tagging file's sentences (a
    sentence's windows follow it). QA (windows of a passage) and multiple choice evaluate the whole dev set every
    time."""
    head = head_of_task(task)
    return head is not None and head.inputs in (Inputs.TEXT, Inputs.WORDS)


def run_length(config: dict) -> int:
    """A run's max_seq_length from its config dict: the set one, else its task's default (128 when unknown)."""
    from explorer.core.specs.tasks import find_task_facts

    if config.get("max_seq_length"):
        return int(config["max_seq_length"])
    facts = find_task_facts(str(config.get("task", "")))
    return facts.default_max_seq_length if facts else 128


def run_batch(config: dict) -> int:
    """A run's batch size from its config dict: the set one, else the default a config without it trained with."""
    from explorer.core.specs.train_config import TrainConfig

    return int(config.get("batch_size") or TrainConfig().batch_size)


def comparable_runs(states, model: str, task: str, max_seq_length: int, batch_size: int = 0, device: str = "", *,
                    exact: bool = True) -> list:
    """The runs of ``states`` (RunStates) whose measured rates can predict a run of ``model`` on ``task`` with
    ``max_seq_length`` tokens and ``batch_size`` rows a step on ``device``, the latest first: the same model (or
    one of its architecture: a run's checkpoint folder trains as fast as the model it started from;
    core.models.speed.same_model), task, max_seq_length and batch size (0: any), and the same device where
    both are known ("" or "auto": any). Another task reads other inputs, another length or batch costs another
    time per window, another device runs at another speed: a run of 128 tokens timed from one of 384 was told
    5:48 and took 1:18, and one timed from a shorter, faster run was told 2.6 times too little. ``exact`` False:
    any max_seq_length and batch size, the nearest length first, then the same batch size, then the latest (a
    rougher estimate, still far nearer than the built-in rate)."""
    from explorer.core.models.speed import same_model

    want = str(device or "").split(":")[0]
    out = []
    for s in states:
        if s.task != task or not same_model(s.model, model):
            continue
        if exact and run_length(s.config) != int(max_seq_length):
            continue
        if exact and batch_size and run_batch(s.config) != int(batch_size):
            continue
        if want not in ("", "auto") and s.device and s.device.split(":")[0] != want:
            continue
        out.append(s)
    if exact:
        return sorted(out, key=lambda s: -(s.started_at or 0.0))
    return sorted(out, key=lambda s: (abs(run_length(s.config) - int(max_seq_length)),   # the nearest length,
                                      bool(batch_size) and run_batch(s.config) != int(batch_size),   # batch,
                                      -(s.started_at or 0.0)))                               # then the latest


SIMILAR_LENGTH = 0.25   # another task's run within this share of the form's max_seq_length gives a rough rate


def other_task_run(states, model: str, task: str, max_seq_length: int):
    """The past run (RunState) of ``model`` (or its architecture) on another task than ``task`` whose training
    rate gives a rough one for a task no run of this model trained: a max_seq_length within SIMILAR_LENGTH of
    ``max_seq_length`` (a row costs about its length; SQuAD's 384-token windows do not time a 128-token table),
    the nearest length first, then the latest; None without one. Rougher than a run of the task (other inputs,
    other lengths of text), far nearer than the built-in rate."""
    from explorer.core.models.speed import same_model

    out = [s for s in states if s.task != task and same_model(s.model, model) and rates_of(s)[0] > 0
           and abs(run_length(s.config) - int(max_seq_length)) <= SIMILAR_LENGTH * int(max_seq_length)]
    out.sort(key=lambda s: (abs(run_length(s.config) - int(max_seq_length)), -(s.started_at or 0.0)))
    return out[0] if out else None


def rates_of(state) -> tuple[float, float]:
    """(training rows/s: the median of its step events, dev rows/s of its last timed evaluation) of one past run
    (RunState); 0.0 where it measured none."""
    series = state.series.get("samples_per_second")
    train = [float(v) for v in (series.y if series is not None else []) if v > 0]
    timed = [float(e.get("rows_per_second") or 0) for e in getattr(state, "evals", [])]
    timed = [r for r in timed if r > 0]
    return (float(statistics.median(train)) if train else 0.0), (timed[-1] if timed else 0.0)


def measured_eval_rate(states, model: str) -> tuple[float, int]:
    """(the median dev rows/s of the last evaluation of each past run of ``model`` in ``states`` (RunStates), how
    many runs measured it); (0.0, 0) when none did."""
    rates = []
    from explorer.core.models.speed import same_model

    for s in states:
        if not same_model(s.model, model):
            continue
        timed = [float(e.get("rows_per_second") or 0) for e in getattr(s, "evals", [])]
        timed = [r for r in timed if r > 0]
        if timed:
            rates.append(timed[-1])
    return (float(statistics.median(rates)), len(rates)) if rates else (0.0, 0)


@dataclass(frozen=True, kw_only=True)
class EvalPreviewInput:
    """The form's numbers the preview reads.

    Attributes:
        task: the run's task (core.specs.tasks).
        dev_rows: rows of the dev file, or held out of the training file (0: no dev data, or not counted yet).
        what: what the dev rows are, plural ("dev rows"; a SQuAD file's "dev questions").
        held_out: the dev rows are held out of the training file (Dev fraction), not a dev file.
        steps: optimizer steps the run plans (RunPlan.planned_steps; 0 while unknown).
        budget_seconds: the Time budget in seconds (0: none); the run then plans its evaluations around the steps
            that fit the budget's training share (eval_budget.budget_plan_steps), at most ``bound_steps``.
        bound_steps: the steps its epochs or Max steps allow (0: ``steps``).
        windows_per_step: training rows per optimizer step (batch size x gradient accumulation).
        every: the Evaluate every the run asks for (0: before training and at the end only).
        share: eval_share (0: evaluations are not fitted to the run's time).
        full_dev: "Whole dev set at every evaluation".
        train_rate: training rows/s of past runs of this model here (0: none measured).
        eval_rate: dev rows/s of their evaluations (0: none measured).
        measured_runs: how many past runs the rates come from.
        other_runs: past runs of this model that measured rates but trained another task, max_seq_length, batch
            size or device (comparable_runs left them out).
        rate_from: the past run the rates come from ("" with several or none).
        rate_settings: that run's max_seq_length and batch size when they differ from this run's ("at
            max_seq_length 128 and batch size 32"): the rates are rougher; "" when they are the same.
        rough_rate: the training rows/s for the rough whole-run time when no past run of this model and task
            measured one: a run of another task at a similar length (``rough_from``), else the built-in rate
            (core.runs.throughput) (0: say none).
        rough_from: the past run of another task ``rough_rate`` comes from ("": the built-in rate).
        busy: a run training on this machine now ("": none); the whole run's time assumes the machine to itself,
            and the sentences say so rather than guess how much longer sharing it takes.
    """

    task: str
    dev_rows: int
    what: str = "dev rows"
    held_out: bool = False
    steps: int = 0
    budget_seconds: float = 0.0
    bound_steps: int = 0
    windows_per_step: float = 1.0
    every: int = 0
    share: float = DEFAULT_SHARE
    full_dev: bool = False
    train_rate: float = 0.0
    eval_rate: float = 0.0
    measured_runs: int = 0
    other_runs: int = 0
    rate_from: str = ""
    rate_settings: str = ""
    rough_rate: float = 0.0
    rough_from: str = ""
    busy: str = ""


def _alone(p: EvalPreviewInput) -> str:
    """' alone' after the whole run's time while another run trains here ('' otherwise)."""
    return " alone" if p.busy else ""


def _busy_sentence(p: EvalPreviewInput, named: bool = True) -> str:
    """' Run X is training now: expect longer.' while another run trains here (not ``named``: 'A run', for the
    short line); the estimate's rates are this machine's to itself, and no factor for sharing it is known ('' when
    none trains)."""
    if not p.busy:
        return ""
    return f" Run {p.busy} is training now: expect longer." if named else " A run is training now: expect longer."


def _cadence(every: int) -> str:
    return f"about every {every:,} steps" if every > 0 else "before training and at the end only"


def few_steps_sentence(p: EvalPreviewInput) -> str:
    """" The run trains about 6 steps in its 1:00 budget (evaluating its 1,979 dev rows takes the rest): too few to
    learn; give it about 9 minutes." where the Time budget's plan (:func:`plan_steps`, at the past runs' training
    rate, else the rough one) fits fewer steps than core.training.budget.MIN_BUDGET_STEPS; '' otherwise."""
    from explorer.core.runs.throughput import format_duration
    from explorer.core.training.budget import few_steps_note

    rate = p.train_rate or p.rough_rate
    total = p.bound_steps or p.steps
    if p.budget_seconds <= 0 or rate <= 0 or total <= 0:
        return ""
    per_second = rate / max(1.0, p.windows_per_step)
    rows = f"its {p.dev_rows:,} {'held-out ' if p.held_out else ''}{p.what}" if p.dev_rows > 0 else ""
    note = few_steps_note(plan_steps(p, rate), total, p.budget_seconds, per_second, p.share, held_out=rows,
                          fmt=format_duration, single=True)
    return f" {note[0].upper()}{note[1:]}." if note else ""


def no_time_sentence(p: EvalPreviewInput) -> str:
    """" The 60 s budget leaves no time to train: the evaluation before training and the final one on all 1,500 dev
    rows take about 64 s of it; give the run about 3 minutes, or a Dev cap of at most 700 rows." where the Time
    budget cannot hold the evaluations the run makes before its first step and at its end, at the past runs' rates
    (else the rough ones): the check the run makes before its first step (core.training.budget.no_time_note), which
    otherwise fails the run after its first evaluation; '' otherwise."""
    from explorer.core.runs.throughput import format_duration
    from explorer.core.training.budget import no_time_note

    measured = p.train_rate > 0 and p.eval_rate > 0
    train_rate = p.train_rate if measured else p.rough_rate
    eval_rate = p.eval_rate if measured else ROUGH_EVAL_FACTOR * p.rough_rate
    if p.budget_seconds <= 0 or p.dev_rows <= 0 or eval_rate <= 0:
        return ""
    whole = p.full_dev or not samples_dev_rows(p.task)

    def rows_at_start(rows: int) -> int:
        return first_rows(rows, planned=plans_evaluations(p.share, rows), full_dev=whole)

    per_second = train_rate / max(1.0, p.windows_per_step)
    note = no_time_note(p.budget_seconds, dev_total=p.dev_rows, rows_at_start=rows_at_start, eval_rate=eval_rate,
                        steps_per_second=per_second, steps_total=p.bound_steps or p.steps, share=p.share,
                        what=f"{'held-out ' if p.held_out else ''}{p.what}", fmt=format_duration)
    return f" {note[0].upper()}{note[1:]}." if note else ""


def eval_plan_preview(p: EvalPreviewInput) -> str:
    """:func:`evaluation_preview`, and after it :func:`no_time_sentence` where the Time budget cannot hold the
    evaluations before training and at the end, else :func:`few_steps_sentence` where it leaves the run too few
    steps to learn."""
    text = evaluation_preview(p)
    return (text + (no_time_sentence(p) or few_steps_sentence(p))) if text else text


def evaluation_preview(p: EvalPreviewInput) -> str:
    """One or two sentences: the dev rows and the cadence the run will use and why, and, with rates measured by
    past runs (else, for a table, at rough rates: :func:`rough_plan`), the plan the run's rule would make with them
    and the whole run's time; '' without dev data.

    Example: 'Evaluation: about every 43 steps on all 2,478 dev rows if that keeps evaluations within 20% of the
    wall time, else on a stratified sample of at least 200 of them (the same rows each time) or less often; the
    final evaluation scores all 2,478. The run decides once it has timed its first steps and first evaluation.'
    """
    if p.dev_rows <= 0:
        return ""
    rows = f"{p.dev_rows:,} {'held-out ' if p.held_out else ''}{p.what}"
    if p.share <= 0:
        return f"Evaluation: every {p.every:,} steps on all {rows}, as set (Evaluation share 0: not fitted to the run's time)."
    if not worth_sampling(MIN_SAMPLE_ROWS, p.dev_rows):
        return (f"Evaluation: {_cadence(p.every)} on all {rows}, as set (a dev set this small costs little next to "
                "training).")
    if p.every <= 0:   # the rule keeps the cadence asked for; nothing in between to sample for
        return f"Evaluation: before training and at the end only, on all {rows} (Evaluate every 0)."
    whole = p.full_dev or not samples_dev_rows(p.task)
    estimate = _estimate(p) or _rough_estimate(p)
    if estimate:
        return estimate + _busy_sentence(p)
    decided = "The run decides once it has timed its first steps and its first evaluation." + _rough_time(p)
    decided += _busy_sentence(p) if _rough_time(p) else ""
    if whole:
        why = "as asked" if p.full_dev else "this task's evaluations score every dev example"
        return (f"Evaluation: every evaluation scores all {rows} ({why}), {_cadence(p.every)} or less often, so "
                f"that evaluations take at most {p.share:.0%} of the run's wall time. {decided}")
    return (f"Evaluation: {_cadence(p.every)} on all {rows} if that keeps evaluations within {p.share:.0%} of the "
            f"run's wall time, else on a stratified sample of at least {MIN_SAMPLE_ROWS} of them (the same rows each "
            f"time) or less often; the final evaluation scores all {p.dev_rows:,}. {decided}")


def expected_plan(p: EvalPreviewInput):
    """The plan (explorer.core.training.eval_plan.EvalPlan) the run makes with the rates past runs measured,
    through the run's own planning (eval_schedule.plan_for_run) around the steps it plans with (a time budget's:
    eval_budget.budget_plan_steps); None without both rates, without planned steps, with Evaluate every 0,
    Evaluation share 0 or a dev set small enough to score whole at the asked cadence, or for a task whose dev rows
    are not the rows it forwards (QA windows)."""
    return _plan_at(p, p.train_rate, p.eval_rate)


def rough_plan(p: EvalPreviewInput):
    """The plan the run's rule makes at rough rates, for a run no past run measured the rates of: training at
    ``rough_rate`` (the rate the rough whole-run time uses) and evaluating at :data:`ROUGH_EVAL_FACTOR` times it,
    through the same planning as :func:`expected_plan`; None with measured rates (:func:`expected_plan` then
    says the plan), without a rough rate, or where :func:`expected_plan` would plan none."""
    if p.rough_rate <= 0 or (p.train_rate > 0 and p.eval_rate > 0):
        return None
    return _plan_at(p, p.rough_rate, ROUGH_EVAL_FACTOR * p.rough_rate)


def _plan_at(p: EvalPreviewInput, train_rate: float, eval_rate: float):
    """eval_schedule.plan_for_run for the form's run at these rates (training rows/s, dev rows/s)."""
    if p.every <= 0 or p.steps <= 0 or not samples_dev_rows(p.task):
        return None
    return plan_for_run(wanted_every=p.every, share=p.share, full_dev_asked=p.full_dev, sampleable=True,
                        dev_total=p.dev_rows, steps=plan_steps(p, train_rate), windows_per_step=p.windows_per_step,
                        train_rate=train_rate, eval_rate=eval_rate)


def plan_steps(p: EvalPreviewInput, train_rate: float | None = None) -> int:
    """The steps the run plans its evaluations around: with a Time budget those that fit its training share at
    ``train_rate`` (default: the past runs' training rate; eval_budget.budget_plan_steps, as the run counts them
    once timed), else the planned steps."""
    rate = p.train_rate if train_rate is None else train_rate
    if p.budget_seconds <= 0 or rate <= 0:
        return p.steps
    per_second = rate / max(1.0, p.windows_per_step)
    return budget_plan_steps(p.budget_seconds, p.share, per_second, p.bound_steps or p.steps)


def shown_plan(p: EvalPreviewInput):
    """The one plan the Evaluation line and the Evaluate every field's note both say: :func:`expected_plan` at past
    runs' rates, else :func:`rough_plan`; None without either."""
    return expected_plan(p) or rough_plan(p)


def slower_cadence_note(p: EvalPreviewInput) -> str:
    """'' or, when at past runs' rates (else at the rough rates the Evaluation line plans with) the run will evaluate
    less often than Evaluate every asks, why: the field then says what the run will do, as the Evaluation line
    under the form does ("Evaluate every 6: the run will evaluate about every 25 steps …")."""
    plan = shown_plan(p)
    if plan is None or not plan.less_often_than_asked():
        return ""
    will = f"about every {plan.eval_every:,} steps" if plan.eval_every else "before training and at the end only"
    rates = ("at the rates past runs of this model measured here" if expected_plan(p) is not None
             else "at rough rates (no past run of this model and task here)")
    return (f"Evaluate every {p.every:,}: {rates}, the run will evaluate "
            f"{will}, since more often would take over {p.share:.0%} of its wall time (Evaluation share 0 keeps "
            f"every {p.every:,})")


def _field_notes(p: EvalPreviewInput, plan) -> list[str]:
    """' (the field's 22, fitted to its time)' and shorter forms after the Evaluation line's cadence when the plan's
    differs from Evaluate every's, so the field never reads as the plan; [''] when they agree."""
    if plan.eval_every == p.every or not evaluations_between(plan.steps, plan.eval_every):
        return [""]   # the same cadence, or none in between (the line then says "at step 0 and at the end")
    return [f" (the field's {p.every:,}, fitted to its time)", f" (not the field's {p.every:,})", f" (not {p.every:,})"]


def _estimate(p: EvalPreviewInput) -> str:
    """The plan the run's rule makes with the rates past runs measured (:func:`expected_plan`), and the whole run's
    time; '' without such a plan."""
    plan = expected_plan(p)
    if plan is None:
        return ""
    runs = f"past run {p.rate_from}" if p.rate_from else f"{p.measured_runs} past run{'s' if p.measured_runs != 1 else ''}"
    if p.rate_settings:
        runs += f" ({p.rate_settings}, not this run's: rough)"
    return (f"Expected, at the rates {runs} of this model measured here: "
            f"{plan.describe(estimated_from=f'the rates of {runs}')}{_first_evaluation(p)} "
            "The run re-plans from its own rates once it has timed its first steps and its first evaluation.")


def _first_evaluation(p: EvalPreviewInput) -> str:
    """' The first evaluation, at step 0 before training, scores 200 of them: it times the evaluation the run plans
    with.' where the run starts on its sample's first rows (eval_schedule.first_rows); '' where it scores them all."""
    first = first_rows(p.dev_rows, planned=True, full_dev=p.full_dev or not samples_dev_rows(p.task))
    if first >= p.dev_rows:
        return ""
    return (f" The first evaluation, at step 0 before training, scores {first:,} of them (the sample's first rows): it "
            "times the evaluation the run plans with.")


def _rough_source(p: EvalPreviewInput) -> str:
    """Where ``rough_rate`` comes from, for the rough plan's sentence."""
    if p.rough_from:
        return f"from a run of another task, {p.rough_from}"
    others = (f"; {p.other_runs} past run{'s' if p.other_runs != 1 else ''} of this model trained another task, "
              "max_seq_length, batch size or device") if p.other_runs else ""
    return f"the built-in rate{others}"


def _rough_estimate(p: EvalPreviewInput) -> str:
    """The plan the run's rule makes at rough rates (:func:`rough_plan`), said as rough, and that Evaluate every
    (the command's --eval-every) is only the cadence asked for, which the run keeps where it fits; '' without such
    a plan."""
    plan = rough_plan(p)
    if plan is None:
        return ""
    rates = (f"{p.rough_rate:,.1f} training rows/s ({_rough_source(p)}) and {ROUGH_EVAL_FACTOR:g} times that in dev "
             "rows/s (an evaluation's forward-only pass)")
    rows = f"{p.dev_rows:,} {'held-out ' if p.held_out else ''}{p.what}"
    return (f"Rough, with no past run of this model and task here, for the {rows}: at {rates}, the run's rule "
            "would choose: "
            f"{plan.describe(estimated_from='rough rates', rates_are='rough')}{_first_evaluation(p)} Evaluate every {p.every:,} (the "
            "command's --eval-every) is the cadence asked for; the run plans its own from the rates it times in its "
            "first steps and its first evaluation.")


def _rough_time(p: EvalPreviewInput) -> str:
    """" Whole run about 12 min (rough: no past run of this model and length here; …)": the planned training rows
    at ``rough_rate`` (a run of another task's, ``rough_from``, else the built-in rate), when no comparable past
    run measured this run's rates; '' otherwise."""
    if p.rough_rate <= 0 or p.steps <= 0:
        return ""
    from explorer.core.runs.throughput import format_duration

    seconds = p.steps * max(1.0, p.windows_per_step) / p.rough_rate
    if p.rough_from:
        return (f" Whole run about {format_duration(seconds)}{_alone(p)} (rough: from a run of another task, {p.rough_from}, "
                f"at {p.rough_rate:,.1f} training rows/s; evaluations come on top).")
    others = (f"; {p.other_runs} past run{'s' if p.other_runs != 1 else ''} of this model trained another task, "
              "max_seq_length, batch size or device") if p.other_runs else ""
    return (f" Whole run about {format_duration(seconds)}{_alone(p)} (rough: no past run of this model and length here, so "
            f"a built-in {p.rough_rate:g} training rows/s{others}; evaluations come on top).")


LINE_MAX = 160   # characters of the Evaluation line: two lines at most under the form at 1280x800


def _when_texts(p: EvalPreviewInput, plan, rows: str) -> list[str]:
    """The Evaluation line's "when, on which rows" for ``plan``, fullest first, shorter forms after: the cadence, the
    rows and the run's first evaluation at step 0 (eval_schedule.first_rows: a sample's first rows, which time the
    evaluation the run plans with)."""
    first = first_rows(p.dev_rows, planned=True, full_dev=p.full_dev or not samples_dev_rows(p.task))
    if not evaluations_between(plan.steps, plan.eval_every):
        if first < p.dev_rows:
            return [f"{first:,} of the {rows} at step 0, all at the end", f"{first:,} at step 0, all {rows} at the end"]
        return [f"at step 0 and at the end only, on all {rows}"]
    every = f"every {plan.eval_every:,} steps"
    if not plan.sampled:   # the last form leaves step 0 to the tooltip, for a crowded line
        if first >= p.dev_rows:
            return [f"{every} on all {rows}, from step 0", f"{every} on all {rows}"]
        return [f"{every} on all {rows}, {first:,} of them at step 0", f"{every} on all {rows}, {first:,} at step 0",
                f"{every} on all {rows}"]
    if first >= plan.dev_rows:   # the step-0 evaluation scores the sample itself
        return [f"{every} on a sample of {plan.dev_rows:,} of the {rows}, from step 0",
                f"{every} on {plan.dev_rows:,} of the {rows}, from step 0", f"{every} on {plan.dev_rows:,} of {rows}"]
    return [f"{every} on a sample of {plan.dev_rows:,} of the {rows}, {first:,} of them at step 0",
            f"{every} on a sample of {plan.dev_rows:,} of the {rows}, {first:,} at step 0",
            f"{every} on {plan.dev_rows:,} of the {rows}, {first:,} at step 0",
            f"{every} on {plan.dev_rows:,} of {rows}, {first:,} at step 0", f"{every} on {plan.dev_rows:,} of {rows}"]


def eval_plan_summary(p: EvalPreviewInput) -> str:
    """One short sentence of :func:`eval_plan_preview` for the line under the form (its whole text is the line's
    tooltip and "more…"): the cadence, the rows and, where known, the whole run's time; '' without dev data. With
    no past run's rates the cadence and rows are those the run's rule chooses at rough rates (:func:`rough_plan`),
    said as rough; without even those, what the run will do, without a number: Evaluate every is only the cadence
    asked for, which the run keeps only where it fits.

    Examples: 'Evaluation: every 50 steps on a sample of 727 of the 1,003 dev rows; whole run about 4:42 (estimate
    from past runs).'; 'Evaluation: every 69 steps on all 872 dev rows; whole run about 3 min (rough: from a run of
    another task).'"""
    if p.dev_rows <= 0 or p.every <= 0 or not plans_evaluations(p.share, p.dev_rows):
        return evaluation_preview(p)   # one sentence already: the cadence as set, nothing planned
    rows = f"{p.dev_rows:,} {'held-out ' if p.held_out else ''}{p.what}"
    plan = expected_plan(p)
    rough = None if plan is not None else rough_plan(p)
    if plan is not None or rough is not None:
        chosen = shown_plan(p)   # the plan the field's note says too (slower_cadence_note)
        if plan is not None:
            rough_note = ", rough" if p.rate_settings else ""
            time = f"{clock_text(plan.total_seconds)}{_alone(p)} (estimate from past runs{rough_note})"
            said = ["Evaluation"]
        else:   # the run re-plans at the rates it times: these numbers are its rule's at rough rates
            from explorer.core.runs.throughput import format_duration

            why = "" if p.busy else " (from another task's run)" if p.rough_from else " (no past run here)"
            time = f"{format_duration(rough.total_seconds)}{_alone(p)}{why}"
            said = ["Evaluation at rough rates", "Evaluation, rough plan", "Evaluation (rough)"]
        busy = _busy_sentence(p, named=False)
        lines = []
        for field in _field_notes(p, chosen):   # the fullest words for the field's number that fit, then the
            lines = [f"{head}: {when}{field}; whole run about {time}.{busy}"   # fullest line with them
                     for when in _when_texts(p, chosen, rows) for head in said]
            fits = [line for line in lines if len(line) <= LINE_MAX]   # two lines at most
            if fits:
                return max(fits, key=len)
        return min(lines, key=len)
    time = ""
    if p.rough_rate > 0 and p.steps > 0:
        from explorer.core.runs.throughput import format_duration

        seconds = p.steps * max(1.0, p.windows_per_step) / p.rough_rate
        time = f"; whole run about {format_duration(seconds)}{_alone(p)} (rough)"
    within = f"within {p.share:.0%} of the run's time{time}.{_busy_sentence(p, named=False) if time else ''}"
    if p.full_dev or not samples_dev_rows(p.task):
        return f"Evaluation: {_cadence(p.every)} or less often, on all {rows}, {within}"
    # no rate to plan with: the run picks them once timed (Evaluate every is only the cadence it asks for)
    return (f"Evaluation: the run picks the cadence and sample of the {rows} after timing its first steps and "
            f"evaluation, within {p.share:.0%} of its time.")

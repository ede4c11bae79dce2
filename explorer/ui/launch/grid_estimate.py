"""How long a queue of runs will take, from this machine's measured speed (Qt-free): the paper grid
(:func:`grid_message`) and cross-validation's K fold runs (:func:`cv_estimate`).

Speed = the median ``samples_per_second`` of the step events of past runs of the same model on this
machine (the Runs list holds them); without such runs, a stated rough default. A run's samples =
train examples x epochs (or max_steps x batch size x accumulation); for SQuAD, long passages give
several windows per question, so the estimate is a lower bound there.
"""

from __future__ import annotations

import statistics
import dataclasses
from dataclasses import dataclass

# rough CPU defaults (samples/s) when no past run measured this model here: one place, core/runs/throughput.py
from explorer.core.models.speed import builtin_rate
from explorer.core.runs.throughput import budget_clause, on_top_words, queue_time
from explorer.ui.runs.state import format_seconds


@dataclass
class Throughput:
    """samples_per_second and where it came from (n_runs measured, 0 for the rough default)."""

    samples_per_second: float
    n_runs: int

    def describe(self) -> str:
        if self.n_runs:
            return f"{self.samples_per_second:.1f} samples/s, the median of {self.n_runs} past run(s) of this model here"
        return f"{self.samples_per_second:.1f} samples/s, a rough default (no past run of this model here)"


def measured_throughput(states, model: str, task: str | None = None) -> Throughput:
    """The median samples/s of the runs in ``states`` (RunState) that trained ``model``, else the built-in rate
    for ``model`` on ``task`` (core.models.speed.builtin_rate)."""
    values = []
    for s in states:
        if s.model != model:
            continue
        series = s.series.get("samples_per_second")
        if series is not None and len(series):
            values.append(float(statistics.median(series.y)))
    values = [v for v in values if v > 0]
    if values:
        return Throughput(float(statistics.median(values)), len(values))
    return Throughput(builtin_rate(model, task), 0)


def run_samples(config, n_examples: int | None) -> int | None:
    """Training samples one config will process (None when the data size is unknown)."""
    if config.max_steps:
        return int(config.max_steps * config.batch_size * max(1, config.gradient_accumulation_steps))
    if not n_examples:
        return None
    n = min(n_examples, config.train_cap) if config.train_cap else n_examples
    return int(n * config.epochs)


NO_SIZE = "No time estimate: the size of the train data is not known yet (see its preview)."


def estimate_line(samples: list[int | None], speed: Throughput, qa: bool = False,
                  on_top: str = "evaluation comes on top", budget_seconds: float = 0.0, after: str = "") -> str:
    """"Estimated time: 12 min in all (N training samples at S samples/s, ...; evaluation comes on top)." for runs
    of ``samples`` training samples one after another, each at most ``budget_seconds`` (the runs' time budget, 0:
    none; the text says how many it stops), or NO_SIZE when a run's size is unknown. A time budget is a run's
    wall time, its evaluations included (TrainConfig.time_budget_minutes): with one, what comes on top is said
    as core.runs.throughput.on_top_words says (``after``: what follows the runs, e.g. "the out-of-fold predictions")."""
    if any(n is None for n in samples):
        return NO_SIZE
    t = queue_time(samples, speed.samples_per_second, budget_seconds)
    lower = " at least" if qa and not t.n_capped else ""
    return (f"Estimated time:{lower} {format_seconds(t.seconds)} in all ({sum(samples):,} training samples at "
            f"{speed.describe()}{budget_clause(t, budget_seconds, format_seconds)}; "
            f"{on_top_words(t, on_top, budget_seconds, after, format_seconds)}).")



def budget_seconds_of(config) -> float:
    """A config's time budget in seconds (``time_budget_minutes``; 0 without one)."""
    return 60.0 * float(getattr(config, "time_budget_minutes", 0.0) or 0.0)


def budget_steps_note(config, samples: int | None, speed: Throughput, member: str = "run", held_out: str = "") -> str:
    """The sentence of core.training.budget.few_steps_note for runs of ``config`` of ``samples`` training samples
    each at ``speed``: the steps its time budget's plan fits (core.training.eval_budget.budget_plan_steps, as the run
    plans them) when they are too few to learn, with the budget that fits enough; '' otherwise."""
    from explorer.core.training.budget import few_steps_note
    from explorer.core.training.eval_budget import budget_plan_steps

    budget = budget_seconds_of(config)
    per_step = max(1, int(config.batch_size)) * max(1, int(config.gradient_accumulation_steps or 1))
    if budget <= 0 or not samples or speed.samples_per_second <= 0:
        return ""
    total = max(1, -(-int(samples) // per_step))
    per_second = speed.samples_per_second / per_step
    steps = budget_plan_steps(budget, float(config.eval_share), per_second, total)
    note = few_steps_note(steps, total, budget, per_second, float(config.eval_share), member=member,
                          held_out=held_out, fmt=format_seconds)
    return f"\n{note[0].upper()}{note[1:]}." if note else ""


def grid_message(configs, n_examples: int | None, speed: Throughput, qa: bool) -> str:
    """The confirmation text: count, total samples and the estimated time (or why there is none)."""
    samples = [run_samples(c, n_examples) for c in configs]
    head = (f"Queue {len(configs)} runs (batch size × learning rate × epochs, BERT paper A.3) around this "
            "form? They run one after another.")
    budget = min((budget_seconds_of(c) for c in configs), default=0.0)
    return head + "\n\n" + estimate_line(samples, speed, qa, budget_seconds=budget)


def cv_estimate(config, k: int, n_examples: int | None, speed: Throughput) -> str:
    """How long K fold runs of ``config`` take one after another: each trains on the other K - 1 folds (about
    (K - 1) / K of the training rows, of a table's Train cap rows when it has one), at this machine's measured speed for its model (the
    same figure as the paper grid's: a confirmation without it hides an hour of runs)."""
    from explorer.core.studies.cv_runs import cap_applies

    if n_examples and cap_applies(config):   # the folds split the capped rows, and each trains on all of its own
        n_examples, config = min(n_examples, config.train_cap), dataclasses.replace(config, train_cap=0)
    fold_rows = None if not n_examples else n_examples - n_examples // max(k, 1)
    samples = run_samples(config, fold_rows)
    held_out = f"its {n_examples // max(k, 1):,} held-out rows" if n_examples else ""
    return estimate_line([samples] * k, speed,
                         on_top="each fold's evaluation and the out-of-fold predictions come on top",
                         budget_seconds=budget_seconds_of(config), after="the out-of-fold predictions") + \
        budget_steps_note(config, samples, speed, "fold", held_out)


def curve_estimate(config, sizes: list[int], speed: Throughput) -> str:
    """How long a learning curve's runs of ``config`` on ``sizes`` training rows take one after another (the
    dev predictions come on top), and, where the time budget stops the larger sizes after too few steps to learn,
    :func:`budget_steps_note` of the largest (every size the budget stops fits about the same steps in it)."""
    from explorer.core.studies.learning_curve import curve_samples

    samples = curve_samples(config, sizes)
    return estimate_line(samples, speed, on_top="each size's evaluations and the dev predictions come on top",
                         budget_seconds=budget_seconds_of(config), after="the dev predictions") + \
        budget_steps_note(config, max(samples, default=0), speed, "size")

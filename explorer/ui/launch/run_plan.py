"""The run a launcher form plans, without Qt: its data's size, its steps and its evaluations.

:class:`RunPlan` reads the form's values (explorer.ui.launch.form_model.LaunchForm.values), the training data
check's result and this machine's past runs (their measured samples/s, for a Time budget), and says how many
steps the run plans, which Evaluate every fits them, and what the Dev data preview and the Evaluate every field
say about evaluation.
"""

from __future__ import annotations

from typing import Any, Callable

from explorer.core.runs import status as run_status
from explorer.core.specs.tasks import task_dev_split
from explorer.core.specs.train_config import TrainConfig
from explorer.core.models.speed import builtin_rate, same_model
from explorer.ui.launch.eval_plan_preview import (ROUGH_EVAL_FACTOR, EvalPreviewInput, comparable_runs, eval_plan_preview,
                                                  eval_plan_summary, other_task_run, rates_of, run_batch, run_length,
                                                  samples_dev_rows, slower_cadence_note)

__all__ = ["RunPlan"]


class RunPlan:
    """Steps and evaluations of the form's run.

    ``values``: the form's values (shared with the form, read live); ``train_result``: the training data check's
    result (explorer.ui.launch.preview.DataPreview.result: ok, counts, error), None while unknown;
    ``past_runs() -> RunStates``: this machine's runs.
    """

    def __init__(self, values: dict[str, Any]):
        self.values = values
        self.train_result: dict | None = None
        self.dev_result: dict | None = None     # the dev data check's result (a dev file), like train_result
        self.past_runs: Callable[[], list] = list

    def train_rows(self) -> int:
        """Training examples the data check counted (a table's rows, a CoNLL file's sentences: a tagging run's
        examples); 0 while unknown or when the file cannot be used."""
        return self._rows(self.train_result)

    @staticmethod
    def _rows(result: dict | None) -> int:
        res = result or {}
        counts = res.get("counts") or {}
        if not res.get("ok"):
            return 0
        return int(next((counts[k] for k in ("examples", "sentences") if isinstance(counts.get(k), int)), 0))

    def train_examples(self) -> int | None:
        """Train questions / examples counted by the training data check (None before it has read them)."""
        res = self.train_result or {}
        counts = res.get("counts") or {}
        for key in ("questions", "examples", "rows"):
            if isinstance(counts.get(key), int):
                return counts[key]
        return None

    def planned_steps(self) -> tuple[int, int]:
        """(steps per epoch, planned steps) of the form's run (core.specs.tasks.run_steps): the training rows the
        data check counted (0 while unknown), epochs, Max steps, and the steps a Time budget allows at this
        form's training rate (:meth:`train_rate`). (0, Max steps) while the size is unknown."""
        from explorer.core.specs.tasks import run_steps

        n = self.train_rows()
        get = self.values.get
        per_step = max(1, get("batch_size")) * max(1, get("gradient_accumulation_steps"))
        budget = float(get("time_budget_minutes") or 0.0)
        budget_steps = 0
        if budget > 0:
            speed = self.train_rate()
            budget_steps = max(1, int(budget * 60 * speed / per_step))
        return run_steps(n, get("batch_size"), get("gradient_accumulation_steps"), get("train_cap"),
                         epochs=float(get("epochs") or 0.0), max_steps=int(get("max_steps") or 0),
                         budget_steps=budget_steps)

    def eval_every(self) -> int | None:
        """The Evaluate every that fits the run: the task's evaluations per epoch of the training file the data check
        read, or of the whole run when it plans fewer steps (core.specs.tasks.eval_every_for); None while the file's
        size is unknown or the task has no such rule."""
        from explorer.core.specs.tasks import eval_every_for

        n = self.train_rows()
        if n <= 0:
            return None
        get = self.values.get
        _, planned = self.planned_steps()
        try:
            return eval_every_for(get("task"), n, get("batch_size"), get("gradient_accumulation_steps"),
                                  get("train_cap"), max_steps=planned)
        except KeyError:
            return None

    def no_dev_note(self, cfg: TrainConfig) -> str:
        """The Dev data preview's sentence while no dev file is given: the held-out share the run will evaluate on
        (its size once the training file is counted), or that it will not be evaluated and why
        (core.specs.tasks.no_dev_file_note)."""
        from explorer.core.specs.tasks import no_dev_file_note

        n = self.train_rows()
        if n and cfg.train_cap:
            n = min(n, cfg.train_cap)
        return no_dev_file_note(cfg.task, cfg.resolved_dev_fraction(), cfg.dev_split_seed(), n)

    def cap_note(self, cfg: TrainConfig) -> str:
        """'' or which training rows the form's Train cap keeps (core.specs.tasks.train_cap_note), for the Train
        cap field's tooltip."""
        from explorer.core.specs.tasks import train_cap_note

        return train_cap_note(cfg.task, cfg.train_cap, cfg.dev_split_seed(), self.train_rows())

    def _squad_counts(self, cfg: TrainConfig) -> tuple[int, int, int] | None:
        """(questions, questions the Train cap keeps, unanswerable ones among them) of the checked SQuAD training
        file (core.qa.abstain_training.capped_counts, as the run draws them); None while unknown or not SQuAD."""
        from explorer.core.qa.abstain_training import capped_counts

        res = self.train_result or {}
        flags = res.get("impossible") if res.get("ok") and res.get("kind") == "squad" else ""
        if not flags:
            return None
        return capped_counts(flags, int(cfg.train_cap or 0), cfg.dev_split_seed())

    def squad_cap_line(self, cfg: TrainConfig) -> str:
        """'600 of 4,719 questions (44 unanswerable) used: Train cap' under the training data's summary while a
        Train cap keeps part of a SQuAD file; "" otherwise."""
        from explorer.core.qa.abstain_training import cap_line

        counts = self._squad_counts(cfg)
        if counts is None or counts[1] >= counts[0]:
            return ""
        return cap_line(*counts)

    def abstain_warning(self, cfg: TrainConfig) -> str:
        """The warning for a SQuAD v2.0 run whose training questions (those its Train cap keeps) hold no
        unanswerable one (core.qa.abstain_training.launch_warning); "" otherwise."""
        from explorer.core.qa.abstain_training import launch_warning
        from explorer.core.specs.tasks import find_task_facts

        facts = find_task_facts(cfg.task)
        counts = self._squad_counts(cfg)
        if facts is None or facts.squad_version != "v2.0" or counts is None or counts[2] > 0:
            return ""
        in_file = sum(1 for x in (self.train_result or {}).get("impossible", "") if x == "1")
        return launch_warning(in_file, int(cfg.train_cap or 0))

    def short_run_warning(self, cfg: TrainConfig) -> str:
        """'' or the warning that the few steps the Time budget fits leave the bundled encoder at chance at the
        form's learning rate (small_table.short_run_note); only while the Time budget, not epochs or Max steps,
        bounds the run, and only at a rate a past run measured on this training file: a rate of another data set
        (texts of other lengths, another task's windows) can be off tenfold, and so would the steps said."""
        from explorer.ui.launch.small_table import short_run_note

        per_epoch, planned = self.planned_steps()
        budget = float(cfg.time_budget_minutes or 0.0)
        if budget <= 0 or self.train_rows() <= 0 or planned >= self._bound_steps():
            return ""
        source = self.train_rate_source()   # a rate of other texts (another data set's lengths) is no count of steps
        if source is None or str((source.config or {}).get("train") or "") != str(cfg.train or ""):
            return ""
        return short_run_note(self.values, planned, per_epoch, budget, cfg.resolved_learning_rate())

    def no_time_warning(self, cfg: TrainConfig) -> str:
        """'' or the warning that the Time budget cannot hold the evaluations before training and at the end, which
        the run would fail on after its first evaluation (eval_plan_preview.no_time_sentence, the Evaluation text's
        words, at past runs' rates, else rough ones)."""
        from explorer.ui.launch.eval_plan_preview import no_time_sentence

        if not cfg.time_budget_minutes or self.no_dev_warning(cfg):
            return ""
        return no_time_sentence(self._preview_input(cfg)).strip()

    def imbalance_warning(self, cfg: TrainConfig) -> str:
        """'' or the warning that the training labels the data check counted are strongly imbalanced while Class
        weights is off (class_balance.imbalance_note)."""
        from explorer.ui.launch.class_balance import imbalance_note

        res = self.train_result or {}
        return imbalance_note(cfg.task, res.get("class_counts") if res.get("ok") else None, cfg.class_weights)

    def eval_note(self, cfg: TrainConfig) -> str:
        """'' or a warning when Evaluate every is not below the steps the run plans: then it evaluates only at the
        start and the end (90 for a run of Max steps 60 draws no dev point in between); or when, at the rates
        past runs measured, the run will evaluate less often than it asks (eval_plan_preview.slower_cadence_note:
        the field says what the Evaluation line says)."""
        if cfg.eval_every <= 0 or not (cfg.dev or cfg.resolved_dev_fraction() > 0):
            return ""
        _, planned = self.planned_steps()
        if planned <= 0:
            return ""
        if cfg.eval_every < planned:
            return slower_cadence_note(self._preview_input(cfg))
        if cfg.time_budget_minutes and planned < self._bound_steps():   # the Time budget bounds it: an estimate
            return (f"Evaluate every {cfg.eval_every} is not below the about {planned} steps this run's Time budget "
                    "fits at the expected speed (the run counts them again as it trains): it may evaluate only at "
                    "the start and the end")
        return (f"Evaluate every {cfg.eval_every} is not below the {planned} steps this run plans: it evaluates "
                "only at the start and the end")

    def _bound_steps(self) -> int:
        """The steps the form's epochs or Max steps allow, without a Time budget (core.specs.tasks.run_steps)."""
        from explorer.core.specs.tasks import run_steps

        get = self.values.get
        return run_steps(self.train_rows(), get("batch_size"), get("gradient_accumulation_steps"), get("train_cap"),
                         epochs=float(get("epochs") or 0.0), max_steps=int(get("max_steps") or 0))[1]

    def dev_rows(self, cfg: TrainConfig) -> tuple[int, bool]:
        """(dev rows, held out?): the dev file's rows (a SQuAD file's questions) the dev data check counted, else
        the rows the run holds out of the training file (its Dev fraction; a task without a held-out split has
        none); 0 while unknown. At most Dev cap (the run evaluates on the first ``dev_cap`` of them)."""
        if cfg.dev:
            res = self.dev_result or {}
            questions = int((res.get("counts") or {}).get("questions") or 0) if res.get("ok") else 0
            rows, held_out = self._rows(res) or questions, False
        else:
            n = self.train_rows()
            if n and cfg.train_cap:
                n = min(n, cfg.train_cap)
            fraction = cfg.resolved_dev_fraction()
            holds_out = fraction > 0 and bool(task_dev_split(cfg.task))
            rows, held_out = (self._held_out(n, fraction, cfg) if holds_out else 0), True
        return (min(rows, cfg.dev_cap) if cfg.dev_cap and rows else rows), held_out

    def _held_out(self, n: int, fraction: float, cfg: TrainConfig) -> int:
        """The rows the run holds out of the ``n`` training rows its Train cap keeps, by its own split rule
        (explorer.core.data.split.held_out_rows): per class, from the class ids the data check read, when it read
        them for every row (a stratified split of 1,200 rows holds out 119, not 10% = 120; the cap's rows are
        those the run keeps, explorer.core.data.sample.capped_rows); else the random rule."""
        from collections import Counter

        from explorer.core.data.sample import capped_rows
        from explorer.core.data.split import held_out_rows

        res = self.train_result or {}
        ids = res.get("class_ids") or []
        total = self.train_rows()
        sizes = None
        if res.get("ok") and n and total and len(ids) >= total:
            kept = capped_rows(total, cfg.train_cap, cfg.dev_split_seed(), ids[:total])
            sizes = Counter(ids[i] for i in kept).values()
        return held_out_rows(n, fraction, sizes)

    def no_dev_warning(self, cfg: TrainConfig) -> str:
        """The sentence of :meth:`no_dev_note` when the run will have no dev rows at all (no dev file, and a Dev
        fraction of 0 or a task that holds none out): never evaluated, no best checkpoint; "" otherwise."""
        if cfg.dev or (cfg.resolved_dev_fraction() > 0 and task_dev_split(cfg.task)):
            return ""
        return self.no_dev_note(cfg)

    def eval_preview(self, cfg: TrainConfig) -> str:
        """What the run will evaluate on, how often and why, before launch (eval_plan_preview), or that it will
        never be evaluated (:meth:`no_dev_warning`); '' before the dev data is counted."""
        return self.no_dev_warning(cfg) or eval_plan_preview(self._preview_input(cfg))

    def eval_summary(self, cfg: TrainConfig) -> str:
        """The Evaluation line's short sentence (eval_plan_summary; :meth:`eval_preview` says it all), or the
        warning that the run will never be evaluated; '' before the dev data is counted."""
        return self.no_dev_warning(cfg) or eval_plan_summary(self._preview_input(cfg))

    def _preview_input(self, cfg: TrainConfig) -> EvalPreviewInput:
        """The form's numbers and past runs' rates the evaluation preview and note read."""
        dev, held_out = self.dev_rows(cfg)
        counts = (self.dev_result or {}).get("counts") or {}
        everyone = self.past_runs()
        source = self.rate_source(cfg)
        train_rate, eval_rate = rates_of(source) if source is not None else (0.0, 0.0)
        others = sum(1 for s in everyone if same_model(s.model, cfg.model) and s is not source and all(rates_of(s)))
        rough = None if source is not None else other_task_run(everyone, cfg.model, cfg.task,
                                                                 cfg.resolved_max_seq_length())
        return EvalPreviewInput(
            task=cfg.task, dev_rows=dev, what="dev questions" if cfg.dev and "questions" in counts else "dev rows",
            held_out=held_out, steps=self.planned_steps()[1], budget_seconds=60.0 * float(cfg.time_budget_minutes or 0.0),
            bound_steps=self._bound_steps(),
            windows_per_step=max(1, cfg.batch_size) * max(1, cfg.gradient_accumulation_steps), every=cfg.eval_every,
            share=cfg.eval_share, full_dev=cfg.full_dev_evals, train_rate=train_rate, eval_rate=eval_rate,
            measured_runs=int(source is not None), other_runs=others,
            rate_from=source.run_id if source is not None else "",
            rate_settings=self._other_settings(source, cfg) if source is not None else "",
            rough_rate=0.0 if source is not None else rates_of(rough)[0] if rough is not None else builtin_rate(cfg.model, cfg.task),
            rough_from=self._named(rough) if rough is not None else "",
            busy=next((s.run_id for s in everyone if s.status == run_status.RUNNING), ""))

    def train_rate(self) -> float:
        """Training rows/s of the form's run: the latest past run of the same model (or architecture), task,
        max_seq_length and batch size that measured one (eval_plan_preview.comparable_runs), else the latest of
        the same model and task at another length or batch, else the built-in rate (core.runs.throughput); a
        faster run of a shorter length or a smaller batch is taken only when no run of the same settings is here;
        with no run of the task, a run of another task at a similar length (eval_plan_preview.other_task_run)."""
        source = self.train_rate_source()
        return rates_of(source)[0] if source is not None else builtin_rate(self.values.get("model"),
                                                                          self.values.get("task"))

    def train_rate_source(self):
        """The past run (RunState) whose training rate :meth:`train_rate` takes, None for the built-in rate."""
        get = self.values.get
        for exact in (True, False):
            past = comparable_runs(self.past_runs(), get("model"), get("task"), run_length(self.values),
                                   int(get("batch_size") or 0), exact=exact)
            source = next((s for s in past if rates_of(s)[0] > 0), None)
            if source is not None:
                return source
        return other_task_run(self.past_runs(), get("model"), get("task"), run_length(self.values))

    def rate_source(self, cfg: TrainConfig):
        """The past run (RunState) whose rates estimate the form's run: the latest one of the same model (or
        architecture), task, max_seq_length and batch size (the form names no device: runs here) that measured
        both a training and an evaluation rate (eval_plan_preview.comparable_runs), else the latest of the same
        model and task at another length or batch; None without one."""
        for exact in (True, False):
            past = comparable_runs(self.past_runs(), cfg.model, cfg.task, cfg.resolved_max_seq_length(),
                                   cfg.batch_size, exact=exact)
            source = next((s for s in past if all(rates_of(s))), None)
            if source is not None:
                return source
        return None

    @staticmethod
    def _named(state) -> str:
        """A past run of another task as the estimate names it: "stance-1 (single)"."""
        return f"{state.run_id} ({state.task})"

    @staticmethod
    def _other_settings(source, cfg: TrainConfig) -> str:
        """"at max_seq_length 128 and batch size 32": the past run ``source``'s settings where they differ from
        ``cfg``'s ("" when both are the same)."""
        parts = []
        if run_length(source.config) != cfg.resolved_max_seq_length():
            parts.append(f"max_seq_length {run_length(source.config)}")
        if cfg.batch_size and run_batch(source.config) != cfg.batch_size:
            parts.append(f"batch size {run_batch(source.config)}")
        return ("at " + " and ".join(parts)) if parts else ""

    def eval_preview_tip(self, cfg: TrainConfig) -> str:
        """The tooltip of the Evaluation line: which past run its rates and the whole run's time come from, or that
        the time (and a table's evaluation plan, at ROUGH_EVAL_FACTOR times the training rate) is rough, from the
        built-in rate."""
        source = self.rate_source(cfg)
        rough = other_task_run(self.past_runs(), cfg.model, cfg.task, cfg.resolved_max_seq_length())
        what, dev_rate = "the whole run's time is", ""
        if samples_dev_rows(cfg.task):   # a table's line gives the plan at rough rates (rough_plan)
            what = "the whole run's time and its evaluations' plan are"
            dev_rate = (f"; dev rows/s {ROUGH_EVAL_FACTOR:g} times that, as an evaluation's forward-only pass costs "
                        "about a third of a training step")
        if source is None and rough is not None:
            return (f"No past run of {cfg.model} (or a model of its architecture) on {cfg.task} here: {what} rough, "
                    f"from the training rate of {self._named(rough)} ({rates_of(rough)[0]:,.1f} training rows/s, "
                    f"max_seq_length {run_length(rough.config)}{dev_rate}).")
        if source is None:
            return (f"No past run of {cfg.model} (or a model of its architecture) on {cfg.task} here: {what} rough, "
                    f"from the built-in rate of {builtin_rate(cfg.model, cfg.task):g} training rows/s{dev_rate}.")
        train, rows = rates_of(source)
        other = self._other_settings(source, cfg)
        if other:
            return (f"Rates from past run {source.run_id} (same model and task, {other}: this run's "
                    f"max_seq_length {cfg.resolved_max_seq_length()} and batch size {cfg.batch_size} will run at "
                    f"another speed, so the time is rough): {train:,.1f} training rows/s, {rows:,.1f} dev rows/s.")
        return (f"Rates from past run {source.run_id} (same model, task, max_seq_length "
                f"{cfg.resolved_max_seq_length()}, batch size {cfg.batch_size}"
                + (f", device {source.device}" if source.device else "") + f"): {train:,.1f} training rows/s, "
                f"{rows:,.1f} dev rows/s.")

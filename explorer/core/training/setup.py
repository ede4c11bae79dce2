"""Everything a fine-tune needs before its first step: accelerator, data, model, optimizer, schedule,
and the position to resume from. :func:`prepare_run` returns them as one :class:`TrainingRun`.

Precision: training always keeps fp32 master weights. A checkpoint saved in float16 / bfloat16 is
upcast on load (:func:`load_for_training`); bf16 / fp16 then come from accelerate's autocast only.
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import torch
from accelerate import Accelerator, PartialState
from accelerate.state import AcceleratorState, GradientState
from accelerate.utils import set_seed

from explorer.core.errors import ConfigError, ModelSourceError, TrainingDataError
from explorer.core.models.label_fit import head_fit
from explorer.core.models.loading import load_model
from explorer.core.training.batching import IndexDataset, ListBatchSampler, epoch_batches
from explorer.core.training.checkpoints import load_training_state
from explorer.core.specs.train_config import TrainConfig
from explorer.core.training.evaluation import eval_loader
from explorer.core.training.fast_dropout import enable_fast_dropout
from explorer.core.training.precision import bf16_warning, resolve_mixed_precision
from explorer.core.training.budget import WallBudget, steps_fitting
from explorer.core.training.clock import TrainClock
from explorer.core.training.eval_schedule import EvalSchedule, can_sample, dev_rows_of
from explorer.core.training.recipe import build_optimizer, build_scheduler, build_time_scheduler, warmup_steps_for
from explorer.core.training.tasks import Task, get_task
from explorer.core.training.tasks.base import check_loaded_windows, load_note


@dataclass
class Control:
    """Requests from outside the loop. Signal handlers set ``stop`` / ``cancel``; the STOP file is
    polled once per optimizer step."""

    stop_file: Path | None = None
    stop: bool = False
    cancel: bool = False
    raise_on_cancel: bool = False   # the SIGTERM handler may raise Cancelled at once
    step: int = 0                   # optimizer steps done (for the cancelled event)

    def stop_requested(self) -> bool:
        """A stop early was asked for (signal or STOP file)."""
        return self.stop or (self.stop_file is not None and self.stop_file.exists())


@dataclass
class Progress:
    """Where the run is: optimizer steps done, the epoch, and micro-batches done in that epoch (this
    process). Saved in ``training_state.pt`` so that ``--resume`` continues with the same data order."""

    step: int = 0
    epoch: int = 0
    batches_done: int = 0


@dataclass
class TrainingRun:
    """The prepared pieces of one fine-tune (see :func:`prepare_run`)."""

    config: TrainConfig
    run_dir: Path
    writer: object
    control: Control
    accelerator: Accelerator
    mixed_precision: str
    task: Task
    loaded: object                  # explorer.core.models.loading.LoadedModel (model before accelerate wraps it)
    model: torch.nn.Module          # prepared by accelerate
    optimizer: torch.optim.Optimizer
    scheduler: torch.optim.lr_scheduler.LRScheduler
    train_ex: object
    dev_ex: object | None
    train_feats: object             # tasks.FeatureSet
    dev_feats: object | None
    dev_loader: object | None
    watch_items: list[dict]
    plan: dict
    progress: Progress
    state: dict | None = None       # training_state.pt when resuming
    resumed: bool = False
    t_start: float = field(default_factory=time.time)
    clock: TrainClock = field(default_factory=TrainClock)   # seconds in training steps (time budget)
    wall: WallBudget | None = None   # the time budget as wall time (None without time_budget_minutes)
    save_seconds: float = 0.0        # the last checkpoint save's seconds (what the saves still to come cost)
    schedule: EvalSchedule | None = None   # when to evaluate and on which dev rows (None without dev data)
    sample_loader: tuple | None = None     # (rows, loader) of the dev sample (eval_schedule), built when first used
    final_metrics: dict | None = None      # set when a stop made an evaluation on the whole dev set the final one
    first_step: tuple[int, float] | None = None   # (step, training clock) at this process's first optimizer step
    undefined_metrics: str = ""     # the metrics the last evaluation could not compute ("pearson,spearman")

    @property
    def tokenizer(self):
        return self.loaded.tokenizer

    @property
    def steps_total(self) -> int:
        return self.plan["steps_total"]

    @property
    def budget_seconds(self) -> float:
        """The training seconds the time budget leaves (budget.WallBudget.training_seconds: the wall-time
        budget less evaluations and saves, done and to come); 0 when the run has none."""
        return self.wall.training_seconds() if self.wall is not None else 0.0

    def budget_spent(self) -> bool:
        """A time-budgeted run has used its budget (the schedule's learning rate is then 0)."""
        return self.wall is not None and self.wall.spent()

    def planned_steps(self) -> int:
        """The optimizer steps the run expects to do: steps_total, or for a time-budgeted run the steps that
        fit in the budget at the speed measured after its first step (budget.steps_fitting; never above
        steps_total)."""
        seconds, step = self.clock.seconds(), self.progress.step
        if self.wall is None or step <= 0 or seconds <= 0:
            return self.steps_total
        return steps_fitting(self, self.budget_seconds)

    def elapsed(self) -> float:
        """Seconds of training, including the time before a resume."""
        before = float(self.state.get("elapsed", 0.0)) if self.state else 0.0
        return before + time.time() - self.t_start

    def epoch_loader(self):
        """The prepared DataLoader over this epoch's batches, skipping those already done (resume)."""
        batches = epoch_batches(self.train_feats.lengths, self.config.batch_size, seed=self.config.seed,
                                epoch=self.progress.epoch, group_by_length=self.config.length_grouping,
                                accumulation_steps=self.config.gradient_accumulation_steps
                                * self.accelerator.num_processes)
        if self.progress.batches_done:
            batches = batches[self.progress.batches_done * self.accelerator.num_processes:]
        return self.accelerator.prepare(torch.utils.data.DataLoader(
            IndexDataset(len(self.train_feats)), batch_sampler=ListBatchSampler(batches),
            collate_fn=self.train_feats.collate, generator=torch.Generator()))


def set_dropout(model: torch.nn.Module, p: float) -> None:
    """Set every dropout probability (embeddings, attention, hidden, classifier) to ``p``."""
    for name in ("hidden_dropout_prob", "attention_probs_dropout_prob"):
        if hasattr(model.config, name):
            setattr(model.config, name, p)
    for module in model.modules():
        if isinstance(module, torch.nn.Dropout):
            module.p = p


def plan_steps(n_rows: int, config: TrainConfig, num_processes: int = 1) -> dict:
    """Batches and optimizer steps of a run.

    Returns:
        batches_per_epoch (global), micro_batches_per_epoch (per process), steps_per_epoch,
        steps_total, warmup_steps, effective_batch_size.
    """
    bs, ga = config.batch_size, config.gradient_accumulation_steps
    batches = math.ceil(n_rows / bs)
    per_proc = math.ceil(batches / num_processes)
    steps_per_epoch = max(1, math.ceil(per_proc / ga))
    total = int(config.max_steps) if config.max_steps > 0 else max(1, math.ceil(config.epochs * steps_per_epoch))
    return {"batches_per_epoch": batches, "micro_batches_per_epoch": per_proc, "steps_per_epoch": steps_per_epoch,
            "steps_total": total, "warmup_steps": warmup_steps_for(total, config.warmup_ratio),
            "effective_batch_size": bs * ga * num_processes}


def _no_gpu() -> bool:
    mps = getattr(torch.backends, "mps", None)
    return not torch.cuda.is_available() and not (mps is not None and mps.is_available())


def process_state() -> PartialState:
    """accelerate's PartialState; on a machine without GPU with cpu=True, so that several processes
    started by ``accelerate launch`` / ``torchrun`` form a MULTI_CPU (gloo) group."""
    return PartialState(cpu=_no_gpu())


def make_accelerator(config: TrainConfig) -> tuple[Accelerator, str]:
    """(Accelerator, resolved mixed precision "no" | "fp16" | "bf16"). Raises ConfigError for fp16 off CUDA."""
    if process_state().num_processes == 1:
        # accelerate keeps one state per process; a second run in the same process (tests, the benchmark)
        # may want another precision or accumulation, so start from a clean state when not distributed
        AcceleratorState._reset_state()
        GradientState._reset_state()
    device_type = process_state().device.type
    mp = resolve_mixed_precision(config.mixed_precision, device_type)
    if mp == "fp16" and device_type != "cuda":
        raise ConfigError(f"mixed_precision fp16 needs a CUDA GPU (this run is on {device_type}); "
                          "use bf16 (fast on CPUs with AMX) or no")
    return Accelerator(mixed_precision=mp, gradient_accumulation_steps=config.gradient_accumulation_steps,
                       step_scheduler_with_optimizer=False, cpu=_no_gpu()), mp


def load_for_training(source: str, task: Task, num_labels: int | None, config: TrainConfig, writer, *,
                      id2label: dict | None = None, new_head: bool = False):
    """load_model for training, with fp32 master weights whatever dtype the checkpoint was saved in.

    Raises:
        ModelSourceError: the source cannot be loaded as this task's model (the message says why).
        WindowSettingsError: the window settings do not fit the loaded model and tokenizer.
    """
    writer.emit("log", level="info", message=f"loading model {source}")
    try:
        loaded = load_model(source, task.head, num_labels=num_labels, trust_remote_code=config.trust_remote_code,
                            init_seed=config.seed,   # restarts differ in the new head too (paper, section 4.1)
                            id2label=id2label, new_head=new_head)
    except ModelSourceError:
        raise
    except Exception as exc:  # noqa: BLE001 - e.g. a torn safetensors file, a head of the wrong size
        first = (str(exc).splitlines() or [""])[0][:300]
        raise ModelSourceError(f"could not load {source!r} as a {task.head} model: {type(exc).__name__}: "
                               f"{first}") from exc
    if loaded.tokenizer_note:   # a checkpoint saved without its tokenizer (an HF Trainer given none)
        writer.emit("log", level="warning", message=f"{source}: {loaded.tokenizer_note}")
    check_loaded_windows(task, loaded, config)   # before any work: the window must fit this model
    stored = sorted({str(p.dtype).replace("torch.", "") for p in loaded.model.parameters()
                     if p.is_floating_point() and p.dtype != torch.float32})
    if stored:
        loaded.model.float()
        writer.emit("log", level="info", message=f"{source}: weights stored as {', '.join(stored)}; training keeps "
                    "float32 master weights (mixed precision, if any, comes from autocast)")
    set_dropout(loaded.model, config.dropout)
    return loaded


def _emit_notes(writer, notes) -> None:
    """A ``log`` event per note: (level, message) pairs (tables) or plain sentences, said as info (tagging data:
    a scheme converted, entity starts repaired)."""
    for note in notes or []:
        level, message = note if isinstance(note, tuple) else ("info", str(note))
        writer.emit("log", level=level, message=message)


def _read_data(config: TrainConfig, task: Task, writer, run_dir: Path | None = None) -> tuple[object, object | None]:
    writer.emit("log", level="info", message=f"reading training data {config.train}")
    train_ex = task.load(config, "train")
    if (note := load_note(train_ex)) is not None:   # answers repaired / dropped while loading
        writer.emit("log", level=note[0], message=note[1])
    _emit_notes(writer, getattr(train_ex, "notes", None))   # encoding, stripped labels, skipped rows, ...
    dev_ex = None
    if config.dev:
        writer.emit("log", level="info", message=f"reading dev data {config.dev}")
        dev_ex = task.load(config, "dev")
        _emit_notes(writer, getattr(dev_ex, "notes", None))
    else:
        train_ex, dev_ex, notes = task.split_dev(train_ex, config, run_dir)
        _emit_notes(writer, notes)
        if dev_ex is not None and config.dev_cap:
            dev_ex = dev_ex.head(config.dev_cap)
    checked = task.check_data(train_ex, dev_ex, config)
    dev_ex = checked if checked is not None else dev_ex
    _emit_overlap(writer, train_ex, dev_ex)
    return train_ex, dev_ex


def _texts(examples) -> list | None:
    """Each example's text (a pair's as a tuple), for tables of texts; None for other data."""
    a = getattr(examples, "texts_a", None)
    if a is None:
        return None
    b = getattr(examples, "texts_b", None)
    return list(zip(a, b)) if b is not None else list(a)


def _emit_overlap(writer, train_ex, dev_ex) -> None:
    """A warning when dev rows repeat training rows: every dev figure of the run is then optimistic (the marks of
    core.metrics.optimism). The counts are fields of the event, so the places that show the run's dev figures
    mark them from the run's events (core.metrics.optimism.dev_overlap_mark)."""
    from explorer.core.metrics.optimism import dev_overlap, dev_overlap_fields

    train, dev = _texts(train_ex), _texts(dev_ex) if dev_ex is not None else None
    if not train or not dev:
        return
    if (fields := dev_overlap_fields(dev_overlap(train, dev))) is not None:
        writer.emit("log", **fields)


def fit_head(source: str, task: Task, train_ex, dev_ex, config: TrainConfig, writer) -> tuple[dict, object, object]:
    """How a checkpoint's head meets the data's labels, before any weight is read.

    For every head whose spec has ``label_mapping`` (single-label and multi-label classification, token
    tagging): a checkpoint fine-tuned with this head keeps its head when it fits: labels (classes, label sets,
    tags) it knows by name are mapped by name (the examples' ids are renumbered to the head's rows, so the row
    trained for B-MISC keeps meaning B-MISC); head rows the data never uses are kept and named in a note; a
    head lacking some of the data's labels is refused unless ``new_head`` (a fresh head for the data's labels,
    the encoder kept, said in a ``log`` event).

    Raises:
        ModelSourceError: the head does not fit ("the checkpoint's head has 3 labels (a, b, c); the data has 2
            (neg, pos)"), naming the data's labels the head lacks.
    """
    k = task.num_labels(train_ex, config)
    names = task.label_names(train_ex) if train_ex is not None else None
    if config.num_labels and names and len(names) != k:
        # the head takes its size from id2label: config.json would record num_labels k for a head with
        # len(names) outputs (e.g. a stance run's 3 carried over to SST-2's 2 classes)
        raise ConfigError(f"num_labels is {k}, but {config.train} has {len(names)} labels ({', '.join(names)}): "
                          "set num_labels to 0 (inferred from the data) or to the data's label count")
    # classes given as integer ids (SST-2's 0 / 1) are named by their ids, not transformers' LABEL_0 / LABEL_1,
    # so Classify reads 0 / 1 for an SST-2 run
    spec = task.facts.head     # label_mapping: its labels are named by id2label and mapped by name
    unnamed = {i: str(i) for i in range(k)} if spec.label_mapping and k and k > 1 else None
    plain = {"num_labels": k, "id2label": dict(enumerate(names)) if names else unnamed, "new_head": False}
    if not spec.label_mapping or not k or k == 1:
        return plain, train_ex, dev_ex
    if names is None and hasattr(train_ex, "labels"):
        present = len(set(train_ex.labels))
        if config.num_labels and present < k:
            writer.emit("log", level="warning", message=f"num_labels {k}, but the training data has {present} "
                        f"classes: {k - present} output(s) of the head are never trained")
    try:
        from transformers import AutoConfig

        from explorer.core.models.sources import resolve_source
        from explorer.core.specs.heads import recognise

        ckpt = AutoConfig.from_pretrained(resolve_source(source), trust_remote_code=config.trust_remote_code)
    except Exception:  # noqa: BLE001 - the load itself reports an unreadable source
        return plain, train_ex, dev_ex
    recorded = recognise(ckpt)
    if recorded is None or recorded.model_head != spec.model_head:
        return plain, train_ex, dev_ex    # the head is new anyway
    ck = int(getattr(ckpt, "num_labels", 0) or 0)
    id2label = getattr(ckpt, "id2label", None) or {}
    ck_names = [str(id2label.get(i, id2label.get(str(i), f"LABEL_{i}"))) for i in range(ck)]
    fit = head_fit(ck_names, list(names) if names else None, k)   # the launcher checks the same before a launch
    if config.new_head:
        writer.emit("log", level="info", message=f"new head: {fit.head}; {fit.data}. The checkpoint's head is dropped "
                    f"and a fresh {k}-label head starts from random weights; the encoder's weights are kept")
        return {**plain, "new_head": True}, train_ex, dev_ex
    if not fit.fits:
        raise ModelSourceError(fit.refusal("Use --new-head"))
    if fit.mapped:
        train_ex = train_ex.relabel(ck_names, "training")
        dev_ex = dev_ex.relabel(ck_names) if dev_ex is not None else None
        if ck_names != list(names):
            unused = fit.unused
            rest = (f"; {', '.join(unused)} {'is' if len(unused) == 1 else 'are'} not in the data (kept, "
                    "not trained here)") if unused else ""
            writer.emit("log", level="info", message=f"{fit.head}; the data's labels are mapped to it by name{rest}")
        return {"num_labels": ck, "id2label": dict(enumerate(ck_names)), "new_head": False}, train_ex, dev_ex
    return plain, train_ex, dev_ex


def _restore(run_dir: Path, state: dict | None, plan: dict, optimizer, scheduler, control: Control) -> Progress:
    """The position to continue from (and the optimizer / schedule state) when resuming."""
    if state is None:
        return Progress()
    total = plan["steps_total"]
    if int(state.get("steps_total", total)) != total:
        raise ConfigError(f"cannot resume {run_dir}: the run planned {state['steps_total']} steps but the data and "
                          f"config now give {total} (did the data files change?)")
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])
    control.step = int(state["step"])
    return Progress(step=int(state["step"]), epoch=int(state["epoch"]), batches_done=int(state["batches_done"]))


def prepare_run(config: TrainConfig, run_dir: Path, writer, control: Control, resume: bool) -> TrainingRun:
    """Validate the config, then set up accelerator, data, model, optimizer, schedule and resume state.

    Raises:
        ConfigError, SquadDataError / ClassificationDataError, TrainingDataError, ModelSourceError,
        CheckpointError: bad input, with a specific message.
    """
    t_start = time.time()
    config.validate()
    task = get_task(config.task)
    accelerator, mp = make_accelerator(config)
    writer.enabled = writer.enabled and accelerator.is_main_process
    warning = bf16_warning(mp, accelerator.device.type)
    if warning:
        writer.emit("log", level="warning", message=warning)
    set_seed(config.seed)
    state, source = None, config.model
    if resume:
        ckpt, state = load_training_state(run_dir)
        source = str(ckpt)
        writer.emit("log", level="info", message=f"resuming from {ckpt} (step {state['step']})")

    train_ex, dev_ex = _read_data(config, task, writer, run_dir)
    # resuming: the run's own checkpoint already holds the head it started (new_head or not)
    fit_config = dataclasses.replace(config, new_head=False) if resume else config
    head, train_ex, dev_ex = fit_head(source, task, train_ex, dev_ex, fit_config, writer)
    if hasattr(task, "class_weights"):
        train_ex.loss_weights = task.class_weights(train_ex, config)
    loaded = load_for_training(source, task, head["num_labels"], config, writer, id2label=head["id2label"],
                               new_head=head["new_head"])
    task.configure_model(loaded.model, train_ex, config)
    writer.emit("log", level="info", message=f"tokenizing {task.training_examples_line(train_ex)}")
    train_feats = task.featurize(train_ex, loaded.tokenizer, config, train=True)
    if len(train_feats) == 0:
        raise TrainingDataError(f"{config.train}: no training rows after tokenization")
    dev_ex, dev_feats, schedule = _dev_in_sample_order(task, dev_ex, loaded.tokenizer, config, resume)

    plan = plan_steps(len(train_feats), config, accelerator.num_processes)
    optimizer = build_optimizer(loaded.model, learning_rate=config.resolved_learning_rate(),
                                weight_decay=config.weight_decay, betas=(config.adam_beta1, config.adam_beta2),
                                eps=config.adam_epsilon, head_lr_multiplier=config.head_lr_multiplier)
    clock = TrainClock(float(state.get("train_seconds", 0.0)) if state else 0.0)
    wall = None
    if config.time_budget_minutes > 0:
        wall = WallBudget(60.0 * config.time_budget_minutes, clock,
                          wall_before=float(state.get("wall_seconds", 0.0)) if state else 0.0)
        scheduler = build_time_scheduler(optimizer, warmup_ratio=config.warmup_ratio,
                                         budget_seconds=wall.training_seconds, clock=clock.seconds,
                                         total_steps=plan["steps_total"])
    else:
        scheduler = build_scheduler(optimizer, warmup_steps=plan["warmup_steps"], total_steps=plan["steps_total"])
    model, optimizer = accelerator.prepare(loaded.model, optimizer)
    if config.fast_dropout and config.dropout > 0:
        enable_fast_dropout(accelerator.unwrap_model(model))
    progress = _restore(run_dir, state, plan, optimizer, scheduler, control)
    return TrainingRun(
        config=config, run_dir=run_dir, writer=writer, control=control, accelerator=accelerator,
        mixed_precision=mp, task=task, loaded=loaded, model=model, optimizer=optimizer, scheduler=scheduler,
        train_ex=train_ex, dev_ex=dev_ex, train_feats=train_feats, dev_feats=dev_feats,
        dev_loader=eval_loader(accelerator, dev_feats, config.batch_size) if dev_feats is not None else None,
        watch_items=task.watch_items(config, dev_ex), plan=plan, progress=progress, state=state, resumed=resume,
        t_start=t_start, clock=clock, wall=wall, schedule=schedule)


def _dev_in_sample_order(task: Task, dev_ex, tokenizer, config: TrainConfig, resume: bool):
    """(dev examples, their features, EvalSchedule): the dev rows (examples: a table's rows, a tagging file's
    sentences) put in the stratified sample order (explorer.core.data.sample.sample_order) when they can be
    sampled, so that any dev sample is their first rows and its features the first features (eval_schedule.can_sample:
    checked on the features made); the schedule counts dev rows as eval_schedule.dev_rows_of does; (None, None, None)
    without dev data."""
    if dev_ex is None:
        return None, None, None
    sampleable = hasattr(dev_ex, "subset") and config.eval_share > 0 and not config.full_dev_evals
    if sampleable:
        labels = getattr(dev_ex, "labels", None)
        order = EvalSchedule(config, len(dev_ex), sampleable=True).order(labels)
        dev_ex = dev_ex.subset(order)
    dev_feats = task.featurize(dev_ex, tokenizer, config, train=False)
    schedule = EvalSchedule(config, dev_rows_of(dev_ex, dev_feats),
                            sampleable=sampleable and can_sample(dev_ex, dev_feats), start_evaluation=not resume)
    return dev_ex, dev_feats, schedule

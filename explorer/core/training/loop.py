"""The fine-tuning loop: accelerate owns the device, mixed precision and gradient accumulation.

Read :func:`train` top to bottom, as accelerate's ``nlp_example.py``: setup (setup.py: model, data,
optimizer, schedule, resume state), the ``started`` event, the epoch loop (:func:`run_epochs`, one
screen), the final evaluation and save. It reports through an ``EventWriter`` (the JSON-lines
protocol of explorer/core/protocol/events.py: started, step, eval, checkpoint, finished; ``log`` for phases).
The worker (explorer.worker.train) turns exceptions into ``failed`` / ``cancelled`` events.

Recipe (recipe.py): AdamW with weight decay except biases and LayerNorm weights, linear warmup then
linear decay to 0, clipping at max_grad_norm. Speed: length-grouped batches with dynamic padding
(batching.py), SDPA attention (load_model default), bf16 autocast where it is fast (precision.py),
cheaper dropout masks on CPU (fast_dropout.py), fused AdamW, and no host synchronisation per step
except at logging (loss and grad norm stay on the device between log steps; the NaN/inf check runs
on the logged values).

Gradient accumulation: every optimizer step averages the gradients of the micro-batches it holds.
accelerate divides each micro-batch loss by ``gradient_accumulation_steps`` and syncs early at the
end of the data, so a leftover group at the end of an epoch (fewer micro-batches than
``gradient_accumulation_steps``) would be scaled too small; :func:`group_scale` corrects it.

Multi-process (``accelerate launch``): each process gets every n-th batch; only the main process
writes events, checkpoints and prediction files; eval outputs are gathered with accelerate.utils.gather_object, keyed by feature index.
``batch_size`` is per process and per micro-batch: the effective batch is batch_size x
gradient_accumulation_steps x processes.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import torch

from explorer.core.errors import Cancelled, ConfigError, NonFiniteLoss, as_out_of_memory
from explorer.core.metrics.regression import UNDEFINED, undefined_note
from explorer.core.training.budget import no_time_to_train
from explorer.core.training.checkpoints import checkpoint_bytes, disk_shortfall, megabytes, set_rng_state
from explorer.core.training.eval_budget import expect_ahead, plan_evaluations_now
from explorer.core.specs.train_config import TrainConfig
from explorer.core.training.best_rescore import rescore_best
from explorer.core.training.evaluation import EvaluationProgress, EvaluationStopped, evaluate
from explorer.core.training.keeper import CheckpointKeeper
from explorer.core.training.setup import (Control, TrainingRun, plan_steps, prepare_run, process_state,
                                          set_dropout)

__all__ = ["Control", "plan_steps", "process_state", "set_dropout", "train", "run_epochs", "group_scale"]


def train(config: TrainConfig, run_dir: str | Path, writer, control: Control | None = None, *,
          resume: bool = False) -> dict:
    """Fine-tune (or resume) one run; returns the ``finished`` event's fields.

    Checkpoints are our own (checkpoints.py: ``save_pretrained`` safetensors + tokenizer + a small
    ``training_state.pt``, written atomically, ``best`` hard-linked from ``last``) rather than
    ``accelerator.save_state``: a checkpoint folder must be a model source the inspectors and
    ``--model`` open directly, and ``save_state`` writes neither the tokenizer nor our position in the
    length-grouped data order, nor does it replace the previous folder atomically.

    Args:
        config: the run's settings (validated here).
        run_dir: the run folder (config.json already written by the caller).
        writer: explorer.core.protocol.events.EventWriter (disabled on non-main processes here).
        control: stop / cancel requests.
        resume: continue from ``run_dir/checkpoints/last`` with the same schedule, data order and RNG.

    Raises:
        UserError subclasses (ConfigError, SquadDataError, ClassificationDataError, ModelSourceError,
            CheckpointError, TrainingDataError, NonFiniteLoss): bad input, with a specific message.
        OutOfMemory: an allocator failure.
        Cancelled: control.cancel was set.
    """
    try:
        # -- setup -----------------------------------------------------------------------------
        run = prepare_run(config, Path(run_dir), writer, control or Control(), resume)
        keeper = CheckpointKeeper(run)
        emit_started(run)
        if run.wall is not None:
            run.wall.begin()
        if not resume:
            try:
                evaluate_now(run)
            except EvaluationStopped:   # stopped before the first step: the final evaluation follows
                pass
        expect_ahead(run)
        if run.wall is not None and not resume and run.wall.training_seconds() <= 0:
            raise ConfigError(no_time_to_train(run.wall.total, run.wall.spent_outside(), run.wall.ahead,
                                               run.schedule.dev_total if run.schedule is not None else 0))
        # -- train -----------------------------------------------------------------------------
        stopped = run_epochs(run, keeper)
        # -- finish: the whole dev set, unless the evaluation a stop arrived in already scored it ----------
        done = run.final_metrics
        final, picked = (done, None) if done is not None else evaluate_now(run, final=True) or (None, None)
        if done is None and (keeper.last_saved_step != run.progress.step or final is not None):
            keeper.save(picked, final)
            rescore_best(run, keeper, final)   # a best picked on the dev sample, against the final step on all rows
    except RuntimeError as exc:
        oom = as_out_of_memory(exc)
        if oom is not None:
            raise oom from exc
        raise
    return {"metrics": final or {}, "seconds": run.elapsed(), "best_checkpoint": keeper.best_path,
            "stopped_early": stopped, "steps": run.progress.step}


def emit_started(run: TrainingRun) -> None:
    """The ``started`` event: settings, device, sizes, and what loading the model reported."""
    plan, task = run.plan, run.task
    report = model_load_report(run.loaded)
    if report.get("warning"):
        run.writer.emit("log", level="warning", message=report["warning"])
    num_parameters = sum(p.numel() for p in run.model.parameters())
    run.writer.emit(
        "started", config=run.config.to_dict(), device=str(run.accelerator.device),
        mixed_precision=run.mixed_precision, num_parameters=num_parameters,
        steps_total=run.steps_total, num_train_examples=task.num_examples(run.train_ex),
        num_train_features=len(run.train_feats),
        num_dev_examples=task.num_examples(run.dev_ex) if run.dev_ex is not None else 0,
        num_processes=run.accelerator.num_processes, resumed_from_step=run.progress.step if run.resumed else None,
        load_report=report, **{k: plan[k] for k in ("steps_per_epoch", "warmup_steps", "effective_batch_size")},
        **dev_baseline_field(run), **task.started_info(run.train_ex, run.config))
    if run.config.save_checkpoints:
        run.writer.emit("log", level="info", message=checkpoint_size_note(num_parameters))
        short = disk_shortfall(run.run_dir, checkpoint_bytes(num_parameters)["total"], "this run's checkpoints")
        if short:
            run.writer.emit("log", level="warning", message=f"{short}: saving them will fail")
    every = run.config.eval_every
    if every > 0 and run.dev_ex is not None and every >= run.steps_total:   # e.g. 90 for a 60-step run
        run.writer.emit("log", level="warning", message=f"eval_every {every} is not below the run's "
                        f"{run.steps_total} steps: it evaluates only at the start and the end")


def dev_baseline_field(run: TrainingRun) -> dict:
    """``{"dev_baseline": {...}}`` for the started event: the trivial predictor's dev metrics
    (explorer.core.metrics.baselines.dev_baseline), computed here, where the dev file or the run's dev_split.csv is (a
    remote run's stay on its host, and its curves still get the majority-class line); {} when there is none."""
    from explorer.core.metrics.baselines import dev_baseline

    base = dev_baseline(run.config.to_dict(), run.run_dir) if run.dev_ex is not None else None
    return {"dev_baseline": base.to_dict()} if base is not None else {}


def checkpoint_size_note(num_parameters: int) -> str:
    """'checkpoints: about 270 MB in last (model 90 MB + optimizer state, for --resume) and 90 MB in best
    (model only); 360 MB in all': the run's expected disk use (checkpoints.checkpoint_bytes)."""
    b = checkpoint_bytes(num_parameters)
    mb = megabytes
    return (f"checkpoints: about {mb(b['last'])} in last (model {mb(b['model'])} + optimizer state, for --resume) "
            f"and {mb(b['best'])} in best (model only); {mb(b['total'])} in all")


def model_load_report(loaded) -> dict:
    """What loading the model found, JSON-ready (explorer.core.models.load_report.LoadReport.to_dict: newly
    initialised / missing / unexpected weights, kind, summary), plus ``warning`` when the encoder did not
    load. {} for a model built in memory (no report)."""
    report = getattr(loaded, "load_report", None)
    if report is None:
        return {}
    out = dict(report.to_dict())
    warning = report.warning()
    if warning:
        out["warning"] = f"{loaded.source}: {warning}"
    return out


def evaluate_now(run: TrainingRun, *, final: bool = False) -> tuple[dict, dict] | None:
    """Evaluate (all processes) and emit the ``eval`` event; None without dev data.

    During training (``final`` False) it scores the run's dev sample when it has one (eval_schedule), and a
    stop early during it drops it (EvaluationStopped propagates); the final evaluation scores the whole dev set.
    Returns (metrics reported, metrics checkpoints/best compares: those of the sample's rows)."""
    if run.dev_loader is None:
        return None
    schedule = run.schedule
    sampled = not final and schedule.sampled
    rows = schedule.rows if sampled else schedule.dev_total   # dev rows (a tagging run's sentences), not features
    feats, loader = (sample_features(run), run.sample_loader[1]) if sampled else (run.dev_feats, run.dev_loader)
    examples = run.dev_ex.head(rows) if sampled else run.dev_ex
    res = evaluate(run.accelerator, run.model, run.tokenizer, run.task, examples, feats, loader, run.config,
                   control=run.control, out_dir=run.run_dir, watch_items=run.watch_items,
                   stoppable=sampled and run.accelerator.num_processes == 1,
                   sample_rows=schedule.rows if final and schedule.sampled else 0, rows=rows,
                   on_rows=EvaluationProgress(run.writer, step=run.progress.step, final=final, rows_total=rows,
                                              dev_total=schedule.dev_total, features=len(feats)))
    if not final:   # the first evaluation's cost besides its forward is one-off (first batches, caches): not kept
        forward = rows / res["rows_per_second"]
        schedule.timed(rows, forward, overhead=res["seconds"] - forward if schedule.eval_rows else None)
    step = run.progress.step
    fields = {"step": step, "epoch": step / run.plan["steps_per_epoch"], "metrics": res["metrics"],
              "seconds": res["seconds"], "dev_rows": rows, "dev_total": schedule.dev_total,
              "rows_per_second": res["rows_per_second"]}
    if "watch" in res:
        fields["watch"] = res["watch"]
    run.writer.emit("eval", **fields)
    undefined = ",".join(res["metrics"].get(UNDEFINED) or ())
    if undefined and undefined != run.undefined_metrics:   # said once while it holds (a collapsed regression head)
        run.writer.emit("log", level="warning", message=f"step {step}: {undefined_note(res['metrics'])}; never "
                        "ranked as the best evaluation")
    run.undefined_metrics = undefined
    schedule.evaluated(step)
    return res["metrics"], res.get("sample_metrics", res["metrics"])


def sample_features(run: TrainingRun):
    """The dev sample's features (those of the first ``schedule.rows`` dev rows: evaluation.head_features), with its
    loader built once."""
    from explorer.core.training.evaluation import eval_loader, head_features

    rows = run.schedule.rows
    feats = head_features(run.dev_feats, rows)
    if run.sample_loader is None or run.sample_loader[0] != rows:
        run.sample_loader = (rows, eval_loader(run.accelerator, feats, run.config.batch_size))
    return feats


def group_scale(index: int, n_batches: int, accumulation: int) -> float:
    """Factor for micro-batch ``index`` (0-based) of ``n_batches`` so that accelerate's ``loss /
    accumulation`` becomes ``loss / (micro-batches in its group)``: 1.0 inside full groups,
    ``accumulation / k`` in a leftover group of k < accumulation micro-batches at the end of the data."""
    group_start = (index // accumulation) * accumulation
    return accumulation / min(accumulation, n_batches - group_start)


def run_epochs(run: TrainingRun, keeper: CheckpointKeeper) -> bool:
    """The training loop (one screen); returns True when it stopped early on request."""
    acc, cfg, p, meter = run.accelerator, run.config, run.progress, StepMeter(run)
    if run.state is not None:
        set_rng_state(run.state["rng"])
    run.model.train()
    clip = cfg.max_grad_norm if cfg.max_grad_norm > 0 else float("inf")
    run.clock.start()
    while p.step < run.steps_total and not run.budget_spent():
        loader = run.epoch_loader()
        for i, batch in enumerate(loader):
            # -- one micro-batch ---------------------------------------------------------------
            if run.control.cancel:
                raise Cancelled()
            with acc.accumulate(run.model):
                loss = run.task.loss(run.model(**run.task.model_inputs(batch)), batch)
                acc.backward(loss * group_scale(i, len(loader), cfg.gradient_accumulation_steps))
                if acc.sync_gradients:
                    meter.grad_norm = acc.clip_grad_norm_(run.model.parameters(), clip)
                run.optimizer.step()
                run.optimizer.zero_grad(set_to_none=True)
            meter.add(loss, batch)
            p.batches_done += 1
            if not acc.sync_gradients:
                continue
            # -- one optimizer step ------------------------------------------------------------
            lr_used = run.scheduler.get_last_lr()[0]
            run.scheduler.step()
            p.step += 1
            run.control.step = p.step
            if run.first_step is None:   # the rate a time budget's steps are counted at starts after it
                run.first_step = (p.step, run.clock.seconds())
            done = p.step >= run.steps_total or run.budget_spent()
            if p.step % cfg.log_every == 0 or done:
                meter.emit(lr_used)
            stop = stop_requested(run)
            if done or stop:
                run.clock.pause()
                return not done
            # -- evaluate / save (outside the time budget) ------------------------------------
            if run.schedule is not None and run.schedule.plan_due(p.step, run.clock.seconds()):
                plan_evaluations_now(run)
            if run.schedule is not None and run.schedule.due(p.step):
                with run.clock.paused():
                    if evaluate_and_save(run, keeper):
                        return True
                meter.restart_clock()
            elif cfg.save_every and p.step % cfg.save_every == 0:
                with run.clock.paused():
                    keeper.save(None)
                meter.restart_clock()
        p.epoch += 1
        p.batches_done = 0
    run.clock.pause()
    return False


def evaluate_and_save(run: TrainingRun, keeper: CheckpointKeeper) -> bool:
    """An evaluation during training, the checkpoints after it, and the cadence re-planned with its cost.
    True when a stop early arrived meanwhile: the run then ends with at most one more evaluation (none when
    this one scored the whole dev set: it is the final one, ``run.final_metrics``)."""
    try:
        reported, picked = evaluate_now(run)
    except EvaluationStopped:
        return True
    t0 = time.perf_counter()
    keeper.save(picked)
    run.save_seconds = time.perf_counter() - t0 if run.config.save_checkpoints else 0.0
    run.schedule.overhead += run.save_seconds    # the saves after every evaluation count in its cost
    plan_evaluations_now(run)
    if stop_requested(run):
        if not run.schedule.sampled:
            run.final_metrics = reported
        return True
    return False


def budget_fields(run: TrainingRun) -> dict:
    """Extra ``step`` fields: ``eval_every``, the planned cadence (once eval_schedule has planned it), and for a
    time-budgeted run ``train_seconds`` (the clock), ``train_budget`` (the training seconds its wall-time budget
    leaves after the evaluations and saves) and ``steps_total``, the steps now expected to fit in them (the UI's
    progress and ETA follow them)."""
    out = {"eval_every": run.schedule.eval_every} if run.schedule is not None and run.schedule.plan else {}
    if run.wall is None:
        return out
    return {**out, "train_seconds": run.clock.seconds(), "train_budget": run.budget_seconds,
            "steps_total": run.planned_steps()}


def stop_requested(run: TrainingRun) -> bool:
    """A stop early was asked for; with several processes, on any of them (accelerate's trigger)."""
    stop = run.control.stop_requested()
    if run.accelerator.num_processes > 1:
        if stop:
            run.accelerator.set_trigger()
        stop = run.accelerator.check_trigger()
    return stop


class StepMeter:
    """Sums the loss and counts samples between ``step`` events; emits them with the NaN/inf check.

    The loss stays on the device until a log step (no host synchronisation per micro-batch).
    """

    def __init__(self, run: TrainingRun):
        self.run = run
        self.loss_sum = torch.zeros((), device=run.accelerator.device)
        self.micro, self.samples, self.grad_norm = 0, 0, None
        self.t_log = time.perf_counter()

    def add(self, loss: torch.Tensor, batch: dict) -> None:
        self.loss_sum += loss.detach()
        self.micro += 1
        self.samples += int(batch["input_ids"].shape[0])

    def restart_clock(self) -> None:
        """Leave evaluation / saving time out of samples_per_second."""
        self.t_log = time.perf_counter()

    def emit(self, lr_used: float) -> None:
        """The ``step`` event: mean micro-batch loss since the last one, lr, grad norm, throughput.

        Raises:
            NonFiniteLoss: the loss (or, without fp16 loss scaling, the gradient norm) is NaN / inf.
        """
        run, step = self.run, self.run.progress.step
        mean_loss = self.loss_sum / self.micro
        if run.accelerator.num_processes > 1:
            mean_loss = run.accelerator.reduce(mean_loss, "mean")
        loss_value = float(mean_loss)
        norm_value = float(self.grad_norm) if self.grad_norm is not None else float("nan")
        if not math.isfinite(loss_value) or (run.mixed_precision != "fp16" and not math.isfinite(norm_value)):
            what = "loss" if not math.isfinite(loss_value) else "gradient norm"
            raise NonFiniteLoss(
                f"the training {what} became {loss_value if what == 'loss' else norm_value} at step "
                f"{step} (learning rate {lr_used:.3g}): training diverged; stopped instead of training "
                "on garbage. Try a lower learning rate, more warmup, or mixed_precision no")
        now = time.perf_counter()
        run.writer.emit("step", step=step, epoch=step / run.plan["steps_per_epoch"], loss=loss_value, lr=lr_used,
                        grad_norm=norm_value,
                        samples_per_second=self.samples * run.accelerator.num_processes / max(now - self.t_log, 1e-9),
                        elapsed=run.elapsed(), **budget_fields(run))
        self.loss_sum.zero_()
        self.micro, self.samples, self.t_log = 0, 0, now

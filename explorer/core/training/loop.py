"""The fine-tuning loop: accelerate owns the device, mixed precision and gradient accumulation.

One call of :func:`train` runs a whole fine-tune (or resumes one) and reports through an
``EventWriter`` (DESIGN.md protocol: started, step, eval, checkpoint, finished; ``log`` for phases).
The worker (explorer.worker.train) turns exceptions into ``failed`` / ``cancelled`` events.

Recipe (recipe.py): AdamW with weight decay except biases and LayerNorm weights, linear warmup then
linear decay to 0, clipping at max_grad_norm. Speed: length-grouped batches with dynamic padding
(batching.py), SDPA attention (load_model default), bf16 autocast where it is fast (precision.py),
cheaper dropout masks on CPU (fast_dropout.py), fused AdamW, and no host synchronisation per step
except at logging (loss and grad norm stay on the device
between log steps; the NaN/inf check runs on the logged values).

Multi-process (``accelerate launch``): each process gets every n-th batch; only the main process
writes events, checkpoints and prediction files; eval outputs are gathered with gather_for_metrics.
``batch_size`` is per process and per micro-batch: the effective batch is batch_size x
gradient_accumulation_steps x processes.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path

import torch

from explorer.core.best import is_improvement
from explorer.core.training.batching import IndexDataset, ListBatchSampler, epoch_batches
from explorer.core.training.checkpoints import (copy_checkpoint, load_training_state, rng_state,
                                                save_checkpoint, set_rng_state)
from explorer.core.training.config import ConfigError, TrainConfig
from explorer.core.training.evaluation import TrainingCancelled, eval_loader, evaluate
from explorer.core.training.fast_dropout import enable_fast_dropout
from explorer.core.training.precision import resolve_mixed_precision
from explorer.core.training.recipe import build_optimizer, build_scheduler, warmup_steps_for


class NonFiniteLoss(RuntimeError):
    """The training loss (or gradient norm) became NaN or infinite."""


class TrainingDataError(ValueError):
    """The data gave nothing to train on (e.g. no training windows)."""


@dataclass
class Control:
    """Requests from outside the loop. Signal handlers set ``stop`` / ``cancel``; the STOP file is
    polled once per optimizer step."""

    stop_file: Path | None = None
    stop: bool = False
    cancel: bool = False
    raise_on_cancel: bool = False   # the SIGTERM handler may raise TrainingCancelled at once
    step: int = 0                   # optimizer steps done (for the cancelled event)

    def stop_requested(self) -> bool:
        return self.stop or (self.stop_file is not None and self.stop_file.exists())


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


def _metric_value(metrics: dict | None, name: str) -> float | None:
    """metrics[name], or the first of f1 / accuracy / pearson present (e.g. regression tasks)."""
    if not metrics:
        return None
    if name in metrics:
        return metrics[name]
    return next((metrics[n] for n in ("f1", "accuracy", "pearson") if n in metrics), None)


def _no_gpu() -> bool:
    mps = getattr(torch.backends, "mps", None)
    return not torch.cuda.is_available() and not (mps is not None and mps.is_available())


def process_state():
    """accelerate's PartialState; on a machine without GPU with cpu=True, so that several processes
    started by ``accelerate launch`` / ``torchrun`` form a MULTI_CPU (gloo) group."""
    from accelerate import PartialState

    return PartialState(cpu=_no_gpu())


def _device_type() -> str:
    return process_state().device.type


def _make_accelerator(config: TrainConfig):
    from accelerate import Accelerator
    from accelerate.state import AcceleratorState, GradientState

    if process_state().num_processes == 1:
        # accelerate keeps one state per process; a second run in the same process (tests, the benchmark)
        # may want another precision or accumulation, so start from a clean state when not distributed
        AcceleratorState._reset_state()
        GradientState._reset_state()
    device_type = _device_type()
    mp = resolve_mixed_precision(config.mixed_precision, device_type)
    if mp == "fp16" and device_type != "cuda":
        raise ConfigError(f"mixed_precision fp16 needs a CUDA GPU (this run is on {device_type}); "
                          "use bf16 (fast on CPUs with AMX) or no")
    return Accelerator(mixed_precision=mp, gradient_accumulation_steps=config.gradient_accumulation_steps,
                       step_scheduler_with_optimizer=False, cpu=_no_gpu()), mp


def train(config: TrainConfig, run_dir: str | Path, writer, control: Control | None = None, *,
          resume: bool = False) -> dict:
    """Fine-tune (or resume) one run; returns the ``finished`` event's fields.

    Args:
        config: the run's settings (validated here).
        run_dir: the run folder (config.json already written by the caller).
        writer: explorer.core.events.EventWriter (disabled on non-main processes here).
        control: stop / cancel requests.
        resume: continue from ``run_dir/checkpoints/last`` with the same schedule, data order and RNG.

    Raises:
        ConfigError, ClassificationDataError / SquadDataError, ModelSourceError, CheckpointError:
            bad input, with a specific message.
        NonFiniteLoss: the loss became NaN/inf.
        TrainingCancelled: control.cancel was set.
        torch.OutOfMemoryError / RuntimeError: out of memory (the worker words the message).
    """
    from accelerate.utils import set_seed

    from explorer.core.models import ModelSourceError, load_model
    from explorer.core.training.tasks import get_task

    t_start = time.time()
    run_dir = Path(run_dir)
    control = control or Control()
    config.validate()
    task = get_task(config.task)
    accelerator, mp = _make_accelerator(config)
    writer.enabled = writer.enabled and accelerator.is_main_process
    set_seed(config.seed)

    state = None
    source = config.model
    if resume:
        ckpt, state = load_training_state(run_dir)
        source = str(ckpt)
        writer.emit("log", level="info", message=f"resuming from {ckpt} (step {state['step']})")

    writer.emit("log", level="info", message=f"reading training data {config.train}")
    train_ex = task.load(config, "train")
    dev_ex = None
    if config.dev:
        writer.emit("log", level="info", message=f"reading dev data {config.dev}")
        dev_ex = task.load(config, "dev")
    task.check_data(train_ex, dev_ex, config)
    writer.emit("log", level="info", message=f"loading model {source}")
    try:
        loaded = load_model(source, task.head, num_labels=task.num_labels(train_ex, config),
                            trust_remote_code=config.trust_remote_code)
    except ModelSourceError:
        raise
    except Exception as exc:  # noqa: BLE001 - e.g. a torn safetensors file, a head of the wrong size
        first = (str(exc).splitlines() or [""])[0][:300]
        raise ModelSourceError(f"could not load {source!r} as a {task.head} model: {type(exc).__name__}: "
                               f"{first}") from exc
    model, tokenizer = loaded.model, loaded.tokenizer
    set_dropout(model, config.dropout)
    writer.emit("log", level="info", message=f"tokenizing {task.num_examples(train_ex)} training examples")
    train_feats = task.featurize(train_ex, tokenizer, config, train=True)
    if len(train_feats) == 0:
        raise TrainingDataError(f"{config.train}: no training rows after tokenization")
    dev_feats = task.featurize(dev_ex, tokenizer, config, train=False) if dev_ex is not None else None

    plan = plan_steps(len(train_feats), config, accelerator.num_processes)
    total = plan["steps_total"]
    if state is not None and int(state.get("steps_total", total)) != total:
        raise ConfigError(f"cannot resume {run_dir}: the run planned {state['steps_total']} steps but the data and "
                          f"config now give {total} (did the data files change?)")
    optimizer = build_optimizer(model, learning_rate=config.resolved_learning_rate(),
                                weight_decay=config.weight_decay, betas=(config.adam_beta1, config.adam_beta2),
                                eps=config.adam_epsilon)
    scheduler = build_scheduler(optimizer, warmup_steps=plan["warmup_steps"], total_steps=total)
    model, optimizer = accelerator.prepare(model, optimizer)
    if config.fast_dropout and config.dropout > 0:
        enable_fast_dropout(accelerator.unwrap_model(model))
    dev_loader = eval_loader(accelerator, dev_feats, config.batch_size) if dev_feats is not None else None
    watch_items = task.watch_items(config, dev_ex)

    step, epoch, batches_done, elapsed_before = 0, 0, 0, 0.0
    best_value, best_path = None, None
    metric_name = config.metric_for_best or task.primary_metric
    if state is not None:
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        step, epoch, batches_done = int(state["step"]), int(state["epoch"]), int(state["batches_done"])
        control.step = step
        elapsed_before = float(state.get("elapsed", 0.0))
        best_value = state.get("best_value")
        best_path = state.get("best_path")

    writer.emit("started", config=config.to_dict(), device=str(accelerator.device), mixed_precision=mp,
                num_parameters=sum(p.numel() for p in model.parameters()), steps_total=total,
                num_train_examples=task.num_examples(train_ex), num_train_features=len(train_feats),
                num_dev_examples=task.num_examples(dev_ex) if dev_ex is not None else 0,
                num_processes=accelerator.num_processes, resumed_from_step=step if resume else None,
                **{k: plan[k] for k in ("steps_per_epoch", "warmup_steps", "effective_batch_size")})

    def elapsed() -> float:
        return elapsed_before + time.time() - t_start

    def run_eval() -> dict | None:
        if dev_loader is None:
            return None
        res = evaluate(accelerator, model, tokenizer, task, dev_ex, dev_feats, dev_loader, config,
                       control=control, out_dir=run_dir, watch_items=watch_items)
        fields = {"step": step, "epoch": step / plan["steps_per_epoch"], "metrics": res["metrics"],
                  "seconds": res["seconds"]}
        if "watch" in res:
            fields["watch"] = res["watch"]
        writer.emit("eval", **fields)
        return res["metrics"]

    def save(metrics: dict | None) -> None:
        nonlocal best_value, best_path
        if not config.save_checkpoints:
            return
        value = _metric_value(metrics, metric_name)
        improved = is_improvement(value, best_value)   # the rule the Runs dock uses too (core.best)
        if improved:
            best_value = float(value)
            best_path = str(run_dir / "checkpoints" / "best")
        e, b = (epoch + 1, 0) if batches_done >= plan["micro_batches_per_epoch"] else (epoch, batches_done)
        training_state = {"step": step, "epoch": e, "batches_done": b, "steps_total": total,
                          "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(),
                          "rng": rng_state(), "elapsed": elapsed(), "best_value": best_value,
                          "best_path": best_path, "metric_for_best": metric_name}
        accelerator.wait_for_everyone()
        if accelerator.is_main_process:
            inner = accelerator.unwrap_model(model, keep_fp32_wrapper=False)
            path = save_checkpoint(run_dir, inner, tokenizer, step=step, metrics=metrics,
                                   training_state=training_state, kind="last")
            writer.emit("checkpoint", step=step, path=str(path), kind="last")
            if improved:
                path = copy_checkpoint(run_dir, "last", "best", metrics=metrics)
                writer.emit("checkpoint", step=step, path=str(path), kind="best")
        accelerator.wait_for_everyone()

    if not resume:
        run_eval()

    if state is not None:
        set_rng_state(state["rng"])
    model.train()
    multi = accelerator.num_processes > 1
    loss_sum = torch.zeros((), device=accelerator.device)
    micro, samples, grad_norm = 0, 0, None
    t_log = time.perf_counter()
    last_saved_step = step if resume else -1
    stopped = False
    while step < total and not stopped:
        batches = epoch_batches(train_feats.lengths, config.batch_size, seed=config.seed, epoch=epoch,
                                group_by_length=config.length_grouping)
        if batches_done:
            batches = batches[batches_done * accelerator.num_processes:]
        loader = accelerator.prepare(torch.utils.data.DataLoader(
            IndexDataset(len(train_feats)), batch_sampler=ListBatchSampler(batches),
            collate_fn=train_feats.collate, generator=torch.Generator()))
        for batch in loader:
            if control.cancel:
                raise TrainingCancelled()
            with accelerator.accumulate(model):
                outputs = model(**task.model_inputs(batch))
                loss = task.loss(outputs, batch)
                accelerator.backward(loss)
                if accelerator.sync_gradients:
                    limit = config.max_grad_norm if config.max_grad_norm > 0 else float("inf")
                    grad_norm = accelerator.clip_grad_norm_(model.parameters(), limit)
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)
            loss_sum += loss.detach()
            micro += 1
            samples += int(batch["input_ids"].shape[0])
            batches_done += 1
            if not accelerator.sync_gradients:
                continue
            lr_used = scheduler.get_last_lr()[0]
            scheduler.step()
            step += 1
            control.step = step
            if step % config.log_every == 0 or step == total:
                mean_loss = loss_sum / micro
                if multi:
                    mean_loss = accelerator.reduce(mean_loss, "mean")
                loss_value = float(mean_loss)
                norm_value = float(grad_norm) if grad_norm is not None else float("nan")
                if not math.isfinite(loss_value) or (mp != "fp16" and not math.isfinite(norm_value)):
                    what = "loss" if not math.isfinite(loss_value) else "gradient norm"
                    raise NonFiniteLoss(
                        f"the training {what} became {loss_value if what == 'loss' else norm_value} at step "
                        f"{step} (learning rate {lr_used:.3g}): training diverged; stopped instead of training "
                        "on garbage. Try a lower learning rate, more warmup, or mixed_precision no")
                now = time.perf_counter()
                writer.emit("step", step=step, epoch=step / plan["steps_per_epoch"], loss=loss_value, lr=lr_used,
                            grad_norm=norm_value, samples_per_second=samples * accelerator.num_processes
                            / max(now - t_log, 1e-9), elapsed=elapsed())
                loss_sum.zero_()
                micro, samples, t_log = 0, 0, now
            stop = control.stop_requested()
            if multi:
                if stop:
                    accelerator.set_trigger()
                stop = accelerator.check_trigger()
            if step >= total or stop:
                stopped = stop and step < total
                break
            if config.eval_every and step % config.eval_every == 0:
                save(run_eval())
                last_saved_step = step
                t_log = time.perf_counter()
            elif config.save_every and step % config.save_every == 0:
                save(None)
                last_saved_step = step
                t_log = time.perf_counter()
        else:
            epoch += 1
            batches_done = 0

    final = run_eval()
    if last_saved_step != step or final is not None:
        save(final)
    return {"metrics": final or {}, "seconds": elapsed(), "best_checkpoint": best_path,
            "stopped_early": stopped, "steps": step}

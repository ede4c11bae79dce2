"""The BERT paper's optimisation recipe: AdamW groups, linear warmup + linear decay, clipping.

Source: Devlin et al. 2019, Appendix A.3 / A.2 (Adam, L2 weight decay 0.01, warmup over the first
10% of steps, linear decay); the "no decay on bias and LayerNorm weights" rule and the schedule
are those of the official ``run_squad.py`` / ``optimization.py`` and of Hugging Face
``get_linear_schedule_with_warmup``.
"""

from __future__ import annotations

import math

import torch

NO_DECAY_SUFFIXES = ("bias",)


def _is_norm(module: torch.nn.Module) -> bool:
    return isinstance(module, (torch.nn.LayerNorm, torch.nn.GroupNorm, torch.nn.RMSNorm)) or \
        "layernorm" in type(module).__name__.lower() or "rmsnorm" in type(module).__name__.lower()


def decay_parameter_names(model: torch.nn.Module) -> tuple[list[str], list[str]]:
    """Split trainable parameter names into (decay, no_decay).

    No decay: every bias, and the weights of LayerNorm-like modules (found by module type, so
    ``LayerNorm.weight`` is caught whatever it is called). Everything else decays.
    """
    norm_params = set()
    for mod_name, module in model.named_modules():
        if _is_norm(module):
            for p_name, _ in module.named_parameters(recurse=False):
                norm_params.add(f"{mod_name}.{p_name}" if mod_name else p_name)
    decay, no_decay = [], []
    for name, param in model.named_parameters():
        if not param.requires_grad:
            continue
        if name in norm_params or name.endswith(NO_DECAY_SUFFIXES):
            no_decay.append(name)
        else:
            decay.append(name)
    return decay, no_decay


def head_parameter_names(model: torch.nn.Module) -> set[str]:
    """Names of the task head's parameters: those outside the pre-trained encoder (``model.base_model_prefix``,
    "bert" for BERT: ``qa_outputs.*``, ``classifier.*``). A model without a separate encoder has none."""
    prefix = getattr(model, "base_model_prefix", "")
    if not prefix or getattr(model, prefix, None) is None:
        return set()
    return {name for name, _ in model.named_parameters() if not name.startswith(prefix + ".")}


def param_groups(model: torch.nn.Module, weight_decay: float, *, head_lr: float | None = None) -> list[dict]:
    """AdamW parameter groups: [{params: decayed, weight_decay}, {params: no_decay, weight_decay: 0}]; with
    ``head_lr`` the task head's parameters (:func:`head_parameter_names`) form two more groups of their own
    with ``lr`` = head_lr (the schedule scales each group's rate alike)."""
    decay, no_decay = decay_parameter_names(model)
    params = dict(model.named_parameters())
    head = head_parameter_names(model) if head_lr is not None else set()
    groups = []
    for names, wd in ((decay, float(weight_decay)), (no_decay, 0.0)):
        body = [n for n in names if n not in head]
        groups.append({"params": [params[n] for n in body], "weight_decay": wd, "names": body})
        top = [n for n in names if n in head]
        if top:
            groups.append({"params": [params[n] for n in top], "weight_decay": wd, "names": top,
                           "lr": float(head_lr)})
    return groups


def build_optimizer(model: torch.nn.Module, *, learning_rate: float, weight_decay: float = 0.01,
                    betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                    head_lr_multiplier: float = 1.0) -> torch.optim.AdamW:
    """torch AdamW (decoupled weight decay, Loshchilov & Hutter 2019) over :func:`param_groups`; the task head's
    weights learn at ``learning_rate * head_lr_multiplier`` (1: one rate for every weight).

    Uses the fused CPU/CUDA kernel when this torch build has one for the parameters' device.
    """
    head_lr = learning_rate * head_lr_multiplier if head_lr_multiplier != 1.0 else None
    groups = [{k: v for k, v in g.items() if k != "names"}
              for g in param_groups(model, weight_decay, head_lr=head_lr)]
    groups = [g for g in groups if g["params"]]
    kwargs = dict(lr=learning_rate, betas=betas, eps=eps)
    try:
        return torch.optim.AdamW(groups, fused=True, **kwargs)
    except (RuntimeError, TypeError, ValueError):
        return torch.optim.AdamW(groups, **kwargs)


def warmup_steps_for(total_steps: int, warmup_ratio: float) -> int:
    """Number of warmup steps: ceil(warmup_ratio * total_steps) (Hugging Face convention)."""
    return int(math.ceil(warmup_ratio * total_steps))


def linear_schedule(warmup_steps: int, total_steps: int):
    """lr multiplier for optimizer step s (0-based: the multiplier used by the (s+1)-th update).

    s < warmup: s / warmup (0 at s = 0); then (total - s) / (total - warmup), reaching 0 at s = total.
    Identical to transformers.get_linear_schedule_with_warmup.
    """
    def factor(step: int) -> float:
        if step < warmup_steps:
            return float(step) / float(max(1, warmup_steps))
        return max(0.0, float(total_steps - step) / float(max(1, total_steps - warmup_steps)))
    return factor


def build_scheduler(optimizer: torch.optim.Optimizer, *, warmup_steps: int, total_steps: int):
    """torch LambdaLR with :func:`linear_schedule`; call ``step()`` once per optimizer step."""
    return torch.optim.lr_scheduler.LambdaLR(optimizer, linear_schedule(warmup_steps, total_steps))


def time_schedule(warmup_ratio: float, budget_seconds: float, clock, total_steps: int = 0):
    """lr multiplier by training time: the linear warmup + linear decay of :func:`linear_schedule` with
    the fraction of the run done, ``f``, in place of the fraction of steps done: f / warmup_ratio while
    f < warmup_ratio, then (1 - f) / (1 - warmup_ratio), 0 from f = 1.

    ``f`` is the larger of the fraction of the time budget spent, ``clock() / budget_seconds``, and the fraction
    of the run's step bound done, ``step / total_steps`` (epochs or max_steps): the learning rate reaches 0 when
    the budget is spent or when the step bound ends the run, whichever comes first. Used when a run has
    ``time_budget_minutes`` (a fixed wall-clock budget, as on a CPU where the number of steps that fit is not
    known in advance). Without the step fraction, a machine fast enough to reach the step bound before the
    budget (a CPU with AMX, a GPU) ended the run with the learning rate still high, never annealed.

    Args:
        warmup_ratio: the share of the run spent warming up, in [0, 1).
        budget_seconds: the training seconds of the budget, > 0; or a callable giving them now (a wall-time
            budget leaves training what the evaluations do not take: explorer.core.training.budget.WallBudget).
        clock: a callable giving the training seconds so far (explorer.core.training.clock.TrainClock.seconds).
        total_steps: the run's step bound (TrainingRun.steps_total); 0 = none (time alone).
    """
    budget = budget_seconds if callable(budget_seconds) else (lambda: budget_seconds)

    def factor(step: int) -> float:
        f = max(0.0, clock() / max(1e-9, budget()))
        if total_steps > 0:
            f = max(f, step / total_steps)
        f = min(1.0, f)
        if f < warmup_ratio:
            return f / warmup_ratio
        return max(0.0, (1.0 - f) / max(1e-12, 1.0 - warmup_ratio))
    return factor


def build_time_scheduler(optimizer: torch.optim.Optimizer, *, warmup_ratio: float, budget_seconds: float, clock,
                         total_steps: int = 0):
    """torch LambdaLR with :func:`time_schedule`; call ``step()`` once per optimizer step."""
    return torch.optim.lr_scheduler.LambdaLR(optimizer, time_schedule(warmup_ratio, budget_seconds, clock,
                                                                      total_steps))


def clip_gradients(parameters, max_norm: float) -> torch.Tensor:
    """Clip the global L2 norm of the gradients to ``max_norm`` (skipped when max_norm <= 0).

    Returns the norm *before* clipping, as a 0-d tensor (no host sync). Pass an accelerate
    Accelerator's ``clip_grad_norm_`` result instead when running under accelerate.
    """
    params = [p for p in parameters if p.grad is not None]
    limit = float(max_norm) if max_norm and max_norm > 0 else float("inf")
    return torch.nn.utils.clip_grad_norm_(params, limit)

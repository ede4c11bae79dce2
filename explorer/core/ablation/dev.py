"""A task's capped dev set scored with attention heads gated, and the gradient of its loss with respect to the gates.

The dev examples go through the task's own reader, features, loss and metrics (explorer.core.training.tasks, what
the training loop's evaluation reads), so a metric here is the one a run reports, with the model's heads gated
by explorer.core.attention.gates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from explorer.core.attention.gates import gate_tensor, head_gates, head_layout
from explorer.core.models.eval_mode import inference
from explorer.core.specs.heads import Inputs
from explorer.core.specs.metrics import UNDEFINED, metric_spec
from explorer.core.specs.train_config import TrainConfig
from explorer.core.training.batching import eval_batches
from explorer.core.training.dev_scoring import classes_as_model
from explorer.core.training.tasks import get_task


@dataclass(kw_only=True)
class DevSet:
    """A capped dev set ready for gated forwards.

    Attributes:
        task: the training ``Task`` (explorer.core.training.tasks) that reads, featurizes and scores it.
        config: the TrainConfig it was read with (task, dev, dev_cap, window settings).
        examples: the task's examples; features: its FeatureSet (rows with labels, for the loss).
        metric: the dev metric reported first (the config's metric_for_best or the task's best_metric).
        higher_is_better: that metric's direction (explorer.core.specs.metrics).
    """

    task: object
    config: TrainConfig
    examples: object
    features: object
    metric: str
    higher_is_better: bool

    def __len__(self) -> int:
        return self.task.num_examples(self.examples)


def load_dev_set(model, tokenizer, task: str, source: str, *, cap: int = 200, max_seq_length: int | None = None,
                 settings: dict | None = None) -> DevSet:
    """The first ``cap`` examples (0: all) of dev file ``source`` for ``task`` (a task name of
    explorer.core.specs.tasks), labels numbered as ``model``'s head numbers them (class and tag names matched by
    name), featurized with ``tokenizer``. ``settings``: further TrainConfig fields (doc_stride, text_columns, ...).

    Raises the readers' UserErrors (file, line) for bad data and for a label the head does not have, and
    ValueError for a task without a training row."""
    config = TrainConfig(task=task, dev=str(source), dev_cap=int(cap or 0), max_seq_length=max_seq_length,
                         **(settings or {}))
    t = get_task(task)
    data = t.load(config, "dev")
    if t.facts.head.inputs is Inputs.WORDS:
        from explorer.core.data.conll import require_tag_set
        from explorer.core.tagging.forward import tag_names_of

        data = require_tag_set(data, tag_names_of(model))
    else:
        data = classes_as_model(model, t, data)
    metric = config.metric_for_best or t.facts.best_metric
    return DevSet(task=t, config=config, examples=data, features=t.featurize(data, tokenizer, config, train=False),
                  metric=metric, higher_is_better=metric_spec(metric).higher_is_better is not False)


def dev_batch_count(dev: DevSet, batch_size: int = 16) -> int:
    """The batches of one pass over ``dev`` (what :func:`dev_metrics` and :func:`dev_gate_gradients` report
    progress in)."""
    return len(eval_batches(dev.features.lengths, batch_size))


def _batches(dev: DevSet, batch_size: int, device, batch_done=None):
    """(rows, batch on ``device``) of one pass; ``batch_done()`` after each batch was used (the caller's
    progress report and cancel point between batches)."""
    for rows in eval_batches(dev.features.lengths, batch_size):
        batch = dev.features.collate(rows)
        yield rows, {k: v.to(device) if hasattr(v, "to") else v for k, v in batch.items()}
        if batch_done is not None:
            batch_done()


def _collect(dev: DevSet, outputs, batch, rows, collected: dict) -> None:
    outs = dev.task.eval_outputs(outputs, batch)
    for name, t in outs.items():
        arr = (t.float() if t.is_floating_point() else t).detach().cpu().numpy()
        column = collected.setdefault(name, [None] * len(dev.features))
        for r, fi in enumerate(rows):
            v = arr[r]
            column[fi] = v[:dev.features.lengths[fi]] if name in dev.task.token_level_outputs else v


def dev_metrics(model, dev: DevSet, gates=None, *, batch_size: int = 16, batch_done=None) -> dict:
    """The task's dev metrics (a dict, ``dev.metric`` among them) of ``model`` with its heads gated by ``gates``
    ((layers, heads), 1 = kept, 0 = masked; None = unmasked). ``batch_done()`` after each batch."""
    device = next(model.parameters()).device
    collected: dict = {}
    with inference(model), head_gates(model, gates if gates is not None else gate_tensor(head_layout(model))):
        for rows, batch in _batches(dev, batch_size, device, batch_done):
            outputs = model(**dev.task.model_inputs(batch))
            _collect(dev, outputs, batch, rows, collected)
    return dev.task.metrics(dev.examples, dev.features, collected, dev.config, None)


def dev_gate_gradients(model, dev: DevSet, gates=None, *, batch_size: int = 16,
                       batch_done=None) -> tuple[np.ndarray, dict, int]:
    """(|d loss / d gate| of each batch's mean loss summed over the dev batches, (layers, heads) float64; the dev
    metrics of the same forwards; the number of input tokens (attention_mask) of those batches, by which
    transformers' BERTology example divides the sum). The model runs in eval mode
    (dropout off) with every gate at ``gates`` (default 1); its parameters' gradients are left untouched.
    ``batch_done()`` after each batch."""
    import torch

    layout = head_layout(model)
    base = gate_tensor(layout) if gates is None else torch.as_tensor(gates, dtype=torch.float32)
    device = next(model.parameters()).device
    total = np.zeros((layout.layers, layout.heads), dtype=np.float64)
    collected: dict = {}
    weight = 0
    with inference(model, gradients=True):
        for rows, batch in _batches(dev, batch_size, device, batch_done):
            g = base.detach().clone().requires_grad_(True)
            with head_gates(model, g):
                outputs = model(**dev.task.model_inputs(batch))
                loss = dev.task.loss(outputs, batch)
            (grad,) = torch.autograd.grad(loss, g)
            n = int(batch["attention_mask"].sum()) if "attention_mask" in batch else len(rows)
            total += grad.abs().double().numpy()
            weight += n
            _collect(dev, outputs, batch, rows, collected)
    return total, dev.task.metrics(dev.examples, dev.features, collected, dev.config, None), weight


def dev_change(model, dev: DevSet, gates, *, base: dict | None = None, batch_size: int = 16) -> dict:
    """The dev metric with all heads and with ``gates``, JSON-ready (strict JSON: no NaN): {examples, metric, base,
    masked, change, higher_is_better, base_metrics}, and ``undefined`` ({"base" | "masked": reason}) where the
    metric has no value on a side (a regression head whose heads off leave constant predictions: Pearson
    undefined, never a NaN change). ``base``: the unmasked metrics when the caller kept them (one dev pass less)."""
    base = base if base is not None else dev_metrics(model, dev, batch_size=batch_size)
    masked = dev_metrics(model, dev, gates, batch_size=batch_size)
    sides = {"base": _value(base, dev.metric), "masked": _value(masked, dev.metric)}
    undefined = {side: _undefined_reason(metrics, dev.metric) for side, metrics in (("base", base), ("masked", masked))
                 if sides[side] is None and _undefined_reason(metrics, dev.metric)}
    numbers = None not in sides.values()
    out = {"examples": len(dev), "metric": dev.metric, "base": sides["base"], "masked": sides["masked"],
           "change": sides["masked"] - sides["base"] if numbers else None,
           "higher_is_better": dev.higher_is_better,
           "base_metrics": {k: float(v) for k, v in base.items() if _value(base, k) is not None}}
    if undefined:
        out[UNDEFINED] = undefined
    return out


def _value(metrics: dict, name: str) -> float | None:
    """``metrics[name]`` as a finite float; None when it is missing, not a number or not finite."""
    v = metrics.get(name)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        return None
    return float(v)


def _undefined_reason(metrics: dict, name: str) -> str:
    """Why ``metrics`` has no value of ``name``: the task's reason (``metrics["undefined"]``), else "not a number"
    for a NaN or infinite value; "" when the metric is simply not there."""
    reasons = metrics.get(UNDEFINED)
    if isinstance(reasons, dict) and name in reasons:
        return str(reasons[name])
    v = metrics.get(name)
    return f"{name} is {v}" if isinstance(v, float) and not math.isfinite(v) else ""

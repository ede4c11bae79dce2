"""Evaluation inside the training loop: batched forward over the dev features, gathered across
processes (``accelerator.gather_for_metrics``), metrics from the task, and the watch probes."""

from __future__ import annotations

import time

import numpy as np
import torch

from explorer.core.training.batching import IndexDataset, ListBatchSampler, eval_batches


class TrainingCancelled(BaseException):
    """Raised from inside the loop (or from the SIGTERM handler) when a cancel was requested.
    A BaseException, like KeyboardInterrupt, so that ``except Exception`` blocks do not swallow it."""


def eval_loader(accelerator, features, batch_size: int):
    """A prepared DataLoader over ``features`` in length-sorted batches (dynamic padding, no shuffle)."""
    loader = torch.utils.data.DataLoader(IndexDataset(len(features)),
                                         batch_sampler=ListBatchSampler(eval_batches(features.lengths, batch_size)),
                                         collate_fn=features.collate, generator=torch.Generator())
    return accelerator.prepare(loader)


def gather_outputs(accelerator, model, task, features, loader, control=None) -> dict[str, list[np.ndarray]]:
    """Forward every dev row once; returns ``{output name: [array per row, in feature order]}``.

    Token-level outputs (task.token_level_outputs, shape (batch, seq)) are padded across processes
    and cut back to each row's own length. Raises TrainingCancelled when ``control.cancel`` is set.
    """
    n = len(features)
    collected: dict[str, list] = {}
    was_training = model.training
    model.eval()
    try:
        with torch.inference_mode():
            for batch in loader:
                if control is not None and control.cancel:
                    raise TrainingCancelled()
                outputs = model(**task.model_inputs(batch))
                outs = task.eval_outputs(outputs, batch)
                if accelerator.num_processes > 1:
                    outs = {k: accelerator.pad_across_processes(v, dim=1, pad_index=-1e4)
                            if k in task.token_level_outputs else v for k, v in outs.items()}
                idx, outs = accelerator.gather_for_metrics((batch["feature_index"], outs))
                idx = idx.cpu().numpy()
                for name, t in outs.items():
                    arr = t.float().cpu().numpy() if t.is_floating_point() else t.cpu().numpy()
                    rows = collected.setdefault(name, [None] * n)
                    for row, fi in zip(arr, idx):
                        if name in task.token_level_outputs:
                            row = row[:features.lengths[fi]]
                        rows[fi] = row
    finally:
        if was_training:
            model.train()
    return collected


def evaluate(accelerator, model, tokenizer, task, examples, features, loader, config, *, control=None,
             out_dir=None, watch_items=None) -> dict:
    """One evaluation: metrics (dict), seconds, and the watch probes (main process only).

    Returns:
        {"metrics": {...}, "seconds": float, "watch": [...] (only when watch_items)}.
    """
    t0 = time.perf_counter()
    outputs = gather_outputs(accelerator, model, task, features, loader, control)
    metrics = task.metrics(examples, features, outputs, config,
                           out_dir if accelerator.is_main_process else None)
    result = {"metrics": metrics}
    if watch_items and accelerator.is_main_process:
        inner = accelerator.unwrap_model(model)
        was_training = inner.training
        inner.eval()
        try:
            result["watch"] = task.watch(inner, tokenizer, watch_items, config)
        finally:
            if was_training:
                inner.train()
    result["seconds"] = time.perf_counter() - t0
    return result

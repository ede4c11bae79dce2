"""Evaluation inside the training loop: batched forward over the dev features, gathered across
processes (``accelerate.utils.gather_object``, keyed by feature index), metrics from the task, and the watch probes."""

from __future__ import annotations

import bisect
import time
from typing import Callable

import numpy as np
import torch

from explorer.core.errors import Cancelled
from explorer.core.training.batching import IndexDataset, ListBatchSampler, eval_batches
from explorer.core.training.tasks.base import FeatureSet
from explorer.core.models.eval_mode import inference


class EvaluationStopped(Exception):
    """A stop early arrived during an evaluation on a dev sample: it is dropped, and the final evaluation on the
    whole dev set is the run's one evaluation after the stop (a stop never waits for two)."""


def features_of_rows(features: FeatureSet, rows: int) -> int:
    """How many of the first ``features`` belong to the first ``rows`` dev rows (examples): ``rows`` when each row is
    one feature, more when a row is several (a tagging sentence's windows). The features follow their examples in
    order (eval_schedule.can_sample checks it before any sample is taken)."""
    examples = features.examples_of_rows
    if examples is None:
        return min(max(0, rows), len(features))
    return bisect.bisect_left(examples, rows)


def head_features(features: FeatureSet, rows: int) -> FeatureSet:
    """The features of the first ``rows`` dev rows (:func:`features_of_rows`: the dev sample's, see eval_schedule);
    ``raw`` stays the whole set's, whose first rows these are."""
    k = features_of_rows(features, rows)
    examples = features.examples_of_rows
    return FeatureSet(features.lengths[:k], features.collate_rows, list(examples[:k]) if examples is not None else None,
                      features.raw)


def eval_loader(accelerator, features, batch_size: int):
    """A prepared DataLoader over ``features`` in length-sorted batches (dynamic padding, no shuffle)."""
    loader = torch.utils.data.DataLoader(IndexDataset(len(features)),
                                         batch_sampler=ListBatchSampler(eval_batches(features.lengths, batch_size)),
                                         collate_fn=features.collate, generator=torch.Generator())
    return accelerator.prepare(loader)


def _forward_of(accelerator, model):
    """The forward an evaluation calls: in the precision of core.training.precision.evaluation_forward_precision
    (fp32), so the module's own class forward, outside the autocast accelerate puts into a mixed-precision run's
    forward; Classify: dev set computes in fp32 too, so both print the same figure."""
    if accelerator.mixed_precision == "no":
        return model
    inner = accelerator.unwrap_model(model)
    return lambda **inputs: type(inner).forward(inner, **inputs)


def gather_outputs(accelerator, model, task, features, loader, control=None, *,
                   stoppable: bool = False, timing: dict | None = None,
                   on_rows: Callable[[int], None] | None = None) -> dict[str, list[np.ndarray]]:
    """Forward every dev row once; returns ``{output name: [array per row, in feature order]}``.

    Token-level outputs (task.token_level_outputs, shape (batch, seq)) are cut back to each row's own
    length. With several processes each one forwards its shard of the batches and the rows are
    collected from all of them with ``accelerate.utils.gather_object`` keyed by feature index (rows have
    different lengths and the last batches different sizes, which tensor gathers cannot take; rows that
    accelerate repeats to even out the shards land on the same index, so nothing is counted twice).
    Raises Cancelled when ``control.cancel`` is set, and with ``stoppable`` EvaluationStopped when a stop early
    is asked for (both checked between batches, so a request waits for one batch at most). ``timing`` (a dict)
    receives ``rows_per_second`` after the first batch (the first carries one-off costs: kernel choice, caches),
    the rate later evaluations of more rows will run at. ``on_rows(rows done)`` is called after every batch
    (the evaluation's progress).
    """
    n = len(features)
    collected: dict[str, list] = {}
    multi = accelerator.num_processes > 1
    t_first, rows_after, done = None, 0, 0
    forward = _forward_of(accelerator, model)
    with inference(model):
        for batch in loader:
            if t_first is not None:
                rows_after += int(batch["feature_index"].shape[0])
            if control is not None and control.cancel:
                raise Cancelled()
            if stoppable and control is not None and control.stop_requested():
                raise EvaluationStopped()
            outputs = forward(**task.model_inputs(batch))
            outs = task.eval_outputs(outputs, batch)
            idx = batch["feature_index"].cpu().numpy()
            arrays = {name: (t.float() if t.is_floating_point() else t).cpu().numpy() for name, t in outs.items()}
            rows = []
            for r, fi in enumerate(idx):
                row = {}
                for name, arr in arrays.items():
                    v = arr[r]
                    row[name] = v[:features.lengths[fi]] if name in task.token_level_outputs else v
                rows.append((int(fi), row))
            if multi:
                from accelerate.utils import gather_object

                rows = gather_object(rows)
            for fi, row in rows:
                for name, v in row.items():
                    collected.setdefault(name, [None] * n)[fi] = v
            if t_first is None:
                t_first = time.perf_counter()
            done += len(rows)
            if on_rows is not None:
                on_rows(min(done, n))
    if timing is not None and rows_after and t_first is not None:
        timing["rows_per_second"] = rows_after / max(time.perf_counter() - t_first, 1e-9)
    missing = [i for i in range(n) if any(col[i] is None for col in collected.values())]
    if missing:
        raise RuntimeError(f"evaluation lost {len(missing)} of {n} dev rows (first: {missing[:5]})")
    return collected


def evaluate(accelerator, model, tokenizer, task, examples, features, loader, config, *, control=None,
             out_dir=None, watch_items=None, stoppable: bool = False, sample_rows: int = 0, rows: int = 0,
             on_rows: Callable[[int], None] | None = None) -> dict:
    """One evaluation: metrics (dict), seconds, and the watch probes (main process only).

    ``sample_rows`` > 0: the first rows of ``examples`` are the run's dev sample (their features the first features:
    :func:`head_features`); their metrics come back too (``sample_metrics``), for checkpoints/best, which compares
    every evaluation on the sample's rows.
    ``stoppable``: a stop early ends it (EvaluationStopped). ``on_rows(features done)``: after every forward batch.
    ``rows``: the dev rows ``features`` hold (a tagging sentence can be several windows), which ``rows_per_second``
    counts; 0: one row per feature.

    Returns:
        {"metrics": {...}, "seconds": float, "rows_per_second": float (the forward's rate after its first
         batch, in dev rows), "watch": [...] (only when watch_items), "sample_metrics": {...} (only with
         sample_rows)}.
    """
    t0 = time.perf_counter()
    timing: dict = {}
    outputs = gather_outputs(accelerator, model, task, features, loader, control, stoppable=stoppable, timing=timing,
                             on_rows=on_rows)
    forward_seconds = time.perf_counter() - t0
    metrics = task.metrics(examples, features, outputs, config,
                           out_dir if accelerator.is_main_process else None)
    result = {"metrics": metrics}
    if 0 < sample_rows < len(examples):
        head = head_features(features, sample_rows)
        result["sample_metrics"] = task.metrics(examples.head(sample_rows), head,
                                                {k: v[:len(head)] for k, v in outputs.items()}, config, None)
    if watch_items and accelerator.is_main_process:
        inner = accelerator.unwrap_model(model)
        with inference(inner):
            result["watch"] = task.watch(inner, tokenizer, watch_items, config)
    result["seconds"] = time.perf_counter() - t0
    per_feature = timing.get("rows_per_second") or len(features) / max(forward_seconds, 1e-9)
    result["rows_per_second"] = per_feature * rows / len(features) if rows > 0 and len(features) else per_feature
    return result


class EvaluationProgress:
    """The ``evaluating`` events of one evaluation (explorer.core.protocol.events.EvaluatingEvent): one at its start,
    then one every ``every`` seconds while it runs, with the rows forwarded, the rate so far and whether it is the
    final one (``rescoring``: checkpoints/best of ``step`` scored on all dev rows after the final one, best_rescore);
    called with the features done after each batch (evaluation.gather_outputs' ``on_rows``). ``features``: the
    features the ``rows_total`` dev rows are (a tagging sentence can be several windows): the events count dev rows,
    the features done scaled to them; 0: one feature per row."""

    def __init__(self, writer, *, step: int, final: bool, rows_total: int, dev_total: int, every: float = 2.0,
                 rescoring: bool = False, features: int = 0):
        self.writer, self.every = writer, every
        self.scale = rows_total / features if features > 0 else 1.0
        self.fields = {"step": step, "final": final, "rows_total": rows_total, "dev_total": dev_total,
                       **({"rescoring": True} if rescoring else {})}
        self.t0 = time.perf_counter()
        self.last = self.t0
        self._emit(0)

    def __call__(self, features_done: int) -> None:
        rows_done = int(features_done * self.scale)
        now = time.perf_counter()
        if now - self.last >= self.every and rows_done < self.fields["rows_total"]:
            self.last = now
            self._emit(rows_done)

    def _emit(self, rows_done: int) -> None:
        seconds = time.perf_counter() - self.t0
        self.writer.emit("evaluating", **self.fields, rows_done=rows_done, seconds=seconds,
                         rows_per_second=rows_done / seconds if rows_done and seconds > 0 else 0.0)

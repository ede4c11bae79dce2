"""The inspector child's operations on attention heads: one input with heads switched off beside the unmasked result
(``mask_heads``) and head importance with the pruning curve on a dev set (``head_importance``). Registered in
explorer.worker.inspector_ops.OPS; ``state`` is its State (the unmasked results are kept in ``state.mask_bases``).
"""

from __future__ import annotations

from explorer.core.errors import UserError


def mask_base_key(loaded, args: dict) -> tuple:
    """The key of an unmasked result kept for mask_heads: the model and the input as mask_heads names it (``text``,
    ``text_pair``, ``max_seq_length``, ``doc_stride``, ``max_query_length``, ``tau``)."""
    return (id(loaded), str(args.get("text", "")), str(args.get("text_pair", "")), int(args.get("max_seq_length") or 128),
            args.get("doc_stride"), args.get("max_query_length"), float(args.get("tau", 0.0)))


def op_mask_heads(state, args: dict, progress, cancelled):
    """The slot's model on one input with heads (``heads``: [[layer, head], ...]) and whole layers (``layers``)
    switched off, beside the unmasked result (explorer.core.ablation.one_input.mask_input): Masked.to_dict() with
    the model's ``layers`` and ``heads_per_layer``. Inputs: ``text`` (and ``text_pair``: the passage of a QA
    model), ``tau``, ``max_seq_length`` (and a QA model's ``doc_stride``, ``max_query_length``). The unmasked
    result is kept per model and input, so switching other heads off costs one forward of the input. With ``dev``
    (and ``cap``, ``task``) also the dev metric with and without the heads (:func:`_dev_change`)."""
    from explorer.core.ablation.one_input import mask_input
    from explorer.core.attention.gates import gate_tensor, head_layout

    loaded = state.model(args.get("slot", "qa"))
    layout = head_layout(loaded.model)
    gates = gate_tensor(layout, heads=[tuple(p) for p in args.get("heads", [])], layers=args.get("layers", []))
    window = {k: int(args[k]) for k in ("doc_stride", "max_query_length") if args.get(k) is not None}
    key = mask_base_key(loaded, args)
    with state.lock:
        base = state.mask_bases.get(key)
    result = mask_input(loaded, gates, text=str(args.get("text", "")), text_pair=str(args.get("text_pair", "")),
                        tau=float(args.get("tau", 0.0)), base=base, max_seq_length=int(args.get("max_seq_length") or 128),
                        **window)
    state.keep_mask_base(key, result.base)
    out = {**result.to_dict(), "layers": layout.layers, "heads_per_layer": layout.heads}
    if args.get("dev"):
        out["dev"] = _dev_change(state, loaded, gates, args)
    return out


def table_settings(args: dict) -> dict:
    """The request's ``settings`` (a dev page's table settings: text and label columns, encoding, ...) that are
    TrainConfig fields, the way load_dev_set reads the file; other keys are dropped."""
    import dataclasses

    from explorer.core.specs.train_config import TrainConfig

    names = {f.name for f in dataclasses.fields(TrainConfig)} - {"task", "dev", "dev_cap", "max_seq_length"}
    return {k: v for k, v in dict(args.get("settings") or {}).items() if k in names}


def _dev_change(state, loaded, gates, args: dict) -> dict:
    """The dev metric with all heads and with ``gates`` on the first ``cap`` examples of ``dev`` read as ``task``
    (default: the task of the model's head) with the table ``settings``; the unmasked metrics are kept per model
    and dev set."""
    import json

    from explorer.core.ablation.dev import dev_change, load_dev_set
    from explorer.core.specs.tasks import task_for_model

    task = args.get("task") or task_for_model(loaded.task)
    window = {k: int(args[k]) for k in ("doc_stride", "max_query_length") if args.get(k) is not None}
    settings = {**table_settings(args), **window}
    dev = load_dev_set(loaded.model, loaded.tokenizer, task, str(args["dev"]), cap=int(args.get("cap", 200)),
                       max_seq_length=args.get("max_seq_length"), settings=settings)
    key = (id(loaded), "dev", str(args["dev"]), task, int(args.get("cap", 200)),
           json.dumps(settings, sort_keys=True, default=str), args.get("max_seq_length"))
    with state.lock:
        base = state.mask_bases.get(key)
    change = dev_change(loaded.model, dev, gates, base=base)
    state.keep_mask_base(key, change["base_metrics"])
    return {"source": str(args["dev"]), **change}


def op_head_importance(state, args: dict, progress, cancelled):
    """Head importance of the slot's model on a dev file (``dev``, its first ``cap`` examples, read as ``task``:
    default the task of the model's head) and the pruning curve (``steps`` points), with progress in dev batches
    over all passes and cancel (checked after every batch; ``iterative``: the heads ranked again after each step):
    explorer.core.ablation.importance.importance_report's dict plus the model's ``layers`` and ``heads_per_layer``."""
    from explorer.core.ablation.importance import importance_report
    from explorer.core.attention.gates import head_layout
    from explorer.core.specs.tasks import task_for_model

    loaded = state.model(args.get("slot", "qa"))
    task = args.get("task") or task_for_model(loaded.task)
    if not args.get("dev"):
        raise UserError("choose a dev file to score the heads on")
    if task is None:
        raise UserError(f"no task reads a {loaded.task} head")
    window = {k: int(args[k]) for k in ("doc_stride", "max_query_length") if args.get(k) is not None}
    from explorer.core.errors import Cancelled

    def step(done: int, total: int) -> None:   # after each dev batch
        if cancelled():
            raise Cancelled()
        progress(done, total)

    report = importance_report(loaded.model, loaded.tokenizer, task, str(args["dev"]), cap=int(args.get("cap", 200)),
                               steps=int(args.get("steps", 10)), iterative=bool(args.get("iterative", False)),
                               max_seq_length=args.get("max_seq_length"),
                               settings=window, progress=step)
    layout = head_layout(loaded.model)
    return {**report, "layers": layout.layers, "heads_per_layer": layout.heads}

"""`bert-explorer heads`: switch attention heads off and see, printed as JSON.

``heads mask``: one input with the chosen heads (``--mask L.H``) or whole layers (``--mask-layer L``) switched
off, beside the unmasked result: the span table's n-best, score_diff and the tau decision (QA), the class
probabilities (classification) or the tags (token tagging); with ``--dev`` also the dev metric with and without
them. ``heads importance``: head importance on a capped dev set (gradient of the dev loss with respect to a gate
per head, per-layer normalised; Michel et al. 2019) and the "prune the least important heads" curve (the heads
ranked once, or with ``--iterative`` ranked again after each step).
Layers and heads are counted from 1, as on the Attention page (explorer.core.attention.head_labels): ``--mask 5.3``
is head 3 of layer 5. In the JSON, the index pairs (``masked_heads``, ``least_important_first``) and the rows and
columns of the importance matrices are 0-based torch indexes; the ``..._labels`` fields name the same heads as a
person counts them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from explorer.commands.window_args import add_tokenizer_argument, add_window_arguments
from explorer.core.attention import head_labels
from explorer.core.errors import UserError, exits_on_user_error


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="heads_command", required=True, metavar="{mask,importance}")
    mask = sub.add_parser("mask", help="one input with heads or layers switched off, beside the unmasked result",
                          description="one input with heads or layers switched off, beside the unmasked result")
    _common(mask)
    mask.add_argument("--text", default="", help="the sentence (classification, tagging) or the question (QA)")
    mask.add_argument("--text-pair", default="", help="the passage (QA) or the second sentence of a pair")
    mask.add_argument("--mask", action="append", default=[], metavar="L.H",
                      help="a head to switch off: layer.head counted from 1, e.g. 5.3 = head 3 of layer 5 "
                           "(repeat the flag for more)")
    mask.add_argument("--mask-layer", action="append", default=[], metavar="L",
                      help="a whole layer's heads to switch off, counted from 1 (repeat the flag for more)")
    mask.add_argument("--tau", type=float, default=0.0, help="QA: answer iff score_diff > tau (default: %(default)s)")
    mask.add_argument("--dev", default="", help="also score this dev file with and without the masked heads")
    imp = sub.add_parser("importance", help="head importance on a dev set and the pruning curve",
                         description="head importance (gradient of the dev loss w.r.t. a gate per head) and the "
                                     "dev metric with the least important heads masked")
    _common(imp)
    imp.add_argument("--dev", required=True, help="the dev file (the task's format: SQuAD JSON, TSV/CSV, CoNLL)")
    imp.add_argument("--steps", type=int, default=10,
                     help="points of the pruning curve: 100/STEPS %% of the heads masked more at each "
                          "(default: %(default)s; 0 = no curve)")
    imp.add_argument("--iterative", action="store_true",
                     help="prune iteratively (Michel et al. 2019): estimate the importance again with the heads "
                          "masked so far before masking the next ones (one forward and backward pass per point) "
                          "instead of ranking the heads once")


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", required=True, help="a fine-tuned checkpoint folder (a run's checkpoints/best) "
                                                       "or a hub id")
    add_tokenizer_argument(parser)
    parser.add_argument("--task", default="",
                        help="the task the dev file is read as (default: a run checkpoint's own task, else the first task "
                             "of the checkpoint's head)")
    parser.add_argument("--cap", type=int, default=200, help="dev examples scored (default: %(default)s; 0 = all)")
    add_window_arguments(parser)
    parser.add_argument("--batch-size", type=int, default=16, help="dev rows per forward (default: %(default)s)")
    parser.add_argument("--out", default="", help="also write the JSON to this file")


def parse_head(text: str) -> tuple[int, int]:
    """``--mask`` ``"L.H"`` counted from 1 -> the 0-based (layer, head); UserError naming the flag value otherwise."""
    try:
        return head_labels.parse_head(text)
    except head_labels.HeadLabelError as exc:
        raise UserError(f"--mask {exc}") from None


def parse_layer(text: str) -> int:
    """``--mask-layer`` ``"L"`` counted from 1 -> the 0-based layer; UserError naming the flag value otherwise."""
    try:
        return head_labels.parse_layer(text)
    except head_labels.HeadLabelError as exc:
        raise UserError(f"--mask-layer {exc}") from None


def _load(args):
    """(LoadedModel, task name, window settings: dict of max_seq_length and, for QA, doc_stride and
    max_query_length: explicit flags, else a run checkpoint's own, else the task's defaults)."""
    from explorer.commands.explain import head_of
    from explorer.core.models.loading import load_model
    from explorer.core.specs.heads import Inputs, for_model_head
    from explorer.core.specs.tasks import get_task_facts, task_for_model

    head = head_of(args.model)
    if head is None:
        raise UserError(f"{args.model!r} records no model head in its config.json; heads are masked on a "
                        "fine-tuned checkpoint")
    from explorer.core.models.checkpoint_windows import run_task_of

    task = args.task or task_for_model(head, current=run_task_of(args.model))
    if task is None:
        raise UserError(f"{args.model!r}: no task reads a {head} head")
    loaded = load_model(args.model, task=head, tokenizer=args.tokenizer)
    if loaded.tokenizer_note:
        print(f"note: {loaded.tokenizer_note}", file=sys.stderr)
    if for_model_head(head).inputs is Inputs.QUESTION_PASSAGE:
        from explorer.core.models.checkpoint_windows import resolve_window_settings

        window = resolve_window_settings(args.model, max_seq_length=args.max_seq_length,
                                         doc_stride=args.doc_stride, max_query_length=args.max_query_length)
        return loaded, task, {"max_seq_length": window.max_seq_length, "doc_stride": window.doc_stride,
                              "max_query_length": window.max_query_length}
    return loaded, task, {"max_seq_length": args.max_seq_length or get_task_facts(task).default_max_seq_length}


def _write(args, payload: dict) -> None:
    text = json.dumps(payload, indent=1)
    print(text)
    if args.out:
        try:
            Path(args.out).parent.mkdir(parents=True, exist_ok=True)
            Path(args.out).write_text(text + "\n", encoding="utf-8")
        except OSError as exc:
            raise UserError(f"cannot write --out {args.out}: {exc}") from None


@exits_on_user_error
def run(args: argparse.Namespace) -> int:
    from explorer.core.attention.gates import HeadGateError

    try:
        payload = _mask(args) if args.heads_command == "mask" else _importance(args)
    except HeadGateError as exc:
        raise UserError(str(exc)) from None
    _write(args, payload)
    return 0


def _mask(args) -> dict:
    from explorer.core.ablation.dev import dev_change
    from explorer.core.ablation.one_input import mask_input
    from explorer.core.attention.gates import gate_tensor, head_layout

    if not args.mask and not args.mask_layer:
        raise UserError("name the heads to switch off: --mask L.H and/or --mask-layer L")
    heads, layers = [parse_head(h) for h in args.mask], [parse_layer(x) for x in args.mask_layer]
    loaded, task, window = _load(args)
    model, tok = loaded.model, loaded.tokenizer
    gates = gate_tensor(head_layout(model), heads=heads, layers=layers)
    result = mask_input(loaded, gates, text=args.text, text_pair=args.text_pair, tau=args.tau, **window)
    payload = {"model": args.model, "task": task, **result.to_dict()}
    if args.dev:
        change = dev_change(model, _dev_set(model, tok, task, args, window), gates, batch_size=args.batch_size)
        payload["dev"] = {"source": args.dev, **change}
    return payload


def _dev_set(model, tokenizer, task: str, args, window: dict):
    from explorer.core.ablation.dev import load_dev_set

    return load_dev_set(model, tokenizer, task, args.dev, cap=args.cap, max_seq_length=window["max_seq_length"],
                        settings={k: v for k, v in window.items() if k != "max_seq_length"})


def _importance(args) -> dict:
    from explorer.core.ablation.importance import importance_report

    loaded, task, window = _load(args)
    report = importance_report(loaded.model, loaded.tokenizer, task, args.dev, cap=args.cap, steps=args.steps,
                               iterative=args.iterative,
                               max_seq_length=window["max_seq_length"], batch_size=args.batch_size,
                               settings={k: v for k, v in window.items() if k != "max_seq_length"})
    return {"model": args.model, **report}

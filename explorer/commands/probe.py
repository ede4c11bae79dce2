"""`bert-explorer probe`: one question + passage (``--context`` or ``--passage``) -> answer, n-best, null score, tau decision, attention
block flow per layer, and the by-hand check of the output layer (explorer.core.qa.probe)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from explorer.commands.window_args import add_device_argument, add_tokenizer_argument, add_window_arguments
from explorer.core.errors import UserError, as_user_error, exits_on_user_error
from explorer.core.qa.probe_text import render_text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", default="bundled:minilm",
                        help="hub id, local folder (save_pretrained / run checkpoint) or bundled:minilm "
                             "(default: %(default)s)")
    add_tokenizer_argument(parser)
    add_device_argument(parser)
    parser.add_argument("--question", required=True, help="the question")
    group = parser.add_mutually_exclusive_group(required=True)
    # --context is SQuAD's name for the passage (its JSON field), the one a person reaches for; --passage, the
    # name the report prints, is kept as another name of the same option
    group.add_argument("--context", "--passage", dest="passage", metavar="TEXT",
                       help="the passage (SQuAD's context) to answer from; --passage is the same option")
    group.add_argument("--context-file", "--passage-file", dest="passage_file", metavar="FILE",
                       help="read the passage (context) from this UTF-8 text file; --passage-file is the same option")
    parser.add_argument("--tau", type=float, default=0.0,
                        help="SQuAD 2.0 threshold: answer iff score_diff > tau (default: %(default)s)")
    parser.add_argument("--json", action="store_true", help="print a machine-readable JSON dump instead of text")
    parser.add_argument("--attentions", action="store_true",
                        help="also print the block flow of every head and each question token's share of "
                             "attention per block (the per-layer table is always printed)")
    parser.add_argument("--no-flow", action="store_true",
                        help="skip the attention forward (no block flow table; SDPA only)")
    parser.add_argument("--html", metavar="FILE",
                        help="also write the attention of the best window as one self-contained interactive HTML "
                             "page (head view and model view, layer and head pickers; opens offline)")
    parser.add_argument("--n-best-size", dest="n_best", type=int, default=5,
                        help="n-best span candidates to print (default: %(default)s)")
    add_window_arguments(parser)
    parser.add_argument("--max-answer-length", type=int, default=30)
    from explorer.core.qa.decode_rules import DECODE_RULES, DEFAULT_RULE

    parser.add_argument("--decode-rule", choices=tuple(DECODE_RULES), default=DEFAULT_RULE,
                        help="how spans are searched: " + "; ".join(f"{k}: {v}" for k, v in DECODE_RULES.items())
                             + ". The other rule's answer is printed where it differs (default: %(default)s)")


def _write_html(result, path: str, model: str, report: str = "") -> None:
    """The best window's attention as one HTML page (explorer.core.attention.html_export) with ``report`` (the
    printed report: answer, span scores, null_score, score_diff, τ, block flow) above its views; a note on stderr."""
    from explorer.core.attention.flow import AttentionShapeError
    from explorer.core.attention.html_export import write_attention_html

    if not result.attention:
        raise UserError(f"--html: this model returned no attention weights ({result.attention_note or 'no reason given'})")
    w = result.best_window
    weights = result.attention_weights(w.index)
    try:
        write_attention_html(path, weights, w.tokens, w.blocks,
                             title=f"{model}: {result.question} (window {w.index + 1} of {len(result.windows)})",
                             report=report)
    except AttentionShapeError as exc:
        raise UserError(f"--html {path}: {exc}") from None
    except OSError as exc:
        raise UserError(f"cannot write --html {path}: {exc}") from None
    print(f"wrote the attention of window {w.index + 1} to {path}", file=sys.stderr)


@exits_on_user_error
def run(args: argparse.Namespace) -> int:
    from explorer.core.models.loading import ModelSourceError, load_model, source_other_task_error
    from explorer.core.qa.probe import ProbeError, probe

    wrong = source_other_task_error(args.model, "qa")    # a classifier: say so, not a window-settings error
    if wrong:
        raise ModelSourceError(wrong)   # a UserError: "error: ..." on stderr, exit 2

    passage = args.passage
    if args.passage_file:
        try:
            passage = Path(args.passage_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UserError(f"cannot read --passage-file {args.passage_file}: {exc}") from None
    try:
        loaded = load_model(args.model, task="qa", refuse_other_task=True, tokenizer=args.tokenizer)
    except ModelSourceError as exc:
        raise as_user_error(exc) from None
    from explorer.core.devices import place

    where = place(loaded.model, args.device)
    if where != "cpu":
        print(f"running on {where}", file=sys.stderr)
    from explorer.core.models.checkpoint_windows import resolve_window_settings

    window = resolve_window_settings(args.model, max_seq_length=args.max_seq_length, doc_stride=args.doc_stride,
                                     max_query_length=args.max_query_length)
    args.max_seq_length, args.doc_stride, args.max_query_length = (window.max_seq_length, window.doc_stride,
                                                                   window.max_query_length)
    if window.source:
        print(f"window settings: {window.describe()}", file=sys.stderr)
    report = getattr(loaded, "load_report", None)
    if report is not None and report.warning():
        print(f"warning: {args.model}: {report.warning()}", file=sys.stderr)
    elif loaded.head_initialised:
        print(f"warning: the QA head of {args.model} is untrained (freshly initialised, never fine-tuned for "
              "question answering): its answers and scores mean nothing until you fine-tune it.", file=sys.stderr)
        if loaded.head_note:
            print(f"  {loaded.head_note}", file=sys.stderr)
    if args.html and args.no_flow:
        raise UserError("--html needs the attention forward: drop --no-flow")
    try:
        result = probe(loaded, args.question, passage, tau=args.tau, attentions=not args.no_flow,
                       keep_attentions="float32" if args.html else None, max_seq_length=args.max_seq_length, doc_stride=args.doc_stride,
                       max_query_length=args.max_query_length, max_answer_length=args.max_answer_length,
                       decode_rule=args.decode_rule)
    except (ProbeError, ValueError) as exc:
        raise as_user_error(exc) from None
    tok = loaded.tokenizer
    special = f"{tok.cls_token}/{tok.sep_token}" if tok.cls_token and tok.sep_token else "special"
    if args.html:
        _write_html(result, args.html, loaded.describe(),
                    render_text(result, top=args.n_best, per_head=args.attentions, special_label=special))
    if args.json:
        dump = result.to_dict()
        dump["model"] = loaded.describe()
        if report is not None:
            dump["load_report"] = report.to_dict()
        if not args.attentions and "attention" in dump:
            for a in dump["attention"]:
                a.pop("flow", None)
                a.pop("token_share", None)
        print(json.dumps(dump, ensure_ascii=False))
        return 0
    print(loaded.describe())
    print(render_text(result, top=args.n_best, per_head=args.attentions, special_label=special))
    return 0

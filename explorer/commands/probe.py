"""`bert-explorer probe`: one question + passage -> answer, n-best, null score, tau decision, attention
block flow per layer, and the by-hand check of the output layer (explorer.core.qa.probe)."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from explorer.commands.window_args import add_device_argument, add_tokenizer_argument, add_window_arguments
from explorer.core.errors import UserError, as_user_error, exits_on_user_error


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", default="bundled:minilm",
                        help="hub id, local folder (save_pretrained / run checkpoint) or bundled:minilm "
                             "(default: %(default)s)")
    add_tokenizer_argument(parser)
    add_device_argument(parser)
    parser.add_argument("--question", required=True, help="the question")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--passage", help="the passage text")
    group.add_argument("--passage-file", help="read the passage from this UTF-8 text file")
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


def _fmt(x: float) -> str:
    return f"{x:.2f}" if math.isfinite(x) else str(x)


def render_text(result, *, top: int = 5, per_head: bool = False, special_label: str = "[CLS]/[SEP]") -> str:
    """The human-readable report of a ProbeResult (what `bert-explorer probe` prints). Windows, layers and
    heads are numbered from 1, as in the app."""
    from explorer.core.attention.flow import BLOCKS, flow_table_lines

    lines = [f"Q: {result.question}"]
    d = result.decision()
    if d.answer:
        best = result.nbest[0]
        lines.append(f'answer: "{best.text}"  (window {best.window_index + 1} of {len(result.windows)}, tokens {best.start_token}..'
                     f'{best.end_token}, chars {best.start_char}..{best.end_char})')
    else:
        lines.append("answer: (no answer)" + (f'  best span "{result.nbest[0].text}" loses to the null score'
                                               if result.nbest else "  (no valid span)"))
    lines.append(f"n-best (top {min(top, len(result.nbest))} of {len(result.nbest)}):")
    for rank, c in enumerate(result.nbest[:top], 1):
        lines.append(f'  {rank}. "{c.text}"  S.T_i + E.T_j = {c.start_logit:.2f} + {c.end_logit:.2f} = {c.score:.2f}'
                     f"  (window {c.window_index + 1}, tokens {c.start_token}..{c.end_token})")
    lines.append(f"null_score = S.C + E.C = {result.null_start_logit:.2f} + {result.null_end_logit:.2f} = "
                 f"{result.null_score:.2f}  (window {result.decoding.null_window + 1}; minimum over "
                 f"{len(result.windows)} window{'s' if len(result.windows) != 1 else ''})")
    if result.nbest:
        b = result.nbest[0]
        lines.append(f"best span score = S.T_i + E.T_j = {b.start_logit:.2f} + {b.end_logit:.2f} = {b.score:.2f}")
    else:
        lines.append("best span score = -inf (no valid span in the passage)")
    lines.append(f"score_diff = best_non_null_score - null_score = {result.score_diff:+.2f}")
    lines.append(f"tau = {d.tau:+.2f}: {d.inequality}")
    other = result.other_rule_answer()
    if other is not None:
        rule, text, diff = other
        lines.append(f"decode rule {result.decode_rule}; under {rule} the answer differs: "
                     f"{repr(text) if text else 'no answer'} (score_diff {diff:+.2f})")
    if result.attention:
        w = result.best_window.index
        att = result.attention[w]
        lines.append(f"attention block flow, mean over {att.num_heads} heads (window {w + 1}; share of each "
                     "from-token's attention, averaged over the block's tokens):")
        lines.extend(flow_table_lines(att.flow_mean, special_label=special_label))
        if per_head:
            lines.append("per head: question -> passage / passage -> question / question -> special")
            for layer in range(att.num_layers):
                cells = "  ".join(f"h{h + 1}: {att.flow[layer, h, 0, 1]:.2f}/{att.flow[layer, h, 1, 0]:.2f}/"
                                  f"{att.flow[layer, h, 0, 2]:.2f}" for h in range(att.num_heads))
                lines.append(f"layer {layer + 1:2d}: {cells}")
            lines.append(f"per question token, share of attention to {' / '.join(BLOCKS)} "
                         "(mean over layers and heads):")
            win = result.windows[w]
            for i, (t, blk) in enumerate(zip(win.tokens, win.blocks)):
                if blk == "question":
                    s = att.token_share[i]
                    lines.append(f"  {t:>12s}  {s[0]:.3f} / {s[1]:.3f} / {s[2]:.3f}")
    elif getattr(result, "attention_note", ""):
        lines.append(f"attention: not available ({result.attention_note})")
    if result.byhand_max_abs_diff is not None:
        lines.append(f"by-hand check: |T_i.W[k] + b[k] - model logit| max = {result.byhand_max_abs_diff:.1e} "
                     "(S = qa_outputs row 0 vs start_logits, E = row 1 vs end_logits, all windows)")
    else:
        lines.append(f"by-hand check: not available ({result.byhand_note})")
    lines.append(f"windows: {len(result.windows)}; tokens: {', '.join(str(len(w)) for w in result.windows)}; "
                 f"{result.seconds * 1000:.0f} ms")
    return "\n".join(lines)


def _write_html(result, path: str, model: str) -> None:
    """The best window's attention as one HTML page (explorer.core.attention.html_export); a note on stderr."""
    from explorer.core.attention.flow import AttentionShapeError
    from explorer.core.attention.html_export import write_attention_html

    if not result.attention:
        raise UserError(f"--html: this model returned no attention weights ({result.attention_note or 'no reason given'})")
    w = result.best_window
    weights = result.attention_weights(w.index)
    try:
        write_attention_html(path, weights, w.tokens, w.blocks,
                             title=f"{model}: {result.question} (window {w.index + 1} of {len(result.windows)})")
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
    if args.html:
        _write_html(result, args.html, loaded.describe())
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
    tok = loaded.tokenizer
    special = f"{tok.cls_token}/{tok.sep_token}" if tok.cls_token and tok.sep_token else "special"
    print(loaded.describe())
    print(render_text(result, top=args.n_best, per_head=args.attentions, special_label=special))
    return 0

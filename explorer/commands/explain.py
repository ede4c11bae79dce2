"""`bert-explorer explain`: token attributions of one input for any head (explorer.core.explain.attribution), written
as JSON: tokens, attributions (one per token), target, target_value f(input), baseline_value f(baseline),
completeness_gap (sum of attributions minus their difference), method and steps; the same numbers as the
app's Explain page."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from explorer.cli_vocabulary import add_table_arguments
from explorer.commands.window_args import add_device_argument, add_tokenizer_argument
from explorer.core.errors import UserError, exits_on_user_error
from explorer.core.specs.heads import model_heads

HEAD_CHOICES = model_heads()   # load_model's heads (explorer.core.specs.heads)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from explorer.core.explain.attribution import DEFAULT_STEPS, MAX_STEPS

    parser.add_argument("--model", required=True,
                        help="a fine-tuned checkpoint folder (a run's checkpoints/best), a hub id or bundled:minilm")
    add_tokenizer_argument(parser)
    parser.add_argument("--head", choices=HEAD_CHOICES, default=None,
                        help="the model head to load (default: the head recorded in the checkpoint's config.json)")
    parser.add_argument("--text", default=None,
                        help="text A: the sentence, the first sentence of a pair, the question (QA) or the "
                             "context (multiple choice); or give --data and --row")
    parser.add_argument("--data", default=None,
                        help="a table (or a .txt, one text per line) read as predict reads it: the input is its "
                             "row --row, from the text columns predict would use (--text-columns to choose)")
    parser.add_argument("--row", type=int, default=1, help="with --data: the 1-based data row (default 1)")
    add_table_arguments(parser, text_help="with --data; default: the run's, or the usual names, as predict")
    parser.add_argument("--text-pair", default="",
                        help="text B: the second sentence, the passage (QA) or the start of every ending "
                             "(multiple choice, may be empty)")
    parser.add_argument("--ending", action="append", default=[],
                        help="multiple choice: one candidate ending (repeat the flag for each)")
    parser.add_argument("--target", default="",
                        help="what to explain: a class or tag name or index (its logit; multiple choice: that "
                             "ending against the others), 'margin' (the predicted class against the runner-up), "
                             "'margin:CLASS', 'score' (regression), 'start' / 'end' / 'span' (QA), 'score_diff' "
                             "(QA: the answer-or-abstain decision, best span score - s_null, compared with τ; the "
                             "JSON's details name the words that pushed toward answering and toward no answer). "
                             "Default: the predicted class / ending / tag, the score, the QA span")
    parser.add_argument("--token", type=int, default=None,
                        help="token tagging: the token position to explain (default 1, the first after [CLS]); "
                             "QA: the start token (default: the best start)")
    parser.add_argument("--end", type=int, default=None, help="QA: the end token (default: the best end)")
    parser.add_argument("--method", choices=("ig", "gxi"), default="ig",
                        help="ig: integrated gradients with a [PAD] baseline; gxi: gradient x input "
                             "(default: %(default)s)")
    parser.add_argument("--steps", type=int, default=DEFAULT_STEPS,
                        help=f"integration steps of ig, 1..{MAX_STEPS} (default: %(default)s)")
    parser.add_argument("--max-answer-length", type=int, default=30,
                        help="QA target score_diff: the longest span in tokens (default: %(default)s)")
    parser.add_argument("--merge-words", action="store_true", help="sum the word pieces of each word into one row")
    parser.add_argument("--max-seq-length", type=int, default=None,
                        help="tokens kept (the longer text is truncated; QA: the passage). Default: the task's "
                             "(384 for QA, 128 for the others), as the app's Explain page")
    add_device_argument(parser)
    parser.add_argument("--out", required=True, help="the JSON file to write")


def head_of(source: str) -> str | None:
    """The model head recorded in a local checkpoint's config.json (explorer.core.specs.heads.recognise), or None."""
    from explorer.core.errors import ModelSourceError
    from explorer.core.models.sources import resolve_source
    from explorer.core.specs.heads import recognise

    try:
        head = recognise(resolve_source(source))
    except ModelSourceError:
        return None
    return head.model_head if head is not None else None


def row_input(args: argparse.Namespace) -> tuple[str, str, list[str]]:
    """(text, text pair, endings) of row ``--row`` of ``--data``, read by predict's reader with its flags and its
    choice of text columns (explorer.core.predict: the run's, else the usual names; QA: question, context;
    multiple choice: sent1, sent2, ending0..3).

    Raises:
        UserError: no such row, an unreadable file or column (the message names them).
    """
    from explorer.core.predict.engine import resolve_text_columns
    from explorer.core.predict.facts import checkpoint_facts
    from explorer.core.predict.reading import iter_rows, text_of
    from explorer.core.specs.heads import Inputs

    if args.row < 1:
        raise UserError(f"--row {args.row}: rows count from 1")
    facts = checkpoint_facts(args.model)
    no_header = args.no_header if args.no_header is not None else bool(facts.run_config.get("no_header"))
    info, rows = iter_rows(args.data, args.encoding, start=args.row - 1, no_header=no_header)
    row = next(rows, None)
    if row is None:
        raise UserError(f"{args.data}: no data row {args.row}")
    if row.error:
        raise UserError(row.error)
    texts = [text_of(row.values.get(c)) for c in resolve_text_columns(info, facts, args.text_columns)]
    if facts.spec.inputs is Inputs.CHOICES:
        return texts[0], texts[1] if len(texts) > 1 else "", texts[2:]
    return texts[0], texts[1] if len(texts) > 1 else "", []


@exits_on_user_error
def run(args: argparse.Namespace) -> int:
    from explorer.core.devices import place
    from explorer.core.explain.decision import explain_any
    from explorer.core.models.loading import load_model

    head = args.head or head_of(args.model)
    if head is None:
        raise UserError(f"{args.model!r} records no model head in its config.json; pass --head "
                        f"({', '.join(HEAD_CHOICES)})")
    from explorer.core.specs.tasks import get_task_facts, task_for_model

    task = task_for_model(head)
    max_seq_length = args.max_seq_length or (get_task_facts(task).default_max_seq_length if task else 128)
    loaded = load_model(args.model, task=head, tokenizer=args.tokenizer)
    place(loaded.model, args.device)
    if loaded.tokenizer_note:
        print(f"note: {loaded.tokenizer_note}", file=sys.stderr)
    if loaded.head_initialised:
        print(f"warning: the {head} head of {args.model} is freshly initialised (never fine-tuned): its "
              "attributions explain random outputs", file=sys.stderr)
    text, pair, endings = args.text, args.text_pair, list(args.ending or [])
    if args.data:
        text, pair, endings = row_input(args)
    elif text is None:
        raise UserError("give the input: --text (with --text-pair / --ending as the head needs), or --data FILE "
                        "--row N")
    result = explain_any(loaded.model, loaded.tokenizer, text, pair, endings=endings or None,
                         target=args.target or None, token=args.token, end=args.end, method=args.method,
                         steps=args.steps, merge_words=args.merge_words, max_seq_length=max_seq_length,
                         max_answer_length=args.max_answer_length)
    out = Path(args.out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result.to_dict(), indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot write --out {out}: {exc}") from None
    line = result.completeness_line()
    print(f"{result.target.description}: {line.removesuffix(f'. {result.warning}') if result.warning else line}")
    print(f"wrote {out} ({len(result.tokens)} {'words' if result.merged else 'tokens'}, {result.method})")
    for key, words in (("toward_answer", "toward answering"), ("toward_no_answer", "toward no answer")):
        if key in result.details:
            print(f"pushed {words}: " + (", ".join(f"{t} {v:+.3g}" for t, v in result.details[key]) or "none"))
    if result.warning:
        print(f"warning: {result.warning}", file=sys.stderr)
    return 0

"""`bert-explorer layer-probes`: a logistic-regression probe on every layer of the base model and of the fine-tuned
checkpoint (explorer.core.probing), for a token label (the entity tags of a CoNLL file) or a sentence label (the
run's own classes), accuracy per layer with a t interval over seeds; JSON with both curves.

Example::

    bert-explorer layer-probes --model runs/sst2/checkpoints/best --labels sentences --out probes.json
    bert-explorer layer-probes --model runs/sst2/checkpoints/best --labels tokens --data conll2003/dev.txt
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from explorer.commands.window_args import add_device_argument, add_tokenizer_argument
from explorer.core.errors import UserError, as_user_error, exits_on_user_error


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from explorer.core.probing.linear import TEST_FRACTION
    from explorer.core.probing.runner import SENTENCE_CAP, TOKEN_CAP
    from explorer.core.probing.states import POOLINGS
    from explorer.core.probing.study import LABEL_KINDS

    parser.add_argument("--model", required=True, help="the fine-tuned checkpoint (a run's checkpoints/best)")
    parser.add_argument("--base", default="",
                        help="the model it was fine-tuned from (default: the run's config.json 'model'); 'none' "
                             "probes the checkpoint alone")
    add_tokenizer_argument(parser)
    parser.add_argument("--labels", choices=tuple(LABEL_KINDS), required=True,
                        help="; ".join(f"{k}: {v}" for k, v in LABEL_KINDS.items()))
    parser.add_argument("--data", default="",
                        help="tokens: a CoNLL or JSONL tagging file (required); sentences: a file of the run's task "
                             "(default: the run's dev file, else its training file)")
    parser.add_argument("--cap", type=int, default=0,
                        help=f"the first N sentences (tokens, default {TOKEN_CAP}) or texts (sentences, default "
                             f"{SENTENCE_CAP}); 0 = the default")
    parser.add_argument("--seeds", type=int, default=3, help="train / test splits, one per seed (default 3)")
    parser.add_argument("--test-fraction", type=float, default=TEST_FRACTION,
                        help="share of the sentences held out for scoring each probe (default %(default)s)")
    parser.add_argument("--pooling", choices=POOLINGS, default="mean",
                        help="sentences: the text's vector per layer, the mean of its tokens or the first token's "
                             "(default %(default)s)")
    parser.add_argument("--max-seq-length", type=int, default=128)
    add_device_argument(parser)
    parser.add_argument("--out", default="", help="write the JSON here too")
    parser.add_argument("--json", action="store_true", help="print the JSON on stdout instead of the table")


def table_lines(study) -> list[str]:
    """The text report: accuracy per layer (percent, ± half the interval) of each curve, and the change."""
    names = [c.name for c in study.curves]
    out = [f"{study.what}: {study.n_rows} rows from {study.n_sentences} sentences of {study.data}; "
           f"{len(study.seeds)} splits, {100 * study.test_fraction:.0f}% held out; majority class "
           f"{100 * study.majority:.1f}%",
           "layer  " + "  ".join(f"{n:>22}" for n in names) + ("   change" if len(names) > 1 else "")]
    change = study.change()
    for k, layer in enumerate(study.curves[0].layers):
        cells = []
        for c in study.curves:
            half = (c.high[k] - c.low[k]) / 2 if c.high[k] == c.high[k] else float("nan")
            cells.append(f"{100 * c.mean[k]:>14.1f} ± {100 * half:4.1f}" if half == half else
                         f"{100 * c.mean[k]:>22.1f}")
        extra = f"  {100 * change[k]:+6.1f}" if change else ""
        out.append(f"{'emb' if layer == 0 else layer:>5}  " + "  ".join(f"{x:>22}" for x in cells) + extra)
    out += [f"note: {n}" for n in study.notes]
    return out


@exits_on_user_error
def run(args: argparse.Namespace) -> int:
    from explorer.core.probing.runner import run_layer_probes

    def progress(done, total):
        print(f"\rprobes {done}/{total}", end="" if done < total else "\n", file=sys.stderr, flush=True)

    try:
        study = run_layer_probes(args.model, labels=args.labels, base=args.base, data=args.data, cap=args.cap,
                                 seeds=args.seeds, test_fraction=args.test_fraction, pooling=args.pooling,
                                 max_seq_length=args.max_seq_length, tokenizer=args.tokenizer, device=args.device,
                                 progress=progress)
    except ValueError as exc:     # a library's complaint about the data (scikit-learn), as a user error
        raise as_user_error(exc) from None
    dump = json.dumps(study.to_dict(), indent=1)
    if args.out:
        try:
            Path(args.out).parent.mkdir(parents=True, exist_ok=True)
            Path(args.out).write_text(dump + "\n", encoding="utf-8")
        except OSError as exc:
            raise UserError(f"cannot write --out {args.out}: {exc}") from None
    print(dump if args.json else "\n".join(table_lines(study)))
    return 0

"""`bert-explorer label-issues`: which given labels look wrong, from out-of-fold predictions (cleanlab).

Example::

    bert-explorer group --group stance-cv --cv 5 --task single --train stance.tsv ...   # out-of-fold first
    bert-explorer label-issues --group stance-cv                 # suspects of the group's training labels
    bert-explorer label-issues oof.csv --gold-column label --out suspects.csv --json

With ``--group``, the cross-validation group's oof_predictions.csv is checked against its given labels and the
suspects go to ``label_issues.csv`` in the group folder (with a review file: open it on the Predictions page,
correct the labels that are wrong, and "Fine-tune on reviewed rows" retrains on the training file with those
rows relabelled). With a predictions file (predict's p_<class> columns, from a model that did not train on
those rows) and ``--gold-column``, the suspects go to ``--out`` (default ``<file>-label-issues.csv``).
Prints the share of suspected errors per class and the most suspect rows (``--top``); ``--json``: one object
(explorer.core.studies.label_issues.LabelIssues.to_dict).
"""

from __future__ import annotations

import json
from pathlib import Path

from explorer.core.errors import UserError, exits_on_user_error


def add_arguments(parser) -> None:
    parser.add_argument("predictions", nargs="?", default="", metavar="FILE",
                        help="out-of-fold predictions in predict's format (p_<class> columns); or give --group")
    parser.add_argument("--group", default="", metavar="NAME", help="a cross-validation group (group --cv K)")
    parser.add_argument("--output-dir", default="", metavar="DIR", help="the runs folder of --group (default: the app's)")
    parser.add_argument("--gold-column", default="", metavar="COL", help="with FILE: the column of given labels")
    parser.add_argument("--out", default="", metavar="FILE", help="with FILE: where the suspects are written")
    parser.add_argument("--top", type=int, default=20, metavar="N", help="suspects printed (all are written)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of lines")


def _of_file(args):
    from explorer.core.predict.review import GOLD_NAMES, load_predictions
    from explorer.core.studies.label_issues import review_columns, suspects_of_predictions, write_review_file

    path = Path(args.predictions)
    if not path.is_file():
        raise UserError(f"{path}: no such file")
    table = load_predictions(path)
    gold = args.gold_column or next((c for c in GOLD_NAMES if c in table.columns), "")
    if gold not in table.columns:
        raise UserError(f"{path}: give --gold-column, the column of given labels (columns: "
                        f"{', '.join(table.columns[:12])})")
    names = [c[2:] for c in table.columns if c.startswith("p_")]
    rows = [{c: table.cells[k][i] for k, c in enumerate(table.columns)} for i in range(len(table))]
    issues = suspects_of_predictions(table.columns, rows, table.column(gold), names)
    out = Path(args.out) if args.out else path.with_name(f"{path.stem}-label-issues{path.suffix}")
    inputs, texts = review_columns(table.columns)
    write_review_file(out, table.columns, rows, issues, kind="classification", text_columns=texts,
                      gold_column=gold, input_columns=inputs, data=str(path))
    return issues, out


@exits_on_user_error
def run(args) -> int:
    from explorer.core.studies.label_issues import group_label_issues
    from explorer.paths import default_runs_dir

    if bool(args.group) == bool(args.predictions):
        raise UserError("label-issues: give either a predictions FILE or --group NAME")
    if args.group:
        runs_dir = Path(args.output_dir).expanduser() if args.output_dir else default_runs_dir()
        issues, out = group_label_issues(runs_dir, args.group)
    else:
        issues, out = _of_file(args)
    if args.json:
        print(json.dumps({**issues.to_dict(top=args.top), "out": str(out)}, indent=1))
        return 0
    if issues.withheld:   # fold models that learned nothing: their "suspects" are only rows of the other classes
        print(f"no suspected label errors listed: {issues.withheld}")
        return 0
    print(f"{len(issues.rows)} of {issues.n} given labels suspected (cleanlab confident learning on out-of-fold "
          "probabilities)")
    for line in issues.share_lines():
        print(f"  {line}")
    for note in issues.notes:
        print(f"note: {note}")
    shown = issues.to_dict(top=args.top)["suspects"]
    if shown:
        print("rank\trow\tgiven\tsuggested\tlabel quality")
        for s in shown:
            print(f"{s['rank']}\t{s['row'] + 1}\t{s['given_label']}\t{s['suggested_label']}\t{s['label_quality']:.4f}")
    print(f"suspects, most suspect first: {out} (open it on the Predictions page to correct them)")
    return 0

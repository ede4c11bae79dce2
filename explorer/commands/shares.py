"""`bert-explorer shares`: the share of each class in a predicted file, naive and prediction-powered.

Example::

    bert-explorer predict --model run/checkpoints/best --data tweets.csv --out tweets-pred.csv
    bert-explorer shares tweets-pred.csv --draw 300                # rows to review, drawn at random
    # ... a person labels those rows on the Predictions page (or in a gold column) ...
    bert-explorer shares tweets-pred.csv --width 0.04 --json       # naive and corrected intervals side by side
    bert-explorer shares tweets-pred.csv --gold-column gold         # gold labels of a random sample in the file

The naive share counts the model's labels as if they were right; the prediction-powered share
(explorer.core.metrics.ppi) corrects it with the gold labels of a uniform random sample of rows. The sample is
``--draw N`` (kept in the file's review, ``<file>.review.json``, and reviewed on the Predictions page), or the
non-empty cells of ``--gold-column``, which must then be a random sample too. The last column is the number of
reviewed rows a ``--width`` interval (total width, a fraction) needs.
"""

from __future__ import annotations

import json
from pathlib import Path

from explorer.core.errors import UserError, exits_on_user_error


def add_arguments(parser) -> None:
    parser.add_argument("predictions", metavar="FILE", help="a predictions file (predict's output: predicted_label)")
    parser.add_argument("--draw", type=int, default=0, metavar="N",
                        help="draw N rows at random to review (kept in the file's review) and stop")
    parser.add_argument("--seed", type=int, default=0, help="with --draw: the random seed (default 0)")
    parser.add_argument("--gold-column", default="", metavar="COL",
                        help="gold labels of a random sample of rows in this column (other rows empty)")
    parser.add_argument("--level", type=float, default=0.95, help="interval coverage (default 0.95)")
    parser.add_argument("--width", type=float, default=0.05,
                        help="target total interval width as a fraction, for the rows-needed column (default 0.05)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")


def _review_of(path: Path, table):
    from explorer.core.predict.review import Review

    review = Review.load(path)
    if review is None:
        names = [c[2:] for c in table.columns if c.startswith("p_")]
        review = Review(str(path), kind="classification", label_names=names,
                        input_columns=[c for c in table.columns if not c.startswith("p_")
                                       and c not in ("predicted_label", "margin", "error")])
    return review


def _gold(args, path: Path, table) -> tuple[list[str], list[str]]:
    """(gold per row, "" where not in the sample; notes)."""
    from explorer.core.predict.review import gold_as_names, reviewed_labels

    names = [c[2:] for c in table.columns if c.startswith("p_")]
    if args.gold_column:
        if args.gold_column not in table.columns:
            raise UserError(f"{path}: no column {args.gold_column!r} (columns: {', '.join(table.columns[:12])})")
        return gold_as_names(table.column(args.gold_column), names), [
            f"gold labels: the non-empty cells of {args.gold_column}, taken as a uniform random sample of the rows"]
    review = _review_of(path, table)
    if not review.sample:
        raise UserError(f"{path}: no random sample to review yet: draw one with --draw N (then label those rows on "
                        "the Predictions page), or give --gold-column")
    labelled = reviewed_labels(table, review)
    gold = [""] * len(table)
    done = [i for i in review.sample if i in labelled]
    for i in done:
        gold[i] = labelled[i][0]
    notes = [f"gold labels: {len(done)} of the {len(review.sample)} rows drawn at random (seeded) are reviewed"]
    if len(done) < len(review.sample):
        notes.append("review every drawn row, in any order, before reporting: rows skipped because they were "
                     "hard would make the sample no longer random")
    return gold, notes


@exits_on_user_error
def run(args) -> int:
    from explorer.core.metrics.ppi import class_shares, draw_sample
    from explorer.core.predict.review import load_predictions

    path = Path(args.predictions)
    if not path.is_file():
        raise UserError(f"{path}: no such file")
    table = load_predictions(path)
    if "predicted_label" not in table.columns:
        raise UserError(f"{path}: no predicted_label column (a file written by bert-explorer predict)")
    if args.draw:
        review = _review_of(path, table)
        review.sample = draw_sample(len(table), args.draw, args.seed)
        review.save()
        rows = [i + 1 for i in review.sample]
        if args.json:
            print(json.dumps({"sample": rows, "seed": args.seed, "review": str(review.path)}))
        else:
            print(f"{len(rows)} rows drawn at random (seed {args.seed}) for review, kept in {review.path}; "
                  f"label them on the Predictions page (order: random sample). Rows: "
                  + ", ".join(map(str, rows[:30])) + (" ..." if len(rows) > 30 else ""))
        return 0
    gold, notes = _gold(args, path, table)
    names = [c[2:] for c in table.columns if c.startswith("p_")] or sorted(set(table.column("predicted_label")) - {""})
    report = class_shares(table.column("predicted_label"), gold, names, level=args.level, width=args.width)
    report.notes = notes + report.notes
    if args.json:
        print(json.dumps(report.to_dict(), indent=1))
        return 0
    for line in report.lines():
        print(line)
    for note in report.notes:
        print(f"note: {note}")
    return 0

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


@exits_on_user_error
def run(args) -> int:
    from explorer.core.predict.review import load_predictions
    from explorer.core.predict.shares import draw_review_sample, review_of, review_shares

    path = Path(args.predictions)
    if not path.is_file():
        raise UserError(f"{path}: no such file")
    table = load_predictions(path)
    review = review_of(str(path), table)
    if args.draw:
        rows = [i + 1 for i in draw_review_sample(review, len(table), args.draw, args.seed)]
        if args.json:
            print(json.dumps({"sample": rows, "seed": args.seed, "review": str(review.path)}))
        else:
            print(f"{len(rows)} rows drawn at random (seed {args.seed}) for review, kept in {review.path}; "
                  f"label them on the Predictions page (order: random sample). Rows: "
                  + ", ".join(map(str, rows[:30])) + (" ..." if len(rows) > 30 else ""))
        return 0
    report = review_shares(table, review, gold_column=args.gold_column, level=args.level, width=args.width)
    if args.json:
        print(json.dumps(report.to_dict(), indent=1))
        return 0
    for line in report.lines():
        print(line)
    for note in report.notes:
        print(f"note: {note}")
    return 0

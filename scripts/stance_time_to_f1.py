"""SemEval-2016 stance tweets: dev macro F1 and F_avg against minutes of CPU fine-tuning, beside the majority
class (``--task single`` on the file as released).

    python scripts/stance_time_to_f1.py --out /tmp/stance --minutes 20 --eval-every 40

What it does:
1. Reads ../shared/data/stance_semeval2016/train.txt as released (tab-separated, Windows-1252 bytes, CRLF,
   string labels AGAINST / NONE / FAVOR) without editing it: ``--text-columns Tweet --label-column Stance``.
2. Holds out the launcher's default dev split (``--dev-fraction 0.1``: seeded and stratified, written to the
   run's ``dev_split.csv``), weights the loss by class (``--class-weights balanced``, as scikit-learn's
   ``compute_class_weight``) and averages F1 over FAVOR and AGAINST into ``f_avg`` (SemEval-2016's
   official measure, ``--f1-classes FAVOR,AGAINST``).
3. Trains ``--model`` (default bundled:minilm) through the real CLI in a child process with a time budget
   (the learning rate warms up and decays to 0 over the budget; evaluations are not counted in it) and
   prints one line per evaluation: training minutes, step, macro F1, F_avg, accuracy.
4. Prints the majority-class figures on the same dev split, read from the run's ``dev_split.csv``.

Figures depend on the machine and its load (printed at the start and the end). For reference, the
SemEval-2016 task 6A winning system reached F_avg 67.8 on the official test set (Mohammad et al. 2016);
this dev split is cut from the training file, so the figures are not comparable one to one.
"""

from __future__ import annotations

import csv
import sys
from collections import Counter
from pathlib import Path

from budget_run import DATA, budget_command, budget_parser, follow_run

COLUMNS = ("--text-columns", "Tweet", "--label-column", "Stance", "--dev-fraction", "0.1",
           "--class-weights", "balanced", "--f1-classes", "FAVOR,AGAINST", "--metric-for-best", "macro_f1")


def majority_figures(split_csv: Path, train: Path) -> str:
    """Macro F1, F_avg and accuracy of always answering the commonest dev label, on the run's dev split.

    ``split_csv``: the run's ``dev_split.csv`` (a column of the training file's row ids or line numbers);
    ``train``: the stance file. Returns one printable line; the rule is the one ``core.metrics.baselines`` uses."""
    from sklearn.metrics import accuracy_score, f1_score

    with open(split_csv, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    key = next((k for k in ("label", "Stance", "stance") if rows and k in rows[0]), None)
    if key is None:
        return f"majority class: {split_csv} has no label column ({list(rows[0]) if rows else 'empty'})"
    gold = [r[key] for r in rows]
    major = Counter(gold).most_common(1)[0][0]
    pred = [major] * len(gold)
    macro = f1_score(gold, pred, average="macro", zero_division=0)
    f_avg = f1_score(gold, pred, labels=["FAVOR", "AGAINST"], average="macro", zero_division=0)
    return (f"majority class ({major}, {len(gold)} dev rows): macro F1 {macro:.4f}  F_avg {f_avg:.4f}  "
            f"accuracy {accuracy_score(gold, pred):.4f}")


def main(argv: list[str] | None = None) -> int:
    a = budget_parser(__doc__.split("\n\n")[0]).parse_args(argv)
    train = DATA / "stance_semeval2016" / "train.txt"
    cmd = budget_command(a, "single", train, None, "stance", COLUMNS)
    rc = follow_run(cmd, "macro_f1  f_avg  accuracy",
                    lambda m: f"{m['macro_f1']:.4f}    {m['f_avg']:.4f}  {m['accuracy']:.4f}",
                    results=(a, "stance_time_to_f1"))
    split = Path(a.out) / "runs" / "stance" / "dev_split.csv"
    print(majority_figures(split, train) if split.exists() else f"no dev split at {split}")
    return rc


if __name__ == "__main__":
    sys.exit(main())

"""STS-B regression: dev Pearson / Spearman / MSE against minutes of CPU fine-tuning (``--task regression``).

    nice -n 10 python scripts/stsb_time_to_pearson.py --out /tmp/stsb --minutes 10
    python scripts/stsb_time_to_pearson.py --out /tmp/stsb --minutes 20 --eval-every 200

What it does:
1. Reads the STS Benchmark as released (../shared/data/stsb/train.csv, dev.csv: tab-separated, no header,
   7 or 9 fields, score in field 5, the sentences in fields 6 and 7) without editing it:
   ``--no-header --text-columns 6,7 --label-column 5`` (the rows with 9 fields are counted, never shifted).
2. Trains ``--model`` (default bundled:minilm) through the real CLI (``python -m explorer train --task
   regression``) in a child process with a time budget (the learning rate warms up and decays to 0 over the
   budget; evaluations are not counted in it), evaluating on all of dev every ``--eval-every`` steps and at
   the end.
3. Prints one line per evaluation: training minutes, step, pearson, spearman, mse (the run's eval events).

Figures depend on the machine and its load; the load average is printed at the start and the end. For
reference, BERT-base reaches Spearman ~0.85 on STS-B dev (GLUE; Devlin et al. 2019 report 86.5 Spearman on
the test set with BERT-base).
"""

from __future__ import annotations

import sys

from budget_run import DATA, budget_command, budget_parser, follow_run

RAW_COLUMNS = ("--no-header", "--text-columns", "6,7", "--label-column", "5")   # the files as released


def main(argv: list[str] | None = None) -> int:
    a = budget_parser(__doc__.split("\n\n")[0]).parse_args(argv)
    cmd = budget_command(a, "regression", DATA / "stsb" / "train.csv", DATA / "stsb" / "dev.csv", "stsb",
                         RAW_COLUMNS)
    return follow_run(cmd, "pearson  spearman  mse",
                      lambda m: f"{m['pearson']:.4f}   {m['spearman']:.4f}   {m['mse']:.4f}",
                      results=(a, "stsb_time_to_pearson"))


if __name__ == "__main__":
    sys.exit(main())

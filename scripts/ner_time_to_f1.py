"""CoNLL-2003 NER: dev entity F1 (seqeval, strict IOB2) against minutes of CPU fine-tuning (``--task ner``).

    nice -n 10 python scripts/ner_time_to_f1.py --out /tmp/ner --minutes 10
    python scripts/ner_time_to_f1.py --out /tmp/ner --minutes 30 --eval-every 500 --dev-cap 1000

What it does: trains ``--model`` (default bundled:minilm) on ../shared/data/conll2003/train.txt through the
real CLI (``python -m explorer train --task ner``) in a child process with a time budget (the learning rate
warms up and decays to 0 over the budget; evaluations are not counted in it), evaluating on dev.txt every
``--eval-every`` steps and at the end, and prints one line per evaluation: training minutes, step, entity
F1, precision, recall, token accuracy. The load average is printed at the start and the end: figures depend
on the machine and its load. For reference, BERT-base reaches 96.4 dev F1 (Devlin et al. 2019, Table 7).
"""

from __future__ import annotations

import sys

from budget_run import DATA, budget_command, budget_parser, follow_run


def main(argv: list[str] | None = None) -> int:
    a = budget_parser(__doc__.split("\n\n")[0]).parse_args(argv)
    cmd = budget_command(a, "ner", DATA / "conll2003" / "train.txt", DATA / "conll2003" / "dev.txt", "ner")
    return follow_run(cmd, "entity_f1  precision  recall  token_accuracy",
                      lambda m: f"{100 * m['f1']:8.2f}  {100 * m['precision']:8.2f}  {100 * m['recall']:6.2f}  "
                                f"{100 * m['token_accuracy']:8.2f}",
                      results=(a, "ner_time_to_f1"))


if __name__ == "__main__":
    sys.exit(main())

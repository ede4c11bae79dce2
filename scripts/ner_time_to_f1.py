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

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("EXPLORER_REAL_DATA", ROOT.parent / "shared" / "data"))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, help="folder for the run")
    p.add_argument("--minutes", type=float, default=10.0, help="training time budget (minutes)")
    p.add_argument("--model", default="bundled:minilm")
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--learning-rate", type=float, default=1e-4)
    p.add_argument("--max-seq-length", type=int, default=128)
    p.add_argument("--eval-every", type=int, default=0, help="steps between dev evaluations (0 = start and end)")
    p.add_argument("--train-cap", type=int, default=0)
    p.add_argument("--dev-cap", type=int, default=0)
    a = p.parse_args(argv)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    print(f"load average at start: {os.getloadavg()}", flush=True)
    cmd = [sys.executable, "-m", "explorer", "train", "--model", a.model, "--task", "ner",
           "--train", str(DATA / "conll2003" / "train.txt"), "--dev", str(DATA / "conll2003" / "dev.txt"),
           "--time-budget-minutes", str(a.minutes), "--epochs", "3", "--batch-size", str(a.batch_size),
           "--learning-rate", str(a.learning_rate), "--max-seq-length", str(a.max_seq_length),
           "--eval-every", str(a.eval_every), "--train-cap", str(a.train_cap), "--dev-cap", str(a.dev_cap),
           "--output-dir", str(out / "runs"), "--run-id", "ner", "--save-every", "0"]
    print("command:", " ".join(cmd), flush=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    train_seconds = 0.0
    print("minutes  step  entity_f1  precision  recall  token_accuracy")
    for line in proc.stdout:
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        if ev.get("event") == "step":
            train_seconds = float(ev.get("train_seconds") or train_seconds)
        elif ev.get("event") == "eval":
            m = ev["metrics"]
            print(f"{train_seconds / 60:7.2f}  {ev['step']:4d}  {100 * m['f1']:8.2f}  {100 * m['precision']:8.2f}  "
                  f"{100 * m['recall']:6.2f}  {100 * m['token_accuracy']:8.2f}", flush=True)
        elif ev.get("event") == "failed":
            print("failed:", ev.get("error"), flush=True)
    rc = proc.wait()
    print(f"load average at end: {os.getloadavg()}")
    return rc


if __name__ == "__main__":
    sys.exit(main())

"""STS-B regression: dev Pearson / Spearman / MSE against minutes of CPU fine-tuning (``--task regression``).

    nice -n 10 python scripts/stsb_time_to_pearson.py --out /tmp/stsb --minutes 10
    python scripts/stsb_time_to_pearson.py --out /tmp/stsb --minutes 20 --eval-every 200

What it does:
1. Reads the STS Benchmark as released (../shared/data/stsb/train.csv, dev.csv: tab-separated, no header,
   7 or 9 fields, score in field 5, the sentences in fields 6 and 7) and writes headed copies
   ``<out>/train.tsv`` / ``dev.tsv`` (sentence1, sentence2, score) for the loader.
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

import argparse
import csv
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("EXPLORER_REAL_DATA", ROOT.parent / "shared" / "data"))


def stsb_rows(path: Path) -> list[tuple[str, str, float]]:
    """(sentence1, sentence2, score) of an STS Benchmark file (no header, 7 or 9 tab-separated fields)."""
    out = []
    with path.open(encoding="utf-8", newline="") as f:
        for n, fields in enumerate(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE), start=1):
            if len(fields) not in (7, 9):
                raise SystemExit(f"{path} line {n}: expected 7 or 9 tab-separated fields, got {len(fields)}")
            out.append((fields[5], fields[6], float(fields[4])))
    return out


def write_headed(rows, path: Path, limit: int = 0) -> Path:
    """A TSV with the header sentence1, sentence2, score (the loader's usual pair names)."""
    rows = rows[:limit] if limit > 0 else rows
    with path.open("w", encoding="utf-8", newline="") as f:
        f.write("sentence1\tsentence2\tscore\n")
        for a, b, y in rows:
            f.write(f"{a}\t{b}\t{y}\n")
    return path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, help="folder for the headed copies and the run")
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
    train = write_headed(stsb_rows(DATA / "stsb" / "train.csv"), out / "train.tsv", a.train_cap)
    dev = write_headed(stsb_rows(DATA / "stsb" / "dev.csv"), out / "dev.tsv", a.dev_cap)
    print(f"load average at start: {os.getloadavg()}", flush=True)
    cmd = [sys.executable, "-m", "explorer", "train", "--model", a.model, "--task", "regression",
           "--train", str(train), "--dev", str(dev), "--time-budget-minutes", str(a.minutes), "--epochs", "3",
           "--batch-size", str(a.batch_size), "--learning-rate", str(a.learning_rate),
           "--max-seq-length", str(a.max_seq_length), "--eval-every", str(a.eval_every),
           "--output-dir", str(out / "runs"), "--run-id", "stsb", "--save-every", "0"]
    print("command:", " ".join(cmd), flush=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    train_seconds = 0.0
    print("minutes  step  pearson  spearman  mse")
    for line in proc.stdout.splitlines():
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        if ev.get("event") == "step":
            train_seconds = float(ev.get("train_seconds") or train_seconds)
        elif ev.get("event") == "eval":
            m = ev["metrics"]
            print(f"{train_seconds / 60:7.2f}  {ev['step']:4d}  {m['pearson']:.4f}   {m['spearman']:.4f}   "
                  f"{m['mse']:.4f}", flush=True)
        elif ev.get("event") == "failed":
            print("failed:", ev.get("error"), flush=True)
    print(f"load average at end: {os.getloadavg()}")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())

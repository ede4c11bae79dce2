"""Single-sentence fine-tuning on a small table: dev accuracy by evaluation for each learning rate asked.

    python scripts/small_table_learning_rate.py --out /tmp/small-table --learning-rates 2e-5 1e-4 --results

What it does:
1. Cuts the first ``--rows`` rows of GLUE SST-2's train.tsv and the first ``--dev-rows`` of its dev.tsv
   (``../shared/data/glue_sst2``, or ``$EXPLORER_REAL_DATA/glue_sst2``) into ``--out``: a table of the size a
   researcher's first labelled sample often has.
2. Trains ``--model`` once per learning rate through the real CLI (the launcher's automatic recipe for a small
   single-sentence table: batch 32, ``--epochs`` 4, dropout 0, an evaluation every 13 steps), one after the
   other, and prints the dev accuracy of every evaluation.
3. Prints the majority class's accuracy on the same dev rows and, with ``--results``, records the best and final
   accuracy per learning rate and the ratio of the last learning rate's final accuracy to the first one's.

Figures depend on the seed and on the machine (its load is printed at the start and the end); with one seed
each, a difference of a few points is noise, a difference from chance to well above it is not.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

from budget_run import DATA, ROOT


def cut_table(source: Path, target: Path, rows: int) -> list[str]:
    """Copy the header and the first ``rows`` rows of a GLUE tab-separated file; returns their labels."""
    lines = source.read_text(encoding="utf-8").splitlines()
    target.write_text("\n".join(lines[: rows + 1]) + "\n", encoding="utf-8")
    return [line.rsplit("\t", 1)[-1] for line in lines[1: rows + 1]]


def dev_accuracies(cmd: list[str]) -> list[tuple[int, float]]:
    """Run one training command; returns (step, dev accuracy in %) for every eval event it prints."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    out = []
    for line in proc.stdout:
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        if ev.get("event") == "eval" and "accuracy" in ev.get("metrics", {}):
            acc = float(ev["metrics"]["accuracy"])
            out.append((int(ev["step"]), acc * 100 if acc <= 1 else acc))
            print(f"  step {ev['step']:4d}  dev accuracy {out[-1][1]:.1f}", flush=True)
        elif ev.get("event") == "failed":
            print("failed:", ev.get("error"), flush=True)
    if proc.wait() != 0:
        raise SystemExit(f"training failed (exit {proc.returncode}): {' '.join(cmd)}")
    return out


def main(argv: list[str] | None = None) -> int:
    from explorer.benchmarks import add_results_argument, load_average, record

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, help="folder for the cut tables and the runs")
    p.add_argument("--learning-rates", type=float, nargs="+", default=[2e-5, 1e-4])
    p.add_argument("--rows", type=int, default=400)
    p.add_argument("--dev-rows", type=int, default=200)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--model", default="bundled:minilm")
    p.add_argument("--seed", type=int, default=42)
    add_results_argument(p)
    a = p.parse_args(argv)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    train, dev = out / "train.tsv", out / "dev.tsv"
    cut_table(DATA / "glue_sst2" / "train.tsv", train, a.rows)
    dev_labels = cut_table(DATA / "glue_sst2" / "dev.tsv", dev, a.dev_rows)
    majority = 100 * Counter(dev_labels).most_common(1)[0][1] / len(dev_labels)
    load0 = load_average()
    print(f"load average at start: {os.getloadavg()}; majority class {majority:.1f} % of {len(dev_labels)} dev rows")
    curves = {}
    for lr in a.learning_rates:
        cmd = [sys.executable, "-m", "explorer", "train", "--task", "single", "--model", a.model,
               "--train", str(train), "--dev", str(dev), "--epochs", str(a.epochs), "--batch-size", "32",
               "--dropout", "0", "--eval-every", "13", "--learning-rate", str(lr), "--seed", str(a.seed),
               "--output-dir", str(out / "runs"), "--run-name", f"lr{lr:g}", "--save-every", "0"]
        print(f"learning rate {lr:g}", flush=True)
        curves[lr] = dev_accuracies(cmd)
    print(f"load average at end: {os.getloadavg()}")
    figures = {"dev_accuracy_majority": majority}
    for lr, points in curves.items():
        figures[f"dev_accuracy_lr_{lr:g}_final"] = points[-1][1]
        figures[f"dev_accuracy_lr_{lr:g}_best"] = max(v for _, v in points)
    first, last = a.learning_rates[0], a.learning_rates[-1]
    record(a, "small_table_learning_rate",
           case=f"SST-2 first {a.rows} train rows, first {a.dev_rows} dev rows, {a.model}, seed {a.seed}",
           figures=figures,
           ratios={f"final_dev_accuracy_{last:g}_over_{first:g}": curves[last][-1][1] / curves[first][-1][1]},
           load_start=load0, load_end=load_average(),
           notes="dev accuracy by step: " + "; ".join(
               f"lr {lr:g} " + "/".join(f"{v:.1f}" for _, v in pts) for lr, pts in curves.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())

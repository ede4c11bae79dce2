"""How many labels are enough, and is BERT worth it: a learning curve + TF-IDF baseline on a shared data set.

    python scripts/learning_curve.py --data-set stance --runs runs/stance-curve --results
    python scripts/learning_curve.py --data-set stance --runs runs/stance-curve --score-only --results
    python scripts/learning_curve.py --data-set sst2 --rows 4000 --runs runs/sst2-curve --results

What it does:
1. Runs ``bert-explorer group --curve`` on one shared data set as released, one fine-tune of ``--model`` per
   size (one epoch by default, lr 1e-4, evaluated at the start and the end only), nested stratified subsets:
   - ``stance``: SemEval-2016 stance tweets (stance_semeval2016/train.txt; task ``pair``: Target, Tweet; label
     Stance); 20% of the rows held out once as the shared dev rows (seeded, stratified), sizes 12.5, 25, 50 and
     100% of the rest; the figure is F_avg (the mean F1 of FAVOR and AGAINST, SemEval-2016's official measure).
   - ``sst2``: GLUE SST-2 (glue_sst2/train.tsv, task ``single``), dev = the 872 rows of dev.tsv; the sizes are
     ``--rows`` / 8, / 4, / 2 and ``--rows`` training rows (shares of the 67,349 chosen so: a bounded setting
     for a CPU), the figure is accuracy (GLUE's measure for SST-2).
   Giving the same line again resumes the group: finished sizes are kept, only the figures are computed again.
2. Prints and records each size's figure with its 95% bootstrap interval, the TF-IDF + logistic regression
   baseline's on the same rows, the paired difference, and the inverse power law's prediction for the next
   doubling with its interval.

The ratio recorded is fine-tuned / baseline at each size, both measured in the same run on the same dev rows.
Figures depend on the machine and its load (recorded at the start and the end).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from explorer.benchmarks import add_results_argument, load_average, record  # noqa: E402

DATA_ROOT = Path(os.environ.get("EXPLORER_REAL_DATA", REPO.parent / "shared" / "data"))


@dataclass(frozen=True)
class DataSet:
    """One shared data set's curve: its files, the task flags, the figure's words and the benchmark's name."""

    benchmark: str
    train: str
    dev: str | None
    task_flags: tuple
    figure: str
    max_seq_length: int
    about: str


DATA_SETS = {
    "stance": DataSet("learning_curve_stance", "stance_semeval2016/train.txt", None,
                      ("--task", "pair", "--text-columns", "Target,Tweet", "--label-column", "Stance",
                       "--dev-fraction", "0.2", "--metric-for-best", "f_avg", "--f1-classes", "AGAINST,FAVOR"),
                      "F_avg", 48, "F_avg = mean F1 of AGAINST and FAVOR"),
    "sst2": DataSet("learning_curve_sst2", "glue_sst2/train.tsv", "glue_sst2/dev.tsv",
                    ("--task", "single", "--text-columns", "sentence", "--label-column", "label",
                     "--metric-for-best", "accuracy"),
                    "accuracy", 64, "accuracy on SST-2's 872 dev rows"),
}
TRAIN_ROWS = {"sst2": 67_349}   # rows of the training file (the README of the shared data); --rows is a share of it


def curve_shares(a, ds: DataSet) -> list[str]:
    """The --curve percentages: the default sizes, or --rows / 8, / 4, / 2, --rows of the training rows."""
    if not a.rows:
        return []
    total = TRAIN_ROWS.get(a.data_set)
    if total is None:
        raise SystemExit(f"--rows is for a data set with a fixed dev file ({', '.join(TRAIN_ROWS)})")
    return [f"{100 * a.rows / d / total:.6f}" for d in (8, 4, 2, 1)]


def curve_command(a, ds: DataSet) -> list[str]:
    """The group command the script runs (and prints)."""
    shares = curve_shares(a, ds)
    cmd = [sys.executable, "-m", "explorer", "group", "--group", a.group, "--curve"]
    if shares:
        cmd.append(",".join(shares))
    cmd += ["--model", a.model, "--train", str(DATA_ROOT / ds.train)]
    if ds.dev:
        cmd += ["--dev", str(DATA_ROOT / ds.dev)]
    return cmd + [*ds.task_flags, "--epochs", str(a.epochs), "--learning-rate", "1e-4", "--batch-size", "32",
                  "--max-seq-length", str(ds.max_seq_length), "--eval-every", "0", "--seed", "1",
                  "--output-dir", str(a.runs)]


def result_figures(result: dict, label: str) -> tuple[dict, dict]:
    """(figures, ratios) of a curve_result.json, keyed by each size's share and rows."""
    figures, ratios = {}, {}
    for pt in result["points"]:
        key = f"{100 * pt['fraction']:.3g}% ({pt['train_rows']} rows)"
        base = pt["baseline"]
        figures[f"baseline {label} {key}"] = base["value"]
        figures[f"baseline {label} 95% interval {key}"] = [base["low"], base["high"]]
        if pt["model"]:
            m = pt["model"]
            figures[f"fine-tuned {label} {key}"] = m["value"]
            figures[f"fine-tuned {label} 95% interval {key}"] = [m["low"], m["high"]]
            figures[f"fine-tuned - baseline {key}"] = [pt["versus"]["difference"], pt["versus"]["low"],
                                                      pt["versus"]["high"]]
            if "mcnemar_p" in pt["versus"]:
                figures[f"McNemar p {key}"] = pt["versus"]["mcnemar_p"]
            ratios[f"fine-tuned / baseline {label} {key}"] = m["value"] / base["value"] if base["value"] else None
    if result.get("fit"):
        f = result["fit"]
        figures[f"predicted fine-tuned {label} at {f['next_rows']} rows"] = f["prediction"]
        figures[f"predicted fine-tuned {label} at {f['next_rows']} rows, 95% interval"] = [f["low"], f["high"]]
    elif result.get("fit_note"):
        figures["no fitted curve"] = result["fit_note"]
    if result.get("baseline_fit"):
        f = result["baseline_fit"]
        figures[f"predicted baseline {label} at {f['next_rows']} rows"] = f["prediction"]
    figures["dev rows"] = result["n_dev"]
    missing = [f"{pt['train_rows']} rows" for pt in result["points"] if not pt["model"]]
    if missing:
        figures["sizes not trained yet"] = ", ".join(missing)
    return figures, ratios


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data-set", choices=sorted(DATA_SETS), default="stance")
    p.add_argument("--runs", type=Path, required=True, help="runs folder for the group (outside the repository)")
    p.add_argument("--group", default=None, help="the group's name (default: <data set>-curve)")
    p.add_argument("--model", default="bundled:minilm")
    p.add_argument("--epochs", type=float, default=1.0)
    p.add_argument("--rows", type=int, default=0,
                   help="sst2: training rows of the largest size (the sizes are it / 8, / 4, / 2 and it; stratified "
                        "nested subsets of the whole training file); 0 = the whole file (67,349 rows)")
    p.add_argument("--score-only", action="store_true",
                   help="train nothing: score the sizes whose runs have finished (and the baseline at every size) "
                        "of a group this script started earlier")
    add_results_argument(p)
    a = p.parse_args(argv)
    ds = DATA_SETS[a.data_set]
    a.group = a.group or f"{a.data_set}-curve"
    load_start = load_average()
    if a.score_only:
        from explorer.core.studies.curve_results import collect_curve
        from explorer.core.studies.groups import GROUP_FILE, group_dir, load_group_file

        group = load_group_file(group_dir(a.runs, a.group) / GROUP_FILE)
        print("\n".join(collect_curve(a.runs, group).lines()), flush=True)
        rc = 0
    else:
        cmd = curve_command(a, ds)
        print(" ".join(cmd), flush=True)
        rc = subprocess.call(cmd)
    result_file = a.runs / ".groups" / a.group / "curve_result.json"
    if not result_file.is_file():
        print(f"no {result_file}: the group did not get as far as its figures (exit {rc})", file=sys.stderr)
        return 1
    result = json.loads(result_file.read_text(encoding="utf-8"))
    figures, ratios = result_figures(result, ds.figure)
    marks = "; ".join(m["text"] for m in result.get("marks", []))
    scored = [pt for pt in result["points"] if pt["model"]]
    record(a, ds.benchmark, figures=figures, ratios=ratios, load_start=load_start,
           case=(f"{a.model}, {a.epochs:g} epoch per size, max_seq_length {ds.max_seq_length}, sizes scored: "
                 + "/".join(str(pt["train_rows"]) for pt in scored)
                 + f" of {result['points'][-1]['train_rows']} training rows"),
           notes=("each size trained with checkpoints/last scored (no checkpoint chosen on the dev rows); "
                  f"{ds.about}; intervals: paired percentile bootstrap, 2000 resamples"
                  + (f"; marks: {marks}" if marks else "")))
    return 0 if rc == 0 else rc


if __name__ == "__main__":
    sys.exit(main())

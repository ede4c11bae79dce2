"""SemEval-2016 stance tweets: how many labels are enough, and is BERT worth it (learning curve + TF-IDF baseline).

    python scripts/learning_curve_stance.py --runs runs/stance-curve --results
    python scripts/learning_curve_stance.py --runs runs/stance-curve --score-only --results   # sizes done so far

What it does:
1. Runs ``bert-explorer group --curve`` on ../shared/data/stance_semeval2016/train.txt as released (the task
   ``pair``: Target, Tweet; label Stance): 20% of the rows held out once as the shared dev rows (seeded,
   stratified), nested stratified subsets of 12.5, 25, 50 and 100% of the rest, one fine-tune of ``--model``
   per size (one epoch, lr 1e-4, max_seq_length 48, evaluated at the start and the end only). Giving the same
   line again resumes the group: finished sizes are kept, only the figures are computed again.
2. Prints and records each size's F_avg (SemEval-2016's official measure, the mean F1 of FAVOR and AGAINST)
   with its 95% bootstrap interval, the TF-IDF + logistic regression baseline's on the same rows, the paired
   difference, and the inverse power law's prediction for the next doubling with its interval.

The ratio recorded is fine-tuned F_avg / baseline F_avg at each size, both measured in the same run on the
same dev rows. Figures depend on the machine and its load (recorded at the start and the end).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from explorer.benchmarks import add_results_argument, load_average, record  # noqa: E402

DATA = Path(os.environ.get("EXPLORER_REAL_DATA", REPO.parent / "shared" / "data")) / "stance_semeval2016" / "train.txt"


def curve_command(a) -> list[str]:
    """The group command the script runs (and prints)."""
    return [sys.executable, "-m", "explorer", "group", "--group", a.group, "--curve", "--model", a.model,
            "--task", "pair", "--train", str(a.data), "--text-columns", "Target,Tweet", "--label-column", "Stance",
            "--dev-fraction", "0.2", "--metric-for-best", "f_avg", "--f1-classes", "AGAINST,FAVOR",
            "--epochs", str(a.epochs), "--learning-rate", "1e-4", "--batch-size", "32", "--max-seq-length", "48",
            "--eval-every", "0", "--seed", "1", "--output-dir", str(a.runs)]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=Path, required=True, help="runs folder for the group (outside the repository)")
    p.add_argument("--group", default="stance-curve")
    p.add_argument("--model", default="bundled:minilm")
    p.add_argument("--epochs", type=float, default=1.0)
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--score-only", action="store_true",
                   help="train nothing: score the sizes whose runs have finished (and the baseline at every size) "
                        "of a group this script started earlier")
    add_results_argument(p)
    a = p.parse_args(argv)
    load_start = load_average()
    if a.score_only:
        from explorer.core.studies.curve_results import collect_curve
        from explorer.core.studies.groups import GROUP_FILE, group_dir, load_group_file

        group = load_group_file(group_dir(a.runs, a.group) / GROUP_FILE)
        print("\n".join(collect_curve(a.runs, group).lines()), flush=True)
        rc = 0
    else:
        cmd = curve_command(a)
        print(" ".join(cmd), flush=True)
        rc = subprocess.call(cmd)
    result_file = a.runs / ".groups" / a.group / "curve_result.json"
    if not result_file.is_file():
        print(f"no {result_file}: the group did not get as far as its figures (exit {rc})", file=sys.stderr)
        return 1
    result = json.loads(result_file.read_text(encoding="utf-8"))
    figures, ratios = {}, {}
    for pt in result["points"]:
        key = f"{100 * pt['fraction']:g}% ({pt['train_rows']} rows)"
        base = pt["baseline"]
        figures[f"baseline F_avg {key}"] = base["value"]
        figures[f"baseline F_avg 95% interval {key}"] = [base["low"], base["high"]]
        if pt["model"]:
            m = pt["model"]
            figures[f"fine-tuned F_avg {key}"] = m["value"]
            figures[f"fine-tuned F_avg 95% interval {key}"] = [m["low"], m["high"]]
            figures[f"fine-tuned - baseline {key}"] = [pt["versus"]["difference"], pt["versus"]["low"],
                                                      pt["versus"]["high"]]
            if "mcnemar_p" in pt["versus"]:
                figures[f"McNemar p {key}"] = pt["versus"]["mcnemar_p"]
            ratios[f"fine-tuned / baseline F_avg {key}"] = m["value"] / base["value"] if base["value"] else None
    if result.get("fit"):
        f = result["fit"]
        figures[f"predicted fine-tuned F_avg at {f['next_rows']} rows"] = f["prediction"]
        figures[f"predicted fine-tuned F_avg at {f['next_rows']} rows, 95% interval"] = [f["low"], f["high"]]
    elif result.get("fit_note"):
        figures["no fitted curve"] = result["fit_note"]
    if result.get("baseline_fit"):
        f = result["baseline_fit"]
        figures[f"predicted baseline F_avg at {f['next_rows']} rows"] = f["prediction"]
    figures["dev rows"] = result["n_dev"]
    missing = [f"{100 * pt['fraction']:g}%" for pt in result["points"] if not pt["model"]]
    if missing:
        figures["sizes not trained yet"] = ", ".join(missing)
    marks = "; ".join(m["text"] for m in result.get("marks", []))
    record(a, "learning_curve_stance", figures=figures, ratios=ratios, load_start=load_start,
           case=(f"{a.model}, {a.epochs:g} epoch per size, sizes scored: "
                 + "/".join(f"{100 * pt['fraction']:g}%" for pt in result["points"] if pt["model"])
                 + f" of {result['points'][-1]['train_rows']} training rows"),
           notes=("each size trained with checkpoints/last scored (no checkpoint chosen on the dev rows); "
                  "F_avg = mean F1 of AGAINST and FAVOR; intervals: paired percentile bootstrap, 2000 resamples"
                  + (f"; marks: {marks}" if marks else "")))
    return 0 if rc == 0 else rc


if __name__ == "__main__":
    sys.exit(main())

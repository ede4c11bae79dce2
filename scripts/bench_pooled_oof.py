"""The pooled out-of-fold step of a cross-validation: from the folds' final evaluations against predicting again.

A table slice is cross-validated with k folds (each member trains a few steps in this process: its time is not
measured). Then the pooled step (explorer.core.studies.cv_runs.collect_oof) runs twice on the same finished group:
the way it runs now, taking each fold's held-out predictions from the rows its run's final evaluation kept
(dev_outputs.json, no model), and the earlier way, predicting every held-out row again with each fold's
checkpoints/last (predict_file). The ratio is the earlier way's seconds over the new way's; the pooled figures of
both are printed, and must agree.

    python scripts/bench_pooled_oof.py --data /work/shared/data/glue_sst2/train.tsv --rows 600 --results
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.benchmarks import add_results_argument, load_average, record  # noqa: E402


def write_slice(src: str | Path, out: Path, rows: int) -> Path:
    """The first ``rows`` data rows of a ``sentence<TAB>label`` table (SST-2's train.tsv) as a CSV with a header."""
    with open(src, encoding="utf-8", newline="") as fh:
        table = list(csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))[1:rows + 1]
    with open(out, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["sentence", "label"])
        w.writerows(table)
    return out


def trained_group(data: Path, runs: Path, *, model: str, k: int, steps: int):
    """A cv group of ``data`` with k members, each trained ``steps`` steps in this process."""
    from explorer.core.specs.train_config import TrainConfig
    from explorer.core.studies.cv_runs import start_cv_group
    from explorer.worker.train import EXIT_OK, main as train_main

    base = TrainConfig(model=model, task="single", train=str(data), text_columns=["sentence"], label_column="label",
                       max_steps=steps, batch_size=16, max_seq_length=64)
    group, configs, _ = start_cv_group(base, runs, "bench", k)
    for c in configs:
        path = runs / ".groups" / "bench" / "configs" / f"{c.run_id}.json"
        with contextlib.redirect_stdout(io.StringIO()):
            if train_main(["--config", str(path)]) != EXIT_OK:
                raise SystemExit(f"fold run {c.run_id} did not finish")
    return group


def pooled_both_ways(runs: Path, group) -> dict:
    """Seconds and figures of the pooled step the new way (stored rows) and the earlier way (predicted again)."""
    from explorer.core.predict.engine import predict_file
    from explorer.core.studies import cv_runs

    calls = []

    def counting(*args, **kwargs):
        calls.append(args[1])
        return predict_file(*args, **kwargs)

    folder = runs / ".groups" / group.name
    t0 = time.perf_counter()
    new = cv_runs.collect_oof(runs, group, predict=counting)
    new_seconds, new_calls = time.perf_counter() - t0, len(calls)
    for i in range(len(group.members)):   # nothing of the new way is reused by the earlier one
        cv_runs.fold_predictions_path(folder, i).unlink(missing_ok=True)
    stored = cv_runs.fold_from_run
    cv_runs.fold_from_run = lambda *a, **k: None   # the earlier way: every fold predicted with checkpoints/last
    try:
        t0 = time.perf_counter()
        old = cv_runs.collect_oof(runs, group, predict=counting)
        old_seconds = time.perf_counter() - t0
    finally:
        cv_runs.fold_from_run = stored
    return {"new_seconds": new_seconds, "old_seconds": old_seconds, "new_predict_calls": new_calls,
            "old_predict_calls": len(calls) - new_calls, "rows": new.n, "new_metrics": new.metrics,
            "old_metrics": old.metrics}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, help="a sentence<TAB>label table with a header line (SST-2 train.tsv)")
    ap.add_argument("--rows", type=int, default=600, help="its first rows cross-validated")
    ap.add_argument("--k", type=int, default=5, help="folds")
    ap.add_argument("--steps", type=int, default=4, help="training steps of each fold run")
    ap.add_argument("--model", default="bundled:minilm")
    add_results_argument(ap)
    args = ap.parse_args(argv)
    load_start = load_average()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        data = write_slice(args.data, tmp / "slice.csv", args.rows)
        group = trained_group(data, tmp / "runs", model=args.model, k=args.k, steps=args.steps)
        r = pooled_both_ways(tmp / "runs", group)
    same = set(r["new_metrics"]) == set(r["old_metrics"]) and all(
        abs(r["new_metrics"][m] - v) < 1e-6 for m, v in r["old_metrics"].items())
    ratio = r["old_seconds"] / max(r["new_seconds"], 1e-9)
    print(f"pooled out-of-fold step, {r['rows']} rows, {args.k} folds, {args.model}: from the folds' final "
          f"evaluations {r['new_seconds']:.2f} s ({r['new_predict_calls']} folds predicted), predicted again "
          f"{r['old_seconds']:.2f} s ({r['old_predict_calls']} folds predicted): {ratio:.1f}x; figures "
          f"{'the same' if same else 'DIFFERENT'}: {json.dumps(r['new_metrics'])}")
    record(args, "bench_pooled_oof", case=f"{Path(args.data).parent.name}/{Path(args.data).name}, first {r['rows']} "
           f"rows, {args.k} folds, {args.model}, {args.steps} steps per fold", load_start=load_start,
           ratios={"predicted again / from the final evaluations (seconds)": ratio},
           figures={"rows": r["rows"], "seconds from the final evaluations": r["new_seconds"],
                    "seconds predicted again": r["old_seconds"], "folds predicted again (new way)":
                    r["new_predict_calls"], "same figures": same})
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())

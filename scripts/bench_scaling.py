"""How the cost of reading a table grows with its rows: the launcher's table preview and the run's reading of the
training file (the task's loader, as ``train`` reads it), at 1k, 10k and 100k rows of a generated table (1M with
``--million``) and SST-2's 67,349 training rows (EXPLORER_REAL_DATA). Time (best of 2) and peak Python memory
(tracemalloc) per size, and per-row ratios against the 1k figure: flat per-row cost means the step grows as the
user expects.

    python scripts/bench_scaling.py [--million] [--results]

Training windows/s, evaluation and predict rows/s at these sizes are not measured here (bench_train.py,
bench_dev_scoring.py, bench_predict.py time them on fixed row counts).
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _write(path: Path, n: int) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow(["id", "text", "label"])
        for i in range(n):
            text = f"row {i}: a fairly ordinary sentence about the film" + (", with a comma" if i % 10 == 0 else "")
            out.writerow([i, text, ("negative", "neutral", "positive")[i % 3]])
    return path


def _measure(fn) -> tuple[float, float]:
    """(best seconds of 2, peak MiB of the second run)."""
    best = float("inf")
    for _ in range(2):
        tracemalloc.start()
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    return best, peak


def main(argv=None) -> int:
    from explorer.benchmarks import add_results_argument, load_average, write_result
    from explorer.core.data.table import preview_table
    from explorer.core.specs.train_config import TrainConfig
    from explorer.core.training.tasks import get_task

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--million", action="store_true", help="also 1,000,000 rows")
    add_results_argument(ap)
    args = ap.parse_args(argv)
    load_start = load_average()
    task = get_task("single")
    sizes = [1_000, 10_000, 100_000] + ([1_000_000] if args.million else [])
    figures, base = {}, None
    with tempfile.TemporaryDirectory() as tmp:
        cases = [(f"{n:,} rows", _write(Path(tmp) / f"t{n}.csv", n), n) for n in sizes]
        sst = Path(os.environ.get("EXPLORER_REAL_DATA", "")) / "glue_sst2" / "train.tsv"
        if sst.is_file():
            cases.append(("SST-2 train (67,349 rows)", sst, 67_349))
        for name, path, n in cases:
            preview_s, preview_mib = _measure(lambda: preview_table(path))
            config = TrainConfig(task="single", train=str(path), text_columns=["text"] if path.suffix == ".csv"
                                 else [], label_column="label")
            read_s, read_mib = _measure(lambda: task.load(config, "train"))
            per_row = {"preview_us_per_row": 1e6 * preview_s / n, "read_us_per_row": 1e6 * read_s / n}
            base = base or per_row
            figures[name] = {"rows": n, "preview_s": preview_s, "preview_peak_mib": preview_mib, "read_s": read_s,
                             "read_peak_mib": read_mib, **per_row}
            print(f"{name:>28}: preview {preview_s:7.3f} s, {preview_mib:7.1f} MiB peak; read {read_s:7.3f} s, "
                  f"{read_mib:7.1f} MiB peak; per row x{per_row['read_us_per_row'] / base['read_us_per_row']:.2f} "
                  "of 1k")
    last = figures[f"{sizes[-1]:,} rows"]
    ratios = {"read_per_row_largest_vs_1k": last["read_us_per_row"] / base["read_us_per_row"],
              "preview_per_row_largest_vs_1k": last["preview_us_per_row"] / base["preview_us_per_row"]}
    print(f"load {load_start} -> {load_average()}")
    if args.results is not None:
        path = write_result("bench_scaling", folder=args.results, figures=figures, ratios=ratios,
                            case="generated 3-class table and SST-2 train", load_start=load_start,
                            about="table preview and the run's reading of its training file, time and peak memory "
                                  "against rows")
        print(f"recorded in {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How the cost of each step grows with the data: tables of 1k, 10k and 100k rows (1M with ``--million``) of a
generated 3-class table and SST-2's 67,349 training rows (EXPLORER_REAL_DATA).

    nice python scripts/bench_scaling.py [--million] [--sizes 1000,10000,100000] [--sections preview,train] [--results]

Per table size:

- preview: the whole-file reader (core.data.table.preview_table, which reads every byte) and the run's reading
  of its training file (the task's loader) against the launcher's preview (ui.launch.data_preview.preview_data:
  a table over STREAM_BYTES is counted in pieces, its first rows handed over first): seconds, seconds to the
  first rows, peak Python memory (tracemalloc), and the per-row cost against the 1k table's;
- train: the real training loop (worker.train, the tests' tiny random BERT: the per-step overhead is what could
  grow with the rows) for TRAIN_STEPS steps: the set-up seconds (reading, tokenizing: they grow with the rows)
  and training windows/s after the first step (flat when a step's cost does not grow with the table).

The Runs list with 1,000 runs and a 1,000,000-step run in Curves: scripts/bench_runs_scaling.py.

Every size runs once where it is 1M rows (the rates are bounded by TRAIN_STEPS, not by the rows). Prints the
figures with the load average; asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TRAIN_STEPS = 12     # optimizer steps per size (batch 32): a rate, not a run


def write_table(path: Path, n: int) -> Path:
    """A CSV of ``n`` rows: id, text (a quoted comma in every tenth), label (3 classes)."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow(["id", "text", "label"])
        for i in range(n):
            text = f"row {i}: a fairly ordinary sentence about the film" + (", with a comma" if i % 10 == 0 else "")
            out.writerow([i, text, ("negative", "neutral", "positive")[i % 3]])
    return path


def measure(fn, repeats: int = 1):
    """(best seconds of ``repeats``, peak MiB of Python allocations in the last, fn's last result)."""
    best, result, peak = float("inf"), None, 0.0
    for _ in range(repeats):
        tracemalloc.start()
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    return best, peak, result


def preview_figures(path: Path, n: int, repeats: int) -> dict:
    """The whole-file reader, the run's loader and the launcher's preview of one table."""
    from explorer.core.data.table import preview_table
    from explorer.core.specs.train_config import TrainConfig
    from explorer.core.training.tasks import get_task
    from explorer.ui.launch.data_preview import preview_data

    whole_s, whole_mib, _ = measure(lambda: preview_table(path), repeats)
    config = TrainConfig(task="single", train=str(path), text_columns=["text"] if path.suffix == ".csv" else [],
                         label_column="label")
    read_s, read_mib, _ = measure(lambda: get_task("single").load(config, "train"), repeats)
    first = {}

    def launcher():
        t0 = time.perf_counter()
        res = preview_data(str(path), "single", on_head=lambda _h: first.setdefault("s", time.perf_counter() - t0))
        first.setdefault("s", time.perf_counter() - t0)   # a small table: the answer is the first rows
        return res

    first.clear()
    launch_s, launch_mib, res = measure(launcher, 1)
    if not res.get("ok") or res["counts"].get("examples") != n:
        raise SystemExit(f"{path}: the launcher's preview counted {res['counts']} ({res.get('error')}), not {n} rows")
    return {"rows": n, "whole-file preview (s)": whole_s, "whole-file preview peak (MiB)": whole_mib,
            "run's reading (s)": read_s, "run's reading peak (MiB)": read_mib,
            "launcher preview (s)": launch_s, "launcher preview, first rows (s)": first["s"],
            "launcher preview peak (MiB)": launch_mib,
            "launcher preview per row (us)": 1e6 * launch_s / n, "run's reading per row (us)": 1e6 * read_s / n}


def train_figures(path: Path, model: str, out: Path) -> dict:
    """Set-up seconds and windows/s of TRAIN_STEPS steps of the real loop on ``path``."""
    import contextlib
    import io

    from explorer.worker.train import main as train_main

    buf = io.StringIO()
    t0 = time.time()
    with contextlib.redirect_stdout(buf):
        rc = train_main(["--model", model, "--task", "single", "--train", str(path), "--max-steps", str(TRAIN_STEPS),
                         "--batch-size", "32", "--max-seq-length", "64", "--eval-every", "0", "--eval-share", "0",
                         "--dev-fraction", "0", "--no-save-checkpoints", "--new-head", "--output-dir", str(out),
                         "--run-name", path.stem])
    events = [json.loads(x) for x in buf.getvalue().splitlines() if x.startswith("{")]
    if rc != 0:
        raise SystemExit(f"training on {path} failed: {events[-1] if events else rc}")
    started = next(e["time"] for e in events if e["event"] == "started")
    steps = [e for e in events if e["event"] == "step"]
    rate = (len(steps) - 1) * 32 / (steps[-1]["time"] - steps[0]["time"])
    return {"set-up (s)": started - t0, "training windows/s": rate}


def main(argv=None) -> int:
    from explorer.benchmarks import add_results_argument, load_average, write_result

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--million", action="store_true", help="also 1,000,000 rows (and a 1,000,000-step run)")
    ap.add_argument("--sections", default="preview,train")
    ap.add_argument("--sizes", default="1000,10000,100000", help="table rows, comma-separated (1M: --million)")
    add_results_argument(ap)
    args = ap.parse_args(argv)
    sections = set(args.sections.split(","))
    load_start = load_average()
    sizes = [int(x) for x in args.sizes.split(",")] + ([1_000_000] if args.million else [])
    figures: dict = {}
    ratios: dict = {}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        cases = [(f"{n:,} rows", write_table(tmp / f"t{n}.csv", n), n) for n in sizes]
        sst = Path(os.environ.get("EXPLORER_REAL_DATA", "")) / "glue_sst2" / "train.tsv"
        if sst.is_file():
            cases.insert(-1 if args.million else len(cases), ("SST-2 train (67,349 rows)", sst, 67_349))
        model = ""
        if "train" in sections:
            sys.path.insert(0, str(ROOT / "tests"))
            from helpers import save_tiny_model

            model = str(save_tiny_model(tmp / "tiny", "classification", num_labels=3))
        for name, path, n in cases:
            row = {}
            if "preview" in sections:
                row |= preview_figures(path, n, 1 if n >= 1_000_000 else 2)
            if "train" in sections:
                row |= train_figures(path, model, tmp / "runs")
            figures[name] = row
            print(f"{name:>28}: " + ", ".join(f"{k} {v:,.3g}" for k, v in row.items()), flush=True)
        first, last = figures[cases[0][0]], figures[f"{sizes[-1]:,} rows"]
        if "preview" in sections:
            ratios["launcher preview per row, largest / 1k"] = (last["launcher preview per row (us)"]
                                                                / first["launcher preview per row (us)"])
            ratios["launcher preview peak, largest / whole-file preview peak"] = (
                last["launcher preview peak (MiB)"] / last["whole-file preview peak (MiB)"])
        if "train" in sections:
            ratios["training windows/s, largest / 1k"] = last["training windows/s"] / first["training windows/s"]
    for k, v in ratios.items():
        print(f"{k}: {v:.2f}")
    print(f"load {load_start} -> {load_average()}")
    if args.results is not None:
        path = write_result("bench_scaling", folder=args.results, figures=figures, ratios=ratios,
                            case=f"generated 3-class table, {', '.join(f'{n:,}' for n in sizes)} rows; SST-2 train; "
                                 f"{args.sections}", load_start=load_start,
                            about="cost against the table's size: preview time and memory, training set-up and rate")
        print(f"recorded in {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

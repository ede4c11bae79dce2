"""Benchmark `bert-explorer predict`: rows/s against the bare forward over the same batches, and peak memory.

    python scripts/bench_predict.py --rows 100000 --tiny           # a file it makes, the tests' tiny model
    python scripts/bench_predict.py --stance                       # $EXPLORER_REAL_DATA/stance_semeval2016/train.txt
    python scripts/bench_predict.py --rows 20000 --model runs/x/checkpoints/best

One run of the real pipeline (explorer.core.predict.engine.predict_file: read, tokenize, length-sorted batches,
inference_mode, softmax, write) in this process, with a forward pre-hook and hook on the model that time each
``model(**batch)`` call: the bare forward over exactly the batches predict ran, measured in the same run, so
the ratio does not drift with the machine's load (a shared machine's load changed the two-run figure by 20%).
ratio = predict rows/s / bare-forward rows/s (1.0 = no overhead). Memory: the resident set (/proc/self/statm)
after every chunk: its peak, and its value after the first chunk (constant memory = the two stay close).
Default model: bundled:minilm with a new 3-class head, saved to a temp folder so it is a checkpoint with a task
head; ``--tiny``: the tests' tiny random BERT (hidden 32: the forward is cheap, so the overhead share is the
largest). The stance file is Windows-1252 tab-separated (column Tweet): predict's reader finds it is not UTF-8
and reads it as cp1252 (its note is printed). Prints figures with the load average; asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WORDS = ("the a model good bad movie film great terrible city river year first name plot actor story "
         "boring brilliant slow fast music ending long short really quite not very").split()


def make_file(path: Path, rows: int, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "text"])
        for i in range(rows):
            w.writerow([i, " ".join(rng.choice(WORDS, size=int(rng.integers(4, 30))))])
    return path


def make_checkpoint(folder: Path, source: str) -> str:
    from explorer.core.models.loading import load_model

    loaded = load_model(source, task="classification", num_labels=3)
    loaded.model.save_pretrained(folder)
    loaded.tokenizer.save_pretrained(folder)
    return str(folder)


def rss_mib() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--stance", action="store_true", help="the shared SemEval-2016 stance train file instead")
    ap.add_argument("--model", default=None, help="a classification checkpoint (default: bundled:minilm + new head)")
    ap.add_argument("--tiny", action="store_true", help="the tests' tiny random BERT (2 layers, hidden 32)")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--chunk-rows", type=int, default=2048)
    ap.add_argument("--max-seq-length", type=int, default=128)
    from explorer.benchmarks import add_results_argument, load_average, record

    add_results_argument(ap)
    args = ap.parse_args(argv)
    load0 = load_average()
    tmp = Path(tempfile.mkdtemp(prefix="bench_predict_"))
    if args.stance:
        root = os.environ.get("EXPLORER_REAL_DATA")
        if not root:
            print("EXPLORER_REAL_DATA is not set", file=sys.stderr)
            return 2
        data, column = Path(root) / "stance_semeval2016" / "train.txt", "Tweet"
    else:
        data, column = make_file(tmp / "bench.csv", args.rows), "text"
    if args.tiny:
        sys.path.insert(0, str(ROOT / "tests"))
        from helpers import save_tiny_model

        model, name = str(save_tiny_model(tmp / "ckpt", "classification", num_labels=3)), "tiny random BERT"
    else:
        model = args.model or make_checkpoint(tmp / "ckpt", "bundled:minilm")
        name = args.model or "bundled:minilm + new 3-class head"
    from explorer.core.models.loading import load_model
    from explorer.core.predict.engine import predict_file

    loaded = load_model(model, task="classification")
    clock = {"t": 0.0, "forward": 0.0, "calls": 0}

    def pre(_module, _args, _kwargs):
        clock["t"] = time.perf_counter()

    def post(_module, _args, _kwargs, _out):
        clock["forward"] += time.perf_counter() - clock["t"]
        clock["calls"] += 1
    loaded.model.register_forward_pre_hook(pre, with_kwargs=True)
    loaded.model.register_forward_hook(post, with_kwargs=True)
    rss = []
    summary = predict_file(model, str(data), str(tmp / "out.csv"), loaded=loaded, text_columns=[column],
                           batch_size=args.batch_size, chunk_rows=args.chunk_rows, max_seq_length=args.max_seq_length,
                           progress=lambda done, total: rss.append(rss_mib()))
    run_s = summary.seconds - summary.load_seconds
    predict_rate = summary.new_rows / run_s
    bare_rate = (summary.new_rows - summary.errors) / clock["forward"]
    load = os.getloadavg()
    print(f"data: {data} ({summary.rows} rows, {summary.errors} with an error)")
    for note in summary.notes:
        print(f"note: {note}")
    print(f"model: {name}; batch {args.batch_size}, chunk {args.chunk_rows} rows, max_seq_length "
          f"{args.max_seq_length}; {os.cpu_count()} CPUs, load average {load[0]:.1f}")
    print(f"predict: {predict_rate:.1f} rows/s ({summary.new_rows} rows in {run_s:.1f} s)")
    print(f"bare forward over the same {clock['calls']} batches: {bare_rate:.1f} rows/s ({clock['forward']:.1f} s)")
    print(f"ratio predict / bare forward: {predict_rate / bare_rate:.3f} "
          f"(predict spends {100 * (run_s - clock['forward']) / run_s:.1f}% of its time outside the forward)")
    print(f"resident memory: {rss[1] if len(rss) > 1 else rss[0]:.0f} MiB after the first chunk, peak "
          f"{max(rss):.0f} MiB over {len(rss) - 1} chunks")
    record(args, "bench_predict", case=f"{'SemEval-2016 stance train' if args.stance else f'made file, {summary.rows:,} rows'}, {name}",
           ratios={"predict / bare forward (rows/s)": predict_rate / bare_rate},
           figures={"predict rows/s": predict_rate, "bare forward rows/s": bare_rate,
                    "resident MiB, first chunk": rss[1] if len(rss) > 1 else rss[0], "resident MiB, peak": max(rss)},
           load_start=load0)
    return 0


if __name__ == "__main__":
    sys.exit(main())

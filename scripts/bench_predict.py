"""Benchmark `bert-explorer predict`: rows/s against the bare forward over the same batches, and peak memory.

    python scripts/bench_predict.py --rows 100000                  # a file it makes (short random texts)
    python scripts/bench_predict.py --stance                       # $EXPLORER_REAL_DATA/stance_semeval2016/train.txt
    python scripts/bench_predict.py --rows 20000 --model runs/x/checkpoints/best

What it does, with one checkpoint (default: bundled:minilm with a new 3-class head, saved to a temp folder so it
is a checkpoint with a task head):
1. The real command, ``python -m explorer predict ... --json``, in a child process: its rows/s (model load left
   out) and its peak resident memory (getrusage of the child).
2. The bare model (``model(**batch).logits`` under inference_mode) in this process over the same texts, the same
   tokenization and the same length-sorted batches (explorer.core.inference.batch_order) of the same chunks;
   tokenization and padding are left out of its time. ratio = predict rows/s / bare rows/s (1.0 = no overhead).
The stance file is Windows-1252 tab-separated (column Tweet): predict's reader finds it is not UTF-8 and reads
it as cp1252 (its note is printed). Prints figures with the load average; asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import subprocess
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
    from explorer.core.models import load_model

    loaded = load_model(source, task="classification", num_labels=3)
    loaded.model.save_pretrained(folder)
    loaded.tokenizer.save_pretrained(folder)
    return str(folder)


def bare_forward(model_dir: str, data: str, text_column: str, batch_size: int, chunk_rows: int,
                 max_seq_length: int) -> tuple[float, int]:
    """(seconds of forward passes only, rows) over predict's batches."""
    import torch

    from explorer.core.inference import batch_order
    from explorer.core.models import load_model
    from explorer.core.predict.reading import iter_rows, text_of

    loaded = load_model(model_dir, task="classification")
    model, tok = loaded.model.eval(), loaded.tokenizer
    _, rows = iter_rows(data)
    texts = [text_of(r.values.get(text_column, "")) for r in rows]
    texts = [t for t in texts if t.strip()]
    seconds = 0.0
    pad = tok.pad_token_id or 0
    with torch.inference_mode():
        for lo in range(0, len(texts), chunk_rows):
            enc = tok(texts[lo:lo + chunk_rows], truncation=True, max_length=max_seq_length)
            lengths = [len(x) for x in enc["input_ids"]]
            for idx in batch_order(lengths, batch_size):
                width = max(lengths[k] for k in idx)
                batch = {}
                for name, fill in (("input_ids", pad), ("token_type_ids", 0), ("attention_mask", 0)):
                    arr = np.full((len(idx), width), fill, dtype=np.int64)
                    for r, k in enumerate(idx):
                        arr[r, :lengths[k]] = enc[name][k]
                    batch[name] = torch.from_numpy(arr)
                t0 = time.perf_counter()
                model(**batch).logits.float().cpu().numpy()
                seconds += time.perf_counter() - t0
    return seconds, len(texts)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--stance", action="store_true", help="the shared SemEval-2016 stance train file instead")
    ap.add_argument("--model", default=None, help="a classification checkpoint (default: bundled:minilm + new head)")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--chunk-rows", type=int, default=2048)
    ap.add_argument("--max-seq-length", type=int, default=128)
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="bench_predict_"))
    if args.stance:
        root = os.environ.get("EXPLORER_REAL_DATA")
        if not root:
            print("EXPLORER_REAL_DATA is not set", file=sys.stderr)
            return 2
        data, column = Path(root) / "stance_semeval2016" / "train.txt", "Tweet"
    else:
        data, column = make_file(tmp / "bench.csv", args.rows), "text"
    model = args.model or make_checkpoint(tmp / "ckpt", "bundled:minilm")
    out = tmp / "out.csv"
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               TOKENIZERS_PARALLELISM="false")
    cmd = [sys.executable, "-m", "explorer", "predict", "--model", model, "--data", str(data), "--out", str(out),
           "--text-columns", column, "--batch-size", str(args.batch_size), "--chunk-rows", str(args.chunk_rows),
           "--max-seq-length", str(args.max_seq_length), "--json"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if proc.returncode != 0:
        print(proc.stderr[-3000:], file=sys.stderr)
        return proc.returncode
    summary = json.loads(proc.stdout)
    bare_s, bare_rows = bare_forward(model, str(data), column, args.batch_size, args.chunk_rows, args.max_seq_length)
    run_s = summary["seconds"] - summary["load_seconds"]
    predict_rate, bare_rate = summary["new_rows"] / run_s, bare_rows / bare_s
    load = os.getloadavg()
    print(f"data: {data} ({summary['rows']} rows, {summary['errors']} with an error)")
    for note in summary["notes"]:
        print(f"note: {note}")
    print(f"model: {args.model or 'bundled:minilm + new 3-class head'}; batch {args.batch_size}, chunk "
          f"{args.chunk_rows} rows, max_seq_length {args.max_seq_length}; threads {os.cpu_count()} CPUs, "
          f"load average {load[0]:.1f}")
    print(f"predict: {predict_rate:.1f} rows/s ({summary['new_rows']} rows in {run_s:.1f} s after a "
          f"{summary['load_seconds']:.1f} s model load)")
    print(f"bare forward over the same batches: {bare_rate:.1f} rows/s ({bare_s:.1f} s)")
    print(f"ratio predict / bare forward: {predict_rate / bare_rate:.3f} (overhead {100 * (bare_rate / predict_rate - 1):.1f}%)")
    print(f"peak resident memory of the predict process: {max(peak_kib, before) / 1024:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())

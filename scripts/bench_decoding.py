"""Benchmark: n-best span decoding (explorer.core.qa.decoding.decode_example) on synthetic windows.

    python scripts/bench_decoding.py                  # 2,000 windows of 384 tokens, n_best_size 20

Two offset layouts: "clean" (token offsets exclude white space, as fast tokenizers give them) and
"white space" (every other token's offsets include the following space, so every such candidate is
stripped and its offsets moved: the worst case of passage_span). Prints examples per second; asserts
nothing about speed. Numbers depend on the machine's load (print `uptime` beside them).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def bench(n: int, with_space: bool, seed: int = 0) -> float:
    from explorer.core.qa.decoding import decode_example

    rng = np.random.default_rng(seed)
    context = " ".join(["word"] * 400)
    offsets = ([None] * 30 + [(5 * k, 5 * k + 4 + (k % 2 if with_space else 0)) for k in range(350)]
               + [None] * 4)
    starts, ends = rng.normal(size=(n, len(offsets))), rng.normal(size=(n, len(offsets)))
    t0 = time.perf_counter()
    for k in range(n):
        decode_example(context, [starts[k]], [ends[k]], [offsets], [0])
    return n / (time.perf_counter() - t0)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000, help="windows to decode (default 2000)")
    ap.add_argument("--repeats", type=int, default=3)
    from explorer.benchmarks import add_results_argument, load_average, record

    add_results_argument(ap)
    args = ap.parse_args(argv)
    load0 = load_average()
    medians = {}
    for name, space in (("clean offsets", False), ("white space in offsets", True)):
        rates = sorted(bench(args.n, space, seed=r) for r in range(args.repeats))
        medians[name] = rates[len(rates) // 2]
        print(f"{name:24s} {rates[len(rates) // 2]:8.0f} windows/s (median of {args.repeats}; "
              f"min {rates[0]:.0f}, max {rates[-1]:.0f})")
    record(args, "bench_decoding", case=f"{args.n:,} windows of 384 tokens",
           ratios={"white space / clean offsets (windows/s)": medians["white space in offsets"] / medians["clean offsets"]},
           figures={f"{k} (windows/s)": v for k, v in medians.items()}, load_start=load0)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

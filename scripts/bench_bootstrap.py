"""How long the paired bootstrap of core/stats.py takes: 10,000 resamples of 10,000 examples.

    python scripts/bench_bootstrap.py [--n 10000] [--resamples 10000]

Prints the seconds for the mean form (accuracy / exact match / SQuAD F1 per question) and for macro F1.
A benchmark, not a test."""

from __future__ import annotations

import argparse
import time

import numpy as np

from explorer.core.stats import paired_bootstrap_macro_f1, paired_bootstrap_mean


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--resamples", type=int, default=10_000)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    a = rng.random(args.n)
    b = np.clip(a + rng.normal(0.01, 0.1, args.n), 0, 1)
    t0 = time.perf_counter()
    r = paired_bootstrap_mean(a, b, resamples=args.resamples)
    t1 = time.perf_counter()
    print(f"mean (F1 per question): {args.resamples} resamples of {args.n} examples: {t1 - t0:.2f} s "
          f"(difference {r.difference:+.4f}, interval {r.low:+.4f} to {r.high:+.4f})")
    gold = rng.integers(0, 3, args.n)
    pa = np.where(rng.random(args.n) < 0.7, gold, rng.integers(0, 3, args.n))
    pb = np.where(rng.random(args.n) < 0.72, gold, rng.integers(0, 3, args.n))
    t0 = time.perf_counter()
    r = paired_bootstrap_macro_f1(gold, pa, pb, resamples=args.resamples)
    t1 = time.perf_counter()
    print(f"macro F1 (3 classes): {args.resamples} resamples of {args.n} examples: {t1 - t0:.2f} s "
          f"(difference {r.difference:+.4f}, interval {r.low:+.4f} to {r.high:+.4f})")


if __name__ == "__main__":
    main()

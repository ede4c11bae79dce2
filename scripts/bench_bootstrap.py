"""How long the paired bootstrap of core/metrics/significance.py takes: 10,000 resamples of 10,000 examples.

    python scripts/bench_bootstrap.py [--n 10000] [--resamples 10000]

Prints the seconds of each form, and the ratio of the counts form (Multinomial draws of how often each
distinct outcome occurs, what ``method="auto"`` picks for 0/1 scores and class predictions) against the
index form (an (n_resamples, n) index matrix, the reference) measured in the same run:
- accuracy / exact match (0/1 per example),
- macro F1 (3 classes),
- SQuAD F1 per question (continuous: always the index form).
A benchmark, not a test; the figures depend on the machine and its load (printed)."""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from explorer.benchmarks import add_results_argument, load_average, record
from explorer.core.metrics.significance import paired_bootstrap_macro_f1, paired_bootstrap_mean


def _timed(fn, *args, **kw):
    t0 = time.perf_counter()
    r = fn(*args, **kw)
    return time.perf_counter() - t0, r


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--resamples", type=int, default=10_000)
    add_results_argument(ap)
    args = ap.parse_args()
    n, R = args.n, args.resamples
    load0 = load_average()
    print(f"load average: {os.getloadavg()}")
    ratios, figures = {}, {}
    rng = np.random.default_rng(0)
    acc_a = (rng.random(n) < 0.80).astype(float)
    acc_b = np.where(rng.random(n) < 0.05, 1.0, acc_a)
    gold = rng.integers(0, 3, n)
    pa = np.where(rng.random(n) < 0.7, gold, rng.integers(0, 3, n))
    pb = np.where(rng.random(n) < 0.72, gold, rng.integers(0, 3, n))
    for name, fn, data in (("accuracy (0/1)", paired_bootstrap_mean, (acc_a, acc_b)),
                           ("macro F1, 3 classes", paired_bootstrap_macro_f1, (gold, pa, pb))):
        t_idx, r_idx = _timed(fn, *data, resamples=R, method="indices")
        t_cnt, r_cnt = _timed(fn, *data, resamples=R, method="counts")
        print(f"{name}: {R} resamples of {n} examples: counts {t_cnt:.3f} s, indices {t_idx:.3f} s "
              f"(the counts form takes {t_cnt / t_idx:.2%} of the index form's time); interval counts {r_cnt.low:+.4f} to {r_cnt.high:+.4f}, "
              f"indices {r_idx.low:+.4f} to {r_idx.high:+.4f}")
        ratios[f"{name}: counts / index form"] = t_cnt / t_idx
        figures[f"{name}, counts form (s)"] = t_cnt
    a = rng.random(n)
    b = np.clip(a + rng.normal(0.01, 0.1, n), 0, 1)
    t, r = _timed(paired_bootstrap_mean, a, b, resamples=R)
    print(f"SQuAD F1 per question (continuous, index form): {R} resamples of {n} examples: {t:.2f} s "
          f"(difference {r.difference:+.4f}, interval {r.low:+.4f} to {r.high:+.4f})")
    figures["per-question F1, index form (s)"] = t
    record(args, "bench_bootstrap", case=f"{R:,} resamples of {n:,} examples", ratios=ratios, figures=figures,
           load_start=load0)


if __name__ == "__main__":
    main()

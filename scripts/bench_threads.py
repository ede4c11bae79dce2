"""Probe latency with the thread policy's torch threads against a fixed thread count, alternating in one process.

    python scripts/bench_threads.py [--model bundled:minilm] [--runs 20] [--against 2] [--results]

The inspector child sets its torch threads from the cores and the load when it starts
(explorer.core.threads, role "inspector"). This times the probe as the inspector runs it (a ~200-token passage
without attentions; a full 384-token window with attentions, as the Attention inspector asks) with the thread
count the policy picks at the current load, and with ``--against`` threads (default: every core, torch's
default), call by call alternating, so that the machine's load hits both alike. The load is printed and recorded
at the start and the end. Prints figures; asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import numpy as np  # noqa: E402

from bench_probe import QUESTION, passage_with_tokens, probe_fn  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="bundled:minilm")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--against", type=int, default=0, help="the fixed thread count (0: one per core)")
    from explorer.benchmarks import add_results_argument, load_average, record

    add_results_argument(ap)
    args = ap.parse_args(argv)
    load0 = load_average()
    import torch

    from explorer.core.models.loading import load_model
    from explorer.core.threads import INSPECTOR, choose_threads, machine_cores

    cores = machine_cores()
    choice = choose_threads(INSPECTOR, cores, load0)   # the policy alone: no override from the environment
    fixed = args.against or cores
    loaded = load_model(args.model, task="qa")
    tok = loaded.tokenizer
    room = 384 - len(tok(QUESTION, add_special_tokens=False)["input_ids"]) - tok.num_special_tokens_to_add(pair=True)
    cases = [("~200-token passage", probe_fn(loaded, passage_with_tokens(tok, 200), False)),
             ("full 384-token window with attentions", probe_fn(loaded, passage_with_tokens(tok, room), True))]
    counts = {"policy": choice.threads, "fixed": fixed}
    times = {(name, k): [] for name, _ in cases for k in counts}
    for run in range(args.runs + 2):   # the first two: warm-up
        for name, fn in cases:
            for kind, threads in counts.items():
                torch.set_num_threads(threads)
                t0 = time.perf_counter()
                fn()
                if run >= 2:
                    times[(name, kind)].append((time.perf_counter() - t0) * 1000)
    load1 = load_average()
    print(f"model {loaded.describe()}; {cores} cores; load average {load0:.2f} at start, {load1:.2f} at end; policy "
          f"(inspector): {choice.describe()}; against {fixed} threads; {args.runs} runs each, alternating")
    for name, _ in cases:
        pol, fix = np.array(times[(name, "policy")]), np.array(times[(name, "fixed")])
        print(f"  {name}: policy {choice.threads} thread(s) p50 {np.percentile(pol, 50):.1f} ms p95 "
              f"{np.percentile(pol, 95):.1f} ms; {fixed} threads p50 {np.percentile(fix, 50):.1f} ms p95 "
              f"{np.percentile(fix, 95):.1f} ms; {fixed} threads / policy p95 "
              f"{np.percentile(fix, 95) / np.percentile(pol, 95):.2f}x")
        record(args, "bench_threads", case=f"{name}, policy {choice.threads} vs {fixed} threads, {cores} cores",
               ratios={f"{fixed} threads / policy, p95": np.percentile(fix, 95) / np.percentile(pol, 95),
                       f"{fixed} threads / policy, p50": np.percentile(fix, 50) / np.percentile(pol, 50)},
               figures={"policy threads": choice.threads, "policy p50 (ms)": np.percentile(pol, 50),
                        "policy p95 (ms)": np.percentile(pol, 95), f"{fixed} threads p50 (ms)": np.percentile(fix, 50),
                        f"{fixed} threads p95 (ms)": np.percentile(fix, 95)},
               load_start=load0, load_end=load1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

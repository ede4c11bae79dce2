"""Switching heads off on the input in view against a probe of the same input, timed in the same process.

    python scripts/bench_head_masking.py [--model bundled:minilm] [--runs 30] [--threads N] [--results]

What the pages do when a person switches heads off: the unmasked result is already shown, so the masked one is
one more run of the same input with the heads gated (explorer.core.ablation.one_input, ``base=`` the shown
result). Cases:
- QA, a ~200-token passage: probe = ``probe(loaded, q, passage)``; masked = ``mask_qa(..., base=probe result)``
  with 2 heads of the first layer and the whole last layer off;
- classification, one sentence pair: ``class_outputs`` against ``mask_classify(..., base=...)``, same heads.
Both ways run alternately, run by run, so load on the machine hits both alike; the figure is the ratio masked /
probe of the p50 and the p95 (target: within 1.2). Prints figures; asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

import numpy as np  # noqa: E402
from bench_probe import QUESTION, passage_with_tokens  # noqa: E402


def alternate(ways: dict, runs: int, warmup: int = 3) -> dict:
    """{name: milliseconds per run}, the ways called one after another ``runs`` times after ``warmup`` rounds."""
    for _ in range(warmup):
        for fn in ways.values():
            fn()
    times = {name: [] for name in ways}
    for _ in range(runs):
        for name, fn in ways.items():
            t0 = time.perf_counter()
            fn()
            times[name].append((time.perf_counter() - t0) * 1000)
    return times


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="bundled:minilm")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0 = torch default)")
    from explorer.benchmarks import add_results_argument, load_average, record

    add_results_argument(ap)
    args = ap.parse_args(argv)
    load_start = load_average()
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    from explorer.core.ablation.one_input import class_outputs, mask_classify, mask_qa
    from explorer.core.attention.gates import gate_tensor, head_layout
    from explorer.core.models.loading import load_model
    from explorer.core.qa.probe import probe

    qa = load_model(args.model, task="qa")
    layout = head_layout(qa.model)
    gates = gate_tensor(layout, heads=[(0, 0), (0, 1)], layers=[layout.layers - 1])
    passage = passage_with_tokens(qa.tokenizer, 200)
    base = probe(qa, QUESTION, passage)
    cases = {"QA, 200-token passage": {
        "probe": lambda: probe(qa, QUESTION, passage),
        "masked": lambda: mask_qa(qa, QUESTION, passage, gates, base=base)}}
    cls = load_model(args.model, task="classification")
    a, b = "Ada Lovelace was born in London in 1815.", "Ada Lovelace was born in the city of London."
    cbase = class_outputs(cls.model, cls.tokenizer, a, b)
    cases["classification, a sentence pair"] = {
        "probe": lambda: class_outputs(cls.model, cls.tokenizer, a, b),
        "masked": lambda: mask_classify(cls.model, cls.tokenizer, a, gates, b, base=cbase)}
    ratios, figures = {}, {}
    for case, ways in cases.items():
        t = alternate(ways, args.runs)
        p = {name: (float(np.percentile(v, 50)), float(np.percentile(v, 95))) for name, v in t.items()}
        r50, r95 = p["masked"][0] / p["probe"][0], p["masked"][1] / p["probe"][1]
        print(f"{case}: probe p50 {p['probe'][0]:.1f} ms p95 {p['probe'][1]:.1f} ms; masked p50 "
              f"{p['masked'][0]:.1f} ms p95 {p['masked'][1]:.1f} ms; masked / probe p50 {r50:.3f}, p95 {r95:.3f}")
        ratios[f"{case}: masked / probe, p50"] = r50
        ratios[f"{case}: masked / probe, p95"] = r95
        figures[f"{case}: probe p50 (ms)"] = p["probe"][0]
        figures[f"{case}: masked p50 (ms)"] = p["masked"][0]
    record(args, "bench_head_masking", ratios=ratios, figures=figures, load_start=load_start,
           case=f"{args.model}, {int((gates == 0).sum())} of {layout.layers * layout.heads} heads off, "
                f"{args.runs} runs",
           about="heads switched off on the input in view (one gated run beside the shown result) against a probe "
           "of the same input; ratio masked / probe")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

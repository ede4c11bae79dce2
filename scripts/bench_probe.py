"""Probe latency (p50 / p95) with the bundled encoder: a ~200-token window and a full 384-token window,
with and without attentions. Prints figures; asserts nothing about speed.

    python scripts/bench_probe.py [--model bundled:minilm] [--runs 30] [--threads N]
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

QUESTION = "Where was Ada Lovelace born?"
SENTENCE = ("Ada Lovelace was born in London in 1815 and worked with Charles Babbage on the Analytical "
            "Engine, writing what many call the first published program. ")


def passage_with_tokens(tokenizer, n_tokens: int) -> str:
    """Repeat SENTENCE, cut at a word boundary and top up with " a" so the passage has n_tokens tokens."""
    text = SENTENCE * (n_tokens // 10 + 2)
    words = text.split()
    lo, hi = 1, len(words)
    while lo < hi:  # largest prefix with <= n_tokens tokens
        mid = (lo + hi + 1) // 2
        if len(tokenizer(" ".join(words[:mid]), add_special_tokens=False, verbose=False)["input_ids"]) <= n_tokens:
            lo = mid
        else:
            hi = mid - 1
    text = " ".join(words[:lo])
    count = lambda t: len(tokenizer(t, add_special_tokens=False, verbose=False)["input_ids"])  # noqa: E731
    while count(text) < n_tokens and count(text + " a") <= n_tokens:  # top up to exactly n_tokens
        text += " a"
    return text


def bench(loaded, cases: list[tuple[str, str, bool]], runs: int) -> dict[tuple[str, bool], list[float]]:
    """Time probe() for every (name, passage, attentions) case; the cases are interleaved run by run so
    that other load on the machine hits all of them alike. Returns ms per case."""
    from explorer.core.probe import probe

    for _, passage, att in cases:  # warm-up
        for _ in range(2):
            probe(loaded, QUESTION, passage, attentions=att, keep_attentions=None)
    times: dict[tuple[str, bool], list[float]] = {(n, a): [] for n, _, a in cases}
    for _ in range(runs):
        for name, passage, att in cases:
            t0 = time.perf_counter()
            probe(loaded, QUESTION, passage, attentions=att, keep_attentions=None)
            times[(name, att)].append((time.perf_counter() - t0) * 1000)
    return times


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="bundled:minilm")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0 = torch default)")
    args = ap.parse_args()
    import torch

    from explorer.core.models import load_model

    if args.threads:
        torch.set_num_threads(args.threads)
    loaded = load_model(args.model, task="qa")
    tok = loaded.tokenizer
    q_tokens = len(tok(QUESTION, add_special_tokens=False)["input_ids"])
    room = 384 - q_tokens - tok.num_special_tokens_to_add(pair=True)
    cases = [("~200-token passage", passage_with_tokens(tok, 200)),
             ("full 384-token window", passage_with_tokens(tok, room))]
    print(f"model {loaded.describe()}")
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, {args.runs} runs per case "
          f"(2 warm-up each, cases interleaved); load average before: {os.getloadavg()[0]:.2f} (other work on the machine inflates p95)")
    print(f"{'case':24s} {'attentions':>10s} {'windows':>7s} {'tokens':>6s} {'min ms':>8s} {'p50 ms':>8s} "
          f"{'p95 ms':>8s}")
    from explorer.core.probe import probe

    runs = [(name, passage, att) for name, passage in cases for att in (False, True)]
    times = bench(loaded, runs, args.runs)
    for name, passage, att in runs:
        r = probe(loaded, QUESTION, passage)
        ms = np.array(times[(name, att)])
        print(f"{name:24s} {'yes' if att else 'no':>10s} {len(r.windows):7d} {len(r.windows[0]):6d} "
              f"{ms.min():8.1f} {np.percentile(ms, 50):8.1f} {np.percentile(ms, 95):8.1f}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

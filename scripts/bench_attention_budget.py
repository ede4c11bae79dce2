"""Attention memory of one probe on a long passage: raw weights all windows would need, what the probe keeps
under the budget (explorer.core.attention.budget), the probe's time and the time to compute another window
when it is shown. Prints figures; asserts nothing.

    python scripts/bench_attention_budget.py [--model bundled:minilm] [--windows 30] [--budget-mib 256]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

QUESTION = "Where does the river flow?"
SENTENCE = "The river flows past the old mill near the town of Ashford. "


def main(argv: list[str] | None = None) -> int:
    from explorer.benchmarks import add_results_argument, load_average, record
    from explorer.core.attention.budget import attention_bytes
    from explorer.core.units import format_bytes
    from explorer.core.models.loading import load_model
    from explorer.core.qa.probe import probe

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="bundled:minilm")
    ap.add_argument("--windows", type=int, default=30, help="about this many 384-token windows")
    ap.add_argument("--budget-mib", type=float, default=256)
    add_results_argument(ap)
    args = ap.parse_args(argv)
    load0 = load_average()
    loaded = load_model(args.model, "qa")
    cfg = loaded.model.config
    # doc_stride 128 -> each further window adds ~(384 - question - 3 - 128) passage tokens
    passage = SENTENCE * max(1, int(args.windows * 245 / 13))
    budget = int(args.budget_mib * 2 ** 20)
    t0 = time.perf_counter()
    res = probe(loaded, QUESTION, passage, attentions=True, attention_budget=budget)
    t_probe = time.perf_counter() - t0
    lengths = [len(w.tokens) for w in res.windows]
    need16 = attention_bytes(lengths, cfg.num_hidden_layers, cfg.num_attention_heads, 2)
    need32 = attention_bytes(lengths, cfg.num_hidden_layers, cfg.num_attention_heads, 4)
    kept = sum(a.attentions.nbytes for a in res.attention if a.attentions is not None)
    print(f"model {args.model}: {cfg.num_hidden_layers} layers x {cfg.num_attention_heads} heads; "
          f"{len(res.windows)} windows of up to {max(lengths)} tokens")
    print(f"raw attention weights of all windows: {format_bytes(need16)} float16 ({format_bytes(need32)} float32)")
    print(f"kept by the probe (budget {format_bytes(budget)}): {format_bytes(kept)}")
    print(f"note: {res.attention_note or '(within the budget)'}")
    print(f"probe with attentions: {t_probe:.2f} s")
    other = (res.best_window.index + 1) % len(res.windows)
    t0 = time.perf_counter()
    res.attention_weights(other)
    t_lazy = time.perf_counter() - t0
    kept = sum(a.attentions.nbytes for a in res.attention if a.attentions is not None)
    print(f"showing window {other + 1}: computed in {t_lazy * 1000:.0f} ms; kept now {format_bytes(kept)}")
    record(args, "bench_attention_budget", case=f"{args.model}, {len(res.windows)} windows",
           ratios={"kept / all windows' float16 weights": kept / need16 if need16 else 0.0},
           figures={"all windows, float16 (MiB)": need16 / 2 ** 20, "kept (MiB)": kept / 2 ** 20,
                    "probe with attentions (s)": t_probe, "another window computed (ms)": t_lazy * 1000},
           load_start=load0)
    return 0


if __name__ == "__main__":
    sys.exit(main())

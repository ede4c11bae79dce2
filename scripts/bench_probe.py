"""Probe latency against the bare model forward on the same input, timed in the same process.

    python scripts/bench_probe.py [--model bundled:minilm] [--runs 40] [--threads N] [--profile] [--torch-profile]
    py-spy record -o probe.txt --format raw -- python scripts/bench_probe.py --only 384 --runs 60

Two cases, as the inspector runs them:
- a ~200-token passage without attentions: bare forward = ``model(**batch)`` (SDPA) on the window the probe
  builds; probe = ``probe(loaded, q, passage)``;
- a passage filling one full 384-token window with attentions: bare forward = the eager forward with
  ``output_attentions=True`` on that window; probe = ``probe(..., attentions=True, keep_attentions="float16")``
  (what the Attention inspector asks for).
Bare forward and probe run alternately, run by run, so load on the machine hits both alike; the ratio
probe / bare is the figure (target: probe p95 within 20% of the bare forward's p95); with ``--threads 1`` the
ratio of the calls' CPU times too (a loaded machine's other processes do not enter it). ``--profile``
prints the probe's top costs (cProfile, own time) per case. Prints figures; asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
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


def bare_forward_fn(loaded, passage: str, attentions: bool):
    """A function running the bare model on the probe's own (single) window: tokenizing is done here,
    outside the timing; with attentions the forward is eager with output_attentions=True."""
    import torch

    from explorer.core.qa.windows import collate_qa, prepare_qa_features
    from explorer.core.models.loading import eager_attention

    feats = prepare_qa_features([QUESTION], [passage], loaded.tokenizer)
    if len(feats) != 1:
        raise SystemExit(f"the bench passage makes {len(feats)} windows; expected 1")
    model = loaded.model
    device = next(model.parameters()).device
    batch = {k: v.to(device) for k, v in collate_qa(feats, [0], loaded.tokenizer.pad_token_id).items()}

    def run():
        with torch.inference_mode():
            if attentions:
                with eager_attention(model):
                    return model(**batch, output_attentions=True)
            return model(**batch)

    return run, len(feats.input_ids[0])


def probe_fn(loaded, passage: str, attentions: bool):
    from explorer.core.qa.probe import probe

    return lambda: probe(loaded, QUESTION, passage, attentions=attentions,
                         keep_attentions="float16" if attentions else None)


def timed_pairs(pairs: dict, runs: int, warmup: int = 3) -> dict:
    """pairs: name -> (bare_fn, probe_fn). Every run times each case's bare forward then its probe, cases
    interleaved. Returns name -> {"bare": [ms], "probe": [ms]}."""
    for bare, full in pairs.values():
        for _ in range(warmup):
            bare()
            full()
    times = {name: {"bare": [], "probe": [], "bare cpu": [], "probe cpu": []} for name in pairs}
    for _ in range(runs):
        for name, (bare, full) in pairs.items():
            for kind, fn in (("bare", bare), ("probe", full)):
                c0, t0 = time.thread_time(), time.perf_counter()
                fn()
                _synchronize()   # a GPU's work is done when the clock stops
                times[name][kind].append((time.perf_counter() - t0) * 1000)
                times[name][kind + " cpu"].append((time.thread_time() - c0) * 1000)
    return times


def _synchronize() -> None:
    """Wait for the GPU's queued work (no-op on the CPU)."""
    import torch

    if torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.synchronize()


def profile_top(fn, repeats: int = 10, top: int = 14) -> str:
    """cProfile of ``repeats`` calls: the ``top`` functions by own time (ms per call)."""
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(repeats):
        fn()
    prof.disable()
    stats = pstats.Stats(prof)
    rows = sorted(stats.stats.items(), key=lambda kv: -kv[1][2])[:top]
    lines = [f"    {'own ms/call':>11s} {'cum ms/call':>11s}  function"]
    for (path, line, name), (_, ncalls, tottime, cumtime, _) in rows:
        where = f"{os.path.basename(path)}:{line}({name})" if path != "~" else name
        lines.append(f"    {1000 * tottime / repeats:11.2f} {1000 * cumtime / repeats:11.2f}  {where}")
    return "\n".join(lines)


def torch_profile(fn, repeats: int = 5, top: int = 18) -> str:
    """torch.profiler over ``repeats`` calls: the ``top`` operators by self CPU time (ms per call)."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(repeats):
            fn()
    rows = sorted(prof.key_averages(), key=lambda e: -e.self_cpu_time_total)[:top]
    lines = [f"    {'self ms/call':>12s} {'calls/call':>10s}  operator"]
    for e in rows:
        lines.append(f"    {e.self_cpu_time_total / 1000 / repeats:12.2f} {e.count / repeats:10.1f}  {e.key}")
    return "\n".join(lines)


def report_int8(loaded, cases, pairs, runs: int) -> None:
    """The probe on the int8-quantized encoder against the fp32 bare forward (alternating), and its answer."""
    from explorer.core.qa.inference import quantize_int8
    from explorer.core.qa.probe import probe

    q8 = quantize_int8(loaded)
    pairs8 = {name: (pairs[name][0], probe_fn(q8, passage, att)) for name, passage, att in cases}
    times = timed_pairs(pairs8, runs, warmup=min(3, runs))
    print(f"\nint8 (encoder linear layers, torch.ao dynamic quantization); load average {os.getloadavg()[0]:.2f}:")
    for name, passage, att in cases:
        bare, full = np.array(times[name]["bare"]), np.array(times[name]["probe"])
        a32 = probe(loaded, QUESTION, passage).decision().text
        a8 = probe(q8, QUESTION, passage).decision().text
        print(f"  {name}: int8 probe p50 {np.percentile(full, 50):.1f} ms, p95 {np.percentile(full, 95):.1f} ms; "
              f"/ fp32 bare forward p95 {np.percentile(full, 95) / np.percentile(bare, 95):.3f}; answer "
              f"{'identical' if a32 == a8 else f'differs ({a32!r} vs {a8!r})'}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="bundled:minilm")
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0 = torch default)")
    ap.add_argument("--device", default="cpu", help="cpu, cuda, cuda:N or auto (explorer.core.devices)")
    ap.add_argument("--profile", action="store_true", help="also print the probe's top costs (cProfile)")
    ap.add_argument("--torch-profile", action="store_true",
                    help="also print torch.profiler's top operators (self CPU time) of the bare forward and the probe")
    ap.add_argument("--only", choices=("200", "384"), default="",
                    help="run only the probe of one case (--runs times, no timing table): for py-spy record")
    ap.add_argument("--int8", action="store_true",
                    help="also the probe on the int8-quantized model (inference.quantize_int8) against the fp32 "
                         "forward")
    from explorer.benchmarks import add_results_argument, load_average, record

    add_results_argument(ap)
    args = ap.parse_args(argv)
    load0 = load_average()
    import torch

    from explorer.core.models.loading import load_model

    if args.threads:
        torch.set_num_threads(args.threads)
    loaded = load_model(args.model, task="qa")
    from explorer.core.devices import place

    where = place(loaded.model, args.device)
    tok = loaded.tokenizer
    q_tokens = len(tok(QUESTION, add_special_tokens=False)["input_ids"])
    room = 384 - q_tokens - tok.num_special_tokens_to_add(pair=True)
    cases = [("~200-token passage", passage_with_tokens(tok, 200), False),
             ("full 384-token window", passage_with_tokens(tok, room), True)]
    pairs, tokens = {}, {}
    for name, passage, att in cases:
        bare, tokens[name] = bare_forward_fn(loaded, passage, att)
        pairs[name] = (bare, probe_fn(loaded, passage, att))
    if args.only:
        fn = pairs[cases[0 if args.only == "200" else 1][0]][1]
        for _ in range(args.runs):
            fn()
        return 0
    print(f"model {loaded.describe()}; on {where}")
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, {args.runs} runs per case (3 warm-up, bare "
          f"and probe alternating, cases interleaved); load average before: {os.getloadavg()[0]:.2f}")
    times = timed_pairs(pairs, args.runs, warmup=min(3, args.runs))
    print(f"{'case':24s} {'attentions':>10s} {'tokens':>6s} {'what':>6s} {'min ms':>8s} {'p50 ms':>8s} "
          f"{'p95 ms':>8s}")
    for name, _, att in cases:
        for kind in ("bare", "probe"):
            ms = np.array(times[name][kind])
            print(f"{name:24s} {'yes' if att else 'no':>10s} {tokens[name]:6d} {kind:>6s} {ms.min():8.1f} "
                  f"{np.percentile(ms, 50):8.1f} {np.percentile(ms, 95):8.1f}")
    for name, _, att in cases:
        bare, full = np.array(times[name]["bare"]), np.array(times[name]["probe"])
        per_run = full / bare
        print(f"{name}: probe / bare forward  p50 {np.percentile(full, 50) / np.percentile(bare, 50):.3f}  "
              f"p95 {np.percentile(full, 95) / np.percentile(bare, 95):.3f}  (median of per-run ratios "
              f"{np.median(per_run):.3f}; target p95 <= 1.20)")
    if torch.get_num_threads() == 1:   # one thread: its CPU time is the call's, whatever else the machine runs
        for name, _, _ in cases:
            bare, full = np.array(times[name]["bare cpu"]), np.array(times[name]["probe cpu"])
            print(f"{name}: CPU time (1 thread) probe / bare forward  p50 {np.percentile(full, 50) / np.percentile(bare, 50):.3f}"
                  f"  p95 {np.percentile(full, 95) / np.percentile(bare, 95):.3f}  ({np.percentile(full, 50):.1f} vs "
                  f"{np.percentile(bare, 50):.1f} ms at p50)")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    for name, _, att in cases:
        bare, full = np.array(times[name]["bare"]), np.array(times[name]["probe"])
        record(args, "bench_probe", case=f"{name}{' with attentions' if att else ' without attentions'}, "
               f"{torch.get_num_threads()} threads, {where}",
               ratios={"probe / bare forward, p95": np.percentile(full, 95) / np.percentile(bare, 95),
                       "probe / bare forward, p50": np.percentile(full, 50) / np.percentile(bare, 50),
                       "median of per-run ratios": np.median(full / bare)},
               figures={"probe p50 (ms)": np.percentile(full, 50), "probe p95 (ms)": np.percentile(full, 95),
                        "bare forward p50 (ms)": np.percentile(bare, 50), "bare forward p95 (ms)": np.percentile(bare, 95)},
               load_start=load0)
    if args.int8:
        report_int8(loaded, cases, pairs, args.runs)
    if args.torch_profile:
        for name, _, _ in cases:
            for kind, fn in zip(("bare forward", "probe"), pairs[name]):
                print(f"\ntorch.profiler, {name}, {kind} (top self CPU time, 5 calls):")
                print(torch_profile(fn))
    if args.profile:
        for name, _, _ in cases:
            print(f"\nprofile of the probe, {name} (top own time, 10 calls):")
            print(profile_top(pairs[name][1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

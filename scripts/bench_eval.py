"""Benchmark: our batched SQuAD eval vs one question at a time, and the tau sweep on 12k questions.

    python scripts/bench_eval.py                      # first 200 questions of the v2.0 dev subset
    python scripts/bench_eval.py --n 100 --model bundled:minilm --data path/to/dev.json

Baseline = what transformers' removed question-answering pipeline did: one question at a time, its
windows padded to max_seq_length (run_qa.py style), then run_qa.py's post-processing (Python loops
over the 20 best start x 20 best end indexes per window, min null score over windows). Ours =
explorer.core.inference.predict_squad (windows sorted by length, dynamic padding, batches) +
explorer.core.decoding.decode_predictions (vectorised). Same model, same questions, same settings.
Prints figures; asserts nothing about speed. Numbers depend on the machine's load.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

DEFAULT_DATA = "/work/shared/data/squad_v2.0/dev-subset.json"


def run_qa_postprocess(context, offsets, start_logits, end_logits, n_best_size=20, max_answer_length=30):
    """run_qa.py / utils_qa.postprocess_qa_predictions for one example (Python loops), v2 null handling."""
    min_null = None
    preds = []
    for k in range(len(offsets)):
        s, e, offs = start_logits[k], end_logits[k], offsets[k]
        null = s[0] + e[0]
        if min_null is None or null < min_null["score"]:
            min_null = {"offsets": (0, 0), "score": null, "start_logit": s[0], "end_logit": e[0]}
        start_idx = np.argsort(s)[-1:-n_best_size - 1:-1].tolist()
        end_idx = np.argsort(e)[-1:-n_best_size - 1:-1].tolist()
        for i in start_idx:
            for j in end_idx:
                if i >= len(offs) or j >= len(offs) or offs[i] is None or len(offs[i]) < 2 \
                        or offs[j] is None or len(offs[j]) < 2:
                    continue
                if j < i or j - i + 1 > max_answer_length:
                    continue
                preds.append({"offsets": (offs[i][0], offs[j][1]), "score": s[i] + e[j],
                              "start_logit": s[i], "end_logit": e[j]})
    preds.append(min_null)
    preds = sorted(preds, key=lambda x: x["score"], reverse=True)[:n_best_size]
    for p in preds:
        p["text"] = context[p["offsets"][0]:p["offsets"][1]]
    best_non_null = next((p for p in preds if p["text"]), None)
    diff = (best_non_null["score"] if best_non_null else -np.inf) - min_null["score"]
    return (best_non_null["text"] if best_non_null else ""), diff


def one_at_a_time(loaded, rows, max_seq_length=384, doc_stride=128):
    import torch

    tok, model = loaded.tokenizer, loaded.model
    out = {}
    with torch.inference_mode():
        for r in rows:
            enc = tok(r["question"].lstrip(), r["context"], truncation="only_second", max_length=max_seq_length,
                      stride=doc_stride, return_overflowing_tokens=True, return_offsets_mapping=True,
                      padding="max_length")
            offsets = [[o if enc.sequence_ids(k)[t] == 1 else None for t, o in enumerate(enc["offset_mapping"][k])]
                       for k in range(len(enc["input_ids"]))]
            inputs = {k: torch.tensor(enc[k]) for k in tok.model_input_names if k in enc}
            res = model(**inputs)
            out[r["id"]] = run_qa_postprocess(r["context"], offsets, res.start_logits.numpy(), res.end_logits.numpy())
    return out


def bench_tau_sweep(n=12000, repeats=20):
    from explorer.core.metrics import QuestionScores, tau_sweep

    rng = np.random.default_rng(0)
    has = rng.random(n) < 0.5
    qs = QuestionScores(ids=[f"q{k}" for k in range(n)], score_diff=rng.normal(0, 4, n), has_ans=has,
                        exact_span=(rng.random(n) < 0.6).astype(float), f1_span=rng.random(n),
                        exact_null=(~has).astype(float), f1_null=(~has).astype(float))
    tau_sweep(qs)
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        sweep = tau_sweep(qs)
        times.append(time.perf_counter() - t)
    return 1000 * float(np.median(times)), len(sweep.taus)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="bundled:minilm")
    ap.add_argument("--data", default=DEFAULT_DATA)
    ap.add_argument("--n", type=int, default=200, help="first N questions (default 200)")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--bf16", action="store_true", help="also time our batched eval with bf16 autocast")
    ap.add_argument("--skip-model", action="store_true", help="only the tau sweep timing")
    args = ap.parse_args(argv)

    import torch

    ms, n_taus = bench_tau_sweep()
    print(f"tau sweep: 12,000 synthetic questions x {n_taus} taus (-6..+6 step 0.25): {ms:.2f} ms (median of 20)")
    if args.skip_model:
        return 0

    from explorer.core.data.squad import load_squad
    from explorer.core.decoding import decode_predictions
    from explorer.core.inference import predict_squad
    from explorer.core.models import load_model

    ds, _ = load_squad(args.data)
    ds = ds.select(range(min(args.n, len(ds))))
    rows = [dict(r) for r in ds]
    loaded = load_model(args.model)
    print(f"model {args.model}; {len(rows)} questions from {args.data}; torch threads {torch.get_num_threads()}")
    predict_squad(loaded, rows[:4], batch_size=4)  # warm-up

    t = time.perf_counter()
    feats, start, end = predict_squad(loaded, ds, batch_size=args.batch_size)
    ours = decode_predictions(ds, feats, start, end)
    t_ours = time.perf_counter() - t
    print(f"batched (ours, batch {args.batch_size}, dynamic padding): {len(rows) / t_ours:.1f} questions/s "
          f"({t_ours:.1f} s, {len(feats)} windows, mean {np.mean(feats.lengths()):.0f} tokens)")
    if args.bf16:
        t = time.perf_counter()
        f2, s2, e2 = predict_squad(loaded, ds, batch_size=args.batch_size, bf16=True)
        decode_predictions(ds, f2, s2, e2)
        t_bf = time.perf_counter() - t
        print(f"batched + bf16 autocast: {len(rows) / t_bf:.1f} questions/s ({t_bf:.1f} s)")

    t = time.perf_counter()
    base = one_at_a_time(loaded, rows)
    t_base = time.perf_counter() - t
    print(f"one at a time (pipeline-style, padded to 384, run_qa post-processing): "
          f"{len(rows) / t_base:.1f} questions/s ({t_base:.1f} s)")
    print(f"speed-up: {t_base / t_ours:.2f}x")
    same = sum(ours[q].best_text == base[q][0] for q in base)
    close = sum(abs(ours[q].score_diff - base[q][1]) < 1e-3 for q in base)
    print(f"agreement: best span text identical for {same}/{len(base)} questions, "
          f"score_diff within 1e-3 for {close}/{len(base)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

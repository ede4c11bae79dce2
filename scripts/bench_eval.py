"""Benchmark `bert-explorer eval` at scale: questions/s, peak memory, pipeline overhead over the bare forward.

    python scripts/bench_eval.py --concat-dev --cap 2000            # 2,000 of the 12,000-question file
    python scripts/bench_eval.py --concat-dev --bare-sample 4         # all 12,000; bare forward on 1/4 of the batches
    python scripts/bench_eval.py --data dev.json --cap 200 --one-at-a-time 200 --int8

What it does, all with the same model, questions, settings and batches:
1. ``--concat-dev`` writes one SQuAD-format file to /tmp (never into the repo): the shared SQuAD 2.0 and 1.1
   dev files of $EXPLORER_REAL_DATA (articles interleaved, so any --cap mixes both; the v1.1 copies of
   questions that SQuAD 2.0 dev also holds get an id suffix), topped up to ``--total`` questions from the
   SQuAD 2.0 train subset when the dev files hold fewer.
2. Runs the real command, ``python -m explorer eval ... --json``, in a child process: its wall time, its
   own timing breakdown (data load, windows, forward, decoding, files + metrics), questions/s and its peak
   resident memory (getrusage of the child).
3. Runs the bare model (``model(**batch)`` under inference_mode, no attentions) over the same batches
   (inference.batch_order), once before and once after the child; their mean is the forward reference.
   Pipeline overhead = (everything eval does after loading the model - bare forward) / bare forward.
4. ``--one-at-a-time N``: the batched-vs-one-question-at-a-time figure on the first N questions (what the
   removed transformers pipeline did: windows padded to 384, run_qa.py post-processing).
5. ``--int8``: int8 dynamic quantization (inference.quantize_int8) against fp32 on the same batches
   (alternating batch by batch): forward speed ratio, share of identical answers and the F1 difference.
Prints figures (with the load average); asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DEFAULT_DATA = "/work/shared/data/squad_v2.0/dev-subset.json"
CONCAT_PATH = Path("/tmp/bert-explorer-bench/dev-concat.json")


def _articles(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["data"]


def _n_questions(articles: list[dict]) -> int:
    return sum(len(p["qas"]) for a in articles for p in a["paragraphs"])


def build_concat(real_data: Path, total: int, out: Path = CONCAT_PATH) -> tuple[Path, str]:
    """Write the concatenated dev file (see the module doc); returns (path, a one-line description)."""
    v2 = sorted((real_data / "squad_v2.0").glob("dev*.json"))
    v1 = sorted((real_data / "squad_v1.1").glob("dev*.json"))
    if not v2 and not v1:
        raise SystemExit(f"no SQuAD dev files under {real_data}/squad_v2.0 or {real_data}/squad_v1.1")
    sources = [(p, _articles(p)) for p in v2 + v1]
    seen: set[str] = set()
    renamed = 0
    for _, articles in sources:           # ids stay unique: a repeated question gets a suffix
        for a in articles:
            for p in a["paragraphs"]:
                for q in p["qas"]:
                    if q["id"] in seen:
                        q["id"] = f"{q['id']}-dup{renamed}"
                        renamed += 1
                    seen.add(q["id"])
    merged = []
    for k in range(max(len(a) for _, a in sources)):    # articles interleaved: any prefix mixes the files
        merged.extend(articles[k] for _, articles in sources if k < len(articles))
    parts = [f"{p.relative_to(real_data)} ({_n_questions(a):,})" for p, a in sources]
    missing = total - _n_questions(merged)
    train = real_data / "squad_v2.0" / "train-subset.json"
    if missing > 0 and train.exists():
        extra, n = [], 0
        for a in _articles(train):
            if n >= missing:
                break
            paragraphs = []
            for p in a["paragraphs"]:
                qas = p["qas"][:missing - n]
                n += len(qas)
                if qas:
                    paragraphs.append({**p, "qas": qas})
                if n >= missing:
                    break
            extra.append({**a, "paragraphs": paragraphs})
        merged.extend(extra)
        parts.append(f"{train.relative_to(real_data)} (first {n:,}, to reach {total:,})")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"version": "v2.0", "data": merged}), encoding="utf-8")
    return out, f"{_n_questions(merged):,} questions: " + " + ".join(parts) + f"; {renamed} repeated ids renamed"


def bare_batches(loaded, questions, contexts, batch_size: int, sample: int):
    """The collated batches eval runs (same windows, same order), every ``sample``-th one; and the count."""
    from explorer.core.qa.windows import collate_qa, prepare_qa_features
    from explorer.core.qa.inference import batch_order

    feats = prepare_qa_features(questions, contexts, loaded.tokenizer)
    order = batch_order(feats.lengths(), batch_size)
    pad = loaded.tokenizer.pad_token_id or 0
    return [collate_qa(feats, idx, pad) for idx in order[::sample]], len(order), feats


def time_bare(model, batches) -> float:
    """Seconds for the bare forward over the batches (inference_mode, no attentions)."""
    import torch

    t0 = time.perf_counter()
    with torch.inference_mode():
        for batch in batches:
            model(**batch)
    return time.perf_counter() - t0


def run_eval_child(model: str, data: Path, cap: int | None, batch_size: int, out: Path):
    """`python -m explorer eval ... --json` in a child process -> (result dict, wall seconds, peak RSS MiB)."""
    cmd = [sys.executable, "-m", "explorer", "eval", "--model", model, "--data", str(data), "--out", str(out),
           "--batch-size", str(batch_size), "--json"]
    cmd += ["--cap", str(cap)] if cap else []
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(ROOT))
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"eval failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024   # Linux: KiB
    return json.loads(proc.stdout), wall, peak_mib


RECORDED: dict = {"ratios": {}, "figures": {}}   # what --results writes (explorer.benchmarks)


def report_scale(args, loaded, data: Path) -> dict:
    """Steps 2 and 3 of the module doc; prints the figures and returns the child's result."""
    from explorer.core.data.squad import load_squad

    ds, _ = load_squad(str(data))
    if args.cap:
        ds = ds.select(range(min(args.cap, len(ds))))
    batches, n_batches, feats = bare_batches(loaded, list(ds["question"]), list(ds["context"]), args.batch_size,
                                             args.bare_sample)
    scale = n_batches / len(batches)
    time_bare(loaded.model, batches[:2])   # warm-up
    before = time_bare(loaded.model, batches) * scale
    load_before = os.getloadavg()[0]
    result, wall, peak = run_eval_child(args.model, data, args.cap, args.batch_size, Path(args.out))
    after = time_bare(loaded.model, batches) * scale
    bare = (before + after) / 2
    sp, t = result["speed"], result["speed"]["timing"]
    pipeline = t["data_load"] + t["windows"] + t["forward"] + t["decoding"] + t["files_and_metrics"]
    n = sp["questions"]
    print(f"\neval over {n:,} questions, {sp['windows']:,} windows (mean {np.mean(feats.lengths()):.0f} tokens), "
          f"batch {args.batch_size}; load average {load_before:.2f} before / {os.getloadavg()[0]:.2f} after")
    print(f"  questions/s (eval's own figure: windows + forward + decoding): {sp['questions_per_second']:.2f}")
    print(f"  whole command: {wall:.1f} s wall = {n / wall:.2f} questions/s (process start, imports and model "
          f"load {t['model_load']:.1f} s included); peak resident memory {peak:,.0f} MiB")
    print("  eval's time: " + ", ".join(f"{k} {v:.1f} s" for k, v in t.items()))
    print(f"  bare forward over the same {n_batches} batches: {bare:.1f} s (before {before:.1f}, after {after:.1f}"
          f"{f'; timed on every {args.bare_sample}th batch, scaled' if args.bare_sample > 1 else ''})")
    print(f"  pipeline overhead over the bare forward: {100 * (pipeline - bare) / bare:+.1f}% "
          f"(everything after the model load: {pipeline:.1f} s; the forward loop alone "
          f"{100 * (t['forward'] - bare) / bare:+.1f}%; target <= +10%)")
    RECORDED["ratios"]["pipeline / bare forward"] = pipeline / bare
    RECORDED["figures"].update({"questions": n, "questions/s": sp["questions_per_second"], "peak resident MiB": peak,
                                "bare forward (s)": bare, **{f"{k} (s)": v for k, v in t.items()}})
    return result


def report_one_at_a_time(loaded, data: Path, n: int, batch_size: int) -> None:
    """The batched-vs-one-question-at-a-time figure on the first n questions."""
    from explorer.core.data.squad import load_squad
    from explorer.core.qa.decoding import decode_predictions
    from explorer.core.qa.inference import predict_squad

    ds, _ = load_squad(str(data))
    ds = ds.select(range(min(n, len(ds))))
    rows = [dict(r) for r in ds]
    predict_squad(loaded, rows[:4], batch_size=4)  # warm-up
    t = time.perf_counter()
    feats, start, end = predict_squad(loaded, ds, batch_size=batch_size)
    ours = decode_predictions(ds, feats, start, end)
    t_ours = time.perf_counter() - t
    t = time.perf_counter()
    base = one_at_a_time(loaded, rows)
    t_base = time.perf_counter() - t
    same = sum(ours[q].best_text == base[q][0] for q in base)
    print(f"\nbatched vs one question at a time, first {len(rows)} questions (load average {os.getloadavg()[0]:.2f}):")
    print(f"  batched (batch {batch_size}, length-sorted dynamic padding): {len(rows) / t_ours:.1f} questions/s; "
          f"one at a time (padded to 384, run_qa post-processing): {len(rows) / t_base:.1f} questions/s; "
          f"speed-up {t_base / t_ours:.2f}x; best span identical for {same}/{len(base)}")
    RECORDED["ratios"]["batched / one question at a time"] = t_base / t_ours


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
    """What the removed question-answering pipeline did: one question at a time, padded to 384."""
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


def report_int8(loaded, data: Path, cap: int | None, batch_size: int, sample: int) -> None:
    """int8 dynamic quantization vs fp32: forward speed (alternating batches), identical answers, F1."""
    from explorer.core.data.squad import gold_answers, load_squad, squad_version
    from explorer.core.qa.decoding import decode_predictions, predictions_at
    from explorer.core.qa.inference import predict_squad, quantize_int8
    from explorer.core.qa.scores import evaluate_decodings

    ds, _ = load_squad(str(data))
    if cap:
        ds = ds.select(range(min(cap, len(ds))))
    q8 = quantize_int8(loaded)
    batches, n_batches, feats = bare_batches(loaded, list(ds["question"]), list(ds["context"]), batch_size, sample)
    time_bare(q8.model, batches[:2])
    t32 = t8 = 0.0
    for batch in batches:   # alternating, so load on the machine hits both alike
        t32 += time_bare(loaded.model, [batch])
        t8 += time_bare(q8.model, [batch])
    gold = gold_answers(ds)
    version = squad_version(ds)
    tau = 0.0 if version == "v2.0" else None
    results = {}
    for name, lm in (("fp32", loaded), ("int8", q8)):
        f, s, e = predict_squad(lm, ds, batch_size=batch_size, features=feats)
        dec = decode_predictions(ds, f, s, e)
        results[name] = (predictions_at(dec, tau), evaluate_decodings(dec, gold, tau=0.0, version=version))
    (p32, m32), (p8, m8) = results["fp32"], results["int8"]
    same = sum(p32[q] == p8[q] for q in p32)
    print(f"\nint8 dynamic quantization (encoder linear layers; torch.ao quantize_dynamic), {len(ds):,} questions, "
          f"{len(batches)} of {n_batches} batches timed alternately (load average {os.getloadavg()[0]:.2f}):")
    print(f"  forward: fp32 {t32:.1f} s, int8 {t8:.1f} s -> int8 speed {t32 / t8:.2f}x")
    print(f"  identical answers {same}/{len(p32)} ({100 * same / len(p32):.1f}%; target >= 98%); "
          f"F1 fp32 {m32['f1']:.2f}, int8 {m8['f1']:.2f} (difference {m8['f1'] - m32['f1']:+.2f}); "
          f"EM {m32['exact_match']:.2f} / {m8['exact_match']:.2f}")


def bench_tau_sweep(n=12000, repeats=20):
    from explorer.core.qa.scores import QuestionScores, tau_sweep

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
    ap.add_argument("--data", default=DEFAULT_DATA, help="a SQuAD JSON file (ignored with --concat-dev)")
    ap.add_argument("--concat-dev", action="store_true", help="build the 12k-question file from $EXPLORER_REAL_DATA")
    ap.add_argument("--total", type=int, default=12000, help="questions in the --concat-dev file (default 12000)")
    ap.add_argument("--cap", "--n", type=int, default=None, help="evaluate the first N questions only (eval --cap)")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--bare-sample", type=int, default=1, help="time the bare forward on every Nth batch (scaled)")
    ap.add_argument("--one-at-a-time", type=int, default=0, help="also the batched vs one-at-a-time figure on N")
    ap.add_argument("--int8", action="store_true", help="also int8 vs fp32: speed, identical answers, F1")
    ap.add_argument("--skip-eval", action="store_true", help="skip the eval run (only the other figures)")
    ap.add_argument("--out", default="/tmp/bert-explorer-bench/eval_out")
    from explorer.benchmarks import add_results_argument, load_average, record

    add_results_argument(ap)
    args = ap.parse_args(argv)
    load0 = load_average()
    import torch

    ms, n_taus = bench_tau_sweep()
    RECORDED["figures"]["τ sweep, 12,000 questions (ms)"] = ms
    print(f"tau sweep: 12,000 synthetic questions x {n_taus} taus (-6..+6 step 0.25): {ms:.2f} ms (median of 20)")
    data = Path(args.data)
    if args.concat_dev:
        real = os.environ.get("EXPLORER_REAL_DATA")
        if not real:
            raise SystemExit("--concat-dev needs EXPLORER_REAL_DATA (the folder with squad_v2.0/ and squad_v1.1/)")
        data, what = build_concat(Path(real), args.total)
        print(f"data: {data}: {what}")
    from explorer.core.models.loading import load_model

    loaded = load_model(args.model, task="qa")
    print(f"model {args.model}; torch {torch.__version__}, {torch.get_num_threads()} threads; "
          f"load average {os.getloadavg()[0]:.2f}")
    if not args.skip_eval:
        report_scale(args, loaded, data)
    if args.one_at_a_time:
        report_one_at_a_time(loaded, data, args.one_at_a_time, args.batch_size)
    if args.int8:
        report_int8(loaded, data, args.cap, args.batch_size, args.bare_sample)
    print(f"\nthis process: peak resident memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MiB")
    record(args, "bench_eval", case=f"{args.model}, {data.name}" + (f", first {args.cap:,}" if args.cap else ""),
           ratios=RECORDED["ratios"], figures=RECORDED["figures"], load_start=load0)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark: our fine-tuning loop vs Hugging Face Trainer, same model, data and hyperparameters.

    python scripts/bench_train.py                       # 12 steps per variant over 2,000 questions
    python scripts/bench_train.py --steps 40            # steadier figures, longer
    python scripts/bench_train.py --variants ours,trainer-dynamic-fp32
    python scripts/bench_train.py --steps 0 --questions 500    # whole epochs over 500 questions

Everything runs in this one process, one variant after another, each from the same pre-trained
weights (``bundled:minilm`` by default) on the same first N questions of
../shared/data/squad_v1.1/train-subset.json (tokenized into windows the same way), batch 32, lr 3e-5,
warmup 10%, weight decay 0.01, clipping 1.0, seed 42, max_seq_length 384, doc_stride 128, for
``--steps`` optimizer steps (0 = one epoch). Why a step count over a large pool rather than an epoch
over a few questions: how much padding each loop pays depends on the length mix of its batches, and
a pool of a few hundred windows is too small for either random or length-grouped batches to look
like a real run; 12 batches drawn from 2,000 questions do.

bf16 variants are skipped by default on a CPU without AMX (bf16 matmul is then emulated and several
times slower than fp32; "ours" resolves to fp32 there); name them in --variants to run them anyway.

Variants:
  ours             explorer.core.training.loop.train with our defaults (length-grouped dynamic padding,
                   SDPA, mixed_precision "auto": bf16 autocast only where bf16 matmul is fast)
  ours-fp32        ... with mixed_precision no
  ours-bf16        ... with mixed_precision bf16
  ours-dropout0    ... with dropout 0 (no dropout masks, PyTorch's fused attention)
  trainer-padded-fp32, trainer-padded-bf16     Trainer, run_qa.py preprocessing padded to 384
  trainer-dynamic-fp32, trainer-dynamic-bf16   Trainer, run_qa.py preprocessing without padding +
                                               DataCollatorWithPadding (dynamic padding, random batches)

Throughput = training windows (features) per second, timed from the end of the first optimizer step
to the end of the epoch (the first step pays one-off kernel set-up in every variant). Prints figures
and ratios against trainer-dynamic-fp32; asserts nothing. Figures depend on the machine and its load
(the load average is printed).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

_DATA_DIR = Path(os.environ.get("EXPLORER_REAL_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
DEFAULT_DATA = str(_DATA_DIR / "squad_v1.1" / "train-subset.json")
DEFAULT_DEV = str(_DATA_DIR / "squad_v1.1" / "dev-part1.json")
ALL_VARIANTS = ["trainer-padded-fp32", "trainer-dynamic-fp32", "ours", "ours-fp32",
                "trainer-dynamic-bf16", "ours-bf16", "trainer-padded-bf16", "ours-dropout0"]
BASELINE = "trainer-dynamic-fp32"


def write_subset(src: str, n: int, out: Path) -> int:
    """The first n questions of an official SQuAD file, as an official SQuAD file."""
    data = json.loads(Path(src).read_text(encoding="utf-8"))
    left, articles = n, []
    for art in data["data"]:
        paras = []
        for p in art["paragraphs"]:
            qas = p["qas"][:left]
            left -= len(qas)
            if qas:
                paras.append({"context": p["context"], "qas": qas})
            if left <= 0:
                break
        if paras:
            articles.append({"title": art["title"], "paragraphs": paras})
        if left <= 0:
            break
    out.write_text(json.dumps({"version": data.get("version", "1.1"), "data": articles}), encoding="utf-8")
    return n - left


def dev_scores(model, tokenizer, dev_file: str, n_questions: int, max_seq_length: int, doc_stride: int) -> dict:
    """exact_match and f1 of a trained QA model on the first n_questions of dev_file, decoded and scored the
    same way for every variant (explorer.core.qa.inference / decoding / metrics: the official v1.1 logic)."""
    from explorer.core.data.squad import gold_answers, load_squad
    from explorer.core.qa.decoding import decode_predictions
    from explorer.core.qa.inference import predict_squad
    from explorer.core.qa.scores import evaluate_decodings

    ds, _ = load_squad(dev_file)
    ds = ds.select(range(min(n_questions, len(ds))))
    features, start, end = predict_squad(model, ds, tokenizer=tokenizer, max_seq_length=max_seq_length,
                                         doc_stride=doc_stride)
    decodings = decode_predictions(ds, features, start, end)
    m = evaluate_decodings(decodings, gold_answers(ds), version="v1.1")
    return {"exact_match": float(m.get("exact_match", m.get("exact"))), "f1": float(m["f1"]), "questions": len(ds)}


def matmul_gflops(seconds: float = 3.0, n: int = 1024) -> float:
    """The CPU's fp32 matmul rate in GFLOP/s: repeated n x n @ n x n products for about ``seconds``."""
    import torch

    a, b = torch.randn(n, n), torch.randn(n, n)
    torch.mm(a, b)
    done, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        torch.mm(a, b)
        done += 1
    return 2 * n ** 3 * done / (time.perf_counter() - t0) / 1e9


def train_flops_per_window(model_path: str, mean_tokens: float) -> float:
    """Training FLOPs of one window of ``mean_tokens`` real tokens: 3 x (forward matmuls) = 6 x the encoder's
    non-embedding weights x tokens, plus the attention products (q k^T and probs v: 4 x L^2 x hidden per
    layer forward, x 3 with the backward). Padding is not counted: this is the useful work."""
    from transformers import AutoConfig

    c = AutoConfig.from_pretrained(model_path)
    per_layer = 4 * c.hidden_size ** 2 + 2 * c.hidden_size * c.intermediate_size
    weights = c.num_hidden_layers * per_layer
    attention = c.num_hidden_layers * 4 * mean_tokens ** 2 * c.hidden_size
    return 3 * (2 * weights * mean_tokens + attention)


def mean_window_tokens(model_path: str, train_file, args) -> float:
    """Mean real tokens per training window of the pool (run_qa.py windows, no padding)."""
    from transformers import AutoTokenizer

    from explorer.core.data.squad import load_squad

    ds, _ = load_squad(str(train_file))
    tok = AutoTokenizer.from_pretrained(model_path)
    enc = run_qa_train_features(tok, list(ds["question"]), list(ds["context"]), list(ds["answers"]),
                                args.max_seq_length, args.doc_stride, False)
    return sum(len(x) for x in enc["input_ids"]) / len(enc["input_ids"])


# ---- Hugging Face Trainer with run_qa.py-style preprocessing -------------------------------------
def run_qa_train_features(tokenizer, questions, contexts, answers, max_len, stride, pad):
    """run_qa.py prepare_train_features (question first, only_second truncation, labels by offsets)."""
    enc = tokenizer([q.lstrip() for q in questions], contexts, truncation="only_second", max_length=max_len,
                    stride=stride, return_overflowing_tokens=True, return_offsets_mapping=True,
                    padding="max_length" if pad else False)
    sample_map = enc.pop("overflow_to_sample_mapping")
    offsets_all = enc.pop("offset_mapping")
    enc["start_positions"], enc["end_positions"] = [], []
    for i, offsets in enumerate(offsets_all):
        ids = enc["input_ids"][i]
        cls = ids.index(tokenizer.cls_token_id)
        seq = enc.sequence_ids(i)
        ans = answers[sample_map[i]]
        start_char = ans["answer_start"][0]
        end_char = start_char + len(ans["text"][0])
        ts = 0
        while seq[ts] != 1:
            ts += 1
        te = len(ids) - 1
        while seq[te] != 1:
            te -= 1
        if not (offsets[ts][0] <= start_char and offsets[te][1] >= end_char):
            enc["start_positions"].append(cls)
            enc["end_positions"].append(cls)
        else:
            while ts < len(offsets) and offsets[ts][0] <= start_char:
                ts += 1
            enc["start_positions"].append(ts - 1)
            while offsets[te][1] >= end_char:
                te -= 1
            enc["end_positions"].append(te + 1)
    return enc


def bench_trainer(model_path, train_file, args, padded: bool, bf16: bool) -> dict:
    import datasets
    from transformers import (AutoModelForQuestionAnswering, AutoTokenizer, DataCollatorWithPadding, Trainer,
                              TrainerCallback, TrainingArguments, default_data_collator)

    from explorer.core.data.squad import load_squad

    ds, _ = load_squad(str(train_file))
    tok = AutoTokenizer.from_pretrained(model_path)
    enc = run_qa_train_features(tok, list(ds["question"]), list(ds["context"]), list(ds["answers"]), args.max_seq_length,
                                args.doc_stride, padded)
    train = datasets.Dataset.from_dict({k: list(v) for k, v in enc.items()})
    model = AutoModelForQuestionAnswering.from_pretrained(model_path, attn_implementation="sdpa")
    times: list[float] = []

    class Clock(TrainerCallback):
        def on_step_end(self, a, state, control, **kw):
            times.append(time.perf_counter())

    with tempfile.TemporaryDirectory() as out:
        targs = TrainingArguments(output_dir=out, per_device_train_batch_size=args.batch_size,
                                  learning_rate=args.learning_rate, num_train_epochs=1, weight_decay=0.01,
                                  max_steps=args.steps if args.steps > 0 else -1,
                                  warmup_steps=0.1, max_grad_norm=1.0, lr_scheduler_type="linear", seed=args.seed,
                                  save_strategy="no", eval_strategy="no", report_to="none", use_cpu=True,
                                  bf16=bf16, logging_steps=10_000, disable_tqdm=True, dataloader_num_workers=0)
        collator = default_data_collator if padded else DataCollatorWithPadding(tok)
        trainer = Trainer(model=model, args=targs, train_dataset=train, data_collator=collator,
                          callbacks=[Clock()])
        t0 = time.perf_counter()
        result = trainer.train()
        total = time.perf_counter() - t0
    n = len(train)
    done = min(n, len(times) * args.batch_size)
    timed = done - args.batch_size  # steps 2..N (the random sampler's last batch is the partial one)
    out = {"features": n, "steps": len(times), "seconds_total": total,
           "samples_per_second": timed / (times[-1] - times[0]) if len(times) > 1 else n / total,
           "train_loss": float(result.training_loss)}
    if args.dev_questions:
        out["dev"] = dev_scores(model, tok, args.dev, args.dev_questions, args.max_seq_length, args.doc_stride)
    return out


# ---- our loop -----------------------------------------------------------------------------------
class _Capture:
    enabled = True

    def __init__(self):
        self.events: list[dict] = []

    def emit(self, event, **fields):
        fields = dict(fields, event=event, t=time.perf_counter())
        self.events.append(fields)
        return fields


def bench_ours(model_source, train_file, args, mixed_precision: str, dropout: float = 0.1) -> dict:
    from explorer.core.specs.train_config import TrainConfig
    from explorer.core.training.loop import train

    cfg = TrainConfig(model=model_source, task="squad_v1", train=str(train_file), dev="", epochs=1.0,
                      max_steps=max(0, args.steps),
                      batch_size=args.batch_size, learning_rate=args.learning_rate, seed=args.seed,
                      max_seq_length=args.max_seq_length, doc_stride=args.doc_stride,
                      mixed_precision=mixed_precision, save_checkpoints=bool(args.dev_questions), log_every=1,
                      dropout=dropout)
    cap = _Capture()
    dev = None
    with tempfile.TemporaryDirectory() as run_dir, contextlib.redirect_stdout(io.StringIO()):
        t0 = time.perf_counter()
        train(cfg, run_dir, cap)
        total = time.perf_counter() - t0
        if args.dev_questions:   # the model the run ended with (checkpoints/last), scored like the Trainer's
            from explorer.core.models.loading import load_model
            from explorer.core.runs.layout import checkpoint_path

            loaded = load_model(str(checkpoint_path(run_dir, "last")), task="qa")
            dev = dev_scores(loaded.model, loaded.tokenizer, args.dev, args.dev_questions, args.max_seq_length,
                             args.doc_stride)
    started = next(e for e in cap.events if e["event"] == "started")
    steps = [e for e in cap.events if e["event"] == "step"]
    # samples in step k = samples_per_second x its interval (what the loop measured)
    timed = sum(s["samples_per_second"] * (s["t"] - p["t"]) for p, s in zip(steps, steps[1:]))
    span = steps[-1]["t"] - steps[0]["t"]
    return {"features": started["num_train_features"], "steps": len(steps), "seconds_total": total,
            "samples_per_second": timed / span if span > 0 else float("nan"),
            "train_loss": sum(s["loss"] for s in steps) / len(steps), "mixed_precision": started["mixed_precision"],
            **({"dev": dev} if dev else {})}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="bundled:minilm")
    p.add_argument("--data", default=DEFAULT_DATA)
    p.add_argument("--questions", type=int, default=2000, help="pool: the first N train questions (2000)")
    p.add_argument("--steps", type=int, default=12, help="optimizer steps per variant (12; 0 = one epoch)")
    p.add_argument("--variants", default="", help=f"comma-separated, from {ALL_VARIANTS} (default: all; "
                   "bf16 ones only with AMX)")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--learning-rate", type=float, default=3e-5)
    p.add_argument("--max-seq-length", type=int, default=384)
    p.add_argument("--doc-stride", type=int, default=128)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--dev", default=DEFAULT_DEV, help="SQuAD v1.1 dev file for --dev-questions")
    p.add_argument("--dev-questions", type=int, default=0,
                   help="after training, score each variant's model on the first N questions of --dev (0 = skip)")
    from explorer.benchmarks import add_results_argument, load_average, record

    add_results_argument(p)
    args = p.parse_args(argv)
    load0 = load_average()

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    import torch

    from explorer.core.models.sources import resolve_source
    from explorer.core.training.precision import cpu_has_amx, resolve_mixed_precision

    model_path = resolve_source(args.model)
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    if not variants:
        variants = [v for v in ALL_VARIANTS if cpu_has_amx() or torch.cuda.is_available() or not v.endswith("bf16")]
        auto = resolve_mixed_precision("auto", "cuda" if torch.cuda.is_available() else "cpu")
        variants = [v for v in variants if v != {"no": "ours-fp32", "bf16": "ours-bf16"}.get(auto)]
        skipped = [v for v in ALL_VARIANTS if v not in variants]
        if skipped:
            print(f"skipping {', '.join(skipped)} (bf16 without AMX is emulated; ours = ours-{auto}); name them to run")
    unknown = set(variants) - set(ALL_VARIANTS)
    if unknown:
        p.error(f"unknown variants {sorted(unknown)}; choose from {ALL_VARIANTS}")
    tmp = Path(tempfile.mkdtemp(prefix="bench-train-"))
    n = write_subset(args.data, args.questions, tmp / "train.json")
    print(f"model {args.model}; {n} questions of {args.data}; batch {args.batch_size}, lr {args.learning_rate}, "
          f"max_seq_length {args.max_seq_length}, doc_stride {args.doc_stride}, "
          f"{f'{args.steps} steps' if args.steps > 0 else '1 epoch'} per variant")
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, AMX: {cpu_has_amx()}, "
          f"mixed_precision auto -> {resolve_mixed_precision('auto', 'cpu')}, load average {os.getloadavg()[0]:.2f}")
    results = {}
    for v in variants:
        t0 = time.perf_counter()
        if v.startswith("trainer"):
            r = bench_trainer(model_path, tmp / "train.json", args, padded="padded" in v, bf16=v.endswith("bf16"))
        else:
            mp = {"ours": "auto", "ours-fp32": "no", "ours-bf16": "bf16", "ours-dropout0": "auto"}[v]
            r = bench_ours(args.model, tmp / "train.json", args, mp, dropout=0.0 if v == "ours-dropout0" else 0.1)
        results[v] = r
        extra = f" (mixed_precision {r['mixed_precision']})" if "mixed_precision" in r else ""
        if "dev" in r:
            extra += f"; dev exact_match {r['dev']['exact_match']:.2f} f1 {r['dev']['f1']:.2f} ({r['dev']['questions']} q)"
        print(f"{v:22s} {r['samples_per_second']:6.2f} samples/s  {r['steps']} steps over {r['features']} windows, "
              f"{r['seconds_total']:.0f} s in train, mean loss {r['train_loss']:.3f}{extra}  "
              f"[{time.perf_counter() - t0:.0f} s with set-up; load {os.getloadavg()[0]:.2f}]", flush=True)
    if BASELINE in results:
        base = results[BASELINE]["samples_per_second"]
        print(f"\nratios against {BASELINE} ({base:.2f} samples/s):")
        for v, r in results.items():
            print(f"  {v:22s} {r['samples_per_second'] / base:5.2f}x")
    tokens = mean_window_tokens(model_path, tmp / "train.json", args)
    per_window = train_flops_per_window(model_path, tokens)
    peak = matmul_gflops()
    print(f"\nuseful work: {tokens:.0f} real tokens per window on average, {per_window / 1e9:.1f} GFLOP per window "
          f"(forward + backward); fp32 matmul rate of this CPU now: {peak:.0f} GFLOP/s (1024^3 torch.mm, "
          f"{torch.get_num_threads()} threads; load {os.getloadavg()[0]:.2f})")
    for v, r in results.items():
        rate = r["samples_per_second"] * per_window / 1e9
        print(f"  {v:22s} {rate:6.1f} GFLOP/s of useful work = {100 * rate / peak:4.1f}% of the matmul rate")
    ratios, figures = {}, {}
    for v, r in results.items():
        if BASELINE in results and v != BASELINE:
            ratios[f"{v} / {BASELINE} (windows/s)"] = r["samples_per_second"] / results[BASELINE]["samples_per_second"]
        ratios[f"{v}: share of the matmul rate"] = r["samples_per_second"] * per_window / 1e9 / peak
        figures[f"{v} windows/s"] = r["samples_per_second"]
        if "dev" in r:
            figures[f"{v} dev EM"], figures[f"{v} dev F1"] = r["dev"]["exact_match"], r["dev"]["f1"]
    figures["fp32 matmul rate (GFLOP/s)"] = peak
    record(args, "bench_train", case=f"batch {args.batch_size}, length {args.max_seq_length}, "
           f"{f'{args.steps} steps' if args.steps > 0 else '1 epoch'}", ratios=ratios, figures=figures, load_start=load0)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Latency of every inspector operation against the bare forward of the same input, timed in the same run.

    python scripts/bench_inspector_latency.py [--model bundled:minilm] [--runs 10] [--texts 1000]
        [--questions 1000] [--squad-dev FILE] [--only NAME ...] [--results]

One row per operation, as the inspector pages call it (explorer.core; no Qt):
- probe: ``probe()`` of a question and a ~200-token passage; bare = ``model(**window)`` on the probe's window;
- attention at 384 tokens: ``probe(attentions=True)`` on a passage that fills one 384-token window; bare = the
  eager forward with ``output_attentions=True`` on that window;
- classify: ``classify_text()`` of a sentence pair (block flow of the attentions); bare = the eager forward
  with hidden states and attentions on the same pair;
- tag: ``tag_texts()`` of one ~60-word text; bare = ``model(**enc)`` on its pieces;
- explain, IG at 20 / 50 / 100 steps: ``explain()`` (Captum IntegratedGradients on the word embeddings' output,
  steps batched per forward by ``internal_batch_size``); bare = the forward and backward passes IG cannot do
  without: the interpolated word embeddings of every step, in the same internal batches, through the model
  and back to the embeddings (target: explain <= 1.3x);
- embeddings of N texts: ``embed_sentences()`` ("cls", every layer); bare = the encoder's forward with hidden
  states over the same batches;
- τ study of N questions: ``run_study()`` (windows, forward, decoding; no cache); bare = the model's forward
  over the same windows in the same batches;
- head masking: ``mask_qa()`` (explorer.core.ablation.one_input) of the probe's question and ~200-token passage with
  2 heads of the first layer and the whole last layer off, beside the shown (unmasked) probe result as the page
  runs it; bare = ``model(**window)`` on the probe's window (scripts/bench_head_masking.py times it against the
  probe).
Bare and operation run alternately, run by run, so load on the machine hits both alike. Figures: wall p50 and
p95 (ms) of each, the ratio operation / bare of the p50s, and the ratio of the process CPU times (every
thread of this process: what other processes' load does not enter); ``--threads 1`` keeps torch from competing
with itself for the cores other processes hold. Asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import numpy as np  # noqa: E402

PAIR = ("A man in a red coat is walking his dog along the beach at sunset.",
        "Someone is outside with an animal near the sea.")
TAG_TEXT = ("Ada Lovelace worked with Charles Babbage in London on the Analytical Engine , and Luigi Menabrea "
            "wrote about it in Turin before the Royal Society in Edinburgh heard of it . ") * 2
SENTENCES = ("the film was a quiet delight from start to finish", "a dull and overlong story with no surprises",
             "the actors clearly enjoyed every scene they shared", "I would not watch it again for any money",
             "a small film that says a great deal about families")


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def timed_pair(bare, op, runs: int, warmup: int = 1) -> dict:
    """Alternate bare() and op() ``runs`` times after ``warmup`` untimed rounds; wall and process-CPU ms."""
    for _ in range(warmup):
        bare()
        op()
    out = {"bare": [], "op": [], "bare cpu": [], "op cpu": []}
    for _ in range(runs):
        for kind, fn in (("bare", bare), ("op", op)):
            c0, t0 = time.process_time(), time.perf_counter()
            fn()
            out[kind].append((time.perf_counter() - t0) * 1000)
            out[kind + " cpu"].append((time.process_time() - c0) * 1000)
    return out


# ---- the cases: each returns (bare, op) callables --------------------------------------------------------
def case_probe(loaded, attentions: bool):
    from bench_probe import QUESTION, bare_forward_fn, passage_with_tokens, probe_fn

    tok = loaded.tokenizer
    n = 384 - len(tok(QUESTION, add_special_tokens=False)["input_ids"]) - 3 if attentions else 200
    passage = passage_with_tokens(tok, n)
    bare, _ = bare_forward_fn(loaded, passage, attentions)
    return bare, probe_fn(loaded, passage, attentions)


def case_masking(loaded):
    from bench_probe import QUESTION, bare_forward_fn, passage_with_tokens

    from explorer.core.ablation.one_input import mask_qa
    from explorer.core.attention.gates import gate_tensor, head_layout
    from explorer.core.qa.probe import probe

    passage = passage_with_tokens(loaded.tokenizer, 200)
    bare, _ = bare_forward_fn(loaded, passage, False)
    layout = head_layout(loaded.model)
    gates = gate_tensor(layout, heads=[(0, 0), (0, 1)], layers=[layout.layers - 1])
    base = probe(loaded, QUESTION, passage)
    return bare, lambda: mask_qa(loaded, QUESTION, passage, gates, base=base)


def head_model(source: str, task: str, labels: int):
    """The model of ``source`` with a new ``task`` head ("classification" / "token_classification"): latency
    does not depend on what the head learned."""
    from explorer.core.models.loading import load_model

    names = {i: f"L{i}" for i in range(labels)}
    return load_model(source, task, num_labels=labels, id2label=names, new_head=True).model


def case_classify(loaded, model):
    import torch

    from explorer.core.classify.forward import classify_text
    from explorer.core.models.loading import eager_attention

    tok = loaded.tokenizer
    enc = tok(*PAIR, truncation=True, max_length=128, return_tensors="pt")

    def bare():
        with torch.inference_mode(), eager_attention(model):
            return model(**enc, output_hidden_states=True, output_attentions=True)

    return bare, lambda: classify_text(model, tok, *PAIR)


def case_tag(loaded, model):
    import torch

    from explorer.core.tagging.forward import tag_texts

    tok = loaded.tokenizer
    enc = tok(TAG_TEXT.split(), is_split_into_words=True, truncation=True, max_length=128, return_tensors="pt")

    def bare():
        with torch.inference_mode():
            return model(**enc)

    return bare, lambda: tag_texts(model, tok, [TAG_TEXT])


def case_explain(loaded, model, steps: int):
    """explain() with IG at ``steps`` against its forward + backward passes (the same internal batches)."""
    import torch

    from explorer.core.explain import attribution as attr
    from explorer.core.models.eval_mode import inference

    tok = loaded.tokenizer
    head = attr.explained_head(model)
    enc = attr.encode(tok, head, *PAIR, None, max_seq_length=128)
    batch = dict(enc.batch)
    ids = batch["input_ids"]
    base_ids = attr.pad_baseline(ids, tok, batch.get("attention_mask"))
    emb = model.get_input_embeddings()
    ibs = max(1, min(steps, attr.TOKENS_PER_BATCH // max(int(ids.numel()), 1)))
    with torch.no_grad():
        outputs = attr.forward_target(model, head, batch, input_ids=ids)[0].double().numpy()
    tgt = attr.resolve_target(head, outputs, attr.class_names_of(model, head, outputs.shape[-1]))
    alphas = torch.linspace(0, 1, steps)

    def bare():
        with inference(model, gradients=True):
            x, b = emb(ids).detach(), emb(base_ids).detach()
            for s in range(0, steps, ibs):
                a = alphas[s:s + ibs].view(-1, 1, 1)
                xs = (b + a * (x - b)).requires_grad_(True)
                f = attr.forward_target(model, head, batch, tgt, inputs_embeds=xs)
                torch.autograd.grad(f.sum(), xs)

    return bare, lambda: attr.explain(model, tok, *PAIR, method="ig", steps=steps)


def case_embeddings(loaded, n_texts: int):
    import torch

    from explorer.core.embeddings.vectors import batches, embed_sentences, encoder_of

    tok, model = loaded.tokenizer, loaded.model
    texts = [f"{SENTENCES[i % len(SENTENCES)]} ({i})" for i in range(n_texts)]
    encoder = encoder_of(model)
    inputs = [tok(t, truncation=True, max_length=128)["input_ids"] for t in texts]
    chunks = batches(tok, inputs, 32)

    def bare():
        with torch.inference_mode():
            for _idx, b in chunks:
                encoder(**b, output_hidden_states=True)

    return bare, lambda: embed_sentences(model, tok, texts, "cls")


def case_tau_study(loaded, data_path: str, n_questions: int, cache_dir: str):
    import torch

    from explorer.core.data.squad import load_squad
    from explorer.core.qa.inference import batch_order
    from explorer.core.qa.tau_study import run_study
    from explorer.core.qa.windows import collate_qa, prepare_qa_features

    ds, _ = load_squad(data_path)
    ds = ds.select(range(min(n_questions, len(ds))))
    tok, model = loaded.tokenizer, loaded.model
    feats = prepare_qa_features(list(ds["question"]), list(ds["context"]), tok, max_seq_length=384,
                                doc_stride=128, max_query_length=64)
    order = batch_order(np.array(feats.lengths()), 32)
    collated = []
    for idx in order:
        b = collate_qa(feats, idx, tok.pad_token_id)
        b.pop("start_positions", None)
        b.pop("end_positions", None)
        collated.append(b)

    def bare():
        with torch.inference_mode():
            for b in collated:
                model(**b)

    def op():
        return run_study(loaded, data_path, n_questions, cache_dir=Path(cache_dir), use_cache=False)

    return bare, op, len(feats)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="bundled:minilm")
    ap.add_argument("--runs", type=int, default=10, help="timed runs of the light operations")
    ap.add_argument("--heavy-runs", type=int, default=2, help="timed runs of embeddings and the τ study")
    ap.add_argument("--texts", type=int, default=1000)
    ap.add_argument("--questions", type=int, default=1000)
    ap.add_argument("--squad-dev", default="", help="SQuAD v2.0 dev file (default: $EXPLORER_REAL_DATA/"
                                                  "squad_v2.0/dev-subset.json); the τ study row needs it")
    ap.add_argument("--threads", type=int, default=0, help="torch threads (default: torch's own choice); 1 keeps "
                                                          "a loaded machine's other processes out of the ratios more")
    ap.add_argument("--only", nargs="*", default=None, help="row names (probe, attention, classify, tag, ig20, "
                                                            "ig50, ig100, embeddings, tau, masking)")
    from explorer.benchmarks import add_results_argument, load_average, record

    add_results_argument(ap)
    args = ap.parse_args(argv)
    load0 = load_average()
    import tempfile

    import torch

    from explorer.core.models.loading import load_model

    if args.threads:
        torch.set_num_threads(args.threads)
    loaded = load_model(args.model)
    print(f"torch threads {torch.get_num_threads()}, model {args.model}, load average {os.getloadavg()[0]:.2f}")
    want = set(args.only) if args.only else None
    seq = token = None
    dev = args.squad_dev or os.path.join(os.environ.get("EXPLORER_REAL_DATA", ""), "squad_v2.0", "dev-subset.json")
    rows: list[tuple[str, str, object]] = [
        ("probe", "probe, ~200-token passage", lambda: case_probe(loaded, False)),
        ("attention", "attention, full 384-token window", lambda: case_probe(loaded, True)),
        ("classify", "classify, sentence pair with block flow", lambda: case_classify(loaded, seq)),
        ("tag", "tag, one ~60-word text", lambda: case_tag(loaded, token)),
        *[(f"ig{s}", f"explain, IG {s} steps, sentence pair", (lambda s=s: case_explain(loaded, seq, s)))
          for s in (20, 50, 100)],
        ("embeddings", f"embeddings of {args.texts} texts", lambda: case_embeddings(loaded, args.texts)),
        ("masking", "head masking, ~200-token passage", lambda: case_masking(loaded)),
    ]
    figures, ratios, notes = {}, {}, []
    print(f"\n{'operation':42s} {'bare p50':>9s} {'p95':>7s} {'op p50':>8s} {'p95':>7s} {'op/bare':>8s} "
          f"{'CPU op/bare':>12s}  runs  load")
    for key, name, make in rows:
        if want is not None and key not in want:
            continue
        if key in ("classify", "ig20", "ig50", "ig100") and seq is None:
            seq = head_model(args.model, "classification", 3)
        if key == "tag" and token is None:
            token = head_model(args.model, "token_classification", 9)
        bare, op = make()
        runs = args.heavy_runs if key == "embeddings" else args.runs
        report(name, timed_pair(bare, op, runs), runs, figures, ratios)
    if want is None or "tau" in want:
        if os.path.isfile(dev):
            with tempfile.TemporaryDirectory() as cache:
                bare, op, n_windows = case_tau_study(loaded, dev, args.questions, cache)
                report(f"τ study, {args.questions} questions ({n_windows} windows)",
                       timed_pair(bare, op, args.heavy_runs, warmup=0), args.heavy_runs, figures, ratios)
        else:
            notes.append(f"τ study: no SQuAD v2.0 dev file at {dev!r}; give --squad-dev")
            print(f"{'τ study':42s} skipped: {notes[-1]}")
    print(f"load average at the end {os.getloadavg()[0]:.2f}")
    threads = f", {args.threads} torch thread(s)" if args.threads else ""
    record(args, "bench_inspector_latency", case=f"every inspector operation, {args.model}"
           + (f" ({', '.join(sorted(want))})" if want else "") + threads,
           figures=figures, ratios=ratios, load_start=load0, notes="; ".join(notes))
    return 0


def report(name: str, t: dict, runs: int, figures: dict, ratios: dict) -> None:
    b50, b95, o50, o95 = pct(t["bare"], .5), pct(t["bare"], .95), pct(t["op"], .5), pct(t["op"], .95)
    cpu = pct(t["op cpu"], .5) / max(pct(t["bare cpu"], .5), 1e-9)
    print(f"{name:42s} {b50:9.1f} {b95:7.1f} {o50:8.1f} {o95:7.1f} {o50 / b50:7.2f}x {cpu:11.2f}x  {runs:4d}  "
          f"{os.getloadavg()[0]:.1f}", flush=True)
    figures.update({f"{name}: bare p50 (ms)": b50, f"{name}: p50 (ms)": o50, f"{name}: p95 (ms)": o95})
    ratios.update({f"{name} / bare, p50": o50 / b50, f"{name} / bare, CPU p50": cpu})


if __name__ == "__main__":
    raise SystemExit(main())

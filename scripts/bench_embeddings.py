"""Embeddings speed: occurrences embedded per second against the bare forward pass on the same
batches, PCA of 10,000 x 384, t-SNE of 5,000 points.

    python scripts/bench_embeddings.py [--model bundled:minilm] [--data FILE] [--word state] [--n 10000]
        [--threads N] [--batch-size 16] [--pca-n 10000] [--tsne-n 5000] [--skip-tsne]

The embed path is explorer.core.embeddings.vectors.embed_occurrences (tokenizing each text with offsets, locating the
pieces, batching, the forward with hidden states, the piece means); the bare forward is
``encoder(**batch, output_hidden_states=True)`` on exactly the batches it builds (explorer.core.embeddings.vectors.
batches of occurrence_inputs). The two alternate, best of ``--repeats`` each, so machine load hits both alike;
the figure is the ratio embed / bare (target: within 10%). The occurrences come from ``--data`` (default: the
SQuAD v1.1 train subset under $EXPLORER_REAL_DATA) or, without it, from generated sentences. PCA and t-SNE run
on random vectors of the stated sizes (scikit-learn). Prints figures; asserts nothing.
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


def corpus_texts(data: str) -> list[str]:
    from explorer.core.embeddings.corpus import read_corpus

    if data:
        return read_corpus(data).texts
    real = os.environ.get("EXPLORER_REAL_DATA", "")
    path = os.path.join(real, "squad_v1.1", "train-subset.json") if real else ""
    if path and os.path.isfile(path):
        return read_corpus(path).texts
    rng = np.random.default_rng(0)
    words = "the a state of court river bank light play city law river year first new power".split()
    return [" ".join(rng.choice(words, 40)) for _ in range(3000)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="bundled:minilm")
    ap.add_argument("--data", default="")
    ap.add_argument("--word", default="the")
    ap.add_argument("--n", type=int, default=10000, help="occurrences embedded")
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0 = torch's default)")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--pca-n", type=int, default=10000)
    ap.add_argument("--tsne-n", type=int, default=5000)
    ap.add_argument("--skip-tsne", action="store_true")
    from explorer.benchmarks import add_results_argument, load_average, record

    add_results_argument(ap)
    args = ap.parse_args()
    load0 = load_average()

    import torch

    from explorer.core.embeddings.occurrences import find_occurrences
    from explorer.core.embeddings.projection import project
    from explorer.core.embeddings.vectors import batches, embed_occurrences, encoder_of, load_encoder, occurrence_inputs

    if args.threads:
        torch.set_num_threads(args.threads)
    loaded = load_encoder(args.model)
    texts = corpus_texts(args.data)
    occ = find_occurrences(texts, args.word, cap=args.n)
    print(f"model {args.model}; {len(texts):,} texts; '{args.word}': {len(occ.items):,} of {occ.total:,} occurrences; "
          f"batch {args.batch_size}; torch threads {torch.get_num_threads()}")
    prepared = occurrence_inputs(loaded.tokenizer, texts, occ.items, max_seq_length=512)
    built = batches(loaded.tokenizer, prepared.inputs, args.batch_size)
    tokens = sum(len(i) for i in prepared.inputs)
    print(f"{len(prepared.inputs):,} distinct inputs ({tokens:,} tokens, {prepared.windowed} windowed) in {len(built)} batches")
    encoder = encoder_of(loaded.model)

    def bare() -> float:
        t = time.perf_counter()
        with torch.inference_mode():
            for _, batch in built:
                encoder(**batch, output_hidden_states=True)
        return time.perf_counter() - t

    def embed() -> float:
        t = time.perf_counter()
        embed_occurrences(loaded.model, loaded.tokenizer, texts, occ.items, batch_size=args.batch_size)
        return time.perf_counter() - t

    bare_s, embed_s = [], []
    for _ in range(args.repeats):
        bare_s.append(bare())
        embed_s.append(embed())
    b, e = min(bare_s), min(embed_s)
    n = len(prepared.kept)
    print(f"bare forward: {b:.2f} s ({n / b:,.0f} occurrences/s); embed path: {e:.2f} s ({n / e:,.0f} occurrences/s); "
          f"ratio embed / bare = {e / b:.3f} (best of {args.repeats})")

    rng = np.random.default_rng(0)
    x = rng.normal(size=(args.pca_n, 384)).astype(np.float32)
    project(x[:100], "pca")   # import scikit-learn outside the timing
    t = time.perf_counter()
    project(x, "pca")
    figures = {"bare forward (s)": b, "embed path (s)": e, f"PCA of {args.pca_n:,} x 384 (s)": time.perf_counter() - t}
    print(f"PCA of {args.pca_n:,} x 384: {figures[f'PCA of {args.pca_n:,} x 384 (s)']:.3f} s")
    if not args.skip_tsne:
        y = rng.normal(size=(args.tsne_n, 384)).astype(np.float32)
        ticks = []
        t = time.perf_counter()
        project(y, "tsne", progress=lambda d, total: ticks.append(d))
        figures[f"t-SNE of {args.tsne_n:,} x 384 (s)"] = time.perf_counter() - t
        print(f"t-SNE of {args.tsne_n:,} x 384: {time.perf_counter() - t:.1f} s ({len(ticks)} progress reports)")
    record(args, "bench_embeddings", case=f"{n:,} occurrences of '{args.word}', {args.model}",
           ratios={"embed path / bare forward": e / b}, figures=figures, load_start=load0)
    return 0


if __name__ == "__main__":
    sys.exit(main())

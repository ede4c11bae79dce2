"""A sentence pair's similarity from an encoder without fine-tuning: the cosine of the two sentences'
mean-pooled last-layer vectors (the mean over the tokens the attention mask keeps, special tokens included, as
sentence-transformers pools; Reimers & Gurevych 2019). On STS-B a pre-trained encoder's own cosine is the
baseline a short fine-tune of a regression head has to beat.
"""

from __future__ import annotations

import numpy as np


def cosine_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(n,) cosine of each row of (n, d) ``a`` with the same row of ``b``; 0 for a zero vector."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    den = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
    return np.divide((a * b).sum(axis=1), den, out=np.zeros(len(a)), where=den > 0)


def pair_cosine(source: str, texts_a, texts_b, *, max_seq_length: int = 128, batch_size: int = 32,
                loaded=None) -> np.ndarray:
    """(n,) cosine of each pair's mean-pooled last-layer vectors under encoder ``source`` (a hub id, a folder,
    bundled:minilm; ``loaded``: an already loaded core.models.loading.LoadedModel). Raises ModelSourceError
    for a source that cannot be loaded, ValueError when the two lists differ in length."""
    from explorer.core.embeddings.vectors import embed_sentences, load_encoder

    a, b = [str(t) for t in texts_a], [str(t) for t in texts_b]
    if len(a) != len(b):
        raise ValueError(f"pair cosine: {len(a)} first sentences but {len(b)} second sentences")
    loaded = loaded or load_encoder(source)
    va = embed_sentences(loaded.model, loaded.tokenizer, a, "mean", max_seq_length=max_seq_length,
                         batch_size=batch_size)[-1]
    vb = embed_sentences(loaded.model, loaded.tokenizer, b, "mean", max_seq_length=max_seq_length,
                         batch_size=batch_size)[-1]
    return cosine_rows(va, vb)

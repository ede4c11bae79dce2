"""Frozen hidden states of every layer, as probe features: one vector per word (token labels) or per text
(sentence labels).

``hidden_states`` of a transformers encoder hold the embedding output and the output of each of its L layers
(L + 1 arrays); layer 0 here is the embeddings, layer l the l-th block's output. Features:

* a word: the hidden state of its first word piece (the labelling rule of BERT's NER experiments, Section 5.3);
* a text (or pair): the mean of its tokens' hidden states, special tokens left out ("mean" pooling), or the
  first token's ([CLS], "cls" pooling: trained as the sentence vector only by fine-tuning, so a base model's
  [CLS] says little before its last layer).

Any model loaded by explorer.core.models.loading works (its task head is not used). No Qt; torch is imported
by the functions that need it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.core.errors import UserError

POOLINGS = ("mean", "cls")
BATCH_SIZE = 16


class ProbeInputError(UserError):
    """Input the probes cannot use: no texts, no words, an unknown pooling."""


@dataclass(kw_only=True)
class LayerFeatures:
    """Features per layer for one model.

    Attributes:
        features: (layers + 1, n, hidden) float32: layer 0 = embeddings, l = block l's output.
        groups: (n,) int: the sentence each row comes from (word rows of one sentence share it), so a split
            never puts words of one sentence on both sides.
        word_index: (n,) int: the word's position in its sentence (word rows); -1 for text rows.
        truncated: words cut by max_seq_length (left out of the rows).
    """

    features: np.ndarray
    groups: np.ndarray
    word_index: np.ndarray
    truncated: int = 0

    @property
    def num_layers(self) -> int:
        """Blocks of the encoder (features has one more: the embeddings)."""
        return self.features.shape[0] - 1


def _encoder_states(model, batch: dict) -> list:
    """The forward's hidden_states (L + 1 tensors (B, seq, H)) under inference mode."""
    out = model(**batch, output_hidden_states=True)
    return out.hidden_states


def word_features(loaded, sentences: list[list[str]], *, max_seq_length: int = 128,
                  batch_size: int = BATCH_SIZE, progress=None) -> LayerFeatures:
    """One row per word of ``sentences`` (lists of words): the hidden state of the word's first piece in every
    layer. Words past ``max_seq_length`` tokens are left out and counted in ``truncated``.

    Raises:
        ProbeInputError: no sentence, or no word fits."""
    import torch

    from explorer.core.models.eval_mode import inference

    if not sentences:
        raise ProbeInputError("no sentences to probe")
    model, tok = loaded.model, loaded.tokenizer
    device = next(model.parameters()).device
    per_layer, groups, index, truncated = [], [], [], 0
    with inference(model):
        for b0 in range(0, len(sentences), batch_size):
            chunk = sentences[b0:b0 + batch_size]
            enc = tok(chunk, is_split_into_words=True, truncation=True, max_length=max_seq_length, padding=True,
                      return_tensors="pt")
            batch = {k: v.to(device) for k, v in enc.items() if k in ("input_ids", "attention_mask", "token_type_ids")}
            states = torch.stack(_encoder_states(model, batch)).float().cpu().numpy()   # (L+1, B, seq, H)
            for r, words in enumerate(chunk):
                first = {}
                for pos, w in enumerate(enc.word_ids(r)):
                    if w is not None and w not in first:
                        first[w] = pos
                truncated += len(words) - len(first)
                kept = sorted(first)
                per_layer.append(states[:, r, [first[w] for w in kept], :])
                groups.extend([b0 + r] * len(kept))
                index.extend(kept)
            if progress is not None:
                progress(min(b0 + batch_size, len(sentences)), len(sentences))
    if not groups:
        raise ProbeInputError("no word fits max_seq_length")
    return LayerFeatures(features=np.concatenate(per_layer, axis=1), groups=np.asarray(groups),
                         word_index=np.asarray(index), truncated=truncated)


def text_features(loaded, texts_a: list[str], texts_b: list[str] | None = None, *, pooling: str = "mean",
                  max_seq_length: int = 128, batch_size: int = BATCH_SIZE, progress=None) -> LayerFeatures:
    """One row per text (or pair): the mean of its non-special tokens' hidden states in every layer
    (``pooling="mean"``) or its first token's (``"cls"``).

    Raises:
        ProbeInputError: no text, an unknown pooling."""
    import torch

    from explorer.core.models.eval_mode import inference

    if pooling not in POOLINGS:
        raise ProbeInputError(f"pooling {pooling!r} is not one of {', '.join(POOLINGS)}")
    if not texts_a:
        raise ProbeInputError("no texts to probe")
    model, tok = loaded.model, loaded.tokenizer
    device = next(model.parameters()).device
    rows = []
    with inference(model):
        for b0 in range(0, len(texts_a), batch_size):
            a = texts_a[b0:b0 + batch_size]
            b = texts_b[b0:b0 + batch_size] if texts_b is not None else None
            enc = tok(a, b, truncation=True, max_length=max_seq_length, padding=True, return_tensors="pt",
                      return_special_tokens_mask=True)
            batch = {k: v.to(device) for k, v in enc.items() if k in ("input_ids", "attention_mask", "token_type_ids")}
            states = torch.stack(_encoder_states(model, batch)).float()          # (L+1, B, seq, H)
            if pooling == "cls":
                pooled = states[:, :, 0, :]
            else:
                keep = (enc["attention_mask"] * (1 - enc["special_tokens_mask"])).to(states.device).float()
                keep = keep / keep.sum(dim=1, keepdim=True).clamp(min=1.0)
                pooled = torch.einsum("lbsh,bs->lbh", states, keep)
            rows.append(pooled.cpu().numpy())
            if progress is not None:
                progress(min(b0 + batch_size, len(texts_a)), len(texts_a))
    return LayerFeatures(features=np.concatenate(rows, axis=1), groups=np.arange(len(texts_a)),
                         word_index=np.full(len(texts_a), -1))

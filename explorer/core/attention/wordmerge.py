"""Merge word pieces into words for attention displays.

A word split into pieces ("lovelace" -> "love", "##lace") gets one row and one column. The rule
(Clark et al. 2019, "What Does BERT Look At?", section 2; bertviz does the same): attention *to*
a word is the **sum** over its pieces (columns are added), attention *from* a word is the **mean**
over its pieces (rows are averaged). Each merged row still sums to 1 when the input rows do.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class WordGroups:
    """How tokens group into words.

    Attributes:
        groups: for each word, the token positions (in order) that make it.
        labels: the word text ("##" joins removed), one per word.
        blocks: "question" / "passage" / "special", one per word.
        token_to_word: (seq,) int array, the word index of each token.
    """

    groups: list[list[int]]
    labels: list[str]
    blocks: list[str]
    token_to_word: np.ndarray

    def __len__(self) -> int:
        return len(self.groups)


def word_groups(tokens: list[str], word_ids: list[int | None], blocks: list[str]) -> WordGroups:
    """Group token positions into words.

    Args:
        tokens: the window's tokens, length seq.
        word_ids: the tokenizer's word index per token (None for special tokens); question and
            passage both count from 0, so the block is part of the key.
        blocks: "question" / "passage" / "special" per token.

    Raises:
        ValueError: the three lists differ in length.
    """
    if not (len(tokens) == len(word_ids) == len(blocks)):
        raise ValueError(f"tokens ({len(tokens)}), word_ids ({len(word_ids)}) and blocks ({len(blocks)}) "
                         "must have one entry per token")
    groups: list[list[int]] = []
    labels: list[str] = []
    group_blocks: list[str] = []
    token_to_word = np.empty(len(tokens), dtype=np.int64)
    previous_key = None
    for i, (tok, wid, block) in enumerate(zip(tokens, word_ids, blocks)):
        key = None if wid is None or block == "special" else (block, wid)
        if key is not None and key == previous_key:
            groups[-1].append(i)
            labels[-1] += tok[2:] if tok.startswith("##") else tok
        else:
            groups.append([i])
            labels.append(tok)
            group_blocks.append(block)
        token_to_word[i] = len(groups) - 1
        previous_key = key
    return WordGroups(groups, labels, group_blocks, token_to_word)


def merge_attention(matrix: np.ndarray, groups: WordGroups) -> np.ndarray:
    """Merge a token x token attention matrix into word x word.

    Args:
        matrix: (..., seq, seq) weights, rows = from-token, columns = to-token.
        groups: from :func:`word_groups` for the same window.

    Returns:
        (..., words, words) float32: rows averaged over a word's pieces, columns summed.

    Raises:
        ValueError: the last two axes are not (seq, seq) for this window.
    """
    matrix = np.asarray(matrix, dtype=np.float32)
    seq = groups.token_to_word.shape[0]
    if matrix.shape[-2:] != (seq, seq):
        raise ValueError(f"attention has shape {matrix.shape}; expected (..., {seq}, {seq}) for this window")
    n = len(groups)
    # one-hot (seq, words): columns summed = matrix @ onehot; rows averaged = (onehot / count).T @ ...
    onehot = np.zeros((seq, n), dtype=np.float32)
    onehot[np.arange(seq), groups.token_to_word] = 1.0
    counts = onehot.sum(axis=0)
    summed_cols = matrix @ onehot                       # (..., seq, words)
    mean_rows = (onehot / counts).T                     # (words, seq)
    return np.einsum("ws,...sv->...wv", mean_rows, summed_cols, optimize=True).astype(np.float32)


def merge_rows(values: np.ndarray, groups: WordGroups) -> np.ndarray:
    """Average per-token rows into per-word rows: (seq, ...) -> (words, ...) float32.

    Used for per-token summaries such as attention.token_block_share (seq, 3).
    """
    values = np.asarray(values, dtype=np.float32)
    seq = groups.token_to_word.shape[0]
    if values.shape[0] != seq:
        raise ValueError(f"values have {values.shape[0]} rows; this window has {seq} tokens")
    out = np.zeros((len(groups),) + values.shape[1:], dtype=np.float32)
    np.add.at(out, groups.token_to_word, values)
    counts = np.bincount(groups.token_to_word, minlength=len(groups)).astype(np.float32)
    return out / counts.reshape((-1,) + (1,) * (values.ndim - 1))

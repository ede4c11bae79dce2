"""Attention summaries for one window: block flow (question / passage / special), per-token block
share, and attention rollout. Pure numpy; torch tensors are accepted and converted.

Conventions (all functions):

- ``attentions`` is one window's attention weights, shape ``(layers, heads, seq, seq)``, where
  ``attentions[l, h, i, j]`` is how much *from*-token ``i`` attends to *to*-token ``j`` in layer
  ``l`` (0-based), head ``h``; each row ``[l, h, i, :]`` sums to 1 (a softmax over keys).
  Padding must already be sliced off (see :func:`stack_attentions`).
- ``blocks`` is one block name per token, from :data:`BLOCKS` (``token_blocks`` builds it).

Sources: the block flow is the per-layer "question -> passage" table of docs/formulas.md;
rollout is Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers", section 3.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

BLOCKS = ("question", "passage", "special")
BLOCK_INDEX = {name: k for k, name in enumerate(BLOCKS)}
QUESTION, PASSAGE, SPECIAL = range(3)


class AttentionShapeError(ValueError):
    """Attention weights or blocks do not have the documented shapes."""


def _as_numpy(x, dtype=np.float32) -> np.ndarray:
    """numpy array from a numpy array or a torch tensor (torch is imported only for a tensor). A tensor is
    converted to float16 / float32 by torch (vectorised; numpy's float16 casts are several times slower)."""
    if hasattr(x, "detach"):
        import torch

        target = {np.dtype(np.float16): torch.float16, np.dtype(np.float32): torch.float32}.get(np.dtype(dtype))
        x = x.detach()
        x = x.to(target) if target is not None else x.float()
        x = x.cpu().numpy()
    return np.asarray(x, dtype=dtype)


def token_blocks(sequence_ids: Sequence[int | None], input_ids: Sequence[int], tokenizer=None) -> list[str]:
    """The block of every token of one encoded window.

    Args:
        sequence_ids: per token, 0 (first sequence = question), 1 (second = passage) or None
            (added special tokens), as given by a fast tokenizer's ``encoding.sequence_ids(i)``.
            Works for tokenizers without token_type_ids (RoBERTa-style): only sequence ids are used.
        input_ids: per token id, same length.
        tokenizer: optional; every id in ``tokenizer.all_special_ids`` ([CLS], [SEP], [PAD], <s>,
            </s>, ...) is "special" whatever its sequence id.

    Returns:
        list[str] of length seq, each in BLOCKS.

    Raises:
        AttentionShapeError: lengths differ, or a sequence id other than 0, 1, None.
    """
    if len(sequence_ids) != len(input_ids):
        raise AttentionShapeError(f"token_blocks: {len(sequence_ids)} sequence ids but {len(input_ids)} input ids")
    special_ids = set(getattr(tokenizer, "all_special_ids", None) or []) if tokenizer is not None else set()
    out = []
    for pos, (sid, tid) in enumerate(zip(sequence_ids, input_ids)):
        if sid is None or int(tid) in special_ids:
            out.append("special")
        elif sid == 0:
            out.append("question")
        elif sid == 1:
            out.append("passage")
        else:
            raise AttentionShapeError(f"token_blocks: token {pos} has sequence id {sid!r}; expected 0, 1 or None")
    return out


def block_matrix(blocks: Sequence[str] | np.ndarray) -> np.ndarray:
    """One-hot block membership, shape (seq, 3) float32: ``M[i, k] = 1`` iff token i is in BLOCKS[k].

    ``blocks`` may be names (from BLOCKS) or integer block indices. Raises AttentionShapeError on an
    unknown name or index.
    """
    if isinstance(blocks, np.ndarray) and blocks.dtype.kind in "iu":
        idx = blocks.astype(np.int64)
    else:
        try:
            idx = np.array([BLOCK_INDEX[b] if isinstance(b, str) else int(b) for b in blocks], dtype=np.int64)
        except KeyError as exc:
            raise AttentionShapeError(f"unknown block name {exc.args[0]!r}; expected one of {BLOCKS}") from None
    if idx.size and (idx.min() < 0 or idx.max() >= len(BLOCKS)):
        raise AttentionShapeError(f"block index out of range 0..{len(BLOCKS) - 1}")
    m = np.zeros((idx.size, len(BLOCKS)), dtype=np.float32)
    m[np.arange(idx.size), idx] = 1.0
    return m


def _check(attentions, blocks) -> tuple[np.ndarray, np.ndarray]:
    a = _as_numpy(attentions)
    if a.ndim != 4 or a.shape[-1] != a.shape[-2]:
        raise AttentionShapeError(f"attentions must have shape (layers, heads, seq, seq); got {a.shape}")
    m = block_matrix(blocks)
    if m.shape[0] != a.shape[-1]:
        raise AttentionShapeError(f"{m.shape[0]} blocks given for a sequence of {a.shape[-1]} tokens")
    return a, m


def block_flow(attentions, blocks, *, average_heads: bool = False) -> np.ndarray:
    """Attention flow between blocks, per layer and head.

    ``flow[l, h, A, B]`` = for each from-token in block A, the sum of its attention weights on the
    tokens of block B, averaged over A's tokens. Computed as ``M.T @ (attn @ M) / |A|`` with the
    one-hot block matrix M (seq, 3): two small matmuls, no python loops, never more than
    (layers, heads, seq, 3) extra memory. If every attention row sums to 1, every flow row
    ``flow[l, h, A, :]`` sums to 1. A block with no tokens gives a NaN row.

    Args:
        attentions: (layers, heads, seq, seq), numpy or torch.
        blocks: seq block names (or indices), see :func:`token_blocks`.
        average_heads: return the mean over heads, shape (layers, 3, 3) (the per-layer flow table).

    Returns:
        float32 array (layers, heads, 3, 3), or (layers, 3, 3) with average_heads. Axis order of the
        3s is BLOCKS: question, passage, special.

    Raises:
        AttentionShapeError: shapes do not match.
    """
    a, m = _check(attentions, blocks)
    to_block = a @ m                                   # (L, H, seq, 3): per from-token sum on each block
    counts = m.sum(axis=0)                             # (3,)
    with np.errstate(invalid="ignore", divide="ignore"):
        flow = (m.T @ to_block) / counts[:, None]      # (3, seq) @ (L, H, seq, 3) -> (L, H, 3, 3)
    flow = flow.astype(np.float32)
    return flow.mean(axis=1) if average_heads else flow


def head_mean(flow: np.ndarray) -> np.ndarray:
    """(layers, heads, 3, 3) -> (layers, 3, 3): the block flow averaged over heads."""
    flow = np.asarray(flow)
    if flow.ndim != 4:
        raise AttentionShapeError(f"head_mean expects (layers, heads, 3, 3); got {flow.shape}")
    return flow.mean(axis=1)


def token_block_share(attentions, blocks) -> np.ndarray:
    """Per from-token, the share of its attention that goes to each block, averaged over layers
    and heads. Shape (seq, 3) float32 in BLOCKS order; rows sum to 1 when attention rows do.
    Example (seed, Part 4): the question token "born" gives 0.162 of its attention to the passage.
    """
    a, m = _check(attentions, blocks)
    return (a.mean(axis=(0, 1)) @ m).astype(np.float32)


def rollout(attentions, *, all_layers: bool = False) -> np.ndarray:
    """Attention rollout (Abnar & Zuidema 2020, section 3).

    Per layer l: ``A_hat_l = 0.5 * (mean over heads of attentions[l] + I)``, each row re-normalised
    to sum 1 (the identity stands for the residual connection). Layers are multiplied bottom-up,
    the later layer on the LEFT:

        R_1 = A_hat_1,   R_l = A_hat_l @ R_{l-1},   so   R = A_hat_L @ ... @ A_hat_2 @ A_hat_1.

    ``R[i, j]`` is how much the top-layer representation of token i draws on input token j; rows
    sum to 1.

    Args:
        attentions: (layers, heads, seq, seq).
        all_layers: return every R_l, shape (layers, seq, seq), instead of only the last.

    Returns:
        float32 (seq, seq), or (layers, seq, seq) with all_layers.
    """
    a = _as_numpy(attentions)
    if a.ndim != 4 or a.shape[-1] != a.shape[-2]:
        raise AttentionShapeError(f"attentions must have shape (layers, heads, seq, seq); got {a.shape}")
    n = a.shape[-1]
    eye = np.eye(n, dtype=np.float32)
    r = None
    steps = []
    for layer in a:   # float32 throughout: (seq, seq) matmuls, a few ms for 384 tokens x 12 layers
        a_hat = 0.5 * (layer.mean(axis=0) + eye)
        a_hat /= a_hat.sum(axis=-1, keepdims=True)
        r = a_hat if r is None else a_hat @ r
        if all_layers:
            steps.append(r)
    if r is None:
        r = eye
    return np.stack(steps) if all_layers else r


def stack_attentions(hf_attentions, *, batch_index: int = 0, length: int | None = None,
                     dtype=np.float32) -> np.ndarray:
    """Transformers' ``output.attentions`` (a tuple of per-layer tensors (batch, heads, seq, seq))
    -> one window's numpy array (layers, heads, length, length), padding sliced off.

    Args:
        hf_attentions: tuple/list of layers, each (batch, heads, seq, seq) torch or numpy.
        batch_index: which row of the batch.
        length: number of real (unpadded) tokens; default all.
        dtype: np.float32 or np.float16 (halves the memory; summaries are computed in float32).
    """
    if hf_attentions is None or len(hf_attentions) == 0:
        raise AttentionShapeError("no attentions returned; the forward needs output_attentions=True "
                                  "and eager attention (explorer.core.models.loading.eager_attention)")
    layers = []
    for layer in hf_attentions:
        x = layer[batch_index]
        if length is not None:
            x = x[:, :length, :length]
        layers.append(_as_numpy(x, dtype=dtype))
    return np.stack(layers)


@dataclass
class AttentionData:
    """Everything the inspector shows about one window's attention.

    Attributes:
        attentions: (layers, heads, seq, seq) float32 (or float16 when asked), or None when only the
            summaries were kept.
        blocks: seq block names.
        flow: (layers, heads, 3, 3) float32 block flow (see :func:`block_flow`).
        token_share: (seq, 3) float32 (see :func:`token_block_share`).
        rollout: (seq, seq) float32 (see :func:`rollout`).
    """

    attentions: np.ndarray | None
    blocks: list[str]
    flow: np.ndarray
    token_share: np.ndarray
    rollout: np.ndarray

    @property
    def flow_mean(self) -> np.ndarray:
        """(layers, 3, 3): flow averaged over heads (the per-layer flow table)."""
        return head_mean(self.flow)

    @property
    def num_layers(self) -> int:
        return int(self.flow.shape[0])

    @property
    def num_heads(self) -> int:
        return int(self.flow.shape[1])


def summarize_attentions(attentions, blocks, *, keep: str | None = "float32") -> AttentionData:
    """Compute flow, token share and rollout for one window.

    Args:
        attentions: (layers, heads, seq, seq).
        blocks: seq block names.
        keep: "float32" or "float16" to keep the raw weights in AttentionData.attentions, or None
            to keep only the summaries (a BERT-base 384-token window is 85 MB in float32).
    """
    a, _ = _check(attentions, blocks)
    if keep not in (None, "float32", "float16"):
        raise ValueError(f"keep must be 'float32', 'float16' or None; got {keep!r}")
    return AttentionData(
        attentions=None if keep is None else a.astype(keep, copy=False),
        blocks=list(blocks),
        flow=block_flow(a, blocks),
        token_share=token_block_share(a, blocks),
        rollout=rollout(a),
    )


def summarize_attention_layers(hf_attentions, blocks, *, batch_index: int = 0, length: int | None = None,
                               keep: str | None = "float16") -> AttentionData:
    """The same AttentionData as ``summarize_attentions(stack_attentions(...), blocks, keep=keep)``, computed
    layer by layer straight from the model's tensors (torch, its threads), without stacking a float32 copy.

    Each layer's (heads, seq, seq) slice of the window (padding cut off, a view) goes through
    :class:`LayerSummaries`, which the probe also feeds from inside the forward (explorer.core.attention.hooks).
    Numbers agree with the numpy path to float32 rounding (tests/test_probe_speed_paths.py).

    Args:
        hf_attentions: transformers' ``output.attentions``: per layer a torch tensor (batch, heads, seq, seq).
            numpy inputs go through the numpy path.
        blocks: the window's block names (``length`` of them).
        batch_index, length: which row of the batch, and its real (unpadded) length (default: all).
        keep: "float16" / "float32" (raw weights kept, numpy) or None (summaries only).

    Returns:
        AttentionData (flow, token_share, rollout float32; attentions in ``keep`` or None).

    Raises:
        AttentionShapeError: no attentions, or blocks that do not match the length.
    """
    if hf_attentions is None or len(hf_attentions) == 0:
        raise AttentionShapeError("no attentions returned; the forward needs output_attentions=True "
                                  "and eager attention (explorer.core.models.loading.eager_attention)")
    _check_keep(keep)
    if not hasattr(hf_attentions[0], "detach"):
        return summarize_attentions(stack_attentions(hf_attentions, batch_index=batch_index, length=length),
                                    blocks, keep=keep)
    first = hf_attentions[0]
    n = int(first.shape[-1] if length is None else length)
    acc = LayerSummaries(blocks, len(hf_attentions), int(first.shape[1]), keep=keep, length=n)
    for full in hf_attentions:
        acc.add(full[batch_index, :, :n, :n])
    return acc.result()


def _check_keep(keep) -> None:
    if keep not in (None, "float32", "float16"):
        raise ValueError(f"keep must be 'float32', 'float16' or None; got {keep!r}")


MAX_RUNS = 12   # block runs up to which the block sums are segment sums (else one GEMM with the one-hot M)


def block_runs(blocks) -> list[tuple[int, int, int]]:
    """Maximal runs of one block: [(block index, start, end)] in token order, e.g. [CLS] q q [SEP] p p [SEP] ->
    [(2, 0, 1), (0, 1, 3), (2, 3, 4), (1, 4, 6), (2, 6, 7)]."""
    idx = block_matrix(blocks).argmax(axis=1) if len(blocks) else np.zeros(0, np.int64)
    runs, start = [], 0
    for i in range(1, len(idx) + 1):
        if i == len(idx) or idx[i] != idx[start]:
            runs.append((int(idx[start]), start, i))
            start = i
    return runs


class LayerSummaries:
    """One window's AttentionData built one layer at a time, as the forward pass produces the layers.

    ``add(a)`` takes layer l's weights ``a`` (heads, seq, seq), a torch tensor (padding cut off; a view is
    fine), and reads it three times while it is still in the cache:

    - the block sums ``to_block[h, i, B]`` = sum of row i's weights on block B's tokens (``a @ M`` with the
      one-hot M): blocks come in a few contiguous runs ([CLS] question [SEP] passage [SEP]), so they are a few
      segment sums of contiguous row pieces (a GEMM with a 3-column M runs at a fraction of the memory speed);
      with more than MAX_RUNS runs, one GEMM. Kept per layer (layers, 3, heads, seq), small;
    - the head mean gives the rollout step ``A_hat = 0.5 (A_mean + I)`` row-normalised, ``R = A_hat @ R``
      (Abnar & Zuidema 2020, section 3);
    - the raw weights are cast once into the preallocated kept array (float16 by default).

    ``result()`` then turns all layers' block sums into the block flow ``M.T @ to_block / |A|`` (one small
    GEMM) and the token share (their mean over layers and heads). :func:`summarize_attention_layers` (after a
    forward) and ``explorer.core.attention.hooks`` (inside it, through forward hooks) both use this class, so
    the two give identical numbers; against the numpy path (block_flow, token_block_share, rollout) they agree
    to float32 rounding (the sums are accumulated in another order).

    Args:
        blocks: the window's block names (seq of them; :func:`token_blocks`).
        num_layers, num_heads: the model's; ``add`` must be called exactly num_layers times.
        keep: "float16" / "float32" (raw weights kept as numpy (layers, heads, seq, seq)) or None.
        length: seq, checked against the blocks (default: len(blocks)).

    Raises:
        AttentionShapeError: blocks that do not match the length, a layer of the wrong shape, more layers than
            num_layers, or ``result()`` before the last layer.
        ValueError: an unknown ``keep``.
    """

    def __init__(self, blocks, num_layers: int, num_heads: int, *, keep: str | None = "float16",
                 length: int | None = None):
        import torch

        _check_keep(keep)
        m_np = block_matrix(blocks)
        n = m_np.shape[0] if length is None else int(length)
        if m_np.shape[0] != n:
            raise AttentionShapeError(f"{m_np.shape[0]} blocks given for a sequence of {n} tokens")
        self.blocks, self.n, self.num_layers, self.num_heads = list(blocks), n, int(num_layers), int(num_heads)
        runs = block_runs(self.blocks)
        self.runs = runs if len(runs) <= MAX_RUNS else None
        # the first run of each block writes its sums, later runs of the same block add theirs
        self._first = {k: min(i for i, (b, _, _) in enumerate(runs) if b == k) for k in {b for b, _, _ in runs}}
        self.kept = None if keep is None else np.empty((self.num_layers, self.num_heads, n, n), dtype=keep)
        with torch.inference_mode():
            self.m = torch.from_numpy(m_np)
            self.counts = self.m.sum(dim=0)
            self._kept_t = None if self.kept is None else torch.from_numpy(self.kept)
            self.to_block = torch.zeros((self.num_layers, len(BLOCKS), self.num_heads, n), dtype=torch.float32)
        self.r = None
        self.layers = 0

    def add(self, weights) -> None:
        """Fold in the next layer's weights, (heads, seq, seq) torch (any float dtype; summed in float32)."""
        import torch

        shape = (self.num_heads, self.n, self.n)
        if tuple(weights.shape) != shape:
            raise AttentionShapeError(f"layer {self.layers + 1}: attention weights of shape {tuple(weights.shape)}; "
                                      f"expected (heads, seq, seq) = {shape}")
        if self.layers >= self.num_layers:
            raise AttentionShapeError(f"more than the {self.num_layers} layers announced")
        layer, heads, n = self.layers, self.num_heads, self.n
        # inside a forward that accelerate runs under autocast (bf16 training's watch probes) the sums stay float32
        with torch.inference_mode(), torch.autocast(weights.device.type, enabled=False):
            a = weights.detach().float()
            if self._kept_t is not None:
                self._kept_t[layer].copy_(a)
            sums = self.to_block[layer]                          # (3, heads, seq): block B's sum of each row
            if self.runs is not None:
                for i, (k, start, end) in enumerate(self.runs):
                    if self._first[k] == i:
                        torch.sum(a[:, :, start:end], dim=-1, out=sums[k])
                    else:
                        sums[k] += a[:, :, start:end].sum(dim=-1)
            else:
                sums.copy_((a.reshape(heads * n, n) @ self.m).T.reshape(len(BLOCKS), heads, n))
            a_hat = a.mean(dim=0)                               # rollout step (Abnar & Zuidema 2020):
            a_hat.diagonal().add_(1.0)                          # 0.5 (A_mean + I), in place
            a_hat *= 0.5
            a_hat /= a_hat.sum(dim=-1, keepdim=True)
            self.r = a_hat if self.r is None else a_hat @ self.r
        self.layers += 1

    def result(self) -> AttentionData:
        """The AttentionData of the window (after the last layer)."""
        import torch

        if self.layers != self.num_layers:
            raise AttentionShapeError(f"attention of {self.layers} layers received; the model has {self.num_layers}")
        nb, layers, heads, n = len(BLOCKS), self.num_layers, self.num_heads, self.n
        with torch.inference_mode(), torch.autocast("cpu", enabled=False):
            # flow[l, h, A, B] = sum over i in A of to_block[l, B, h, i] / |A|: one GEMM for every layer and head
            per_from = (self.to_block.reshape(layers * nb * heads, n) @ self.m).view(layers, nb, heads, nb)
            flow = per_from.permute(0, 2, 3, 1) / self.counts[:, None]     # (l, h, A, B); 0/0 = NaN (empty A)
            share = self.to_block.sum(dim=(0, 2)).T / (layers * heads)      # (seq, 3)
            r = torch.eye(n) if self.r is None else self.r
        return AttentionData(attentions=self.kept, blocks=list(self.blocks), flow=flow.contiguous().numpy(),
                             token_share=share.contiguous().numpy(), rollout=r.numpy())


def flow_table_lines(flow_mean: np.ndarray, *, special_label: str = "[CLS]/[SEP]") -> list[str]:
    """The per-layer flow table, one line per layer (1-based), from (layers, 3, 3):

    ``layer  1: question -> passage 0.190   passage -> question 0.107   question -> [CLS]/[SEP] 0.306``
    """
    f = np.asarray(flow_mean)
    if f.ndim != 3:
        raise AttentionShapeError(f"flow_table_lines expects (layers, 3, 3); got {f.shape}")
    return [f"layer {layer + 1:2d}: question -> passage {f[layer, QUESTION, PASSAGE]:.3f}   "
            f"passage -> question {f[layer, PASSAGE, QUESTION]:.3f}   "
            f"question -> {special_label} {f[layer, QUESTION, SPECIAL]:.3f}"
            for layer in range(f.shape[0])]

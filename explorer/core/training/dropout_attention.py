"""Scaled dot-product attention with attention-probability dropout, written to touch the big tensors less.

On CPU, PyTorch's fused SDPA kernels refuse ``dropout_p > 0``, so BERT's training attention (dropout 0.1
on the probabilities, as in the paper and ``BertSelfAttention``) runs as separate autograd ops. Each
makes a fresh (batch, heads, q_len, kv_len) tensor: the scaled scores, the masked scores, the
probabilities, the dropped probabilities (``masked_fill`` is a clone and a fill), and as many again in
the backward. At 12 heads and 200 tokens those tensors are 6x larger than the hidden states, so this
memory traffic, not the matrix products, is what the element-wise share of a training step is made of.

:func:`dropout_attention` computes the same function with one autograd node:

* the 1/sqrt(head_dim) scale goes onto the (small) query, not the scores;
* the padding mask is applied in place, and skipped when there is none;
* softmax runs in place on the scores (the row-wise kernel allows it);
* the dropped probabilities are one ``torch.where``; the 1 / (1 - p) scale goes onto the (small) output;
* backward: the probability gradient is masked in place and the softmax backward writes over it.

Forward and gradients equal the op-by-op version for the same drop mask (tests/test_dropout_attention.py
checks both against autograd through the plain ops, and ``gradcheck`` in float64).
"""

from __future__ import annotations

import torch


class _DropoutAttention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, query, key, value, mask, drop, scale: float, keep_scale: float):
        q = query * scale
        scores = torch.matmul(q, key.transpose(-1, -2))
        if mask is not None:
            if mask.dtype == torch.bool:
                scores.masked_fill_(~mask, torch.finfo(scores.dtype).min)
            else:
                scores.add_(mask)
        probs = torch._softmax(scores, -1, False, out=scores)
        dropped = torch.where(drop, 0.0, probs)
        out = torch.matmul(dropped, value).mul_(keep_scale)
        ctx.save_for_backward(q, key, value, probs, dropped, drop)
        ctx.scale, ctx.keep_scale = scale, keep_scale
        return out

    @staticmethod
    def backward(ctx, grad_out):
        q, key, value, probs, dropped, drop = ctx.saved_tensors
        g = grad_out * ctx.keep_scale
        grad_value = torch.matmul(dropped.transpose(-1, -2), g)
        grad_probs = torch.matmul(g, value.transpose(-1, -2)).masked_fill_(drop, 0.0)
        grad_scores = torch.ops.aten._softmax_backward_data.out(grad_probs, probs, -1, probs.dtype,
                                                               grad_input=grad_probs)
        grad_query = torch.matmul(grad_scores, key).mul_(ctx.scale)
        grad_key = torch.matmul(grad_scores.transpose(-1, -2), q)
        return grad_query, grad_key, grad_value, None, None, None, None


def dropout_attention(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, mask: torch.Tensor | None,
                      drop: torch.Tensor, p: float, scale: float) -> torch.Tensor:
    """softmax(query key^T * scale + mask) with dropout, times value: BERT's training self-attention.

    Shapes: query (batch, heads, q_len, head_dim); key and value (batch, heads, kv_len, head_dim);
    ``mask`` None, bool (True = attend) or additive float, broadcastable to (batch, heads, q_len, kv_len);
    ``drop`` bool of shape (batch, heads, q_len, kv_len), True where a probability is dropped (each with
    probability ``p``, 0 <= p < 1); kept probabilities are scaled by 1 / (1 - p) (inverted dropout, as
    ``torch.nn.functional.dropout``). Returns (batch, heads, q_len, head_dim) in the query's dtype.
    Raises ValueError when ``drop`` has another shape than the scores or p is outside [0, 1).
    Source: "Attention Is All You Need" eq. 1; BERT (Devlin et al., 2019) section A.2 (dropout 0.1).
    """
    expected = (*query.shape[:-1], key.shape[-2])
    if tuple(drop.shape) != expected:
        raise ValueError(f"drop mask has shape {tuple(drop.shape)}, expected {expected} (batch, heads, q, kv)")
    if not 0.0 <= p < 1.0:
        raise ValueError(f"dropout p must be in [0, 1), got {p}")
    return _DropoutAttention.apply(query, key, value, mask, drop, float(scale), 1.0 / (1.0 - p))

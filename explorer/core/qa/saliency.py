"""QA saliency: gradient x input attribution of the start and end logits onto the window's tokens.

For a chosen span (start token s, end token e) of one window, the attribution of token i to the start
logit is a_i = sum_d (d start_logits[s] / d x_{i,d}) * x_{i,d}, where x_i is token i's word embedding
(the input of the encoder before positions, token types and LayerNorm are added); likewise for the end
logit. a_i is the first-order change of the logit when token i's embedding is scaled from x_i to
(1 + eps) x_i, divided by eps: the directional derivative that the tests check by finite differences.
Source: Simonyan et al. 2014 (gradients), Shrikumar et al. 2016 / Ancona et al. 2018 (gradient x input).
The result is numpy only (the Spans tab renders it on the question and passage text).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.core.errors import UserError


class SaliencyError(UserError):
    """The span or the model cannot be attributed (index outside the window, end before start, not QA)."""


@dataclass
class SpanSaliency:
    """Token attributions of one span's start and end logits.

    Attributes (seq = tokens in the window):
        tokens, blocks: the window's tokens and their blocks ("question" / "passage" / "special").
        offsets: (start_char, end_char) into the passage for passage tokens, else None.
        start_index, end_index: the span's token positions in the window.
        start_logit, end_logit: the model's start_logits[start_index] and end_logits[end_index].
        start_attribution, end_attribution: (seq,) float64 gradient x input per token (logit units).
    """

    tokens: list[str]
    blocks: list[str]
    offsets: list[tuple[int, int] | None]
    start_index: int
    end_index: int
    start_logit: float
    end_logit: float
    start_attribution: np.ndarray
    end_attribution: np.ndarray

    def top_tokens(self, which: str = "start", n: int = 5) -> list[tuple[int, str, float]]:
        """The n tokens with the largest |attribution| for "start" or "end": (position, token, value)."""
        a = self.start_attribution if which == "start" else self.end_attribution
        order = np.argsort(-np.abs(a), kind="stable")[:n]
        return [(int(i), self.tokens[i], float(a[i])) for i in order]

    def passage_char_scores(self, which: str = "start") -> list[tuple[int, int, float]]:
        """(start_char, end_char, attribution) for each passage token, for colouring the passage text."""
        a = self.start_attribution if which == "start" else self.end_attribution
        return [(o[0], o[1], float(a[i])) for i, o in enumerate(self.offsets)
                if o is not None and self.blocks[i] == "passage"]


def token_type_ids_from_blocks(blocks: list[str]) -> list[int]:
    """BERT token types of a QA window: 0 up to and including the first [SEP], 1 after it."""
    types, seen_passage = [], False
    for b in blocks:
        seen_passage = seen_passage or b == "passage"
        types.append(1 if seen_passage else 0)
    return types


def logit_gradients(model, input_ids: list[int], token_type_ids: list[int], start_index: int, end_index: int):
    """(embeddings x (seq, H), d start_logits[s] / dx, d end_logits[e] / dx, start logit, end logit) as torch
    tensors, in the model's dtype. Runs in eval mode (no dropout) with gradients on, the caller's mode restored
    (explorer.core.models.eval_mode.inference)."""
    import torch

    from explorer.core.models.eval_mode import inference

    device = next(model.parameters()).device
    ids = torch.tensor([input_ids], device=device)
    with inference(model, gradients=True):
        x = model.get_input_embeddings()(ids).detach().requires_grad_(True)
        out = model(inputs_embeds=x, token_type_ids=torch.tensor([token_type_ids], device=device),
                    attention_mask=torch.ones_like(ids))
        start, end = out.start_logits[0, start_index], out.end_logits[0, end_index]
        g_start, = torch.autograd.grad(start, x, retain_graph=True)
        g_end, = torch.autograd.grad(end, x)
    return x.detach()[0], g_start[0], g_end[0], float(start.detach()), float(end.detach())


def span_saliency(model, input_ids: list[int], blocks: list[str], start_index: int, end_index: int, *,
                  tokens: list[str] | None = None, offsets: list | None = None,
                  token_type_ids: list[int] | None = None) -> SpanSaliency:
    """Gradient x input attributions of start_logits[start_index] and end_logits[end_index] of one window.

    Args:
        model: a question-answering model (``start_logits`` / ``end_logits`` outputs); run in eval mode.
        input_ids, blocks: the window's ids and blocks (a ProbeWindow's fields).
        start_index, end_index: the span in token positions of this window.
        tokens, offsets: carried into the result for display (default: ids as text / no offsets).
        token_type_ids: default derived from ``blocks`` (0 for [CLS] question [SEP], 1 after).

    Raises:
        SaliencyError: an index outside the window, end before start, or a model without start/end logits.
    """
    n = len(input_ids)
    if not (0 <= start_index < n and 0 <= end_index < n):
        raise SaliencyError(f"span ({start_index}, {end_index}) is outside the window of {n} tokens")
    if end_index < start_index:
        raise SaliencyError(f"span end {end_index} is before its start {start_index}")
    if not type(model).__name__.endswith("ForQuestionAnswering"):
        raise SaliencyError(f"{type(model).__name__} has no start/end logits; saliency needs a QA model")
    types = token_type_ids if token_type_ids is not None else token_type_ids_from_blocks(blocks)
    x, g_start, g_end, s_logit, e_logit = logit_gradients(model, list(input_ids), types, start_index, end_index)
    to_np = lambda t: t.double().cpu().numpy()  # noqa: E731
    return SpanSaliency(list(tokens) if tokens is not None else [str(i) for i in input_ids], list(blocks),
                        list(offsets) if offsets is not None else [None] * n, start_index, end_index,
                        s_logit, e_logit, (to_np(g_start) * to_np(x)).sum(-1), (to_np(g_end) * to_np(x)).sum(-1))


def window_saliency(model, window, start_index: int, end_index: int) -> SpanSaliency:
    """:func:`span_saliency` for a probe window (explorer.core.qa.probe.ProbeWindow)."""
    return span_saliency(model, window.input_ids, window.blocks, start_index, end_index, tokens=window.tokens,
                         offsets=window.offsets)

"""Two checkpoints, one example: the same question and passage through QA models A and B (typically a base
encoder and its fine-tune, or two runs), and what differs: the attention of a layer and head as A, B and
B − A, the block flow per layer of both, and the start / end probabilities and answers of both.

Both models must tokenize the example the same way (same token ids in every window) and have the same number
of layers and heads; the window compared is A's best window unless another is asked. Model work (the two
probes) runs where the models are (the inspector child); :class:`CheckpointComparison` is plain numpy and
crosses the pipe (explorer.core.protocol.frames).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.core.attention.layers import head_matrix
from explorer.core.errors import UserError


class CheckpointMismatchError(UserError):
    """The two checkpoints cannot be compared on this example (other tokens, layers or heads)."""


@dataclass
class CheckpointComparison:
    """One window of one example through checkpoints A and B.

    Attributes (n = tokens of the window, L layers, H heads):
        question, passage: the example; label_a, label_b: how the two checkpoints are named on screen.
        window: the window compared (0-based); n_windows: the example's windows.
        tokens, blocks: n token strings and their blocks (explorer.core.attention.flow.BLOCKS), the same for both.
        attentions_a, attentions_b: (L, H, n, n) float32 attention weights, rows = from-tokens.
        flow_a, flow_b: (L, H, 3, 3) float32 block flow (explorer.core.attention.flow.block_flow).
        start_probs_a, end_probs_a, start_probs_b, end_probs_b: (n,) float64 softmax over the window's tokens.
        start_logits_a, end_logits_a, start_logits_b, end_logits_b: (n,) float32 logits.
        answer_a, answer_b: the best span's text ("" when the null answer wins at τ = 0);
        score_diff_a, score_diff_b: best span score − null score (logit units).
    """

    question: str
    passage: str
    label_a: str
    label_b: str
    window: int
    n_windows: int
    tokens: list
    blocks: list
    attentions_a: np.ndarray
    attentions_b: np.ndarray
    flow_a: np.ndarray
    flow_b: np.ndarray
    start_probs_a: np.ndarray
    end_probs_a: np.ndarray
    start_probs_b: np.ndarray
    end_probs_b: np.ndarray
    start_logits_a: np.ndarray
    end_logits_a: np.ndarray
    start_logits_b: np.ndarray
    end_logits_b: np.ndarray
    answer_a: str
    answer_b: str
    score_diff_a: float
    score_diff_b: float

    @property
    def num_layers(self) -> int:
        return int(self.attentions_a.shape[0])

    @property
    def num_heads(self) -> int:
        return int(self.attentions_a.shape[1])

    def attention(self, layer: int, head: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(A, B, B − A) for ``layer`` (0-based) and ``head`` (0-based; None = the mean over heads), each (n, n)
        float32. Raises IndexError for a layer or head out of range."""
        if not 0 <= layer < self.num_layers:
            raise IndexError(f"layer {layer + 1} of {self.num_layers}")
        if head is not None and not 0 <= head < self.num_heads:
            raise IndexError(f"head {head + 1} of {self.num_heads}")
        a = head_matrix(self.attentions_a, layer, head)
        b = head_matrix(self.attentions_b, layer, head)
        return a, b, b - a

    def flow(self, head: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The block flow per layer of A and B, each (L, 3, 3): one head (0-based) or the mean over heads."""
        if head is None:
            return self.flow_a.mean(axis=1), self.flow_b.mean(axis=1)
        return self.flow_a[:, head], self.flow_b[:, head]


def compare_checkpoints(loaded_a, loaded_b, question: str, passage: str, *, label_a: str = "A", label_b: str = "B",
                        window: int | None = None, max_seq_length: int = 384, doc_stride: int = 128,
                        max_query_length: int = 64, max_answer_length: int = 30) -> CheckpointComparison:
    """Probe ``question`` / ``passage`` with both QA models (explorer.core.qa.probe.probe, attention kept in float32)
    and gather one window of both.

    Args:
        loaded_a, loaded_b: LoadedModel (or what probe() accepts) of checkpoints A and B.
        window: the window to compare (0-based); default A's best window.
        max_seq_length, doc_stride, max_query_length, max_answer_length: the probe's window settings (both).

    Raises:
        CheckpointMismatchError: the two tokenize the example differently, or differ in layers or heads, or
            ``window`` is out of range.
        ProbeError / WindowSettingsError: as probe().
    """
    from explorer.core.qa.probe import probe

    kw = dict(attentions=True, keep_attentions="float32", max_seq_length=max_seq_length, doc_stride=doc_stride,
              max_query_length=max_query_length, max_answer_length=max_answer_length, attention_budget=2 ** 62)
    ra = probe(loaded_a, question, passage, **kw)
    rb = probe(loaded_b, question, passage, **kw)
    if [w.input_ids for w in ra.windows] != [w.input_ids for w in rb.windows]:
        raise CheckpointMismatchError(f"{label_a} and {label_b} split this example into different tokens (other "
                                      "vocabularies): their attention cannot be compared token by token")
    if not ra.attention or not rb.attention:
        raise CheckpointMismatchError("one of the two models returned no attention weights: "
                                      + (ra.attention_note or rb.attention_note or "no reason given"))
    k = ra.best_window.index if window is None else int(window)
    if not 0 <= k < len(ra.windows):
        raise CheckpointMismatchError(f"window {k + 1} asked, the example has {len(ra.windows)}")
    wa, wb = ra.attention_weights(k), rb.attention_weights(k)
    if wa.shape != wb.shape:
        raise CheckpointMismatchError(f"{label_a} has {wa.shape[0]} layers x {wa.shape[1]} heads, {label_b} "
                                      f"{wb.shape[0]} x {wb.shape[1]}: compare checkpoints of one architecture")
    win_a, win_b = ra.windows[k], rb.windows[k]
    da, db = ra.decision(0.0), rb.decision(0.0)
    return CheckpointComparison(
        question=question, passage=passage, label_a=label_a, label_b=label_b, window=k, n_windows=len(ra.windows),
        tokens=list(win_a.tokens), blocks=list(win_a.blocks),
        attentions_a=np.asarray(wa, dtype=np.float32), attentions_b=np.asarray(wb, dtype=np.float32),
        flow_a=ra.attention[k].flow, flow_b=rb.attention[k].flow,
        start_probs_a=win_a.start_probs, end_probs_a=win_a.end_probs,
        start_probs_b=win_b.start_probs, end_probs_b=win_b.end_probs,
        start_logits_a=win_a.start_logits, end_logits_a=win_a.end_logits,
        start_logits_b=win_b.start_logits, end_logits_b=win_b.end_logits,
        answer_a=da.answer_text, answer_b=db.answer_text,
        score_diff_a=float(ra.score_diff), score_diff_b=float(rb.score_diff))

"""The probe's memory budget for raw attention weights.

Raw weights are (layers, heads, seq, seq) per window: a 30-window passage on a 12-layer, 12-head model at
max_seq_length 384 is 30 x 12 x 12 x 384² = 637M numbers, 1.2 GiB in float16 (2.4 GiB in float32). The
probe keeps them in float16 and within :data:`ATTENTION_BUDGET_BYTES`: when all windows fit, all are kept;
above the budget only the shown window keeps its weights, and another window's weights are computed when it
is shown (one eager forward of that window), replacing the previous ones. The block-flow summaries, token
shares and rollout of every window are always kept (they are small).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from explorer.core.units import format_bytes

ATTENTION_BUDGET_BYTES = 256 * 2 ** 20  # 256 MiB of raw attention weights per probe
KEEP_DTYPE = "float16"


def attention_bytes(lengths: list[int], num_layers: int, num_heads: int, itemsize: int = 2) -> int:
    """Bytes of raw weights for windows of these token lengths: sum of layers x heads x seq² x itemsize."""
    return int(sum(int(n) ** 2 for n in lengths) * num_layers * num_heads * itemsize)


def budget_note(lengths: list[int], num_layers: int, num_heads: int, budget: int | None,
                itemsize: int = 2) -> str:
    """"" when the raw weights of all windows fit the budget (None = no budget), else the warning, e.g.
    "30 windows x 12 layers x 12 heads x 384² float16 would need 1.2 GiB (budget 256 MiB); keeping only the
    shown window"."""
    need = attention_bytes(lengths, num_layers, num_heads, itemsize)
    if budget is None or need <= budget:
        return ""
    longest = max(lengths)
    seq = f"{longest}²" if all(n == longest for n in lengths) else f"up to {longest}²"
    dtype = {2: "float16", 4: "float32"}.get(itemsize, f"{itemsize}-byte")
    n = len(lengths)
    return (f"{n} window{'s' if n != 1 else ''} x {num_layers} layers x {num_heads} heads x {seq} {dtype} would "
            f"need {format_bytes(need)} (budget {format_bytes(budget)}); keeping only the shown window")


class LazyAttention:
    """Computes one window's raw weights on demand and keeps at most the windows the budget allows.

    ``compute(k)`` -> (layers, heads, seq, seq) array of window k (any float dtype). ``within_budget``:
    all windows may stay; otherwise only the most recently shown window keeps its weights.
    """

    def __init__(self, compute: Callable[[int], np.ndarray], within_budget: bool, dtype: str = KEEP_DTYPE):
        self.compute = compute
        self.within_budget = within_budget
        self.dtype = dtype

    def fill(self, attention: list, k: int) -> np.ndarray:
        """Make sure ``attention[k].attentions`` holds window k's weights (in ``dtype``) and return them; drops
        the other windows' weights when over budget."""
        data = attention[k]
        if data.attentions is None:
            data.attentions = np.asarray(self.compute(k)).astype(self.dtype, copy=False)
        if not self.within_budget:
            for j, other in enumerate(attention):
                if j != k:
                    other.attentions = None
        return data.attentions

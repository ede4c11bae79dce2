"""Where the attention of a set of tokens goes, and what attends to them (the head view's token selection).

For one attention matrix ``A`` (n_from, n_to) (one layer and head, their mean, or rollout; rows = from-tokens,
each row sums to 1) and a set S of tokens:

- ``outgoing[j] = mean over i in S of A[i, j]``: where the selected from-tokens' attention goes together (their
  summed attention divided by |S|, so it sums to 1 like one row);
- ``incoming[i] = sum over j in S of A[i, j]``: how much of token i's attention lands on the selected tokens (in
  [0, 1]: the share of its row that goes to the set).

Pure numpy (no Qt); the GUI only draws these (explorer.ui.inspectors.head_view).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np


@dataclass
class SelectionAttention:
    """The summed attention of a set of tokens (indices into one attention matrix).

    Attributes:
        selected: the sorted token indices.
        outgoing: (n_to,) float32, the mean over the selected rows (sums to 1 when rows do).
        incoming: (n_from,) float32, each row's summed weight on the selected columns.
    """

    selected: list[int]
    outgoing: np.ndarray
    incoming: np.ndarray

    def top_outgoing(self, k: int = 3) -> list[tuple[int, float]]:
        """The k to-tokens that get most of the selection's attention, (index, share), largest first."""
        order = np.argsort(-self.outgoing, kind="stable")[:k]
        return [(int(j), float(self.outgoing[j])) for j in order]

    def top_incoming(self, k: int = 3, *, exclude_selected: bool = True) -> list[tuple[int, float]]:
        """The k from-tokens that give the selection most of their attention (the selected ones left out)."""
        values = self.incoming.astype(np.float64).copy()
        if exclude_selected and len(self.selected) < values.size:
            values[self.selected] = -np.inf
        order = np.argsort(-values, kind="stable")[:k]
        return [(int(i), float(self.incoming[i])) for i in order if np.isfinite(values[i])]


def summed_outgoing(weights, rows: Sequence[int]) -> np.ndarray:
    """(n_to,) float32: the mean of the rows ``rows`` of ``weights`` (n_from, n_to), where those from-tokens'
    attention goes together. Raises ValueError without rows or for an index out of range."""
    a = np.asarray(weights, dtype=np.float32)
    return a[_indices(rows, a.shape[0])].mean(axis=0)


def summed_incoming(weights, cols: Sequence[int]) -> np.ndarray:
    """(n_from,) float32: each row's summed weight on the columns ``cols`` of ``weights`` (n_from, n_to), how
    much of every from-token's attention lands on those tokens. Raises ValueError as summed_outgoing."""
    a = np.asarray(weights, dtype=np.float32)
    return a[:, _indices(cols, a.shape[1])].sum(axis=1)


def _indices(selected, n: int) -> list[int]:
    idx = sorted({int(i) for i in selected})
    if not idx:
        raise ValueError("select at least one token")
    if idx[0] < 0 or idx[-1] >= n:
        raise ValueError(f"token index out of range 0..{n - 1}: {idx}")
    return idx


def selection_attention(matrix, selected: Sequence[int]) -> SelectionAttention:
    """The summed attention of the tokens ``selected`` in ``matrix`` (n, n), rows = from-tokens.

    Raises:
        ValueError: a non-square matrix, no token selected, or an index outside 0..n-1.
    """
    a = np.asarray(matrix, dtype=np.float32)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"selection_attention needs one (n, n) attention matrix; got shape {a.shape}")
    idx = _indices(selected, a.shape[0])
    return SelectionAttention(selected=idx, outgoing=summed_outgoing(a, idx), incoming=summed_incoming(a, idx))

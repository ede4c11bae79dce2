"""Which tokens a heat map's axis names (Qt-free): every token when their labels fit, else the first token of each
block ([CLS], the question, [SEP], the passage; of two too close for both labels, the shorter block's) and every
k-th token between them.

A map that named only every ~10th token hid where the question ends: a student had to hover to find the [SEP].
"""

from __future__ import annotations

import math

__all__ = ["block_starts", "token_ticks"]


def block_starts(blocks: list[str] | None) -> list[int]:
    """The index of the first token of each run of equal block names (0 included); [] without blocks."""
    if not blocks:
        return []
    return [i for i, b in enumerate(blocks) if i == 0 or b != blocks[i - 1]]


def token_ticks(n: int, lo: float, hi: float, px_per_cell: float, label_px: float,
                boundaries: list[int] | None = None) -> list[int]:
    """The token indices an axis labels, ascending, among tokens ``lo``..``hi`` (the visible range, in cells) of
    ``n``. ``px_per_cell``: the pixels one token has along the axis; ``label_px``: what a label needs;
    ``boundaries``: the first token of each block (:func:`block_starts`).

    Every token in view when ``px_per_cell >= label_px``. Else k = the cells a label needs: the block starts in
    view, always, except where two lie closer than k cells, where one label would cover the other: of those the
    start of the shortest block is named, the later on a tie (the [SEP] that ends the question rather than the
    passage's first word; [CLS] rather than the question's first word); then every k-th token at least k cells
    from a named start."""
    if n <= 0 or hi <= lo or px_per_cell <= 0:
        return []
    first, last = max(0, int(math.floor(lo))), min(n, int(math.ceil(hi)) + 1)
    if px_per_cell >= label_px:
        return list(range(first, last))
    step = max(1, math.ceil(label_px / px_per_cell))
    starts = sorted(set(boundaries or []))
    size = {b: (starts[k + 1] if k + 1 < len(starts) else n) - b for k, b in enumerate(starts)}
    marks: list[int] = []
    for b in sorted((b for b in starts if first <= b < last), key=lambda b: (size[b], -b)):
        if all(abs(b - m) >= step for m in marks):
            marks.append(b)
    regular = [i for i in range(first - first % step, last, step)
               if i >= first and all(abs(i - b) >= step for b in marks)]
    return sorted(set(marks) | set(regular))

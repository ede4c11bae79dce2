"""Which tokens a heat map's axis names, and where each label goes (Qt-free): every token when their labels fit,
else the first token of each block ([CLS], the question's first token, [SEP], the passage's first token, the last
[SEP]) always, plus as many evenly spaced tokens as the room left holds.

Block starts lie close together (a 384-token window puts [CLS], the question and its [SEP] within one label's
height), so their labels are spread along the axis in token order, each as near its token as the labels before
it allow: a student sees where the question starts and ends without hovering.
"""

from __future__ import annotations

import math
from typing import Callable

__all__ = ["block_starts", "placed_ticks", "token_ticks"]


def block_starts(blocks: list[str] | None) -> list[int]:
    """The index of the first token of each run of equal block names (0 included); [] without blocks."""
    if not blocks:
        return []
    return [i for i, b in enumerate(blocks) if i == 0 or b != blocks[i - 1]]


def placed_ticks(n: int, lo: float, hi: float, px_per_cell: float, label_px: float | Callable[[int], float],
                 boundaries: list[int] | None = None) -> list[tuple[int, float]]:
    """(token index, where its label's centre goes in cells) for every label an axis draws, ascending, among
    tokens ``lo``..``hi`` (the visible range, in cells) of ``n``. ``px_per_cell``: the pixels one token has along
    the axis; ``label_px``: the pixels a label needs along it (one number, or token index -> pixels);
    ``boundaries``: the first token of each block (:func:`block_starts`).

    Every token in view, at its cell's centre, when each label fits its cell. Else every block start in view is
    labelled, spread apart in token order where their labels would overlap (pushed toward the later tokens, and
    back from the end of the view), then every k-th token (k = the cells the widest label needs) whose label
    overlaps none already placed."""
    if n <= 0 or hi <= lo or px_per_cell <= 0:
        return []
    first, last = max(0, int(math.floor(lo))), min(n, int(math.ceil(hi)) + 1)
    width = label_px if callable(label_px) else (lambda _i, px=float(label_px): px)
    cells = {i: width(i) / px_per_cell for i in range(first, last)}   # a label's length along the axis, in cells
    if max(cells.values(), default=0.0) <= 1.0:
        return [(i, i + 0.5) for i in range(first, last)]
    marks = sorted({b for b in boundaries or [] if first <= b < last})
    pos = _spread([b + 0.5 for b in marks], [cells[b] for b in marks], hi)
    placed = list(zip(marks, pos))
    step = max(1, math.ceil(max(cells.values())))
    for i in range(first - first % step, last, step):
        if i >= first and i not in marks and all(abs(i + 0.5 - p) >= (cells[i] + cells[b]) / 2 for b, p in placed):
            placed.append((i, i + 0.5))
    return sorted(placed)


def _spread(want: list[float], size: list[float], hi: float) -> list[float]:
    """Centres as near ``want`` as labels of lengths ``size`` allow without overlapping, in order; the last kept
    inside ``hi`` where the pushing moved it past."""
    pos: list[float] = []
    for k, w in enumerate(want):
        pos.append(w if k == 0 else max(w, pos[-1] + (size[k - 1] + size[k]) / 2))
    if pos and pos[-1] > max(want[-1], hi - size[-1] / 2):
        pos[-1] = max(want[-1], hi - size[-1] / 2)
        for k in range(len(pos) - 2, -1, -1):
            pos[k] = min(pos[k], pos[k + 1] - (size[k] + size[k + 1]) / 2)
    return pos


def token_ticks(n: int, lo: float, hi: float, px_per_cell: float, label_px: float | Callable[[int], float],
                boundaries: list[int] | None = None) -> list[int]:
    """The token indices an axis labels, ascending (:func:`placed_ticks` without the positions)."""
    return [i for i, _ in placed_ticks(n, lo, hi, px_per_cell, label_px, boundaries)]

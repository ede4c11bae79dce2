"""Batches for dynamic padding: length-grouped training batches, length-sorted eval batches, padding.

Padding every batch to its own longest row (dynamic padding) and putting rows of similar length
together (length grouping, as Hugging Face ``LengthGroupedSampler`` does) is where most of the
speed of a CPU fine-tune comes from: a SQuAD window is on average far shorter than 384 tokens.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import torch

MEGABATCH_FACTOR = 50


def epoch_batches(lengths: Sequence[int], batch_size: int, *, seed: int, epoch: int,
                  group_by_length: bool = True, megabatch_factor: int = MEGABATCH_FACTOR,
                  drop_last: bool = False, accumulation_steps: int = 1) -> list[list[int]]:
    """The training micro-batches of one epoch as lists of row indices; the same (seed, epoch) gives the
    same list.

    Shuffle all rows with ``numpy.random.default_rng([seed, epoch])``. With ``group_by_length`` the unit is
    the *effective* batch, ``batch_size * accumulation_steps`` rows (one optimizer step; pass
    gradient_accumulation_steps x processes), as Hugging Face's Trainer gives ``LengthGroupedSampler``:
    cut the shuffled order into megabatches of ``megabatch_factor`` effective batches, sort each by
    length (longest first), cut it into effective batches, shuffle their order (so long and short steps
    alternate through the epoch) with an incomplete one last, and only then split each into micro-batches
    of ``batch_size`` rows, kept next to each other. So batch 6 x GA 2 and batch 12 x GA 1 see the same
    rows in every optimizer step (case ga-length-grouping), and a step's micro-batches never mix steps.
    ``drop_last`` drops a last micro-batch shorter than ``batch_size``.
    """
    n = len(lengths)
    rng = np.random.default_rng([int(seed), int(epoch)])
    order = rng.permutation(n)
    step_rows = batch_size * max(1, int(accumulation_steps))
    if group_by_length:
        lengths = np.asarray(lengths)
        mega = max(step_rows, megabatch_factor * step_rows)
        sorted_chunks = []
        for i in range(0, n, mega):
            chunk = order[i:i + mega]
            sorted_chunks.append(chunk[np.argsort(-lengths[chunk], kind="stable")])
        order = np.concatenate(sorted_chunks) if sorted_chunks else order
        steps = [order[i:i + step_rows] for i in range(0, n, step_rows)]
        last = steps.pop() if steps and len(steps[-1]) < step_rows else None
        if len(steps) > 1:
            steps = [steps[i] for i in rng.permutation(len(steps))]
        if last is not None:
            steps.append(last)                    # a leftover step stays at the end, where the loop expects it
        order = np.concatenate(steps) if steps else order
    batches = [order[i:i + batch_size].tolist() for i in range(0, n, batch_size)]
    if drop_last and batches and len(batches[-1]) < batch_size:
        batches.pop()
    return batches


def eval_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Evaluation batches: rows sorted by length (longest first) and cut in order; no randomness."""
    order = np.argsort(-np.asarray(lengths), kind="stable")
    return [order[i:i + batch_size].tolist() for i in range(0, len(order), batch_size)]


def num_batches(n_rows: int, batch_size: int) -> int:
    return int(math.ceil(n_rows / batch_size))


def pad_sequences(rows: Sequence[Sequence[int]], pad_value: int, dtype=torch.long) -> torch.Tensor:
    """Pad rows of token ids to the longest row: shape (len(rows), max_len), padded on the right."""
    width = max((len(r) for r in rows), default=0)
    out = torch.full((len(rows), width), pad_value, dtype=dtype)
    for i, r in enumerate(rows):
        if len(r):
            out[i, :len(r)] = torch.as_tensor(r, dtype=dtype)
    return out


class ListBatchSampler(torch.utils.data.Sampler):
    """A batch sampler over a fixed list of batches (DataLoader(batch_sampler=...); accelerate shards it)."""

    def __init__(self, batches: list[list[int]]):
        self.batches = batches

    def __iter__(self):
        return iter(self.batches)

    def __len__(self) -> int:
        return len(self.batches)


class IndexDataset(torch.utils.data.Dataset):
    """Yields row indices 0..n-1; the collate function turns a list of indices into a padded batch."""

    def __init__(self, n: int):
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> int:
        return i

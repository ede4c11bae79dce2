"""The model's forward over many rows at its own speed: length-sorted batches, each padded only to its longest
row (dynamic padding), in inference mode, under bf16 autocast where bf16 is fast (AMX CPUs, CUDA with bf16).

One code path for every scoring of many rows outside training: ``predict`` (explorer.core.predict.engine) and
the dev-set scoring of the Classify page (explorer.core.training.dev_scoring). Scoring a dev set in fixed
batches of file order pads each batch to its longest row and wastes most of a forward on [PAD] tokens.
"""

from __future__ import annotations

from typing import Callable, Iterator

from explorer.core.models.eval_mode import inference


def length_order(lengths, batch_size: int) -> list[list[int]]:
    """Row indices sorted by length, longest first (stable), cut into ``batch_size`` pieces, so each batch is
    padded only to its own longest row.

    Raises:
        ValueError: batch_size < 1.
    """
    import numpy as np

    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1; got {batch_size}")
    order = np.argsort(-np.asarray(lengths), kind="stable")
    return [order[i:i + batch_size].tolist() for i in range(0, len(order), batch_size)]


def forward_batches(model, lengths, batch_size: int, make_batch: Callable[[list[int]], dict], *,
                    bf16: bool = False, cancelled: Callable[[], bool] | None = None) -> Iterator[tuple[list[int], object]]:
    """Yield ``(row indices, model outputs)`` for every length-sorted batch of the rows (``lengths``: tokens per
    row). ``make_batch(indices)`` returns the padded model inputs on the model's device. Runs under
    :func:`explorer.core.models.eval_mode.inference` and, with ``bf16``, ``torch.autocast(bfloat16)``.

    Raises:
        explorer.core.errors.Cancelled: ``cancelled()`` became true (checked between batches).
    """
    import torch

    from explorer.core.errors import Cancelled

    device_type = next(model.parameters()).device.type
    with inference(model):
        for idx in length_order(lengths, batch_size):
            if cancelled is not None and cancelled():
                raise Cancelled()
            batch = make_batch(idx)
            if bf16:
                with torch.autocast(device_type=device_type, dtype=torch.bfloat16):
                    out = model(**batch)
            else:
                out = model(**batch)
            yield idx, out

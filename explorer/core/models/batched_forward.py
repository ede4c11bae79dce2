"""The model's forward over many rows at its own speed: length-sorted batches, each padded only to its longest
row (dynamic padding), in inference mode, under bf16 autocast where bf16 is fast (AMX CPUs, CUDA with bf16).

One code path for every scoring of many rows outside training: ``predict`` (explorer.core.predict.engine) and
the dev-set scoring of the Classify page (explorer.core.training.dev_scoring). Scoring a dev set in fixed
batches of file order pads each batch to its longest row and wastes most of a forward on [PAD] tokens.
"""

from __future__ import annotations

from typing import Callable, Iterator

from explorer.core.models.eval_mode import inference


def fast_bf16(model) -> bool:
    """bf16 autocast speeds this model's device up: a CPU with AMX, or CUDA with bf16 (the training rule,
    explorer.core.training.precision.resolve_mixed_precision "auto")."""
    from explorer.core.training.precision import resolve_mixed_precision

    device = next(model.parameters()).device.type
    return resolve_mixed_precision("auto", device) == "bf16"


def length_order(lengths, batch_size: int) -> list[list[int]]:
    """Row indices sorted by length, longest first (stable), cut into ``batch_size`` pieces
    (explorer.core.qa.inference.batch_order). Raises ValueError for batch_size < 1."""
    from explorer.core.qa.inference import batch_order

    return batch_order(lengths, batch_size)


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

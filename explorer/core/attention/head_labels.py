"""How a person names attention layers and heads: counted from 1, in every text the app shows and in every field
or flag it reads.

Layer L is the L-th encoder block from the input, the block whose output is hidden state L (the layer probes'
numbering: 0 = the embeddings, L = after block L); head H is the H-th head of that block. The Attention page's
layer and head boxes, the block flow table, the Heads off field, the head importance map, the ``heads`` command
and the guide all use this numbering (transformers' BERTology example prints layers and heads from 1 too).

Inside the code (gate tensors, attention weight arrays, the JSON fields that are index pairs) layers and heads are
0-based torch indexes; the functions here are the one place that converts between the two, and every function
that takes or returns an index says which. A typed head is ``L.H`` (``5.3``: head 3 of layer 5), a whole layer
``L.*`` or ``LL`` (``5.*``, ``L5``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from explorer.core.errors import UserError

FIRST = 1   # the number a person gives the first layer and the first head

SELECTION_HELP = ("heads to switch off, layers and heads counted from 1 as on the Attention page: 5.3 = head 3 of "
                  "layer 5; 5.* or L5 = every head of layer 5; separate them with commas")


class HeadLabelError(UserError):
    """A typed head or layer that is not one: not written as ``L.H`` / ``L.*`` / ``LL``, or outside the model.
    The message is a person's sentence naming what was typed and the model's layers and heads."""


def head_label(layer: int, head: int) -> str:
    """``"5.3"`` for the 0-based (layer 4, head 2)."""
    return f"{layer + FIRST}.{head + FIRST}"


def layer_label(layer: int) -> str:
    """``"layer 5"`` for the 0-based layer 4."""
    return f"layer {layer + FIRST}"


def head_name(layer: int, head: int) -> str:
    """``"layer 5, head 3"`` for the 0-based (4, 2): the Attention page's caption words."""
    return f"layer {layer + FIRST}, head {head + FIRST}"


def selection_label(pairs, heads_per_layer: int = 0, most: int = 8) -> str:
    """The 0-based (layer, head) ``pairs`` as a person types them, counted from 1: a layer whose every head is
    in ``pairs`` as ``6.*``, other heads as ``5.3``, in layer order (``"4.2, 6.*"``); past ``most`` items the rest
    are counted ("…and 3 more"). ``heads_per_layer`` 0 (unknown): no layer is written whole."""
    by_layer: dict[int, list[int]] = {}
    for layer, head in sorted({(int(a), int(h)) for a, h in pairs}):
        by_layer.setdefault(layer, []).append(head)
    items = []
    for layer, heads in by_layer.items():
        if heads_per_layer and len(heads) == heads_per_layer:
            items.append(f"{layer + FIRST}.*")
        else:
            items.extend(head_label(layer, h) for h in heads)
    shown = ", ".join(items[:most])
    return shown + (f" …and {len(items) - most} more" if len(items) > most else "")


def head_axis_labels(heads: int) -> list[str]:
    """``["h1", ..., "hN"]``: a head-per-column axis (short, as twelve columns share a map's width)."""
    return [f"h{j + FIRST}" for j in range(heads)]


def layer_axis_labels(layers: int, short: bool = False) -> list[str]:
    """``["layer 1", ..., "layer N"]`` (``short``: ``["L1", ...]``, as typed for a whole layer): a layer-per-row
    axis."""
    return [f"L{i + FIRST}" if short else layer_label(i) for i in range(layers)]


def numbers(count: int) -> list[str]:
    """``["1", ..., "N"]``: the items of a layer or head choice box, index i naming the 0-based layer or head i."""
    return [str(i + FIRST) for i in range(count)]


def model_range(layers: int, heads: int) -> str:
    """``"this model has layers 1-6 and heads 1-12 per layer"``."""
    return (f"this model has layers {FIRST}-{layers - 1 + FIRST} and heads {FIRST}-{heads - 1 + FIRST} per layer")


def outside_message(layer: int, head: int | None, layers: int, heads: int) -> str:
    """The sentence for a 0-based ``layer`` (and ``head``, None: a whole layer) outside a model of ``layers`` x
    ``heads``: "layer 7 does not exist: this model has layers 1-6 and heads 1-12 per layer"."""
    if not 0 <= layer < layers:
        return f"layer {layer + FIRST} does not exist: {model_range(layers, heads)}"
    return f"head {head + FIRST} of layer {layer + FIRST} does not exist: {model_range(layers, heads)}"


def check_head(layer: int, head: int | None, layers: int | None, heads: int | None) -> None:
    """Raise HeadLabelError when the 0-based ``layer`` / ``head`` (None: a whole layer) is outside the model;
    an unknown size (None) checks only that the numbers are not below the first."""
    too_low = layer < 0 or (head is not None and head < 0)
    high = (layers is not None and layer >= layers) or (head is not None and heads is not None and head >= heads)
    if too_low or high:
        if layers is None or heads is None:
            what = f"layer {layer + FIRST}" if layer < 0 else f"head {head + FIRST} of layer {layer + FIRST}"
            raise HeadLabelError(f"{what} does not exist: layers and heads are counted from {FIRST}")
        raise HeadLabelError(outside_message(layer, head, layers, heads))


_ITEM = re.compile(r"^(?:[lL](\d+)|(\d+)\.(\*|\d+))$")


@dataclass(frozen=True, kw_only=True)
class HeadSet:
    """Heads named by a person, as 0-based indexes: ``heads`` (layer, head) pairs outside the whole ``layers``,
    both sorted and without repeats."""

    heads: list[tuple[int, int]] = field(default_factory=list)
    layers: list[int] = field(default_factory=list)

    def labels(self) -> list[str]:
        """The set in a person's words: "layer 6 (all heads)", "5.3"."""
        return [f"{layer_label(layer)} (all heads)" for layer in self.layers] + [head_label(a, b)
                                                                                  for a, b in self.heads]


def parse_heads(text: str, layers: int | None = None, heads: int | None = None) -> HeadSet:
    """The heads named by ``text``: comma-, semicolon- or space-separated ``L.H`` (one head), ``L.*`` or ``LL``
    (every head of layer L), counted from 1. With the model's ``layers`` and ``heads`` per layer known, a number
    outside it is refused. Raises HeadLabelError naming the item (module docstring)."""
    pairs, whole = [], []
    for item in [t for t in re.split(r"[,\s;]+", text.strip()) if t]:
        m = _ITEM.match(item)
        if m is None:
            raise HeadLabelError(f"{item!r} is not a head: {SELECTION_HELP}")
        layer = int(m.group(1) or m.group(2)) - FIRST
        head = None if m.group(1) or m.group(3) == "*" else int(m.group(3)) - FIRST
        check_head(layer, head, layers, heads)
        if head is None:
            whole.append(layer)
        else:
            pairs.append((layer, head))
    whole = sorted(set(whole))
    return HeadSet(heads=sorted({p for p in pairs if p[0] not in whole}), layers=whole)


def parse_head(text: str) -> tuple[int, int]:
    """One ``L.H`` counted from 1 -> the 0-based (layer, head). Raises HeadLabelError otherwise."""
    m = _ITEM.match(text.strip())
    if m is None or m.group(1) or m.group(3) == "*":
        raise HeadLabelError(f"{text!r} is not a head: write it as layer.head counted from {FIRST}, e.g. 5.3 "
                             "(head 3 of layer 5)")
    layer, head = int(m.group(2)) - FIRST, int(m.group(3)) - FIRST
    check_head(layer, head, None, None)
    return layer, head


def parse_layer(text: str) -> int:
    """One layer number counted from 1 (``"6"`` or ``"L6"``) -> the 0-based layer. Raises HeadLabelError."""
    m = re.fullmatch(r"[lL]?(\d+)", text.strip())
    if m is None:
        raise HeadLabelError(f"{text!r} is not a layer: write its number counted from {FIRST}, e.g. 6")
    layer = int(m.group(1)) - FIRST
    check_head(layer, None, None, None)
    return layer

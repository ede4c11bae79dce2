"""A gate on every attention head's output: switch heads off (gate 0), or take gradients with respect to them.

Each layer's heads are concatenated, ``(..., heads * head_dim)``, right before the attention block's output
projection (BERT, RoBERTa, ELECTRA, DeBERTa-v2/v3: ``attention.output.dense``; DistilBERT: ``attention.out_lin``;
ALBERT: ``attention.dense``; ModernBERT: ``attn.Wo``). :func:`head_gates` puts a forward pre-hook on that
projection which multiplies head h's ``head_dim`` slice of layer l by ``gates[l, h]``: gate 1 leaves the model
as it is, gate 0 removes the head's context vector from the layer's output, exactly what the ``head_mask`` of
older transformers did to the attention probabilities (Michel et al. 2019, "Are Sixteen Heads Really Better
than One?"). It works whatever the attention implementation (eager, SDPA) and whether or not the model takes
``head_mask`` (transformers 5 models take none). A gate tensor that requires grad gives d(loss)/d(gate), the
head importance of transformers' BERTology example.
"""

from __future__ import annotations

import contextlib
import weakref
from dataclasses import dataclass
from typing import Iterable, Iterator

from explorer.core.attention.head_labels import HeadLabelError, outside_message

# module-name suffixes of the linear layer that reads the concatenated heads of one attention block
OUTPUT_PROJECTION_SUFFIXES = ("attention.output.dense", "attention.out_lin", "attention.dense", "attn.Wo",
                              "self_attn.out_proj", "self_attn.o_proj")


class HeadGateError(ValueError):
    """The model's attention output projections could not be found, or gates of the wrong shape were given."""


class HeadOutsideModelError(HeadGateError, HeadLabelError):
    """A head or layer index outside the model; the message names it as a person counts (from 1) with the model's
    layers and heads: "layer 7 does not exist: this model has layers 1-6 and heads 1-12 per layer"."""


@dataclass(frozen=True, kw_only=True)
class HeadLayout:
    """Where each layer's heads meet the output projection.

    Attributes:
        layers, heads: the model's encoder layers and heads per layer (config num_hidden_layers,
            num_attention_heads; DistilBERT: n_layers, n_heads).
        head_dim: features per head at the projection's input (its in_features / heads).
        projections: the output projection modules, one per layer in forward order; a model that shares one
            layer across depth (ALBERT) lists the shared module once, and its calls count the layers.
        names: the projections' module names.
    """

    layers: int
    heads: int
    head_dim: int
    projections: tuple
    names: tuple[str, ...]

    @property
    def shared(self) -> bool:
        """True when fewer projection modules than layers run (one module called once per layer)."""
        return len(self.projections) < self.layers


_LAYOUTS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def head_layout(model) -> HeadLayout:
    """The model's :class:`HeadLayout`, found once per model.

    Raises:
        HeadGateError: no attention output projection under a known name, or a projection whose input is not
            ``heads * head_dim`` wide.
    """
    try:
        return _LAYOUTS[model]
    except KeyError:
        pass
    cfg = model.config
    layers = int(getattr(cfg, "num_hidden_layers", None) or getattr(cfg, "n_layers", 0) or 0)
    heads = int(getattr(cfg, "num_attention_heads", None) or getattr(cfg, "n_heads", 0) or 0)
    found = [(name, module) for name, module in model.named_modules()
             if name.endswith(OUTPUT_PROJECTION_SUFFIXES) and hasattr(module, "in_features")]
    if not layers or not heads or not found:
        raise HeadGateError(f"{type(model).__name__}: no attention output projection found (looked for modules "
                            f"named *{', *'.join(OUTPUT_PROJECTION_SUFFIXES)}); heads cannot be gated")
    if len(found) != layers and not (len(found) == 1 and layers > 1):
        raise HeadGateError(f"{type(model).__name__}: {len(found)} attention output projections for {layers} "
                            "layers; heads cannot be gated")
    width = int(found[0][1].in_features)
    if width % heads:
        raise HeadGateError(f"{type(model).__name__}: the attention output projection reads {width} features, "
                            f"not a multiple of {heads} heads")
    layout = HeadLayout(layers=layers, heads=heads, head_dim=width // heads,
                        projections=tuple(m for _, m in found), names=tuple(n for n, _ in found))
    _LAYOUTS[model] = layout
    return layout


def gate_tensor(layout: HeadLayout, *, heads: Iterable[tuple[int, int]] = (), layers: Iterable[int] = (),
                requires_grad: bool = False):
    """A (layers, heads) float32 tensor of ones with 0 at each masked ``(layer, head)`` and on every head of each
    masked layer (0-based indexes). Raises HeadOutsideModelError (a HeadGateError and a UserError) for an index
    outside the model."""
    import torch

    gates = torch.ones(layout.layers, layout.heads)
    for layer in layers:
        _check_index(layout, int(layer), None)
        gates[int(layer)] = 0.0
    for layer, head in heads:
        _check_index(layout, int(layer), int(head))
        gates[int(layer), int(head)] = 0.0
    return gates.requires_grad_(requires_grad)


def _check_index(layout: HeadLayout, layer: int, head: int | None) -> None:
    if not (0 <= layer < layout.layers and (head is None or 0 <= head < layout.heads)):
        raise HeadOutsideModelError(outside_message(layer, head, layout.layers, layout.heads))


@contextlib.contextmanager
def head_gates(model, gates) -> Iterator[HeadLayout]:
    """Within the block, every forward of ``model`` multiplies head h of layer l by ``gates[l, h]`` before the
    attention output projection. ``gates``: (layers, heads) tensor or array-like (a tensor that requires grad
    keeps the graph: the forward's loss then has a gradient per gate). Hooks are removed on exit.

    Raises:
        HeadGateError: the model's heads cannot be gated (:func:`head_layout`) or ``gates`` has another shape.
    """
    import torch

    layout = head_layout(model)
    if not isinstance(gates, torch.Tensor):
        gates = torch.as_tensor(gates, dtype=torch.float32)
    if tuple(gates.shape) != (layout.layers, layout.heads):
        raise HeadGateError(f"gates of shape {tuple(gates.shape)} for a model of {layout.layers} layers x "
                            f"{layout.heads} heads")
    calls = [0]

    def make_hook(fixed_layer: int | None):
        def hook(_module, args):
            layer = fixed_layer if fixed_layer is not None else calls[0] % layout.layers
            calls[0] += 1
            x = args[0]
            g = gates[layer].to(device=x.device, dtype=x.dtype)
            shaped = x.unflatten(-1, (layout.heads, layout.head_dim)) * g[:, None]
            return (shaped.flatten(-2),) + tuple(args[1:])
        return hook

    handles = [module.register_forward_pre_hook(make_hook(None if layout.shared else i))
               for i, module in enumerate(layout.projections)]
    try:
        yield layout
    finally:
        for handle in handles:
            handle.remove()

"""Each layer's attention weights handed over inside the forward pass, while they are still in the cache.

transformers (5.x) records ``output.attentions`` through forward hooks on the modules that a model class names
in ``_can_record_outputs["attentions"]`` (BERT: ``BertSelfAttention``, whose output is ``(attn_output,
attn_weights)``). :func:`attention_hooks` puts our own hook on the same modules, so the probe summarises layer
l (explorer.core.attention.flow.LayerSummaries) right after its softmax, and no tuple of every layer's (batch,
heads, seq, seq) weights is kept until the end of the forward: each layer's buffer is freed (and reused) once
summarised. A model that does not name its attention modules, or whose modules give no weights without
``output_attentions=True``, is reported as not hooked; the probe then uses ``output.attentions`` as before.
"""

from __future__ import annotations

import contextlib
import weakref
from typing import Callable, Iterator


_FOUND: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()   # model -> attention_modules(model)


def attention_modules(model) -> list[tuple[object, int]]:
    """(module, index of the weights in its output tuple) for every module the model's class names as the
    producer of ``attentions`` (transformers' ``_can_record_outputs``), in ``named_modules`` order; [] when
    the class names none (older modelling code: use ``output_attentions=True``). Found once per model."""
    try:
        return _FOUND[model]
    except (KeyError, TypeError):
        found = _find_attention_modules(model)
    try:
        _FOUND[model] = found
    except TypeError:
        pass
    return found


def _find_attention_modules(model) -> list[tuple[object, int]]:
    specs = (getattr(type(model), "_can_record_outputs", None) or {}).get("attentions")
    if specs is None:
        return []
    found = []
    for spec in specs if isinstance(specs, list) else [specs]:
        if hasattr(spec, "target_class"):    # an OutputRecorder
            target, index = spec.target_class, int(spec.index)
            class_name, layer_name = spec.class_name, spec.layer_name
        else:                                # a class, or a class-name suffix; weights at index 1
            target, index = (None, 1) if isinstance(spec, str) else (spec, 1)
            class_name, layer_name = (spec if isinstance(spec, str) else None), None
        for name, module in model.named_modules():
            if not ((target is not None and isinstance(module, target))
                    or (class_name is not None and name.endswith(class_name))):
                continue
            if layer_name is not None and f".{layer_name.strip('.')}." not in f".{name}.":
                continue
            found.append((module, index))
    return found


class HookState:
    """What the hooks saw in one forward: ``calls`` (attention modules run), ``missing`` (calls whose output had
    no weights tensor: the implementation does not return them without output_attentions) and ``error`` (an
    exception raised by the consumer, re-raised by the caller after the forward)."""

    def __init__(self):
        self.calls = 0
        self.missing = 0
        self.error: BaseException | None = None


@contextlib.contextmanager
def attention_hooks(model, on_layer: Callable) -> Iterator[HookState | None]:
    """Within the block, every attention module's forward calls ``on_layer(weights)`` with its (batch, heads,
    seq, seq) weights tensor, in forward order (layer 1 first). Yields a :class:`HookState`, or None when the
    model names no attention modules (then nothing is hooked). Hooks are removed on exit. An exception of
    ``on_layer`` is kept in ``state.error`` (the forward finishes; later layers are skipped)."""
    modules = attention_modules(model)
    if not modules:
        yield None
        return
    state = HookState()

    def make_hook(index: int):
        def hook(_module, _args, output):
            state.calls += 1
            weights = output[index] if isinstance(output, (tuple, list)) and len(output) > index else None
            if weights is None or not hasattr(weights, "shape") or weights.dim() != 4:
                state.missing += 1
                return
            if state.error is None:
                try:
                    on_layer(weights)
                except Exception as exc:   # noqa: BLE001 - re-raised by the caller after the forward
                    state.error = exc
        return hook

    handles = [module.register_forward_hook(make_hook(index)) for module, index in modules]
    try:
        yield state
    finally:
        for handle in handles:
            handle.remove()

"""One window's eager forward with its attention summaries, and a window's raw weights computed on demand.

Shared by every page that shows attention (the QA probe, explorer.core.qa.probe; token tagging,
explorer.core.tagging.forward): :func:`attention_forward` summarises each layer inside the forward by a hook
on its attention module (explorer.core.attention.hooks, explorer.core.attention.flow.LayerSummaries), or,
for a model whose modules the hooks cannot read, from ``output.attentions`` afterwards;
:func:`window_attention_fn` is what an explorer.core.attention.budget.LazyAttention computes for a window
whose raw weights were not kept.
"""

from __future__ import annotations

import weakref

import numpy as np

from explorer.core.attention.flow import LayerSummaries, stack_attentions, summarize_attention_layers
from explorer.core.attention.hooks import attention_hooks
from explorer.core.models.eval_mode import inference

_NOT_HOOKABLE: "weakref.WeakSet" = weakref.WeakSet()   # models whose attention modules gave no weights to hooks


def attention_forward(model, batch, blocks: list[str], keep: str | None):
    """One window's eager forward with its attention summaries -> (output, AttentionData, "") or (None or an
    output without attentions, None, why not): an attention implementation that cannot return weights is said
    plainly instead of failing.

    Each layer is summarised inside the forward by a hook on its attention module (explorer.core.attention.hooks:
    LayerSummaries.add while the weights are cache-hot, the layer's buffer freed right after); a model whose
    modules the hooks cannot read takes the whole ``output.attentions`` afterwards (summarize_attention_layers).
    Both give identical numbers (tests/test_probe_speed_paths.py)."""
    from explorer.core.models.loading import eager_attention

    cfg = model.config
    layers, heads = getattr(cfg, "num_hidden_layers", None), getattr(cfg, "num_attention_heads", None)
    n = len(blocks)
    try:
        if layers and heads and model not in _NOT_HOOKABLE:
            acc = LayerSummaries(blocks, layers, heads, keep=keep)
            with eager_attention(model), attention_hooks(model, lambda w: acc.add(w[0, :, :n, :n])) as state:
                out = model(**batch, output_hidden_states=True) if state is not None else None
            if state is not None and state.error is None and not state.missing and acc.layers == layers:
                return out, acc.result(), ""
            _NOT_HOOKABLE.add(model)
        with eager_attention(model):
            out = model(**batch, output_hidden_states=True, output_attentions=True)
    except (ValueError, NotImplementedError, AttributeError) as exc:
        return None, None, (f"{type(model).__name__} cannot return attention weights "
                            f"({type(exc).__name__}: {str(exc).splitlines()[0][:160]})")
    if not (getattr(out, "attentions", None) and all(a is not None for a in out.attentions)):
        return None, None, (f"{type(model).__name__} returned no attention weights with its attention "
                            f"implementation ({getattr(model.config, '_attn_implementation', '?')})")
    return out, summarize_attention_layers(out.attentions, blocks, length=n, keep=keep), ""


def window_attention_fn(model, batch_of, lengths: list[int], dtype: str = "float32"):
    """A function k -> (layers, heads, seq, seq) attention weights of window k in ``dtype``: one eager forward
    of ``batch_of(k)`` (the window's model inputs, a dict of (1, seq) tensors on the model's device), cut to its
    ``lengths[k]`` real tokens. What a LazyAttention computes when a window's weights were not kept."""
    def compute(k: int) -> np.ndarray:
        from explorer.core.models.loading import eager_attention

        with inference(model), eager_attention(model):
            out = model(**batch_of(k), output_attentions=True)
        return stack_attentions(out.attentions, batch_index=0, length=int(lengths[k]), dtype=dtype)

    return compute

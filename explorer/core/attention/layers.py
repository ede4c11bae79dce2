"""One layer of kept raw attention weights as a float32 (seq, seq) matrix: one head, or the mean over the layer's
heads, the way the Attention view and the two-checkpoint comparison show them.

The probe keeps raw weights in float16 (explorer.core.attention.budget). numpy's float16 -> float32 cast is slow on
float16 subnormals (below 6.1e-5), and about a third of the weights of a 384-token window are that small: the mean
over 12 heads of one layer took 14 ms of a layer change. :func:`to_float32` converts through a 65,536-entry table
instead (every float16 bit pattern's float32 value: the same numbers, 3-5x faster), and the mean over heads is cached
per weights array and layer (:func:`head_matrix`), so a layer visited again costs nothing; :func:`warm` computes every
layer's mean ahead (the inspector client's reader thread does it as a probe's reply arrives, off the GUI thread).

The cache holds an entry per weights array while that array lives (a weak reference: when the probe result, or a
window's weights dropped under the memory budget, goes, its means go too); a new array (another probe, another
window, weights computed again) never meets the old means.
"""

from __future__ import annotations

import threading
import weakref

import numpy as np

_F16_TABLE: np.ndarray | None = None
_MEANS: dict[int, tuple[weakref.ref, dict[int, np.ndarray]]] = {}
_LOCK = threading.RLock()   # re-entrant: a weights array freed while it is held calls _forget


def _table() -> np.ndarray:
    global _F16_TABLE
    if _F16_TABLE is None:
        _F16_TABLE = np.arange(1 << 16, dtype=np.uint16).view(np.float16).astype(np.float32)
    return _F16_TABLE


def to_float32(a: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``a`` as float32 (a new array, or ``out`` of the same shape): float16 through the lookup table (exactly
    ``a.astype(np.float32)``, NaN and infinities included), other dtypes by numpy's cast."""
    a = np.asarray(a)
    if a.dtype != np.float16:
        if out is None:
            return a.astype(np.float32)
        np.copyto(out, a, casting="unsafe")
        return out
    return np.take(_table(), np.ascontiguousarray(a).view(np.uint16), out=out)


def _layer_mean(weights: np.ndarray, layer: int) -> np.ndarray:
    """The mean over heads of ``weights[layer]`` in float32: the same numbers as
    ``weights[layer].mean(axis=0, dtype=np.float32)`` (heads added in order in float32, then divided)."""
    heads = weights[layer]
    acc = to_float32(heads[0])
    tmp = np.empty_like(acc)
    for h in range(1, heads.shape[0]):
        acc += to_float32(heads[h], out=tmp)
    acc /= np.float32(heads.shape[0])
    acc.flags.writeable = False   # shared by every caller through the cache
    return acc


def _entry(weights: np.ndarray) -> dict[int, np.ndarray]:
    key = id(weights)
    with _LOCK:
        found = _MEANS.get(key)
        if found is not None and found[0]() is weights:
            return found[1]
        means: dict[int, np.ndarray] = {}
        _MEANS[key] = (weakref.ref(weights, lambda _ref, key=key: _forget(key, _ref)), means)
        return means


def _forget(key: int, ref: weakref.ref) -> None:
    with _LOCK:
        found = _MEANS.get(key)
        if found is not None and found[0] is ref:
            del _MEANS[key]


def head_matrix(weights: np.ndarray, layer: int, head: int | None = None) -> np.ndarray:
    """Layer ``layer`` (0-based) of raw weights (layers, heads, seq, seq) as a float32 (seq, seq) matrix: head
    ``head`` (0-based), or the mean over the layer's heads when ``head`` is None (cached per weights array and
    layer while the array lives: the returned mean is read-only).

    Raises:
        ValueError: weights that are not 4-D; IndexError: a layer or head out of range.
    """
    weights = np.asarray(weights)
    if weights.ndim != 4:
        raise ValueError(f"raw attention weights must be (layers, heads, seq, seq); got shape {weights.shape}")
    layers, heads = weights.shape[:2]
    if not 0 <= layer < layers:
        raise IndexError(f"layer {layer + 1} of {layers}")
    if head is not None:
        if not 0 <= head < heads:
            raise IndexError(f"head {head + 1} of {heads}")
        return to_float32(weights[layer, head])
    means = _entry(weights)
    mean = means.get(layer)
    if mean is None:
        mean = means[layer] = _layer_mean(weights, layer)
    return mean


def warm(weights) -> None:
    """Compute every layer's mean over heads of raw weights (layers, heads, seq, seq) into the cache (any thread;
    numpy releases the GIL while it adds). Anything else is ignored."""
    if isinstance(weights, np.ndarray) and weights.ndim == 4 and weights.size:
        for layer in range(weights.shape[0]):
            head_matrix(weights, layer)


def cached_layers(weights: np.ndarray) -> list[int]:
    """The layers whose mean over heads is cached for this weights array (tests, diagnostics)."""
    found = _MEANS.get(id(weights))
    return sorted(found[1]) if found is not None and found[0]() is weights else []

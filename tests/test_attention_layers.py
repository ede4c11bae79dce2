"""One layer of kept raw attention weights as float32 (explorer.core.attention.layers): the same
numbers as numpy's cast and mean, the mean cached per weights array and layer, forgotten with the array, and
computed ahead on the inspector client's reader thread."""

import gc

import numpy as np
import pytest

from explorer.core.attention import layers as al


def _weights(seed=0, shape=(3, 5, 40, 40)):
    """float16 weights with what attention has: many subnormals (below 6.1e-5), and a NaN, an inf, a -0."""
    rng = np.random.default_rng(seed)
    w = (rng.random(shape) ** 12).astype(np.float16)
    w[0, 0, 0, :4] = [np.nan, np.inf, 1e-7, -0.0]
    return w


def test_float16_to_float32_through_the_table_is_numpys_cast():
    w = _weights()
    assert (np.abs(w[np.isfinite(w)]) < 6.1e-5).mean() > 0.3          # the subnormals numpy's cast is slow on
    np.testing.assert_array_equal(al.to_float32(w), w.astype(np.float32))
    out = np.empty(w[1, 2].shape, np.float32)
    assert al.to_float32(w[1, 2], out=out) is out
    np.testing.assert_array_equal(out, w[1, 2].astype(np.float32))
    strided = w[:, 1, ::3, ::2]                                          # not contiguous
    np.testing.assert_array_equal(al.to_float32(strided), strided.astype(np.float32))
    f64 = np.linspace(0, 1, 7)
    assert al.to_float32(f64).dtype == np.float32


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_head_matrix_is_the_mean_or_the_head_numpy_gives(dtype):
    w = _weights(1).astype(dtype)
    for layer in range(w.shape[0]):
        np.testing.assert_array_equal(al.head_matrix(w, layer), w[layer].mean(axis=0, dtype=np.float32))
        for head in range(w.shape[1]):
            np.testing.assert_array_equal(al.head_matrix(w, layer, head), w[layer, head].astype(np.float32))
    with pytest.raises(IndexError, match="layer 4 of 3"):
        al.head_matrix(w, 3)
    with pytest.raises(IndexError, match="head 6 of 5"):
        al.head_matrix(w, 0, 5)
    with pytest.raises(ValueError, match="layers, heads, seq, seq"):
        al.head_matrix(w[0], 0)


def test_the_mean_is_cached_per_array_and_layer_and_read_only():
    w = _weights(2)
    first = al.head_matrix(w, 1)
    assert al.head_matrix(w, 1) is first and al.cached_layers(w) == [1]
    assert not first.flags.writeable
    with pytest.raises(ValueError):
        first[0, 0] = 1.0
    assert al.head_matrix(w, 1, 0) is not al.head_matrix(w, 1, 0)       # one head is not cached


def test_new_weights_get_their_own_means_and_dead_ones_are_forgotten():
    """Another probe, another window, weights computed again: a new array never meets the old means, and the
    means of an array that is gone are dropped with it."""
    w = _weights(3)
    old = al.head_matrix(w, 0)
    again = w.copy()
    again[0] *= np.float16(0.5)                                          # the same shape, other numbers
    np.testing.assert_array_equal(al.head_matrix(again, 0), again[0].mean(axis=0, dtype=np.float32))
    assert not np.array_equal(al.head_matrix(again, 0), old)
    entries = [al._MEANS[id(w)][1], al._MEANS[id(again)][1]]
    del w, again
    gc.collect()
    assert not any(means is e for _ref, means in al._MEANS.values() for e in entries)


def test_warm_computes_every_layer_and_ignores_the_rest():
    w = _weights(4)
    al.warm(w)
    assert al.cached_layers(w) == [0, 1, 2]
    for other in (None, "text", np.zeros((2, 2)), np.zeros((0, 1, 2, 2), np.float16)):
        al.warm(other)                                                   # no error, nothing cached


def test_the_inspector_clients_reader_thread_warms_a_probe_and_a_window_reply(tiny_qa):
    """client._warm (run on the reader thread before a reply is delivered) leaves every layer's mean cached for
    the windows a probe brings and for a window's attention_weights reply; a value it does not know is left as
    it is."""
    from explorer.core.qa.probe import probe
    from explorer.ui.inspectors.client import _warm

    result = probe(tiny_qa, "where was ada born?", "ada lovelace was born in london in 1815. " * 3, attentions=True)
    weights = result.attention[0].attentions
    assert al.cached_layers(weights) == []
    _warm(result)
    assert al.cached_layers(weights) == list(range(weights.shape[0]))
    reply = _weights(5)
    _warm(reply)
    assert al.cached_layers(reply) == [0, 1, 2]
    for value in ({"attention": None}, ("a", 1), None, object()):
        _warm(value)

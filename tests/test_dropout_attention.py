"""dropout_attention: the one-node training attention equals the op-by-op version, values and gradients."""

import pytest
import torch

from explorer.core.training.dropout_attention import dropout_attention


def reference(query, key, value, mask, drop, p, scale):
    """The plain autograd ops: scores, mask, softmax, dropout with the given mask, @ value."""
    scores = torch.matmul(query, key.transpose(-1, -2)) * scale
    if mask is not None:
        scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min) if mask.dtype == torch.bool \
            else scores + mask
    probs = torch.softmax(scores, -1).masked_fill(drop, 0.0) / (1.0 - p)
    return torch.matmul(probs, value)


def inputs(dtype=torch.float32, b=2, h=3, t=7, d=4, seed=0):
    g = torch.Generator().manual_seed(seed)
    q, k, v = (torch.randn(b, h, t, d, generator=g, dtype=dtype, requires_grad=True) for _ in range(3))
    drop = torch.rand(b, h, t, t, generator=g) < 0.3
    real = torch.ones(b, t, dtype=torch.bool)
    real[1, 5:] = False                                   # second row: two padding tokens
    return q, k, v, drop, real[:, None, None, :]


@pytest.mark.parametrize("mask_kind", ["none", "bool", "additive"])
def test_values_and_gradients_equal_the_op_by_op_attention(mask_kind):
    q, k, v, drop, real = inputs()
    mask = {"none": None, "bool": real,
            "additive": torch.where(real, 0.0, torch.finfo(torch.float32).min)}[mask_kind]
    grad_out = torch.randn(2, 3, 7, 4, generator=torch.Generator().manual_seed(5))
    ours = dropout_attention(q, k, v, mask, drop, 0.3, 0.5)
    ours_grads = torch.autograd.grad(ours, (q, k, v), grad_out)
    ref = reference(q, k, v, mask, drop, 0.3, 0.5)
    ref_grads = torch.autograd.grad(ref, (q, k, v), grad_out)
    assert torch.allclose(ours, ref, atol=1e-6)
    for a, b in zip(ours_grads, ref_grads):
        assert torch.allclose(a, b, atol=1e-5)
    if mask_kind != "none":                               # padded keys get no weight, so no key gradient
        assert torch.all(ours_grads[1][1, :, 5:] == 0)


def test_gradcheck_in_float64():
    q, k, v, drop, real = inputs(torch.float64, b=2, h=2, t=6, d=3, seed=2)
    assert torch.autograd.gradcheck(lambda a, b, c: dropout_attention(a, b, c, real, drop, 0.2, 0.7), (q, k, v))


def test_bad_drop_shape_and_p_are_refused():
    q, k, v, drop, _ = inputs()
    with pytest.raises(ValueError, match="drop mask has shape"):
        dropout_attention(q, k, v, None, drop[:, :, :3], 0.1, 1.0)
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        dropout_attention(q, k, v, None, drop, 1.0, 1.0)

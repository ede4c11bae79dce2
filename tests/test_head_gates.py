"""Gates on attention heads (explorer.core.attention.gates) on every encoder family's architecture.

All gates at 1 give the unmasked model; a head gated to 0 contributes a zero context vector to its layer's
output projection, which is what zeroing that head's columns of the projection weight does; gating works with
eager and SDPA attention, on ALBERT's one shared layer, and with gradients with respect to the gates.
"""

from __future__ import annotations

import inspect

import pytest
import torch
from family_models import FAMILIES, build_model

from explorer.core.attention.gates import HeadGateError, gate_tensor, head_gates, head_layout
from explorer.core.errors import UserError

FOUR = ["bert", "roberta", "deberta-v2", "modernbert"]


class _Vocab:
    """What family_config reads from a tokenizer: special ids and the vocabulary size."""

    pad_token_id, cls_token_id, sep_token_id = 0, 1, 2

    def __len__(self) -> int:
        return 99


def _model(name: str, task: str = "qa"):
    return build_model(FAMILIES[name], _Vocab(), task=task, seed=0)


def _inputs(seed: int = 1, length: int = 12) -> dict:
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(3, 99, (2, length), generator=g)
    ids[:, 0], ids[:, -1] = 1, 2
    mask = torch.ones_like(ids)
    mask[1, -3:] = 0
    return {"input_ids": ids, "attention_mask": mask}


def _run(model, gates=None) -> torch.Tensor:
    with torch.no_grad():
        if gates is None:
            out = model(**_inputs())
        else:
            with head_gates(model, gates):
                out = model(**_inputs())
    return torch.cat([out.start_logits, out.end_logits], -1) if hasattr(out, "start_logits") else out.logits


@pytest.mark.parametrize("name", list(FAMILIES))
def test_all_gates_at_one_give_the_unmasked_model(name):
    model = _model(name)
    layout = head_layout(model)
    assert (layout.layers, layout.heads) == (2, 4)
    assert torch.allclose(_run(model, gate_tensor(layout)), _run(model), atol=1e-6, rtol=0)


@pytest.mark.parametrize("name", FOUR)
def test_a_masked_head_changes_the_output_and_the_hooks_go_away(name):
    model = _model(name)
    base = _run(model)
    masked = _run(model, gate_tensor(head_layout(model), heads=[(0, 1)]))
    assert (masked - base).abs().max() > 1e-4
    assert torch.allclose(_run(model), base, atol=0, rtol=0)     # no hook left behind


@pytest.mark.parametrize("name", FOUR)
def test_a_masked_heads_context_reaching_the_output_projection_is_zero(name):
    model = _model(name)
    layout = head_layout(model)
    seen = []

    def observe():   # a pre-hook registered after the gate's runs after it: it sees the gated input
        return layout.projections[1].register_forward_pre_hook(lambda _m, args: seen.append(args[0].detach()))

    handle = observe()
    _run(model)
    handle.remove()
    with head_gates(model, gate_tensor(layout, heads=[(1, 2)])):
        handle = observe()
        with torch.no_grad():
            model(**_inputs())
        handle.remove()
    base, masked = (x.unflatten(-1, (layout.heads, layout.head_dim)) for x in seen)
    assert masked[..., 2, :].abs().max() == 0
    assert base[..., 2, :].abs().max() > 0
    keep = [0, 1, 3]
    assert torch.allclose(masked[..., keep, :], base[..., keep, :], atol=1e-6)


@pytest.mark.parametrize("name", FOUR)
def test_masking_a_head_equals_zeroing_its_columns_of_the_output_projection(name):
    model = _model(name)
    layout = head_layout(model)
    gated = _run(model, gate_tensor(layout, heads=[(0, 3), (1, 0)]))
    with torch.no_grad():
        for layer, head in [(0, 3), (1, 0)]:
            layout.projections[layer].weight[:, head * layout.head_dim:(head + 1) * layout.head_dim] = 0
    assert torch.allclose(gated, _run(model), atol=1e-6, rtol=0)


@pytest.mark.parametrize("name", FOUR)
def test_masking_a_whole_layer_masks_each_of_its_heads(name):
    model = _model(name)
    layout = head_layout(model)
    by_layer = _run(model, gate_tensor(layout, layers=[1]))
    by_heads = _run(model, gate_tensor(layout, heads=[(1, h) for h in range(layout.heads)]))
    assert torch.equal(by_layer, by_heads)
    assert (by_layer - _run(model)).abs().max() > 1e-4


@pytest.mark.parametrize("name", ["bert", "modernbert"])
def test_gates_act_the_same_under_eager_and_sdpa_attention(name):
    model = _model(name)
    gates = gate_tensor(head_layout(model), heads=[(0, 0), (1, 3)])
    model.set_attn_implementation("eager")
    eager = _run(model, gates)
    model.set_attn_implementation("sdpa")
    assert torch.allclose(eager, _run(model, gates), atol=1e-5, rtol=0)


def test_albert_shares_one_layer_and_its_calls_count_the_layers():
    model = _model("albert")
    layout = head_layout(model)
    assert layout.shared and len(layout.projections) == 1
    first, second = (_run(model, gate_tensor(layout, heads=[(layer, 0)])) for layer in (0, 1))
    base = _run(model)
    assert (first - base).abs().max() > 1e-5 and (second - base).abs().max() > 1e-5
    assert (first - second).abs().max() > 1e-5


@pytest.mark.parametrize("name", FOUR)
def test_where_a_model_takes_head_mask_it_gives_what_the_gates_give(name):
    model = _model(name)
    if "head_mask" not in inspect.signature(model.forward).parameters:
        pytest.skip(f"{type(model).__name__} takes no head_mask in this transformers version; the gates are "
                    "checked against zeroed projection columns instead")
    mask = torch.ones(2, 4)
    mask[0, 1] = 0
    with torch.no_grad():
        out = model(**_inputs(), head_mask=mask)
    ours = _run(model, mask)
    theirs = torch.cat([out.start_logits, out.end_logits], -1)
    assert torch.allclose(ours, theirs, atol=1e-6, rtol=0)


def test_gradient_with_respect_to_a_gate_matches_a_finite_difference():
    model = _model("bert", task="classification").double()
    layout = head_layout(model)
    inputs = _inputs()

    def loss_at(gates):
        with head_gates(model, gates):
            return model(**inputs).logits.pow(2).sum()

    gates = gate_tensor(layout).double().requires_grad_(True)
    (grad,) = torch.autograd.grad(loss_at(gates), gates)
    eps = 1e-6
    for layer, head in [(0, 2), (1, 1)]:
        up, down = gate_tensor(layout).double(), gate_tensor(layout).double()
        up[layer, head] += eps
        down[layer, head] -= eps
        with torch.no_grad():
            numeric = (loss_at(up) - loss_at(down)) / (2 * eps)
        assert abs(float(grad[layer, head]) - float(numeric)) < 1e-5 * max(1.0, abs(float(numeric)))


def test_bad_gates_and_indices_are_refused_with_the_models_size():
    model = _model("bert")
    layout = head_layout(model)
    with pytest.raises(HeadGateError, match="layer 3 does not exist: this model has layers 1-2 and heads 1-4"):
        gate_tensor(layout, heads=[(2, 0)])      # 0-based indexes in, a person's numbers in the message
    with pytest.raises(UserError, match="head 5 of layer 1 does not exist"):
        gate_tensor(layout, heads=[(0, 4)])
    with pytest.raises(HeadGateError, match=r"\(3, 4\)"):
        with head_gates(model, torch.ones(3, 4)):
            pass


def test_a_model_without_attention_output_projections_is_refused():
    linear = torch.nn.Linear(4, 4)
    linear.config = type("Config", (), {"num_hidden_layers": 1, "num_attention_heads": 2})()
    with pytest.raises(HeadGateError, match="no attention output projection"):
        head_layout(linear)

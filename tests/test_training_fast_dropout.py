"""Fast CPU dropout: right drop rate and scale, right gradient, attention equal to SDPA without dropout."""

import pytest
import torch

from helpers import tiny_loaded_model
from explorer.core.training.fast_dropout import (FastDropout, disable_fast_dropout, enable_fast_dropout,
                                                 fast_dropout)


def test_drop_rate_scale_and_gradient():
    torch.manual_seed(0)
    x = torch.ones(200_000, requires_grad=True)
    y = fast_dropout(x, 0.1)
    kept = y != 0
    assert float(1 - kept.float().mean()) == pytest.approx(0.1, abs=0.003)
    assert torch.allclose(y[kept], torch.full_like(y[kept], 1 / 0.9))
    y.sum().backward()
    assert torch.equal(x.grad != 0, kept) and torch.allclose(x.grad[kept], torch.full_like(x.grad[kept], 1 / 0.9))
    assert fast_dropout(x, 0.1, training=False) is x and fast_dropout(x, 0.0) is x
    torch.manual_seed(1)
    a = fast_dropout(torch.ones(1000), 0.5)
    torch.manual_seed(1)
    assert torch.equal(a, fast_dropout(torch.ones(1000), 0.5))   # seeded by torch's generator


def test_model_switch_keeps_eval_outputs_and_matches_sdpa_without_dropout():
    loaded = tiny_loaded_model("qa")
    model = loaded.model
    enc = loaded.tokenizer(["where was ada born", "who"], ["ada was born in london in 1815", "bert"],
                           padding=True, return_tensors="pt")
    model.eval()
    with torch.no_grad():
        ref = model(**enc).start_logits
        assert enable_fast_dropout(model)
        assert all(type(m) is FastDropout for m in model.modules() if isinstance(m, torch.nn.Dropout))
        assert torch.equal(model(**enc).start_logits, ref)               # eval: SDPA path unchanged
        for m in model.modules():
            if isinstance(m, torch.nn.Dropout):
                m.p = 1e-9                                              # training path, nothing dropped
        model.train()
        ours = model(**enc).start_logits
    mask = enc["attention_mask"].bool()
    assert torch.allclose(ours[mask], ref[mask], atol=1e-5)            # our attention == SDPA (real tokens)
    disable_fast_dropout(model)
    assert model.config._attn_implementation == "sdpa"
    assert not any(type(m) is FastDropout for m in model.modules())
    model.eval()

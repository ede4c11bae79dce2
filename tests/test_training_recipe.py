"""Optimizer groups, the linear warmup/decay schedule, clipping, step planning, batching."""

import math

import numpy as np
import pytest
import torch

from helpers import tiny_loaded_model
from explorer.core.training.batching import epoch_batches, eval_batches, pad_sequences
from explorer.core.specs.train_config import TrainConfig
from explorer.core.training.loop import plan_steps, set_dropout
from explorer.core.training.recipe import (build_optimizer, build_scheduler, clip_gradients,
                                           decay_parameter_names, linear_schedule, param_groups,
                                           warmup_steps_for)


def test_no_decay_on_biases_and_layernorm_weights():
    model = tiny_loaded_model("qa").model
    decay, no_decay = decay_parameter_names(model)
    names = dict(model.named_parameters())
    assert set(decay) | set(no_decay) == set(names) and not set(decay) & set(no_decay)
    assert all(n.endswith("bias") or "LayerNorm" in n for n in no_decay)
    assert "bert.embeddings.LayerNorm.weight" in no_decay
    assert "bert.encoder.layer.0.attention.output.LayerNorm.weight" in no_decay
    assert "qa_outputs.bias" in no_decay and "bert.encoder.layer.1.intermediate.dense.bias" in no_decay
    assert "bert.embeddings.word_embeddings.weight" in decay
    assert "bert.encoder.layer.0.attention.self.query.weight" in decay and "qa_outputs.weight" in decay
    # 2 layers x (q,k,v,o,intermediate,output biases = 6 + 2 LayerNorms x 2) + embeddings LN (2) + qa bias
    assert len(no_decay) == 2 * (6 + 4) + 2 + 1
    groups = param_groups(model, 0.01)
    assert [g["weight_decay"] for g in groups] == [0.01, 0.0]
    opt = build_optimizer(model, learning_rate=3e-5, weight_decay=0.01)
    assert sorted(g["weight_decay"] for g in opt.param_groups) == [0.0, 0.01]
    assert sum(len(g["params"]) for g in opt.param_groups) == len(names)


def test_weight_decay_only_moves_decayed_parameters_when_gradients_are_zero():
    model = tiny_loaded_model("classification").model
    opt = build_optimizer(model, learning_rate=0.1, weight_decay=0.5)
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    for p in model.parameters():
        p.grad = torch.zeros_like(p)
    opt.step()
    decay, no_decay = decay_parameter_names(model)
    params = dict(model.named_parameters())
    for n in no_decay:
        assert torch.equal(params[n], before[n]), n
    # decoupled decay: p <- p - lr * wd * p = 0.95 p
    n = "bert.encoder.layer.0.attention.self.query.weight"
    assert torch.allclose(params[n], 0.95 * before[n], atol=1e-7)


def test_schedule_warmup_then_linear_decay_to_zero():
    assert warmup_steps_for(100, 0.1) == 10 and warmup_steps_for(7, 0.1) == 1 and warmup_steps_for(50, 0.0) == 0
    model = torch.nn.Linear(2, 2)
    opt = torch.optim.AdamW(model.parameters(), lr=4e-5)
    sched = build_scheduler(opt, warmup_steps=10, total_steps=100)
    lrs = []
    for _ in range(100):
        lrs.append(sched.get_last_lr()[0])
        opt.step()
        sched.step()
    lrs.append(sched.get_last_lr()[0])
    assert lrs[0] == 0.0                              # step 0: start of warmup
    assert lrs[5] == pytest.approx(2e-5)              # half-way through warmup
    assert lrs[10] == pytest.approx(4e-5)             # end of warmup: the peak
    assert lrs[55] == pytest.approx(4e-5 * 45 / 90)   # linear decay
    assert lrs[100] == 0.0                            # end: 0
    f = linear_schedule(10, 100)
    from transformers import get_linear_schedule_with_warmup

    ref = get_linear_schedule_with_warmup(torch.optim.SGD(model.parameters(), lr=1.0), 10, 100)
    ours = [f(s) for s in range(101)]
    theirs = []
    for _ in range(101):
        theirs.append(ref.get_last_lr()[0])
        ref.optimizer.step()
        ref.step()
    assert np.allclose(ours, theirs)


def test_clipping_scales_the_global_norm_to_max():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Linear(3, 2))
    for p in model.parameters():
        p.grad = torch.randn_like(p) * 10
    expected = math.sqrt(sum(float((p.grad ** 2).sum()) for p in model.parameters()))
    grads = [p.grad.clone() for p in model.parameters()]
    norm = clip_gradients(model.parameters(), 1.0)
    assert float(norm) == pytest.approx(expected, rel=1e-5)
    after = math.sqrt(sum(float((p.grad ** 2).sum()) for p in model.parameters()))
    assert after == pytest.approx(1.0, rel=1e-4)
    for g0, p in zip(grads, model.parameters()):   # same direction, scaled by 1/expected
        assert torch.allclose(p.grad, g0 / expected, rtol=1e-4, atol=1e-6)
    # small gradients are left alone; max_norm 0 = no clipping
    for p in model.parameters():
        p.grad = torch.full_like(p, 0.01)
    clip_gradients(model.parameters(), 1.0)
    assert all(torch.allclose(p.grad, torch.full_like(p, 0.01)) for p in model.parameters())
    for p in model.parameters():
        p.grad = torch.full_like(p, 5.0)
    clip_gradients(model.parameters(), 0)
    assert all(torch.allclose(p.grad, torch.full_like(p, 5.0)) for p in model.parameters())


def test_plan_steps():
    cfg = TrainConfig(train="x", batch_size=32, epochs=3)
    plan = plan_steps(100, cfg)
    assert (plan["batches_per_epoch"], plan["steps_per_epoch"], plan["steps_total"]) == (4, 4, 12)
    assert plan["warmup_steps"] == 2 and plan["effective_batch_size"] == 32
    cfg = TrainConfig(train="x", batch_size=32, epochs=3, gradient_accumulation_steps=3)
    assert plan_steps(100, cfg)["steps_per_epoch"] == 2 and plan_steps(100, cfg)["steps_total"] == 6
    assert plan_steps(100, TrainConfig(train="x", batch_size=32, epochs=1.5))["steps_total"] == 6
    assert plan_steps(100, TrainConfig(train="x", batch_size=32, max_steps=7))["steps_total"] == 7
    two = plan_steps(100, TrainConfig(train="x", batch_size=32, epochs=1), num_processes=2)
    assert two["micro_batches_per_epoch"] == 2 and two["effective_batch_size"] == 64


def test_epoch_batches_cover_each_row_once_and_group_lengths():
    rng = np.random.default_rng(0)
    lengths = rng.integers(20, 384, size=1000).tolist()
    b1 = epoch_batches(lengths, 32, seed=42, epoch=0)
    assert sorted(i for b in b1 for i in b) == list(range(1000))
    assert b1 == epoch_batches(lengths, 32, seed=42, epoch=0)            # reproducible
    assert b1 != epoch_batches(lengths, 32, seed=42, epoch=1)            # reshuffled per epoch
    plain = epoch_batches(lengths, 32, seed=42, epoch=0, group_by_length=False)
    assert sorted(i for b in plain for i in b) == list(range(1000))

    def padded(batches):
        return sum(len(b) * max(lengths[i] for i in b) for b in batches)

    assert padded(b1) < 0.75 * padded(plain)          # far less padding
    assert padded(b1) < 1.05 * sum(lengths)
    ev = eval_batches(lengths, 64)
    assert sorted(i for b in ev for i in b) == list(range(1000))
    assert lengths[ev[0][0]] == max(lengths)


def test_pad_sequences_and_dropout():
    t = pad_sequences([[1, 2, 3], [4]], 0)
    assert t.tolist() == [[1, 2, 3], [4, 0, 0]]
    model = tiny_loaded_model("qa").model
    set_dropout(model, 0.25)
    ps = {m.p for m in model.modules() if isinstance(m, torch.nn.Dropout)}
    assert ps == {0.25} and model.config.attention_probs_dropout_prob == 0.25


def test_length_groups_are_whole_optimizer_steps():
    """Case ga-length-grouping: the unit of length grouping is batch_size x accumulation_steps; each step's
    micro-batches sit next to each other, hold the rows the one-batch step holds, and a leftover step is last."""
    lengths = np.random.default_rng(1).integers(10, 300, size=1003).tolist()
    ga2 = epoch_batches(lengths, 6, seed=3, epoch=0, accumulation_steps=2)
    ga1 = epoch_batches(lengths, 12, seed=3, epoch=0)
    assert sorted(i for b in ga2 for i in b) == list(range(1003))
    steps2 = [sorted(ga2[k] + ga2[k + 1]) if k + 1 < len(ga2) else sorted(ga2[k]) for k in range(0, len(ga2), 2)]
    assert steps2 == [sorted(b) for b in ga1]
    assert len(ga1[-1]) == 1003 % 12 and all(len(b) == 12 for b in ga1[:-1])   # the short step comes last
    assert [len(b) for b in ga2[-2:]] == [6, 1003 % 12 - 6]

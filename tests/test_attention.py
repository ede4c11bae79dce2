"""Block flow, token block share and rollout against hand-computed values."""

import numpy as np
import pytest

from explorer.core.attention.flow import (
    BLOCKS,
    AttentionShapeError,
    block_flow,
    block_matrix,
    flow_table_lines,
    head_mean,
    rollout,
    stack_attentions,
    summarize_attentions,
    token_block_share,
    token_blocks,
)

# 5 tokens: [CLS] q q [SEP] p   -> special question question special passage
BLOCKS5 = ["special", "question", "question", "special", "passage"]


def _random_attn(layers, heads, seq, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.random((layers, heads, seq, seq)).astype(np.float32)
    return x / x.sum(-1, keepdims=True)


def test_token_blocks_from_sequence_ids_and_special_ids(tiny_qa):
    tok = tiny_qa.tokenizer
    enc = tok("where was ada born", "ada was born in london", padding="max_length", max_length=20)
    blocks = token_blocks(enc.sequence_ids(), enc["input_ids"], tok)
    toks = tok.convert_ids_to_tokens(enc["input_ids"])
    for t, b in zip(toks, blocks):
        if t in ("[CLS]", "[SEP]", "[PAD]"):
            assert b == "special"
    assert blocks[1:5] == ["question"] * 4
    assert blocks.count("passage") == 5
    assert toks[-1] == "[PAD]" and blocks[-1] == "special"


def test_token_blocks_without_token_type_ids_and_bad_ids():
    # RoBERTa-style: <s> q </s></s> p </s>; only sequence ids and special ids matter
    class Tok:
        all_special_ids = [0, 2]

    seq_ids = [None, 0, 0, None, None, 1, 1, None]
    ids = [0, 10, 11, 2, 2, 12, 13, 2]
    assert token_blocks(seq_ids, ids, Tok()) == ["special", "question", "question", "special", "special",
                                                 "passage", "passage", "special"]
    with pytest.raises(AttentionShapeError, match="sequence id 2"):
        token_blocks([0, 2], [5, 6])
    with pytest.raises(AttentionShapeError, match="3 sequence ids but 2"):
        token_blocks([0, 1, 1], [5, 6])


def test_block_matrix_one_hot():
    m = block_matrix(BLOCKS5)
    assert m.shape == (5, 3)
    np.testing.assert_array_equal(m.sum(1), 1)
    np.testing.assert_array_equal(m[:, 2], [1, 0, 0, 1, 0])
    with pytest.raises(AttentionShapeError, match="unknown block name 'cls'"):
        block_matrix(["cls"])


def test_block_flow_hand_built():
    # one layer, one head, 5 tokens
    a = np.zeros((1, 1, 5, 5), dtype=np.float32)
    a[0, 0, 0] = [1, 0, 0, 0, 0]            # [CLS] -> itself
    a[0, 0, 1] = [0.5, 0.0, 0.0, 0.0, 0.5]  # q1: 0.5 special, 0.5 passage
    a[0, 0, 2] = [0.0, 0.2, 0.2, 0.0, 0.6]  # q2: 0.4 question, 0.6 passage
    a[0, 0, 3] = [0, 0, 0, 1, 0]
    a[0, 0, 4] = [0.1, 0.3, 0.0, 0.1, 0.5]  # p: 0.3 question, 0.5 passage, 0.2 special
    flow = block_flow(a, BLOCKS5)
    assert flow.shape == (1, 1, 3, 3)
    q, p, s = 0, 1, 2
    # question -> passage: mean(0.5, 0.6) = 0.55 ; question -> question: mean(0, 0.4) = 0.2
    assert flow[0, 0, q, p] == pytest.approx(0.55)
    assert flow[0, 0, q, q] == pytest.approx(0.2)
    assert flow[0, 0, q, s] == pytest.approx(0.25)
    np.testing.assert_allclose(flow[0, 0, p], [0.3, 0.5, 0.2], atol=1e-7)
    # special from-tokens: [CLS] 1.0 on special, [SEP] 1.0 on special
    np.testing.assert_allclose(flow[0, 0, s], [0, 0, 1], atol=1e-7)


def test_block_flow_rows_sum_to_one_and_head_mean():
    a = _random_attn(3, 4, 9, seed=1)
    blocks = ["special"] + ["question"] * 3 + ["special"] + ["passage"] * 3 + ["special"]
    flow = block_flow(a, blocks)
    assert flow.shape == (3, 4, 3, 3)
    np.testing.assert_allclose(flow.sum(-1), 1.0, atol=1e-5)
    mean = block_flow(a, blocks, average_heads=True)
    np.testing.assert_allclose(mean, head_mean(flow), atol=1e-6)
    np.testing.assert_allclose(mean, flow.mean(1), atol=1e-6)
    # against a plain loop for one cell
    l, h = 2, 3
    qs = [i for i, b in enumerate(blocks) if b == "question"]
    ps = [j for j, b in enumerate(blocks) if b == "passage"]
    expected = np.mean([a[l, h, i, ps].sum() for i in qs])
    assert flow[l, h, 0, 1] == pytest.approx(expected, rel=1e-5)


def test_block_flow_accepts_torch_and_rejects_bad_shapes():
    import torch

    a = _random_attn(1, 2, 5)
    np.testing.assert_allclose(block_flow(torch.from_numpy(a), BLOCKS5), block_flow(a, BLOCKS5))
    with pytest.raises(AttentionShapeError, match=r"\(layers, heads, seq, seq\)"):
        block_flow(a[0], BLOCKS5)
    with pytest.raises(AttentionShapeError, match="4 blocks given for a sequence of 5"):
        block_flow(a, BLOCKS5[:4])


def test_empty_block_gives_nan_row():
    a = _random_attn(1, 1, 3)
    flow = block_flow(a, ["special", "question", "special"])
    assert np.isnan(flow[0, 0, 1]).all()
    assert not np.isnan(flow[0, 0, 0]).any()


def test_token_block_share():
    a = np.zeros((2, 1, 5, 5), dtype=np.float32)
    a[0, 0, :, 4] = 1.0   # layer 1: everything on the passage token
    a[1, 0, :, 0] = 1.0   # layer 2: everything on [CLS]
    share = token_block_share(a, BLOCKS5)
    assert share.shape == (5, 3)
    np.testing.assert_allclose(share, np.tile([0.0, 0.5, 0.5], (5, 1)))
    r = _random_attn(2, 3, 5, seed=4)
    np.testing.assert_allclose(token_block_share(r, BLOCKS5).sum(1), 1, atol=1e-5)


def test_rollout_identity_is_identity():
    a = np.broadcast_to(np.eye(6, dtype=np.float32), (4, 3, 6, 6))
    np.testing.assert_allclose(rollout(a), np.eye(6), atol=1e-7)


def test_rollout_two_layers_by_hand():
    a1 = np.array([[1.0, 0.0], [0.5, 0.5]])  # layer 1 (two heads average to this)
    a2 = np.array([[0.0, 1.0], [1.0, 0.0]])  # layer 2
    h1a = np.array([[1.0, 0.0], [0.0, 1.0]])
    h1b = 2 * a1 - h1a                       # mean of heads = a1
    att = np.stack([np.stack([h1a, h1b]), np.stack([a2, a2])]).astype(np.float32)
    # A_hat_1 = 0.5 (a1 + I) = [[1, 0], [0.25, 0.75]];  A_hat_2 = [[0.5, 0.5], [0.5, 0.5]]
    # R = A_hat_2 @ A_hat_1 = [[0.625, 0.375], [0.625, 0.375]]
    np.testing.assert_allclose(rollout(att), [[0.625, 0.375], [0.625, 0.375]], atol=1e-6)
    steps = rollout(att, all_layers=True)
    np.testing.assert_allclose(steps[0], [[1.0, 0.0], [0.25, 0.75]], atol=1e-6)
    # order matters: A_hat_1 @ A_hat_2 would be [[0.5, 0.5], [0.5, 0.5]]
    assert not np.allclose(steps[1], [[0.5, 0.5], [0.5, 0.5]])


def test_rollout_rows_sum_to_one():
    np.testing.assert_allclose(rollout(_random_attn(3, 2, 7, seed=2)).sum(1), 1, atol=1e-5)


def test_stack_and_summarize_slice_padding():
    import torch

    full = torch.from_numpy(_random_attn(4, 2, 7, seed=3)).reshape(2, 2, 2, 7, 7)  # (layers=2, batch=2, ...)
    layers = tuple(full[l] for l in range(2))
    out = stack_attentions(layers, batch_index=1, length=5, dtype=np.float16)
    assert out.shape == (2, 2, 5, 5) and out.dtype == np.float16
    np.testing.assert_allclose(out[1, 0], full[1, 1, 0, :5, :5].numpy(), atol=1e-3)
    data = summarize_attentions(_random_attn(2, 4, 5), BLOCKS5, keep=None)
    assert data.attentions is None
    assert data.flow.shape == (2, 4, 3, 3) and data.flow_mean.shape == (2, 3, 3)
    assert data.token_share.shape == (5, 3) and data.rollout.shape == (5, 5)
    assert (data.num_layers, data.num_heads) == (2, 4)
    with pytest.raises(AttentionShapeError, match="output_attentions"):
        stack_attentions(())


def test_flow_table_lines_format():
    f = np.zeros((2, 3, 3))
    f[0, 0, 1], f[0, 1, 0], f[0, 0, 2] = 0.190, 0.107, 0.306
    lines = flow_table_lines(f)
    assert lines[0] == "layer  1: question -> passage 0.190   passage -> question 0.107   question -> [CLS]/[SEP] 0.306"
    assert lines[1].startswith("layer  2:")
    assert BLOCKS == ("question", "passage", "special")

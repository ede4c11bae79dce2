"""The probe's fast paths give what the straightforward computation gives.

Reference = an independent computation on the same tiny model: the windows from prepare_qa_features, one
plain forward per window (eager attention, output_attentions=True), stack_attentions + the numpy
summaries (block_flow, token_block_share, rollout: the probe's previous code path) and decode_example.
Raw weights and every decoding field must be identical; the attention summaries (now computed layer by
layer in torch) equal to float32 rounding (1e-6).
"""

import numpy as np
import pytest
import torch

from explorer.core.attention.flow import (block_flow, rollout, stack_attentions, summarize_attention_layers,
                                     summarize_attentions, token_block_share, token_blocks)
from explorer.core.qa.decoding import decode_example
from explorer.core.qa.windows import collate_qa, prepare_qa_features
from explorer.core.models.loading import eager_attention
from explorer.core.qa.probe import probe

QUESTION = "Where was Ada born?"
LONG = " ".join(f"In year {1800 + k} the river city of Paris had {k} bridges and Ada was born in London."
                for k in range(12))
SETTINGS = {"max_seq_length": 48, "doc_stride": 16}


def _reference(loaded, question, passage, *, max_seq_length, doc_stride):
    """Per window: (start_logits, end_logits, raw float32 attentions (L, H, n, n), blocks), and the
    decoding over all windows, computed without probe()."""
    tok, model = loaded.tokenizer, loaded.model
    feats = prepare_qa_features([question], [passage], tok, max_seq_length=max_seq_length, doc_stride=doc_stride)
    rows = []
    for k in range(len(feats)):
        batch = collate_qa(feats, [k], tok.pad_token_id)
        with torch.inference_mode(), eager_attention(model):
            out = model(**batch, output_attentions=True)
        n = len(feats.input_ids[k])
        rows.append((out.start_logits[0, :n].numpy().copy(), out.end_logits[0, :n].numpy().copy(),
                     stack_attentions(out.attentions, length=n),
                     token_blocks(feats.sequence_ids[k], feats.input_ids[k], tok)))
    decoding = decode_example(passage, [r[0] for r in rows], [r[1] for r in rows], feats.offset_mapping,
                              feats.cls_index, example_id="probe")
    return rows, decoding


@pytest.mark.parametrize("keep", ["float16", "float32", None])
def test_probe_with_attentions_matches_the_straightforward_computation(tiny_qa, keep):
    rows, decoding = _reference(tiny_qa, QUESTION, LONG, **SETTINGS)
    r = probe(tiny_qa, QUESTION, LONG, attentions=True, keep_attentions=keep, attention_budget=None, **SETTINGS)
    assert len(r.windows) == len(rows) >= 3
    for w, a, (s, e, att, blocks) in zip(r.windows, r.attention, rows):
        np.testing.assert_array_equal(w.start_logits, s)
        np.testing.assert_array_equal(w.end_logits, e)
        assert w.blocks == blocks == a.blocks
        if keep is None:
            assert a.attentions is None
        else:
            assert a.attentions.dtype == np.dtype(keep)
            np.testing.assert_array_equal(a.attentions, att.astype(keep))   # the same rounding as numpy's cast
        np.testing.assert_allclose(a.flow, block_flow(att, blocks), atol=1e-6, rtol=0)
        np.testing.assert_allclose(a.token_share, token_block_share(att, blocks), atol=1e-6, rtol=0)
        np.testing.assert_allclose(a.rollout, rollout(att), atol=1e-6, rtol=0)
        assert a.flow.dtype == a.token_share.dtype == a.rollout.dtype == np.float32
    assert r.nbest == decoding.nbest       # SpanCandidate dataclasses: text, offsets, tokens, logits, score
    assert (r.null_score, r.null_start_logit, r.null_end_logit, r.decoding.null_window) == (
        decoding.null_score, decoding.null_start_logit, decoding.null_end_logit, decoding.null_window)
    assert r.score_diff == decoding.score_diff and r.best_non_null_score == decoding.best_non_null_score


def test_probe_without_attentions_matches_the_straightforward_computation(tiny_qa):
    rows, decoding = _reference(tiny_qa, QUESTION, LONG, **SETTINGS)
    r = probe(tiny_qa, QUESTION, LONG, **SETTINGS)
    assert r.attention is None
    for w, (s, e, _, blocks) in zip(r.windows, rows):   # one SDPA batch vs eager one by one: float rounding
        np.testing.assert_allclose(w.start_logits, s, atol=1e-5)
        np.testing.assert_allclose(w.end_logits, e, atol=1e-5)
        assert w.blocks == blocks
    assert [c.text for c in r.nbest] == [c.text for c in decoding.nbest]


def test_layer_summaries_slice_padding_and_batch_rows():
    """A padded batch: each row's summaries come from its own unpadded slice, as stack_attentions cuts it."""
    rng = np.random.default_rng(0)
    layers, heads, seq, n = 3, 2, 9, 6
    raw = rng.random((layers, 2, heads, seq, seq)).astype(np.float32)
    raw /= raw.sum(-1, keepdims=True)
    hf = tuple(torch.from_numpy(raw[layer]) for layer in range(layers))
    blocks = ["special", "question", "question", "special", "passage", "special"]
    fast = summarize_attention_layers(hf, blocks, batch_index=1, length=n, keep="float32")
    slow = summarize_attentions(stack_attentions(hf, batch_index=1, length=n), blocks, keep="float32")
    np.testing.assert_array_equal(fast.attentions, slow.attentions)
    for name in ("flow", "token_share", "rollout"):
        np.testing.assert_allclose(getattr(fast, name), getattr(slow, name), atol=1e-6, rtol=0)
    # numpy input takes the numpy path and gives the same
    as_numpy = summarize_attention_layers([raw[layer] for layer in range(layers)], blocks, batch_index=1, length=n,
                                          keep=None)
    assert as_numpy.attentions is None
    np.testing.assert_allclose(as_numpy.flow, slow.flow, atol=1e-6, rtol=0)
    # a block with no tokens gives a NaN row, as block_flow documents
    no_question = summarize_attention_layers(hf, ["special", "passage", "passage", "special", "passage", "special"],
                                             batch_index=0, length=n, keep=None)
    assert np.isnan(no_question.flow[:, :, 0, :]).all() and not np.isnan(no_question.flow[:, :, 1, :]).any()


def test_layer_summaries_reject_bad_input():
    from explorer.core.attention.flow import AttentionShapeError

    with pytest.raises(AttentionShapeError, match="no attentions"):
        summarize_attention_layers((), ["special"])
    hf = (torch.full((1, 1, 4, 4), 0.25),)
    with pytest.raises(AttentionShapeError, match="3 blocks given for a sequence of 4 tokens"):
        summarize_attention_layers(hf, ["special", "question", "special"])
    with pytest.raises(ValueError, match="keep must be"):
        summarize_attention_layers(hf, ["special"] * 4, keep="int8")


def test_hook_summaries_equal_the_after_the_forward_computation(tiny_qa):
    """The probe summarises each layer inside the forward (hooks on the attention modules, buffers freed per
    layer); the same window through output.attentions + summarize_attention_layers gives identical numbers."""
    from explorer.core.attention import forward as attention_forward_module
    from explorer.core.attention.hooks import attention_modules, attention_hooks

    model, tok = tiny_qa.model, tiny_qa.tokenizer
    assert len(attention_modules(model)) == model.config.num_hidden_layers == 2
    feats = prepare_qa_features([QUESTION], [LONG], tok, **SETTINGS)
    batch = collate_qa(feats, [1], tok.pad_token_id)
    blocks = token_blocks(feats.sequence_ids[1], feats.input_ids[1], tok)
    with torch.inference_mode():
        out, hooked, note = attention_forward_module.attention_forward(model, batch, blocks, "float16")
        with eager_attention(model):
            plain = model(**batch, output_attentions=True)
    assert note == "" and model not in attention_forward_module._NOT_HOOKABLE
    assert out.attentions is None          # nothing kept for the whole forward: each layer was summarised in it
    after = summarize_attention_layers(plain.attentions, blocks, keep="float16")
    for name in ("attentions", "flow", "token_share", "rollout"):
        np.testing.assert_array_equal(getattr(hooked, name), getattr(after, name))
    seen = []
    with torch.inference_mode(), eager_attention(model):
        with attention_hooks(model, seen.append) as state:
            model(**batch)
        assert state.calls == 2 and state.missing == 0 and state.error is None
        assert [tuple(w.shape) for w in seen] == [(1, 4, len(blocks), len(blocks))] * 2
        model(**batch)                                    # the hooks are gone after the block
    assert len(seen) == 2


def test_a_model_whose_attention_modules_give_no_weights_falls_back_to_output_attentions(tiny_qa, monkeypatch):
    """Hooks that see no weights tensor (an implementation returning them only on request): the probe runs the
    output_attentions forward instead and the numbers are the same."""
    from explorer.core.attention import forward as attention_forward_module
    from explorer.core.attention import hooks as attention_hooks

    expected = probe(tiny_qa, QUESTION, LONG, attentions=True, attention_budget=None, **SETTINGS)
    real = attention_hooks.attention_modules
    monkeypatch.setattr(attention_hooks, "attention_modules", lambda m: [(mod, 5) for mod, _ in real(m)])
    monkeypatch.setattr(attention_forward_module, "_NOT_HOOKABLE", __import__("weakref").WeakSet())
    got = probe(tiny_qa, QUESTION, LONG, attentions=True, attention_budget=None, **SETTINGS)
    assert tiny_qa.model in attention_forward_module._NOT_HOOKABLE
    assert got.attention_note == ""
    for a, b in zip(expected.attention, got.attention):
        for name in ("attentions", "flow", "token_share", "rollout"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


def _random_attention(shape, seed):
    """(layers, heads, seq, seq) float32 rows that sum to 1, like attention weights."""
    raw = np.random.default_rng(seed).random(shape).astype(np.float32)
    return raw / raw.sum(-1, keepdims=True)


def _summarize_layers(blocks, raw):
    """LayerSummaries fed layer by layer, as the hooks do: (the accumulator, its result)."""
    from explorer.core.attention.flow import LayerSummaries

    acc = LayerSummaries(blocks, raw.shape[0], raw.shape[1], keep=None)
    for layer in raw:
        acc.add(torch.from_numpy(layer))
    return acc, acc.result()


def test_block_runs_and_the_gemm_fallback_give_the_same_summaries(monkeypatch):
    """Block sums as segment sums over contiguous runs equal the one-hot GEMM (more than MAX_RUNS runs) and the
    numpy path, to float32 rounding."""
    from explorer.core.attention import flow as attention_module
    from explorer.core.attention.flow import LayerSummaries, block_runs

    blocks = ["special", "question", "question", "special", "passage", "passage", "special", "passage", "special"]
    assert block_runs(blocks) == [(2, 0, 1), (0, 1, 3), (2, 3, 4), (1, 4, 6), (2, 6, 7), (1, 7, 8), (2, 8, 9)]
    assert block_runs([]) == []
    raw = _random_attention((3, 2, 9, 9), seed=1)
    seg_acc, seg = _summarize_layers(blocks, raw)
    monkeypatch.setattr(attention_module, "MAX_RUNS", 2)
    gemm_acc, gemm = _summarize_layers(blocks, raw)
    assert seg_acc.runs is not None and gemm_acc.runs is None
    slow = summarize_attentions(raw, blocks, keep=None)
    for name in ("flow", "token_share", "rollout"):
        np.testing.assert_allclose(getattr(seg, name), getattr(gemm, name), atol=1e-6, rtol=0)
        np.testing.assert_allclose(getattr(seg, name), getattr(slow, name), atol=1e-6, rtol=0)
    with pytest.raises(attention_module.AttentionShapeError, match="more than the 3 layers"):
        seg_acc.add(torch.from_numpy(raw[0]))
    with pytest.raises(attention_module.AttentionShapeError, match="expected \\(heads, seq, seq\\)"):
        LayerSummaries(blocks, 3, 2).add(torch.zeros(2, 8, 8))
    with pytest.raises(attention_module.AttentionShapeError, match="1 layers received; the model has 3"):
        one = LayerSummaries(blocks, 3, 2)
        one.add(torch.from_numpy(raw[0]))
        one.result()


def test_layer_summaries_inside_autocast_stay_float32():
    """accelerate runs a bf16 model's forward under autocast, and the hooks summarise inside it (the training
    loop's watch probes): the summaries are computed in float32 as outside."""
    blocks = ["special", "question", "special", "passage", "passage", "special"]
    raw = _random_attention((2, 2, 6, 6), seed=2)
    plain = _summarize_layers(blocks, raw)[1]
    with torch.autocast("cpu", dtype=torch.bfloat16):
        inside = _summarize_layers(blocks, raw)[1]
    for name in ("flow", "token_share", "rollout"):
        assert getattr(inside, name).dtype == np.float32
        np.testing.assert_array_equal(getattr(inside, name), getattr(plain, name))

"""probe(): windows, logits, n-best, null score, tau decision, by-hand check, attentions, unicode offsets."""

import dataclasses
import json
import math
import unicodedata

import numpy as np
import pytest
import torch

from explorer.core.attention.flow import block_flow
from explorer.core.qa.probe import ProbeError, probe

QUESTION = "Where was Ada born?"
PASSAGE = "Ada Lovelace was born in London in 1815."
LONG = " ".join(f"In year {1800 + k} the river city of Paris had {k} bridges and Ada was born in London."
                for k in range(12))


def _direct_logits(model, tok, input_ids, token_type_ids=None):
    ids = torch.tensor([input_ids])
    kw = {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
    if token_type_ids is not None:
        kw["token_type_ids"] = torch.tensor([token_type_ids])
    with torch.inference_mode():
        out = model(**kw)
    return out.start_logits[0].numpy(), out.end_logits[0].numpy()


def test_probe_short_passage(tiny_qa):
    tok = tiny_qa.tokenizer
    r = probe(tiny_qa, QUESTION, PASSAGE)
    assert len(r.windows) == 1
    w = r.windows[0]
    enc = tok(QUESTION, PASSAGE)
    assert w.input_ids == enc["input_ids"]
    assert w.tokens == tok.convert_ids_to_tokens(enc["input_ids"])
    assert w.word_ids == enc.word_ids()
    assert w.blocks[0] == "special" and w.blocks[-1] == "special"
    assert [b for b, s in zip(w.blocks, enc.sequence_ids()) if s == 0] == ["question"] * 5
    # logits are the model's for this exact encoding
    s, e = _direct_logits(tiny_qa.model, tok, enc["input_ids"], enc["token_type_ids"])
    np.testing.assert_allclose(w.start_logits, s, atol=1e-5)
    np.testing.assert_allclose(w.end_logits, e, atol=1e-5)
    np.testing.assert_allclose(w.start_probs.sum(), 1.0)
    np.testing.assert_allclose(w.end_probs, np.exp(e - e.max()) / np.exp(e - e.max()).sum(), rtol=1e-5)
    # null score and its two parts at the cls index
    assert w.cls_index == 0
    assert r.null_start_logit == pytest.approx(float(s[0]), abs=1e-6)
    assert r.null_end_logit == pytest.approx(float(e[0]), abs=1e-6)
    assert r.null_score == pytest.approx(float(s[0] + e[0]), abs=1e-5)
    # best span = brute force over the valid cells of the span table
    table = w.span_score_table(30)
    i, j = np.unravel_index(np.nanargmax(table), table.shape)
    best = r.nbest[0]
    assert (best.start_token, best.end_token) == (i, j)
    assert best.score == pytest.approx(float(s[i] + e[j]), abs=1e-5)
    assert best.text == PASSAGE[best.start_char:best.end_char]
    assert r.best_non_null_score == pytest.approx(best.score)
    assert r.score_diff == pytest.approx(best.score - r.null_score)
    assert r.byhand_max_abs_diff is not None and r.byhand_max_abs_diff < 1e-5
    assert r.attention is None
    assert r.source == "tiny:random" and r.head_initialised is True
    json.dumps(r.to_dict(), allow_nan=False)


def test_probe_long_passage_windows_and_null_min(tiny_qa):
    tok = tiny_qa.tokenizer
    r = probe(tiny_qa, QUESTION, LONG, max_seq_length=48, doc_stride=16, n_best_size=1000)
    assert len(r.windows) >= 4
    nulls = []
    for w in r.windows:
        assert len(w) <= 48
        tt = [0 if b == "question" or k <= w.blocks.index("passage") - 1 else 1 for k, b in enumerate(w.blocks)]
        s, e = _direct_logits(tiny_qa.model, tok, w.input_ids, tt)  # unpadded forward, one window
        np.testing.assert_allclose(w.start_logits, s, atol=1e-5)
        np.testing.assert_allclose(w.end_logits, e, atol=1e-5)
        nulls.append(float(s[w.cls_index] + e[w.cls_index]))
        for off, b in zip(w.offsets, w.blocks):
            assert (off is not None) == (b == "passage")
    assert r.null_score == pytest.approx(min(nulls), abs=1e-5)
    assert r.decoding.null_window == int(np.argmin(nulls))
    # consecutive windows overlap by doc_stride tokens of the passage
    first = [o for o in r.windows[0].offsets if o is not None]
    second = [o for o in r.windows[1].offsets if o is not None]
    assert first[-16:] == second[:16]
    # the best span over all windows = the best valid cell of any window's span table
    per_window = [np.nanmax(w.span_score_table(30)) for w in r.windows]
    best = r.nbest[0]
    assert best.score == pytest.approx(max(per_window), abs=1e-5)
    assert best.window_index == int(np.argmax(per_window))
    assert r.best_window is r.windows[best.window_index]
    assert {c.window_index for c in r.nbest} != {0}  # candidates come from several windows
    for c in r.nbest[:50]:
        w = r.windows[c.window_index]
        assert c.start_char == w.offsets[c.start_token][0] and c.end_char == w.offsets[c.end_token][1]
        assert c.text == LONG[c.start_char:c.end_char]
    assert r.byhand_max_abs_diff < 1e-5


def test_decision_flips_exactly_at_score_diff(tiny_qa):
    r = probe(tiny_qa, QUESTION, PASSAGE, tau=0.0)
    d = r.score_diff
    assert r.decision(d).answer is False and r.decision(d).answer_text == ""
    below = r.decision(np.nextafter(d, -np.inf))
    assert below.answer is True and below.answer_text == r.nbest[0].text == below.text
    assert r.decision(d + 1).inequality.endswith("? no -> no answer")
    assert r.decision().tau == 0.0
    assert r.decision(d - 1).threshold == pytest.approx(r.null_score + d - 1)


def test_decision_text_in_seed_style(tiny_qa):
    r = probe(tiny_qa, QUESTION, PASSAGE)
    # the seed's SQuAD 2.0 numbers: 23.25 vs 10.18 and 1.22 vs 21.13, tau = 4
    yes = dataclasses.replace(r, best_non_null_score=23.25, null_score=10.18, score_diff=23.25 - 10.18)
    assert yes.decision(4.0).inequality == "23.25 > 14.18 ? yes -> answer"
    no = dataclasses.replace(r, best_non_null_score=1.22, null_score=21.13, score_diff=1.22 - 21.13)
    assert no.decision(4.0).inequality == "1.22 > 25.13 ? no -> no answer"
    assert no.decision(4.0).answer is False


def test_byhand_check_detects_a_tampered_head(tiny_qa):
    model = tiny_qa.model
    handle = model.qa_outputs.register_forward_hook(lambda mod, inp, out: out + 0.5)
    try:
        r = probe(tiny_qa, QUESTION, PASSAGE)
    finally:
        handle.remove()
    assert r.byhand_max_abs_diff == pytest.approx(0.5, abs=1e-4)


def test_byhand_none_without_qa_outputs(tiny_qa):
    class Wrapped(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner
            self.config = inner.config

        def forward(self, **kw):
            return self.inner(**kw)

    r = probe(Wrapped(tiny_qa.model), QUESTION, PASSAGE, tokenizer=tiny_qa.tokenizer)
    assert r.byhand_max_abs_diff is None and "no qa_outputs" in r.byhand_note
    assert r.windows[0].hidden_check_max_abs_diff is None
    assert r.head_initialised is None
    assert r.nbest  # decoding still works


def test_probe_attentions(tiny_qa):
    plain = probe(tiny_qa, QUESTION, LONG, max_seq_length=48, doc_stride=16)
    r = probe(tiny_qa, QUESTION, LONG, attentions=True, keep_attentions="float32", max_seq_length=48,
              doc_stride=16)
    assert tiny_qa.model.config._attn_implementation == "sdpa"
    assert len(r.attention) == len(r.windows) >= 2
    for w, a, p in zip(r.windows, r.attention, plain.windows):
        n = len(w)
        assert a.attentions.shape == (2, 4, n, n) and a.attentions.dtype == np.float32
        np.testing.assert_allclose(a.attentions.sum(-1), 1.0, atol=1e-5)
        assert a.flow.shape == (2, 4, 3, 3) and a.flow_mean.shape == (2, 3, 3)
        np.testing.assert_allclose(a.flow, block_flow(a.attentions, w.blocks), atol=1e-6)
        np.testing.assert_allclose(a.flow.sum(-1), 1.0, atol=1e-5)
        assert a.token_share.shape == (n, 3) and a.rollout.shape == (n, n)
        np.testing.assert_allclose(w.start_logits, p.start_logits, atol=1e-5)  # eager == sdpa
    assert r.byhand_max_abs_diff < 1e-5
    half = probe(tiny_qa, QUESTION, PASSAGE, attentions=True, keep_attentions="float16")
    assert half.attention[0].attentions.dtype == np.float16
    none = probe(tiny_qa, QUESTION, PASSAGE, attentions=True, keep_attentions=None)
    assert none.attention[0].attentions is None and none.attention[0].flow.shape == (2, 4, 3, 3)
    assert "attention" in r.to_dict()


def _fold(text):
    return "".join(c for c in unicodedata.normalize("NFD", text.lower()) if unicodedata.category(c) != "Mn")


def test_unicode_offsets_map_to_exact_characters(tiny_qa):
    passage = ("Zoë Ångström was born in Köln — in 1815, near the café “Über”. 東京 is a city; "
               "naïve Ada 🙂 was born in London. ") * 3
    question = "Where was Zoë born?"
    r = probe(tiny_qa, question, passage, max_seq_length=64, doc_stride=24, n_best_size=50)
    assert len(r.windows) >= 2
    for w in r.windows:
        for tok_text, off, b in zip(w.tokens, w.offsets, w.blocks):
            if b != "passage":
                continue
            piece = passage[off[0]:off[1]]
            assert piece and not piece.isspace()
            if tok_text != "[UNK]":
                assert _fold(piece) == tok_text.removeprefix("##"), (tok_text, piece)
    for c in r.nbest:
        assert c.text == passage[c.start_char:c.end_char]
        assert c.text == c.text.strip()
    pieces = {passage[o[0]:o[1]] for w in r.windows for o in w.offsets if o}
    assert {"ë", "Ån", "ö", "🙂", "東", "“"} <= pieces
    # word ids of every window = the tokenizer's own (overflowing) pair encoding
    enc = tiny_qa.tokenizer(question, passage, truncation="only_second", max_length=64, stride=24,
                            return_overflowing_tokens=True)
    assert [w.word_ids for w in r.windows] == [enc.word_ids(k) for k in range(len(enc["input_ids"]))]


def test_probe_errors(tiny_qa):
    from helpers import tiny_loaded_model

    with pytest.raises(ProbeError, match="question is empty"):
        probe(tiny_qa, "  ", PASSAGE)
    with pytest.raises(ProbeError, match="passage is empty"):
        probe(tiny_qa, QUESTION, "")
    with pytest.raises(ProbeError, match="needs a tokenizer"):
        probe(tiny_qa.model, QUESTION, PASSAGE)
    cls = tiny_loaded_model("classification")
    with pytest.raises(ProbeError, match="no start_logits"):
        probe(cls, QUESTION, PASSAGE)
    with pytest.raises(ValueError, match="doc_stride"):
        probe(tiny_qa, QUESTION, LONG, max_seq_length=16, doc_stride=12)
    assert math.isfinite(probe(tiny_qa, QUESTION, PASSAGE).seconds)

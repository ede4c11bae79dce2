"""Heads switched off on one question, passage and sentence, on tiny BERT, RoBERTa, DeBERTa-v3 and ModernBERT
models with their own kinds of tokenizer (tests/family_models.py): the probe and the class probabilities with
every gate at 1 are the unmasked ones, and with a head off they are those of the model whose projection columns
for that head are zeroed."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from family_models import FAMILIES, build_model, family_tokenizer
from helpers import _SINGLE, tiny_squad_dict

from explorer.core.ablation.one_input import mask_classify, mask_qa
from explorer.core.attention.gates import gate_tensor, head_layout

NAMES = ["bert", "roberta", "deberta-v2", "modernbert"]
QUESTION = "Where was Ada born?"
PASSAGE = ("Ada was born in London in 1815. She wrote the first program for the engine of Babbage. "
           "The river of the city is the Thames. Paris has the river Seine.")
WINDOW = dict(max_seq_length=24, doc_stride=6, max_query_length=12)


@pytest.fixture(scope="module")
def tokenizers():
    texts = []
    for article in tiny_squad_dict()["data"]:
        for para in article["paragraphs"]:
            texts += [para["context"]] + [q["question"] for q in para["qas"]]
    texts = (texts + [s for s, _ in _SINGLE]) * 4
    return {name: family_tokenizer(FAMILIES[name], texts, vocab_size=400) for name in NAMES}


def _zero_head(model, layer: int, head: int) -> None:
    layout = head_layout(model)
    with torch.no_grad():
        layout.projections[layer].weight[:, head * layout.head_dim:(head + 1) * layout.head_dim] = 0


@pytest.mark.parametrize("name", NAMES)
def test_qa_probe_with_a_head_off_on_every_family(tokenizers, name):
    tok = tokenizers[name]
    model = build_model(FAMILIES[name], tok, task="qa")
    layout = head_layout(model)
    same = mask_qa(model, QUESTION, PASSAGE, gate_tensor(layout), tokenizer=tok, **WINDOW)
    assert len(same.base.windows) > 1      # several windows, as a long passage has
    assert same.masked.score_diff == pytest.approx(same.base.score_diff, abs=1e-6)
    off = mask_qa(model, QUESTION, PASSAGE, gate_tensor(layout, heads=[(0, 2)]), tokenizer=tok, base=same.base,
                  **WINDOW)
    _zero_head(model, 0, 2)
    zeroed = mask_qa(model, QUESTION, PASSAGE, gate_tensor(layout), tokenizer=tok, **WINDOW).base
    assert off.masked.score_diff == pytest.approx(zeroed.score_diff, abs=1e-5)
    for a, b in zip(off.masked.windows, zeroed.windows):
        assert np.allclose(a.start_logits, b.start_logits, atol=1e-5)
    assert not np.allclose(off.masked.windows[0].start_logits, same.base.windows[0].start_logits, atol=1e-7)


@pytest.mark.parametrize("name", NAMES)
def test_class_probabilities_with_a_layer_off_on_every_family(tokenizers, name):
    tok = tokenizers[name]
    model = build_model(FAMILIES[name], tok, task="classification", num_labels=3)
    layout = head_layout(model)
    result = mask_classify(model, tok, "a good and fine model", gate_tensor(layout, layers=[1]))
    assert result.masked_heads == [(1, h) for h in range(layout.heads)]
    for h in range(layout.heads):
        _zero_head(model, 1, h)
    again = mask_classify(model, tok, "a good and fine model", gate_tensor(layout))
    assert np.allclose(result.masked.values, again.base.values, atol=1e-6)
    assert result.masked.values.sum() == pytest.approx(1.0)

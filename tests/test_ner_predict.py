"""Token tagging outside training: tag_texts on raw text, the head by hand (T_i W^T + b), predict's ner kind."""

import csv
import json

import numpy as np
import pytest
from helpers import tiny_loaded_model

from explorer.core.predict.engine import predict_file
from explorer.core.predict.facts import checkpoint_facts
from explorer.core.tagging.alignment import split_words, word_offsets
from explorer.core.tagging.forward import tag_texts, token_head

TAGS = ["O", "B-LOC", "I-LOC", "B-PER", "I-PER"]


@pytest.fixture(scope="module")
def tagger():
    loaded = tiny_loaded_model("token_classification", num_labels=len(TAGS), seed=3)
    loaded.model.config.id2label = dict(enumerate(TAGS))
    loaded.model.config.label2id = {t: i for i, t in enumerate(TAGS)}
    # a strong bias on B-PER makes every word an entity start: entities exist and have offsets
    with __import__("torch").no_grad():
        loaded.model.classifier.bias[3] += 5.0
    return loaded


def test_split_words_and_offsets():
    words, offsets = split_words("Ada, born in London.")
    assert words == ["Ada", ",", "born", "in", "London", "."]
    assert offsets[4] == (13, 19) and word_offsets("Ada, born", ["Ada", ",", "born"]) == offsets[:3]


def test_tag_texts_entities_carry_character_offsets(tagger):
    text = "Ada was born in London"
    res = tag_texts(tagger.model, tagger.tokenizer, [text, ""], max_seq_length=8, keep_hidden=True)[0]
    assert res.words == text.split() and res.probabilities.shape == (5, 5)
    assert np.allclose(res.probabilities.sum(-1), 1.0)
    assert res.tags == ["B-PER"] * 5 and len(res.entities) == 5
    assert all(text[e.start:e.end] == e.text == w for e, w in zip(res.entities, res.words))


def test_head_by_hand_matches_the_model(tagger):
    res = tag_texts(tagger.model, tagger.tokenizer, ["the city of paris"], keep_hidden=True)[0]
    assert res.pieces[0] == "[CLS]" and res.hidden.shape == (len(res.pieces), 32)
    for i in range(len(res.pieces)):
        head = token_head(tagger.model, res, i)
        assert head.max_abs_diff < 1e-5 and head.W.shape == (5, 32)
        assert np.isclose(head.probabilities.sum(), 1.0)
    # the merged word logits are the first pieces' logits
    first = res.piece_words.index(3)
    assert np.allclose(res.logits[3], res.piece_logits[first])


def test_predict_file_writes_entities(tagger, tmp_path):
    folder = tmp_path / "ckpt"
    tagger.model.save_pretrained(folder)
    tagger.tokenizer.save_pretrained(folder)
    assert checkpoint_facts(str(folder)).kind == "ner"
    data = tmp_path / "in.csv"
    data.write_text("id,text\n1,Ada was born in London\n2,\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    summary = predict_file(str(folder), str(data), str(out))
    rows = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert summary.kind == "ner" and summary.errors == 1
    ents = rows[0]["entities"]
    assert ents[0] == {"text": "Ada", "type": "PER", "start": 0, "end": 3} and rows[0]["tags"].split()[0] == "B-PER"
    assert rows[1]["error"]
    out_csv = tmp_path / "out.csv"
    predict_file(str(folder), str(data), str(out_csv))
    with out_csv.open(encoding="utf-8") as fh:
        first = next(csv.DictReader(fh))
    assert json.loads(first["entities"])[4]["text"] == "London"

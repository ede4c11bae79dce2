"""Raw text is split into the words a tagger's training words were: the rule is found from the training file,
recorded with the run (the checkpoint's config.json ``word_splitting``, the ``started`` event), and used by
``predict``, the Tag page's forward and ``explain``. A whitespace-joined training-style sentence gives back its
own words, and entity offsets fall on their boundaries."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
from helpers import tiny_loaded_model

from explorer.core.data.words import WORD_RULES, rule_for_sentences, rule_of, split_words

CONLL_STYLE = [
    (["AL-AIN", ",", "United", "Arab", "Emirates", "1996-12-06"], ["B-LOC", "O", "B-LOC", "I-LOC", "I-LOC", "O"]),
    (["Jean-Luc", "Brassard", "met", "U.S.", "officials", "."], ["B-PER", "I-PER", "O", "B-LOC", "O", "O"]),
    (["Mr.", "Smith", "'s", "all-rounder", "scored", "1,000", "--", "a", "record", "."],
     ["O", "B-PER", "O", "O", "O", "O", "O", "O", "O", "O"]),
]


def test_the_conll_rule_keeps_hyphens_inner_periods_and_abbreviations():
    words, offsets = split_words("AL-AIN's Jean-Luc met U.S. officials on 1996-12-06 in Paris, Mr. Smith said...",
                                 "conll")
    assert words == ["AL-AIN", "'s", "Jean-Luc", "met", "U.S.", "officials", "on", "1996-12-06", "in", "Paris", ",",
                     "Mr.", "Smith", "said", "..."]
    text = "AL-AIN's Jean-Luc met"
    assert [text[s:e] for s, e in split_words(text, "conll")[1]] == ["AL-AIN", "'s", "Jean-Luc", "met"]
    assert split_words("AL-AIN, 1996-12-06")[0] == ["AL", "-", "AIN", ",", "1996", "-", "12", "-", "06"]
    assert split_words("Paris, big.", "whitespace")[0] == ["Paris,", "big."]
    with pytest.raises(ValueError, match="rules: conll, punctuation, whitespace"):
        split_words("x", "spaces")


def test_the_rule_is_found_from_the_training_words():
    assert rule_for_sentences([w for w, _ in CONLL_STYLE]).rule == "conll"
    assert rule_for_sentences([["ada", "was", "born", "in", "london", "."]]).rule == "punctuation"   # a tie
    assert rule_for_sentences([["Paris,", "is", "big."], ["he", "said:", "yes!"]]).rule == "whitespace"
    choice = rule_for_sentences([w for w, _ in CONLL_STYLE])
    assert choice.sentences == 1.0 and "the conll rule" in choice.note() and "100.0 %" in choice.note()
    assert set(WORD_RULES) == {"conll", "punctuation", "whitespace"}


def _write_conll(path: Path, sentences) -> Path:
    lines = []
    for words, tags in sentences:
        lines += [f"{w} {t}" for w, t in zip(words, tags)] + [""]
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def _train(argv: list) -> tuple[int, list[dict]]:
    from explorer.core.protocol.events import iter_events
    from explorer.worker.train import main as train_main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = train_main([str(a) for a in argv])
    return rc, list(iter_events(buf.getvalue().splitlines()))


def _every_word_an_entity(folder: Path) -> None:
    """Give the saved tagger's B-PER output a large bias, so every word is an entity of its own: each entity's
    offsets are then one word's boundaries."""
    from safetensors.torch import load_file, save_file

    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    weights = load_file(str(folder / "model.safetensors"))
    weights["classifier.bias"][int(config["label2id"]["B-PER"])] = 100.0
    save_file(weights, str(folder / "model.safetensors"), metadata={"format": "pt"})


def _predict_words(folder: Path, sentences: list[list[str]], tmp_path: Path) -> list[dict]:
    from explorer.core.predict.engine import predict_file

    data = tmp_path / "raw.txt"   # a .txt without tabs: one text per line
    data.write_text("\n".join(" ".join(s) for s in sentences) + "\n", encoding="utf-8")
    summary = predict_file(str(folder), str(data), str(tmp_path / "out.jsonl"))
    assert summary.errors == 0 and any("split by the conll rule" in n for n in summary.notes), summary.notes
    return [json.loads(line) for line in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()]


def _assert_words_and_boundaries(rows: list[dict], sentences: list[list[str]]) -> None:
    for row, words in zip(rows, sentences):
        text = " ".join(words)
        assert row["words"].split(" ") == words and len(row["tags"].split()) == len(words)
        starts = {sum(len(w) + 1 for w in words[:k]) for k in range(len(words))}
        ends = {s + len(w) for s, w in zip(sorted(starts), words)}
        assert row["entities"] and all(e["start"] in starts and e["end"] in ends for e in row["entities"])
        assert [text[e["start"]:e["end"]] for e in row["entities"]] == [e["text"] for e in row["entities"]]


def test_a_tagger_records_its_rule_and_predict_gives_back_a_training_style_sentences_words(tmp_path):
    """Synthetic CoNLL-style data (hyphens, dates, U.S., Mr.): the run records ``conll`` in config.json and the
    started event; predict on the sentences joined with spaces returns their words and puts every entity on
    word boundaries (split at every punctuation mark, AL-AIN would be AL + - + AIN)."""
    model = tmp_path / "base"
    loaded = tiny_loaded_model("token_classification", num_labels=2)
    loaded.model.save_pretrained(model)
    loaded.tokenizer.save_pretrained(model)
    data = _write_conll(tmp_path / "train.txt", CONLL_STYLE)
    rc, ev = _train(["--task", "ner", "--model", model, "--train", data, "--dev", data, "--max-steps", 1,
                     "--batch-size", 2, "--max-seq-length", 32, "--mixed-precision", "no", "--new-head",
                     "--output-dir", tmp_path, "--run-id", "r"])
    assert rc == 0, ev[-1]
    started = next(e for e in ev if e["event"] == "started")
    assert started["word_splitting"] == "conll" and any("the conll rule" in n for n in started["data_notes"])
    folder = tmp_path / "r" / "checkpoints" / "last"
    assert json.loads((folder / "config.json").read_text(encoding="utf-8"))["word_splitting"] == "conll"
    _every_word_an_entity(folder)
    sentences = [w for w, _ in CONLL_STYLE]
    _assert_words_and_boundaries(_predict_words(folder, sentences, tmp_path), sentences)


def test_the_tag_page_and_explain_split_by_the_recorded_rule():
    from explorer.core.explain.attribution import explain
    from explorer.core.tagging.forward import tag_texts

    loaded = tiny_loaded_model("token_classification", num_labels=3)
    loaded.model.config.id2label = {0: "O", 1: "B-LOC", 2: "I-LOC"}
    text = "AL-AIN met Jean-Luc"
    assert tag_texts(loaded.model, loaded.tokenizer, [text])[0].words == ["AL", "-", "AIN", "met", "Jean", "-", "Luc"]
    loaded.model.config.word_splitting = "conll"
    assert rule_of(loaded.model) == "conll"
    assert tag_texts(loaded.model, loaded.tokenizer, [text])[0].words == ["AL-AIN", "met", "Jean-Luc"]
    attribution = explain(loaded.model, loaded.tokenizer, text, method="gxi", merge_words=True)
    assert [t for t in attribution.tokens if t not in ("[CLS]", "[SEP]")] == ["al-ain", "met", "jean-luc"]


def test_a_tagger_without_a_recorded_rule_keeps_the_punctuation_split_and_says_no_rule_is_recorded():
    """A checkpoint trained before the rule was recorded (or by another tool) is split at every punctuation mark
    as before, and predict's note and the Tag page say the model records no rule, never "as the model's training
    words were formed" / "as in training", which is only true of a recorded rule."""
    from types import SimpleNamespace

    from explorer.core.data.words import recorded_rule
    from explorer.core.predict.engine import _word_rule_note
    from explorer.core.tagging.forward import tag_texts
    from explorer.ui.inspectors.components.tag import words_note

    loaded = tiny_loaded_model("token_classification", num_labels=3)
    loaded.model.config.id2label = {0: "O", 1: "B-LOC", 2: "I-LOC"}
    assert recorded_rule(loaded.model) == "" and rule_of(loaded.model) == "punctuation"
    old = tag_texts(loaded.model, loaded.tokenizer, ["AL-AIN met"])[0]
    assert old.words == ["AL", "-", "AIN", "met"] and not old.word_rule_recorded
    note = _word_rule_note(SimpleNamespace(model=loaded.model))
    assert note.startswith("words split by the punctuation rule") and "records no rule" in note
    assert "as the model's training words were formed" not in note
    assert "records none" in words_note(old) and "as in training" not in words_note(old)
    loaded.model.config.word_splitting = "conll"
    new = tag_texts(loaded.model, loaded.tokenizer, ["AL-AIN met"])[0]
    assert new.word_rule_recorded and words_note(new) == "words by the conll rule, as in training"
    assert _word_rule_note(SimpleNamespace(model=loaded.model)).endswith("as the model's training words were formed")


@pytest.mark.real_data
def test_a_conll_trained_tagger_gives_back_conll_sentences_words(tmp_path, real_data):
    """A tiny tagger trained a step on the first 100 CoNLL-2003 training sentences records the conll rule; on 20
    dev sentences with hyphenated words, joined with spaces, predict returns their words unchanged and every
    entity on their boundaries."""
    from explorer.core.data.conll import load_tagging

    model = tmp_path / "base"
    loaded = tiny_loaded_model("token_classification", num_labels=2)
    loaded.model.save_pretrained(model)
    loaded.tokenizer.save_pretrained(model)
    conll = real_data / "conll2003"
    rc, ev = _train(["--task", "ner", "--model", model, "--train", conll / "train.txt", "--train-cap", 100,
                     "--dev", conll / "dev.txt", "--dev-cap", 20, "--max-steps", 1, "--batch-size", 8,
                     "--max-seq-length", 64, "--mixed-precision", "no", "--new-head", "--output-dir", tmp_path,
                     "--run-id", "conll"])
    assert rc == 0, ev[-1]
    folder = tmp_path / "conll" / "checkpoints" / "last"
    assert json.loads((folder / "config.json").read_text(encoding="utf-8"))["word_splitting"] == "conll"
    _every_word_an_entity(folder)
    dev = load_tagging(conll / "dev.txt").words
    sentences = [s for s in dev if any("-" in w.strip("-") for w in s)][:20]
    assert any("AL-AIN" in s or any(w.count("-") == 2 for w in s) for s in sentences)   # dates 1996-08-30
    _assert_words_and_boundaries(_predict_words(folder, sentences, tmp_path), sentences)

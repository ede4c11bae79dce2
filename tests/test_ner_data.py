"""CoNLL / JSONL tagging data (core/data/conll.py): columns, DOCSTART, schemes to IOB2, bad lines."""

import json

import pytest

from explorer.core.data.conll import detect_scheme, load_tagging, tag_set
from explorer.core.errors import TaggingDataError, UserError


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_four_columns_docstart_and_sentences(tmp_path):
    f = write(tmp_path / "train.txt", "-DOCSTART- -X- -X- O\n\nEU NNP B-NP B-ORG\nrejects VBZ B-VP O\n"
              "German JJ B-NP B-MISC\n\nPeter NNP B-NP B-PER\nBlackburn NNP I-NP I-PER\n")
    d = load_tagging(f)
    assert d.words == [["EU", "rejects", "German"], ["Peter", "Blackburn"]]
    assert d.tags == [["B-ORG", "O", "B-MISC"], ["B-PER", "I-PER"]]
    assert d.lines == [[3, 4, 5], [7, 8]] and d.columns == 4 and d.scheme == "IOB2"
    assert d.label_names == ["O", "B-MISC", "B-ORG", "B-PER", "I-PER"]
    assert any("DOCSTART" in n for n in d.notes)


def test_two_columns_tabs(tmp_path):
    d = load_tagging(write(tmp_path / "t.tsv", "Paris\tB-LOC\nis\tO\n\n\nnice\tO\n"))
    assert d.words == [["Paris", "is"], ["nice"]] and d.columns == 2


def test_iob1_converted_to_iob2(tmp_path):
    f = write(tmp_path / "t.txt", "Peter I-PER\nBlackburn I-PER\nJohn B-PER\nsaw O\nParis I-LOC\n")
    assert detect_scheme([["I-PER", "I-PER", "B-PER"]]) == "IOB1"
    d = load_tagging(f)
    assert d.scheme == "IOB1" and d.tags == [["B-PER", "I-PER", "B-PER", "O", "B-LOC"]]
    assert any("IOB1" in n and "IOB2" in n for n in d.notes)


def test_bioes_converted_to_iob2(tmp_path):
    f = write(tmp_path / "t.txt", "New B-LOC\nYork E-LOC\nand O\nBob S-PER\nLee B-PER\nJ I-PER\nSmith E-PER\n")
    d = load_tagging(f)
    assert d.scheme == "BIOES" and d.tags == [["B-LOC", "I-LOC", "O", "B-PER", "B-PER", "I-PER", "I-PER"]]


def test_jsonl_tokens_tags(tmp_path):
    f = tmp_path / "t.jsonl"
    f.write_text("\n".join(json.dumps(r) for r in (
        {"tokens": ["EU", "rejects"], "tags": ["B-ORG", "O"]},
        {"id": "1", "tokens": ["Peter"], "ner_tags": ["B-PER"]})) + "\n", encoding="utf-8")
    d = load_tagging(f)
    assert d.words == [["EU", "rejects"], ["Peter"]] and d.lines == [[1, 1], [2]] and d.columns == 0


@pytest.mark.parametrize("text, expect", [
    ("EU B-ORG\nrejects VBZ O\n", "line 2: 3 columns, but the file's first line has 2"),
    ("EU B-ORG\nsaw O\nBlackburn I-PER\n\nx B-LOC\n", "line 3: I-PER after O"),
    ("EU B-ORG\nsaw XYZ\n", "line 2: tag 'XYZ' is not O or B-/I-"),
    ("New B-LOC\nx O\nYork E-LOC\n", "line 3: E-LOC does not continue"),
    ("EU\n", "line 1: one column"),
    ("\n\n", "no sentence found"),
])
def test_bad_lines_named(tmp_path, text, expect):
    f = write(tmp_path / "bad.txt", text)
    with pytest.raises(TaggingDataError, match=expect) as err:
        load_tagging(f)
    assert str(f) in str(err.value) and isinstance(err.value, UserError)


def test_iob2_repair_as_conlleval(tmp_path):
    f = write(tmp_path / "t.txt", "EU B-ORG\nsaw O\nBlackburn I-PER\n\nx B-LOC\n")
    d = load_tagging(f, repair=True)
    assert d.tags[0] == ["B-ORG", "O", "B-PER"]
    assert any("repaired" in n and "line 3" in n for n in d.notes)


def test_unknown_dev_tag_named(tmp_path):
    train = load_tagging(write(tmp_path / "train.txt", "EU B-ORG\nsaw O\n"))
    dev = write(tmp_path / "dev.txt", "EU B-ORG\n\nBob B-PER\n")
    with pytest.raises(TaggingDataError, match=r"dev.txt line 3: tag 'B-PER' is not in the training"):
        load_tagging(dev, label_names=train.label_names)


def test_bad_jsonl_named(tmp_path):
    f = write(tmp_path / "t.jsonl", '{"tokens": ["a", "b"], "tags": ["O"]}\n')
    with pytest.raises(TaggingDataError, match="line 1: 2 tokens but 1 tags"):
        load_tagging(f)
    f = write(tmp_path / "u.jsonl", '{"tokens": ["a"], "ner_tags": [3]}\n')
    with pytest.raises(TaggingDataError, match="line 1: tags must be names"):
        load_tagging(f)


def test_tag_set_order():
    assert tag_set([["I-PER", "O", "B-LOC", "B-PER"]]) == ["O", "B-LOC", "B-PER", "I-PER"]


@pytest.mark.real_data
def test_real_conll2003_reads_as_iob2_with_its_counts(real_data):
    """The shared CoNLL-2003 files (README: IOB2, four columns, no DOCSTART): counts on a capped read, and the
    dev file's tags all in the training tag set."""
    from explorer.core.data.conll import require_tag_set
    from explorer.core.tagging.alignment import entities_of

    train = load_tagging(real_data / "conll2003" / "train.txt", cap=500)
    assert len(train) == 500 and train.columns == 4 and train.scheme == "IOB2" and not train.notes
    assert train.label_names == ["O", "B-LOC", "I-LOC", "B-MISC", "I-MISC", "B-ORG", "I-ORG", "B-PER", "I-PER"]
    dev = load_tagging(real_data / "conll2003" / "dev.txt", cap=300)
    require_tag_set(dev, train.label_names)
    assert sum(len(entities_of(t)) for t in dev.tags) > 300


def test_sniff_and_launcher_preview_know_tagging_files(tmp_path):
    from explorer.core.data.sniff import sniff_data_file
    from explorer.ui.launch.data_preview import preview_data

    two = write(tmp_path / "t.tsv", "Peter\tI-PER\nBlackburn\tI-PER\nsaw\tO\n\nParis\tI-LOC\n")
    four = write(tmp_path / "f.txt", "-DOCSTART- -X- -X- O\n\nEU NNP B-NP B-ORG\nrejects VBZ B-VP O\n")
    js = write(tmp_path / "t.jsonl", '{"tokens": ["EU"], "tags": ["B-ORG"]}\n')
    for f in (two, four, js):
        assert sniff_data_file(f).fits_task("ner") and sniff_data_file(f).mismatch("ner") is None
    assert sniff_data_file(two).mismatch("single")
    prev = preview_data(str(two), "ner")
    assert prev["ok"] and "IOB1 read as IOB2" in prev["summary"] and prev["counts"]["entities PER"] == 1
    assert prev["records"][0]["sentence"] == "Peter/B-PER Blackburn/I-PER saw"
    bad = preview_data(str(write(tmp_path / "bad.txt", "EU B-ORG\nsaw X O\n")), "ner")
    assert not bad["ok"] and "line 2" in bad["error"]

"""The bundled sample data (resources/samples, resources/examples) is well-formed SQuAD v2.0 / SST-2."""

import csv
import importlib.util
import json
import re
from pathlib import Path

import pytest

from explorer.paths import RESOURCES, SAMPLES

SQUAD_FILES = ("squad_v2_sample.json", "squad_v2_sample_train.json", "squad_v2_sample_dev.json")
EXAMPLES = RESOURCES / "examples" / "probe_examples.json"
SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "make_samples.py"


def _load(name):
    return json.loads((SAMPLES / name).read_text(encoding="utf-8"))


def _questions(data):
    for article in data["data"]:
        for para in article["paragraphs"]:
            for qa in para["qas"]:
                yield article["title"], para["context"], qa


@pytest.fixture(scope="module")
def make_samples():
    spec = importlib.util.spec_from_file_location("make_samples", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", SQUAD_FILES)
def test_official_format_and_answer_starts(name):
    data = _load(name)
    assert data["version"] == "v2.0"
    n = 0
    for title, context, qa in _questions(data):
        n += 1
        assert set(qa) <= {"id", "question", "answers", "is_impossible", "plausible_answers"}, qa["id"]
        assert re.fullmatch(r"[0-9a-f]{24}", qa["id"]), qa["id"]
        assert qa["question"].strip().endswith("?"), qa["id"]
        spans = qa["answers"] + qa.get("plausible_answers", [])
        if qa["is_impossible"]:
            assert qa["answers"] == [], f"{qa['id']}: unanswerable but has answers"
        else:
            assert qa["answers"], f"{qa['id']}: answerable but no answers"
            assert "plausible_answers" not in qa, qa["id"]
        for ans in spans:
            start, text = ans["answer_start"], ans["text"]
            assert context[start:start + len(text)] == text, f"{name} {qa['id']}: {text!r} not at {start}"
            # spans are whole words: no letter/digit glued on either side
            assert start == 0 or not context[start - 1].isalnum(), f"{qa['id']}: {text!r} starts mid-word"
            end = start + len(text)
            assert end == len(context) or not context[end].isalnum(), f"{qa['id']}: {text!r} ends mid-word"
            assert 1 <= len(text.split()) <= 12, f"{qa['id']}: answer {text!r} is not short"
    assert n > 0


def test_whole_set_shape():
    data = _load("squad_v2_sample.json")
    assert 28 <= len(data["data"]) <= 32
    n_q = n_imp = 0
    titles = set()
    for article in data["data"]:
        assert article["title"] not in titles
        titles.add(article["title"])
        assert len(article["paragraphs"]) == 1
        para = article["paragraphs"][0]
        words = len(para["context"].split())
        assert 60 <= words <= 180, f"{article['title']}: {words} words"
        assert 4 <= len(para["qas"]) <= 6, article["title"]
        imp = sum(qa["is_impossible"] for qa in para["qas"])
        assert 1 <= imp < len(para["qas"]), f"{article['title']}: {imp} unanswerable"
        n_q += len(para["qas"])
        n_imp += imp
    assert 0.28 <= n_imp / n_q <= 0.40, f"{n_imp}/{n_q} unanswerable"
    assert (n_q, n_imp) == (172, 57)   # the figures printed by scripts/make_samples.py


def test_ids_unique_and_split_disjoint():
    whole, train, dev = (_load(n) for n in SQUAD_FILES)
    ids = {n: [qa["id"] for _, _, qa in _questions(d)] for n, d in zip(SQUAD_FILES, (whole, train, dev))}
    for name, values in ids.items():
        assert len(values) == len(set(values)), f"{name}: duplicate ids"
    assert not set(ids[SQUAD_FILES[1]]) & set(ids[SQUAD_FILES[2]])
    assert sorted(ids[SQUAD_FILES[1]] + ids[SQUAD_FILES[2]]) == sorted(ids[SQUAD_FILES[0]])
    contexts = lambda d: {p["context"] for a in d["data"] for p in a["paragraphs"]}  # noqa: E731
    assert not contexts(train) & contexts(dev)
    assert len(train["data"]) == 24 and len(dev["data"]) == 6
    for d in (train, dev):
        flags = {qa["is_impossible"] for _, _, qa in _questions(d)}
        assert flags == {True, False}


def test_files_match_their_source(make_samples):
    for path, text in make_samples.outputs().items():
        assert path.read_text(encoding="utf-8") == text, f"{path} is stale: run python scripts/make_samples.py"


def test_builder_rejects_bad_answers(make_samples):
    with pytest.raises(ValueError, match="does not occur"):
        make_samples.find_span("Ada was born in London.", "Paris", "here")
    with pytest.raises(ValueError, match="occurs 2 times"):
        make_samples.find_span("in London, then London", "London", "here")
    assert make_samples.find_span("in London, then London", ("London", 1), "here")["answer_start"] == 16
    assert make_samples.question_id("t", "q?") == make_samples.question_id("t", "q?")
    assert len(make_samples.question_id("t", "q?")) == 24


def test_loads_with_load_squad():
    try:
        from explorer.core.data.squad import load_squad
    except ImportError as exc:
        pytest.skip(f"explorer.core.data.squad not importable yet ({exc})")
    for name, n_q, n_imp in (("squad_v2_sample.json", 172, 57),
                             ("squad_v2_sample_train.json", None, None),
                             ("squad_v2_sample_dev.json", None, None)):
        ds, report = load_squad(str(SAMPLES / name))
        raw = list(_questions(_load(name)))
        assert report.version == "v2.0"
        assert report.problems == []
        assert report.n_questions == len(raw) == len(ds)
        assert report.n_impossible == sum(qa["is_impossible"] for _, _, qa in raw)
        if n_q is not None:
            assert (report.n_questions, report.n_impossible) == (n_q, n_imp)
        row = ds[0]
        _, context, qa = raw[0]
        assert row["id"] == qa["id"] and row["context"] == context
        assert row["answers"]["text"] == [a["text"] for a in qa["answers"]]
        assert row["answers"]["answer_start"] == [a["answer_start"] for a in qa["answers"]]


def test_sst2_sample():
    with open(SAMPLES / "sst2_sample.tsv", encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    assert rows[0] == ["sentence", "label"]
    body = rows[1:]
    assert 50 <= len(body) <= 70
    assert all(len(r) == 2 and r[1] in ("0", "1") and r[0].strip() for r in body)
    assert sum(r[1] == "1" for r in body) == sum(r[1] == "0" for r in body)
    assert len({r[0] for r in body}) == len(body)


def test_sst2_loads_with_load_classification():
    try:
        from explorer.core.data.classification import load_classification
    except ImportError as exc:
        pytest.skip(f"explorer.core.data.classification not importable yet ({exc})")
    data = load_classification(str(SAMPLES / "sst2_sample.tsv"))
    assert len(data) == 60 and data.num_labels == 2 and data.texts_b is None
    assert sorted(set(data.labels)) == [0, 1] and sum(data.labels) == 30
    assert data.columns[0] == "sentence" and data.columns[2] == "label"


def test_probe_examples():
    examples = json.loads(EXAMPLES.read_text(encoding="utf-8"))
    assert 6 <= len(examples) <= 12
    for ex in examples:
        assert {"title", "question", "passage", "answerable"} <= set(ex), ex.get("title")
        assert isinstance(ex["answerable"], bool)
        if ex["answerable"]:
            assert ex["answer"] and ex["answer"] in ex["passage"], ex["title"]
        else:
            assert ex.get("answer", "") == ""
    assert any(ex["question"] == "Where was Ada born?"
               and ex["passage"] == "Ada Lovelace was born in London in 1815." for ex in examples)
    assert sum(not ex["answerable"] for ex in examples) >= 2
    assert max(len(ex["passage"].split()) for ex in examples) >= 400
    cjk = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
    assert any(cjk.search(ex["passage"]) and re.search(r"[éèöüō]", ex["passage"]) for ex in examples)


def test_long_probe_passage_makes_several_windows():
    """At the default max_seq_length 384 / doc_stride 128 the long passage needs 3 windows (bundled tokenizer)."""
    try:
        from transformers import AutoTokenizer

        from explorer.core.models.loading import resolve_source
        tok = AutoTokenizer.from_pretrained(resolve_source("bundled:minilm"))
    except Exception as exc:  # the bundled encoder package is optional in a bare environment
        pytest.skip(f"bundled tokenizer unavailable ({exc})")
    ex = max(json.loads(EXAMPLES.read_text(encoding="utf-8")), key=lambda e: len(e["passage"]))
    enc = tok(ex["question"], ex["passage"], truncation="only_second", max_length=384, stride=128,
              return_overflowing_tokens=True)
    assert len(enc["input_ids"]) >= 3

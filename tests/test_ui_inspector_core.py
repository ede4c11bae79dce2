"""Headless tests of the core helpers the inspectors use: word-piece merging and the dev-set τ study."""

import json
import math

import numpy as np
import pytest

from explorer.core.qa.decoding import ExampleDecoding, SpanCandidate
from explorer.core.qa.tau_study import (StudyCancelled, TauStudy, load_study, questions_near, run_study, save_study,
                                     study_figures, study_key)
from explorer.core.attention.wordmerge import merge_attention, merge_rows, word_groups


def squad_v2_file(path, n_paragraphs=3):
    """A small official-format SQuAD v2.0 file: per paragraph two answerable and two unanswerable questions."""
    data = []
    for p in range(n_paragraphs):
        context = f"ada lovelace was born in london in 181{p}. she wrote the first program for the engine."
        qas = [
            {"id": f"p{p}a", "question": "where was ada born?", "is_impossible": False,
             "answers": [{"text": "london", "answer_start": context.index("london")}]},
            {"id": f"p{p}b", "question": "what did she write?", "is_impossible": False,
             "answers": [{"text": "the first program", "answer_start": context.index("the first program")}]},
            {"id": f"p{p}c", "question": "who won the cup in 2018?", "is_impossible": True, "answers": []},
            {"id": f"p{p}d", "question": "how many layers does bert have?", "is_impossible": True, "answers": []},
        ]
        data.append({"title": f"Article_{p}", "paragraphs": [{"context": context, "qas": qas}]})
    path.write_text(json.dumps({"version": "v2.0", "data": data}), encoding="utf-8")
    return path


# ------------------------------------------------------------------------------------------------ wordmerge
def test_word_groups_and_merge_by_hand():
    tokens = ["[CLS]", "who", "[SEP]", "love", "##lace", "was", "[SEP]"]
    word_ids = [None, 0, None, 0, 0, 1, None]
    blocks = ["special", "question", "special", "passage", "passage", "passage", "special"]
    g = word_groups(tokens, word_ids, blocks)
    assert g.labels == ["[CLS]", "who", "[SEP]", "lovelace", "was", "[SEP]"]
    assert g.groups[3] == [3, 4]
    assert g.blocks == ["special", "question", "special", "passage", "passage", "special"]
    rng = np.random.default_rng(0)
    a = rng.random((7, 7)).astype(np.float32)
    a /= a.sum(axis=1, keepdims=True)
    m = merge_attention(a, g)
    assert m.shape == (6, 6)
    # from "lovelace" (rows 3, 4 averaged) to "lovelace" (columns 3, 4 summed)
    assert m[3, 3] == pytest.approx(((a[3, 3] + a[3, 4]) + (a[4, 3] + a[4, 4])) / 2, rel=1e-6)
    # from "who" to "was": a single cell
    assert m[1, 4] == pytest.approx(a[1, 5], rel=1e-6)
    np.testing.assert_allclose(m.sum(axis=1), 1.0, rtol=1e-5)
    # the same on a (layers, heads, seq, seq) stack
    stack = np.stack([a, a.T]).reshape(1, 2, 7, 7)
    assert merge_attention(stack, g).shape == (1, 2, 6, 6)
    share = np.arange(21, dtype=np.float32).reshape(7, 3)
    np.testing.assert_allclose(merge_rows(share, g)[3], (share[3] + share[4]) / 2)


def test_word_groups_keeps_question_and_passage_words_apart():
    # the question's word 0 and the passage's word 0 are different words even when adjacent
    g = word_groups(["a", "b"], [0, 0], ["question", "passage"])
    assert len(g) == 2
    with pytest.raises(ValueError, match="one entry per token"):
        word_groups(["a"], [0, 1], ["question"])
    with pytest.raises(ValueError, match="expected"):
        merge_attention(np.zeros((3, 3)), g)


# ------------------------------------------------------------------------------------------------ tau study
def _decoding(qid, diff, text="x"):
    if math.isinf(diff):
        return ExampleDecoding(qid, [], 1.0, 0.5, 0.5, 0, -math.inf, -math.inf)
    c = SpanCandidate(text, 0, len(text), 5, 6, 0, 1.0 + diff, 0.0, 1.0 + diff)
    return ExampleDecoding(qid, [c], 1.0, 0.25, 0.75, 0, 1.0 + diff, diff)


def _study(tmp_path):
    ids = ["q1", "q2", "q3", "q4"]
    decs = {"q1": _decoding("q1", 2.0, "london"), "q2": _decoding("q2", -1.0, "paris"),
            "q3": _decoding("q3", 0.5, "ada"), "q4": _decoding("q4", -math.inf)}
    gold = {"q1": ["london"], "q2": [], "q3": [], "q4": ["x"]}
    return TauStudy(ids=ids, titles=["T"] * 4, questions=["a?", "b?", "c?", "d?"], contexts=["ctx one", "ctx two"],
                    context_index=[0, 0, 1, 1], gold=gold, decodings=decs, source="tiny:random",
                    data_path=str(tmp_path / "x.json"), cap=None, key="k123")


def test_study_cache_round_trip(tmp_path):
    study = _study(tmp_path)
    save_study(study, tmp_path)
    back = load_study("k123", tmp_path)
    assert back is not None and back.from_cache
    assert back.ids == study.ids and back.context(2) == "ctx two"
    for q in study.ids:
        a, b = study.decodings[q], back.decodings[q]
        assert (a.score_diff == b.score_diff) or (math.isinf(a.score_diff) and math.isinf(b.score_diff))
        assert [c.text for c in a.nbest] == [c.text for c in b.nbest]
        assert b.null_start_logit == a.null_start_logit
    assert load_study("missing", tmp_path) is None
    (tmp_path / "tau_study" / "k123.json.gz").write_bytes(b"not gzip")
    assert load_study("k123", tmp_path) is None


def test_questions_near_and_figures(tmp_path):
    study = _study(tmp_path)
    idx = questions_near(study.score_diffs(), 0.4, k=3)
    assert list(idx) == [2, 1, 0]  # |0.5-0.4|, |-1-0.4|, |2-0.4|; the -inf one last / left out
    f = study_figures(study)
    # by hand: tau in [-1, 0.5): q1 answered right (1), q2 abstains right (1), q3 answered wrong (0), q4 never
    # answered (0) -> F1 50; tau in [0.5, 2): q3 abstains right too -> 75 = the best
    assert f.grid.best_f1 == pytest.approx(75.0)
    assert 0.5 <= f.grid.best_tau < 2.0
    assert f.exact.f1.max() == pytest.approx(75.0)
    assert f.official["best_f1"] == pytest.approx(75.0)
    assert 0.5 <= f.official["best_tau"] < 2.0


def test_run_study_tiny_model_cache_and_cancel(tiny_qa, tmp_path):
    data = squad_v2_file(tmp_path / "dev.json")
    calls = []
    study = run_study(tiny_qa, str(data), cap=None, cache_dir=tmp_path / "cache",
                      progress=lambda d, t: calls.append((d, t)))
    assert len(study) == 12 and not study.from_cache
    assert calls and calls[-1][0] == calls[-1][1]
    again = run_study(tiny_qa, str(data), cache_dir=tmp_path / "cache")
    assert again.from_cache and again.ids == study.ids
    np.testing.assert_array_equal(again.score_diffs(), study.score_diffs())
    capped = run_study(tiny_qa, str(data), cap=5, cache_dir=tmp_path / "cache")
    assert len(capped) == 5 and not capped.from_cache
    assert study_key(tiny_qa, str(data), 5) != study_key(tiny_qa, str(data), None)

    def stop(done, total):
        raise StudyCancelled()

    with pytest.raises(StudyCancelled):
        run_study(tiny_qa, str(data), cap=7, cache_dir=tmp_path / "cache", progress=stop)


def test_study_cache_keyed_on_contents_not_mtime(tiny_qa, tmp_path):
    """A same-size edit that keeps the modification time (cp -p, rsync -t) returns fresh gold."""
    import os

    data = squad_v2_file(tmp_path / "dev.json")
    first = run_study(tiny_qa, str(data), cache_dir=tmp_path / "cache")
    assert first.gold["p0a"] == ["london"]
    st = os.stat(data)
    text = data.read_text(encoding="utf-8")
    edited = text.replace('"text": "london"', '"text": "London"', 1).replace("born in london", "born in London", 1)
    assert len(edited) == len(text) and edited != text
    data.write_text(edited, encoding="utf-8")
    os.utime(data, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(data).st_size == st.st_size and os.stat(data).st_mtime_ns == st.st_mtime_ns
    again = run_study(tiny_qa, str(data), cache_dir=tmp_path / "cache")
    assert not again.from_cache and again.gold["p0a"] == ["London"]
    assert run_study(tiny_qa, str(data), cache_dir=tmp_path / "cache").from_cache   # same contents: a hit


def test_damaged_study_cache_is_recomputed(tiny_qa, tmp_path):
    """A cache file whose lists do not line up (or is not gzip JSON at all) is ignored, never shown."""
    import gzip

    from explorer.core.qa.tau_study import cache_path

    data = squad_v2_file(tmp_path / "dev.json")
    study = run_study(tiny_qa, str(data), cache_dir=tmp_path / "cache")
    path = cache_path(study.key, tmp_path / "cache")
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        j = json.load(fh)
    j["gold"][study.ids[0]] = "london"            # a string, not a list of gold texts
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        json.dump(j, fh)
    assert load_study(study.key, tmp_path / "cache") is None
    path.write_bytes(b"not gzip")
    assert load_study(study.key, tmp_path / "cache") is None
    again = run_study(tiny_qa, str(data), cache_dir=tmp_path / "cache")
    assert not again.from_cache and again.gold == study.gold


def test_the_tau_grid_reaches_past_the_farthest_score_diff(tmp_path):
    """A model whose score_diff reaches past ±6 gets a τ grid that reaches it, so the best τ and the honest τ are
    never cut off at ±6. By hand: q5 (wrong, score_diff 6) is abstained from τ = 6 on; q3 (wrong, 7) only from
    τ = 7 on, where F1 is 80 (q1 right, q2 q3 q5 abstain right, q4 never answered); ±6 alone gave 60."""
    from explorer.core.qa.scores import DEFAULT_TAUS, tau_grid

    ids = ["q1", "q2", "q3", "q4", "q5"]
    decs = {"q1": _decoding("q1", 9.0, "london"), "q2": _decoding("q2", -1.0, "paris"),
            "q3": _decoding("q3", 7.0, "ada"), "q4": _decoding("q4", -math.inf), "q5": _decoding("q5", 6.0, "x")}
    gold = {"q1": ["london"], "q2": [], "q3": [], "q4": ["x"], "q5": []}
    study = TauStudy(ids=ids, titles=["T"] * 5, questions=["a?", "b?", "c?", "d?", "e?"], contexts=["ctx"],
                     context_index=[0] * 5, gold=gold, decodings=decs, source="tiny:random",
                     data_path=str(tmp_path / "x.json"), cap=None, key="k5")
    f = study_figures(study)
    assert f.grid.taus.max() >= 9.0 and f.grid.taus.min() <= -9.0
    assert 7.0 <= f.grid.best_tau < 9.0 and f.grid.best_f1 == pytest.approx(80.0) == pytest.approx(f.exact.best_f1)
    assert f.honest["dev_best_f1"] == pytest.approx(80.0)
    assert tau_grid([0.5, -3.0, math.inf]) is DEFAULT_TAUS                  # within ±6: the usual grid
    wide = tau_grid([1e6])                                                   # a runaway score stays a bounded grid
    assert wide.size <= 801 and wide.max() >= 1e6

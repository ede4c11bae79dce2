"""Span search, null score, tau decision and official files (explorer.core.qa.decoding)."""

import json
import math

import numpy as np
import pytest

from explorer.core.qa.decoding import (decode_example, decode_predictions, span_score_table,
                                    write_official_files)
from explorer.core.qa.windows import prepare_qa_features
from helpers import tiny_tokenizer

# The seed's toy: 4 passage tokens; the largest cell S_i + E_j is 5.8 at i=2, j=0 (below the diagonal,
# invalid); the best valid cell is 4.5 at i=2, j=3; P_start(2) = 0.782, P_end(3) = 0.181.
TOY_S = np.array([0.12, 0.3, 2.6, 0.25])
TOY_E = np.array([3.2, 1.0, 1.1, 1.9])


def softmax(x):
    x = np.exp(x - x.max())
    return x / x.sum()


def toy_window():
    """[CLS] + 4 passage tokens 'w0 w1 w2 w3' (chars 0-2, 3-5, 6-8, 9-11) + [SEP]."""
    context = "w0 w1 w2 w3"
    offsets = [None, (0, 2), (3, 5), (6, 8), (9, 11), None]
    s = np.concatenate([[-1.0], TOY_S, [-9.0]])
    e = np.concatenate([[-1.0], TOY_E, [-9.0]])
    return context, s, e, offsets


def test_seed_toy_best_cell_below_diagonal_is_skipped():
    table = TOY_S[:, None] + TOY_E[None, :]
    i, j = np.unravel_index(np.argmax(table), table.shape)
    assert (i, j) == (2, 0) and table[i, j] == pytest.approx(5.8)  # the invalid maximum
    assert softmax(TOY_S)[2] == pytest.approx(0.782, abs=5e-4)
    assert softmax(TOY_E)[3] == pytest.approx(0.181, abs=5e-4)
    context, s, e, offsets = toy_window()
    d = decode_example(context, [s], [e], [offsets], [0], n_best_size=20, max_answer_length=30)
    best = d.nbest[0]
    assert (best.start_token, best.end_token) == (3, 4)  # tokens 2, 3 of the passage (after [CLS])
    assert best.score == pytest.approx(4.5)
    assert best.text == "w2 w3" and (best.start_char, best.end_char) == (6, 11)
    assert all(c.end_token >= c.start_token for c in d.nbest)
    assert d.null_score == pytest.approx(-2.0)
    assert d.score_diff == pytest.approx(6.5)
    # span table for the UI: the same 4.5 maximum, NaN below the diagonal and outside the passage
    t = span_score_table(s, e, offsets)
    assert np.nanmax(t) == pytest.approx(4.5)
    assert np.isnan(t[3, 1]) and np.isnan(t[0, 0]) and np.isnan(t[5, 5])
    assert t[3, 4] == pytest.approx(4.5)
    assert np.count_nonzero(~np.isnan(t)) == 10  # 4 + 3 + 2 + 1 cells on/above the diagonal


def test_max_answer_length_and_question_tokens():
    context, s, e, offsets = toy_window()
    d = decode_example(context, [s], [e], [offsets], [0], max_answer_length=1)
    assert all(c.start_token == c.end_token for c in d.nbest)
    # a huge logit on a question/special token is never chosen
    s2, e2 = s.copy(), e.copy()
    s2[5], e2[5] = 100.0, 100.0
    d2 = decode_example(context, [s2], [e2], [offsets], [0])
    assert d2.nbest[0].score == pytest.approx(4.5)


def brute_force_best(s, e, mask, max_len):
    best = (-math.inf, None, None)
    for i in np.flatnonzero(mask):
        for j in np.flatnonzero(mask):
            if i <= j < i + max_len and s[i] + e[j] > best[0]:
                best = (s[i] + e[j], i, j)
    return best


@pytest.mark.parametrize("seed", range(5))
def test_vectorised_search_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = 60
    s, e = rng.normal(size=n), rng.normal(size=n)
    offsets = [None] * 8 + [(k, k + 1) for k in range(n - 9)] + [None]
    context = "x" * (n - 9)
    mask = np.array([o is not None for o in offsets])
    d = decode_example(context, [s], [e], [offsets], [0], n_best_size=n, max_answer_length=7)
    score, i, j = brute_force_best(s, e, mask, 7)
    assert (d.nbest[0].start_token, d.nbest[0].end_token) == (i, j)
    assert d.nbest[0].score == pytest.approx(score)
    assert np.nanmax(span_score_table(s, e, offsets, max_answer_length=7)) == pytest.approx(score)
    # with n_best_size=20 the best span found is the brute-force best within the top-20 starts x ends
    d20 = decode_example(context, [s], [e], [offsets], [0], n_best_size=20, max_answer_length=7)
    top_s = set(np.argsort(-np.where(mask, s, -np.inf))[:20])
    top_e = set(np.argsort(-np.where(mask, e, -np.inf))[:20])
    sub = np.array([k in top_s for k in range(n)]), np.array([k in top_e for k in range(n)])
    want = max(s[a] + e[b] for a in np.flatnonzero(sub[0]) for b in np.flatnonzero(sub[1]) if a <= b < a + 7)
    assert d20.nbest[0].score == pytest.approx(want)
    assert [c.score for c in d20.nbest] == sorted((c.score for c in d20.nbest), reverse=True)
    assert len(d20.nbest) <= 20


def test_null_score_is_minimum_over_windows():
    context = "w0 w1 w2 w3"
    _, s, e, offsets = toy_window()
    s1, e1 = s.copy(), e.copy()
    s2, e2 = s.copy() - 1.0, e.copy() - 1.0
    s1[0], e1[0] = 3.0, 4.0  # window 0: null 7.0
    s2[0], e2[0] = 1.5, 0.5  # window 1: null 2.0 (the minimum)
    d = decode_example(context, [s1, s2], [e1, e2], [offsets, offsets], [0, 0], example_id="q")
    assert d.null_score == pytest.approx(2.0)
    assert (d.null_start_logit, d.null_end_logit, d.null_window) == (1.5, 0.5, 1)
    assert d.best_non_null_score == pytest.approx(4.5)  # window 0 holds the best span
    assert d.nbest[0].window_index == 0
    assert d.score_diff == pytest.approx(2.5)
    assert d.answer(2.4) == "w2 w3" and d.answer(2.5) == "" and d.answer(3.0) == ""
    # "w2 w3" occurs in both windows: listed once (unique by text, like the official nbest)
    assert [c.text for c in d.nbest].count("w2 w3") == 1


def test_long_passage_answer_in_second_window():
    tok = tiny_tokenizer()
    ctx = " ".join(["the river"] * 30) + " ada was born in paris in 1815 ."
    ans = [{"text": ["paris"], "answer_start": [ctx.index("paris")]}]
    f = prepare_qa_features(["where was ada born?"], [ctx], tok, max_seq_length=48, doc_stride=8, answers=ans)
    target = next(k for k in range(len(f)) if f.start_positions[k] != f.cls_index[k])
    assert len(f) == 2 and target == 1  # the answer is only in the second window
    L = max(f.lengths())
    start = np.zeros((len(f), L))
    end = np.zeros((len(f), L))
    start[target, f.start_positions[target]] = 8.0
    end[target, f.end_positions[target]] = 7.0
    start[:, 0] = 1.0  # null score 1 + 0 in every window
    d = decode_predictions([{"id": "q1", "context": ctx}], f, start, end)["q1"]
    assert d.nbest[0].text == "paris" and d.nbest[0].window_index == target
    assert d.nbest[0].start_char == ctx.index("paris")
    assert d.score_diff == pytest.approx(15.0 - 1.0)
    assert d.n_windows == len(f)


def test_unicode_spans_map_back_exactly():
    tok = tiny_tokenizer()
    ctx = "Le café de Zürich, 東京 et 🎉 naïve fête"
    f = prepare_qa_features(["où?"], [ctx], tok)
    offs = f.offset_mapping[0]
    for target in ("Zürich", "東京", "🎉 naïve", "fête"):
        a, b = ctx.index(target), ctx.index(target) + len(target)
        i = next(k for k, o in enumerate(offs) if o and o[0] == a)
        j = next(k for k, o in enumerate(offs) if o and o[1] == b)
        s = np.zeros(len(offs))
        e = np.zeros(len(offs))
        s[i], e[j] = 5.0, 5.0
        d = decode_example(ctx, [s], [e], [offs], f.cls_index[:1], max_answer_length=30)
        assert d.nbest[0].text == target
        assert ctx[d.nbest[0].start_char:d.nbest[0].end_char] == target


def test_no_passage_tokens():
    d = decode_example("", [np.array([1.0, 0.0])], [np.array([2.0, 0.0])], [[None, None]], [0])
    assert d.nbest == [] and d.best_non_null_score == -math.inf and d.score_diff == -math.inf
    assert d.answer(-100.0) == "" and d.null_score == 3.0


def test_decode_predictions_errors():
    f = prepare_qa_features(["a?"], ["in london"], tiny_tokenizer())
    with pytest.raises(ValueError, match="windows"):
        decode_predictions([{"id": "x", "context": "in london"}], f, np.zeros((2, 8)), np.zeros((2, 8)))
    with pytest.raises(ValueError):
        decode_example("x", [], [], [], [])


def test_write_official_files(tmp_path):
    context, s, e, offsets = toy_window()
    d1 = decode_example(context, [s], [e], [offsets], [0], example_id="a")   # score_diff 6.5
    s2 = s.copy()
    s2[0] = 10.0
    d2 = decode_example(context, [s2], [e], [offsets], [0], example_id="b")  # null 9.0: score_diff -4.5
    paths = write_official_files({"a": d1, "b": d2}, tmp_path, tau=0.0)
    preds = json.loads(paths["predictions"].read_text())
    assert preds == {"a": "w2 w3", "b": ""}
    odds = json.loads(paths["null_odds"].read_text())
    assert odds["a"] == pytest.approx(-6.5) and odds["b"] == pytest.approx(4.5)
    nbest = json.loads(paths["nbest_predictions"].read_text())
    assert set(nbest["a"][0]) == {"text", "probability", "start_logit", "end_logit"}
    assert sum(x["probability"] for x in nbest["a"]) == pytest.approx(1.0)
    assert nbest["b"][0]["text"] == "" and nbest["b"][0]["start_logit"] == 10.0
    assert nbest["a"][0]["text"] == "w2 w3"
    assert nbest["a"][0]["start_logit"] + nbest["a"][0]["end_logit"] == pytest.approx(4.5)
    # tau moves the decision; v1.1 files always answer and have no null_odds.json
    assert json.loads(write_official_files({"a": d1}, tmp_path / "t", tau=7.0)["predictions"].read_text()) == {"a": ""}
    v1 = write_official_files({"b": d2}, tmp_path / "v1", version_2_with_negative=False)
    assert "null_odds" not in v1 and json.loads(v1["predictions"].read_text()) == {"b": "w2 w3"}
    assert all(x["text"] for x in json.loads(v1["nbest_predictions"].read_text())["b"])

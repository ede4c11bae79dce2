"""Official SQuAD metrics, best threshold, tau sweep, honest tau (explorer.core.metrics.squad)."""

import math

import numpy as np
import pytest

from explorer.core.qa.decoding import ExampleDecoding, SpanCandidate
from explorer.core.metrics.squad import (apply_no_ans_threshold, compute_exact, compute_f1, f1_precision_recall,
                                         find_best_thresh, get_tokens, normalize_answer, squad_evaluate)
from explorer.core.qa.scores import evaluate_decodings, honest_tau, question_scores_from, tau_sweep


def test_worked_examples_from_the_seed():
    p, r, f = f1_precision_recall("Bidirectional Encoder Representations from Transformers",
                                  "Bidirectional Encoder Representations")
    assert (p, r) == (1.0, 0.6) and f == pytest.approx(0.75)
    assert compute_exact("Bidirectional Encoder Representations from Transformers",
                         "Bidirectional Encoder Representations") == 0
    assert normalize_answer("the Broncos defeated the Panthers") == "broncos defeated panthers"
    p, r, f = f1_precision_recall("Denver Broncos", "the Broncos defeated the Panthers")
    assert p == pytest.approx(1 / 3) and r == 0.5 and f == pytest.approx(0.4)
    assert compute_f1("Denver Broncos", "the Broncos defeated the Panthers") == pytest.approx(0.4)


def test_normalisation_and_empty_answers():
    assert normalize_answer("  The  Quick, brown fox!  ") == "quick brown fox"
    assert normalize_answer("An apple a day") == "apple day"
    assert normalize_answer("theatre") == "theatre"  # whole words only
    assert get_tokens("") == [] and get_tokens("the") == []
    assert compute_exact("", "") == 1 and compute_f1("", "") == 1.0
    assert compute_f1("", "Denver") == 0.0 and compute_f1("Denver", "") == 0.0
    assert compute_exact("Denver Broncos!", "denver  broncos") == 1
    assert compute_f1("x b b c", "b b b") == pytest.approx(2 * (2 / 3) * (2 / 4) / (2 / 3 + 2 / 4))
    assert compute_f1("a b b c", "b b b") == pytest.approx(2 / 3)  # "a" is an article: gold = b b c


def test_v11_max_over_gold_answers():
    gold = {"q1": ["Denver Broncos", "Broncos", "The Denver Broncos"], "q2": ["Santa Clara, California"]}
    preds = {"q1": "broncos", "q2": "Santa Clara"}
    out = squad_evaluate(gold, preds)
    assert set(out) == {"exact_match", "f1", "total"}
    assert out["total"] == 2
    assert out["exact_match"] == pytest.approx(50.0)
    assert out["f1"] == pytest.approx(100 * (1.0 + 0.8) / 2)


def test_v20_hasans_noans_split():
    gold = {"a": ["Paris"], "b": [], "c": ["1815"], "d": []}
    preds = {"a": "Paris", "b": "", "c": "in 1815 London", "d": "London"}
    out = squad_evaluate(gold, preds)
    assert out["total"] == 4 and out["HasAns_total"] == 2 and out["NoAns_total"] == 2
    assert out["exact_match"] == pytest.approx(50.0)
    assert out["HasAns_exact"] == pytest.approx(50.0)
    assert out["HasAns_f1"] == pytest.approx(100 * (1 + 0.5) / 2)
    assert out["NoAns_f1"] == pytest.approx(50.0)
    assert out["f1"] == pytest.approx(100 * (1 + 1 + 0.5 + 0) / 4)
    # a gold that normalises to "" still makes the question answerable (official make_qid_to_has_ans),
    # and an empty prediction matches it when scored raw
    out = squad_evaluate({"x": ["the"]}, {"x": ""}, version="v2.0")
    assert out["HasAns_total"] == 1 and "NoAns_total" not in out and out["exact_match"] == 100.0


SQUAD2_HAS_ANSWER = {  # case squad2-has-answer (shared/cases), rebuilt here
    "data": [{"title": "T", "paragraphs": [{"context": "The end. Denver Broncos won. a", "qas": [
        {"id": "q1", "question": "Which word?", "answers": [{"text": "The", "answer_start": 0}],
         "is_impossible": False},
        {"id": "q2", "question": "Unanswerable?", "answers": [], "is_impossible": True},
        {"id": "q3", "question": "Who won?", "answers": [{"text": "Denver Broncos", "answer_start": 9}],
         "is_impossible": False}]}]}],
    "predictions": {"q1": "the", "q2": "a", "q3": ""},
    "null_odds": {"q1": 2.0, "q2": 2.0, "q3": 2.0},
}


def _check_squad2_has_answer(out):
    assert (out["HasAns_total"], out["NoAns_total"]) == (2, 1)
    assert round(out["exact"], 2) == 33.33 and round(out["f1"], 2) == 33.33
    assert round(out["best_exact"], 2) == 66.67 and round(out["best_f1"], 2) == 66.67
    assert out["best_exact_thresh"] == 2.0 and out["best_f1_thresh"] == 2.0


def test_case_squad2_has_answer_split_by_raw_answers_list(tmp_path):
    import json

    from explorer.commands.score import score

    for name in ("data", "predictions", "null_odds"):
        body = {"version": "v2.0", "data": SQUAD2_HAS_ANSWER["data"]} if name == "data" else SQUAD2_HAS_ANSWER[name]
        (tmp_path / f"{name}.json").write_text(json.dumps(body))
    _check_squad2_has_answer(score(str(tmp_path / "data.json"), str(tmp_path / "predictions.json"),
                                   str(tmp_path / "null_odds.json")))


def test_case_squad2_has_answer_files():
    import os
    from pathlib import Path

    from explorer.commands.score import score

    if not os.environ.get("EXPLORER_REAL_DATA"):
        pytest.skip("EXPLORER_REAL_DATA is not set (the cases folder sits beside it)")
    case = Path(os.environ["EXPLORER_REAL_DATA"]).parent / "cases" / "squad2-has-answer"
    if not case.is_dir():
        pytest.skip(f"{case} not found")
    _check_squad2_has_answer(score(str(case / "data.json"), str(case / "predictions.json"),
                                   str(case / "null_odds.json")))


def test_missing_predictions_and_null_odds_are_errors():
    with pytest.raises(ValueError, match="1 of 2 questions have no prediction .*q2"):
        squad_evaluate({"q1": ["a"], "q2": ["b"]}, {"q1": "a"})
    out = squad_evaluate({"q1": ["x"], "q2": ["y"]}, {"q1": "x"}, allow_missing=True)
    assert out["exact_match"] == 50.0
    with pytest.raises(ValueError, match="null odds"):
        squad_evaluate({"q1": ["x"]}, {"q1": "x"}, {"other": 0.0})


# ---------------------------------------------------------------- random data vs brute force / official
WORDS = "paris london river ada born year first name city model".split()


def random_case(seed, n=300):
    rng = np.random.default_rng(seed)
    gold, decodings = {}, {}
    for k in range(n):
        qid = f"q{k}"
        has = rng.random() < 0.5
        g = [" ".join(rng.choice(WORDS, size=rng.integers(1, 4))) for _ in range(rng.integers(1, 3))] if has else []
        pred = " ".join(rng.choice(WORDS, size=rng.integers(1, 4)))
        if has and rng.random() < 0.4:
            pred = g[0]
        sd = float(rng.normal(0.8 if has else -0.8, 2.5))
        cand = SpanCandidate(pred, 0, len(pred), 1, 1, 0, sd / 2, sd / 2, sd)
        gold[qid] = g
        decodings[qid] = ExampleDecoding(qid, [cand], 0.0, 0.0, 0.0, 0, sd, sd)
    return gold, decodings


def official_f1_at(gold, decodings, na_prob_thresh):
    """evaluate-v2.0.py main path: raw scores of the best spans, then apply_no_ans_threshold."""
    preds = {q: d.best_text for q, d in decodings.items()}
    na = {q: -d.score_diff for q, d in decodings.items()}
    has = {q: bool([a for a in g if normalize_answer(a)]) for q, g in gold.items()}
    raw = {q: max(compute_f1(a, preds[q]) for a in ([a for a in gold[q] if normalize_answer(a)] or [""]))
           for q in gold}
    f1 = apply_no_ans_threshold(raw, na, has, na_prob_thresh)
    return 100.0 * sum(f1.values()) / len(f1)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_best_f1_thresh_matches_brute_force(seed):
    gold, dec = random_case(seed)
    preds = {q: d.best_text for q, d in dec.items()}
    odds = {q: -d.score_diff for q, d in dec.items()}
    out = squad_evaluate(gold, preds, odds)
    # brute force: every candidate threshold (answer iff odds <= t), plus "answer nothing"
    candidates = sorted(set(odds.values()))
    best_f1, best_t = official_f1_at(gold, dec, -math.inf), 0.0
    for t in candidates:
        f = official_f1_at(gold, dec, t)
        if f > best_f1 + 1e-9:
            best_f1, best_t = f, t
    assert out["best_f1"] == pytest.approx(best_f1)
    assert out["best_f1_thresh"] == best_t
    # best_tau is in score_diff units and reproduces best_f1 with our rule score_diff > tau
    assert tau_sweep(dec, gold, taus=[out["best_tau"]]).f1[0] == pytest.approx(best_f1)
    assert -out["best_tau"] == pytest.approx(best_t, abs=1.0)


@pytest.mark.parametrize("seed", [0, 3])
def test_tau_sweep_matches_official_apply_no_ans_threshold(seed):
    gold, dec = random_case(seed)
    taus = np.arange(-6, 6.0001, 0.25)
    sweep = tau_sweep(dec, gold, taus)
    for k in range(0, len(taus), 4):
        assert sweep.f1[k] == pytest.approx(official_f1_at(gold, dec, -taus[k]))
    assert sweep.best_f1 == pytest.approx(sweep.f1.max())
    assert sweep.best_tau == taus[int(np.argmax(sweep.f1))]
    sd = np.array([d.score_diff for d in dec.values()])
    assert sweep.answer_rate[0] == pytest.approx(100 * np.mean(sd > -6))
    # HasAns/NoAns parts recombine into the total
    has = question_scores_from(dec, gold).has_ans
    total = (sweep.HasAns_f1 * has.sum() + sweep.NoAns_f1 * (~has).sum()) / len(has)
    np.testing.assert_allclose(total, sweep.f1)
    assert sweep.at(0.1)["tau"] == 0.0


def test_honest_tau_scores_each_half_with_the_other_halfs_tau():
    gold, dec = random_case(5, n=400)
    out = honest_tau(dec, gold, seed=7)
    qs = question_scores_from(dec, gold)
    perm = np.random.default_rng(7).permutation(len(qs))
    a, b = qs.subset(perm[:200]), qs.subset(perm[200:])
    assert out["tau_A"] == tau_sweep(a).best_tau and out["tau_B"] == tau_sweep(b).best_tau
    assert out["f1_B_at_tau_A"] == pytest.approx(tau_sweep(b, taus=[out["tau_A"]]).f1[0])
    assert out["f1_A_at_tau_B"] == pytest.approx(tau_sweep(a, taus=[out["tau_B"]]).f1[0])
    assert out["honest_f1"] <= out["dev_best_f1"] + 1e-9
    assert out["n_A"] + out["n_B"] == 400


def test_find_best_thresh_answer_nothing_is_best():
    # every prediction is wrong: abstaining everywhere wins, official threshold 0.0
    preds = {"a": "x", "b": "y"}
    score, t = find_best_thresh(preds, {"a": 0.0, "b": 0.0}, {"a": -1.0, "b": 2.0}, {"a": True, "b": False})
    assert (score, t) == (50.0, 0.0)


def test_evaluate_decodings_v20_and_v11():
    gold, dec = random_case(4, n=100)
    out = evaluate_decodings(dec, gold, tau=0.5)
    assert out["tau"] == 0.5
    assert out["f1"] == pytest.approx(tau_sweep(dec, gold, taus=[0.5]).f1[0])
    assert out["best_f1"] >= out["f1"] - 1e-9
    v11 = {q: ["paris"] for q in gold}
    dec11 = {q: ExampleDecoding(q, [SpanCandidate("Paris", 0, 5, 1, 1, 0, 0, 0, -9.0)], 0, 0, 0, 0, -9.0, -9.0)
             for q in gold}
    assert evaluate_decodings(dec11, v11) == {"exact_match": 100.0, "f1": 100.0, "total": 100}


def test_v11_without_gold_names_the_question():
    with pytest.raises(ValueError, match="1 have none .*first: q2"):
        squad_evaluate({"q1": ["a"], "q2": []}, {"q1": "a", "q2": ""}, version="v1.1")

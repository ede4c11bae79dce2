"""Our SQuAD numbers against a line-by-line port of the official scripts (tests/official_squad_eval.py).

Hundreds of small SQuAD files are generated with the edge cases that broke tools before: golds that
normalise to "" ("The", "a", "!!"), duplicate gold texts, unanswerable questions, empty and
whitespace predictions, missing predictions, extra prediction ids, ties in the null odds (walked in
file order), integer null odds. Every key of every output is compared, |delta| < 1e-9.
"""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest

import official_squad_eval as official
from explorer.core.qa.decoding import ExampleDecoding, SpanCandidate, null_odds, predictions_at
from explorer.core.metrics.squad import missing_predictions, squad_evaluate
from explorer.core.qa.scores import evaluate_decodings, question_scores_from, tau_sweep

WORDS = ["Denver", "Broncos", "the", "The", "a", "an", "river", "Paris", "1815", "won", "!!", "...", "(",
         "Ada", "Lovelace", "café", "über", "x-ray", "A", "theatre", "an"]
ODD_GOLDS = ["The", "a", "!!", "An", "the.", "...", "A"]       # all normalise to ""
ODDS_POOL = [-2.0, -1.0, 0.0, 0.0, 0.5, 1.0, 1.0, 2.0, 3]       # repeated values: ties; 3 is a JSON int
N_FILES = 400
N_FILES_THROUGH_SCORE = 60


def _phrase(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 3)))


def _golds(rng: random.Random, allow_empty_text: bool) -> list[str]:
    r = rng.random()
    if r < 0.3:
        return []
    golds = []
    for _ in range(rng.randint(1, 3)):
        k = rng.random()
        golds.append(rng.choice(ODD_GOLDS) if k < 0.25 else (golds[0] if golds and k < 0.4 else _phrase(rng)))
    if allow_empty_text and rng.random() < 0.05:
        golds.append("")
    return golds


def _prediction(rng: random.Random, golds: list[str]) -> str:
    r = rng.random()
    if r < 0.2:
        return ""
    if r < 0.25:
        return " "
    if r < 0.5 and golds:
        g = rng.choice(golds)
        return rng.choice([g, g.lower(), f"the {g}!", g.split()[0] if g.split() else g])
    if r < 0.6:
        return rng.choice(ODD_GOLDS)
    return _phrase(rng)


def random_case(seed: int, *, allow_empty_text: bool = True, with_missing: bool = True):
    """(dataset list, gold dict, preds dict, null odds dict in shuffled order, version)."""
    rng = random.Random(seed)
    v11 = rng.random() < 0.25
    dataset, gold, preds = [], {}, {}
    qn = 0
    for a in range(rng.randint(1, 3)):
        paragraphs = []
        for _ in range(rng.randint(1, 3)):
            context_parts, qas = [], []
            for _ in range(rng.randint(1, 4)):
                qid = f"a{a}q{qn}"
                qn += 1
                golds = _golds(rng, allow_empty_text)
                if v11 and not golds:
                    golds = [_phrase(rng)]
                answers = []
                for g in golds:
                    start = len(" ".join(context_parts)) + (1 if context_parts else 0)
                    context_parts.append(g if g else "filler")
                    answers.append({"text": g, "answer_start": start})
                qas.append({"id": qid, "question": f"question {qid}?", "answers": answers})
                if not v11:
                    qas[-1]["is_impossible"] = not answers
                gold[qid] = golds
                if not (with_missing and rng.random() < 0.08):
                    preds[qid] = _prediction(rng, golds)
            context_parts.append(_phrase(rng))
            paragraphs.append({"context": " ".join(context_parts), "qas": qas})
        dataset.append({"title": f"T{a}", "paragraphs": paragraphs})
    if rng.random() < 0.3:
        preds["extra-id"] = "London"
    odds = {q: rng.choice(ODDS_POOL) if rng.random() < 0.7 else round(rng.uniform(-3, 3), 3) for q in preds}
    order = list(odds)
    rng.shuffle(order)
    odds = {q: odds[q] for q in order}
    return dataset, gold, preds, odds, ("v1.1" if v11 else "v2.0")


def _compare(ours: dict, ref: dict, *, rename=(("exact", "exact_match"),)) -> None:
    names = dict(rename)
    for key, value in ref.items():
        mine = ours[names.get(key, key)]
        assert abs(float(mine) - float(value)) < 1e-9, (key, mine, value)


def _fill_missing(preds: dict, odds: dict, missing: list[str]):
    """The official script's input that stands for our reading of a missing prediction: a wrong
    answer given with certainty (never empty, null odds -inf)."""
    preds = dict(preds, **{q: "\x00missing" for q in missing})
    odds = dict({q: -math.inf for q in missing}, **odds)
    return preds, odds


@pytest.mark.parametrize("block", range(4))
def test_squad_evaluate_matches_official_scripts_on_random_files(block):
    per = N_FILES // 4
    for seed in range(block * per, (block + 1) * per):
        dataset, gold, preds, odds, version = random_case(seed)
        missing = missing_predictions(gold, preds)
        if version == "v1.1":
            unanswered = []
            ref = official.v11_evaluate(dataset, preds, unanswered)
            ours = squad_evaluate(gold, preds, version="v1.1", allow_missing=True)
            _compare(ours, ref)
            assert ours["total"] == len(gold) and unanswered == missing, seed
            continue
        rng = random.Random(seed)
        thresh = rng.choice([1.0, 0.0, 0.5, 2.5])
        for use_odds in (False, True):
            ours = squad_evaluate(gold, preds, odds if use_odds else None, thresh, version="v2.0",
                                  allow_missing=True)
            p, o = _fill_missing(preds, odds, missing)
            ref = official.v20_main(dataset, p, o if use_odds else None, thresh)
            assert set(ours) == ({"exact_match", "best_tau"} if use_odds else {"exact_match"}) | set(ref) - {"exact"}
            _compare(ours, ref)
            if not missing:   # the plain official run, no stand-in needed
                _compare(ours, official.v20_main(dataset, preds, odds if use_odds else None, thresh))
            elif use_odds:    # what the official script itself does with missing predictions
                seen = []
                with pytest.raises((KeyError, ZeroDivisionError)):
                    official.v20_main(dataset, preds, odds, thresh, missing=seen)
                assert seen == missing


@pytest.mark.slow
def test_score_command_matches_official_scripts_on_random_files(tmp_path):
    from explorer.commands.score import score

    done = 0
    for seed in range(10_000, 10_000 + N_FILES_THROUGH_SCORE):
        dataset, gold, preds, odds, version = random_case(seed, allow_empty_text=False)
        folder = tmp_path / str(seed)
        folder.mkdir()
        (folder / "data.json").write_text(json.dumps({"version": version, "data": dataset}))
        (folder / "predictions.json").write_text(json.dumps(preds))
        (folder / "null_odds.json").write_text(json.dumps(odds))
        missing = missing_predictions(gold, preds)
        warnings = []
        if version == "v1.1":
            out = score(str(folder / "data.json"), str(folder / "predictions.json"), allow_missing=True,
                        warn=warnings.append)
            _compare(out, official.v11_evaluate(dataset, preds), rename=())
        else:
            out = score(str(folder / "data.json"), str(folder / "predictions.json"), str(folder / "null_odds.json"),
                        allow_missing=True, warn=warnings.append)
            p, o = _fill_missing(preds, odds, missing)
            _compare(out, official.v20_main(dataset, p, o), rename=())
            # without --null-odds a v2.0 file is still scored by evaluate-v2.0.py, even with no unanswerable
            out = score(str(folder / "data.json"), str(folder / "predictions.json"), allow_missing=True)
            ref = official.v20_main(dataset, p)
            assert set(out) == set(ref)
            _compare(out, ref, rename=())
        if missing:
            assert any(f"{len(missing)} of {len(gold)}" in w and missing[0] in w for w in warnings), warnings
        done += 1
    assert done == N_FILES_THROUGH_SCORE


# ---------------------------------------------------------------- decodings: eval, training eval, tau study
def _decodings(gold: dict, preds: dict, odds: dict) -> dict:
    """Stand-in decodings whose best span is the prediction (none for "") and score_diff = -null odds."""
    out = {}
    for q in gold:
        text = preds.get(q, "")
        nbest = [SpanCandidate(text, 0, len(text), 0, 0, 0, 1.0, 1.0, 2.0)] if text else []
        diff = -float(odds.get(q, 0.0)) if text else -math.inf
        out[q] = ExampleDecoding(q, nbest, null_score=0.0, null_start_logit=0.0, null_end_logit=0.0, null_window=0,
                                 best_non_null_score=diff if text else -math.inf, score_diff=diff)
    return out


def test_evaluate_decodings_and_tau_sweep_match_official_scripts():
    for seed in range(20_000, 20_150):
        dataset, gold, preds, odds, version = random_case(seed, with_missing=False)
        if version == "v1.1":
            continue
        dec = _decodings(gold, preds, odds)
        tau = random.Random(seed).choice([0.0, 0.25, -1.25])
        ours = evaluate_decodings(dec, gold, tau=tau, version="v2.0")
        ref = official.v20_main(dataset, predictions_at(dec, None), null_odds(dec),
                                na_prob_thresh=float(np.nextafter(-tau, -np.inf)))   # best spans + null odds
        _compare(ours, ref)
        at = tau_sweep(question_scores_from(dec, gold), taus=[tau])
        assert abs(ours["exact_match"] - at.exact_match[0]) < 1e-9 and abs(ours["f1"] - at.f1[0]) < 1e-9, seed
        # tau sweep = the official script with --na-prob-thresh -tau (taus off the odds values: no ties)
        taus = [-2.4137, -0.9137, 0.1137, 0.6137, 1.3137, 2.9137]
        sweep = tau_sweep(question_scores_from(dec, gold), taus=taus)
        for k, t in enumerate(taus):
            ref = official.v20_main(dataset, predictions_at(dec, None), null_odds(dec), na_prob_thresh=-t)
            assert abs(sweep.exact_match[k] - ref["exact"]) < 1e-9 and abs(sweep.f1[k] - ref["f1"]) < 1e-9, seed
            for part in ("HasAns", "NoAns"):
                if f"{part}_f1" in ref:
                    assert abs(getattr(sweep, f"{part}_f1")[k] - ref[f"{part}_f1"]) < 1e-9, (seed, part)


@pytest.mark.real_data
@pytest.mark.parametrize("rel", ["squad_v2.0/dev-subset.json", "squad_v1.1/dev-part1.json"])
def test_real_dev_files_match_official_scripts(rel, tmp_path):
    """The real dev files (4k questions each) with seeded predictions, through `score`, every key."""
    import os
    from pathlib import Path

    from explorer.commands.score import score

    root = os.environ.get("EXPLORER_REAL_DATA")
    if not root or not (Path(root) / rel).is_file():
        pytest.skip(f"EXPLORER_REAL_DATA is not set or has no {rel}")
    path = Path(root) / rel
    dataset = json.loads(path.read_text(encoding="utf-8"))["data"]
    rng = random.Random(7)
    preds, odds, gold_of = {}, {}, {}
    for article in dataset:
        for p in article["paragraphs"]:
            for qa in p["qas"]:
                gold_of[qa["id"]] = [a["text"] for a in qa["answers"]]
    for qid, golds in gold_of.items():
        if rng.random() < 0.03:
            continue                                         # missing
        preds[qid] = _prediction(rng, golds)
        odds[qid] = rng.choice(ODDS_POOL) if rng.random() < 0.5 else round(rng.uniform(-5, 5), 2)
    missing = missing_predictions(gold_of, preds)
    (tmp_path / "p.json").write_text(json.dumps(preds))
    (tmp_path / "o.json").write_text(json.dumps(odds))
    if "v1.1" in rel:
        unanswered = []
        ref = official.v11_evaluate(dataset, preds, unanswered)
        _compare(score(str(path), str(tmp_path / "p.json"), allow_missing=True), ref, rename=())
        assert unanswered == missing
        return
    p, o = _fill_missing(preds, odds, missing)
    out = score(str(path), str(tmp_path / "p.json"), str(tmp_path / "o.json"), allow_missing=True)
    ref = official.v20_main(dataset, p, o)
    assert set(out) == set(ref) | {"best_tau"}
    _compare(out, ref, rename=())
    complete = {q: preds.get(q, "") for q in gold_of}
    (tmp_path / "p.json").write_text(json.dumps(complete))
    odds_all = {**odds, **{q: 0.0 for q in missing}}
    (tmp_path / "o.json").write_text(json.dumps(odds_all))
    out = score(str(path), str(tmp_path / "p.json"), str(tmp_path / "o.json"))
    _compare(out, official.v20_main(dataset, complete, odds_all), rename=())   # the plain official run

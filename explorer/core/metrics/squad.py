"""Official SQuAD v1.1 / v2.0 evaluation (the τ sweep over decodings is explorer.core.qa.scores).

The answer normalisation, exact match, F1 and the best-threshold search reproduce the official
scripts ``evaluate-v1.1.py`` and ``evaluate-v2.0.py`` (Rajpurkar et al. 2016, 2018), re-written
here: normalise = lower case, drop punctuation, drop the articles a/an/the, collapse white space;
F1 on the bag of normalised tokens; max over the gold answers. In v2.0 a question *has an answer*
iff its raw ``answers`` list is non-empty (``make_qid_to_has_ans``), whatever normalisation does;
for scoring, golds that normalise to "" are dropped and an empty list becomes [""] (so a gold "The"
is matched by an empty prediction, yet the question counts in HasAns). tests/official_squad_eval.py
holds a line-by-line port of both scripts; tests/test_official_equivalence.py compares every key.

Units: scores in this module are percentages (0..100) like the official scripts, except the
per-question functions (compute_exact -> 0/1, compute_f1 -> 0..1). Thresholds: ``null_odds`` units
(official: answer iff null_odds <= thresh) and ``tau`` in score_diff units (ours: answer iff
score_diff > tau, with score_diff = -null_odds).
"""

from __future__ import annotations

import collections
import math
import re
import string

import numpy as np

_PUNCT = set(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)


def normalize_answer(s: str) -> str:
    """Lower case, remove punctuation, remove a/an/the, collapse white space (official scripts)."""
    s = s.lower()
    s = "".join(ch for ch in s if ch not in _PUNCT)
    s = _ARTICLES.sub(" ", s)
    return " ".join(s.split())


def get_tokens(s: str) -> list[str]:
    """Normalised tokens of s ([] for an empty string), evaluate-v2.0.py ``get_tokens``."""
    if not s:
        return []
    return normalize_answer(s).split()


def compute_exact(a_gold: str, a_pred: str) -> int:
    """1 if the normalised strings are equal, else 0."""
    return int(normalize_answer(a_gold) == normalize_answer(a_pred))


def f1_precision_recall(a_gold: str, a_pred: str) -> tuple[float, float, float]:
    """(precision, recall, f1) of the normalised token bags (evaluate-v2.0.py ``compute_f1``).

    If either side has no tokens, all three are 1.0 when both are empty, else 0.0.
    """
    gold_toks, pred_toks = get_tokens(a_gold), get_tokens(a_pred)
    if not gold_toks or not pred_toks:
        v = float(gold_toks == pred_toks)
        return v, v, v
    common = collections.Counter(gold_toks) & collections.Counter(pred_toks)
    num_same = sum(common.values())
    if num_same == 0:
        return 0.0, 0.0, 0.0
    precision = num_same / len(pred_toks)
    recall = num_same / len(gold_toks)
    return precision, recall, 2 * precision * recall / (precision + recall)


def compute_f1(a_gold: str, a_pred: str) -> float:
    """Token-overlap F1 in 0..1 (evaluate-v2.0.py)."""
    return f1_precision_recall(a_gold, a_pred)[2]


def _f1_v11(gold: str, pred: str) -> float:
    """evaluate-v1.1.py ``f1_score`` (no special case for empty token lists)."""
    p, g = normalize_answer(pred).split(), normalize_answer(gold).split()
    common = collections.Counter(p) & collections.Counter(g)
    num_same = sum(common.values())
    if num_same == 0:
        return 0.0
    precision, recall = num_same / len(p), num_same / len(g)
    return 2 * precision * recall / (precision + recall)


def _v2_golds(golds: list[str]) -> list[str]:
    """Gold answers that survive normalisation, or [''] (= no answer)."""
    kept = [a for a in golds if normalize_answer(a)]
    return kept or [""]


def question_scores(golds: list[str], pred: str, version: str = "v2.0") -> tuple[float, float]:
    """(exact 0/1, f1 0..1) of one prediction, max over gold answers (official per-question score)."""
    if version == "v1.1":
        if not golds:
            raise ValueError("SQuAD v1.1 scoring needs at least one gold answer per question")
        return (float(max(normalize_answer(pred) == normalize_answer(g) for g in golds)),
                max(_f1_v11(g, pred) for g in golds))
    golds = _v2_golds(golds)
    return float(max(compute_exact(g, pred) for g in golds)), max(compute_f1(g, pred) for g in golds)


def _find_best(preds, scores, na_probs, qid_to_has_ans) -> tuple[float, float, bool]:
    """The official walk; ``na_probs`` is walked in its own order for equal values (stable sort), as
    evaluate-v2.0.py walks the null-odds file. Returns (percent, threshold, whether anything improved)."""
    num_no_ans = sum(1 for k in qid_to_has_ans if not qid_to_has_ans[k])
    cur_score = best_score = num_no_ans
    best_thresh, improved = 0.0, False
    for qid in sorted(na_probs, key=lambda k: na_probs[k]):
        if qid not in scores:
            continue
        if qid_to_has_ans[qid]:
            diff = scores[qid]
        else:
            diff = -1 if preds[qid] else 0
        cur_score += diff
        if cur_score > best_score:
            best_score, best_thresh, improved = cur_score, na_probs[qid], True
    return 100.0 * best_score / len(scores), best_thresh, improved


def find_best_thresh(preds: dict[str, str], scores: dict[str, float], na_probs: dict[str, float],
                     qid_to_has_ans: dict[str, bool]) -> tuple[float, float]:
    """The official best-threshold search (evaluate-v2.0.py ``find_best_thresh``).

    Starting from "no answer everywhere", walk the questions by increasing null odds, switching each
    to its prediction; keep the first threshold with the highest total. Returns (best score in
    percent, threshold in null-odds units; 0.0 when answering nothing is best).
    """
    score, thresh, _ = _find_best(preds, scores, na_probs, qid_to_has_ans)
    return score, thresh


def apply_no_ans_threshold(scores: dict[str, float], na_probs: dict[str, float],
                           qid_to_has_ans: dict[str, bool], na_prob_thresh: float) -> dict[str, float]:
    """Official: where null odds > thresh the prediction becomes "no answer" (1 if gold is empty, else 0)."""
    return {qid: (float(not qid_to_has_ans[qid]) if na_probs[qid] > na_prob_thresh else s)
            for qid, s in scores.items()}


MISSING_PREDICTION = "\x00missing"   # stands for an absent prediction: never empty, never matches a gold


def missing_predictions(gold: dict, predictions: dict) -> list[str]:
    """Gold question ids (in gold order) that have no entry in ``predictions``."""
    return [q for q in gold if q not in predictions]


def has_answer(gold: dict[str, list[str]]) -> dict[str, bool]:
    """id -> whether the question has an answer: its raw gold list is non-empty (evaluate-v2.0.py
    ``make_qid_to_has_ans``), even when every gold normalises to "" (a gold "The")."""
    return {q: bool(g) for q, g in gold.items()}


def check_ids(gold: dict, predictions: dict, null_odds: dict | None, allow_missing: bool) -> list[str]:
    """The gold ids without a prediction (gold order), after the checks squad_evaluate makes: with
    ``allow_missing`` False a missing prediction raises ValueError (how many, the first five ids); with
    ``null_odds`` every predicted question needs a number there (ValueError naming the first without)."""
    missing = missing_predictions(gold, predictions)
    if missing and not allow_missing:
        raise ValueError(f"{len(missing)} of {len(gold)} questions have no prediction (first: "
                         + ", ".join(missing[:5]) + ")")
    if null_odds is not None:
        no_odds = [q for q in gold if q in predictions and q not in null_odds]
        if no_odds:
            raise ValueError(f"{len(no_odds)} predicted questions have no null odds (first: "
                             + ", ".join(no_odds[:5]) + ")")
        bad = [q for q, v in null_odds.items() if isinstance(v, bool) or not isinstance(v, (int, float))]
        if bad:
            raise ValueError(f"null odds of {bad[0]!r} is not a number: {null_odds[bad[0]]!r}")
    return missing


def _raw_scores(gold: dict, preds: dict, version: str) -> tuple[dict, dict]:
    """Per-question (exact 0/1, f1 0..1) of the predictions (official get_raw_scores / evaluate)."""
    if version == "v1.1":
        empty = [q for q, g in gold.items() if not g]
        if empty:
            raise ValueError(f"SQuAD v1.1 scoring needs a gold answer for every question; {len(empty)} have none "
                             f"(first: {', '.join(empty[:5])}); score the file as v2.0")
    exact_raw, f1_raw = {}, {}
    for q, golds in gold.items():
        if preds[q] is MISSING_PREDICTION:
            exact_raw[q], f1_raw[q] = 0.0, 0.0
        else:
            exact_raw[q], f1_raw[q] = question_scores(golds, preds[q], version)
    return exact_raw, f1_raw


def squad_evaluate(gold: dict[str, list[str]], predictions: dict[str, str], null_odds: dict | None = None,
                   na_prob_thresh: float = 1.0, *, version: str | None = None,
                   allow_missing: bool = False) -> dict:
    """Official SQuAD evaluation of text predictions.

    Args:
        gold: question id -> raw gold answer texts ([] = no answer, SQuAD 2.0; a non-empty list is
            "has answer" even when its texts normalise to "").
        predictions: question id -> predicted text ("" = no answer). Extra ids are ignored.
        null_odds: id -> null odds (= null_score - best_non_null_score); enables the best-threshold
            search (best_exact, best_exact_thresh, best_f1, best_f1_thresh) and applies
            ``na_prob_thresh`` like evaluate-v2.0.py ``--na-prob-file``. Equal odds are walked in the
            mapping's own order, as the official script walks its file.
        na_prob_thresh: official ``--na-prob-thresh`` (default 1.0).
        version: "v1.1" (evaluate-v1.1.py: exact_match, f1) or "v2.0"; None = "v2.0" when any gold list
            is empty or null_odds is given, else "v1.1".
        allow_missing: score questions without a prediction instead of raising (list them with
            :func:`missing_predictions`). v1.1: 0 and kept in the total, as evaluate-v1.1.py does. v2.0
            (where the official script stops with a KeyError): a wrong answer given with certainty, i.e.
            0 in every total and null odds -inf in the best-threshold walk.

    Returns:
        dict in percent: exact_match, f1, total; v2.0 adds HasAns_exact/f1/total and NoAns_exact/f1/total
        (for the parts present) and with null_odds best_exact, best_exact_thresh, best_f1,
        best_f1_thresh (null-odds units) and best_tau (score_diff units; ``score_diff > best_tau``
        reproduces best_f1 exactly).

    Raises:
        ValueError: empty gold, missing predictions (unless allow_missing), missing null odds.
    """
    if not gold:
        raise ValueError("squad_evaluate: no gold questions")
    missing = set(check_ids(gold, predictions, null_odds, allow_missing))
    if version is None:
        version = "v2.0" if (null_odds is not None or any(len(v) == 0 for v in gold.values())) else "v1.1"
    if version not in ("v1.1", "v2.0"):
        raise ValueError(f"unknown SQuAD version {version!r}; expected v1.1 or v2.0")
    preds = {q: (MISSING_PREDICTION if q in missing else predictions[q]) for q in gold}
    exact_raw, f1_raw = _raw_scores(gold, preds, version)
    total = len(gold)
    if version == "v1.1":
        return {"exact_match": 100.0 * sum(exact_raw.values()) / total,
                "f1": 100.0 * sum(f1_raw.values()) / total, "total": total}
    has_ans = has_answer(gold)
    odds = {q: -math.inf for q in gold if q in missing}
    if null_odds is None:
        odds.update({q: 0.0 for q in gold if q not in missing})
    else:   # the file's own order (ties), extra ids included: the walk skips them
        odds.update({q: v for q, v in null_odds.items() if q not in missing})
    exact_t = apply_no_ans_threshold(exact_raw, odds, has_ans, na_prob_thresh)
    f1_t = apply_no_ans_threshold(f1_raw, odds, has_ans, na_prob_thresh)
    out = {"exact_match": 100.0 * sum(exact_t.values()) / total, "f1": 100.0 * sum(f1_t.values()) / total,
           "total": total}
    for name, ids in (("HasAns", [q for q in gold if has_ans[q]]), ("NoAns", [q for q in gold if not has_ans[q]])):
        if ids:
            out[f"{name}_exact"] = 100.0 * sum(exact_t[q] for q in ids) / len(ids)
            out[f"{name}_f1"] = 100.0 * sum(f1_t[q] for q in ids) / len(ids)
            out[f"{name}_total"] = len(ids)
    if null_odds is not None:
        out["best_exact"], out["best_exact_thresh"] = find_best_thresh(preds, exact_raw, odds, has_ans)
        out["best_f1"], out["best_f1_thresh"], improved = _find_best(preds, f1_raw, odds, has_ans)
        diffs = np.array([-float(odds[q]) for q in gold if q not in missing])
        out["best_tau"] = _tau_between(out["best_f1_thresh"], diffs, improved)
    return out


def _tau_between(best_thresh: float, score_diff: np.ndarray, answered_any: bool = True) -> float:
    """Official threshold (answer iff null_odds <= t) -> tau (answer iff score_diff > tau): the midpoint
    between -t and the next score_diff below it, so both rules answer the same questions."""
    sd = np.sort(score_diff)[::-1]
    if not answered_any or sd.size == 0:
        return float(sd[0] + 1.0) if sd.size else 0.0
    boundary = -best_thresh
    below = sd[sd < boundary]
    return float((boundary + below[0]) / 2) if below.size else float(boundary - 1.0)

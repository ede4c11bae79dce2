"""The two span-decoding rules: this app's (top starts and ends among passage tokens) and run_qa's.

``"passage"`` (the default, :func:`explorer.core.qa.decoding.decode_example`): per window the ``n_best_size``
best start tokens and the ``n_best_size`` best end tokens *among passage tokens*, so question tokens whose
logits are high never push passage candidates out; the n-best is unique by text.

``"run_qa"`` (:func:`decode_example_run_qa`): the rule of Hugging Face's question-answering example,
``postprocess_qa_predictions`` in transformers' ``examples/pytorch/question-answering/utils_qa.py``, written
again here from its description (not copied):

- per window, the ``n_best_size`` best start and end indices over *all* tokens of the window (question and
  special tokens included); a pair is dropped when either token is outside the passage, when the end is
  before the start, or when the span is longer than ``max_answer_length`` tokens;
- the null score is the minimum over windows of the start and end logits at the first position ([CLS]);
- the candidates of all windows and the null are sorted by score and cut to ``n_best_size`` (the null is
  added back when it fell off); texts are the raw ``context[start_char:end_char]`` and repeat freely;
- when no span survives, a stand-in "empty" span with logits 0 is the best non-null one (its
  ``score_diff`` is then ``0 - null_score``), so every question has a null-odds value;
- the answer is the best non-null span unless ``null_score - best > null_score_diff_threshold``, i.e. it
  answers iff ``score_diff >= -threshold``; the app's τ is that threshold with its sign flipped. The two
  rules differ only in the tie ``score_diff == τ`` (run_qa answers, the app abstains), which float logits
  practically never meet; this module keeps the app's ``>`` so the τ sweep and the decision agree.

Where the rules give different answers: a window whose question tokens hold several of the top start or
end logits leaves run_qa fewer than ``n_best_size`` passage candidates, and the best passage span can be
among the ones it never tried. A difference that remains: run_qa pads every window to ``max_seq_length``
by default and the pad positions' logits compete for the top indices too; this app pads each batch only to
its longest window and gives no pad position a logit (windows are cut to their length), so a pad position
never takes a slot here.

Numpy only; no torch, no Qt.
"""

from __future__ import annotations

import math

import numpy as np

from explorer.core.qa.decoding import (ExampleDecoding, SpanCandidate, decode_example, decode_predictions,
                                      passage_mask)

DECODE_RULES = {
    "passage": "top n_best_size starts and ends among the passage's tokens (this app's rule)",
    "run_qa": "top n_best_size starts and ends over all tokens, then out-of-passage pairs dropped "
              "(transformers' run_qa.py postprocess_qa_predictions)",
}
DEFAULT_RULE = "passage"
EMPTY_TEXT = "empty"   # run_qa's stand-in answer when no span survives


class DecodeRuleError(ValueError):
    """A decode rule name that is not one of :data:`DECODE_RULES`."""


def check_rule(rule: str) -> str:
    """``rule`` when it names a decode rule; raises DecodeRuleError naming the choices otherwise."""
    if rule not in DECODE_RULES:
        raise DecodeRuleError(f"decode rule {rule!r} is not one of {', '.join(DECODE_RULES)}")
    return rule


def other_rule(rule: str) -> str:
    """The other of the two decode rules."""
    check_rule(rule)
    return next(r for r in DECODE_RULES if r != rule)


def _top_indices(logits: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` positions of the largest logits, largest first (ties: the later position first, as a
    reversed ascending argsort gives them)."""
    return np.argsort(logits, kind="stable")[::-1][:k]


def _window_pairs(s: np.ndarray, e: np.ndarray, pmask: np.ndarray, n_best_size: int, max_answer_length: int):
    """(scores, i, j) of the valid pairs among the top starts x top ends over every token of one window."""
    si = _top_indices(s, n_best_size)
    ei = _top_indices(e, n_best_size)
    ii = np.repeat(si, ei.size)
    jj = np.tile(ei, si.size)
    valid = pmask[ii] & pmask[jj] & (jj >= ii) & (jj - ii + 1 <= max_answer_length)
    ii, jj = ii[valid], jj[valid]
    return s[ii] + e[jj], ii, jj


def decode_example_run_qa(context: str, start_logits: list, end_logits: list, offsets: list[list],
                          cls_indices: list[int], *, n_best_size: int = 20, max_answer_length: int = 30,
                          example_id: str = "", version_2_with_negative: bool = True) -> ExampleDecoding:
    """One example decoded by run_qa's rule (module docstring; source: transformers'
    ``examples/pytorch/question-answering/utils_qa.py``, ``postprocess_qa_predictions``).

    Args: as :func:`explorer.core.qa.decoding.decode_example` (one (seq_w,) logits array, offset mapping and
    [CLS] position per window; arrays longer than the window are cut to it), plus ``version_2_with_negative``:
    whether the null takes one of the ``n_best_size`` n-best places (SQuAD 2.0), as in run_qa.

    Returns:
        ExampleDecoding whose ``nbest`` holds run_qa's n-best spans without the null and without empty texts,
        best first (texts may repeat), its null score
        and ``score_diff = best_non_null_score - null_score`` (run_qa's null-odds value with the sign
        flipped); ``extra["rule"] = "run_qa"``.

    Raises:
        ValueError: lists of different lengths or no window at all.
    """
    nw = len(offsets)
    if nw == 0 or not (len(start_logits) == len(end_logits) == len(cls_indices) == nw):
        raise ValueError(f"decode_example_run_qa({example_id!r}): {nw} windows of offsets, {len(start_logits)} "
                         f"start, {len(end_logits)} end logits, {len(cls_indices)} cls indices")
    null_score, null_parts = math.inf, (0.0, 0.0, 0)
    found = []   # (score, w, i, j) arrays per window
    logits = []
    for w in range(nw):
        n = len(offsets[w])
        s = np.asarray(start_logits[w], dtype=np.float64)[:n]
        e = np.asarray(end_logits[w], dtype=np.float64)[:n]
        c = int(cls_indices[w])
        if s[c] + e[c] < null_score:     # strictly lower: the first window of equal null scores stays
            null_score, null_parts = float(s[c] + e[c]), (float(s[c]), float(e[c]), w)
        sc, ii, jj = _window_pairs(s, e, passage_mask(offsets[w]), n_best_size, max_answer_length)
        found.append((sc, np.full(sc.shape, w), ii, jj))
        logits.append((s, e))
    scores = np.concatenate([f[0] for f in found])
    ws, iis, jjs = (np.concatenate([f[k] for f in found]) for k in (1, 2, 3))
    order = np.argsort(-scores, kind="stable")          # run_qa's sort is stable too: equal scores keep their order
    keep = n_best_size
    if version_2_with_negative and np.count_nonzero(scores >= null_score) < n_best_size:
        keep = n_best_size - 1                           # the null holds one of the n-best places
    nbest = []
    for r in order[:keep]:
        w, i, j = int(ws[r]), int(iis[r]), int(jjs[r])
        start_char, end_char = offsets[w][i][0], offsets[w][j][1]
        s, e = logits[w]
        nbest.append(SpanCandidate(text=context[start_char:end_char], start_char=int(start_char),
                                   end_char=int(end_char), start_token=i, end_token=j, window_index=w,
                                   start_logit=float(s[i]), end_logit=float(e[j]), score=float(scores[r])))
    spans = [c for c in nbest if c.text]    # run_qa skips empty texts when it looks for the best non-null span
    if not spans:      # run_qa's stand-in: the best non-null answer is "empty" with logits 0
        w = null_parts[2]         # placed at the null's [CLS] so that window lookups stay in range
        spans = [SpanCandidate(text=EMPTY_TEXT, start_char=0, end_char=0, start_token=int(cls_indices[w]),
                               end_token=int(cls_indices[w]), window_index=w, start_logit=0.0, end_logit=0.0,
                               score=0.0)]
    best = spans[0].score
    decoding = ExampleDecoding(example_id=str(example_id), nbest=spans, null_score=null_score,
                               null_start_logit=null_parts[0], null_end_logit=null_parts[1],
                               null_window=null_parts[2], best_non_null_score=best, score_diff=best - null_score,
                               n_windows=nw)
    decoding.extra["rule"] = "run_qa"
    return decoding


def decoder_of(rule: str):
    """The function that decodes one example by ``rule`` (:data:`DECODE_RULES`), with
    :func:`explorer.core.qa.decoding.decode_example`'s arguments. Raises DecodeRuleError for another name."""
    return {"passage": decode_example, "run_qa": decode_example_run_qa}[check_rule(rule)]


def decode_predictions_by(rule: str, examples, features, start_logits, end_logits, *, n_best_size: int = 20,
                          max_answer_length: int = 30) -> dict[str, ExampleDecoding]:
    """:func:`explorer.core.qa.decoding.decode_predictions` with the decode rule ``rule``
    (:data:`DECODE_RULES`). Raises DecodeRuleError for another name, ValueError as decode_predictions."""
    return decode_predictions(examples, features, start_logits, end_logits, n_best_size=n_best_size,
                              max_answer_length=max_answer_length, decode_one=decoder_of(rule))


def rule_differences(decodings: dict[str, ExampleDecoding], others: dict[str, ExampleDecoding],
                     tau: float = 0.0) -> list[dict]:
    """The questions whose answer at ``tau`` differs between two decodings of the same logits (one per
    rule), in id order of ``decodings`` (texts compared without edge white space): id, answer, other_answer (\"\" = no answer), score_diff and
    other_score_diff (logit units). Ids missing from ``others`` are left out."""
    rows = []
    for qid, dec in decodings.items():
        other = others.get(qid)
        if other is None:
            continue
        a, b = dec.answer(tau), other.answer(tau)
        if a.strip() != b.strip():     # run_qa keeps white space at a span's edges; this app trims it
            rows.append({"id": qid, "answer": a, "other_answer": b, "score_diff": float(dec.score_diff),
                         "other_score_diff": float(other.score_diff)})
    return rows

"""A reference rewrite of run_qa's post-processing, loop for loop, to check explorer.core.qa.decode_rules against.

Source: ``postprocess_qa_predictions`` in Hugging Face transformers' examples/pytorch/question-answering/
utils_qa.py (Apache 2.0), rewritten in this project's words with its behaviour kept: for each example, every
window's null score ``start_logits[0] + end_logits[0]`` (the minimum over windows is the example's null);
the ``n_best_size`` largest start and end indices of each window taken from a reversed ascending argsort;
pairs dropped when an index falls outside the offset mapping or on a token with no offsets, when the end
precedes the start or the span exceeds ``max_answer_length`` tokens; all pairs and (SQuAD 2.0) the null
sorted by score (stable, descending), cut to ``n_best_size``, the null put back when it fell off; texts
sliced from the context; an "empty" stand-in with logits 0 when nothing but the null is left; the best
non-empty text answers unless ``null_score - its start and end logits > null_score_diff_threshold``.

Plain Python loops on purpose: a different path to the same numbers than the vectorised decoder. Inputs
are this project's: per example a list of windows, each (start_logits, end_logits, offsets).
"""

from __future__ import annotations

import numpy as np


def run_qa_postprocess(examples, *, version_2_with_negative=True, n_best_size=20, max_answer_length=30,
                       null_score_diff_threshold=0.0):
    """examples: list of dicts {"id", "context", "windows": [(start_logits, end_logits, offsets), ...]}.

    Returns (predictions {id: text}, null_odds {id: null_score - best start - best end} (v2.0 only, else {}),
    nbest {id: list of {"text", "start_logit", "end_logit", "probability"}})."""
    predictions, null_odds, nbest_out = {}, {}, {}
    for example in examples:
        null = None
        candidates = []
        for start_logits, end_logits, offsets in example["windows"]:
            here = start_logits[0] + end_logits[0]
            if null is None or null["score"] > here:
                null = {"offsets": (0, 0), "score": here, "start_logit": start_logits[0], "end_logit": end_logits[0]}
            starts = np.argsort(start_logits)[-1:-n_best_size - 1:-1].tolist()
            ends = np.argsort(end_logits)[-1:-n_best_size - 1:-1].tolist()
            for a in starts:
                for b in ends:
                    if a >= len(offsets) or b >= len(offsets) or offsets[a] is None or offsets[b] is None:
                        continue
                    if b < a or b - a + 1 > max_answer_length:
                        continue
                    candidates.append({"offsets": (offsets[a][0], offsets[b][1]),
                                       "score": start_logits[a] + end_logits[b],
                                       "start_logit": start_logits[a], "end_logit": end_logits[b]})
        if version_2_with_negative:
            candidates.append(null)
            null_score = null["score"]       # read before the scores are popped below
        kept = sorted(candidates, key=lambda c: c["score"], reverse=True)[:n_best_size]
        if version_2_with_negative and not any(c["offsets"] == (0, 0) for c in kept):
            kept.append(null)
        for c in kept:
            lo, hi = c.pop("offsets")
            c["text"] = example["context"][lo:hi]
        if not kept or (len(kept) == 1 and kept[0]["text"] == ""):
            kept.insert(0, {"text": "empty", "start_logit": 0.0, "end_logit": 0.0, "score": 0.0})
        scores = np.array([c.pop("score") for c in kept])
        probs = np.exp(scores - scores.max())
        probs = probs / probs.sum()
        for p, c in zip(probs, kept):
            c["probability"] = float(p)
        if not version_2_with_negative:
            predictions[example["id"]] = kept[0]["text"]
        else:
            i = 0
            while kept[i]["text"] == "":
                i += 1
            best = kept[i]
            diff = null_score - best["start_logit"] - best["end_logit"]
            null_odds[example["id"]] = float(diff)
            predictions[example["id"]] = "" if diff > null_score_diff_threshold else best["text"]
        nbest_out[example["id"]] = kept
    return predictions, null_odds, nbest_out

"""Why did the model abstain? Integrated gradients of the SQuAD 2.0 decision itself.

The BERT paper (Section 4.3) answers iff ``score_diff > τ``, where

    score_diff = max_{i <= j < i + max_answer_length, i, j in the passage} (S.T_i + E.T_j) - (S.C + E.C),

the best non-null span score minus the no-answer score s_null (the span that starts and ends at [CLS]).
This module attributes f = score_diff of one window to its tokens with integrated gradients (Sundararajan et
al. 2017; Captum's IntegratedGradients on the word embeddings' output, the [PAD] baseline of
explorer.core.explain.attribution): a_i > 0 means token i pushed toward answering, a_i < 0 toward "no answer".

f is taken as it is, the maximum over every valid span included, not with the span fixed at the input: so the
completeness axiom reads sum_i a_i = score_diff(input) - score_diff(baseline), both numbers the model's own
decision quantity (the best span at the baseline can be another one; the result names both). The maximum is
continuous and piecewise linear in the logits, so the path integral exists; where the best span changes along
the path the integrand jumps, and more integration steps (``steps``) bring the sum back within 1 %.

One window: its own best span and its own s_null. When the passage fits one window (the usual case), this is
exactly the score_diff that the probe compares with τ; over several windows the decoder takes the best span of
all windows and the lowest s_null of all (explorer.core.qa.decoding), and the window holding the best span is
the one to explain. The maximum here runs over every valid pair, whereas the decoder tries the top
``n_best_size`` starts x ends; both give the same best span unless that span lies outside those candidates.

No Qt; torch is imported by the functions that need it.
"""

from __future__ import annotations

import numpy as np

from explorer.core.explain.attribution import (DEFAULT_STEPS, MAX_STEPS, TOKENS_PER_BATCH, Attribution,
                                               AttributionError, Target, _Encoded, assemble, forward_target,
                                               integrated_gradients, pad_baseline)
from explorer.core.specs.heads import Explained

DECISION_TARGET = "score_diff"
QUADRATURE = "riemann_trapezoid"   # f jumps in slope where the best span changes: no Gauss-Legendre
COMPLETENESS = 0.01    # the attributions add up to score_diff(input) - score_diff(baseline) within 1 %
REFINE_STEPS = 800     # the most integration points the refinement goes to
PUSH_FLOOR = 0.01      # a word listed as a push holds at least this share of the largest |attribution|
PUSHES_SHOWN = 5       # words listed toward answering and toward no answer
PROGRESS_BATCHES = 10  # a try's integration points go through about this many forward batches when progress is
                       # reported: all 50 points of a short window fit one batch, and the bar jumped from 0 to done


def batch_points(steps: int, tokens: int, given: int | None = None, *, progress: bool = True) -> int | None:
    """Integration points per forward batch: ``given`` when set; with ``progress``, about 1/PROGRESS_BATCHES of
    ``steps`` (so the progress reports after each batch measure the work), never more than TOKENS_PER_BATCH
    ``tokens``-long rows; None (attribution's default, as many as fit) without progress."""
    if given:
        return int(given)
    if not progress:
        return None
    return max(1, min(-(-steps // PROGRESS_BATCHES), TOKENS_PER_BATCH // max(tokens, 1)))


def _tries_progress(progress):
    """``progress`` for the refinement's tries one after another: (done, total) counts the batches of the tries
    before and of this one (the next try, twice as many points, is not known until this one ends); None stays."""
    if progress is None:
        return None, lambda: None
    before = [0, 0]   # batches of the finished tries; of the running one so far

    def report(done, total):
        before[1] = total
        progress(before[0] + done, before[0] + total)

    def next_try():
        before[0] += before[1]
        before[1] = 0
    return report, next_try


def valid_spans(passage: list[bool], max_answer_length: int):
    """(seq, seq) bool tensor: True where (i, j) is a span the decision may pick: both tokens in the passage,
    i <= j < i + max_answer_length (paper Section 4.2; run_squad.py's conditions)."""
    import torch

    p = torch.tensor([bool(x) for x in passage])
    n = p.shape[0]
    i = torch.arange(n)[:, None]
    j = torch.arange(n)[None, :]
    return p[:, None] & p[None, :] & (j >= i) & (j < i + max_answer_length)


def score_diff_of(outputs, valid, cls_index: int):
    """score_diff per row of QA outputs (B, 2, seq) (start and end logits): the best valid span score minus
    start[cls] + end[cls]; a (B,) tensor, differentiable (the gradient of the maximum goes to its span)."""
    s, e = outputs[:, 0, :], outputs[:, 1, :]
    table = s[:, :, None] + e[:, None, :]
    best = table.masked_fill(~valid.to(table.device), float("-inf")).flatten(1).amax(dim=1)
    return best - (s[:, cls_index] + e[:, cls_index])


def best_span_of(outputs, valid, cls_index: int) -> dict:
    """The decision's parts for one row of QA outputs (2, seq) as plain floats: best span (start, end), its
    score, s_null and score_diff."""
    s, e = (outputs[k].detach().double().cpu().numpy() for k in (0, 1))
    table = np.where(valid.cpu().numpy(), s[:, None] + e[None, :], -np.inf)
    i, j = np.unravel_index(int(np.argmax(table)), table.shape)
    null = float(s[cls_index] + e[cls_index])
    return {"start": int(i), "end": int(j), "best_non_null_score": float(table[i, j]), "null_score": null,
            "score_diff": float(table[i, j]) - null}


def window_encoding(tokenizer, input_ids: list[int], passage: list[bool], *, token_type_ids: list[int] | None = None,
                    word_ids: list | None = None, tokens: list[str] | None = None) -> _Encoded:
    """One QA window (a probe window's ids, or an encoded question and passage) as attribution's encoded input:
    segments "b" for passage tokens, "special" for the tokenizer's special tokens, "a" for the question."""
    import torch

    specials = set(tokenizer.all_special_ids)
    segments = ["b" if p else ("special" if t in specials else "a") for t, p in zip(input_ids, passage)]
    batch = {"input_ids": torch.tensor([list(input_ids)]), "attention_mask": torch.ones(1, len(input_ids),
                                                                                         dtype=torch.long)}
    if token_type_ids is not None:
        batch["token_type_ids"] = torch.tensor([list(token_type_ids)])
    toks = list(tokens) if tokens is not None else tokenizer.convert_ids_to_tokens(list(input_ids))
    return _Encoded(batch, [toks], [segments], [list(word_ids) if word_ids is not None else [None] * len(toks)],
                    [[1] * len(toks)])


def pushes(attribution: Attribution, n: int = PUSHES_SHOWN) -> dict:
    """The ``n`` tokens (or words) that pushed most toward answering (largest positive attributions) and toward
    "no answer" (most negative), [CLS] and [SEP] left out: {"toward_answer": [[text, value], ...],
    "toward_no_answer": [...]} (largest magnitude first); values under 1 % of the largest |attribution| are left
    out (they pushed neither way to speak of)."""
    a = attribution.attributions
    floor = PUSH_FLOOR * float(np.abs(a).max()) if len(a) else 0.0
    keep = [k for k, s in enumerate(attribution.segments) if s != "special" and abs(a[k]) >= floor]
    up = sorted((k for k in keep if a[k] > 0), key=lambda k: -a[k])[:n]
    down = sorted((k for k in keep if a[k] < 0), key=lambda k: a[k])[:n]
    return {"toward_answer": [[attribution.tokens[k], float(a[k])] for k in up],
            "toward_no_answer": [[attribution.tokens[k], float(a[k])] for k in down]}


def explain_decision(model, tokenizer, input_ids: list[int], passage: list[bool], cls_index: int, *,
                     token_type_ids: list[int] | None = None, word_ids: list | None = None,
                     tokens: list[str] | None = None, max_answer_length: int = 30, steps: int = DEFAULT_STEPS,
                     merge_words: bool = False, internal_batch_size: int | None = None, progress=None,
                     cancelled=None, max_relative_gap: float = COMPLETENESS, max_steps: int = REFINE_STEPS
                     ) -> Attribution:
    """Integrated gradients of one window's score_diff (module docstring) onto its tokens.

    Args:
        model: a ``...ForQuestionAnswering`` model (start and end logits); run in eval mode, its mode restored.
        tokenizer: its tokenizer (special ids, the [PAD] baseline, token texts).
        input_ids: the window's ids ([CLS] question [SEP] passage [SEP], or the family's equivalent).
        passage: per token, True for passage tokens (the spans the decision may pick).
        cls_index: the no-answer position.
        token_type_ids: the window's segment ids, or None for families without them.
        word_ids, tokens: for merging pieces into words and for display (default: no words, the ids' texts).
        max_answer_length: longest span in tokens.
        steps: integration points of the first try (1..MAX_STEPS); doubled while the attributions miss
            score_diff(input) - score_diff(baseline) by more than ``max_relative_gap`` of it, up to
            ``max_steps`` points (the result's ``steps`` is the last try's, ``details["tries"]`` all of them;
            still over: the result's warning says so).
        merge_words: sum the pieces of each word.
        internal_batch_size, progress, cancelled: as explorer.core.explain.attribution.explain; with
            ``progress`` and no ``internal_batch_size`` the points go in about PROGRESS_BATCHES batches per try
            (:func:`batch_points`), and (done, total) counts the batches of all tries so far.

    Returns:
        Attribution with target kind "score_diff", target_value = score_diff(input), baseline_value =
        score_diff(baseline), ``details``: the decision's parts at the input and at the baseline
        (:func:`best_span_of`), the window's length, and :func:`pushes`.

    Raises:
        AttributionError: not a QA model, no passage token, steps out of range, cls_index outside the window.
    """
    import torch

    from explorer.core.models.eval_mode import inference

    head = head_name()
    if not type(model).__name__.endswith("ForQuestionAnswering"):
        raise AttributionError(f"{type(model).__name__} has no start/end logits: the answer-or-abstain decision "
                               "needs a question-answering model")
    steps = int(steps)
    if not 1 <= steps <= MAX_STEPS:
        raise AttributionError(f"integrated gradients needs 1..{MAX_STEPS} steps; got {steps}")
    if len(passage) != len(input_ids) or not any(passage):
        raise AttributionError("the window has no passage token: there is no span to answer with")
    if not 0 <= cls_index < len(input_ids):
        raise AttributionError(f"cls_index {cls_index} is outside the window of {len(input_ids)} tokens")
    enc = window_encoding(tokenizer, input_ids, passage, token_type_ids=token_type_ids, word_ids=word_ids,
                          tokens=tokens)
    device = next(model.parameters()).device
    batch = {k: v.to(device) for k, v in enc.batch.items()}
    ids = batch["input_ids"]
    base_ids = pad_baseline(ids, tokenizer, batch["attention_mask"])
    valid = valid_spans(passage, max_answer_length).to(device)

    def f_of_ids(i):
        return score_diff_of(forward_target(model, head, batch, input_ids=i), valid, cls_index)

    with inference(model, gradients=True):
        with torch.no_grad():
            at_input = best_span_of(forward_target(model, head, batch, input_ids=ids)[0], valid, cls_index)
            # the path's start: the baseline's word embeddings at the input's positions (a forward of base_ids
            # would number RoBERTa's [PAD] positions differently)
            base_embeds = model.get_input_embeddings()(base_ids)
            at_base = best_span_of(forward_target(model, head, batch, inputs_embeds=base_embeds)[0], valid, cls_index)
        wanted = at_input["score_diff"] - at_base["score_diff"]
        tries = []
        report, next_try = _tries_progress(progress)
        while True:      # more points until the attributions add up to score_diff(input) - score_diff(baseline)
            ibs = batch_points(steps, len(input_ids), internal_batch_size, progress=progress is not None)
            per_token = integrated_gradients(model, f_of_ids, ids, base_ids, steps=steps, internal_batch_size=ibs,
                                             progress=report, cancelled=cancelled, rule=QUADRATURE)
            next_try()
            gap = abs(float(per_token.sum()) - wanted)
            tries.append(steps)
            if gap <= max_relative_gap * abs(wanted) or 2 * steps > max_steps:
                break
            steps *= 2
    target = Target(DECISION_TARGET, at_input["start"], at_input["end"],
                    description=f"score_diff = best span score - s_null (best span tokens {at_input['start']}.."
                                f"{at_input['end']}, s_null at token {cls_index})")
    result = assemble(enc, per_token, head=head, method="ig", steps=steps, target=target,
                      f_input=at_input["score_diff"], f_base=at_base["score_diff"], names=["start", "end"],
                      logits=[at_input["best_non_null_score"], at_input["null_score"]], merge_words=merge_words)
    if result.relative_gap > max_relative_gap:
        result.warning = (f"the attributions miss score_diff(input) - score_diff(baseline) by "
                          f"{100 * result.relative_gap:.1f} % after {steps} points (over {100 * max_relative_gap:g} %): "
                          f"the best span changes along the path; allow more points (max_steps)")
    result.details = {"input": at_input, "baseline": at_base, "cls_index": int(cls_index), "tries": tries,
                      "max_answer_length": int(max_answer_length), "window_tokens": len(input_ids), **pushes(result)}
    return result


def explain_question_decision(model, tokenizer, question: str, passage: str, *, max_seq_length: int = 384,
                              max_answer_length: int = 30, steps: int = DEFAULT_STEPS, merge_words: bool = False,
                              internal_batch_size: int | None = None, progress=None, cancelled=None,
                              max_relative_gap: float = COMPLETENESS, max_steps: int = REFINE_STEPS) -> Attribution:
    """:func:`explain_decision` of a question and a passage encoded as ``bert-explorer explain`` encodes a QA
    input (one window; the passage truncated to ``max_seq_length`` tokens). Raises AttributionError as
    explain_decision, or for an empty question or passage."""
    from explorer.core.explain.attribution import encode

    enc = encode(tokenizer, head_name(), question, passage, max_seq_length=max_seq_length)
    ids = enc.batch["input_ids"][0].tolist()
    types = enc.batch["token_type_ids"][0].tolist() if "token_type_ids" in enc.batch else None
    cls_id = tokenizer.cls_token_id if tokenizer.cls_token_id is not None else tokenizer.bos_token_id
    cls_index = ids.index(cls_id) if cls_id in ids else 0
    return explain_decision(model, tokenizer, ids, [s == "b" for s in enc.segments[0]], cls_index,
                            token_type_ids=types, word_ids=enc.word_ids[0], tokens=enc.tokens[0],
                            max_answer_length=max_answer_length, steps=steps, merge_words=merge_words,
                            internal_batch_size=internal_batch_size, progress=progress, cancelled=cancelled,
                            max_relative_gap=max_relative_gap, max_steps=max_steps)


def head_name() -> str:
    """What a QA head explains (Attribution.head)."""
    return Explained.SPAN.value


def explain_any(model, tokenizer, text: str, text_pair: str = "", *, target: str | None = None,
                max_answer_length: int = 30, **kwargs) -> Attribution:
    """explorer.core.explain.attribution.explain, with one more QA target: ``target="score_diff"`` explains
    the answer-or-abstain decision (:func:`explain_question_decision`; ``steps``, ``merge_words``,
    ``max_seq_length``, ``internal_batch_size``, ``progress`` and ``cancelled`` pass through; ``method`` must
    be "ig"). Every other target goes to explain() unchanged. Raises AttributionError as they do, and for
    score_diff on a head that is not QA or with gradient x input."""
    from explorer.core.explain.attribution import _explained, explain, explained_head

    if (target or "").strip() != DECISION_TARGET:
        return explain(model, tokenizer, text, text_pair, target=target, **kwargs)
    if _explained(explained_head(model)) is not Explained.SPAN:
        raise AttributionError(f"target {DECISION_TARGET!r} is the answer-or-abstain decision of a "
                               "question-answering model; this model's head has no such decision")
    if kwargs.pop("method", "ig") != "ig":
        raise AttributionError(f"target {DECISION_TARGET!r} is explained with integrated gradients only (--method ig)")
    for unused in ("endings", "token", "end"):
        kwargs.pop(unused, None)
    return explain_question_decision(model, tokenizer, text, text_pair, max_answer_length=max_answer_length,
                                     **kwargs)


def explain_probe_window(model, tokenizer, window, *, max_answer_length: int = 30, steps: int = DEFAULT_STEPS,
                         merge_words: bool = True, progress=None, cancelled=None) -> Attribution:
    """:func:`explain_decision` of a probe window (explorer.core.qa.probe.ProbeWindow: its ids, blocks, word
    ids, tokens and [CLS] position), what the Spans & τ page explains next to the τ inequality. Token types
    follow the blocks (0 up to the first [SEP], 1 after) for tokenizers that take them."""
    types = None
    if "token_type_ids" in getattr(tokenizer, "model_input_names", ()):
        seen, types = False, []
        for b in window.blocks:
            seen = seen or b == "passage"
            types.append(1 if seen else 0)
    return explain_decision(model, tokenizer, list(window.input_ids), [b == "passage" for b in window.blocks],
                            int(window.cls_index), token_type_ids=types, word_ids=list(window.word_ids),
                            tokens=list(window.tokens), max_answer_length=max_answer_length, steps=steps,
                            merge_words=merge_words, progress=progress, cancelled=cancelled)

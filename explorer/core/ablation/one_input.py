"""One input run with chosen heads (or whole layers) switched off, beside the unmasked result.

QA: the probe (explorer.core.qa.probe) with the heads gated: span table, null score, score_diff and the tau
decision. Classification: the class probabilities (softmax, the sigmoids of a multi-label head, or the
regression score). Tagging: each word's tag. The unmasked result of a page that already has it is passed as
``base``, so switching heads off costs one forward of the input, as a probe does.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from explorer.core.attention.gates import head_gates
from explorer.core.attention.head_labels import head_label


@dataclass(frozen=True, kw_only=True)
class Outcome:
    """What one kind of result shows: ``name`` (the JSON ``kind``), ``summary(result) -> dict`` and
    ``change(base summary, masked summary) -> dict``."""

    name: str
    summary: Callable[[object], dict]
    change: Callable[[dict, dict], dict]


@dataclass(frozen=True, kw_only=True)
class Masked:
    """The unmasked and the masked result of one input.

    Attributes:
        outcome: what the results are (SPAN_DECISION, PROBABILITIES or TAGS).
        base, masked: the two results (ProbeResult, ClassOutputs or TaggedText).
        masked_heads: the (layer, head) pairs whose gate was 0.
        seconds: wall time of the masked run.
    """

    outcome: Outcome
    base: object
    masked: object
    masked_heads: list[tuple[int, int]]
    seconds: float

    def to_dict(self) -> dict:
        """JSON-ready: kind, masked_heads (0-based index pairs), masked_head_labels (the same heads counted from 1,
        "5.3"), base and masked summaries, and what changed."""
        b, m = self.outcome.summary(self.base), self.outcome.summary(self.masked)
        return {"kind": self.outcome.name, "masked_heads": [list(p) for p in self.masked_heads],
                "masked_head_labels": [head_label(a, h) for a, h in self.masked_heads], "base": b,
                "masked": m, "change": self.outcome.change(b, m), "seconds": self.seconds}


def masked_pairs(gates) -> list[tuple[int, int]]:
    """The (layer, head) pairs whose gate is 0 in a (layers, heads) gate array, layer-major."""
    g = np.asarray(gates.detach().cpu() if hasattr(gates, "detach") else gates)
    return [(int(layer), int(head)) for layer, head in zip(*np.nonzero(g == 0))]


def mask_qa(loaded_or_model, question: str, passage: str, gates, *, base=None, tau: float = 0.0, tokenizer=None,
            **settings) -> Masked:
    """The probe of ``question`` / ``passage`` with heads gated by ``gates`` ((layers, heads), 0 = off), beside
    ``base`` (the unmasked ProbeResult of the same input and settings; probed here when None). ``settings``:
    probe()'s window and decoding keywords. Raises what probe() raises, and HeadGateError."""
    from explorer.core.models.loading import model_of
    from explorer.core.qa.probe import probe

    model = model_of(loaded_or_model)
    if base is None:
        base = probe(loaded_or_model, question, passage, tau, tokenizer=tokenizer, **settings)
    t0 = time.perf_counter()
    with head_gates(model, gates):
        masked = probe(loaded_or_model, question, passage, tau, tokenizer=tokenizer, **settings)
    return Masked(outcome=SPAN_DECISION, base=base, masked=masked, masked_heads=masked_pairs(gates),
                  seconds=time.perf_counter() - t0)


@dataclass(frozen=True, kw_only=True)
class ClassOutputs:
    """A sequence classifier's outputs on one text or pair: ``names`` (K output names), ``logits`` (K,),
    ``values`` (K,) the softmax probabilities, the per-label sigmoids (multi-label) or the score (regression),
    ``scores`` how values follow from the logits (explorer.core.specs.heads.Scores value), ``predicted`` the
    predicted output indices."""

    names: list[str]
    logits: np.ndarray
    values: np.ndarray
    scores: str
    predicted: list[int]


def class_outputs(model, tokenizer, text_a: str, text_b: str = "", *, max_seq_length: int = 128) -> ClassOutputs:
    """One forward of a sequence classifier of any encoder family on ``text_a`` (and ``text_b``)."""
    from explorer.core.classify.forward import label_thresholds
    from explorer.core.models.eval_mode import inference
    from explorer.core.specs.heads import Scores, output_names, recognise

    args = (text_a, text_b) if text_b.strip() else (text_a,)
    enc = tokenizer(*args, truncation=True, max_length=max_seq_length, return_tensors="pt")
    device = next(model.parameters()).device
    with inference(model):
        logits = model(**{k: v.to(device) for k, v in enc.items()}).logits[0].float().cpu().numpy()
    logits = logits.astype(np.float64)
    head = recognise(model)
    names = output_names(model.config, len(logits))
    if head.scores is Scores.SIGMOID:
        values = 1.0 / (1.0 + np.exp(-logits))
        predicted = [int(k) for k in np.nonzero(values >= label_thresholds(model.config, names))[0]]
    elif head.scores is Scores.SCORE:
        values, predicted = logits.copy(), [0]
    else:
        z = np.exp(logits - logits.max())
        values, predicted = z / z.sum(), [int(np.argmax(logits))]
    return ClassOutputs(names=names, logits=logits, values=values, scores=head.scores.value, predicted=predicted)


def mask_classify(model, tokenizer, text_a: str, gates, text_b: str = "", *, base: ClassOutputs | None = None,
                  max_seq_length: int = 128) -> Masked:
    """A sequence classifier's outputs on ``text_a`` (and ``text_b``) with heads gated by ``gates``, beside
    ``base`` (computed here when None)."""
    if base is None:
        base = class_outputs(model, tokenizer, text_a, text_b, max_seq_length=max_seq_length)
    t0 = time.perf_counter()
    with head_gates(model, gates):
        masked = class_outputs(model, tokenizer, text_a, text_b, max_seq_length=max_seq_length)
    return Masked(outcome=PROBABILITIES, base=base, masked=masked, masked_heads=masked_pairs(gates),
                  seconds=time.perf_counter() - t0)


def mask_tags(model, tokenizer, text: str, gates, *, base=None, max_seq_length: int = 128) -> Masked:
    """The tags of ``text`` (explorer.core.tagging.forward.tag_texts) with heads gated by ``gates``, beside
    ``base`` (a TaggedText of the same text; tagged here when None)."""
    from explorer.core.tagging.forward import tag_texts

    if base is None:
        base = tag_texts(model, tokenizer, [text], max_seq_length=max_seq_length)[0]
    t0 = time.perf_counter()
    with head_gates(model, gates):
        masked = tag_texts(model, tokenizer, [text], max_seq_length=max_seq_length)[0]
    return Masked(outcome=TAGS, base=base, masked=masked, masked_heads=masked_pairs(gates),
                  seconds=time.perf_counter() - t0)


def _num(x) -> float | None:
    return None if x is None or not math.isfinite(float(x)) else float(x)


def _qa_summary(r) -> dict:
    d = r.decision()
    return {"answer": d.answer_text, "answered": d.answer, "inequality": d.inequality, "tau": d.tau,
            "score_diff": _num(r.score_diff), "null_score": _num(r.null_score),
            "best_non_null_score": _num(r.best_non_null_score),
            "nbest": [{"text": c.text, "start_token": c.start_token, "end_token": c.end_token,
                       "window_index": c.window_index, "score": float(c.score)} for c in r.nbest[:5]]}


def _class_summary(r: ClassOutputs) -> dict:
    from explorer.core.specs.heads import Scores

    return {"names": list(r.names), "logits": r.logits.tolist(), "values": r.values.tolist(), "scores": r.scores,
            "value_name": "score" if r.scores == Scores.SCORE.value else "P",
            "predicted": [r.names[k] for k in r.predicted]}


def _tag_summary(r) -> dict:
    return {"words": list(r.words), "tags": list(r.tags)}


def _qa_change(b: dict, m: dict) -> dict:
    diff = None if b["score_diff"] is None or m["score_diff"] is None else m["score_diff"] - b["score_diff"]
    return {"score_diff": diff, "decision_flipped": b["answered"] != m["answered"],
            "answer_changed": b["answer"] != m["answer"]}


def _class_change(b: dict, m: dict) -> dict:
    return {"values": (np.asarray(m["values"]) - np.asarray(b["values"])).tolist(),
            "prediction_changed": b["predicted"] != m["predicted"]}


def _tag_change(b: dict, m: dict) -> dict:
    return {"words_changed": [i for i, (x, y) in enumerate(zip(b["tags"], m["tags"])) if x != y]}


SPAN_DECISION = Outcome(name="span_decision", summary=_qa_summary, change=_qa_change)
PROBABILITIES = Outcome(name="probabilities", summary=_class_summary, change=_class_change)
TAGS = Outcome(name="tags", summary=_tag_summary, change=_tag_change)


def mask_input(loaded, gates, *, text: str, text_pair: str = "", tau: float = 0.0, base=None,
               max_seq_length: int = 128, **qa_settings) -> Masked:
    """Heads gated on one input of a fine-tuned ``loaded`` model, by what its head reads (explorer.core.specs.heads):
    a question (``text``) and passage (``text_pair``) for QA (:func:`mask_qa`, ``qa_settings``: probe()'s window
    and decoding keywords), a sentence for tagging (:func:`mask_tags`), a text or pair for a sequence classifier
    (:func:`mask_classify`). ``base``: the unmasked result of the same input, when the caller has it.

    Raises:
        UserError: an empty input, a QA model without a passage, or a multiple-choice model.
    """
    from explorer.core.errors import UserError
    from explorer.core.specs.heads import Inputs, recognise

    model, tok = loaded.model, loaded.tokenizer
    if not text.strip():
        raise UserError("the input is empty: give the sentence, or the question and the passage")
    head = recognise(model)
    inputs = head.inputs if head is not None else Inputs.TEXT
    if inputs is Inputs.QUESTION_PASSAGE:
        if not text_pair.strip():
            raise UserError("a QA model reads a question and a passage: the passage is empty")
        return mask_qa(loaded, text, text_pair, gates, base=base, tau=tau, max_seq_length=max_seq_length,
                       **qa_settings)
    if inputs is Inputs.WORDS:
        return mask_tags(model, tok, text, gates, base=base, max_seq_length=max_seq_length)
    if inputs is Inputs.CHOICES:
        raise UserError("heads are switched off on one input of a QA, classification or tagging model; for a "
                        "multiple-choice model score a dev set (heads importance)")
    return mask_classify(model, tok, text, gates, text_pair, base=base, max_seq_length=max_seq_length)

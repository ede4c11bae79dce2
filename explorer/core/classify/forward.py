"""Run a classifier once and collect its arithmetic (explorer.core.classify.arithmetic.ClassifyResult).

``classify_text``: a GLUE single-sentence or sentence-pair model (``...ForSequenceClassification``);
``classify_choices``: a SWAG model (``...ForMultipleChoice``) on a context and four endings. Both need a
BERT-style head: the encoder's pooler (dense + tanh on the [CLS] state) then one linear classifier, as in
``BertForSequenceClassification`` / ``BertForMultipleChoice`` (BERT paper Sections 4.1 and 4.4).
"""

from __future__ import annotations

import numpy as np

from explorer.core.attention.flow import block_flow, stack_attentions, token_blocks
from explorer.core.classify.arithmetic import ClassifyError, ClassifyInput, ClassifyResult, sigmoid_loss, softmax_loss
from explorer.core.data.swag import NUM_CHOICES
from explorer.core.models.eval_mode import inference
from explorer.core.specs.heads import Scores, output_names, recognise


def _parts(model, want: str):
    """(pooler dense, classifier linear) of a BERT-style head; ClassifyError naming the model otherwise."""
    name = type(model).__name__
    if not name.endswith(want):
        raise ClassifyError(f"{name} is not a {want} model; load the checkpoint with the "
                            f"{'multiple_choice' if want == 'ForMultipleChoice' else 'classification'} head")
    pooler = getattr(getattr(model, "base_model", None), "pooler", None)
    classifier = getattr(model, "classifier", None)
    if pooler is None or not hasattr(pooler, "dense") or not hasattr(classifier, "weight"):
        raise ClassifyError(f"{name}: only BERT-style heads (a pooler on [CLS], then one linear classifier) "
                            "can be shown step by step")
    return pooler.dense, classifier


def _np(t) -> np.ndarray:
    return t.detach().float().cpu().numpy()


def _forward(model, enc: dict, attentions: bool):
    """Model outputs with hidden states (and attentions, eager) for the encoded batch."""

    from explorer.core.models.loading import eager_attention

    device = next(model.parameters()).device
    batch = {k: v.to(device) for k, v in enc.items()}
    with inference(model):
        if attentions:
            with eager_attention(model):
                return model(**batch, output_hidden_states=True, output_attentions=True)
        return model(**batch, output_hidden_states=True)


def _arithmetic(kind, model, want, inputs_text, tokens, out, label, label_names, flow,
                thresholds=None) -> ClassifyResult:
    """Assemble the result: C, logits, softmax (or the regression score, or the sigmoids), loss and the
    float64 by-hand check."""
    dense, classifier = _parts(model, want)
    last = out.hidden_states[-1]                       # (inputs, tokens, H): MC models flatten the choices
    h = _np(last)[:, 0, :]
    Wp, bp = _np(dense.weight).astype(np.float64), _np(dense.bias).astype(np.float64)
    W, b = _np(classifier.weight), _np(classifier.bias)
    C_hand = np.tanh(h.astype(np.float64) @ Wp.T + bp)
    by_hand = (C_hand @ W.astype(np.float64).T + b.astype(np.float64)).reshape(-1)
    logits = _np(out.logits).astype(np.float64).reshape(-1)
    head = recognise(model)     # the model's class and its config's problem_type / num_labels
    predicted, tau = None, None
    if head.scores is Scores.SCORE:
        probs = np.zeros(0)
        loss = None if label is None else float((logits[0] - float(label)) ** 2)
    elif head.scores is Scores.SIGMOID:
        tau = label_thresholds(model.config, label_names)
        probs, predicted, loss = sigmoid_loss(logits, tau, label)
    else:
        probs, loss = softmax_loss(logits, label)
    with inference(model):
        C_model = _np(model.base_model.pooler(last))   # (inputs, H): what the classifier is fed
    inputs = [ClassifyInput(a, bt, tok, C_model[i], h[i].astype(np.float32))
              for i, ((a, bt), tok) in enumerate(zip(inputs_text, tokens))]
    return ClassifyResult(kind, inputs, W, b, logits, probs, int(np.argmax(logits)), label, loss, by_hand,
                          float(np.max(np.abs(by_hand - logits))), label_names, flow, problem_type=head.problem_type,
                          thresholds=tau, predicted=predicted if predicted is not None else [int(np.argmax(logits))])


def label_thresholds(config, label_names: list[str]) -> np.ndarray:
    """(K,) multi-label decision thresholds from a model config's ``label_thresholds`` ({label: tau}, written
    by training from dev), 0.5 for a label it does not list (or when there are none)."""
    saved = getattr(config, "label_thresholds", None) or {}
    return np.array([float(saved.get(name, 0.5)) for name in label_names], dtype=np.float64)


def classify_text(model, tokenizer, text_a: str, text_b: str = "", *, label=None,
                  max_seq_length: int = 128, attentions: bool = True) -> ClassifyResult:
    """Classify one sentence (``text_b`` empty: kind "single") or one sentence pair (kind "pair").

    Returns a ClassifyResult with K logits; for pairs, ``flow`` is the attention block flow
    (layers, heads, 3, 3) between sentence A, sentence B and [CLS]/[SEP] (explorer.core.attention.flow).
    The head (explorer.core.specs.heads.recognise: the config's ``problem_type``) decides what follows the logits:
    softmax (``label``: a class id), a regression score (``label``: a float gold score) or per-label sigmoids
    with the checkpoint's thresholds (``label``: a list of gold label ids).

    Raises:
        ClassifyError: empty text, a label outside 0..K-1, or a model that is not a BERT-style
            sequence classifier.
    """
    if not text_a.strip():
        raise ClassifyError("sentence A is empty; type a sentence to classify")
    _parts(model, "ForSequenceClassification")
    pair = bool(text_b.strip())
    enc = tokenizer(text_a, text_b, truncation=True, max_length=max_seq_length, return_tensors="pt") if pair \
        else tokenizer(text_a, truncation=True, max_length=max_seq_length, return_tensors="pt")
    out = _forward(model, enc, attentions and pair)
    tokens = [tokenizer.convert_ids_to_tokens(enc["input_ids"][0].tolist())]
    flow = None
    if pair and getattr(out, "attentions", None):
        blocks = token_blocks(enc.sequence_ids(0), enc["input_ids"][0].tolist(), tokenizer)
        flow = block_flow(stack_attentions(out.attentions), blocks)
    names = output_names(model.config, int(out.logits.shape[-1]))
    return _arithmetic("pair" if pair else "single", model, "ForSequenceClassification", [(text_a, text_b)],
                       tokens, out, label, names, flow)


def classify_choices(model, tokenizer, context: str, endings: list[str], *, start: str = "",
                     label: int | None = None, max_seq_length: int = 128) -> ClassifyResult:
    """Score the four endings of a SWAG-style item: the model reads (context, start + ending k) for each k.

    Returns a ClassifyResult of kind "swag": four inputs (one C_k each), W = w (1, H), ``logits`` the four
    scores C_k . w + b and ``probabilities`` their softmax across the choices.

    Raises:
        ClassifyError: empty context or ending, not exactly four endings, a label outside 0..3, or a model
            that is not a BERT-style multiple-choice model.
    """
    endings = [str(e) for e in endings]
    if len(endings) != NUM_CHOICES or not all(e.strip() for e in endings) or not context.strip():
        raise ClassifyError(f"multiple choice needs a context and {NUM_CHOICES} non-empty endings "
                            f"(got {sum(bool(e.strip()) for e in endings)} endings)")
    _parts(model, "ForMultipleChoice")
    seconds = [f"{start} {e}".strip() for e in endings]
    enc = tokenizer([context] * NUM_CHOICES, seconds, truncation=True, max_length=max_seq_length,
                    padding=True, return_tensors="pt")
    batch = {k: v.unsqueeze(0) for k, v in enc.items()}  # (1 example, 4 choices, tokens)
    out = _forward(model, batch, False)
    mask = enc["attention_mask"]
    tokens = [tokenizer.convert_ids_to_tokens(enc["input_ids"][i][mask[i] == 1].tolist()) for i in range(NUM_CHOICES)]
    names = [f"ending {k}" for k in range(NUM_CHOICES)]
    return _arithmetic("swag", model, "ForMultipleChoice", [(context, s) for s in seconds], tokens, out, label,
                       names, None)

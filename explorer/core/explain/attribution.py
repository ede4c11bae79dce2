"""Token attributions for every model head: gradient x input and integrated gradients (Captum).

What is explained (the *target*, one scalar f of the word embeddings x of the input):

* sequence classification (single sentences and pairs; multi-label too): the logit z_k of a chosen class k,
  or the margin z_k - z_r to the runner-up r (k and r fixed at the input, so f is one linear combination of
  logits and integrated gradients stay exact along the path);
* regression (one output, STS-B style): the score;
* multiple choice (SWAG): ending k's score against the others, z_k - mean_{j != k} z_j, or the margin to the
  runner-up ending;
* token tagging: the tag logit z_{t,k} of token t (the predicted tag by default), or its margin;
* extractive QA: start_logits[s], end_logits[e], or the span score start_logits[s] + end_logits[e] (as the
  Spans & tau saliency).

Methods, both on the word embeddings (the output of ``model.get_input_embeddings()``, before positions, token
types and LayerNorm are added):

* ``"gxi"`` gradient x input: a_i = sum_d x_{i,d} * df/dx_{i,d} (Shrikumar et al. 2016; Ancona et al. 2018):
  the first-order change of f when token i's embedding is scaled by (1 + eps), over eps;
* ``"ig"`` integrated gradients (Sundararajan et al. 2017, "Axiomatic Attribution for Deep Networks"):
  a_i = sum_d (x_{i,d} - x'_{i,d}) * integral_0^1 df/dx_{i,d}(x' + a (x - x')) da, computed with Captum's
  ``IntegratedGradients`` on the word embeddings put in place of the embedding layer's output (Gauss-Legendre,
  ``steps`` points, batched over the steps). The input and the baseline are looked up in the embedding table,
  not run through the model (Captum's ``LayerIntegratedGradients`` runs two extra forwards for that); f(x)
  comes from the forward that picks the target, f(x') from one forward of the baseline's word embeddings at
  the input's positions, so the cost is those two forwards plus the steps' forward and backward passes.
  The baseline
  x' is the same text with every token replaced by [PAD] except [CLS], [SEP] (and padding), so positions,
  token types and the attention mask stay those of the input.

Completeness (IG's axiom): sum_i a_i = f(x) - f(x'). The result carries f(x) (``target_value``), f(x')
(``baseline_value``), the gap sum_i a_i - (f(x) - f(x')) and the relative gap |gap| / |f(x) - f(x')|; above
5 % it warns and suggests more steps. Gradient x input has no such property; its gap is reported as it is.

Word pieces merge into words on request (the pieces of one word summed: attributions add up, so the total
and the completeness gap are unchanged; explorer.core.attention.wordmerge groups the pieces). No Qt here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from explorer.core.errors import UserError
from explorer.core.specs.heads import Explained, heads, recognise

METHODS = {"gxi": "gradient x input", "ig": "integrated gradients"}
DEFAULT_STEPS = 50
MAX_STEPS = 2000
WARN_RELATIVE_GAP = 0.05        # completeness warning threshold (5 % of f(x) - f(x'))
TOKENS_PER_BATCH = 8192         # integrated gradients: at most this many tokens per internal forward batch


class AttributionError(UserError):
    """The target or input cannot be explained: an unknown class name, a token index out of range, an empty
    text, a head this module does not know, a bad number of steps."""


def _explained(head: str) -> Explained:
    """What a head's name (``Attribution.head``: an :class:`~explorer.core.specs.heads.Explained` value) explains.
    Raises AttributionError for another name."""
    try:
        return Explained(head)
    except ValueError:
        raise AttributionError(f"no head {head!r} to explain; one of {', '.join(e.value for e in Explained)}") \
            from None


@dataclass
class Target:
    """What is explained, resolved against the model's outputs at the input.

    Attributes:
        kind: "logit" (class / tag / ending logit), "margin" (index minus ``other``), "ending" (SWAG: ending
            ``index`` minus the mean of the others), "score" (regression), "start" / "end" / "span" (QA).
        index: the class, tag or ending (QA: the start token); -1 when unused.
        other: the runner-up of a margin (QA: the end token); -1 when unused.
        token: the tagged token's position (token tagging); -1 when unused.
        description: the target in words, e.g. "margin: logit[POSITIVE] - logit[NEGATIVE]".
    """

    kind: str
    index: int = -1
    other: int = -1
    token: int = -1
    description: str = ""


@dataclass
class Attribution:
    """Attributions of one input (plain numpy; what the Explain page and ``bert-explorer explain`` show).

    Attributes (n = tokens, or words when merged; SWAG: the tokens of the four (context, ending) inputs in
    order, padding left out):
        tokens: token (or word) texts, length n.
        attributions: (n,) float64, in the target's units (logits); their sum approximates
            target_value - baseline_value.
        segments: per token "a" (text A: the sentence, the question, the SWAG context), "b" (text B: the
            second sentence, the passage, the SWAG ending) or "special" ([CLS], [SEP]).
        choices: per token the SWAG ending (input row) it belongs to; all 0 for other heads.
        head: "classification", "regression", "multiple_choice", "token_classification" or "qa".
        method: "gxi" or "ig"; steps: integration points (0 for gxi).
        target: the resolved :class:`Target`; target_value: f(input); baseline_value: f(baseline), the [PAD]
            baseline of the module docstring.
        completeness_gap: sum(attributions) - (target_value - baseline_value).
        relative_gap: |completeness_gap| / |target_value - baseline_value| (inf when that difference is 0 and
            the gap is not).
        warning: "" or what to do (integrated gradients with a relative gap over 5 %: more steps).
        class_names: the head's class / tag / ending names (id2label), for pickers.
        merged: True when word pieces were merged into words.
        logits: the model's outputs at the input that the target picks from ((K,) classes, (C,) endings,
            (T,) tags of the token, or (2,) = start logit at s, end logit at e for QA).
        details: target-specific facts as plain JSON values (the QA decision: the best span and s_null at the
            input and at the baseline, the words that pushed toward answering and toward no answer; see
            explorer.core.explain.decision); {} for the other targets.
    """

    tokens: list[str]
    attributions: np.ndarray
    segments: list[str]
    choices: list[int]
    head: str
    method: str
    steps: int
    target: Target
    target_value: float
    baseline_value: float
    completeness_gap: float
    relative_gap: float
    warning: str = ""
    class_names: list[str] = field(default_factory=list)
    merged: bool = False
    logits: np.ndarray = field(default_factory=lambda: np.zeros(0))
    details: dict = field(default_factory=dict)

    @property
    def total(self) -> float:
        """sum of the attributions."""
        return float(np.sum(self.attributions))

    def completeness_line(self) -> str:
        """One line: sum of attributions against f(input) - f(baseline), the gap, and the warning if any."""
        diff = self.target_value - self.baseline_value
        rel = "inf" if not np.isfinite(self.relative_gap) else f"{100 * self.relative_gap:.2f} %"
        line = (f"sum of attributions {self.total:+.6g} vs f(input) - f(baseline) = {self.target_value:+.6g} - "
                f"({self.baseline_value:+.6g}) = {diff:+.6g}; gap {self.completeness_gap:+.2e} ({rel})")
        return f"{line}. {self.warning}" if self.warning else line

    def ranked(self, n: int | None = None) -> list[tuple[int, str, float]]:
        """(position, token, attribution) by decreasing |attribution| (stable), the first ``n`` (all: None)."""
        order = np.argsort(-np.abs(self.attributions), kind="stable")[:n]
        return [(int(i), self.tokens[i], float(self.attributions[i])) for i in order]

    def to_dict(self) -> dict:
        """The JSON of ``bert-explorer explain`` (plain floats and lists)."""
        return {"tokens": list(self.tokens), "attributions": [float(a) for a in self.attributions],
                "segments": list(self.segments), "choices": [int(c) for c in self.choices],
                "head": self.head, "method": self.method, "steps": int(self.steps),
                "target": self.target.description,
                "target_spec": {"kind": self.target.kind, "index": self.target.index, "other": self.target.other,
                                "token": self.target.token},
                "target_value": float(self.target_value), "baseline_value": float(self.baseline_value),
                "completeness_gap": float(self.completeness_gap),
                "relative_gap": float(self.relative_gap) if np.isfinite(self.relative_gap) else None,
                "warning": self.warning, "merged_words": bool(self.merged),
                "class_names": list(self.class_names), "logits": [float(z) for z in self.logits],
                "details": dict(self.details)}


# -- the model's head ------------------------------------------------------------------------------------------
def explained_head(model) -> str:
    """What ``model``'s head explains, as its result names it (``Attribution.head``): the ``explained`` value of
    its head (explorer.core.specs.heads.recognise: its class name and config).

    Raises:
        AttributionError: a model with no task head (a bare encoder, a language model)."""
    head = recognise(model)
    if head is None:
        raise AttributionError(f"{type(model).__name__} has no head to explain (classification, regression, "
                               "multiple choice, token tagging or question answering)")
    return head.explained.value


def class_names_of(model, head: str, n: int) -> list[str]:
    """The names of the n outputs the target picks from: id2label for classes and tags, "ending k" for SWAG,
    ["score"] for regression, ["start", "end"] for QA."""
    kind = _explained(head)
    if kind is Explained.ENDING:
        return [f"ending {k}" for k in range(n)]
    if kind is Explained.SCORE:
        return ["score"]
    if kind is Explained.SPAN:
        return ["start", "end"]
    id2label = getattr(model.config, "id2label", None) or {}
    return [str(id2label.get(i, id2label.get(str(i), f"label {i}"))) for i in range(n)]


# -- encoding --------------------------------------------------------------------------------------------------
@dataclass
class _Encoded:
    """Tensors for the model ((1, seq) or SWAG (1, C, seq)) and the per-row token facts."""

    batch: dict
    tokens: list[list[str]]
    segments: list[list[str]]
    word_ids: list[list]
    mask: list[list[int]]


def _segment(seq_id) -> str:
    return "special" if seq_id is None else ("a" if seq_id == 0 else "b")


def encode(tokenizer, head: str, text: str, text_pair: str = "", endings: list[str] | None = None, *,
           max_seq_length: int = 128, word_rule: str | None = None) -> _Encoded:
    """Tokenize the input of ``head``: one text (or a pair), or SWAG's context with each ending; a tagger's text
    as the words its training words were formed by (``word_rule``, explorer.core.data.words), so merged
    word rows are the words the Tag page and ``predict`` tag.

    Raises:
        AttributionError: an empty text, SWAG without endings, or a QA input without a passage."""
    if not str(text).strip():
        raise AttributionError("the text is empty; type a text to explain")
    kind = _explained(head)
    if kind is Explained.ENDING:
        endings = [str(e) for e in (endings or [])]
        if len(endings) < 2 or not all(e.strip() for e in endings):
            raise AttributionError(f"multiple choice needs at least two non-empty endings (got "
                                   f"{sum(bool(e.strip()) for e in endings)})")
        seconds = [f"{text_pair} {e}".strip() for e in endings]   # text_pair: SWAG's start of the ending (sent2)
        enc = tokenizer([text] * len(endings), seconds, truncation=True, max_length=max_seq_length, padding=True,
                        return_tensors="pt")
        rows = range(len(endings))
        batch = {k: v.unsqueeze(0) for k, v in enc.items() if k in ("input_ids", "token_type_ids", "attention_mask")}
    elif kind is Explained.TAG:
        from explorer.core.data.words import split_words

        words = split_words(str(text), word_rule)[0]
        enc = tokenizer(words, is_split_into_words=True, truncation=True, max_length=max_seq_length,
                        return_tensors="pt")
        rows = range(1)
        batch = {k: v for k, v in enc.items() if k in ("input_ids", "token_type_ids", "attention_mask")}
    else:
        if kind is Explained.SPAN and not str(text_pair).strip():
            raise AttributionError("question answering needs a question (text A) and a passage (text B)")
        pair = str(text_pair).strip() or None
        trunc = "only_second" if kind is Explained.SPAN else True
        enc = tokenizer(text, pair, truncation=trunc, max_length=max_seq_length, return_tensors="pt")
        rows = range(1)
        batch = {k: v for k, v in enc.items() if k in ("input_ids", "token_type_ids", "attention_mask")}
    tokens = [tokenizer.convert_ids_to_tokens(enc["input_ids"][r].tolist()) for r in rows]
    segments = [[_segment(s) for s in enc.sequence_ids(r)] for r in rows]
    word_ids = [list(enc.word_ids(r)) for r in rows]
    mask = [enc["attention_mask"][r].tolist() for r in rows]
    return _Encoded(batch, tokens, segments, word_ids, mask)


def pad_baseline(input_ids, tokenizer, attention_mask=None):
    """The [PAD] baseline: ``input_ids`` with every token replaced by the [PAD] id except the structural ones
    the tokenizer adds ([CLS], [SEP], [PAD]; <s>, </s> for RoBERTa-style vocabularies) and masked-out positions.
    [UNK] and [MASK] typed in the text are replaced like any word (their attribution is not forced to 0).
    Same shape and dtype."""
    import torch

    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    ids = {getattr(tokenizer, f"{name}_token_id", None) for name in ("cls", "sep", "bos", "eos", "pad")}
    special = torch.tensor(sorted(i for i in ids if i is not None), dtype=input_ids.dtype)
    keep = torch.isin(input_ids, special)
    if attention_mask is not None:
        keep = keep | (attention_mask == 0)
    return torch.where(keep, input_ids, torch.full_like(input_ids, pad))


# -- targets ---------------------------------------------------------------------------------------------------
def _outputs(out, head: str):
    """(rows, N) logits the target picks from: classes / endings (B, K), tags (B, seq, T), QA (B, 2, seq): the
    head's output fields (``HeadSpec.outputs``), stacked when there are several."""
    import torch

    kind = _explained(head)
    names = next(h.outputs for h in heads() if h.explained is kind)
    if len(names) > 1:
        return torch.stack([getattr(out, name) for name in names], dim=1)
    return getattr(out, names[0])


def _pick_class(spec: str, names: list[str], what: str) -> int:
    if spec in names:
        return names.index(spec)
    lowered = [n.lower() for n in names]
    if spec.lower() in lowered:
        return lowered.index(spec.lower())
    if spec.lstrip("-").isdigit():
        k = int(spec)
        if 0 <= k < len(names):
            return k
        raise AttributionError(f"{what} {k} is outside 0..{len(names) - 1} ({', '.join(names)})")
    raise AttributionError(f"{what} {spec!r} is not one of the head's {what}es ({', '.join(names)}) nor an "
                           f"index 0..{len(names) - 1}")


def _runner_up(z: np.ndarray, k: int) -> int:
    others = [j for j in range(len(z)) if j != k]
    if not others:
        raise AttributionError("a margin needs at least two classes; this head has one output")
    return max(others, key=lambda j: (z[j], -j))


def resolve_target(head: str, logits: np.ndarray, names: list[str], target: str | None = None, *,
                   token: int | None = None, end: int | None = None) -> Target:
    """The :class:`Target` for a head and a user's choice, against the outputs at the input.

    Args:
        head: what the head explains (an :class:`~explorer.core.specs.heads.Explained` value).
        logits: the model's outputs for the (single) input: (K,) classes, (C,) endings, (seq, T) tags, or
            (2, seq) QA start / end logits.
        names: the class / tag / ending names (:func:`class_names_of`).
        target: None or "" for the default (the predicted class, ending or tag; the regression score; the QA
            span of the best start and best end token); a class / tag name or index (its logit; SWAG: that
            ending against the others); "margin" (the predicted class against the runner-up) or
            "margin:CLASS" (CLASS against the best other); "score" (regression); "start", "end", "span" (QA).
        token: token tagging: the token position (default: the first non-special token); QA: the start token
            (default: argmax of the start logits).
        end: QA: the end token (default: argmax of the end logits from the start token on).

    Raises:
        AttributionError: an unknown class name, an index out of range, a target the head has not.
    """
    spec = (target or "").strip()
    z = np.asarray(logits, dtype=np.float64)
    kind = _explained(head)
    if kind is Explained.SCORE:
        if spec not in ("", "score", "0"):
            raise AttributionError(f"a regression head has one output, the score; target {spec!r} is not it")
        return Target("score", 0, description="the score (regression output)")
    if kind is Explained.SPAN:
        seq = z.shape[1]
        s = int(np.argmax(z[0])) if token is None or token < 0 else int(token)
        e = s + int(np.argmax(z[1][s:])) if end is None or end < 0 else int(end)
        for what, i in (("start", s), ("end", e)):
            if not 0 <= i < seq:
                raise AttributionError(f"{what} token {i} is outside the window of {seq} tokens (0..{seq - 1})")
        which = spec or "span"
        if which not in ("start", "end", "span"):
            raise AttributionError(f"a QA head explains 'start', 'end' or 'span'; not {spec!r}")
        words = {"start": f"start_logits[{s}]", "end": f"end_logits[{e}]",
                 "span": f"span score start_logits[{s}] + end_logits[{e}]"}
        return Target(which, s, e, description=words[which])
    tok = -1
    if kind is Explained.TAG:
        seq = z.shape[0]
        tok = 1 if token is None or token < 0 else int(token)
        if not 0 <= tok < seq:
            raise AttributionError(f"token {tok} is outside the {seq} tokens of this text (0..{seq - 1})")
        z = z[tok]
    what = {Explained.ENDING: "ending", Explained.TAG: "tag"}.get(kind, "class")
    margin = spec.lower() == "margin" or spec.lower().startswith("margin:")
    chosen = spec.split(":", 1)[1].strip() if spec.lower().startswith("margin:") else ("" if margin else spec)
    k = _pick_class(chosen, names, what) if chosen else int(np.argmax(z))
    at = f" of token {tok}" if tok >= 0 else ""
    if margin:
        r = _runner_up(z, k)
        return Target("margin", k, r, tok, f"margin{at}: logit[{names[k]}] - logit[{names[r]}]")
    if kind is Explained.ENDING:
        if len(z) < 2:
            raise AttributionError("multiple choice needs at least two endings")
        return Target("ending", k, -1, tok, f"{names[k]} against the others: score[{k}] - mean of the other scores")
    return Target("logit", k, -1, tok, f"logit[{names[k]}]{at}")


def target_of(outputs, target: Target, head: str):
    """f for a batch of outputs (:func:`_outputs`): a (B,) tensor."""
    kind = _explained(head)
    if kind is Explained.SPAN:
        s, e = outputs[:, 0, target.index], outputs[:, 1, target.other]
        return {"start": s, "end": e, "span": s + e}[target.kind]
    z = outputs[:, target.token, :] if kind is Explained.TAG else outputs
    if target.kind == "score":
        return z[:, 0]
    if target.kind == "margin":
        return z[:, target.index] - z[:, target.other]
    if target.kind == "ending":
        n = z.shape[1]
        return z[:, target.index] - (z.sum(dim=1) - z[:, target.index]) / (n - 1)
    return z[:, target.index]


# -- the computation -------------------------------------------------------------------------------------------
def forward_target(model, head: str, batch: dict, target: Target | None = None, inputs_embeds=None, input_ids=None):
    """The model's outputs ((B, K) classes / endings, (B, seq, T) tags, (B, 2, seq) QA start / end logits) or,
    with ``target``, f as a (B,) tensor, for a batch of ids or of word embeddings (B, [C,] seq[, H]); the
    other tensors of ``batch`` (an :func:`encode` batch: token types, attention mask) are repeated to B."""
    ref = input_ids if input_ids is not None else inputs_embeds
    n = ref.shape[0]
    extra = {k: v.expand(n, *v.shape[1:]).contiguous() for k, v in batch.items() if k != "input_ids"}
    if input_ids is not None:
        out = model(input_ids=input_ids, **extra)
    else:
        out = model(inputs_embeds=inputs_embeds, **extra)
    outputs = _outputs(out, head)
    return outputs if target is None else target_of(outputs, target, head)


def _steps_hook(model, total: int, progress, cancelled):
    """Hooks on the model: before each forward Cancelled is raised when ``cancelled()``, after it the
    forwards done are reported as progress (done, total), (0, total) first; returns the handles (remove them)."""
    from explorer.core.errors import Cancelled

    done = [0]

    def before(_module, _args):
        if cancelled is not None and cancelled():
            raise Cancelled()

    def after(_module, _args, _out):
        done[0] += 1
        if progress is not None:
            progress(min(done[0], total), total)

    if progress is not None:
        progress(0, total)
    return [model.register_forward_pre_hook(before), model.register_forward_hook(after)]


def integrated_gradients(model, f_of_ids, ids, base_ids, *, steps: int, internal_batch_size: int | None = None,
                         progress=None, cancelled=None, rule: str = "gausslegendre"):
    """Integrated gradients of ``f_of_ids`` (ids (B, ...) -> f (B,)) on the output of ``model``'s word-embedding
    layer from ``base_ids``' embeddings to ``ids``' (``steps`` points of Captum's quadrature ``rule``:
    "gausslegendre" for smooth targets, "riemann_trapezoid" where f has kinks), summed over the hidden
    dimension: a tensor of the embedding output's shape less the hidden one (ids' shape; a multiple-choice
    model's (choices, seq)), in f's units. ``internal_batch_size``: points per forward (default: as many as
    fit TOKENS_PER_BATCH tokens); ``progress(done, total)`` after each forward batch; ``cancelled() -> True``
    raises Cancelled at the next one. The caller sets eval mode and gradients on
    (explorer.core.models.eval_mode.inference(model, gradients=True)).

    What Captum's ``LayerIntegratedGradients`` on the embedding layer computes (each point's embeddings
    put in place of the layer's output, the model run on ``ids`` for everything else: positions, token types,
    the mask), without its two full forwards that only read the layer's output for the input and the
    baseline: here the embeddings are looked up in the table (Captum's ``IntegratedGradients`` on them)."""
    import torch
    from captum.attr import IntegratedGradients

    tokens_each = int(ids.numel())
    ibs = internal_batch_size or max(1, min(steps, TOKENS_PER_BATCH // max(tokens_each, 1)))
    layer = model.get_input_embeddings()
    flat = ids.reshape(-1, ids.shape[-1])   # what the model hands its embeddings (choices flattened)
    with torch.no_grad():
        x, x0 = layer(flat), layer(base_ids.reshape(flat.shape))

    def f_of_embeddings(e):
        reps = e.shape[0] // x.shape[0]
        handle = layer.register_forward_hook(lambda _m, _a, out: e.reshape(out.shape))
        try:
            return f_of_ids(ids.repeat(reps, *[1] * (ids.dim() - 1)))
        finally:
            handle.remove()

    handles = _steps_hook(model, -(-steps // ibs), progress, cancelled) if (progress or cancelled) else []
    try:
        attr = IntegratedGradients(f_of_embeddings).attribute(x, baselines=x0, n_steps=steps,
                                                              internal_batch_size=ibs, method=rule)
    finally:
        for handle in handles:
            handle.remove()
    return attr.sum(-1)


def explain(model, tokenizer, text: str, text_pair: str = "", *, endings: list[str] | None = None,
            target: str | None = None, token: int | None = None, end: int | None = None, method: str = "ig",
            steps: int = DEFAULT_STEPS, merge_words: bool = False, max_seq_length: int = 128,
            internal_batch_size: int | None = None, progress=None, cancelled=None) -> Attribution:
    """Attribute one input's target (:func:`resolve_target`) to its tokens.

    Args:
        model: any of the heads of :func:`explained_head` (``...ForSequenceClassification``, ``...ForMultipleChoice``,
            ``...ForTokenClassification``, ``...ForQuestionAnswering``); runs in eval mode (dropout off) with its
            train / eval flags restored.
        tokenizer: its fast tokenizer.
        text, text_pair: text A and the optional text B (pairs; QA: question and passage; SWAG: the context and
            the start of the endings, sent2, which may be empty).
        endings: SWAG only: the candidate endings (at least two).
        target, token, end: see :func:`resolve_target`.
        method: "ig" (integrated gradients, Captum IntegratedGradients on the word embeddings, [PAD]
            baseline) or "gxi" (gradient x input).
        steps: integration points of IG (1..MAX_STEPS); ignored by gxi.
        merge_words: sum the pieces of each word into one row (labels without "##").
        max_seq_length: tokens kept per input (the longer text truncated; QA: the passage).
        internal_batch_size: IG points per forward (default: as many as fit TOKENS_PER_BATCH tokens).
        progress: optional ``progress(done, total)`` called before each IG forward batch.
        cancelled: optional ``cancelled() -> bool``; True stops at the next forward (raises Cancelled).

    Raises:
        AttributionError: an unknown method, steps out of range, an empty text, a bad target (see
            :func:`resolve_target`), a model with no known head.
    """
    import torch

    from explorer.core.models.eval_mode import inference

    if method not in METHODS:
        raise AttributionError(f"method {method!r} is not one of {', '.join(METHODS)} ({', '.join(METHODS.values())})")
    steps = int(steps)
    if method == "ig" and not 1 <= steps <= MAX_STEPS:
        raise AttributionError(f"integrated gradients needs 1..{MAX_STEPS} steps; got {steps}")
    head = explained_head(model)
    spans = _explained(head) is Explained.SPAN
    from explorer.core.data.words import rule_of

    enc = encode(tokenizer, head, text, text_pair, endings, max_seq_length=max_seq_length, word_rule=rule_of(model))
    device = next(model.parameters()).device
    batch = {k: v.to(device) for k, v in enc.batch.items()}
    ids = batch["input_ids"]
    base_ids = pad_baseline(ids, tokenizer, batch.get("attention_mask"))
    emb_layer = model.get_input_embeddings()
    with inference(model, gradients=True):
        with torch.no_grad():   # the input's forward: its logits pick the target, and give f(x)
            at_input = forward_target(model, head, batch, input_ids=ids)
        outputs = at_input[0].double().cpu().numpy()
        names = class_names_of(model, head, outputs.shape[-1] if not spans else 2)
        tgt = resolve_target(head, outputs, names, target, token=token, end=end)
        with torch.no_grad():
            f_input = float(target_of(at_input, tgt, head)[0])
            # the path's start: the baseline's word embeddings at the input's positions (RoBERTa-style models
            # number the positions of [PAD] ids differently, so a forward of base_ids is another point)
            f_base = float(forward_target(model, head, batch, tgt, inputs_embeds=emb_layer(base_ids))[0])
        if method == "gxi":
            x = emb_layer(ids).detach().requires_grad_(True)
            f = forward_target(model, head, batch, tgt, inputs_embeds=x)[0]
            grad, = torch.autograd.grad(f, x)
            per_token = (grad * x.detach()).sum(-1)
            steps = 0
        else:
            per_token = integrated_gradients(model, lambda i: forward_target(model, head, batch, tgt, input_ids=i),
                                             ids, base_ids, steps=steps, internal_batch_size=internal_batch_size,
                                             progress=progress, cancelled=cancelled)
    picked = outputs
    if _explained(head) is Explained.TAG:
        picked = outputs[tgt.token]
    elif spans:
        picked = np.array([outputs[0, tgt.index], outputs[1, tgt.other]])
    return assemble(enc, per_token, head=head, method=method, steps=steps, target=tgt, f_input=f_input,
                    f_base=f_base, names=names, logits=picked, merge_words=merge_words)


def assemble(enc: _Encoded, per_token, *, head: str, method: str, steps: int, target: Target, f_input: float,
             f_base: float, names: list[str], logits, merge_words: bool) -> Attribution:
    """The :class:`Attribution` of per-token values ``per_token`` ((1, seq), SWAG (C, seq) or (1, C, seq)
    tensor) of the encoded input ``enc``: padding left out, pieces merged into words on request, the
    completeness gap against f(input) - f(baseline) and its warning."""
    rows = per_token.detach().double().cpu().numpy().reshape(len(enc.tokens), -1)
    tokens, values, segments, choices, wids = [], [], [], [], []
    for r, (toks, segs, mask) in enumerate(zip(enc.tokens, enc.segments, enc.mask)):
        for i, (t, s, m) in enumerate(zip(toks, segs, mask)):
            if m:
                tokens.append(t)
                values.append(rows[r, i])
                segments.append(s)
                choices.append(r)
                wids.append(enc.word_ids[r][i])
    values = np.asarray(values, dtype=np.float64)
    if merge_words:
        tokens, values, segments, choices = _merge(tokens, values, segments, choices, wids)
    gap = float(values.sum() - (f_input - f_base))
    diff = abs(f_input - f_base)
    rel = abs(gap) / diff if diff > 0 else (0.0 if gap == 0 else float("inf"))
    warning = ""
    if method == "ig" and rel > WARN_RELATIVE_GAP:
        warning = (f"the attributions miss f(input) - f(baseline) by {100 * rel:.1f} % (over "
                   f"{100 * WARN_RELATIVE_GAP:.0f} %): use more steps (e.g. {min(MAX_STEPS, 4 * steps)})")
    return Attribution(tokens, values, segments, choices, head, method, steps, target, f_input, f_base, gap, rel,
                       warning, names, merge_words, np.asarray(logits, dtype=np.float64))


def _merge(tokens, values, segments, choices, word_ids):
    """Sum the pieces of each word (explorer.core.attention.wordmerge.word_groups; the SWAG row and the segment are part
    of the word's key, so words never join across texts)."""
    from explorer.core.attention.wordmerge import word_groups

    blocks = ["special" if s == "special" else f"{s}:{c}" for s, c in zip(segments, choices)]
    groups = word_groups(tokens, word_ids, blocks)
    merged = np.zeros(len(groups), dtype=np.float64)
    np.add.at(merged, groups.token_to_word, values)
    first = [g[0] for g in groups.groups]
    return groups.labels, merged, [segments[i] for i in first], [choices[i] for i in first]

"""Probe: one question + one passage -> everything the inspector shows, as plain dataclasses.

The pipeline is the one used for evaluation, so what the inspector shows is what ``eval`` scores:
windows from :func:`explorer.core.qa.windows.prepare_qa_features`, n-best spans and the null score
from :func:`explorer.core.qa.decoding.decode_example`. On top of that the probe keeps per window the
tokens, word ids, blocks, start/end logits and softmax probabilities, the by-hand check of the
output layer (BERT paper Section 4.2, docs/formulas.md: ``S.T_i = T_i . W[0] + b[0]`` from the last hidden states and the
``qa_outputs`` weights, compared with the model's ``start_logits``; likewise ``E`` / row 1 for
``end_logits``), and optionally the attention summaries of :mod:`explorer.core.attention.flow`.

The SQuAD 2.0 rule (BERT paper, Section 4.3): answer iff ``best_non_null_score > null_score + tau``,
i.e. ``score_diff > tau``. :meth:`ProbeResult.decision` applies it for any tau without a new
forward pass.
"""

from __future__ import annotations

import math
import time
import weakref
from dataclasses import dataclass, field

import numpy as np

from explorer.core.attention.budget import ATTENTION_BUDGET_BYTES, LazyAttention, budget_note
from explorer.core.attention.flow import AttentionData, token_blocks
from explorer.core.attention.forward import attention_forward, window_attention_fn
from explorer.core.qa.decode_rules import decoder_of, other_rule
from explorer.core.qa.decoding import ExampleDecoding, span_score_table
from explorer.core.qa.windows import collate_qa, prepare_qa_features
from explorer.core.models.window_settings import longest_question_tokens, require_window_settings


from explorer.core.errors import ProbeError  # noqa: E402,F401 - re-exported (defined in core/errors.py)
from explorer.core.models.eval_mode import inference


@dataclass
class ProbeWindow:
    """One window of the probed passage (``[CLS] question [SEP] passage-piece [SEP]``).

    Attributes (seq = number of tokens in this window, no padding):
        index: window number, 0-based (the order of prepare_qa_features).
        tokens: seq token strings; input_ids: seq ints.
        word_ids: seq, the tokenizer's word index (question and passage each count from 0; None for
            special tokens).
        blocks: seq, "question" / "passage" / "special" (explorer.core.attention.flow.token_blocks).
        offsets: seq, ``(start_char, end_char)`` into the passage for passage tokens, else None.
        cls_index: the null position (the tokenizer's cls token; 0 for BERT, never assumed).
        start_logits, end_logits: (seq,) float32, the model's S.T_i and E.T_i (logit units).
        start_probs, end_probs: (seq,) float64, softmax over all tokens of this window.
        hidden_check_max_abs_diff: max |T_i.W[k] + b[k] - model logit| over tokens and k in {start,
            end}; None when the head is not a plain (2, hidden) linear layer.
    """

    index: int
    tokens: list[str]
    input_ids: list[int]
    word_ids: list[int | None]
    blocks: list[str]
    offsets: list[tuple[int, int] | None]
    cls_index: int
    start_logits: np.ndarray
    end_logits: np.ndarray
    start_probs: np.ndarray
    end_probs: np.ndarray
    hidden_check_max_abs_diff: float | None

    def span_score_table(self, max_answer_length: int = 30) -> np.ndarray:
        """(seq, seq) S.T_i + E.T_j, NaN where the span is invalid (decoding.span_score_table)."""
        return span_score_table(self.start_logits, self.end_logits, self.offsets,
                                max_answer_length=max_answer_length)

    def __len__(self) -> int:
        return len(self.input_ids)


@dataclass
class Decision:
    """The SQuAD 2.0 decision for one tau.

    Attributes:
        answer: True iff score_diff > tau (best_non_null_score > null_score + tau).
        answer_text: the best span's text when answering, else "".
        inequality: e.g. ``"23.25 > 14.18 ? yes -> answer"`` (left: best_non_null_score; right:
            null_score + tau; 2 decimals), as docs/formulas.md writes it.
        tau, best_non_null_score, threshold (= null_score + tau), score_diff: the numbers used.
    """

    answer: bool
    answer_text: str
    inequality: str
    tau: float
    best_non_null_score: float
    threshold: float
    score_diff: float

    @property
    def text(self) -> str:
        return self.answer_text


@dataclass
class ProbeResult:
    """Everything about one probe.

    Attributes:
        question, passage: as given (offsets index into passage).
        source: the model source string; head_initialised: True if the QA head is untrained (None
            when probing a bare model whose loading history is unknown).
        windows: ProbeWindow per window; the answer may come from any of them.
        decoding: ExampleDecoding over all windows (n-best spans, null parts, window indices).
        null_score: min over windows of start_logits[cls] + end_logits[cls]; null_start_logit,
            null_end_logit: its two parts (from window decoding.null_window).
        best_non_null_score: best span score (-inf if no valid span); score_diff = best_non_null_score
            - null_score.
        tau: the tau given to probe(); decision() uses it by default.
        byhand_max_abs_diff: max over windows of hidden_check_max_abs_diff; None when not computable,
            with byhand_note saying why.
        attention: one AttentionData per window when probe(attentions=True), else None.
        n_best_size, max_answer_length: decoding settings; seconds: wall time of probe().
        decode_rule: how ``decoding`` searched spans (explorer.core.qa.decode_rules: "passage" or "run_qa");
            other_decoding: the same logits decoded by the other rule (None when not computed).
        attention_note: "" or why attention is missing (a model that cannot return weights) or the budget
            warning ("30 windows x 12 layers x 12 heads x 384² float16 would need 1.2 GiB (budget 256 MiB);
            keeping only the shown window"); see attention_weights().
    """

    question: str
    passage: str
    source: str
    head_initialised: bool | None
    windows: list[ProbeWindow]
    decoding: ExampleDecoding
    null_score: float
    null_start_logit: float
    null_end_logit: float
    best_non_null_score: float
    score_diff: float
    tau: float
    byhand_max_abs_diff: float | None
    attention: list[AttentionData] | None
    n_best_size: int
    max_answer_length: int
    seconds: float
    byhand_note: str = ""
    settings: dict = field(default_factory=dict)
    attention_note: str = ""
    lazy_attention: LazyAttention | None = field(default=None, repr=False, compare=False)
    decode_rule: str = "passage"
    other_decoding: ExampleDecoding | None = None

    def attention_weights(self, k: int):
        """(layers, heads, seq, seq) raw weights of window k, computed now when they were not kept (over the
        budget only the window asked for last keeps them). None without attentions or when the probe kept
        summaries only (keep_attentions=None)."""
        if self.attention is None:
            return None
        if self.lazy_attention is not None:
            return self.lazy_attention.fill(self.attention, k)
        return self.attention[k].attentions

    @property
    def nbest(self):
        """decoding.nbest: SpanCandidate list, best first."""
        return self.decoding.nbest

    @property
    def best_window(self) -> ProbeWindow:
        """The window of the best span (or of the null score when there is no span)."""
        w = self.decoding.nbest[0].window_index if self.decoding.nbest else self.decoding.null_window
        return self.windows[w]

    @property
    def tokens(self) -> list[str]:
        """Tokens of best_window (see windows for all of them)."""
        return self.best_window.tokens

    @property
    def word_ids(self) -> list[int | None]:
        return self.best_window.word_ids

    @property
    def blocks(self) -> list[str]:
        return self.best_window.blocks

    def decision(self, tau: float | None = None) -> Decision:
        """Apply the SQuAD 2.0 rule for ``tau`` (default: the tau given to probe); no forward pass.

        Answer iff ``score_diff > tau``; the text reads ``"<best_non_null_score> > <null_score + tau>
        ? yes -> answer"`` or ``"... ? no -> no answer"`` with 2 decimals.
        """
        tau = self.tau if tau is None else float(tau)
        answer = bool(self.decoding.nbest) and self.score_diff > tau
        threshold = self.null_score + tau
        verdict = "yes -> answer" if answer else "no -> no answer"
        return Decision(answer=answer, answer_text=self.decoding.nbest[0].text if answer else "",
                        inequality=f"{self.best_non_null_score:.2f} > {threshold:.2f} ? {verdict}",
                        tau=tau, best_non_null_score=self.best_non_null_score, threshold=threshold,
                        score_diff=self.score_diff)

    def other_rule_answer(self, tau: float | None = None) -> tuple[str, str, float] | None:
        """(the other decode rule's name, its answer at ``tau`` ("" = no answer), its score_diff) when its answer
        differs from this result's (edge white space aside), else None. tau None = self.tau."""
        if self.other_decoding is None:
            return None
        from explorer.core.qa.decode_rules import other_rule

        tau = self.tau if tau is None else float(tau)
        ours, theirs = self.decoding.answer(tau), self.other_decoding.answer(tau)
        if ours.strip() == theirs.strip():
            return None
        return other_rule(self.decode_rule), theirs, float(self.other_decoding.score_diff)

    def to_dict(self, *, arrays: bool = True) -> dict:
        """A JSON-ready dump (floats, lists, no numpy). -inf scores become None. With arrays=False the
        per-token logits/probabilities are left out. Attention: per-window block flow (layers, heads,
        3, 3), its head mean and the per-token block share (raw weights and rollout are not dumped)."""
        def num(x):
            return None if x is None or not math.isfinite(x) else float(x)

        d = self.decision()
        out = {
            "question": self.question, "passage": self.passage, "source": self.source,
            "head_initialised": self.head_initialised, "tau": self.tau,
            "answer": d.answer_text, "answered": d.answer, "inequality": d.inequality,
            "null_score": num(self.null_score), "null_start_logit": num(self.null_start_logit),
            "null_end_logit": num(self.null_end_logit), "null_window": self.decoding.null_window,
            "best_non_null_score": num(self.best_non_null_score), "score_diff": num(self.score_diff),
            "nbest": [{"text": c.text, "start_char": c.start_char, "end_char": c.end_char,
                       "start_token": c.start_token, "end_token": c.end_token, "window_index": c.window_index,
                       "start_logit": c.start_logit, "end_logit": c.end_logit, "score": c.score}
                      for c in self.decoding.nbest],
            "byhand_max_abs_diff": num(self.byhand_max_abs_diff), "byhand_note": self.byhand_note,
            "n_best_size": self.n_best_size, "max_answer_length": self.max_answer_length,
            "settings": dict(self.settings), "seconds": self.seconds, "windows": [],
            "decode_rule": self.decode_rule, "other_rule": None,
        }
        other = self.other_rule_answer()
        if other is not None:
            out["other_rule"] = {"rule": other[0], "answer": other[1], "score_diff": num(other[2])}
        for w in self.windows:
            wd = {"index": w.index, "tokens": w.tokens, "word_ids": w.word_ids, "blocks": w.blocks,
                  "offsets": [list(o) if o is not None else None for o in w.offsets], "cls_index": w.cls_index,
                  "hidden_check_max_abs_diff": num(w.hidden_check_max_abs_diff)}
            if arrays:
                wd.update(start_logits=w.start_logits.tolist(), end_logits=w.end_logits.tolist(),
                          start_probs=w.start_probs.tolist(), end_probs=w.end_probs.tolist())
            out["windows"].append(wd)
        if self.attention is not None:
            out["attention"] = [{"flow": a.flow.tolist(), "flow_mean": a.flow_mean.tolist(),
                                 "token_share": a.token_share.tolist()} for a in self.attention]
        return out


def _softmax(x: np.ndarray) -> np.ndarray:
    z = np.asarray(x, dtype=np.float64)
    z = np.exp(z - z.max())
    return z / z.sum()


_HEADS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()   # model -> _find_qa_head(model), found once


def _qa_head(model) -> tuple[object | None, str]:
    """_find_qa_head, remembered per model (walking all modules costs about a millisecond per probe)."""
    try:
        return _HEADS[model]
    except (KeyError, TypeError):
        found = _find_qa_head(model)
    try:
        _HEADS[model] = found
    except TypeError:   # not weak-referenceable: look again next time
        pass
    return found


def _find_qa_head(model) -> tuple[object | None, str]:
    """(the start/end output layer, "") or (None, reason).

    Found through the model's own structure, not by name: the last ``nn.Linear`` with 2 outputs
    outside the encoder (``model.base_model_prefix``). BERT, RoBERTa, ALBERT, ELECTRA, DeBERTa,
    XLM-R: ``qa_outputs``; DistilBERT: ``qa_outputs`` after a dropout; ModernBERT: ``classifier``
    after a dense + norm ``head``.
    """
    import torch

    prefix = getattr(model, "base_model_prefix", "") or ""
    if not prefix or getattr(model, prefix, None) is None:
        return None, (f"{type(model).__name__} has no qa_outputs-style start/end layer that can be told from its "
                      "encoder (no base_model_prefix); the by-hand check S.T_i = T_i.W[0] + b[0] is skipped")
    found = [(name, m) for name, m in model.named_modules()
             if isinstance(m, torch.nn.Linear) and m.out_features == 2 and not name.startswith(prefix + ".")]
    if not found:
        return None, (f"{type(model).__name__} has no (2, hidden) start/end output layer outside its encoder; the "
                      "by-hand check S.T_i = T_i.W[0] + b[0] is skipped")
    return found[-1][1], ""


def _word_ids_cached(tokenizer, question: str, passage: str):
    """A function (seq_ids, offsets) -> word ids of one window: question tokens take the word ids of
    the question tokenized alone (same pieces, same order), passage tokens the word id of the
    passage token with the same character offsets in the passage tokenized alone."""
    both = tokenizer([question.lstrip(), passage], add_special_tokens=False, return_offsets_mapping=True,
                     verbose=False)   # one call for both texts
    q_words, p_words, p_offsets = both.word_ids(0), both.word_ids(1), both["offset_mapping"][1]
    p_by_offset = {tuple(o): w for o, w in zip(p_offsets, p_words)}
    p_by_start = {o[0]: w for o, w in zip(p_offsets, p_words)}

    def assign(seq_ids: list, offsets: list) -> list[int | None]:
        out: list[int | None] = []
        qi = 0
        for sid, off in zip(seq_ids, offsets):
            if sid == 0:
                out.append(q_words[qi] if qi < len(q_words) else None)
                qi += 1
            elif sid == 1 and off is not None:
                out.append(p_by_offset.get(tuple(off), p_by_start.get(off[0])))
            else:
                out.append(None)
        return out

    return assign


def probe(loaded_or_model, question: str, passage: str, tau: float = 0.0, *, tokenizer=None,
          attentions: bool = False, keep_attentions: str | None = "float16", max_seq_length: int = 384,
          doc_stride: int = 128, max_query_length: int = 64, n_best_size: int = 20,
          max_answer_length: int = 30, attention_budget: int | None = ATTENTION_BUDGET_BYTES,
          decode_rule: str = "passage") -> ProbeResult:
    """Run a QA model on one question + passage and collect everything the inspector shows.

    Args:
        loaded_or_model: a LoadedModel (explorer.core.models.loading.load_model) or a bare transformers QA
            model (then ``tokenizer`` is required).
        question, passage: plain text; offsets in the result index into ``passage``.
        tau: the SQuAD 2.0 threshold for ``decision()`` (logit units; answer iff score_diff > tau).
        tokenizer: a fast tokenizer, when loaded_or_model is a bare model.
        attentions: also compute attention summaries (block flow, token share, rollout) per window.
            That forward runs with eager attention (explorer.core.models.loading.eager_attention), one window
            at a time; without it all windows go through SDPA in one batch.
        keep_attentions: with attentions=True, keep the raw weights (layers, heads, seq, seq) per
            window as "float16" (default) or "float32" numpy, or None to keep only the summaries.
        attention_budget: bytes of raw weights the result may hold (None = no limit); above it only the
            best window keeps them, the others are computed when asked (attention_weights), and
            ``attention_note`` says what all would have needed (attention_budget.py).
        max_seq_length, doc_stride, max_query_length: windowing (features.prepare_qa_features).
        n_best_size, max_answer_length: span search (decoding.decode_example).
        decode_rule: "passage" (this app's search) or "run_qa" (transformers' run_qa.py); the other rule's
            decoding of the same logits is kept too (``other_decoding``, ``other_rule_answer()``).

    Returns:
        ProbeResult.

    Raises:
        ProbeError: empty question or passage, no tokenizer, or a model without start/end logits.
        WindowSettingsError (a ValueError): window settings that do not fit the model (max_seq_length over
            its position embeddings or the tokenizer's maximum, no passage room, doc_stride >= room).
    """
    t0 = time.perf_counter()
    from explorer.core.models.loading import model_of

    model = model_of(loaded_or_model)
    tok = tokenizer if tokenizer is not None else getattr(loaded_or_model, "tokenizer", None)
    if tok is None:
        raise ProbeError("probe needs a tokenizer: pass a LoadedModel or tokenizer=...")
    if not isinstance(question, str) or not question.strip():
        raise ProbeError("probe: the question is empty")
    if not isinstance(passage, str) or not passage.strip():
        raise ProbeError("probe: the passage is empty")
    source = getattr(loaded_or_model, "source", None) or getattr(getattr(model, "config", None),
                                                                   "name_or_path", "") or type(model).__name__
    head_initialised = getattr(loaded_or_model, "head_initialised", None)
    require_window_settings(tok, getattr(model, "config", None), max_seq_length, doc_stride, max_query_length,
                            question_tokens=longest_question_tokens(tok, [question], max_query_length),
                            name=str(source))

    feats = prepare_qa_features([question], [passage], tok, max_seq_length=max_seq_length,
                                doc_stride=doc_stride, max_query_length=max_query_length)
    note = ""
    if attentions and keep_attentions is not None:
        cfg = model.config
        note = budget_note(feats.lengths(), cfg.num_hidden_layers, cfg.num_attention_heads, attention_budget,
                           np.dtype(keep_attentions).itemsize)
    keep_now = None if note else keep_attentions
    with inference(model):     # eval mode whatever the caller left it in; the caller's mode restored
        windows, attention_data, byhand_note, device, pad_id, unavailable = _forward_windows(
            model, tok, feats, question, passage, attentions=attentions, keep=keep_now)
    note = unavailable or note   # a family whose attention cannot return weights: say so

    logits = ([w.start_logits for w in windows], [w.end_logits for w in windows], [w.offsets for w in windows],
              [w.cls_index for w in windows])
    span_search = {"n_best_size": n_best_size, "max_answer_length": max_answer_length, "example_id": "probe"}
    decoding = decoder_of(decode_rule)(passage, *logits, **span_search)
    other_decoding = decoder_of(other_rule(decode_rule))(passage, *logits, **span_search)
    diffs = [w.hidden_check_max_abs_diff for w in windows if w.hidden_check_max_abs_diff is not None]
    lazy = None
    if attentions and keep_attentions is not None and attention_data is not None:
        lazy = LazyAttention(_window_attention_fn(model, feats, pad_id, device, keep_attentions),
                             within_budget=not note,
                             dtype=keep_attentions)
        if note:  # over the budget: only the window shown first (the best one) keeps its weights
            best = decoding.nbest[0].window_index if decoding.nbest else decoding.null_window
            lazy.fill(attention_data, best)
    return ProbeResult(
        question=question, passage=passage, source=str(source), head_initialised=head_initialised,
        windows=windows, decoding=decoding, null_score=decoding.null_score,
        null_start_logit=decoding.null_start_logit, null_end_logit=decoding.null_end_logit,
        best_non_null_score=decoding.best_non_null_score, score_diff=decoding.score_diff, tau=float(tau),
        byhand_max_abs_diff=max(diffs) if diffs else None, attention=attention_data,
        n_best_size=n_best_size, max_answer_length=max_answer_length, seconds=time.perf_counter() - t0,
        byhand_note=byhand_note,
        settings={"max_seq_length": max_seq_length, "doc_stride": doc_stride, "max_query_length": max_query_length,
                  "attentions": bool(attentions)}, attention_note=note, lazy_attention=lazy,
        decode_rule=decode_rule, other_decoding=other_decoding)


def _forward_windows(model, tok, feats, question: str, passage: str, *, attentions: bool, keep: str | None):
    """Forward every window (one at a time with eager attention when ``attentions``, else all in one SDPA
    batch) -> (windows: list[ProbeWindow], attention: list[AttentionData] | None, byhand_note, device, pad_id,
    unavailable: "" or why the model gave no attention weights). Raises ProbeError for a model without
    start/end logits."""
    import torch

    head, byhand_note = _qa_head(model)
    try:
        device = next(model.parameters()).device
    except StopIteration:
        device = torch.device("cpu")
    pad_id = tok.pad_token_id if tok.pad_token_id is not None else 0
    chunks = [[k] for k in range(len(feats))] if attentions else [list(range(len(feats)))]
    assign_words = _word_ids_cached(tok, question, passage)
    unavailable = ""
    head_inputs: list = []   # what the start/end layer reads (T_i), captured by a hook
    hook = head.register_forward_hook(lambda _m, args, _out: head_inputs.append(args[0])) \
        if head is not None else None
    windows: list[ProbeWindow] = []
    attention_data: list[AttentionData] | None = [] if attentions else None
    try:
        for chunk in chunks:
            batch = {k: v.to(device) for k, v in collate_qa(feats, chunk, pad_id).items()}
            blocks = [token_blocks(feats.sequence_ids[k], feats.input_ids[k], tok) for k in chunk]
            with torch.inference_mode():
                out = summary = None
                if attentions:
                    out, summary, unavailable = attention_forward(model, batch, blocks[0], keep)
                    if unavailable:
                        attentions, attention_data = False, None
                if out is None:
                    out = model(**batch, output_hidden_states=True)
                if getattr(out, "start_logits", None) is None or getattr(out, "end_logits", None) is None:
                    raise ProbeError(f"{type(model).__name__} returns no start_logits/end_logits; probe needs a "
                                     "question-answering model (load_model(source, task='qa'))")
                hand, note = _byhand_logits(model, head, out, head_inputs)
                byhand_note = note or byhand_note
                start_all = out.start_logits.float().cpu().numpy()
                end_all = out.end_logits.float().cpu().numpy()
                for row, k in enumerate(chunk):
                    n = len(feats.input_ids[k])
                    diff = None
                    if hand is not None:
                        diff = float(max((hand[0][row, :n].float() - out.start_logits[row, :n].float()).abs().max(),
                                         (hand[1][row, :n].float() - out.end_logits[row, :n].float()).abs().max()))
                    windows.append(_probe_window(tok, feats, k, blocks[row], start_all[row, :n].copy(),
                                                 end_all[row, :n].copy(), diff, assign_words))
                if attentions:
                    attention_data.append(summary)
                del out
    finally:
        if hook is not None:
            hook.remove()
    return windows, attention_data, byhand_note, device, pad_id, unavailable


def _byhand_logits(model, head, out, head_inputs: list):
    """((S.T_i, E.T_i) (batch, seq) tensors recomputed from the start/end layer's input and weights, or None;
    a note or ""). BERT & co.: T_i = the last hidden state; ModernBERT: a head block's output (hooked).

    Computed in float32 whatever the forward's dtype: under a training run's bf16 autocast (the watch probes of an
    evaluation; accelerate wraps the model's forward) the hidden states are bf16 and the head's weights fp32, and
    comparing or multiplying them as they are raised "BFloat16 did not match Float" (ALBERT, ELECTRA, ModernBERT
    on a CPU with AMX)."""
    import torch

    note = ""
    last_hidden = out.hidden_states[-1] if getattr(out, "hidden_states", None) else None
    if head is not None and head_inputs:
        # the same tensor (BERT & co.: qa_outputs reads hidden_states[-1]) needs no element-wise compare
        if last_hidden is not None and head_inputs[-1].shape == last_hidden.shape \
                and head_inputs[-1].data_ptr() != last_hidden.data_ptr() \
                and not torch.allclose(head_inputs[-1].float(), last_hidden.float()):
            note = (f"{type(model).__name__}: the start/end layer reads a head block's output, "
                    "not the last hidden state; T_i here is that input")
        last_hidden = head_inputs.pop()
    if head is None:
        return None, note
    if last_hidden is None:
        return None, "the model returned no hidden states; by-hand check skipped"
    w = head.weight.float()
    b = head.bias.float() if getattr(head, "bias", None) is not None else torch.zeros(2, device=w.device)
    last_hidden = last_hidden.float()
    return (last_hidden @ w[0] + b[0], last_hidden @ w[1] + b[1]), note


def _probe_window(tok, feats, k: int, blocks: list[str], start: np.ndarray, end: np.ndarray, diff, assign_words):
    """ProbeWindow k from its features, blocks and (seq,) start / end logits."""
    ids = list(feats.input_ids[k])
    offsets = feats.offset_mapping[k]
    return ProbeWindow(index=k, tokens=tok.convert_ids_to_tokens(ids), input_ids=ids,
                       word_ids=assign_words(feats.sequence_ids[k], offsets), blocks=blocks, offsets=list(offsets),
                       cls_index=int(feats.cls_index[k]), start_logits=start, end_logits=end,
                       start_probs=_softmax(start), end_probs=_softmax(end), hidden_check_max_abs_diff=diff)


def _window_attention_fn(model, feats, pad_id: int, device, dtype: str = "float32"):
    """window_attention_fn for the QA windows of ``feats``."""
    return window_attention_fn(
        model, lambda k: {name: v.to(device) for name, v in collate_qa(feats, [k], pad_id).items()},
        [len(ids) for ids in feats.input_ids], dtype)

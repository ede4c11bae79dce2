"""Running a token-classification model on raw text: words, tag probabilities, entities, and the head
written out for one token (the Tag page, ``bert-explorer predict``). Imports torch; the arithmetic without
torch is explorer.core.tagging.alignment.

The head (``BertForTokenClassification``): logits_i = T_i W^T + b for the final hidden vector T_i (H,) of
token i, W (K, H), b (K,); P_i = softmax(logits_i) over the K tags (BERT paper, Section 4.3 and Figure 4d).
Dropout is off in eval mode, so the by-hand product equals the model's logits up to float rounding.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from explorer.core.data.words import recorded_rule, rule_of
from explorer.core.tagging.alignment import (
    Entity,
    entity_offsets,
    merge_word_predictions,
    split_words,
    window_rows,
    word_pieces,
)


def softmax(z: np.ndarray) -> np.ndarray:
    """Softmax over the last axis (max subtracted first)."""
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@dataclass
class TaggedText:
    """One text tagged.

    Attributes:
        text: the input. words / offsets: its words and their character (start, end) in ``text``.
        tag_names: the K tags (id2label order). logits (n_words, K): each word's logits from its first piece
            (the max-context window when the text needed several); probabilities (n_words, K) = softmax.
        tags: the argmax tag per word. entities: seqeval-strict IOB2 entities with character offsets.
        pieces: the word pieces of the first window as the model saw them ([CLS] ... [SEP]); piece_words:
            the word index of each piece (None for specials); hidden (n_pieces, H): the final hidden vectors
            T_i of that window; piece_logits (n_pieces, K): the model's logits per piece (float64 copies).
        word_rule: the rule ``words`` were split by (explorer.core.data.words: the one the model's training
            words were formed by). word_rule_recorded: the rule was given or the model records it; False: the
            model records none and the default rule was used (explorer.core.data.words.rule_note says so).
    """

    text: str
    words: list[str]
    offsets: list[tuple[int, int]]
    tag_names: list[str]
    logits: np.ndarray
    probabilities: np.ndarray
    tags: list[str]
    entities: list[Entity]
    pieces: list[str] = field(default_factory=list)
    piece_words: list = field(default_factory=list)
    hidden: np.ndarray | None = None
    piece_logits: np.ndarray | None = None
    word_rule: str = ""
    word_rule_recorded: bool = True


def tag_names_of(model) -> list[str]:
    """The K tags of a token-classification model, from its config's id2label."""
    cfg = model.config
    id2label = getattr(cfg, "id2label", None) or {}
    k = int(getattr(cfg, "num_labels", 0) or len(id2label))
    return [str(id2label.get(i, id2label.get(str(i), f"LABEL_{i}"))) for i in range(k)]


def tag_texts(model, tokenizer, texts: list[str], *, max_seq_length: int = 128, batch_size: int = 32,
              keep_hidden: bool = False, word_rule: str | None = None) -> list[TaggedText]:
    """Tag raw texts: words split by the rule the model's training words were formed by (``word_rule``, default
    the one its config records: explorer.core.data.words.rule_of), pieces aligned with the fast tokenizer's
    word_ids, long texts in overlapping windows merged per word (as training evaluates). ``keep_hidden`` also
    keeps the first window's pieces, T_i and logits (the Tag page)."""
    rule = word_rule or rule_of(model)
    recorded = bool(word_rule or recorded_rule(model))
    split = [split_words(t, rule) for t in texts]
    sentences = [w for w, _ in split]
    nonempty = [i for i, w in enumerate(sentences) if w]
    merged, rows, row_logits, row_hidden, first_rows = _forward_words(
        model, tokenizer, [sentences[i] for i in nonempty], max_seq_length, batch_size, keep_hidden)
    names = tag_names_of(model)
    by_text = dict(zip(nonempty, merged))
    results = []
    for i, text in enumerate(texts):
        words, offsets = split[i]
        z = by_text.get(i, np.zeros((0, len(names))))
        p = softmax(z) if len(z) else z
        tags = [names[k] for k in z.argmax(-1)] if len(z) else []
        res = TaggedText(text, words, offsets, names, z, p, tags, entity_offsets(text, offsets, tags), word_rule=rule,
                         word_rule_recorded=recorded)
        if keep_hidden and i in by_text:
            r = first_rows[nonempty.index(i)]
            res.pieces = tokenizer.convert_ids_to_tokens(rows[r][0])
            res.piece_words = list(rows[r][1])
            res.hidden = row_hidden[r]
            res.piece_logits = row_logits[r]
        results.append(res)
    return results


def _forward_words(model, tokenizer, sentences: list[list[str]], max_seq_length: int, batch_size: int,
                   keep_hidden: bool = False, progress=None):
    """(per-sentence word logits, rows, per-row logits, per-row hidden (first rows, keep_hidden), sentence ->
    its first row) for sentences of words, in length-sorted batches; ``progress(rows done, rows)`` after each."""
    import torch

    pieces = word_pieces(tokenizer, sentences)
    rows = window_rows(tokenizer, pieces, max_seq_length)
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    device = next(model.parameters()).device
    row_logits: list[np.ndarray] = [None] * len(rows)   # type: ignore[list-item]
    row_hidden: dict[int, np.ndarray] = {}
    first_rows = {rows[r][2][0]: r for r in reversed(range(len(rows)))}
    firsts = set(first_rows.values())
    order = sorted(range(len(rows)), key=lambda r: len(rows[r][0]))
    from explorer.core.models.eval_mode import inference

    with inference(model):   # eval mode (dropout off), no autograd, every submodule's mode restored
        for s in range(0, len(order), batch_size):
            idx = order[s:s + batch_size]
            width = max(len(rows[r][0]) for r in idx)
            ids = torch.full((len(idx), width), pad_id, dtype=torch.long)
            mask = torch.zeros((len(idx), width), dtype=torch.long)
            for j, r in enumerate(idx):
                ids[j, :len(rows[r][0])] = torch.tensor(rows[r][0])
                mask[j, :len(rows[r][0])] = 1
            out = model(input_ids=ids.to(device), attention_mask=mask.to(device),
                        token_type_ids=torch.zeros_like(ids).to(device), output_hidden_states=keep_hidden)
            logits = out.logits.float().cpu().numpy()
            for j, r in enumerate(idx):
                n = len(rows[r][0])
                row_logits[r] = logits[j, :n].astype(np.float64)
                if keep_hidden and r in firsts:
                    row_hidden[r] = out.hidden_states[-1][j, :n].float().cpu().numpy().astype(np.float64)
            if progress is not None:
                progress(min(s + batch_size, len(order)), len(order))
    merged = merge_word_predictions([len(w) for w in sentences], rows, row_logits)
    return merged, rows, row_logits, row_hidden, first_rows


def word_logits(model, tokenizer, sentences: list[list[str]], *, max_seq_length: int = 128,
                batch_size: int = 32, progress=None) -> list[np.ndarray]:
    """(n_words, K) logits per sentence of already split words (a dev file), each word from its first piece
    in its max-context window. ``progress(done, total)``: called after each batch with model rows (windows)
    done and in all."""
    return _forward_words(model, tokenizer, sentences, max_seq_length, batch_size, progress=progress)[0]


@dataclass
class TokenHead:
    """The head written out for one piece i: ``T`` (H,), ``W`` (K, H), ``b`` (K,), ``by_hand`` = T W^T + b
    (float64), ``model_logits`` (the model's, K), ``max_abs_diff`` between them, ``probabilities`` =
    softmax(by_hand), ``tag_names``."""

    index: int
    piece: str
    T: np.ndarray
    W: np.ndarray
    b: np.ndarray
    by_hand: np.ndarray
    model_logits: np.ndarray
    max_abs_diff: float
    probabilities: np.ndarray
    tag_names: list[str]


def classifier_of(model):
    """The token-classification head's Linear layer (``model.classifier`` for BERT, RoBERTa, ...)."""
    head = getattr(model, "classifier", None)
    if head is None or not hasattr(head, "weight"):
        raise ValueError(f"{type(model).__name__} has no linear classifier head")
    return head


def token_head(model, tagged: TaggedText, index: int) -> TokenHead:
    """logits_i = T_i W^T + b for piece ``index`` of ``tagged`` (from :func:`tag_texts` with keep_hidden),
    checked against the model's logits (max_abs_diff ~1e-6 in float32).

    Raises:
        IndexError: ``index`` outside the pieces.
    """
    if tagged.hidden is None or not 0 <= index < len(tagged.hidden):
        raise IndexError(f"piece {index} is not one of the {0 if tagged.hidden is None else len(tagged.hidden)}")
    head = classifier_of(model)
    W = head.weight.detach().float().cpu().numpy().astype(np.float64)
    b = head.bias.detach().float().cpu().numpy().astype(np.float64) if head.bias is not None else np.zeros(len(W))
    return piece_head(tagged, W, b, index)


def piece_head(tagged: TaggedText, W: np.ndarray, b: np.ndarray, index: int) -> TokenHead:
    """logits_i = T_i W^T + b for piece ``index`` from the head's ``W`` and ``b`` (those of any TokenHead of the same
    model), without the model: the Tag page writes out another word's arithmetic from the result it holds.

    Raises:
        IndexError: ``index`` outside the pieces.
    """
    if tagged.hidden is None or not 0 <= index < len(tagged.hidden):
        raise IndexError(f"piece {index} is not one of the {0 if tagged.hidden is None else len(tagged.hidden)}")
    T = tagged.hidden[index]
    z = T @ W.T + b
    ref = tagged.piece_logits[index]
    return TokenHead(index, tagged.pieces[index], T, W, b, z, ref, float(np.max(np.abs(z - ref))), softmax(z),
                     list(tagged.tag_names))


def first_piece_of_word(tagged: TaggedText, word: int) -> int | None:
    """The piece (in the first window's pieces) a word (0-based) is predicted from: its first piece; None when
    the word is not in the first window (a text longer than one window) or has no piece."""
    for i, w in enumerate(tagged.piece_words):
        if w is not None and int(w) == word:
            return i
    return None


@dataclass
class AttentionWindow:
    """One model row of a tagged text, as the attention view reads a window (the fields it shares with a QA
    probe's ProbeWindow). ``tokens``: the pieces ([CLS] ... [SEP]); ``word_ids``: each piece's word index in
    the text (None for specials); ``blocks``: "question" for the sentence's pieces (block 0, the first and
    only sequence, as core.classify.arithmetic names it sentence A) and "special" for [CLS] / [SEP]; ``offsets``: each
    piece's word's character (start, end) in the text (None for specials); ``index``: the window number."""

    index: int
    tokens: list[str]
    word_ids: list
    blocks: list[str]
    offsets: list


@dataclass
class TagAttention:
    """The attention of a tagged text, window by window, under the probe's memory budget rule
    (explorer.core.attention.budget): ``attention[k]`` is window k's AttentionData (block flow, token share,
    rollout; raw weights (layers, heads, seq, seq) float16 when kept). When all windows' raw weights fit the
    budget all are kept; otherwise only window 0's, the others computed when shown (:meth:`attention_weights`)
    and ``attention_note`` says what all would have needed. ``attention_note`` also says why a model gave no
    weights (then ``attention`` is [])."""

    text: str
    windows: list[AttentionWindow]
    attention: list
    attention_note: str = ""
    lazy_attention: object | None = field(default=None, repr=False, compare=False)

    def attention_weights(self, k: int):
        """(layers, heads, seq, seq) raw weights of window k, computed now when they were not kept."""
        if self.lazy_attention is not None:
            return self.lazy_attention.fill(self.attention, k)
        return self.attention[k].attentions


def text_attention(model, tokenizer, text: str, *, max_seq_length: int = 128, keep: str = "float16",
                   budget: int | None = None) -> TagAttention:
    """The attention views' data for a text as the Tag page tags it: the same words (split_words), pieces
    and windows (window_rows) as :func:`tag_texts`, each window through one eager forward whose layers are
    summarised as they are produced (explorer.core.attention.forward.attention_forward: LayerSummaries, block flow,
    token share, rollout); the raw weights are those of the model's ``output_attentions``.

    Args:
        model, tokenizer: a token-classification model (any encoder) and its fast tokenizer.
        text: the raw text; max_seq_length: the window length in pieces (as tag_texts).
        keep: dtype of the kept raw weights ("float16" or "float32").
        budget: bytes of raw weights the result may hold (default the probe's ATTENTION_BUDGET_BYTES).

    Returns:
        TagAttention (no windows for a text without words).
    """
    import torch

    from explorer.core.attention.budget import ATTENTION_BUDGET_BYTES, LazyAttention, budget_note
    from explorer.core.models.eval_mode import inference
    from explorer.core.attention.forward import attention_forward, window_attention_fn

    budget = ATTENTION_BUDGET_BYTES if budget is None else budget
    words, offsets = split_words(text, rule_of(model))
    if not words:
        return TagAttention(text, [], [])
    rows = window_rows(tokenizer, word_pieces(tokenizer, [words]), max_seq_length)
    device = next(model.parameters()).device
    cfg = model.config
    note = budget_note([len(r[0]) for r in rows], cfg.num_hidden_layers, cfg.num_attention_heads, budget,
                       np.dtype(keep).itemsize)

    def batch_of(k: int) -> dict:
        ids = torch.tensor([rows[k][0]], dtype=torch.long, device=device)
        return {"input_ids": ids, "attention_mask": torch.ones_like(ids), "token_type_ids": torch.zeros_like(ids)}

    windows, attention = [], []
    with inference(model):
        for k, (ids, wids, _) in enumerate(rows):
            blocks = ["special" if w is None else "question" for w in wids]
            _, summary, unavailable = attention_forward(model, batch_of(k), blocks, None if note and k else keep)
            if unavailable:
                return TagAttention(text, [], [], unavailable)
            windows.append(AttentionWindow(k, tokenizer.convert_ids_to_tokens(ids), list(wids), blocks,
                                           [None if w is None else tuple(offsets[w]) for w in wids]))
            attention.append(summary)
    lazy = LazyAttention(window_attention_fn(model, batch_of, [len(r[0]) for r in rows], keep),
                         within_budget=not note, dtype=keep)
    return TagAttention(text, windows, attention, note, lazy)

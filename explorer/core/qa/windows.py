"""SQuAD windows: question + passage -> overlapping model inputs, character offsets, labels.

A passage longer than the model's input is cut into overlapping *windows* (BERT paper, Section 4.2;
Google's run_squad.py and Hugging Face's run_qa.py do the same). Each window holds
``[CLS] question [SEP] passage-piece [SEP]`` (or the tokenizer's own special tokens).

Settings (standard names, DESIGN.md):
    max_seq_length: tokens per window, special tokens included (384).
    doc_stride: overlap in tokens between consecutive windows of the same passage (128). This is the
        fast tokenizer's ``stride``.
    max_query_length: the question is cut to this many tokens *before* windowing (64), as in
        Google's run_squad.py.

Offsets map every passage token back to a character span ``(start_char, end_char)`` of the
passage (``passage[start_char:end_char]`` is the token's text); question and special tokens get
``None``.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from dataclasses import dataclass, field

from explorer.core.models.window_settings import (WindowLimits, WindowSettingProblem, WindowSettingsError,  # noqa: F401
                                           check_limits, check_window_settings, require_window_settings)

_SPACE = re.compile(r"\s+")
CHUNK = 1000  # questions tokenized per call (bounded memory for large files)


@dataclass
class QAFeatures:
    """One row per window; plain lists, not padded (:func:`collate_qa` pads per batch).

    Attributes:
        input_ids: token ids of each window, ``len(input_ids[k]) <= max_seq_length``.
        token_type_ids: segment ids (0 question, 1 passage) or None for tokenizers without them
            (RoBERTa-style).
        attention_mask: all ones (no padding stored).
        example_index: index into the questions/contexts given to :func:`prepare_qa_features`.
        offset_mapping: per token ``(start_char, end_char)`` into the example's passage, or None
            for question and special tokens.
        cls_index: position of ``tokenizer.cls_token_id`` in the window (the no-answer position;
            0 for BERT, but never assumed).
        start_positions, end_positions: training labels (token positions), or None when no answers
            were given. ``cls_index`` when the example has no answer or its answer is not entirely
            inside this window.
        sequence_ids: per token 0 (question), 1 (passage) or None (special), as the tokenizer's
            ``sequence_ids`` (relative to question-first order, whatever the padding side).
    """

    input_ids: list[list[int]]
    token_type_ids: list[list[int]] | None
    attention_mask: list[list[int]]
    example_index: list[int]
    offset_mapping: list[list[tuple[int, int] | None]]
    cls_index: list[int]
    start_positions: list[int] | None = None
    end_positions: list[int] | None = None
    sequence_ids: list[list[int | None]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.input_ids)

    def lengths(self) -> list[int]:
        """Number of tokens in each window (for sorting by length / bucketing)."""
        return [len(ids) for ids in self.input_ids]

    def windows_of(self) -> dict[int, list[int]]:
        """example index -> list of its window indices, in window order."""
        groups: dict[int, list[int]] = {}
        for k, ex in enumerate(self.example_index):
            groups.setdefault(ex, []).append(k)
        return groups


def _truncate_questions(questions: list[str], tokenizer, max_query_length: int) -> tuple[list[str], list[int]]:
    """Strip leading spaces and cut each question to its first ``max_query_length`` tokens (by characters,
    via offsets, so the pair encoding sees exactly those tokens). Returns (questions, token counts). The whole
    question is tokenized on purpose before the cut, so transformers' "Token indices sequence length is longer
    than the specified maximum ... indexing errors" warning would be false: ``verbose=False`` keeps it out."""
    qs = [q.lstrip() for q in questions]
    enc = tokenizer(qs, add_special_tokens=False, return_offsets_mapping=True, verbose=False)
    out, lengths = [], []
    for q, offs in zip(qs, enc["offset_mapping"]):
        if len(offs) > max_query_length:
            q = q[: offs[max_query_length - 1][1]]
        out.append(q)
        lengths.append(min(len(offs), max_query_length))
    return out, lengths


def prepare_qa_features(questions: list[str], contexts: list[str], tokenizer, *, max_seq_length: int = 384,
                        doc_stride: int = 128, max_query_length: int = 64,
                        answers: list[dict] | None = None) -> QAFeatures:
    """Tokenize question/passage pairs into overlapping windows, with offsets and optional labels.

    Args:
        questions, contexts: one question and its passage per example (same length).
        tokenizer: a *fast* tokenizer (offset mappings). Tokenizers that pad on the left (XLNet-style)
            get ``passage, question`` order, as in run_qa.py.
        max_seq_length: window size in tokens, special tokens included.
        doc_stride: overlap in tokens between consecutive windows (tokenizers' ``stride``).
        max_query_length: questions are cut to this many tokens first.
        answers: optional, per example ``{"text": [...], "answer_start": [...]}`` (SQuAD format);
            the first answer gives the labels, an empty list means "no answer" (label = cls_index).

    Returns:
        QAFeatures with one row per window (every example gets at least one window).

    Raises:
        ValueError: mismatched lengths, a slow tokenizer; WindowSettingsError (a ValueError) for settings
            that leave no room for the passage (``doc_stride`` must be smaller than the passage room
            ``max_seq_length - question tokens - special tokens``; window_settings.py).

    Label rule (run_qa.py / Google run_squad.py): the answer's character span
    ``[answer_start, answer_start + len(text))`` is mapped to the first token whose span covers its
    first character and the last token that covers its last character; if the window does not
    contain the whole answer, both labels are ``cls_index``.
    """
    if len(questions) != len(contexts):
        raise ValueError(f"prepare_qa_features: {len(questions)} questions but {len(contexts)} contexts")
    if answers is not None and len(answers) != len(questions):
        raise ValueError(f"prepare_qa_features: {len(answers)} answers for {len(questions)} questions")
    if not getattr(tokenizer, "is_fast", False):
        raise ValueError("prepare_qa_features needs a fast tokenizer (character offsets)")
    if max_query_length < 1 or max_seq_length < 8 or doc_stride < 0:
        raise ValueError(f"bad window settings: max_seq_length={max_seq_length}, doc_stride={doc_stride}, "
                         f"max_query_length={max_query_length}")
    pad_on_right = getattr(tokenizer, "padding_side", "right") == "right"
    n_special = tokenizer.num_special_tokens_to_add(pair=True)
    cls_id = tokenizer.cls_token_id

    feats = QAFeatures(input_ids=[], token_type_ids=[], attention_mask=[], example_index=[],
                       offset_mapping=[], cls_index=[],
                       start_positions=[] if answers is not None else None,
                       end_positions=[] if answers is not None else None, sequence_ids=[])
    has_tt = True
    for lo in range(0, len(questions), CHUNK):
        qs, q_lens = _truncate_questions(questions[lo:lo + CHUNK], tokenizer, max_query_length)
        cs = list(contexts[lo:lo + CHUNK])
        check_limits_or_raise(WindowLimits(n_special=n_special, name="this tokenizer"), max_seq_length, doc_stride,
                              max_query_length, question_tokens=max(q_lens))
        enc = tokenizer(qs if pad_on_right else cs, cs if pad_on_right else qs,
                        truncation="only_second" if pad_on_right else "only_first",
                        max_length=max_seq_length, stride=doc_stride, return_overflowing_tokens=True,
                        return_offsets_mapping=True, padding=False)
        sample_map = enc["overflow_to_sample_mapping"]
        has_tt = has_tt and "token_type_ids" in enc
        for k in range(len(enc["input_ids"])):
            ids = enc["input_ids"][k]
            seq_ids = enc.sequence_ids(k)
            if not pad_on_right:  # report question-first semantics: 0 question, 1 passage
                seq_ids = [None if s is None else 1 - s for s in seq_ids]
            offs = [tuple(o) if s == 1 else None for o, s in zip(enc["offset_mapping"][k], seq_ids)]
            snap_offsets(offs, ids, cs[sample_map[k]], tokenizer)
            cls = ids.index(cls_id) if cls_id is not None and cls_id in ids else 0
            ex = lo + sample_map[k]
            feats.input_ids.append(ids)
            if has_tt:
                feats.token_type_ids.append(enc["token_type_ids"][k])
            feats.attention_mask.append(enc["attention_mask"][k])
            feats.example_index.append(ex)
            feats.offset_mapping.append(offs)
            feats.cls_index.append(cls)
            feats.sequence_ids.append(seq_ids)
            if answers is not None:
                s, e = _label(answers[ex], offs, cls)
                feats.start_positions.append(s)
                feats.end_positions.append(e)
    if not has_tt:
        feats.token_type_ids = None
    return feats


def check_limits_or_raise(limits: WindowLimits, max_seq_length: int, doc_stride: int, max_query_length: int,
                          *, question_tokens: int | None = None) -> None:
    """Raise :class:`WindowSettingsError` (a ValueError) for the error-severity problems of these settings."""
    errors = [p for p in check_limits(limits, max_seq_length, doc_stride, max_query_length,
                                      question_tokens=question_tokens) if p.severity == "error"]
    if errors:
        raise WindowSettingsError(errors)


def _label(answer: dict, offs: list, cls: int) -> tuple[int, int]:
    """(start_token, end_token) of the first answer inside this window, else (cls, cls)."""
    texts = answer.get("text") or []
    starts = answer.get("answer_start") or []
    if not texts or not starts:
        return cls, cls
    span = token_span(offs, int(starts[0]), int(starts[0]) + len(texts[0]), texts[0])
    return span if span is not None else (cls, cls)


def token_span(offs: list, start_char: int, end_char: int, text: str | None = None) -> tuple[int, int] | None:
    """Token positions ``(start, end)`` (inclusive) of the character span ``[start_char, end_char)`` in one
    window, or None when the window does not hold the whole span.

    Rule of run_qa.py / Google's run_squad.py: the start token is the last passage token starting at or
    before ``start_char``, the end token the first passage token ending at or after ``end_char``.
    Whitespace at either edge of ``text`` (the gold answer, when given) is left out first, so a gold
    "Denver Broncos " labels the tokens of "Denver Broncos", not the next word.
    ``offs``: the window's offsets (None for question/special tokens), as :func:`snap_offsets` left them.
    """
    if text is not None and text != text.strip():
        lead = len(text) - len(text.lstrip())
        trail = len(text) - len(text.rstrip())
        if lead + trail < len(text):
            start_char, end_char = start_char + lead, end_char - trail
    passage = [k for k, o in enumerate(offs) if o is not None]
    if not passage:
        return None
    first, last = passage[0], passage[-1]
    if offs[first][0] > start_char or offs[last][1] < end_char:
        return None
    starts = [offs[k][0] for k in passage]
    ends = [offs[k][1] for k in passage]
    s = passage[max(bisect.bisect_right(starts, start_char) - 1, 0)]
    e = passage[min(bisect.bisect_left(ends, end_char), len(passage) - 1)]
    if e < s:  # answer inside one token's span: both point at that token
        e = s
    return s, e


def snap_offsets(offs: list, input_ids: list[int], passage: str, tokenizer) -> list:
    """Fix, in place, passage-token offsets that do not round-trip to the passage text.

    - A standalone word-start marker token (SentencePiece "▁": XLM-R, ALBERT, DeBERTa-v3) whose span
      overlaps the next token (the real word) becomes zero-width at its start: it covers no character.
    - A token that covers a word and the whitespace before or after it (Metaspace "▁word" spans the space
      it replaced) is trimmed to the word, as byte-level BPE's ``trim_offsets`` does; whitespace-only
      tokens keep their span.
    - Characters that a normaliser dropped or merged and no token covers are given to a neighbour:
      combining marks (U+0301 after "Cafe", composed by NFKC) to the token before them, other
      non-space characters (the first of two backquotes that a Replace normaliser turned into one
      quote) to the token after them.
    Byte-level BPE leading-space tokens are already zero-width with ``trim_offsets`` (RoBERTa).
    Returns ``offs``.
    """
    pos = [k for k, o in enumerate(offs) if o is not None]
    if _clean(offs, pos, passage):
        return offs
    for a, b in zip(pos, pos[1:] + [None]):
        s, e = offs[a]
        if b is not None and offs[b][0] < e and s < e:
            token = tokenizer.convert_ids_to_tokens(input_ids[a])
            if token and not token.strip("\u2581"):
                offs[a] = (s, s)
                continue
        if s < e and (passage[s].isspace() or passage[e - 1].isspace()) and passage[s:e].strip():
            text = passage[s:e]
            offs[a] = (s + len(text) - len(text.lstrip()), e - len(text) + len(text.rstrip()))
    covered, prev = None, None
    for a in pos:
        s, e = offs[a]
        if covered is not None and covered < s:
            gap_end = covered
            while gap_end < s and unicodedata.combining(passage[gap_end]):
                gap_end += 1
            if gap_end > covered and prev is not None:
                offs[prev] = (offs[prev][0], gap_end)
            gap_start = s
            while gap_start > gap_end and not passage[gap_start - 1].isspace():
                gap_start -= 1
            s = gap_start
            offs[a] = (s, e)
        covered = e if covered is None else max(covered, e)
        prev = a
    return offs


def _clean(offs: list, pos: list[int], passage: str) -> bool:
    """Fast path (most windows of WordPiece and byte-level BPE tokenizers): the tokens' texts, joined, are the
    window's passage text without its whitespace, so no token overlaps another, none has whitespace at an
    edge and nothing but whitespace lies between them -> nothing to snap."""
    if not pos:
        return True
    covered = "".join([passage[offs[k][0]:offs[k][1]] for k in pos])
    return covered == _SPACE.sub("", passage[offs[pos[0]][0]:offs[pos[-1]][1]])


def collate_qa(features: QAFeatures, indices: list[int], pad_token_id: int, *,
               pad_to_multiple_of: int | None = None) -> dict:
    """Dynamic padding: stack the windows ``indices`` into tensors padded to the longest of them.

    Args:
        features: from :func:`prepare_qa_features`.
        indices: window indices for this batch.
        pad_token_id: ``tokenizer.pad_token_id``.
        pad_to_multiple_of: round the padded length up (e.g. 8 for tensor cores); None = exact.

    Returns:
        dict of torch.long tensors: ``input_ids``, ``attention_mask`` (batch, L), ``token_type_ids``
        when the tokenizer has them, and ``start_positions``, ``end_positions`` (batch,) when the
        features carry labels. Padding is on the right (positions 0..len-1 keep their meaning).

    Raises:
        ValueError: empty ``indices``.
    """
    import torch

    if len(indices) == 0:
        raise ValueError("collate_qa: empty batch")
    length = max(len(features.input_ids[i]) for i in indices)
    if pad_to_multiple_of:
        length = -(-length // pad_to_multiple_of) * pad_to_multiple_of
    n = len(indices)
    input_ids = torch.full((n, length), int(pad_token_id), dtype=torch.long)
    attention = torch.zeros((n, length), dtype=torch.long)
    types = torch.zeros((n, length), dtype=torch.long) if features.token_type_ids is not None else None
    for row, i in enumerate(indices):
        ids = features.input_ids[i]
        input_ids[row, :len(ids)] = torch.tensor(ids, dtype=torch.long)
        attention[row, :len(ids)] = torch.tensor(features.attention_mask[i], dtype=torch.long)
        if types is not None:
            types[row, :len(ids)] = torch.tensor(features.token_type_ids[i], dtype=torch.long)
    batch = {"input_ids": input_ids, "attention_mask": attention}
    if types is not None:
        batch["token_type_ids"] = types
    if features.start_positions is not None:
        batch["start_positions"] = torch.tensor([features.start_positions[i] for i in indices], dtype=torch.long)
        batch["end_positions"] = torch.tensor([features.end_positions[i] for i in indices], dtype=torch.long)
    return batch

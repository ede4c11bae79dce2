"""Token tagging arithmetic shared by training, evaluation, predict and the Tag page (torch-free).

- Word pieces and labels (BERT paper, Section 4.3 and Appendix A.5; Hugging Face ``run_ner.py``): each
  word is split into word pieces by the fast tokenizer; the *first* piece of a word carries the word's
  tag id and every other piece, and [CLS] / [SEP], gets -100 (ignored by the cross-entropy), so the model
  predicts one tag per word from its first piece (:func:`align_labels`).
- Windows: a sentence whose pieces do not fit ``max_seq_length - 2`` is split into windows of whole words
  that overlap by at least ``overlap`` pieces (:func:`plan_windows`); nothing is cut. Every word is then
  predicted from the window in which it has the most context on both sides (the "max context" rule of the
  official ``run_squad.py``, applied per word; :func:`best_windows`).
- Entities: IOB2 tags to (type, first word, last word) as seqeval's strict IOB2 mode reads them, and
  character offsets in the text the words came from (:func:`entity_offsets`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

IGNORE_INDEX = -100   # torch.nn.CrossEntropyLoss's default ignore_index


def align_labels(word_ids: list[int | None], word_labels: list[int]) -> list[int]:
    """Piece labels from a fast tokenizer's ``word_ids()`` (None for special tokens): the first piece of
    word w gets ``word_labels[w]``, later pieces of w and specials get -100. Length = len(word_ids)."""
    out: list[int] = []
    prev = None
    for w in word_ids:
        out.append(IGNORE_INDEX if w is None or w == prev else int(word_labels[w]))
        prev = w
    return out


def first_pieces(word_ids: list[int | None]) -> dict[int, int]:
    """word index -> position of its first piece in ``word_ids``."""
    out: dict[int, int] = {}
    for pos, w in enumerate(word_ids):
        if w is not None and w not in out:
            out[w] = pos
    return out


@dataclass(frozen=True)
class Window:
    """Words ``start .. end - 1`` of one sentence, fed as one model row (pieces <= room)."""

    start: int
    end: int


def plan_windows(piece_counts: list[int], room: int, overlap: int) -> list[Window]:
    """Whole-word windows over a sentence whose word ``w`` has ``piece_counts[w]`` pieces.

    Each window holds at most ``room`` pieces (a single word longer than ``room`` gets a window of its own
    and the caller keeps its first ``room`` pieces: its label sits on the first); consecutive windows share
    words worth at least ``overlap`` pieces (fewer only when one word is longer than that); every word is in
    at least one window. One window when the sentence fits.

    Raises:
        ValueError: room < 1 or overlap >= room.
    """
    if room < 1 or overlap >= room:
        raise ValueError(f"window room {room} must be >= 1 and larger than the overlap {overlap}")
    n = len(piece_counts)
    if sum(piece_counts) <= room:
        return [Window(0, n)]
    windows: list[Window] = []
    start = 0
    while True:
        end, used = start, 0
        while end < n and (used + piece_counts[end] <= room or end == start):
            used += piece_counts[end]
            end += 1
        windows.append(Window(start, end))
        if end >= n:
            return windows
        nxt, shared = end, 0
        while nxt - 1 > start and shared < overlap:
            nxt -= 1
            shared += piece_counts[nxt]
        start = max(nxt, start + 1)


def best_windows(windows: list[Window], n_words: int) -> list[int]:
    """For each word, the index of the window where it has the most context: max over windows holding it
    of min(words before it, words after it) in that window; a tie keeps the earlier window."""
    best = [-1] * n_words
    score = [-1] * n_words
    for k, win in enumerate(windows):
        for w in range(win.start, win.end):
            s = min(w - win.start, win.end - 1 - w)
            if s > score[w]:
                best[w], score[w] = k, s
    return best


@dataclass(frozen=True)
class Entity:
    """One entity: ``type`` (PER), words ``start_word .. end_word`` (inclusive), and character offsets
    ``start`` / ``end`` (end exclusive) in the text, ``text`` = text[start:end]."""

    type: str
    start_word: int
    end_word: int
    start: int = -1
    end: int = -1
    text: str = ""

    def to_dict(self) -> dict:
        return {"text": self.text, "type": self.type, "start": self.start, "end": self.end}


def entities_of(tags: list[str]) -> list[Entity]:
    """Entities of an IOB2 tag sequence as seqeval's strict IOB2 mode reads them: B-X starts one, I-X
    continues it, anything else (O, another type, an I-X that starts) ends it; an I-X without its B-X is no
    entity (strict)."""
    out: list[Entity] = []
    cur: tuple[str, int] | None = None
    for i, t in enumerate(list(tags) + ["O"]):
        p, typ = (t[0], t[2:]) if t != "O" and len(t) > 2 else ("O", "")
        if cur is not None and not (p == "I" and typ == cur[0]):
            out.append(Entity(cur[0], cur[1], i - 1))
            cur = None
        if p == "B":
            cur = (typ, i)
    return out


def word_offsets(text: str, words: list[str]) -> list[tuple[int, int]]:
    """Character (start, end) of each word in ``text``, found left to right; words not found in order
    get (-1, -1)."""
    out, pos = [], 0
    for w in words:
        at = text.find(w, pos)
        if at < 0:
            out.append((-1, -1))
            continue
        out.append((at, at + len(w)))
        pos = at + len(w)
    return out


def entity_offsets(text: str, offsets: list[tuple[int, int]], tags: list[str]) -> list[Entity]:
    """Entities of ``tags`` with character offsets from the words' ``offsets`` in ``text``."""
    out = []
    for e in entities_of(tags):
        start, end = offsets[e.start_word][0], offsets[e.end_word][1]
        out.append(Entity(e.type, e.start_word, e.end_word, start, end, text[start:end] if start >= 0 else ""))
    return out


def split_words(text: str, rule: str | None = None) -> tuple[list[str], list[tuple[int, int]]]:
    """Raw text to words and their character offsets by a word splitting ``rule`` (explorer.core.data.words;
    default: runs of letters / digits, and every other non-space character on its own)."""
    from explorer.core.data.words import split_words as by_rule

    return by_rule(text, rule)


def window_overlap(room: int) -> int:
    """Pieces shared by consecutive windows of a long sentence: a quarter of the room."""
    return max(0, room // 4)


def word_pieces(tokenizer, sentences: list[list[str]]) -> list[list[list[int]]]:
    """Piece ids of every word of every sentence (fast tokenizer, ``is_split_into_words``); a word the
    tokenizer turns into no piece at all gets the unknown token, so every word has a first piece. Whole
    sentences are tokenized on purpose (:func:`window_rows` cuts them into windows), so transformers' "Token
    indices sequence length is longer than the specified maximum ... will result in indexing errors" warning
    would be false here: ``verbose=False`` keeps it out."""
    if not sentences:
        return []
    enc = tokenizer(sentences, is_split_into_words=True, add_special_tokens=False, verbose=False)
    unk = tokenizer.unk_token_id if tokenizer.unk_token_id is not None else 0
    out = []
    for i, words in enumerate(sentences):
        pieces: list[list[int]] = [[] for _ in words]
        for pid, w in zip(enc["input_ids"][i], enc.word_ids(i)):
            if w is not None:
                pieces[w].append(int(pid))
        out.append([p or [unk] for p in pieces])
    return out


def window_rows(tokenizer, pieces: list[list[list[int]]], max_seq_length: int):
    """Model rows for sentences of word pieces: ``(input_ids, word_ids, (sentence, window index, Window))``
    per row, [CLS] + pieces + [SEP]; a word longer than the room keeps its first ``room`` pieces."""
    room = max_seq_length - 2
    cls = tokenizer.cls_token_id if tokenizer.cls_token_id is not None else tokenizer.bos_token_id
    sep = tokenizer.sep_token_id if tokenizer.sep_token_id is not None else tokenizer.eos_token_id
    rows = []
    for i, sent in enumerate(pieces):
        counts = [min(len(p), room) for p in sent]
        for k, win in enumerate(plan_windows(counts, room, window_overlap(room))):
            ids, wids = [cls], [None]
            for w in range(win.start, win.end):
                ids.extend(sent[w][:room])
                wids.extend([w] * min(len(sent[w]), room))
            ids.append(sep)
            wids.append(None)
            rows.append((ids, wids, (i, k, win)))
    return rows


def merge_word_predictions(n_words: list[int], rows, row_values: list[np.ndarray]) -> list[np.ndarray]:
    """Per sentence, one value per word (e.g. logits (n_words, K)) taken from the first piece of each word
    in the window where it has the most context (:func:`explorer.core.tagging.alignment.best_windows`)."""
    by_sentence: dict[int, list[int]] = {}
    for r, (_, _, (i, _, _)) in enumerate(rows):
        by_sentence.setdefault(i, []).append(r)
    out = []
    for i, n in enumerate(n_words):
        rs = by_sentence.get(i, [])
        wins = [rows[r][2][2] for r in rs]
        best = best_windows(wins, n)
        k_dim = row_values[rs[0]].shape[-1] if rs else 0
        words = np.zeros((n, k_dim), dtype=np.float32)
        for w in range(n):
            r = rs[best[w]]
            pos = rows[r][1].index(w)
            words[w] = row_values[r][pos]
        out.append(words)
    return out


MISSED = "missed"       # a gold entity no predicted entity has the same span as
SPURIOUS = "spurious"   # a predicted entity no gold entity has the same span as


def entity_confusion(gold: list[list[str]], pred: list[list[str]], types: list[str]) -> tuple[list[str], list[str],
                                                                                            np.ndarray]:
    """Confusion between entity types on exact spans: rows = gold type or "spurious", columns = predicted
    type or "missed". A gold entity whose span is predicted with another type counts in (gold, predicted);
    a boundary error counts once as missed and once as spurious. Returns (row names, column names, counts)."""
    rows, cols = list(types) + [SPURIOUS], list(types) + [MISSED]
    counts = np.zeros((len(rows), len(cols)), dtype=np.int64)
    for g, p in zip(gold, pred):
        gs = {(e.start_word, e.end_word): e.type for e in entities_of(g)}
        ps = {(e.start_word, e.end_word): e.type for e in entities_of(p)}
        for span, t in gs.items():
            counts[rows.index(t), cols.index(ps[span]) if span in ps else -1] += 1
        for span, t in ps.items():
            if span not in gs:
                counts[-1, cols.index(t)] += 1
    return rows, cols, counts


@dataclass
class TagMistake:
    """One wrongly tagged word: sentence index, word index, the sentence's words joined by spaces, the word,
    gold and predicted tags, and the predicted tag's probability (how sure the model was)."""

    sentence: int
    word: int
    text: str
    token: str
    gold: str
    predicted: str
    confidence: float


@dataclass
class TagDevReport:
    """A dev file tagged: source, f1 / precision / recall / token_accuracy (seqeval strict IOB2, 0..1),
    per_type {type: {precision, recall, f1, support}}, the type confusion (confusion_rows, confusion_cols,
    confusion), and the most confident mistakes (highest probability on a wrong tag first)."""

    source: str
    n_sentences: int
    f1: float
    precision: float
    recall: float
    token_accuracy: float
    per_type: dict
    confusion_rows: list[str]
    confusion_cols: list[str]
    confusion: np.ndarray
    mistakes: list[TagMistake]


def tag_dev_report(source: str, words: list[list[str]], gold: list[list[str]], probabilities: list[np.ndarray],
                   tag_names: list[str], *, n_mistakes: int = 50) -> TagDevReport:
    """The dev view's figures from every word's tag probabilities ((n_words, K) per sentence)."""
    from explorer.core.metrics.tagging import tagging_metrics

    pred = [[tag_names[k] for k in p.argmax(-1)] if len(p) else [] for p in probabilities]
    m = tagging_metrics(gold, pred)
    types = list(dict.fromkeys(t[2:] for t in tag_names if t != "O" and len(t) > 2))
    rows, cols, counts = entity_confusion(gold, pred, types)
    mistakes = []
    for i, (g, p, pr) in enumerate(zip(gold, pred, probabilities)):
        for j, (a, b) in enumerate(zip(g, p)):
            if a != b:
                mistakes.append(TagMistake(i, j, " ".join(words[i]), words[i][j], a, b, float(pr[j].max())))
    mistakes.sort(key=lambda x: -x.confidence)
    return TagDevReport(source, len(words), m["f1"], m["precision"], m["recall"], m["token_accuracy"], m["per_type"],
                        rows, cols, counts, mistakes[:n_mistakes])

"""Token-tagging data (named entities): CoNLL column files and JSONL ``tokens`` / ``tags`` records.

CoNLL files (CoNLL-2003 shared task, Tjong Kim Sang and De Meulder 2003): one word a line, columns
separated by spaces or tabs, the word in the first column and the tag in the last (2 columns ``word tag``
or 4 columns ``word POS chunk tag``; every line of a file has the same count); a blank line ends a
sentence; ``-DOCSTART-`` lines (document breaks) are skipped. JSONL: one object a line with ``tokens`` and
``tags`` (or ``ner_tags``) lists of strings, the Hugging Face ``conll2003`` layout with its tags as names.

Tag schemes (Ratinov and Roth 2009): IOB1 (I-X starts an entity, B-X only between two adjacent entities
of one type; the original CoNLL-2003 release), IOB2 (every entity starts with B-X) and BIOES / BILOU
(S-/U- single-word entities, E-/L- last words). The scheme is detected from the training file and every
file is converted to IOB2, which the model learns and seqeval's strict mode scores; a note says so.

An I-X tag that follows O or another type in IOB2 (a broken entity start) is an error naming the file
and line; with ``repair=True`` (``skip_invalid``) it is repaired as conlleval reads it (the I-X starts a
new entity, i.e. it becomes B-X) and the repairs are counted in a note.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path

from explorer.core.errors import TaggingDataError

DOCSTART = "-DOCSTART-"
SCHEMES = ("IOB1", "IOB2", "BIOES")


@dataclass
class TaggingData:
    """Sentences of words with one IOB2 tag per word.

    Attributes:
        source: the file read.
        words: words per sentence.
        tags: IOB2 tags per sentence (same lengths as ``words``).
        lines: 1-based file line of each word (JSONL: the record's line), for messages.
        scheme: the scheme found in the file ("IOB1", "IOB2" or "BIOES"; converted to IOB2).
        columns: columns per line (CoNLL), 0 for JSONL.
        notes: plain sentences on what reading found (scheme conversion, repairs, skipped DOCSTART lines).
        label_names: the tag set in id order (id2label); set from the training data, see :func:`tag_set`.
    """

    source: str
    words: list[list[str]]
    tags: list[list[str]]
    lines: list[list[int]]
    scheme: str = "IOB2"
    columns: int = 0
    notes: list[str] = field(default_factory=list)
    label_names: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.words)

    @property
    def num_labels(self) -> int:
        return len(self.label_names)

    def subset(self, indices: list[int]) -> TaggingData:
        """These sentences at ``indices``, in that order (the dev sample's order: eval_schedule); the tag set, scheme
        and notes stay."""
        idx = [int(i) for i in indices]
        return replace(self, words=[self.words[i] for i in idx], tags=[self.tags[i] for i in idx],
                       lines=[self.lines[i] for i in idx], notes=list(self.notes), label_names=list(self.label_names))

    def head(self, n: int) -> TaggingData:
        """The first ``n`` sentences (a dev sample's, once the sentences are in sample order)."""
        return self.subset(range(min(max(0, n), len(self))))

    def where(self, i: int, j: int = 0) -> str:
        """'train.txt line 12' for word ``j`` of sentence ``i``."""
        return f"{self.source} line {self.lines[i][j] if self.lines[i] else '?'}"

    def label_ids(self) -> list[list[int]]:
        """Tag ids per sentence in ``label_names`` order (KeyError for a tag outside the set)."""
        index = {n: k for k, n in enumerate(self.label_names)}
        return [[index[t] for t in row] for row in self.tags]

    def relabel(self, names: list[str], what: str = "dev") -> TaggingData:
        """These sentences with tag ids by ``names`` (a checkpoint's or the training data's id2label), matched
        by name: the tags stay words, only the id order changes.

        Raises:
            TaggingDataError: a tag ``names`` does not have, naming it and its file and line.
        """
        known = set(names)
        for i, row in enumerate(self.tags):
            for j, t in enumerate(row):
                if t not in known:
                    raise TaggingDataError(f"{self.where(i, j)}: {what} tag {t!r} is not in the tag set "
                                           f"({', '.join(names)})")
        return replace(self, label_names=list(names), notes=list(self.notes))


def tag_set(tags: list[list[str]]) -> list[str]:
    """The tags in id order: O first, then by entity type, B- before I- (["O", "B-LOC", "I-LOC", ...])."""
    found = {t for row in tags for t in row}
    rest = sorted(found - {"O"}, key=lambda t: (t[2:], t[:1]))
    return (["O"] if "O" in found else []) + rest


def _split_tag(tag: str) -> tuple[str, str]:
    """('B', 'PER') for 'B-PER'; ('O', '') for 'O'. Also 'B_PER'."""
    if tag == "O":
        return "O", ""
    if len(tag) > 2 and tag[1] in "-_" and tag[0] in "BIESLU":
        return tag[0], tag[2:]
    return "", ""


def detect_scheme(tags: list[list[str]]) -> str:
    """'BIOES' when any S-/E-/U-/L- tag occurs; 'IOB1' when entities start with I- and B- only ever follows
    an entity of its own type; else 'IOB2'."""
    prefixes = {_split_tag(t)[0] for row in tags for t in row}
    if prefixes & {"S", "E", "U", "L"}:
        return "BIOES"
    i_starts = b_after_other = 0
    for row in tags:
        prev = ("O", "")
        for t in row:
            p, typ = _split_tag(t)
            if p == "I" and not (prev[0] in "BI" and prev[1] == typ and prev[0] != "O"):
                i_starts += 1
            if p == "B" and not (prev[0] in "BI" and prev[1] == typ and prev[0] != "O"):
                b_after_other += 1
            prev = (p, typ)
    return "IOB1" if i_starts and not b_after_other else "IOB2"


def to_iob2(data: TaggingData, scheme: str, *, repair: bool = False) -> TaggingData:
    """Convert ``data.tags`` from ``scheme`` to IOB2 in place (see the module doc); returns ``data``.

    Raises:
        TaggingDataError: a tag that is not O / B- / I- (/ E- / S-), or, in IOB2, an I-X after O or another
            type (unless ``repair``), naming the file and line.
    """
    repaired: list[str] = []
    for i, row in enumerate(data.tags):
        out = []
        prev = ("O", "")
        for j, t in enumerate(row):
            p, typ = _split_tag(t)
            if not p:
                raise TaggingDataError(f"{data.where(i, j)}: tag {t!r} is not O or B-/I-/E-/S- plus a type "
                                       f"(e.g. B-PER)")
            inside = prev[0] != "O" and prev[1] == typ and prev[0] in "BI"
            if scheme == "BIOES":
                p = {"S": "B", "U": "B", "E": "I", "L": "I"}.get(p, p)
                inside = prev[0] in "BIEL" and prev[1] == typ and prev[0] not in "ESUL"
                if p == "I" and not inside:
                    if not repair:
                        raise TaggingDataError(f"{data.where(i, j)}: {t} does not continue an entity of type {typ} "
                                               f"(BIOES: I-/E- follow B- or I- of the same type)")
                    repaired.append(data.where(i, j))
                    p = "B"
                new = "O" if p == "O" else f"{p}-{typ}"
                prev = (t[0] if t != "O" else "O", typ)
                out.append(new)
                continue
            if p == "I" and not inside:
                if scheme == "IOB2":
                    if not repair:
                        raise TaggingDataError(
                            f"{data.where(i, j)}: {t} after {row[j - 1] if j else 'the sentence start'} (IOB2 "
                            f"entities start with B-{typ}); fix the file, or set skip_invalid to read it as "
                            f"conlleval does (a new entity, B-{typ})")
                    repaired.append(data.where(i, j))
                p = "B"
            out.append("O" if p == "O" else f"{p}-{typ}")
            prev = (p, typ)
        data.tags[i] = out
    data.scheme = scheme
    if scheme != "IOB2":
        data.notes.append(f"{data.source}: tags read as {scheme} and converted to IOB2")
    if repaired:
        data.notes.append(f"{data.source}: {len(repaired)} entity start(s) repaired as conlleval reads them "
                          f"(I-X after O or another type -> B-X), first at {repaired[0]}")
    return data


def _read_text(path: Path, encoding: str) -> str:
    from explorer.core.data.table import decode_bytes

    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise TaggingDataError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    text, _, _ = decode_bytes(raw, str(path), encoding)
    return text


def read_conll(path: str | Path, *, encoding: str = "") -> TaggingData:
    """Read a CoNLL column file (tags as written; :func:`load_tagging` converts them).

    Raises:
        TaggingDataError: a line with another number of columns than the file's first, a file with one
            column, no sentence at all; each names the file and line.
    """
    path = Path(path)
    text = _read_text(path, encoding)
    words: list[list[str]] = []
    tags: list[list[str]] = []
    lines: list[list[int]] = []
    cur_w: list[str] = []
    cur_t: list[str] = []
    cur_l: list[int] = []
    ncols = 0
    docstarts = 0

    def flush():
        if cur_w:
            words.append(list(cur_w))
            tags.append(list(cur_t))
            lines.append(list(cur_l))
            cur_w.clear(), cur_t.clear(), cur_l.clear()

    for n, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if not fields:
            flush()
            continue
        if fields[0] == DOCSTART:
            docstarts += 1
            flush()
            continue
        if not ncols:
            ncols = len(fields)
            if ncols < 2:
                raise TaggingDataError(f"{path} line {n}: one column ({line.strip()!r}); a CoNLL file has the word "
                                       "first and the tag last (2 or 4 columns)")
        elif len(fields) != ncols:
            raise TaggingDataError(f"{path} line {n}: {len(fields)} columns, but the file's first line has {ncols} "
                                   f"(word first, tag last): {line.strip()!r}")
        cur_w.append(fields[0])
        cur_t.append(fields[-1])
        cur_l.append(n)
    flush()
    if not words:
        raise TaggingDataError(f"{path}: no sentence found (one word and its tag a line, a blank line between "
                               "sentences)")
    data = TaggingData(str(path), words, tags, lines, columns=ncols)
    if docstarts:
        data.notes.append(f"{path}: {docstarts} -DOCSTART- line(s) skipped")
    return data


def read_tagging_jsonl(path: str | Path, *, encoding: str = "") -> TaggingData:
    """Read JSONL records ``{"tokens": [...], "tags": [...]}`` (``ner_tags`` also accepted; names, not ids).

    Raises:
        TaggingDataError: a line that is not a JSON object, missing lists, lists of different lengths,
            integer tags; each names the file and line.
    """
    path = Path(path)
    text = _read_text(path, encoding)
    data = TaggingData(str(path), [], [], [])
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise TaggingDataError(f"{path} line {n}: not JSON ({exc.msg}, column {exc.colno})") from None
        if not isinstance(rec, dict):
            raise TaggingDataError(f"{path} line {n}: a JSON object with tokens and tags is expected")
        toks = rec.get("tokens")
        tg = rec.get("tags", rec.get("ner_tags"))
        if not isinstance(toks, list) or not isinstance(tg, list):
            raise TaggingDataError(f"{path} line {n}: needs a 'tokens' list and a 'tags' (or 'ner_tags') list; "
                                   f"keys found: {', '.join(rec) or 'none'}")
        if len(toks) != len(tg):
            raise TaggingDataError(f"{path} line {n}: {len(toks)} tokens but {len(tg)} tags")
        if any(not isinstance(t, str) for t in tg):
            raise TaggingDataError(f"{path} line {n}: tags must be names such as B-PER (integer ids need the "
                                   "dataset's names)")
        if not toks:
            continue
        data.words.append([str(t) for t in toks])
        data.tags.append(list(tg))
        data.lines.append([n] * len(toks))
    if not data.words:
        raise TaggingDataError(f"{path}: no record with tokens found")
    return data


def load_tagging(source: str | Path, *, cap: int = 0, encoding: str = "", scheme: str = "",
                 repair: bool = False, label_names: list[str] | None = None) -> TaggingData:
    """Read a CoNLL or JSONL (.jsonl / .json) file, detect its tag scheme and convert it to IOB2.

    Args:
        cap: keep the first ``cap`` sentences (0 = all).
        scheme: the scheme to assume ("" = detected from this file's tags).
        repair: repair broken IOB2 entity starts as conlleval does instead of refusing the file.
        label_names: the training tag set (dev): a tag outside it is an error naming its line. None = the
            file's own tags (:func:`tag_set`).

    Raises:
        TaggingDataError: see :func:`read_conll`, :func:`read_tagging_jsonl`, :func:`to_iob2`; a dev tag the
            training data never had.
    """
    path = Path(source)
    if not path.is_file():
        raise TaggingDataError(f"{path}: no such file (a CoNLL file or JSONL with tokens / tags)")
    reader = read_tagging_jsonl if path.suffix.lower() in (".jsonl", ".json") else read_conll
    data = reader(path, encoding=encoding)
    if cap and cap > 0:
        data.words, data.tags, data.lines = data.words[:cap], data.tags[:cap], data.lines[:cap]
    to_iob2(data, scheme or detect_scheme(data.tags), repair=repair)
    if label_names is None:
        data.label_names = tag_set(data.tags)
    else:
        require_tag_set(data, label_names)
    return data


def require_tag_set(data: TaggingData, label_names: list[str]) -> TaggingData:
    """Give ``data`` the training tag set ``label_names`` (id2label order); returns ``data``.

    Raises:
        TaggingDataError: a tag outside the set, naming its file and line.
    """
    known = set(label_names)
    for i, row in enumerate(data.tags):
        for j, t in enumerate(row):
            if t not in known:
                raise TaggingDataError(f"{data.where(i, j)}: tag {t!r} is not in the training data's tag set "
                                       f"({', '.join(label_names)})")
    data.label_names = list(label_names)
    return data

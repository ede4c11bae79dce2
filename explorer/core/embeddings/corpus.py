"""Texts to embed, read from one source (Qt-free, torch-free): a column of a table or a text file (CSV / TSV /
JSONL / xlsx, and ``.txt``: one text per line, or TSV when its first line holds a tab, all through
``core.data.table`` as ``train`` and ``predict`` read them), the passages of an official SQuAD JSON file, or the
training data of a run folder; the table's other columns come along as colour columns.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from explorer.core.errors import EmbeddingError

TEXT_SUFFIXES = (".text",)   # one text per line, whatever the line holds
TABLE_SUFFIXES = (".csv", ".tsv", ".txt", ".jsonl", ".xlsx")   # core.data.table.table_kind decides how


@dataclass
class Corpus:
    """Texts to embed, read from one source.

    Attributes:
        source: the file or run folder as given.
        kind: "text" (one text per line), "table", "squad" (passages), "conll" (sentences, words joined).
        texts: the texts, in file order (blank ones left out).
        lines: where each text is in the file (line or row number, 1-based; SQuAD: the paragraph's number).
        columns: colour columns, name -> one value per text (a table's other columns, a SQuAD passage's
            title).
        notes: plain sentences on what reading found.
    """

    source: str
    kind: str
    texts: list[str]
    lines: list[int]
    columns: dict[str, list[str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def read_corpus(source: str | Path, *, text_column: str = "", max_texts: int = 0, no_header: bool = False,
                encoding: str = "") -> Corpus:
    """Read texts from ``source``.

    Args:
        source: a ``.txt`` file (one text per line), a table (``.csv`` / ``.tsv`` / ``.jsonl`` / ``.xlsx``),
            an official SQuAD ``.json`` file (its passages, each once, with the article title as a colour
            column), or a run folder (its config.json's training data, read as its task reads it).
        text_column: for a table, the text column by name or 1-based position; empty = the first column
            whose name looks like text (sentence, text, ...), else the first column.
        max_texts: keep the first N texts (0 = all).
        no_header: a table's first row is data (columns 1, 2, ...), as ``train --no-header``.
        encoding: the file's encoding ("" = UTF-8, else the one detected).

    Raises:
        EmbeddingError: missing file, unknown kind, no texts; ClassificationDataError (a UserError) for an
            unknown column; SquadDataError for a broken SQuAD file.
    """
    path = Path(source)
    if path.is_dir():
        return _run_corpus(path, text_column, max_texts)
    if not path.is_file():
        raise EmbeddingError(f"{source}: no such file or folder")
    suffix = path.suffix.lower()
    if suffix in TABLE_SUFFIXES:
        corpus = _table_corpus(path, text_column, max_texts, no_header, encoding)
    elif suffix == ".json":
        corpus = _squad_corpus(path, max_texts)
    elif suffix in TEXT_SUFFIXES or suffix == "":
        corpus = _text_corpus(path, max_texts)
    else:
        raise EmbeddingError(f"{source}: cannot read {suffix} files as a corpus; use a text file (one text per "
                             "line), a CSV / TSV / JSONL / xlsx table, a SQuAD .json file or a run folder")
    if not corpus.texts:
        raise EmbeddingError(f"{source}: no texts in the file")
    return corpus


def _text_corpus(path: Path, max_texts: int) -> Corpus:
    from explorer.core.data.table import decode_bytes

    text, encoding, notes = decode_bytes(path.read_bytes(), str(path))
    texts, lines = [], []
    for k, line in enumerate(text.splitlines(), 1):
        if line.strip():
            texts.append(line.strip())
            lines.append(k)
            if max_texts and len(texts) >= max_texts:
                break
    return Corpus(str(path), "text", texts, lines, notes=list(notes))


def _table_corpus(path: Path, text_column: str, max_texts: int, no_header: bool = False, encoding: str = "") -> Corpus:
    from explorer.core.data.columns_guess import guess_columns
    from explorer.core.data.table import read_table, resolve_column

    # texts to embed: the rows of a UTF-8 file with bytes that are not UTF-8 are left out, a note says which
    table = read_table(path, no_header=no_header, encoding="" if encoding == "auto" else encoding, skip_invalid=True)
    if text_column:
        col = resolve_column(table, text_column, "text column", "--text-columns")
    else:
        guess = guess_columns(table.columns) if table.has_header else None
        names = list(getattr(guess, "text_columns", None) or [])
        col = table.columns.index(names[0]) if names and names[0] in table.columns else 0
    texts, lines, others = [], [], {i: [] for i in range(len(table.columns)) if i != col}
    for line, values in table.rows:
        value = values[col] if col < len(values) else None
        text = "" if value is None else str(value).strip()
        if not text:
            continue
        texts.append(text)
        lines.append(line)
        for i, out in others.items():
            cell = values[i] if i < len(values) else None
            out.append("" if cell is None else str(cell))
        if max_texts and len(texts) >= max_texts:
            break
    columns = {table.columns[i]: v for i, v in others.items()}
    if table.kind == "lines":
        return Corpus(str(path), "text", texts, lines, notes=list(table.notes))
    notes = list(table.notes) + [f"texts from column {table.column_label(col)}"]
    return Corpus(str(path), "table", texts, lines, columns, notes)


def _squad_corpus(path: Path, max_texts: int) -> Corpus:
    from explorer.core.data.squad import _read_json

    data = _read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        raise EmbeddingError(f"{path}: a .json corpus must be an official SQuAD file (an object with a 'data' "
                             "list of articles)")
    texts, lines, titles, seen = [], [], [], set()
    k = 0
    for article in data["data"]:
        for paragraph in article.get("paragraphs", []):
            k += 1
            context = str(paragraph.get("context", "")).strip()
            if not context or context in seen:
                continue
            seen.add(context)
            texts.append(context)
            lines.append(k)
            titles.append(str(article.get("title", "")))
            if max_texts and len(texts) >= max_texts:
                return Corpus(str(path), "squad", texts, lines, {"title": titles}, ["SQuAD passages, each once"])
    return Corpus(str(path), "squad", texts, lines, {"title": titles}, ["SQuAD passages, each once"])


def _run_corpus(folder: Path, text_column: str, max_texts: int) -> Corpus:
    from explorer.core.runs.layout import config_file
    from explorer.core.specs.tasks import find_task_facts

    config_path = config_file(folder)
    if not config_path.is_file():
        raise EmbeddingError(f"{folder}: not a run folder (no config.json); give a file or a run folder")
    try:
        config = json.loads(config_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise EmbeddingError(f"{config_path}: unreadable run config ({exc})") from None
    train = str(config.get("train", "") or "")
    if not train or not Path(train).is_file():
        raise EmbeddingError(f"{folder}: the run's training data {train!r} is not a file here")
    facts = find_task_facts(str(config.get("task", "")))
    kind = facts.data_kind if facts is not None else "table"
    if kind == "conll":
        from explorer.core.data.conll import load_tagging

        data = load_tagging(train, cap=max_texts)
        texts = [" ".join(words) for words in data.words]
        corpus = Corpus(train, "conll", texts, list(range(1, len(texts) + 1)), notes=["sentences, words joined"])
    elif kind == "squad":
        corpus = _squad_corpus(Path(train), max_texts)
    else:
        columns = list(config.get("text_columns") or [])
        corpus = read_corpus(train, text_column=text_column or (columns[0] if columns else ""), max_texts=max_texts)
    corpus.notes.append(f"the training data of run {folder.name}")
    return corpus

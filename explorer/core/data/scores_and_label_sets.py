"""Labels of the regression and multi-label tasks: float scores (GLUE STS-B) and label sets (Reuters-21578 style).

The parsing functions take rows that are already read, as ``(where, value)`` pairs where ``where`` names the
file and line ("train.tsv line 7"), so they work on the rows of any table reader (the TSV / CSV / JSONL
reader of :mod:`explorer.core.data.classification` today, ``explorer.core.data.table`` later):

- :func:`parse_scores`: one float per row (a non-number, NaN or infinite score is an error naming its line);
- :func:`parse_label_lists`: a delimited list of label names in one column (``econ;politics``; an empty cell
  is a text with no label), names stripped of surrounding whitespace;
- :func:`parse_indicator_columns`: one 0/1 column per label (the column names are the label names);
- :func:`multi_hot`: label-id lists -> (n, K) 0/1 float matrix, the BCE-with-logits target.

:func:`load_regression` and :func:`load_multilabel` read a file with the classification reader and apply
these; one or two text columns (the pair is found among the usual names when not given).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from explorer.core.data.classification import (KNOWN_LABELS, KNOWN_PAIRS, KNOWN_SINGLE, ClassificationData,
                                               ClassificationDataError, _hub_rows)
from explorer.core.data.table import is_number, read_table, require_labels, resolve_column

DEFAULT_SEPARATOR = ";"
KNOWN_LABEL_SETS = ("labels", "label", "topics", "categories", "tags")
_TRUE = {"1", "1.0", "true", "yes"}
_FALSE = {"0", "0.0", "false", "no", ""}


def parse_scores(cells: Iterable[tuple[str, object]]) -> list[float]:
    """One float per ``(where, value)`` cell (regression targets, e.g. STS-B similarity 0-5).

    Raises:
        ClassificationDataError: a value that is missing, not a number, NaN or infinite; the message names
            ``where`` (file and line) and the value.
    """
    out = []
    for where, value in cells:
        if value is None or isinstance(value, bool) or (isinstance(value, str) and not value.strip()):
            raise ClassificationDataError(f"{where}: the score is missing (a regression label must be a number)")
        try:
            x = float(value.strip() if isinstance(value, str) else value)
        except (TypeError, ValueError):
            raise ClassificationDataError(f"{where}: score {value!r} is not a number (a regression label must be "
                                          "a number such as 3.8)") from None
        if not math.isfinite(x):
            raise ClassificationDataError(f"{where}: score {value!r} is not finite")
        out.append(x)
    return out


def split_label_list(value, separator: str = DEFAULT_SEPARATOR) -> list[str]:
    """'econ; politics' -> ['econ', 'politics'] (stripped, empty parts dropped, order kept, repeats once).
    A JSON list (from a .jsonl file) is taken as it is."""
    if value is None:
        return []
    parts = value if isinstance(value, (list, tuple)) else str(value).split(separator or DEFAULT_SEPARATOR)
    return list(dict.fromkeys(s for s in (str(p).strip() for p in parts) if s))


def parse_label_lists(cells: Iterable[tuple[str, object]], separator: str = DEFAULT_SEPARATOR,
                      label_names: Sequence[str] | None = None) -> tuple[list[str], list[list[int]]]:
    """Label sets from a delimited list per row.

    Args:
        cells: ``(where, value)`` per row; value such as "econ;politics" (or a list, from JSONL).
        separator: what separates the names in one cell.
        label_names: the known names (the training data's, for dev data), or None to collect them from
            ``cells`` (sorted).

    Returns:
        (label_names, ids): ids[i] is the sorted list of label ids of row i ([] = no label).

    Raises:
        ClassificationDataError: with ``label_names`` given, a name not among them (naming the row and
            the known names); without, no label at all in any row.
    """
    cells = list(cells)
    sets = [(where, split_label_list(value, separator)) for where, value in cells]
    if label_names is None:
        label_names = sorted({name for _, names in sets for name in names})
        if not label_names:
            raise ClassificationDataError(f"{cells[0][0] if cells else 'data'}: no labels found in any row "
                                          f"(labels are separated by {separator!r})")
    index = {name: k for k, name in enumerate(label_names)}
    ids = []
    for where, names in sets:
        unknown = [n for n in names if n not in index]
        if unknown:
            raise ClassificationDataError(f"{where}: label {unknown[0]!r} is not one of the training data's "
                                          f"labels ({', '.join(label_names)})")
        ids.append(sorted(index[n] for n in names))
    return list(label_names), ids


def parse_indicator(where: str, column: str, value) -> int:
    """A 0/1 cell of a one-column-per-label table -> 0 or 1 (also true/false, yes/no; empty = 0).

    Raises:
        ClassificationDataError: anything else, naming the row and the column.
    """
    if isinstance(value, bool):
        return int(value)
    text = "" if value is None else str(value).strip().lower()
    if text in _TRUE:
        return 1
    if text in _FALSE:
        return 0
    raise ClassificationDataError(f"{where} column {column!r}: {value!r} is not 0 or 1 (one 0/1 column per label)")


def parse_indicator_columns(rows: Iterable[tuple[str, dict]], columns: Sequence[str]) -> list[list[int]]:
    """Label ids per row from one 0/1 column per label; label k is ``columns[k]``. ``rows``: (where, row dict)."""
    return [[k for k, c in enumerate(columns) if parse_indicator(where, c, row.get(c))] for where, row in rows]


def multi_hot(ids: Sequence[Sequence[int]], num_labels: int) -> np.ndarray:
    """Label-id lists -> (n, num_labels) float32 0/1 matrix (the BCE-with-logits target)."""
    out = np.zeros((len(ids), num_labels), dtype=np.float32)
    for i, row in enumerate(ids):
        out[i, list(row)] = 1.0
    return out


@dataclass
class MultiLabelData(ClassificationData):
    """Multi-label examples: ``labels[i]`` is the sorted list of label ids of example i (ids into
    ``label_names``); ``label_columns`` are the 0/1 columns when the labels came one column per label."""

    label_columns: tuple[str, ...] = ()
    row_where: list[str] = field(default_factory=list)

    @property
    def num_labels(self) -> int:
        return len(self.label_names or [])

    def relabel(self, names: list[str], what: str = "dev", numbered_from: int = 0) -> "MultiLabelData":
        """These examples with label ids by ``names`` (a checkpoint's id2label), matched by name (label sets are
        named, so ``numbered_from``, the base class's numbering of integer labels, is not used).

        Raises:
            ClassificationDataError: a label ``names`` does not have, naming it and a row that carries it.
        """
        own = list(self.label_names or [])
        index = {n: k for k, n in enumerate(names)}
        for j, name in enumerate(own):
            if name not in index:
                i = next((i for i, row in enumerate(self.labels) if j in row), 0)
                where = self.row_where[i] if self.row_where else f"{self.source} example {i + 1}"
                raise ClassificationDataError(f"{where}: {what} label {name!r} is not among the labels "
                                              f"({', '.join(names)})")
        labels = [sorted(index[own[k]] for k in row) for row in self.labels]
        return replace(self, labels=labels, label_names=list(names), problems=list(self.problems),
                       notes=list(self.notes), label_columns=self.label_columns, row_where=list(self.row_where))

    def subset(self, indices: list[int]) -> "MultiLabelData":
        """The examples at ``indices`` (in that order), each row's place in its file with it."""
        out = super().subset(indices)
        return replace(out, row_where=[self.row_where[i] for i in indices] if self.row_where else [])

    def head(self, n: int) -> "MultiLabelData":
        if n <= 0 or n >= len(self):
            return self
        return MultiLabelData(self.texts_a[:n], self.texts_b[:n] if self.texts_b is not None else None,
                              self.labels[:n], self.source, self.columns, self.label_names, False,
                              list(self.problems), self.label_columns, self.row_where[:n])


def _rows(source: str, split: str, no_header: bool = False, encoding: str = "", skip_invalid: bool = False):
    """(where, header, [(line, row dict)], line word) of a local file (read by core/data/table.read_table:
    encodings, BOM, CRLF, no header, xlsx; ``skip_invalid``: rows with bytes that are not UTF-8 left out) or a
    hub dataset."""
    source = (source or "").strip()
    if not source:
        raise ClassificationDataError("no data source given")
    path = Path(source).expanduser()
    if path.exists() or source.startswith((".", "/", "~")) or path.suffix.lower() in (".tsv", ".csv", ".jsonl",
                                                                                     ".json", ".txt", ".xlsx"):
        if not path.exists():
            raise ClassificationDataError(f"data file {source} does not exist")
        if path.is_dir():
            raise ClassificationDataError(f"{source} is a folder; give a .tsv, .csv, .jsonl or .xlsx file")
        table = read_table(path, no_header=no_header, encoding=encoding, skip_invalid=skip_invalid)
        require_labels(table)
        header = list(table.columns)
        rows = [(line, dict(zip(header, values))) for line, values in table.rows]
        return str(path), header, rows, {"xlsx": "row"}.get(table.kind, "line"), table
    header, rows, _names = _hub_rows(source, split)
    return source, header, rows, "record", None


def _column_name(where: str, header: list[str], spec, table, what: str) -> str:
    """A column given by name or 1-based position, as its header name."""
    if table is not None:
        return header[resolve_column(table, spec, what)]
    if str(spec) not in header:
        raise ClassificationDataError(f"{where}: {what} {spec!r} not found; columns are {header}")
    return str(spec)


def _texts(where: str, header: list[str], text_columns, table=None) -> tuple[list[str], bool]:
    """The text column(s) and whether they are a pair: as given (1 or 2, names or 1-based positions), else a
    known pair, else a known single column."""
    cols = [str(c).strip() for c in (text_columns or []) if str(c).strip()]
    if len(cols) > 2:
        raise ClassificationDataError(f"{where}: give one or two text columns, got {cols}")
    if cols:
        return [_column_name(where, header, c, table, "text column") for c in cols], len(cols) == 2
    pair = next((list(p) for p in KNOWN_PAIRS if p[0] in header and p[1] in header), None)
    if pair:
        return pair, True
    single = next((c for c in KNOWN_SINGLE if c in header), None)
    if single is None:
        raise ClassificationDataError(f"{where}: no text column found among {header}; give it with --text-columns")
    return [single], False


def _text(where: str, value) -> str:
    if value is None:
        raise ClassificationDataError(f"{where}: text is missing")
    return (value if isinstance(value, str) else str(value)).rstrip("\r")


def _read(source, split, text_columns, cap, no_header=False, encoding="", skip_invalid=False):
    where, header, rows, word, table = _rows(source, split, no_header, encoding, skip_invalid)
    texts, pair = _texts(where, header, text_columns, table)
    if not rows:
        raise ClassificationDataError(f"{where}: no examples (only a header, or an empty split)")
    if cap > 0:
        rows = rows[:cap]
    at = [f"{where} {word} {n}" for n, _ in rows]
    a = [_text(w, row.get(texts[0])) for w, (_, row) in zip(at, rows)]
    b = [_text(w, row.get(texts[1])) for w, (_, row) in zip(at, rows)] if pair else None
    return where, header, rows, at, texts, a, b, table


def load_regression(source: str, *, text_columns=None, label_column: str = "", split: str = "train",
                    cap: int = 0, no_header: bool = False, encoding: str = "",
                    skip_invalid: bool = False) -> ClassificationData:
    """A regression file (one float score per text or pair, GLUE STS-B): ClassificationData with
    ``regression=True`` and float ``labels``.

    Raises:
        ClassificationDataError: missing file, unknown columns, a score that is not a number (file, line).
    """
    where, header, rows, at, texts, a, b, table = _read(source, split, text_columns, cap, no_header, encoding,
                                                                        skip_invalid)
    label = (_column_name(where, header, label_column, table, "label column") if str(label_column or "").strip()
             else _one_label_column(where, header, "", KNOWN_LABELS))
    scores = parse_scores((w, row.get(label)) for w, (_, row) in zip(at, rows))
    notes = [("info", f"{where}: {n}") for n in (table.notes if table is not None else [])]   # encoding, long rows
    named = (lambda c: table.column_label(header.index(c))) if table is not None else repr   # noqa: E731
    said_id = row_id_scores_warning(where, named(label), scores)
    unused = [c for c in header if c != label and c not in texts]
    decimals = [(_column_words(named(c)), *span) for c in unused
                if (span := decimal_range(row.get(c) for _, row in rows)) is not None]
    found = [binary_scores_warning(where, named(label), scores), said_id,
             whole_number_scores_warning(where, named(label), scores, decimals, said_id=bool(said_id))]
    found += [numeric_text_warning(where, named(c), values) for c, values in zip(texts, (a, b)) if values is not None]
    warnings = [w for w in found if w]   # warnings, not refusals: the preview and the run's log say them
    notes.extend(("warning", w) for w in warnings)
    lines = [int(line) for line, _ in rows]
    return ClassificationData(a, b, scores, source, (texts[0], texts[1] if b is not None else "", label),
                              regression=True, notes=notes, lines=lines, row_ids=[str(n) for n in lines],
                              raw_labels=[str(row.get(label, "")) for _, row in rows],
                              problems=warnings)


ROW_ID_MIN_ROWS = 5        # fewer scores say nothing about whether they are ids
ROW_ID_DISTINCT_SHARE = 0.9


def row_id_scores_warning(where: str, column: str, scores: Sequence[float]) -> str:
    """A warning when the regression scores of ``column`` (as the user knows it: "column 4" or "'id'") are whole
    numbers nearly all distinct (at least 90% of 5 or more rows): a row or pair id read as the score (STS-B
    without a header, its columns off by one, trains on the pair ids and ends at an mse in the hundred
    thousands); "" otherwise. Scores such as 0-5 repeat their few values."""
    finite = [x for x in scores if math.isfinite(x)]
    if len(finite) < ROW_ID_MIN_ROWS or len(finite) != len(scores) or any(x != int(x) for x in finite):
        return ""
    if len(set(finite)) < ROW_ID_DISTINCT_SHARE * len(finite):
        return ""
    return (f"{where}: {role_column('label column', column)} holds whole numbers nearly all distinct "
            f"({min(finite):g} to {max(finite):g}, {len(set(finite))} of {len(finite)} rows): an id? The score "
            "of each row (STS-B's 0-5) is the label column")


SCALE_MAX_DISTINCT = 100  # a rating scale has few values (0-100 at most); more distinct whole numbers: ids, counts
DECIMAL_COLUMNS_SHOWN = 3


def role_column(role: str, named: str) -> str:
    """A column as a sentence names it with its role: "the label column 'views'" for a named column, "the label
    column, column 4," for a numbered one (a file without a header), not "the label column column 4"."""
    return f"the {role}, {named}," if named.startswith("column ") else f"the {role} {named}"


def _column_words(named: str) -> str:
    """A column as a sentence names it: "column 5" (no header) or "column 'score'"."""
    return named if named.startswith("column ") else f"column {named}"


def decimal_range(values: Iterable[object]) -> tuple[float, float] | None:
    """(lowest, highest) when every value is a finite number and some are not whole ("3.800" among "5.000"), the
    shape of a score column such as STS-B's 0-5; None otherwise (an empty cell, a word, only whole numbers)."""
    nums = []
    for value in values:
        text = "" if value is None or isinstance(value, bool) else str(value).strip()
        if not text or not is_number(text) or not math.isfinite(x := float(text)):
            return None
        nums.append(x)
    if not nums or all(x.is_integer() for x in nums):
        return None
    return min(nums), max(nums)


def whole_number_scores_warning(where: str, column: str, scores: Sequence[float],
                                decimal_columns: Sequence[tuple[str, float, float]] = (), said_id: bool = False) -> str:
    """A warning when the regression scores of ``column`` are only whole numbers (5 or more rows) and either a
    column the run does not use holds decimal numbers (``decimal_columns``: (the column as a sentence names it,
    lowest, highest); "column 5 holds decimal numbers 0 to 5: is it the score?") or the scores take more than
    SCALE_MAX_DISTINCT distinct values, more than a rating scale has ("an id or a count?"; left out when
    ``said_id``: :func:`row_id_scores_warning` already called them an id). STS-B without a header given label
    column 4 reads its pair ids, which repeat across its source files (1,244 distinct of 5,749 rows), so they are
    not nearly all distinct; its score column 5 beside them holds decimals. "" otherwise."""
    finite = [x for x in scores if math.isfinite(x)]
    if len(finite) < ROW_ID_MIN_ROWS or len(finite) != len(scores) or any(x != int(x) for x in finite):
        return ""
    distinct = len(set(finite))
    wide = distinct > SCALE_MAX_DISTINCT and not said_id
    if not wide and not decimal_columns:
        return ""
    said = (f"{where}: {role_column('label column', column)} holds only whole numbers, {distinct:,} distinct from "
            f"{min(finite):g} to {max(finite):g}")
    said += ", more than a rating scale has: an id or a count?" if wide else "."
    for name, lo, hi in list(decimal_columns)[:DECIMAL_COLUMNS_SHOWN]:
        said += f" {name[:1].upper()}{name[1:]} holds decimal numbers {lo:g} to {hi:g}: is it the score?"
    return said


def numeric_text_warning(where: str, column: str, values: Sequence[str]) -> str:
    """A warning when every value of text column ``column`` is a number ("column 5 holds only numbers: is it the
    score?"): the columns are most likely off by one; "" otherwise."""
    if not values or not all(v.strip() and is_number(v.strip()) for v in values):
        return ""
    return f"{where}: {role_column('text column', column)} holds only numbers: is it the score?"


def binary_scores_warning(where: str, column: str, scores: Sequence[float]) -> str:
    """A warning when every regression score of ``column`` is 0 or 1 (both present): such a column is most
    likely a class label (SST-2's 0/1 read as scores trains a regression head on classes); "" otherwise.
    ``where`` names the file."""
    if len(set(scores)) != 2 or not set(scores) <= {0.0, 1.0}:
        return ""
    return (f"{where}: {role_column('label column', column)} holds only 0 and 1: classification? A class per row is "
            "the Single sentence or Sentence pair task; Regression fits scores such as STS-B's 0-5")


def _one_label_column(where: str, header: list[str], label_column: str, known: Sequence[str]) -> str:
    if label_column:
        if label_column not in header:
            raise ClassificationDataError(f"{where}: label column {label_column!r} not found; columns are {header}")
        return label_column
    found = next((c for c in known if c in header), None)
    if found is None:
        raise ClassificationDataError(f"{where}: no label column found among {header}; give its name with "
                                      "--label-column")
    return found


def label_column_list(label_column) -> list[str]:
    """'econ,politics' or ['econ', 'politics'] -> the label column names (one name: a delimited-list column)."""
    if isinstance(label_column, (list, tuple)):
        return [str(c).strip() for c in label_column if str(c).strip()]
    return [c.strip() for c in str(label_column or "").split(",") if c.strip()]


def load_multilabel(source: str, *, text_columns=None, label_column="", separator: str = DEFAULT_SEPARATOR,
                    split: str = "train", cap: int = 0, label_names: Sequence[str] | None = None,
                    no_header: bool = False, encoding: str = "", skip_invalid: bool = False) -> MultiLabelData:
    """A multi-label file: labels as a delimited list in one column (``econ;politics``, ``separator``), or one
    0/1 column per label when ``label_column`` names several columns ("econ,politics,sport").

    Args:
        label_names: the training data's names (for dev data: an unknown label is an error naming its line).

    Raises:
        ClassificationDataError: missing file or columns, a cell that is not 0/1, a label the training data
            does not have, or no label at all.
    """
    where, header, rows, at, texts, a, b, table = _read(source, split, text_columns, cap, no_header, encoding,
                                                                        skip_invalid)
    columns = [_column_name(where, header, c, table, "label column") for c in label_column_list(label_column)]
    cells = list(zip(at, (row for _, row in rows)))
    if len(columns) > 1:
        missing = [c for c in columns if c not in header]
        if missing:
            raise ClassificationDataError(f"{where}: label column(s) {missing} not found; columns are {header}")
        if label_names is not None and list(label_names) != columns:
            raise ClassificationDataError(f"{where}: the label columns {columns} differ from the training data's "
                                          f"labels {list(label_names)}")
        names, ids, used = list(columns), parse_indicator_columns(cells, columns), ",".join(columns)
    else:
        used = _one_label_column(where, header, columns[0] if columns else "", KNOWN_LABEL_SETS)
        names, ids = parse_label_lists(((w, row.get(used)) for w, row in cells), separator, label_names)
    data = MultiLabelData(a, b, ids, source, (texts[0], texts[1] if b is not None else "", used),
                          label_names=names, label_columns=tuple(columns) if len(columns) > 1 else (),
                          row_where=at)
    empty = sum(1 for row in ids if not row)
    if empty:
        data.problems.append(f"{where}: {empty} of {len(ids)} rows have no label (kept: all outputs 0)")
    return data

"""Streaming reader of the files ``predict`` labels: CSV, TSV, JSONL, .xlsx and one text per line, one row at a
time (Qt-free).

The predict pipeline reads files through :func:`iter_rows`, the streaming twin of the table reader every other
command uses (``explorer/core/data/table.read_table``): the same format rule (``table.table_kind``), the same
encoding rule (``table.guess_encoding``), the same header flag (``no_header``: columns "1", "2", ...), the same
columns and rows for the same file (tests/test_table_formats.py holds them together). Formats:

- ``.csv``: comma-separated, standard CSV quoting (stdlib ``csv``); a ``.csv`` whose first line holds more tabs
  than commas is tab-separated (STS-B).
- ``.tsv`` and a ``.txt`` whose first line holds a tab: tab-separated, no quoting (the GLUE / SemEval convention).
- any other ``.txt``: one text per line, no header; the column is ``text``.
- ``.jsonl`` / ``.json`` (one object per line): each object's keys are its columns.
- ``.xlsx``: the first sheet, first row = header (openpyxl ``read_only``: rows stream from the zip).

Encoding (text formats): ``"auto"`` (default) reads UTF-8 (a BOM is dropped) when the first MiB decodes as
UTF-8, else the encoding guessed by the tables' one rule (core/data/table.guess_encoding: charset-normalizer,
Windows-1252 first among single-byte guesses, the usual encoding of files saved by Excel on Windows) and says
so in :attr:`TableInfo.note`. Any other name is used as given. Bytes that do not decode in the chosen encoding
never stop the stream: that row comes out with an ``error``.

Rows are never dropped: a row that cannot be used (a JSON line that is not an object, a CSV line with more or
fewer fields than the header, or, without a header, fewer than most rows have, undecodable bytes, an empty line
between rows) is yielded as a :class:`Row` with ``error`` set, so every input row gives one output row. Empty lines
at the end of the file are not rows. Without a header the columns are as many as most of the first WIDTH_ROWS
rows' fields (core.data.table.file_width), never fewer because the first line is cut short.
"""

from __future__ import annotations

import csv
import itertools
from collections import Counter
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from explorer.core.data.table import WIDTH_ROWS, TsvReader, file_width, open_newline, unique_columns
from explorer.core.errors import UserError

csv.field_size_limit(2**31 - 1)

TEXT_SUFFIXES = (".csv", ".tsv", ".txt", ".jsonl", ".json")
SUFFIXES = TEXT_SUFFIXES + (".xlsx",)
_SNIFF_BYTES = 1 << 20


class PredictDataError(UserError):
    """A file ``predict`` cannot read at all (missing, unknown format, no header); the message names it."""


@dataclass
class Row:
    """One input row. ``index``: 0-based data row; ``line``: 1-based line in the file (header = line 1;
    the first line of a multi-line CSV record); ``values``: column -> value (str, or what JSON / Excel
    held); ``error``: why the row cannot be used, or ""."""

    index: int
    line: int
    values: dict
    error: str = ""


@dataclass
class TableInfo:
    """What :func:`iter_rows` found: the header columns, the format, the encoding used and a note."""

    path: str
    kind: str                      # "csv" | "tsv" | "jsonl" | "xlsx" | "lines" (core/data/table.table_kind)
    columns: list[str] = field(default_factory=list)
    encoding: str = ""
    note: str = ""
    # the empty lines of a one-text-per-line file, which are not rows (1-based; those before a later text, so the
    # line ends of the file's end are not counted), filled in as the rows are read: complete once they all are
    skipped_lines: list[int] = field(default_factory=list)


SKIPPED_SHOWN = 5   # line numbers named in skipped_note; the others are counted


def skipped_note(lines: list[int]) -> str:
    """"3 empty rows skipped (lines 2, 5, 9)", the first SKIPPED_SHOWN line numbers named; "" for none."""
    if not lines:
        return ""
    shown = ", ".join(str(n) for n in lines[:SKIPPED_SHOWN]) + (", …" if len(lines) > SKIPPED_SHOWN else "")
    many = len(lines) != 1
    return f"{len(lines)} empty row{'s' if many else ''} skipped (line{'s' if many else ''} {shown})"


def file_kind(path: str | Path, first_line: str = "") -> str:
    """"csv" | "tsv" | "jsonl" | "xlsx" | "lines" by the tables' one rule (core/data/table.table_kind: the suffix,
    and the first line of a .csv / .txt). PredictDataError for an unknown suffix."""
    from explorer.core.data.table import table_kind
    from explorer.core.errors import ClassificationDataError

    try:
        return table_kind(path, first_line)
    except ClassificationDataError:
        suffix = Path(path).suffix.lower()
        raise PredictDataError(f"{path}: unknown file type {suffix or '(no suffix)'}; use one of "
                               f"{', '.join(SUFFIXES)}") from None


def detect_encoding(path: str | Path, encoding: str = "auto") -> tuple[str, str]:
    """(encoding to read with, note): see the module docstring. The note is "" for plain UTF-8."""
    if encoding and encoding != "auto":
        return encoding, ""
    with open(path, "rb") as fh:
        head = fh.read(_SNIFF_BYTES)
    if head.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig", ""
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:     # not just a character cut at the end of the sample
            from explorer.core.data.table import encoding_label, guess_encoding

            guess = guess_encoding(head)
            if guess == "utf-8":   # UTF-8 but for a few lines: their rows come out with an error
                return "utf-8-sig", (f"{Path(path).name} is UTF-8 but for a few lines with bytes that are not "
                                     f"UTF-8 (the first at offset {exc.start}); their rows are not labelled")
            return guess, (f"{Path(path).name} is not UTF-8 (byte 0x{head[exc.start]:02x} at offset "
                           f"{exc.start}); read as {encoding_label(guess)} ({guess})")
    return "utf-8-sig", ""


def _bad_bytes(values) -> bool:
    """True when a value holds bytes the encoding could not decode (surrogateescape's lone surrogates, which
    strict UTF-8 encoding refuses: one C call per value)."""
    for v in values:
        if isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                return True
    return False


def reads_without_header(run_config: dict, no_header: bool | None = None, path: str | Path | None = None,
                         encoding: str = "auto") -> bool:
    """Whether a file is read without a header row (its columns "1", "2", ...): ``no_header`` when given (the
    dialog's box, ``--header`` / ``--no-header``), else as the run read its training data (its config's
    ``no_header``), unless ``path``'s first line names the columns (:func:`first_line_names_columns`: a file with
    a header predicted by a run trained on one without; reading it headerless predicted "text" as a text and
    counted "label" as a gold class)."""
    if no_header is not None:
        return bool(no_header)
    headerless = bool((run_config or {}).get("no_header"))
    if headerless and path is not None and first_line_names_columns(path, run_config, encoding):
        return False
    return headerless


HEADER_ROWS = 30   # rows read to tell a header line from a data line


def first_line_names_columns(path: str | Path, run_config: dict, encoding: str = "auto") -> bool:
    """Whether the first line of a table (.csv .tsv .xlsx) names its columns rather than holding data: in the text
    column the run read (its first ``text_columns`` entry, a 1-based position; else the column of the longest
    values), the first line holds one or two short words ("text", "tweet_text") where the next HEADER_ROWS rows
    hold texts of three words or more on average. False for other files, or when that cannot be told."""
    if Path(path).suffix.lower() not in (".csv", ".tsv", ".xlsx"):
        return False
    try:
        info, rows = iter_rows(path, encoding, no_header=True)
        got = [r for r in itertools.islice(rows, HEADER_ROWS + 1) if not r.error]
    except (UserError, OSError, ValueError):
        return False
    if len(got) < 3 or not info.columns:
        return False
    wanted = [str(c) for c in (run_config or {}).get("text_columns") or []]
    column = wanted[0] if wanted and wanted[0] in info.columns else max(
        info.columns, key=lambda c: sum(len(text_of(r.values.get(c))) for r in got[1:]))
    first = text_of(got[0].values.get(column)).strip()
    rest = [text_of(r.values.get(column)).strip() for r in got[1:]]
    words = sum(len(v.split()) for v in rest) / max(1, len(rest))
    return bool(first) and len(first.split()) <= 2 and len(first) <= 40 and words >= 3


def read_header(path: str | Path, encoding: str = "auto", *, no_header: bool = False) -> TableInfo:
    """The columns and format of a file without reading its rows (the column pickers use it).

    JSONL columns are the keys of the first 100 objects in order of appearance; without a header the columns
    are "1", "2", ..., as many as most of the first WIDTH_ROWS rows' fields (core.data.table.file_width: a first
    line cut short is that row's problem, not the file's shape).
    """
    info = None
    for info, _ in _rows(path, encoding, header_only=True, no_header=no_header):
        break
    return info


def iter_rows(path: str | Path, encoding: str = "auto", *, start: int = 0,
              no_header: bool = False) -> tuple[TableInfo, Iterator[Row]]:
    """Stream the rows of ``path``: (TableInfo, iterator of Row in file order), constant memory.

    Args:
        path: a .csv / .tsv / .txt / .jsonl / .json (JSON lines) / .xlsx file (a .txt without tabs: one text
            per line).
        encoding: "auto" (UTF-8, else cp1252 with a note) or a Python codec name (text formats).
        start: skip the first ``start`` data rows (``--resume``); they are read but not yielded.
        no_header: the first row of a CSV / TSV / xlsx file is data; columns are "1", "2", ... (1-based
            positions, as ``train --no-header`` names them).

    Raises:
        PredictDataError: missing file, unknown suffix, unknown encoding, no header row. Problems of single
            rows never raise: the row carries ``error``.
    """
    gen = _rows(path, encoding, no_header=no_header)
    info, _ = next(gen)

    def rows() -> Iterator[Row]:
        for _, row in gen:
            if row.index >= start:
                yield row
    return info, rows()


def row_lines(path: str | Path, n_rows: int, encoding: str = "auto") -> list[int] | None:
    """The line of ``path`` where each of its data rows starts (1-based, the header is line 1; an .xlsx sheet's
    row number), for the ``n_rows`` rows a predict run wrote from it: what a person finds in their file, where a
    quoted text over several lines or a blank line makes the data row's number differ from its line. None when
    the file is gone or unreadable now, or holds another number of rows (it changed since)."""
    return read_layout(path, n_rows, encoding)[0]


def read_layout(path: str | Path, n_rows: int, encoding: str = "auto") -> tuple[list[int] | None, list[int]]:
    """(:func:`row_lines`, the empty lines skipped as no rows: ``TableInfo.skipped_lines``), in one reading of
    ``path``; ``(None, [])`` when it is gone, unreadable or holds another number of rows."""
    try:
        info, rows = iter_rows(path, encoding)
        lines = [row.line for row in itertools.islice(rows, n_rows + 1)]
    except (OSError, ValueError, UserError):
        return None, []
    if len(lines) != n_rows or not all(lines):
        return None, []
    return lines, list(info.skipped_lines)


def _rows(path, encoding: str, header_only: bool = False, no_header: bool = False):
    p = Path(path)
    if not p.is_file():
        raise PredictDataError(f"{path}: no such file")
    file_kind(p)   # an unknown suffix fails before the file is read
    if p.suffix.lower() == ".xlsx":
        yield from _xlsx_rows(p, header_only, no_header)
        return
    try:
        enc, note = detect_encoding(p, encoding)
        "".encode(enc)
    except LookupError:
        raise PredictDataError(f"{path}: unknown encoding {encoding!r}") from None
    with open(p, "rb") as raw:
        newline = open_newline(raw.read(_SNIFF_BYTES))   # old Mac line ends: a bare CR ends a row, a LF is text
    fh = open(p, "r", encoding=enc, errors="surrogateescape", newline=newline)
    with fh:
        kind = file_kind(p, fh.readline())
        fh.seek(0)
        if kind == "jsonl":
            yield from _jsonl_rows(p, fh, enc, note, header_only)
        elif kind == "lines":
            yield from _text_lines(p, fh, enc, note, header_only)
        else:
            yield from _delimited_rows(p, fh, kind, enc, note, header_only, no_header)


def _text_lines(p: Path, fh, enc: str, note: str, header_only: bool):
    """One text per line: column ``text``; blank lines are not rows (``info.skipped_lines`` names them); a CRLF's
    \r never ends a text."""
    from explorer.core.data.table import LINES_COLUMN

    info = TableInfo(str(p), "lines", [LINES_COLUMN], enc, note)
    yield info, None
    if header_only:
        return
    index = 0
    blanks: list[int] = []   # empty lines since the last text: skipped, and said once a text follows them
    for n, text in enumerate(fh, start=1):
        text = text.rstrip("\n")
        text = text[:-1] if text.endswith("\r") else text
        if not text.strip():
            blanks.append(n)
            continue
        info.skipped_lines.extend(blanks)
        blanks.clear()
        error = f"{p.name} line {n}: bytes that are not {enc} text" if _bad_bytes([text]) else ""
        yield info, Row(index, n, {LINES_COLUMN: text}, error)
        index += 1


def _delimited_rows(p: Path, fh, kind: str, enc: str, note: str, header_only: bool, no_header: bool = False):
    if kind == "tsv":
        reader = TsvReader(fh)
    else:
        reader = csv.reader(fh)
    header = next(reader, None)
    while header is not None and not any(h.strip() for h in header):
        header = next(reader, None)
    if header is None:
        raise PredictDataError(f"{p}: empty file ({'no rows' if no_header else 'no header row'})")

    def numbered(line: int):
        """(the line a record starts on, its fields) of the records after the first."""
        for fields in reader:
            first, line = line, reader.line_num + 1
            yield first, fields
    if no_header:   # the first row is data: columns by 1-based position, as many as most rows' fields
        records = itertools.chain([(reader.line_num, header)], numbered(reader.line_num + 1))
        peeked = list(itertools.islice(records, WIDTH_ROWS))
        counts = Counter(len(f) for _, f in peeked if f and not (len(f) == 1 and not f[0].strip()))
        header = [str(i) for i in range(1, file_width(counts) + 1)]
        records = itertools.chain(peeked, records)
    else:
        records = numbered(reader.line_num + 1)
    header, named = unique_columns([h.strip() for h in header])   # every column its own name: no value lost
    if _bad_bytes(header):
        raise PredictDataError(f"{p}: the header row is not {enc} text; pass the file's encoding")
    info = TableInfo(str(p), kind, header, enc, "; ".join(n for n in (note, named) if n))
    yield info, None
    if header_only:
        return
    index = 0
    blanks: list[int] = []   # empty lines seen since the last row: rows with an error once another row follows
    for first, fields in records:
        if not fields or (len(fields) == 1 and not fields[0].strip()):
            blanks.append(first)
            continue
        for row in _empty_lines(p, blanks, index, dict.fromkeys(header, "")):
            yield info, row
            index += 1
        values = dict(zip(header, fields))
        error = ""
        if no_header and len(fields) < len(header):
            error = (f"{p.name} line {first}: {len(fields)} fields, most rows have {len(header)} (a cut line?)")
        elif len(fields) != len(header) and not no_header:
            error = (f"{p.name} line {first}: {len(fields)} fields, the header has {len(header)}"
                     + (" (a tab or comma inside the text?)" if len(fields) > len(header) else ""))
        if error:
            for k in header[len(fields):]:
                values[k] = ""
        if not error and _bad_bytes(fields):
            error = f"{p.name} line {first}: bytes that are not {enc} text"
            values = {k: v.encode(enc, "surrogateescape").decode(enc, "replace") for k, v in values.items()}
        yield info, Row(index, first, values, error)
        index += 1


def _empty_lines(p: Path, blanks: list[int], index: int, values: dict) -> Iterator[Row]:
    """The empty lines in ``blanks`` (1-based line numbers, emptied) as rows from data row ``index`` on, each with
    its error: a person who gave 200 texts with an empty line among them sees where the 201st row went, rather
    than 199 predictions and no word."""
    for k, n in enumerate(blanks):
        yield Row(index + k, n, dict(values), f"{p.name} line {n}: an empty line")
    blanks.clear()


def _jsonl_rows(p: Path, fh, enc: str, note: str, header_only: bool):
    columns: list[str] = []
    peeked = []
    for n, text in enumerate(fh, start=1):
        peeked.append((n, text))
        try:
            obj = json.loads(text) if text.strip() else None
        except ValueError:
            obj = None
        if isinstance(obj, dict):
            columns.extend(k for k in obj if k not in columns)
        if len(peeked) >= 100:
            break
    info = TableInfo(str(p), "jsonl", columns, enc, note)
    yield info, None
    if header_only:
        return
    index = 0

    def lines():
        yield from peeked
        yield from enumerate(fh, start=len(peeked) + 1)
    blanks: list[int] = []
    for n, text in lines():
        if not text.strip():
            blanks.append(n)
            continue
        for row in _empty_lines(p, blanks, index, {}):
            yield info, row
            index += 1
        error, values = "", {}
        try:
            obj = json.loads(text)
            if isinstance(obj, dict):
                values = obj
            else:
                error = f"{p.name} line {n}: a JSON {type(obj).__name__}, not an object"
        except ValueError as exc:
            error = f"{p.name} line {n}: not JSON ({exc})"
        if not error and _bad_bytes(values.values()):
            error = f"{p.name} line {n}: bytes that are not {enc} text"
        yield info, Row(index, n, values, error)
        index += 1


def _xlsx_rows(p: Path, header_only: bool, no_header: bool = False):
    try:
        import openpyxl
        book = openpyxl.load_workbook(p, read_only=True, data_only=True)
    except Exception as exc:  # noqa: BLE001 - zip / XML errors of a broken workbook
        raise PredictDataError(f"{p}: not a readable .xlsx workbook ({type(exc).__name__}: {exc})") from None
    try:
        sheet = book.worksheets[0]
        it = sheet.iter_rows(values_only=True)
        header = next(it, None)
        if header is None or not any(h is not None for h in header):
            raise PredictDataError(f"{p}: the first sheet has no header row")
        if no_header:   # the first row is data: columns by 1-based position, as many as most rows' cells
            peeked = list(itertools.islice(it, WIDTH_ROWS - 1))
            it = itertools.chain([header], peeked, it)
            counts = Counter(_cell_count(cells) for cells in [header, *peeked] if _cell_count(cells))
            header = [str(i) for i in range(1, file_width(counts) + 1)]
        header, named = unique_columns(["" if h is None else str(h).strip() for h in header])
        sheets = f"sheet {sheet.title!r}" if len(book.worksheets) > 1 else ""
        info = TableInfo(str(p), "xlsx", header, "", "; ".join(n for n in (sheets, named) if n))
        yield info, None
        if header_only:
            return
        index = 0
        blanks: list[int] = []
        for n, cells in enumerate(it, start=1 if no_header else 2):
            if cells is None or all(c is None or (isinstance(c, str) and not c.strip()) for c in cells):
                blanks.append(n)
                continue
            for row in _empty_lines(p, blanks, index, dict.fromkeys(header, "")):
                yield info, row
                index += 1
            values = {h: ("" if c is None else c) for h, c in zip(header, cells)}
            yield info, Row(index, n, values, "")
            index += 1
    finally:
        book.close()


def _cell_count(cells) -> int:
    """The cells of a sheet row up to its last one holding a value (0 for an empty row)."""
    cells = list(cells or ())
    while cells and (cells[-1] is None or (isinstance(cells[-1], str) and not cells[-1].strip())):
        cells.pop()
    return len(cells)


def text_of(value) -> str:
    """A cell as text: None -> "", floats that are integers without ".0" (Excel numbers)."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


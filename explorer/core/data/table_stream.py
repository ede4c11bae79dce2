"""A big delimited table read in pieces: its head at once, then its rows and exact class counts chunk by chunk.

:func:`explorer.core.data.table.read_table` reads a whole file into memory (bytes, text, rows) before anything
is shown; for a table of a million rows that is seconds and hundreds of MB before the launcher can show its
first rows. Here the head comes from the file's first bytes only (:func:`read_head`), and the count
(:func:`count_rows`) streams the file through the csv module, keeping one row at a time and a counter per
class, and reports its progress after every chunk of rows.

Only CSV and TSV tables (:func:`explorer.core.data.table.table_kind` "csv" / "tsv") are streamed; the
count reads the encoding the head was read in (UTF-8 unless one is given). A file that is not UTF-8 and has
no encoding given, or a row whose field count differs from the header's, raises
:class:`explorer.core.errors.ClassificationDataError` (the whole-file reader then says which bytes or line).
"""

from __future__ import annotations

import csv
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from explorer.core.data.columns_guess import GUESS_ROWS
from explorer.core.data.table import (Table, TablePreview, TsvReader, check_field_count, decode_bytes, preview_of,
                                      table_kind)
from explorer.core.data.table import _read_delimited as read_delimited_text
from explorer.core.data.table import (MOSTLY_UTF8_BAD_LINES, codecs_name, cr_line_ends, file_width, has_bad_bytes, not_utf8_error,
                                      not_utf8_skipped, open_newline)
from explorer.core.errors import ClassificationDataError

STREAM_BYTES = 16 << 20   # tables larger than this are previewed in pieces (a 100k-row CSV is about 6 MB)
HEAD_BYTES = 1 << 20      # the head is read from at most this many bytes
CHUNK_ROWS = 50_000       # rows counted between two progress reports


def streamable(path: str | Path) -> bool:
    """``path`` is a CSV or TSV table file (the kinds :func:`count_rows` reads)."""
    p = Path(path).expanduser()
    try:
        with open(p, "rb") as fh:
            first = fh.read(65536).decode("utf-8", errors="replace")
        return table_kind(p, first) in ("csv", "tsv")
    except (OSError, ClassificationDataError):
        return False


def read_head(path: str | Path, *, n: int = 20, no_header: bool = False, encoding: str = "") -> Table:
    """The header and the first ``n`` rows of a CSV or TSV table, read from its first HEAD_BYTES bytes (cut at
    the last whole line); ``n_rows`` counts only the rows read. Raises ClassificationDataError as read_table."""
    p = Path(path).expanduser()
    with open(p, "rb") as fh:
        data = fh.read(HEAD_BYTES)
        whole = not fh.read(1)
    end = b"\r" if cr_line_ends(data) else b"\n"   # cut at the file's own last line end
    if not whole and end in data:
        data = data[:data.rindex(end) + 1]
    text, enc, notes = decode_bytes(data, str(path), encoding)
    return read_delimited_text(text, str(path), table_kind(p, text[:65536]), enc, notes, no_header, n)


def preview_head(path: str | Path, *, n: int = 20, no_header: bool = False, encoding: str = "", pair: bool = False,
                 texts: tuple[int, int] | None = None, score: bool = False) -> TablePreview:
    """explorer.core.data.table.preview_table of a CSV or TSV's first bytes only (:func:`read_head`): the first
    ``n`` rows and the column guesses at once, ``n_rows`` counting only the rows read."""
    table = read_head(path, n=max(n, GUESS_ROWS), no_header=no_header, encoding=encoding)
    return preview_of(table, n=n, pair=pair, texts=texts, score=score)


@dataclass(kw_only=True)
class RowCount:
    """The rows of a table and how many hold each value of its label column.

    Attributes:
        n_rows: data rows (blank lines not counted, the header not counted).
        class_counts: label value (stripped of surrounding blanks) -> rows, most frequent first; empty when no
            label column was asked for.
        empty_labels: rows whose label cell is empty (not in class_counts).
    """

    n_rows: int
    class_counts: dict[str, int] = field(default_factory=dict)
    empty_labels: int = 0
    not_utf8_lines: list[int] = field(default_factory=list)
    note: str = ""


def count_rows(path: str | Path, *, label_index: int | None = None, no_header: bool = False, encoding: str = "",
               chunk_rows: int = CHUNK_ROWS, progress: Callable[[int], None] | None = None,
               skip_invalid: bool = False) -> RowCount:
    """Count the data rows of a CSV or TSV table and, with ``label_index`` (0-based column), the rows per label
    value, keeping one row in memory at a time; ``progress(rows so far)`` is called after every ``chunk_rows``
    rows. The file is read in ``encoding``, else in the one its head is read in (core.data.table.decode_bytes);
    rows with bytes that are not in it are refused or, with ``skip_invalid``, left out and counted in ``note``, as
    core.data.table.drop_rows_not_utf8 does.

    Raises:
        ClassificationDataError: a row with another number of fields than the header (file, line, both counts),
            text that is not in the encoding (UTF-8 unless ``encoding``), an unreadable CSV row.
    """
    p = Path(path).expanduser()
    head = read_head(p, n=1, no_header=no_header, encoding=encoding)
    kind, where = head.kind, str(path)
    width = len(head.columns)
    counts: Counter = Counter()
    n_rows = empty = 0
    started = no_header
    line = 0
    bad: list[int] = []
    first_bad = (0, 0)
    with open(p, "rb") as fh:
        newline = open_newline(fh.read(HEAD_BYTES))
    try:
        with open(p, encoding=encoding or codecs_name(head.encoding), errors="surrogateescape", newline=newline) as fh:
            reader = csv.reader(fh) if kind == "csv" else TsvReader(fh)
            for values in reader:
                start, line = line + 1, reader.line_num
                if not values or all(not v.strip() for v in values):
                    continue
                if not started:
                    started = True
                    continue
                if any(has_bad_bytes(v) for v in values):
                    row = "\t".join(values)   # the line of its first bad byte: a quoted field's row starts earlier
                    at = next(i for i, c in enumerate(row) if "\udc80" <= c <= "\udcff")
                    bad.append(start + row.count("\n", 0, at))
                    first_bad = first_bad if first_bad[0] else (bad[-1], ord(row[at]) - 0xDC00)
                    continue
                if not no_header and len(values) != width:   # without a header a short or long row is that row's
                    most = file_width(read_head(p, n=1, no_header=True, encoding=encoding).field_counts)
                    check_field_count(where, line, len(values), width, kind, header=True, header_row=head.columns,
                                      most=most)
                n_rows += 1
                if label_index is not None:
                    label = values[label_index].strip() if label_index < len(values) else ""
                    if label:
                        counts[label] += 1
                    else:
                        empty += 1
                if progress is not None and n_rows % chunk_rows == 0:
                    progress(n_rows)
    except UnicodeDecodeError:
        raise ClassificationDataError(f"{where} near line {line + 1}: not {encoding or 'UTF-8'} text; give the "
                                      "file's encoding") from None
    except csv.Error as exc:
        raise ClassificationDataError(f"{where} line {line + 1}: unreadable {kind.upper()} ({exc})") from None
    if bad and not skip_invalid:
        raise not_utf8_error(where, *first_bad, len(bad), bad,
                             head.encoding == "UTF-8" and len(bad) <= max(MOSTLY_UTF8_BAD_LINES, line // 100))
    return RowCount(n_rows=n_rows, class_counts=dict(counts.most_common()), empty_labels=empty, not_utf8_lines=bad,
                    note=not_utf8_skipped(len(bad), bad) if bad else "")

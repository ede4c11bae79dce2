"""Read any table a researcher has: CSV, TSV, JSONL or Excel ``.xlsx``, with or without a header.

Formats (:func:`table_kind`, the one rule every command and page reads a table by: the file suffix, and for
``.csv`` / ``.txt`` the first line):

- ``.tsv``, a ``.txt`` whose first line holds a tab, a ``.csv`` whose first line holds more tabs than commas
  (STS-B's train.csv): tab-separated, rows end at line ends only (the GLUE files, SemEval-2016 stance), so quote
  characters inside texts stay text; a field written with CSV quoting (``"a ""quoted"" word"``: quotes
  around it and every quote inside doubled) is unquoted as CSV would (:func:`unquote_tsv_field`).
- ``.csv``: standard CSV quoting (RFC 4180: a quoted field may hold commas and line breaks).
- any other ``.txt``: one text per line, no header; its one column is ``text`` (kind "lines").
- ``.jsonl`` / ``.json``: one JSON object per line; the columns are the keys in order of appearance.
- ``.xlsx``: the first sheet, read with openpyxl in read-only mode; "lines" are the sheet's row numbers.

Text: UTF-8 by default (a BOM is dropped). A file that is not UTF-8 is decoded in the encoding
charset-normalizer detects and the table says so ("read as Windows-1252: 12 bytes are not UTF-8");
``encoding`` forces one. A file that is UTF-8 but for a handful of lines (:func:`utf8_bad_lines`) stays UTF-8:
the rows on those lines are refused with their lines, or left out and counted with ``skip_invalid``
(:func:`drop_rows_not_utf8`). Line ends: rows end only at ``\\n`` or ``\\r\\n``; a lone ``\\r`` inside a field is
kept as text (csv's ``newline=""`` rule), and no field ever ends with the ``\\r`` of a CRLF. A file with old Mac
line ends (more bare ``\\r`` than ``\\n``: :func:`cr_line_ends`) ends its rows at ``\\r`` instead, and a ``\\n`` in
it is text; every reader (this module, core/data/table_stream.py, core/predict/reading.py) decides so, and
counts the lines of its messages by the file's own line ends (:func:`line_at`).

Columns are named by the header, or, with ``no_header``, by 1-based position ("1", "2", ...); a column
spec may always be a 1-based position (:func:`resolve_column`). A header cell with no name, or a name an earlier
column has, names its column by position ("column 3", "text (column 4)"; :func:`unique_columns`, said in
:attr:`Table.notes`): every column keeps its values under a name of its own (an SMS spam CSV's ``class,message,,,``
would otherwise lose all but one unnamed column in a predictions file). Field counts: with a header, a row with
another number of fields than the header is an error naming the line (an extra tab inside a text would
otherwise shift every later column). Without a header, the columns are as many as the fields most rows have
(:func:`file_width`), not the first line's; rows may have more fields (STS-B rows carry 7 or 9) or fewer (a first
line cut short): they are counted and named in :attr:`Table.notes`, never shifted, and the values a short row lacks
are missing (a problem of that row for the readers, not of the file).

Every problem raises :class:`explorer.core.errors.ClassificationDataError` naming the file, the line
(1-based, header = line 1) and the column.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from explorer.core.data.columns_guess import (
    GUESS_ROWS,
    ColumnGuess,
    guess_columns,
    guess_columns_from_values,
    label_by_values,
    label_over_named,
)
from explorer.core.errors import ClassificationDataError

csv.field_size_limit(10_000_000)

TABLE_SUFFIXES = (".tsv", ".csv", ".txt", ".jsonl", ".json", ".xlsx")
_ENCODING_NAMES = {"cp1252": "Windows-1252", "cp1250": "Windows-1250", "cp1251": "Windows-1251",
                   "iso8859_1": "Latin-1", "iso8859_15": "ISO-8859-15", "utf_16": "UTF-16", "utf_8": "UTF-8",
                   "mac_roman": "Mac Roman", "utf_8_sig": "UTF-8"}
_LONE_CR = "\uf8ff"   # a private-use character stands for a lone \r while csv splits the rows
_LONE_LF = "\uf8fe"   # and one for a \n inside a text of a file whose lines end in a bare \r


@dataclass
class Table:
    """A table read from one file.

    Attributes:
        path: the file as given.
        kind: "csv" | "tsv" | "jsonl" | "xlsx" | "lines" (:func:`table_kind`).
        columns: column names (the header; "1", "2", ... without one).
        has_header: False when read with ``no_header``.
        rows: (line, values) per data row; ``line`` is 1-based in the file (header = line 1; for CSV the
            line where the row starts), ``values`` one per column (JSONL: None for a missing key; rows
            without a header may be longer than ``columns``). Blank rows are left out.
        n_rows: data rows in the file (all of them, also when only the first ones are kept).
        encoding: the encoding used, by its usual name ("UTF-8", "Windows-1252").
        notes: plain sentences on what reading found (encoding, BOM, CRLF, long rows).
        field_counts: how many rows have each number of fields (CSV / TSV).
        long_rows: lines whose rows have more fields than ``columns`` (no header only; the first LINES_KEPT of
            each field count).
        short_rows: lines whose rows have fewer fields than ``columns`` (no header only; their missing values are
            a problem of those rows: a label missing is refused, or skipped with ``skip_invalid``).
    """

    path: str
    kind: str
    columns: list[str]
    has_header: bool
    rows: list[tuple[int, list]]
    n_rows: int
    encoding: str = "UTF-8"
    notes: list[str] = field(default_factory=list)
    field_counts: dict[int, int] = field(default_factory=dict)
    long_rows: list[int] = field(default_factory=list)
    short_rows: list[int] = field(default_factory=list)

    def where(self, line: int, column: int | None = None) -> str:
        """"FILE line N, column C 'name'" for messages (xlsx: "row N")."""
        word = {"xlsx": "row", "hub": "record"}.get(self.kind, "line")
        text = f"{self.path} {word} {line}"
        if column is not None:
            text += f", column {column + 1}"
            if self.has_header and column < len(self.columns):
                text += f" {self.columns[column]!r}"
        return text

    def column_label(self, index: int) -> str:
        """A column as the user knows it: its name, or "column 5" without a header."""
        return repr(self.columns[index]) if self.has_header else f"column {index + 1}"


# ---- text ------------------------------------------------------------------------------------------------
def encoding_label(name: str) -> str:
    """The usual name of a Python codec ("cp1252" -> "Windows-1252")."""
    try:
        key = codecs.lookup(name).name.replace("-", "_")
    except LookupError:
        return name
    return _ENCODING_NAMES.get(key, key.upper().replace("_", "-"))


def _count_bad_utf8(data: bytes) -> int:
    bad = 0
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    i = 0
    while i < len(data):
        try:
            decoder.decode(data[i:], final=True)
            break
        except UnicodeDecodeError as exc:
            bad += exc.end - exc.start
            i += exc.end
            decoder.reset()
    return bad


def decode_bytes(data: bytes, path: str, encoding: str = "", *, keep_bad: bool = False) -> tuple[str, str, list[str]]:
    """(text, encoding's usual name, notes). UTF-8 (BOM dropped) unless ``encoding`` is given; a file that is
    UTF-8 but for a few lines (:func:`utf8_bad_lines`) stays UTF-8 and a note names those lines; any other file
    that is not UTF-8 is decoded as charset-normalizer's best guess (:func:`_guess_encoding`: Windows-1252 when it
    fits, Latin-1 when nothing else does), and a note names it.

    The bytes that are not UTF-8 in such a UTF-8 file (and, with ``keep_bad``, in a file read with ``encoding``
    utf-8) become lone surrogates with ``keep_bad`` (:func:`read_table` finds their rows by them:
    :func:`has_bad_bytes`), else U+FFFD.

    Raises:
        ClassificationDataError: the forced encoding is unknown or does not fit the bytes (the line of the first
            byte that does not). Without one, every file is read: Latin-1 decodes every byte.
    """
    notes: list[str] = []
    errors = "surrogateescape" if keep_bad else "replace"
    if encoding:
        try:
            codec = codecs.lookup(encoding).name
        except LookupError:
            raise ClassificationDataError(f"{path}: unknown encoding {encoding!r} (e.g. utf-8, cp1252, latin-1)") from None
        if keep_bad and codec in ("utf-8", "utf-8-sig"):
            return data.decode("utf-8-sig", errors).lstrip("\ufeff"), "UTF-8", notes
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError as exc:
            line = line_at(data, exc.start)
            raise ClassificationDataError(f"{path} line {line}: byte {data[exc.start]:#04x} is not "
                                          f"{encoding_label(encoding)} text") from None
        return text.lstrip("\ufeff"), encoding_label(encoding), notes
    if data.startswith(codecs.BOM_UTF8):
        notes.append("UTF-8 byte order mark dropped")
    try:
        return data.decode("utf-8-sig"), "UTF-8", notes
    except UnicodeDecodeError as exc:
        first = exc.start
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16"), "UTF-16", notes
    bad_lines = utf8_bad_lines(data)
    if bad_lines:
        many = len(bad_lines) != 1
        notes.append(f"UTF-8 but for {len(bad_lines)} line{'s' if many else ''} with bytes that are not UTF-8 "
                     f"(line{'s' if many else ''} {lines_text(bad_lines, 10)})")
        return data.decode("utf-8-sig", errors), "UTF-8", notes
    from charset_normalizer import from_bytes

    # the guess needs the non-UTF-8 bytes: look at the start and around the first bad byte
    sample = data[:200_000] if len(data) <= 400_000 else data[:100_000] + data[max(0, first - 50_000):first + 50_000]
    guess = _guess_encoding(from_bytes(sample), data)   # always one that decodes every byte of ``data``
    text = data.decode(guess)
    bad = len(data.translate(None, bytes(range(128))))   # the non-ASCII bytes: all read in the other encoding
    first_line = line_at(data, first)
    notes.append(f"read as {encoding_label(guess)}: {bad} byte{'s' if bad != 1 else ''} "
                 f"{'are' if bad != 1 else 'is'} not UTF-8 (the first on line {first_line})")
    return text, encoding_label(guess), notes


MOSTLY_UTF8_BAD_LINES = 10   # at most this many lines (or 1 % of the lines) may fail in a file still read as UTF-8,
MOSTLY_UTF8_PER_BAD = 10     # while its other lines hold this many UTF-8 multi-byte characters per failing line


def utf8_bad_lines(data: bytes) -> list[int] | None:
    """The 1-based lines (split at the file's line ends: :func:`split_lines`) that are not UTF-8 in bytes that
    are UTF-8 but for a handful of lines ([] when every line is UTF-8), else None (text in another encoding). A handful: at most
    MOSTLY_UTF8_BAD_LINES lines or 1 % of them, while the lines that decode hold real UTF-8 (at least
    MOSTLY_UTF8_PER_BAD multi-byte characters per failing line). A UTF-8 file with a cut character or a few
    Latin-1 bytes pasted in is still UTF-8: a code page that decodes every byte would turn all its Cyrillic,
    Greek or Devanagari into mojibake. A Windows-1252 file holds no UTF-8 multi-byte characters (SemEval's
    stance train.txt: none beside its 2 failing lines), so it stays Windows-1252."""
    lines = split_lines(data)
    most = max(MOSTLY_UTF8_BAD_LINES, len(lines) // 100)
    bad, multibyte = _scan_utf8_lines(lines, most)
    if len(bad) > most or (bad and multibyte < MOSTLY_UTF8_PER_BAD * len(bad)):
        return None
    return bad


def _scan_utf8_lines(lines: list[bytes], most: int | None = None) -> tuple[list[int], int]:
    """(the 1-based numbers of ``lines`` that are not UTF-8, the UTF-8 multi-byte characters in the others); the
    scan stops once more than ``most`` lines fail (None: never)."""
    bad: list[int] = []
    multibyte = 0
    for number, line in enumerate(lines, 1):
        if line.isascii():
            continue
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            bad.append(number)
            if most is not None and len(bad) > most:
                break
            continue
        multibyte += sum(1 for c in text if ord(c) > 127)
    return bad, multibyte


def has_bad_bytes(value) -> bool:
    """``value`` holds bytes that were not UTF-8 (the lone surrogates of :func:`decode_bytes` with ``keep_bad``)."""
    return isinstance(value, str) and not value.isascii() and any("\udc80" <= c <= "\udcff" for c in value)


def guess_encoding(data: bytes) -> str:
    """The codec of bytes that are not UTF-8: "utf-8" for bytes that are UTF-8 but for a handful of lines
    (:func:`utf8_bad_lines`), else charset-normalizer's guess, Windows-1252 winning over any other single-byte
    guess that it decodes (see :func:`_guess_encoding`). The one rule for every reader (this
    module's tables and predict's streaming reader, core/predict/reading.py)."""
    if utf8_bad_lines(data):
        return "utf-8"
    from charset_normalizer import from_bytes

    return _guess_encoding(from_bytes(data[:200_000]), data)


_MULTIBYTE = ("utf_16", "utf_32", "big5", "gb", "hz", "shift_jis", "euc", "cp932", "cp936", "cp949", "cp950",
              "iso2022", "johab", "utf_7")


def codecs_name(label: str) -> str:
    """The codec to open a file with for an encoding's usual name (:func:`encoding_label`'s output): "UTF-8" ->
    "utf-8-sig" (a BOM dropped), "Windows-1252" -> "cp1252"."""
    if label == "UTF-8":
        return "utf-8-sig"
    back = {v: k for k, v in _ENCODING_NAMES.items() if k != "utf_8_sig"}
    return back.get(label, label)


def _guess_encoding(matches, data: bytes) -> str:
    """charset-normalizer's best guess, except that Windows-1252 (the usual Western single-byte code page,
    what Excel on Windows writes) wins over any single-byte guess whenever it decodes the bytes: on a few
    non-ASCII bytes these guesses (Windows-1250, Mac Latin-2, ...) are a coin toss. When neither Windows-1252
    nor a multi-byte guess decodes ``data`` (bytes 0x81, 0x8d, 0x8f, 0x90, 0x9d are not Windows-1252), Latin-1:
    it decodes every byte, and it is what the Western text with such bytes was most likely written in."""
    best = matches.best()
    guess = best.encoding if best is not None else "cp1252"
    if codecs.lookup(guess).name in ("ascii", "utf-8"):
        guess = "cp1252"
    if not codecs.lookup(guess).name.replace("-", "_").startswith(_MULTIBYTE):
        guess = "cp1252"
    try:
        data.decode(guess)
        return guess
    except UnicodeDecodeError:
        return "latin_1"


def cr_line_ends(data: bytes | str) -> bool:
    """The lines of ``data`` end in a bare CR (old Mac line ends): outside quoted fields it holds more CRs not
    followed by LF than LFs. Such a file is read with CR as its line end (a LF in it is text); any other file ends
    its lines at LF or CRLF, and a lone CR in it is text. Counted outside quotes: a table of multi-line reviews
    ended its 10,000 rows with a bare CR and held 16,751 LFs inside its quoted texts. Where no line end lies
    outside quotes (an unbalanced quote), every one counts."""
    quote, cr, lf, crlf = ('"', "\r", "\n", "\r\n") if isinstance(data, str) else (b'"', b"\r", b"\n", b"\r\n")
    outside = data.split(quote)[::2]   # the parts between quoted fields ("" inside a field splits it evenly)
    bare = sum(part.count(cr) - part.count(crlf) for part in outside)
    lfs = sum(part.count(lf) for part in outside)
    if bare + lfs == 0:
        bare, lfs = data.count(cr) - data.count(crlf), data.count(lf)
    return bare > lfs


def line_at(data: bytes, offset: int) -> int:
    """The 1-based line of byte ``offset`` of ``data``, its lines counted by the file's own line ends
    (:func:`cr_line_ends`)."""
    return data.count(b"\r" if cr_line_ends(data) else b"\n", 0, offset) + 1


def split_lines(data: bytes) -> list[bytes]:
    """The lines of ``data``, split at the file's own line ends (:func:`cr_line_ends`; a CRLF's CR stays at the
    end of its line)."""
    return data.split(b"\r" if cr_line_ends(data) else b"\n")


def open_newline(data: bytes) -> str:
    """The ``newline`` to open a table file with, from its first bytes: "\\r" for old Mac line ends (so that a
    LF inside a text is text), else "" (csv's own rule)."""
    return "\r" if cr_line_ends(data) else ""


LINES_COLUMN = "text"   # the one column of a one-text-per-line file


def table_kind(path: str | Path, first_line: str = "") -> str:
    """How a table file is read: "tsv" | "csv" | "jsonl" | "xlsx" | "lines" (one text per line), from its suffix
    and, for ``.csv`` / ``.txt``, its first line (see the module docstring). One rule for ``train``,
    ``predict``, ``embed``, the launcher's preview and the Predictions page.

    Raises:
        ClassificationDataError: an unknown suffix, naming the ones read.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".json"):
        return "jsonl"
    if suffix == ".xlsx":
        return "xlsx"
    if suffix == ".tsv":
        return "tsv"
    first = first_line.split("\r" if cr_line_ends(first_line) else "\n", 1)[0]
    if suffix == ".txt":   # SemEval's stance train.txt is a tab-separated table; other .txt files hold texts
        return "tsv" if "\t" in first else "lines"
    if suffix == ".csv":   # STS-B's train.csv is tab-separated: look at the first line
        return "tsv" if first.count("\t") > first.count(",") else "csv"
    raise ClassificationDataError(f"{path}: unknown file type {suffix!r}; use .csv, .tsv, .txt, .jsonl or .xlsx")




def unquote_tsv_field(value: str) -> str:
    """A tab-separated field written with CSV quoting as CSV reads it: ``"a ""quoted"" word"`` -> ``a "quoted"
    word``, for a field that begins and ends with a double quote and holds doubled quotes inside, every
    quote inside doubled. Any other field stays as it is: a lone quote is text (``5" screen``, ``it's "fine``),
    and so are the quotes around a quotation without doubled ones (MRPC's ``"We're just dealing with ..."``)."""
    if len(value) < 4 or value[0] != '"' or value[-1] != '"':
        return value
    inner = value[1:-1]
    if '""' not in inner or '"' in inner.replace('""', ""):
        return value
    return inner.replace('""', '"')


class TsvReader:
    """The rows of tab-separated text as every TSV reader reads them: split at tabs and line ends only (no quoting:
    a quote never joins lines or fields), each field then through :func:`unquote_tsv_field`. ``line_num``: as
    csv.reader's (the line the last row ended on)."""

    def __init__(self, stream):
        self._reader = csv.reader(stream, delimiter="\t", quoting=csv.QUOTE_NONE)

    @property
    def line_num(self) -> int:
        return self._reader.line_num

    def __iter__(self):
        return self

    def __next__(self) -> list[str]:
        return [unquote_tsv_field(v) for v in next(self._reader)]


def _protect_line_ends(text: str) -> tuple[str, list[str]]:
    """``text`` whose rows end at \\n only, and notes on its line ends. CRLF -> LF; a lone \\r (not before \\n)
    -> a placeholder (text). A file with old Mac line ends (:func:`cr_line_ends`): each \\r (or \\r\\n) -> \\n,
    each other \\n -> a placeholder (text)."""
    notes: list[str] = []
    if cr_line_ends(text):
        text = text.replace("\r\n", "\r")
        lone = text.count("\n")
        notes.append("old Mac line ends (CR) read as line ends"
                     + (f"; {lone} line feed{'s' if lone != 1 else ''} inside fields kept as text" if lone else ""))
        return text.replace("\n", _LONE_LF).replace("\r", "\n"), notes
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")
        notes.append("Windows line ends (CRLF)")
    lone = text.count("\r")
    if lone:
        text = text.replace("\r", _LONE_CR)
        notes.append(f"{lone} carriage return{'s' if lone != 1 else ''} inside fields kept as text")
    return text, notes


def _restore(values: list[str]) -> list[str]:
    return [v.replace(_LONE_CR, "\r").replace(_LONE_LF, "\n") if _LONE_CR in v or _LONE_LF in v else v
            for v in values]


# ---- reading ---------------------------------------------------------------------------------------------
def read_table(source: str | Path, *, no_header: bool = False, encoding: str = "", max_rows: int = 0,
               skip_invalid: bool = False) -> Table:
    """Read a table file.

    Args:
        source: a .csv / .tsv / .txt / .jsonl / .json / .xlsx path.
        no_header: the first row is data; columns are then "1", "2", ... (1-based positions).
        encoding: force this encoding (e.g. "cp1252"); "" = UTF-8, else the detected one.
        max_rows: keep only the first ``max_rows`` data rows in ``rows`` (0 = all); the rest are counted
            (``n_rows``) and their field counts checked without being kept.
        skip_invalid: leave out the rows of a UTF-8 file whose lines hold bytes that are not UTF-8 (counted and
            named in ``notes``) instead of refusing the file (:func:`drop_rows_not_utf8`).

    Returns:
        Table.

    Raises:
        ClassificationDataError: missing file, folder, unknown type, undecodable text, unreadable CSV or
            JSON, a row whose field count differs from the header's (file, line, both counts, a likely cause).
    """
    path = Path(source).expanduser()
    if not path.exists():
        raise ClassificationDataError(f"data file {source} does not exist")
    if path.is_dir():
        raise ClassificationDataError(f"{source} is a folder; give a .csv, .tsv, .jsonl or .xlsx file")
    if path.suffix.lower() == ".xlsx":
        return _read_xlsx(path, str(source), no_header, max_rows)
    table_kind(path)   # an unknown suffix fails before the file is read
    data = path.read_bytes()
    text, enc, notes = decode_bytes(data, str(source), encoding, keep_bad=True)
    kind = table_kind(path, text[:65536])
    bad = has_bad_bytes(text)
    keep = 0 if bad else max_rows   # the rows not kept must still be looked at for bytes that are not UTF-8
    if kind == "jsonl":
        table = _read_jsonl(text, str(source), enc, notes, keep)
    elif kind == "lines":
        table = _read_lines(text, str(source), enc, notes, keep)
    else:
        table = _read_delimited(text, str(source), kind, enc, notes, no_header, keep)
    if bad:
        table = drop_rows_not_utf8(table, data, skip_invalid)
        if max_rows:
            table.rows = table.rows[:max_rows]
    return table


def drop_rows_not_utf8(table: Table, data: bytes, skip_invalid: bool) -> Table:
    """``table`` (read from the bytes ``data``) without its rows that hold bytes that are not UTF-8
    (:func:`has_bad_bytes`), with a note saying how many and on which lines ("6 rows skipped: bytes that are not
    UTF-8 on lines 2342, 10787, ..."); a header name with such bytes shows U+FFFD for them. Every reader of a table
    goes through it: training, the launcher's preview, Classify's dev set (core/predict/reading.py, which never drops
    a row, gives such rows an error instead).

    Raises:
        ClassificationDataError: without ``skip_invalid``: the first bad byte and its line, the rows' lines, and what
            to do: skip those rows (--skip-invalid) or fix those lines; and, only when the rest of the file is not
            UTF-8, give the file's encoding.
    """
    table.columns = [c.encode("utf-8", "surrogateescape").decode("utf-8", "replace") if has_bad_bytes(c) else c
                     for c in table.columns]
    bad = [line for line, values in table.rows if any(has_bad_bytes(v) for v in values)]
    if not bad:
        return table
    lines = _not_utf8_lines(data)   # the lines themselves: a quoted CSV field's row starts lines earlier
    if not skip_invalid:
        line, byte = _first_bad_byte(data)
        raise not_utf8_error(table.path, line, byte, len(bad), lines, bool(utf8_bad_lines(data)))
    drop = set(bad)
    table.rows = [(n, values) for n, values in table.rows if n not in drop]
    table.n_rows -= len(bad)
    table.notes.append(not_utf8_skipped(len(bad), lines))
    return table


def not_utf8_error(path, line: int, byte: int, n_rows: int, lines: list[int], mostly: bool) -> ClassificationDataError:
    """The error of a table whose ``n_rows`` rows, on ``lines``, hold bytes that are not UTF-8 (the first ``byte`` on
    ``line``): what to do, skip those rows (--skip-invalid) or fix those lines, and give the file's encoding only
    when the rest of the file is not UTF-8 (not ``mostly``)."""
    many = n_rows != 1
    return ClassificationDataError(
        f"{path} line {line}: byte {byte:#04x} is not UTF-8 text; {n_rows} row{'s' if many else ''} "
        f"{'hold' if many else 'holds'} bytes that are not UTF-8 (line{'s' if len(lines) != 1 else ''} "
        f"{lines_text(lines, 10)})"
        + (" while the rest of the file is UTF-8, so no other encoding would read the file right" if mostly else "")
        + f": skip {'those rows' if many else 'that row'} with --skip-invalid, or fix "
        f"{'those lines' if len(lines) != 1 else 'that line'} in the file"
        + ("" if mostly else ", or give the file's encoding (--encoding, e.g. cp1252)"))


def not_utf8_skipped(n_rows: int, lines: list[int]) -> str:
    """"6 rows skipped: bytes that are not UTF-8 on lines 2342, 10787, ..." (the note of every reader)."""
    return (f"{n_rows} row{'s' if n_rows != 1 else ''} skipped: bytes that are not UTF-8 on "
            f"line{'s' if len(lines) != 1 else ''} {lines_text(lines, 10)}")


def _not_utf8_lines(data: bytes) -> list[int]:
    """The 1-based lines of ``data`` (split at its own line ends) that are not UTF-8."""
    return _scan_utf8_lines(split_lines(data))[0]


def _first_bad_byte(data: bytes) -> tuple[int, int]:
    """(1-based line, the byte) of the first byte of ``data`` that is not UTF-8."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return line_at(data, exc.start), data[exc.start]
    return 1, 0


def require_labels(table: Table) -> Table:
    """``table`` when it can hold labels; a one-text-per-line file cannot.

    Raises:
        ClassificationDataError: a .txt without tabs given as training or dev data, saying how to add labels.
    """
    if table.kind == "lines":
        raise ClassificationDataError(f"{table.path}: a .txt file without tabs is one text per line, with no label "
                                      "column; training and dev data need a label per row: a .tsv or .csv table, "
                                      "or a .txt whose lines are text<TAB>label under a header line")
    return table


def _read_lines(text: str, where: str, enc: str, notes: list[str], max_rows: int) -> Table:
    """One text per line (blank lines left out; a CRLF's \r never ends a text; old Mac line ends, a bare \r, end
    lines: :func:`cr_line_ends`): one column, ``text``."""
    rows: list[tuple[int, list]] = []
    n_rows = 0
    mac = cr_line_ends(text)
    if mac:
        notes.append("old Mac line ends (CR) read as line ends")
    for line, value in enumerate(text.replace("\r\n", "\r").split("\r") if mac else text.split("\n"), 1):
        value = value[:-1] if value.endswith("\r") else value
        if not value.strip():
            continue
        n_rows += 1
        if not max_rows or n_rows <= max_rows:
            rows.append((line, [value]))
    if not n_rows:
        raise ClassificationDataError(f"{where}: the file is empty (expected one text per line)")
    notes.append("one text per line (a .txt file without tabs)")
    return Table(where, "lines", [LINES_COLUMN], False, rows, n_rows, enc, notes, {1: n_rows}, [])


def unique_columns(header: list[str]) -> tuple[list[str], str]:
    """Header names, each column's own: an empty one becomes "column N" (1-based position, as the Excel reader and
    the no-header messages name columns), a repeated one "NAME (column N)". Returns (names, a note saying which
    were named so; "" when the header needed none).

    Example: ["class", "message", "", "", ""] -> (["class", "message", "column 3", "column 4", "column 5"],
    "header columns 3, 4, 5 have no name: read as 'column 3', 'column 4', 'column 5'")."""
    names: list[str] = []
    unnamed: list[int] = []
    repeated: list[tuple[int, str]] = []
    taken = {h for h in header if h}
    for i, h in enumerate(header, start=1):
        if h and h not in names:
            names.append(h)
            continue
        (repeated.append((i, h)) if h else unnamed.append(i))
        name = f"{h} (column {i})" if h else f"column {i}"
        while name in taken or name in names:
            name += "'"
        names.append(name)
    said = []
    if unnamed:
        many = len(unnamed) > 1
        said.append(f"header column{'s' if many else ''} {', '.join(map(str, unnamed))} "
                    f"{'have' if many else 'has'} no name: read as "
                    + ", ".join(repr(names[i - 1]) for i in unnamed))
    if repeated:
        said.append("repeated header name" + ("s" if len(repeated) > 1 else "") + ": "
                    + ", ".join(f"{h!r} of column {i} read as {names[i - 1]!r}" for i, h in repeated))
    return names, "; ".join(said)


def _read_delimited(text: str, where: str, kind: str, enc: str, notes: list[str], no_header: bool,
                    max_rows: int) -> Table:
    text, said = _protect_line_ends(text)
    notes.extend(said)
    stream = io.StringIO(text, newline="")
    if kind == "csv":
        reader = csv.reader(stream)
    else:
        reader = TsvReader(stream)
    columns: list[str] = []
    rows: list[tuple[int, list]] = []
    counts: Counter = Counter()
    lines_by_count: dict[int, list[int]] = {}   # without a header: lines of each field count (the first LINES_KEPT)
    n_rows = 0
    width = 0
    start = 1
    try:
        for values in reader:
            line, start = start, reader.line_num + 1
            if not values or all(not v.strip() for v in values):
                continue
            if not columns and not no_header:
                columns, named = unique_columns([h.strip() for h in _restore(values)])
                notes.extend([named] if named else [])
                width = len(columns)
                continue
            n = len(values)
            counts[n] += 1
            if no_header:   # the file's width is known once every row is counted
                kept = lines_by_count.setdefault(n, [])
                if len(kept) < LINES_KEPT:
                    kept.append(line)
            elif n != width:
                check_field_count(where, line, n, width, kind, header=True, header_row=columns,
                                  most=_most_fields(counts, reader))
            n_rows += 1
            if not max_rows or n_rows <= max_rows:
                rows.append((line, _restore(values)))
    except csv.Error as exc:
        raise ClassificationDataError(f"{where} line {reader.line_num}: unreadable {kind.upper()} ({exc})") from None
    if no_header and counts:
        width = file_width(counts)
        columns = [str(i) for i in range(1, width + 1)]
    if not columns:
        raise ClassificationDataError(f"{where}: the file is empty (expected {'rows' if no_header else 'a header line and rows'})")
    long_rows = sorted(line for n, kept in lines_by_count.items() if n > width for line in kept)
    short_rows = sorted(line for n, kept in lines_by_count.items() if n < width for line in kept)
    shape = ", ".join(f"{k} fields: {v}" for k, v in sorted(counts.items()))
    if long_rows:
        n_long = sum(v for k, v in counts.items() if k > width)
        notes.append(f"{n_long} row{'s' if n_long != 1 else ''} {'have' if n_long != 1 else 'has'} more fields "
                     f"than the {width} most rows have ({shape}); the extra fields are not read, lines "
                     f"{lines_text(long_rows)}{_more(n_long, long_rows)}")
    if short_rows:
        n_short = sum(v for k, v in counts.items() if k < width)
        notes.append(f"{n_short} row{'s' if n_short != 1 else ''} {'have' if n_short != 1 else 'has'} fewer fields "
                     f"than the {width} most rows have ({shape}); the values they lack are missing, lines "
                     f"{lines_text(short_rows)}{_more(n_short, short_rows)}")
    return Table(where, kind, columns, not no_header, rows, n_rows, enc, notes, dict(counts), long_rows, short_rows)


LINES_KEPT = 1000      # lines kept per field count of a table without a header (the rest are counted)
WIDTH_ROWS = 1000      # rows whose field counts decide the columns of a streamed table without a header


def file_width(counts: Counter | dict[int, int]) -> int:
    """The number of columns of a table without a header: the field count most of its rows have, not the first
    line's: a first line cut short (2 of 3 fields) is a problem of that row, not the file's shape. A tie goes to
    the smaller count: a longer row's extra fields are only not read, a shorter row is a row problem."""
    return max(counts, key=lambda n: (counts[n], -n)) if counts else 0


def _most_fields(counts: Counter, reader, look: int = WIDTH_ROWS) -> int:
    """The field count most of the rows read so far and the next ``look`` rows of ``reader`` have (the rows looked
    at are used up: only called before an error)."""
    seen = Counter(counts)
    try:
        for values in reader:
            if values and any(v.strip() for v in values):
                seen[len(values)] += 1
            look -= 1
            if look <= 0:
                break
    except csv.Error:
        pass
    return file_width(seen)


def _more(total: int, shown: list[int]) -> str:
    """" (N more not listed)" when only the first lines of ``total`` are kept."""
    return f" ({total - len(shown)} more not listed)" if total > len(shown) else ""


class CsvRows:
    """Writes CSV rows with LF line ends whose every field comes back whole: Python's csv writer quotes a field
    holding the line terminator's characters only, so a lone CR inside a text (a tweet's "#tips \rhttp://…")
    went out unquoted and every reader here, which takes a bare CR for a line end, read one row as two. A row
    with a CR in any field is written with every field quoted; the others as csv's QUOTE_MINIMAL."""

    def __init__(self, fh):
        self._plain = csv.writer(fh, lineterminator="\n")
        self._quoted = csv.writer(fh, lineterminator="\n", quoting=csv.QUOTE_ALL)

    def writerow(self, row) -> None:
        """Write one row (a sequence of values, written as csv.writer writes them)."""
        quoted = any(isinstance(v, str) and "\r" in v for v in row)
        (self._quoted if quoted else self._plain).writerow(row)

    def writerows(self, rows) -> None:
        """Write each of ``rows`` as :meth:`writerow` does."""
        for row in rows:
            self.writerow(row)


def lines_text(lines: list[int], k: int = 5) -> str:
    """"12, 40, 97" or "12, 40, 97, 120, 133 and 134 more": the first ``k`` of the 1-based ``lines``."""
    shown = ", ".join(str(n) for n in lines[:k])
    return shown + (f" and {len(lines) - k} more" if len(lines) > k else "")


def check_field_count(path, line: int, got: int, expected: int, kind: str = "tsv", *, header: bool = True,
                      header_row: list[str] | None = None, most: int = 0) -> None:
    """Every row must have the header's number of fields: too many would shift or cut texts (a tab inside a
    sentence), too few shift columns. Raises ClassificationDataError naming the file, the line (1-based,
    header = line 1) and both counts; when the "header" ``header_row`` holds a number (a data row read as the
    header, as in STS-B, which has none), the message says the file may have no header row; else when ``most``
    (the field count most rows have) is more than the header's, line 1 is likely a data line cut short, and the
    message says to read the file without a header row."""
    if got == expected:
        return
    kind = kind.lstrip(".").lower()
    sep = "comma" if kind == "csv" else "tab"
    hint = f"an extra {sep} inside a text?" if got > expected else f"a missing {sep} or a cut line?"
    than = "as in the header" if header else "as in the first row"
    message = f"{path} line {line}: expected {expected} fields ({than}), got {got} ({hint})"
    if header and header_row and any(is_number(v) for v in header_row):
        message += ("; the first line, read as the header, holds numbers: if the file has no header row, "
                    "say so (No header row) and its rows are read with their own number of fields")
    elif header and most > expected:
        message += (f"; most lines have {most} fields: line 1 looks like a data line cut short, not a header: "
                    "tick No header row (--no-header)")
    raise ClassificationDataError(message)


def is_number(value: str) -> bool:
    """``value`` reads as a number (``float()`` accepts it: "3", "-2.5", "1e-4", "nan")."""
    try:
        float(value)
    except ValueError:
        return False
    return True


def _read_jsonl(text: str, where: str, enc: str, notes: list[str], max_rows: int) -> Table:
    columns: list[str] = []
    seen: set[str] = set()
    objs: list[tuple[int, dict]] = []
    n_rows = 0
    for n, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ClassificationDataError(f"{where} line {n}, character {exc.colno}: not a JSON object ({exc.msg}); "
                                          "expected one JSON object per line (JSONL)") from None
        if not isinstance(obj, dict):
            raise ClassificationDataError(f"{where} line {n}: expected a JSON object, got {type(obj).__name__}")
        for k in obj:
            if k not in seen:
                seen.add(k)
                columns.append(k)
        n_rows += 1
        if not max_rows or n_rows <= max_rows:
            objs.append((n, obj))
    if not columns:
        raise ClassificationDataError(f"{where}: the file is empty (expected one JSON object per line)")
    rows = [(n, [obj.get(c) for c in columns]) for n, obj in objs]
    return Table(where, "jsonl", columns, True, rows, n_rows, enc, notes)


def _cell(value):
    if isinstance(value, float) and value.is_integer():
        return str(int(value)) if abs(value) < 1e15 else str(value)
    return "" if value is None else (value if isinstance(value, str) else str(value))


def _read_xlsx(path: Path, where: str, no_header: bool, max_rows: int) -> Table:
    try:
        import openpyxl

        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:  # noqa: BLE001 - zipfile.BadZipFile, KeyError for a broken workbook
        raise ClassificationDataError(f"{where}: not a readable Excel .xlsx workbook ({type(exc).__name__}: "
                                      f"{str(exc)[:200]})") from None
    try:
        sheet = book.worksheets[0]
        columns: list[str] = []
        rows: list[tuple[int, list]] = []
        n_rows, named = 0, ""
        counts: Counter = Counter()   # without a header: the cells per row, whose most common count is the width
        for number, values in enumerate(sheet.iter_rows(values_only=True), start=1):
            cells = [_cell(v) for v in values]
            while cells and cells[-1] == "":
                cells.pop()
            if not cells or all(not c.strip() for c in cells):
                continue
            if not columns and not no_header:
                columns, named = unique_columns([c.strip() for c in cells])
                continue
            counts[len(cells)] += 1
            n_rows += 1
            if not max_rows or n_rows <= max_rows:
                rows.append((number, cells))
        if no_header and counts:
            columns = [str(i) for i in range(1, file_width(counts) + 1)]
        rows = [(number, cells + [""] * (len(columns) - len(cells))) for number, cells in rows]
        notes = [f"sheet {sheet.title!r}" + (f" (of {len(book.worksheets)} sheets)" if len(book.worksheets) > 1 else "")]
        notes += [named] if not no_header and columns and named else []
    finally:
        book.close()
    if not columns:
        raise ClassificationDataError(f"{where}: the first sheet is empty")
    return Table(where, "xlsx", columns, not no_header, rows, n_rows, "xlsx", notes)


# ---- columns ---------------------------------------------------------------------------------------------
def resolve_column(table: Table, spec, what: str = "column", flag: str = "") -> int:
    """The 0-based index of a column given by name or by 1-based position (an int or a digit string;
    a header name that is itself digits wins; a one-text-per-line file's one column is ``text``).

    Raises:
        ClassificationDataError: no such column (the message lists the columns, and a near name).
    """
    text = str(spec).strip()
    if (table.has_header or table.kind == "lines") and text in table.columns:
        return table.columns.index(text)
    if text.isdigit():
        pos = int(text)
        width = max([len(table.columns)] + [len(v) for _, v in table.rows[:1000]])
        if 1 <= pos <= width:
            return pos - 1
        raise ClassificationDataError(f"{table.path}: {what} {pos} is out of range (1..{width})")
    near = [c for c in table.columns if c.lower() == text.lower()]
    hint = f"; did you mean {near[0]!r}?" if near else ""
    if not table.has_header:
        raise ClassificationDataError(f"{table.path}: the file has no header, so {what} {text!r} must be a 1-based "
                                      f"position (1..{len(table.columns)})")
    raise ClassificationDataError(f"{table.path}: {what} {text!r} not found{hint}; columns are {table.columns}"
                                  + (f" (give it with {flag})" if flag and not near else ""))


# ---- preview ---------------------------------------------------------------------------------------------
@dataclass
class TablePreview:
    """The head of a table for the launcher: columns, the first rows, the row count and what reading found."""

    path: str
    columns: list[str]
    rows: list[list[str]]
    n_rows: int
    encoding: str
    notes: list[str]
    guess: ColumnGuess


def preview_table(source: str | Path, *, n: int = 20, no_header: bool = False, encoding: str = "",
                  pair: bool = False, texts: tuple[int, int] | None = None, score: bool = False,
                  skip_invalid: bool = False) -> TablePreview:
    """The first ``n`` rows of a table, every row counted (the rest are not kept; ``skip_invalid``: rows with bytes
    that are not UTF-8 left out, :func:`drop_rows_not_utf8`, else refused); column guesses: by the
    usual names with a header, else by the first GUESS_ROWS rows' values (:func:`guess_columns_from_values`;
    ``texts``: the fewest and most text columns the task reads, default 2 for ``pair`` else 1; ``score``: the
    label is a number, regression); an id column is guessed only when its values are unique in the whole file."""
    table = read_table(source, no_header=no_header, encoding=encoding, skip_invalid=skip_invalid)
    return preview_of(table, n=n, pair=pair, texts=texts, score=score)


def preview_of(table: Table, *, n: int = 20, pair: bool = False, texts: tuple[int, int] | None = None,
               score: bool = False) -> TablePreview:
    """:func:`preview_table` of a table already read (its first ``n`` rows kept; GUESS_ROWS rows spread over the
    file for the guess, :func:`spread_rows`; an id column guessed by its name only when its values in every row
    read are unique)."""
    from explorer.core.data.row_ids import id_column_note

    def cells(values) -> list:
        return [_cell(v) if not isinstance(v, (list, dict)) else json.dumps(v) for v in values]

    rows = [cells(values) for _, values in table.rows[:n]]
    # the guess reads rows spread over the whole file: the first rows of a file sorted by its label hold one class
    guess_rows = [cells(table.rows[i][1]) for i in spread_rows(len(table.rows), GUESS_ROWS)]
    wanted = texts or ((2, 2) if pair else (1, 1))
    if table.has_header:
        guess = guess_columns(table.columns, pair)
        if not guess.text_columns:   # no column named like a text ("tweet_text"): the longest texts, said so
            by_values = guess_columns_from_values(table.columns, guess_rows, texts=wanted, score=score)
            if by_values.text_columns:
                said = by_values.basis.split("; ")[0]
                guess = replace(guess, text_columns=by_values.text_columns,
                                basis="; ".join(b for b in (said, guess.basis) if b))
        if guess.label_column is None:   # a label column not named as usual: found by its values, said why
            label, why = label_by_values(table.columns, guess_rows, guess.text_columns, score=score)
            if label is not None:
                guess = replace(guess, label_column=label, basis="; ".join(b for b in (guess.basis, why) if b))
        elif not score:   # a usual name holding averages (3.5, 4.25) yields to a label-named column of classes
            label, why = label_over_named(table.columns, guess_rows, guess.text_columns, guess.label_column)
            if label is not None:
                guess = replace(guess, label_column=label, basis="; ".join(b for b in (guess.basis, why) if b))
        if guess.id_column is not None:
            i = table.columns.index(guess.id_column)
            note = id_column_note(guess.id_column, [_cell(v[i]) for _, v in table.rows if i < len(v)])
            if note:
                guess = replace(guess, id_column=None, id_note=note)
    else:
        guess = guess_columns_from_values(table.columns, guess_rows, texts=wanted, score=score)
    return TablePreview(table.path, table.columns, rows, table.n_rows, table.encoding, table.notes, guess)


def spread_rows(n_rows: int, k: int) -> list[int]:
    """``k`` row indices spread evenly over ``n_rows`` rows, the first and the last among them (all of them when
    there are no more than ``k``): the rows a column guess reads."""
    if n_rows <= k:
        return list(range(n_rows))
    return sorted({round(i * (n_rows - 1) / (k - 1)) for i in range(k)})

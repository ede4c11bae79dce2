"""Whether a table's first line is data rather than a header, answered before any setting is chosen for it.

A header names columns; a first line whose value in a column is a number, in a column whose rows below hold
numbers too, is a data row (STS-B's ``0001 … 5.000`` has no header row: read as one, the file is refused at the
first row with more fields).
"""

from __future__ import annotations

from pathlib import Path

from explorer.core.data.columns_guess import GUESS_ROWS
from explorer.core.data.table import is_number, table_kind
from explorer.core.data.table_stream import read_head
from explorer.core.errors import ClassificationDataError

__all__ = ["FIRST_LINE_NUMBERS", "first_line_is_data"]

FIRST_LINE_NUMBERS = "the first line holds numbers"


def first_line_is_data(path: str | Path, *, encoding: str = "") -> str:
    """Why the first line of a CSV or TSV table is data rather than a header: FIRST_LINE_NUMBERS when one of its
    values is a number in a column whose rows below (the first GUESS_ROWS) are all numbers too; "" otherwise, and
    for a file that is not a CSV or TSV table or cannot be read (the reader's own message says why)."""
    p = Path(path).expanduser()
    try:
        with open(p, "rb") as fh:
            start = fh.read(65536).decode("utf-8", errors="replace")
        if table_kind(p, start) not in ("csv", "tsv"):
            return ""
        head = read_head(p, n=GUESS_ROWS + 1, no_header=True, encoding=encoding)
    except (OSError, ClassificationDataError):
        return ""
    if len(head.rows) < 2:
        return ""
    first, below = head.rows[0][1], [values for _, values in head.rows[1:]]
    for i, value in enumerate(first):
        if not is_number(str(value).strip()):
            continue
        column = [str(r[i]).strip() for r in below if i < len(r) and str(r[i]).strip()]
        if column and all(is_number(v) for v in column):
            return FIRST_LINE_NUMBERS
    return ""

"""Two checks a table's first rows answer before any setting is chosen for it: whether its first line is data
rather than a header, and whether a column named like an id identifies its rows.

A header names columns; a first line whose value in a column is a number, in a column whose rows below hold
numbers too, is a data row (STS-B's ``0001 … 5.000`` has no header row: read as one, the file is refused at the
first row with more fields). An id column that repeats values does not identify rows (a spreadsheet that wrote
18-digit tweet ids as ``5.70306E+17`` made thousands of rows share one "id"); the rows are then identified by
their line numbers, as without an id column.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from explorer.core.data.table import GUESS_ROWS, table_kind
from explorer.core.data.table_stream import read_head
from explorer.core.errors import ClassificationDataError

__all__ = ["FIRST_LINE_NUMBERS", "first_line_is_data", "id_column_note"]

FIRST_LINE_NUMBERS = "the first line holds numbers"
_ROUNDED = re.compile(r"[-+]?\d(\.\d+)?[eE]\+?\d+")   # 5.70306E+17: a long number a spreadsheet rounded


def _is_number(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return True


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
        if not _is_number(str(value).strip()):
            continue
        column = [str(r[i]).strip() for r in below if i < len(r) and str(r[i]).strip()]
        if column and all(_is_number(v) for v in column):
            return FIRST_LINE_NUMBERS
    return ""


def id_column_note(name: str, values: list[str]) -> str:
    """"" when the non-empty ``values`` of id column ``name`` are unique; else the sentence saying it does not
    identify rows: "tweet_id is not unique: 12,206 values repeat (rounded numbers?); rows are identified by line"
    (the count: values equal to an earlier one; "rounded numbers?" when repeated values are written like
    ``5.70306E+17``)."""
    counts = Counter(v for v in (str(x).strip() for x in values) if v)
    repeated = [v for v, c in counts.items() if c > 1]
    if not repeated:
        return ""
    n = sum(counts[v] - 1 for v in repeated)
    rounded = " (rounded numbers?)" if any(_ROUNDED.fullmatch(v) for v in repeated) else ""
    return (f"{name} is not unique: {n:,} value{'s' if n != 1 else ''} repeat{'' if n != 1 else 's'}{rounded}; "
            "rows are identified by line")

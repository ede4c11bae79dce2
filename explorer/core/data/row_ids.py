"""Whether a column of ids identifies a table's rows.

An id column that repeats values does not identify rows (a spreadsheet that wrote 18-digit tweet ids as
``5.70306E+17`` made thousands of rows share one "id"); the rows are then identified by their line numbers, as
without an id column.
"""

from __future__ import annotations

import re
from collections import Counter

__all__ = ["id_column_note"]

_ROUNDED = re.compile(r"[-+]?\d(\.\d+)?[eE]\+?\d+")   # 5.70306E+17: a long number a spreadsheet rounded


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

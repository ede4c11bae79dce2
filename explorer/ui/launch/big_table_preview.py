"""The launcher's preview of a big classification table (Qt-free; run in the preview child process).

A table over STREAM_BYTES is not loaded whole (explorer.core.data.classification holds every text, and the
whole file's bytes and text, in memory): its first rows are read from the file's first bytes and handed to
``on_head`` at once (the child prints them as a first JSON line, the launcher shows them), then its rows and
exact class counts are counted chunk by chunk (explorer.core.data.table_stream), one row in memory at a time.
The checks that need every text at once (duplicates, a text with two labels) are left to the run, which
reads the whole file and logs them; the preview says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from explorer.core.data.table_stream import STREAM_BYTES, count_rows, streamable


def is_big_table(source: str) -> bool:
    """``source`` is a local CSV or TSV file of more than STREAM_BYTES bytes."""
    path = Path(source).expanduser()
    try:
        return path.is_file() and path.stat().st_size > STREAM_BYTES and streamable(path)
    except OSError:
        return False


def _label_index(columns: list[str], spec: str) -> int | None:
    if spec in columns:
        return columns.index(spec)
    if spec.isdigit() and 1 <= int(spec) <= len(columns):
        return int(spec) - 1
    return None


def _named(counts: dict[str, int], names: list[str]) -> dict[str, int]:
    """Class ids ("0", "1") as their names when ``names`` are given in id order and every label is an id."""
    if not names or not all(k.isdigit() and int(k) < len(names) for k in counts):
        return counts
    return {names[int(k)]: v for k, v in counts.items()}


def preview_big_table(source: str, task: str, n: int, split: str, text_columns: list[str] | None,
                      label_column: str, options: dict | None = None,
                      on_head: Callable[[dict], None] | None = None) -> dict:
    """The launcher's preview dict (explorer.ui.launch.data_preview) of a big classification table: the first
    ``n`` rows, the row count and the exact class counts, counted in chunks. ``on_head(partial preview)`` gets the
    first rows before the count starts (``partial``: True, no counts yet).

    Raises:
        ClassificationDataError: the label column is not found, or the file cannot be read (as the loader).
    """
    from explorer.core.data.table_stream import read_head
    from explorer.core.errors import ClassificationDataError
    from explorer.ui.launch.data_preview import class_distribution_warnings, id_notes, plain_words, table_head

    options = dict(options or {})
    no_header, encoding = bool(options.get("no_header")), str(options.get("encoding") or "")
    head = table_head(source, task, options, n, head_only=True)
    records = head.pop("head_records", [])
    columns = head.get("columns") or read_head(source, n=1, no_header=no_header, encoding=encoding).columns
    guess = head.get("guess") or {}
    label = str(label_column or guess.get("label_column") or "")
    texts = [c for c in (text_columns or guess.get("text_columns") or []) if c]
    index = _label_index(list(columns), label) if label else None
    if index is None:
        raise ClassificationDataError(f"{source}: label column {label!r} not found; columns are {list(columns)}"
                                      if label else f"{source}: which column holds the label? (columns: "
                                      f"{', '.join(columns)})")
    size_mb = Path(source).expanduser().stat().st_size / 1e6
    base = {"ok": True, "kind": "classification", "columns": [], "guess": {}, **head,
            "used": {"text_columns": texts, "label_column": label}, "records": records, "error": ""}
    if on_head is not None:
        on_head({**base, "partial": True, "summary": f"counting the rows of this {size_mb:,.0f} MB table…",
                 "counts": {}, "class_counts": {}, "problems": [], "n_problems": 0, "notes": []})
    count = count_rows(source, label_index=index, no_header=no_header, encoding=encoding,
                       skip_invalid=bool(options.get("skip_invalid")))
    counts = _named(count.class_counts, list(options.get("label_names") or []))
    dist = ", ".join(f"{k}: {v:,}" for k, v in counts.items())
    cols = f"columns {', '.join(repr(t) for t in texts)}, label {label!r}"
    summary = f"{count.n_rows:,} examples, {len(counts)} labels ({dist}); {cols}"
    dev_fraction = float(options.get("dev_fraction") or 0.0) if split == "train" else 0.0
    problems = class_distribution_warnings(counts, dev_fraction)
    if count.empty_labels:
        problems.append(f"{count.empty_labels:,} rows have an empty label (skip them with --skip-invalid)")
    notes = [f"a {size_mb:,.0f} MB table: rows and classes counted in pieces; duplicate and conflicting texts "
             "are checked when the run reads it (its log)"] + id_notes(head, options) + ([count.note] if count.note
                                                                                          else [])
    return {**base, "summary": summary, "notes": notes, "counts": {"examples": count.n_rows, "labels": len(counts)},
            "class_counts": counts,
            "unnamed_labels": len(counts) if counts and not options.get("label_names")
            and all(k.isdigit() for k in counts) else 0,
            "problems": [plain_words(p) for p in problems][:50], "n_problems": len(problems)}

"""Sentence and sentence-pair classification data: GLUE-style TSV / CSV / JSONL files and hub ids.

Formats (chosen by the file suffix):

- ``.tsv``: tab-separated with a header line, no quoting (the GLUE files: SST-2 ``sentence<TAB>label``,
  MRPC ``Quality<TAB>#1 ID<TAB>#2 ID<TAB>#1 String<TAB>#2 String``). A UTF-8 BOM is ignored.
- ``.csv``: comma-separated with a header line, standard CSV quoting.
- ``.jsonl`` / ``.json``: one JSON object per line.
- a hub id with an optional config and split: ``nyu-mll/glue::sst2`` or ``nyu-mll/glue::mnli::validation_matched``
  (default split: "train" for training data, "validation" for dev data).

Column mapping: when ``text_columns`` / ``label_column`` are not given they are found among the usual
names (KNOWN_SINGLE, KNOWN_PAIRS, KNOWN_LABELS); otherwise the error lists the columns present.

Labels must be integers 0..K-1 (classification); with ``regression=True`` (``num_labels`` 1, e.g. STS-B)
they are floats. Every problem raises :class:`ClassificationDataError` naming the file, the line (1-based,
header = line 1) and what was wrong.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

KNOWN_SINGLE = ("sentence", "text", "sentence1", "#1 String", "review", "content")
KNOWN_PAIRS = (("sentence1", "sentence2"), ("#1 String", "#2 String"), ("question1", "question2"),
               ("question", "sentence"), ("premise", "hypothesis"), ("text_a", "text_b"),
               ("sentence_a", "sentence_b"))
KNOWN_LABELS = ("label", "Quality", "labels", "score", "gold_label")
_INT = re.compile(r"^[+-]?\d+(\.0*)?$")

csv.field_size_limit(10_000_000)


from explorer.core.errors import ClassificationDataError  # noqa: E402,F401 - re-exported (defined in core/errors.py)


@dataclass
class ClassificationData:
    """Loaded examples, one per row.

    Attributes:
        texts_a: first (or only) sentence of each example.
        texts_b: second sentence (pair tasks) or None.
        labels: int class ids 0..K-1, or floats when ``regression``.
        source: the file path or hub id as given.
        columns: the column names used: (text_a, text_b or "", label).
        label_names: class names when the source has them (hub ClassLabel), else None.
        regression: float labels (num_labels 1).
    """

    texts_a: list[str]
    texts_b: list[str] | None
    labels: list
    source: str
    columns: tuple[str, str, str]
    label_names: list[str] | None = None
    regression: bool = False
    problems: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.texts_a)

    @property
    def num_labels(self) -> int:
        """1 for regression, else max label + 1 (at least 2)."""
        if self.regression:
            return 1
        if self.label_names:
            return len(self.label_names)
        return max(2, max(self.labels) + 1) if self.labels else 2

    def head(self, n: int) -> "ClassificationData":
        """The first n examples (n <= 0: all)."""
        if n <= 0 or n >= len(self):
            return self
        return ClassificationData(self.texts_a[:n], self.texts_b[:n] if self.texts_b is not None else None,
                                  self.labels[:n], self.source, self.columns, self.label_names,
                                  self.regression, list(self.problems))


def _split_hub(source: str, default_split: str) -> tuple[str, str | None, str]:
    parts = source.split("::")
    if len(parts) > 3:
        raise ClassificationDataError(f"{source!r}: expected hub_id, hub_id::config or hub_id::config::split")
    hub_id = parts[0]
    config = parts[1] if len(parts) > 1 and parts[1] else None
    split = parts[2] if len(parts) > 2 and parts[2] else default_split
    return hub_id, config, split


def _read_rows(path: Path) -> tuple[list[str], list[tuple[int, dict]]]:
    """Header + (line number, row dict) pairs from a TSV / CSV / JSONL file."""
    suffix = path.suffix.lower()
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ClassificationDataError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    if suffix in (".jsonl", ".json"):
        rows, header = [], []
        for n, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ClassificationDataError(f"{path} line {n}: not a JSON object ({exc.msg}); "
                                              "expected one JSON object per line (JSONL)") from None
            if not isinstance(obj, dict):
                raise ClassificationDataError(f"{path} line {n}: expected a JSON object, got {type(obj).__name__}")
            for k in obj:
                if k not in header:
                    header.append(k)
            rows.append((n, obj))
        return header, rows
    if suffix not in (".tsv", ".csv", ".txt"):
        raise ClassificationDataError(f"{path}: unknown file type {suffix!r}; use .tsv, .csv or .jsonl")
    # newline="" keeps csv's own line handling: str.splitlines() would also split rows at U+2028, \x0c, ...
    if suffix == ".csv":
        reader = csv.reader(io.StringIO(text, newline=""))
    else:  # GLUE TSV: no quoting at all, so quote characters inside sentences stay text
        reader = csv.reader(io.StringIO(text, newline=""), delimiter="\t", quoting=csv.QUOTE_NONE)
    try:
        lines = [(reader.line_num, values) for values in reader]
    except csv.Error as exc:
        raise ClassificationDataError(f"{path} line {reader.line_num}: unreadable {suffix[1:].upper()} "
                                      f"({exc})") from None
    if not lines:
        raise ClassificationDataError(f"{path}: the file is empty (expected a header line and rows)")
    header = [h.strip() for h in lines[0][1]]
    rows = []
    for n, values in lines[1:]:
        if not values or all(not v.strip() for v in values):
            continue
        check_field_count(path, n, len(values), len(header), suffix)
        rows.append((n, dict(zip(header, values))))
    return header, rows


def check_field_count(path, line: int, got: int, expected: int, suffix: str = ".tsv") -> None:
    """Every row must have exactly the header's number of fields; too many would silently lose text (a tab
    inside a sentence), too few would shift columns. Raises ClassificationDataError naming the file, the
    line (1-based, header = line 1) and both counts."""
    if got == expected:
        return
    sep = "tab" if suffix != ".csv" else "comma"
    hint = (f"an extra {sep} inside a text?" if got > expected else f"a missing {sep} or a cut line?")
    raise ClassificationDataError(f"{path} line {line}: expected {expected} fields (as in the header), got {got} "
                                  f"({hint})")


def _pick_columns(where: str, header: list[str], pair: bool, text_columns, label_column: str):
    if text_columns:
        text_columns = list(text_columns)
        want = 2 if pair else 1
        if len(text_columns) != want:
            raise ClassificationDataError(f"{where}: a {'pair' if pair else 'single-sentence'} task needs "
                                          f"{want} text column(s), got {text_columns}")
        missing = [c for c in text_columns if c not in header]
        if missing:
            raise ClassificationDataError(f"{where}: column(s) {missing} not found; columns are {header}")
        texts = text_columns
    elif pair:
        texts = next((list(p) for p in KNOWN_PAIRS if p[0] in header and p[1] in header), None)
        if texts is None:
            raise ClassificationDataError(f"{where}: no sentence-pair columns found among {header}; "
                                          "give the two names with --text-columns")
    else:
        texts = next(([c] for c in KNOWN_SINGLE if c in header), None)
        if texts is None:
            raise ClassificationDataError(f"{where}: no sentence column found among {header}; "
                                          "give its name with --text-columns")
    if label_column:
        if label_column not in header:
            raise ClassificationDataError(f"{where}: label column {label_column!r} not found; columns are {header}")
        label = label_column
    else:
        label = next((c for c in KNOWN_LABELS if c in header), None)
        if label is None:
            raise ClassificationDataError(f"{where}: no label column found among {header}; "
                                          "give its name with --label-column")
    return texts, label


def _parse_label(where: str, value, regression: bool):
    if isinstance(value, bool) or value is None:
        raise ClassificationDataError(f"{where}: label {value!r} is not {'a number' if regression else 'an integer'}")
    if regression:
        try:
            out = float(value)
        except (TypeError, ValueError):
            raise ClassificationDataError(f"{where}: label {value!r} is not a number") from None
        if not math.isfinite(out):
            raise ClassificationDataError(f"{where}: label {value!r} is not finite")
        return out
    if isinstance(value, int):
        out = value
    elif isinstance(value, float) and value.is_integer():
        out = int(value)
    elif isinstance(value, str) and _INT.match(value.strip()):
        out = int(float(value.strip()))
    else:
        raise ClassificationDataError(
            f"{where}: label {value!r} is not an integer (classification labels must be 0..K-1; "
            "for real-valued scores set num_labels 1)")
    if out < 0:
        raise ClassificationDataError(f"{where}: label {out} is negative (labels must be 0..K-1; "
                                      "-1 marks unlabeled test rows in GLUE files)")
    return out


def _text(where: str, value) -> str:
    if value is None:
        raise ClassificationDataError(f"{where}: text is missing")
    if not isinstance(value, str):
        value = str(value)
    return value


def load_classification(source: str, *, pair: bool = False, text_columns=None, label_column: str = "",
                        split: str = "train", cap: int = 0, regression: bool = False) -> ClassificationData:
    """Load a classification file or hub dataset.

    Args:
        source: a .tsv/.csv/.jsonl path, or a hub id ``owner/name[::config[::split]]``.
        pair: sentence-pair task (two text columns).
        text_columns: 1 (single) or 2 (pair) column names; empty = detect.
        label_column: the label column; empty = detect.
        split: hub split when the source does not name one ("train", "validation").
        cap: keep the first ``cap`` examples (0 = all).
        regression: float labels (num_labels 1).

    Returns:
        ClassificationData.

    Raises:
        ClassificationDataError: missing file, unknown format, wrong columns, non-integer or negative
            labels, empty data, unreachable hub dataset.
    """
    source = (source or "").strip()
    if not source:
        raise ClassificationDataError("no data source given")
    path = Path(source).expanduser()
    label_names = None
    if path.exists() or source.startswith((".", "/", "~")) or path.suffix.lower() in (".tsv", ".csv", ".jsonl", ".json"):
        if not path.exists():
            raise ClassificationDataError(f"data file {source} does not exist")
        if path.is_dir():
            raise ClassificationDataError(f"{source} is a folder; give a .tsv, .csv or .jsonl file")
        header, rows = _read_rows(path)
        where = str(path)
    else:
        header, rows, label_names = _hub_rows(source, split)
        where = source
    texts, label_col = _pick_columns(where, header, pair, text_columns, label_column)
    if not rows:
        raise ClassificationDataError(f"{where}: no examples (only a header, or an empty split)")
    if cap > 0:
        rows = rows[:cap]
    a, b, labels = [], [] if pair else None, []
    for n, row in rows:
        at = f"{where} line {n}" if where == str(path) else f"{where} record {n}"
        a.append(_text(at, row.get(texts[0])))
        if pair:
            b.append(_text(at, row.get(texts[1])))
        labels.append(_parse_label(at, row.get(label_col), regression))
    return ClassificationData(a, b, labels, source, (texts[0], texts[1] if pair else "", label_col),
                              label_names=label_names, regression=regression)


def _hub_rows(source: str, split: str):
    hub_id, config, split = _split_hub(source, split)
    try:
        import datasets

        ds = datasets.load_dataset(hub_id, config, split=split)
    except Exception as exc:  # noqa: BLE001 - offline, unknown id, unknown config/split: datasets raises many kinds
        first = str(exc).splitlines()[0][:300] if str(exc) else type(exc).__name__
        raise ClassificationDataError(
            f"could not load hub dataset {source!r} (split {split!r}): {first}. Offline, use a local "
            ".tsv/.csv/.jsonl file") from None
    header = list(ds.column_names)
    label_names = None
    for name in KNOWN_LABELS:
        feat = ds.features.get(name)
        if feat is not None and hasattr(feat, "names"):
            label_names = list(feat.names)
            break
    rows = [(i, row) for i, row in enumerate(ds, start=1)]
    return header, rows, label_names

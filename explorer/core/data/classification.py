"""Sentence and sentence-pair classification data: any table (CSV, TSV, JSONL, Excel) and hub ids.

Files are read by :mod:`explorer.core.data.table` (encodings, CRLF, BOM, a lone ``\\r`` kept as text,
files without a header, field counts). A hub id takes an optional config and split:
``nyu-mll/glue::sst2`` or ``nyu-mll/glue::mnli::validation_matched`` (default split: "train" for training
data, "validation" for dev data).

Columns: ``text_columns`` / ``label_column`` / ``id_column`` by name or 1-based position; when not given,
found among the usual names (KNOWN_SINGLE, KNOWN_PAIRS, KNOWN_LABELS, then
explorer.core.data.columns_guess.guess_columns); otherwise the error lists the columns present.

Labels (classification): integer ids 0..K-1, or names (``AGAINST``, ``neutral``), which become classes in
sorted order unless ``label_names`` gives the order (the model's id2label). Surrounding whitespace is
stripped and reported; names that differ only by case are reported. A column that looks like scores
(non-integers, whole numbers written ``5.0``) is refused with a pointer to regression. Integers 1..K with no 0
are K classes named "1".."K" (K >= 2; a note says so), or, with K ``label_names``, label i+1 is name i. With
``regression=True`` (``num_labels`` 1, e.g. STS-B) labels are floats. Empty texts and missing labels are
listed with their lines and refused, or skipped with ``skip_invalid`` and counted; duplicate rows are counted.
Every problem raises :class:`ClassificationDataError` naming the
file, the line (1-based, header = line 1), the column and what was wrong.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from explorer.core.data.columns_guess import (
    GUESS_ROWS,
    NOT_CLASSES_SHARE,
    class_columns,
    guess_columns,
    guess_columns_from_values,
    label_by_values,
)
from explorer.core.data.table import (
    TABLE_SUFFIXES,
    Table,
    check_field_count,  # noqa: F401 - re-exported (older callers)
    lines_text,
    read_table,
    require_labels,
    resolve_column,
    spread_rows,
)

KNOWN_SINGLE = ("sentence", "text", "sentence1", "#1 String", "review", "content")
KNOWN_PAIRS = (("sentence1", "sentence2"), ("#1 String", "#2 String"), ("question1", "question2"),
               ("question", "sentence"), ("premise", "hypothesis"), ("text_a", "text_b"),
               ("sentence_a", "sentence_b"))
KNOWN_LABELS = ("label", "Quality", "labels", "score", "gold_label")
_INT = re.compile(r"^[+-]?\d+(\.0*)?$")
NUMBERED_FROM_KEY = "label_numbered_from"   # a trained head's config.json: its training labels' numbering (0 or 1)
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


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
        label_names: class names (id2label order) when the labels are names, ``label_names`` was given or the
            hub dataset has a ClassLabel; None for plain integer ids.
        regression: float labels (num_labels 1).
        problems: warnings found while loading (plain sentences).
        lines: the file line (hub: record number) of each example.
        row_ids: each example's id (the id column, else its line number as text).
        raw_labels: each example's label as written (stripped), to map dev labels by name.
        notes: (level, message) pairs for the run's ``log`` events ("info" | "warning").
    """

    texts_a: list[str]
    texts_b: list[str] | None
    labels: list
    source: str
    columns: tuple[str, str, str]
    label_names: list[str] | None = None
    regression: bool = False
    problems: list[str] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    row_ids: list[str] = field(default_factory=list)
    raw_labels: list[str] = field(default_factory=list)
    notes: list[tuple[str, str]] = field(default_factory=list)
    loss_weights: list[float] | None = None   # per-class cross-entropy weights (training data; set by the run)
    numbered_from: int = 0   # the integer the file writes class id 0 as: 1 for classes numbered 1..K, else 0

    def __len__(self) -> int:
        return len(self.texts_a)

    @property
    def num_labels(self) -> int:
        """1 for regression, else the number of label names, else max label + 1 (at least 2)."""
        if self.regression:
            return 1
        if self.label_names:
            return len(self.label_names)
        return max(2, max(self.labels) + 1) if self.labels else 2

    def class_names(self) -> list[str]:
        """The name of every class id 0..K-1 (label_names, else the ids as text)."""
        return list(self.label_names) if self.label_names else [str(i) for i in range(self.num_labels)]

    def class_counts(self) -> dict[str, int]:
        """Examples per class name, in class-id order (classification only)."""
        counts = Counter(self.labels)
        return {name: counts.get(i, 0) for i, name in enumerate(self.class_names())}

    def subset(self, indices: list[int]) -> ClassificationData:
        """The examples at ``indices`` (in that order), everything else kept."""
        def pick(xs):
            return [xs[i] for i in indices] if xs else xs
        return replace(self, texts_a=pick(self.texts_a),
                       texts_b=pick(self.texts_b) if self.texts_b is not None else None, labels=pick(self.labels),
                       lines=pick(self.lines), row_ids=pick(self.row_ids), raw_labels=pick(self.raw_labels),
                       problems=list(self.problems), notes=list(self.notes))

    def head(self, n: int) -> ClassificationData:
        """The first n examples (n <= 0: all)."""
        if n <= 0 or n >= len(self):
            return self
        return self.subset(list(range(n)))

    def relabel(self, names: list[str], what: str = "dev", numbered_from: int = 0) -> ClassificationData:
        """These examples with class ids by ``names`` (the training data's id2label), matched by name; an integer
        label that is no name is the id ``label - numbered_from`` (the training data's ``numbered_from``), or, where
        the names are integers themselves, the class of its value.

        Raises:
            ClassificationDataError: a label the names do not have, naming it and its line.
        """
        if self.regression or not self.raw_labels:
            return self
        index = {n: i for i, n in enumerate(names)}
        # classes named by their integers ("1", "3", "5"): a label is its class by value ("3.0" is "3"), never by
        # its position among them (a 2 is no class of 1, 3, 5)
        by_value = {int(float(n)): i for i, n in enumerate(names)} if names and all(_INT.match(n) for n in names) \
            else None
        ids = []
        for k, raw in enumerate(self.raw_labels):
            if raw in index:
                ids.append(index[raw])
            elif by_value is not None and _INT.match(raw) and int(float(raw)) in by_value:
                ids.append(by_value[int(float(raw))])
            elif by_value is None and (self.label_names is None or list(self.label_names) == list(names)
                                       or all(_INT.match(n) for n in self.label_names)) \
                    and _INT.match(raw) and 0 <= int(float(raw)) - numbered_from < len(names):
                ids.append(int(float(raw)) - numbered_from)   # integer ids on both sides (label_names naming them)
            else:
                raise ClassificationDataError(
                    f"{self.source} line {self.lines[k] if self.lines else k + 1}, column {self.columns[2]!r}: "
                    f"{what} label {raw!r} never occurs in the training data (its labels: {', '.join(names)})")
        return replace(self, labels=ids, label_names=list(names), numbered_from=numbered_from)


def _split_hub(source: str, default_split: str) -> tuple[str, str | None, str]:
    from explorer.core.hub import parse_dataset_source

    parsed = parse_dataset_source(source, default_split)
    if parsed is None:
        raise ClassificationDataError(f"{source!r}: expected hub_id, hub_id::config or hub_id::config::split")
    return parsed


def text_columns_by_name(header: list[str], pair: bool) -> list[str] | None:
    """The text column(s) a run reads from a table with a ``header`` when none is given: a usual name (a known
    pair's two), else the names' guess (core.data.columns_guess.guess_columns); None when the names find none (then a
    guess from the values is only ever read when given, as the launcher gives the one it shows)."""
    if pair:
        known = next((list(p) for p in KNOWN_PAIRS if p[0] in header and p[1] in header), None)
    else:
        known = next(([c] for c in KNOWN_SINGLE if c in header), None)
    return known or (list(guess_columns(header, pair).text_columns) or None)


def _pick_columns(table: Table, pair: bool, text_columns, label_column, id_column) -> tuple[list[int], int, int | None]:
    """(text column indices, label column index, id column index or None)."""
    where, header = table.path, table.columns
    if text_columns:
        text_columns = [str(c) for c in text_columns]
        want = 2 if pair else 1
        if len(text_columns) != want:
            raise ClassificationDataError(f"{where}: a {'pair' if pair else 'single-sentence'} task needs "
                                          f"{want} text column(s), got {text_columns}")
        texts = [resolve_column(table, c, "text column", "--text-columns") for c in text_columns]
    elif not table.has_header:
        raise ClassificationDataError(f"{where}: the file has no header; give the text column(s) by 1-based "
                                      f"position with --text-columns (columns 1..{len(header)})")
    else:
        names = text_columns_by_name(header, pair)
        if names is None and pair:
            raise ClassificationDataError(f"{where}: no sentence-pair columns found among {header}; "
                                          "give the two names with --text-columns" + _text_hint(table, pair))
        if names is None:
            raise ClassificationDataError(f"{where}: no sentence column found among {header}; "
                                          "give its name with --text-columns" + _text_hint(table, pair))
        texts = [header.index(n) for n in names]
    if label_column:
        label = resolve_column(table, label_column, "label column", "--label-column")
    elif not table.has_header:
        raise ClassificationDataError(f"{where}: the file has no header; give the label column by 1-based position "
                                      "with --label-column")
    else:
        name = next((c for c in KNOWN_LABELS if c in header), None) or guess_columns(header).label_column
        if name is None or header.index(name) in texts:
            # never trained on a column guessed from its values unasked; named as the likely one (the launcher's
            # preview proposes it the same way)
            rows = [list(values) for _, values in table.rows[:GUESS_ROWS]]
            likely, why = label_by_values(header, rows, tuple(header[i] for i in texts))
            hint = f" ({likely}? {why})" if likely else ""
            raise ClassificationDataError(f"{where}: no label column found among {header}; "
                                          f"give its name with --label-column{hint}")
        label = header.index(name)
    ident = resolve_column(table, id_column, "id column", "--id-column") if id_column else None
    return texts, label, ident


def _text_hint(table: Table, pair: bool) -> str:
    """The text column(s) the launcher's preview guesses from the values (explorer.core.data.table.preview_of: the
    longest texts), named with the way to take them: never read unasked, as a label guessed from its values."""
    rows = [list(table.rows[i][1]) for i in spread_rows(len(table.rows), GUESS_ROWS)]
    guess = guess_columns_from_values(table.columns, rows, texts=(2, 2) if pair else (1, 1))
    if not guess.text_columns:
        return ""
    names = ",".join(guess.text_columns)
    take = f"--text-columns={names}" if " " not in names else "--text-columns"
    return f" ({guess.basis.split('; ')[0]}, the guess shown for --text-columns; to read it: {take})"


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
    raise AssertionError("classification labels go through _class_ids")


def _text(value) -> str | None:
    """A cell as text (None when missing); a CR left at the end of a field is dropped."""
    if value is None:
        return None
    if not isinstance(value, str):
        value = str(value)
    return value.rstrip("\r")


def _label_text(value) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return f"{value:.1f}"
    return str(value)


def _scale_error(at: str, value: str, detail: str, what: str = "is not an integer",
                 elsewhere: str = "") -> ClassificationDataError:
    """``what`` says what the value is ("is not an integer" for 2.5; a whole number written 5.0 is one);
    ``elsewhere``: the other columns that could be the label, with how to take one (a column of averages 3.5, 4.25
    taken for the label beside the column of whole stars), said before the pointer to regression."""
    other = f"; if the label is another column: {elsewhere}" if elsewhere else ""
    return ClassificationDataError(
        f"{at}: label {value!r} {what}: the labels look like scores ({detail}){other}; for scores use "
        "--task regression; for classes write integers (0..K-1, or 1..K) or names")


def _negative_fix(distinct: list[float]) -> str:
    """The fix for negative integer labels that are classes (a -2..2 sentiment scale): name every distinct value,
    in order, as a label name; '' for a column of -1 only (a GLUE test file, which has no labels to train on).

    Given as ``--label-names=...`` with "=": argparse would read a separate "-2,-1,..." as an option; the
    launcher shows it as "type -2,-1,0,1,2 in “Label names”" (explorer.ui.launch.data_preview.plain_words)."""
    if len(distinct) < 2:
        return ""
    names = ",".join(str(int(x)) for x in distinct)
    return f". If these are classes, name them in order: --label-names={names}"


def _numbered_from_one(ids: list[int], column: str) -> tuple[list[int], list[str], list[tuple[str, str]]]:
    """Integer labels 1..K with no 0 (AG News, DBpedia, review stars): K classes named by their numbers, so class
    id i is the label i+1 and the model's id2label shows "1".."K" without an empty class 0."""
    k = max(ids)
    names = [str(i) for i in range(1, k + 1)]
    note = (f"column {column!r}: labels 1..{k} have no 0: read as {k} classes named 1..{k}; "
            "if they are scores on a rating scale, use --task regression")
    return [y - 1 for y in ids], names, [("warning", note)]


YEARS = (1900, 2100)   # whole numbers in this range, all written with four digits, read as years


def _integer_classes(ids: list[int], present: list[int], column: str, elsewhere=lambda: ""
                     ) -> tuple[list[int], list[str], list[tuple[str, str]]]:
    """Integer labels that are not a run 0..K-1 or 1..K (the values 1, 3, 5; 2..5): one class per value present,
    named by it in increasing order, so the model's id2label is {0: "1", 1: "3", 2: "5"}, never the empty classes
    of the values between them. Values that are all years (YEARS: a column of publication years taken for the
    label) are said to look like years, with the columns that could be the label (``elsewhere()``,
    :func:`_other_label_columns`) instead of the pointer to regression."""
    names = [str(v) for v in present]
    shown = ", ".join(names[:6]) + (", …" if len(names) > 6 else "")
    note = (f"column {column!r}: labels {shown} are read as {len(names)} classes named by their values; if they are "
            "scores on a rating scale, use --task regression")
    if YEARS[0] <= present[0] and present[-1] <= YEARS[1]:
        others = elsewhere()
        note = (f"column {column!r}: labels {shown} look like years (four-digit whole numbers {YEARS[0]}-{YEARS[1]}), "
                f"read as {len(names)} classes named by their values; "
                + (f"if the label is another column: {others}" if others else
                   "no other column holds classes in every row: check that it is the label"))
    index = {v: i for i, v in enumerate(present)}
    return [index[y] for y in ids], names, [("warning", note)]


_KIND_WORDS = {"whole numbers": "not a whole number, while most labels are",
               "names": "not one of the label names, while most labels are"}


def _label_kind(values: list[str], label_names: list[str] | None) -> str:
    """What most labels are: "whole numbers" (1, 2, 5.0), "names" (of ``label_names``, when given) or "" (neither
    holds for more than half of them, or the labels are free names)."""
    half = len(values) / 2
    if label_names and sum(v in set(label_names) for v in values) > half:
        return "names"
    return "whole numbers" if sum(bool(_INT.match(v)) for v in values) > half else ""


def _off_kind_labels(values: list[str], label_names: list[str] | None) -> list[int]:
    """Positions of the labels that are not of the kind most labels are (core.data.classification._label_kind):
    a "Like" or a half star "3.5" among star ratings 1..5, a typo among the label names. A column of names without
    ``label_names`` has no off kind (any name is a class)."""
    kind = _label_kind(values, label_names)
    if kind == "names":
        names = set(label_names or [])
        return [k for k, v in enumerate(values) if v not in names]
    if kind == "whole numbers":
        return [k for k, v in enumerate(values) if not _INT.match(v)]
    return []


def _class_ids(values: list[str], lines: list[int], at, label_names: list[str] | None, column: str,
               elsewhere=lambda: "") -> tuple[list[int], list[str] | None, list[tuple[str, str]]]:
    """Class ids for stripped label strings: (ids, names or None for integer ids, notes).

    ``at(k)`` names the file, line and column of example k; ``elsewhere()`` the other columns that could be the
    label (:func:`_other_label_columns`), asked only when labels that are not whole numbers are refused or whole
    numbers look like years.
    Raises ClassificationDataError."""
    notes: list[tuple[str, str]] = []
    if label_names:
        index = {n: i for i, n in enumerate(label_names)}
        if all(v in index for v in values):
            return [index[v] for v in values], list(label_names), notes
        if all(_INT.match(v) for v in values):
            ints = [int(float(v)) for v in values]
            if min(ints) >= 1 and max(ints) == len(label_names):   # classes numbered 1..K: name i+1 is names[i]
                return [y - 1 for y in ints], list(label_names), notes
            if all(0 <= y < len(label_names) for y in ints):
                return ints, list(label_names), notes   # names for integer ids 0..K-1
        k = next(k for k, v in enumerate(values) if v not in index)
        raise ClassificationDataError(f"{at(k)}: label {values[k]!r} is not one of the label names "
                                      f"({', '.join(label_names)})")
    numeric = [bool(_NUMBER.match(v)) for v in values]
    if values and numeric[0] and not all(numeric):
        k = numeric.index(False)
        raise ClassificationDataError(f"{at(k)}: label {values[k]!r} is not an integer (the labels before it are "
                                      "numbers; a label column holds either integer ids or names)")
    if values and all(numeric):
        nums = [float(v) for v in values]
        k = next((k for k, x in enumerate(nums) if not x.is_integer()), None)
        lo, hi = min(nums), max(nums)
        if k is not None:
            raise _scale_error(at(k), values[k], f"values from {lo:g} to {hi:g}", elsewhere=elsewhere())
        distinct = sorted(set(nums))
        dotted = next((k for k, v in enumerate(values) if not re.match(r"^[+-]?\d+$", v)), None)
        if dotted is not None and len(distinct) > 2:
            raise _scale_error(at(dotted), values[dotted], f"whole numbers written as {values[dotted]}, "
                               f"{len(distinct)} values from {lo:g} to {hi:g}",
                               "is a whole number written with a decimal point")
        ids = [int(x) for x in nums]
        neg = next((k for k, y in enumerate(ids) if y < 0), None)
        if neg is not None:
            raise ClassificationDataError(f"{at(neg)}: label {ids[neg]} is negative (labels must be 0..K-1; "
                                          "-1 marks unlabeled test rows in GLUE files)" + _negative_fix(distinct))
        present = sorted(set(ids))
        if len(present) > 1 and present != list(range(present[0], present[-1] + 1)) or present[0] > 1:
            return _integer_classes(ids, present, column, elsewhere)   # 1, 3, 5: three classes, none empty between them
        if lo >= 1 and hi >= 2:
            return _numbered_from_one(ids, column)
        if hi >= 5 and len(distinct) >= 6:
            notes.append(("warning", (f"column {column!r}: labels 0..{int(hi)} are read as {int(hi) + 1} classes; if "
                           f"they are scores on a 0-{int(hi)} scale, use --task regression")))
        if lo >= 1:   # every label 1: ids of a 0/1 column whose rows here hold no 0
            notes.append(("warning", f"column {column!r}: no example has label 0 (class 0 is never trained)"))
        return ids, None, notes
    names = sorted(set(values))
    by_case: dict[str, list[str]] = {}
    for n in names:
        by_case.setdefault(n.casefold(), []).append(n)
    for group in by_case.values():
        if len(group) > 1:
            notes.append(("warning", (f"column {column!r}: labels {' and '.join(repr(g) for g in group)} differ only "
                           f"by case; they are {len(group)} different classes")))
    index = {n: i for i, n in enumerate(names)}
    return [index[v] for v in values], names, notes


def _other_label_columns(table: Table, label_col: int, texts: list[int], id_col: int | None) -> str:
    """The columns other than the label, texts and ids that could be the label (core.data.columns_guess.class_columns),
    what they hold and how to take one ("column 'stars' holds whole numbers 1 to 5 in every row: set
    --label-column to 'stars'"); "" when none could."""
    others = class_columns(table, tuple(texts) + (label_col,) + ((id_col,) if id_col is not None else ()))
    if not others:
        return ""
    take = repr(others[0][0]) if len(others) == 1 else "one of them"
    return f"{'; '.join(said for _, said in others)}: set --label-column to {take}"


def _maybe_not_the_label(table: Table, label_col: int, texts: list[int], id_col: int | None, n_off: int,
                         n_rows: int) -> str:
    """The end of the refusal of a label column NOT_CLASSES_SHARE or more of whose labels are of another kind than
    most (a business's average stars 3.5 among whole stars): the column may not be the label, the columns that
    could be (core.data.columns_guess.class_columns) with how to take one, and skipping those rows only as the last resort
    (it would train on what is left of the wrong column)."""
    others = _other_label_columns(table, label_col, texts, id_col)
    name = table.column_label(label_col)
    choose = (f"; {others}" if others
              else "; no other column holds classes in every row: check that it is the label, or fix them")
    return (f": {n_off / n_rows:.0%} of the rows, so column {name} may not be the label{choose}. Only as the last "
            f"resort skip such rows with --skip-invalid (it drops {n_off:,} of {n_rows:,} rows)")


def load_classification(source: str, *, pair: bool = False, text_columns=None, label_column="",
                        split: str = "train", cap: int = 0, regression: bool = False, id_column="",
                        no_header: bool = False, encoding: str = "", label_names: list[str] | None = None,
                        skip_invalid: bool = False) -> ClassificationData:
    """Load a classification table or hub dataset.

    Args:
        source: a .csv/.tsv/.txt/.jsonl/.xlsx path, or a hub id ``owner/name[::config[::split]]``.
        pair: sentence-pair task (two text columns).
        text_columns: 1 (single) or 2 (pair) column names or 1-based positions; empty = detect.
        label_column: the label column (name or 1-based position); empty = detect.
        split: hub split when the source does not name one ("train", "validation").
        cap: keep the first ``cap`` examples (0 = all).
        regression: float labels (num_labels 1).
        id_column: a column of row ids (name or position); empty = the line numbers.
        no_header: the file's first row is data; columns are then given by position.
        encoding: force the file's encoding ("" = UTF-8, or the one detected).
        label_names: class names in id order; empty = the labels' own names, sorted.
        skip_invalid: skip rows with an empty text or a missing label (counted) instead of refusing the file.

    Returns:
        ClassificationData (``notes`` say what was found: encoding, stripped labels, skipped and duplicate rows).

    Raises:
        ClassificationDataError: missing file, unknown format, wrong columns, bad labels (score-like,
            negative, mixed), empty texts or missing labels (unless skip_invalid), empty data, unreachable hub
            dataset; each naming the file, line and column.
    """
    table, hub_names = _open_table(source, split, no_header, encoding, skip_invalid)
    notes: list[tuple[str, str]] = [("info", f"{table.path}: {n}") for n in table.notes if not n.startswith("sheet")]
    texts, label_col, id_col = _pick_columns(table, pair, text_columns, label_column, id_column)
    if not table.rows:
        raise ClassificationDataError(f"{table.path}: no examples (only a header, or an empty split)")
    a, b, raw, lines, ids, invalid, stripped = _collect_rows(table, texts, label_col, id_col, pair, cap)
    if invalid:
        if not skip_invalid:
            shown = "; ".join(invalid[:5]) + (f"; and {len(invalid) - 5} more" if len(invalid) > 5 else "")
            raise ClassificationDataError(f"{len(invalid)} row problem{'s' if len(invalid) != 1 else ''}: {shown} "
                                          "(fix them, or skip such rows with --skip-invalid)")
        notes.append(("warning", (f"{table.path}: {len(invalid)} row{'s' if len(invalid) != 1 else ''} skipped "
                       f"(empty text or missing label), first: {invalid[0]}")))
    if not a:
        raise ClassificationDataError(f"{table.path}: no examples (only a header, or an empty split)")
    label_name = table.columns[label_col] if table.has_header else f"column {label_col + 1}"

    def at(k: int) -> str:
        return table.where(lines[k], label_col)
    off = [] if regression else _off_kind_labels(raw, label_names)
    if off and not skip_invalid:
        shown = ", ".join(f"{at(k)}: {raw[k]!r}" for k in off[:3]) + (f" and {len(off) - 3} more" if len(off) > 3 else "")
        said = f"{len(off)} of {len(raw):,} labels: {_KIND_WORDS[_label_kind(raw, label_names)]} ({shown})"
        if len(off) >= NOT_CLASSES_SHARE * len(raw):
            raise ClassificationDataError(said + _maybe_not_the_label(table, label_col, texts, id_col, len(off),
                                                                      len(raw)))
        raise ClassificationDataError(f"{said}; fix them, or skip such rows with --skip-invalid")
    if off:
        keep = sorted(set(range(len(raw))) - set(off))
        notes.append(("warning", (f"{table.path}: {len(off)} row{'s' if len(off) != 1 else ''} skipped (label "
                                  f"{_KIND_WORDS[_label_kind(raw, label_names)]}) on line"
                                  f"{'s' if len(off) != 1 else ''} {lines_text([lines[k] for k in off], 10)} (first: "
                                  f"{raw[off[0]]!r})")))
        a, raw, lines, ids = ([xs[k] for k in keep] for xs in (a, raw, lines, ids))
        b = [b[k] for k in keep] if b is not None else None
    if regression:
        labels: list = [_parse_label(at(k), v, True) for k, v in enumerate(raw)]
        names = None
    else:
        labels, names, label_notes = _class_ids(raw, lines, at, list(label_names) if label_names else None, label_name,
                                                lambda: _other_label_columns(table, label_col, texts, id_col))
        if hub_names and names is None:
            names = list(hub_names)
        numbered_from = int(bool(labels) and all(_INT.match(r) and int(float(r)) == y + 1 for r, y in zip(raw, labels)))
        notes.extend((lvl, f"{table.path}: {msg}") for lvl, msg in label_notes)
    if stripped:
        notes.append(("info", (f"{table.path}: {len(stripped)} label{'s' if len(stripped) != 1 else ''} had spaces "
                       f"around them, stripped (first: line {stripped[0]})")))
    notes.extend(_repeat_notes(table, a, b, raw, ids, id_col, regression))
    col = [table.columns[i] if table.has_header else str(i + 1) for i in texts]
    problems = [m for lvl, m in notes if lvl == "warning"]
    return ClassificationData(a, b, labels, source, (col[0], col[1] if pair else "",
                                                     table.columns[label_col] if table.has_header else str(label_col + 1)),
                              label_names=names, regression=regression, problems=problems, lines=lines, row_ids=ids,
                              raw_labels=raw, notes=notes, numbered_from=0 if regression else numbered_from)


def _open_table(source: str, split: str, no_header: bool, encoding: str,
                skip_invalid: bool = False) -> tuple[Table, list[str] | None]:
    """(the table of a local file or hub dataset, the hub's class names or None; ``skip_invalid``: rows with bytes
    that are not UTF-8 are left out, core.data.table.drop_rows_not_utf8). Raises ClassificationDataError."""
    source = (source or "").strip()
    if not source:
        raise ClassificationDataError("no data source given")
    path = Path(source).expanduser()
    if path.exists() or source.startswith((".", "/", "~")) or path.suffix.lower() in TABLE_SUFFIXES:
        table = read_table(path if path.exists() else source, no_header=no_header, encoding=encoding,
                           skip_invalid=skip_invalid)
        require_labels(table)
        table.path = source if not path.exists() else str(path)
        return table, None
    return _hub_table(source, split)


def _collect_rows(table: Table, texts: list[int], label_col: int, id_col: int | None, pair: bool, cap: int):
    """The usable rows of ``table`` (at most ``cap``, 0 = all): (texts a, texts b or None, raw labels stripped,
    lines, row ids, problems of the unusable rows (file, line, column), lines whose label had spaces around it)."""
    a: list[str] = []
    b: list[str] | None = [] if pair else None
    raw: list[str] = []
    lines: list[int] = []
    ids: list[str] = []
    invalid: list[str] = []
    stripped: list[int] = []

    def cell(values: list, i: int):
        return values[i] if i < len(values) else None
    for n, values in table.rows:
        if cap > 0 and len(a) >= cap:
            break
        ta = _text(cell(values, texts[0]))
        tb = _text(cell(values, texts[1])) if pair else ""
        lab = _label_text(cell(values, label_col))
        bad = [f"{table.where(n, texts[j])}: empty text" for j, t in enumerate((ta, tb) if pair else (ta,))
               if t is None or not t.strip()]
        if lab is None or not lab.strip():
            bad.append(f"{table.where(n, label_col)}: missing label")
        if bad:
            invalid.extend(bad)
            continue
        if lab != lab.strip():
            stripped.append(n)
            lab = lab.strip()
        a.append(ta)
        if b is not None:
            b.append(tb)
        raw.append(lab)
        lines.append(n)
        ids.append(str(cell(values, id_col)).strip() if id_col is not None else str(n))
    return a, b, raw, lines, ids, invalid, stripped


def _repeat_notes(table: Table, a, b, raw, ids, id_col, regression: bool) -> list[tuple[str, str]]:
    """Notes on duplicate rows, texts with different labels (classification) and repeated ids."""
    notes: list[tuple[str, str]] = []
    keys = Counter(zip(a, b or [""] * len(a), raw))
    dup = sum(c - 1 for c in keys.values() if c > 1)
    if dup:
        notes.append(("info", f"{table.path}: {dup} duplicate row{'s' if dup != 1 else ''} (same text and label)"))
    if not regression:
        by_text: dict[tuple, set] = {}
        for key in keys:
            by_text.setdefault(key[:2], set()).add(key[2])
        clash = sum(1 for v in by_text.values() if len(v) > 1)
        if clash:
            notes.append(("warning", f"{table.path}: {clash} text{'s' if clash != 1 else ''} occur with different labels"))
    if id_col is not None:
        repeated = sum(c - 1 for c in Counter(ids).values() if c > 1)
        if repeated:
            notes.append(("warning", (f"{table.path}: {repeated} repeated id{'s' if repeated != 1 else ''} in "
                           f"{table.column_label(id_col)}")))
    return notes


def _hub_table(source: str, split: str) -> tuple[Table, list[str] | None]:
    header, rows, label_names = _hub_rows(source, split)
    table = Table(source, "hub", header, True, [(n, [row.get(c) for c in header]) for n, row in rows], len(rows))
    return table, label_names


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

"""SWAG-format multiple-choice data: one context, four endings, the index of the right one.

The file format is the SWAG release's CSV (Zellers et al. 2018, https://github.com/rowanz/swagaf), with a
header row; the columns read are ``sent1`` (the context), ``sent2`` (the start of the next sentence),
``ending0`` .. ``ending3`` and ``label`` (0..3). Other columns (``video-id``, ``fold-ind``, ``startphrase``,
``gold-source``, the unnamed row number) are kept only for naming a row. As in transformers'
``run_swag.py``, choice k is the pair (``sent1``, ``sent2 + " " + ending_k``).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

from explorer.core.errors import SwagDataError

NUM_CHOICES = 4
ENDING_COLUMNS = tuple(f"ending{k}" for k in range(NUM_CHOICES))
REQUIRED_COLUMNS = ("sent1", "sent2") + ENDING_COLUMNS + ("label",)


@dataclass
class SwagData:
    """Loaded multiple-choice examples, one per CSV row.

    Attributes:
        contexts: ``sent1`` of each example (sentence A of every choice).
        starts: ``sent2`` of each example (the first words of every ending).
        endings: four ending texts per example.
        labels: the right ending, 0..3.
        ids: ``video-id`` when the file has it, else ``line N``.
        lines: the file line of each example (1 = the header), for messages.
        source: the file path as given.
    """

    contexts: list[str]
    starts: list[str]
    endings: list[list[str]]
    labels: list[int]
    ids: list[str]
    lines: list[int]
    source: str
    problems: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.contexts)

    def choice_pair(self, i: int, k: int) -> tuple[str, str]:
        """(sentence A, sentence B) the model reads for choice ``k`` of example ``i``."""
        return self.contexts[i], f"{self.starts[i]} {self.endings[i][k]}".strip()

    def choice_pairs(self, i: int) -> tuple[list[str], list[str]]:
        """The four (A, B) pairs of example ``i`` as two lists of NUM_CHOICES texts."""
        pairs = [self.choice_pair(i, k) for k in range(NUM_CHOICES)]
        return [a for a, _ in pairs], [b for _, b in pairs]


def _open_rows(path: Path):
    """(header, rows with their line numbers) of a CSV file; SwagDataError for a missing / non-UTF-8 file."""
    if not path.is_file():
        raise SwagDataError(f"{path}: no such file (expected a SWAG-format .csv with a header row)")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SwagDataError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    reader = csv.reader(text.splitlines(keepends=True))
    try:
        header = next(reader)
    except StopIteration:
        raise SwagDataError(f"{path}: the file is empty (expected a header row with "
                            f"{', '.join(REQUIRED_COLUMNS)})") from None
    except csv.Error as exc:
        raise SwagDataError(f"{path} line 1: not CSV ({exc})") from None
    rows = []
    try:
        for row in reader:
            rows.append((reader.line_num, row))
    except csv.Error as exc:
        raise SwagDataError(f"{path} line {reader.line_num}: not CSV ({exc})") from None
    return [h.strip() for h in header], rows


def _parse_row(path: Path, line: int, row: list[str], header: list[str], col: dict[str, int]) -> tuple:
    """(context, start, endings, label, id) of one CSV row; SwagDataError naming the line otherwise."""
    if len(row) != len(header):
        raise SwagDataError(f"{path} line {line}: {len(row)} fields, but the header has {len(header)} "
                            f"(an unquoted comma or a missing field?)")
    values = {name: row[i].strip() for name, i in col.items()}
    empty = [name for name in REQUIRED_COLUMNS if name != "sent2" and not values[name]]
    if empty:
        raise SwagDataError(f"{path} line {line}: empty {', '.join(empty)}")
    try:
        label = int(float(values["label"]))
        if float(values["label"]) != label:
            raise ValueError
    except ValueError:
        raise SwagDataError(f"{path} line {line}: label {values['label']!r} is not a whole number 0..3") from None
    if not 0 <= label < NUM_CHOICES:
        raise SwagDataError(f"{path} line {line}: label {label} is out of range; it must be 0..{NUM_CHOICES - 1} "
                            f"(the index of the right ending)")
    ident = row[col["video-id"]].strip() if "video-id" in col else ""
    return (values["sent1"], values["sent2"], [values[c] for c in ENDING_COLUMNS], label,
            ident or f"line {line}")


def load_swag(source: str | Path, *, cap: int | None = None) -> SwagData:
    """Read a SWAG-format CSV file.

    Args:
        source: path of a .csv file with a header naming at least sent1, sent2, ending0..ending3, label.
        cap: keep only the first ``cap`` examples (None / 0 = all).

    Returns:
        SwagData with one example per data row.

    Raises:
        SwagDataError: missing file, not UTF-8, missing columns (lists the header found), a row with the
            wrong number of fields, an empty context or ending, a label that is not 0..3 (names the line),
            or no examples at all.
    """
    path = Path(str(source)).expanduser()
    if path.suffix.lower() != ".csv":
        raise SwagDataError(f"{path}: the swag task reads SWAG-format .csv files (got {path.suffix or 'no suffix'!r})")
    header, rows = _open_rows(path)
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise SwagDataError(f"{path}: missing column(s) {', '.join(missing)} in the header row; found "
                            f"{', '.join(repr(h) for h in header)}")
    col = {name: header.index(name) for name in (*REQUIRED_COLUMNS, "video-id") if name in header}
    data = SwagData([], [], [], [], [], [], str(source))
    for line, row in rows:
        if not any(cell.strip() for cell in row):
            continue  # a blank line
        context, start, endings, label, ident = _parse_row(path, line, row, header, col)
        data.contexts.append(context)
        data.starts.append(start)
        data.endings.append(endings)
        data.labels.append(label)
        data.ids.append(ident)
        data.lines.append(line)
        if cap and len(data) >= cap:
            break
    if not len(data):
        raise SwagDataError(f"{path}: no examples (only a header row)")
    return data

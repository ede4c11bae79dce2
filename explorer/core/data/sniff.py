"""What kind of data file is this? A quick look at the first bytes (Qt-free).

Used before loading, so that a file given to the wrong task gets a message about what the file *is*
and which tasks it fits ("a tab-separated file with columns sentence, label: it fits the single
classification task"), not the parser's first complaint ("malformed JSON at line 1, column 1").
"""

from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from explorer.core.specs.tasks import get_task_facts, tasks_reading

TAGGING_TASKS = tasks_reading("conll")   # core.data.conll: CoNLL columns or JSONL tokens / tags

SWAG_COLUMNS = ("sent1", "sent2", "ending0", "ending1", "ending2", "ending3", "label")  # core.data.swag
HEAD_BYTES = 64 * 1024


@dataclass(frozen=True)
class DataKind:
    """The kind of a data file.

    Attributes:
        kind: "squad_json" | "jsonl" | "tsv" | "csv" | "xlsx" | "json" (other JSON) | "empty" | "binary" | "text".
        fits: the task names the file can feed (``task_facts.tasks_reading`` of its reader).
        columns: column / field names (header of a TSV/CSV, keys of the first JSONL record).
        description: one plain sentence naming the kind, its columns and the tasks it fits.
    """

    kind: str
    fits: tuple[str, ...] = ()
    columns: tuple[str, ...] = field(default_factory=tuple)
    description: str = ""

    def fits_task(self, task: str) -> bool:
        return task in self.fits

    def mismatch(self, task: str) -> str | None:
        """A message when the file cannot feed ``task`` (None when it may)."""
        if self.fits_task(task) or self.kind in ("text",):
            return None
        return f"{self.description}; it does not fit the {task} task"


def _table_words(fits: tuple[str, ...]) -> str:
    """'it fits the single / pair classification, regression and multi-label tasks' (by each task's head:
    ``HeadSpec.task_words``, else the task's own name)."""
    plain = [n for n in fits if not get_task_facts(n).head.task_words]
    others = [get_task_facts(n).head.task_words for n in fits if n not in plain]
    parts = ([" / ".join(plain) + " classification"] if plain else []) + others
    words = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"it fits the {words} task" + ("s" if len(fits) > 1 else "")


def _task_words(fits: tuple[str, ...]) -> str:
    if fits and set(fits) == set(tasks_reading("squad")):
        return f"it fits the SQuAD tasks ({' / '.join(fits)})"
    if fits and set(fits) == set(tasks_reading("table")):
        return _table_words(fits)
    if fits:
        return "it fits the " + " / ".join(fits) + " task" + ("s" if len(fits) > 1 else "")
    return "it fits no task of this app"


def _columns_text(cols) -> str:
    shown = ", ".join(cols[:8]) + (", …" if len(cols) > 8 else "")
    return f"columns {shown}" if cols else "no header"


def _delimited(text: str, delimiter: str, name: str, kind: str) -> DataKind:
    first = text.splitlines()[0] if text else ""
    cols = tuple(c.strip() for c in next(csv.reader([first], delimiter=delimiter)))
    fits = tasks_reading("table") + (tasks_reading("swag") if set(SWAG_COLUMNS) <= set(cols) else ())
    return DataKind(kind, fits, cols, f"this is a {name} file with {_columns_text(list(cols))}; {_task_words(fits)}")


def _json_kind(text: str, whole: bool) -> DataKind | None:
    """SQuAD JSON or other JSON from the head of the file (None when it is not JSON at all)."""
    stripped = text.lstrip()
    if not stripped.startswith(("{", "[")):
        return None
    head = stripped[:4096]
    if stripped.startswith("{") and '"data"' in head and ('"paragraphs"' in stripped[:HEAD_BYTES] or
                                                          '"version"' in head):
        squad = tasks_reading("squad")
        return DataKind("squad_json", squad, ("version", "data"),
                        f"this is a SQuAD-format JSON file (articles with paragraphs and questions); "
                        f"{_task_words(squad)}")
    lines = [ln for ln in stripped.splitlines() if ln.strip()]
    if stripped.startswith("{") and len(lines) >= 1:
        try:
            first = json.loads(lines[0])
        except ValueError:
            first = None
        if isinstance(first, dict) and isinstance(first.get("tokens"), list):
            return DataKind("jsonl", TAGGING_TASKS, tuple(str(k) for k in first),
                            "this is a JSON-lines file of tokens and tags; " + _task_words(TAGGING_TASKS))
        flat = isinstance(first, dict) and all(v is None or isinstance(v, (str, int, float, bool))
                                               for v in first.values())
        if flat and (len(lines) > 1 or whole):
            cols = tuple(str(k) for k in first)
            squadish = {"question", "context"} <= set(cols)
            note = (" (SQuAD-like fields, but the SQuAD tasks read the official nested JSON: "
                    "{\"data\": [{\"paragraphs\": ...}]})" if squadish else "")
            table = tasks_reading("table")
            return DataKind("jsonl", table, cols,
                            f"this is a JSON-lines file (one record per line) with fields "
                            f"{', '.join(cols[:8]) or 'none'}{note}; {_task_words(table)}")
    return DataKind("json", (), (), "this is a JSON file but not in SQuAD format (no \"data\" list of "
                                    "articles with \"paragraphs\") nor one record per line; "
                                    + _task_words(()))


_TAG = re.compile(r"^(O|[BIESLU][-_]\S+)$")


def _conll_kind(text: str) -> DataKind | None:
    """A CoNLL column file (word first, tag last; explorer.core.data.conll) from its first lines, else None."""
    seen = 0
    for line in text.splitlines()[:40]:
        fields = line.split()
        if not fields or fields[0] == "-DOCSTART-":
            continue
        if len(fields) < 2 or not _TAG.match(fields[-1]):
            return None
        seen += 1
    if not seen:
        return None
    return DataKind("conll", TAGGING_TASKS, (), "this is a CoNLL column file (a word and its tag a line); "
                    + _task_words(TAGGING_TASKS))


def sniff_data_file(path: str | Path) -> DataKind:
    """Recognise a local data file from its first 64 KiB: SQuAD JSON, JSONL, TSV, CSV or other.

    Raises:
        OSError: the file cannot be read (missing, a folder, no permission).
    """
    path = Path(path)
    with open(path, "rb") as fh:
        raw = fh.read(HEAD_BYTES)
        whole = len(fh.read(1)) == 0
    if not raw.strip():
        return DataKind("empty", (), (), f"{path.name} is empty")
    if path.suffix.lower() == ".xlsx" and raw.startswith(b"PK"):   # a zip: an Excel workbook (core/data/table.py)
        return DataKind("xlsx", tasks_reading("table"), (), f"{path.name} is an Excel workbook; "
                        f"{_task_words(tasks_reading('table'))}")
    if b"\x00" in raw:
        return DataKind("binary", (), (), f"{path.name} is a binary file, not text data; {_task_words(())}")
    text = raw.decode("utf-8", errors="replace").lstrip("\ufeff")
    as_json = _json_kind(text, whole)
    if as_json is not None:
        return as_json
    conll = _conll_kind(text)
    if conll is not None:
        return conll
    first = text.splitlines()[0]
    suffix = path.suffix.lower()
    if "\t" in first or suffix == ".tsv":
        return _delimited(text, "\t", "tab-separated", "tsv")
    if "," in first or suffix == ".csv":
        return _delimited(text, ",", "comma-separated", "csv")
    return DataKind("text", (), (), f"{path.name} is plain text with no tab or comma columns; {_task_words(())}")

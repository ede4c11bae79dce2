"""Writers of the prediction and labelled files, by the suffix of OUT: .csv, .tsv, .jsonl, .xlsx (Qt-free).

Every writer appends rows to a file that may already hold rows (``--resume``): :func:`count_rows` reads how
many complete rows a file has (a torn last line left by a killed process is cut off first). ``.xlsx`` cannot
be appended to, so its rows go to ``OUT.part.jsonl`` while the run streams and :func:`finish` converts that
file to the workbook with openpyxl's ``write_only`` mode (rows stream to the zip: constant memory) at the end.

TSV is written like the GLUE files are read: tab-separated, no quoting, so tabs and line breaks inside a
value are written as spaces. CSV uses standard quoting. In JSONL, lists stay JSON lists.
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

from explorer.core.predict.reading import PredictDataError
from explorer.core.data.table import CsvRows

OUT_SUFFIXES = (".csv", ".tsv", ".jsonl", ".xlsx")


def out_kind(path: str | Path) -> str:
    """"csv" | "tsv" | "jsonl" | "xlsx" from OUT's suffix; PredictDataError for any other."""
    suffix = Path(path).suffix.lower()
    kinds = {".csv": "csv", ".tsv": "tsv", ".txt": "tsv", ".jsonl": "jsonl", ".xlsx": "xlsx"}
    if suffix not in kinds:
        raise PredictDataError(f"{path}: the output suffix must be one of {', '.join(OUT_SUFFIXES)} "
                               f"(got {suffix or 'none'})")
    return kinds[suffix]


def stream_path(path: str | Path) -> Path:
    """The file rows are appended to while a run streams: OUT itself, or OUT.part.jsonl for .xlsx."""
    p = Path(path)
    return p.with_name(p.name + ".part.jsonl") if out_kind(p) == "xlsx" else p


def _cell(value, kind: str):
    if isinstance(value, (list, tuple)):
        value = json.dumps(list(value), ensure_ascii=False)
    if value is None:
        return ""
    if isinstance(value, float) and value != value:
        return ""
    if kind == "tsv":
        text = str(value)
        return text.replace("\t", " ").replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
    return value


def _cut_torn_tail(p: Path) -> None:
    """Cut a last line that has no line end (a process killed while writing it)."""
    size = p.stat().st_size
    if size == 0:
        return
    with open(p, "rb+") as fh:
        fh.seek(size - 1)
        if fh.read(1) in (b"\n",):
            return
        block = min(size, 1 << 20)
        while True:
            fh.seek(size - block)
            data = fh.read(block)
            k = data.rfind(b"\n")
            if k >= 0 or block == size:
                fh.truncate(size - block + k + 1 if k >= 0 else 0)
                return
            block = min(size, block * 2)


def count_rows(path: str | Path) -> tuple[int, list[str]]:
    """(complete data rows, header columns) of a file this module wrote (the stream file for .xlsx);
    (0, []) when it does not exist. A torn last line is cut off first."""
    p = stream_path(path)
    if not p.is_file():
        return 0, []
    _cut_torn_tail(p)
    kind = out_kind(path)
    with open(p, "r", encoding="utf-8", newline="") as fh:
        if kind in ("jsonl", "xlsx"):
            first = fh.readline()
            if not first.strip():
                return 0, []
            header = json.loads(first).get("columns", []) if kind == "xlsx" else []
            n = 0 if kind == "xlsx" else 1
            for line in fh:
                n += bool(line.strip())
            if kind == "jsonl":
                header = list(json.loads(first).keys())
            return n, header
        reader = csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE) if kind == "tsv" else csv.reader(fh)
        header = next(reader, None) or []
        return sum(1 for _ in reader), header


class RowWriter:
    """Appends rows (dicts) to OUT; the header is written when the file is new.

    Args:
        path: OUT (.csv / .tsv / .jsonl / .xlsx).
        columns: the column order (CSV / TSV / xlsx); JSONL writes each row's keys in this order first.
        append: keep the rows already there (resume).
    """

    def __init__(self, path: str | Path, columns: list[str], *, append: bool = False):
        self.path, self.kind, self.columns = Path(path), out_kind(path), list(columns)
        self.file = stream_path(path)
        self.file.parent.mkdir(parents=True, exist_ok=True)
        fresh = not (append and self.file.is_file() and self.file.stat().st_size > 0)
        mode = "w" if fresh else "a"   # the predictions file itself (resumed runs append), not events.jsonl
        self.fh = open(self.file, mode, encoding="utf-8", newline="")
        self._csv = None
        if self.kind in ("csv", "tsv"):
            # TSV as the tables' reader reads it (quoting=QUOTE_NONE: a quote is a plain character; tabs and
            # line ends inside a cell became spaces in _cell), so no cell ever needs an escape
            self._csv = (csv.writer(self.fh, delimiter="\t", quoting=csv.QUOTE_NONE, quotechar=None,
                                    escapechar=None, lineterminator="\n") if self.kind == "tsv"
                         else CsvRows(self.fh))   # a CR inside a text stays inside its row
            if fresh:
                self._csv.writerow([_cell(c, self.kind) for c in self.columns])
        elif self.kind == "xlsx" and fresh:
            self.fh.write(json.dumps({"columns": self.columns}) + "\n")

    def write(self, rows: list[dict]) -> None:
        """Write rows and flush (a cancel or crash after it keeps them)."""
        if self._csv is not None:
            self._csv.writerows([[_cell(r.get(c, ""), self.kind) for c in self.columns] for r in rows])
        elif self.kind == "xlsx":
            self.fh.writelines(json.dumps([r.get(c, "") for c in self.columns], ensure_ascii=False,
                                          default=str) + "\n" for r in rows)
        else:
            for r in rows:
                ordered = {c: r[c] for c in self.columns if c in r}
                ordered.update((k, v) for k, v in r.items() if k not in ordered)
                self.fh.write(json.dumps(ordered, ensure_ascii=False, default=str) + "\n")
        self.fh.flush()

    def close(self) -> None:
        self.fh.close()


def finish(path: str | Path) -> Path:
    """The last step of a finished run: for .xlsx, convert OUT.part.jsonl into OUT (write_only workbook,
    streaming) and remove the part file; other formats are already complete. Returns OUT."""
    p = Path(path)
    if out_kind(p) != "xlsx":
        return p
    import openpyxl

    part = stream_path(p)
    book = openpyxl.Workbook(write_only=True)
    sheet = book.create_sheet("predictions")
    with open(part, "r", encoding="utf-8") as fh:
        first = fh.readline()
        sheet.append(json.loads(first)["columns"])
        for line in fh:
            if line.strip():
                sheet.append([_xlsx_value(v) for v in json.loads(line)])
    tmp = p.with_name(p.name + ".tmp")
    book.save(tmp)
    os.replace(tmp, p)
    part.unlink()
    return p


def _xlsx_value(v):
    if isinstance(v, (list, dict)):
        return json.dumps(v, ensure_ascii=False)
    return v


def write_table(path: str | Path, columns: list[str], rows) -> Path:
    """Write ``rows`` (an iterable of dicts) to ``path`` in the format of its suffix, from scratch."""
    w = RowWriter(path, columns)
    try:
        batch = []
        for r in rows:
            batch.append(r)
            if len(batch) >= 1000:
                w.write(batch)
                batch = []
        w.write(batch)
    finally:
        w.close()
    return finish(path)


def ahead_path(path: str | Path) -> Path:
    """OUT.ahead.jsonl: the rows a stop left predicted but not yet in OUT (input order keeps them out until the
    rows before them are written), kept so that ``--resume`` uses them instead of running them again."""
    p = Path(path)
    return p.with_name(p.name + ".ahead.jsonl")


def load_ahead(path: str | Path, start: int = 0) -> dict[int, dict]:
    """The predictions kept ahead of OUT (data row index -> prediction cells), those of rows ``start`` and on; {}
    when there is no such file or a line of it cannot be read (it was cut off: the rows run again)."""
    p = ahead_path(path)
    kept: dict[int, dict] = {}
    try:
        with open(p, encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    item = json.loads(line)
                    if int(item["row"]) >= start:
                        kept[int(item["row"])] = dict(item["prediction"])
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return kept


def save_ahead(path: str | Path, kept: dict[int, dict]) -> None:
    """Write the predictions kept ahead of OUT (``kept``: data row index -> prediction cells), or remove the file
    when there are none. Written to a temporary file and renamed, so a stop during it leaves the old file whole."""
    p = ahead_path(path)
    if not kept:
        p.unlink(missing_ok=True)
        return
    tmp = p.with_name(p.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        for row in sorted(kept):
            fh.write(json.dumps({"row": row, "prediction": kept[row]}, ensure_ascii=False, default=str) + "\n")
    os.replace(tmp, p)

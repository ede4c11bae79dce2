"""How a file to predict is read and which of its columns the model reads, decided once for the Predict dialog
and the engine (Qt-free, torch-free).

The header rule (``reading.reads_without_header``): a file is read the way the checkpoint's run read its data
(its config's ``no_header``) unless the person says otherwise; the dialog shows that choice as its "No header
row" box and passes it to :func:`explorer.core.predict.engine.predict_file`, which reads by the same rule, so the
columns listed are the columns the engine finds. Without a header the columns are named by position ("1", "2",
...), each shown with a value of the first rows, so a person sees which position holds the texts.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path

from explorer.core.predict.reading import first_line_names_columns, iter_rows, reads_without_header, text_of

__all__ = ["FileColumn", "FileColumns", "SAMPLE_ROWS", "file_columns"]

SAMPLE_ROWS = 20      # rows read for each column's sample value
SAMPLE_CHARS = 60     # a sample value is cut to this many characters


@dataclass(frozen=True)
class FileColumn:
    """One column of a file to predict: ``name`` as the engine resolves it (a header name, or a 1-based position
    without a header) and ``sample``, the first non-empty value of the first SAMPLE_ROWS rows ("" for none)."""

    name: str
    sample: str = ""

    @property
    def label(self) -> str:
        """How the column is listed: "2: ooh... Please let us know" (a position with its sample), "text" with a
        header (its name says what it holds; the sample follows it)."""
        return f"{self.name}: {self.sample}" if self.sample else self.name


@dataclass
class FileColumns:
    """What the Predict dialog lists for a file: its columns, those the model reads (``ticked``), whether it was
    read without a header row, and a sentence on how it was read (``note``)."""

    path: str
    kind: str
    no_header: bool
    columns: list[FileColumn] = field(default_factory=list)
    ticked: list[str] = field(default_factory=list)
    note: str = ""

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SAMPLE_CHARS else text[:SAMPLE_CHARS - 1] + "…"


def file_columns(path: str | Path, facts, no_header: bool | None = None, encoding: str = "auto") -> FileColumns:
    """The columns of ``path`` read by the header rule (:func:`reads_without_header` of ``facts``' run and
    ``no_header``), each with a sample value, and the text column(s) the model reads among them
    (engine.resolve_text_columns: the run's, by name or position, else the usual names; none ticked when nothing
    fits).

    Raises:
        PredictDataError (a UserError): the file is missing, of an unknown type or empty.
    """
    from explorer.core.errors import UserError
    from explorer.core.predict.engine import resolve_text_columns

    headerless = reads_without_header(getattr(facts, "run_config", {}) or {}, no_header, path, encoding)
    info, rows = iter_rows(path, encoding, no_header=headerless)
    samples: dict[str, str] = {}
    for row in itertools.islice(rows, SAMPLE_ROWS):
        if row.error:
            continue
        for name in info.columns:
            if name not in samples and text_of(row.values.get(name)).strip():
                samples[name] = _cut(text_of(row.values.get(name)))
    try:
        ticked = resolve_text_columns(info, facts) if facts is not None else []
    except UserError:
        ticked = []
    count = f"{len(info.columns)} column{'s' if len(info.columns) != 1 else ''} ({info.kind})"
    run_config = getattr(facts, "run_config", {}) or {}
    as_run = reads_without_header(run_config)
    if as_run and not headerless and first_line_names_columns(path, run_config, encoding):
        count += (", read with a header row: the run read its data without one, but this file's first line names "
                  "its columns")
    if headerless and info.kind in ("csv", "tsv", "xlsx"):
        count += (", read without a header row" + (", as the run read its data" if as_run else "")
                  + ": columns by position; untick No header row if the first line names the columns")
    note = "; ".join(n for n in (count, info.note) if n)
    return FileColumns(str(path), info.kind, headerless, [FileColumn(c, samples.get(c, "")) for c in info.columns],
                       [c for c in ticked if c in info.columns], note)

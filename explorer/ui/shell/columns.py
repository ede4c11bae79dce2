"""Column widths of the tables that show results: short cells whole, long text elided but readable.

One rule for every table of the app (the data preview, n-best, predictions), checked by
explorer.ui.shell.layout_check: a column whose cells are all short (at most ``SHORT_CELL`` characters:
numbers, labels, "(no answer)") is as wide as its widest cell and its title; a column of longer text
(questions, passages) is at least ``MIN_TEXT_COLUMN`` px wide and at most ``MAX_TEXT_COLUMN``, its cells
elided ("…", the full text in the tooltip) beyond that.
"""

from __future__ import annotations

import contextlib
from typing import Iterator

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHeaderView, QTableView, QTableWidget

SHORT_CELL = 24        # characters: a cell this short is shown whole
MIN_TEXT_COLUMN = 120  # px: the narrowest a column of longer, elided text may be
MAX_TEXT_COLUMN = 320  # px: the widest a text column starts (the user can drag it wider)
ROWS_MEASURED = 50     # rows whose cells decide the widths


def text_columns(table: QTableView) -> set[int]:
    """The columns with a cell longer than SHORT_CELL characters (in the first ROWS_MEASURED rows)."""
    model = table.model()
    out = set()
    for col in range(model.columnCount()):
        for row in range(min(model.rowCount(), ROWS_MEASURED)):
            value = model.data(model.index(row, col), Qt.ItemDataRole.DisplayRole)
            if value is not None and (len(str(value)) > SHORT_CELL or "\n" in str(value)):
                out.add(col)
                break
    return out


def fit_columns(table: QTableView, stretch: int | None = None) -> None:
    """Size ``table``'s columns by the module's rule (Interactive sections the user can still drag).

    ``stretch``: a column that takes the free width (QHeaderView.Stretch) but never gets narrower than
    MIN_TEXT_COLUMN; the other columns are then ResizeToContents (for small tables: it measures every
    change) and the table's minimum width holds them whole plus that minimum.
    Default: the last section stretches when it is a text column.
    """
    header = table.horizontalHeader()
    long = text_columns(table)
    header.setStretchLastSection(False)
    for col in range(table.model().columnCount()):
        header.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
        table.resizeColumnToContents(col)
        width = max(table.columnWidth(col), header.sectionSizeHint(col))
        if col in long:
            width = min(max(width, MIN_TEXT_COLUMN), MAX_TEXT_COLUMN)
        table.setColumnWidth(col, width)
    if stretch is None and long and max(long) == table.model().columnCount() - 1:
        header.setStretchLastSection(True)
    if stretch is not None:   # a small table (n-best): the other columns follow their contents as they change
        for col in range(table.model().columnCount()):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Stretch if col == stretch
                                        else QHeaderView.ResizeMode.ResizeToContents)
        others = sum(table.columnWidth(c) for c in range(table.model().columnCount())
                     if c != stretch and not table.isColumnHidden(c))
        table.setMinimumWidth(others + MIN_TEXT_COLUMN + 2 * table.frameWidth()
                              + table.verticalScrollBar().sizeHint().width()
                              + (table.verticalHeader().width() if table.verticalHeader().isVisible() else 0))


@contextlib.contextmanager
def cells_told_once(table: QTableWidget) -> Iterator[QTableWidget]:
    """Fill ``table``'s cells (setItem, setText ...; its rows already made with setRowCount) with its model's signals
    held, then tell its views once: one dataChanged over every cell. A column sized to its contents measured all
    its rows again at each cell's change: 100 cells of the n-best table cost 8 ms of the GUI thread, 18 of the
    attention view's block-flow table 3 ms (scripts/gui_stall_probe.py)."""
    model = table.model()
    was = model.blockSignals(True)
    try:
        yield table
    finally:
        model.blockSignals(was)
    if not was and model.rowCount() and model.columnCount():
        model.dataChanged.emit(model.index(0, 0), model.index(model.rowCount() - 1, model.columnCount() - 1))


def wrap_rows(table: QTableView) -> None:
    """Cells word-wrap and each row is as tall as its wrapped cells, fitted again whenever a column's width
    changes (the splitter, the window, the user's drag): a short text column still shows its whole text (the
    n-best answers at 1280x800). For small tables (tens of rows: every row is measured)."""
    from PySide6.QtCore import QTimer

    table.setWordWrap(True)
    table.setTextElideMode(Qt.TextElideMode.ElideNone)
    pending = QTimer(table, singleShot=True, interval=0)
    pending.timeout.connect(table.resizeRowsToContents)
    table.horizontalHeader().sectionResized.connect(lambda *_: pending.start())
    table.model().rowsInserted.connect(lambda *_: pending.start())
    table.model().dataChanged.connect(lambda *_: pending.start())
    table.resizeRowsToContents()


def whole_headers(table: QTableView) -> None:
    """Widen each column narrower than its title (the header's size hint) to it; other widths stay. For a
    table before its first rows, whose columns have the default width ("P(predicted)" cut at 100 px in the
    dev-set tables); fit_columns does this and more once there are rows."""
    header = table.horizontalHeader()
    for col in range(table.model().columnCount()):
        if header.sectionSize(col) < header.sectionSizeHint(col):
            table.setColumnWidth(col, header.sectionSizeHint(col))


def rows_tall(table: QTableView, rows: int) -> int:
    """The height in pixels that shows ``table``'s header and ``rows`` rows of its default height (frame
    included), with no scroll bar's worth of slack."""
    return (table.horizontalHeader().sizeHint().height() + rows * table.verticalHeader().defaultSectionSize()
            + 2 * table.frameWidth())


def fits_sideways(table: QTableView, width: int) -> bool:
    """Do ``table``'s row header and columns (as sized now) fit ``width`` pixels with a vertical scroll bar beside
    them, so that no sideways scroll bar is needed?"""
    needed = (table.verticalHeader().sizeHint().width() * (not table.verticalHeader().isHidden())
              + table.horizontalHeader().length() + table.verticalScrollBar().sizeHint().width()
              + 2 * table.frameWidth())
    return needed <= width


def fit_rows_height(table: QTableView, min_rows: int, *, sideways: bool = True) -> None:
    """Let ``table`` (rows filled) be as tall as all its rows and never less than its header and ``min_rows`` rows
    (all of a shorter table): between the two a splitter or layout shares the height, and a taller table scrolls
    within itself. A fixed height of every row squeezed the tables under it to one row. ``sideways``: room for
    a sideways scroll bar under the rows (False for a table whose columns fit its width: the bar's height
    kept a 5-class confusion matrix's last row out of view at 1280x800)."""
    rows = table.model().rowCount() if table.model() is not None else 0
    # a sideways scroll bar never covers those rows
    scroll = table.horizontalScrollBar().sizeHint().height() if sideways else 0
    table.setMinimumHeight(rows_tall(table, min(rows, min_rows)) + scroll)
    table.setMaximumHeight(rows_tall(table, max(rows, 1)) + scroll)

"""The classification dev-set page's panes (explorer.ui.inspectors.classify_dev_view decides what they show): a
regression head's predicted-against-gold scatter, and the two example lists (nearest the decision boundary;
most confident mistakes or largest errors).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSplitter, QTableView, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from explorer.ui.shell.class_names import CELL_PX, header_title
from explorer.ui.shell.layout_check import header_size_need
from explorer.ui.shell.columns import fit_columns, fit_rows_height, fits_sideways, rows_tall, whole_headers

from .components.classify_dev import EXAMPLE_HEADERS, HEADER_TIPS

TABLE_MIN_ROWS = 4   # rows each result table keeps in view (all of a shorter one), at 1280x800 too
MANY_CLASSES = 8     # a report of this many classes or more gives its per-class table PER_CLASS_ROWS rows
PER_CLASS_ROWS = 12  # rows the per-class table of many classes keeps in view: the page scrolls to show them


ROW_MARGIN = 6       # px above and below a row's text together: a 6-class confusion matrix, its per-class table
                     # and four rows of each example list fit the page at 1280x800


# the row titles (class names) without the sheet's padding above and below: with it a compact row clipped the
# title's foot, and an underscore of a class name vanished ("gold Refund not showing up")
ROW_TITLE_SHEET = "QHeaderView::section { padding-top: 0px; padding-bottom: 0px; }"


def compact_rows(table: QTableView) -> None:
    """Rows as tall as the text and a small margin (Fusion's default is taller): more rows in the same height.
    A row's title (its class name) reads whole in it, its line's foot included (underscores)."""
    rows = table.verticalHeader()
    rows.setStyleSheet(ROW_TITLE_SHEET)
    need = header_size_need(rows, 0, "gold Ag_y|").height()   # the tallest line a title has
    rows.setDefaultSectionSize(max(table.fontMetrics().height() + ROW_MARGIN, need))


class ResultsSplit(QSplitter):
    """The page's results one above the other with handles between them: the confusion matrix (or a multi-label
    head's per-label table), the per-class metrics, a regression head's scatter and the example lists. :meth:`fit`
    gives the two tables their rows' height and no more (at least TABLE_MIN_ROWS rows, all of a shorter table; a
    longer one scrolls within itself; room for a sideways scroll bar only where the columns are wider than the
    page), the scatter and the lists share the rest; a dragged handle never hides one. Fixed heights of every
    row squeezed the example lists to one row."""

    def __init__(self, confusion: QTableView, per_class: QTableView, scatter: QWidget, lists: QWidget, parent=None):
        super().__init__(Qt.Orientation.Vertical, parent)
        self.tables = (confusion, per_class)
        for i, (pane, stretch) in enumerate(((confusion, 0), (per_class, 0), (scatter, 1), (lists, 1))):
            self.addWidget(pane)
            self.setStretchFactor(i, stretch)
        self.setChildrenCollapsible(False)
        self._sideways: tuple[bool, ...] | None = None   # room for a sideways scroll bar, per table, as last fitted
        self._dragged = False
        self.splitterMoved.connect(lambda *_: setattr(self, "_dragged", True))
        for table in self.tables:
            compact_rows(table)

    def fit(self) -> None:
        """Size the tables to their rows (filled now) and share the rest of the height. Where the page is too
        low for both tables whole above the lists' minimum, the per-class table gives way first (its last rows,
        the averages, scroll), cut to whole rows, down to its minimum: TABLE_MIN_ROWS rows, PER_CLASS_ROWS for a
        report of MANY_CLASSES classes or more (four rows of 30 classes at 1920x1080 too; the page then scrolls
        where it is lower than the minimums: the lists below stay reachable). Then the confusion matrix gives
        way too: the two share the height above their minimums evenly (the confusion matrix kept every gold row and
        left the per-class table four). Each is cut to whole rows."""
        self._sideways = self._needs_sideways()
        confusion, per_class = self.tables
        fit_rows_height(confusion, TABLE_MIN_ROWS, sideways=self._sideways[0])
        many = confusion.rowCount() >= MANY_CLASSES
        fit_rows_height(per_class, PER_CLASS_ROWS if many else TABLE_MIN_ROWS, sideways=self._sideways[1])
        tables = [t.maximumHeight() if not t.isHidden() else 0 for t in self.tables]
        shown = [i for i in range(self.count()) if not self.widget(i).isHidden()]
        below = sum(self.widget(i).minimumSizeHint().height() for i in shown if i >= len(self.tables))
        room = self.height() - self.handleWidth() * max(len(shown) - 1, 0) - below
        if sum(tables) > room and tables[1]:
            lows = [t.minimumHeight() if h else 0 for t, h in zip(self.tables, tables)]
            tables = share_height(tables, lows, room, evenly=many)
            tables = [whole_rows_height(t, h, side) if h else 0
                      for t, h, side in zip(self.tables, tables, self._sideways)]
        rest = max(self.height() - sum(tables), 0)
        self.setSizes(tables + [rest // 2, rest - rest // 2])
        self._dragged = False

    def _needs_sideways(self) -> tuple[bool, ...]:
        return tuple(not fits_sideways(table, self.width()) for table in self.tables)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        """Fit again at the new size until the user drags a handle (a result is usually filled before the page
        has its size; a dragged split stays as dragged)."""
        super().resizeEvent(event)
        if self._sideways is not None and not self._dragged:
            self.fit()


def share_height(wanted: list[int], lows: list[int], room: int, *, evenly: bool) -> list[int]:
    """Heights for two tables that want ``wanted`` px and need ``lows`` px in ``room`` px: each its minimum, then
    what is left either evenly (``evenly``; a table that wants less leaves the rest to the other) or to the first
    table first (the confusion matrix of a few classes keeps every gold row)."""
    spare = max(room - sum(lows), 0)
    extra = [max(w - low, 0) for w, low in zip(wanted, lows)]
    if evenly:
        first = min(extra[0], max(spare // 2, spare - extra[1]))
    else:
        first = min(extra[0], spare)
    second = min(extra[1], spare - first)
    return [lows[0] + first, lows[1] + second]


def whole_rows_height(table: QTableView, height: int, sideways: bool) -> int:
    """The largest height up to ``height`` that shows ``table``'s header and whole rows (a sideways scroll bar's
    room with ``sideways``), never below the table's minimum height: no row cut in half."""
    scroll = table.horizontalScrollBar().sizeHint().height() if sideways else 0
    step = max(table.verticalHeader().defaultSectionSize(), 1)
    rows = max((height - rows_tall(table, 0) - scroll) // step, 0)
    return max(table.minimumHeight(), rows_tall(table, rows) + scroll)


class ScoreScatter(pg.PlotWidget):
    """Predicted against gold score, one point per dev example (``points``), with the dashed identity line
    (``identity``: on it = predicted exactly)."""

    def __init__(self, parent=None):
        super().__init__(parent, background="w")
        self.setLabel("bottom", "gold score")
        self.setLabel("left", "predicted score")
        self.setMinimumHeight(240)
        self.identity = self.plot([], [], pen=pg.mkPen("#888888", width=1, style=pg.QtCore.Qt.PenStyle.DashLine))
        self.points = pg.ScatterPlotItem(size=5, pen=None, brush=pg.mkBrush(31, 119, 180, 140))
        self.addItem(self.points)

    def show_scores(self, gold, predicted) -> None:
        """The points (gold, predicted) and the identity line over their range."""
        gold, pred = np.asarray(gold, dtype=float), np.asarray(predicted, dtype=float)
        self.points.setData(gold, pred)
        if gold.size:
            lo, hi = float(min(gold.min(), pred.min())), float(max(gold.max(), pred.max()))
            self.identity.setData([lo, hi], [lo, hi])
        else:
            self.identity.setData([], [])

    def clear_scores(self) -> None:
        self.points.setData([], [])
        self.identity.setData([], [])


def _list_table() -> QTableWidget:
    t = QTableWidget(0, 5)
    set_headers(t, EXAMPLE_HEADERS)
    t.horizontalHeader().setStretchLastSection(True)
    t.verticalHeader().setVisible(False)   # the "#" column numbers the rows (their dev row); two numbers took room
    t.setTextElideMode(Qt.TextElideMode.ElideRight)   # a text reads from its start, as written; the tooltip has it
    t.setWordWrap(False)
    whole_headers(t)   # before the first result too
    compact_rows(t)
    t.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)   # the text column takes what is left
    t.setMinimumHeight(rows_tall(t, TABLE_MIN_ROWS))
    return t


def set_headers(table: QTableWidget, titles: list[str]) -> None:
    """The lists' column titles, a short one with its meaning as tooltip (HEADER_TIPS)."""
    table.setHorizontalHeaderLabels(titles)
    for c, title in enumerate(titles):
        if title in HEADER_TIPS:
            table.horizontalHeaderItem(c).setToolTip(HEADER_TIPS[title])


def fill_rows(table: QTableWidget, rows: list[tuple]) -> None:
    """``rows`` into ``table``, numbers and class names whole (a class name longer than a title is cut, whole in its
    tooltip); the text (the last column) takes the rest of the
    table's width, at least 120 px, elided at its end with the whole text as its tooltip (it started some
    290 px into a 410 px list at 1280x800 and showed a few characters, the columns before it and a second row
    number taking the width)."""
    table.setRowCount(len(rows))
    last = table.columnCount() - 1
    metrics = table.fontMetrics()
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            # a class name of any length is cut like a title (class_names): it never decides the lists' width
            shown = str(value) if c == last else header_title(str(value), metrics, CELL_PX)
            item = QTableWidgetItem(shown)
            if c == last or shown != str(value):
                item.setToolTip(str(value))
            table.setItem(r, c, item)
    fit_columns(table, stretch=last)


class ExampleLists(QSplitter):
    """Two titled lists side by side: ``boundary`` (nearest the decision boundary, in ``boundary_box``) and
    ``mistakes`` (most confident mistakes, or a regression head's largest errors); ``titles`` their titles."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.boundary = _list_table()
        self.mistakes = _list_table()
        self.titles = []
        for title, table in (("Nearest the decision boundary", self.boundary),
                             ("Most confident mistakes", self.mistakes)):
            box = QWidget()
            v = QVBoxLayout(box)
            v.setContentsMargins(0, 0, 4, 0)   # the lists' width goes to their text
            v.setSpacing(2)
            self.titles.append(QLabel(title))
            v.addWidget(self.titles[-1])
            v.addWidget(table)
            self.addWidget(box)
        self.boundary_box = self.boundary.parentWidget()

    def show_mistakes(self, title: str, headers: list[str], rows: list[tuple]) -> None:
        """The right-hand list: its title, column titles and rows."""
        self.titles[1].setText(title)
        set_headers(self.mistakes, headers)
        fill_rows(self.mistakes, rows)

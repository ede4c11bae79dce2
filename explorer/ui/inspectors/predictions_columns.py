"""The Predictions page's column widths: the text columns elide and take the width the others leave, so the
model's numbers (probabilities, margin) stay in view at 1280x800 and 1920x1080; the table's width wanted beside
the side pane (predictions_panels.ReviewSplit)."""

from __future__ import annotations

from typing import Callable

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTableView

from explorer.ui.shell.class_names import NAME_PX

TEXT_WANTED_PX = 240  # the text column's width the table asks for (a sentence, not a few words)


class ColumnFitter:
    """Fits the columns of a Predictions page's table. ``model()`` and ``review()`` give the page's current
    predictions_view.PredictionsModel and core.predict.review.Review (None before a file is shown)."""

    def __init__(self, view: QTableView, model: Callable, review: Callable):
        self.view, self.model, self.review = view, model, review
        self._column_roles: tuple[list[int], list[int]] | None = None   # (text, number) columns as last fitted

    def fit(self) -> None:
        """The text column(s) take the width the viewport leaves beside the other columns up to the model's numbers
        (probabilities, margin), between MIN_TEXT_COLUMN and MAX_TEXT_COLUMN px: the numbers stay in view and the
        text elides, whole in its tooltip and in the side pane (the probabilities stay on screen at 1280x800 and
        1920x1080). The other columns are as wide as their cells and their titles, the sort arrow
        counted only where it is drawn (layout_check.header_need). Again when the width or the sort changes."""
        from explorer.ui.shell.layout_check import header_need

        m = self.model()
        if m is None:
            return
        texts, numbers = self._text_and_number_columns()
        header = self.view.horizontalHeader()
        for c in range(m.columnCount()):
            if c in texts or c > max(numbers + texts, default=-1):
                continue
            # Qt's section hint keeps room for a sort arrow on every section; it is drawn on the sorted one only.
            # A selected row highlights every title in bold ("positive" cut to "positi…" in the normal font's width)
            title = header_need(header, c, str(m.headerData(c, Qt.Orientation.Horizontal)),
                                bold=header.highlightSections())
            if c == header.sortIndicatorSection():
                title = max(title, header.sectionSizeHint(c))
            width = max(self.view.sizeHintForColumn(c), title)
            if m.headers[c] == "label":   # a class name's cell elides beyond a title's width (class_names.NAME_PX)
                width = min(width, NAME_PX)
            self.view.setColumnWidth(c, width)
        self._column_roles = texts, numbers
        self._share_text_width(texts, numbers)

    def _share_text_width(self, texts: list[int], numbers: list[int]) -> None:
        """The text columns take the viewport's width the other columns up to the model's numbers leave."""
        from explorer.ui.shell.columns import MAX_TEXT_COLUMN, MIN_TEXT_COLUMN

        if not texts:
            return
        last = max(numbers + texts)
        others = sum(self.view.columnWidth(c) for c in range(last + 1) if c not in texts)
        share = (self.view.viewport().width() - others) // len(texts)
        for c in texts:
            self.view.setColumnWidth(c, max(MIN_TEXT_COLUMN, min(MAX_TEXT_COLUMN, share)))

    def fit_changed_row(self, file_row: int) -> None:
        """After a review action on ``file_row``: its label and reviewed cells widen their columns where they need
        more, and the text columns take the width left. Only that row's cells are measured: measuring every
        column's cells again (a thousand rows each) made a key press on a file of thousands of rows take a second."""
        m, roles = self.model(), self._column_roles
        where = np.nonzero(m.order == file_row)[0]
        if roles is None or not where.size:
            return
        grid = 1 if self.view.showGrid() else 0   # as QTableView's sizeHintForColumn counts a cell
        for name in ("reviewed", "label"):
            c = m.headers.index(name)
            need = self.view.sizeHintForIndex(m.index(int(where[0]), c)).width() + grid
            if name == "label":
                need = min(need, NAME_PX)
            if need > self.view.columnWidth(c):
                self.view.setColumnWidth(c, need)
        self._share_text_width(*roles)

    def _text_and_number_columns(self) -> tuple[list[int], list[int]]:
        """(the input text columns of longer text, which elide; the model's number columns), as column indices."""
        from explorer.ui.shell.columns import text_columns

        m = self.model()
        long = text_columns(self.view)   # an input column of short cells (a QA question) is shown whole instead
        texts = [i for i, c in enumerate(m.headers) if c in self.review().text_columns and i in long]
        return texts, [m.headers.index(c) for c in m.number_columns]

    def table_need(self) -> int | None:
        """The table's width with its columns up to the model's numbers and a TEXT_WANTED_PX text column, px
        (None before a file is shown)."""
        m = self.model()
        if m is None:
            return None
        texts, numbers = self._text_and_number_columns()
        last = max(numbers + texts, default=-1)
        others = sum(self.view.columnWidth(c) for c in range(last + 1) if c not in texts)
        frame = 2 * self.view.frameWidth() + self.view.verticalScrollBar().sizeHint().width()
        return others + TEXT_WANTED_PX * len(texts) + frame

"""The classification dev-set page's panes (explorer.ui.inspectors.classify_dev_view decides what they show): a
regression head's predicted-against-gold scatter, and the two example lists (nearest the decision boundary;
most confident mistakes or largest errors).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QLabel, QSplitter, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from explorer.ui.shell.columns import fit_columns, whole_headers

from .components.classify_dev import EXAMPLE_HEADERS


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
    t.setHorizontalHeaderLabels(EXAMPLE_HEADERS)
    t.horizontalHeader().setStretchLastSection(True)
    whole_headers(t)   # before the first result too
    return t


def fill_rows(table: QTableWidget, rows: list[tuple]) -> None:
    """``rows`` into ``table``, numbers and class names whole, the text column at least 120 px."""
    table.setRowCount(len(rows))
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            table.setItem(r, c, QTableWidgetItem(str(value)))
    fit_columns(table)


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
            self.titles.append(QLabel(title))
            v.addWidget(self.titles[-1])
            v.addWidget(table)
            self.addWidget(box)
        self.boundary_box = self.boundary.parentWidget()

    def show_mistakes(self, title: str, headers: list[str], rows: list[tuple]) -> None:
        """The right-hand list: its title, column titles and rows."""
        self.titles[1].setText(title)
        self.mistakes.setHorizontalHeaderLabels(headers)
        fill_rows(self.mistakes, rows)

"""The τ on dev set page's panes, each drawing what it is given (explorer.ui.inspectors.dev_view decides what):
the τ curves with the chosen and best τ, the τ values table, and the table of the questions nearest τ.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHeaderView, QSplitter, QTabWidget, QTableWidget, QTableWidgetItem, QWidget

from explorer.ui.curves.legend import legend_below

from .common import tip
from .components.dev_tau import NearRow

CURVES = [("f1", "F1", "#d62728", 2.5), ("exact_match", "EM", "#9467bd", 1.5),
          ("HasAns_f1", "HasAns_f1", "#2ca02c", 1.5), ("NoAns_f1", "NoAns_f1", "#1f77b4", 1.5),
          ("answer_rate", "answer rate %", "#7f7f7f", 1.5)]


class TauPlot(pg.PlotWidget):
    """F1 / EM / HasAns_f1 / NoAns_f1 / answer rate against τ (``curves`` by key), the exact sweep's F1, the chosen
    τ line (``tau_line``, draggable), the best τ line and star, and a legend naming each (no labels on the lines:
    they overlapped)."""

    def __init__(self, parent=None):
        super().__init__(parent, background="w")
        self.setLabel("bottom", "τ (answer iff score_diff > τ)")
        self.setLabel("left", "percent")
        legend_below(self, columns=4)   # under the axis: a top-right legend hid the best τ and the star
        self.setToolTip(tip("tau"))
        self.curves = {}
        for key, name, color, width in CURVES:
            self.curves[key] = self.plot([], [], pen=pg.mkPen(color, width=width), name=name)
        self.exact_curve = self.plot([], [], pen=pg.mkPen("#d62728", width=1, style=Qt.PenStyle.DotLine),
                                     name="F1, exact sweep")
        # The τ values are named in the legend and the table below, not by labels on the lines (those
        # overlapped each other when the values were close).
        best_pen = pg.mkPen("#d62728", width=1, style=Qt.PenStyle.DashLine)
        self.best_line = pg.InfiniteLine(angle=90, pen=best_pen)
        self.tau_line = pg.InfiniteLine(angle=90, movable=True, pen=pg.mkPen("#222", width=2))
        self.tau_line.setToolTip("chosen τ: drag it, or type it below")
        self.best_marker = pg.ScatterPlotItem(symbol="star", size=16, brush="#d62728", pen=None)
        for item in (self.best_line, self.tau_line, self.best_marker):
            self.addItem(item)
        self.plotItem.legend.addItem(pg.PlotDataItem(pen=pg.mkPen("#222", width=2)), "chosen τ (drag)")
        self.plotItem.legend.addItem(pg.PlotDataItem(pen=best_pen, symbol="star", symbolBrush="#d62728",
                                                     symbolPen=None), "best τ on the grid")
        self.setXRange(-6, 6, padding=0.02)
        self.setYRange(0, 100, padding=0.02)
        self.best_line.setVisible(False)
        self.tau_line.setVisible(False)
        # what an empty chart says while a study computes (the chart keeps its place, nothing jumps)
        self.note = pg.TextItem("", color="#555", anchor=(0.5, 0.5))
        self.note.setPos(0, 50)
        self.addItem(self.note, ignoreBounds=True)
        self.note.setVisible(False)

    def set_note(self, text: str) -> None:
        """A line in the middle of the chart ("computing the τ curves …"); "" takes it away."""
        self.note.setText(text)
        self.note.setVisible(bool(text))

    def show_figures(self, figures) -> None:
        """The curves of a study's figures (explorer.core.qa.tau_study StudyFigures), the best τ, the range."""
        grid = figures.grid
        for key, *_ in CURVES:
            self.curves[key].setData(grid.taus, getattr(grid, key))
        lo, hi = float(grid.taus.min()), float(grid.taus.max())
        ex = figures.exact
        inside = (ex.taus >= lo) & (ex.taus <= hi)
        self.exact_curve.setData(ex.taus[inside], ex.f1[inside])
        self.best_line.setVisible(True)   # (an InfiniteLine's label only follows its value while visible)
        self.tau_line.setVisible(True)
        self.best_line.setValue(grid.best_tau)
        self.best_marker.setData([grid.best_tau], [grid.best_f1])
        self.setXRange(lo, hi, padding=0.02)
        self.setYRange(0, 100, padding=0.02)

    def clear_figures(self) -> None:
        """No study: the curves, the star and the lines go."""
        for curve in list(self.curves.values()) + [self.exact_curve, self.best_marker]:
            curve.setData([], [])
        self.best_line.setVisible(False)
        self.tau_line.setVisible(False)


class TauTable(QTableWidget):
    """The τ values (chosen, best on the grid, official, honest) with their F1, hidden until a study exists.
    Each "what it is" wraps to the column's width (never cut with "…") and the table is as tall as its rows."""

    def __init__(self, parent=None):
        super().__init__(0, 4, parent)
        self.setHorizontalHeaderLabels(["τ", "value (score_diff units)", "F1 (%)", "what it is"])
        self.verticalHeader().setVisible(False)
        self.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.horizontalHeader().setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.setWordWrap(True)
        self.horizontalHeader().sectionResized.connect(self._fit_rows)
        self.setToolTip("Every τ is in score_diff units: answer iff score_diff > τ "
                        "(score_diff = best_non_null_score − null_score).")
        self.setVisible(False)   # until a study has τ values to list

    def fill(self, rows: list[tuple[str, str, str, str]]) -> None:
        """The rows of components.dev_tau.tau_rows, every one in view."""
        self.setVisible(True)
        self.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                if c in (1, 2):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.setItem(r, c, item)
        for c in range(3):
            self.resizeColumnToContents(c)
        self.horizontalHeader().setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self._fit_rows()

    def _fit_rows(self, *_args) -> None:
        """Each row as tall as its wrapped "what it is", the table as tall as its rows: every τ row in view."""
        self.resizeRowsToContents()
        rows = sum(self.rowHeight(r) for r in range(self.rowCount()))
        self.setFixedHeight(self.horizontalHeader().sizeHint().height() + rows + 2 * self.frameWidth())

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():   # rows wrapped for another width: twice as tall
            self._fit_rows()                                    # once the curves went into their tab

    def show_chosen(self, tau: str, f1: str) -> None:
        """The chosen τ's row (the first) at another τ."""
        if self.rowCount():
            self.item(0, 1).setText(tau)
            self.item(0, 2).setText(f1)


class NearTable(QTableWidget):
    """The questions whose score_diff is nearest the chosen τ (a small move of τ flips them); a click opens one."""

    def __init__(self, parent=None):
        super().__init__(0, 7, parent)
        self.setHorizontalHeaderLabels(["score_diff", "|score_diff − τ|", "at τ", "gold", "best span",
                                        "F1 at τ", "question"])
        self.horizontalHeader().setSectionResizeMode(6, QHeaderView.ResizeMode.Stretch)
        self.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.verticalHeader().setVisible(False)
        self.setWordWrap(False)
        self.setToolTip("The questions whose score_diff is nearest to τ: a small move of τ flips them. "
                        "Click one to open it in the Spans & τ view.")

    def fill(self, rows: list[NearRow]) -> None:
        """The rows of components.dev_tau.questions_near_tau; F1 at τ green when good, red when not."""
        self.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, v in enumerate(row.cells):
                item = QTableWidgetItem(v)
                item.setToolTip(v)
                if c in (0, 1, 5):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if c == 5:
                    item.setForeground(Qt.GlobalColor.darkGreen if row.good else Qt.GlobalColor.red)
                self.setItem(r, c, item)
        self.resizeColumnsToContents()
        for c in (3, 4):
            self.setColumnWidth(c, min(self.columnWidth(c), 240))
        self.horizontalHeader().setSectionResizeMode(6, QHeaderView.ResizeMode.Stretch)


CURVES_TAB = "Curves"
SCROLL_BAR_ROOM = 20   # px of the τ values' width a vertical scroll bar may take
UNFOLD_SLACK = 24   # px more than the curves need before they leave their tab again: no switching to and fro


class TauSplit(QSplitter):
    """The curves above, the chosen τ and the tables below: on each resize the lower pane gets the height its
    contents ask for (the τ table with every row whole, its summary) and the curves the rest, never less than
    the curves' minimum; a drag of the handle holds until the next resize. Where the curves' minimum and the
    lower pane's want do not both fit (1280x800: the τ table got a 95 px strip, the sentence on which figure to
    quote was cut), the curves become the tab CURVES_TAB beside the τ values (``tabs``); they come back above
    when there is room again. ``folded`` tells which. Folded, the curves' tab comes to the front when they fold
    and when a study is shown (:meth:`bring_curves`): a Run's curves never vanish behind the τ values' tab."""

    def __init__(self, plot: QWidget, bottom: QWidget, tabs: QTabWidget, parent=None):
        super().__init__(Qt.Orientation.Vertical, parent)
        self.setChildrenCollapsible(False)
        self.plot, self.bottom, self.tabs = plot, bottom, tabs
        self.folded = False
        self.held = False   # while a study runs: the curves stay where they are (hold)
        self.addWidget(plot)
        self.addWidget(bottom)
        self.setStretchFactor(0, 1)
        self.setStretchFactor(1, 1)

    def want(self) -> int:
        """The lower pane's height with the τ values page whole (the curves' tab, when folded, not counted)."""
        values = self.tabs.widget(0)   # a scroll area: its own size hint is of the first time it was asked
        inner = values.widget() if hasattr(values, "widget") else values
        layout, width = inner.layout(), self.width() - SCROLL_BAR_ROOM
        # the wrapped sentence under the table at this width (a label's size hint wraps it at another one)
        height = layout.heightForWidth(width) if layout is not None and layout.hasHeightForWidth() else -1
        height = max(height, inner.sizeHint().height())
        tabs_want = self.tabs.tabBar().sizeHint().height() + height + 2 * values.frameWidth() + 4
        rest = self.bottom.sizeHint().height() - self.tabs.sizeHint().height()
        return max(rest + tabs_want, self.bottom.minimumHeight())

    def hold(self, on: bool) -> None:
        """While ``on`` (a study runs) the curves neither fold into their tab nor leave it: the progress row and the
        status line above took a line more each, and the curves vanished into their tab for the run. Lifted, the
        split fits again."""
        self.held = on
        if not on:
            self.fit()

    def fit(self) -> None:
        """Give the lower pane its want (within what the curves leave), or fold the curves into a tab."""
        room = self.height() - self.handleWidth()
        if room <= 0:
            return
        want, need = self.want(), self.plot.minimumHeight()
        if self.held:
            if not self.folded:
                low = max(min(want, room - need), 0)
                self.setSizes([room - low, low])
            return
        if not self.folded and room - want < need:
            self.folded = True
            self.tabs.addTab(self.plot, CURVES_TAB)
            self.tabs.setCurrentWidget(self.plot)   # what was in view stays in view
        elif self.folded and room - want >= need + UNFOLD_SLACK:
            self.folded = False
            self.insertWidget(0, self.plot)
            self.plot.show()
        if not self.folded:
            low = min(want, room - need)
            self.setSizes([room - low, low])

    def bring_curves(self) -> None:
        """A study was shown: folded, its curves' tab to the front (unfolded they are in view above the tabs)."""
        if self.folded:
            self.tabs.setCurrentWidget(self.plot)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self.fit()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        self.fit()   # a study shown while the page was hidden was fitted to the hidden page's size

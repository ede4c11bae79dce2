"""Where the Spans & τ page puts its panes under the decision: side by side when they fit, as tabs when not.

Wide (1920x1080): the passage (with the windows list) on the left, the n-best table over the score tabs (span
score table, P(start/end), Saliency, Why) on the right, splitters between them. Narrow (1280x800): one tab widget
under the decision, its first page the n-best table, then the score tabs, then the passage. Stacked one above the
other at that width, the panes shared the little height the decision leaves: the n-best table showed two rows,
the heat map a 50 px strip, and the passage lay below the fold. As tabs each gets the whole lower area. The mode
depends on the width only (the panes' minimum widths), so switching never changes what decides it.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import QSplitter, QTabWidget, QVBoxLayout, QWidget

from .spans_panels import SpanTables

NBEST_TAB = "n-best"
PASSAGE_TAB = "Passage"
RIGHT_MIN_WIDTH = 320   # px of the right pane side by side: the heat map readable, the n-best text with room
# shorter names of the score tabs under the decision: the six tabs fit the 496 px pane at 1280x800, no scroll arrows
SHORT_NAMES = {"Span score table": "Scores", "Why (no) answer": "Why"}   # the long ones as tooltips
PASSAGE_MIN_WIDTH = 360   # px of the passage side by side: narrower, its lines hold four words and the marked
                          # answer wraps over several (1280x800 left it 172 px beside the tables)


def _min_height(w: QWidget) -> int:
    return max(w.minimumSizeHint().height(), w.minimumHeight())


class SpansPanes(QWidget):
    """The passage pane, the n-best table and the score tabs (a QTabWidget), arranged by width (module docstring).

    ``narrow`` tells the arrangement; ``set_narrow(bool)`` sets it (a resize sets it by itself) and emits
    ``arranged(narrow)``."""

    arranged = Signal(bool)

    def __init__(self, passage_pane: QWidget, nbest: QWidget, tabs: QTabWidget, parent=None):
        super().__init__(parent)
        self.passage_pane, self.nbest, self.tabs = passage_pane, nbest, tabs
        self.tables = SpanTables(nbest, tabs)
        self.tables.setMinimumWidth(RIGHT_MIN_WIDTH)
        self.split = QSplitter(Qt.Orientation.Horizontal)
        self.split.setChildrenCollapsible(False)
        self.split.addWidget(passage_pane)
        self.split.addWidget(self.tables)
        self.split.setStretchFactor(0, 2)   # the passage needs the width more than the span table
        self.split.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.split)
        self.narrow = False
        self._sized = False   # side by side: the width shared once, 60 % to the passage, until a drag moves it

    def share(self, width: int) -> None:
        """Side by side: 60 % of ``width`` to the passage, the rest (at least RIGHT_MIN_WIDTH and the n-best
        table's minimum) to the tables."""
        room = width - self.split.handleWidth()
        right = max(self.right_min_width(), int(0.4 * room))
        self.split.setSizes([room - right, right])
        # the n-best table and the score tabs laid out again (put back from the tabs, they kept the tab's width)
        height = self.tables.height()
        top = min(max(self.nbest.minimumHeight(), height // 4), max(height - self.tabs.minimumHeight(), 0))
        self.tables.setSizes([top, height - top])
        self._sized = True

    def right_min_width(self) -> int:
        """The tables' width side by side: RIGHT_MIN_WIDTH, or the n-best table's minimum (its number columns and
        a readable text column, explorer.ui.shell.columns.fit_columns) when wider."""
        return max(RIGHT_MIN_WIDTH, self.nbest.minimumWidth(), self.nbest.minimumSizeHint().width())

    def side_by_side_width(self) -> int:
        """The width the passage and the tables need beside each other."""
        passage = self.passage_pane.minimumSizeHint().expandedTo(self.passage_pane.minimumSize()).width()
        return max(passage, PASSAGE_MIN_WIDTH) + self.right_min_width() + self.split.handleWidth()

    def set_narrow(self, narrow: bool) -> None:
        """Tabs (``narrow``) or side by side; the score tab shown stays shown."""
        if narrow == self.narrow:
            return
        self.narrow = narrow
        shown = self.tabs.currentWidget()
        for k in range(self.tabs.count()):
            name = self.tabs.tabText(k)
            long = next((n for n, short in SHORT_NAMES.items() if short == name), name)
            self.tabs.setTabText(k, SHORT_NAMES.get(long, long) if narrow else long)
            self.tabs.setTabToolTip(k, long if narrow and long in SHORT_NAMES else "")
        if narrow:
            self.tabs.insertTab(0, self.nbest, NBEST_TAB)
            self.tabs.addTab(self.passage_pane, PASSAGE_TAB)
            self.layout().addWidget(self.tabs)
            self.split.hide()
            self.tabs.setCurrentIndex(0)   # the answers first, right under the decision
        else:
            for page in (self.nbest, self.passage_pane):
                self.tabs.removeTab(self.tabs.indexOf(page))
            self.split.insertWidget(0, self.passage_pane)
            self.tables.insertWidget(0, self.nbest)
            self.tables.insertWidget(1, self.tabs)
            for w in (self.passage_pane, self.nbest, self.tabs, self.split):
                w.show()
            self.tables.refresh()
            self.split.refresh()
            self._sized = False   # put back with their minimum widths: shared again at this resize
            if shown not in (self.nbest, self.passage_pane):
                self.tabs.setCurrentWidget(shown)
        self.arranged.emit(narrow)
        self.updateGeometry()

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        """The widest pane's minimum width (the panes can always go into tabs); the arrangement's height."""
        width = max(self.passage_pane.minimumSizeHint().width(), RIGHT_MIN_WIDTH)
        if self.narrow:
            return QSize(width, _min_height(self.tabs))
        return QSize(width, max(_min_height(self.passage_pane), _min_height(self.tables)))

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return self.minimumSizeHint()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self.set_narrow(event.size().width() < self.side_by_side_width())
        super().resizeEvent(event)
        if not self.narrow:   # an explicit minimum outweighs the n-best table's own, which grows with its columns
            self.tables.setMinimumWidth(self.right_min_width())
        if not self.narrow and not self._sized:
            self.share(event.size().width())

"""A splitter that puts its panes side by side when they fit and one above the other when they do not.

A QSplitter's minimum width is the sum of its panes' minimum widths, so two panes that each need 400 px
make the whole window at least 800 px wider than its other columns (the Spans & τ page at 1280x800).
:class:`AdaptiveSplitter` asks only for its widest pane and turns vertical whenever its width
is less than the panes need side by side; it turns back when there is room again. A pane named with
:meth:`AdaptiveSplitter.stack_first` goes on top when they stack (the span score table above the passage on a
narrow Spans & τ page, in view under the decision) and back to its place side by side.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QSplitter, QWidget


def _min_size(w: QWidget) -> QSize:
    return w.minimumSizeHint().expandedTo(w.minimumSize())


class AdaptiveSplitter(QSplitter):
    """Horizontal when ``width() >= side_by_side_width()``, vertical otherwise (switched on resize)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(Qt.Orientation.Horizontal, parent)
        self._first: QWidget | None = None
        self._side_index = 0

    def stack_first(self, pane: QWidget) -> None:
        """Put ``pane`` (one of the panes, added already) on top whenever the panes stack."""
        self._first, self._side_index = pane, self.indexOf(pane)
        self._place_first()

    def _place_first(self) -> None:
        if self._first is None:
            return
        index = 0 if self.orientation() == Qt.Orientation.Vertical else self._side_index
        if self.indexOf(self._first) != index:
            self.insertWidget(index, self._first)

    def panes(self) -> list[QWidget]:
        """The visible panes, left to right (or top to bottom)."""
        return [self.widget(i) for i in range(self.count()) if not self.widget(i).isHidden()]

    def side_by_side_width(self) -> int:
        """The width the panes need side by side: their minimum widths and the handles between them."""
        panes = self.panes()
        return sum(_min_size(w).width() for w in panes) + self.handleWidth() * max(len(panes) - 1, 0)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        """The widest pane's minimum width (the panes can always stack); the current arrangement's height."""
        panes = self.panes()
        if not panes:
            return super().minimumSizeHint()
        width = max(_min_size(w).width() for w in panes)
        if self.orientation() == Qt.Orientation.Horizontal:
            height = max(_min_size(w).height() for w in panes)
        else:
            height = sum(_min_size(w).height() for w in panes) + self.handleWidth() * (len(panes) - 1)
        return QSize(width, height)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        wanted = (Qt.Orientation.Horizontal if event.size().width() >= self.side_by_side_width()
                  else Qt.Orientation.Vertical)
        if wanted != self.orientation():
            self.setOrientation(wanted)
            self._place_first()
            self.updateGeometry()
        super().resizeEvent(event)

"""A splitter that puts its panes side by side when they fit and one above the other when they do not.

A QSplitter's minimum width is the sum of its panes' minimum widths, so two panes that each need 400 px
make the whole window at least 800 px wider than its other columns (the Spans & τ page at 1280x800).
:class:`AdaptiveSplitter` asks only for its widest pane and turns vertical whenever its width
is less than the panes need side by side; it turns back when there is room again.
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
            self.updateGeometry()
        super().resizeEvent(event)

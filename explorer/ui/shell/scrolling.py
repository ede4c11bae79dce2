"""A page part that scrolls inside its page instead of making the window larger than the screen."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QFrame, QScrollArea, QWidget


class _VerticalScroll(QScrollArea):
    """A scroll area that scrolls up and down only: it asks for its widget's minimum width (plus the scroll
    bar), so the splitter or layout around it gives that width instead of clipping the right of the contents
    (Spans & τ at 1280x800 beside a wide Runs dock: the n-best table and the decision cut, issue 25)."""

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        hint = super().minimumSizeHint()
        widget = self.widget()
        if widget is None:
            return hint
        width = widget.minimumSizeHint().expandedTo(widget.minimumSize()).width()
        return QSize(width + self.verticalScrollBar().sizeHint().width() + 2 * self.frameWidth(), hint.height())


def scrolling(widget: QWidget, *, horizontal: bool = True) -> QScrollArea:
    """``widget`` in a frameless, resizable QScrollArea: as large as the room when there is room, scrolled
    when there is not, so its minimum size never reaches the window's (the Tag page's tabs, Spans & τ's panes,
    the data preview's notes; issue 25, finding 3). ``horizontal`` False: no horizontal scroll bar (the
    contents wrap to the width instead)."""
    area = QScrollArea() if horizontal else _VerticalScroll()
    area.setWidget(widget)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    if not horizontal:
        area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    return area

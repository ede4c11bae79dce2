"""A page part that scrolls inside its page instead of making the window larger than the screen."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QScrollArea, QWidget


def scrolling(widget: QWidget, *, horizontal: bool = True) -> QScrollArea:
    """``widget`` in a frameless, resizable QScrollArea: as large as the room when there is room, scrolled
    when there is not, so its minimum size never reaches the window's (the Tag page's tabs, Spans & τ's panes,
    the data preview's notes; issue 25, finding 3). ``horizontal`` False: no horizontal scroll bar (the
    contents wrap to the width instead)."""
    area = QScrollArea()
    area.setWidget(widget)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    if not horizontal:
        area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    return area

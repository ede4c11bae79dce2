"""The launcher form's group boxes in two columns when there is room, in one column when not.

A QBoxLayout whose direction follows the width it is given: left to right (two columns, as wide as
their size hints) when the scroll area's viewport is wide enough, top to bottom otherwise. The form's
minimum width is then one column's, so the data-preview column beside it stays on screen at
1280x800 and the form scrolls vertically instead of pushing the window wider.
"""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QBoxLayout, QVBoxLayout, QWidget


class FormColumns(QWidget):
    """``left`` and ``right``: the widgets of each column, top to bottom (laid out at once)."""

    def __init__(self, left: list[QWidget], right: list[QWidget], parent: QWidget | None = None):
        super().__init__(parent)
        self.columns = []
        for widgets in (left, right):
            col = QVBoxLayout()
            col.setContentsMargins(0, 0, 0, 0)
            for w in widgets:
                col.addWidget(w)
            col.addStretch(1)
            self.columns.append(col)
        self.box = QBoxLayout(QBoxLayout.Direction.LeftToRight, self)
        self.box.setContentsMargins(0, 0, 0, 0)
        for col in self.columns:
            self.box.addLayout(col, 1)

    def two_column_width(self) -> int:
        """The width from which the two columns sit side by side (their size hints and the spacing)."""
        return sum(col.sizeHint().width() for col in self.columns) + max(self.box.spacing(), 0)

    def two_columns(self) -> bool:
        """Are the columns side by side now?"""
        return self.box.direction() == QBoxLayout.Direction.LeftToRight

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        """One column's minimum width; the height of the current arrangement."""
        width = max(col.minimumSize().width() for col in self.columns)
        return QSize(width, self.box.minimumSize().height())

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        wanted = (QBoxLayout.Direction.LeftToRight if event.size().width() >= self.two_column_width()
                  else QBoxLayout.Direction.TopToBottom)
        if wanted != self.box.direction():
            self.box.setDirection(wanted)
            self.updateGeometry()
        super().resizeEvent(event)

"""A one-line label that never widens its window: its text is elided to the width it is given."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QLabel, QSizePolicy


class ElidedLabel(QLabel):
    """A QLabel for one line of plain text (the status bar's run activity and device) whose minimum width is
    ``min_width`` px, not its text's: a long run name elides ("running: stance-cor…") instead of making the
    main window wider than the screen (fifth trial: 1624 px asked on a 1280 px screen). The whole text is the
    tooltip when it is cut."""

    def __init__(self, text: str = "", parent=None, *, min_width: int = 60,
                 elide: Qt.TextElideMode = Qt.TextElideMode.ElideMiddle):
        super().__init__(text, parent)
        self._min_width, self._elide = min_width, elide
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        hint = super().minimumSizeHint()
        return QSize(min(hint.width(), self._min_width), hint.height())

    def shown_text(self) -> str:
        """The text as drawn at the current width."""
        return self.fontMetrics().elidedText(self.text(), self._elide, max(0, self.contentsRect().width()))

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        painter.setPen(self.palette().windowText().color())
        painter.drawText(self.contentsRect(), int(self.alignment() | Qt.AlignmentFlag.AlignVCenter), self.shown_text())
        painter.end()

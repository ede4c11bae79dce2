"""A tool button that opens its menu at once (InstantPopup) with room for the menu arrow the style draws.

Fusion draws an instant-popup tool button's menu arrow in its bottom-right corner, but QToolButton's size hint
counts the arrow only for MenuButtonPopup: the arrow sits on the last letter ("Export⌄", "Tabs ▾⌄", "Dev metrics⌄")
and the Attention page's Export button reads as cut at the edge.
explorer.ui.shell.layout_check counts the arrow for such buttons, so a plain QToolButton is reported.
"""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QStyle, QToolButton


class MenuToolButton(QToolButton):
    """A QToolButton in InstantPopup mode whose size hint includes the style's menu arrow (PM_MenuButtonIndicator)
    beside the text (QToolButton's minimum size hint is its size hint)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)

    def _arrow(self) -> int:
        return self.style().pixelMetric(QStyle.PixelMetric.PM_MenuButtonIndicator, None, self)

    def sizeHint(self) -> QSize:   # noqa: N802 - Qt's name
        hint = super().sizeHint()
        return QSize(hint.width() + self._arrow(), hint.height())

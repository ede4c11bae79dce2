"""A button in the status bar that offers one action ("2 run(s) of cv-x were queued and never started: Queue them
again"), a button rather than a message the next one would replace. The status bar's permanent widgets set the
window's minimum width, so a long offer (several groups named) made the window wider than a 1280-px screen and
kept it there. This button asks for its whole text but gives way down to OFFER_MIN_PX, its text elided in the
middle to the width it gets (the action at its end stays), whole in its tooltip."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QPushButton, QSizePolicy

__all__ = ["OFFER_MIN_PX", "OfferButton", "offer_button"]

OFFER_MIN_PX = 160   # the narrowest an offer gets: its action's words still read
_PADDING = 24        # a push button's frame and margins around its text


class OfferButton(QPushButton):
    """A push button whose ``whole`` text shows elided in the middle when the status bar gives it less room."""

    def __init__(self, whole: str):
        super().__init__(whole)
        self.whole = whole
        # a push button's width policy is Minimum (its size hint is its least width): Preferred lets it give way
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(self.fontMetrics().horizontalAdvance(self.whole) + _PADDING, super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(min(OFFER_MIN_PX, self.sizeHint().width()), super().minimumSizeHint().height())

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        room = max(0, self.width() - _PADDING)
        fm = self.fontMetrics()
        # elidedText measures in fractions of a pixel and cut a text given exactly its (rounded) advance
        whole = room >= fm.horizontalAdvance(self.whole)
        self.setText(self.whole if whole else fm.elidedText(self.whole, Qt.TextElideMode.ElideMiddle, room))


def offer_button(text: str, tip: str, name: str) -> OfferButton:
    """A status-bar OfferButton for ``text`` (the whole of it leads its tooltip, then ``tip``); ``name``: its
    objectName."""
    button = OfferButton(text)
    button.setObjectName(name)
    button.setToolTip(f"{text}. {tip}")
    return button

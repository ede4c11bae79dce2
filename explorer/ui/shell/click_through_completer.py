"""A QCompleter whose popup never swallows a click, and whose chosen completion is an edit.

QCompleter's popup grabs the mouse while it is open, and its own event filter answers a press outside the popup by
hiding it and eating the press: after typing in a field that offers completions, the first click on another field,
a check box or a button does nothing, and a person clicks again. A completion clicked in the list is put in the
field with ``setText``, which does not emit ``textEdited``, so a form that reads its fields on ``textEdited`` keeps
the typed prefix.

:class:`ClickThroughCompleter` hides the popup on such a press and hands the press on to the widget under the
mouse (Qt's own replay is turned off, so the press arrives once), and emits the field's ``textEdited`` for a
completion chosen from the list. A handed-on press is not one the window system sent, and Qt moves the keyboard
focus only on those: the clicked widget (or the first parent that takes focus by click) is given the focus here,
after the popup's hiding gave it back to the completing field. Without it, on a real X server, the click on the
next field showed no cursor there and the text typed next went on into the completing field.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPoint, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication, QCompleter, QLineEdit


class ClickThroughCompleter(QCompleter):
    """A popup completer over ``words`` for ``field`` (set as its completer): a click outside the open popup
    reaches the widget under the mouse; a completion chosen from the list is a ``textEdited`` of the field."""

    def __init__(self, words: list[str], field: QLineEdit):
        super().__init__(words, field)
        self.field = field
        field.setCompleter(self)
        self.popup().setAttribute(Qt.WidgetAttribute.WA_NoMouseReplay, True)   # the press is handed on here
        self.popup().installEventFilter(self)   # installed after QCompleter's own filter: seen before it
        self.activated[str].connect(self._chosen)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt API
        if watched is self.popup() and event.type() == QEvent.Type.MouseButtonPress and self.popup().isVisible():
            where = event.globalPosition().toPoint()
            if not self.popup().geometry().contains(where):
                self.popup().hide()
                self._hand_on(event, where)
                return True
        return super().eventFilter(watched, event)

    @staticmethod
    def _hand_on(event: QMouseEvent, where: QPoint) -> None:
        """The press, to the widget under the mouse now that the popup is hidden (its release follows there), and
        the keyboard focus to it as a click gives it (the focus policy of it or its first parent that takes it)."""
        target = QApplication.widgetAt(where)
        if target is None:
            return
        focus = target
        while focus is not None and not (focus.isEnabled() and focus.focusPolicy() & Qt.FocusPolicy.ClickFocus):
            focus = None if focus.isWindow() else focus.parentWidget()
        if focus is not None:
            focus.setFocus(Qt.FocusReason.MouseFocusReason)
        local = target.mapFromGlobal(where)
        press = QMouseEvent(QEvent.Type.MouseButtonPress, local, event.globalPosition(), event.button(),
                            event.buttons(), event.modifiers())
        QApplication.sendEvent(target, press)

    def _chosen(self, text: str) -> None:
        """A completion taken from the list: the field's text is set; say it as an edit of the field."""
        self.field.textEdited.emit(text)

"""Wrapped tooltips, app-wide: Qt shows a plain-text tooltip on one line (1,000 px and more, off the
screen), and word-wraps rich text at about 80 characters. :func:`rich_tooltip` turns plain text into
such rich text (line breaks kept); :class:`TooltipWrapper`, installed on the QApplication, shows every
widget's plain tooltip that way when it pops up, so no call site has to remember it. The widgets'
``toolTip()`` stays as it was set (code that reads or extends it sees its own text). Item models and
tab bars (whose tooltips are not widget properties) call :func:`rich_tooltip` where they set them.
"""

from __future__ import annotations

import html
from contextlib import contextmanager

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import Qt as QtGuiNamespace
from PySide6.QtWidgets import QApplication, QToolTip, QWidget

from explorer.ui.shell.wheel_guard import wheel_to_form

WRAP_AT = 70   # characters; shorter single-line tips stay plain


def rich_tooltip(text: str | None) -> str:
    """Plain text -> rich text that Qt word-wraps (about 80 characters wide), line breaks kept.

    Rich text (anything Qt.mightBeRichText accepts), empty and short one-line texts come back unchanged.
    """
    if not text or might_be_rich(text):
        return text or ""
    if len(text) <= WRAP_AT and "\n" not in text:
        return text
    return "<p style='white-space:pre-wrap'>" + html.escape(text, quote=False) + "</p>"


def might_be_rich(text: str) -> bool:
    """Qt's own test (QtGui's Qt.mightBeRichText) where the binding has it, else a leading tag."""
    test = getattr(QtGuiNamespace, "mightBeRichText", None)
    if test is not None:
        return bool(test(text))
    return text.lstrip().startswith("<") and ">" in text


class TooltipWrapper(QObject):
    """Event filter: a widget's plain-text tooltip pops up as wrapped rich text (the property is untouched); a wheel
    over an unfocused spin box or combo box in a scroll area scrolls the area (shell.wheel_guard.wheel_to_form)."""

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt API
        # the app's one Python event filter (each one costs every event a call): the form wheel guard rides on it
        if wheel_to_form(obj, event):
            return True
        if event.type() == QEvent.Type.ToolTip and isinstance(obj, QWidget):
            tip = obj.toolTip()
            wrapped = rich_tooltip(tip)
            if tip and wrapped != tip:
                QToolTip.showText(event.globalPos(), wrapped, obj)
                return True
        return False


def install_tooltip_wrapper(app: QApplication) -> TooltipWrapper:
    """Install one TooltipWrapper on ``app`` (idempotent); returns it."""
    existing = getattr(app, "_tooltip_wrapper", None)
    if existing is not None:
        return existing
    wrapper = TooltipWrapper(app)
    app.installEventFilter(wrapper)
    app._tooltip_wrapper = wrapper   # keep the Python object alive with the app
    return wrapper


@contextmanager
def tooltip_wrapper_paused():
    """The app's TooltipWrapper out of the event path meanwhile (no tooltip can show while the GUI thread builds
    widgets, and the filter, in Python, sees each of their events: a third of a page's build)."""
    app = QApplication.instance()
    wrapper = getattr(app, "_tooltip_wrapper", None) if app is not None else None
    if wrapper is None:
        yield
        return
    app.removeEventFilter(wrapper)
    try:
        yield
    finally:
        app.installEventFilter(wrapper)

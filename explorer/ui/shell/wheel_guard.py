"""The wheel scrolls a form, never a closed drop-down or number box the pointer passes over (app-wide).

Scrolling a form with the mouse wheel turned the spin box or combo box that passed under the pointer (Evaluate
every changed without being asked). :func:`wheel_to_form` is called by the app's one application-wide event filter
(shell.tooltips.TooltipWrapper): a wheel event on a spin box or combo box that has no keyboard focus goes to the
scroll area around it, which scrolls; a box with focus (clicked or reached with Tab) takes the wheel as usual.
Such boxes are made to take focus by click or Tab only (StrongFocus), never by the wheel itself."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QAbstractScrollArea, QAbstractSpinBox, QApplication, QComboBox, QWidget


def _box_of(obj) -> QWidget | None:
    """The spin box or combo box ``obj`` is, or is the editor of, else None."""
    if isinstance(obj, (QAbstractSpinBox, QComboBox)):
        return obj
    parent = obj.parentWidget() if isinstance(obj, QWidget) else None
    return parent if isinstance(parent, (QAbstractSpinBox, QComboBox)) else None


def _scroll_area_of(widget: QWidget) -> QAbstractScrollArea | None:
    """The nearest scroll area around ``widget``, else None."""
    parent = widget.parentWidget()
    while parent is not None and not isinstance(parent, QAbstractScrollArea):
        parent = parent.parentWidget()
    return parent


def wheel_to_form(obj, event) -> bool:
    """Handle ``event`` (any event, on ``obj``) when it is a wheel over an unfocused spin box or combo box inside a
    scroll area: sent to that scroll area instead (its value stays); whether it was handled."""
    if event.type() != QEvent.Type.Wheel:
        return False
    box = _box_of(obj)
    if box is None:
        return False
    if box.focusPolicy() == Qt.FocusPolicy.WheelFocus:
        box.setFocusPolicy(Qt.FocusPolicy.StrongFocus)   # the wheel never gives it focus, and so its value
    if box.hasFocus():
        return False
    area = _scroll_area_of(box)
    if area is None:
        return False
    QApplication.sendEvent(area.viewport(), event)
    event.accept()
    return True

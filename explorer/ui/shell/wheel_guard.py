"""The wheel scrolls a form, never a closed drop-down or number box the pointer passes over.

Scrolling a form with the mouse wheel turned the spin box or combo box that passed under the pointer (Evaluate
every changed without being asked). Two strengths, one rule for where the wheel goes (the nearest scroll area
around the box, which scrolls):

* app-wide, :func:`wheel_to_form`, called by the app's one application-wide event filter
  (shell.tooltips.TooltipWrapper): a box without keyboard focus hands the wheel to its scroll area; a box with
  focus (clicked or reached with Tab) takes the wheel as usual;
* strict, :func:`guard_wheel`, for the settings forms (the Launch form, the probe panel): the wheel never turns
  the box, focused or not (Tab, then a scroll, changed Precision to "fp16 (CUDA)" on a CPU machine); values
  change by click, keys and the arrows.

Guarded boxes take focus by click or Tab only (StrongFocus), never by the wheel itself."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
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


def _to_scroll_area(box: QWidget, event) -> bool:
    """Send the wheel ``event`` over ``box`` to the scroll area around it (handed on explicitly: a wheel event Qt
    does not propagate, or one a parent widget accepts, would otherwise scroll nothing); whether there was one."""
    area = _scroll_area_of(box)
    if area is None:
        return False
    QApplication.sendEvent(area.viewport(), event)
    event.accept()   # scrolled once: not again by the parents
    return True


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
    return _to_scroll_area(box, event)


class _StrictWheelGuard(QObject):
    """The event filter of :func:`guard_wheel`: every wheel over the box goes to its scroll area, focused or not."""

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt API
        if event.type() != QEvent.Type.Wheel:
            return False
        if not _to_scroll_area(obj, event):
            event.ignore()   # no scroll area: the parents may use it, the box does not
        return True


_STRICT_GUARD: _StrictWheelGuard | None = None


def guard_wheel(widget: QWidget) -> None:
    """Make the wheel never turn ``widget`` (a QComboBox or spin box), focused or not, and make it take focus by
    click or Tab only: scrolling over it scrolls the form around it."""
    global _STRICT_GUARD
    if _STRICT_GUARD is None:
        _STRICT_GUARD = _StrictWheelGuard()
    widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
    widget.installEventFilter(_STRICT_GUARD)

"""Work spread over event-loop turns with the paints in between.

``QTimer.singleShot(0, fn)`` posts an event that Qt delivers before a paint already asked for (paints are posted
with a low priority): two such "turns" ran back to back and were then painted together, one long stall. A QTimer
object with a 0 ms interval fires once the queued events, the paint included, are done. :func:`after_paint` uses
one; a view that restarts its own such timer (explorer.ui.inspectors.attention_view) gets the same order and runs
once for a quick series of changes.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QProgressBar


def zero_timer(parent: QObject, slot: Callable[[], None]) -> QTimer:
    """A single-shot 0 ms QTimer owned by ``parent`` calling ``slot``: ``start()`` runs it after the pending paints
    (restarting a started one runs ``slot`` once)."""
    timer = QTimer(parent)
    timer.setSingleShot(True)
    timer.setInterval(0)
    timer.timeout.connect(slot)
    return timer


def after_paint(context: QObject, fn: Callable[[], None], turns: int = 1) -> QTimer:
    """Call ``fn`` in a later event-loop turn, after the paints already asked for; ``turns`` 2: one turn later still
    (after the second turn of a view that has just started its own 0 ms timer: timers due together run in one
    pass, with no paint or input between them). The timer belongs to ``context``: deleted with it, ``fn`` is not
    called. Returns the first (started) timer."""
    if turns > 1:
        return after_paint(context, lambda: after_paint(context, fn, turns - 1))
    timer = zero_timer(context, fn)
    timer.timeout.connect(timer.deleteLater)
    timer.start()
    return timer


class PaintLaterProgressBar(QProgressBar):
    """A QProgressBar whose new value is painted with the turn's other paints: QProgressBar.setValue repaints the bar
    at once (QWidget::repaint, a paint pass of its own inside the caller's turn; 13 ms of the turn that showed the
    first τ study)."""

    def setValue(self, value: int) -> None:  # noqa: N802 - Qt's name
        """Set the value; the bar asks for a paint (update) instead of painting now."""
        if not self.updatesEnabled():
            super().setValue(value)
            return
        self.setUpdatesEnabled(False)
        try:
            super().setValue(value)
        finally:
            self.setUpdatesEnabled(True)   # and update(): painted in this turn's paint

"""The Qt pieces of one curve plot: the PlotWidget whose plain wheel scrolls the page (Ctrl+wheel zooms), its
ViewBox, and the listener that has each plot's scene changes painted once (explorer.ui.curves.plot.PlotPanel uses
them)."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtWidgets import QAbstractScrollArea, QApplication


def scene_changed(_rects) -> None:
    """Connected to each plot scene's ``changed`` signal, for its side effect. A QGraphicsScene that nobody
    listens to sends its items' updates straight to its view, and then (in a queued call, one per scene) has
    the window paint at once everything pending: after a full redraw of N plots the first scene's call paints
    all N and each other scene's call paints its plot again (2N - 1 paints). With a listener the views get
    the changes as ordinary updates, and the next paint of the window draws each plot once."""


class PageScrollPlotWidget(pg.PlotWidget):
    """A PlotWidget that hands a plain wheel to the scroll area it sits in (the page scrolls) and lets
    Ctrl+wheel zoom. Forwarded explicitly: Qt propagates only spontaneous wheel events to parents.

    Signals:
        left(): the pointer left the widget (its crosshair readout should go).
    """

    left = Signal()

    def updateMatrix(self, propagate=True):  # noqa: N802 - pyqtgraph API
        """pyqtgraph's, and the scene's own rect follows the view's. A scene with no rect of its own grows one
        from all its items' bounding rects whenever an item's geometry changed and a listener of its ``changed``
        signal is told (PlotPanel listens): a bounding rect asked of every curve, axis and label each refresh."""
        super().updateMatrix(propagate)
        scene = self.scene()   # None while pyqtgraph's __init__ runs
        if scene is not None and self.range != getattr(self, "_pinned", None):
            self._pinned = QRectF(self.range)
            scene.setSceneRect(self._pinned)

    def leaveEvent(self, ev):  # noqa: N802 - Qt API
        self.left.emit()
        super().leaveEvent(ev)

    def wheelEvent(self, ev):  # noqa: N802 - Qt API
        if ev.modifiers() & Qt.KeyboardModifier.ControlModifier:
            super().wheelEvent(ev)
            return
        parent = self.parentWidget()
        while parent is not None and not isinstance(parent, QAbstractScrollArea):
            parent = parent.parentWidget()
        if parent is None:
            ev.ignore()
            return
        QApplication.sendEvent(parent.verticalScrollBar(), ev)
        ev.accept()


class WheelPassViewBox(pg.ViewBox):
    """A ViewBox whose wheel zooms only with Ctrl held; a plain wheel goes on to the scroll area."""

    def wheelEvent(self, ev, axis=None):  # noqa: N802 - pyqtgraph API
        if not (ev.modifiers() & Qt.KeyboardModifier.ControlModifier):
            ev.ignore()
            return
        super().wheelEvent(ev, axis)

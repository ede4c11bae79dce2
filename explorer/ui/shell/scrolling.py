"""A page part that scrolls inside its page instead of making the window larger than the screen."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtWidgets import QAbstractScrollArea, QApplication, QFrame, QGraphicsView, QScrollArea, QWidget


class _VerticalScroll(QScrollArea):
    """A scroll area that scrolls up and down only: it asks for its widget's minimum width (plus the scroll
    bar), so the splitter or layout around it gives that width instead of clipping the right of the contents
    (Spans & τ at 1280x800 beside a wide Runs dock: the n-best table and the decision cut)."""

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        hint = super().minimumSizeHint()
        widget = self.widget()
        if widget is None:
            return hint
        width = widget.minimumSizeHint().expandedTo(widget.minimumSize()).width()
        return QSize(width + self.verticalScrollBar().sizeHint().width() + 2 * self.frameWidth(), hint.height())


def scrolling(widget: QWidget, *, horizontal: bool = True) -> QScrollArea:
    """``widget`` in a frameless, resizable QScrollArea: as large as the room when there is room, scrolled
    when there is not, so its minimum size never reaches the window's (the Tag page's tabs, Spans & τ's panes,
    the data preview's notes). ``horizontal`` False: no horizontal scroll bar (the
    contents wrap to the width instead)."""
    area = QScrollArea() if horizontal else _VerticalScroll()
    area.setWidget(widget)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    if not horizontal:
        area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    return area


class _WheelToPage(QObject):
    """An event filter on plot viewports: a plain wheel scrolls the page (the nearest scroll area around the plot
    that is not itself a plot; none: it does nothing); Ctrl+wheel goes on to the plot, which zooms."""

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt API
        if event.type() != QEvent.Type.Wheel or event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            return False
        area = page_scroll_area(obj)
        if area is not None:
            QApplication.sendEvent(area.verticalScrollBar(), event)
        return True   # a plot with no scroll area around it (the Attention page's token map) keeps its zoom


def page_scroll_area(widget: QWidget) -> QAbstractScrollArea | None:
    """The nearest scroll area around ``widget`` that is not a graphics view (a plot is one), or None."""
    parent = widget.parentWidget()
    while parent is not None and (isinstance(parent, QGraphicsView) or not isinstance(parent, QAbstractScrollArea)):
        parent = parent.parentWidget()
    return parent


class _WheelOnAtEnd(QObject):
    """An event filter on an inner scroll area's viewport: the wheel scrolls the inner area while it can move that
    way; at its end (or always, when it has nothing to scroll) the wheel scrolls the page around it instead."""

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt API
        if event.type() != QEvent.Type.Wheel or event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            return False
        dy = event.angleDelta().y() or event.pixelDelta().y()
        inner = obj.parentWidget()
        if dy == 0 or not isinstance(inner, QAbstractScrollArea):
            return False
        bar = inner.verticalScrollBar()
        if (bar.value() > bar.minimum()) if dy > 0 else (bar.value() < bar.maximum()):
            return False                       # the inner area can still move this way: it scrolls
        outer = page_scroll_area(inner)
        if outer is None:
            return False
        QApplication.sendEvent(outer.verticalScrollBar(), event)
        return True


def wheel_passes_to_page_at_end(inner: QAbstractScrollArea) -> None:
    """The mouse wheel over ``inner`` (a small scroll area inside a scrolling page: the Attention page's
    question -> passage lines) scrolls ``inner`` until it reaches its end that way, then the page, so the parts
    below it stay reachable by wheel; Ctrl+wheel is left to ``inner``."""
    filt = _WheelOnAtEnd(inner)
    inner.viewport().installEventFilter(filt)


def wheel_scrolls_page(page: QWidget) -> int:
    """On a page that scrolls, a plain mouse wheel over any of its plots (QGraphicsViews: pyqtgraph's) scrolls
    the page and Ctrl+wheel zooms the plot, as in most applications (the wheel over the Attention page's heat
    map must scroll on, not zoom it). Call once the plots exist; a plot added later needs
    another call (a view already handled is skipped). Returns the number of plots newly handled."""
    filt = page.findChild(_WheelToPage, "wheelToPage") or _WheelToPage(page)
    filt.setObjectName("wheelToPage")
    done = 0
    for view in page.findChildren(QGraphicsView):
        viewport = view.viewport()
        if viewport.property("wheelToPage"):
            continue
        viewport.installEventFilter(filt)
        viewport.setProperty("wheelToPage", True)
        done += 1
    return done

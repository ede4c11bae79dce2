"""Panes side by side where each gets its readable width, tabs of the whole width where they do not.

Two plots side by side in a narrow pane share its width: the Attention page's head importance map beside its
pruning curve got 235 px each at 1280x800, the map's data area 71 px for all the heads of a layer. As tabs each gets
the whole width (one click away); side by side again once the width holds every pane's minimum. The arrangement
depends on the width only, so switching never changes what decides it.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QSplitter, QTabWidget, QVBoxLayout, QWidget


class PanesOrTabs(QWidget):
    """``add(widget, title, min_width)`` panes; side by side in a splitter while ``width()`` holds every pane's
    ``min_width`` (and the handles), else each a tab of ``tabs``. ``tabbed`` tells which; the tab shown stays
    shown across a switch."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.split = QSplitter(Qt.Orientation.Horizontal)
        self.split.setChildrenCollapsible(False)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.hide()
        self._panes: list[tuple[QWidget, str, int]] = []
        self.tabbed = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.split)
        layout.addWidget(self.tabs)

    def add(self, widget: QWidget, title: str, min_width: int) -> None:
        """One more pane: its tab's ``title`` and the width (px) it needs side by side."""
        self._panes.append((widget, title, min_width))
        if self.tabbed:
            self.tabs.addTab(widget, title)
        else:
            self.split.addWidget(widget)

    def side_by_side_width(self) -> int:
        """The width every pane needs side by side: their minimum widths and the handles between them."""
        return (sum(w for _p, _t, w in self._panes) + self.split.handleWidth() * max(len(self._panes) - 1, 0))

    def set_tabbed(self, tabbed: bool) -> None:
        """Tabs (``tabbed``) or side by side."""
        if tabbed == self.tabbed:
            return
        self.tabbed = tabbed
        if tabbed:
            for widget, title, _w in self._panes:
                self.tabs.addTab(widget, title)
            self.split.hide()
            self.tabs.show()
        else:
            shown = self.tabs.currentIndex()
            for widget, _t, _w in self._panes:
                self.tabs.removeTab(self.tabs.indexOf(widget))
                self.split.addWidget(widget)
                widget.show()
            self.tabs.hide()
            self.split.show()
            self.tabs.setCurrentIndex(max(shown, 0))
        self.updateGeometry()

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        """The widest pane's minimum width (the panes can always go into tabs); the tallest pane's height."""
        widths = [w for _p, _t, w in self._panes] or [0]
        heights = [max(p.minimumSizeHint().height(), p.minimumHeight()) for p, _t, _w in self._panes] or [0]
        extra = self.tabs.tabBar().sizeHint().height() if self.tabbed else 0
        return QSize(max(widths), max(heights) + extra)

    def share(self) -> None:
        """Side by side: any width above the panes' minimum widths goes to each in proportion to its minimum (an
        equal split left the map under its minimum beside a curve that needs less)."""
        room = self.split.width() - self.split.handleWidth() * max(len(self._panes) - 1, 0)
        need = sum(w for _p, _t, w in self._panes)
        if room > 0 and need:
            self.split.setSizes([room * w // need for _p, _t, w in self._panes])

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self.set_tabbed(event.size().width() < self.side_by_side_width())
        super().resizeEvent(event)
        if not self.tabbed and any(p.width() < w for p, _t, w in self._panes):
            self.split.resize(event.size().width(), self.split.height())
            self.share()

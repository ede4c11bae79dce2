"""The main window's tabs as buttons in rows that wrap: every tab in view at 1280 px, none behind scroll arrows.

A QTabBar keeps one row: at 1280x800 beside the Runs dock thirteen pages need about 1,150 px of its 780, so "Tag:"
was cut, the rest sat behind scroll arrows, and opening a Predictions page scrolled the bar so that the next
click landed on another tab. :class:`RowTabWidget` is a QTabWidget whose own bar is hidden; :class:`TabRows` shows
one button per tab in a :class:`~explorer.ui.shell.flow_layout.FlowLayout` (a second row when one does not fit),
a new tab at the end, so the others never move. A tab's close button (the Predictions pages') is offered beside
its button. The QTabWidget stays the model: titles, tooltips, the current page and the pages' order.
"""

from __future__ import annotations

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QAbstractButton, QHBoxLayout, QTabBar, QTabWidget, QToolButton, QVBoxLayout, QWidget

from explorer.ui.shell.flow_layout import FlowLayout

__all__ = ["RowTabWidget", "TabRows"]


class RowTabWidget(QTabWidget):
    """A QTabWidget that says when its tabs change (``tabs_changed``) and hides its one-row bar."""

    tabs_changed = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.tabBar().hide()

    def tabInserted(self, index: int) -> None:  # noqa: N802 - Qt's name
        super().tabInserted(index)
        self.tabs_changed.emit()

    def tabRemoved(self, index: int) -> None:  # noqa: N802 - Qt's name
        super().tabRemoved(index)
        self.tabs_changed.emit()


class TabRows(QWidget):
    """Above ``tabs`` (a RowTabWidget): a button per tab, checked for the current one, in rows that wrap, and
    ``trailing`` (the "Tabs ▾" list) at the end. ``buttons``: the tab buttons in tab order (rebuilt one event-loop
    turn after a tab is added or removed, when its tooltip and close button are set too)."""

    def __init__(self, tabs: RowTabWidget, trailing: QWidget | None = None, parent=None):
        super().__init__(parent)
        self.tabs, self.trailing = tabs, trailing
        self.buttons: list[QToolButton] = []
        self._cells: list[QWidget] = []
        self.flow = FlowLayout(self, spacing=2)
        self.flow.setContentsMargins(4, 2, 4, 0)
        self._refresh = QTimer(self, singleShot=True, interval=0)
        self._refresh.timeout.connect(self.rebuild)
        tabs.tabs_changed.connect(self._refresh.start)
        tabs.currentChanged.connect(self._check_current)
        self.rebuild()

    def rebuild(self) -> None:
        """One button per tab (title, tooltip, close button), the current one checked."""
        for cell in self._cells:
            self.flow.removeWidget(cell)
            cell.deleteLater()
        if self.trailing is not None:
            self.flow.removeWidget(self.trailing)
        self.buttons, self._cells = [], []
        bar = self.tabs.tabBar()
        for i in range(self.tabs.count()):
            cell = QWidget(self)
            row = QHBoxLayout(cell)
            row.setContentsMargins(0, 0, 0, 0)
            row.setSpacing(0)
            button = QToolButton(cell)
            button.setObjectName("tabRowButton")
            button.setText(self.tabs.tabText(i))
            button.setToolTip(self.tabs.tabToolTip(i))
            button.setCheckable(True)
            button.setChecked(i == self.tabs.currentIndex())
            # by position, not by page: a lazy page's placeholder is replaced by the built page at the same index
            button.clicked.connect(lambda _=False, b=button: self._show_at(self.buttons.index(b)))
            row.addWidget(button)
            close = bar.tabButton(i, QTabBar.ButtonPosition.RightSide)
            if isinstance(close, QAbstractButton):   # the page's own close button, clicked from here
                shown = QToolButton(cell)
                shown.setObjectName("tabRowClose")
                shown.setText(close.text() or "×")
                shown.setToolTip(close.toolTip())
                shown.setAutoRaise(True)
                shown.clicked.connect(close.click)
                row.addWidget(shown)
            self.flow.addWidget(cell)
            self.buttons.append(button)
            self._cells.append(cell)
        if self.trailing is not None:
            self.flow.addWidget(self.trailing)
        self.updateGeometry()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        """Rows that wrap to a third row must not push the window past the screen: the pages give way
        (explorer.ui.shell.screen_fit.ScreenGuard on the window)."""
        super().showEvent(event)
        if self.window() is not self:
            from explorer.ui.shell.screen_fit import guard_screen

            guard_screen(self.window(), self.tabs)

    def _show_at(self, index: int) -> None:
        self.tabs.setCurrentIndex(index)
        self._check_current()

    def _check_current(self, *_args) -> None:
        current = self.tabs.currentIndex()
        for i, button in enumerate(self.buttons):
            button.setChecked(i == current)


def tabs_with_rows(tabs: RowTabWidget, trailing: QWidget | None = None) -> tuple[QWidget, TabRows]:
    """(a widget holding the tab rows above ``tabs``, the rows)."""
    holder = QWidget()
    layout = QVBoxLayout(holder)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(0)
    rows = TabRows(tabs, trailing, holder)
    layout.addWidget(rows)
    layout.addWidget(tabs, 1)
    return holder, rows

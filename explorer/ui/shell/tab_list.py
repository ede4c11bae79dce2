"""A "Tabs ▾" button at the right end of the main window's tab bar: every tab in one menu.

At 1280x800 the tab bar shows about eight of the thirteen tabs (more with Predictions pages) and hides the rest
behind its scroll arrows (Groups, Compare, Explain, Embeddings and Predictions would be found only by
scrolling). Shorter titles cannot close a gap of 300+ px without making names unclear, and a second row of tabs
is not Qt's style, so the tab widget's corner holds this button: one click lists every tab (the current one
ticked), another opens it. The View menu lists the fixed tabs too, with Ctrl+1... .
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QTabWidget

from explorer.ui.shell.menu_button import MenuToolButton


class TabList(MenuToolButton):
    """The corner button of ``tabs``: its menu is rebuilt from the tabs each time it opens."""

    def __init__(self, tabs: QTabWidget):
        super().__init__(tabs)
        self.tabs = tabs
        self.setText("Tabs ▾")
        self.setToolTip("Every tab, also those scrolled out of the tab bar (View menu: Ctrl+1, Ctrl+2, …)")
        self.setAutoRaise(True)
        self.setMenu(QMenu(self))
        self.menu().aboutToShow.connect(self.fill)
        tabs.setCornerWidget(self, Qt.Corner.TopRightCorner)

    def fill(self) -> list[QAction]:
        """The menu's actions: one per tab, in tab order, the current one checked; returns them."""
        menu = self.menu()
        menu.clear()
        out = []
        for i in range(self.tabs.count()):
            act = menu.addAction(self.tabs.tabText(i))   # "Spans && τ": an action reads "&&" as "&", as a tab
            act.setCheckable(True)
            act.setChecked(i == self.tabs.currentIndex())
            act.triggered.connect(lambda _=False, i=i: self.tabs.setCurrentIndex(i))
            out.append(act)
        return out

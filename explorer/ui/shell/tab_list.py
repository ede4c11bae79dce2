"""A "Tabs ▾" button at the end of the main window's tab rows (explorer.ui.shell.tab_rows): every tab in one menu,
the current one ticked; another click opens the one chosen. The View menu lists the fixed tabs too, with Ctrl+1... .
"""

from __future__ import annotations

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QTabWidget

from explorer.ui.shell.menu_button import MenuToolButton


class TabList(MenuToolButton):
    """The corner button of ``tabs``: its menu is rebuilt from the tabs each time it opens."""

    def __init__(self, tabs: QTabWidget):
        super().__init__(tabs)
        self.tabs = tabs
        self.setText("Tabs ▾")
        self.setToolTip("Every tab in one list (View menu: Ctrl+1, Ctrl+2, …)")
        self.setAutoRaise(True)
        self.setMenu(QMenu(self))
        self.menu().aboutToShow.connect(self.fill)

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

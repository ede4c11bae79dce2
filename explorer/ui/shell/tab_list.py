"""A "Tabs ▾" button at the end of the main window's tab rows (explorer.ui.shell.tab_rows): every tab in one menu,
the current one ticked; another click opens the one chosen. When some tabs' buttons do not fit the rows it counts
them: "Tabs (+3) ▾". The View menu lists the fixed tabs too, with Ctrl+1... .
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
        self.show_hidden(0)
        self.setAutoRaise(True)
        self.setMenu(QMenu(self))
        self.menu().aboutToShow.connect(self.fill)

    @staticmethod
    def label(hidden: int) -> str:
        """The button's text when ``hidden`` tabs have no button in the rows."""
        return f"Tabs (+{hidden}) ▾" if hidden else "Tabs ▾"

    def show_hidden(self, hidden: int) -> None:
        """Say that ``hidden`` tabs are reached only through this list."""
        self.setText(self.label(hidden))
        more = (f"{hidden} tab{'s' if hidden != 1 else ''} without a button above are here. " if hidden else "")
        self.setToolTip(more + "Every tab in one list (View menu: Ctrl+1, Ctrl+2, …)")

    def widest_hint(self, tabs: int) -> int:
        """This button's width, px, with the longest count it can show for ``tabs`` tabs."""
        text = self.text()
        self.setText(self.label(tabs))
        width = self.sizeHint().width()
        self.setText(text)
        return width

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

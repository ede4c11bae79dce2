"""pyqtgraph's plot context menus, built when first opened instead of with every plot (a faster start-up).

Every pyqtgraph ViewBox builds its right-click menu (ViewBoxMenu: two axis panels of spin boxes, check
boxes and radio buttons) in its constructor, and keeps it in step with every range change through a
signal. The main window holds over forty plots, and building their menus cost about a tenth of building
the window, for menus that are rarely opened. :func:`install` (idempotent; the app calls it on
importing the Curves panel, before any plot exists) has each new ViewBox hold a :class:`LazyViewBoxMenu`
that builds the real menu on first use: ``ViewBox.getMenu`` (the right click), any attribute of the
menu, or its actions for a child item's menu. What the menu shows is read from the view when it is
built, so it is the same menu as before, only later.
"""

from __future__ import annotations

import weakref

_INSTALLED = False


class LazyViewBoxMenu:
    """Stands in for pyqtgraph's ViewBoxMenu of ``view`` until :meth:`real` is needed."""

    def __init__(self, view):
        self._view = weakref.ref(view)
        self._menu = None
        self._views = None   # the last view list pyqtgraph gave (setViewList), applied when built

    @property
    def built(self) -> bool:
        """Whether the real menu exists yet."""
        return self._menu is not None

    def real(self):
        """The ViewBoxMenu (built now on first call)."""
        if self._menu is None:
            from pyqtgraph.graphicsItems.ViewBox.ViewBoxMenu import ViewBoxMenu

            self._menu = ViewBoxMenu(self._view())
            if self._views is not None:
                self._menu.setViewList(self._views)
        return self._menu

    def setViewList(self, views) -> None:  # noqa: N802 - pyqtgraph API
        if self._menu is None:
            self._views = views
        else:
            self._menu.setViewList(views)

    def setParent(self, parent) -> None:  # noqa: N802 - Qt API (ViewBox.setMenuEnabled(False) drops the menu)
        if self._menu is not None:
            self._menu.setParent(parent)

    def __getattr__(self, name):
        return getattr(self.real(), name)


def install() -> None:
    """Have every ViewBox made from now on build its context menu lazily (idempotent)."""
    global _INSTALLED
    if _INSTALLED:
        return
    import importlib
    import sys

    importlib.import_module("pyqtgraph.graphicsItems.ViewBox.ViewBox")
    vb_module = sys.modules["pyqtgraph.graphicsItems.ViewBox.ViewBox"]   # the module (its package exports the class)
    vb_module.ViewBoxMenu = LazyViewBoxMenu
    plain_get_menu = vb_module.ViewBox.getMenu

    def get_menu(self, ev):
        menu = plain_get_menu(self, ev)
        return menu.real() if isinstance(menu, LazyViewBoxMenu) else menu

    vb_module.ViewBox.getMenu = get_menu
    _INSTALLED = True

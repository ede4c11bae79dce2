"""pyqtgraph's plot context menus are built on first use (explorer.ui.lazy_menus), and are then the same
menus as before."""

from __future__ import annotations


def test_a_plot_menu_is_built_on_first_use_and_follows_the_view(qtbot):
    import pyqtgraph as pg
    from pyqtgraph.graphicsItems.ViewBox.ViewBoxMenu import ViewBoxMenu

    from explorer.ui import lazy_menus

    lazy_menus.install()
    lazy_menus.install()   # idempotent
    w = pg.PlotWidget()
    qtbot.addWidget(w)
    vb = w.getPlotItem().getViewBox()
    assert isinstance(vb.menu, lazy_menus.LazyViewBoxMenu) and not vb.menu.built
    vb.setXRange(10, 20, padding=0)
    menu = vb.getMenu(None)   # what a right click opens
    assert isinstance(menu, ViewBoxMenu) and vb.menu.built
    assert "View All" in [a.text() for a in menu.actions()]
    assert menu.view() is vb
    assert vb.getMenu(None) is menu                     # built once
    assert [a.text() for a in vb.getContextMenus(None)] == [a.text() for a in menu.actions()]


def test_a_plot_without_a_menu_never_builds_one(qtbot):
    import pyqtgraph as pg

    from explorer.ui import lazy_menus

    lazy_menus.install()
    w = pg.PlotWidget()
    qtbot.addWidget(w)
    vb = w.getPlotItem().getViewBox()
    lazy = vb.menu
    vb.setMenuEnabled(False)
    assert vb.menu is None and not lazy.built
    vb.setMenuEnabled(True)
    assert vb.getMenu(None) is not None


def test_the_curves_plots_get_lazy_menus(qtbot):
    from helpers import shown_curves_panel

    from explorer.ui import lazy_menus

    w = shown_curves_panel(qtbot, 800, 600)
    menus = [p.plot.getViewBox().menu for p in w.panels.values()]
    assert menus and all(isinstance(m, lazy_menus.LazyViewBoxMenu) and not m.built for m in menus)

"""The mouse wheel over a plot on a page that scrolls: it scrolls the page (explorer.ui.shell.scrolling), and
Ctrl+wheel zooms the plot. A plot added to a page after the page's own plots (the Attention page's Head importance
tab) must follow the same rule, or a person scrolling down to it zooms it out to a dot."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication, QGraphicsView

from explorer.ui.inspectors.registry import pages
from explorer.ui.shell.scrolling import page_scroll_area


def test_every_plot_on_a_page_that_scrolls_passes_the_wheel_to_the_page(qtbot, tmp_path, monkeypatch):
    """Every page of the main window built, at 1280x800: each plot inside a page's scroll area has the wheel
    rule on its viewport (the Curves plots, which scroll their own page, are PageScrollPlotWidgets)."""
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "cache"))
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    w.manager.max_parallel = 0
    w._inspector_opened = True            # no first-visit load of the bundled encoder
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
    w.resize(1280, 800)
    w.show()
    qtbot.waitExposed(w)
    for p in pages():   # every registry page built (they are built when first shown)
        assert w.show_page(p.title) is not None, p.title
        QApplication.processEvents()
    views = [v for v in w.findChildren(QGraphicsView)
             if page_scroll_area(v) is not None and type(v).__name__ != "PageScrollPlotWidget"]
    assert len(views) >= 10, len(views)
    missing = []
    for v in views:
        if not v.viewport().property("wheelToPage"):
            chain, p = [], v
            while p is not None and len(chain) < 5:
                chain.append(type(p).__name__)
                p = p.parentWidget()
            missing.append(" > ".join(chain))
    assert not missing, "plots that zoom on a plain wheel inside a scrolling page:\n" + "\n".join(missing)

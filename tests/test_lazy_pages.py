"""The registry's pages are built when first needed, not in MainWindow(): a pending tab is built when shown,
when code reads the page or what its provider keeps on the window, or by the idle chain after the first paint
(one provider per event-loop turn); a Runs dock group row works before the Groups page exists; the Curves plots
are built on first use too."""

from __future__ import annotations

import sys
import types

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QTimer  # noqa: E402
from PySide6.QtWidgets import QLabel  # noqa: E402

from explorer.ui.inspectors import registry  # noqa: E402
from explorer.ui.inspectors.registry import InspectorPage, Shortcut  # noqa: E402
from explorer.ui.shell.lazy_pages import PendingPage  # noqa: E402

HELP = "A page of this test, built by its own provider when first needed. " * 5
log: list[str] = []   # what the test providers did, in order


def _provider(name: str, titles: tuple[str, ...], fail: bool = False):
    class Pages:
        def __init__(self, window):
            if fail:
                raise RuntimeError(f"{name} is broken")
            log.append(f"build {name}")
            QTimer.singleShot(0, lambda: log.append(f"turn after {name}"))   # runs before the next build?
            self.pages = {t: QLabel(t) for t in titles}

        def first_visit(self, title):
            log.append(f"visit {title}")

        def probe(self):
            log.append("probe")
    return Pages


@pytest.fixture(autouse=True)
def no_preview_children(monkeypatch):
    """The launcher's data previews answer at once (no child process per window: these tests are about pages)."""
    monkeypatch.setattr("explorer.ui.launch.preview.run_preview_process",
                        lambda *_a, **_k: {"ok": True, "records": []})


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    """A main window whose registry holds only three cheap test providers (A: two pages, B, and a broken C)."""
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    log.clear()
    monkeypatch.setattr(registry, "_PAGES", [])
    for name, titles, fail in (("a", ("A1", "A2"), False), ("b", ("B",), False), ("c", ("C",), True)):
        monkeypatch.setitem(sys.modules, f"lazy_test_{name}", types.SimpleNamespace(page_set=_provider(name, titles, fail)))
        for title in titles:
            registry.register_page(InspectorPage(title, HELP, f"lazy_test_{name}:page_set",
                                                 shortcuts=(Shortcut(("Ctrl+Shift+F9",), "probe", "probe"),)))
    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    qtbot.addWidget(w)
    return w


def titles(w) -> list[str]:
    return [w.tabs.tabText(i) for i in range(w.tabs.count())]


def test_nothing_is_built_at_start_and_a_shown_tab_is_built_before_it_is_painted(window):
    w = window
    assert log == [] and titles(w) == ["Launch", "Curves", "A1", "A2", "B", "C"]
    assert all(isinstance(w.tabs.widget(i), PendingPage) for i in range(2, 6))
    tip = w.tabs.tabToolTip(3)
    assert "built by its own provider" in tip
    w.tabs.setCurrentIndex(3)                    # the user clicks A2
    assert log == ["build a", "visit A2"]        # its provider only, then its first visit
    assert w.tabs.currentIndex() == 3 and w.tabs.currentWidget() is w.pages["A2"]
    assert isinstance(w.pages["A2"], QLabel) and w.pages["A2"].text() == "A2"
    assert titles(w)[2:] == ["A1", "A2", "B", "C"] and w.tabs.tabToolTip(3) == tip   # same place, same tooltip
    assert isinstance(w.tabs.widget(4), PendingPage) and not w.lazy_pages.is_built("lazy_test_b:page_set")
    assert "Ctrl+Shift+F9" in {s.key().toString() for s in w.shortcuts}   # its shortcuts bound once built
    w.tabs.setCurrentIndex(2)
    assert log == ["build a", "visit A2", "visit A1"]   # built once


def test_reading_a_page_builds_it_and_a_broken_provider_says_why(window):
    w = window
    assert w.page_sets.built("lazy_test_b:page_set") is None and list(w.pages) == ["A1", "A2", "B", "C"]
    assert log == []                                   # listing builds nothing
    b = w.pages["B"]
    assert log == ["build b"] and w.tabs.widget(4) is b and w.page_sets.built("lazy_test_b:page_set") is not None
    assert w.page_sets.get("lazy_test_c:page_set") is None          # C failed: no page set ...
    assert "Not available: c is broken" in w.pages["C"].findChild(QLabel).text()   # ... and its page names the reason
    assert w.tabs.widget(5) is w.pages["C"] and log == ["build b"]
    assert w.hub is None                                # no QA provider in this registry


def test_after_the_first_paint_the_rest_is_built_one_provider_per_turn(window, qtbot):
    w = window
    w.show()
    qtbot.waitUntil(w.lazy_pages.all_built, timeout=60_000)
    assert log[:3] == ["build a", "turn after a", "build b"]   # the event loop turned between two builds
    assert not any(isinstance(w.tabs.widget(i), PendingPage) for i in range(w.tabs.count()))


def test_a_group_row_opens_the_groups_page_before_it_was_built(qtbot, tmp_path):
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    qtbot.addWidget(w)
    assert not any(w.lazy_pages.is_built(p) for p in registry.providers())   # MainWindow() built no page
    other = tmp_path / "other-runs"
    w.runs_dir = other                                  # the folder changed before the page exists
    w.runs.group_selected.emit("g")
    assert w.lazy_pages.is_built(registry.GROUPS) and w.tabs.currentWidget() is w.groups_tab
    assert w.groups_tab.runs_dir == other               # built with the window's state of now
    assert not w.lazy_pages.is_built(registry.HUB)      # nothing else was built
    assert w.launcher.group_grid is not None            # the launcher's grid queues a group (wired at start)


def test_the_curves_plots_are_built_on_first_use_not_in_the_main_window(qtbot, tmp_path, no_preview_children):
    from PySide6.QtWidgets import QApplication

    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    qtbot.addWidget(w)
    assert not w.curves.plots_built()
    w.tabs.setCurrentWidget(w.curves)
    w.show()                                     # the Curves page shown: built before it is painted
    assert w.curves.plots_built()
    assert "loss" in w.curves.panels and w.curves.grid.indexOf(w.curves.panels["loss"]) >= 0
    other = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s2.ini"), probe_device=False)
    qtbot.addWidget(other)
    other.tabs.setCurrentWidget(other.launcher)
    other.show()
    assert not other.curves.plots_built()
    qtbot.waitExposed(other)
    qtbot.waitUntil(other.curves.plots_built)    # the turn after the window's first paint (prewarm)
    QApplication.processEvents()

"""The inspector page registry (explorer/ui/inspectors/registry.py): every page has help, titles are unique,
checkpoints are routed by their head, and the main window builds its tabs and opens checkpoints from it."""

from __future__ import annotations

import pytest

from explorer.ui.inspectors import registry
from explorer.ui.inspectors.registry import InspectorPage, page, page_for_checkpoint, pages


def test_every_registered_page_has_help_and_a_unique_title():
    titles = [p.title for p in pages()]
    assert len(titles) == len(set(titles)) and len(titles) >= 7
    for p in pages():
        assert len(p.help) > 200, f"{p.plain_title} has no help"
        assert ":" in p.provider, p.provider


def test_checkpoints_are_routed_by_their_head():
    assert page_for_checkpoint("qa").title == registry.SPANS
    assert page_for_checkpoint(None).title == registry.SPANS             # a bare encoder: its head note explains
    assert page_for_checkpoint("classification").title == registry.CLASSIFY_PAGE
    assert page_for_checkpoint("multiple_choice").title == registry.CLASSIFY_PAGE
    assert page_for_checkpoint("masked_lm").title == registry.SPANS      # no page for it: the QA page says so
    assert not page("Groups").is_compatible("qa")
    with pytest.raises(KeyError, match="Compare"):
        page("Settings")


def test_shortcut_rows_name_the_pages_that_bind_them():
    assert ("Ctrl+Return", "Attention, Spans & τ tabs", "probe the question and passage now") in \
        registry.shortcut_rows()


def test_a_registered_page_becomes_a_tab_with_its_help(qtbot, tmp_path, monkeypatch):
    pytest.importorskip("pytestqt")
    from PySide6.QtWidgets import QLabel

    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    class Pages:
        def __init__(self, window):
            self.pages = {"Tokens": QLabel("tokens")}
            self.opened = []

        def open_checkpoint(self, title, path, task, run_config):
            self.opened.append((title, path, task))

    monkeypatch.setattr(registry, "_PAGES", list(registry._PAGES))
    monkeypatch.setitem(__import__("sys").modules, "tests_tokens_page", type("M", (), {"page_set": Pages}))
    registry.register_page(InspectorPage("Tokens", "Token tagging: " + "one label per token. " * 12,
                                         "tests_tokens_page:page_set", heads=("token_classification",)),
                           before="Tag")   # in front of the real Tag page: the first compatible page wins
    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    qtbot.addWidget(w)
    titles = [w.tabs.tabText(i) for i in range(w.tabs.count())]
    assert titles[:2] == ["Launch", "Curves"] and titles[2:] == [p.title for p in pages()]
    assert titles.index("Tokens") == titles.index("Tag") - 1
    assert "one label per token" in w.tabs.tabToolTip(titles.index("Tokens"))
    folder = tmp_path / "ckpt"
    folder.mkdir()
    (folder / "config.json").write_text('{"architectures": ["BertForTokenClassification"]}')
    w.open_checkpoint(str(folder))
    assert w.page_sets["tests_tokens_page:page_set"].opened == [("Tokens", str(folder), "ner")]   # its task: TaskFacts
    assert w.tabs.currentWidget() is w.pages["Tokens"]


def test_f1_help_on_every_page(qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    shown = []
    monkeypatch.setattr(QMessageBox, "information", lambda _parent, title, text: shown.append((title, text)))
    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    qtbot.addWidget(w)
    w._inspector_opened = True      # no first-visit model load
    for i in range(w.tabs.count()):
        w.tabs.setCurrentIndex(i)
        w.help_panel()
    assert len(shown) == w.tabs.count()
    assert all("No help" not in text and len(text) > 100 for _title, text in shown)

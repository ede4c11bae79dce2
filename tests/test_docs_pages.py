"""The README, the changelog and the guide's Markdown pages, without building the site (no Sphinx needed), and
the app's way into the guide: Help → User guide and the link at the end of F1's panel help."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
# the architecture page is rewritten on its own; every other page is checked
PAGES = sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts and p.name != "architecture.md")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def _local_targets(path: Path) -> list[tuple[str, Path]]:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)   # not inside code blocks
    out = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        out.append((target, (path.parent / target.split("#", 1)[0]).resolve()))
    return out


def test_readme_is_short_and_every_link_and_picture_in_it_exists():
    readme = ROOT / "README.md"
    assert len(readme.read_text(encoding="utf-8").splitlines()) < 200
    targets = _local_targets(readme)
    assert any(t.startswith("docs/images/") for t, _ in targets), "one picture"
    assert {"CHANGELOG.md", "docs/getting-started.md", "docs/benchmarks.md"} <= {t.split("#")[0] for t, _ in targets}
    missing = [t for t, p in targets if not p.exists()]
    assert not missing, missing


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_every_link_and_picture_of_a_guide_page_exists(page):
    missing = [t for t, p in _local_targets(page) if not p.exists()]
    assert not missing, f"{page.relative_to(ROOT)}: {missing}"


def test_no_history_in_what_a_reader_reads():
    words = re.compile(r"trial|issue [0-9]|round [0-9]", re.I)
    found = [f"{p.relative_to(ROOT)}:{n}: {line.strip()}"
             for p in [ROOT / "README.md", ROOT / "CHANGELOG.md", *PAGES]
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if words.search(line)]
    assert not found, "\n".join(found)


def test_generated_pages_are_up_to_date():
    from explorer.docs_gen import stale

    assert stale() == [], "regenerate them: python -m explorer.docs_gen"


def test_version_and_the_newest_changelog_entry_agree(capsys):
    from explorer import __version__
    from explorer.cli import main

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    printed = capsys.readouterr().out.strip()
    newest = re.search(r"^## \[(\d+\.\d+\.\d+)\]", (ROOT / "CHANGELOG.md").read_text(encoding="utf-8"), re.M)
    assert newest, "CHANGELOG.md has a '## [x.y.z] - date' entry"
    assert printed == f"bert-explorer {newest.group(1)}" == f"bert-explorer {__version__}"
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'version = { attr = "explorer.__version__" }' in pyproject     # the one place of the version


def _tab_titles() -> list[str]:
    from explorer.ui.inspectors.registry import pages

    return ["Launch", "Curves", *[p.title for p in pages()], "Predictions: new_texts.csv"]


def test_every_tab_has_its_guide_page_with_a_screenshot():
    from explorer.ui.shell.guide import panel_page

    assert panel_page("Spans && τ") == "panels/spans-tau" and panel_page("τ on dev set") == "panels/tau-on-dev-set"
    assert panel_page("Classify: dev set") == "panels/classify-dev-set"
    assert panel_page("Predictions: stance.predictions.csv") == "panels/predictions"
    index = (DOCS / "panels" / "index.md").read_text(encoding="utf-8")
    for title in [*_tab_titles(), "Runs"]:
        page = DOCS / f"{panel_page(title)}.md"
        assert page.is_file(), f"the tab {title!r} has no guide page {page.relative_to(ROOT)}"
        text = page.read_text(encoding="utf-8")
        assert re.search(r"!\[[^\]]+\]\(\.\./images/[^)]+\.png\)", text), f"{page.name} has no screenshot"
        assert f"\n{page.stem}\n" in index, f"{page.name} is not in the panels' table of contents"


def test_guide_page_files_prefer_the_built_site(tmp_path):
    from explorer.ui.shell import guide

    (tmp_path / "panels").mkdir()
    (tmp_path / "panels" / "tag.md").write_text("# Tag\n", encoding="utf-8")
    assert guide.page_file("panels/tag", tmp_path) == tmp_path / "panels" / "tag.md"
    built = tmp_path / "_build" / "html" / "panels" / "tag.html"
    built.parent.mkdir(parents=True)
    built.write_text("<html></html>", encoding="utf-8")
    assert guide.page_file("panels/tag", tmp_path) == built
    assert guide.page_file("panels/none", tmp_path) is None
    assert guide.open_page("index", tmp_path / "nowhere") == guide.NOT_HERE


def test_help_user_guide_and_the_f1_link(qtbot, tmp_path, monkeypatch):
    from PySide6.QtGui import QDesktopServices
    from PySide6.QtWidgets import QMessageBox

    from explorer.ui.shell.guide import page_file
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    opened, shown = [], []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) or True)
    monkeypatch.setattr(QMessageBox, "information", lambda _parent, title, text: shown.append((title, text)))
    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    qtbot.addWidget(w)
    w._inspector_opened = True      # no first-visit model load
    action = next(a for m in w.menuBar().findChildren(type(w.menuBar().addMenu("x"))) for a in m.actions()
                  if a.text() == "&User guide")
    action.trigger()
    assert [u.toLocalFile() for u in opened] == [str(page_file("index"))]
    assert opened[0].isLocalFile() and Path(opened[0].toLocalFile()).name in ("index.html", "index.md")

    titles = [w.tabs.tabText(i) for i in range(w.tabs.count())]
    w.tabs.setCurrentIndex(titles.index("Spans && τ"))
    w.help_panel()
    _title, text = shown[-1]
    assert "null_score + τ" in text                                      # the panel's own help first
    link = re.search(r'More in the user guide: <a href="([^"]+)">the Spans &amp; τ page</a>', text)
    assert link and link.group(1).endswith(("panels/spans-tau.html", "panels/spans-tau.md"))
    assert Path(page_file("panels/spans-tau")).as_uri() == link.group(1)

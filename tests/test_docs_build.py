"""The user guide builds as a site (Sphinx, MyST Markdown, sphinx-argparse, furo) with warnings as errors, offline,
into a temporary folder, and the built pages' links and pictures resolve.

A warning is a broken link to a page or heading, a missing image, a page in no table of contents, or a
generated page that is out of date (docs/conf.py); ``-n`` also reports unresolved references. Skips, saying
why, only where the `docs` extra is not installed (``pip install -e ".[docs]"``; .ci/run installs it).
"""

from __future__ import annotations

import html
import importlib.util
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
NEEDED = {"sphinx": "sphinx", "myst_parser": "myst-parser", "sphinxarg": "sphinx-argparse", "furo": "furo"}


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    missing = [dist for mod, dist in NEEDED.items() if importlib.util.find_spec(mod) is None]
    if missing:
        pytest.skip(f"the docs extra is not installed ({', '.join(missing)} missing): pip install -e \".[docs]\"")
    out = tmp_path_factory.mktemp("site")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               HF_HUB_OFFLINE="1", QT_QPA_PLATFORM="offscreen", PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-W", "--keep-going", "-n", "-q",
                           "-d", str(out / "doctrees"), str(DOCS), str(out / "html")],
                          cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, f"the guide does not build cleanly:\n{proc.stderr[-6000:]}"
    return out / "html"


class _Refs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links, self.images, self.ids = [], [], set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "a" and a.get("href"):
            self.links.append(a["href"])
        if tag == "img" and a.get("src"):
            self.images.append(a["src"])


def _parse(path: Path) -> _Refs:
    refs = _Refs()
    refs.feed(path.read_text(encoding="utf-8"))
    return refs


def test_every_internal_link_and_image_of_the_site_resolves(site):
    pages = {p: _parse(p) for p in site.rglob("*.html")}
    assert len(pages) >= 30
    broken = []
    for page, refs in pages.items():
        for src in refs.images:
            if not urlsplit(src).scheme and not (page.parent / unquote(urlsplit(src).path)).is_file():
                broken.append(f"{page.relative_to(site)}: image {src}")
        for href in refs.links:
            parts = urlsplit(href)
            if parts.scheme or href.startswith("mailto:"):
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                broken.append(f"{page.relative_to(site)}: link {href}")
            elif parts.fragment and target.suffix == ".html":
                refs_t = pages.get(target) or _parse(target)
                if unquote(parts.fragment) not in refs_t.ids:
                    broken.append(f"{page.relative_to(site)}: anchor {href}")
    assert not broken, "\n".join(broken[:40])


def test_the_command_line_reference_lists_every_subcommand_from_the_parser(site):
    from explorer.cli import SUBCOMMANDS, build_parser

    page = (site / "command-line.html").read_text(encoding="utf-8")
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", "", page)).split())     # the words, without markup
    assert len(SUBCOMMANDS) == 17
    for name in SUBCOMMANDS:
        assert f"bert-explorer {name}" in text, f"{name} is missing from the generated reference"
    train = next(a for a in build_parser()._actions if a.dest == "command").choices["train"]   # noqa: SLF001
    flags = [s for a in train._actions for s in a.option_strings if s.startswith("--")]     # noqa: SLF001
    assert flags and all(f in text for f in flags), "every flag of train is in the reference"


def test_every_panel_page_shows_its_screenshot(site):
    pages = sorted((site / "panels").glob("*.html"))
    assert len(pages) >= 16
    for page in pages:
        if page.name != "index.html":
            assert any("_images/" in src for src in _parse(page).images), f"{page.name} shows no screenshot"


def test_the_developer_section_includes_the_architecture(site):
    text = (site / "dev" / "index.html").read_text(encoding="utf-8")
    assert "architecture.html" in text and (site / "architecture.html").is_file()

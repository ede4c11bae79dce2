"""The user guide from inside the app: Help → User guide, and the link at the end of F1's panel help.

The guide is the Sphinx site built from docs/ (``python -m sphinx -b html docs docs/_build/html``). A page
opens as its built HTML when the site has been built here, else as its Markdown source (docs/<page>.md),
which any text viewer or editor shows; the browser or viewer is the desktop's (QDesktopServices).

Each panel has its guide page at docs/panels/<slug>.md, the slug made from the tab title by
:func:`panel_page` ("Spans && τ" -> panels/spans-tau); tests/test_docs_build.py checks that every tab of a
fresh window has one, so a new page without its guide page fails there.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices

from explorer.paths import REPO_ROOT

DOCS = REPO_ROOT / "docs"
INDEX = "index"


def panel_page(title: str) -> str:
    """The guide page of the tab titled ``title``, without suffix ("Spans && τ" -> "panels/spans-tau";
    every "Predictions: <file>" tab -> "panels/predictions"; the Launch tab -> "panels/launch")."""
    plain = title.replace("&&", "&").strip()
    if plain.startswith("Predictions: "):
        plain = "Predictions"
    slug = re.sub(r"[^a-z0-9]+", "-", plain.replace("τ", "tau").lower()).strip("-")
    return f"panels/{slug}"


def page_file(page: str = INDEX, docs: Path | None = None) -> Path | None:
    """The file that shows ``page``: the built HTML if there is one, else the Markdown source, else None
    (a copy of the app installed without its docs/ folder)."""
    docs = Path(docs) if docs is not None else DOCS
    built = docs / "_build" / "html" / f"{page}.html"
    if built.is_file():
        return built
    source = docs / f"{page}.md"
    return source if source.is_file() else None


def page_url(page: str = INDEX, docs: Path | None = None) -> QUrl | None:
    """``page_file`` as a file:// URL, None when the guide is not here."""
    path = page_file(page, docs)
    return QUrl.fromLocalFile(str(path)) if path is not None else None


NOT_HERE = ("The user guide is not in this copy of BERT Explorer: it is the docs/ folder of the source "
            "repository (docs/index.md).")


def open_page(page: str = INDEX, docs: Path | None = None) -> str | None:
    """Open ``page`` in the desktop's browser or viewer; returns None when it opened, else a sentence saying
    why not (for the status bar)."""
    url = page_url(page, docs)
    if url is None:
        return NOT_HERE
    if not QDesktopServices.openUrl(url):
        return f"Could not open {url.toLocalFile()}: no application to show it is set up on this desktop."
    return None


def help_with_link(title: str, text: str, docs: Path | None = None) -> str:
    """F1's panel help as rich text: the help paragraph, then a link to the panel's page of the guide."""
    body = "".join(f"<p>{html.escape(part)}</p>" for part in text.split("\n\n") if part.strip())
    url = page_url(panel_page(title), docs)
    name = html.escape(title.replace("&&", "&").split(": ")[0] if title.startswith("Predictions: ")
                       else title.replace("&&", "&"))
    if url is None:
        return body + f"<p>More in the user guide: docs/{panel_page(title)}.md in the source repository.</p>"
    return body + f'<p>More in the user guide: <a href="{url.toString()}">the {name} page</a>.</p>'

"""Sphinx configuration of the BERT Explorer user guide.

Build it from the repository root (the `docs` extra installs Sphinx, MyST, sphinx-argparse and furo):

    python -m sphinx -b html docs docs/_build/html

Help → User guide in the app opens docs/_build/html/index.html when it exists. tests/test_docs_build.py
builds the site into a temporary folder with warnings as errors.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from explorer import __version__  # noqa: E402

project = "BERT Explorer"
author = "BERT Explorer contributors"
copyright = "BERT Explorer contributors, MIT licence"  # noqa: A001 - Sphinx's name
version = release = __version__

extensions = ["myst_parser", "sphinxarg.ext"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3          # [text](page.md#a-heading) links to headings, checked at build
nitpicky = True
# docs/architecture.md sketches signatures in ```python blocks that are not always valid Python; Pygments
# falls back to plain text for those, which is what a reader needs, so that one message is not an error
suppress_warnings = ["misc.highlighting_failure"]

html_theme = "furo"
html_title = f"BERT Explorer {version}"
html_static_path: list[str] = []
html_show_sourcelink = True
html_copy_source = True


def _check_generated(app) -> None:
    """A generated page (explorer/docs_gen.py) that no longer matches its source is a build warning."""
    from sphinx.util import logging

    from explorer.docs_gen import stale

    log = logging.getLogger(__name__)
    for name in stale(Path(app.srcdir)):
        log.warning(f"{name} is out of date: regenerate it with `python -m explorer.docs_gen`")


def setup(app):
    app.connect("builder-inited", _check_generated)
    return {"parallel_read_safe": True}

"""The inspectors' shared look: block colours, the one-line panel headers, and labels that carry the
project glossary's tooltips (explorer.glossary is the one place for the texts)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel

from explorer.glossary import panel_help, tooltip

BLOCK_COLORS: dict[str, QColor] = {
    "question": QColor(31, 119, 180),
    "passage": QColor(44, 160, 44),
    "special": QColor(127, 127, 127),
}


def block_color(block: str) -> QColor:
    return BLOCK_COLORS.get(block, QColor(127, 127, 127))


def tip(term: str) -> str:
    """The glossary tooltip of a term (standard name or alias: "s_null", "τ", "block flow", ...).
    Raises KeyError listing the known terms when it is not in explorer.glossary."""
    return tooltip(term)


def header(text: str, panel: str | None = None) -> QLabel:
    """The one-line 'what this panel shows' header of a view; its tooltip is the panel's help paragraph."""
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setStyleSheet("color: #555; font-style: italic; padding: 2px;")
    label.setObjectName("panelHeader")
    if panel is not None:
        try:
            label.setToolTip(panel_help(panel))
        except KeyError:
            pass
    return label


def term_label(text: str, term: str) -> QLabel:
    """A label with the glossary tooltip of `term` and a dotted underline hinting at it."""
    label = QLabel(text)
    label.setToolTip(tip(term))
    label.setStyleSheet("text-decoration: underline dotted;")
    return label

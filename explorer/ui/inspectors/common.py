"""The inspectors' shared look: block colours, the one-line panel headers, and labels that carry the
project glossary's tooltips (explorer.glossary is the one place for the texts)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel, QSizePolicy

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


class ReadoutLabel(QLabel):
    """A fixed-height readout of ``lines`` wrapped lines: a longer text is elided ("…") and given whole in
    the tooltip, so a hover readout that grows never moves (re-lays out) the plots around it."""

    def __init__(self, text: str = "", lines: int = 2, parent=None):
        super().__init__(parent)
        self.lines = lines
        self.full_text = ""
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.setFixedHeight(lines * self.fontMetrics().lineSpacing() + 6)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setText(text)

    def setText(self, text: str) -> None:  # noqa: N802 - Qt API
        self.full_text = str(text)
        self.setToolTip(self.full_text)
        super().setText(self._fitted())

    def text_shown(self) -> str:
        return super().text()

    def _fitted(self) -> str:
        width = max(self.width(), 100)
        budget = int(width * self.lines * 0.85)   # wrapped lines leave some of each line empty
        return self.fontMetrics().elidedText(self.full_text, Qt.TextElideMode.ElideRight, budget)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(event)
        super().setText(self._fitted())

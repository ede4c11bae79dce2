"""A word-wrapped label that shows a short line and keeps the long explanation one click or hover away.

The launcher's Evaluation line explained the plan in six lines at 1280x800 (the rates' source, the sample, the
whole run's time split into training and evaluations), which left the form's fields about 230 px: the line
reads the summary, the whole text is its tooltip, and "more…" unfolds it in place ("less" folds it again).
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

MORE, LESS = "more", "less"


class MoreLabel(QLabel):
    """``set_texts(short, full, tip)``: ``short`` with a "more…" link where ``full`` says more; the tooltip is
    ``full`` (and ``tip`` under it). The unfolded state stays until "less" is clicked or the texts change to a
    text without more to say."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse)
        self.linkActivated.connect(self._toggle)
        self.short, self.full, self.unfolded = "", "", False

    def set_texts(self, short: str, full: str = "", tip: str = "") -> None:
        self.short, self.full = short, full if full and full != short else ""
        self.setToolTip("\n\n".join(t for t in (self.full or self.short, tip) if t))
        self._show()

    def shown_text(self) -> str:
        """The text as a person reads it now (the summary or the whole explanation), without the link."""
        return self.full if self.unfolded and self.full else self.short

    def _toggle(self, link: str) -> None:
        self.unfolded = link == MORE
        self._show()

    def _show(self) -> None:
        if not self.full:
            return super().setText(html.escape(self.short))
        link = (f" <a href='{LESS}'>less</a>" if self.unfolded else f" <a href='{MORE}'>more…</a>")
        super().setText(html.escape(self.shown_text()) + link)

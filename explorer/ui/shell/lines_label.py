"""A word-wrapped label of a fixed number of lines: a longer text is cut with "…" on its last line, the whole
text in its tooltip, so the widgets under it never move when its text grows or shrinks."""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtWidgets import QLabel, QSizePolicy


class LinesLabel(QLabel):
    """A QLabel ``lines`` lines tall whatever its text (a model's description: 1 line before a load, 4 after):
    the text wraps at the label's width; what does not fit in ``lines`` lines is cut at a word with "…", and the
    tooltip then holds the whole text above the label's own tooltip (:meth:`setToolTip`, e.g. a glossary entry).
    :meth:`text` is the whole text; :meth:`shown_text` what is drawn."""

    def __init__(self, text: str = "", parent=None, *, lines: int = 4):
        super().__init__(parent)
        self._full = ""
        self._tip = ""
        self._lines = lines
        self.setWordWrap(True)
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.setText(text)

    def _lines_height(self) -> int:
        """The height ``lines`` lines of the label's font take, measured as the wrapped text is (a line's bounding
        height can exceed the font's line spacing by a pixel: a one-line text measured against one line spacing
        never fitted). Read when asked: the app's style may set the font later."""
        flags = int(Qt.TextFlag.TextWordWrap)
        return self.fontMetrics().boundingRect(QRect(0, 0, 100_000, 100_000), flags, "\n".join("X" * self._lines)).height()

    def _height(self) -> int:
        margins = self.contentsMargins()
        return self._lines_height() + margins.top() + margins.bottom() + 2 * self.margin()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(super().sizeHint().width(), self._height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(super().minimumSizeHint().width(), self._height())

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt's name
        return False   # the same height at every width: the text is cut instead

    def text(self) -> str:  # noqa: D102 - QLabel's name
        return self._full

    def shown_text(self) -> str:
        return super().text()

    def setText(self, text: str) -> None:  # noqa: N802 - Qt's name
        self._full = text
        self._fit()

    def setToolTip(self, tip: str) -> None:  # noqa: N802 - Qt's name
        """The label's own tooltip; the whole text goes above it while the text is cut."""
        self._tip = tip
        self._fit()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._fit()

    def _fits(self, text: str, width: int) -> bool:
        flags = int(Qt.TextFlag.TextWordWrap)
        needed = self.fontMetrics().boundingRect(QRect(0, 0, width, 100_000), flags, text).height()
        return needed <= self._lines_height()

    def _fit(self) -> None:
        """The whole text where it fits in the lines at the current width, else the most whole words and "…"."""
        width = max(1, self.contentsRect().width() - 2 * self.margin())
        text = self._full
        if not self._fits(text, width):
            words = text.split(" ")
            lo, hi = 0, len(words)   # the most words that fit with "…" (binary search)
            while lo < hi:
                mid = (lo + hi + 1) // 2
                if self._fits(" ".join(words[:mid]) + "…", width):
                    lo = mid
                else:
                    hi = mid - 1
            text = " ".join(words[:lo]) + "…"
        QLabel.setToolTip(self, "\n\n".join(t for t in (self._full if text != self._full else "", self._tip) if t))
        QLabel.setText(self, text)

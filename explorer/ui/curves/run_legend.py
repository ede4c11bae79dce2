"""The Curves page's legend strip: one entry per shown run, as many as fit in its lines, then "+N more".

The strip has a fixed height (LEGEND_LINES lines): a legend that changed height would move, and so repaint,
every plot below it. Entries that do not fit are counted ("+3 more"; with 16 runs only half of them fit at
1280 px) and the tooltip lists every run, one a line. The entries come from
explorer.ui.curves.curves_model.CurvesModel.legend_entries.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QLabel, QSizePolicy

__all__ = ["LEGEND_LINES", "LegendStrip"]

LEGEND_LINES = 2   # the legend strip's height, in lines (fixed: the plots below never move)


class LegendStrip(QLabel):
    """A rich-text label of LEGEND_LINES lines; :meth:`fit` lays out entries for its width. ``resized()``
    (a callable, set by the owner) is called when its width changes: the entries are laid out again."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setWordWrap(True)
        self.setFixedHeight(LEGEND_LINES * self.fontMetrics().lineSpacing() + 6)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.resized = lambda: None
        self._probe: QLabel | None = None
        self.installEventFilter(self)   # a new width lays the entries out again

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt API
        if obj is self and event.type() == QEvent.Type.Resize:
            self.resized()
        return super().eventFilter(obj, event)

    def fit(self, entries: list[tuple[str, str]]) -> tuple[str, str]:
        """(rich text, tooltip) for ``entries`` ((plain, rich) each): as many as fit in LEGEND_LINES lines of the
        strip's width, then "+N more"; the tooltip lists every entry when some are left out ("" otherwise)."""
        fm = self.fontMetrics()
        bold = self.font()
        bold.setBold(True)
        bold_fm = QFontMetrics(bold)
        width = max(self.contentsRect().width() - fm.averageCharWidth(), 1)   # the label's own margins
        gap = fm.horizontalAdvance("\u00a0" * 3)
        lines, used, shown = 1, 0, []
        for i, (plain, _rich) in enumerate(entries):
            more = bold_fm.horizontalAdvance(f"+{len(entries) - i - 1} more") + gap if i < len(entries) - 1 else 0
            need = fm.horizontalAdvance(plain) + (gap if used else 0)
            last_line = lines == LEGEND_LINES
            if used and used + need + (more if last_line else 0) > width:
                if last_line:
                    break
                lines, used, need = lines + 1, 0, fm.horizontalAdvance(plain)
                if lines == LEGEND_LINES and need + more > width and shown:
                    break
            shown.append(i)
            used += need

        def compose(k: int) -> str:
            text = "&nbsp;&nbsp;&nbsp;".join(entries[i][1] for i in shown[:k])
            return text + (f"&nbsp;&nbsp;&nbsp;<b>+{len(entries) - k}&nbsp;more</b>" if k < len(entries) else "")
        # the label wraps inside entries too: check its own layout, one entry fewer until it fits the strip
        probe = self._legend_probe()
        k = len(shown)
        while k > 1:
            probe.setText(compose(k))
            if probe.heightForWidth(self.width()) <= self.height():
                break
            k -= 1
        tip = "\n".join(plain for plain, _ in entries) if k < len(entries) else ""
        return compose(k), tip

    def _legend_probe(self) -> QLabel:
        """A label like the strip, never shown (a sibling of it): what height a text would take in it."""
        if self._probe is None:
            self._probe = QLabel(self.parentWidget())
            self._probe.hide()
            self._probe.setTextFormat(Qt.TextFormat.RichText)
            self._probe.setWordWrap(True)
            self._probe.setFont(self.font())
            self._probe.setStyleSheet(self.styleSheet())
        return self._probe

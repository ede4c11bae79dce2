"""A one-line label that never widens its window: its text is elided to the width it is given."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QLabel, QSizePolicy


class ElidedLabel(QLabel):
    """A QLabel for one line of plain text (the status bar's run activity and device) whose minimum width is
    ``min_width`` px, not its text's: a long run name elides ("running: stance-cor…") instead of making the
    main window wider than the screen (1624 px asked on a 1280 px screen). The whole text is the
    tooltip when it is cut."""

    def __init__(self, text: str = "", parent=None, *, min_width: int = 60,
                 elide: Qt.TextElideMode = Qt.TextElideMode.ElideMiddle):
        super().__init__(text, parent)
        self._min_width, self._elide = min_width, elide
        self._parts: tuple[str, list[tuple[str, int]], str] | None = None   # set_parts
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        hint = super().minimumSizeHint()
        return QSize(min(hint.width(), self._min_width), hint.height())

    def set_parts(self, head: str, parts: list[tuple[str, int]], separator: str = " · ") -> None:
        """Show ``head: part · part …`` where the parts give way by rank when it does not fit (see
        :func:`fit_parts`): the Curves progress line keeps its step and time left at 1280 px."""
        QLabel.setText(self, (f"{head}: " if head else "") + separator.join(text for text, _ in parts))
        self._parts = (head, list(parts), separator)

    def setText(self, text: str) -> None:  # noqa: N802 - Qt's name
        self._parts = None   # plain text, elided as the label says
        super().setText(text)

    def elides_on_purpose(self) -> bool:
        """True for plain text (setText): cut with "…" where it does not fit, by design (the status bar's message,
        run activity and device); False for :meth:`set_parts`, whose parts give way by rank first."""
        return self._parts is None

    def shown_text(self) -> str:
        """The text as drawn at the current width."""
        width = max(0, self.contentsRect().width())
        if self._parts is not None:
            return fit_parts(self.fontMetrics(), width, *self._parts)
        return self.fontMetrics().elidedText(self.text(), self._elide, width)

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        painter.setPen(self.palette().windowText().color())
        painter.drawText(self.contentsRect(), int(self.alignment() | Qt.AlignmentFlag.AlignVCenter), self.shown_text())
        painter.end()


def fit_parts(metrics, width: int, head: str, parts: list[tuple[str, int]], separator: str = " · ",
              head_chars: int = 20) -> str:
    """``head: part · part …`` in ``width`` px of font ``metrics`` (QFontMetrics). The parts of the highest rank
    go first (rank 0 parts always stay); before each goes, ``head`` may be elided in its middle down to
    ``head_chars`` characters; with only rank 0 left it may be elided further, then it goes, and what is still
    too wide is cut at its end ("…")."""
    def line(h: str, kept: list[tuple[str, int]]) -> str:
        return (f"{h}: " if h else "") + separator.join(text for text, _ in kept)

    def short_head(kept: list[tuple[str, int]]) -> str:
        room = width - metrics.horizontalAdvance(line("", kept)) - metrics.horizontalAdvance(": ")
        return metrics.elidedText(head, Qt.TextElideMode.ElideMiddle, room) if head and room > 0 else ""

    kept = list(parts)
    for rank in sorted({r for _, r in parts if r > 0}, reverse=True) + [None]:
        if metrics.horizontalAdvance(line(head, kept)) <= width:
            return line(head, kept)
        if len(short_head(kept)) >= min(head_chars, len(head)) > 0:
            return line(short_head(kept), kept)
        if rank is not None:
            kept = [p for p in kept if p[1] != rank]
    if len(short_head(kept)) > 3:   # some of the name, not a lone "…"
        return line(short_head(kept), kept)
    return metrics.elidedText(line("", kept), Qt.TextElideMode.ElideRight, width)


class ShortFormLabel(ElidedLabel):
    """A one-line label with a long text and a short form of whole words (the status bar's run activity "running:
    stance-lr1e-4 step 33/150 · 2 running" and "2 running"; its device and the host's alias): the long text where
    it fits, else the short form, never cut mid-word; its minimum width is the short form's, so a crowded bar
    gives it at least that. The long text is in the tooltip, above ``tip``."""

    def __init__(self, text: str = "", parent=None, *, tip: str = ""):
        super().__init__(text, parent, min_width=0)
        self._short, self._tip = text, tip
        self._compact = False       # ask only the short form's width (set_compact: a crowded status bar)
        self.forms_changed = None   # called after set_forms (the status bar weighs its room again)
        self.setToolTip(tip)

    def long_width(self) -> int:
        """The width the long text asks for (QLabel's size hint)."""
        return QLabel.sizeHint(self).width()

    def set_compact(self, on: bool) -> None:
        """Ask for the short form's width only (``on``), or for the long text's."""
        if on != self._compact:
            self._compact = on
            self.updateGeometry()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return self.minimumSizeHint() if self._compact else QLabel.sizeHint(self)

    def set_forms(self, text: str, short: str) -> None:
        """Show ``text``, or ``short`` where ``text`` does not fit (``short`` "" = ``text``)."""
        self._short = short or text
        self.setText(text)
        self.setToolTip("\n\n".join(t for t in (text if self._short != text else "", self._tip) if t))
        self.updateGeometry()
        if self.forms_changed is not None:
            self.forms_changed()

    def forms(self) -> tuple[str, str]:
        """(the long text, the short form)."""
        return self.text(), self._short

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        hint = QLabel.minimumSizeHint(self)
        m = self.contentsMargins()
        need = self.fontMetrics().horizontalAdvance(self._short) + m.left() + m.right() + 2 * max(self.margin(), 0)
        return QSize(need if self._short else 0, hint.height())

    def elides_on_purpose(self) -> bool:
        return False   # whole words: the layout check counts a cut short form as cut

    def shown_text(self) -> str:
        """The long text where it fits the current width, else the short form (cut at its end only where even it
        does not fit: :meth:`is_cut`)."""
        width = max(0, self.contentsRect().width())
        metrics = self.fontMetrics()
        if metrics.horizontalAdvance(self.text()) <= width:
            return self.text()
        if metrics.horizontalAdvance(self._short) <= width:
            return self._short
        return metrics.elidedText(self._short, Qt.TextElideMode.ElideRight, width)

    def is_cut(self) -> bool:
        """Whether the text drawn is neither the long text nor the short form whole."""
        return self.shown_text() not in (self.text(), self._short)

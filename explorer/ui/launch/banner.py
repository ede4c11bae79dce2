"""The launcher's banner: the first-visit hint (or a note in its place) and the preset line, in a box whose height
never changes while the user types.

The banner's text re-wraps on a task, file or preset change (1 to 4 lines and more). A banner that followed its
text moved the form below it under the mouse: clicks landed in the wrong fields (a run name typed into Text
columns), and typing a Train cap that took an amber line away moved the form up (a Dev cap typed into Text
columns). So the height is fitted only when the form is filled (a loaded config, a preset, a note) and when the
banner is resized or its font changes, none of them typing: then it takes its text's height at its width,
BANNER_LINES to BANNER_MAX_LINES lines. A note longer than the box shows its whole sentences that fit and says
the rest is in its tooltip: a box that scrolled showed a sentence cut at its bottom edge, which reads as the
whole note ("…were cleared: choose this").
"""

from __future__ import annotations

import html
import re

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QLabel, QScrollArea, QVBoxLayout, QWidget

__all__ = ["BANNER_LINES", "BANNER_MAX_LINES", "LaunchBanner", "with_note"]

BANNER_LINES = 5   # the banner's least height in text lines (first-visit hint or task note, and the preset)
BANNER_MAX_LINES = 9   # its most, taken when the form is filled with a long note (a longer one is cut short)
MORE = " <i>(the whole note: hover here)</i>"   # ends a note cut at a sentence boundary to fit the banner
_SENTENCE_END = re.compile(r"(?<=\.) (?=[A-Z<])")   # "… reset. Training file …": where a note may be cut


def note_sentences(note: str) -> list[str]:
    """The sentences of a banner note (rich text), each with its full stop: where the banner may cut it."""
    return [part for part in _SENTENCE_END.split(note) if part]


def with_note(banner: tuple[str, str, bool], note: str) -> tuple[str, str, bool]:
    """The form's banner (LaunchForm.banner: the preset line with its note, the hint, whether the hint shows) with
    ``note`` (plain text, e.g. the Run on host that is gone) first under the preset line, where it is in view;
    unchanged when ``note`` is empty."""
    preset, hint, hint_shown = banner
    if not note:
        return banner
    head, _, rest = preset.partition("<br>")
    return f"{head}<br>{html.escape(note)}" + (f" {rest}" if rest else ""), hint, False


class LaunchBanner(QScrollArea):
    """``hint`` (the first-visit text; a note takes its place, so the form does not jump) above ``preset_label``
    (which recipe the form holds, and the note), in a frameless scroll area of a fitted height (:meth:`fit`)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.hint = QLabel()
        self.hint.setObjectName("hint")
        self.hint.setWordWrap(True)
        self.preset_label = QLabel()   # which recipe the form holds (presets.describe_preset)
        self.preset_label.setWordWrap(True)
        self._preset_tip = ("offline default: the bundled encoder on the bundled answerable sample, batch 4, "
                            "4 epochs (minutes); offline SQuAD 2.0: the same on the bundled SQuAD 2.0 sample, a third "
                            "unanswerable, for τ; fast CPU: a 30-minute budget, batch 16, lr 1e-4, max_seq_length 256 "
                            "(README, Benchmarks); paper recipe: BERT paper Appendix A.3 defaults")
        self._preset_text: str | None = None   # the preset line and its whole note (show_text)
        self.preset_label.setToolTip(self._preset_tip)
        self.text_box = QWidget()
        text_col = QVBoxLayout(self.text_box)
        text_col.setContentsMargins(0, 0, 0, 0)
        text_col.addWidget(self.hint)
        text_col.addWidget(self.preset_label)
        text_col.addStretch(1)
        for label in (self.hint, self.preset_label):
            label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.setWidget(self.text_box)
        self.setWidgetResizable(True)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._height = 0   # set by fit(refit=True) only: never while the user types
        self._fitted_width = -1   # the width the height was fitted at (a resize refits)
        self.installEventFilter(self)

    def show_text(self, preset: str, hint: str, hint_shown: bool) -> None:
        """The preset line (rich text, the note under it after a ``<br>``), the hint and whether it shows; the
        height stays (a note longer than it is cut at a sentence boundary: :meth:`_whole_sentences`)."""
        self._preset_text = preset
        self.hint.setText(hint)
        self.hint.setVisible(hint_shown)
        self.fit()

    def whole_text(self) -> str:
        """The preset line and its whole note (rich text), also where the banner shows it cut short."""
        return self._preset_text if self._preset_text is not None else self.preset_label.text()

    def fit(self, refit: bool = False) -> None:
        """The banner's height. Without ``refit`` (every change of the form, typing included) it keeps the height it
        has, so the form under the banner never moves while the user types (a text longer than it scrolls in it).
        With ``refit`` (the form filled, the banner resized, a font change) it takes the height of its text at its
        width: BANNER_LINES to BANNER_MAX_LINES lines of its labels' font."""
        if self._preset_text is not None:
            self.preset_label.setText(self._preset_text)   # measured whole; cut again below when it does not fit
        if refit or not self._height:
            spacing = self.text_box.layout().spacing()
            line = max(lab.fontMetrics().lineSpacing() for lab in (self.hint, self.preset_label))
            margins = 8   # the rich-text document margins of the bold preset line
            width = self.width()   # no vertical scroll bar when the text fits
            text = sum(lab.heightForWidth(width) for lab in (self.hint, self.preset_label) if not lab.isHidden())
            least, most = (line * n + spacing + margins for n in (BANNER_LINES, BANNER_MAX_LINES))
            self._height = min(max(text + spacing, least), most)
            self._fitted_width = width
        self.setFixedHeight(self._height)
        self._whole_sentences()

    def _text_height(self, width: int) -> int:
        return sum(lab.heightForWidth(width) for lab in (self.hint, self.preset_label) if not lab.isHidden()) + \
            self.text_box.layout().spacing()

    def _whole_sentences(self) -> None:
        """The preset line and as many whole sentences of its note as fit the banner's height, then MORE (the
        whole text in the tooltip); the whole text when it fits."""
        full = self._preset_text
        if full is None:
            return
        self.preset_label.setText(full)
        self.preset_label.setToolTip(self._preset_tip)
        width, room = self.width(), self._height
        if self._text_height(width) <= room or "<br>" not in full:
            return
        head, note = full.split("<br>", 1)
        sentences = note_sentences(note)
        for keep in range(len(sentences) - 1, -1, -1):
            self.preset_label.setText(f"{head}<br>{' '.join(sentences[:keep])}{MORE}")
            if self._text_height(width) <= room:
                break
        self.preset_label.setToolTip(f"{full}<br><br>{self._preset_tip}")

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt API
        """A new banner width (the panel resized, never typing) fits its height to its text again."""
        if watched is self and event.type() == QEvent.Type.Resize and self.width() != self._fitted_width:
            self.fit(refit=True)
        return super().eventFilter(watched, event)

"""The inspectors' shared look: block colours, the one-line panel headers, and labels that carry the
project glossary's tooltips (explorer.glossary is the one place for the texts)."""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from explorer.core.models.info import model_name, stale_results_note
from explorer.glossary import panel_help, tooltip

BLOCK_COLORS: dict[str, QColor] = {
    "question": QColor(31, 119, 180),
    "passage": QColor(44, 160, 44),
    "special": QColor(127, 127, 127),
}


def tokenizer_suffix(loaded) -> str:
    """"; tokenizer from X: the checkpoint has none ..." for a model whose tokenizer is not its checkpoint's own
    (core.models.tokenizer_source), appended to a view's result line so the words' source is in view; "" otherwise."""
    note = getattr(loaded, "tokenizer_note", "") or ""
    return f"; {note}" if note else ""


def model_in_child(client, slot: str, loaded):
    """The ModelInfo of a view's model: ``loaded`` itself when it is one (what a load request returns), else
    ``loaded`` (a LoadedModel of this process: tests, embedding) is handed to the inspector child's ``slot``
    (``client.adopt``) and described."""
    from explorer.core.models.info import ModelInfo, model_info

    if isinstance(loaded, ModelInfo):
        return loaded
    client.adopt(slot, loaded)
    return model_info(loaded, slot)


def block_color(block: str) -> QColor:
    return BLOCK_COLORS.get(block, QColor(127, 127, 127))


def tip(term: str) -> str:
    """The glossary tooltip of a term (standard name or alias: "s_null", "τ", "block flow", ...).
    Raises KeyError listing the known terms when it is not in explorer.glossary."""
    return tooltip(term)


BREAK_AFTER = "/\\-_.:"   # a long word (a path, a run id) may break after these in a status line
LONG_WORD = 24            # characters: shorter words keep their look


def breakable(text: str) -> str:
    """``text`` with a zero-width space after each of BREAK_AFTER inside words longer than LONG_WORD, so a
    word-wrapped label can break a checkpoint path instead of asking for the path's whole width."""
    def brk(word: str) -> str:
        if len(word) <= LONG_WORD:
            return word
        return "".join(ch + "\u200b" if ch in BREAK_AFTER else ch for ch in word)
    return " ".join(brk(w) for w in text.split(" "))


class StatusLabel(QLabel):
    """A page's word-wrapped status line that never widens the page: long words (paths) break anywhere
    (:func:`breakable`) and its minimum width is MIN_WIDTH px, whatever the text (otherwise "loading <a long
    checkpoint path> ..." in Classify makes the page's minimum as wide as the path, and a 1280 px window grows
    to 1615 px). ``text()`` gives the text as set, without the break marks."""

    MIN_WIDTH = 120

    def __init__(self, text: str = "", parent=None):
        super().__init__("", parent)
        self.setWordWrap(True)
        self.setText(text)

    def setText(self, text: str) -> None:  # noqa: N802 (Qt's name)
        super().setText(breakable(str(text)))

    def text(self) -> str:
        return super().text().replace("\u200b", "")

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        hint = super().minimumSizeHint()
        return QSize(min(hint.width(), self.MIN_WIDTH), hint.height())


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
        """The full text, or as much of it as fits ``lines`` wrapped lines at this width, ending in "…"."""
        width = max(self.contentsRect().width(), 100)
        fm = self.fontMetrics()
        room = self.contentsRect().height()
        if fm.boundingRect(0, 0, width, 10_000, int(Qt.TextFlag.TextWordWrap), self.full_text).height() <= room:
            return self.full_text   # it fits wrapped: whole (the estimate below cut texts that fit)
        budget = int(width * self.lines * 0.85)   # wrapped lines leave some of each line empty
        text = fm.elidedText(self.full_text, Qt.TextElideMode.ElideRight, budget)
        # a wider font or long words wrap earlier than the estimate: shorten until the wrapped text fits
        while budget > width and fm.boundingRect(0, 0, width, 10_000, int(Qt.TextFlag.TextWordWrap),
                                                 text).height() > room:
            budget -= width // 4
            text = fm.elidedText(self.full_text, Qt.TextElideMode.ElideRight, budget)
        return text

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(event)
        super().setText(self._fitted())

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt API
        """The app's style sheet sets the font after construction: ``lines`` lines of that font."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self.setFixedHeight(self.lines * self.fontMetrics().lineSpacing() + 6)
            super().setText(self._fitted())


class ResultSource:
    """The one rule of every result view (Classify: dev set, τ on dev set, Tag: dev set): its results say which
    model produced them, and are cleared when another model is loaded.

    ``label`` is the view's line "Results of MODEL on FILE". A view calls :meth:`ask` when it sends a request,
    :meth:`take` when the answer arrives (None: the model changed meanwhile, so the answer is dropped),
    :meth:`show` once it renders results, and :meth:`model_changed` from its model-loaded signal; a change to
    another model calls ``clear()`` (the view empties its tables) and the label says
    "Results were for A; the model changed to B: run again" (core.models.info.stale_results_note) until the next
    change of model, which takes it away: with no results of its own the view names no other model. Model names
    come from core.models.info.model_name.
    """

    def __init__(self, clear: Callable[[], None]):
        self.clear = clear
        self.shown_for: str | None = None    # model name of the results on screen
        self._asked_for: str | None = None   # model name of the request in flight
        self.label = QLabel("")
        self.label.setObjectName("resultSource")
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setVisible(False)
        self._stale = False   # the label says the results were of another model (stale_results_note)

    def ask(self, loaded) -> None:
        """A request is sent to ``loaded`` (a ModelInfo or LoadedModel)."""
        self._asked_for = model_name(loaded)

    def take(self) -> str | None:
        """The model name of the request that just answered; None when the model changed since it was sent."""
        name, self._asked_for = self._asked_for, None
        return name

    def show(self, name: str | None, data: str = "") -> None:
        """Results of model ``name`` (on data file ``data``) are on screen now; None: unknown (a report a caller
        rendered itself)."""
        self.shown_for, self._stale = name, False
        text = f"Results of {name}" + (f" on {data}" if data else "") if name else ""
        self.label.setStyleSheet("color: #555;")
        self.label.setText(text)
        self.label.setVisible(bool(text))

    def is_for(self, loaded) -> bool:
        """Are the results on screen (if any) those of ``loaded``? True when the producer is unknown."""
        return self.shown_for is None or self.shown_for == model_name(loaded)

    def model_changed(self, loaded) -> bool:
        """``loaded`` is the view's model now. Results of another model are cleared and the label says so; a
        request in flight for another model is dropped when it answers. True when results were cleared."""
        now = model_name(loaded)
        if self._asked_for is not None and self._asked_for != now:
            self._asked_for = None
        if self.shown_for is None:   # no results of its own: an earlier change's line named a model no longer loaded
            if self._stale:
                self._stale = False
                self.label.setText("")
                self.label.setVisible(False)
            return False
        if self.shown_for == now:
            return False
        was, self.shown_for = self.shown_for, None
        self.clear()
        self.label.setStyleSheet("color: #b03030;")
        self.label.setText(stale_results_note(was, now))
        self.label.setVisible(True)
        self._stale = True
        return True


def still_loaded_note(message: str, still: str) -> str:
    """A failed load's ``message`` followed by the model still in use, ``still`` (its source), which the model box
    shows again: "<why the load failed> (still in use: <still>)"."""
    return f"{message.rstrip('. ')} (still in use: {still})"


def updating_note(was: str, now: str) -> str:
    """The line over results of the previous model while another one loads."""
    return f"Results of {was or 'the previous model'}: updating for {now or 'the new model'}…"


class _Veil(QWidget):
    """A pale, half-transparent sheet over a widget (its child, kept at its size): what lies under it reads as
    faded. An opacity effect was tried first: over tables, text panes and plots (scroll-area viewports) it
    painted them dark grey instead."""

    COLOR = QColor(250, 250, 250, 170)

    def __init__(self, body: QWidget):
        super().__init__(body)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)   # scrolling the old results still works
        self.setGeometry(body.rect())
        body.installEventFilter(self)
        self.hide()

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt API
        if event.type() == QEvent.Type.Resize:
            self.setGeometry(obj.rect())
        return False

    def paintEvent(self, _event) -> None:  # noqa: N802 - Qt API
        QPainter(self).fillRect(self.rect(), self.COLOR)


class StaleCover:
    """Results of the previous model, left on screen while another model loads and answers: faded (a pale veil
    over each of ``bodies``) under one line "Results of A: updating for B…" until the new answer is shown
    (for the seconds a load takes, the old model's span and scores would otherwise stand beside the new
    checkpoint's name with nothing marking them as old). A view calls :meth:`mark` when it asks for another
    model, :meth:`clear` when its new answer is shown (or the load failed: the old model is still the one)."""

    def __init__(self, *bodies: QWidget):
        self.veils = [_Veil(body) for body in bodies]
        self.label = QLabel("")
        self.label.setObjectName("staleResults")
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setStyleSheet("color: #b05000;")
        self.label.setVisible(False)
        self.stale = False   # are the results on screen marked as another model's?

    def mark(self, was: str, now: str) -> None:
        """Fade the bodies and say whose results they are and which model is coming."""
        for veil in self.veils:
            veil.setGeometry(veil.parentWidget().rect())
            veil.show()
            veil.raise_()
        self.label.setText(updating_note(was, now))
        self.label.setVisible(True)
        self.stale = True

    def say(self, text: str) -> None:
        """Replace the line (still faded): e.g. the new model is in but nothing was asked of it yet."""
        self.label.setText(text)

    def clear(self) -> None:
        """The results on screen are the current model's again."""
        for veil in self.veils:
            veil.hide()
        self.label.setVisible(False)
        self.stale = False

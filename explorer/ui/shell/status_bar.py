"""The main window's status bar: its temporary message in a label of its own, elided in the room left.

QStatusBar draws a temporary message (``showMessage``) itself, over the area left of its first visible
permanent widget, and cuts it there mid-letter without a mark; the permanent widgets take the width of their
whole text first. A long permanent text (the inspectors' "loading /tmp/…/checkpoints/best", the run activity)
leaves the message a few letters that run into the label beside them: "Ope" + "loading …", "…and not t running:
stance lr1e-4 …". Here the message is a permanent ElidedLabel of its own, first and with
stretch, so the layout shares the width between it and the other labels (each shrinks by the same amount when
they do not all fit), and it ends with "…" where it is cut; ``showMessage`` / ``currentMessage`` /
``clearMessage`` and the timeouts stay Qt's, so every caller (menus' status tips too) goes through it.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QStatusBar, QStyle, QStyleOption, QWidget

from explorer.ui.shell.elided_label import ElidedLabel, ShortFormLabel

MESSAGE_MIN_WIDTH = 160   # px the message keeps beside long permanent labels (~25 characters)
LABELS_SHARE = 0.5        # of the bar's width the permanent labels' long texts may take; beyond, short forms


class MessageBar(QStatusBar):
    """A QStatusBar whose temporary message is ``message_label`` (an ElidedLabel, elided at its right end, the
    whole text in its tooltip), left of the permanent widgets and never under them."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.message_label = ElidedLabel("", min_width=MESSAGE_MIN_WIDTH, elide=Qt.TextElideMode.ElideRight)
        self.message_label.setObjectName("statusMessage")
        self._others: list[QWidget] = []
        super().addPermanentWidget(self.message_label, 1)
        self.messageChanged.connect(self._message_changed)

    def addPermanentWidget(self, widget: QWidget, stretch: int = 0) -> None:  # noqa: N802 - Qt's name
        """As QStatusBar's, right of the message (and of the permanent widgets added before)."""
        self._others.append(widget)
        super().addPermanentWidget(widget, stretch)
        if isinstance(widget, ShortFormLabel):
            widget.forms_changed = self.fit_forms

    def fit_forms(self) -> None:
        """The labels with a short form ask for their long texts where all the permanent widgets so take at most
        LABELS_SHARE of the bar, else for their short forms ("2 running", the host alias), so that at 1280 px the
        message keeps its room and every label reads whole words (they elided each other mid-word)."""
        shown = [w for w in self._others if not w.isHidden()]
        forms = [w for w in shown if isinstance(w, ShortFormLabel)]
        need = sum(w.long_width() if isinstance(w, ShortFormLabel) else w.sizeHint().width() for w in shown)
        compact = need > LABELS_SHARE * self.width()
        for w in forms:
            w.set_compact(compact)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self.fit_forms()

    def removeWidget(self, widget: QWidget) -> None:  # noqa: N802 - Qt's name
        """As QStatusBar's; the bar no longer frames it (a widget removed and then deleted was painted after)."""
        if widget in self._others:
            self._others.remove(widget)
        super().removeWidget(widget)

    def _message_changed(self, text: str) -> None:
        self.message_label.setText(text)
        self.message_label.setToolTip(text)

    def shown_message(self) -> str:
        """The message as drawn at the label's current width ("" when there is none)."""
        return self.message_label.shown_text() if self.currentMessage() else ""

    def message_rect(self) -> QRect:
        """Where the message is drawn, in the bar's coordinates (the label's geometry)."""
        return self.message_label.geometry()

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt's name
        """The panel and the frames of the permanent widgets, as QStatusBar paints them, but not the message
        (its label draws it)."""
        painter = QPainter(self)
        opt = QStyleOption()
        opt.initFrom(self)
        self.style().drawPrimitive(QStyle.PrimitiveElement.PE_PanelStatusBar, opt, painter, self)
        for widget in self._others:
            if widget.isVisible():
                item = QStyleOption()
                item.rect = widget.geometry().adjusted(-2, -1, 2, 1)
                item.palette = self.palette()
                self.style().drawPrimitive(QStyle.PrimitiveElement.PE_FrameStatusBarItem, item, painter, widget)
        painter.end()


class StatusWidgets:
    """The main window's permanent status-bar widgets, added to ``bar`` in this order: where the inspectors compute
    (``inspect_label``, hidden while it is this machine), their busy sign (``inspector_busy_label`` and the moving
    ``inspector_busy`` bar, hidden while idle), the run activity (``activity_label``) and the device
    (``device_label``). One-line labels that elide (or show a short form) rather than widen the window."""

    def __init__(self, bar: QStatusBar):
        from PySide6.QtWidgets import QProgressBar

        # the run activity and the device: whole, or in short form where the bar is crowded (1280 px), the long
        # text in the tooltip (each elided the other mid-word: "running: …2 running", "device…pubox3")
        self.device_label = ShortFormLabel("device: probing…", tip="The device and precision of the active run "
                                           "(from its `started` event), or what a new run would use.")
        self.activity_label = ShortFormLabel("")
        self.inspect_label = ElidedLabel("", min_width=120)   # where the inspectors run (remote_inspect)
        self.inspect_label.setToolTip("Where the inspector pages compute: on a remote host over SSH, or on a "
                                      "local copy of its checkpoint.")
        self.inspect_label.hide()
        self._bar, self._on_inspector = bar, False   # the window opens on Launch
        bar.addPermanentWidget(self.inspect_label)
        # the inspector pages' work in progress (a probe, a model load), in view at any window size: a page's own
        # busy bar can be below its fold at 1280x800
        self.inspector_busy = QProgressBar()
        self.inspector_busy.setRange(0, 0)            # no percentage: a moving bar
        self.inspector_busy.setTextVisible(False)
        self.inspector_busy.setFixedWidth(70)
        self.inspector_busy_label = ElidedLabel("", min_width=60)
        for w in (self.inspector_busy_label, self.inspector_busy):
            w.setVisible(False)
            bar.addPermanentWidget(w)
        bar.addPermanentWidget(self.activity_label)
        bar.addPermanentWidget(self.device_label)

    def show_busy(self, text: str) -> None:
        """A moving bar and ``text`` ("probing …") while the inspector child works for a page; hidden for ""."""
        self.inspector_busy_label.setText(text)
        for w in (self.inspector_busy_label, self.inspector_busy):
            w.setVisible(bool(text))

    def show_place(self, text: str) -> None:
        """Where the inspectors compute ("" hides it: this machine); a new place is also the bar's message for
        15 s. The note stays on the inspector pages only (:meth:`on_inspector_page`): beside Launch or Curves
        "Inspecting on lab (CPU)" read as work still going on long after the inspection."""
        self.inspect_label.setText(text)
        self.inspect_label.setVisible(bool(text) and self._on_inspector)
        if text:
            self._bar.showMessage(text, 15000)

    def on_inspector_page(self, on: bool) -> None:
        """The current tab is an inspector page (``on``) or another one (Launch, Curves, …)."""
        self._on_inspector = on
        self.inspect_label.setVisible(bool(self.inspect_label.text()) and on)

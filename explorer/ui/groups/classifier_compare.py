""""Compare two classifiers on the dev rows…" (Runs dock): a non-modal window that asks the inspector child
(op compare_classifiers: both best checkpoints scored on the first run's dev rows, then
core.classify.compare) and shows the paired comparison in words. The GUI never waits: the job reports
progress and can be cancelled by closing the window. "Swap A ⇄ B" (Ctrl+Shift+X) makes B the first run, B − A the other way round: the
result mirrored at once when both runs judge on the same dev rows, else the comparison runs again on B's."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QFrame, QLabel, QProgressBar, QPushButton, QScrollArea,
                               QVBoxLayout)

from explorer.ui.groups.compare_words import SWAP_KEYS
from explorer.ui.shell.screen_fit import keep_on_screen


def heading_html(name_a: str, name_b: str, n: int | None = None, dev_cap: int = 0) -> str:
    """The window's heading: A and B, and the rows both are scored on; with the result's ``n``, how many, and
    whether A's run's Dev cap was left out (the comparison scores every dev row, so its accuracies match neither
    run's Best dev, which was measured on the first ``dev_cap`` rows)."""
    rows = "the dev rows" if n is None else f"{'all' if dev_cap else 'the'} {n:,} dev rows"
    capped = (f" (its Dev cap {dev_cap:,} is not applied: its Best dev was measured on the first {dev_cap:,})"
              if n is not None and 0 < dev_cap < n else "")
    return (f"<b>A</b> {escape(name_a)} &nbsp; <b>B</b> {escape(name_b)}<br>both best checkpoints on {rows} of "
            f"{escape(name_a)}'s run{capped}")


class ClassifierCompareWindow(QDialog):
    """A (``runs[0]``) against B (``runs[1]``), each {"source": best checkpoint folder, "name", "task"}.

    ``client``: the InspectClient (shared_client() when None). :attr:`result` holds the op's dict once it
    is in; :attr:`text` shows its lines, or what went wrong. The window is as tall as its text needs, at its
    width and at its minimum size (MIN_WIDTH px wide), up to the height of its screen's available geometry (less
    the window frame): a longer text scrolls (:attr:`scroll`), so the Swap and Close buttons stay on the screen; a window
    that grew past the screen's bottom where it stands moves up (screen_fit.keep_on_screen)."""

    MIN_WIDTH = 520

    def __init__(self, runs: list[dict], client=None, parent=None):
        super().__init__(parent)
        from explorer.ui.inspectors.remote import RemoteJob

        if client is None:
            from explorer.ui.inspectors.client import shared_client

            client = shared_client()
        self.runs = list(runs)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, False)
        self.result: dict | None = None
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        self.text = QLabel("Scoring A and B on the same dev rows…")
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.text.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.bar = QProgressBar()
        self.bar.setRange(0, 3)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        self.swap_button = QPushButton("Swap A ⇄ B")
        self.swap_button.setToolTip(f"B becomes A ({SWAP_KEYS}): every difference reads the other way round, "
                                    "at once when both runs have the same dev rows (else both are scored again "
                                    "on the new A's)")
        self.swap_button.clicked.connect(self.swap)
        buttons.addButton(self.swap_button, QDialogButtonBox.ButtonRole.ActionRole)
        QShortcut(QKeySequence(SWAP_KEYS), self, self.swap)
        lay = QVBoxLayout(self)
        lay.addWidget(self.heading)
        lay.addWidget(self.bar)
        self.scroll = QScrollArea()   # the lines scroll where the screen is shorter than they are
        self.scroll.setWidget(self.text)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        lay.addWidget(self.scroll, 1)
        lay.addWidget(buttons)
        self.setMinimumWidth(self.MIN_WIDTH)
        self.resize(640, 260)
        keep_on_screen(self)   # it grows when the result comes: moved up where it would reach past the screen
        self.job = RemoteJob(client, self)
        self.job.progress.connect(lambda done, total: self.bar.setValue(done))
        self.job.finished.connect(self._done)
        self.job.failed.connect(lambda msg, _tb: self._show(escape(f"Cannot compare: {msg}", quote=False)))
        self._start()

    def _start(self) -> None:
        """Title, heading and the op for A = ``runs[0]``, B = ``runs[1]``."""
        a, b = self.runs
        self._title()
        self.heading.setText(heading_html(a["name"], b["name"]))
        self.result = None
        self.text.setText("Scoring A and B on the same dev rows…")
        self.bar.setValue(0)
        self.bar.show()
        self.job.start("compare_classifiers", {"source_a": a["source"], "source_b": b["source"], "task": a["task"],
                                               "name_a": a["name"], "name_b": b["name"]})

    def swap(self) -> None:
        """B becomes A and A becomes B, so the title, the heading, the differences and the paired tests follow.
        A result whose reply holds its mirror ("swapped": B's run judges on the same dev rows) is shown mirrored
        at once, with no new pass of either model; otherwise (the new A's run has other dev rows, or no result
        is in yet) a job under way is cancelled and the comparison runs again on the new A's dev rows."""
        mirror = (self.result or {}).get("swapped")
        self.runs.reverse()
        if mirror:
            self._title()
            self._done({**mirror, "swapped": {k: v for k, v in self.result.items() if k != "swapped"}})
            return
        self.job.cancel()
        self._start()

    def _title(self) -> None:
        a, b = self.runs
        self.setWindowTitle(f"Compare {a['name']} (A) and {b['name']} (B)")

    def _done(self, value: dict) -> None:
        self.result = value
        a, b = self.runs
        self.heading.setText(heading_html(a["name"], b["name"], value.get("n"), int(value.get("dev_cap") or 0)))
        self.bar.setValue(3)
        lines = list(value.get("lines") or [])
        lines = [escape(line, quote=False) for line in lines]
        # the first line (a warning or note when there is one) and the verdict stand out in bold
        self._show("<br>".join(f"<b>{line}</b>" if i == 0 or line.startswith("Verdict by ") else line
                               for i, line in enumerate(lines)))

    def _show(self, html: str) -> None:
        self.bar.hide()
        self.text.setText(html)   # a failure message is plain text: escaped where it is made
        self._fit_text()

    def _fit_text(self) -> None:
        """Tall enough for every line of the text, up to the screen: the minimum height is what the text needs at
        the minimum width (narrower never), and a window shorter than its width needs grows (the last line would be
        cut at the default 640x260); neither passes :meth:`screen_height`, where the text scrolls instead."""
        room, before = self.screen_height(), self.height()
        least, need = self._height_for(self.MIN_WIDTH), self._height_for(self.width())
        self.scroll.setMinimumHeight(0)   # measured: the window's minimum is set below, the scroll area's released
        self.layout().activate()
        self.setMinimumHeight(min(least, room))
        self.resize(self.width(), min(max(before, need), room))

    def _height_for(self, width: int) -> int:
        """The window's height that shows every line of the text at ``width`` px, without scrolling."""
        lay = self.layout()
        margins = lay.contentsMargins()
        self.scroll.setMinimumHeight(self.text.heightForWidth(width - margins.left() - margins.right()))
        lay.invalidate()
        lay.activate()
        return lay.totalHeightForWidth(width)

    def screen_height(self) -> int:
        """The most height the window may take: its screen's available geometry (QScreen.availableGeometry) less
        the frame a window manager adds (the frame shown, else screen_fit.FRAME_H)."""
        from explorer.ui.shell import screen_fit

        area = screen_fit.available_geometry(self)
        if area is None or area.isEmpty():
            return 16777215
        frame = self.frameGeometry().height() - self.height() if self.isVisible() else 0
        return max(1, area.height() - max(frame, screen_fit.FRAME_H))

    def closeEvent(self, event) -> None:   # noqa: N802 (Qt)
        self.job.cancel()
        super().closeEvent(event)

    def hideEvent(self, event) -> None:   # noqa: N802 (Qt)
        """Closed (Close, Escape, the title bar's x): the window it was opened from is made active again, so the
        keys go back to it at once; left to the platform, the hidden window could stay the active one and the main
        window's shortcuts (Ctrl+Q) were ignored until it was clicked. Minimizing (a spontaneous hide) changes
        nothing."""
        super().hideEvent(event)
        owner = self.parentWidget()
        if not event.spontaneous() and owner is not None and owner.window().isVisible():
            owner.window().activateWindow()

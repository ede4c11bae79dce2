"""A long job's progress row: a bar, "1,240 of 2,478 dev rows · about 0:40 left" (the Qt-free
components.job_meter.JobMeter decides the text) and Cancel. The one progress row of every long operation in the
GUI: dev-set scoring (Classify, Tag, Spans & τ), predictions and embeddings of a file, fetches, a
cross-validation group.

Hidden until :meth:`JobBar.start`; the page that owns the job calls :meth:`JobBar.finish` when the job ends
(done, failed or cancelled). Cancel only asks: the page passes ``cancel_requested`` to its job (the inspector
child stops between batches), and the row says "cancelling …" until the job's end arrives.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSizePolicy, QWidget

from explorer.ui.shell.turns import PaintLaterProgressBar

from .components.job_meter import JobMeter

STEPS = 1000   # the bar's resolution: counts beyond int range (bytes of a large download) are shown as a share


class JobBar(QWidget):
    """Signals: cancel_requested(), the user pressed Cancel."""

    cancel_requested = Signal()

    def __init__(self, what: str = "rows", parent=None, *, cancel_tip: str = ""):
        super().__init__(parent)
        self.meter = JobMeter(what=what)
        self.bar = PaintLaterProgressBar()   # a report's value is painted with the turn's other paints
        self.bar.setMaximumHeight(14)
        self.bar.setTextVisible(False)
        self.detail = QLabel("")
        self.detail.setMinimumWidth(self.detail.fontMetrics().horizontalAdvance("1,240 of 12,478 dev rows · "
                                                                               "about 10:40 left"))
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip(cancel_tip or "Stop after the current batch; nothing of this job is shown")
        self.cancel_button.clicked.connect(self._cancel)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.bar, 1)
        row.addWidget(self.detail)
        row.addWidget(self.cancel_button)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.setVisible(False)

    @property
    def running(self) -> bool:
        """Shown for a job that has not ended."""
        return not self.isHidden()

    def start(self, what: str | None = None) -> None:
        """Show the row for a new job (counted in ``what`` when given); busy until the first report."""
        if what is not None:
            self.meter.what = what
        self.meter.start()
        self.bar.setRange(0, 0)
        self.detail.setText(self.meter.text())
        self.cancel_button.setEnabled(True)
        self.setVisible(True)

    def set_progress(self, done: float, total: float, head: str = "", left: float | None = None) -> None:
        """A progress report: ``done`` of ``total`` (0: unknown, the bar stays busy); ``head`` and ``left`` (the
        seconds left where the job knows them better than its rate) as JobMeter's."""
        self.meter.update(done, total, head, left)
        if total > 0:
            self.bar.setRange(0, STEPS)
            self.bar.setValue(int(round(STEPS * self.meter.fraction())))
        if self.cancel_button.isEnabled():   # "cancelling …" stays until the job ends
            self.detail.setText(self.meter.text())

    def finish(self) -> None:
        """The job ended: hide the row."""
        self.setVisible(False)

    def cancelling(self) -> None:
        """The job was asked to stop (by this row's Cancel or elsewhere): "cancelling …" until it ends."""
        self.cancel_button.setEnabled(False)
        self.detail.setText("cancelling …")

    @property
    def is_cancelling(self) -> bool:
        return self.running and not self.cancel_button.isEnabled()

    def _cancel(self) -> None:
        self.cancelling()
        self.cancel_requested.emit()


VEIL_COLOUR = "rgba(240, 240, 240, 185)"   # a veiled result is faint: readable as "something was here", never
                                            # taken for the new one


class _Veil(QWidget):
    """A translucent pane over its parent, as large as it, that takes the parent's mouse events."""

    def __init__(self, target: QWidget):
        super().__init__(target)
        self.setObjectName("veil")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setStyleSheet(f"#veil {{ background: {VEIL_COLOUR}; }}")
        self.setToolTip("of the previous request: the new result replaces it")
        target.installEventFilter(self)
        self.setGeometry(target.rect())

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt's name
        if watched is self.parent() and event.type() == QEvent.Type.Resize:
            self.setGeometry(watched.rect())
        return False


def veil(widget: QWidget, on: bool) -> None:
    """Lay a translucent pane over ``widget`` while a job computes what replaces it (``on``), or lift it. For
    results that stay in view during a job (a map being recomputed for another layer, an explanation being
    recomputed): they are of the old request, and a click on them would act on what is about to go. (An
    opacity effect on the widget instead painted pyqtgraph views and text browsers dark grey.)"""
    pane = widget.findChild(_Veil, options=Qt.FindChildOption.FindDirectChildrenOnly)
    if on and pane is None:
        pane = _Veil(widget)
    if pane is not None:
        pane.setGeometry(widget.rect())
        pane.setVisible(on)
        if on:
            pane.raise_()


def is_veiled(widget: QWidget) -> bool:
    """Is ``widget`` under a veil (:func:`veil`)?"""
    pane = widget.findChild(_Veil, options=Qt.FindChildOption.FindDirectChildrenOnly)
    return pane is not None and not pane.isHidden()

"""Saliency for the Spans tab: which question and passage tokens push the chosen span's start and end
logits up or down (gradient x input, explorer.core.qa.saliency), drawn as colours on the window's text.

Red: the token raises the logit; blue: lowers it; the strongest |attribution| of the window is full
colour. ``set_span(result, window, start, end)`` computes off the GUI thread: in the inspector child
process once ``use_client(client, slot)`` was called (the hub does), else on a worker thread with
``model_getter()`` (a view used on its own, with a model of this process).
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QTextBrowser, QVBoxLayout, QWidget

from .common import StatusLabel, header
from .components.saliency import saliency_html
from .latest import LatestOnly


def _saliency(model, window, start: int, end: int):
    from explorer.core.qa.saliency import window_saliency

    return window_saliency(model, window, start, end)


class SaliencyView(QWidget):
    """The saliency page of the Spans tab."""

    computed = Signal(object)

    def __init__(self, parent=None, model_getter: Callable | None = None):
        super().__init__(parent)
        self.model_getter = model_getter or (lambda: None)
        self.saliency = None
        self._slot = None
        self._connect_job(LatestOnly.in_threads(parent=self))
        self.which = QComboBox()
        self.which.addItems(["start", "end"])
        self.which.currentTextChanged.connect(lambda _t: self._render())
        self.status = StatusLabel("Probe a question; the best span (or the span you click) is attributed here.")
        self.status.setWordWrap(True)
        self.text = QTextBrowser()
        row = QHBoxLayout()
        row.addWidget(QLabel("attribute the"))
        row.addWidget(self.which)
        row.addWidget(QLabel("logit of the chosen span"))
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(header("Which tokens make the model start / end the answer here (gradient x input)."))
        layout.addLayout(row)
        layout.addWidget(self.status)
        layout.addWidget(self.text, 1)

    def _connect_job(self, job) -> None:
        self.job = job
        job.finished.connect(self._show)
        job.failed.connect(lambda _id, msg, _tb: self.status.setText(msg))

    def use_client(self, client, slot: str) -> None:
        """Compute in the inspector child with the model of ``slot`` (explorer.ui.inspectors.client)."""
        self._slot = slot
        self._connect_job(LatestOnly.in_child(client, f"{slot}.saliency", self))

    def set_span(self, result, window: int, start: int, end: int) -> None:
        """Attribute span (start, end) of ``result.windows[window]`` (a ProbeResult) on a worker thread, now
        if this page is visible, else when it is next shown (one forward and backward pass each)."""
        self._pending = (result, window, start, end)
        if self.isVisible():
            self._compute()

    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        self._compute()

    def _compute(self) -> None:
        pending, self._pending = getattr(self, "_pending", None), None
        if pending is None:
            return
        result, window, start, end = pending
        if self._slot is not None:
            if result is not None and 0 <= window < len(result.windows):
                self.status.setText(f"attributing tokens {start}..{end} of window {window + 1} ...")
                self.job.submit("saliency", {"slot": self._slot, "window": result.windows[window],
                                             "start": int(start), "end": int(end)})
            return
        model = self.model_getter()
        if model is None or result is None or not (0 <= window < len(result.windows)):
            return
        model = getattr(model, "model", model)
        self.status.setText(f"attributing tokens {start}..{end} of window {window + 1} ...")
        self.job.submit(_saliency, model, result.windows[window], start, end)

    def _show(self, _id, sal) -> None:
        self.saliency = sal
        self.status.setText(f"span tokens {sal.start_index}..{sal.end_index}")
        self._render()
        self.computed.emit(sal)

    def _render(self) -> None:
        if self.saliency is not None:
            self.text.setHtml(saliency_html(self.saliency, self.which.currentText()))

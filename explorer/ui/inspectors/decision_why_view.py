"""The decision's "why?" in Spans & τ: a button beside the τ inequality that attributes score_diff (best span score
− s_null) to the window's words with integrated gradients in the inspector child (explorer.core.explain.decision).
Beside the button the job row of every long operation (batches of integration points done, the time left,
Cancel); the result, a summary and the coloured question and passage, in the "Why (no) answer" tab at the page's
full width (a summary beside the button was typeset in a 130 px column and pushed the n-best table out of view).
The texts come from explorer.ui.inspectors.components.decision_why.
"""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QPushButton, QTextBrowser, QVBoxLayout, QWidget

from .common import StatusLabel, header
from .components.decision_why import why_html, why_status, why_summary
from .job_bar import JobBar, veil
from .remote import CANCELLED_NOTE, RemoteJob


class DecisionWhy(QWidget):
    """The "why?" tab; ``button`` and ``job_bar`` sit in the decision box (placed by the Spans view), ``summary``
    over the coloured text in the tab.

    ``use_client(client, slot)`` computes in the inspector child; ``set_result(ProbeResult)`` clears the
    previous attributions (a new probe); ``explain_now()`` is what the button does."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.result = None
        self.attribution = None
        self.window = 0
        self._slot = None
        self._asked_for = None   # the probe result the running job explains
        self.job = None
        self.button = QPushButton("Why? (integrated gradients)")
        self.button.setToolTip("Attribute score_diff = best span score − s_null, the number compared with τ, to "
                               "the words of the window holding the best span: which pushed toward answering, "
                               "which toward no answer (integrated gradients from a [PAD] baseline; 50 or more "
                               "forward and backward passes).")
        self.button.setEnabled(False)
        self.button.clicked.connect(self.explain_now)
        self.job_bar = JobBar("batches", cancel_tip="Stop after the current batch of integration points; the "
                                                    "attributions shown before stay")
        self.summary = QLabel("")
        self.summary.setWordWrap(True)
        self.status = StatusLabel("Probe a question, then press Why? beside the decision.")
        self.status.setWordWrap(True)
        self.text = QTextBrowser()
        layout = QVBoxLayout(self)
        layout.addWidget(header("Which words pushed the decision toward answering (red) and toward no answer "
                                "(blue): integrated gradients of score_diff."))
        layout.addWidget(self.status)
        layout.addWidget(self.summary)
        layout.addWidget(self.text, 1)

    def use_client(self, client, slot: str) -> None:
        """Compute in the inspector child with the model of ``slot``."""
        self._slot = slot
        self.job = RemoteJob(client, self)
        self.job.finished.connect(self._show)
        self.job.failed.connect(lambda msg, _tb: self._failed(msg))
        self.job.cancelled.connect(lambda: self._failed(CANCELLED_NOTE))
        self.job.progress.connect(self.job_bar.set_progress)
        self.job_bar.cancel_requested.connect(self.job.cancel)

    def set_result(self, result) -> None:
        """A new probe: forget the old attributions; the button explains this one."""
        if self.job is not None and self.job.running:   # of the previous probe: not wanted any more
            self.job_bar.cancelling()
            self.job.cancel()
        self.result, self.attribution = result, None
        self.window = result.best_window.index if result is not None else 0
        self.summary.setText("")
        self.text.clear()
        self.button.setEnabled(result is not None and self.job is not None)

    def explain_now(self) -> None:
        """Attribute the shown result's score_diff in the window of its best span."""
        if self.result is None or self.job is None:
            return
        w = self.result.windows[self.window]
        self.status.setText(f"integrated gradients of score_diff over window {self.window + 1} ...")
        self.button.setEnabled(False)
        self.job_bar.start()
        self._asked_for = self.result
        veil(self.text, True)   # the colours shown are of the previous request until the new one replaces them
        self.job.start("decision", {"slot": self._slot, "window": w,
                                    "max_answer_length": int(self.result.max_answer_length)})

    def _ended(self) -> None:
        self.job_bar.finish()
        veil(self.text, False)
        self.button.setEnabled(self.result is not None and self.job is not None)

    def _failed(self, message: str) -> None:
        self._ended()
        self.status.setText(message)

    def _show(self, attribution) -> None:
        self._ended()
        if self._asked_for is not self.result:
            return   # of a probe before the one shown
        self.attribution = attribution
        self.status.setText(why_status(self.result, self.window, attribution))
        self.summary.setText(why_summary(attribution))
        self.text.setHtml(why_html(attribution))

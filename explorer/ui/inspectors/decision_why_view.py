"""The decision's "why?" in Spans & τ: a button beside the τ inequality that attributes score_diff (best span score
− s_null) to the window's words with integrated gradients in the inspector child (explorer.core.explain.decision),
a summary line under it and the coloured question and passage in a tab. The texts come from
explorer.ui.inspectors.components.decision_why.
"""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QPushButton, QTextBrowser, QVBoxLayout, QWidget

from .common import StatusLabel, header
from .components.decision_why import why_html, why_status, why_summary
from .latest import LatestOnly


class DecisionWhy(QWidget):
    """The "why?" tab; ``button`` and ``summary`` sit in the decision box (placed by the Spans view).

    ``use_client(client, slot)`` computes in the inspector child; ``set_result(ProbeResult)`` clears the
    previous attributions (a new probe); ``explain_now()`` is what the button does."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.result = None
        self.attribution = None
        self.window = 0
        self._slot = None
        self.job = None
        self.button = QPushButton("Why? (integrated gradients)")
        self.button.setToolTip("Attribute score_diff = best span score − s_null, the number compared with τ, to "
                               "the words of the window holding the best span: which pushed toward answering, "
                               "which toward no answer (integrated gradients from a [PAD] baseline; 50 or more "
                               "forward and backward passes).")
        self.button.setEnabled(False)
        self.button.clicked.connect(self.explain_now)
        self.summary = QLabel("")
        self.summary.setWordWrap(True)
        self.status = StatusLabel("Probe a question, then press Why? beside the decision.")
        self.status.setWordWrap(True)
        self.text = QTextBrowser()
        layout = QVBoxLayout(self)
        layout.addWidget(header("Which words pushed the decision toward answering (red) and toward no answer "
                                "(blue): integrated gradients of score_diff."))
        layout.addWidget(self.status)
        layout.addWidget(self.text, 1)

    def use_client(self, client, slot: str) -> None:
        """Compute in the inspector child with the model of ``slot``."""
        self._slot = slot
        self.job = LatestOnly.in_child(client, f"{slot}.decision", self)
        self.job.finished.connect(self._show)
        self.job.failed.connect(lambda _id, msg, _tb: self._failed(msg))

    def set_result(self, result) -> None:
        """A new probe: forget the old attributions; the button explains this one."""
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
        self.summary.setText("computing ...")
        self.job.submit("decision", {"slot": self._slot, "window": w,
                                     "max_answer_length": int(self.result.max_answer_length)})

    def _failed(self, message: str) -> None:
        self.status.setText(message)
        self.summary.setText(message)

    def _show(self, _id, attribution) -> None:
        self.attribution = attribution
        self.status.setText(why_status(self.result, self.window, attribution))
        self.summary.setText(why_summary(attribution))
        self.text.setHtml(why_html(attribution))

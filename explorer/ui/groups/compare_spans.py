"""One question in Spans & τ for both checkpoints of a comparison, side by side.

:class:`PairSpansView` holds two :class:`~explorer.ui.inspectors.spans_view.SpansView` panels, A on the
left and B on the right, each with its own n-best, null_score, best_non_null_score, score_diff and τ
decision, computed for its own checkpoint. ``open_row(comparison, row)`` probes the question of a
``core.qa.compare.QuestionComparison`` with both checkpoints (``comparison.label_a`` / ``label_b`` are their
sources) at the comparison's τ and window settings.

The work (model loads, two forward passes) runs in the inspectors' child process
(explorer.ui.inspectors.client, explorer.worker.inspector), like every inspector computation: each checkpoint
is loaded once into its own slot there ("compare-a", "compare-b") and probed without attentions, so the GUI
process never imports torch. A newer request makes an older answer stale (dropped).
"""

from __future__ import annotations

import html
import math

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QScrollArea, QSplitter, QVBoxLayout, QWidget

from explorer.ui.inspectors.spans_view import SpansView

PROBE_SETTINGS = ("max_seq_length", "doc_stride", "max_query_length", "n_best_size", "max_answer_length")


def decision_line(label: str, result, tau: float) -> str:
    """'<b>A</b> runs/x/best: answers "Paris" · score_diff 3.21 > τ 0.00' (HTML) for the header of a side."""
    if result is None:
        return f"<b>{label}</b>"
    d = result.decision(tau)
    diff = result.score_diff
    diff_text = f"{diff:.2f}" if math.isfinite(diff) else "-inf"
    what = f"answers “{html.escape(d.answer_text)}”" if d.answer else "abstains (no answer)"
    cmp = ">" if d.answer else "≤"
    return (f"<b>{label}</b> {html.escape(result.source)}: {what} · score_diff {diff_text} {cmp} τ {tau:.2f} · "
            f"null_score {result.null_score:.2f} · best_non_null_score {result.best_non_null_score:.2f}")


class PairSpansView(QWidget):
    """Spans & τ of one question for checkpoint A (left) and B (right).

    Signals:
        inspector_requested(str source, str question, str passage): "Open in Spans & τ" of one side.
    """

    inspector_requested = Signal(str, str, str)
    probed = Signal()     # both results are shown (tests and screenshots wait for it)

    def __init__(self, parent=None, client=None):
        super().__init__(parent)
        self.client = client               # None = the app's shared inspector child (explorer.ui.inspectors.client)
        self.cache: dict = {}              # child slot -> the source loaded there
        self._results: list = [None, None]
        self.generation = 0
        self.sources = ("", "")
        self.taus = (0.0, 0.0)
        self.row = None
        self.question = QLabel("Double-click a question in the table to see it here for both checkpoints.")
        self.question.setWordWrap(True)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.attention_button = QPushButton("Attention A vs B…")
        self.attention_button.setToolTip("This question's attention under A and B and their difference (B − A), both "
                                         "block flows and both start / end probabilities")
        self.attention_button.setEnabled(False)
        self.attention_button.clicked.connect(self.open_attention)
        self.attention_view = None   # the two-checkpoint attention view (explorer.ui.inspectors.checkpoint_compare_view)
        self.views = (SpansView(), SpansView())
        self.headers = (QLabel("<b>A</b>"), QLabel("<b>B</b>"))
        self.open_buttons = (QPushButton("Open A in Spans && τ"), QPushButton("Open B in Spans && τ"))
        split = QSplitter()
        for i in range(2):
            side = QWidget()
            lay = QVBoxLayout(side)
            lay.setContentsMargins(2, 2, 2, 2)
            top = QHBoxLayout()
            self.headers[i].setWordWrap(True)
            top.addWidget(self.headers[i], 1)
            top.addWidget(self.open_buttons[i])
            self.open_buttons[i].setEnabled(False)
            self.open_buttons[i].clicked.connect(lambda _=False, k=i: self._open_in_inspector(k))
            lay.addLayout(top)
            lay.addWidget(self.views[i], 1)
            self.views[i].tau_changed.connect(lambda tau, k=i: self._tau_moved(k, tau))
            # each side scrolls: two full Spans & τ views side by side need more than a 1280 px screen
            scroll = QScrollArea()
            scroll.setWidgetResizable(True)
            scroll.setFrameShape(QScrollArea.Shape.NoFrame)
            scroll.setWidget(side)
            split.addWidget(scroll)
        lay = QVBoxLayout(self)
        head = QHBoxLayout()
        head.addWidget(self.question, 1)
        head.addWidget(self.attention_button)
        lay.addLayout(head)
        lay.addWidget(self.status)
        lay.addWidget(split, 1)

    def open_row(self, comparison, row) -> int:
        """Probe ``row`` (core.qa.compare.QuestionComparison) with both checkpoints of ``comparison``;
        returns the request number (an older request's answer is dropped)."""
        self.row = row
        gold = " | ".join(row.gold) or "(no answer)"
        self.question.setText(f"<b>{html.escape(row.question)}</b> &nbsp; gold: {html.escape(gold)} &nbsp; "
                              f"F1 A {row.f1_a:.2f} · F1 B {row.f1_b:.2f} &nbsp; <span style='color:#666'>{row.id}"
                              "</span>")
        return self.open(row.question, row.context, (comparison.label_a, comparison.label_b),
                         (comparison.tau_a, comparison.tau_b), comparison.settings)

    def open(self, question: str, passage: str, sources: tuple[str, str], taus=(0.0, 0.0),
             settings: dict | None = None) -> int:
        """Probe one question + passage with both sources on the worker pool; returns the request number."""
        self.generation += 1
        gen, self.sources, self.taus = self.generation, tuple(sources), tuple(float(t) for t in taus)
        if self.row is None or self.row.question != question:
            self.question.setText(f"<b>{html.escape(question)}</b>")
        for i, label in enumerate("AB"):
            self.headers[i].setText(f"<b>{label}</b> {html.escape(self.sources[i])}")
            self.open_buttons[i].setEnabled(False)
        self.attention_button.setEnabled(False)
        self._settings = dict(settings or {})
        self.status.setText("Probing the question with both checkpoints… (the first time loads them)")
        self._text = (question, passage)
        self._results = [None, None]
        client = self.client
        if client is None:
            from explorer.ui.inspectors.client import shared_client

            client = shared_client()
        window = {k: int(v) for k, v in (settings or {}).items() if k in PROBE_SETTINGS and v}
        window = {"max_seq_length": 384, "doc_stride": 128, **window}
        for k in range(2):   # in the inspector child: slot compare-a / compare-b, each loaded once per source
            slot = f"compare-{'ab'[k]}"
            if self.cache.get(slot) != self.sources[k]:
                self.cache[slot] = self.sources[k]
                client.load(slot, self.sources[k], on_error=lambda msg, _tb, g=gen, sl=slot: self._load_failed(g, sl, msg))
            data = {"slot": slot, "question": question, "passage": passage, "tau": self.taus[k], "attentions": False,
                    **window}
            client.request("probe", data, channel=f"{slot}.probe",
                           on_done=lambda res, g=gen, side=k: self._side_done(g, side, res),
                           on_error=lambda msg, _tb, g=gen: self._failed(g, msg))
        return gen

    def _side_done(self, gen: int, side: int, result) -> None:
        if gen != self.generation:
            return
        self._results[side] = result
        if all(r is not None for r in self._results):
            self._done(gen, tuple(self._results))

    def _load_failed(self, gen: int, slot: str, message: str) -> None:
        self.cache.pop(slot, None)          # the next question tries the load again
        self._failed(gen, message)

    def _done(self, gen: int, results) -> None:
        if gen != self.generation:
            return   # a newer question was asked meanwhile
        for i, (view, result) in enumerate(zip(self.views, results)):
            view.set_tau(self.taus[i])
            view.set_result(result)
            self.headers[i].setText(decision_line("AB"[i], result, self.taus[i]))
            self.open_buttons[i].setEnabled(True)
        self.attention_button.setEnabled(True)
        self.status.setText("")
        self.probed.emit()

    def _failed(self, gen: int, message: str) -> None:
        if gen == self.generation:
            self.status.setText(f"Cannot probe this question: {message}")
            self.generation += 1     # the rest of this request (e.g. a probe on a slot whose load failed) is void

    def _tau_moved(self, k: int, tau: float) -> None:
        view = self.views[k]
        if view.result is not None:
            self.headers[k].setText(decision_line("AB"[k], view.result, tau))

    def open_attention(self):
        """The shown question under A and B as attention maps (A, B, B − A), both block flows and both
        probabilities, with the models this page loaded (child slots compare-a and compare-b); returns the view."""
        from explorer.ui.inspectors.checkpoint_compare_view import CheckpointCompareView

        client = self.client
        if client is None:
            from explorer.ui.inspectors.client import shared_client

            client = shared_client()
        if self.attention_view is None:
            self.attention_view = CheckpointCompareView(client=client, slot="compare-a")
            self.attention_view.resize(1280, 800)
        question, passage = getattr(self, "_text", ("", ""))
        self.attention_view.set_example(question, passage, getattr(self, "_settings", {}), label_a=self.sources[0])
        self.attention_view.use_slot_b("compare-b", self.sources[1])
        self.attention_view.show()
        self.attention_view.raise_()
        self.attention_view.compare()
        return self.attention_view

    def _open_in_inspector(self, k: int) -> None:
        question, passage = getattr(self, "_text", ("", ""))
        self.inspector_requested.emit(self.sources[k], question, passage)

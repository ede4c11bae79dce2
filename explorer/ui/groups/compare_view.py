"""Compare view: two checkpoints on one SQuAD dev set (explorer/core/qa/compare.py Comparison).

Shows each checkpoint's EM/F1, the agreement counts as bars (both right / only A / only B / both wrong;
SQuAD 2.0 also answered / abstained), a scatter of per-question F1 (A on x, B on y) and the table of the
questions where the answers differ, largest |F1 B - F1 A| first. Under the header, whether B is better
than A in words (McNemar's exact test on exact match, paired bootstrap intervals; Comparison.significance). Double-clicking a row emits
``row_requested(QuestionComparison)`` (the Compare tab shows it for both checkpoints side by side,
explorer/ui/groups/compare_spans.py) and ``question_requested(question, passage)``.
"""

from __future__ import annotations

import html

from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

pg.setConfigOptions(background="w", foreground="#222")   # the same as explorer/ui/curves/panel.py

# two lines each, so eight labels fit under their bars side by side
COUNT_LABELS = (("both_right", "both\nright"), ("only_a", "only A\nright"), ("only_b", "only B\nright"),
                ("both_wrong", "both\nwrong"), ("both_answered", "both\nanswered"),
                ("only_a_answered", "only A\nanswered"), ("only_b_answered", "only B\nanswered"),
                ("both_abstained", "both\nabstained"))   # answered / abstained
COLUMNS = ("F1 B - A", "question", "gold", "answer A", "answer B", "EM A", "EM B", "F1 A", "F1 B", "id")


class CompareView(QWidget):
    """``set_comparison(comparison)``; signal ``question_requested(str question, str passage)``."""

    question_requested = Signal(str, str)
    row_requested = Signal(object)   # the QuestionComparison of the double-clicked row

    def __init__(self, parent=None):
        super().__init__(parent)
        self.comparison = None
        self.rows: list = []
        self.header = QLabel("No comparison")
        self.header.setWordWrap(True)
        self.header.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.verdict = QLabel("")
        self.verdict.setWordWrap(True)
        self.verdict.setTextFormat(Qt.TextFormat.RichText)   # lines joined by <br> ("p < 0.001" escaped)
        self.verdict.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.verdict.setToolTip("McNemar's exact test on the questions only one checkpoint got exactly right; "
                                "paired bootstrap (10,000 resamples of the questions, the same for A and B, seed 0) "
                                "for the 95% interval of B - A. 'No detectable difference': the interval contains 0.")
        self.bars = pg.PlotWidget(background="w")
        self.bars.setMouseEnabled(False, False)
        self.scatter = pg.PlotWidget(background="w")
        self.scatter.setLabel("bottom", "F1 of A")
        self.scatter.setLabel("left", "F1 of B")
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.cellDoubleClicked.connect(self._open_row)
        self.table.setToolTip("Double-click a question to see it in Spans & τ for both checkpoints, side by side")
        plots = QSplitter(Qt.Horizontal)
        plots.addWidget(self.bars)
        plots.addWidget(self.scatter)
        split = QSplitter(Qt.Vertical)
        split.addWidget(plots)
        split.addWidget(self.table)
        lay = QVBoxLayout(self)
        lay.addWidget(self.header)
        lay.addWidget(self.verdict)
        lay.addWidget(split, 1)

    def set_comparison(self, comparison) -> None:
        """Show a core.qa.compare.Comparison."""
        c = self.comparison = comparison
        self.header.setText(
            f"<b>A</b> {c.label_a}: EM {c.metrics_a['exact_match']:.2f}, F1 {c.metrics_a['f1']:.2f} &nbsp; "
            f"<b>B</b> {c.label_b}: EM {c.metrics_b['exact_match']:.2f}, F1 {c.metrics_b['f1']:.2f} &nbsp; "
            f"({c.version}, {len(c.questions)} questions)<br>" + "<br>".join(c.count_lines()))
        self.verdict.setText("<br>".join(html.escape(line) for line in c.significance().lines()) if c.questions else "")
        self._draw_bars()
        self._draw_scatter()
        self._fill_table()

    def _draw_bars(self) -> None:
        c = self.comparison
        keys = [(k, label) for k, label in COUNT_LABELS if k in c.counts]
        self.bars.clear()
        colours = ["#3a923a", "#1f5fa8", "#d07a12", "#b03030", "#6a6a6a", "#1f5fa8", "#d07a12", "#999999"]
        heights = [c.counts[k] for k, _ in keys]
        self.bars.addItem(pg.BarGraphItem(x=np.arange(len(keys)), height=heights, width=0.7,
                                          brushes=colours[:len(keys)]))
        for i, h in enumerate(heights):
            t = pg.TextItem(str(h), color="#222", anchor=(0.5, 1.0))
            t.setPos(i, h)
            self.bars.addItem(t)
        self.bars.getAxis("bottom").setTicks([[(i, label) for i, (_, label) in enumerate(keys)]])
        self.bars.getAxis("bottom").setStyle(tickFont=self.font())
        self.bars.getAxis("bottom").setHeight(2 * self.fontMetrics().height() + 12)   # room for two lines
        self.bars.setXRange(-0.6, len(keys) - 0.4, padding=0)
        self.bars.setTitle(f"questions (of {len(c.questions)})")

    def _draw_scatter(self) -> None:
        c = self.comparison
        self.scatter.clear()
        fa = np.array([q.f1_a for q in c.questions])
        fb = np.array([q.f1_b for q in c.questions])
        rng = np.random.default_rng(0)   # a little jitter so the many (0,0) and (1,1) points show their mass
        jitter = rng.uniform(-0.02, 0.02, size=(2, len(fa)))
        self.scatter.plot([0, 1], [0, 1], pen=pg.mkPen("#999", style=Qt.DashLine))
        self.scatter.plot(fa + jitter[0], fb + jitter[1], pen=None, symbol="o", symbolSize=5,
                          symbolBrush=pg.mkBrush(31, 95, 168, 110), symbolPen=None)
        self.scatter.setXRange(-0.05, 1.05, padding=0)
        self.scatter.setYRange(-0.05, 1.05, padding=0)
        self.scatter.setTitle("per-question F1 (above the diagonal: B better)")

    def _fill_table(self) -> None:
        self.rows = self.comparison.disagreements()
        self.table.setRowCount(len(self.rows))
        for i, q in enumerate(self.rows):
            values = (f"{q.f1_diff:+.2f}", q.question, " | ".join(q.gold) or "(no answer)", q.answer_a or "(abstain)",
                      q.answer_b or "(abstain)", f"{q.exact_a:.0f}", f"{q.exact_b:.0f}", f"{q.f1_a:.2f}", f"{q.f1_b:.2f}",
                      q.id)
            for j, v in enumerate(values):
                self.table.setItem(i, j, QTableWidgetItem(v))
        self.table.resizeColumnsToContents()
        for column, most in ((1, 360), (2, 220), (3, 220), (4, 220)):
            self.table.setColumnWidth(column, min(self.table.columnWidth(column), most))

    def _open_row(self, row: int, _column: int = 0) -> None:
        if 0 <= row < len(self.rows):
            q = self.rows[row]
            self.row_requested.emit(q)
            self.question_requested.emit(q.question, q.context)

    def export_png(self, path: str | Path) -> bool:
        """The whole view as PNG (works offscreen)."""
        return self.grab().save(str(path))

    def export_report(self, folder: str | Path, data: str = "") -> Path:
        """The report folder: compare.png, report.md and the CSV tables (explorer/core/studies/reports.py)."""
        from explorer.core.studies.reports import write_comparison_report

        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        self.export_png(folder / "compare.png")
        return write_comparison_report(folder, self.comparison, data=data)

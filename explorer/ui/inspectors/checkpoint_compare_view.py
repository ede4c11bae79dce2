"""Two checkpoints, one example: the Attention page's question and passage through the loaded model (A) and
another checkpoint (B). Shows one layer and head as three token maps, A, B and B − A (a diverging colour
scale symmetric about zero: red where B attends more, blue where less), the block flow per layer of both on
one plot (A solid, B dashed), and the start / end probabilities and answers of both.

Renders explorer.core.qa.attention_compare.CheckpointComparison; the two probes run in the inspector child
(op ``compare_checkpoints``), never in the GUI process.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QSplitter,
                               QVBoxLayout, QWidget)

from explorer.ui.curves.legend import fit_legend_columns, legend_below
from explorer.ui.shell.file_dialogs import open_folder
from explorer.ui.shell.screen_fit import keep_on_screen

from .components.attention import QA_BLOCKS
from .common import ReadoutLabel
from .heatmap import TokenHeatmap, upper_level
from .view_export import ExportButton

FLOW_COLORS = ("#1f77b4", "#2ca02c", "#7f7f7f")


def symmetric_levels(diff: np.ndarray) -> tuple[float, float]:
    """(-m, m) with m the largest |B − A| (at least 1e-6): 0 is the middle of the diverging scale."""
    finite = np.abs(diff[np.isfinite(diff)])
    m = float(finite.max()) if finite.size else 0.0
    return -max(m, 1e-6), max(m, 1e-6)


def short_label(source: str) -> str:
    """A checkpoint's name on screen: a folder's last two parts (run/checkpoint-best), a hub id as it is."""
    p = Path(source)
    return f"{p.parent.name}/{p.name}" if p.is_absolute() and p.parent.name else source


class CheckpointCompareView(QWidget):
    """Compare the shown example under checkpoints A (the loaded model) and B (a source typed or browsed).

    Use :meth:`set_example` with the example and the probe settings, then the user (or :meth:`compare`)
    starts the comparison in the inspector child through ``client`` (explorer.ui.inspectors.client).

    Signals:
        compared(object): a CheckpointComparison is shown.
    """

    compared = Signal(object)

    def __init__(self, client=None, slot: str = "qa", parent=None):
        super().__init__(parent)
        keep_on_screen(self)   # shown or resized, its frame stays inside the screen
        self.setWindowTitle("Compare two checkpoints on one example")
        self.slot = slot
        self.comparison = None
        self.example: dict = {}
        self.label_a = "A"
        self.slot_b: str | None = None   # B already loaded in this child slot (use_slot_b)
        self._slot_b_label = ""
        self._requests = None
        if client is not None:
            from .latest import LatestOnly

            self._requests = LatestOnly.in_child(client, f"{slot}.compare", self)
            self._requests.finished.connect(lambda _id, value: self.show_comparison(value))
            self._requests.failed.connect(lambda _id, msg, _tb: self._failed(msg))
        self._build()

    # ---- building -----------------------------------------------------------------------
    def _build(self) -> None:
        self.a_label = QLabel("A: the loaded model")
        self.source_b = QLineEdit()
        self.source_b.setPlaceholderText("checkpoint B: a run's checkpoint folder, a local folder or a hub id")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        self.compare_button = QPushButton("Compare")
        self.compare_button.clicked.connect(self.compare)
        self.source_b.returnPressed.connect(self.compare)
        self.layer = QComboBox()
        self.head = QComboBox()
        for box in (self.layer, self.head):
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
            box.currentIndexChanged.connect(lambda _i: self._redraw())
        self.export = ExportButton(lambda: self, "checkpoint comparison")
        top = QHBoxLayout()
        top.addWidget(self.a_label)
        top.addWidget(QLabel("B:"))
        top.addWidget(self.source_b, 1)
        top.addWidget(browse)
        top.addWidget(self.compare_button)
        pick = QHBoxLayout()
        for w in (QLabel("layer"), self.layer, QLabel("head"), self.head):
            pick.addWidget(w)
        pick.addStretch(1)
        pick.addWidget(self.export)

        self.map_a = TokenHeatmap(colorbar_label="A")
        self.map_b = TokenHeatmap(colorbar_label="B")
        self.map_diff = TokenHeatmap(cmap="CET-D1", colorbar_label="B − A")
        maps = QSplitter(Qt.Orientation.Horizontal)
        self._titles = []
        for m, title in ((self.map_a, "A"), (self.map_b, "B"), (self.map_diff, "B − A")):
            m.setMinimumSize(220, 220)
            m.plot.setTitle(title, size="9pt")
            m.hovered.connect(self._on_hover)
            maps.addWidget(m)

        self.flow_plot = pg.PlotWidget(background="w")
        self.flow_plot.setLabel("bottom", "layer")
        self.flow_plot.setLabel("left", "share of attention")
        self.flow_plot.getAxis("bottom").setTickSpacing(1, 1)
        for axis in ("left", "bottom"):
            self.flow_plot.getAxis(axis).enableAutoSIPrefix(False)
        self._flow_fit = fit_legend_columns(self.flow_plot, legend_below(self.flow_plot, columns=3), max_columns=6)
        self.prob_plot = pg.PlotWidget(background="w")
        self.prob_plot.setLabel("bottom", "token")
        self.prob_plot.setLabel("left", "probability")
        for axis in ("left", "bottom"):
            self.prob_plot.getAxis(axis).enableAutoSIPrefix(False)
        self._prob_fit = fit_legend_columns(self.prob_plot, legend_below(self.prob_plot, columns=4), max_columns=4)
        for plot in (self.flow_plot, self.prob_plot):
            plot.setMinimumHeight(250)
        plots = QSplitter(Qt.Orientation.Horizontal)
        plots.addWidget(self.flow_plot)
        plots.addWidget(self.prob_plot)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(maps)
        split.addWidget(plots)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        split.setChildrenCollapsible(False)
        self.answers = QLabel()
        self.answers.setWordWrap(True)
        self.info = ReadoutLabel("Type or browse checkpoint B and press Compare.", lines=2)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addLayout(pick)
        lay.addWidget(split, 1)
        lay.addWidget(self.answers)
        lay.addWidget(self.info)

    # ---- public -------------------------------------------------------------------------
    def set_example(self, question: str, passage: str, settings: dict | None = None, label_a: str = "A",
                    window: int | None = None) -> None:
        """The example to compare and the probe's window settings (max_seq_length, doc_stride, ...)."""
        self.example = {"question": question, "passage": passage, "window": window,
                        **{k: v for k, v in (settings or {}).items()
                           if k in ("max_seq_length", "doc_stride", "max_query_length", "max_answer_length")}}
        self.label_a = label_a or "A"
        self.a_label.setText(f"A: {self.label_a}")

    def use_slot_b(self, slot: str, label: str) -> None:
        """Take B from a model already loaded in the inspector child's ``slot`` (shown as ``label``); typing another
        source in the B field uses that source instead."""
        self.slot_b, self._slot_b_label = slot, label
        self.source_b.setText(label)

    def compare(self) -> int | None:
        """Ask the inspector child for the comparison; returns the request id (None without a client or B)."""
        source = self.source_b.text().strip()
        if not source:
            self.info.setText("Choose checkpoint B first (a folder or a hub id).")
            return None
        if self._requests is None or not self.example:
            return None
        self.info.setText(f"Comparing {self.label_a} with {source} …")
        data = {"slot": self.slot, "source_b": source, "label_a": self.label_a, "label_b": short_label(source),
                **self.example}
        if self.slot_b and source == self._slot_b_label:
            data["slot_b"] = self.slot_b
        return self._requests.submit("compare_checkpoints", data)

    def show_comparison(self, comparison) -> None:
        """Show a CheckpointComparison (explorer.core.qa.attention_compare)."""
        self.comparison = c = comparison
        for box, items in ((self.layer, [str(i + 1) for i in range(c.num_layers)]),
                           (self.head, ["mean"] + [str(h + 1) for h in range(c.num_heads)])):
            box.blockSignals(True)
            current = box.currentIndex()
            box.clear()
            box.addItems(items)
            box.setCurrentIndex(min(max(current, 0), len(items) - 1))
            box.blockSignals(False)
        self._redraw()
        self._draw_probs()
        self.answers.setText(
            f"<b>A</b> ({c.label_a}): “{c.answer_a or 'no answer'}”, score_diff {c.score_diff_a:+.2f} &nbsp;&nbsp; "
            f"<b>B</b> ({c.label_b}): “{c.answer_b or 'no answer'}”, score_diff {c.score_diff_b:+.2f} "
            f"&nbsp; (window {c.window + 1} of {c.n_windows}, τ = 0)")
        self.info.setText("Hover a cell to read A, B and B − A. Red: B attends more than A; blue: less.")
        self.compared.emit(c)

    def matrices(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """What the three maps show now: (A, B, B − A), each (n, n)."""
        return self.map_a.matrix, self.map_b.matrix, self.map_diff.matrix

    # ---- internals ----------------------------------------------------------------------
    def _head(self) -> int | None:
        h = self.head.currentIndex()
        return None if h <= 0 else h - 1

    def _redraw(self) -> None:
        c = self.comparison
        if c is None:
            return
        layer, head = max(self.layer.currentIndex(), 0), self._head()
        a, b, diff = c.attention(layer, head)
        top = max(upper_level(a, 0.995), upper_level(b, 0.995), 1e-6)   # one scale for A and B
        for m, x in ((self.map_a, a), (self.map_b, b)):
            m.set_matrix(x, c.tokens, c.tokens, c.blocks, c.blocks, levels=(0.0, top), keep_view=True)
        self.map_diff.set_matrix(diff, c.tokens, c.tokens, c.blocks, c.blocks, levels=symmetric_levels(diff),
                                 keep_view=True)
        what = f"layer {layer + 1}, " + ("mean over heads" if head is None else f"head {head + 1}")
        self.map_a.plot.setTitle(f"A: {what}", size="9pt")
        self.map_b.plot.setTitle(f"B: {what}", size="9pt")
        self.map_diff.plot.setTitle(f"B − A (max |B − A| {np.abs(diff).max():.3f})", size="9pt")
        self._draw_flow(head)

    def _curves(self, plot, key: str, specs, fit) -> list:
        """The plot's curve items, made once (a legend_below legend keeps its entries; only the data change)."""
        made = getattr(self, key, None)
        if made is None:
            made = [plot.plot([], [], name=name, **style) for name, style in specs]
            setattr(self, key, made)
            fit.hold_one_column()   # the plot's minimum size holds its whole legend
        return made

    def _draw_flow(self, head: int | None) -> None:
        c = self.comparison
        fa, fb = c.flow(head)
        specs = []
        for (name, _, _), color in zip(QA_BLOCKS.flow_columns, FLOW_COLORS):
            specs.append((f"A {name}", dict(pen=pg.mkPen(color, width=2), symbol="o", symbolSize=5, symbolBrush=color)))
            specs.append((f"B {name}", dict(pen=pg.mkPen(color, width=2, style=Qt.PenStyle.DashLine), symbol="t",
                                            symbolSize=6, symbolBrush=color)))
        curves = self._curves(self.flow_plot, "_flow_curves", specs, self._flow_fit)
        x = np.arange(1, c.num_layers + 1)
        for k, (_, i, j) in enumerate(QA_BLOCKS.flow_columns):
            curves[2 * k].setData(x, fa[:, i, j])
            curves[2 * k + 1].setData(x, fb[:, i, j])
        which = "mean over heads" if head is None else f"head {head + 1}"
        self.flow_plot.setTitle(f"block flow per layer, {which} (A solid, B dashed)", size="9pt")
        self._flow_fit.fit(self.flow_plot.width())

    def _draw_probs(self) -> None:
        c = self.comparison
        specs = []
        for name, color in (("start", "#d62728"), ("end", "#9467bd")):
            specs.append((f"A {name}", dict(pen=pg.mkPen(color, width=2))))
            specs.append((f"B {name}", dict(pen=pg.mkPen(color, width=2, style=Qt.PenStyle.DashLine))))
        curves = self._curves(self.prob_plot, "_prob_curves", specs, self._prob_fit)
        x = np.arange(len(c.tokens))
        for k, y in enumerate((c.start_probs_a, c.start_probs_b, c.end_probs_a, c.end_probs_b)):
            curves[k].setData(x, y)
        self.prob_plot.setTitle("start / end probability per token (A solid, B dashed)", size="9pt")
        self._prob_fit.fit(self.prob_plot.width())

    def _on_hover(self, row: int, col: int) -> None:
        c = self.comparison
        if c is None or row < 0:
            return
        a, b, d = self.matrices()
        self.info.setText(f"'{c.tokens[row]}' → '{c.tokens[col]}': A {a[row, col]:.4f}, B {b[row, col]:.4f}, "
                          f"B − A {d[row, col]:+.4f}")

    def _browse(self) -> None:
        path = open_folder(self, "Checkpoint B (a folder with config.json)", "model", self.source_b.text())
        if path:
            self.source_b.setText(path)

    def _failed(self, message: str) -> None:
        self.info.setText(f"Could not compare: {message}")

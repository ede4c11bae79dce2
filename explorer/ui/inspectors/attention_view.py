"""Attention view: how attention flows between the question and the passage, per layer and head.

Renders a ProbeResult's AttentionData (explorer.core.attention): a token x token heatmap of one
layer/head (or the head mean, or rollout), a head-view drawing of the top-k weights per token,
the block-flow table and its plot over layers, and a model view of all layers x heads for one
block flow. Everything shown is computed in core; this module only slices, merges word pieces
(explorer.core.wordmerge) and draws. A full 384-token window redraws without a forward pass
(scripts/bench_inspectors.py prints the time).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QHBoxLayout, QHeaderView, QLabel, QPushButton, QScrollArea, QSpinBox,
                               QSplitter, QTableWidget, QTableWidgetItem, QTabWidget, QVBoxLayout, QWidget)

from explorer.core.attention import BLOCKS, PASSAGE, QUESTION, SPECIAL
from explorer.core.attention_layers import head_matrix
from explorer.core.wordmerge import merge_attention, merge_rows, word_groups
from explorer.ui.curves.legend import fit_legend_columns, legend_below
from explorer.ui.shell.adaptive_splitter import AdaptiveSplitter
from explorer.ui.shell.columns import cells_told_once
from explorer.ui.shell.flow_layout import FlowLayout
from explorer.ui.shell.scrolling import scrolling, wheel_scrolls_page
from explorer.ui.shell.turns import zero_timer

from .common import ReadoutLabel, header, tip
from .head_view import HeadView
from .heatmap import TokenHeatmap, upper_level
from .view_export import ExportButton

MODE_LAYER, MODE_ROLLOUT = 0, 1
MIN_MAP_PX = 220    # the token map's smallest side inside its axes, pixels
MIN_PLOT_PX = 140   # the block-flow curves' smallest height inside the plot's axes, pixels


@dataclass(frozen=True)
class BlockLayout:
    """What the view calls the blocks of explorer.core.attention.BLOCKS and which flows it offers.

    Attributes:
        labels: block name -> its name on screen; a block left out has no tokens in these windows.
        directions: the head view's (label, from block, to block) choices (None = all tokens).
        flow_columns: the block-flow table's (label, from block index, to block index) columns;
            flow_headers: their short headers (the full names are the header tooltips).
        pairs: the model view's (from, to) block index pairs; default_pair: the one shown first.
        header: the view's one-line header; empty: the readout before the first result; panel: the page whose
            help is the header's tooltip.
    """

    labels: dict
    directions: tuple
    flow_columns: tuple
    flow_headers: tuple
    pairs: tuple
    default_pair: tuple
    header: str
    empty: str
    panel: str = "Attention"


QA_BLOCKS = BlockLayout(
    labels={"question": "question", "passage": "passage", "special": "[CLS]/[SEP]"},
    directions=(("question → passage", "question", "passage"), ("passage → question", "passage", "question"),
                ("all tokens → all tokens", None, None)),
    flow_columns=(("question → passage", QUESTION, PASSAGE), ("passage → question", PASSAGE, QUESTION),
                  ("question → [CLS]/[SEP]", QUESTION, SPECIAL)),
    flow_headers=("q→p", "p→q", "q→[CLS]/[SEP]"),
    pairs=tuple((a, b) for a in range(len(BLOCKS)) for b in range(len(BLOCKS))),
    default_pair=(QUESTION, PASSAGE),
    header=("How attention flows between question and passage: one layer and head as a token x token map and as "
            "lines (thickness = weight), the block flow per layer, and all layers x heads at once."),
    empty="Probe a question and a passage to see attention.")

# one sentence (the Tag page): its pieces are block 0 ("question", as core.classify's sentence A), no passage
SENTENCE_BLOCKS = BlockLayout(
    labels={"question": "sentence", "special": "[CLS]/[SEP]"},
    directions=(("all tokens → all tokens", None, None), ("sentence → sentence", "question", "question"),
                ("sentence → [CLS]/[SEP]", "question", "special")),
    flow_columns=(("sentence → sentence", QUESTION, QUESTION), ("sentence → [CLS]/[SEP]", QUESTION, SPECIAL),
                  ("[CLS]/[SEP] → sentence", SPECIAL, QUESTION)),
    flow_headers=("s→s", "s→[CLS]/[SEP]", "[CLS]/[SEP]→s"),
    pairs=((QUESTION, QUESTION), (QUESTION, SPECIAL), (SPECIAL, QUESTION), (SPECIAL, SPECIAL)),
    default_pair=(QUESTION, SPECIAL),
    header=("The attention of the sentence being tagged: one layer and head as a token x token map and as lines "
            "(thickness = weight), the share of attention the sentence gives [CLS]/[SEP] per layer, and all "
            "layers x heads at once."),
    empty="Tag a sentence to see its attention.", panel="Tag")


class AttentionView(QWidget):
    """Attention of one probed window. set_result(ProbeResult | None); set_window(i).

    Signals:
        window_changed(int): the user picked another window.
        weights_requested(int): with ``async_weights`` set, the shown window's raw weights were not kept (memory
            budget): the owner computes them off the GUI thread (ProbeResult.attention_weights) and calls
            :meth:`weights_ready`. Without it they are computed here, when shown.
        compare_requested(): "Compare with checkpoint…": the owner opens the two-checkpoint view on this example.
    """

    window_changed = Signal(int)
    weights_requested = Signal(int)
    compare_requested = Signal()

    def __init__(self, parent=None, *, blocks: BlockLayout = QA_BLOCKS):
        super().__init__(parent)
        self.blocks = blocks
        self.result = None
        self.window = 0
        self._groups = None
        self._labels: list[str] = []
        self._blocks: list[str] = []
        self._matrix = np.zeros((0, 0), dtype=np.float32)
        self._left_idx = np.zeros(0, dtype=np.int64)
        self._right_idx = np.zeros(0, dtype=np.int64)
        self._updating = False
        self._flow_key: tuple | None = None    # what the flow table / model map show now (see _redraw_flow)
        self._model_key: tuple | None = None
        # a shown view redraws the map in the turn of the change and the rest (head view, block flow, selection
        # readout) in the next one, after the map's paint: no turn holds the GUI thread for all of it
        self._rest = zero_timer(self, self._redraw_rest)
        self.async_weights = False
        controls = self._build_controls()
        top = self._build_token_views()
        self.bottom = QTabWidget()
        self.bottom.addTab(self._build_flow(), "Block flow per layer")
        # short titles: both tabs, Compare… and Export stay whole beside each other in a 1280 px window
        self.bottom.addTab(self._build_model_view(), "Model view")
        self.bottom.setTabToolTip(1, "The block flow of every layer × head at once (rows: layers, columns: heads).")
        corner = QWidget()   # beside the tabs: no extra row of height
        cl = QHBoxLayout(corner)
        cl.setContentsMargins(0, 0, 0, 2)
        cl.addWidget(self.compare)
        cl.addWidget(self.export)
        self.bottom.setCornerWidget(corner, Qt.Corner.TopRightCorner)
        self._layout(controls, top)
        self._connect()
        self._set_enabled(False)

    # ----------------------------------------------------------------------------------- building
    def _build_controls(self) -> FlowLayout:
        """The mode / layer / head / window row (and the head view's direction and top-k controls)."""
        self.mode = QComboBox()
        self.mode.addItems(["one layer", "rollout"])   # short items keep the control row narrow
        self.mode.setToolTip(tip("rollout"))
        self.layer = QComboBox()
        self.layer.setToolTip("Layer shown in the token map and the head view (1 = closest to the input).")
        self.head = QComboBox()
        self.head.setToolTip("One attention head, or the mean over all heads of the layer.")
        self.window_box = QComboBox()
        self.window_box.setToolTip("A long passage is cut into overlapping windows (doc_stride); each has its "
                                   "own attention.\n" + tip("doc_stride"))
        self.merge = QCheckBox("merge word pieces")
        self.merge.setToolTip("One row/column per word: attention to a word = sum over its pieces, from a word "
                              "= mean over its pieces (Clark et al. 2019).")
        self.direction = QComboBox()
        self.direction.addItems([d[0] for d in self.blocks.directions])
        self.topk = QSpinBox()
        self.topk.setRange(1, 50)
        self.topk.setValue(5)
        self.topk.setPrefix("top ")
        self.topk.setToolTip("Lines drawn per from-token in the head view: its k largest weights.")
        for box in (self.mode, self.layer, self.head, self.direction):
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        # whole: "window 2 of 11 · 384 tokens · chars 374–940" (an elided box reads "1: 165 tokens, chars"); the
        # control row wraps it onto a line of its own in a narrow view
        self.window_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.export = ExportButton(self._export_widget, "attention view", html=self.html_job)
        self.compare = QPushButton("Compare with checkpoint…")
        self.compare.setToolTip("The same question and passage through another checkpoint: its attention beside "
                                "this one's and their difference, both block flows, both answers.")
        self.compare.clicked.connect(self.compare_requested)
        self.compare.setVisible(False)   # shown when an owner listens (the QA Attention page)
        self.compare.setText("Compare…")
        self.compare.setToolTip("Compare with checkpoint…: " + self.compare.toolTip())
        controls = FlowLayout()   # wraps in a narrow window instead of widening it
        for w in (QLabel("mode"), self.mode, QLabel("layer"), self.layer, QLabel("head"), self.head,
                  self.window_box, self.merge):   # the window box's items name themselves
            controls.addWidget(w)
        controls.addStretch(1)
        return controls

    def _build_token_views(self) -> QSplitter:
        """The token x token heat map beside the head view (lines), and the hover readout."""
        self.heatmap = TokenHeatmap(colorbar_label="attention weight")
        # a map of MIN_MAP_PX or more inside its token labels and colour bar; narrower than that and the head
        # view goes under it (side by side in a 1280 px window the map would be a 90 px strip)
        self.heatmap.setMinimumSize(MIN_MAP_PX + 150, MIN_MAP_PX + 70)
        self.heatmap.plot.setLabel("left", "from token (row)")
        self.heatmap.plot.setLabel("bottom", "to token (column)")
        self.head_view = HeadView()
        self.head_scroll = QScrollArea()
        self.head_scroll.setWidgetResizable(True)
        self.head_scroll.setWidget(self.head_view)
        head_box = QWidget()
        hl = QVBoxLayout(head_box)
        hl.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        row.addWidget(self.direction)
        row.addWidget(self.topk)
        row.addStretch(1)
        hl.addLayout(row)
        hl.addWidget(self.head_scroll)
        # fixed height: a hover readout that wraps to more lines would move the plots (and re-thin the
        # heat map's token labels) on every mouse move
        self.info = ReadoutLabel(self.blocks.empty, lines=3)

        head_box.setMinimumHeight(MIN_MAP_PX + 40)
        top = AdaptiveSplitter()   # side by side when both fit, the head view under the map when not
        top.addWidget(self.heatmap)
        top.addWidget(head_box)
        top.setStretchFactor(0, 3)
        top.setStretchFactor(1, 2)
        return top

    def _build_flow(self) -> QSplitter:
        """Block flow per layer: the table and the plot over layers."""
        self.flow_table = QTableWidget(0, len(self.blocks.flow_columns))
        self.flow_table.setHorizontalHeaderLabels(list(self.blocks.flow_headers))
        for c, (name, _, _) in enumerate(self.blocks.flow_columns):
            self.flow_table.horizontalHeaderItem(c).setToolTip(f"{name}: share of the attention of the "
                                                               f"{name.split(' → ')[0]} tokens that goes to the "
                                                               f"{name.split(' → ')[1]} tokens")
        self.flow_table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.flow_table.setSizeAdjustPolicy(QTableWidget.SizeAdjustPolicy.AdjustToContents)
        self.flow_table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.flow_table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.flow_table.setToolTip(tip("block flow"))
        self.flow_table.setMinimumHeight(110)   # the header and three layers, also above the plot
        self.flow_plot = pg.PlotWidget(background="w")
        # the curves get MIN_PLOT_PX or more between the title and the axis (else 23 px in a 1280x800 window);
        # part of the widget's minimum size (hold_one_column below), so a page too low for it scrolls
        self.flow_plot.getPlotItem().getViewBox().setMinimumHeight(MIN_PLOT_PX)
        self.flow_plot.setLabel("bottom", "layer")
        self.flow_plot.setLabel("left", "share of attention")
        # under the axis: never over the curves (shares run up to 1.0); fewer columns when the plot is narrow
        self._flow_legend_fit = fit_legend_columns(self.flow_plot, legend_below(self.flow_plot))
        self.flow_plot.getAxis("left").enableAutoSIPrefix(False)
        self.flow_plot.getAxis("bottom").enableAutoSIPrefix(False)   # no "layer (x0.001)" on an empty plot
        self.flow_plot.getAxis("bottom").setTickSpacing(1, 1)
        self.flow_plot.setToolTip(tip("block flow"))
        self._flow_curves = []
        # dynamicRangeLimit off: shares stay within the auto range, and with it every new y range (a head change)
        # rebuilt each curve's points a second time
        for (name, _, _), color in zip(self.blocks.flow_columns, ("#1f77b4", "#2ca02c", "#7f7f7f")):
            self._flow_curves.append(self.flow_plot.plot([], [], pen=pg.mkPen(color, width=2), symbol="o",
                                                         symbolSize=6, symbolBrush=color, name=name,
                                                         dynamicRangeLimit=None))
        self._flow_legend_fit.hold_one_column()   # its entries exist now: the plot's minimum size
        self._layer_line = pg.InfiniteLine(angle=90, pen=pg.mkPen("#d62728", style=Qt.PenStyle.DashLine))
        self.flow_plot.addItem(self._layer_line)
        flow_box = AdaptiveSplitter()   # the plot under the table when both do not fit side by side
        flow_box.addWidget(self.flow_table)
        flow_box.addWidget(self.flow_plot)
        flow_box.setStretchFactor(0, 0)
        flow_box.setStretchFactor(1, 1)
        return flow_box

    def _build_model_view(self) -> QWidget:
        """The model view: one block-flow pair over all layers x heads."""
        self.model_pair = QComboBox()
        self._pairs = list(self.blocks.pairs)
        names = self.blocks.labels
        self.model_pair.addItems([f"{names[BLOCKS[a]]} → {names[BLOCKS[b]]}" for a, b in self._pairs])
        self.model_pair.setCurrentIndex(self._pairs.index(self.blocks.default_pair))
        self.model_pair.setToolTip(tip("block flow"))
        self.model_map = TokenHeatmap(cmap="inferno", colorbar_label="block flow")
        self.model_map.setMinimumHeight(150)
        model_box = QWidget()
        ml = QVBoxLayout(model_box)
        ml.setContentsMargins(0, 0, 0, 0)
        mrow = FlowLayout()   # wraps: the page scrolls up and down only
        mrow.addWidget(QLabel("block flow shown:"))
        mrow.addWidget(self.model_pair)
        hint = QLabel("rows: layers, columns: heads")
        hint.setToolTip("Click a cell to show that layer and head above.")
        mrow.addWidget(hint)
        mrow.addStretch(1)
        ml.addLayout(mrow)
        ml.addWidget(self.model_map)
        return model_box

    def _layout(self, controls: FlowLayout, top: QSplitter) -> None:
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(top)
        split.addWidget(self.bottom)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setChildrenCollapsible(False)   # a dragged handle never squeezes a plot to nothing
        self._split = split   # what the PNG / SVG export saves
        # the views keep their minimum sizes: a window too low for them scrolls (the header, the controls and
        # the hover readout stay in view)
        self.scroll = scrolling(split, horizontal=False)

        layout = QVBoxLayout(self)
        layout.addWidget(header(self.blocks.header, panel=self.blocks.panel))
        layout.addLayout(controls)
        layout.addWidget(self.scroll, 1)
        layout.addWidget(self.info)
        wheel_scrolls_page(self)   # the wheel over a plot scrolls the page; Ctrl+wheel zooms the plot

    def _connect(self) -> None:
        for box in (self.mode, self.layer, self.head, self.direction, self.model_pair):
            box.currentIndexChanged.connect(self._redraw)
        self.window_box.currentIndexChanged.connect(self._on_window_box)
        self.merge.toggled.connect(self._redraw)
        self.topk.valueChanged.connect(self._redraw_head_view)
        self.heatmap.hovered.connect(self._on_heatmap_hover)
        self.head_view.token_hovered.connect(self._on_head_hover)
        self.head_view.selection_changed.connect(lambda *_: self._show_selection())
        self.model_map.clicked.connect(self._on_model_click)
        self.flow_table.cellClicked.connect(lambda r, c: self.layer.setCurrentIndex(r))

    # ----------------------------------------------------------------------------------- public
    def set_result(self, result) -> None:
        """Show a ProbeResult (from probe(..., attentions=True)); None clears the view."""
        self.result = result
        self._flow_key = self._model_key = None
        self._rest.stop()
        has = result is not None and result.attention
        self._set_enabled(bool(has))
        self._updating = True
        try:
            if not has:
                self.info.setText((getattr(result, "attention_note", "")
                                   or "This probe has no attention (probe with attentions=True).")
                                  if result is not None else self.blocks.empty)
                return
            att = result.attention[0]
            self._fill_combo(self.layer, [str(i + 1) for i in range(att.num_layers)])
            self._fill_combo(self.head, ["mean"] + [str(i + 1) for i in range(att.num_heads)])
            self._fill_combo(self.window_box, [self._window_label(w, len(result.windows)) for w in result.windows])
            self.window = min(self.window, len(result.windows) - 1)
            self.window_box.setCurrentIndex(self.window)
        finally:
            self._updating = False
        self._redraw()

    def weights_ready(self, result, index: int) -> None:
        """The raw weights of window ``index`` of ``result`` are now kept: redraw if that is what is shown."""
        if result is self.result and index == self.window:
            self._redraw()

    def set_window(self, index: int) -> None:
        if self.result is None or not (0 <= index < len(self.result.windows)):
            return
        if index != self.window_box.currentIndex():
            self.window_box.setCurrentIndex(index)  # -> _on_window_box -> redraw

    def current_matrix(self) -> np.ndarray:
        """The matrix the heatmap shows now (after merging), (n, n)."""
        return self._matrix

    def current_labels(self) -> list[str]:
        return list(self._labels)

    def export_html(self, path: str) -> None:
        """The shown window's attention (all layers and heads, word pieces as tokens) as one interactive HTML
        page (explorer.core.attention_html), opened at the layer and head shown. Written now; the Export
        button writes it off the GUI thread (:meth:`html_job`: a 384-token BERT-base window takes seconds).

        Raises:
            ValueError: no attention shown, or its weights are still being computed; OSError: not written.
        """
        self.html_job(path)()

    def html_job(self, path: str):
        """What :meth:`export_html` writes, gathered now (on the GUI thread; raises as export_html) as a
        function of no arguments that writes the file (on any thread)."""
        import functools

        from explorer.core.attention_html import write_attention_html

        if self.result is None or not self.result.attention:
            raise ValueError("there is no attention to export; probe first")
        weights = self._attention().attentions
        if weights is None and not self.async_weights and getattr(self.result, "lazy_attention", None) is not None:
            weights = self.result.attention_weights(self.window)
        if weights is None:
            raise ValueError("the weights of this window are still being computed; try again in a moment")
        win = self.result.windows[self.window]
        title = " ".join(x for x in (getattr(self.result, "question", "") or getattr(self.result, "text", ""),
                                     f"(window {self.window + 1} of {len(self.result.windows)})") if x)
        return functools.partial(write_attention_html, path, weights, list(win.tokens), list(win.blocks),
                                 title=title, layer=max(self.layer.currentIndex(), 0) + 1,
                                 head=max(self.head.currentIndex(), 0))

    # ----------------------------------------------------------------------------------- internals
    @staticmethod
    def _fill_combo(box: QComboBox, items: list[str]) -> None:
        current = box.currentIndex()
        if [box.itemText(i) for i in range(box.count())] != items:
            box.clear()
            box.addItems(items)
            box.setCurrentIndex(min(max(current, 0), len(items) - 1))

    @staticmethod
    def _window_label(w, count: int) -> str:
        """'window 2 of 11 · 384 tokens · chars 374–940' (the passage characters the window covers)."""
        offs = [o for o in w.offsets if o is not None]
        chars = f"chars {offs[0][0]}–{offs[-1][1]}" if offs else "no passage"
        return f"window {w.index + 1} of {count} · {len(w.tokens)} tokens · {chars}"

    def _set_enabled(self, on: bool) -> None:
        for w in (self.mode, self.layer, self.head, self.window_box, self.merge, self.direction, self.topk,
                  self.model_pair, self.export, self.compare):
            w.setEnabled(on)

    def _on_window_box(self, index: int) -> None:
        if self._updating or index < 0:
            return
        self.window = index
        self._redraw()
        self.window_changed.emit(index)

    def _attention(self):
        return self.result.attention[self.window]

    def _raw_matrix(self) -> tuple[np.ndarray, str]:
        att = self._attention()
        if self.mode.currentIndex() == MODE_ROLLOUT:
            return att.rollout, "rollout over all layers"
        layer = max(self.layer.currentIndex(), 0)
        head = self.head.currentIndex()
        # computed when shown if the probe kept only the shown window (attention memory budget)
        weights = att.attentions
        if weights is None and getattr(self.result, "lazy_attention", None) is not None:
            if self.async_weights:
                self.weights_requested.emit(self.window)
                n = len(self.result.windows[self.window].tokens)
                return np.zeros((n, n), np.float32), f"computing the weights of window {self.window + 1} …"
            weights = self.result.attention_weights(self.window)
        if weights is None:
            raise ValueError("the probe kept no raw attention weights (keep_attentions=None)")
        if head <= 0:   # cached per weights array and layer (explorer.core.attention_layers)
            return head_matrix(weights, layer), f"layer {layer + 1}, mean over heads"
        return head_matrix(weights, layer, head - 1), f"layer {layer + 1}, head {head}"

    def _redraw(self) -> None:
        if self._updating or self.result is None or not self.result.attention:
            return
        rollout = self.mode.currentIndex() == MODE_ROLLOUT
        self.layer.setEnabled(not rollout)
        self.head.setEnabled(not rollout)
        win = self.result.windows[self.window]
        matrix, what = self._raw_matrix()
        if self.async_weights and self.result.attention[self.window].attentions is None \
                and self.mode.currentIndex() != MODE_ROLLOUT:
            # the weights are on their way (weights_ready redraws): no 30-100 ms redraw of a placeholder
            self._rest.stop()
            self._groups, self._what = None, what
            self._matrix, self._labels, self._blocks = matrix, list(win.tokens), list(win.blocks)
            self.info.setText(f"{what} (the maps still show the window before)")
            return
        if self.merge.isChecked():
            self._groups = word_groups(win.tokens, win.word_ids, win.blocks)
            matrix = merge_attention(matrix, self._groups)
            labels, blocks = self._groups.labels, self._groups.blocks
        else:
            self._groups = None
            labels, blocks = list(win.tokens), list(win.blocks)
        self._matrix, self._labels, self._blocks = matrix, labels, blocks
        # colour scale up to the 99.5th percentile: one [CLS]/[SEP] column near 1 would otherwise turn a
        # 384-token map black; the colour bar shows the range and the hover text gives exact values
        vmax = upper_level(matrix, 0.995) if matrix.size else 1.0
        self.heatmap.set_matrix(matrix, labels, labels, blocks, blocks, levels=(0.0, max(vmax, 1e-6)),
                                keep_view=True)
        self._what = what
        note = getattr(self.result, "attention_note", "")
        # the memory note before the usage hint: the readout holds three lines and elides what does not fit
        self.info.setText(f"{what}; window {self.window + 1} of {len(self.result.windows)}, "
                          f"{len(labels)} {'words' if self._groups else 'tokens'}."
                          + (f"\nMemory budget: {note}." if note else "")
                          + "\nRows attend to columns; hover a token to see where its attention goes; click, "
                          "Ctrl+click or drag in the lines view to select several.")
        if not self.isVisible():
            self._redraw_rest()   # nothing is painted: no reason to wait
            return
        if self.flow_table.rowCount() != self._attention().num_layers:
            # new table rows and the plot's first title (the first result, another model) change the page's
            # layout: they come now, so that the map is not painted once at a size it loses a turn later
            self._lay_out_flow(*self._head_mean_or_head(self._attention().flow))
        self._rest.start()   # restarted by a quick series of changes: the rest is drawn once, for the last

    def _redraw_rest(self) -> None:
        """The second turn of a redraw: the head view, the block flow and model view, the selection readout."""
        self._rest.stop()
        if self.result is None or not self.result.attention:
            return
        self._redraw_head_view()
        self._redraw_flow()
        self._show_selection()

    def finish_redraw(self) -> None:
        """Draw now what the last change left for the next event-loop turn (a shown view; tests, exports and the
        hover readouts, which read the head view's tokens)."""
        if self._rest.isActive():
            self._redraw_rest()

    def redraw_pending(self) -> bool:
        """Whether part of the last change is still to be drawn (in the next event-loop turn)."""
        return self._rest.isActive()

    def _export_widget(self) -> QWidget:
        self.finish_redraw()
        return self._split

    def _redraw_head_view(self) -> None:
        if self.result is None or self._matrix.size == 0:
            return
        _, left_block, right_block = self.blocks.directions[max(self.direction.currentIndex(), 0)]
        blocks = np.array(self._blocks)
        n = len(self._blocks)
        self._left_idx = np.flatnonzero(blocks == left_block) if left_block else np.arange(n)
        self._right_idx = np.flatnonzero(blocks == right_block) if right_block else np.arange(n)
        weights = self._matrix[np.ix_(self._left_idx, self._right_idx)]
        self.head_view.set_data(weights, [self._labels[i] for i in self._left_idx],
                                [self._labels[i] for i in self._right_idx],
                                [self._blocks[i] for i in self._left_idx],
                                [self._blocks[i] for i in self._right_idx], k=self.topk.value())

    def _head_mean_or_head(self, flow: np.ndarray) -> tuple[np.ndarray, str]:
        head = self.head.currentIndex()
        if head <= 0 or self.mode.currentIndex() == MODE_ROLLOUT:
            return flow.mean(axis=1), "mean over heads"
        return flow[:, head - 1], f"head {head}"

    def _redraw_flow(self) -> None:
        att = self._attention()
        per_layer, which = self._head_mean_or_head(att.flow)  # (layers, 3, 3)
        # a layer change only moves the marks: the table, curves and model map are refilled when what they
        # show changes (another probe, window, head choice or block pair)
        key = (id(att), which)
        if key != self._flow_key:
            self._flow_key = key
            self._fill_flow(per_layer, which)
        layer = max(self.layer.currentIndex(), 0)
        self._layer_line.setValue(layer + 1)
        self._layer_line.setVisible(self.mode.currentIndex() == MODE_LAYER)
        if self.mode.currentIndex() == MODE_LAYER:
            self.flow_table.selectRow(layer)
        pair = max(self.model_pair.currentIndex(), 0)
        if (id(att), pair) != self._model_key:
            self._model_key = (id(att), pair)
            a, b = self._pairs[pair]
            grid = att.flow[:, :, a, b]
            self.model_map.set_matrix(grid, [f"L{i + 1}" for i in range(grid.shape[0])],
                                      [f"H{j + 1}" for j in range(grid.shape[1])], levels=(0.0, 1.0))
        head = self.head.currentIndex()
        if self.mode.currentIndex() == MODE_LAYER and head > 0:
            self.model_map.mark_cell(layer, head - 1)
        else:
            self.model_map.mark_cell(-1, -1)

    def _fill_flow(self, per_layer: np.ndarray, which: str) -> None:
        """The block-flow table and its curves for (layers, 3, 3) flow (one head or the head mean)."""
        n_layers = per_layer.shape[0]
        self._lay_out_flow(per_layer, which)
        for c, (name, a, b) in enumerate(self.blocks.flow_columns):
            self._flow_curves[c].setData(np.arange(1, n_layers + 1), per_layer[:, a, b])
        self.flow_table.setToolTip(f"Block flow per layer, {which}.\n" + tip("block flow"))

    def _lay_out_flow(self, per_layer: np.ndarray, which: str) -> None:
        """What of the block flow sizes the page: the table's rows and texts (new rows, another number of layers,
        also size the table) and the plot's title."""
        n_layers = per_layer.shape[0]
        resize = self.flow_table.rowCount() != n_layers
        if resize:   # new rows: new items; otherwise only their texts change (a head change)
            self.flow_table.setRowCount(n_layers)
            self.flow_table.setVerticalHeaderLabels([f"layer {i + 1}" for i in range(n_layers)])
        self._set_flow_texts(per_layer)
        if resize:
            self._fit_flow_table()
        self.flow_plot.setTitle(f"block flow per layer ({which})", size="9pt")
        self._flow_legend_fit.hold_one_column()   # the plot keeps its title, axis and whole legend in view

    def _set_flow_texts(self, per_layer: np.ndarray) -> None:
        """The block-flow table's texts for (layers, 3, 3) flow, its views told once (a head change: 18 cells)."""
        with cells_told_once(self.flow_table) as table:
            for c, (_name, a, b) in enumerate(self.blocks.flow_columns):
                for r, value in enumerate(per_layer[:, a, b].tolist()):
                    item = table.item(r, c)
                    if item is None:
                        item = QTableWidgetItem()
                        item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                        table.setItem(r, c, item)
                    item.setText(f"{value:.3f}")

    def _fit_flow_table(self) -> None:
        """Make the block-flow table wide enough for all its columns (no horizontal scrolling)."""
        t = self.flow_table
        t.resizeColumnsToContents()
        hh = t.horizontalHeader()
        width = sum(max(hh.sectionSizeHint(c), t.sizeHintForColumn(c)) for c in range(t.columnCount()))
        width += t.verticalHeader().sizeHint().width() + 2 * t.frameWidth() + t.verticalScrollBar().sizeHint().width()
        t.setMinimumWidth(width)

    # ----------------------------------------------------------------------------------- hover / click
    def _token_index(self, side: str, i: int) -> int:
        idx = self._left_idx if side == "left" else self._right_idx
        return int(idx[i]) if 0 <= i < idx.size else -1

    def _describe_token(self, t: int) -> str:
        att = self._attention()
        share = att.token_share
        if self._groups is not None:
            share = merge_rows(share, self._groups)
        s = share[t]
        row = self._matrix[t]
        top = np.argsort(-row)[:3]
        tops = ", ".join(f"'{self._labels[j]}' {row[j]:.3f}" for j in top)
        names = self.blocks.labels
        parts = [f"{s[k]:.3f} to the {names[b]}" if b != "special" else f"{s[k]:.3f} to {names[b]}"
                 for k, b in enumerate(BLOCKS) if b in names]
        parts[0] = parts[0].replace(" to ", " of its attention to ", 1)
        shares = ", ".join(parts)
        return (f"'{self._labels[t]}' ({names.get(self._blocks[t], self._blocks[t])}) attends most to {tops} "
                f"({self._what}). Averaged over all layers and heads it gives {shares}.")

    def selected_tokens(self) -> list[int]:
        """The tokens selected in the head view, as indices into the shown matrix (current_matrix)."""
        self.finish_redraw()
        side, sel = self.head_view.selection
        idx = self._left_idx if side == "left" else self._right_idx
        return [int(idx[i]) for i in sel if i < idx.size]

    def selection_summary(self):
        """explorer.core.attention_select.SelectionAttention of the selected tokens in the shown matrix, or None."""
        from explorer.core.attention_select import selection_attention

        sel = self.selected_tokens()
        if not sel or self._matrix.shape[0] == 0:
            return None
        return selection_attention(self._matrix, sel)

    def _show_selection(self) -> None:
        summary = self.selection_summary()
        if summary is None:
            return
        names = [f"'{self._labels[i]}'" for i in summary.selected]
        shown = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
        goes = ", ".join(f"'{self._labels[j]}' {v:.3f}" for j, v in summary.top_outgoing(4))
        comes = ", ".join(f"'{self._labels[i]}' {v:.3f}" for i, v in summary.top_incoming(4))
        self.info.setText(f"{len(names)} selected ({shown}), {self._what}: their attention goes (mean over them) "
                          f"to {goes}. The tokens that give them most of their attention: {comes or 'none'}. "
                          "Escape clears the selection.")

    def _on_heatmap_hover(self, row: int, col: int) -> None:
        self.finish_redraw()
        self.heatmap.highlight_row(row)
        if row < 0:
            self.head_view.set_hover("", -1)
            return
        self.info.setText(f"'{self._labels[row]}' → '{self._labels[col]}': {self._matrix[row, col]:.4f}.  "
                          + self._describe_token(row))
        hits = np.flatnonzero(self._left_idx == row)
        self.head_view.blockSignals(True)
        self.head_view.set_hover("left", int(hits[0]) if hits.size else -1)
        self.head_view.blockSignals(False)

    def _on_head_hover(self, side: str, i: int) -> None:
        if self.redraw_pending():   # a hover between a change and its second turn: the head view is redrawn now
            self._redraw_rest()     # (which forgets its hover), and the row under the mouse is hovered again
            labels = self.head_view.left_labels if side == "left" else self.head_view.right_labels
            i = i if 0 <= i < len(labels) else -1
            self.head_view.blockSignals(True)
            self.head_view.set_hover(side, i)
            self.head_view.blockSignals(False)
        if self.head_view.selection[1]:
            return   # the readout describes the selection until it is cleared
        t = self._token_index(side, i)
        self.heatmap.highlight_row(t if side == "left" else -1)
        if t >= 0:
            self.info.setText(self._describe_token(t))

    def _on_model_click(self, row: int, col: int) -> None:
        self.mode.setCurrentIndex(MODE_LAYER)
        self._updating = True
        self.layer.setCurrentIndex(row)
        self.head.setCurrentIndex(col + 1)
        self._updating = False
        self._redraw()

"""Attention view: how attention flows between the question and the passage, per layer and head.

Renders a ProbeResult's AttentionData (explorer.core.attention.flow): a token x token heatmap of one
layer/head (or the head mean, or rollout), a head-view drawing of the top-k weights per token,
the block-flow table and its plot over layers, and a model view of all layers x heads for one
block flow. Everything shown is computed in core; the view picks the matrix (layer, head, window, word
pieces merged by explorer.core.attention.wordmerge) and hands it to its panes (explorer.ui.inspectors.attention_panels);
what it says about it comes from explorer.ui.inspectors.components.attention. A full 384-token window redraws
without a forward pass (scripts/bench_inspectors.py prints the time).
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QPushButton, QVBoxLayout, QWidget

from explorer.core.attention.head_labels import head_name, layer_label, numbers
from explorer.core.attention.layers import head_matrix
from explorer.core.attention.wordmerge import merge_attention, word_groups
from explorer.ui.shell.flow_layout import FlowLayout
from explorer.ui.shell.scrolling import wheel_scrolls_page
from explorer.ui.shell.turns import zero_timer

from .attention_panels import ControlRow, FlowPanel, ModelMapPanel, ScrollingTabs, TokenViews, ViewsSplit
from .common import ReadoutLabel, header
from .components.attention import (MODE_LAYER, MODE_ROLLOUT, QA_BLOCKS, BlockLayout, ShownAttention,
                                   export_title, head_flow, window_label)
from .heatmap import upper_level
from .view_export import ExportButton


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
    _window_label = staticmethod(window_label)

    def __init__(self, parent=None, *, blocks: BlockLayout = QA_BLOCKS):
        super().__init__(parent)
        self.blocks = blocks
        self.result = None
        self.window = 0
        self.shown = ShownAttention()   # the matrix on screen, its tokens, the head view's rows and columns
        self._updating = False
        self._flow_key: tuple | None = None    # what the flow table shows now (see _redraw_flow)
        # a shown view redraws the map in the turn of the change and the rest (head view, block flow, selection
        # readout) in the next one, after the map's paint: no turn holds the GUI thread for all of it
        self._rest = zero_timer(self, self._redraw_rest)
        self.async_weights = False
        controls = ControlRow()
        self.mode, self.layer, self.head = controls.mode, controls.layer, controls.head
        self.window_box, self.merge = controls.window_box, controls.merge
        self._build_buttons()
        top = self.token_views = TokenViews(blocks)   # the map beside the lines view, or the two as tabs
        self.heatmap, self.head_view, self.head_scroll = top.heatmap, top.head_view, top.head_scroll
        self.direction, self.topk = top.direction, top.topk
        # fixed height: a hover readout that wraps to more lines would move the plots (and re-thin the
        # heat map's token labels) on every mouse move; four lines hold a hover sentence whole in a 500 px pane.
        # Between hovers it reads what is shown and how to read it (USAGE_HINT): a line of its own for the hint
        # took the views' height at 1280x800 while the readout's lines stood empty
        self.info = ReadoutLabel(self.blocks.empty, lines=4)
        self.flow = FlowPanel(blocks)
        self.flow_table, self.flow_plot, self._flow_curves = self.flow.table, self.flow.plot, self.flow.curves
        self.model_view = ModelMapPanel(blocks)
        self.model_pair, self.model_map = self.model_view.pair_box, self.model_view.map
        self._pairs = self.model_view.pairs
        self.bottom = ScrollingTabs()
        self.bottom.addTab(self.flow, "Block flow per layer")
        self.bottom.addTab(self.model_view, "Model view")
        self.bottom.setTabToolTip(1, "The block flow of every layer × head at once (rows: layers, columns: heads).")
        self._layout(controls, top)
        self._connect()
        self._set_enabled(False)

    # ----------------------------------------------------------------------------------- building
    def _build_buttons(self) -> None:
        """The export and Compare… buttons (at the end of the control row)."""
        self.export = ExportButton(self._export_widget, "attention view", html=self.html_job)
        self.compare = QPushButton("Compare…")
        self.compare.setToolTip("Compare with checkpoint…: The same question and passage through another "
                                "checkpoint: its attention beside this one's and their difference, both block "
                                "flows, both answers.")
        self.compare.clicked.connect(self.compare_requested)
        self.compare.setVisible(False)   # shown when an owner listens (the QA Attention page)

    def _layout(self, controls: FlowLayout, top: TokenViews) -> None:
        # the token views over the lower tabs, no page scroll: the lines view, the lower tab bar and the readout
        # are in view at 1280x800 (the page scrolled, and the wheel over the lines view scrolled only the lines)
        self.split = ViewsSplit(top, self.bottom)
        self._split = self.split   # what the PNG / SVG export saves
        self.body = QWidget()      # the views under one cover (a veil while another model answers)
        body = QVBoxLayout(self.body)
        body.setContentsMargins(0, 0, 0, 0)
        body.addWidget(self.split)

        layout = QVBoxLayout(self)
        # Compare… and Export beside the page's header (it wraps beside them): on a row of their own under the
        # controls they took a line of the views' height at 1280x800, and beside the lower tabs they pushed a
        # third tab (the QA page's Head importance) behind the tab bar's scroll arrows
        top_row = QHBoxLayout()
        top_row.addWidget(header(self.blocks.header, panel=self.blocks.panel), 1)
        top_row.addWidget(self.compare, 0, Qt.AlignmentFlag.AlignTop)
        top_row.addWidget(self.export, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(top_row)
        layout.addLayout(controls)
        layout.addWidget(self.body, 1)
        layout.addWidget(self.info)
        wheel_scrolls_page(self)   # the wheel over a lower tab's plot scrolls its tab; Ctrl+wheel zooms the plot

    def remember_layout(self, settings) -> None:
        """Keep the handle between the token views and the lower tabs where the user leaves it (AppSettings)."""
        self.split.remember(settings)

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
        self._flow_key = None
        self.model_view.forget()
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
            self._fill_combo(self.layer, numbers(att.num_layers))   # counted from 1, as Heads off reads them
            self._fill_combo(self.head, ["mean"] + numbers(att.num_heads))
            self._fill_combo(self.window_box, [window_label(w, len(result.windows)) for w in result.windows])
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
        return self.shown.matrix

    def current_labels(self) -> list[str]:
        return list(self.shown.labels)

    def export_html(self, path: str) -> None:
        """The shown window's attention (all layers and heads, word pieces as tokens) as one interactive HTML
        page (explorer.core.attention.html_export), opened at the layer and head shown, with the probe's report
        (answer, span scores, null_score, score_diff, τ, block flow: core.qa.probe_text.render_text) above it. Written now; the Export
        button writes it off the GUI thread (:meth:`html_job`: a 384-token BERT-base window takes seconds).

        Raises:
            ValueError: no attention shown, or its weights are still being computed; OSError: not written.
        """
        self.html_job(path)()

    def html_job(self, path: str):
        """What :meth:`export_html` writes, gathered now (on the GUI thread; raises as export_html) as a
        function of no arguments that writes the file (on any thread)."""
        import functools

        from explorer.core.attention.html_export import write_attention_html
        from explorer.core.qa.probe_text import render_text

        if self.result is None or not self.result.attention:
            raise ValueError("there is no attention to export; probe first")
        weights = self._attention().attentions
        if weights is None and not self.async_weights and getattr(self.result, "lazy_attention", None) is not None:
            weights = self.result.attention_weights(self.window)
        if weights is None:
            raise ValueError("the weights of this window are still being computed; try again in a moment")
        win = self.result.windows[self.window]
        return functools.partial(write_attention_html, path, weights, list(win.tokens), list(win.blocks),
                                 title=export_title(self.result, self.window),
                                 layer=max(self.layer.currentIndex(), 0) + 1, head=max(self.head.currentIndex(), 0),
                                 report=render_text(self.result))

    # ----------------------------------------------------------------------------------- internals
    @staticmethod
    def _fill_combo(box: QComboBox, items: list[str]) -> None:
        current = box.currentIndex()
        if [box.itemText(i) for i in range(box.count())] != items:
            box.clear()
            box.addItems(items)
            box.setCurrentIndex(min(max(current, 0), len(items) - 1))

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
        if head <= 0:   # cached per weights array and layer (explorer.core.attention.layers)
            return head_matrix(weights, layer), f"{layer_label(layer)}, mean over heads"
        return head_matrix(weights, layer, head - 1), head_name(layer, head - 1)

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
            self.shown.show(matrix, list(win.tokens), list(win.blocks), None, what)
            self.info.setText(f"{what} (the maps still show the window before)")
            return
        if self.merge.isChecked():
            groups = word_groups(win.tokens, win.word_ids, win.blocks)
            matrix = merge_attention(matrix, groups)
            labels, blocks = groups.labels, groups.blocks
        else:
            groups, labels, blocks = None, list(win.tokens), list(win.blocks)
        self.shown.show(matrix, labels, blocks, groups, what)
        # colour scale up to the 99.5th percentile: one [CLS]/[SEP] column near 1 would otherwise turn a
        # 384-token map black; the colour bar shows the range and the hover text gives exact values
        vmax = upper_level(matrix, 0.995) if matrix.size else 1.0
        self.heatmap.set_matrix(matrix, labels, labels, blocks, blocks, levels=(0.0, max(vmax, 1e-6)),
                                keep_view=True)
        self.info.setText(self.shown.readout(self.window, len(self.result.windows),
                                             getattr(self.result, "attention_note", "")))
        if not self.isVisible():
            self._redraw_rest()   # nothing is painted: no reason to wait
            return
        if self.flow_table.rowCount() != self._attention().num_layers:
            # new table rows and the plot's first title (the first result, another model) change the page's
            # layout: they come now, so that the map is not painted once at a size it loses a turn later
            self.flow.lay_out(*head_flow(self._attention().flow, self.head.currentIndex(), self.mode.currentIndex()))
            self.split.relayout()   # the lower tabs ask for the table's new rows
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
        if self.result is None or self.shown.matrix.size == 0:
            return
        _, left_block, right_block = self.blocks.directions[max(self.direction.currentIndex(), 0)]
        self.head_view.set_data(*self.shown.pick_direction(left_block, right_block), k=self.topk.value())

    def _redraw_flow(self) -> None:
        att = self._attention()
        mode = self.mode.currentIndex()
        per_layer, which = head_flow(att.flow, self.head.currentIndex(), mode)  # (layers, 3, 3)
        # a layer change only moves the marks: the table, curves and model map are refilled when what they
        # show changes (another probe, window, head choice or block pair)
        key = (id(att), which)
        if key != self._flow_key:
            self._flow_key = key
            self.flow.fill(per_layer, which)
        layer = max(self.layer.currentIndex(), 0)
        self.flow.mark_layer(layer, mode == MODE_LAYER)
        head = self.head.currentIndex()
        self.model_view.show_flow(att, layer, head - 1 if mode == MODE_LAYER and head > 0 else None)

    # ----------------------------------------------------------------------------------- hover / click
    def selected_tokens(self) -> list[int]:
        """The tokens selected in the head view, as indices into the shown matrix (current_matrix)."""
        self.finish_redraw()
        return self.shown.selected(*self.head_view.selection)

    def selection_summary(self):
        """explorer.core.attention.selection.SelectionAttention of the selected tokens in the shown matrix, or None."""
        from explorer.core.attention.selection import selection_attention

        sel = self.selected_tokens()
        if not sel or self.shown.matrix.shape[0] == 0:
            return None
        return selection_attention(self.shown.matrix, sel)

    def _show_selection(self) -> None:
        summary = self.selection_summary()
        if summary is not None:
            self.info.setText(self.shown.selection_text(summary))

    def _on_heatmap_hover(self, row: int, col: int) -> None:
        self.finish_redraw()
        self.heatmap.highlight_row(row)
        if row < 0:
            self.head_view.set_hover("", -1)
            return
        self.info.setText(self.shown.hover_text(row, col, self._attention().token_share, self.blocks.labels))
        hits = np.flatnonzero(self.shown.left_idx == row)
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
        t = self.shown.token_index(side, i)
        self.heatmap.highlight_row(t if side == "left" else -1)
        if t >= 0:
            self.info.setText(self.shown.describe_token(t, self._attention().token_share, self.blocks.labels))

    def _on_model_click(self, row: int, col: int) -> None:
        self.mode.setCurrentIndex(MODE_LAYER)
        self._updating = True
        self.layer.setCurrentIndex(row)
        self.head.setCurrentIndex(col + 1)
        self._updating = False
        self._redraw()

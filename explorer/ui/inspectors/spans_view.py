"""Spans & τ view: where the answer is, how each span scores, and the no-answer decision.

Renders a ProbeResult (explorer.core.probe): the passage with the predicted span highlighted,
per-token start/end probabilities as bars under the tokens, the span score table S.T_i + E.T_j of
one window (explorer.core.decoding.span_score_table; invalid cells are NaN and drawn empty), the
n-best list, and the SQuAD 2.0 side: null_score with its two parts, best_non_null_score,
score_diff and the τ decision (ProbeResult.decision), which updates instantly as τ moves: no
forward pass. Also the by-hand check of the output layer.
"""

from __future__ import annotations

import html
import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QFormLayout, QGroupBox, QHBoxLayout, QLabel,
                               QListWidget, QSlider, QTableWidget, QTableWidgetItem, QTabWidget,
                               QTextBrowser, QVBoxLayout, QWidget)

from explorer.core.metrics import TAU_GRID_LIMIT, tau_axis_limit
from explorer.ui.shell.adaptive_splitter import AdaptiveSplitter
from explorer.ui.shell.columns import cells_told_once, fit_columns, wrap_rows
from explorer.ui.shell.scrolling import scrolling, wheel_scrolls_page

from .common import header, term_label, tip
from .heatmap import TokenAxis, TokenHeatmap
from .token_axis import ReadableTokenAxis
from .tau_spin import tau_spin_box

SLIDER_SCALE = 100  # slider steps per logit unit (0.01 resolution)
ZOOM_TOKENS = 60    # span table: initial view around the best cell for long windows


def fmt(x: float | None, digits: int = 2) -> str:
    if x is None:
        return "n/a"
    if isinstance(x, float) and math.isinf(x):
        return "-inf" if x < 0 else "+inf"
    return f"{x:.{digits}f}"


class SpansView(QWidget):
    """The span & τ inspector. set_result(ProbeResult | None), set_tau(float), set_window(int).

    Signals:
        window_changed(int): the user picked another window.
        tau_changed(float): τ moved (the dev-set view and the hub may follow it).
    """

    window_changed = Signal(int)
    tau_changed = Signal(float)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.result = None
        self.window = 0
        self.tau = 0.0
        self.selected: tuple[int, int, int] | None = None   # (window, start_token, end_token) clicked
        self._table = np.zeros((0, 0))
        self._best_cell: tuple[int, int] | None = None
        self._p0 = 0  # first passage token of the current window (table row/col 0)
        self._updating = False
        decision_box = self._build_decision()
        self._build_passage_views()
        self._build_score_views()
        self._layout(decision_box)
        self._connect()
        self._render_decision()

    # ----------------------------------------------------------------------------------- building
    def _build_decision(self) -> QGroupBox:
        """The decision panel: null_score, best_non_null_score, score_diff, τ (slider + spin box), the answer."""
        self.null_label = QLabel("–")
        self.best_label = QLabel("–")
        self.diff_label = QLabel("–")
        for lab in (self.null_label, self.best_label, self.diff_label):
            lab.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            lab.setWordWrap(True)   # a long span's text wraps in the pane instead of widening it past the window
        self.null_label.setToolTip(tip("s_null"))
        self.best_label.setToolTip(tip("best_non_null_score"))
        self.diff_label.setToolTip(tip("score_diff"))
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(int(-TAU_GRID_LIMIT * SLIDER_SCALE), int(TAU_GRID_LIMIT * SLIDER_SCALE))   # the τ grid
        self.slider.setToolTip(tip("tau"))
        self.spin = tau_spin_box()
        self.decision_label = QLabel("–")
        self.decision_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        f = self.decision_label.font()
        f.setPointSize(f.pointSize() + 3)
        f.setBold(True)
        self.decision_label.setFont(f)
        self.decision_label.setWordWrap(True)
        self.decision_label.setToolTip("Answer iff best_non_null_score > null_score + τ, i.e. score_diff > τ "
                                       "(BERT paper, section 4.3). No forward pass: moving τ only re-applies "
                                       "the rule.")
        self.byhand_label = QLabel("–")
        self.byhand_label.setWordWrap(True)
        self.byhand_label.setToolTip(tip("by_hand_check"))
        tau_row = QHBoxLayout()
        tau_row.addWidget(self.slider, 1)
        tau_row.addWidget(self.spin)
        form = QFormLayout()
        form.addRow(term_label("null_score (s_null)", "s_null"), self.null_label)
        form.addRow(term_label("best_non_null_score", "best_non_null_score"), self.best_label)
        form.addRow(term_label("score_diff", "score_diff"), self.diff_label)
        form.addRow(term_label("τ", "tau"), tau_row)
        form.addRow("decision", self.decision_label)
        self.abstain_note = QLabel("")   # a SQuAD v1.1 model: never trained to abstain (set_abstain_note)
        self.abstain_note.setWordWrap(True)
        self.abstain_note.setStyleSheet("color: #8a5a00;")
        self.abstain_note.setVisible(False)
        form.addRow(self.abstain_note)
        form.addRow(term_label("by-hand check", "by_hand_check"), self.byhand_label)
        decision_box = QGroupBox("No answer?  answer iff best_non_null_score > null_score + τ")
        decision_box.setLayout(form)
        return decision_box

    def _build_passage_views(self) -> None:
        """The windows list, the passage with the span marked, and the n-best table."""
        self.windows_list = QListWidget()
        self.windows_list.setToolTip("The passage is cut into windows of max_seq_length tokens overlapping by "
                                     "doc_stride; the answer may come from any window.\n" + tip("doc_stride"))
        self.windows_list.setMaximumHeight(90)
        self.passage = QTextBrowser()
        self.passage.setOpenLinks(False)
        self.nbest = QTableWidget(0, 6)
        self.nbest.setHorizontalHeaderLabels(["#", "text", "start_logit", "end_logit", "score", "window"])
        self._nbest_columns()
        wrap_rows(self.nbest)   # the answer text wraps in its column rather than eliding ("ytical engine of …")
        self.nbest.verticalHeader().setVisible(False)
        self.nbest.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.nbest.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.nbest.setToolTip("The n-best list: the best spans over all windows, unique by text. "
                              + tip("n_best_size"))
        self.span_label = QLabel("Click a cell of the span table (or an n-best row) to see that span.")
        self.span_label.setWordWrap(True)
        self.span_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

    def _build_score_views(self) -> None:
        """Per-token P(start)/P(end) bars and the span score table heat map."""
        self.prob_axis = TokenAxis("bottom")
        self.probs = pg.PlotWidget(background="w", axisItems={"bottom": self.prob_axis})
        self.probs.setLabel("left", "P(start) ↑  P(end) ↓")
        self.probs.setMouseEnabled(x=True, y=False)
        self.probs.setMenuEnabled(False)
        self.start_bars = pg.BarGraphItem(x=[], height=[], width=0.8, brush="#1f77b4", pen=None)
        self.end_bars = pg.BarGraphItem(x=[], height=[], width=0.8, brush="#ff7f0e", pen=None)
        self.probs.addItem(self.start_bars)
        self.probs.addItem(self.end_bars)
        self.probs.addItem(pg.InfiniteLine(pos=0, angle=0, pen=pg.mkPen("#999")))
        self.probs.setToolTip("softmax of start_logits (blue, up) and end_logits (orange, down) over the "
                              "tokens of this window")
        self.probs.scene().sigMouseMoved.connect(self._on_probs_hover)

        # --- span score table
        self.table_map = TokenHeatmap(cmap="viridis", colorbar_label="S.T_i + E.T_j")
        end_axis = ReadableTokenAxis("bottom")   # several readable end-token ticks however narrow the table
        self.table_map.plot.setAxisItems({"bottom": end_axis})
        self.table_map.bottom_axis = end_axis
        self.table_map.setToolTip("Span score table: row = start token i, column = end token j, value "
                                  "start_logits[i] + end_logits[j]. Empty cells are invalid spans (j < i, longer "
                                  "than max_answer_length, or outside the passage). Red box: the best cell; "
                                  "click a cell to see its span.")
        self.table_map.plot.setLabel("left", "start token i")
        self.table_map.plot.setLabel("bottom", "end token j")
        self.table_map.clicked.connect(self._on_cell_clicked)
        self.table_map.hovered.connect(self._on_cell_hover)

    def _layout(self, decision_box: QGroupBox) -> None:
        left = QWidget()
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(QLabel("windows"))
        ll.addWidget(self.windows_list)
        ll.addWidget(self.passage, 2)
        ll.addWidget(self.span_label)
        ll.addWidget(self.nbest, 1)

        right = QTabWidget()
        right.addTab(self.table_map, "Span score table")
        right.addTab(self.probs, "P(start/end)")
        from .saliency_view import SaliencyView  # gradient x input of the chosen span

        self.saliency = SaliencyView()
        right.addTab(self.saliency, "Saliency")
        right.setMinimumWidth(320)   # the heat map stays readable; the n-best text keeps room
        self.right_tabs = right

        split = AdaptiveSplitter()   # passage and n-best above the span table when they do not fit side by side
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(0, 2)   # passage and n-best text need the width more than the span table
        split.setStretchFactor(1, 1)
        split.setSizes([600, 420])
        layout = QVBoxLayout(self)
        layout.addWidget(header("Where the answer is and why: every span's score S.T_i + E.T_j, the no-answer "
                                "score at [CLS], and the τ rule that decides between them (no new forward pass "
                                "when τ moves).", panel="Spans & τ"))
        # the decision and the panes scroll inside the page when the window is shorter than they need (stacked
        # on a narrow screen they sum their heights): the page never makes the window taller than the screen
        # (811 px on a 1280x800 X screen otherwise)
        body = QWidget()
        body_layout = QVBoxLayout(body)
        body_layout.setContentsMargins(0, 0, 0, 0)
        body_layout.addWidget(decision_box)
        body_layout.addWidget(split, 1)
        # vertically only: the decision's lines wrap to the pane's width (a long best span would push the τ box
        # and the end of best_non_null_score out of sight behind a sideways scroll)
        self.body_scroll = scrolling(body, horizontal=False)
        layout.addWidget(self.body_scroll, 1)
        wheel_scrolls_page(self)   # the wheel over a plot scrolls the page; Ctrl+wheel zooms the plot

    def set_abstain_note(self, text: str) -> None:
        """Show (or with "" hide) the note under the decision: e.g. a SQuAD v1.1 model never learnt to abstain
        (explorer.core.checkpoint_windows.abstain_note)."""
        self.abstain_note.setText(text)
        self.abstain_note.setVisible(bool(text))

    def _connect(self) -> None:
        self.slider.valueChanged.connect(self._on_slider)
        self.spin.valueChanged.connect(self._on_spin)
        self.windows_list.currentRowChanged.connect(self._on_window_row)
        self.nbest.cellClicked.connect(self._on_nbest_clicked)

    # ----------------------------------------------------------------------------------- public
    def set_result(self, result) -> None:
        """Show a ProbeResult; None clears. Keeps τ; shows the best span's window."""
        self.result = result
        self.selected = None
        if result is None:
            self.passage.clear()
            self.nbest.setRowCount(0)
            self.windows_list.clear()
            self.table_map.clear_map()
            self._render_decision()
            return
        best_window = result.best_window.index
        self.window = best_window
        self._updating = True
        self.windows_list.clear()
        for w in result.windows:
            self.windows_list.addItem(self._window_text(w))
        rows = min(max(len(result.windows), 1), 4)
        self.windows_list.setMaximumHeight(rows * self.windows_list.sizeHintForRow(0) + 24)
        self.windows_list.setCurrentRow(best_window)
        self._updating = False
        limit = tau_axis_limit(result.score_diff, self.tau)   # the τ study's grid −6…+6, unless this question is beyond
        self.slider.setToolTip(tip("tau") + f"\n\nSlider: τ from {-limit:+.0f} to {limit:+.0f}"
                               + (" (the τ study's grid)" if limit == TAU_GRID_LIMIT else
                                  f" (the τ study's grid is ±{TAU_GRID_LIMIT:g}; widened to reach this question's "
                                  "score_diff)") + "; type any τ in the box.")
        self.slider.blockSignals(True)
        self.slider.setRange(int(-limit * SLIDER_SCALE), int(limit * SLIDER_SCALE))
        self.slider.setValue(int(round(self.tau * SLIDER_SCALE)))
        self.slider.blockSignals(False)
        self._fill_nbest()
        self._render_window()
        self._render_decision()
        if result.nbest:  # the saliency page attributes the best span until another is clicked
            best = result.nbest[0]
            self.saliency.set_span(result, best.window_index, best.start_token, best.end_token)

    def set_tau(self, tau: float) -> None:
        """Set τ exactly (the spin box shows it rounded to 0.01); updates the decision at once."""
        self.tau = float(tau)
        self.spin.blockSignals(True)
        self.spin.setValue(self.tau)
        self.spin.blockSignals(False)
        self.slider.blockSignals(True)
        self.slider.setValue(int(round(self.tau * SLIDER_SCALE)))
        self.slider.blockSignals(False)
        self._render_decision()
        self.tau_changed.emit(self.tau)

    def set_window(self, index: int) -> None:
        if self.result is None or not (0 <= index < len(self.result.windows)) or index == self.window:
            return
        self.windows_list.setCurrentRow(index)

    def select_span(self, window: int, start_token: int, end_token: int) -> None:
        """Show one span (tokens of `window`, inclusive) in the passage and mark it in the table."""
        if self.result is None:
            return
        if window != self.window:
            self._updating = True
            self.windows_list.setCurrentRow(window)
            self._updating = False
            self.window = window
            self._render_window()
        self.selected = (window, start_token, end_token)
        if start_token <= end_token:
            self.saliency.set_span(self.result, window, start_token, end_token)
        w = self.result.windows[window]
        self.table_map.mark_cell(start_token - self._p0, end_token - self._p0)
        s, e = float(w.start_logits[start_token]), float(w.end_logits[end_token])
        valid = self._cell_valid(start_token, end_token)
        text = self._span_text(w, start_token, end_token)
        why = "" if valid else "  (invalid span: the search never considers it)"
        self.span_label.setText(f"span tokens {start_token}..{end_token} of window {window + 1}: \"{text}\"  "
                                f"S.T_i + E.T_j = {s:.2f} + {e:.2f} = {s + e:.2f}{why}")
        self._render_passage()

    # ----------------------------------------------------------------------------------- rendering
    def _window_text(self, w) -> str:
        offs = [o for o in w.offsets if o is not None]
        chars = f"chars {offs[0][0]}–{offs[-1][1]}" if offs else "no passage tokens"
        c = w.cls_index
        s_null = float(w.start_logits[c] + w.end_logits[c])
        best = [x for x in self.result.nbest if x.window_index == w.index]
        best_txt = f"best span here {best[0].score:.2f} \"{best[0].text[:30]}\"" if best else "no span in n-best"
        return f"window {w.index + 1}: {len(w.tokens)} tokens, {chars}; s_null {s_null:.2f}; {best_txt}"

    def _fill_nbest(self) -> None:
        cands = self.result.nbest
        self.nbest.setRowCount(len(cands))
        right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter   # once: a flag | costs Python time
        with cells_told_once(self.nbest) as table:
            for r, c in enumerate(cands):
                values = [str(r + 1), c.text, f"{c.start_logit:.2f}", f"{c.end_logit:.2f}", f"{c.score:.2f}",
                          str(c.window_index + 1)]
                for k, v in enumerate(values):
                    item = QTableWidgetItem(v)
                    if k == 1:
                        item.setToolTip(v)
                    else:
                        item.setTextAlignment(right)
                    table.setItem(r, k, item)
        self._nbest_columns()
        self.nbest.resizeRowsToContents()

    def _nbest_columns(self) -> None:
        """The text column takes the free width but keeps MIN_TEXT_COLUMN px; the number columns are as wide
        as their contents and titles (explorer.ui.shell.columns)."""
        fit_columns(self.nbest, stretch=1)

    def _passage_range(self, w) -> tuple[int, int]:
        idx = [i for i, o in enumerate(w.offsets) if o is not None]
        return (idx[0], idx[-1] + 1) if idx else (0, 0)

    def _render_window(self) -> None:
        w = self.result.windows[self.window]
        n = len(w.tokens)
        x = np.arange(n, dtype=float) + 0.5  # TokenAxis labels cell i at i + 0.5
        self.start_bars.setOpts(x=x, height=np.asarray(w.start_probs, dtype=float), width=0.8)
        self.end_bars.setOpts(x=x, height=-np.asarray(w.end_probs, dtype=float), width=0.8)
        self.prob_axis.set_labels(list(w.tokens))
        self.probs.setXRange(0, n, padding=0.01)
        self.probs.setYRange(-1.0, 1.0, padding=0.02)
        p0, p1 = self._passage_range(w)
        self._p0 = p0
        table = w.span_score_table(self.result.max_answer_length)[p0:p1, p0:p1]
        self._table = table
        labels = list(w.tokens[p0:p1])
        if table.size:
            self.table_map.set_matrix(table, labels, labels)
            if np.isfinite(table).any():
                bi, bj = np.unravel_index(np.nanargmax(table), table.shape)
                self._best_cell = (int(bi), int(bj))
                self.table_map.mark_cell(int(bi), int(bj))
                if len(labels) > ZOOM_TOKENS:
                    lo = max(0, min(int(bi), int(bj)) - ZOOM_TOKENS // 2)
                    hi = min(len(labels), lo + ZOOM_TOKENS)
                    self.table_map.plot.setXRange(lo, hi, padding=0)
                    self.table_map.plot.setYRange(lo, hi, padding=0)
            else:
                self._best_cell = None
        else:   # no passage tokens in this window: nothing (and nothing of the previous probe) to show
            self._best_cell = None
            self.table_map.clear_map()
        self._render_passage()

    def _span_text(self, w, i: int, j: int) -> str:
        oi, oj = w.offsets[i], w.offsets[j]
        if oi is None or oj is None:
            return "(not passage text)"
        from explorer.core.decoding import passage_span

        return passage_span(self.result.passage, oi[0], oj[1])[2] or "(white space only)"

    def _cell_valid(self, i: int, j: int) -> bool:
        r, c = i - self._p0, j - self._p0
        return 0 <= r < self._table.shape[0] and 0 <= c < self._table.shape[1] and not np.isnan(self._table[r, c])

    def _render_passage(self) -> None:
        if self.result is None:
            return
        text = self.result.passage
        w = self.result.windows[self.window]
        offs = [o for o in w.offsets if o is not None]
        win = (offs[0][0], offs[-1][1]) if offs else (0, 0)
        d = self.result.decision(self.tau)
        marks = []  # (start, end, style)
        anchor = None
        if self.result.nbest:
            best = self.result.nbest[0]
            anchor = best.start_char
            style = ("background:#b6e3b6;" if d.answer else "background:#ffe08a; text-decoration: line-through;")
            marks.append((best.start_char, best.end_char, style))
        if self.selected is not None:
            sw, si, sj = self.selected
            ww = self.result.windows[sw]
            if ww.offsets[si] is not None and ww.offsets[sj] is not None:
                marks.append((ww.offsets[si][0], ww.offsets[sj][1], "border-bottom:3px solid #1f55c0; color:#1f55c0;"))
                anchor = ww.offsets[si][0]
        cuts = sorted({0, len(text), *win, *[m[0] for m in marks], *[m[1] for m in marks]})
        parts = []
        for a, b in zip(cuts, cuts[1:]):
            if b <= a:
                continue
            style = "" if win[0] <= a < win[1] else "color:#999;"
            for s, e, st in marks:
                if s <= a < e:
                    style += st
            chunk = html.escape(text[a:b])
            if a == anchor:
                parts.append('<a name="shown"></a>')
            parts.append(f'<span style="{style}">{chunk}</span>' if style else chunk)
        legend = ("<p style='color:#666; font-size:small'>green: predicted answer; yellow struck out: best span, "
                  "withheld at this τ; blue underline: the span you clicked; grey: outside the selected window.</p>")
        self.passage.setHtml(f"<div style='font-size:11pt; line-height:140%'>{''.join(parts)}</div>{legend}")
        if anchor is not None:
            self.passage.scrollToAnchor("shown")

    def _render_decision(self) -> None:
        r = self.result
        if r is None:
            for lab in (self.null_label, self.best_label, self.diff_label, self.byhand_label):
                lab.setText("–")
            self.decision_label.setText("probe a question to see the decision")
            self.decision_label.setStyleSheet("")
            return
        self.null_label.setText(f"S.C + E.C = {r.null_start_logit:.2f} + {r.null_end_logit:.2f} = {r.null_score:.2f}"
                                + (f"  [window {r.decoding.null_window + 1}]" if len(r.windows) > 1 else ""))
        self.null_label.setToolTip("start_logits[CLS] + end_logits[CLS] (S.C + E.C; C = the final vector of [CLS])"
                                   "\n" + tip("s_null"))
        if r.nbest:
            b = r.nbest[0]
            short = b.text if len(b.text) <= 28 else b.text[:27] + "…"
            self.best_label.setText(f"S.T_i + E.T_j = {b.start_logit:.2f} + {b.end_logit:.2f} = "
                                    f"{r.best_non_null_score:.2f}  \"{short}\"")
            self.best_label.setToolTip(f"\"{b.text}\" (tokens {b.start_token}..{b.end_token} of window "
                                       f"{b.window_index + 1})\n" + tip("best_non_null_score"))
        else:
            self.best_label.setText("-inf (no valid span in the passage)")
        self.diff_label.setText(f"{fmt(r.best_non_null_score)} − {r.null_score:.2f} = {fmt(r.score_diff)}")
        d = r.decision(self.tau)
        self.decision_label.setText(f"τ = {self.tau:+.2f}:  {d.inequality}")
        self.decision_label.setStyleSheet("color:#1a7f1a;" if d.answer else "color:#b03030;")
        if r.byhand_max_abs_diff is not None:
            self.byhand_label.setText(f"max |T_i·W + b − logits| = {r.byhand_max_abs_diff:.2e}")
        else:
            self.byhand_label.setText(r.byhand_note or "not available for this model")
        self._render_passage()

    # ----------------------------------------------------------------------------------- events
    def _on_slider(self, value: int) -> None:
        self.tau = value / SLIDER_SCALE
        self.spin.blockSignals(True)
        self.spin.setValue(self.tau)
        self.spin.blockSignals(False)
        self._render_decision()
        self.tau_changed.emit(self.tau)

    def _on_spin(self, value: float) -> None:
        self.tau = float(value)
        self.slider.blockSignals(True)
        self.slider.setValue(int(round(value * SLIDER_SCALE)))
        self.slider.blockSignals(False)
        self._render_decision()
        self.tau_changed.emit(self.tau)

    def _on_window_row(self, row: int) -> None:
        if self._updating or self.result is None or row < 0 or row == self.window:
            return
        self.window = row
        self.selected = None
        self._render_window()
        self.window_changed.emit(row)

    def _on_cell_clicked(self, row: int, col: int) -> None:
        self.select_span(self.window, row + self._p0, col + self._p0)

    def _on_cell_hover(self, row: int, col: int) -> None:
        if row < 0 or self.result is None:
            return
        w = self.result.windows[self.window]
        i, j = row + self._p0, col + self._p0
        value = self._table[row, col]
        what = f"{value:.2f}" if np.isfinite(value) else "invalid"
        self.table_map.setToolTip(f"start '{w.tokens[i]}' ({i}), end '{w.tokens[j]}' ({j}): {what}")

    def _on_nbest_clicked(self, row: int, col: int) -> None:
        c = self.result.nbest[row]
        self.select_span(c.window_index, c.start_token, c.end_token)

    def _on_probs_hover(self, scene_pos) -> None:
        if self.result is None:
            return
        p = self.probs.getPlotItem().vb.mapSceneToView(scene_pos)
        i = int(math.floor(p.x()))
        w = self.result.windows[self.window]
        if 0 <= i < len(w.tokens):
            self.probs.setToolTip(f"'{w.tokens[i]}' ({i}): P(start) {w.start_probs[i]:.3f}, "
                                  f"P(end) {w.end_probs[i]:.3f}; start_logit {w.start_logits[i]:.2f}, "
                                  f"end_logit {w.end_logits[i]:.2f}")

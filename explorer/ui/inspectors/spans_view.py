"""Spans & τ view: where the answer is, how each span scores, and the no-answer decision.

Renders a ProbeResult (explorer.core.qa.probe): the passage with the predicted span highlighted,
per-token start/end probabilities as bars under the tokens, the span score table S.T_i + E.T_j of
one window (explorer.core.qa.decoding.span_score_table; invalid cells are NaN and drawn empty), the
n-best list, and the SQuAD 2.0 side: null_score with its two parts, best_non_null_score,
score_diff and the τ decision (ProbeResult.decision), which updates instantly as τ moves: no
forward pass. Also the by-hand check of the output layer. The lines and the marked passage come from
explorer.ui.inspectors.components.spans; the panes are explorer.ui.inspectors.spans_panels.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtWidgets import (QLabel, QListView, QListWidget, QTableWidget, QTableWidgetItem, QTabWidget, QTextBrowser,
                               QVBoxLayout, QWidget)

from explorer.core.qa.scores import tau_axis_limit
from explorer.ui.shell.columns import cells_told_once, fit_columns, rows_tall, wrap_rows
from explorer.ui.shell.scrolling import scrolling, wheel_scrolls_page

from .common import header, tip
from .components.spans import (cell_tip, decision_lines, nbest_note, nbest_rows, passage_html, passage_range, slider_tip,
                               span_line, window_text)
from .spans_panels import SLIDER_SCALE, DecisionBox, SpanScoreMap, StartEndBars
from .spans_panes import SpansPanes

MAP_MIN_HEIGHT = 300   # px of the span score map: axes, colour bar and a data area of about 220 px
MAP_TABBED_MIN_HEIGHT = 240   # as a tab under the decision, which fills the rest of the page: 283 px at 1280x800;
                              # the whole map in view also at 1264x760 (a data area of about 160 px there)
MAP_DATA_MIN_HEIGHT = 180     # px of the map's cells (inside its axes) when its tab is chosen under the decision:
                              # the tab's height less the axes, with the whole map in view and the page unscrolled
NBEST_MIN_ROWS = 5   # n-best rows the table keeps in view under its header


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
        self.decision = DecisionBox()
        d = self.decision
        self.null_label, self.best_label, self.diff_label = d.null_label, d.best_label, d.diff_label
        self.slider, self.spin, self.decision_label = d.slider, d.spin, d.decision_label
        self.abstain_note, self.byhand_label = d.abstain_note, d.byhand_label
        self._build_passage_views()
        self.probs = StartEndBars()
        self.table_map = SpanScoreMap()
        # a readable map (its data area well over MIN_PLOT_VIEW) also where the page scrolls and gives the panes
        # only their minimum heights (stacked at 1280x800)
        self.table_map.setMinimumHeight(MAP_MIN_HEIGHT)
        self.table_map.clicked.connect(self._on_cell_clicked)
        self.table_map.hovered.connect(self._on_cell_hover)
        self._layout()
        self._connect()
        self._render_decision()

    # ----------------------------------------------------------------------------------- building
    def _build_passage_views(self) -> None:
        """The windows list, the passage with the span marked, and the n-best table."""
        self.windows_list = QListWidget()
        self.windows_list.setToolTip("The passage is cut into windows of max_seq_length tokens overlapping by "
                                     "doc_stride; the answer may come from any window.\n" + tip("doc_stride"))
        self.windows_list.setMaximumHeight(90)
        # a window's line ("window 1: 183 tokens, chars 0..812; s_null 2.31; best …") wraps at the list's width,
        # which is narrow beside the span table: unwrapped it ran off the box
        self.windows_list.setWordWrap(True)
        self.windows_list.setResizeMode(QListView.ResizeMode.Adjust)
        self.windows_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
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

    def _layout(self) -> None:
        left = QWidget()
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(QLabel("windows"))
        ll.addWidget(self.windows_list)
        ll.addWidget(self.passage, 2)
        ll.addWidget(self.span_label)

        tabs = QTabWidget()
        tabs.addTab(self.table_map, "Span score table")
        tabs.addTab(self.probs, "P(start/end)")
        from .saliency_view import SaliencyView  # gradient x input of the chosen span

        self.saliency = SaliencyView()
        tabs.addTab(self.saliency, "Saliency")
        from .decision_why_view import DecisionWhy   # integrated gradients of the decision (score_diff)

        self.why = DecisionWhy()
        tabs.addTab(self.why, "Why (no) answer")
        self.decision.why_row.addWidget(self.why.button)
        self.decision.why_row.addStretch(1)   # the button keeps its width
        self.decision.why_job_row.addWidget(self.why.job_bar)   # batches done, time left, Cancel; the result: its tab
        self.why.button.clicked.connect(lambda: tabs.setCurrentWidget(self.why))
        self.right_tabs = tabs
        # the n-best table: its first NBEST_MIN_ROWS rows always (over the span score table side by side, the first
        # tab under the decision when the panes go into tabs at 1280x800)
        self.nbest.setMinimumHeight(rows_tall(self.nbest, NBEST_MIN_ROWS))
        self.panes = SpansPanes(left, self.nbest, tabs)
        self.panes.arranged.connect(lambda _narrow: self._fit_map_height())
        tabs.currentChanged.connect(lambda _index: self._fit_map_height(reveal=True))
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
        body_layout.addWidget(self.decision)
        self.body_layout = body_layout   # the hub adds the head-masking controls under the decision
        body_layout.addWidget(self.panes, 1)
        # vertically only: the decision's lines wrap to the pane's width (a long best span would push the τ box
        # and the end of best_non_null_score out of sight behind a sideways scroll)
        self.body_scroll = scrolling(body, horizontal=False)
        layout.addWidget(self.body_scroll, 1)
        # the page grown for the chosen Scores tab scrolls to the whole map once the new height is laid out
        self.body_scroll.verticalScrollBar().rangeChanged.connect(lambda _lo, _hi: self._reveal_map())
        wheel_scrolls_page(self)   # the wheel over a plot scrolls the page; Ctrl+wheel zooms the plot

    def _fit_map_height(self, *, reveal: bool = False) -> None:
        """The span score map's minimum height for the arrangement. Side by side: MAP_MIN_HEIGHT. As tabs under the
        decision (1280x800): MAP_TABBED_MIN_HEIGHT whichever tab is chosen, so the Scores tab shows the whole map
        in the room the decision leaves, its cells smaller, and the page never scrolls for it (a taller map while
        its tab was chosen grew the page: the map was seen whole only by scrolling the decision away)."""
        self.table_map.setMinimumHeight(MAP_MIN_HEIGHT if not self.panes.narrow else MAP_TABBED_MIN_HEIGHT)
        if reveal:
            self._reveal_map()

    def _reveal_map(self) -> None:
        """Scroll the page the least that brings the tab chosen under the decision whole into view (the passage
        with its windows list asks a little more than the room at 1280x800; the decision's top lines scroll out
        first; nothing moves when it is in view, as the span score map always is there). The n-best table's rows
        scroll inside it: chosen, the page goes back to its top, the decision and the answer it names in view."""
        page = self.right_tabs.currentWidget()
        if not (self.panes.narrow and page is not None and page.isVisible()):
            return
        if page is self.nbest:
            self.body_scroll.verticalScrollBar().setValue(0)
            return
        # by hand: QScrollArea.ensureWidgetVisible asks a graphics view for its input cursor's rectangle, and the
        # plot's empty one counts as already in view
        bar = self.body_scroll.verticalScrollBar()
        top = page.mapTo(self.body_scroll.widget(), QPoint(0, 0)).y()
        bottom = top + page.height()
        seen = self.body_scroll.viewport().height()
        if bottom > bar.value() + seen:
            bar.setValue(min(top, bottom - seen))
        elif top < bar.value():
            bar.setValue(top)

    def set_abstain_note(self, text: str) -> None:
        """Show (or with "" hide) the note under the decision: e.g. a SQuAD v1.1 model never learnt to abstain
        (explorer.core.models.checkpoint_windows.abstain_note)."""
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
        self.why.set_result(result)
        if result is None:
            self.passage.clear()
            self.nbest.setRowCount(0)
            self.windows_list.clear()
            self.table_map.clear_map()
            self.probs.shown_window = None
            self._render_decision()
            return
        best_window = result.best_window.index
        self.window = best_window
        self._updating = True
        self.windows_list.clear()
        for w in result.windows:
            self.windows_list.addItem(window_text(result, w))
            item = self.windows_list.item(self.windows_list.count() - 1)
            item.setToolTip(item.text())
        rows = min(max(len(result.windows), 1), 4)
        self.windows_list.setMaximumHeight(rows * self.windows_list.sizeHintForRow(0) + 24)
        self.windows_list.setCurrentRow(best_window)
        self._updating = False
        limit = tau_axis_limit(result.score_diff, self.tau)   # the τ study's grid −6…+6, unless this question is beyond
        self.decision.set_slider_limit(limit, slider_tip(limit), self.tau)
        self._fill_nbest()
        self._render_window()
        self._render_decision()
        if result.nbest:  # the saliency page attributes the best span until another is clicked
            best = result.nbest[0]
            self.saliency.set_span(result, best.window_index, best.start_token, best.end_token)

    def set_tau(self, tau: float) -> None:
        """Set τ exactly (the spin box shows it rounded to 0.01); updates the decision at once."""
        self.tau = float(tau)
        self.decision.show_tau(self.tau)
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
        self.table_map.mark_cell(start_token - self._p0, end_token - self._p0)
        self.span_label.setText(span_line(self.result, window, start_token, end_token,
                                          self._cell_valid(start_token, end_token)))
        self._render_passage()

    # ----------------------------------------------------------------------------------- rendering
    def _fill_nbest(self) -> None:
        cands = self.result.nbest
        self.nbest.setRowCount(len(cands))
        right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter   # once: a flag | costs Python time
        null = (self.result.null_start_logit, self.result.null_end_logit)   # null_score shares the decimals
        rounded = nbest_note(cands, null)   # said on each score where a shown score adds the shown parts
        with cells_told_once(self.nbest) as table:
            for r, values in enumerate(nbest_rows(cands, null)):
                for k, v in enumerate(values):
                    item = QTableWidgetItem(v)
                    if k == 1 or (k == 4 and rounded):
                        item.setToolTip(v if k == 1 else rounded)
                    else:
                        item.setTextAlignment(right)
                    table.setItem(r, k, item)
        self._nbest_columns()
        self.nbest.resizeRowsToContents()

    def _nbest_columns(self) -> None:
        """The text column takes the free width but keeps MIN_TEXT_COLUMN px; the number columns are as wide
        as their contents and titles (explorer.ui.shell.columns)."""
        fit_columns(self.nbest, stretch=1)

    def _render_window(self) -> None:
        w = self.result.windows[self.window]
        self.probs.show_window(w)
        p0, p1 = passage_range(w)
        self._p0 = p0
        self._table = w.span_score_table(self.result.max_answer_length)[p0:p1, p0:p1]
        self._best_cell = self.table_map.show_table(self._table, list(w.tokens[p0:p1]))
        self._render_passage()

    def _cell_valid(self, i: int, j: int) -> bool:
        r, c = i - self._p0, j - self._p0
        return 0 <= r < self._table.shape[0] and 0 <= c < self._table.shape[1] and not np.isnan(self._table[r, c])

    def _render_passage(self) -> None:
        if self.result is None:
            return
        text, anchored = passage_html(self.result, self.window, self.tau, self.selected)
        self.passage.setHtml(text)
        if anchored:
            self.passage.scrollToAnchor("shown")

    def _render_decision(self) -> None:
        self.decision.show_lines(decision_lines(self.result, self.tau) if self.result is not None else None)
        self._render_passage()

    # ----------------------------------------------------------------------------------- events
    def _on_slider(self, value: int) -> None:
        self.tau = value / SLIDER_SCALE
        self.decision.show_tau(self.tau, slider=False)
        self._render_decision()
        self.tau_changed.emit(self.tau)

    def _on_spin(self, value: float) -> None:
        self.tau = float(value)
        self.decision.show_tau(value, spin=False)
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
        self.table_map.setToolTip(cell_tip(w, row + self._p0, col + self._p0, self._table[row, col]))

    def _on_nbest_clicked(self, row: int, col: int) -> None:
        c = self.result.nbest[row]
        self.select_span(c.window_index, c.start_token, c.end_token)

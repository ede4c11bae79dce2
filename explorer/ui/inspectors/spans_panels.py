"""The Spans & τ view's panes, each drawing what it is given (explorer.ui.inspectors.spans_view decides what):
the no-answer decision with its τ slider and box, the per-token P(start) / P(end) bars, and the span score
table as a heat map.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QFormLayout, QGroupBox, QHBoxLayout, QLabel, QSlider, QSplitter, QWidget

from explorer.core.qa.scores import TAU_GRID_LIMIT

from explorer.ui.shell.lines_label import LinesLabel

from .common import term_label, tip
from .components.spans import DecisionLines, best_cell, first_zoom, token_probs_tip
from .heatmap import TokenAxis, TokenHeatmap
from .tau_spin import tau_spin_box
from .token_axis import ReadableTokenAxis

SLIDER_SCALE = 100  # slider steps per logit unit (0.01 resolution)


class DecisionBox(QGroupBox):
    """The decision panel: null_score, best_non_null_score, score_diff, τ (``slider`` and ``spin``), the decision,
    a note on abstaining (hidden unless set), and the by-hand check of the output layer."""

    def __init__(self, parent=None):
        super().__init__("No answer?  answer iff best_non_null_score > null_score + τ", parent)
        # one line each whatever the result (a longer best span wrapped to a second line and moved the τ box a
        # row from one probe to the next): a line too long for the pane is cut at a word, whole in its tooltip,
        # and never widens the pane past the window
        self.null_label = LinesLabel("–", lines=1)
        self.best_label = LinesLabel("–", lines=2)   # its span text: two lines, so a short answer reads whole
        self.diff_label = LinesLabel("–", lines=1)
        for lab in (self.null_label, self.best_label, self.diff_label):
            lab.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
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
        self.other_rule_label = QLabel("")   # the other decode rule's answer, shown only where it differs
        self.other_rule_label.setWordWrap(True)
        self.other_rule_label.setStyleSheet("color: #8a5a00;")
        self.other_rule_label.setToolTip("The same logits decoded by the other rule: passage (top n_best_size "
                                         "starts and ends among passage tokens) or run_qa (top n_best_size over all "
                                         "tokens, as transformers' run_qa.py). Pick the rule in the probe panel.")
        self.other_rule_label.setVisible(False)
        form.addRow(self.other_rule_label)
        self.why_row = QHBoxLayout()   # the decision's attributions (explorer.ui.inspectors.decision_why_view)
        form.addRow(term_label("why?", "score_diff"), self.why_row)
        self.why_job_row = QHBoxLayout()   # its progress row, the page's width (beside the button it widened the
        form.addRow(self.why_job_row)      # page past a 1280x800 window)
        self.abstain_note = QLabel("")   # a SQuAD v1.1 model: never trained to abstain (set_abstain_note)
        self.abstain_note.setWordWrap(True)
        self.abstain_note.setStyleSheet("color: #8a5a00;")
        self.abstain_note.setVisible(False)
        form.addRow(self.abstain_note)
        form.addRow(term_label("by-hand check", "by_hand_check"), self.byhand_label)
        self.setLayout(form)

    def show_lines(self, lines: DecisionLines | None) -> None:
        """The lines of a result at a τ (components.spans.decision_lines); None: no result."""
        if lines is None:
            for lab in (self.null_label, self.best_label, self.diff_label, self.byhand_label):
                lab.setText("–")
            self.decision_label.setText("probe a question to see the decision")
            self.decision_label.setStyleSheet("")
            self.other_rule_label.setVisible(False)
            return
        self.null_label.setText(lines.null)
        self.null_label.setToolTip(lines.null_tip)
        self.best_label.setText(lines.best)
        if lines.best_tip is not None:
            self.best_label.setToolTip(lines.best_tip)
        self.diff_label.setText(lines.diff)
        self.decision_label.setText(lines.decision)
        self.decision_label.setStyleSheet("color:#1a7f1a;" if lines.answer else "color:#b03030;")
        self.byhand_label.setText(lines.by_hand)
        self.other_rule_label.setText(lines.other_rule)
        self.other_rule_label.setVisible(bool(lines.other_rule))

    def show_tau(self, tau: float, *, slider: bool = True, spin: bool = True) -> None:
        """Put τ in the slider and / or the box without their signals."""
        if spin:
            self.spin.blockSignals(True)
            self.spin.setValue(tau)
            self.spin.blockSignals(False)
        if slider:
            self.slider.blockSignals(True)
            self.slider.setValue(int(round(tau * SLIDER_SCALE)))
            self.slider.blockSignals(False)

    def set_slider_limit(self, limit: float, tooltip: str, tau: float) -> None:
        """The slider runs over ±``limit`` (τ stays ``tau``)."""
        self.slider.setToolTip(tooltip)
        self.slider.blockSignals(True)
        self.slider.setRange(int(-limit * SLIDER_SCALE), int(limit * SLIDER_SCALE))
        self.slider.setValue(int(round(tau * SLIDER_SCALE)))
        self.slider.blockSignals(False)


class StartEndBars(pg.PlotWidget):
    """P(start) up and P(end) down as bars under the tokens of one window; the tooltip reads the token under the
    mouse (``shown_window``: the window shown, None without a result)."""

    def __init__(self, parent=None):
        axis = TokenAxis("bottom")
        super().__init__(parent, background="w", axisItems={"bottom": axis})
        self.axis = axis
        self.shown_window = None
        self.setLabel("left", "P(start) ↑  P(end) ↓")
        self.setMouseEnabled(x=True, y=False)
        self.setMenuEnabled(False)
        self.start_bars = pg.BarGraphItem(x=[], height=[], width=0.8, brush="#1f77b4", pen=None)
        self.end_bars = pg.BarGraphItem(x=[], height=[], width=0.8, brush="#ff7f0e", pen=None)
        self.addItem(self.start_bars)
        self.addItem(self.end_bars)
        self.addItem(pg.InfiniteLine(pos=0, angle=0, pen=pg.mkPen("#999")))
        self.setToolTip("softmax of start_logits (blue, up) and end_logits (orange, down) over the "
                        "tokens of this window")
        self.scene().sigMouseMoved.connect(self._on_hover)

    def show_window(self, w) -> None:
        """The bars of window ``w`` (a ProbeWindow)."""
        self.shown_window = w
        n = len(w.tokens)
        x = np.arange(n, dtype=float) + 0.5  # TokenAxis labels cell i at i + 0.5
        self.start_bars.setOpts(x=x, height=np.asarray(w.start_probs, dtype=float), width=0.8)
        self.end_bars.setOpts(x=x, height=-np.asarray(w.end_probs, dtype=float), width=0.8)
        self.axis.set_labels(list(w.tokens))
        self.setXRange(0, n, padding=0.01)
        self.setYRange(-1.0, 1.0, padding=0.02)

    def _on_hover(self, scene_pos) -> None:
        w = self.shown_window
        if w is None:
            return
        p = self.getPlotItem().vb.mapSceneToView(scene_pos)
        i = int(math.floor(p.x()))
        if 0 <= i < len(w.tokens):
            self.setToolTip(token_probs_tip(w, i))


MAP_MARGINS = (4, 3, 4, 1)   # px left, top, right, bottom around the span score map's plot and colour bar


class SpanScoreMap(TokenHeatmap):
    """The span score table S.T_i + E.T_j of one window's passage tokens (rows: start i, columns: end j); invalid
    cells are NaN and drawn empty; the best cell boxed, a long window zoomed around it first."""

    def __init__(self, parent=None):
        super().__init__(parent, cmap="viridis", colorbar_label="S.T_i + E.T_j")
        end_axis = ReadableTokenAxis("bottom")   # several readable end-token ticks however narrow the table
        self.plot.setAxisItems({"bottom": end_axis})
        self.bottom_axis = end_axis
        self.setToolTip("Span score table: row = start token i, column = end token j, value "
                        "start_logits[i] + end_logits[j]. Empty cells are invalid spans (j < i, longer "
                        "than max_answer_length, or outside the passage). Red box: the best cell; "
                        "click a cell to see its span.")
        self.plot.setLabel("left", "start token i")
        self.plot.setLabel("bottom", "end token j")
        # the cells take the height pyqtgraph's default 9 px frame kept blank above and below the plot (the map's
        # tab under the decision at 1280x800 has little to spare)
        self.ci.layout.setContentsMargins(*MAP_MARGINS)

    def show_table(self, table: np.ndarray, labels: list[str]) -> tuple[int, int] | None:
        """Draw ``table`` (n, n) with token ``labels``; returns its best cell (None: no valid cell, or no passage
        tokens, which clears the map)."""
        if not table.size:   # no passage tokens in this window: nothing (and nothing of the previous probe) to show
            self.clear_map()
            return None
        self.set_matrix(table, labels, labels)
        cell = best_cell(table)
        if cell is not None:
            self.mark_cell(*cell)
            zoom = first_zoom(cell, len(labels))
            if zoom is not None:
                self.plot.setXRange(*zoom, padding=0)
                self.plot.setYRange(*zoom, padding=0)
        return cell


class SpanTables(QSplitter):
    """The n-best table above the span score tabs, a handle between them (``Qt.Vertical``). It asks for no more
    height than its minimum: the heat map's large size hint, summed with the table's, made the Spans & τ page
    scroll at 1920x1080; the splitter shares whatever height the page gives, by its stretch factors."""

    def __init__(self, nbest: QWidget, tabs: QWidget, parent=None):
        super().__init__(Qt.Orientation.Vertical, parent)
        self.addWidget(nbest)
        self.addWidget(tabs)
        self.setStretchFactor(0, 1)
        self.setStretchFactor(1, 3)   # the heat map takes most of a tall pane
        self.setChildrenCollapsible(False)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(super().sizeHint().width(), self.minimumSizeHint().height())

"""Attention flow over training, in the Curves area: the watched questions' block flow per layer against the
step, one line per layer, for one block pair (explorer.core.attention.flow_history, from the runs' ``eval`` events).

A user sees when, for instance, the question -> passage attention of layer 6 rose. Shown under the curves
once a shown QA run has recorded watch examples; the run, the block pair and the question (or their mean) are
picked above the plot.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from explorer.core.attention.flow_history import FlowHistory, flow_history
from explorer.ui.curves.legend import fit_legend_columns, legend_below
from explorer.ui.shell.flow_layout import FlowLayout
from explorer.ui.shell.turns import after_paint

BLOCK_NAMES = {"question": "question", "passage": "passage", "special": "[CLS]/[SEP]"}
DEFAULT_PAIR = "question->passage"
LINES_PER_TURN = 3      # line items (with their legend entries) a shown view makes per event-loop turn
PLOT_MIN_HEIGHT = 200   # px: the flow plot's least height while open (a data area of ~120 px: layout_check)


def pair_label(pair: str) -> str:
    """"question->special" -> "question → [CLS]/[SEP]"."""
    a, _, b = pair.partition("->")
    return f"{BLOCK_NAMES.get(a, a)} → {BLOCK_NAMES.get(b, b)}"


def layer_colors(n: int) -> list[str]:
    """n colours from light (layer 1, near the input) to dark (the last layer): viridis."""
    cmap = pg.colormap.get("viridis")
    return [cmap.map(0.8 * (1 - k / max(n - 1, 1)), mode="qcolor").name() for k in range(n)]


class FlowOverTraining(QWidget):
    """The block flow per layer of the watched questions against the step. :meth:`set_runs` (RunState-like
    objects with ``run_id`` and ``evals``, the run's eval events) then :meth:`refresh` when they got events.

    It collapses to its header line (the "Hide" / "Show" button, or :meth:`set_collapsed`), so that the plots
    above it get the page height.

    Signals:
        collapsed_changed(bool): the user pressed "Hide" (True) or "Show" (False).
    """

    collapsed_changed = Signal(bool)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.runs: list = []
        self.history: FlowHistory | None = None
        self.name_of = lambda run_id: run_id
        self._n_evals = -1
        self._lines: list = []
        self._items: list = []        # the drawn lines' PlotDataItems, kept while the layers stay the same
        self._items_key = None        # ((layer, colour), ...) the items and legend entries were made for
        self.run_box = QComboBox()
        self.run_box.setToolTip("The run whose watched questions are drawn.")
        self.pair_box = QComboBox()
        self.pair_box.setToolTip("Which block flow: the share of the first block's attention that goes to the "
                                 "second, averaged over its tokens and the heads of the layer.")
        self.question_box = QComboBox()
        self.question_box.setToolTip("One watched question, or the mean over all of them.")
        for box in (self.run_box, self.pair_box, self.question_box):
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            box.setMinimumContentsLength(14)
        self.question_box.setMinimumContentsLength(24)
        self.plot = pg.PlotWidget(background="w")
        self.plot.setLabel("bottom", "step")
        self.plot.setLabel("left", "share of attention")
        self.plot.getAxis("left").enableAutoSIPrefix(False)
        self.plot.getAxis("bottom").enableAutoSIPrefix(False)
        self.plot.setMinimumHeight(PLOT_MIN_HEIGHT)
        self._legend_fit = fit_legend_columns(self.plot, legend_below(self.plot, columns=6), max_columns=12)
        self.note = QLabel()
        self.note.setWordWrap(True)
        # a flow, not a row: the title and the three pickers side by side asked the main window for 1224 px
        # (1624 with the Runs dock on a 1280 px screen); they wrap onto a second row instead
        row = self._header = FlowLayout()
        self.toggle = QToolButton()
        self.toggle.setAutoRaise(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.clicked.connect(lambda: self._toggled_by_user())
        self._collapsed = False
        self._show_toggle_state()
        row.addWidget(self.toggle)
        title = QLabel("<b>Attention flow over training</b> (watched questions, one line per layer)")
        row.addWidget(title)
        for label, box in (("run", self.run_box), ("flow", self.pair_box), ("question", self.question_box)):
            pair = QWidget()        # a label stays beside its picker when the row wraps
            pair_row = QHBoxLayout(pair)
            pair_row.setContentsMargins(0, 0, 0, 0)
            pair_row.addWidget(QLabel(label))
            pair_row.addWidget(box)
            row.addWidget(pair)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 4, 0, 0)
        lay.addLayout(row)
        lay.addWidget(self.plot, 1)
        lay.addWidget(self.note)
        self.run_box.currentIndexChanged.connect(lambda _i: self._load())
        self.pair_box.currentIndexChanged.connect(lambda _i: self._draw())
        self.question_box.currentIndexChanged.connect(lambda _i: self._draw())

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        """Ask for the height the wrapped header and note need at this width: the Curves splitter reads only
        the minimum size, and squeezed below it the note and the legend were drawn over the plot's axis."""
        super().resizeEvent(event)
        self._fit_height(event.size().width())

    def _fit_height(self, width: int) -> None:
        """Minimum height for ``width`` px: the header, plus the plot's least height and the note while open;
        collapsed, also the maximum (the splitter then gives the rest of the page to the plots above)."""
        lay = self.layout()
        top, bottom = lay.contentsMargins().top(), lay.contentsMargins().bottom()
        header = top + bottom + self._header.heightForWidth(width)
        need = header if self._collapsed else (header + 2 * lay.spacing() + self.plot.minimumHeight()
                                               + (self.note.heightForWidth(width) if self.note.text() else 0))
        if need > 0 and need != self.minimumHeight():
            self.setMinimumHeight(need)
        self.setMaximumHeight(need if self._collapsed else 16777215)   # QWIDGETSIZE_MAX

    def header_height(self) -> int:
        """The collapsed height at the current width, in px (the header line with its margins)."""
        lay = self.layout()
        return lay.contentsMargins().top() + lay.contentsMargins().bottom() + self._header.heightForWidth(
            max(self.width(), 1))

    def is_collapsed(self) -> bool:
        """Whether only the header line shows."""
        return self._collapsed

    def set_collapsed(self, collapsed: bool) -> None:
        """Show only the header line (True) or the plot and its note too (False); emits nothing."""
        self._collapsed = bool(collapsed)
        self.plot.setVisible(not self._collapsed)
        self.note.setVisible(not self._collapsed)
        self._show_toggle_state()
        self._fit_height(max(self.width(), 1))

    def _toggled_by_user(self) -> None:
        self.set_collapsed(not self._collapsed)
        self.collapsed_changed.emit(self._collapsed)

    def _show_toggle_state(self) -> None:
        self.toggle.setText("Show" if self._collapsed else "Hide")
        self.toggle.setArrowType(Qt.ArrowType.RightArrow if self._collapsed else Qt.ArrowType.DownArrow)
        self.toggle.setIconSize(QSize(10, 10))
        self.toggle.setToolTip("Show the attention flow plot (the curves above get less height)." if self._collapsed
                               else "Fold the attention flow to this line: the curves above get the page height.")

    # ---- public -------------------------------------------------------------------------
    def set_runs(self, runs: list) -> None:
        """Show the first of ``runs`` with a watch flow (the others are in the run picker)."""
        self.runs = [s for s in runs if bool(flow_history(getattr(s, "evals", []) or []))]
        current = self.run_box.currentText()
        self.run_box.blockSignals(True)
        self.run_box.clear()
        self.run_box.addItems([self.name_of(s.run_id) for s in self.runs])
        names = [self.run_box.itemText(i) for i in range(self.run_box.count())]
        self.run_box.setCurrentIndex(names.index(current) if current in names else 0)
        self.run_box.blockSignals(False)
        self._load()

    def refresh(self, run_id: str) -> None:
        """The run ``run_id`` got events: redraw if it is the one shown and it has a new evaluation."""
        run = self._run()
        if run is not None and run.run_id == run_id and len(run.evals) != self._n_evals:
            self._load()

    def prewarm(self, width: int) -> None:
        """Render this view once while it is hidden, at ``width`` px and its least open height: polish, layout,
        fonts and the plot's axes are done then, not in the turn of the first evaluation that shows it (with that
        turn's line items and page layout, the first evaluation held the GUI thread past 50 ms). Nothing is shown
        or changed; a view already shown is left alone."""
        if not self.isHidden() or width <= 0:
            return
        self.ensurePolished()
        self.resize(width, max(self.minimumHeight(), PLOT_MIN_HEIGHT))
        self.grab()

    def lines(self) -> list[tuple[int, np.ndarray, np.ndarray]]:
        """What the plot draws now: [(layer, steps, values)] (tests)."""
        return list(self._lines)

    # ---- internals ----------------------------------------------------------------------
    def _run(self):
        i = self.run_box.currentIndex()
        return self.runs[i] if 0 <= i < len(self.runs) else None

    def _load(self) -> None:
        run = self._run()
        self.history = flow_history(run.evals) if run is not None else None
        self._n_evals = len(run.evals) if run is not None else -1
        h = self.history
        pair, question = self.pair_box.currentData(), self.question_box.currentIndex()
        for box in (self.pair_box, self.question_box):
            box.blockSignals(True)
            box.clear()
        if h:
            for p in h.pairs:
                self.pair_box.addItem(pair_label(p), p)
            keep = pair if pair in h.pairs else DEFAULT_PAIR if DEFAULT_PAIR in h.pairs else h.pairs[0]
            self.pair_box.setCurrentIndex(h.pairs.index(keep))
            self.question_box.addItem(f"mean of the {len(h.questions)} watched questions")
            for q in h.questions:
                self.question_box.addItem(q)
            self.question_box.setCurrentIndex(question if 0 <= question < self.question_box.count() else 0)
        for box in (self.pair_box, self.question_box):
            box.blockSignals(False)
        self._draw()

    def _make_lines(self, key: tuple, all_now: bool = False) -> None:
        """Make the next LINES_PER_TURN line items (and legend entries) of ``key``, ((layer, colour), ...); in a
        window on screen the others come in the next turns, each after the paint of the one before. A line with its
        legend entry costs pyqtgraph 3-4 ms, and a first evaluation also shows this view and lays the page out
        again: all of it in one turn held the GUI thread for 100 ms (scripts/gui_stall_probe.py). A
        window not on screen (tests, an export) gets them all at once."""
        if key != self._items_key:   # other layers (or none) since
            return
        start = len(self._items)
        # the window on screen, not this view: a first evaluation draws the lines just before the view is shown
        spread = self.window().isVisible() and not all_now
        stop = min(len(self._lines), start + LINES_PER_TURN) if spread else len(self._lines)
        for (layer, x, y), (_layer, color) in zip(self._lines[start:stop], key[start:stop]):
            self._items.append(self.plot.plot(x, y, pen=pg.mkPen(color, width=2), symbol="o", symbolSize=5,
                                              symbolBrush=color, symbolPen=None, name=f"layer {layer}"))
        if len(self._items) < len(self._lines):
            after_paint(self, lambda: self._make_lines(key))
        else:
            self._legend_fit.fit(self.plot.width())

    def lines_pending(self) -> bool:
        """Whether line items are still to be made (in the next event-loop turns)."""
        return self._items_key is not None and len(self._items) < len(self._lines)

    def finish_lines(self) -> None:
        """Make the lines still pending now (tests, exports: Curves' redraw_now)."""
        if self.lines_pending():
            self._make_lines(self._items_key, all_now=True)

    def _clear_items(self) -> None:
        self.plot.clear()
        legend = self.plot.plotItem.legend
        if legend is not None:
            legend.clear()
        self._items, self._items_key = [], None

    def _draw(self) -> None:
        """Draw the chosen pair and question. A new evaluation (the same layers) only gives the existing
        lines their new points: clearing the plot and its legend and building them again stalled the
        GUI thread 140-190 ms after each evaluation (gui_stall_probe.py)."""
        self._lines = []
        h = self.history
        if not h:
            self._clear_items()
            self.note.setText("No watched questions with attention flow in the shown runs (QA runs record them "
                              "at every evaluation).")
            return
        pair = self.pair_box.currentData() or h.pairs[0]
        q = self.question_box.currentIndex()
        self._lines = h.lines(pair, None if q <= 0 else q - 1)
        colors = layer_colors(h.layers)
        key = tuple((layer, color) for (layer, _x, _y), color in zip(self._lines, colors))
        if key == self._items_key:   # the lines made (or being made) for these layers get their new points
            for item, (_layer, x, y) in zip(self._items, self._lines):
                item.setData(x, y)
        else:
            self._clear_items()
            self._items_key = key
            if self.window().isVisible():   # a first evaluation also shows this view: the lines after that paint
                after_paint(self, lambda: self._make_lines(key))
            else:
                self._make_lines(key)
        who = "the mean over the watched questions" if q <= 0 else f"“{h.questions[q - 1]}”"
        # what is drawn is said in the note, not in a plot title: the plot keeps its height for the data
        self.note.setText(f"{pair_label(pair)}, {who}: {len(h.steps)} evaluations, steps {h.steps.min():g}–{h.steps.max():g}; each point is "
                          "the share of the first block's attention that goes to the second (mean over its tokens "
                          "and the layer's heads) on the window the answer came from.")

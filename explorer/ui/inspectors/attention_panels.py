"""The Attention view's panes, each drawing one thing it is given (explorer.ui.inspectors.attention_view decides
what): the token views (the token x token map beside the head view's lines, or the two as tabs in a narrow pane),
the block flow per layer (table and curves), the model view (one block flow over all layers x heads), and how
they share the page: the token views over the lower tabs in a splitter whose place is remembered, without a page
scroll (at 1280x800 the lines view got 60 px and the lower tabs were reached only by scrolling the page).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QByteArray, QEvent, QItemSelectionModel, QSize, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QCheckBox, QComboBox, QHBoxLayout, QHeaderView, QLabel, QScrollArea, QSpinBox,
                               QSplitter, QTableWidget, QTableWidgetItem, QTabWidget, QVBoxLayout, QWidget)

from explorer.core.attention.head_labels import head_axis_labels, layer_axis_labels
from explorer.ui.shell.adaptive_splitter import AdaptiveSplitter
from explorer.ui.shell.columns import cells_told_once, rows_tall
from explorer.ui.shell.flow_layout import FlowLayout
from explorer.ui.shell.panes_or_tabs import PanesOrTabs

from .common import tip
from .components.attention import SELECT_HINT, BlockLayout, flow_column_tip, flow_which_text, flow_which_tip
from .head_view import HeadView
from .heatmap import TokenHeatmap

MIN_MAP_PX = 220    # the token map's smallest width inside its axes (side by side with the lines view), pixels
MAP_MIN_HEIGHT = 200   # the token map widget's smallest height, axes and labels included, pixels
LINES_MIN_PX = 180  # the lines view's smallest height (its scroll area, under the direction and top-k boxes), pixels
TABS_MIN_PX = 90    # the lower tabs' smallest page height: a page taller than its tab scrolls inside the tab
SPLIT_KEY = "attention/views"   # AppSettings.layout_value key: the splitter's saveState, base64
MIN_PLOT_PX = 140   # the block-flow curves' smallest height inside the plot's axes, pixels
FLOW_MAX_ROWS = 6   # layers the block flow table asks room for: a deeper model's rows scroll inside the table, under
                    # its header (asking for all 12 of BERT-base made the table taller than its tab at 1280x800: the
                    # tab's page scrolled and took the header away from the rows)
FLOW_COLOURS = ("#1f77b4", "#2ca02c", "#7f7f7f")


class ControlRow(FlowLayout):
    """The mode / layer / head / window boxes and the merge box in one row that wraps in a narrow view instead of
    widening it: ``mode``, ``layer``, ``head``, ``window_box``, ``merge``."""

    def __init__(self, parent=None):
        super().__init__(parent)
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
        for box in (self.mode, self.layer, self.head):
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        # whole: "window 2 of 11 · 384 tokens · chars 374–940" (an elided box reads "1: 165 tokens, chars"); the
        # row wraps it onto a line of its own in a narrow view
        self.window_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        for w in (QLabel("mode"), self.mode, QLabel("layer"), self.layer, QLabel("head"), self.head,
                  self.window_box, self.merge):   # the window box's items name themselves
            self.addWidget(w)
        self.addStretch(1)


class TokenViews(PanesOrTabs):
    """The token x token heat map (``heatmap``) beside the head view (``head_view``: lines of the top-k weights
    per token, in ``head_scroll``) with its direction and top-k boxes; the two are tabs of the whole width when
    they do not fit side by side (stacked in a 1280x800 window the lines view got 60 px under the map)."""

    def __init__(self, blocks: BlockLayout, parent=None):
        super().__init__(parent)
        self.direction = QComboBox()
        self.direction.addItems([d[0] for d in blocks.directions])
        self.direction.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.topk = QSpinBox()
        self.topk.setRange(1, 50)
        self.topk.setValue(5)
        self.topk.setPrefix("top ")
        self.topk.setToolTip("Lines drawn per from-token in the head view: its k largest weights.")
        self.heatmap = TokenHeatmap(colorbar_label="attention weight")
        # a map of MIN_MAP_PX or more inside its token labels and colour bar; narrower than that and the two views
        # become tabs (side by side in a 1280 px window the map would be a 90 px strip)
        self.heatmap.setMinimumSize(MIN_MAP_PX + 150, MAP_MIN_HEIGHT)
        self.heatmap.plot.setLabel("left", "from token (row)")
        self.heatmap.plot.setLabel("bottom", "to token (column)")
        self.head_view = HeadView()
        self.head_scroll = QScrollArea()
        self.head_scroll.setWidgetResizable(True)
        self.head_scroll.setWidget(self.head_view)
        self.head_scroll.setMinimumHeight(LINES_MIN_PX)
        self.head_box = QWidget()
        hl = QVBoxLayout(self.head_box)
        hl.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        row.addWidget(self.direction)
        row.addWidget(self.topk)
        select = QLabel(SELECT_HINT)
        select.setStyleSheet("color: #555;")
        select.setToolTip("Click a token to select it, Ctrl+click to add one, drag to select a range.")
        row.addWidget(select)
        row.addStretch(1)
        hl.addLayout(row)
        hl.addWidget(self.head_scroll, 1)
        self.add(self.heatmap, "Token map", MIN_MAP_PX + 150)
        self.add(self.head_box, "Lines view", max(self.head_box.minimumSizeHint().width(), 240))
        self.tabs.setTabToolTip(0, "The token x token map of the layer and head chosen above.")
        self.tabs.setTabToolTip(1, "Lines from each token to the tokens it attends to most (thickness = weight); "
                                   "hover or select tokens.")


class PageScroll(QScrollArea):
    """A lower tab's page in a scroll area that scrolls up and down only: the page fills the tab, and is as tall as
    its minimum for the tab's width where that is more (then it scrolls). A resizable QScrollArea gave a page with
    wrapped text its preferred height instead: the head importance plots 604 px high in a 380 px tab."""

    def __init__(self, page: QWidget, parent=None):
        super().__init__(parent)
        self.setWidget(page)
        self.setWidgetResizable(False)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setMinimumHeight(TABS_MIN_PX)
        page.installEventFilter(self)

    def page_height(self, width: int) -> int:
        """The page's minimum height at ``width``: wrapped labels counted at that width."""
        page = self.widget()
        height = page.minimumSizeHint().expandedTo(page.minimumSize()).height()
        layout = page.layout()
        if layout is not None and layout.hasHeightForWidth():
            height = max(height, layout.totalMinimumHeightForWidth(width))
        return height

    def fit(self) -> None:
        """Size the page to the viewport's width, its height at least the viewport's."""
        width = self.viewport().width()
        if self.verticalScrollBar().isVisible() or self.page_height(width) > self.viewport().height():
            width = self.width() - self.verticalScrollBar().sizeHint().width()
        self.widget().resize(width, max(self.page_height(width), self.viewport().height()))

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt API
        if obj is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            self.fit()
        return False

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self.fit()

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        """The page's minimum width (plus the scroll bar): the tab is never narrower than the page needs."""
        page = self.widget()
        width = page.minimumSizeHint().expandedTo(page.minimumSize()).width()
        return QSize(width + self.verticalScrollBar().sizeHint().width(), TABS_MIN_PX)


class ScrollingTabs(QTabWidget):
    """Tabs whose pages scroll up and down inside their tab: the tab bar stays in view however low the room under
    the token views (the block flow's table and plot need more than a 1280x800 window leaves them). ``page(i)`` and
    ``indexOf``/``setCurrentWidget`` speak of the pages added, not of the scroll areas holding them."""

    def addTab(self, page: QWidget, title: str) -> int:  # noqa: N802 - Qt's name
        return super().addTab(PageScroll(page), title)

    def page(self, index: int) -> QWidget | None:
        area = self.widget(index)
        return area.widget() if isinstance(area, QScrollArea) else area

    def indexOf(self, page: QWidget) -> int:  # noqa: N802 - Qt's name
        for i in range(self.count()):
            if page is self.page(i) or page is self.widget(i):
                return i
        return -1

    def setCurrentWidget(self, page: QWidget) -> None:  # noqa: N802 - Qt's name
        index = self.indexOf(page)
        if index >= 0:
            self.setCurrentIndex(index)


class ViewsSplit(QSplitter):
    """The token views over the lower tabs, one above the other. Until the user moves the handle, the lower tabs get
    the height their shown page asks for and the token views the rest (never under their minimum); dragged to
    the top, the handle folds the token views away and the lower tabs get the whole height. :meth:`remember`
    keeps where the user left the handle (AppSettings), but a start never opens with the token views folded away
    (nothing on the page would say where they went)."""

    def __init__(self, top: QWidget, bottom: ScrollingTabs, parent=None):
        super().__init__(Qt.Orientation.Vertical, parent)
        self.addWidget(top)
        self.addWidget(bottom)
        self.setStretchFactor(0, 1)
        self.setStretchFactor(1, 0)
        self.setCollapsible(0, True)    # the handle dragged up: the lower tabs' pages whole
        self.setCollapsible(1, False)   # their tab bar always in view
        self.settings = None
        self.user_set = False
        self.splitterMoved.connect(lambda _pos, _i: self._save())

    def remember(self, settings) -> None:
        """Put the handle where it was left (``settings``: the app's AppSettings) and keep its moves there."""
        self.settings = settings
        saved = settings.layout_value(SPLIT_KEY) if settings is not None else ""
        if saved and self.restoreState(QByteArray.fromBase64(saved.encode("ascii"))):
            self.user_set = True
            if not self.sizes()[0]:   # folded away when the app closed: a new start shows the token views again
                self.user_set = False
                self.place()

    def lower_wants(self) -> int:
        """The height the lower tabs ask for: their bar and their shown page's minimum height."""
        tabs = self.widget(1)
        page = tabs.page(tabs.currentIndex()) if tabs.count() else None
        need = page.minimumSizeHint().expandedTo(page.minimumSize()).height() if page is not None else 0
        return tabs.tabBar().sizeHint().height() + need + 8

    def place(self) -> None:
        """The default sizes: the lower tabs what they ask for, as far as the token views' minimum leaves room."""
        total = self.height() - self.handleWidth()
        top_min = self.widget(0).minimumSizeHint().height()
        bottom_min = self.widget(1).minimumSizeHint().height()
        lower = max(min(self.lower_wants(), total - top_min), bottom_min)
        self.setSizes([max(total - lower, 0), lower])

    def relayout(self) -> None:
        """What the lower tabs ask for changed (new table rows): the default sizes again, unless the user moved
        the handle."""
        if not self.user_set:
            self.place()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self.relayout()

    def _save(self) -> None:
        self.user_set = True
        if self.settings is not None:
            self.settings.set_layout_value(SPLIT_KEY, bytes(self.saveState().toBase64()).decode("ascii"))


class FlowPanel(AdaptiveSplitter):
    """Block flow per layer: the table (``table``, a row per layer) beside the curves over layers (``plot``,
    ``curves`` in ``blocks.flow_columns`` order, the shown layer dashed); the plot goes under the table when both
    do not fit side by side."""

    def __init__(self, blocks: BlockLayout, parent=None):
        super().__init__(parent)
        self.blocks = blocks
        self.table = QTableWidget(0, len(blocks.flow_columns))
        self.table.setHorizontalHeaderLabels(list(blocks.flow_headers))
        for c, (name, _, _) in enumerate(blocks.flow_columns):
            self.table.horizontalHeaderItem(c).setToolTip(flow_column_tip(name))
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.setSizeAdjustPolicy(QTableWidget.SizeAdjustPolicy.AdjustToContents)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.setToolTip(tip("block flow"))
        self.table.setMinimumHeight(rows_tall(self.table, 3))   # before the first result; then every layer
        # the columns' titles in their curves' colours: the table beside the curves is their key (a legend beside
        # the curves took 180 px of a 1280x800 window's width and stacked the table under them, its rows a scroll
        # away)
        for c, color in enumerate(FLOW_COLOURS[:len(blocks.flow_columns)]):
            self.table.horizontalHeaderItem(c).setForeground(QColor(color))
        self.plot = pg.PlotWidget(background="w")
        # the curves get MIN_PLOT_PX or more between the title and the axis (else 23 px in a 1280x800 window);
        # part of the widget's minimum size (hold_one_column below), so a page too low for it scrolls
        self.plot.getPlotItem().getViewBox().setMinimumHeight(MIN_PLOT_PX)
        self.plot.getPlotItem().getViewBox().setMinimumWidth(MIN_PLOT_PX)
        self.plot.setLabel("bottom", "layer")
        self.plot.setLabel("left", "share of attention")
        self.plot.getAxis("left").enableAutoSIPrefix(False)
        self.plot.getAxis("bottom").enableAutoSIPrefix(False)   # no "layer (x0.001)" on an empty plot
        self.plot.getAxis("bottom").setTickSpacing(1, 1)
        self.plot.setToolTip(tip("block flow"))
        self.curves = []
        # dynamicRangeLimit off: shares stay within the auto range, and with it every new y range (a head change)
        # rebuilt each curve's points a second time
        for (name, _, _), color in zip(blocks.flow_columns, FLOW_COLOURS):
            self.curves.append(self.plot.plot([], [], pen=pg.mkPen(color, width=2), symbol="o", symbolSize=6,
                                              symbolBrush=color, name=name, dynamicRangeLimit=None))
        self.plot.setMinimumSize(self.plot.getPlotItem().effectiveSizeHint(Qt.SizeHint.MinimumSize).toSize())
        self.layer_line = pg.InfiniteLine(angle=90, pen=pg.mkPen("#d62728", style=Qt.PenStyle.DashLine))
        self.plot.addItem(self.layer_line)
        # which head the numbers are of, over the table: with a head chosen they are that head's, not the layer's
        self.which = QLabel("")
        self.which.setObjectName("flowWhich")
        self.which.setStyleSheet("color:#444;")
        box = QWidget()
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        column.addWidget(self.which)
        column.addWidget(self.table, 1)
        self.addWidget(box)
        self.addWidget(self.plot)
        self.setStretchFactor(0, 0)
        self.setStretchFactor(1, 1)
        # stacked (a narrow pane), the curves come first: the top of the tab's page, in view without scrolling
        self.stack_first(self.plot)

    def fill(self, per_layer: np.ndarray, which: str) -> None:
        """The table and its curves for (layers, 3, 3) flow of ``which`` ("mean over heads", "head 2")."""
        n_layers = per_layer.shape[0]
        self.lay_out(per_layer, which)
        for c, (name, a, b) in enumerate(self.blocks.flow_columns):
            self.curves[c].setData(np.arange(1, n_layers + 1), per_layer[:, a, b])
        self.table.setToolTip(f"Block flow per layer, {which}.\n" + tip("block flow"))

    def lay_out(self, per_layer: np.ndarray, which: str) -> None:
        """What of the block flow sizes the page: the table's rows and texts (new rows, another number of layers,
        also size the table) and the plot's title."""
        n_layers = per_layer.shape[0]
        resize = self.table.rowCount() != n_layers
        if resize:   # new rows: new items; otherwise only their texts change (a head change)
            self.table.setRowCount(n_layers)
            self.table.setVerticalHeaderLabels(layer_axis_labels(n_layers, short=True))   # "L12": a narrow table
        self._set_texts(per_layer)
        if resize:
            self._fit_table()
            # every layer under the header up to FLOW_MAX_ROWS, then the rows scroll within the table, its header
            # staying over them
            self.table.setMinimumHeight(rows_tall(self.table, min(n_layers, FLOW_MAX_ROWS))
                                        + self.table.horizontalScrollBar().sizeHint().height())
        # no title over the curves (its 30 px kept them out of view under a 1280x800 window's lower tabs): the tab
        # names the plot, the label over the table and the tooltip say whose flow it is
        self.plot.setToolTip(f"Block flow per layer, {which}.\n" + tip("block flow"))
        self.which.setText(flow_which_text(which))
        self.which.setToolTip(flow_which_tip(which))

    def mark_layer(self, layer: int, one_layer: bool) -> None:
        """Layer ``layer`` (0-based) is the one shown: its dashed line and its row, the only one selected whatever
        keys are held (``one_layer`` False, rollout: no layer is). QTableView.selectRow would read the keyboard's
        modifiers: with Ctrl or Shift down it added the row to the previous layer's."""
        self.layer_line.setValue(layer + 1)
        self.layer_line.setVisible(one_layer)
        if one_layer and 0 <= layer < self.table.rowCount():
            column = max(self.table.currentColumn(), 0)
            flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
            index = self.table.model().index(layer, column)
            self.table.selectionModel().setCurrentIndex(index, flags)
            self.table.scrollTo(index)   # a deeper model's shown layer in view under the header

    def _set_texts(self, per_layer: np.ndarray) -> None:
        """The table's texts for (layers, 3, 3) flow, its views told once (a head change: 18 cells)."""
        with cells_told_once(self.table) as table:
            for c, (_name, a, b) in enumerate(self.blocks.flow_columns):
                for r, value in enumerate(per_layer[:, a, b].tolist()):
                    item = table.item(r, c)
                    if item is None:
                        item = QTableWidgetItem()
                        item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                        table.setItem(r, c, item)
                    item.setText(f"{value:.3f}")

    def _fit_table(self) -> None:
        """Make the table wide enough for all its columns (no horizontal scrolling)."""
        t = self.table
        t.resizeColumnsToContents()
        hh = t.horizontalHeader()
        width = sum(max(hh.sectionSizeHint(c), t.sizeHintForColumn(c)) for c in range(t.columnCount()))
        width += t.verticalHeader().sizeHint().width() + 2 * t.frameWidth() + t.verticalScrollBar().sizeHint().width()
        t.setMinimumWidth(width)


class ModelMapPanel(QWidget):
    """The model view: one block-flow pair (``pair_box``, ``pairs``) over all layers x heads (``map``); a click on
    a cell is the map's ``clicked(layer, head)``."""

    def __init__(self, blocks: BlockLayout, parent=None):
        super().__init__(parent)
        self.pair_box = QComboBox()
        self.pairs = list(blocks.pairs)
        self.pair_box.addItems(blocks.pair_names())
        self.pair_box.setCurrentIndex(self.pairs.index(blocks.default_pair))
        self.pair_box.setToolTip(tip("block flow"))
        self.map = TokenHeatmap(cmap="inferno", colorbar_label="block flow")
        self.map.setMinimumHeight(150)
        ml = QVBoxLayout(self)
        ml.setContentsMargins(0, 0, 0, 0)
        mrow = FlowLayout()   # wraps: the page scrolls up and down only
        mrow.addWidget(QLabel("block flow shown:"))
        mrow.addWidget(self.pair_box)
        hint = QLabel("rows: layers, columns: heads")
        hint.setToolTip("Click a cell to show that layer and head above.")
        mrow.addWidget(hint)
        mrow.addStretch(1)
        ml.addLayout(mrow)
        ml.addWidget(self.map)
        self._key: tuple | None = None   # what the map shows now (a layer change only moves the mark)

    def forget(self) -> None:
        """Draw the map again at the next :meth:`show_flow` (another result)."""
        self._key = None

    def show_flow(self, att, layer: int, head: int | None) -> None:
        """The chosen pair's block flow of ``att`` (AttentionData) over layers x heads, drawn again only when the
        result or the pair changed; the cell of (``layer``, ``head``) marked (``head`` None: none)."""
        pair = max(self.pair_box.currentIndex(), 0)
        if (id(att), pair) != self._key:
            self._key = (id(att), pair)
            a, b = self.pairs[pair]
            grid = att.flow[:, :, a, b]
            self.map.set_matrix(grid, layer_axis_labels(grid.shape[0], short=True), head_axis_labels(grid.shape[1]),
                                levels=(0.0, 1.0))
        if head is None:
            self.map.mark_cell(-1, -1)
        else:
            self.map.mark_cell(layer, head)

"""A token x token heatmap (pyqtgraph) with token labels on both axes, block strips, NaN cells
drawn transparent, hover and click signals, a marked cell and a highlighted row.

Cell (row r, column c) covers x in [c, c+1], y in [r, r+1]; row 0 is at the top. The image is
colour-mapped here (RGBA bytes), so NaN cells are simply transparent and any size redraws in one
ImageItem update.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QFontMetricsF, QPen

from .common import block_color
from .components.token_ticks import block_starts, placed_ticks

MAX_LABEL_PX = 160   # a vertical axis's labels get at most this width (a label longer is cut in its middle with
#                      "…", the whole label in the tooltip: "LEICESTERSHIRE (B-LOC)" whole, a longer one both ends)
TITLE_NUDGE = 5      # pyqtgraph draws a left axis's title this many px outside the axis


class TokenAxis(pg.AxisItem):
    """An axis that labels integer cells with token strings: every token when they fit, else the block starts
    (``boundaries``) always, spread apart where they are close, and evenly spaced tokens between them
    (components.token_ticks)."""

    def __init__(self, orientation: str, **kwargs):
        super().__init__(orientation, **kwargs)
        self.labels: list[str] = []
        self.boundaries: list[int] = []
        self._names: dict[float, str] = {}   # a label's position (cells) -> its token's text, for tickStrings
        self.setStyle(tickLength=0, textFillLimits=[(0, 0.95)])
        if orientation in ("top", "bottom"):   # a block start at the map's edge ([SEP] at token 6 of 384) may stand
            self.setStyle(hideOverlappingLabels=40)   # out past the axis's end, not be hidden for it
        self.setTextPen("#333")
        self.enableAutoSIPrefix(False)   # token indices: never "(x0.001)" on an empty or tiny range

    def set_labels(self, labels: list[str]) -> None:
        self.labels = list(labels)
        self._fit_width()
        self.picture = None
        self.update()

    def showLabel(self, show: bool = True) -> None:  # noqa: N802 (pyqtgraph naming; setLabel calls it)
        super().showLabel(show)
        self._fit_width()

    def _fit_width(self) -> None:
        """A vertical axis as wide as its widest token label measured in the tick font (at most MAX_LABEL_PX),
        the gap to the map, and its title's line: the title "from token (row)" is drawn at the axis's outer edge
        and the labels right-aligned at the map, so a width guessed from character counts put the title over
        a wide label ("##lace")."""
        if self.orientation not in ("left", "right") or self.label is None or not hasattr(self, "labels"):
            return
        fm = QFontMetricsF(self.style.get("tickFont") or QFont())
        widest = max((fm.horizontalAdvance(self._text(i)) for i in range(len(self.labels))),
                     default=fm.horizontalAdvance("[CLS]"))
        width = min(widest, MAX_LABEL_PX) + self.style["tickTextOffset"][0] + max(0, self.style["tickLength"]) + 2
        if self.label.isVisible():   # the title's line from the outer edge (pyqtgraph nudges it 5 px outwards)
            width += self.label.boundingRect().height() - TITLE_NUDGE
        self.setWidth(math.ceil(width))

    def _label_px(self, i: int) -> float:
        """The pixels token ``i``'s label needs along the axis (a line of text on a vertical axis)."""
        if self.orientation in ("left", "right"):
            return 16.0
        return 7.0 * min(len(self.labels[i]), 14) + 8.0

    def tickValues(self, minVal, maxVal, size):  # noqa: N802 (Qt naming)
        n = len(self.labels)
        minVal, maxVal = min(minVal, maxVal), max(minVal, maxVal)  # an inverted axis gives them reversed
        if n == 0 or size <= 0 or maxVal <= minVal:
            return []
        placed = placed_ticks(n, minVal, maxVal, size / (maxVal - minVal), self._label_px, self.boundaries)
        self._names = {p: self._text(i) for i, p in placed}
        return [(1.0, [p for _, p in placed])]   # one level: pyqtgraph always draws the first level's labels

    def tickStrings(self, values, scale, spacing):  # noqa: N802
        return [self._names[v] if v in self._names else self._text(int(math.floor(v))) for v in values]

    def _text(self, i: int) -> str:
        """Label ``i`` as drawn: on a vertical axis whole up to MAX_LABEL_PX of the tick font, a longer one cut in
        its middle (both ends stay: a word and its tag); on a horizontal axis its first 17 characters and "…"."""
        s = self.labels[i] if 0 <= i < len(self.labels) else ""
        if self.orientation in ("left", "right"):
            fm = QFontMetrics(self.style.get("tickFont") or QFont())
            return fm.elidedText(s, Qt.TextElideMode.ElideMiddle, MAX_LABEL_PX)
        return s if len(s) <= 18 else s[:17] + "…"

    def cut(self, i: int) -> bool:
        """Whether label ``i`` is drawn shorter than it is (its whole text is then the map's tooltip on its row)."""
        return 0 <= i < len(self.labels) and self._text(i) != self.labels[i]


_LUTS: dict[int, np.ndarray] = {}


def _lut(cmap: pg.ColorMap) -> np.ndarray:
    """The colour map's 256-entry RGBA table as (256,) uint32 (4 bytes per entry: one gather per cell), built
    once per map."""
    lut = _LUTS.get(id(cmap))
    if lut is None:
        rgba = np.ascontiguousarray(cmap.getLookupTable(0.0, 1.0, 256, alpha=True, mode="byte"), dtype=np.uint8)
        lut = _LUTS[id(cmap)] = rgba.view(np.uint32).reshape(256)
    return lut


def colorize(matrix: np.ndarray, levels: tuple[float, float], cmap: pg.ColorMap) -> np.ndarray:
    """(R, C) float -> (R, C, 4) uint8 RGBA through a 256-entry lookup table; NaN cells get alpha 0."""
    lo, hi = levels
    span = hi - lo if hi > lo else 1.0
    lut = _lut(cmap)
    nan = np.isnan(matrix)
    has_nan = bool(nan.any())
    dtype = np.result_type(matrix.dtype, np.float32)   # what numpy's promotion gave the one-expression version
    scaled = np.subtract(np.nan_to_num(matrix, nan=lo) if has_nan else matrix, lo, dtype=dtype)
    scaled *= dtype.type(255.0 / span)
    idx = np.clip(scaled, 0, 255, out=scaled).astype(np.uint8)
    packed = np.ascontiguousarray(lut[idx])   # (R, C) uint32, each the 4 RGBA bytes of one cell
    if has_nan:
        packed[nan] = 0                    # (0, 0, 0, 0): transparent
    return packed.view(np.uint8).reshape(*matrix.shape, 4)


def upper_level(matrix: np.ndarray, q: float) -> float:
    """``np.quantile(matrix, q)`` (linear interpolation), from two partitioned order statistics instead of a
    full sort: about 10x faster on a 384 x 384 map, the same number."""
    flat = np.asarray(matrix).ravel()
    if flat.size == 0:
        raise ValueError("upper_level of an empty matrix")
    pos = q * (flat.size - 1)
    lo = int(np.floor(pos))
    hi = min(lo + 1, flat.size - 1)
    part = np.partition(flat, [lo, hi])
    return float(np.quantile(part[[lo, hi]], pos - lo))


def block_strip(blocks: list[str]) -> np.ndarray:
    """(n,) blocks -> (n, 1, 4) RGBA bytes for a thin strip along an axis."""
    colors = {}
    out = np.zeros((len(blocks), 1, 4), dtype=np.uint8)
    for i, b in enumerate(blocks):
        if b not in colors:
            c = block_color(b)
            colors[b] = (c.red(), c.green(), c.blue(), 255)
        out[i, 0] = colors[b]
    return out


class TokenHeatmap(pg.GraphicsLayoutWidget):
    """Heatmap of a (rows, cols) matrix with token labels.

    Signals:
        hovered(row, col): the cell under the mouse, (-1, -1) when outside.
        clicked(row, col): a left click on a cell.
        row_step(step): Up (-1) or Down (+1) pressed with the map focused (a click focuses it).
    """

    hovered = Signal(int, int)
    clicked = Signal(int, int)
    row_step = Signal(int)

    STRIP = 1.2  # width of the block strips, in cells

    def __init__(self, parent=None, cmap: str = "viridis", colorbar_label: str = "",
                 bottom_axis: TokenAxis | None = None):
        super().__init__(parent)
        self.setBackground("w")
        self.cmap = pg.colormap.get(cmap)
        self.left_axis = TokenAxis("left")
        self.bottom_axis = bottom_axis or TokenAxis("bottom")   # (the Tag map's names every tag: label_axis)
        self.plot = self.addPlot(axisItems={"left": self.left_axis, "bottom": self.bottom_axis})
        self.plot.invertY(True)
        self.plot.setAspectLocked(False)
        self.plot.hideButtons()
        self.plot.setMenuEnabled(False)
        self.image = pg.ImageItem()
        self.plot.addItem(self.image)
        self.row_strip = pg.ImageItem()
        self.col_strip = pg.ImageItem()
        self.plot.addItem(self.row_strip)
        self.plot.addItem(self.col_strip)
        self.colorbar = pg.ColorBarItem(values=(0, 1), colorMap=self.cmap, interactive=False, width=12,
                                        label=colorbar_label)
        self.addItem(self.colorbar)
        self.row_marker = pg.QtWidgets.QGraphicsRectItem()
        self.row_marker.setPen(QPen(Qt.PenStyle.NoPen))
        self.row_marker.setBrush(QColor(255, 60, 60, 60))
        self.row_marker.setVisible(False)
        self.plot.addItem(self.row_marker)
        pen = QPen(QColor(230, 20, 20))
        pen.setCosmetic(True)
        pen.setWidthF(2.0)
        self.cell_marker = pg.QtWidgets.QGraphicsRectItem()
        self.cell_marker.setPen(pen)
        self.cell_marker.setVisible(False)
        self.plot.addItem(self.cell_marker)
        # the hovered row's own token, next to the highlight (the axis shows only every k-th label)
        self.hover_label = pg.TextItem("", color="#000", anchor=(0, 0.5), fill=pg.mkBrush(255, 255, 215, 230),
                                       border=pg.mkPen("#c00"))
        self.hover_label.setZValue(20)
        self.hover_label.setVisible(False)
        self.plot.addItem(self.hover_label, ignoreBounds=True)
        self.matrix = np.zeros((0, 0), dtype=np.float32)
        self.levels = (0.0, 1.0)
        self._strips: tuple = ("unset", "unset")   # the block lists the strips show now
        self._last_hover = (-1, -1)
        self.chosen_row = -1   # a row its page chose (the Tag page's word): highlighted again when the mouse leaves
        self.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.scene().sigMouseClicked.connect(self._on_mouse_clicked)

    # ----------------------------------------------------------------------------------- data
    def set_matrix(self, matrix: np.ndarray, row_labels: list[str], col_labels: list[str],
                   row_blocks: list[str] | None = None, col_blocks: list[str] | None = None,
                   levels: tuple[float, float] | None = None, keep_view: bool = False) -> None:
        """Show matrix (rows, cols); NaN cells transparent. levels default to (nanmin, nanmax)."""
        matrix = np.asarray(matrix, dtype=np.float32)
        if matrix.ndim != 2:
            raise ValueError(f"heatmap needs a 2-D matrix, got shape {matrix.shape}")
        rows, cols = matrix.shape
        if len(row_labels) != rows or len(col_labels) != cols:
            raise ValueError(f"{len(row_labels)} row / {len(col_labels)} column labels for a {matrix.shape} matrix")
        same_shape = self.matrix.shape == matrix.shape
        self.matrix = matrix
        finite = matrix[np.isfinite(matrix)]
        if levels is None:
            levels = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
            if levels[1] <= levels[0]:
                levels = (levels[0], levels[0] + 1e-6)
        self.levels = levels
        rgba = colorize(matrix, levels, self.cmap)
        # ImageItem is column-major (x first): give it (cols, rows, 4)
        self.image.setImage(rgba.transpose(1, 0, 2), autoLevels=False)
        self.image.setRect(QRectF(0, 0, cols, rows))
        self.colorbar.setLevels(levels)
        # a layer or head change keeps the tokens: labels and block strips are redrawn only when they change
        if self.left_axis.labels != list(row_labels):
            self.left_axis.set_labels(row_labels)
        if self.bottom_axis.labels != list(col_labels):
            self.bottom_axis.set_labels(col_labels)
        self.left_axis.boundaries = block_starts(row_blocks)    # where the question ends, named in any zoom
        self.bottom_axis.boundaries = block_starts(col_blocks)
        s = self.STRIP
        strips = (None if row_blocks is None else list(row_blocks), None if col_blocks is None else list(col_blocks))
        if strips != self._strips:
            self._strips = strips
            if row_blocks is not None:
                self.row_strip.setImage(block_strip(row_blocks).transpose(1, 0, 2))
                self.row_strip.setRect(QRectF(-s - 0.3, 0, s, rows))
            if col_blocks is not None:
                self.col_strip.setImage(block_strip(col_blocks))
                self.col_strip.setRect(QRectF(0, -s - 0.3, cols, s))
            self.row_strip.setVisible(row_blocks is not None)
            self.col_strip.setVisible(col_blocks is not None)
        self.cell_marker.setVisible(False)
        self.row_marker.setVisible(False)
        if not (keep_view and same_shape):
            self.plot.setXRange(-s - 0.5 if row_blocks is not None else 0, cols, padding=0)
            self.plot.setYRange(-s - 0.5 if col_blocks is not None else 0, rows, padding=0)

    def mark_cell(self, row: int, col: int) -> None:
        """Outline one cell (row, col); negative values hide the marker."""
        if row < 0 or col < 0:
            self.cell_marker.setVisible(False)
            return
        self.cell_marker.setRect(QRectF(col, row, 1, 1))
        self.cell_marker.setVisible(True)

    def highlight_row(self, row: int) -> None:
        """Highlight row ``row`` and label it with its own token; negative hides both."""
        if row < 0 or row >= self.matrix.shape[0]:
            self.row_marker.setVisible(False)
            self.hover_label.setVisible(False)
            return
        self.row_marker.setRect(QRectF(0, row, self.matrix.shape[1], 1))
        self.row_marker.setVisible(True)
        labels = self.left_axis.labels
        self.hover_label.setText(labels[row] if row < len(labels) else str(row))
        x_left = max(0.0, float(self.plot.vb.viewRange()[0][0]))
        self.hover_label.setPos(x_left, row + 0.5)
        self.hover_label.setVisible(True)

    def clear_map(self) -> None:
        """Show nothing (an empty probe): no image, labels, markers or old view range."""
        self.matrix = np.zeros((0, 0), dtype=np.float32)
        self.image.clear()
        for strip in (self.row_strip, self.col_strip):
            strip.setVisible(False)
        self._strips = ("unset", "unset")
        self.left_axis.set_labels([])
        self.bottom_axis.set_labels([])
        self.cell_marker.setVisible(False)
        self.highlight_row(-1)
        self.plot.setXRange(0, 1, padding=0)
        self.plot.setYRange(0, 1, padding=0)

    def leaveEvent(self, event) -> None:  # noqa: N802 - Qt API
        """The mouse left the map: the hover line, its label and the readout go away (the chosen row's stay)."""
        self.highlight_row(self.chosen_row)
        if self._last_hover != (-1, -1):
            self._last_hover = (-1, -1)
            self.hovered.emit(-1, -1)
        super().leaveEvent(event)

    def keyPressEvent(self, event) -> None:  # noqa: N802 - Qt API
        """Up and Down step the chosen row (``row_step``); other keys go on as before."""
        step = {Qt.Key.Key_Up: -1, Qt.Key.Key_Down: 1}.get(event.key())
        if step is not None and self.matrix.shape[0]:
            self.row_step.emit(step)
            event.accept()
            return
        super().keyPressEvent(event)

    def value(self, row: int, col: int) -> float:
        return float(self.matrix[row, col])

    # ----------------------------------------------------------------------------------- mouse
    def cell_at(self, scene_pos: QPointF) -> tuple[int, int]:
        if not self.plot.sceneBoundingRect().contains(scene_pos):
            return -1, -1
        p = self.plot.vb.mapSceneToView(scene_pos)
        r, c = int(math.floor(p.y())), int(math.floor(p.x()))
        rows, cols = self.matrix.shape
        if 0 <= r < rows and 0 <= c < cols:
            return r, c
        return -1, -1

    def scene_pos_of(self, row: int, col: int) -> QPointF:
        """Scene position of a cell's centre (tests use it to click a cell)."""
        return self.plot.vb.mapViewToScene(QPointF(col + 0.5, row + 0.5))

    def _on_mouse_moved(self, scene_pos) -> None:
        cell = self.cell_at(scene_pos)
        self._tip_row_label(scene_pos, cell[0])
        if cell != self._last_hover:
            self._last_hover = cell
            self.hovered.emit(*cell)

    def _tip_row_label(self, scene_pos, row: int) -> None:
        """The whole row label as the tooltip where the axis cut it, with the mouse on its row of the map or on the
        label itself."""
        if row < 0 and self.left_axis.sceneBoundingRect().contains(scene_pos):
            y = self.plot.vb.mapSceneToView(scene_pos).y()
            row = int(math.floor(y)) if 0 <= y < len(self.left_axis.labels) else -1
        tip = self.left_axis.labels[row] if self.left_axis.cut(row) else ""
        if tip != self.toolTip():
            self.setToolTip(tip)

    def _on_mouse_clicked(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        r, c = self.cell_at(event.scenePos())
        if r >= 0:
            self.clicked.emit(r, c)

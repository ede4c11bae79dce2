"""Head view (after bertviz): from-tokens on the left, to-tokens on the right, a line for each of
the top-k attention weights of every from-token, thickness and opacity = weight.

Only the top-k weights per from-token are kept (k=5 by default), so a full 384-token window
draws at most 384*k lines, batched into a few pens. Hovering a token shows only its lines:
a left token its outgoing top weights, a right token the weights flowing into it.

Several tokens of one side can be selected (click, Ctrl+click to add or remove, drag over a range); then
only their lines are drawn and a bar behind each token of the other side shows the selection's summed
attention (explorer.core.attention.selection): left tokens selected, where their attention goes together; right
tokens selected, how much of each left token's attention lands on them. Escape or a click beside the
columns clears the selection.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QLineF, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from explorer.core.attention.selection import summed_incoming, summed_outgoing

from .common import block_color

ROW_H = 15
N_BINS = 6


def top_k_edges(weights: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The k largest weights of each row of (n_left, n_right) -> (rows, cols, values), each (m,)."""
    n_left, n_right = weights.shape
    if n_left == 0 or n_right == 0 or k <= 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0, dtype=np.float32)
    k = min(k, n_right)
    cols = np.argpartition(-weights, k - 1, axis=1)[:, :k]
    rows = np.repeat(np.arange(n_left), k)
    cols = cols.ravel()
    return rows, cols, weights[rows, cols].astype(np.float32)


class HeadView(QWidget):
    """Lines from left tokens to right tokens. set_data() then it paints; hover highlights.

    Signals:
        token_hovered(side, index): side is "left" / "right", index -1 when the mouse leaves.
    """

    token_hovered = Signal(str, int)
    selection_changed = Signal(str, list)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)   # Escape clears the selection
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.font_ = QFont()
        self.font_.setPointSize(8)
        self.left_labels: list[str] = []
        self.right_labels: list[str] = []
        self.left_blocks: list[str] = []
        self.right_blocks: list[str] = []
        self.weights = np.zeros((0, 0), dtype=np.float32)
        self.edges = top_k_edges(self.weights, 0)
        self.k = 5
        self.hover: tuple[str, int] = ("", -1)
        self.col_w = 110
        self._measured: tuple = ([], [])   # the labels col_w was measured for
        self.selection: tuple[str, list[int]] = ("", [])
        self._drag: tuple[str, int] | None = None   # (side, anchor index) while the mouse button is down

    def set_data(self, weights: np.ndarray, left_labels: list[str], right_labels: list[str],
                 left_blocks: list[str], right_blocks: list[str], k: int = 5) -> None:
        """weights: (len(left), len(right)) attention weights (rows = from-tokens)."""
        weights = np.asarray(weights, dtype=np.float32)
        if weights.shape != (len(left_labels), len(right_labels)):
            raise ValueError(f"weights {weights.shape} do not match {len(left_labels)} x {len(right_labels)} labels")
        self.weights = weights
        self.left_labels, self.right_labels = list(left_labels), list(right_labels)
        self.left_blocks, self.right_blocks = list(left_blocks), list(right_blocks)
        self.k = k
        self.edges = top_k_edges(weights, k)
        labels = (self.left_labels, self.right_labels)
        if labels != self._measured:   # a layer / head change keeps the tokens: measure them once
            self._measured = labels
            fm = QFontMetrics(self.font_)
            longest = max([fm.horizontalAdvance(s) for s in set(self.left_labels + self.right_labels)] or [40])
            self.col_w = min(max(60, longest + 10), 160)
        self.hover = ("", -1)
        side, sel = self.selection
        n_side = len(self.left_labels) if side == "left" else len(self.right_labels)
        self.selection = (side, [i for i in sel if i < n_side]) if sel else ("", [])
        height = self.sizeHint().height()
        if self.minimumHeight() != height or self.maximumHeight() != height:
            self.setFixedHeight(height)
        self.update()

    def sizeHint(self) -> QSize:  # noqa: N802
        rows = max(len(self.left_labels), len(self.right_labels), 1)
        return QSize(2 * self.col_w + 200, rows * ROW_H + 2 * ROW_H)

    # ----------------------------------------------------------------------------------- geometry
    def _anchors(self) -> tuple[float, float]:
        return float(self.col_w + 4), float(self.width() - self.col_w - 4)

    def _y(self, i: int) -> float:
        return ROW_H + i * ROW_H + ROW_H / 2

    def token_at(self, pos: QPointF) -> tuple[str, int]:
        i = int((pos.y() - ROW_H) // ROW_H)
        if pos.x() <= self.col_w + 4 and 0 <= i < len(self.left_labels):
            return "left", i
        if pos.x() >= self.width() - self.col_w - 4 and 0 <= i < len(self.right_labels):
            return "right", i
        return "", -1

    # ----------------------------------------------------------------------------------- painting
    def selection_bars(self) -> tuple[str, np.ndarray]:
        """The side whose tokens get bars, and the bar values (one per token of that side): the selected left
        tokens' mean attention on each right token, or each left token's summed attention on the selected right
        tokens (explorer.core.attention.selection). ("", empty) without a selection."""
        side, sel = self.selection
        if not sel or self.weights.size == 0:
            return "", np.zeros(0, np.float32)
        if side == "left":
            return "right", summed_outgoing(self.weights, sel)
        return "left", summed_incoming(self.weights, sel)

    def _visible_edges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        side, sel = self.selection
        if sel:
            w = self.weights[sel] if side == "left" else self.weights[:, sel]
            r, c = np.nonzero(w > 0)
            vals = w[r, c]
            if side == "left":
                return np.asarray(sel)[r], c, vals
            return r, np.asarray(sel)[c], vals
        side, idx = self.hover
        if side == "left" and idx >= 0:
            return self._row_edges(idx)
        if side == "right" and idx >= 0:
            col = self.weights[:, idx]
            k = min(max(self.k, 10), col.size)
            rows = np.argsort(-col)[:k]
            return rows, np.full(rows.size, idx), col[rows]
        return self.edges

    def _row_edges(self, idx: int):
        row = self.weights[idx]
        k = min(max(self.k, 10), row.size)
        cols = np.argsort(-row)[:k]
        return np.full(cols.size, idx), cols, row[cols]

    def paintEvent(self, event) -> None:  # noqa: N802
        p = QPainter(self)
        rows, cols, vals = self._visible_edges()
        # antialiased thick lines are the slow part of a full window: only for a few hundred lines
        p.setRenderHint(QPainter.RenderHint.Antialiasing, vals.size <= 600)
        p.fillRect(self.rect(), Qt.GlobalColor.white)
        p.setFont(self.font_)
        x0, x1 = self._anchors()
        top = event.rect().top() - ROW_H
        bottom = event.rect().bottom() + ROW_H
        if vals.size:
            vmax = float(vals.max()) or 1.0
            bins = np.minimum((vals / vmax * N_BINS).astype(int), N_BINS - 1)
            base = QColor(230, 85, 13) if (self.hover[0] or self.selection[1]) else QColor(70, 70, 200)
            for b in range(N_BINS):
                sel = np.nonzero(bins == b)[0]
                if sel.size == 0:
                    continue
                color = QColor(base)
                color.setAlpha(int(50 + 205 * (b + 1) / N_BINS))
                pen = QPen(color)
                pen.setWidthF(0.5 + 4.5 * (b + 1) / N_BINS)
                p.setPen(pen)
                y0s = ROW_H + rows[sel] * ROW_H + ROW_H / 2   # self._y, for all lines of this pen at once
                y1s = ROW_H + cols[sel] * ROW_H + ROW_H / 2
                shown = (np.maximum(y0s, y1s) >= top) & (np.minimum(y0s, y1s) <= bottom)
                lines = [QLineF(x0, y0, x1, y1) for y0, y1 in zip(y0s[shown].tolist(), y1s[shown].tolist())]
                if lines:
                    p.drawLines(lines)
        self._paint_bars(p, top, bottom)
        self._paint_labels(p, self.left_labels, self.left_blocks, 0, Qt.AlignmentFlag.AlignRight, "left", top, bottom)
        self._paint_labels(p, self.right_labels, self.right_blocks, self.width() - self.col_w,
                           Qt.AlignmentFlag.AlignLeft, "right", top, bottom)
        p.end()

    def _paint_labels(self, p: QPainter, labels, blocks, x: float, align, side: str, top: float, bottom: float):
        first = max(0, int((top - ROW_H) // ROW_H))
        last = min(len(labels), int((bottom - ROW_H) // ROW_H) + 2)
        for i in range(first, last):
            rect = QRectF(x, ROW_H + i * ROW_H, self.col_w, ROW_H)
            if self.selection[0] == side and i in self.selection[1]:
                p.fillRect(rect, QColor(255, 190, 110))
            elif self.hover == (side, i):
                p.fillRect(rect, QColor(255, 220, 150))
            p.setPen(block_color(blocks[i] if i < len(blocks) else ""))
            p.drawText(rect.adjusted(2, 0, -2, 0), int(align | Qt.AlignmentFlag.AlignVCenter), labels[i])

    def _paint_bars(self, p: QPainter, top: float, bottom: float) -> None:
        """Bars behind the other side's labels: the selection's summed attention (full column width = 1)."""
        side, values = self.selection_bars()
        if not side:
            return
        x = 0.0 if side == "left" else float(self.width() - self.col_w)
        color = QColor(230, 85, 13, 70)
        for i, v in enumerate(values.tolist()):
            y = ROW_H + i * ROW_H
            if y + ROW_H < top or y > bottom or v <= 0:
                continue
            w = self.col_w * min(float(v), 1.0)
            bar = QRectF(x + self.col_w - w, y + 1, w, ROW_H - 2) if side == "left" else QRectF(x, y + 1, w, ROW_H - 2)
            p.fillRect(bar, color)

    # ----------------------------------------------------------------------------------- selection
    def set_selection(self, side: str, indices) -> None:
        """Select tokens of one side ("left" / "right"; indices into its labels); side "" or no indices clears."""
        n = len(self.left_labels) if side == "left" else len(self.right_labels) if side == "right" else 0
        sel = sorted({int(i) for i in indices if 0 <= int(i) < n})
        new = (side, sel) if sel else ("", [])
        if new != self.selection:
            self.selection = new
            self.selection_changed.emit(new[0], list(new[1]))
            self.update()

    def mousePressEvent(self, event) -> None:  # noqa: N802
        if event.button() != Qt.MouseButton.LeftButton:
            return super().mousePressEvent(event)
        side, i = self.token_at(event.position())
        if i < 0:
            self._drag = None
            self.set_selection("", [])
            return
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier and self.selection[0] == side:
            current = set(self.selection[1])
            current ^= {i}
            self._drag = None
            self.set_selection(side, current)
            return
        self._drag = (side, i)
        self.set_selection(side, [i])

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802
        self._drag = None
        super().mouseReleaseEvent(event)

    def keyPressEvent(self, event) -> None:  # noqa: N802
        if event.key() == Qt.Key.Key_Escape and self.selection[1]:
            self.set_selection("", [])
            return
        super().keyPressEvent(event)

    # ----------------------------------------------------------------------------------- hover
    def mouseMoveEvent(self, event) -> None:  # noqa: N802
        if self._drag is not None and event.buttons() & Qt.MouseButton.LeftButton:
            side, anchor = self._drag
            i = int((event.position().y() - ROW_H) // ROW_H)
            n = len(self.left_labels) if side == "left" else len(self.right_labels)
            i = min(max(i, 0), n - 1)
            self.set_selection(side, range(min(anchor, i), max(anchor, i) + 1))
            return
        self.set_hover(*self.token_at(event.position()))

    def leaveEvent(self, event) -> None:  # noqa: N802
        self.set_hover("", -1)

    def set_hover(self, side: str, index: int) -> None:
        """Highlight one token's lines (side "left"/"right"), or none with index -1."""
        new = (side, index) if index >= 0 else ("", -1)
        if new != self.hover:
            self.hover = new
            self.token_hovered.emit(new[0] or "left", new[1])
            self.update()

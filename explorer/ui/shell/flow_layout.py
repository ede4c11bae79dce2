"""A layout that puts its widgets in a row and wraps them onto more rows when the row is too narrow.

Qt's Flow Layout example (https://doc.qt.io/qt-6/qtwidgets-layouts-flowlayout-example.html) for rows of
controls (the Curves toolbar, the Attention page's mode / layer / head / window row): their minimum width
is the widest single control, not the sum of all of them, so a 1280x800 window never has to be wider
than the screen to show them; the row's height grows instead (height for width).
"""

from __future__ import annotations

from PySide6.QtCore import QMargins, QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QSizePolicy, QStyle, QWidget, QWidgetItem


class FlowLayout(QLayout):
    """Left-to-right rows that wrap. ``addWidget(w)``; ``addStretch()`` is accepted and ignored (a flow
    has no free space to stretch into); ``spacing`` in px between items (-1: the style's)."""

    def __init__(self, parent: QWidget | None = None, spacing: int = -1):
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._spacing = spacing
        if parent is None:
            self.setContentsMargins(0, 0, 0, 0)

    def addItem(self, item: QLayoutItem) -> None:  # noqa: N802 - Qt's name
        self._items.append(item)

    def addWidget(self, widget: QWidget) -> None:  # noqa: N802 - Qt's name
        """Add ``widget`` at the end of the flow."""
        self.addChildWidget(widget)
        self.addItem(QWidgetItem(widget))

    def addSpacing(self, size: int) -> None:  # noqa: N802 - Qt's name
        """Extra space before the next widget (only within a row)."""
        self._items.append(_Gap(size))

    def addStretch(self, _stretch: int = 0) -> None:  # noqa: N802 - Qt's name
        """Nothing: kept so a QHBoxLayout's code reads the same."""

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:  # noqa: N802 - Qt's name
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:  # noqa: N802 - Qt's name
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:  # noqa: N802 - Qt's name
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt's name
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt's name
        return self._do_layout(QRect(0, 0, width, 0), test_only=True)

    def setGeometry(self, rect: QRect) -> None:  # noqa: N802 - Qt's name
        super().setGeometry(rect)
        self._do_layout(rect, test_only=False)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        """One row of everything."""
        m = self.contentsMargins()
        w = sum(i.sizeHint().width() for i in self._items) + self.spacing_px() * max(len(self._items) - 1, 0)
        h = max((i.sizeHint().height() for i in self._items), default=0)
        return QSize(w + m.left() + m.right(), h + m.top() + m.bottom())

    def minimumSize(self) -> QSize:  # noqa: N802 - Qt's name
        """The widest single item (and the tallest)."""
        size = QSize()
        for item in self._items:
            size = size.expandedTo(item.minimumSize())
        m = self.contentsMargins()
        return size + QSize(m.left() + m.right(), m.top() + m.bottom())

    def spacing_px(self) -> int:
        """The space between two items in a row, px (the style's when none was given)."""
        if self._spacing >= 0:
            return self._spacing
        parent = self.parentWidget()
        if parent is None:
            return 6
        space = parent.style().layoutSpacing(QSizePolicy.ControlType.PushButton, QSizePolicy.ControlType.PushButton,
                                             Qt.Orientation.Horizontal)
        if space < 0:   # styles without per-control spacing (Fusion): their default layout spacing
            space = parent.style().pixelMetric(QStyle.PixelMetric.PM_LayoutHorizontalSpacing)
        return space if space >= 0 else 6

    def _do_layout(self, rect: QRect, test_only: bool) -> int:
        m: QMargins = self.contentsMargins()
        area = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom())
        x, y, line_h = area.x(), area.y(), 0
        space = self.spacing_px()
        rows: list[list[tuple[QLayoutItem, QPoint, QSize]]] = [[]]
        for item in self._items:
            if isinstance(item, _Gap):
                if rows[-1]:
                    x += item.size
                continue
            if item.widget() is not None and item.widget().isHidden():
                continue
            hint = item.sizeHint().boundedTo(QSize(max(area.width(), 1), 1 << 20)).expandedTo(item.minimumSize())
            if hint.height() == 0 and item.widget() is None:
                continue
            if rows[-1] and x + hint.width() > area.right() + 1:
                x, y, line_h = area.x(), y + line_h + space, 0
                rows.append([])
            if item.hasHeightForWidth():
                hint.setHeight(item.heightForWidth(hint.width()))
            rows[-1].append((item, QPoint(x, y), hint))
            x += hint.width() + space
            line_h = max(line_h, hint.height())
        if not test_only:
            for row in rows:
                row_h = max((s.height() for _i, _p, s in row), default=0)
                for item, pos, size in row:   # centred vertically in its row, as a QHBoxLayout does
                    item.setGeometry(QRect(QPoint(pos.x(), pos.y() + (row_h - size.height()) // 2), size))
        return y + line_h - rect.y() + m.bottom()


class _Gap(QLayoutItem):
    """addSpacing's fixed horizontal gap."""

    def __init__(self, size: int):
        super().__init__()
        self.size = size
        self._rect = QRect()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(self.size, 0)

    def minimumSize(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(0, 0)

    def maximumSize(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(self.size, 0)

    def expandingDirections(self) -> Qt.Orientation:  # noqa: N802 - Qt's name
        return Qt.Orientation(0)

    def isEmpty(self) -> bool:  # noqa: N802 - Qt's name
        return True

    def setGeometry(self, rect: QRect) -> None:  # noqa: N802 - Qt's name
        self._rect = rect

    def geometry(self) -> QRect:
        return self._rect


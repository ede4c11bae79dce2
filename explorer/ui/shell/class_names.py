"""A class name where a table or a box shows it as a title: cut in its middle beyond NAME_CHARS, whole in the tooltip.

A class name comes from the user's data and has no bound: a row with a broken quote in a CSV makes a label of
a whole paragraph (1,800 characters), and a header titled by it asked for thousands of pixels (the confusion
matrix's row header pushed every cell out of view; a probability column ``p_<class>`` made the main window
16,879 px wide). Every row and column header, probability column title and box of class names goes through
this module, so no class name decides a table's or a window's width: the title is at most NAME_CHARS
characters ("Arabic" stays whole, a paragraph reads "शुरुआत के …अंत के शब्द"), the whole name is its tooltip.
"""

from __future__ import annotations

from typing import Iterable

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics, QGuiApplication
from PySide6.QtWidgets import QComboBox, QTableWidget

from explorer.ui.shell.short_names import NAME_CHARS, short_name

NAME_PX = 200     # px: and the most its title takes (40 characters of a script the font lacks draw wider)
CELL_PX = 90      # px: the most a class name takes in a cell beside others (the dev set's example lists)
BOX_CHARS = 16    # characters: the most a box of class names asks room for (a longer item elides in the box)


def header_title(name: str, metrics: QFontMetrics | None = None, px: int = NAME_PX, limit: int = NAME_CHARS) -> str:
    """``name`` as a header's title or a cell of a short column: short_name (``limit`` characters), then elided in
    its middle to ``px`` px of ``metrics`` (the header's or the table's font; the application's when None)."""
    metrics = metrics or QFontMetrics(QGuiApplication.font())
    return metrics.elidedText(short_name(name, limit), Qt.TextElideMode.ElideMiddle, px)


def name_tip(name: str, limit: int = NAME_CHARS) -> str | None:
    """The tooltip of a title ``short_name`` cut: the whole name; None for a name shown whole."""
    return str(name) if short_name(name, limit) != str(name) else None


def set_header_names(table: QTableWidget, orientation: Qt.Orientation, names: Iterable[str], *,
                     px: int = NAME_PX, limit: int = NAME_CHARS, tips: Iterable[str] | None = None) -> None:
    """Title ``table``'s columns (Horizontal) or rows (Vertical) by ``names`` (class names, "pred X", "gold X"):
    each cut by short_name to ``limit`` characters and ``px`` px, the whole name in the tooltip of a cut one.
    ``tips``: the tooltip of each title instead (a numbered column's "pred <class>"), set on every one."""
    names = [str(n) for n in names]
    header = table.horizontalHeader() if orientation == Qt.Orientation.Horizontal else table.verticalHeader()
    titles = [header_title(n, header.fontMetrics(), px, limit) for n in names]
    if orientation == Qt.Orientation.Horizontal:
        table.setHorizontalHeaderLabels(titles)
        item_at = table.horizontalHeaderItem
    else:
        table.setVerticalHeaderLabels(titles)
        item_at = table.verticalHeaderItem
    tips = list(tips) if tips is not None else [name if title != name else "" for name, title in zip(names, titles)]
    for k, tip in enumerate(tips):   # every title's, "" too: a header item kept for the next report keeps its tip
        if item_at(k) is not None:
            item_at(k).setToolTip(tip)


def bound_box(combo: QComboBox) -> None:
    """Keep ``combo`` (a box of class names, filled by add_names) from asking for a long name's width: it asks room
    for its longest item up to BOX_CHARS characters (Qt's default asks for its longest item whole: an
    1,800-character class widened the window), a longer item elides in the box and its list, the whole name
    in the item's tooltip."""
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(4)
    combo.view().setTextElideMode(Qt.TextElideMode.ElideMiddle)


def add_names(combo: QComboBox, names: Iterable[str]) -> None:
    """``combo.addItems(names)`` with the whole name as the tooltip of each long one; the box (bound_box) asks room
    for the longest item, BOX_CHARS characters at most. The item's text stays the name, so currentText() is the
    class."""
    for name in names:
        combo.addItem(str(name))
        tip = name_tip(name, BOX_CHARS)
        if tip is not None:
            combo.setItemData(combo.count() - 1, tip, Qt.ItemDataRole.ToolTipRole)
    longest = max((len(combo.itemText(i)) for i in range(combo.count())), default=0)
    combo.setMinimumContentsLength(max(4, min(BOX_CHARS, longest)))

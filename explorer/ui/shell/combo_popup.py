"""A combo box whose drop-down list is as wide as its longest item, so that no item is cut, and opens below it.

Qt's list of a combo box is as wide as the box and elides its items in the middle: in a model box of 250 px
the hub ids read "deepset/...d-squad2", and two checkpoints of one family could not be told apart.
:func:`popup_fits_items` widens the list (never the box) to its widest item whenever items are added.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QStyle

__all__ = ["LIST_BELOW", "list_below", "popup_fits_items", "popup_need"]

# the style sheet rule that opens every drop-down list under its box (a list view popup): Fusion's own popup opens
# over the box with the current item on it, so the list's first items sit above the box, and a second click
# where the list was picked another item (Task: "Multiple choice" in place of "Regression")
LIST_BELOW = "QComboBox { combobox-popup: 0; }"


def popup_need(combo: QComboBox) -> int:
    """The list's width, in pixels, that shows every item of ``combo`` whole: the widest text, its icon, the list's
    margins and a vertical scroll bar."""
    view = combo.view()
    fm = view.fontMetrics()
    widest = max((fm.horizontalAdvance(combo.itemText(i)) for i in range(combo.count())), default=0)
    icon = combo.iconSize().width() + 4 if any(not combo.itemIcon(i).isNull() for i in range(combo.count())) else 0
    scroll = view.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent, None, view)
    return widest + icon + scroll + 2 * view.frameWidth() + 16   # 16: the item's text margins on both sides


def popup_fits_items(combo: QComboBox) -> None:
    """Keep ``combo``'s drop-down list as wide as its widest item (items added later too); items never elide."""
    combo.view().setTextElideMode(Qt.TextElideMode.ElideNone)

    def fit(*_args) -> None:
        combo.view().setMinimumWidth(popup_need(combo))

    combo.model().rowsInserted.connect(fit)
    combo.model().dataChanged.connect(fit)
    fit()


def list_below(widget) -> None:
    """Every combo box in ``widget`` (a panel; its combo boxes made later too) opens its list below the box
    (:data:`LIST_BELOW`, added to the widget's style sheet, which its children's own sheets do not replace)."""
    if LIST_BELOW not in widget.styleSheet():
        widget.setStyleSheet(f"{widget.styleSheet()}\n{LIST_BELOW}".strip())

"""The Groups page's list of groups and their runs: "group / run", "status", "best".

The names come first, as in the Runs list (explorer.ui.runs.run_table): the name column keeps NAME_SHARE of the
list's width (NAME_MIN_PX at the least), so at 1280x800 a group and its runs can still be told apart; "best"
("48.14% F_avg") takes what its values need of the rest, and "status" what is left up to what it needs (a group's
"restarts, 3 runs" cut at its end where the list is narrow, whole in its tooltip; every value whole at 1920x1080).
A name longer
than its column is cut in the middle (a group's runs share its name as a prefix, "tweets-cv-1", "tweets-cv-2": the
end shows) and is whole in its tooltip.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHeaderView, QStyledItemDelegate, QTreeWidget

__all__ = ["MemberTree"]


class _MiddleElide(QStyledItemDelegate):
    """Cuts a name in the middle, where the other columns are cut at their end."""

    def initStyleOption(self, option, index) -> None:  # noqa: N802 - Qt API
        super().initStyleOption(option, index)
        option.textElideMode = MemberTree.NAME_ELIDE


class MemberTree(QTreeWidget):
    """The tree of groups and their member runs, its columns fitted to its width (module docstring) whenever it is
    resized or :meth:`fit_columns` is called after its items changed."""

    NAME_SHARE, NAME_MIN_PX = 0.38, 90
    NAME_ELIDE = Qt.TextElideMode.ElideMiddle   # how a name too long for its column is cut

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setHeaderLabels(["group / run", "status", "best"])
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.setItemDelegateForColumn(0, _MiddleElide(self))
        header = self.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(event)
        self.fit_columns()

    def fit_columns(self) -> None:
        """"status" and "best" take what their values and titles need out of the width the names leave."""
        header = self.header()
        width = self.viewport().width()
        rest = max(0, width - max(self.NAME_MIN_PX, math.ceil(self.NAME_SHARE * width)))
        want = {c: max(self.sizeHintForColumn(c), header.sectionSizeHint(c)) for c in (1, 2)}
        want[2] = min(want[2], max(header.sectionSizeHint(2), rest - header.sectionSizeHint(1)))
        want[1] = min(want[1], max(header.sectionSizeHint(1), rest - want[2]))
        for c in (1, 2):
            self.setColumnWidth(c, want[c])

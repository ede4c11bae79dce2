"""The Runs list's tree view: its columns, which start hidden, the header menu that shows them, and the widths.

The run names come first: the Run column keeps at least NAME_SHARE of the list's width (NAME_MIN_PX at the least), so
in the narrow dock of a 1280x800 screen the runs, the seeds and the folds can still be told apart (a member reads
"seed 2 · stance-seeds-02": what its group varies first). The short columns share the rest, each up to what its
values ask for: Status up to STATUS_MAX_PX and two fifths of the rest (a group's counts "1 running, 2 queued"
elide; the group's tooltip lists them), "Best dev" what Status leaves, up to the width of BEST_WIDEST ("66.70% F1",
"0.406 r", a group's "85.0 ± 5.0% acc"; the figure comes first, a dev sample's "≈" before it, its marks after:
"≈50.80% acc ¹", "32.29% F_avg !", one sign each; the tooltip says what they mean). Where the rest is too narrow
for a Best dev text whole, Status gives way, down to its title. Host (when shown) takes its contents up to
HOST_MAX_PX. The Run column, stretched, takes all the width left (the Runs dock is wider on a wider window:
explorer.ui.shell.window_geometry); a name longer than that elides at its end, and the cell's tooltip starts with
the whole name.

The header sorts the top-level rows (runs and groups); a group's members keep the group's order under it (RunsProxy:
fold 1, 2, 3; restarts as they were queued), whatever the column and order: the list opens newest first, and
sorted like the other rows the folds read 3, 2, 1.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QSortFilterProxyModel, Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QStyle, QTreeView

from explorer.ui.runs.run_cells import COLUMNS, HIDDEN_COLUMNS
from explorer.ui.shell.layout_check import header_need

__all__ = ["RunsProxy", "RunsTable"]


class RunsProxy(QSortFilterProxyModel):
    """The RunsModel sorted by each cell's sort key (the UserRole) at the top level; the members of a group stay in
    the order the model lists them, the group's (module docstring)."""

    def __init__(self, model, parent=None):
        super().__init__(parent)
        self.setSourceModel(model)
        self.setSortRole(Qt.ItemDataRole.UserRole)

    def lessThan(self, left, right) -> bool:  # noqa: N802 - Qt API
        if left.parent().isValid():   # two members of one group: its order, read the same way up in either order
            return (left.row() < right.row()) == (self.sortOrder() == Qt.SortOrder.AscendingOrder)
        return super().lessThan(left, right)


class RunsTable(QTreeView):
    """The tree of runs and groups over ``proxy`` (a sort proxy of ``model``, a RunsModel), sorted by each cell's
    sort key; rows selected whole, several with Ctrl/Shift. ``fit_timer``: fits the columns (:meth:`fit_columns`) in
    the next turn after the rows, their data or the sort changed."""

    NAME_SHARE, NAME_MIN_PX = 0.45, 120   # the Run column keeps this share of the viewport, and this many px at least
    STATUS_MAX_PX = 100   # the most the "Status" column takes: a group's "1 crashed, 1 finished, 1 missing" elides
    HOST_MAX_PX = 110     # the most the "Host" column takes (a longer host name is elided; its tooltip is whole)
    # the widest Best dev value shown whole: a group's figure with its mark; wider texts elide (their tooltip is whole)
    BEST_WIDEST = "100.0 ± 10.0% macro F1 !"

    def __init__(self, model, proxy, parent=None):
        super().__init__(parent)
        self.runs_model, self.proxy = model, proxy
        self.setModel(proxy)
        self.setRootIsDecorated(True)
        self.setUniformRowHeights(True)
        self.setExpandsOnDoubleClick(True)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setSortingEnabled(True)
        self.setAlternatingRowColors(True)
        self.setWordWrap(False)
        # a name longer than the Run column's width reads from its start ("Twitter airline lr2e…"), whole in its
        # tooltip; the short columns are never cut (fit_columns)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        # the run name takes the free width; the short columns fit their contents and headers (never clipped);
        # HIDDEN_COLUMNS start hidden: right-click the header to show them
        hh = self.header()
        hh.setStretchLastSection(False)
        hh.setMinimumSectionSize(40)
        for col, name in enumerate(COLUMNS):
            hh.setSectionResizeMode(col, QHeaderView.ResizeMode.Stretch if name == "Run" else
                                    QHeaderView.ResizeMode.Interactive if name in ("Best dev", "Host", "Status")
                                    else QHeaderView.ResizeMode.ResizeToContents)
        hh.moveSection(hh.visualIndex(COLUMNS.index("Host")), 1)
        # the run names get their width first; "Best dev" what they leave (fit_columns)
        self.fit_timer = QTimer(self, singleShot=True, interval=0)
        self.fit_timer.timeout.connect(self.fit_columns)
        for signal in (model.rowsInserted, model.rowsRemoved, model.dataChanged, model.modelReset):
            signal.connect(lambda *_: self.fit_timer.start())
        hh.sortIndicatorChanged.connect(lambda *_: self.fit_timer.start())   # the sort arrow takes room
        hh.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        for col, name in enumerate(COLUMNS[1:], start=1):
            act = QAction(f"Show {name}", hh)
            act.setCheckable(True)
            act.setChecked(name not in HIDDEN_COLUMNS)
            act.toggled.connect(lambda on, c=col: self.setColumnHidden(c, not on))
            hh.addAction(act)
            self.setColumnHidden(col, name in HIDDEN_COLUMNS)

    def fit_columns(self) -> int:
        """Fit the columns' widths (module docstring); returns the width set for "Best dev", in pixels."""
        col, host_col, status = COLUMNS.index("Best dev"), COLUMNS.index("Host"), COLUMNS.index("Status")
        hh = self.header()
        self.setRootIsDecorated(bool(self.runs_model.groups))   # a group's arrow: without groups, room for names
        if not self.isColumnHidden(host_col):
            wanted_host = max(self.sizeHintForColumn(host_col), hh.sectionSizeHint(host_col))
            self.setColumnWidth(host_col, max(40, min(wanted_host, self.HOST_MAX_PX)))
        titles = {c: header_need(hh, c, COLUMNS[c]) for c in (col, status)}
        rest = max(0, self.viewport().width() - self._names_keep()
                   - (0 if self.isColumnHidden(host_col) else self.columnWidth(host_col)))
        wanted_status = max([titles[status]] + [self._cell_width(s.run_id, status) for s in self.runs_model.rows])
        status_width = min(wanted_status, self.STATUS_MAX_PX, max(titles[status], round(0.4 * rest)))
        self.setColumnWidth(status, status_width)
        cap = self.fontMetrics().horizontalAdvance(self.BEST_WIDEST) + 2 * self._cell_margin()
        need = max(min(self.sizeHintForColumn(col), cap), titles[col])   # the figure and its mark, whole
        if rest - status_width < need:   # Status gives way (its tooltip is whole), down to its title
            status_width = max(titles[status], rest - need)
            self.setColumnWidth(status, status_width)
        width = max(min(need, rest - status_width), titles[col])
        self.setColumnWidth(col, width)
        return width

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt API
        """The short columns' widths follow the list's width (the names keep their share): fit them again."""
        super().resizeEvent(event)
        self.fit_timer.start()

    def _names_keep(self) -> int:
        """The width the Run column keeps before the short columns take theirs, in pixels (module docstring)."""
        return max(self.NAME_MIN_PX, math.ceil(self.NAME_SHARE * self.viewport().width()))

    def _cell_margin(self) -> int:
        """The horizontal margin on each side of a cell's text, in pixels (the style's focus frame)."""
        return self.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, self) + 1

    def _cell_width(self, run_id: str, col: int) -> int:
        """The width a run's cell asks for (text, margins), in pixels; 0 for a run not listed."""
        index = self.proxy.mapFromSource(self.runs_model.run_index(run_id, col))
        return self.sizeHintForIndex(index).width() if index.isValid() else 0

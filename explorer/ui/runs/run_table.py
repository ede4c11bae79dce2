"""The Runs list's tree view: its columns, which start hidden, the header menu that shows them, and the widths.

The run names get their width first (up to NAME_CHARS characters: a name the user typed in the launcher must be
readable, "stance-4" not "st…-4"); "Best dev" gets what those names and the other shown columns leave, between
its header's width and its contents ("66.70 F1 (%)"; a narrower dock elides it, its tooltip has it whole); the Run
column, stretched, takes the rest and elides in its middle. Status takes the runs' statuses up to STATUS_MAX_PX (a
group's counts "1 crashed, 1 finished, 1 missing" elide; the group's tooltip lists them), Host (when shown) its
contents up to HOST_MAX_PX.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QStyle, QStyledItemDelegate, QTreeView

from explorer.ui.runs.run_cells import COLUMNS, HIDDEN_COLUMNS
from explorer.ui.shell.layout_check import header_need

__all__ = ["MiddleElide", "RunsTable"]


class MiddleElide(QStyledItemDelegate):
    """Elides a cell's text in the middle (the Run column: model first, task and data last)."""

    def initStyleOption(self, option, index) -> None:  # noqa: N802 - Qt API
        super().initStyleOption(option, index)
        option.textElideMode = Qt.TextElideMode.ElideMiddle


class RunsTable(QTreeView):
    """The tree of runs and groups over ``proxy`` (a sort proxy of ``model``, a RunsModel), sorted by each cell's
    sort key; rows selected whole, several with Ctrl/Shift. ``fit_timer``: fits the columns (:meth:`fit_columns`) in
    the next turn after the rows, their data or the sort changed."""

    STATUS_MAX_PX = 100   # the most the "Status" column takes: a group's "1 crashed, 1 finished, 1 missing" elides
    HOST_MAX_PX = 110     # the most the "Host" column takes (a longer host name is elided; its tooltip is whole)
    NAME_CHARS = 16       # a run name this long keeps its room before "Best dev" gets its value's

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
        # run names "minilm · single · stance_train": the model first, what differs (task, data) last, so a
        # narrow dock elides the middle ("minilm…ce_train"), not the end (every run read "minilm ·…")
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.setItemDelegateForColumn(COLUMNS.index("Run"), MiddleElide(self))
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
        col, run, host_col = COLUMNS.index("Best dev"), COLUMNS.index("Run"), COLUMNS.index("Host")
        status = COLUMNS.index("Status")
        hh = self.header()
        if not self.isColumnHidden(host_col):
            wanted_host = max(self.sizeHintForColumn(host_col), hh.sectionSizeHint(host_col))
            self.setColumnWidth(host_col, max(40, min(wanted_host, self.HOST_MAX_PX)))
        titles = {c: header_need(hh, c, COLUMNS[c]) for c in (col, status)}
        wanted_status = max([titles[status]] + [self._cell_width(s.run_id, status) for s in self.runs_model.rows])
        self.setColumnWidth(status, min(wanted_status, max(self.STATUS_MAX_PX, titles[status])))
        wanted = max(self.sizeHintForColumn(col), titles[col])
        # the names first, up to NAME_CHARS characters, then Best dev its value, then the names the rest (a typed
        # name of some 24 characters is whole at 1280 px); a longer name elides in its middle before Best dev does
        name_room = (self.fontMetrics().horizontalAdvance("x" * self.NAME_CHARS) + self.indentation()
                     + 2 * self.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin) + 4)
        names = min(max(self.sizeHintForColumn(run), hh.sectionSizeHint(run)), name_room)
        others = sum(self.columnWidth(c) for c in range(len(COLUMNS))
                     if c not in (col, run) and not self.isColumnHidden(c))
        room = self.viewport().width() - names - others
        width = max(titles[col], min(wanted, room))
        self.setColumnWidth(col, width)
        return width

    def _cell_width(self, run_id: str, col: int) -> int:
        """The width a run's cell asks for (text, margins), in pixels; 0 for a run not listed."""
        index = self.proxy.mapFromSource(self.runs_model.run_index(run_id, col))
        return self.sizeHintForIndex(index).width() if index.isValid() else 0

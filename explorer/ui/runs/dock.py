"""The Runs list: every run under the runs folder, past and live, with its status, best metric and size.

Each run shows a short readable name (what differs from the runs of its group, or the name the user
gave it; explorer.ui.runs.names) with the full id in the tooltip. Selecting runs (Ctrl/Shift-click for
several) shows them in Curves. Buttons: stop early, cancel, open the run folder, open the best
checkpoint in the inspectors, show the error of a failed run. The context menu adds rename (F2),
delete (Delete; moved to the runs folder's .trash), and for finished runs "keep only best checkpoint"
and "delete optimizer state" (sizes before and after). While the folder is read, the list says so.

A run group (explorer/core/studies/groups.py, ``<runs folder>/.groups/<name>/group.json``) is one expandable row:
its status counts, its best dev metric as mean ± sd over the members (explorer.ui.runs.group_rows) and its
member runs as children. Selecting the group row emits ``group_selected(name)`` (the Groups tab shows its
curves and table); selecting a member is selecting a run. Rename renames the group (its folder and
group.json; the member runs keep their ids); delete moves the members and the group folder to .trash,
after a confirmation.
"""

from __future__ import annotations

import contextlib

from pathlib import Path

from PySide6.QtCore import (QAbstractItemModel, QItemSelectionModel, QModelIndex, Qt, Signal)
from PySide6.QtGui import QColor, QFont, QKeySequence, QShortcut
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QHBoxLayout, QLabel, QMenu, QPlainTextEdit, QPushButton,
                               QVBoxLayout, QWidget)

from explorer.core.runs import status as run_status
from explorer.ui.runs.baseline_row import BaselineRow
from explorer.ui.runs.group_rows import GroupRow, group_of
from explorer.ui.runs.run_cells import (COLUMNS, EMPTY_TEXT, FINISHED, HEADER_TIPS, HIDDEN_COLUMNS,  # noqa: F401
                                        LOADING_TEXT, STATUS_COLORS, STATUS_TIPS, RunCells, status_text)
from explorer.ui.runs.names import keep_shown_names, short_names, unique_names
from explorer.ui.runs.run_export import RunExportActions
from explorer.ui.runs.run_folders import RunFolderActions
from explorer.ui.runs.run_menu import COMPARE_CLASSIFIERS_ACTION, run_menu_entries  # noqa: F401 - the entry's name
from explorer.ui.runs.run_table import RunsProxy, RunsTable
from explorer.ui.runs.selection import INSPECT_TIP, RunSelection, list_note
from explorer.ui.runs.research_actions import add_label_issues_action, add_run_research_actions
from explorer.ui.runs.state import RunState
from explorer.ui.launch.form_model import WARNING_COLOR
from explorer.ui.shell.tooltips import rich_tooltip
from explorer.ui.shell.screen_fit import keep_on_screen



class RunsModel(QAbstractItemModel):
    """A tree: top-level rows are runs outside any group and one row per run group (explorer/core/studies/groups.py)
    whose children are its member runs. ``rows`` holds every RunState (shared with the curves; the model
    only reads them), grouped or not. Index ids: 0 for a top-level row, 1 + the group's position in
    ``group_names`` for a member row."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.rows: list[RunState] = []
        self.names: dict[str, str] = {}       # run_id -> short readable name (explorer.ui.runs.names)
        self.stored_names: dict[str, str] = {}   # run_id -> the user's name (run.json)
        self.shown_names = None   # the names runs were shown by across sessions (settings.ShownRunNames), or None
        self._shown: dict[str, str] = {}   # run_id -> the short name it is shown by in this session
        self.sizes: dict[str, int] = {}       # run_id -> bytes on disk
        self._names_deferred = self._names_pending = False   # names_deferred: many runs added, names once at the end
        self.groups: list = []                # core.studies.groups.Group, oldest first
        self.pooled: dict = {}                # cv group name -> its OofResult, once its folds are predicted
        self.group_names: list[str] = []
        self.group_of: dict[str, str] = {}    # member run_id -> group name
        self.top: list[tuple[str, str]] = []  # ("run", run_id) | ("group", name)
        self.kids: dict[str, list[str]] = {}  # group name -> listed member run ids, in group order
        self.cells = RunCells(self)           # each cell's text, sort key and tooltip (Qt-free)

    # ---- tree structure ------------------------------------------------------------------
    def set_groups(self, groups: list, pooled: dict | None = None) -> None:
        """Replace the groups (a model reset: the panel keeps the selection and expansion); ``pooled``: group name
        -> a cross-validation's pooled out-of-fold figures (core.studies.cv_runs.OofResult), shown on its row."""
        self.beginResetModel()
        self.groups = list(groups)
        self.pooled = dict(pooled or {})
        self.group_names = [g.name for g in self.groups]
        self.group_of = group_of(self.groups)
        self._rebuild()
        self.endResetModel()
        self.update_names()

    def _rebuild(self) -> None:
        listed = {s.run_id for s in self.rows}
        self.kids = {g.name: [m.run_id for m in g.members if m.run_id in listed] for g in self.groups}
        self.top = [("run", s.run_id) for s in self.rows if s.run_id not in self.group_of]
        self.top += [("group", name) for name in self.group_names]

    def group(self, name: str):
        """The core.studies.groups.Group of that name, or None."""
        return next((g for g in self.groups if g.name == name), None)

    def group_row(self, name: str) -> GroupRow | None:
        """The group with its members' listed RunStates (None for a member not listed), or None."""
        g = self.group(name)
        return None if g is None else GroupRow(g, [self.find(m.run_id) for m in g.members], self.pooled.get(name),
                                             self.cells.judged)

    def node(self, index) -> tuple[str, object] | None:
        """("run", RunState) or ("group", GroupRow) of a source index; None when invalid."""
        if not index.isValid():
            return None
        gid = index.internalId()
        if gid == 0:
            kind, key = self.top[index.row()]
            return ("run", self.find(key)) if kind == "run" else ("group", self.group_row(key))
        return "run", self.find(self.kids[self.group_names[gid - 1]][index.row()])

    def run_index(self, run_id: str, column: int = 0) -> QModelIndex:
        """The source index of a run's row (top level or under its group); invalid if not listed."""
        name = self.group_of.get(run_id)
        if name is not None and run_id in self.kids.get(name, []):
            return self.createIndex(self.kids[name].index(run_id), column, id=self.group_names.index(name) + 1)
        if ("run", run_id) in self.top:
            return self.createIndex(self.top.index(("run", run_id)), column, id=0)
        return QModelIndex()

    def group_index(self, name: str, column: int = 0) -> QModelIndex:
        """The source index of a group's row; invalid if no such group is listed."""
        if ("group", name) in self.top:
            return self.createIndex(self.top.index(("group", name)), column, id=0)
        return QModelIndex()

    def index(self, row, column, parent=QModelIndex()):  # noqa: A003 - Qt API
        if column < 0 or column >= len(COLUMNS) or row < 0:
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, column, id=0) if row < len(self.top) else QModelIndex()
        if parent.internalId() != 0:
            return QModelIndex()
        kind, key = self.top[parent.row()]
        if kind != "group" or row >= len(self.kids.get(key, [])):
            return QModelIndex()
        return self.createIndex(row, column, id=self.group_names.index(key) + 1)

    def parent(self, index=None):  # Qt API; without an index it is QObject.parent()
        if index is None:
            return super().parent()
        if not index.isValid() or index.internalId() == 0:
            return QModelIndex()
        return self.group_index(self.group_names[index.internalId() - 1])

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802 - Qt API
        if not parent.isValid():
            return len(self.top)
        if parent.internalId() != 0 or parent.column() != 0:
            return 0
        kind, key = self.top[parent.row()]
        return len(self.kids.get(key, [])) if kind == "group" else 0

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole:
            return HEADER_TIPS.get(COLUMNS[section])
        return None

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        node = self.node(index)
        if node is None or node[1] is None:
            return None
        if node[0] == "group":
            return self._group_data(node[1], index.column(), role)
        s = node[1]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self.cells.text(s, col)
        if role == Qt.ItemDataRole.UserRole:   # sort key
            return self.cells.sort_key(s, col)
        if role == Qt.ItemDataRole.ForegroundRole and COLUMNS[col] == "Status":
            return QColor(STATUS_COLORS.get(s.status, "#222"))
        if role == Qt.ItemDataRole.ForegroundRole and self.cells.warns(s, col):   # the majority rate, in amber
            return QColor(WARNING_COLOR)
        if role == Qt.ItemDataRole.DecorationRole and COLUMNS[col] == "Run" and s.host:
            return remote_icon()   # the run trains on a remote host (its tooltip and the Host column name it)
        if role == Qt.ItemDataRole.ToolTipRole:
            return rich_tooltip(self.cells.tooltip(s, col))
        return None

    def _group_data(self, row: GroupRow, col: int, role):
        name = COLUMNS[col]
        if role == Qt.ItemDataRole.DisplayRole:
            return self.cells.group_text(row, col)
        if role == Qt.ItemDataRole.UserRole:
            return self.cells.group_sort_key(row, col)
        if role == Qt.ItemDataRole.ForegroundRole and name == "Status":
            return QColor(STATUS_COLORS.get(row.colour_status(), "#222"))
        if role == Qt.ItemDataRole.ForegroundRole and name == "Best dev" and row.warns():   # learned nothing
            return QColor(WARNING_COLOR)
        if role == Qt.ItemDataRole.FontRole and name == "Run":
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.ToolTipRole:
            return rich_tooltip(row.tooltip())
        return None

    status_text = staticmethod(status_text)   # the status as listed (run_cells.status_text)

    def upsert(self, state: RunState) -> None:
        """Add a run or replace the row with the same run_id (names are recomputed when a run is new); a
        member of a listed group goes under its group row, in group order."""
        for i, s in enumerate(self.rows):
            if s.run_id == state.run_id:
                self.rows[i] = state
                self.refresh(state.run_id)
                return
        name = self.group_of.get(state.run_id)
        if name is not None:
            order = [m.run_id for m in self.group(name).members]
            kids = self.kids[name]
            pos = sum(1 for r in kids if order.index(r) < order.index(state.run_id))
            self.beginInsertRows(self.group_index(name), pos, pos)
            self.rows.append(state)
            kids.insert(pos, state.run_id)
        else:
            first_group = next((i for i, (kind, _) in enumerate(self.top) if kind == "group"), len(self.top))
            self.beginInsertRows(QModelIndex(), first_group, first_group)
            self.rows.append(state)
            self.top.insert(first_group, ("run", state.run_id))
        self.endInsertRows()
        self.update_names()

    def remove(self, run_id: str) -> None:
        index = self.run_index(run_id)
        if not index.isValid():
            return
        parent = self.parent(index)
        self.beginRemoveRows(parent, index.row(), index.row())
        del self.rows[next(i for i, s in enumerate(self.rows) if s.run_id == run_id)]
        if parent.isValid():
            self.kids[self.group_of[run_id]].remove(run_id)
        else:
            self.top.remove(("run", run_id))
        self.endRemoveRows()
        self.update_names()

    @contextlib.contextmanager
    def names_deferred(self):
        """Add many runs (a runs folder read at start) with the names recomputed once at the end: recomputing them
        and repainting every row for each run added made listing 1,000 runs take minutes."""
        self._names_deferred, self._names_pending = True, False
        try:
            yield
        finally:
            self._names_deferred = False
            if self._names_pending:
                self.update_names()

    def update_names(self) -> None:
        """Recompute every row's short name (what differs within its group changes as runs come and go), keeping
        the name each run was shown by, in this session or an earlier one: a run that appears (an HF Trainer folder
        opened, a new run) never renames the runs already listed; it gets a name that differs from theirs."""
        if self._names_deferred:
            self._names_pending = True
            return
        hosts = {s.run_id: s.host for s in self.rows if s.host}
        self.names = short_names({s.run_id: s.config for s in self.rows}, self.stored_names, hosts)
        paths = {s.run_id: str(Path(s.path).resolve()) for s in self.rows if s.path is not None}
        before = self.shown_names.names() if self.shown_names is not None else {}   # ui/shell/settings.run_names
        shown = {r: before[p] for r, p in paths.items() if p in before}
        shown.update({r: n for r, n in self._shown.items() if r in self.names})   # this session's, newer
        if shown:
            kept = keep_shown_names(self.names, shown, self.stored_names)
            self.names = unique_names(kept, hosts, keep=self.stored_names)   # two names shown alike before, too
        if self.shown_names is not None:
            self.shown_names.remember({p: self.names[r] for r, p in paths.items() if r not in self.stored_names})
        self._shown = {r: n for r, n in self.names.items()
                       if not self.stored_names.get(r) and r not in self.group_of}   # a member's name is its own rule
        # a member is named by what its group varies, then its id ("seed 7 · r-02"): in a narrow list the part that
        # tells the members apart is the part left
        for g in self.groups:
            for m in g.members:
                if m.run_id in self.names and m.run_id not in self.stored_names:
                    params = ", ".join(f"{k} {v:g}" if isinstance(v, float) else f"{k} {v}"
                                       for k, v in m.params.items())
                    self.names[m.run_id] = f"{params} · {m.run_id}" if params else m.run_id
        for s in self.rows:
            self.refresh(s.run_id, first=0, last=0)

    def set_size(self, run_id: str, size: int) -> None:
        self.sizes[run_id] = size
        self.refresh(run_id)

    def refresh(self, run_id: str, first: int = 0, last: int = len(COLUMNS) - 1) -> None:
        """Repaint a run's row and its group's row (whose counts and mean follow the members)."""
        index = self.run_index(run_id)
        if not index.isValid():
            return
        self.dataChanged.emit(index.siblingAtColumn(first), index.siblingAtColumn(last))
        parent = self.parent(index)
        if parent.isValid():
            self.dataChanged.emit(parent.siblingAtColumn(0), parent.siblingAtColumn(len(COLUMNS) - 1))

    def find(self, run_id: str) -> RunState | None:
        return next((s for s in self.rows if s.run_id == run_id), None)


class ErrorDialog(QDialog):
    """A failed run's message, traceback and worker output (selectable, copyable)."""

    def __init__(self, state: RunState, parent=None):
        super().__init__(parent)
        keep_on_screen(self)   # shown or resized, its frame stays inside the screen
        self.setWindowTitle(f"Why {state.run_id} failed")
        self.resize(860, 560)
        # wrapped at the dialog's width: a message says its cause and its fix in one long line, which unwrapped sat
        # behind a horizontal scrollbar at 1280 px
        self.text = text = QPlainTextEdit()
        text.setReadOnly(True)
        text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        body = [f"Error: {state.error or '(no message)'}", ""]
        if state.traceback:
            body += ["Traceback:", state.traceback.rstrip(), ""]
        if state.stderr_tail and state.stderr_tail.strip() not in state.traceback:
            body += ["Worker output (stderr and non-event lines, last part):", state.stderr_tail.rstrip()]
        text.setPlainText("\n".join(body))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(text)
        lay.addWidget(buttons)


def remote_icon():
    """The icon before a remote run's name: the style's network-drive icon (a run that trains on a host)."""
    from PySide6.QtWidgets import QApplication, QStyle

    return QApplication.style().standardIcon(QStyle.StandardPixmap.SP_DriveNetIcon)


class RunsPanel(RunFolderActions, RunExportActions, QWidget):
    """Table of runs + actions. Emits requests; the main window acts on them. What the selection allows is
    decided by explorer.ui.runs.selection.RunSelection; rename, delete and clean-up are RunFolderActions', the CSV
    export RunExportActions'.

    :meth:`follow` subscribes the list to the run store (explorer.core.runs.store.RunStore, through its Qt
    bridge explorer.ui.runs.bridge.StoreBridge): listed, replaced, changed, ended and removed runs show
    without anyone relaying them; a run deleted here is removed from the store.
    """

    selection_changed = Signal(list)        # run ids, in table order
    stop_requested = Signal(str)
    cancel_requested = Signal(str)
    open_folder_requested = Signal(str)     # run id
    open_checkpoint_requested = Signal(str)  # checkpoint folder
    predict_requested = Signal(str)          # checkpoint folder: "Predict on a file…"
    compare_requested = Signal(str, str)     # two checkpoint folders (A, B): "Compare on one example…"
    classifiers_compare_requested = Signal(list)   # [{source, name, task}] x 2: "Compare two classifiers…"
    refresh_requested = Signal()
    removed = Signal(str)                   # run id, after its folder went to the trash
    renamed = Signal(str)                   # run id, after F2 gave it a new display name
    message = Signal(str)                   # a one-line status for the status bar
    group_selected = Signal(str)            # a group row was selected (its name)
    label_issues_requested = Signal(str)    # a cv group's name: "Suspected label errors…"
    capsule_requested = Signal(str)         # a run folder: "Replication capsule…"
    groups_changed = Signal()               # groups were re-read, renamed or deleted

    def __init__(self, parent=None):
        super().__init__(parent)
        self.loading = False
        self.runs_dir_getter = None         # () -> runs folder; set by explorer.ui.groups.tabs.install
        self.store = None                   # explorer.core.runs.store.RunStore once follow() was called
        self._build_table()
        self._build_buttons()
        self._layout()
        self._connect()
        self._update_buttons()

    # ---- construction --------------------------------------------------------------------
    def _build_table(self) -> None:
        self.model = RunsModel(self)
        self.proxy = RunsProxy(self.model, self)   # sorts the top-level rows; a group's members keep its order
        self.table = RunsTable(self.model, self.proxy)   # named table since the list was one; groups made it a tree
        self._fit_timer = self.table.fit_timer

    def _build_buttons(self) -> None:
        self.stop_btn = QPushButton("Stop early")
        self.stop_btn.setToolTip("Graceful: the worker finishes the current step, saves a checkpoint and evaluates.")
        self.cancel_btn = QPushButton("Cancel")
        self.cancel_btn.setToolTip("Terminate the worker now (a queued run is listed as cancelled). "
                                   "No final evaluation.")
        self.folder_btn = QPushButton("Open folder")
        self.folder_btn.setToolTip("Open the run folder (config.json, events.jsonl, checkpoints/) in the file manager.")
        self.inspect_btn = QPushButton("Open best checkpoint in inspectors")
        self.inspect_btn.setToolTip(rich_tooltip(INSPECT_TIP))
        self.error_btn = QPushButton("Show error…")
        self.error_btn.setToolTip("The failed run's message, traceback and worker output.")
        self.refresh_btn = QPushButton("Refresh")
        self.refresh_btn.setToolTip("Re-read the runs folder (F5).")
        self.error_label = QLabel()
        self.error_label.setObjectName("errorLabel")
        self.error_label.setWordWrap(True)
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_label.hide()
        self.note = QLabel()
        self.note.setObjectName("hint")
        self.note.setWordWrap(True)

    def _layout(self) -> None:
        row1 = QHBoxLayout()
        for b in (self.stop_btn, self.cancel_btn, self.folder_btn, self.refresh_btn):
            row1.addWidget(b)
        row1.addStretch(1)
        row2 = QHBoxLayout()
        row2.addWidget(self.inspect_btn)
        row2.addWidget(self.error_btn)
        row2.addStretch(1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.note)
        lay.addWidget(self.table, 1)
        lay.addWidget(BaselineRow(self))   # the bag-of-words baseline's job row and verdict
        lay.addWidget(self.error_label)
        lay.addLayout(row1)
        lay.addLayout(row2)

    def _connect(self) -> None:
        self.table.selectionModel().selectionChanged.connect(self._selection_changed)
        self.table.doubleClicked.connect(self._double_clicked)
        self.table.customContextMenuRequested.connect(self._context_menu)
        self.stop_btn.clicked.connect(lambda: self._each_selected(self.stop_requested))
        self.cancel_btn.clicked.connect(lambda: self._each_selected(self.cancel_requested))
        self.folder_btn.clicked.connect(self._open_folder)
        self.inspect_btn.clicked.connect(self._open_checkpoint)
        self.error_btn.clicked.connect(self.show_error)
        self.refresh_btn.clicked.connect(self.refresh_requested)
        self.shortcuts = []
        for key, slot in (("F2", self.rename_selected), ("Delete", self.delete_selected)):
            sc = QShortcut(QKeySequence(key), self.table)
            sc.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            sc.activated.connect(slot)
            self.shortcuts.append(sc)

    def fit_columns(self) -> int:
        """Fit the columns' widths, the run names first (RunsTable.fit_columns); returns the width set for
        "Best dev", in pixels."""
        return self.table.fit_columns()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(event)
        self._fit_timer.start()

    # ---- rows ----------------------------------------------------------------------------
    def follow(self, bridge) -> None:
        """List what the run store lists (``bridge``: a StoreBridge): a new or replaced state is upserted
        (a replaced state of a selected run re-announces the selection, so Curves shows the new one),
        a changed or ended run is repainted, a removed one leaves the list."""
        self.store = bridge.store
        bridge.added.connect(self._store_added)
        bridge.changed.connect(lambda run_id, _series: self.refresh(run_id))
        bridge.ended.connect(lambda run_id, _status: self.refresh(run_id))
        bridge.removed.connect(self._store_removed)

    def _store_added(self, state: RunState) -> None:
        replaced = self.model.find(state.run_id) is not None and self.model.find(state.run_id) is not state
        self.upsert(state)
        if replaced and state.run_id in self.selected_ids():
            self._selection_changed()

    def _store_removed(self, run_id: str) -> None:
        self.model.remove(run_id)
        self._update_buttons()

    def _forget(self, run_id: str) -> None:
        """A run whose folder went to the trash: out of the store (and so the list), then ``removed``."""
        if self.store is not None:
            self.store.remove(run_id)
        self.model.remove(run_id)
        self.removed.emit(run_id)

    def set_loading(self, loading: bool) -> None:
        """While the runs folder is read, say so (never "no runs" before the read is done)."""
        was, self.loading = self.loading, loading
        if was and not loading:
            self.reload_groups()
        self._update_buttons()

    # ---- groups --------------------------------------------------------------------------
    def runs_dir(self):
        """The runs folder whose groups are listed (None until group_tabs.install sets the getter)."""
        return self.runs_dir_getter() if self.runs_dir_getter is not None else None

    def reload_groups(self) -> list[str]:
        """Re-read the group files of the runs folder (small JSON files); returns the notes about
        unreadable ones (also sent as a message). Keeps the selection and the expanded groups."""
        from explorer.core.studies.cv_runs import read_oof
        from explorer.core.studies.groups import list_groups

        folder = self.runs_dir()
        groups, notes = list_groups(folder) if folder is not None else ([], [])
        # a cross-validation's pooled out-of-fold figures (a small JSON file once its folds are predicted)
        self.set_groups(groups, {g.name: read_oof(folder, g.name) for g in groups if g.kind == "cv"})
        if notes:
            self.message.emit(f"{len(notes)} group file(s) unreadable: {notes[0]}")
        return notes

    def set_groups(self, groups: list, pooled: dict | None = None) -> None:
        """Show these groups (core.studies.groups.Group) as expandable rows (``pooled``: RunsModel.set_groups)."""
        selected, chosen = self.selected_ids(), self.selected_groups()
        expanded = {n for n in self.model.group_names if self.table.isExpanded(self._view_index(
            self.model.group_index(n)))}
        known = set(self.model.group_names)
        self.model.set_groups(groups, pooled)
        for name in self.model.group_names:   # new groups open; the user's collapsed ones stay closed
            if name in expanded or name not in known:
                self.table.expand(self._view_index(self.model.group_index(name)))
        self._select(selected, chosen, quiet=True)   # the same rows as before: nothing to tell
        self.groups_changed.emit()

    def selected_groups(self) -> list[str]:
        """Names of the selected group rows."""
        out = []
        for i in self.table.selectionModel().selectedRows():
            node = self.model.node(self.proxy.mapToSource(i))
            if node is not None and node[0] == "group" and node[1] is not None:
                out.append(node[1].name)
        return out

    def select_group(self, name: str) -> None:
        """Select exactly one group row (emits group_selected)."""
        self._select([], [name])

    def _view_index(self, source_index):
        return self.proxy.mapFromSource(source_index)

    def upsert(self, state: RunState) -> None:
        self.model.upsert(state)
        self._update_buttons()

    def refresh(self, run_id: str) -> None:
        self.model.refresh(run_id)
        if run_id in self.selected_ids():
            self._update_buttons()

    def set_names(self, stored: dict[str, str]) -> None:
        """The user's names (run.json) of the listed runs."""
        self.model.stored_names.update(stored)
        self.model.update_names()

    def state(self, run_id: str) -> RunState | None:
        return self.model.find(run_id)

    def all_ids(self) -> list[str]:
        return [s.run_id for s in self.model.rows]

    def selected_ids(self) -> list[str]:
        """The selected runs (group rows left out), in the order of ``model.rows``."""
        chosen = set()
        for i in self.table.selectionModel().selectedRows():
            node = self.model.node(self.proxy.mapToSource(i))
            if node is not None and node[0] == "run" and node[1] is not None:
                chosen.add(node[1].run_id)
        return [s.run_id for s in self.model.rows if s.run_id in chosen]

    def select(self, run_ids: list[str]) -> None:
        """Select exactly these runs (emits selection_changed); a member's group is expanded."""
        self._select(run_ids, [])

    def _select(self, run_ids: list[str], group_names: list[str], quiet: bool = False) -> None:
        sm = self.table.selectionModel()
        flags = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
        sm.blockSignals(True)
        sm.clearSelection()
        for source in [self.model.run_index(r) for r in run_ids] + [self.model.group_index(g) for g in group_names]:
            if source.isValid():
                idx = self._view_index(source)
                if idx.parent().isValid():
                    self.table.expand(idx.parent())
                sm.select(idx, flags)
                sm.setCurrentIndex(idx, QItemSelectionModel.SelectionFlag.NoUpdate)
        sm.blockSignals(False)
        self.table.viewport().update()
        if quiet:
            self._update_buttons()
        else:
            self._selection_changed()

    # ---- actions -------------------------------------------------------------------------
    def _selected_states(self) -> list[RunState]:
        return [s for s in (self.model.find(r) for r in self.selected_ids()) if s is not None]

    def selection(self) -> RunSelection:
        """The selected runs (group rows left out) and what can be done with them."""
        return RunSelection(self._selected_states())

    def _each_selected(self, signal) -> None:
        for s in self._selected_states():
            if s.is_live:
                signal.emit(s.run_id)

    def _open_folder(self) -> None:
        for s in self._selected_states()[:1]:
            self.open_folder_requested.emit(s.run_id)

    def inspect_tip(self, states: list[RunState]) -> str:
        """The tooltip of "Open best checkpoint in inspectors": what it does, or why it is greyed
        (RunSelection.inspect_tip)."""
        return RunSelection(states).inspect_tip(self.name_of)

    def _open_checkpoint(self) -> None:
        for s in self._selected_states()[:1]:
            path = s.best_checkpoint_path()
            if path:
                self.open_checkpoint_requested.emit(path)

    def show_error(self) -> ErrorDialog | None:
        failed = RunSelection(self._selected_states()).with_error()
        if not failed:
            return None
        dlg = ErrorDialog(failed[0], self)
        dlg.open()
        return dlg

    def _double_clicked(self, index) -> None:
        node = self.model.node(self.proxy.mapToSource(index))
        if node is not None and node[0] == "run" and node[1] is not None and node[1].status == run_status.FAILED:
            self.show_error()

    def _context_menu(self, pos) -> QMenu | None:
        states = self._selected_states()
        groups = self.selected_groups()
        if not states and not groups:
            return None
        menu = self.group_menu(groups[0]) if groups and not states else self.context_menu(states)
        menu.popup(self.table.viewport().mapToGlobal(pos))
        return menu

    def context_menu(self, states: list[RunState]) -> QMenu:
        """The menu for the selected runs (built, not shown: tests read its actions); what is on: RunSelection."""
        menu = QMenu(self)
        sel = RunSelection(states)
        for entry in run_menu_entries(sel):
            if entry is None:
                menu.addSeparator()
                continue
            action = menu.addAction(entry.label, getattr(self, entry.slot))
            action.setEnabled(entry.enabled)
            action.setToolTip(entry.tip)
            if entry.checkpoints:
                pick = menu.addMenu("Open checkpoint in inspectors")
                for label, folder in entry.checkpoints:
                    pick.addAction(label, lambda folder=folder: self.open_checkpoint_requested.emit(folder))
        add_run_research_actions(menu, sel.one, self)   # replication capsule, bag-of-words baseline
        return menu

    def _compare_two(self) -> None:
        states = self._selected_states()
        paths = [s.best_checkpoint_path() for s in states]
        if len(states) == 2 and all(paths):
            self.compare_requested.emit(str(paths[0]), str(paths[1]))

    def _compare_classifiers(self) -> None:
        """Emit ``classifiers_compare_requested`` with the two selected runs' best checkpoints (A = the first)."""
        states = self._selected_states()
        paths = [s.best_checkpoint_path() for s in states]
        if len(states) == 2 and all(paths):
            self.classifiers_compare_requested.emit([{"source": str(p), "name": self.name_of(s.run_id), "task": s.task}
                                                     for s, p in zip(states, paths)])

    def _predict_on_file(self) -> None:
        states = self._selected_states()
        path = states[0].best_checkpoint_path() if len(states) == 1 else None
        if path is not None:
            self.predict_requested.emit(str(path))

    def group_menu(self, name: str) -> QMenu:
        """The menu of a group row (built, not shown: tests read its actions)."""
        menu = QMenu(self)
        row = self.model.group_row(name)
        live = row is not None and any(s is not None and s.is_live for s in row.states)
        menu.addAction("Show group curves and table", lambda: self.group_selected.emit(name))
        add_label_issues_action(menu, self.runs_dir(), name, self.label_issues_requested.emit)
        menu.addSeparator()
        menu.addAction("Rename group…", self.rename_selected).setEnabled(self.runs_dir() is not None)
        menu.addAction("Delete group…", self.delete_selected).setEnabled(self.runs_dir() is not None and not live)
        return menu

    def name_of(self, run_id: str) -> str:
        """The name the list shows for a run (the user's, else the short automatic one, else its id)."""
        return self.model.names.get(run_id) or run_id

    def _selection_changed(self, *_args) -> None:
        self._update_buttons()
        ids, groups = self.selected_ids(), self.selected_groups()
        self.selection_changed.emit(ids)
        if groups and not ids:
            self.group_selected.emit(groups[0])

    def _update_buttons(self) -> None:
        """The list's note, the buttons, the inspect tooltip and the failed run's line for the selection now."""
        self.note.setText(list_note(self.loading, bool(self.model.rows)))
        self.note.setVisible(self.loading or not self.model.rows)
        sel = RunSelection(self._selected_states())
        self.stop_btn.setEnabled(sel.can_stop())
        self.cancel_btn.setEnabled(sel.can_cancel())
        self.folder_btn.setEnabled(sel.can_open_folder())
        self.inspect_btn.setEnabled(sel.can_inspect())
        self.inspect_btn.setToolTip(rich_tooltip(sel.inspect_tip(self.name_of)))
        self.error_btn.setEnabled(bool(sel.failed()))
        line = sel.failed_line()
        if line:
            self.error_label.setText(line)
            self.error_label.show()
        else:
            self.error_label.hide()

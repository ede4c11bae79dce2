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

from PySide6.QtCore import (QAbstractItemModel, QItemSelectionModel, QModelIndex, QSortFilterProxyModel, Qt, QTimer,
                            Signal)
from PySide6.QtGui import QAction, QColor, QFont, QKeySequence, QShortcut
from PySide6.QtWidgets import (QAbstractItemView, QDialog, QFileDialog, QDialogButtonBox, QHBoxLayout, QHeaderView,
                               QInputDialog, QLabel, QMenu, QMessageBox, QPlainTextEdit, QPushButton, QStyledItemDelegate,
                               QStyle, QTreeView,
                               QVBoxLayout, QWidget)

from explorer.core.runs import status as run_status
from explorer.core.runs.store import OURS, checkpoint_path
from explorer.ui.runs.group_rows import GroupRow, group_of
from explorer.ui.runs.disk import delete_optimizer_state, format_size, keep_only_best, optimizer_state_files, trash_run
from explorer.ui.runs.names import set_display_name, short_names
from explorer.ui.runs.state import RunState, format_seconds
from explorer.ui.shell.layout_check import header_need
from explorer.ui.shell.tasks import run_in_thread
from explorer.ui.shell.tooltips import rich_tooltip

COLUMNS = ("Run", "Status", "Best dev", "Size", "Duration", "Step", "Task", "Model", "Host")
# Hidden at start, so the narrow dock needs no horizontal scrolling and the run names have the room; the header's
# context menu shows them and the Run tooltip lists them (Size too: the sixth trial's "st…-4" for "stance-4";
# Host too: shown beside the names it left them "minilm · …n · train" in the seventh trial; a remote run has a
# network icon before its name instead, and its tooltip names the host). "Host" sits right after Run.
HIDDEN_COLUMNS = ("Size", "Duration", "Step", "Task", "Model", "Host")
HEADER_TIPS = {"Best dev": "The dev metric that picks checkpoints/best (best_f1 for SQuAD 2.0, f1 for SQuAD 1.1, "
                           "accuracy for classification), in percent (acc = accuracy, MCC = Matthews correlation); "
                           "a cell's tooltip gives the step of checkpoints/best (a tie keeps the earlier step, the "
                           "untrained model at step 0 is never saved) and, after '·', the trivial baseline on the same "
                           "dev data (all no-answer / majority class).",
               "Duration": "Wall-clock time from start to end (still counting while the run is live).",
               "Step": "Optimizer steps done / planned.",
               "Host": "The remote host the run trains on (Launch: Run on); empty for this machine.",
               "Size": "Disk space of the run folder (checkpoints/last and best with optimizer state are most "
                       "of it). Right-click a finished run to keep only its best checkpoint or drop the "
                       "optimizer state."}
FINISHED = ("finished", "stopped", "failed", "cancelled", "crashed")
LOADING_TEXT = "Loading runs…"
EMPTY_TEXT = ("No runs in this folder yet: launch one from the Launch tab (Ctrl+Return there), or open a run "
              "folder from disk (Ctrl+O).")
STATUS_COLORS = {"running": "#0a58ca", "starting": "#0a58ca", "stopping": "#b35c00", "cancelling": "#b35c00",
                 "queued": "#6c757d", "finished": "#19692c", "stopped": "#19692c", "failed": "#b02a37",
                 "cancelled": "#6c757d", "crashed": "#b02a37",
                 "TensorBoard run": "#0f6674", "in progress": "#0a58ca"}
STATUS_TIPS = {
    "queued": "waiting for the previous run to finish",
    "starting": "the worker process is loading the model and data",
    "running": "training; the curves grow live",
    "stopping": "stop early requested: the worker finishes its step, saves and evaluates",
    "cancelling": "cancel requested: the worker was sent SIGTERM (SIGKILL after 5 s)",
    "finished": "trained to the end",
    "stopped": "stopped early on request; checkpoint saved and evaluated",
    "failed": "the worker reported an error or died; select it to see why",
    "cancelled": "cancelled: no final evaluation",
    "cancelled (queued)": "cancelled while it waited in the queue: it never started (its config is kept)",
    "crashed": "the event log ends without a result and no worker process is alive",
    "TensorBoard run": "a folder of TensorBoard event files: its scalars as curves",
    "in progress": "another tool's run whose files changed in the last minutes: re-read while it grows",
}
CSV_FILTERS = ("Long CSV: run, step, name, value (*.csv)", "Wide CSV: one row per run and step (*.csv)")



COMPARE_CLASSIFIERS_ACTION = "Compare two classifiers on the dev rows…"   # the Runs list's menu entry (named elsewhere)

class MiddleElide(QStyledItemDelegate):
    """Elides a cell's text in the middle (the Run column: model first, task and data last)."""

    def initStyleOption(self, option, index) -> None:  # noqa: N802 - Qt API
        super().initStyleOption(option, index)
        option.textElideMode = Qt.TextElideMode.ElideMiddle

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
        self.sizes: dict[str, int] = {}       # run_id -> bytes on disk
        self.groups: list = []                # core.studies.groups.Group, oldest first
        self.group_names: list[str] = []
        self.group_of: dict[str, str] = {}    # member run_id -> group name
        self.top: list[tuple[str, str]] = []  # ("run", run_id) | ("group", name)
        self.kids: dict[str, list[str]] = {}  # group name -> listed member run ids, in group order

    # ---- tree structure ------------------------------------------------------------------
    def set_groups(self, groups: list) -> None:
        """Replace the groups (a model reset: the panel keeps the selection and expansion)."""
        self.beginResetModel()
        self.groups = list(groups)
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
        return None if g is None else GroupRow(g, [self.find(m.run_id) for m in g.members])

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
            return self._text(s, col)
        if role == Qt.ItemDataRole.UserRole:   # sort key
            return self._sort_key(s, col)
        if role == Qt.ItemDataRole.ForegroundRole and COLUMNS[col] == "Status":
            return QColor(STATUS_COLORS.get(s.status, "#222"))
        if role == Qt.ItemDataRole.DecorationRole and COLUMNS[col] == "Run" and s.host:
            return remote_icon()   # the run trains on a remote host (its tooltip and the Host column name it)
        if role == Qt.ItemDataRole.ToolTipRole:
            return rich_tooltip(self._tooltip(s, col))
        return None

    def _group_data(self, row: GroupRow, col: int, role):
        name = COLUMNS[col]
        size = sum(self.sizes.get(s.run_id, 0) for s in row.states if s is not None)
        if role == Qt.ItemDataRole.DisplayRole:
            listed = [st for st in row.states if st is not None]
            steps, total = sum(st.step for st in listed), sum(st.steps_total for st in listed)
            seconds = sum(st.live_elapsed() or 0.0 for st in listed if st.status != "queued")
            return {"Run": row.name, "Status": row.status_text(), "Best dev": row.best_text(),
                    "Size": format_size(size) if size else "", "Task": row.task, "Model": row.model,
                    "Step": f"{steps}/{total}" if total else "",
                    "Duration": format_seconds(seconds) if seconds else ""}.get(name, "")
        if role == Qt.ItemDataRole.UserRole:
            return {"Run": row.sort_name(), "Best dev": row.best_sort_key(), "Size": size}.get(name, "")
        if role == Qt.ItemDataRole.ForegroundRole and name == "Status":
            return QColor(STATUS_COLORS.get(row.colour_status(), "#222"))
        if role == Qt.ItemDataRole.FontRole and name == "Run":
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.ToolTipRole:
            return rich_tooltip(row.tooltip())
        return None

    def _tooltip(self, s: RunState, col: int) -> str:
        if COLUMNS[col] == "Status":
            tip = STATUS_TIPS.get(self.status_text(s), s.status)
            if s.kind != OURS and s.status in FINISHED:   # another tool's run: why, in its first read notes
                tip = (f"{s.kind} run, read from its files (curves from its trainer_state.json, its checkpoint-N "
                       "folders, its own best checkpoint)")
            if s.status == "queued" and s.queue_note:
                tip = "waiting in the cluster's queue: the job starts when SLURM gives it a node"
            tip = f"{tip}\n{s.error}" if s.error else tip
            return tip + "".join(f"\nnote: {n}" for n in s.read_notes)
        if COLUMNS[col] == "Run" and s.kind != "BERT Explorer":
            st = s.settings
            read = (f"lr {st.get('learning_rate', '-')} · batch {st.get('per_device_train_batch_size', '-')} · "
                    f"epochs {st.get('num_train_epochs', '-')} · seed {st.get('seed', '-')}\n") if st else ""
            return (f"{s.run_id}\n{s.kind} run, read from {s.path or ''}\ntask: {s.task or '-'}\n{read}"
                    f"step: {self._text(s, COLUMNS.index('Step')) or '-'}"
                    + "".join(f"\n{n}" for n in s.read_notes))
        if COLUMNS[col] == "Run":
            cfg = s.config
            return (f"{s.run_id}\n{s.path or ''}\n" + (f"trains on {s.host} (a local mirror of its events)\n" if s.host else "")
                    + f"task: {s.task}\nmodel: {s.model}\n"
                    f"lr {cfg.get('learning_rate', '-')} · batch {cfg.get('batch_size', '-')} · "
                    f"epochs {cfg.get('epochs', '-')} · seed {cfg.get('seed', '-')}\n"
                    f"duration: {self._text(s, COLUMNS.index('Duration')) or '-'}\n"
                    f"step: {self._text(s, COLUMNS.index('Step')) or '-'}\n"
                    f"size on disk: {self._text(s, COLUMNS.index('Size')) or '-'}\n"
                    f"device: {s.device or '-'}, mixed precision: {s.mixed_precision or '-'}\n"
                    "(F2 renames, Delete deletes)")
        if COLUMNS[col] == "Best dev":
            note = s.one_class_note()   # a classifier stuck on one class (explorer.core.metrics.baselines)
            return (s.best_text() or "no saved evaluation yet") + (f"\nnote: the last evaluation {note}" if note else "")
        return self._text(s, col)

    @staticmethod
    def status_text(s: RunState) -> str:
        """The status as listed: 'cancelled (queued)' for a run cancelled before it ever started."""
        if s.status == "cancelled" and s.started_at is None and not s.step:
            return "cancelled (queued)"
        if s.status == "queued" and s.queue_note:
            return f"queued ({s.queue_note})"   # a SLURM job waiting on its cluster
        return s.status

    def _text(self, s: RunState, col: int) -> str:
        name = COLUMNS[col]
        if name == "Run":
            return self.names.get(s.run_id) or s.run_id
        if name == "Status":
            return self.status_text(s)
        if name == "Size":
            return format_size(self.sizes.get(s.run_id))
        if name == "Model":
            return s.model
        if name == "Task":
            return s.task
        if name == "Best dev":
            return s.best_cell_text()
        if name == "Duration":
            return format_seconds(s.live_elapsed()) if s.status != "queued" else ""
        if name == "Step":
            if not s.step and not s.steps_total:
                return ""
            return f"{s.step}/{s.steps_total}" if s.steps_total else str(s.step)
        if name == "Host":
            return s.host
        return ""

    def _sort_key(self, s: RunState, col: int):
        name = COLUMNS[col]
        if name == "Best dev":
            best = s.best_metric()
            return best[1] if best else -1.0
        if name == "Size":
            return self.sizes.get(s.run_id, -1)
        if name == "Run":
            return s.run_id          # start time first: names sort like the runs were made
        if name == "Duration":
            return s.live_elapsed() or 0.0
        if name == "Step":
            return s.step
        return self._text(s, col)

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

    def update_names(self) -> None:
        """Recompute every row's short name (what differs within its group changes as runs come and go)."""
        self.names = short_names({s.run_id: s.config for s in self.rows}, self.stored_names)
        for g in self.groups:   # a member is named by its id and what its group varies: "r-02 · seed 7"
            for m in g.members:
                if m.run_id in self.names and m.run_id not in self.stored_names:
                    params = ", ".join(f"{k} {v:g}" if isinstance(v, float) else f"{k} {v}"
                                       for k, v in m.params.items())
                    self.names[m.run_id] = f"{m.run_id} · {params}" if params else m.run_id
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
        self.setWindowTitle(f"Why {state.run_id} failed")
        self.resize(860, 560)
        text = QPlainTextEdit()
        text.setReadOnly(True)
        text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
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


INSPECT_TIP = ("Load checkpoints/best (else last) of the selected run into the inspector page for its model head "
               "(QA, classification, tagging), with an example from the run's dev data.")


class RunsPanel(QWidget):
    """Table of runs + actions. Emits requests; the main window acts on them.

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
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(Qt.ItemDataRole.UserRole)
        self.table = QTreeView()   # named table since the list was one; groups made it a tree
        self.table.setModel(self.proxy)
        self.table.setRootIsDecorated(True)
        self.table.setUniformRowHeights(True)
        self.table.setExpandsOnDoubleClick(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setSortingEnabled(True)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        # run names "minilm · single · stance_train": the model first, what differs (task, data) last, so a
        # narrow dock elides the middle ("minilm…ce_train"), not the end (every run read "minilm ·…")
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.setItemDelegateForColumn(COLUMNS.index("Run"), MiddleElide(self.table))
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        # the run name takes the free width; the short columns fit their contents and headers (never clipped);
        # HIDDEN_COLUMNS start hidden: right-click the header to show them
        hh = self.table.header()
        hh.setStretchLastSection(False)
        hh.setMinimumSectionSize(40)
        for col, name in enumerate(COLUMNS):
            hh.setSectionResizeMode(col, QHeaderView.ResizeMode.Stretch if name == "Run" else
                                    QHeaderView.ResizeMode.Interactive if name in ("Best dev", "Host", "Status")
                                    else QHeaderView.ResizeMode.ResizeToContents)
        hh.moveSection(hh.visualIndex(COLUMNS.index("Host")), 1)
        # the run names get their width first; "Best dev" what they leave (fit_columns)
        self._fit_timer = QTimer(self, singleShot=True, interval=0)
        self._fit_timer.timeout.connect(self.fit_columns)
        for signal in (self.model.rowsInserted, self.model.rowsRemoved, self.model.dataChanged, self.model.modelReset):
            signal.connect(lambda *_: self._fit_timer.start())
        hh.sortIndicatorChanged.connect(lambda *_: self._fit_timer.start())   # the sort arrow takes room
        hh.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        for col, name in enumerate(COLUMNS[1:], start=1):
            act = QAction(f"Show {name}", hh)
            act.setCheckable(True)
            act.setChecked(name not in HIDDEN_COLUMNS)
            act.toggled.connect(lambda on, c=col: self.table.setColumnHidden(c, not on))
            hh.addAction(act)
            self.table.setColumnHidden(col, name in HIDDEN_COLUMNS)

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

    STATUS_MAX_PX = 100   # the most the "Status" column takes: a group's "1 crashed, 1 finished, 1 missing" elides

    HOST_MAX_PX = 110   # the most the "Host" column takes (a longer host name is elided; its tooltip is whole)
    NAME_CHARS = 16     # a run name this long keeps its room before "Best dev" gets its value's

    def fit_columns(self) -> int:
        """Give the run names the room first, up to NAME_CHARS characters (the user's name, typed in the launcher,
        must be readable; the sixth trial saw "st…-4" for "stance-4"): "Best dev" gets the width those names and
        the other shown columns leave, between its header's width and its contents ("66.70 F1 (%)", whole in the default dock: the
        eighth trial saw "60.00 a…"; a narrower dock elides it, its tooltip has it whole); the Run column,
        stretched, takes the rest. The "Status" column takes the runs' statuses, at most STATUS_MAX_PX (a
        group's counts "1 crashed, 1 finished, 1 missing" elide; the group's tooltip lists them). Returns the width set for "Best dev", in pixels.

        The "Host" column, when the user shows it (header menu), takes its contents, at most HOST_MAX_PX."""
        col, run, host_col = COLUMNS.index("Best dev"), COLUMNS.index("Run"), COLUMNS.index("Host")
        status = COLUMNS.index("Status")
        hh = self.table.header()
        if not self.table.isColumnHidden(host_col):
            wanted_host = max(self.table.sizeHintForColumn(host_col), hh.sectionSizeHint(host_col))
            self.table.setColumnWidth(host_col, max(40, min(wanted_host, self.HOST_MAX_PX)))
        titles = {c: header_need(hh, c, COLUMNS[c]) for c in (col, status)}
        wanted_status = max([titles[status]] + [self._cell_width(s.run_id, status) for s in self.model.rows])
        self.table.setColumnWidth(status, min(wanted_status, max(self.STATUS_MAX_PX, titles[status])))
        wanted = max(self.table.sizeHintForColumn(col), titles[col])
        # the names first, up to NAME_CHARS characters, then Best dev its value, then the names the rest (a typed
        # name of some 24 characters is whole at 1280 px); a longer name elides in its middle before Best dev does
        # (tenth trial: "79.25% a…" beside "minilm · single · train · 12-02 03:37")
        name_room = (self.table.fontMetrics().horizontalAdvance("x" * self.NAME_CHARS) + self.table.indentation()
                     + 2 * self.table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin) + 4)
        names = min(max(self.table.sizeHintForColumn(run), hh.sectionSizeHint(run)), name_room)
        others = sum(self.table.columnWidth(c) for c in range(len(COLUMNS))
                     if c not in (col, run) and not self.table.isColumnHidden(c))
        room = self.table.viewport().width() - names - others
        width = max(titles[col], min(wanted, room))
        self.table.setColumnWidth(col, width)
        return width

    def _cell_width(self, run_id: str, col: int) -> int:
        """The width a run's cell asks for (text, margins), in pixels; 0 for a run not listed."""
        index = self._view_index(self.model.run_index(run_id, col))
        return self.table.sizeHintForIndex(index).width() if index.isValid() else 0

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
        from explorer.core.studies.groups import list_groups

        folder = self.runs_dir()
        groups, notes = list_groups(folder) if folder is not None else ([], [])
        self.set_groups(groups)
        if notes:
            self.message.emit(f"{len(notes)} group file(s) unreadable: {notes[0]}")
        return notes

    def set_groups(self, groups: list) -> None:
        """Show these groups (core.studies.groups.Group) as expandable rows."""
        selected, chosen = self.selected_ids(), self.selected_groups()
        expanded = {n for n in self.model.group_names if self.table.isExpanded(self._view_index(
            self.model.group_index(n)))}
        known = set(self.model.group_names)
        self.model.set_groups(groups)
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

    def _each_selected(self, signal) -> None:
        for s in self._selected_states():
            if s.is_live:
                signal.emit(s.run_id)

    def _open_folder(self) -> None:
        for s in self._selected_states()[:1]:
            self.open_folder_requested.emit(s.run_id)

    def inspect_tip(self, states: list[RunState]) -> str:
        """The tooltip of "Open best checkpoint in inspectors": what it does, or why it is greyed (twelfth trial:
        it was greyed early in a run, before the first checkpoint, with nothing saying so)."""
        if len(states) != 1:
            return INSPECT_TIP + ("" if not states else f" ({len(states)} runs are selected: select one.)")
        s = states[0]
        if s.best_checkpoint_path() is not None:
            return INSPECT_TIP
        name = self.name_of(s.run_id)
        if s.status == run_status.QUEUED:
            return f"{name} is queued: it saves its first checkpoint once it trains."
        if s.is_live:
            every = int(s.config.get("eval_every") or 0)
            when = (f"at its first evaluation after training starts (every {every} steps, Evaluate every)"
                    if every > 0 else "at the end of training (Evaluate every is 0: evaluations at the start and "
                                      "the end only)")
            return f"No checkpoint yet: {name} saves checkpoints/best {when}."
        return f"{name} left no checkpoint (neither checkpoints/best nor checkpoints/last is in its folder)."

    def _open_checkpoint(self) -> None:
        for s in self._selected_states()[:1]:
            path = s.best_checkpoint_path()
            if path:
                self.open_checkpoint_requested.emit(path)

    def show_error(self) -> ErrorDialog | None:
        failed = [s for s in self._selected_states() if s.status == "failed" or s.error]
        if not failed:
            return None
        dlg = ErrorDialog(failed[0], self)
        dlg.open()
        return dlg

    def _double_clicked(self, index) -> None:
        node = self.model.node(self.proxy.mapToSource(index))
        if node is not None and node[0] == "run" and node[1] is not None and node[1].status == "failed":
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
        """The menu for the selected runs (built, not shown: tests read its actions)."""
        menu = QMenu(self)
        one = len(states) == 1
        done = all(s.status in FINISHED and s.path is not None and s.kind == OURS for s in states)
        menu.addAction("Rename…", self.rename_selected).setEnabled(one and states[0].path is not None)
        menu.addAction("Delete…", self.delete_selected).setEnabled(done)
        menu.addSeparator()
        best = one and states[0].path is not None and checkpoint_path(states[0].path, "best").is_dir()
        menu.addAction("Keep only best checkpoint…", self.keep_only_best_selected).setEnabled(done and best)
        has_state = one and states[0].path is not None and bool(optimizer_state_files(states[0].path))
        menu.addAction("Delete optimizer state…", self.delete_optimizer_state_selected).setEnabled(done and has_state)
        menu.addSeparator()
        menu.addAction("Open folder", self._open_folder).setEnabled(one)
        menu.addAction("Open best checkpoint in inspectors", self._open_checkpoint).setEnabled(
            one and states[0].best_checkpoint_path() is not None)
        menu.addAction("Predict on a file…", self._predict_on_file).setEnabled(
            one and states[0].best_checkpoint_path() is not None)
        from explorer.core.specs.tasks import is_qa_task, is_single_label_table

        two = len(states) == 2 and all(s.best_checkpoint_path() is not None and is_qa_task(s.task) for s in states)
        compare = menu.addAction("Compare on one example…", self._compare_two)
        compare.setEnabled(two)
        compare.setToolTip("Two QA runs' best checkpoints on the Attention page's example: A, B and B − A attention")
        classifiers = menu.addAction(COMPARE_CLASSIFIERS_ACTION, self._compare_classifiers)
        classifiers.setEnabled(len(states) == 2 and all(s.best_checkpoint_path() is not None
                                                         and is_single_label_table(s.task) for s in states))
        classifiers.setToolTip("Both runs' best checkpoints on the first run's dev rows: the difference in accuracy "
                               "and macro F1 with a paired bootstrap interval, and McNemar's exact test")
        menu.addSeparator()
        menu.addAction("Export scalars to CSV…", self.export_csv_selected).setEnabled(
            any(s.path is not None for s in states))
        return menu

    def export_csv_selected(self, path: str | None = None, wide: bool | None = None) -> bool:
        """Every selected run's scalars in one CSV (core.runs.tensorboard.export_runs_csv, on a worker thread):
        long (run, step, name, value) or wide (one row per run and step); asks where (and which) when
        ``path`` is None. Returns whether an export was started."""
        folders = [str(s.path) for s in self._selected_states() if s.path is not None]
        if not folders:
            self.message.emit("Select the runs to export first")
            return False
        if path is None:
            path, chosen = QFileDialog.getSaveFileName(self, "Export the selected runs' scalars", "runs.csv",
                                                       ";;".join(CSV_FILTERS))
            if not path:
                return False
            wide = chosen == CSV_FILTERS[1] if wide is None else wide
        from explorer.core.runs.tensorboard import export_runs_csv

        def done(counts) -> None:
            rows, runs = counts
            self.message.emit(f"Wrote {rows} rows of {runs} run{'s' if runs != 1 else ''} to {path}")

        run_in_thread(export_runs_csv, folders, path, wide=bool(wide), on_done=done, owner=self,
                      on_error=lambda msg, _tb: QMessageBox.warning(self, "Export scalars", f"{path}: {msg}"))
        return True

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
        menu.addSeparator()
        menu.addAction("Rename group…", self.rename_selected).setEnabled(self.runs_dir() is not None)
        menu.addAction("Delete group…", self.delete_selected).setEnabled(self.runs_dir() is not None and not live)
        return menu

    def rename_group(self, name: str) -> bool:
        """Ask for a new group name; renames .groups/<name> and its group.json (members keep their ids)."""
        from explorer.core.studies.groups import GroupError, rename_group

        new, ok = QInputDialog.getText(self, "Rename group", f"New name for group {name} (letters, digits, . _ -):",
                                       text=name)
        if not ok or not new.strip() or new.strip() == name:
            return False
        try:
            rename_group(self.runs_dir(), name, new)
        except (GroupError, OSError) as exc:
            QMessageBox.warning(self, "Cannot rename group", str(exc))
            return False
        self.reload_groups()
        self.select_group(new.strip())
        return True

    def delete_group(self, name: str) -> bool:
        """After a confirmation, move the group's member runs and its group folder to .trash."""
        from explorer.core.studies.groups import GroupError, trash_group_folder

        row = self.model.group_row(name)
        if row is None or self.runs_dir() is None:
            return False
        members = [s for s in row.states if s is not None]
        if any(s.is_live for s in members):
            QMessageBox.information(self, "Group is active", f"Stop or cancel the live runs of {name} first.")
            return False
        size = sum(self.model.sizes.get(s.run_id, 0) for s in members)
        answer = QMessageBox.question(
            self, "Delete group", f"Delete group {name}: its group file and {len(members)} member run(s) "
            f"({format_size(size) or 'size unknown'})?\n\nThe folders move to .trash in the runs folder (delete it "
            "by hand to free the space).",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, QMessageBox.StandardButton.No)
        if answer != QMessageBox.StandardButton.Yes:
            return False
        failed = []
        for s in members:
            if s.path is None:
                continue
            try:
                trash_run(s.path)
            except OSError as exc:
                failed.append(f"{s.run_id}: {exc}")
                continue
            self._forget(s.run_id)
        if failed:   # the group file stays, so what is left stays grouped
            QMessageBox.warning(self, "Cannot delete", "Some runs could not be moved:\n" + "\n".join(failed))
        else:
            try:
                trash_group_folder(self.runs_dir(), name)
            except (GroupError, OSError) as exc:
                QMessageBox.warning(self, "Cannot delete", str(exc))
        self.reload_groups()
        self.message.emit(f"Deleted group {name} ({len(members) - len(failed)} run(s) moved to .trash)")
        self._update_buttons()
        return True

    def rename_selected(self) -> bool:
        groups = self.selected_groups()
        if groups and not self.selected_ids():
            return self.rename_group(groups[0]) if len(groups) == 1 else False
        states = self._selected_states()
        if len(states) != 1 or states[0].path is None:
            return False
        s = states[0]
        current = self.model.stored_names.get(s.run_id, "") or self.model.names.get(s.run_id, "")
        name, ok = QInputDialog.getText(self, "Rename run", f"Name for {s.run_id} (empty: the automatic name):",
                                        text=current)
        if not ok:
            return False
        try:
            set_display_name(s.path, name)
        except OSError as exc:
            QMessageBox.warning(self, "Cannot rename", f"Cannot write {s.path / 'run.json'}: {exc}")
            return False
        if name.strip():
            self.model.stored_names[s.run_id] = name.strip()
        else:
            self.model.stored_names.pop(s.run_id, None)
        self.model.update_names()
        self.renamed.emit(s.run_id)
        return True

    def name_of(self, run_id: str) -> str:
        """The name the list shows for a run (the user's, else the short automatic one, else its id)."""
        return self.model.names.get(run_id) or run_id

    def delete_selected(self) -> bool:
        groups = self.selected_groups()
        if groups and not self.selected_ids():
            return self.delete_group(groups[0]) if len(groups) == 1 else False
        states = [s for s in self._selected_states() if s.path is not None]
        if not states:
            return False
        if any(s.is_live for s in states):
            QMessageBox.information(self, "Run is active", "Stop or cancel a live run before deleting it.")
            return False
        size = sum(self.model.sizes.get(s.run_id, 0) for s in states)
        names = "\n".join(f"  {s.run_id}" for s in states[:8]) + ("\n  …" if len(states) > 8 else "")
        answer = QMessageBox.question(
            self, "Delete runs", f"Delete {len(states)} run(s) ({format_size(size) or 'size unknown'})?\n{names}\n\n"
            "Their folders move to .trash in the runs folder (delete it by hand to free the space).",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, QMessageBox.StandardButton.No)
        if answer != QMessageBox.StandardButton.Yes:
            return False
        for s in states:
            try:
                trash_run(s.path)
            except OSError as exc:
                QMessageBox.warning(self, "Cannot delete", f"Cannot move {s.path} to the trash: {exc}")
                continue
            self._forget(s.run_id)
        self._update_buttons()
        return True

    def keep_only_best_selected(self) -> bool:
        return self._clean_up("Keep only the best checkpoint", keep_only_best,
                              "Removes checkpoints/last (the run can no longer be resumed); checkpoints/best stays.")

    def delete_optimizer_state_selected(self) -> bool:
        return self._clean_up("Delete optimizer state", delete_optimizer_state,
                              "Removes training_state.pt (optimizer, scheduler and random states) from the "
                              "checkpoints; they stay usable as models but the run can no longer be resumed.")

    def _clean_up(self, title: str, fn, what: str) -> bool:
        states = self._selected_states()
        if len(states) != 1 or states[0].path is None or states[0].status not in FINISHED or states[0].kind != OURS:
            return False
        s = states[0]
        size = format_size(self.model.sizes.get(s.run_id))
        if QMessageBox.question(self, title, f"{s.run_id} ({size or 'size unknown'}): {what}\n\nGo ahead?",
                                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                                QMessageBox.StandardButton.No) != QMessageBox.StandardButton.Yes:
            return False

        def done(sizes) -> None:
            before, after = sizes
            self.model.set_size(s.run_id, after)
            self.message.emit(f"{title}: {s.run_id} {format_size(before)} -> {format_size(after)}")

        run_in_thread(fn, s.path, on_done=done, owner=self,
                      on_error=lambda msg, _tb: QMessageBox.warning(self, title, f"{s.path}: {msg}"))
        return True

    def _selection_changed(self, *_args) -> None:
        self._update_buttons()
        ids, groups = self.selected_ids(), self.selected_groups()
        self.selection_changed.emit(ids)
        if groups and not ids:
            self.group_selected.emit(groups[0])

    def _update_buttons(self) -> None:
        self.note.setText(LOADING_TEXT if self.loading else "" if self.model.rows else EMPTY_TEXT)
        self.note.setVisible(self.loading or not self.model.rows)
        states = self._selected_states()
        live = any(s.is_live for s in states)
        self.stop_btn.setEnabled(any(s.status in ("running", "starting") for s in states))
        self.cancel_btn.setEnabled(live)
        self.folder_btn.setEnabled(len(states) == 1 and states[0].path is not None)
        self.inspect_btn.setEnabled(len(states) == 1 and states[0].best_checkpoint_path() is not None)
        self.inspect_btn.setToolTip(rich_tooltip(self.inspect_tip(states)))
        failed = [s for s in states if s.status == "failed"]
        self.error_btn.setEnabled(bool(failed))
        if failed:
            s = failed[0]
            self.error_label.setText(f"<b>{s.run_id} failed:</b> {_escape(s.error)} "
                                     f"<span style='color:#666'>(Show error… for the traceback)</span>")
            self.error_label.show()
        else:
            self.error_label.hide()


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

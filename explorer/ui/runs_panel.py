"""The Runs list: every run under the runs folder, past and live, with its status and best metric.

Selecting runs (Ctrl/Shift-click for several) shows them in Curves. Buttons: stop early, cancel,
open the run folder, open the best checkpoint in the inspectors, show the error of a failed run
(with the traceback and the worker's stderr one click away).
"""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QAction, QColor
from PySide6.QtWidgets import (QAbstractItemView, QDialog, QDialogButtonBox, QHBoxLayout, QHeaderView, QLabel,
                               QPlainTextEdit, QPushButton, QTableView, QVBoxLayout, QWidget)

from explorer.ui.run_state import RunState, format_seconds

COLUMNS = ("Run", "Status", "Best dev", "Duration", "Step", "Task", "Model")
# hidden at start, so the narrow dock needs no horizontal scrolling; the header's context menu shows them and
# the Run tooltip lists them
HIDDEN_COLUMNS = ("Duration", "Step", "Task", "Model")
HEADER_TIPS = {"Best dev": "The dev metric that picks checkpoints/best (best_f1 for SQuAD 2.0, f1 for SQuAD 1.1, "
                           "accuracy for classification), in percent, and the step of checkpoints/best: a tie "
                           "keeps the earlier step, the untrained model at step 0 is never saved. After '·': "
                           "the trivial baseline on the same dev data (all no-answer / majority class).",
               "Duration": "Wall-clock time from start to end (still counting while the run is live).",
               "Step": "Optimizer steps done / planned."}
STATUS_COLORS = {"running": "#0a58ca", "starting": "#0a58ca", "stopping": "#b35c00", "cancelling": "#b35c00",
                 "queued": "#6c757d", "finished": "#19692c", "stopped": "#19692c", "failed": "#b02a37",
                 "cancelled": "#6c757d", "crashed": "#b02a37"}
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
    "crashed": "the event log ends without a result and no worker process is alive",
}


class RunsModel(QAbstractTableModel):
    """Rows = RunState objects (shared with the curves; the model only reads them)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.rows: list[RunState] = []

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802 - Qt API
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole:
            return HEADER_TIPS.get(COLUMNS[section])
        return None

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        s = self.rows[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(s, col)
        if role == Qt.ItemDataRole.UserRole:   # sort key
            return self._sort_key(s, col)
        if role == Qt.ItemDataRole.ForegroundRole and COLUMNS[col] == "Status":
            return QColor(STATUS_COLORS.get(s.status, "#222"))
        if role == Qt.ItemDataRole.ToolTipRole:
            if COLUMNS[col] == "Status":
                tip = STATUS_TIPS.get(s.status, s.status)
                tip = f"{tip}\n{s.error}" if s.error else tip
                return tip + "".join(f"\nnote: {n}" for n in s.read_notes)
            if COLUMNS[col] == "Run":
                return (f"{s.run_id}\n{s.path or ''}\ntask: {s.task}\nmodel: {s.model}\n"
                        f"duration: {self._text(s, COLUMNS.index('Duration')) or '-'}\n"
                        f"step: {self._text(s, COLUMNS.index('Step')) or '-'}\n"
                        f"device: {s.device} {s.mixed_precision}")
            return self._text(s, col)
        return None

    @staticmethod
    def _text(s: RunState, col: int) -> str:
        name = COLUMNS[col]
        if name == "Run":
            return s.run_id
        if name == "Status":
            return s.status
        if name == "Model":
            return s.model
        if name == "Task":
            return s.task
        if name == "Best dev":
            return s.best_text()
        if name == "Duration":
            return format_seconds(s.live_elapsed()) if s.status != "queued" else ""
        if name == "Step":
            if not s.step and not s.steps_total:
                return ""
            return f"{s.step}/{s.steps_total}" if s.steps_total else str(s.step)
        return ""

    @staticmethod
    def _sort_key(s: RunState, col: int):
        name = COLUMNS[col]
        if name == "Best dev":
            best = s.best_metric()
            return best[1] if best else -1.0
        if name == "Duration":
            return s.live_elapsed() or 0.0
        if name == "Step":
            return s.step
        return RunsModel._text(s, col)

    def upsert(self, state: RunState) -> None:
        """Add a run or replace the row with the same run_id."""
        for i, s in enumerate(self.rows):
            if s.run_id == state.run_id:
                self.rows[i] = state
                self.dataChanged.emit(self.index(i, 0), self.index(i, len(COLUMNS) - 1))
                return
        self.beginInsertRows(QModelIndex(), len(self.rows), len(self.rows))
        self.rows.append(state)
        self.endInsertRows()

    def refresh(self, run_id: str) -> None:
        for i, s in enumerate(self.rows):
            if s.run_id == run_id:
                self.dataChanged.emit(self.index(i, 0), self.index(i, len(COLUMNS) - 1))

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


class RunsPanel(QWidget):
    """Table of runs + actions. Emits requests; the main window acts on them."""

    selection_changed = Signal(list)        # run ids, in table order
    stop_requested = Signal(str)
    cancel_requested = Signal(str)
    open_folder_requested = Signal(str)     # run id
    open_checkpoint_requested = Signal(str)  # checkpoint folder
    refresh_requested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.model = RunsModel(self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(Qt.ItemDataRole.UserRole)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setSortingEnabled(True)
        self.table.verticalHeader().setVisible(False)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)   # keeps date and task of long run ids
        # the run name takes the free width (elided in the middle); the short columns fit their contents and
        # headers; HIDDEN_COLUMNS start hidden: right-click the header to show them
        hh = self.table.horizontalHeader()
        hh.setStretchLastSection(False)
        hh.setMinimumSectionSize(40)
        for col, name in enumerate(COLUMNS):
            hh.setSectionResizeMode(col, QHeaderView.ResizeMode.Stretch if name == "Run"
                                    else QHeaderView.ResizeMode.ResizeToContents)
        hh.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        for col, name in enumerate(COLUMNS[1:], start=1):
            act = QAction(f"Show {name}", hh)
            act.setCheckable(True)
            act.setChecked(name not in HIDDEN_COLUMNS)
            act.toggled.connect(lambda on, c=col: self.table.setColumnHidden(c, not on))
            hh.addAction(act)
            self.table.setColumnHidden(col, name in HIDDEN_COLUMNS)
        self.table.selectionModel().selectionChanged.connect(self._selection_changed)
        self.table.doubleClicked.connect(self._double_clicked)

        self.stop_btn = QPushButton("Stop early")
        self.stop_btn.setToolTip("Graceful: the worker finishes the current step, saves a checkpoint and evaluates.")
        self.cancel_btn = QPushButton("Cancel")
        self.cancel_btn.setToolTip("Terminate the worker now (queued runs are dropped). No final evaluation.")
        self.folder_btn = QPushButton("Open folder")
        self.folder_btn.setToolTip("Open the run folder (config.json, events.jsonl, checkpoints/) in the file manager.")
        self.inspect_btn = QPushButton("Open best checkpoint in inspectors")
        self.inspect_btn.setToolTip("Load checkpoints/best (else last) of the selected run into the Attention "
                                    "and Spans && τ panels.")
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
        lay.addWidget(self.table, 1)
        lay.addWidget(self.error_label)
        lay.addLayout(row1)
        lay.addLayout(row2)
        lay.addWidget(self.note)

        self.stop_btn.clicked.connect(lambda: self._each_selected(self.stop_requested))
        self.cancel_btn.clicked.connect(lambda: self._each_selected(self.cancel_requested))
        self.folder_btn.clicked.connect(self._open_folder)
        self.inspect_btn.clicked.connect(self._open_checkpoint)
        self.error_btn.clicked.connect(self.show_error)
        self.refresh_btn.clicked.connect(self.refresh_requested)
        self._update_buttons()

    # ---- rows ----------------------------------------------------------------------------
    def upsert(self, state: RunState) -> None:
        self.model.upsert(state)
        self._update_buttons()

    def refresh(self, run_id: str) -> None:
        self.model.refresh(run_id)
        if run_id in self.selected_ids():
            self._update_buttons()

    def state(self, run_id: str) -> RunState | None:
        return self.model.find(run_id)

    def all_ids(self) -> list[str]:
        return [s.run_id for s in self.model.rows]

    def selected_ids(self) -> list[str]:
        rows = sorted({self.proxy.mapToSource(i).row() for i in self.table.selectionModel().selectedRows()})
        return [self.model.rows[r].run_id for r in rows]

    def select(self, run_ids: list[str]) -> None:
        """Select exactly these runs (emits selection_changed)."""
        sm = self.table.selectionModel()
        sm.clearSelection()
        from PySide6.QtCore import QItemSelectionModel
        for i, s in enumerate(self.model.rows):
            if s.run_id in run_ids:
                idx = self.proxy.mapFromSource(self.model.index(i, 0))
                sm.select(idx, QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows)
        # selectionChanged already reported it (once)

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
        s = self.model.rows[self.proxy.mapToSource(index).row()]
        if s.status == "failed":
            self.show_error()

    def _selection_changed(self, *_args) -> None:
        self._update_buttons()
        self.selection_changed.emit(self.selected_ids())

    def _update_buttons(self) -> None:
        self.note.setText("" if self.model.rows else
                          "No runs in this folder yet: launch one from the Launch tab (Ctrl+Return), or open a "
                          "run folder from disk (Ctrl+O).")
        self.note.setVisible(not self.model.rows)
        states = self._selected_states()
        live = any(s.is_live for s in states)
        self.stop_btn.setEnabled(any(s.status in ("running", "starting") for s in states))
        self.cancel_btn.setEnabled(live)
        self.folder_btn.setEnabled(len(states) == 1 and states[0].path is not None)
        self.inspect_btn.setEnabled(len(states) == 1 and states[0].best_checkpoint_path() is not None)
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

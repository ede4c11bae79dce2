"""The Runs list: every run under the runs folder, past and live, with its status, best metric and size.

Each run shows a short readable name (what differs from the runs of its group, or the name the user
gave it; explorer.ui.run_names) with the full id in the tooltip. Selecting runs (Ctrl/Shift-click for
several) shows them in Curves. Buttons: stop early, cancel, open the run folder, open the best
checkpoint in the inspectors, show the error of a failed run. The context menu adds rename (F2),
delete (Delete; moved to the runs folder's .trash), and for finished runs "keep only best checkpoint"
and "delete optimizer state" (sizes before and after). While the folder is read, the list says so.
"""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QItemSelectionModel, QModelIndex, QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QAction, QColor, QKeySequence, QShortcut
from PySide6.QtWidgets import (QAbstractItemView, QDialog, QDialogButtonBox, QHBoxLayout, QHeaderView,
                               QInputDialog, QLabel, QMenu, QMessageBox, QPlainTextEdit, QPushButton, QTableView,
                               QVBoxLayout, QWidget)

from explorer.ui.run_disk import delete_optimizer_state, format_size, keep_only_best, optimizer_state_files, trash_run
from explorer.ui.run_names import set_display_name, short_names
from explorer.ui.run_state import RunState, format_seconds
from explorer.ui.tasks import run_in_thread
from explorer.ui.tooltips import rich_tooltip

COLUMNS = ("Run", "Status", "Best dev", "Size", "Duration", "Step", "Task", "Model")
# hidden at start, so the narrow dock needs no horizontal scrolling; the header's context menu shows them and
# the Run tooltip lists them
HIDDEN_COLUMNS = ("Duration", "Step", "Task", "Model")
HEADER_TIPS = {"Best dev": "The dev metric that picks checkpoints/best (best_f1 for SQuAD 2.0, f1 for SQuAD 1.1, "
                           "accuracy for classification), in percent, and the step of checkpoints/best: a tie "
                           "keeps the earlier step, the untrained model at step 0 is never saved. After '·': "
                           "the trivial baseline on the same dev data (all no-answer / majority class).",
               "Duration": "Wall-clock time from start to end (still counting while the run is live).",
               "Step": "Optimizer steps done / planned.",
               "Size": "Disk space of the run folder (checkpoints/last and best with optimizer state are most "
                       "of it). Right-click a finished run to keep only its best checkpoint or drop the "
                       "optimizer state."}
FINISHED = ("finished", "stopped", "failed", "cancelled", "crashed")
LOADING_TEXT = "Loading runs…"
EMPTY_TEXT = ("No runs in this folder yet: launch one from the Launch tab (Ctrl+Return there), or open a run "
              "folder from disk (Ctrl+O).")
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
    "cancelled (queued)": "cancelled while it waited in the queue: it never started (its config is kept)",
    "crashed": "the event log ends without a result and no worker process is alive",
}


class RunsModel(QAbstractTableModel):
    """Rows = RunState objects (shared with the curves; the model only reads them)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.rows: list[RunState] = []
        self.names: dict[str, str] = {}       # run_id -> short readable name (explorer.ui.run_names)
        self.stored_names: dict[str, str] = {}   # run_id -> the user's name (run.json)
        self.sizes: dict[str, int] = {}       # run_id -> bytes on disk

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
            return rich_tooltip(self._tooltip(s, col))
        return None

    def _tooltip(self, s: RunState, col: int) -> str:
        if COLUMNS[col] == "Status":
            tip = STATUS_TIPS.get(self.status_text(s), s.status)
            tip = f"{tip}\n{s.error}" if s.error else tip
            return tip + "".join(f"\nnote: {n}" for n in s.read_notes)
        if COLUMNS[col] == "Run":
            cfg = s.config
            return (f"{s.run_id}\n{s.path or ''}\ntask: {s.task}\nmodel: {s.model}\n"
                    f"lr {cfg.get('learning_rate', '-')} · batch {cfg.get('batch_size', '-')} · "
                    f"epochs {cfg.get('epochs', '-')} · seed {cfg.get('seed', '-')}\n"
                    f"duration: {self._text(s, COLUMNS.index('Duration')) or '-'}\n"
                    f"step: {self._text(s, COLUMNS.index('Step')) or '-'}\n"
                    f"device: {s.device} {s.mixed_precision}\n(F2 renames, Delete deletes)")
        return self._text(s, col)

    @staticmethod
    def status_text(s: RunState) -> str:
        """The status as listed: 'cancelled (queued)' for a run cancelled before it ever started."""
        if s.status == "cancelled" and s.started_at is None and not s.step:
            return "cancelled (queued)"
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
            return s.best_text()
        if name == "Duration":
            return format_seconds(s.live_elapsed()) if s.status != "queued" else ""
        if name == "Step":
            if not s.step and not s.steps_total:
                return ""
            return f"{s.step}/{s.steps_total}" if s.steps_total else str(s.step)
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
        """Add a run or replace the row with the same run_id (names are recomputed when a run is new)."""
        for i, s in enumerate(self.rows):
            if s.run_id == state.run_id:
                self.rows[i] = state
                self.dataChanged.emit(self.index(i, 0), self.index(i, len(COLUMNS) - 1))
                return
        self.beginInsertRows(QModelIndex(), len(self.rows), len(self.rows))
        self.rows.append(state)
        self.endInsertRows()
        self.update_names()

    def remove(self, run_id: str) -> None:
        for i, s in enumerate(self.rows):
            if s.run_id == run_id:
                self.beginRemoveRows(QModelIndex(), i, i)
                del self.rows[i]
                self.endRemoveRows()
                self.update_names()
                return

    def update_names(self) -> None:
        """Recompute every row's short name (what differs within its group changes as runs come and go)."""
        self.names = short_names({s.run_id: s.config for s in self.rows}, self.stored_names)
        if self.rows:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.rows) - 1, 0))

    def set_size(self, run_id: str, size: int) -> None:
        self.sizes[run_id] = size
        self.refresh(run_id)

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
    removed = Signal(str)                   # run id, after its folder went to the trash
    message = Signal(str)                   # a one-line status for the status bar

    def __init__(self, parent=None):
        super().__init__(parent)
        self.loading = False
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
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setSortingEnabled(True)
        self.table.verticalHeader().setVisible(False)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)   # short names: the differing part comes first
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        # the run name takes the free width; the short columns fit their contents and headers (never clipped);
        # HIDDEN_COLUMNS start hidden: right-click the header to show them
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

    def _build_buttons(self) -> None:
        self.stop_btn = QPushButton("Stop early")
        self.stop_btn.setToolTip("Graceful: the worker finishes the current step, saves a checkpoint and evaluates.")
        self.cancel_btn = QPushButton("Cancel")
        self.cancel_btn.setToolTip("Terminate the worker now (a queued run is listed as cancelled). "
                                   "No final evaluation.")
        self.folder_btn = QPushButton("Open folder")
        self.folder_btn.setToolTip("Open the run folder (config.json, events.jsonl, checkpoints/) in the file manager.")
        self.inspect_btn = QPushButton("Open best checkpoint in inspectors")
        self.inspect_btn.setToolTip("Load checkpoints/best (else last) of the selected run into the Attention "
                                    "and Spans && τ panels, with a question and passage from the run's dev data.")
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

    # ---- rows ----------------------------------------------------------------------------
    def set_loading(self, loading: bool) -> None:
        """While the runs folder is read, say so (never "no runs" before the read is done)."""
        self.loading = loading
        self._update_buttons()

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
        rows = sorted({self.proxy.mapToSource(i).row() for i in self.table.selectionModel().selectedRows()})
        return [self.model.rows[r].run_id for r in rows]

    def select(self, run_ids: list[str]) -> None:
        """Select exactly these runs (emits selection_changed)."""
        sm = self.table.selectionModel()
        sm.clearSelection()
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

    def _context_menu(self, pos) -> QMenu | None:
        states = self._selected_states()
        if not states:
            return None
        menu = self.context_menu(states)
        menu.popup(self.table.viewport().mapToGlobal(pos))
        return menu

    def context_menu(self, states: list[RunState]) -> QMenu:
        """The menu for the selected runs (built, not shown: tests read its actions)."""
        menu = QMenu(self)
        one = len(states) == 1
        done = all(s.status in FINISHED and s.path is not None for s in states)
        menu.addAction("Rename…", self.rename_selected).setEnabled(one and states[0].path is not None)
        menu.addAction("Delete…", self.delete_selected).setEnabled(done)
        menu.addSeparator()
        best = one and states[0].path is not None and (states[0].path / "checkpoints" / "best").is_dir()
        menu.addAction("Keep only best checkpoint…", self.keep_only_best_selected).setEnabled(done and best)
        has_state = one and states[0].path is not None and bool(optimizer_state_files(states[0].path))
        menu.addAction("Delete optimizer state…", self.delete_optimizer_state_selected).setEnabled(done and has_state)
        menu.addSeparator()
        menu.addAction("Open folder", self._open_folder).setEnabled(one)
        menu.addAction("Open best checkpoint in inspectors", self._open_checkpoint).setEnabled(
            one and states[0].best_checkpoint_path() is not None)
        return menu

    def rename_selected(self) -> bool:
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
        return True

    def delete_selected(self) -> bool:
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
            self.model.remove(s.run_id)
            self.removed.emit(s.run_id)
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
        if len(states) != 1 or states[0].path is None or states[0].status not in FINISHED:
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
        self.selection_changed.emit(self.selected_ids())

    def _update_buttons(self) -> None:
        self.note.setText(LOADING_TEXT if self.loading else "" if self.model.rows else EMPTY_TEXT)
        self.note.setVisible(self.loading or not self.model.rows)
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

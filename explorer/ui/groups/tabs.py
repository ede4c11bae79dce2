"""The "Groups" and "Compare" tabs and their hook into the main window (``install(window)``).

Groups tab: the run groups of the runs folder (explorer/core/studies/groups.py), one expandable row per group
(members and their status below it), the selected group in a GroupView; "Export report…" writes the
report folder. Compare tab: checkpoint A, B, a SQuAD dev file and a cap; "Compare" runs
``python -m explorer compare ... --out <folder>`` as a child process (the forward passes never run in
the GUI process) and shows the folder's comparison.json in a CompareView; a double-click on a
disagreement opens the question in Spans & τ for both checkpoints side by side (PairSpansView, the
"A | B" page), from where either side opens in the Spans & τ inspector.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QProcess, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QFormLayout, QFrame, QHBoxLayout, QLabel, QLineEdit, QPushButton, QScrollArea, \
    QSpinBox, QSplitter, QTabWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from explorer.paths import REPO_ROOT
from explorer.ui.groups.compare_spans import PairSpansView
from explorer.ui.groups.compare_view import CompareView
from explorer.ui.groups.compare_words import SWAP_KEYS
from explorer.ui.groups.cv_dialog import CrossValidateDialog
from explorer.ui.groups.fold_prediction import FoldPrediction
from explorer.ui.groups.follow import CANCEL_TIP, GroupFollower
from explorer.ui.groups.hooks import queue_group
from explorer.ui.groups.live_members import shown_status, status_after_change, with_live_status
from explorer.ui.groups.member_tree import MemberTree
from explorer.ui.groups.new_group_fields import NewGroupFields
from explorer.ui.groups.view import GroupView
from explorer.ui.inspectors.job_bar import JobBar
from explorer.ui.inspectors.registry import COMPARE_PAGE, GROUPS_PAGE, SPANS
from explorer.ui.launch.form_model import WARNING_COLOR
from explorer.ui.shell.file_dialogs import EXPORT_KIND, open_folder
from explorer.ui.shell.tasks import run_in_thread


class GroupsTab(QWidget):
    """Groups of ``runs_dir`` on the left (expandable rows), the selected one in a GroupView.

    ``queue_requested(kind)`` ("restarts" | "grid" | "cv"): the user asked for a new group (install() plans it
    from the Launch tab's settings with :meth:`plan_group` and queues it). ``group_shown(name)``: a group
    read off the GUI thread is on screen."""

    queue_requested = Signal(str)
    group_shown = Signal(str)   # a group read by show_group is on screen
    listed = Signal()           # the list of groups was re-read
    folds_predicted = Signal(str)   # a group's held-out rows are predicted: its pooled figures are on disk

    def __init__(self, runs_dir: str | Path, parent=None):
        super().__init__(parent)
        self.runs_dir = Path(runs_dir)
        self.request = self.list_request = 0
        self.cv_note = ""   # "N examples, fold sizes ..." of the last cv group made here
        self._cv_said: set[str] = set()   # the refusal shown under the list for the Launch tab's form then
        self.live_of = None   # run id -> the window's run list's status (watch_runs), for queued and live members
        self._watched = None  # the StoreBridge watched
        self._member_items: dict[str, list[QTreeWidgetItem]] = {}   # run id -> its rows in the tree
        self._queued_name: str | None = None   # a group just queued here: its row is selected once listed
        self._quiet_request = 0   # a show_group request that leaves the line under the list as it is
        self.tree = MemberTree()
        self.tree.itemSelectionChanged.connect(self._selected)
        self.view = GroupView()
        self.message = QLabel("")
        self.message.setWordWrap(True)
        self.message.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.group_bar = JobBar("runs", cancel_tip=CANCEL_TIP)   # a group queued here: its progress and Cancel
        self.follower: GroupFollower | None = None
        self.oof_bar = JobBar("held-out rows", cancel_tip="Stop predicting; the folds or sizes predicted so far "
                                                         "stay (selecting the group again continues)")
        self.folds = FoldPrediction(self.runs_dir, self.oof_bar, self.message.setText, self)
        self.folds.predicted.connect(self._folds_predicted)
        self.fields = NewGroupFields(self.message, self)   # the new group's name, restarts and seeds
        self.group_name, self.restarts, self.seeds = self.fields.name, self.fields.restarts, self.fields.seeds
        self.queue_restarts, self.queue_grid = QPushButton("Queue restarts"), QPushButton("Queue paper grid")
        for b in (self.queue_restarts, self.queue_grid):
            b.setToolTip("Queue a named group of runs with the settings of the Launch tab "
                         "(restarts: generated seeds; grid: batch_size x learning_rate x epochs)")
        self.queue_restarts.clicked.connect(lambda: self.queue_requested.emit("restarts"))
        self.queue_cv = QPushButton("Cross-validate…")
        self.queue_cv.setToolTip("K-fold cross-validation of the Launch tab's training file with its settings: one "
                                 "run per fold, then the pooled out-of-fold figure (classification tables)")
        self.queue_cv.clicked.connect(lambda: self.queue_requested.emit("cv"))
        self.queue_curve = QPushButton("Learning curve…")
        self.queue_curve.setToolTip("How many labels are enough: one run on 12.5, 25, 50 and 100% of the Launch tab's "
                                    "training rows (nested, stratified), all scored on the same dev rows, beside a "
                                    "TF-IDF baseline; then the fitted curve's next doubling")
        self.queue_curve.clicked.connect(lambda: self.queue_requested.emit("curve"))
        self.queue_grid.clicked.connect(lambda: self.queue_requested.emit("grid"))
        refresh, export = QPushButton("Refresh"), QPushButton("Export report…")
        refresh.clicked.connect(self.refresh)
        export.clicked.connect(self._ask_export)
        left = QWidget()
        lay = QVBoxLayout(left)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.tree, 1)
        queue = QHBoxLayout()
        queue.addWidget(self.group_name, 1)
        queue.addWidget(self.restarts)
        lay.addLayout(queue)
        lay.addWidget(self.seeds)
        queue2 = QHBoxLayout()
        queue2.addWidget(self.queue_restarts)
        queue2.addWidget(self.queue_grid)
        lay.addLayout(queue2)
        queue3 = QHBoxLayout()
        queue3.addWidget(self.queue_cv)
        queue3.addWidget(self.queue_curve)
        lay.addLayout(queue3)
        row = QHBoxLayout()
        row.addWidget(refresh)
        row.addWidget(export)
        lay.addLayout(row)
        lay.addWidget(self._message_area())
        split = QSplitter(Qt.Horizontal)
        split.addWidget(left)
        split.addWidget(self.view)
        split.setSizes([400, 1020])
        main = QVBoxLayout(self)
        main.addWidget(self.group_bar)
        main.addWidget(self.oof_bar)
        main.addWidget(split)
        self.refresh()

    def follow_group(self, name: str, run_ids: list[str], store_events) -> None:
        """Show the progress of group ``name`` just queued (members ``run_ids``) above the page, with Cancel;
        ``store_events``: the window's run store signals (explorer.ui.runs.bridge.StoreBridge)."""
        self.watch_runs(store_events)
        if self.follower is None:
            self.follower = GroupFollower(self.group_bar, store_events, self)
            self.follower.ended.connect(lambda text: (self.message.setText(text), self.refresh()))
        self.follower.follow(name, run_ids)
        # the group just queued is the one shown, without a click in the list (its row once the list has it)
        self._queued_name = name
        self.select_group(name, quiet=True)   # the Queued line under the list stays

    def watch_runs(self, store_events) -> None:
        """Show the members the window's runner has queued or runs with its status ("queued", "running"), not the
        folder's ("missing" before the folder exists), and follow them as they start and end; ``store_events``:
        the window's run store signals (explorer.ui.runs.bridge.StoreBridge). Once per bridge."""
        if self._watched is store_events:
            return
        self._watched = store_events
        self.live_of = lambda run_id: getattr(store_events.store.get(run_id), "status", None)
        store_events.added.connect(lambda state: self._live_changed(state.run_id))
        store_events.changed.connect(lambda run_id, _series: self._live_changed(run_id))
        store_events.ended.connect(lambda run_id, _status: self._member_ended(run_id))

    def _live_changed(self, run_id: str) -> None:
        """A run was listed or moved on: its rows in the tree read the status now shown (a queued member that
        starts reads "running"; a member trained from a terminal that the run list re-reads as ended reads its
        end, as in the run list); the group shown beside them is read again when the member's status changed."""
        live = self.live_of(run_id) if self.live_of is not None else None
        for item in self._member_items.get(run_id, ()):
            item.setData(1, Qt.UserRole, status_after_change(item.data(1, Qt.UserRole), live))   # ended since
            status = shown_status(run_id, item.data(1, Qt.UserRole), self.live_of)
            if item.text(1) != status:
                item.setText(1, status)
        group = self.view.group
        member = next((m for m in self.view.members if m.run_id == run_id), None) if group is not None else None
        if member is not None and shown_status(run_id, status_after_change(member.status, live),
                                               self.live_of) != member.status:
            self.show_group(group.name)

    def _member_ended(self, run_id: str) -> None:
        """A run ended: the groups are read again when it is a member of one (the tree's status, the summary
        of the group shown, and the held-out folds predicted once the last fold has ended); a member of a group
        not shown has its group read for that too (fold_prediction.FoldPrediction), so the pooled figure comes
        without showing the group."""
        group = self.view.group
        shown = group is not None and run_id in {m.run_id for m in group.members}
        items = self._member_items.get(run_id, ())
        if items or shown:
            self.refresh()
        name = items[0].data(0, Qt.UserRole) if items else None
        if name is not None and not shown and name not in self.folds.started:   # its last fold, another group shown
            run_in_thread(_read_group, self.runs_dir, name, owner=self,
                          on_done=lambda data: self.folds.start(data[0], with_live_status(data[1], data[2],
                                                                                          self.live_of)[0], data[3]))

    def _message_area(self) -> QScrollArea:
        """The message under the buttons in a box of fixed height (four lines, a longer one scrolls), so a
        message that grows or goes never moves the Queue buttons under the pointer."""
        area = QScrollArea()
        area.setWidget(self.message)
        area.setWidgetResizable(True)
        area.setFrameShape(QFrame.Shape.NoFrame)
        area.setFixedHeight(4 * self.message.fontMetrics().lineSpacing() + 6)
        return area

    def refresh(self) -> int:
        """Re-read the groups on a worker thread (a broken group.json is a line under the list, never an
        error dialog); ``listed`` follows. Returns the request number (older answers are dropped)."""
        self.list_request += 1
        request = self.list_request
        run_in_thread(read_groups, self.runs_dir, owner=self,
                      on_done=lambda data, r=request: self._fill_tree(r, *data),
                      on_error=lambda msg, _tb: self.message.setText(f"Cannot read the groups: {msg}"))
        return request

    def _fill_tree(self, request: int, listing: list, notes: list[str]) -> None:
        if request != self.list_request:
            return
        current = self.tree.currentItem()
        keep = current.data(0, Qt.UserRole) if current is not None else None
        names = [g.name for g, _states in listing]
        if self._queued_name in names:   # the group just queued: its row selected, as it is shown
            keep, self._queued_name = self._queued_name, None
        self.tree.blockSignals(True)
        self.tree.clear()
        self._member_items = {}
        from explorer.ui.groups.tree_cells import group_best_cell, member_cells

        for g, states in listing:
            figure, headline = group_best_cell(g.kind, states, self.live_of)   # as soon as a member has ended
            top = QTreeWidgetItem([g.name, f"{g.kind}, {len(g.members)} runs", figure])
            top.setData(0, Qt.UserRole, g.name)
            if headline:
                top.setToolTip(2, headline)
            for st in states:
                cells = member_cells(st, self.live_of)
                child = QTreeWidgetItem([st.member.run_id, cells.status, cells.best])
                child.setData(1, Qt.UserRole, st.status)   # the folder's status, under the runner's while it runs
                self._member_items.setdefault(st.member.run_id, []).append(child)
                child.setToolTip(0, st.member.run_id)
                if cells.best_tip:
                    child.setToolTip(2, cells.best_tip)
                if cells.warn:
                    child.setForeground(2, QColor(WARNING_COLOR))
                child.setData(0, Qt.UserRole, g.name)
                top.addChild(child)
            self.tree.addTopLevelItem(top)
            if g.name == keep:
                self.tree.setCurrentItem(top)
        self.tree.blockSignals(False)
        shown = self.view.group.name if self.view.group is not None else None
        if shown is not None and shown == keep and shown in names:
            self.show_group(shown)   # the summary beside the list follows the members' new states
        self.tree.expandAll()
        self.tree.fit_columns()   # the status and best columns fit the values listed now
        self.message.setText("\n".join(notes) if notes else
                             ("" if listing else "No groups yet: `bert-explorer group --group NAME --restarts 3 ...`"))
        if shown is None and len(names) == 1 and self.request == 0:   # the notes under the list stay
            self.show_group(names[0], quiet=True)   # the only group without a click ("no group: pick one" said nothing)
        self.listed.emit()

    def plan_group(self, kind: str, base):
        """(Group, configs) for a new group from ``base`` (a TrainConfig), written to group.json and each member's
        config to the group's configs folder (as a cv group's); the configs carry their run ids and the runs
        folder. Raises GroupError (bad/taken name)."""
        import dataclasses

        from explorer.core.studies.groups import (default_group_name, generate_seeds, plan_grid, plan_restarts,
                                                  write_group, write_member_configs)

        # an empty name box: the group names itself by the rule Cross-validate uses (the Queued line says the name)
        name = self.group_name.text().strip() or default_group_name(self.runs_dir, base.train, kind, base.run_id)
        base = dataclasses.replace(base, output_dir=str(self.runs_dir), run_id="")
        seeds = parse_seeds(self.seeds.text())
        if kind == "grid":
            group, configs = plan_grid(base, name, seeds or None)
        else:
            group, configs = plan_restarts(base, name, seeds or generate_seeds(self.restarts.value(), seed=base.seed))
        write_group(self.runs_dir, group)
        write_member_configs(self.runs_dir, group, configs)   # a run still queued at quit is offered again from it
        self.refresh()
        return group, configs

    def cross_validate(self, base, columns: list[str], estimate=None):
        """Ask K and a group column (CrossValidateDialog over ``columns``, the training file's columns) and
        make the cv group from ``base`` (the Launch tab's TrainConfig) with core.studies.cv_runs.start_cv_group, the
        function ``group --cv K`` uses: folds, fold files, group.json and member configs written. Returns
        (group, the K member configs) to queue, or None (cancelled, or a problem now shown under the list).
        ``estimate(k)``: the dialog's time estimate for K folds (None: none shown).
        Raises GroupError / UserError (a taken name, unusable data)."""
        import dataclasses

        from explorer.core.studies.cv_runs import (cv_cap_note, fold_checkpoints, load_cv_data, start_cv_group,
                                                   stratified_counts)
        from explorer.core.studies.groups import GROUP_FILE, default_group_name, group_dir

        problem = cv_problem(base)
        if problem or self.message.text() in self._cv_said:   # a refusal of an earlier form is stale now
            self.message.setText(problem or "")
            self._cv_said = {problem} if problem else set()
        if problem:
            return None
        name = self.group_name.text().strip() or default_group_name(self.runs_dir, base.train, "cv", base.run_id)
        if (group_dir(self.runs_dir, name) / GROUP_FILE).exists():
            self.message.setText(f"A group named {name} exists; type another name in the new group name box.")
            return None
        note = "; ".join(n for n in (cv_cap_note(base), fold_checkpoints(base)[1]) if n)   # the rows folded first
        # each fold's dev set is its held-out fold: the Launch tab's dev file / share / cap do not apply
        base = dataclasses.replace(base, output_dir=str(self.runs_dir), run_id="", dev="", dev_fraction=None,
                                   dev_cap=0)
        classes = stratified_counts(load_cv_data(base))   # the dialog names the classes rarer than K folds
        dialog = CrossValidateDialog(list(columns), Path(base.train).name, self, estimate=estimate, note=note,
                                     classes=classes)
        if dialog.exec() != CrossValidateDialog.DialogCode.Accepted:
            return None
        k, column = dialog.values()
        group, configs, note = start_cv_group(base, self.runs_dir, name, k, column)
        self.refresh()
        self.cv_note = note
        return group, configs

    def learning_curve(self, base, estimate=None):
        """Confirm and make a learning curve group from ``base`` (the Launch tab's TrainConfig) with
        core.studies.learning_curve.start_learning_curve, the function ``group --curve`` uses. ``estimate(sizes)``:
        the time the runs take (a sentence). Returns (group, configs) to queue, or None (cancelled, or a problem
        now shown under the list). Raises GroupError / UserError (a taken name, unusable data)."""
        from explorer.ui.groups.curve_dialog import confirm_learning_curve

        return confirm_learning_curve(self, base, estimate)

    def show_group(self, name: str, quiet: bool = False) -> int:
        """Read one group on a worker thread (every member's events: long runs take a while) and show it;
        members missing or killed are rows with that status. Returns the request number; ``group_shown``
        follows (an older request's answer is dropped). ``quiet``: the line under the list is left as it is (a
        group shown without a click: the Queued line or the list's notes stay), not "Reading group …" and then
        cleared."""

        self.request += 1
        request = self.request
        if self.follower is not None:   # the progress row follows the group shown when it is running
            self.follower.select(name)
        self._quiet_request = request if quiet else 0
        if not quiet:
            self.message.setText(f"Reading group {name}…")
        run_in_thread(_read_group, self.runs_dir, name, owner=self,
                      on_done=lambda data, r=request: self._group_read(r, data),
                      on_error=lambda msg, _tb, r=request: self._group_failed(r, msg))
        return request

    def _group_read(self, request: int, data) -> None:
        if request != self.request:
            return
        group, members, notes, pooled = data
        members, notes = with_live_status(members, notes, self.live_of)
        self.view.set_group(group, members, notes, pooled=pooled)
        if group.kind == "cv":   # the share of suspected label errors, once label_issues.json is written (small)
            from explorer.core.studies.label_issues import read_group_label_issues

            self.view.show_label_issues(read_group_label_issues(self.runs_dir, group.name))
        from explorer.ui.groups.group_baselines import group_baseline_lines

        self.view.show_baselines(group_baseline_lines(self.runs_dir, group, next((m.task for m in members if m.task),
                                                                                  None)))
        if request != self._quiet_request:
            self.message.setText("")
        self.folds.start(group, members, pooled)
        self.group_shown.emit(group.name)

    def _folds_predicted(self, name: str) -> None:
        self.message.setText(f"Held-out folds of {name} predicted.")
        self.folds_predicted.emit(name)
        if self.view.group is not None and self.view.group.name == name:
            self.show_group(name)

    def _group_failed(self, request: int, message: str) -> None:
        if request == self.request:   # GroupError: the file and what was wrong
            self.message.setText(message.split(": ", 1)[1] if message.startswith("GroupError: ") else message)

    def select_group(self, name: str, quiet: bool = False) -> None:
        """Select the group's row here (and show it); a group not listed yet is read and shown anyway.
        ``quiet``: as :meth:`show_group`'s."""
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            if item.data(0, Qt.UserRole) == name:
                if self.tree.currentItem() is not item:
                    self.tree.blockSignals(True)
                    self.tree.setCurrentItem(item)
                    self.tree.blockSignals(False)
                self.show_group(name, quiet)   # re-read when shown already: members may have moved on since
                return
        self.show_group(name, quiet)

    def _selected(self) -> None:
        items = self.tree.selectedItems()
        if items:
            self.show_group(items[0].data(0, Qt.UserRole))

    def _ask_export(self) -> None:
        if self.view.group is None:
            self.message.setText("Select a group first.")
            return
        folder = open_folder(self, "Export the group report into", EXPORT_KIND, into=True)
        if folder:
            out = self.view.export_report(Path(folder) / f"group-{self.view.group.name}")
            self.message.setText(f"Wrote {out / 'report.md'}")


def read_groups(runs_dir: Path) -> tuple[list, list[str]]:
    """([(Group, [MemberState])], notes) of a runs folder (worker thread: reads every member's events)."""
    from explorer.core.studies.groups import list_groups, read_group

    groups, notes = list_groups(runs_dir)
    listing = []
    for g in groups:
        try:
            listing.append(read_group(runs_dir, g.name))
        except ValueError as exc:
            notes.append(str(exc))
    return listing, notes


def compare_hint(source: str = "") -> str:
    """The Compare page's first line for checkpoint A ``source`` (ui.groups.compare_words.compare_hint: what it
    compares for that checkpoint's head, and where two classifiers are compared)."""
    from explorer.ui.groups.compare_words import compare_hint as hint_for
    from explorer.ui.runs.dock import COMPARE_CLASSIFIERS_ACTION

    return hint_for(_head_of(source), COMPARE_CLASSIFIERS_ACTION)


def _head_of(source: str):
    """The head of a local checkpoint from its config.json (core.specs.heads.recognise); None for none, a hub id
    or a folder that cannot be told."""
    from explorer.core.models.loading import resolve_source
    from explorer.core.specs.heads import recognise

    if not source:
        return None
    try:
        return recognise(resolve_source(source))
    except (ValueError, OSError):   # not a model here (ModelSourceError is a ValueError): told as none
        return None


def other_task_note(label: str, source: str) -> str:
    """Why checkpoint ``label`` ("A") cannot be compared here (core.models.loading.source_other_task_error), with the way
    to compare two classifiers for a classifier; "" for a QA checkpoint or one that cannot be told."""
    from explorer.core.models.loading import source_other_task_error
    from explorer.core.specs.heads import QA
    from explorer.ui.groups.compare_words import is_compared_on_dev_rows
    from explorer.ui.runs.dock import COMPARE_CLASSIFIERS_ACTION

    wrong = source_other_task_error(source, QA.model_head) if source else None
    if not wrong:
        return ""
    note = f"Checkpoint {label}: {wrong}."
    if is_compared_on_dev_rows(_head_of(source)):   # a text classifier: two compare on the Runs list
        note += (" To compare two classifiers: select both runs in the Runs list, right-click → "
                 f"{COMPARE_CLASSIFIERS_ACTION}")
    return note


class CompareTab(QWidget):
    """A/B/data form, a child process for the forward passes, and the CompareView. The page compares QA
    checkpoints only; it says so at its top and refuses another task's checkpoint with the way to compare two
    classifiers (opened with classifier runs it would otherwise be SQuAD-only without a word)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.hint = QLabel(compare_hint())
        self.hint.setWordWrap(True)
        self.hint.setStyleSheet("color: #555;")
        self.a, self.b, self.data = QLineEdit(), QLineEdit(), QLineEdit()
        self.a.setPlaceholderText("checkpoint folder, hub id or bundled:minilm")
        self.b.setPlaceholderText("checkpoint folder, hub id or bundled:minilm")
        self.data.setPlaceholderText("SQuAD dev JSON (v1.1 or v2.0)")
        self.cap = QSpinBox()
        self.cap.setRange(0, 1_000_000)
        self.cap.setValue(300)
        self.cap.setSpecialValueText("all")
        self.run_button, self.export_button = QPushButton("Compare"), QPushButton("Export report…")
        self.swap_button = QPushButton("Swap A ⇄ B")
        self.swap_button.setToolTip(f"Checkpoint A becomes B and B becomes A ({SWAP_KEYS}); a comparison shown is "
                                    "run again, so its B − A differences and the verdict follow")
        self.swap_button.clicked.connect(self.swap)
        self.run_button.clicked.connect(self.start)
        self.export_button.clicked.connect(self._ask_export)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        form = QFormLayout()
        form.addRow("Checkpoint A", self.a)
        form.addRow("Checkpoint B", self.b)
        form.addRow("Dev set", self.data)
        form.addRow("Questions (cap)", self.cap)
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.swap_button)
        buttons.addWidget(self.export_button)
        buttons.addWidget(self.status, 1)
        self.view = CompareView()
        self.pair = PairSpansView()
        self.pages = QTabWidget()
        self.pages.addTab(self.view, "Questions")
        self.pages.addTab(self.pair, "Spans && τ: A | B")
        self.view.row_requested.connect(self.open_row)
        lay = QVBoxLayout(self)
        lay.addWidget(self.hint)
        lay.addLayout(form)
        lay.addLayout(buttons)
        lay.addWidget(self.pages, 1)
        for label, field in (("A", self.a), ("B", self.b)):
            field.editingFinished.connect(lambda label=label, field=field: self._check_source(label, field))
        self.process: QProcess | None = None
        self.out_dir: Path | None = None
        self.stderr = ""

    def swap(self) -> None:
        """Checkpoint A becomes B and B becomes A; a comparison shown is run again the other way round (not while
        one runs), so its differences (B − A), its 2×2 table and its verdict follow."""
        a, b = self.a.text(), self.b.text()
        self.a.setText(b)
        self.b.setText(a)
        self.hint.setText(compare_hint(_source(b)))
        again = self.view.comparison is not None and self.process is None and all(
            w.text().strip() for w in (self.a, self.b, self.data))
        if again:
            self.start()
        else:
            self.status.setText("A and B swapped.")

    def _check_source(self, label: str, field: QLineEdit) -> str:
        """Say at once when checkpoint ``label`` is another task's (:func:`other_task_note`); returns the note.
        Checkpoint A's head also decides the page's first line (:func:`compare_hint`)."""
        if label == "A":
            self.hint.setText(compare_hint(_source(field.text())))
        note = other_task_note(label, _source(field.text()))
        if note or self.status.text().startswith(f"Checkpoint {label}: "):
            self.status.setText(note)
        return note

    def open_row(self, row) -> int:
        """Show one question of the comparison for both checkpoints side by side (the A | B page)."""
        self.pages.setCurrentWidget(self.pair)
        return self.pair.open_row(self.view.comparison, row)

    def command(self, out_dir: Path) -> list[str]:
        """The child command: ``python -m explorer compare --a A --b B --data D [--cap N] --out DIR --json``."""
        args = ["-m", "explorer", "compare", "--a", _source(self.a.text()), "--b", _source(self.b.text()),
                "--data", self.data.text().strip(), "--out", str(out_dir), "--json"]
        if self.cap.value():
            args += ["--cap", str(self.cap.value())]
        return args

    def start(self) -> None:
        """Start the comparison in a child process (one at a time)."""
        if self.process is not None:
            return
        missing = [n for n, w in (("checkpoint A", self.a), ("checkpoint B", self.b), ("the dev set", self.data))
                   if not w.text().strip()]
        if missing:
            self.status.setText("Fill in " + ", ".join(missing) + ".")
            return
        if self._check_source("A", self.a) or self._check_source("B", self.b):
            return
        self.out_dir = Path(tempfile.mkdtemp(prefix="compare-"))
        self.stderr = ""
        self.process = QProcess(self)
        self.process.setWorkingDirectory(str(REPO_ROOT))
        self.process.readyReadStandardError.connect(self._read_stderr)
        self.process.finished.connect(self._finished)
        self.process.start(sys.executable, self.command(self.out_dir))
        self.run_button.setEnabled(False)
        self.status.setText("Comparing… (both checkpoints run over the dev set in a child process)")

    def _read_stderr(self) -> None:
        self.stderr += bytes(self.process.readAllStandardError()).decode("utf-8", "replace")

    def _finished(self, code: int, _status=None) -> None:
        self.process = None
        self.run_button.setEnabled(True)
        errors = [line for line in self.stderr.splitlines() if line.startswith("error:")]
        if code != 0:
            self.status.setText(errors[-1] if errors else f"compare stopped (exit {code})")
            return
        self.load_folder(self.out_dir)

    def load_folder(self, folder: str | Path) -> bool:
        """Show the comparison.json of a report folder; False (with a message) when it cannot be read."""
        from explorer.core.qa.compare import comparison_from_dict

        path = Path(folder) / "comparison.json"
        try:
            comparison = comparison_from_dict(json.loads(path.read_text(encoding="utf-8")), str(path))
        except (OSError, ValueError) as exc:
            self.status.setText(f"cannot read {path}: {exc}")
            return False
        self.view.set_comparison(comparison)
        for field, label in ((self.a, comparison.label_a), (self.b, comparison.label_b)):
            if not field.text().strip():   # what was compared, so "Compare" reruns it
                field.setText(label)
        self.pages.setCurrentWidget(self.view)
        self.status.setText(f"{len(comparison.disagreements())} disagreements; double-click one to see it in "
                            "Spans & τ for both checkpoints")
        return True

    def _ask_export(self) -> None:
        if self.view.comparison is None:
            self.status.setText("Run a comparison first.")
            return
        folder = open_folder(self, "Export the comparison report into", EXPORT_KIND, into=True)
        if folder:
            out = self.view.export_report(Path(folder) / "comparison", data=self.data.text().strip())
            self.status.setText(f"Wrote {out / 'report.md'}")


def parse_seeds(text: str) -> list[int]:
    """'1, 2,3' -> [1, 2, 3]; '' -> []. Raises GroupError naming the part that is not a whole number."""
    from explorer.core.studies.groups import GroupError
    from explorer.ui.groups.seed_count import seed_parts

    out = []
    for part in seed_parts(text):
        try:
            out.append(int(part))
        except ValueError:
            raise GroupError(f"seeds: {part!r} is not a whole number (write e.g. 1,2,3)") from None
    return out


def _source(text: str) -> str:
    """A local folder as an absolute path (the child runs in the repository folder), else the text."""
    text = text.strip()
    return str(Path(text).expanduser().resolve()) if text and Path(text).expanduser().exists() else text


class GroupPages:
    """The page set of the registry's Groups and Compare pages (registry.GROUPS)."""

    def __init__(self, groups: GroupsTab, compare: CompareTab):
        self.pages = {GROUPS_PAGE: groups, COMPARE_PAGE: compare}
        self.swap = compare.swap   # the Compare page's shortcut (registry row)


def page_set(window) -> GroupPages:
    """The registry's provider of Groups and Compare (kept as ``window.groups_tab`` / ``compare_tab``),
    wired into the main window by :func:`install`."""
    window.groups_tab, window.compare_tab = install(window)
    return GroupPages(window.groups_tab, window.compare_tab)


def install(window) -> tuple[GroupsTab, CompareTab]:
    """Build the Groups and Compare tabs and wire them to the main window (the window adds them as its
    registry says); a disagreement opens in Spans & τ. The Runs dock's and the launcher's group actions are
    wired at start, before the pages are built (explorer.ui.groups.hooks.wire)."""
    groups, compare = GroupsTab(window.runs_dir), CompareTab()
    groups.watch_runs(window.store_events)   # members queued or running read so, not "missing"
    groups.folds_predicted.connect(lambda _name: window.runs.reload_groups())   # the group row's pooled figure

    def open_question(source: str, question: str, passage: str) -> None:
        """One side of the A | B page in the Spans & τ inspector (its model loaded first when another)."""
        hub = getattr(window, "hub", None)
        if hub is None:
            window.show_message("The inspectors are not available.")
            return
        window._inspector_opened = True   # the inspectors' first visit must not load the bundled encoder over it
        window.show_page(SPANS)
        loaded = getattr(hub, "loaded", None)
        if source and (loaded is None or getattr(loaded, "source", None) != source):
            def probe_when_loaded(_loaded) -> None:   # one shot: the model load is asynchronous
                hub.model_changed.disconnect(probe_when_loaded)
                hub.open_example(question, passage)
            hub.model_changed.connect(probe_when_loaded)
            hub.open_model(source)
            return
        hub.open_example(question, passage)

    compare.pair.inspector_requested.connect(open_question)
    # the window-level actions (Runs dock group rows, Queue paper grid) are wired at start: groups.hooks.wire
    groups.queue_requested.connect(lambda kind: window.launcher.queue_grid() if kind == "grid"
                                   else queue_group(window, kind))
    return groups, compare


def cv_problem(base) -> str | None:
    """Why the Launch tab's config ``base`` cannot be cross-validated from the GUI (a sentence), or None.
    Folds are made for classification tables (TaskFacts.data_kind "table", a task core.studies.cv_runs.CV_TASKS
    folds) read from a local training file."""
    from explorer.core.studies.cv_runs import CV_TASKS
    from explorer.core.specs.tasks import find_task_facts

    facts = find_task_facts(base.task)
    if facts is None or facts.data_kind != "table" or base.task not in CV_TASKS:
        what = facts.label if facts is not None else base.task
        return (f"Cross-validation is made for classification tables (one text or a pair and a label); "
                f"the Launch tab's task is {what}.")
    if not base.train or not Path(base.train).expanduser().is_file():
        return "Cross-validation needs a local training file: choose one in the Launch tab."
    return None


def _read_group(runs_dir, name: str):
    """(group, members, notes, pooled) for the view: core.studies.groups.load_group_data, and for a cross-validation
    group its pooled out-of-fold figures (core.studies.cv_runs.read_oof), for a learning curve its figures in words
    (core.studies.curve_results.curve_lines) and its plot (ui.groups.curve_plot_model.CurveShown); None for other
    kinds or before they exist."""
    from explorer.core.studies.cv_runs import read_oof
    from explorer.core.studies.groups import load_group_data
    from explorer.ui.groups.curve_plot_model import curve_shown

    group, members, notes = load_group_data(runs_dir, name)
    if group.kind == "curve":
        return group, members, notes, curve_shown(runs_dir, name, next((m.task for m in members if m.task), None))
    return group, members, notes, read_oof(runs_dir, name) if group.kind == "cv" else None

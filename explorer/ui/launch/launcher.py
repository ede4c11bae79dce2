"""The fine-tune launcher: a form over TrainConfig, presets, data preview, command preview, launch.

The form shows the fields of explorer.ui.launch.form_fields.FIELDS and keeps every other field of the
loaded config untouched. "Launch" and "Queue paper grid" emit ``launch_requested(configs,
suffixes)``; the main window hands them to the RunManager (explorer.ui.runs.runner).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QTextOption
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QFileDialog, QFormLayout, QGroupBox,
                               QHBoxLayout, QHeaderView, QLabel, QMessageBox, QPlainTextEdit, QPushButton,
                               QScrollArea, QSplitter, QTableWidget, QTableWidgetItem, QTabWidget, QVBoxLayout,
                               QWidget)

from explorer.core.specs.tasks import find_task_facts, is_qa_task
from explorer.core.specs.train_config import ConfigError, TrainConfig, paper_grid
from explorer.ui.launch.form_columns import FormColumns
from explorer.ui.launch.grid_estimate import grid_message, measured_throughput
from explorer.ui.launch.hosts_dialog import RunOnPicker
from explorer.ui.launch.form_fields import FIELDS, GROUPS, Editor, field_spec, field_tooltip, make_editor
from explorer.ui.launch.preview import DataPreview
from explorer.ui.launch.presets import (DEFAULT_WATCH, PRESET_TIPS, PRESETS, command_line, describe_preset,
                                          intro_text, offline_default, preset_config, sample_paths)

__all__ = ["LauncherPanel", "DEFAULT_WATCH", "PRESETS", "command_line", "offline_default", "preset_config"]

BANNER_LINES = 5   # the launcher banner's least height in text lines (first-visit hint or task note, and the preset)
BANNER_MAX_LINES = 9   # its most, taken when the form is filled with a long note (a longer text scrolls in it)

class WatchTable(QWidget):
    """Watch examples: question + passage pairs the worker probes at every evaluation (QA only)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.table = QTableWidget(0, 2)
        self.table.setHorizontalHeaderLabels(["question", "passage"])
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.setColumnWidth(0, 180)
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setMaximumHeight(110)
        add, remove = QPushButton("Add"), QPushButton("Remove")
        add.clicked.connect(lambda: self._add_row("", ""))
        remove.clicked.connect(lambda: [self.table.removeRow(i.row()) for i in
                                        sorted(self.table.selectionModel().selectedRows(), reverse=True)])
        buttons = QVBoxLayout()
        buttons.addWidget(add)
        buttons.addWidget(remove)
        buttons.addStretch(1)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.table, 1)
        lay.addLayout(buttons)
        self.changed = self.table.itemChanged

    def _add_row(self, q: str, p: str) -> None:
        r = self.table.rowCount()
        self.table.insertRow(r)
        self.table.setItem(r, 0, QTableWidgetItem(q))
        self.table.setItem(r, 1, QTableWidgetItem(p))

    def get(self) -> list[dict]:
        out = []
        for r in range(self.table.rowCount()):
            q, p = (self.table.item(r, c).text().strip() if self.table.item(r, c) else "" for c in (0, 1))
            if q and p:
                out.append({"question": q, "passage": p})
        return out

    def set(self, items: list[dict]) -> None:
        self.table.setRowCount(0)
        for it in items or []:
            self._add_row(str(it.get("question", "")), str(it.get("passage", it.get("context", ""))))


def _applies(spec, task: str, qa: bool) -> bool:
    """Whether launcher field ``spec`` is a setting of ``task`` (its ``tasks``, else QA-only, else the data kinds
    whose tasks use it: TaskFacts.data_kind, so a table setting is off for SWAG and NER)."""
    if spec.tasks:
        return task in spec.tasks
    if spec.qa_only:
        return qa
    if spec.data_kinds:
        facts = find_task_facts(task)
        return facts is not None and facts.data_kind in spec.data_kinds
    return True


def column_choices(columns: list[str], samples: dict, pairs: bool) -> list[tuple[str, str]]:
    """(value, shown text) of each choice of a column picker: a column's name and a sample value ("5 — 5.000");
    with ``pairs`` every two columns in file order ("6, 7 — A plane is taking off. | An air plane is…")."""
    def shown(names: list[str]) -> str:
        values = [str(samples.get(n, "")) for n in names]
        sample = " | ".join(v for v in values if v)
        return f"{', '.join(names)} — {sample}" if sample else ", ".join(names)

    if pairs and len(columns) >= 2:
        picks = [[a, b] for i, a in enumerate(columns) for b in columns[i + 1:]]
    else:
        picks = [[c] for c in columns]
    return [(", ".join(p), shown(p)) for p in picks]


class LauncherPanel(QWidget):
    """Edit a run, preview its data and command line, launch it (or the paper grid)."""

    launch_requested = Signal(list, list)   # [TrainConfig], [run-id suffix]
    status_message = Signal(str)

    def __init__(self, runs_dir: str | Path, settings=None, parent=None):
        super().__init__(parent)
        self.runs_dir = str(runs_dir)
        self.settings = settings
        self._base = offline_default(runs_dir)
        self.editors: dict[str, Editor] = {}
        self._loading = False
        self.past_runs = list   # () -> RunStates of this machine's runs (set by the main window)
        self.group_grid = None  # () -> bool: queue the grid as a run group (set by the main window); None: flat runs
        self._limits: dict = {}  # model source -> WindowLimits | None (read once per source)
        self._edited: set[str] = set()   # fields the user changed since the last preset / loaded config
        self._task = ""                  # the task the form's recipe is for
        self._preset_note = ""           # after a task switch: the preset shown before no longer applies
        # the task switch's note, kept in parts so that choosing a data file it cleared rewrites it (eighth trial:
        # "were cleared: choose this task's data" stayed after the user chose them): (recipe sentence, data
        # files still to choose, the task those were for, [(split, path, task label)] kept from a task whose
        # labels mean something else: named while they are still the form's)
        self._switch_note: tuple[str, list[str], str, list[tuple[str, str, str]]] | None = None
        self._file_task: dict[str, str] = {}   # "train" / "dev" -> the task the form had when that file was set
        self._file_note = ""             # what a new training file reset (_new_train_file)
        self._dev_home: str | None = None  # the training file's folder when the dev file was set (_dev_partner)
        self._preset = ""                # the preset the form was set from, while its task is kept
        self._guessed_for: str | None = None   # the training file whose columns were guessed from its values
        self._caps_note = ""             # the caps a new training file put back to "all" (_reset_caps), until edited
        self._parked: dict = {}          # field -> value kept out of sight while the task does not use it
        # (title, text) -> yes? The launcher's questions (a taken Run name); tests replace it
        self.ask_yes_no = lambda title, text: QMessageBox.question(self, title, text) == QMessageBox.StandardButton.Yes

        top = self._build_top()
        scroll, form_host = self._build_form()
        right = self._build_previews()
        bottom = self._build_buttons()
        self._layout(top, self._split(scroll, form_host, right), bottom)
        self._connect()
        self.set_config(self._base)

    # ---- construction (build / layout / connect) -----------------------------------------
    def _build_top(self) -> QHBoxLayout:
        """The hint line and the presets combo box."""
        self.presets = QComboBox()
        self.presets.addItem("choose a preset…", None)
        for key, label in PRESETS:
            self.presets.addItem(label, key)
            if key in PRESET_TIPS:
                self.presets.setItemData(self.presets.count() - 1, PRESET_TIPS[key], Qt.ItemDataRole.ToolTipRole)
        self.presets.activated.connect(self._preset_chosen)
        hint = QLabel()   # intro_text of the form's config, set with the preset line (_changed)
        hint.setObjectName("hint")
        hint.setWordWrap(True)
        self.hint = hint               # the first-visit text; a task switch's note takes its place (no jump)
        self.preset_label = QLabel()   # which recipe the form holds (launcher_presets.describe_preset)
        self.preset_label.setWordWrap(True)
        self.preset_label.setToolTip("offline default: the bundled encoder on the bundled answerable sample, batch 4, "
                                     "4 epochs (minutes); fast CPU: a 30-minute budget, batch 16, lr 1e-4, "
                                     "max_seq_length 256 (README, Benchmarks); paper recipe: BERT paper Appendix "
                                     "A.3 defaults")
        # hint + preset line in a box of BANNER_LINES lines whatever they hold: a longer text scrolls inside it
        text_box = QWidget()
        text_col = QVBoxLayout(text_box)
        text_col.setContentsMargins(0, 0, 0, 0)
        text_col.addWidget(hint)
        text_col.addWidget(self.preset_label)
        text_col.addStretch(1)
        # the banner keeps one height while its text re-wraps (1 to 4 lines on a task, file or preset change): the
        # form below it stayed put only when the line count did, and the seventh trial's clicks landed in the
        # wrong fields (a run name typed into Text columns). BANNER_LINES was only its least height until the
        # eleventh trial: a 7-line note (the caps put back to all, in amber) grew it, typing a Train cap took the
        # amber line away and the form moved up 23 px under the mouse (a Dev cap typed into Text columns). Now
        # it never changes height while the user edits the form: a text longer than the box scrolls in it. The
        # twelfth trial found a long note (Fine-tune on reviewed rows) cut in a 5-line box with its own scroll bar:
        # when the form is filled (set_config, show_note, a preset) and when the panel is resized, none of them
        # typing, the banner takes the height its text needs at its width, BANNER_LINES to BANNER_MAX_LINES lines
        for label in (hint, self.preset_label):
            label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.banner = QScrollArea()
        self.banner.setWidget(text_box)
        self.banner.setWidgetResizable(True)
        self.banner.setFrameShape(QScrollArea.Shape.NoFrame)
        self.banner.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.banner_text = text_box
        self._banner_height = 0   # set by _fit_banner(refit=True) only: never while the user types
        self._banner_width = -1   # the width the height was fitted at (a resize refits)
        self.banner.installEventFilter(self)
        top = QHBoxLayout()
        top.addWidget(self.banner, 1)
        top.addWidget(QLabel("Presets:"))
        top.addWidget(self.presets)
        self.presets.setMaximumWidth(330)
        # long preset names are elided in the closed box (the list shows them whole), not widening the window
        self.presets.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.presets.setMinimumContentsLength(18)

        return top

    def _build_form(self) -> tuple[QScrollArea, QWidget]:
        """One editor per FIELDS entry in its group box, the watch table; in a scroll area."""
        boxes = {}
        for g in GROUPS:
            box = QGroupBox(g)
            QFormLayout(box).setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
            boxes[g] = box
        for spec in FIELDS:
            ed = make_editor(spec)
            ed.focus.setToolTip(field_tooltip(spec))
            label = QLabel(spec.label)
            label.setToolTip(field_tooltip(spec))
            boxes[spec.group].layout().addRow(label, ed.widget)
            ed.label = label
            ed.changed.connect(lambda *_a, name=spec.name: self._field_changed(name))
            self.editors[spec.name] = ed
        self.watch = WatchTable()
        watch_box = QGroupBox("Watch examples (probed at every evaluation)")
        QVBoxLayout(watch_box).addWidget(self.watch)
        self.watch.setToolTip(field_tooltip(field_spec("watch")))
        self.watch.changed.connect(self._changed)
        # two columns when there is room, one (scrolling) when not: the preview column stays in view
        form_host = FormColumns([boxes["Model and task"], boxes["Data"], watch_box, boxes["Evaluation and output"]],
                                [boxes["Recipe"], boxes["Sequence and QA windows"]])
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(form_host)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)

        return scroll, form_host

    def _build_previews(self) -> QWidget:
        """Train / dev data previews and the command preview."""
        self.train_preview, self.dev_preview = DataPreview("train"), DataPreview("validation")
        for preview in (self.train_preview, self.dev_preview):
            preview.rejected_changed.connect(self._changed)
        self.preview_tabs = QTabWidget()
        self.preview_tabs.addTab(self.train_preview, "Train data")
        self.preview_tabs.addTab(self.dev_preview, "Dev data")
        self.command = QPlainTextEdit()
        self.command.setReadOnly(True)
        self.command.setObjectName("command")
        self.command.setMaximumHeight(110)
        self.command.setWordWrapMode(QTextOption.WrapMode.WrapAnywhere)
        copy_btn = QPushButton("Copy")
        copy_btn.setToolTip("Copy the command: it runs the same fine-tune headless (e.g. on a GPU server).")
        copy_btn.clicked.connect(self._copy_command)
        cmd_box = QGroupBox("Preview command")
        cl = QVBoxLayout(cmd_box)
        cl.addWidget(self.command)
        cl.addWidget(copy_btn, 0, Qt.AlignmentFlag.AlignRight)
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(self.preview_tabs, 1)
        rl.addWidget(cmd_box)
        return right

    def _split(self, scroll: QScrollArea, form_host: QWidget, right: QWidget) -> QSplitter:
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(scroll)
        split.addWidget(right)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        # the form never scrolls sideways: it folds into one column, and the preview pane gives way too
        scroll.setMinimumWidth(form_host.minimumSizeHint().width() + scroll.verticalScrollBar().sizeHint().width() + 4)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        right.setMinimumWidth(300)
        split.setSizes([form_host.two_column_width(), 420])

        return split

    def _build_buttons(self) -> QVBoxLayout:
        """The problem line and Load / Save / Queue paper grid / Launch."""
        self.problem = QLabel()
        self.problem.setObjectName("errorLabel")
        self.problem.setWordWrap(True)
        self.load_btn, self.save_btn = QPushButton("Load…"), QPushButton("Save…")
        self.load_btn.setToolTip("Load a run config (.json, e.g. a run folder's config.json).")
        self.save_btn.setToolTip("Save this form as a run config (.json) for `bert-explorer train --config`.")
        self.grid_btn = QPushButton("Queue paper grid (24 runs)")
        self.grid_btn.setToolTip("Batch {16, 32} × learning rate {5e-5, 4e-5, 3e-5, 2e-5} × epochs {2, 3, 4} "
                                 "around this form, run one after another (BERT paper, Appendix A.3).")
        self.launch_btn = QPushButton("Launch")
        self.launch_btn.setObjectName("primary")
        self.launch_btn.setDefault(True)
        self.launch_btn.setToolTip("Start this run in its own worker process (Ctrl+Return). "
                                   "If a run is active it waits in the queue.")
        self.run_on = RunOnPicker(self.settings)   # this machine or a remote host (issue 29)
        # the reason Launch is disabled gets the full width on its own row: beside the buttons, at 1280 px, it was
        # a 9-line column of one or two words each (seventh trial)
        bottom = QVBoxLayout()
        bottom.addWidget(self.problem)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        for b in (self.load_btn, self.save_btn, self.grid_btn, self.run_on, self.launch_btn):
            buttons.addWidget(b)
        bottom.addLayout(buttons)
        return bottom

    def _layout(self, top: QHBoxLayout, split: QSplitter, bottom: QVBoxLayout) -> None:
        from explorer.ui.inspectors.download_bar import DownloadBar

        self.download_bar = DownloadBar()   # a hub model downloads before its run starts (Launch)
        self._downloader = None             # HubDownloader, made on the first hub id (it starts the child)
        self._pending: TrainConfig | None = None
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(split, 1)
        lay.addWidget(self.download_bar)
        lay.addLayout(bottom)


    def _connect(self) -> None:
        self.load_btn.clicked.connect(self._ask_load)
        self.save_btn.clicked.connect(self._ask_save)
        self.grid_btn.clicked.connect(lambda: self.queue_grid())   # clicked(bool) must not reach `confirm`
        self.launch_btn.clicked.connect(self.launch)
        self.editors["model"].button.clicked.connect(self._browse_model)
        self.editors["train"].button.clicked.connect(lambda: self._browse_data("train"))
        self.editors["dev"].button.clicked.connect(lambda: self._browse_data("dev"))
        self.editors["output_dir"].button.clicked.connect(self._browse_output)
        for name in ("train", "dev", "task", "text_columns", "label_column", "id_column", "no_header", "encoding",
                     "label_names", "skip_invalid", "dev_fraction", "label_separator"):
            self.editors[name].changed.connect(self._schedule_preview)
        self.train_preview.finished.connect(self._offer_columns)
        self.train_preview.finished.connect(lambda _res: self._fit_eval_every())
        self.train_preview.finished.connect(lambda _res: self._changed())   # the planned steps are known now
        self._preview_timer = QTimer(self, singleShot=True, interval=400)
        self._preview_timer.timeout.connect(self.refresh_previews)

    # ---- config <-> form -----------------------------------------------------------------
    def config(self) -> TrainConfig:
        """The form as a TrainConfig (fields not in the form come from the last loaded config)."""
        values = {name: ed.get() for name, ed in self.editors.items()}
        task = values.get("task", self._base.task)
        qa = is_qa_task(task)
        defaults = TrainConfig()
        for spec in FIELDS:   # a setting the task does not use stays at its default (not in the run's config)
            if spec.name in values and not _applies(spec, task, qa):
                values[spec.name] = getattr(defaults, spec.name)
        values["watch"] = self.watch.get() if qa else []   # watch examples are QA questions
        if values.get("dev", self._base.dev):   # a dev file or a held-out share, never both (ninth trial: the
            values["dev_fraction"] = defaults.dev_fraction   # Preview showed --dev-fraction beside --dev)
        if task != self._base.task or values.get("train", self._base.train) != self._base.train:
            # the loaded config's label count was for its task's data and file (a stance run's 3): another task or
            # training file infers its own from the data (0), so neither a regression run (fourth trial) nor an
            # SST-2 run after the stance file (eighth trial: config.json said 3, the head had 2) carries 3
            values["num_labels"] = 0
        if not values.get("metric_for_best"):   # automatic: written out only where it is not the task's default
            auto = self._automatic_metric(task, values)
            facts = find_task_facts(task)
            values["metric_for_best"] = auto if facts is not None and auto != facts.best_metric else ""
        if not values["output_dir"]:
            values["output_dir"] = self.runs_dir
        return dataclasses.replace(self._base, **values)

    def _automatic_metric(self, task: str, values: dict) -> str:
        """What "Best checkpoint by: automatic" stands for with the form's F1 classes (f_avg when they are named;
        core.specs.tasks.automatic_metric_for_best)."""
        from explorer.core.specs.tasks import automatic_metric_for_best

        return automatic_metric_for_best(task, values.get("f1_classes") or (),
                                         values.get("num_labels", self._base.num_labels) or 0)

    def _offer_metrics(self, cfg: TrainConfig) -> None:
        """Best checkpoint by: "automatic: <metric>" and the metrics the task's runs may be picked by
        (core.specs.tasks.metric_for_best_choices), named as the rest of the app names them."""
        from explorer.core.specs.metric_display import metric_name
        from explorer.core.specs.tasks import metric_for_best_choices
        from explorer.ui.launch.form_fields import set_metric_choices

        names = metric_for_best_choices(cfg.task, cfg.num_labels, cfg.f1_classes)
        auto = self._automatic_metric(cfg.task, {"f1_classes": cfg.f1_classes, "num_labels": cfg.num_labels})
        shown = f"{metric_name(auto, cfg.task)} (F1 classes)" if auto == "f_avg" else metric_name(auto, cfg.task)
        set_metric_choices(self.editors["metric_for_best"], shown if auto else "",
                           [(m, metric_name(m, cfg.task)) for m in names])

    def set_config(self, config: TrainConfig) -> None:
        self._loading = True
        self._edited.clear()
        self._task, self._preset_note, self._switch_note, self._file_note = config.task, "", None, ""
        self._caps_note = ""
        self._parked = {}
        self._file_task = {"train": config.task, "dev": config.task}
        named = describe_preset(config)   # the preset the form starts from ("" when custom)
        self._preset = named.split(" (")[0].removeprefix("Preset: ") if named.startswith("Preset:") else ""
        try:
            self._base = config
            for name, ed in self.editors.items():
                ed.set(getattr(config, name))
            if config.metric_for_best == self._automatic_metric(config.task, dataclasses.asdict(config)):
                self.editors["metric_for_best"].set("")   # what automatic picks: shown as automatic
            self.watch.set(config.watch)
        finally:
            self._loading = False
        self._dev_partner()
        self._changed()
        self._fit_banner(refit=True)   # filled, not typed: the banner takes its text's height
        self.refresh_previews()

    def _field_changed(self, name: str) -> None:
        """One editor changed: a new task brings its defaults (TaskFacts, core.specs.tasks.task_defaults) to the
        recipe fields the user has not edited; any other field is marked edited."""
        if self._loading:
            return
        if name == "task":
            self._switch_task(self.editors["task"].get())
            # at once, not after the typing pause: the previews read the files for the task shown (eighth trial:
            # the Train data preview still showed the other task's reading)
            self._preview_timer.stop()
            self.refresh_previews()
        else:
            self._edited.add(name)
        if name in self.STEP_SETTINGS:
            self._fit_eval_every()
        if name in ("train", "dev"):
            self._file_task[name] = self.editors["task"].get()
        if name == "train":
            self._new_train_file()
        if name in self.CAP_SETTINGS and self._caps_note:   # set again by the user: nothing to warn about
            self._caps_note = ""
            self._compose_note()
        if name == "dev":
            self._dev_partner()
        if name in ("train", "dev") and self._switch_note is not None:
            if self.editors[name].get():   # chosen: no longer to do
                self._switch_note[1][:] = [n for n in self._switch_note[1] if n != name]
            self._compose_note()   # and a file kept from another task that is no longer the form's is not named
        self._changed()

    # what the form says about the training file's layout: another file's columns, header and encoding do not
    # describe a newly chosen one (fifth trial: STS-B got the stance file's Tweet / Stance and label names)
    FILE_SETTINGS = ("text_columns", "label_column", "id_column", "no_header", "encoding", "label_names")

    # how much of the data a run reads: sized for one file (tenth trial: Train cap 640 set for a CoNLL run stayed
    # for the 2,814 stance tweets, and a run would have trained on 640 of them without a word)
    CAP_SETTINGS = ("train_cap", "dev_cap")

    def _reset_caps(self) -> None:
        """A new training file: caps set for the previous one go back to "all" (0), said in the banner in amber
        until a cap is set again or another config is loaded."""
        import html

        caps = [(n, self.editors[n].get()) for n in self.CAP_SETTINGS if self.editors[n].get()]
        if not caps:
            return
        self._loading = True
        try:
            for n, _ in caps:
                self.editors[n].set(0)
                self._edited.discard(n)
        finally:
            self._loading = False
        said = " and ".join(f"{field_spec(n).label} {value:,}" for n, value in caps)
        self._caps_note = ("<span style='color:#b35c00'>" + html.escape(
            f"{said}, set for the previous file, went back to all: set {'them' if len(caps) > 1 else 'it'} again "
            "for a shorter run") + "</span>")

    def _new_train_file(self) -> None:
        """A new training file was chosen: FILE_SETTINGS set for the previous file go back to their defaults (the
        preview then guesses this file's columns), and so do the caps (_reset_caps), with a word in the banner."""
        self._reset_caps()
        for n in self.FILE_SETTINGS:   # set for the previous file: not to come back on a later task switch
            self._parked.pop(n, None)
        defaults = TrainConfig()
        cleared = [n for n in self.FILE_SETTINGS if self.editors[n].get() != getattr(defaults, n)]
        import html

        name = html.escape(Path(self.editors["train"].get()).name)
        dev = html.escape(self._forget_the_previous_files_dev())
        dev_note = (f"; the dev file {dev} was the previous data's and was cleared: choose this data's dev file, or "
                    "leave it empty to hold out the Dev fraction") if dev else ""
        if not cleared:   # nothing of another file's is left: a note about the file before would be stale now
            if self._file_note or dev or self._caps_note:
                self._file_note = f"Training file {name}: the preview guesses its columns{dev_note}"
                self._compose_note()
            return
        self._loading = True
        try:
            for n in cleared:
                self.editors[n].set(getattr(defaults, n))
                self._edited.discard(n)
        finally:
            self._loading = False
        labels = ", ".join(field_spec(n).label or n for n in cleared)
        self._file_note = (f"Training file {name}: the previous file's {labels} went back to their defaults; the "
                           f"preview guesses this file's columns{dev_note}")
        self._compose_note()

    # the fields that change how many steps a run plans, and so the Evaluate every that fits it
    STEP_SETTINGS = ("batch_size", "gradient_accumulation_steps", "train_cap", "epochs", "max_steps",
                     "time_budget_minutes")

    def planned_steps(self) -> tuple[int, int]:
        """(steps per epoch, planned steps) of the form's run (core.specs.tasks.run_steps): the training rows the
        data check counted (0 while unknown), epochs, Max steps, and the steps a Time budget allows at this
        machine's measured samples/s (grid_estimate.measured_throughput). (0, Max steps) while the size is unknown."""
        from explorer.core.specs.tasks import run_steps

        n = self.train_rows()
        get = lambda name: self.editors[name].get()   # noqa: E731 - the form's reads
        per_step = max(1, get("batch_size")) * max(1, get("gradient_accumulation_steps"))
        budget = float(get("time_budget_minutes") or 0.0)
        budget_steps = 0
        if budget > 0:
            speed = measured_throughput(self.past_runs(), get("model")).samples_per_second
            budget_steps = max(1, int(budget * 60 * speed / per_step))
        return run_steps(n, get("batch_size"), get("gradient_accumulation_steps"), get("train_cap"),
                         epochs=float(get("epochs") or 0.0), max_steps=int(get("max_steps") or 0),
                         budget_steps=budget_steps)

    def _fit_eval_every(self) -> None:
        """Evaluate every: the task's evaluations per epoch of the training file the data check read, or of the
        whole run when it plans fewer steps (core.specs.tasks.eval_every_for), unless the user set it; unchanged
        while the file's size is unknown."""
        from explorer.core.specs.tasks import eval_every_for

        n = self.train_rows()
        if "eval_every" in self._edited or n <= 0:
            return
        get = lambda name: self.editors[name].get()   # noqa: E731 - the form's reads
        _, planned = self.planned_steps()
        try:
            steps = eval_every_for(get("task"), n, get("batch_size"), get("gradient_accumulation_steps"),
                                   get("train_cap"), max_steps=planned)
        except KeyError:
            return
        if steps == get("eval_every"):
            return
        self._loading = True
        try:
            self.editors["eval_every"].set(steps)
        finally:
            self._loading = False
        self._changed()

    def train_rows(self) -> int:
        """Training examples the data check counted (a table's rows, a CoNLL file's sentences: a tagging run's
        examples); 0 while unknown or when the file cannot be used (eleventh trial: a ner run's Evaluate every stayed
        "start and end" because only "examples" was read)."""
        res = self.train_preview.result or {}
        counts = res.get("counts") or {}
        if not res.get("ok"):
            return 0
        return int(next((counts[k] for k in ("examples", "sentences") if isinstance(counts.get(k), int)), 0))

    def no_dev_note(self, cfg: TrainConfig) -> str:
        """The Dev data preview's sentence while no dev file is given: the held-out share the run will evaluate on
        (its size once the training file is counted), or that it will not be evaluated and why
        (core.specs.tasks.no_dev_file_note)."""
        from explorer.core.specs.tasks import no_dev_file_note

        n = self.train_rows()
        if n and cfg.train_cap:
            n = min(n, cfg.train_cap)
        return no_dev_file_note(cfg.task, cfg.resolved_dev_fraction(), cfg.seed, n)

    def eval_note(self, cfg: TrainConfig) -> str:
        """'' or a warning when Evaluate every is above the steps the run plans: then it evaluates only at the start
        and the end (tenth trial: 90 for a run of Max steps 60, no dev point in between)."""
        if cfg.eval_every <= 0 or not (cfg.dev or cfg.resolved_dev_fraction() > 0):
            return ""
        _, planned = self.planned_steps()
        if planned <= 0 or cfg.eval_every < planned:
            return ""
        return (f"Evaluate every {cfg.eval_every} is not below the {planned} steps this run plans: it evaluates "
                "only at the start and the end")

    def _refusal(self, split: str, preview) -> str:
        """Why Launch is refused for one data file: its name and the data check's first line (e.g. "the dev data
        dev.tsv cannot be used: ..."), so a disabled Launch says which file, not only "the dev data"."""
        name = Path(self.editors[split].get()).name or f"the {split} file"
        reason = str((preview.result or {}).get("error", "")).strip().splitlines()
        why = reason[0] if reason else "see the data preview"
        return f"the {split} data cannot be used ({name}): {why}"

    def _dev_partner(self) -> None:
        """Remember the training file's folder when the dev file is set (the dev file belongs to that data)."""
        train, dev = self.editors["train"].get(), self.editors["dev"].get()
        self._dev_home = str(Path(train).parent) if train and dev else None

    def _forget_the_previous_files_dev(self) -> str:
        """A new training file from another folder than the one the dev file was chosen with: a dev file that sat
        beside that training file was its data's (eighth trial: STS-B trained against SST-2's dev.tsv and Launch
        was refused) and is cleared like the training file's layout; returns its name ("" when it stays)."""
        dev, train = self.editors["dev"].get(), self.editors["train"].get()
        home = getattr(self, "_dev_home", None)
        if not (dev and home and train) or Path(dev).parent != Path(home) or Path(train).parent == Path(home):
            return ""
        self._loading = True
        try:
            self.editors["dev"].set("")
            self._edited.discard("dev")
        finally:
            self._loading = False
        return Path(dev).name

    def _compose_note(self) -> None:
        """The banner's note from what is true now: the caps a new training file put back to all (first, in amber),
        the task switch's recipe sentence, the data files it cleared that are still to choose, and what the last new
        training file reset."""
        parts = [self._caps_note] if self._caps_note else []   # the warning first: in view without scrolling
        if self._switch_note is not None:
            recipe, waiting, old_label, kept = self._switch_note
            parts.append(recipe + (f"; the {' and '.join(waiting)} data of the preset were for {old_label} and were "
                                   "cleared: choose this task's data" if waiting else "")
                         + self._kept_files_note(kept))
        if self._file_note:
            parts.append(self._file_note)
        self._preset_note = ". ".join(parts)

    # what a task's label column holds (TaskFacts.problem), for the note on files kept across a task switch
    LABEL_WORDS = {"classification": "a class per row", "regression": "a number (score) per row",
                   "multilabel": "a set of labels per row"}

    def _kept_files_note(self, kept: list[tuple[str, str, str]]) -> str:
        """'; the train and dev files (train.tsv, dev.tsv) were chosen for <their task>: check that they hold a
        number (score) per row, or choose this task's data' for the files still as they were at the switch."""
        import html

        still = [(split, path, label) for split, path, label in kept if self.editors[split].get() == path]
        if not still:
            return ""
        facts = find_task_facts(self.editors["task"].get())
        holds = self.LABEL_WORDS.get(facts.problem if facts else "", "this task's labels")
        names = ", ".join(html.escape(Path(path).name) for _, path, _ in still)
        splits = " and ".join(split for split, _, _ in still)
        labels = " / ".join(dict.fromkeys(html.escape(label) for _, _, label in still))
        many = len(still) > 1
        return (f"; the {splits} file{'s' if many else ''} ({names}) {'were' if many else 'was'} chosen for {labels}: "
                f"check that {'they hold' if many else 'it holds'} {holds}, or choose this task's data")

    def _files_for_other_labels(self, new_facts, cleared: list[str]) -> list[tuple[str, str, str]]:
        """(split, path, task label) of the data files still in the form that were set for a task of the same
        reader whose labels mean something else (SST-2's 0/1 classes kept for Regression, ninth trial)."""
        out = []
        for split in ("train", "dev"):
            path, origin = self.editors[split].get(), find_task_facts(self._file_task.get(split, ""))
            if not path or split in cleared or origin is None or new_facts is None:
                continue
            if origin.data_kind == new_facts.data_kind and (origin.problem or origin.head) != (new_facts.problem
                                                                                              or new_facts.head):
                out.append((split, path, origin.label))
        return out

    def _switch_task(self, task: str) -> None:
        from explorer.core.specs.tasks import task_defaults

        if not task or task == self._task:
            return
        try:
            defaults = task_defaults(task)
        except KeyError:
            return
        old, self._task = self._task, task
        old_facts, new_facts = find_task_facts(old), find_task_facts(task)
        # data files a preset or a loaded config put in for another kind of data (SQuAD JSON for a table task)
        # cannot feed this task: cleared, unless the user picked them
        other_data = (old_facts is not None and new_facts is not None and old_facts.data_kind != new_facts.data_kind)
        cleared = [n for n in ("train", "dev") if other_data and n not in self._edited and self.editors[n].get()]
        # the same reader but labels that mean something else: the files stay, and the banner says which task
        # they were chosen for until they are changed
        kept_files = self._files_for_other_labels(new_facts, cleared)
        self._loading = True
        try:
            for name, value in defaults.items():
                if name not in self._edited:
                    self.editors[name].set(value)
            for name in cleared:
                self.editors[name].set("")
            self._keep_metric_for(task)
            stale = self._clear_other_task_values(task)
        finally:
            self._loading = False
        kept = sorted(set(defaults) & self._edited)
        what = f"{new_facts.label if new_facts else task} defaults"
        note = (f"The preset {self._preset} was for {old_facts.label if old_facts else old} and no longer applies: "
                if self._preset else "")
        self._preset = ""
        self._switch_note = (f"{note}{what} for the recipe" + (f" (your {', '.join(kept)} kept)" if kept else "")
                             + (f"; the previous form's {', '.join(stale[:-1])}{' and ' if len(stale) > 1 else ''}"
                                f"{stale[-1]} cleared" if stale else ""),
                             cleared, old_facts.label if old_facts else old, kept_files)
        self._compose_note()

    def _clear_other_task_values(self, task: str) -> list[str]:
        """A new task: a field that is not its setting shows its default, greyed (twelfth trial: a greyed F1 classes
        still read FAVOR, AGAINST on a Regression form; config() leaves such values out anyway); its value is kept
        aside (``_parked``) and comes back when a task uses the field again. A Run name the user did not type since
        the form was filled or last launched (the previous run's name) is cleared; returns what was cleared."""
        import html

        defaults, qa = TrainConfig(), is_qa_task(task)
        for spec in FIELDS:
            if not (spec.qa_only or spec.data_kinds or spec.tasks):
                continue
            editor, default = self.editors[spec.name], getattr(defaults, spec.name)
            if not _applies(spec, task, qa):
                if editor.get() != default:   # kept out of sight, back when a task uses it again
                    self._parked[spec.name] = editor.get()
                    editor.set(default)
            elif spec.name in self._parked:
                value = self._parked.pop(spec.name)
                if editor.get() == default:
                    editor.set(value)
        run_name = self.editors["run_id"].get()
        if not run_name or "run_id" in self._edited:
            return []
        self.editors["run_id"].set("")
        return [html.escape(f"Run name ({run_name})")]

    def _keep_metric_for(self, task: str) -> None:
        """A new task: a Best checkpoint by chosen for the previous one that this task never reports goes back to
        automatic (a regression run has no accuracy)."""
        from explorer.core.specs.tasks import emitted_metrics

        chosen = self.editors["metric_for_best"].get()
        if chosen and chosen not in emitted_metrics(task):
            self.editors["metric_for_best"].set("")
            self._edited.discard("metric_for_best")

    def show_note(self, text: str) -> None:
        """Show ``text`` (plain) in the banner under the preset line, in place of the first-visit hint, until the
        next set_config or task switch: e.g. where a form filled by "Fine-tune on reviewed rows" got its data."""
        import html

        self._switch_note, self._file_note = None, ""
        self._preset_note = html.escape(text)
        self._changed()
        self._fit_banner(refit=True)   # filled, not typed: the whole note in view (up to BANNER_MAX_LINES lines)

    def _changed(self, *_args) -> None:
        if self._loading:
            return
        cfg = self.config()
        qa = is_qa_task(cfg.task)
        self._offer_metrics(cfg)
        for spec in FIELDS:
            if spec.qa_only or spec.data_kinds or spec.tasks:
                on = _applies(spec, cfg.task, qa)
                self.editors[spec.name].widget.setEnabled(on)
                self.editors[spec.name].label.setEnabled(on)
        self.watch.setEnabled(qa)
        held_out = self.editors["dev_fraction"]   # only without a dev file (TrainConfig.resolved_dev_fraction), and
        facts = find_task_facts(cfg.task)          # for a task that holds rows out (TaskFacts.dev_split)
        on = _applies(field_spec("dev_fraction"), cfg.task, qa) and not cfg.dev and bool(facts and facts.dev_split)
        held_out.widget.setEnabled(on)
        held_out.label.setEnabled(on)
        self.dev_preview.set_empty_note(self.no_dev_note(cfg))
        self.command.setPlainText(command_line(cfg))
        self.preset_label.setText(f"<b>{describe_preset(cfg)}</b>"
                                  + (f"<br>{self._preset_note}" if self._preset_note else ""))
        # the note replaces the first-visit hint rather than adding its lines below it: the form under the
        # banner does not jump down when a task switch writes a note (first-hour trial: 48 px)
        self.hint.setText(intro_text(cfg))
        self.hint.setVisible(not self._preset_note)
        self._fit_banner()
        try:
            cfg.validate()
            window_errors = self._check_windows(cfg, qa)
            if window_errors:
                raise ConfigError("window settings do not fit the model: " + "; ".join(window_errors))
            rejected = [self._refusal(name, p) for name, p in (("train", self.train_preview),
                                                                ("dev", self.dev_preview)) if p.rejected]
            if rejected:   # the data preview refused the data: which file and why; no launch of a run bound to fail
                raise ConfigError("; ".join(rejected))
            self.problem.setText("")
            self.launch_btn.setEnabled(True)
            self.grid_btn.setEnabled(True)
        except ConfigError as exc:
            self.problem.setText(f"Cannot launch yet: {exc}")
            self.launch_btn.setEnabled(False)
            self.grid_btn.setEnabled(False)
        self._show_eval_note(cfg)

    def _show_eval_note(self, cfg: TrainConfig) -> None:
        """Evaluate every above the run's planned steps (eval_note): the field in amber with the reason, and the
        sentence on the problem line when nothing blocks the launch (it does not block it)."""
        import html

        from explorer.ui.launch.form_fields import mark_invalid

        note = self.eval_note(cfg)
        mark_invalid(self.editors["eval_every"], note, "warning")
        if note and not self.problem.text():
            self.problem.setText(f"<span style='color:#b35c00'>Note: {html.escape(note)}.</span>")

    def _check_windows(self, cfg: TrainConfig, qa: bool) -> list[str]:
        """max_seq_length / doc_stride / max_query_length against the chosen model (its config.json and
        tokenizer_config.json, read without loading it): red fields with the reason; returns the errors."""
        from explorer.core.models.window_settings import source_limits, check_limits
        from explorer.ui.launch.form_fields import mark_invalid

        if cfg.model not in self._limits:
            self._limits[cfg.model] = source_limits(cfg.model)
        limits = self._limits[cfg.model]
        problems = [] if limits is None else check_limits(
            limits, cfg.resolved_max_seq_length(), cfg.doc_stride if qa else None,
            cfg.max_query_length if qa else None)
        for name in ("max_seq_length", "doc_stride", "max_query_length"):
            mine = [p for p in problems if p.setting == name]
            severity = "error" if any(p.severity == "error" for p in mine) else "warning"
            mark_invalid(self.editors[name], "; ".join(p.message for p in mine), severity)
        return [p.message for p in problems if p.severity == "error"]

    def _schedule_preview(self, *_args) -> None:
        if not self._loading:
            self._preview_timer.start()

    def refresh_previews(self) -> None:
        cfg = self.config()
        options = {"id_column": cfg.id_column, "no_header": cfg.no_header, "encoding": cfg.encoding,
                   "label_names": cfg.label_names, "skip_invalid": cfg.skip_invalid,
                   "dev_fraction": 0.0 if cfg.dev else cfg.resolved_dev_fraction(),
                   "label_separator": cfg.label_separator}
        self.train_preview.request(cfg.train, cfg.task, cfg.text_columns, cfg.label_column, options)
        self.dev_preview.request(cfg.dev, cfg.task, cfg.text_columns, cfg.label_column, options)

    def _offer_columns(self, res: dict) -> None:
        """Fill the column pickers with the training file's columns, each with a sample value ("5 — 5.000",
        "6 — A plane is taking off."): the choice can be made from the screen. A guess by the usual names shows
        as the placeholder (the run guesses the same); one by the values of a file without a header, which the run
        cannot make, is filled in, once per file, and the banner says so (_fill_guess)."""
        columns = list(res.get("columns") or [])
        samples = res.get("samples") or {}
        guess = res.get("guess") or {}
        pair = bool(getattr(find_task_facts(self.config().task), "pair", False))
        for name, placeholder in (("text_columns", ", ".join(guess.get("text_columns") or [])),
                                  ("label_column", guess.get("label_column") or ""),
                                  ("id_column", guess.get("id_column") or "")):
            combo = self.editors[name].widget
            current = combo.currentText()
            combo.blockSignals(True)
            combo.clear()
            combo.addItem("")
            for value, shown in column_choices(columns, samples, pair and name == "text_columns"):
                combo.addItem(shown, value)
            combo.setCurrentText(current)
            combo.blockSignals(False)
            if combo.lineEdit() is not None:
                combo.lineEdit().setPlaceholderText(f"guessed: {placeholder}" if placeholder else
                                                    ("pick a column" if columns else ""))
        k = int(res.get("unnamed_labels") or 0)   # classes given as ids 0..K-1: say where their names go
        ids = ", ".join(str(i) for i in range(min(k, 4))) + (", …" if k > 4 else "")
        self.editors["label_names"].focus.setPlaceholderText(
            f"e.g. negative,positive (the labels are {ids})" if k == 2 else
            f"a name per class, comma-separated (the labels are {ids})" if k else "")
        self._fill_guess(guess)

    def _fill_guess(self, guess: dict) -> None:
        """A file without a header: its text and label columns as guessed from its values (core.data.table.
        guess_columns_from_values) go into the empty pickers, once per training file, with a word in the banner.
        A guess by names is left to the run (the same rule reads the header there)."""
        basis = guess.get("basis") or ""
        train = self.editors["train"].get()
        if not basis or not self.editors["no_header"].get() or self._guessed_for == train:
            return
        texts, label = list(guess.get("text_columns") or []), guess.get("label_column") or ""
        filled: list[str] = []
        if texts and not self.editors["text_columns"].get():
            self.editors["text_columns"].set(texts)
            filled.append(f"Text columns {', '.join(texts)}")
        if label and not self.editors["label_column"].get():
            self.editors["label_column"].set(label)
            filled.append(f"Label column {label}")
        self._guessed_for = train
        if filled:
            import html

            note = html.escape(f"No header row: {' and '.join(filled)} guessed from the first rows ({basis}); "
                               "check them against the preview")
            self._file_note = f"{self._file_note}. {note}" if self._file_note else note
            self._compose_note()
            self._changed()

    # ---- presets / launch ----------------------------------------------------------------
    def _preset_chosen(self, index: int) -> None:
        key = self.presets.itemData(index)
        self.presets.setCurrentIndex(0)
        if key:
            self.apply_preset(key)

    def _fit_banner(self, refit: bool = False) -> None:
        """The banner's height. Without ``refit`` (every change of the form, typing included) it keeps the height it
        has, so the form under the banner never moves while the user types (a text longer than it scrolls in it).
        With ``refit`` (the form filled by set_config / show_note / a preset, the panel resized, a font change) it
        takes the height of its text at its width: BANNER_LINES to BANNER_MAX_LINES lines of its labels' font."""
        if getattr(self, "banner", None) is None:   # a style or font change while the panel is being built
            return
        if refit or not self._banner_height:
            spacing = self.banner_text.layout().spacing()
            line = max(lab.fontMetrics().lineSpacing() for lab in (self.hint, self.preset_label))
            margins = 8   # the rich-text document margins of the bold preset line
            width = self.banner.width()   # no vertical scroll bar when the text fits
            text = sum(lab.heightForWidth(width) for lab in (self.hint, self.preset_label) if not lab.isHidden())
            least, most = (line * n + spacing + margins for n in (BANNER_LINES, BANNER_MAX_LINES))
            self._banner_height = min(max(text + spacing, least), most)
            self._banner_width = width
        self.banner.setFixedHeight(self._banner_height)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt API
        """A new banner width (the panel resized, never typing) fits its height to its text again."""
        if (watched is getattr(self, "banner", None) and event.type() == QEvent.Type.Resize
                and self.banner.width() != self._banner_width):
            self._fit_banner(refit=True)
        return super().eventFilter(watched, event)

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt API
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._fit_banner(refit=True)

    def apply_preset(self, key: str) -> None:
        """Fill the form from preset ``key`` (a resources/presets file name, "fast_cpu" or "fast-cpu", or
        "qa:<hub id>")."""
        self.set_config(preset_config(key, self.config(), self.runs_dir))
        labels = dict(PRESETS)
        self.status_message.emit(f"Preset: {labels.get(key) or labels.get(key.replace('_', '-'), key)}")

    def launch(self) -> bool:
        cfg = self.config()
        try:
            cfg.validate()
        except ConfigError as exc:
            self.problem.setText(f"Cannot launch: {exc}")
            return False
        if self.train_preview.rejected or self.dev_preview.rejected:
            return False   # _changed already says why (the data preview rejected the data)
        cfg = self._free_run_name(cfg)
        if cfg is None:
            return False
        self._remember(cfg)
        if self._needs_download(cfg.model):   # the run starts once the model is in the cache
            self._pending = cfg
            self.problem.setText("")
            self.downloader().fetch(cfg.model.strip())
            return True
        self.launch_requested.emit([cfg], [""])
        return True

    def downloader(self):
        """The launcher's HubDownloader (explorer.ui.inspectors.download_bar), made on first use."""
        if self._downloader is None:
            from explorer.ui.inspectors.client import shared_client
            from explorer.ui.inspectors.download_bar import HubDownloader

            self._downloader = HubDownloader(shared_client(), self.download_bar, self)
            self._downloader.ready.connect(self._downloaded)
            self._downloader.stopped.connect(self._download_stopped)
        return self._downloader

    def _needs_download(self, source: str) -> bool:
        from explorer.core.hub import is_hub_id, is_offline

        if self._downloader is not None:
            return self._downloader.needed(source)
        return is_hub_id(source) and not is_offline()

    def _downloaded(self, repo_id: str) -> None:
        cfg, self._pending = self._pending, None
        if cfg is not None and cfg.model.strip() == repo_id:
            self.status_message.emit(f"{repo_id} is in the cache; the run starts")
            self.launch_requested.emit([cfg], [""])

    def _download_stopped(self, text: str, error: bool) -> None:
        self._pending = None
        self.download_bar.finish()   # the sentence goes where the launcher's problems go
        self.problem.setText(f"Cannot launch: {text}" if error else text)

    def _free_run_name(self, cfg: TrainConfig) -> TrainConfig | None:
        """A Run name the user typed that a run already has: ask whether to use the next free one ("stance
        exists: use stance-2?", explorer.core.runs.store.free_run_id); None when the answer is no."""
        from explorer.core.runs.store import free_run_id

        name = (cfg.run_id or "").strip()
        if not name:
            return cfg
        taken = {s.run_id for s in self.past_runs() if getattr(s, "run_id", None)}
        free = free_run_id(name, Path(cfg.output_dir or self.runs_dir).expanduser(), taken=taken)
        if free == name:
            return cfg
        if not self.ask_yes_no("Run name taken", f"A run named {name} exists: use {free}?"):
            self.problem.setText(f"Cannot launch: a run named {name} exists; type another Run name.")
            return None
        self.editors["run_id"].set(free)
        return dataclasses.replace(cfg, run_id=free)

    def queue_grid(self, confirm: bool = True) -> bool:
        """Queue the paper grid around the form, after a confirmation with the count and the estimated
        time from this machine's measured samples/s (``self.past_runs``: the listed RunStates)."""
        base = self.config()
        grid = paper_grid(base)
        if confirm:
            speed = measured_throughput(self.past_runs(), base.model)
            text = grid_message(grid, self.train_examples(), speed, is_qa_task(base.task))
            if QMessageBox.question(self, "Queue the paper grid", text) != QMessageBox.StandardButton.Yes:
                return False
        self._remember(base)
        if self.group_grid is not None:      # the main window: the grid becomes a run group (Groups tab, Runs dock)
            return bool(self.group_grid())
        suffixes = [f"-bs{c.batch_size}-lr{c.learning_rate:g}-ep{c.epochs:g}" for c in grid]
        self.launch_requested.emit(grid, suffixes)
        return True

    def train_examples(self) -> int | None:
        """Train questions / examples counted by the train data preview (None before it has read them)."""
        res = self.train_preview.result or {}
        counts = res.get("counts") or {}
        for key in ("questions", "examples", "rows"):
            if isinstance(counts.get(key), int):
                return counts[key]
        return None

    def _remember(self, cfg: TrainConfig) -> None:
        self._edited.discard("run_id")   # the launched run's name now: not kept for another task (_switch_task)
        if self.settings is not None:
            self.settings.set_last_config(cfg.to_dict())

    # ---- files ---------------------------------------------------------------------------
    def save_json(self, path: str | Path) -> None:
        self.config().save(path)

    def load_json(self, path: str | Path) -> None:
        """Load a config file into the form (ConfigError with the reason when it is not one)."""
        self.set_config(TrainConfig.load(path))

    def _ask_load(self) -> None:
        start = self.settings.last_dir("config") if self.settings else ""
        path, _ = QFileDialog.getOpenFileName(self, "Load run config", start, "Run configs (*.json)")
        if not path:
            return
        try:
            self.load_json(path)
        except ConfigError as exc:
            QMessageBox.warning(self, "Not a run config", str(exc))
            return
        if self.settings:
            self.settings.set_last_dir("config", str(Path(path).parent))
        self.status_message.emit(f"Loaded {path}")

    def _ask_save(self) -> None:
        start = self.settings.last_dir("config") if self.settings else ""
        path, _ = QFileDialog.getSaveFileName(self, "Save run config", str(Path(start or ".") / "run.json"),
                                              "Run configs (*.json)")
        if path:
            self.save_json(path)
            if self.settings:
                self.settings.set_last_dir("config", str(Path(path).parent))
            self.status_message.emit(f"Saved {path}")

    def _browse_model(self) -> None:
        start = self.settings.last_dir("model") if self.settings else ""
        path = QFileDialog.getExistingDirectory(self, "Model folder (save_pretrained output or checkpoint)", start)
        if path:
            self.editors["model"].set(path)
            if self.settings:
                self.settings.set_last_dir("model", path)

    def _browse_data(self, which: str) -> None:
        start = self.settings.last_dir("data") if self.settings else str(Path(sample_paths()[0]).parent)
        path, _ = QFileDialog.getOpenFileName(self, f"{which} data", start,
                                              "Data files (*.json *.jsonl *.tsv *.csv *.txt *.xlsx);;All files (*)")
        if path:
            self.editors[which].set(path)
            if self.settings:
                self.settings.set_last_dir("data", str(Path(path).parent))

    def _browse_output(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Runs folder", self.editors["output_dir"].get())
        if path:
            self.editors["output_dir"].set(path)

    def _copy_command(self) -> None:
        from PySide6.QtWidgets import QApplication

        QApplication.clipboard().setText(self.command.toPlainText())
        self.status_message.emit("Command copied to the clipboard")

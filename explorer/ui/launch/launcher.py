"""The fine-tune launcher: a form over TrainConfig, presets, data preview, command preview, launch.

The form shows the fields of explorer.ui.launch.field_specs.FIELDS and keeps every other field of the
loaded config untouched. What the form holds and what each change does to it is the Qt-free
:class:`~explorer.ui.launch.form_model.LaunchForm` (``LauncherPanel.form``); the panel shows its values and
texts and forwards the user's edits. "Launch" and "Queue paper grid" emit ``launch_requested(configs,
suffixes)``; the main window hands them to the RunManager (explorer.ui.runs.runner).
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QLabel, QMessageBox, QPushButton,
                               QScrollArea, QSplitter, QVBoxLayout,
                               QWidget)

from explorer.core.specs.tasks import is_qa_task
from explorer.core.specs.train_config import TrainConfig, paper_grid
from explorer.ui.launch.kept_settings import RESET_LINK
from explorer.ui.shell.combo_popup import list_below, popup_fits_items
from explorer.ui.launch.banner import BANNER_LINES, BANNER_MAX_LINES, LaunchBanner, with_note
from explorer.ui.launch.config_files import ConfigFiles
from explorer.ui.launch.form_fields import Editor, set_field_note, set_metric_choices
from explorer.ui.launch.form_model import WARNING_COLOR, LaunchForm, column_choices, grid_suffixes  # noqa: F401
from explorer.ui.launch.grid_estimate import grid_message, measured_throughput
from explorer.ui.launch.hosts_dialog import THIS_MACHINE, RunOnPicker
from explorer.ui.launch.new_run import start_new_run
from explorer.ui.launch.launch_checks import LaunchChecks
from explorer.ui.launch.launch_download import LaunchDownload
from explorer.ui.launch.launch_questions import LaunchQuestions
from explorer.ui.launch.form_view import FormView, PreviewPane
from explorer.ui.shell.more_label import MoreLabel
from explorer.ui.launch.presets import (DEFAULT_WATCH, PRESET_TIPS, PRESETS, command_line, offline_default,
                                        preset_config)

__all__ = ["BANNER_LINES", "BANNER_MAX_LINES", "LauncherPanel", "DEFAULT_WATCH", "PRESETS", "column_choices",
           "command_line", "offline_default", "preset_config"]


class LauncherPanel(ConfigFiles, QWidget):
    """Edit a run, preview its data and command line, launch it (or the paper grid). ``form``: the form's model."""

    launch_requested = Signal(list, list)   # [TrainConfig], [run-id suffix]
    status_message = Signal(str)

    def __init__(self, runs_dir: str | Path, settings=None, parent=None):
        super().__init__(parent)
        self.runs_dir = str(runs_dir)
        self.settings = settings
        self.form = LaunchForm(runs_dir)
        self.form.echo = self._echo
        self.editors: dict[str, Editor] = {}   # field name -> Editor (FormView)
        self._loading = False
        self.group_grid = None  # () -> bool: queue the grid as a run group (set by the main window); None: flat runs
        # (title, text) -> yes? The launcher's questions (a taken Run name); tests replace it
        self.ask_yes_no = lambda title, text: QMessageBox.question(self, title, text) == QMessageBox.StandardButton.Yes
        self.questions = LaunchQuestions(self)   # what Launch checks and asks before a run starts

        top = self._build_top()
        scroll = self._build_form()
        right = self._build_previews()
        bottom = self._build_buttons()
        self._layout(top, self._split(scroll, scroll.form_host, right), bottom)
        self._connect()
        list_below(self)   # a drop-down's list opens under its box, not over it from the current item
        self.set_config(self.form.base)

    @property
    def past_runs(self):
        """() -> RunStates of this machine's runs (set by the main window): measured speed, taken run names."""
        return self.form.past_runs

    @past_runs.setter
    def past_runs(self, getter) -> None:
        self.form.past_runs = getter

    # ---- construction (build / layout / connect) -----------------------------------------
    def _build_top(self) -> QHBoxLayout:
        """The banner (hint and preset line) and the presets combo box."""
        self.presets = QComboBox()
        self.presets.addItem("choose a preset…", None)
        for key, label in PRESETS:
            self.presets.addItem(label, key)
            if key in PRESET_TIPS:
                self.presets.setItemData(self.presets.count() - 1, PRESET_TIPS[key], Qt.ItemDataRole.ToolTipRole)
        self.presets.activated.connect(self._preset_chosen)
        self.banner = LaunchBanner()
        self.hint, self.preset_label, self.banner_text = self.banner.hint, self.banner.preset_label, self.banner.text_box
        top = QHBoxLayout()
        top.addWidget(self.banner, 1)
        top.addWidget(QLabel("Presets:"))
        top.addWidget(self.presets)
        self.presets.setMaximumWidth(330)
        # long preset names are elided in the closed box (the list shows them whole), not widening the window
        self.presets.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.presets.setMinimumContentsLength(18)
        popup_fits_items(self.presets)   # ... and the list as wide as its longest name, none cut in the middle

        return top

    def _build_form(self) -> FormView:
        """The form's editors (``editors``) and watch examples (``watch``), bound to the model."""
        view = self.form_view = FormView(self.settings)
        self.editors, self.watch = view.editors, view.watch
        for name, ed in self.editors.items():
            ed.changed.connect(lambda *_a, name=name: self._field_changed(name))
        self.watch.changed.connect(self._changed)
        return view

    def _build_previews(self) -> PreviewPane:
        """Train / dev data previews and the command preview."""
        pane = PreviewPane()
        self.train_preview, self.dev_preview, self.preview_tabs = pane.train_preview, pane.dev_preview, pane.preview_tabs
        for preview in (self.train_preview, self.dev_preview):
            preview.rejected_changed.connect(self._changed)
        self.command = pane.command
        pane.copy_button.clicked.connect(self._copy_command)
        return pane

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
        # the evaluations the run will make: a short line (RunPlan.eval_summary), why in its tooltip and "more…"
        self.eval_plan = MoreLabel()
        self.eval_plan.setObjectName("hint")
        self.problem = QLabel()
        self.problem.setObjectName("errorLabel")
        self.problem.setWordWrap(True)
        self.checks = LaunchChecks(self)   # the form model's checks shown on the fields, the problem line, Launch
        self.problem.linkActivated.connect(self.checks.link)   # a note's one-click fix
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
        self.run_on = RunOnPicker(self.settings)   # this machine or a remote host
        # the reason Launch is disabled gets the full width on its own row: beside the buttons, at 1280 px, it would
        # be a 9-line column of one or two words each
        bottom = QVBoxLayout()
        bottom.addWidget(self.eval_plan)
        bottom.addWidget(self.problem)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        for b in (self.load_btn, self.save_btn, self.grid_btn, self.run_on, self.launch_btn):
            buttons.addWidget(b)
        bottom.addLayout(buttons)
        return bottom

    def _layout(self, top: QHBoxLayout, split: QSplitter, bottom: QVBoxLayout) -> None:
        self.download = LaunchDownload(self)   # a hub model downloads before its run starts (Launch)
        self.download_bar = self.download.bar
        self.download.ready.connect(self._downloaded)
        self.download.stopped.connect(self._download_stopped)
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
        self.run_on.changed.connect(self._changed)   # its note leaves the banner
        self.preset_label.linkActivated.connect(self._banner_link)   # "Reset to defaults" of the kept settings
        for name in ("train", "dev", "task", "text_columns", "label_column", "id_column", "no_header", "encoding",
                     "label_names", "skip_invalid", "dev_fraction", "label_separator"):
            self.editors[name].changed.connect(self._schedule_preview)
        self.train_preview.finished.connect(self._offer_columns)
        self.train_preview.finished.connect(lambda _res: self._fit_eval_every())
        for preview in (self.train_preview, self.dev_preview):   # the planned steps and the dev rows are known now
            preview.finished.connect(lambda _res: self._changed())
        self._preview_timer = QTimer(self, singleShot=True, interval=400)
        self._preview_timer.timeout.connect(self.refresh_previews)

    # ---- the model's values <-> the editors -----------------------------------------------
    def _echo(self, name: str, value):
        """The model set a field (a rule, not the user): show it, and return it as the editor holds it."""
        editor = self.editors.get(name)
        if editor is None:   # still building: the editors come before the first set_config
            return value
        was, self._loading = self._loading, True
        try:
            editor.set(value)
        finally:
            self._loading = was
        return editor.get()

    def _pull(self) -> None:
        """What the form shows, into the model: the editors' values, the watch examples, the data check."""
        self.form.values.update({name: ed.get() for name, ed in self.editors.items()})
        self.form.watch = self.watch.get()
        self.form.plan.train_result = self.train_preview.result
        self.form.plan.dev_result = self.dev_preview.result

    def config(self) -> TrainConfig:
        """The form as a TrainConfig (LaunchForm.config; fields not in the form come from the last loaded config)."""
        self._pull()
        return self.form.config()

    def set_config(self, config: TrainConfig, edited: Iterable[str] = ()) -> None:
        """Fill the form from ``config`` (LaunchForm.load; ``edited``: the fields the user had set, a remembered
        form's); the banner takes its text's height."""
        self._loading = True
        try:
            self.form.load(config, edited)
            self.watch.set(config.watch)
        finally:
            self._loading = False
        self._changed()
        self.banner.fit(refit=True)   # filled, not typed: the banner takes its text's height
        self.refresh_previews()

    def _field_changed(self, name: str) -> None:
        """One editor changed: the model applies its rules (LaunchForm.edit), the form shows the result."""
        if self._loading:
            return
        if name in ("train", "dev"):   # the previous file's answer, if it comes now, is not this file's: its column
            # guesses and their banner sentence must not land on the new file
            (self.train_preview if name == "train" else self.dev_preview).drop_pending()
        self._pull()
        if self.form.edit(name):
            # a new task: at once, not after the typing pause, so the previews read the files for the task shown
            self._preview_timer.stop()
            self.refresh_previews()
        self._changed()

    def _fit_eval_every(self) -> None:
        """Evaluate every for the rows the data check counted (LaunchForm.fit_eval_every)."""
        self._pull()
        if self.form.fit_eval_every():
            self._changed()

    def train_rows(self) -> int:
        """Training examples the data check counted (RunPlan.train_rows); 0 while unknown."""
        self._pull()
        return self.form.plan.train_rows()

    def train_examples(self) -> int | None:
        """Train questions / examples counted by the train data preview (None before it has read them)."""
        self._pull()
        return self.form.plan.train_examples()

    def show_note(self, text: str) -> None:
        """Show ``text`` (plain) in the banner under the preset line, in place of the first-visit hint, until the
        next set_config or task switch: e.g. where a form filled by "Fine-tune on reviewed rows" got its data."""
        self.form.show_note(text)
        self._changed()
        self.banner.fit(refit=True)   # filled, not typed: the whole note in view (up to BANNER_MAX_LINES lines)

    def new_run(self) -> None:
        """File → New run: the Time budget to its default and Run on to this machine (new_run.start_new_run), the
        banner naming what changed; a form filled for one run (LaunchForm.filled_by) gives way to the defaults'."""
        self._pull()
        filled_by = self.form.filled_by
        if filled_by:   # a run's form filled in for the user (Fine-tune on reviewed rows): the defaults' form
            self.set_config(offline_default(self.runs_dir))
        note = start_new_run(self.form, self.run_on.host_name(), filled_by)
        if self.run_on.host_name():
            self.run_on.choose(THIS_MACHINE)
        if note:
            self.show_note(note)
        else:
            self._changed()

    def _banner_link(self, href: str) -> None:
        """A link in the banner's note: "Reset to defaults" puts the settings kept from before to their defaults."""
        if href == RESET_LINK:
            self._pull()
            self.form.reset_kept_settings()
            self._changed()

    def _changed(self, *_args) -> None:
        """Show what the model says of the form now: metric choices, fields on or greyed, the command line, the
        banner, what blocks a launch and the Evaluate every note."""
        if self._loading:
            return
        cfg = self.config()
        auto, choices = self.form.metric_choices(cfg)
        set_metric_choices(self.editors["metric_for_best"], auto, choices)
        for name, on in self.form.enabled_fields(cfg).items():
            self.editors[name].widget.setEnabled(on)
            self.editors[name].label.setEnabled(on)
        self.watch.setEnabled(is_qa_task(cfg.task))
        self.dev_preview.set_empty_note(self.form.plan.no_dev_note(cfg))
        set_field_note(self.editors["train_cap"], self.form.plan.cap_note(cfg))   # which rows the cap keeps
        self.train_preview.set_cap_line(self.form.plan.squad_cap_line(cfg))   # the questions a SQuAD cap keeps
        self.command.setPlainText(self.form.command(cfg))
        self.banner.show_text(*with_note(self.form.banner(cfg), self.run_on.note))   # a Run on host gone
        self.checks.show(cfg)

    def _schedule_preview(self, *_args) -> None:
        if not self._loading:
            self._preview_timer.start()

    def runs_changed(self) -> None:
        """A run ended or was listed: the estimates that read past runs' rates (the Evaluation line, the whole-run
        time) are worked out again, as when a field changes."""
        self._changed()

    def refresh_previews(self) -> None:
        """Have the train and dev data checks read the form's files (for its task, columns and options)."""
        cfg = self.config()
        options = self.form.preview_options(cfg)
        self.train_preview.request(cfg.train, cfg.task, cfg.text_columns, cfg.label_column, options)
        self.dev_preview.request(cfg.dev, cfg.task, cfg.text_columns, cfg.label_column, options)

    def _offer_columns(self, res: dict) -> None:
        """The training file's columns in the column pickers (FormView.offer_columns), the Label names hint;
        a guess by the values of a file without a header, which the run cannot make, is filled in, once per file,
        and the banner says so (LaunchForm.fill_guess); the data checks then read the files again with it."""
        guess = res.get("guess") or {}
        self._pull()
        if self.form.offer_no_header(str(res.get("header_is_data") or "")):   # read again as the run must
            self._changed()
            self.refresh_previews()
            return
        self.form_view.offer_columns(list(res.get("columns") or []), res.get("samples") or {}, guess,
                                     self.form.pairs_columns(),
                                     self.form.label_names_hint(int(res.get("unnamed_labels") or 0)))
        self._pull()
        if self.form.fill_guess(guess, type_in=lambda name, value: self.editors[name].set(value)):
            self._changed()
            # the check that brought the guess ran without it: read the files again with the guessed columns, so
            # the preview, the Launch line and Launch judge the config the run gets (once: a file is guessed once)
            self._preview_timer.stop()
            self.refresh_previews()
        self.form.offer_f1_classes(list(res.get("class_counts") or {}))   # stance data: F_avg reported

    # ---- presets / launch ----------------------------------------------------------------
    def _preset_chosen(self, index: int) -> None:
        key = self.presets.itemData(index)
        self.presets.setCurrentIndex(0)
        if key:
            self.apply_preset(key)

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt API
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange) and getattr(self, "banner", None):
            self.banner.fit(refit=True)   # not while the panel is being built

    def apply_preset(self, key: str) -> None:
        """Fill the form from preset ``key`` (a resources/presets file name, "fast_cpu" or "fast-cpu", or
        "qa:<hub id>")."""
        self.set_config(preset_config(key, self.config(), self.runs_dir))
        labels = dict(PRESETS)
        self.status_message.emit(f"Preset: {labels.get(key) or labels.get(key.replace('_', '-'), key)}")

    def launch(self) -> bool:
        """Launch the form's run (emits launch_requested; a hub model is downloaded first). False when the form
        cannot launch (the problem line says why) or the user kept a taken Run name."""
        cfg = self.questions.checked(self.config())
        if cfg is None:
            return False
        self._remember(cfg)
        if self.download.needed(cfg.model):   # the run starts once the model is in the cache
            self.problem.setText("")
            self.download.fetch_for(cfg)
            return True
        self.launch_requested.emit([cfg], [""])
        return True

    def downloader(self):
        """The launcher's HubDownloader (LaunchDownload.downloader), made on first use."""
        return self.download.downloader()

    def _downloaded(self, cfg: TrainConfig) -> None:
        self.status_message.emit(f"{cfg.model.strip()} is in the cache; the run starts")
        self.launch_requested.emit([cfg], [""])

    def _download_stopped(self, text: str, error: bool) -> None:
        self.problem.setText(f"Cannot launch: {text}" if error else text)

    def queue_grid(self, confirm: bool = True) -> bool:
        """Queue the paper grid around the form, after a confirmation with the count and the estimated
        time from this machine's measured samples/s (``self.past_runs``: the listed RunStates)."""
        base = self.config()
        grid = paper_grid(base)
        if confirm:
            speed = measured_throughput(self.past_runs(), base.model, base.task)
            text = grid_message(grid, self.train_examples(), speed, is_qa_task(base.task))
            if QMessageBox.question(self, "Queue the paper grid", text) != QMessageBox.StandardButton.Yes:
                return False
        self._remember(base)
        if self.group_grid is not None:      # the main window: the grid becomes a run group (Groups tab, Runs dock)
            return bool(self.group_grid())
        self.launch_requested.emit(grid, grid_suffixes(grid))
        return True

    def _remember(self, cfg: TrainConfig) -> None:
        self.form.launched()   # the launched run's name now: not kept for another task
        if self.settings is not None:
            self.settings.set_last_config(cfg.to_dict())

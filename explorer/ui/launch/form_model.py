"""The launcher form's values and rules, without Qt: what the form holds and what each change does to it.

:class:`LaunchForm` holds a value per launcher field (explorer.ui.launch.field_specs.FIELDS), the watch examples,
which fields the user edited, and decides: what a task switch keeps and clears (the task's recipe defaults on
fields not edited, fields the task does not use shown at their defaults with their values kept aside, data files
of another reader cleared, a run name the user did not type cleared), what a new training file resets (its
layout, the caps, a dev file of the previous data), Evaluate every for the planned steps, the banner's notes,
the run name check, the command line and what blocks a launch (a task switch's rules:
explorer.ui.launch.task_switch). explorer.ui.launch.launcher.LauncherPanel binds
it (as napari's ``components/dims.py`` and ``_qt/widgets/qt_dims.py``): the panel forwards edits
(:meth:`LaunchForm.edit`) and shows the model's values and texts; a value the rules set goes through
:attr:`LaunchForm.echo`, the view's hook that shows it and returns it as the editor holds it (a spin box rounds
to its decimals), so that every rule decides on what the form shows.
"""

from __future__ import annotations

import dataclasses
import html
from pathlib import Path
from typing import Any, Callable, Iterable

from explorer.core.specs.tasks import find_task_facts, is_qa_task
from explorer.core.specs.train_config import TrainConfig
from explorer.ui.launch.class_fields import ClassFields
from explorer.ui.launch.data_files import dev_partner, dev_taken_away, new_train_file
from explorer.ui.launch.field_specs import FIELDS, applies, field_spec, restricted
from explorer.ui.launch.kept_settings import KEPT_SETTINGS, kept_note, reset_kept
from explorer.ui.launch.form_notes import (F1ClassesOffer, NoHeaderTick, drop_guess_note, guessed_columns, kept_files_note, label_names_hint)
from explorer.ui.launch.launch_check import LaunchGate
from explorer.ui.launch.presets import command_line, describe_preset, intro_text, offline_default
from explorer.ui.launch.run_plan import RunPlan
from explorer.ui.launch.small_table import SmallTableRate
from explorer.ui.launch.task_switch import switch_task

__all__ = ["LaunchForm", "column_choices", "grid_suffixes"]

WARNING_COLOR = "#b35c00"   # amber: a note that needs the user's eye (caps put back to all)

_UNSET = object()


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


def grid_suffixes(grid: list[TrainConfig]) -> list[str]:
    """The run-id suffix of each run of a paper grid: "-bs16-lr5e-05-ep3"."""
    return [f"-bs{c.batch_size}-lr{c.learning_rate:g}-ep{c.epochs:g}" for c in grid]


class LaunchForm:
    """The launcher form: its values (one per FIELDS entry, ``values``), the watch examples and the rules.

    ``echo(name, value) -> value``: set by the view; shows a value the rules set and returns it as shown (the
    default keeps it as given). ``past_runs() -> RunStates``: this machine's runs (measured speed, taken run
    names). ``plan``: the run's steps and evaluations (explorer.ui.launch.run_plan.RunPlan, whose
    ``train_result`` is the training data check's result); ``gate``: what blocks a launch
    (explorer.ui.launch.launch_check.LaunchGate).
    """

    # what the form says about the training file's layout: another file's columns, header and encoding do not
    # describe a newly chosen one (STS-B would get a stance file's Tweet / Stance and label names), nor does the
    # leave to skip its bad rows (ticked for one file's few bad labels, it would hide another file's silently)
    FILE_SETTINGS = ("text_columns", "label_column", "id_column", "no_header", "encoding", "label_names",
                     "skip_invalid")
    # how much of the data a run reads, sized for one file: a Train cap set for a small file would silently train
    # on a part of the next one
    CAP_SETTINGS = ("train_cap", "dev_cap")
    # the fields that change how many steps a run plans, and so the Evaluate every that fits it (max_seq_length:
    # the speed a time budget's steps are counted at)
    STEP_SETTINGS = ("batch_size", "gradient_accumulation_steps", "train_cap", "epochs", "max_steps",
                     "time_budget_minutes", "max_seq_length")

    def __init__(self, runs_dir: str | Path):
        self.runs_dir = str(runs_dir)
        self.base = offline_default(runs_dir)   # the loaded config: the fields not in the form come from it
        self.values: dict[str, Any] = {spec.name: getattr(self.base, spec.name) for spec in FIELDS}
        self.watch: list[dict] = []
        self.echo: Callable[[str, Any], Any] = lambda _name, value: value
        self.past_runs: Callable[[], list] = list
        self.plan = RunPlan(self.values)
        self.plan.past_runs = lambda: self.past_runs()
        self.gate = LaunchGate(self.runs_dir, lambda: self.past_runs())
        self.edited: set[str] = set()   # fields the user changed since the last preset / loaded config
        self.task = ""                  # the task the form's recipe is for
        self.note = ""                  # the banner's note under the preset line ("" shows the first-visit hint)
        # the task switch's note, kept in parts so that choosing a data file it cleared rewrites it: (recipe
        # sentence, data files still to choose, the task those were for, [(split, path, task label)] kept from a
        # task whose labels mean something else, named while they are still the form's)
        self.switch_note: tuple[str, list[str], str, list[tuple[str, str, str]]] | None = None
        self.file_task: dict[str, str] = {}   # "train" / "dev" -> the task the form had when that file was set
        self.file_note = ""             # what a new training file reset
        self.dev_home: str | None = None   # the training file's folder when the dev file was set
        self.dev_named = ""                # the last dev file set (the one a cleared Dev data held)
        self.preset = ""                # the preset the form was set from, while its task is kept
        self.guessed_for: str | None = None   # the training file whose columns were guessed from its values
        self.guessed: dict[str, Any] = {}     # picker -> the value the guess put in (guessed again on a task switch)
        self.guess_note = ""                  # the banner's sentence on the guess, in file_note until a column is picked
        # what filled the whole form for one run other than the user ("Fine-tune on reviewed rows"): New run then
        # starts from the defaults, not from that run's form (new_run.start_new_run); "" after any other load
        self.filled_by = ""
        self.f1_offer = F1ClassesOffer()   # F1 classes filled for a field's labels (stance: FAVOR, AGAINST)
        self.no_header_tick = NoHeaderTick()   # No header row ticked for a file whose first line is data
        self.class_fields = ClassFields()   # the fields naming classes, against the data's classes
        self.caps_note = ""             # the caps a new training file put back to "all", until edited
        self.kept_note = ""             # the non-default settings a change of data kept (kept_settings.kept_note)
        self.parked: dict[str, Any] = {}   # field -> value kept out of sight while the task does not use it
        self.small_table = SmallTableRate()   # the learning rate a small table on the bundled encoder needs

    # ---- values ----------------------------------------------------------------------------
    def get(self, name: str) -> Any:
        """The form's value of field ``name``."""
        return self.values[name]

    def set(self, name: str, value: Any) -> None:
        """Set field ``name`` by a rule (not typed by the user): the view shows it (``echo``)."""
        self.values[name] = self.echo(name, value)

    def load(self, config: TrainConfig, edited: Iterable[str] = ()) -> None:
        """Fill the form from ``config`` (a preset, a loaded file, a filled form): nothing counts as edited but
        the fields named in ``edited`` (a form remembered at the last close: the values the user set there stay
        theirs, so Evaluate every 15 is not refitted after a restart), the notes go, and a Best checkpoint by
        equal to what automatic picks shows as automatic."""
        self.edited.clear()
        self.task, self.note, self.switch_note, self.file_note = config.task, "", None, ""
        self.caps_note = self.kept_note = ""
        self.parked = {}
        self.small_table.forget()
        self.f1_offer = F1ClassesOffer()
        self.class_fields.loaded(config.train)
        self.no_header_tick.settled(config.train)
        self.file_task = {"train": config.task, "dev": config.task}
        named = describe_preset(config)   # the preset the form starts from ("" when custom)
        self.preset = named.split(" (")[0].removeprefix("Preset: ") if named.startswith("Preset:") else ""
        self.filled_by = ""
        self.guessed.clear()   # the columns now are the config's, not a guess
        self.guessed_for = None   # those it leaves empty are guessed again (a label guess is read, never typed)
        self.base = config
        for spec in FIELDS:
            self.set(spec.name, getattr(config, spec.name))
        if config.metric_for_best == self.automatic_metric(config.task, dataclasses.asdict(config)):
            self.set("metric_for_best", "")
        self.watch = list(config.watch)
        dev_partner(self)
        self.edited.update(name for name in edited if name in self.values)

    def edit(self, name: str, value: Any = _UNSET) -> bool:
        """The user changed field ``name`` (to ``value`` when given). A new task brings its defaults
        (core.specs.tasks.task_defaults) to the recipe fields the user has not edited; any other field is marked
        edited, and a data file, a cap or a step setting applies its rules. Returns whether the task switched
        (the data checks then read the files again at once, for the task shown)."""
        previous = self.values.get(name)
        if value is not _UNSET:
            self.values[name] = value
        switched = name == "task"
        if switched:
            self._switch_task(self.values["task"])
        else:
            self.edited.add(name)
        if name == "no_header":
            self.no_header_tick.settled(self.values["train"])
        if name in self.STEP_SETTINGS:
            self.fit_eval_every()
        if name in ("train", "dev"):
            self.file_task[name] = self.values["task"]
        if name == "train":
            new_train_file(self, previous)
        if name in ("label_column", "text_columns"):
            drop_guess_note(self, name)
        if name in self.CAP_SETTINGS and self.caps_note:   # set again by the user: nothing to warn about
            self.caps_note = ""
            self.compose_note()
        if name in KEPT_SETTINGS and self.kept_note:   # the line names what is kept now
            self.note_kept_settings()
        if name == "dev":
            dev_partner(self)
            dev_taken_away(self, previous)
        if name in ("model", "task", "train", "learning_rate", "train_cap"):
            self._fit_learning_rate()
        if name in ("train", "dev") and self.switch_note is not None:
            if self.values[name]:   # chosen: no longer to do; a training file chosen is the data chosen (the dev
                # rows then come from a dev file or a held-out share, which the form and Launch say themselves)
                self.switch_note[1][:] = [] if name == "train" else [n for n in self.switch_note[1] if n != name]
            self.compose_note()   # and a file kept from another task that is no longer the form's is not named
        return switched

    def show_note(self, text: str) -> None:
        """Show ``text`` (plain) in the banner under the preset line, in place of the first-visit hint, until the
        next load or task switch: e.g. where a form filled by "Fine-tune on reviewed rows" got its data."""
        self.switch_note, self.file_note = None, ""
        self.note = html.escape(text)

    def note_kept_settings(self) -> None:
        """The banner's line naming the non-default settings a change of data kept (kept_settings.kept_note)."""
        self.kept_note = kept_note(self.values, self.edited)
        self.compose_note()

    def reset_kept_settings(self) -> list[str]:
        """The banner's "Reset to defaults": the kept settings back to their defaults (kept_settings.reset_kept),
        their line gone. Returns the names reset."""
        names = reset_kept(self)
        self.kept_note = ""
        self.compose_note()
        return names

    # ---- the run's config ------------------------------------------------------------------
    def config(self) -> TrainConfig:
        """The form as a TrainConfig (fields not in the form come from the last loaded config): a setting the
        task does not use at its default, watch examples only for QA, a dev file or a held-out share (never
        both), the label count inferred again for another task or training file, Best checkpoint by written out
        only where it is not the task's default, the runs folder when Output is empty; a label column guessed from
        the values (``guessed``) while the picker is empty."""
        values = dict(self.values)
        task = values.get("task", self.base.task)
        defaults = TrainConfig()
        guessed_label = self.guessed.get("label_column")
        if guessed_label and not values.get("label_column") and self.guessed_for == values.get("train"):
            values["label_column"] = guessed_label   # the guess shown in grey, read until a column is picked
        for spec in FIELDS:
            if spec.name in values and not applies(spec, task):
                values[spec.name] = getattr(defaults, spec.name)
        values["watch"] = list(self.watch) if is_qa_task(task) else []   # watch examples are QA questions
        if values.get("dev", self.base.dev):   # the Preview would show --dev-fraction beside --dev
            values["dev_fraction"] = defaults.dev_fraction
        if task != self.base.task or values.get("train", self.base.train) != self.base.train:
            # the loaded config's label count was for its task's data and file (a stance run's 3): another task or
            # training file infers its own from the data (0): a regression run or an SST-2 run after the stance
            # file must not carry 3 (config.json would say 3 while the head has 2)
            values["num_labels"] = 0
        if not values.get("metric_for_best"):   # the command line's rule: core.specs.tasks.recorded_metric_for_best
            values["metric_for_best"] = self.recorded_metric(task, values)
        if not values["output_dir"]:
            values["output_dir"] = self.runs_dir
        return dataclasses.replace(self.base, **values)

    def command(self, cfg: TrainConfig) -> str:
        """The preview command: the shell command that runs ``cfg`` headless."""
        return command_line(cfg)

    def recorded_metric(self, task: str, values: dict) -> str:
        """The metric_for_best config.json records when "Best checkpoint by" is automatic (""  when it is the
        task's default), with the training data check's class counts: core.specs.tasks.recorded_metric_for_best."""
        from explorer.core.specs.tasks import recorded_metric_for_best

        counts = (self.plan.train_result or {}).get("class_counts") or None
        return recorded_metric_for_best({"task": task, "f1_classes": values.get("f1_classes") or (),
                                         "num_labels": values.get("num_labels", self.base.num_labels) or 0}, counts)

    def automatic_metric(self, task: str, values: dict) -> str:
        """What "Best checkpoint by: automatic" stands for with the form's F1 classes (f_avg when they are named)
        and the training data check's class counts (macro F1 when they are imbalanced;
        core.specs.tasks.automatic_metric_for_best)."""
        from explorer.core.specs.tasks import automatic_metric_for_best

        counts = (self.plan.train_result or {}).get("class_counts") or None
        return automatic_metric_for_best(task, values.get("f1_classes") or (),
                                         values.get("num_labels", self.base.num_labels) or 0, counts)

    def metric_choices(self, cfg: TrainConfig) -> tuple[str, list[tuple[str, str]]]:
        """(what automatic picks, as shown; [(metric, shown name)]) for Best checkpoint by: the metrics the task's
        runs may be picked by (core.specs.tasks.metric_for_best_choices), named as the rest of the app names them."""
        from explorer.core.specs.metric_display import metric_name
        from explorer.core.specs.tasks import metric_for_best_choices

        names = metric_for_best_choices(cfg.task, cfg.num_labels, cfg.f1_classes)
        auto = self.automatic_metric(cfg.task, {"f1_classes": cfg.f1_classes, "num_labels": cfg.num_labels})
        shown = metric_name(auto, cfg.task)
        if auto == "f_avg":
            shown += " (F1 classes)"
        elif auto == "macro_f1" and auto != find_task_facts(cfg.task).best_metric:
            shown += " (imbalanced classes)"
        return (shown if auto else ""), [(m, metric_name(m, cfg.task)) for m in names]

    def enabled_fields(self, cfg: TrainConfig) -> dict[str, bool]:
        """Whether each field some task does not use is on for ``cfg``'s task; Dev fraction only without a dev
        file (TrainConfig.resolved_dev_fraction) and for a task that holds rows out (TaskFacts.dev_split)."""
        out = {spec.name: applies(spec, cfg.task) for spec in FIELDS if restricted(spec)}
        facts = find_task_facts(cfg.task)
        out["dev_fraction"] = (applies(field_spec("dev_fraction"), cfg.task) and not cfg.dev
                               and bool(facts and facts.dev_split))
        return out

    def preview_options(self, cfg: TrainConfig) -> dict:
        """The data checks' reading options for ``cfg`` (a held-out share only without a dev file)."""
        return {"id_column": cfg.id_column, "no_header": cfg.no_header, "encoding": cfg.encoding,
                "label_names": cfg.label_names, "skip_invalid": cfg.skip_invalid,
                "dev_fraction": 0.0 if cfg.dev else cfg.resolved_dev_fraction(),
                "label_separator": cfg.label_separator}

    # ---- the banner --------------------------------------------------------------------------
    def banner(self, cfg: TrainConfig) -> tuple[str, str, bool]:
        """(the preset line with the note under it, rich text; the first-visit hint; whether the hint shows). The
        note replaces the hint rather than adding its lines below it: the form under the banner does not move
        down when a task switch writes a note."""
        preset = f"<b>{describe_preset(cfg)}</b>" + (f"<br>{self.note}" if self.note else "")
        return preset, intro_text(cfg), not self.note

    def compose_note(self) -> None:
        """The banner's note from what is true now: the caps a new training file put back to all (first, in amber),
        the task switch's recipe sentence, the data files it cleared that are still to choose, and what the last new
        training file reset."""
        parts = [self.caps_note] if self.caps_note else []   # the warning first: in view without scrolling
        if self.small_table.note:
            parts.append(self.small_table.note)
        if self.switch_note is not None:
            recipe, waiting, old_label, kept = self.switch_note
            parts.append(recipe + (f"; the {' and '.join(waiting)} data of the preset were for {old_label} and were "
                                   "cleared: choose this task's data" if waiting else "")
                         + kept_files_note(self.values, kept))
        if self.file_note:
            parts.append(self.file_note)
        if self.kept_note:
            parts.append(self.kept_note)
        self.note = ". ".join(parts)

    # ---- a task switch (explorer.ui.launch.task_switch) ---------------------------------------
    def _switch_task(self, task: str) -> None:
        switch_task(self, task)

    def fill_guess(self, guess: dict, type_in: Callable[[str, Any], None] | None = None) -> bool:
        """Columns guessed from a file's values (without a header its texts and label; with one, a label column no
        usual name marks) go into the empty pickers, once per training file, as if typed (``type_in(name, value)``,
        default :meth:`edit`), with a word in the banner (form_notes.guessed_columns). Returns whether a field was
        filled."""
        note = guessed_columns(self, guess, type_in or self.edit)
        if note:
            self.guess_note = note
            self.file_note = f"{self.file_note}. {note}" if self.file_note else note
            self.compose_note()
        return bool(note)

    def offer_no_header(self, reason: str) -> bool:
        """The data check found the training file's first line is data (``reason``, its "header_is_data"): No header
        row ticked, once per file and never over the user's choice (form_notes.NoHeaderTick), with a word in the
        banner. Returns whether it was ticked (the data checks then read the files again)."""
        note = self.no_header_tick.offer(self, reason)
        if note:
            self.file_note = f"{self.file_note}. {note}" if self.file_note else note
            self.compose_note()
        return bool(note)

    def offer_f1_classes(self, class_names: list[str]) -> bool:
        """The data check counted the training data's classes: fields naming classes set for other data that this
        data lacks are cleared (class_fields.ClassFields), and F1 classes filled for a field's labels
        (form_notes.F1ClassesOffer), and the learning rate a small table on the bundled encoder needs
        (small_table.SmallTableRate), each with a word in the banner. Returns whether a field changed."""
        notes = [self.class_fields.counted(self, self.values["train"], class_names),
                 self.f1_offer.offer(self, class_names)]
        note = ". ".join(n for n in notes if n)
        rate = self._fit_learning_rate()   # the data check counted the rows too
        if note:
            self.file_note = f"{self.file_note}. {note}" if self.file_note else note
            self.compose_note()
        return bool(note) or rate

    def _fit_learning_rate(self) -> bool:
        """The small table's learning rate on the bundled encoder (small_table.SmallTableRate), its banner note
        written; returns whether the value changed."""
        before = self.small_table.note
        changed = self.small_table.update(self)
        if changed or before != self.small_table.note:
            self.compose_note()
        return changed

    label_names_hint = staticmethod(label_names_hint)

    def pairs_columns(self) -> bool:
        """Whether the form's task reads a pair of texts (the Text columns picker then offers column pairs)."""
        return bool(getattr(find_task_facts(self.config().task), "pair", False))

    def fit_eval_every(self) -> bool:
        """Evaluate every: what fits the run (RunPlan.eval_every), unless the user set it; unchanged while the
        training file's size is unknown. Returns whether it changed."""
        if "eval_every" in self.edited:
            return False
        steps = self.plan.eval_every()
        if steps is None or steps == self.values["eval_every"]:
            return False
        self.set("eval_every", steps)
        return True

    def launched(self) -> None:
        """The form's run was launched (or queued): its Run name is the launched run's now, not the user's to
        keep on a task switch."""
        self.edited.discard("run_id")

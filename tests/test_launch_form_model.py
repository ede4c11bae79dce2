"""The launcher form's rules without Qt (explorer.ui.launch.form_model.LaunchForm and its RunPlan / LaunchGate):
what a task switch keeps and clears, what a new training file resets, the caps, Evaluate every, the banner's
notes, the run name, the command line and what blocks a launch. No qtbot: the model is plain Python."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from types import SimpleNamespace

import pytest
from helpers import REPO_ROOT, worker_env

from explorer.core.specs.train_config import TrainConfig
from explorer.ui.launch.form_model import LaunchForm, column_choices, grid_suffixes


def _form(tmp_path, **fields) -> LaunchForm:
    """A form loaded from TrainConfig(**fields) with its runs folder in tmp_path."""
    form = LaunchForm(tmp_path / "runs")
    form.load(TrainConfig(output_dir=str(tmp_path / "runs"), **fields))
    return form


def _table(tmp_path, name: str, folder: str = "data") -> str:
    path = tmp_path / folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("sentence\tlabel\nok\t1\n")
    return str(path)


def test_the_model_and_its_parts_import_no_qt():
    code = ("import sys; import explorer.ui.launch.form_model, explorer.ui.launch.field_specs, "
            "explorer.ui.launch.run_plan, explorer.ui.launch.launch_check; "
            "qt = [m for m in ('PySide6', 'pyqtgraph', 'shiboken6') if m in sys.modules]; print(qt); "
            "sys.exit(1 if qt else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO_ROOT,
                          env=worker_env(), timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# ---- a task switch ---------------------------------------------------------------------------------------
def test_a_task_switch_brings_its_recipe_defaults_to_the_fields_not_edited(tmp_path):
    form = _form(tmp_path, task="squad_v2", batch_size=8, learning_rate=1e-4, eval_every=50)
    form.edit("batch_size", 12)
    assert form.edit("task", "single")                      # a switch: the data checks read again at once
    assert form.get("batch_size") == 12                    # the user's
    assert form.get("learning_rate") is None and form.get("eval_every") == 0   # the task's defaults
    assert "defaults for the recipe (your batch_size kept)" in form.note
    assert form.task == "single" and not form.edit("epochs", 3.0)


def test_a_field_the_task_does_not_use_goes_to_its_default_and_comes_back_later(tmp_path):
    form = _form(tmp_path, task="single", train=_table(tmp_path, "train.tsv"), f1_classes=["FAVOR", "AGAINST"],
                 class_weights="balanced")
    form.edit("task", "regression")
    assert form.get("f1_classes") == [] and form.get("class_weights") == ""
    assert form.parked == {"f1_classes": ["FAVOR", "AGAINST"], "class_weights": "balanced"}
    assert form.config().f1_classes == []
    form.edit("task", "single")
    assert form.get("f1_classes") == ["FAVOR", "AGAINST"] and form.get("class_weights") == "balanced"
    assert form.parked == {}


def test_a_value_typed_while_parked_is_not_overwritten_when_the_field_comes_back(tmp_path):
    form = _form(tmp_path, task="single", train=_table(tmp_path, "train.tsv"), class_weights="balanced")
    form.edit("task", "regression")
    form.values["class_weights"] = "0=1,1=2"                  # the form shows this when the task uses it again
    form.edit("task", "single")
    assert form.get("class_weights") == "0=1,1=2" and "class_weights" not in form.parked


def test_a_run_name_the_user_did_not_type_is_cleared_on_a_task_switch(tmp_path):
    form = _form(tmp_path, task="single", train=_table(tmp_path, "train.tsv"), run_id="stance reviewed")
    form.edit("task", "regression")
    assert form.get("run_id") == "" and "the previous form's Run name (stance reviewed) cleared" in form.note
    form.edit("run_id", "my run")
    form.edit("task", "single")
    assert form.get("run_id") == "my run"                   # typed: kept
    form.launched()                                         # launched: the run's name now, not the user's to keep
    form.edit("task", "regression")
    assert form.get("run_id") == ""


def test_data_files_of_another_reader_are_cleared_and_the_note_asks_for_this_tasks_data(tmp_path):
    form = _form(tmp_path, task="squad_v2", train="squad_train.json", dev="squad_dev.json")
    form.edit("task", "single")
    assert form.get("train") == "" and form.get("dev") == ""
    assert "the train and dev data of the preset were for SQuAD" in form.note and "choose this task's data" in form.note
    form.edit("dev", _table(tmp_path, "dev.tsv"))
    assert "the train data of the preset were for" in form.note     # the dev file is chosen: train is still to do
    form.edit("train", _table(tmp_path, "train.tsv"))
    assert "of the preset were for" not in form.note and "cleared: choose" not in form.note


def test_the_cleared_data_note_goes_when_the_training_file_is_chosen(tmp_path):
    """A training file chosen is the data chosen (the dev rows come from a dev file or a held-out share): the note
    asking for this task's data must not stay above a form that has it."""
    form = _form(tmp_path, task="squad_v2", train="squad_train.json", dev="squad_dev.json")
    form.edit("task", "single")
    form.edit("train", _table(tmp_path, "train.tsv"))
    assert "choose this task's data" not in form.note and "were cleared" not in form.note


def test_data_files_the_user_picked_stay_across_a_reader_change(tmp_path):
    form = _form(tmp_path, task="squad_v2")
    form.edit("train", "mine.json")
    form.edit("task", "single")
    assert form.get("train") == "mine.json"


def test_files_whose_labels_mean_something_else_are_kept_and_named_until_changed(tmp_path):
    train, dev = _table(tmp_path, "train.tsv"), _table(tmp_path, "dev.tsv")
    form = _form(tmp_path, task="single", train=train, dev=dev)
    form.edit("task", "regression")
    assert form.get("train") == train
    assert "the train and dev files (train.tsv, dev.tsv) were chosen for" in form.note
    assert "check that they hold a number (score) per row" in form.note
    form.edit("dev", _table(tmp_path, "scores.tsv"))
    assert "the train file (train.tsv) was chosen for" in form.note and "it holds" in form.note


def test_a_preset_named_before_a_task_switch_no_longer_applies(tmp_path):
    from explorer.ui.launch.presets import offline_default

    form = LaunchForm(tmp_path / "runs")
    form.load(offline_default(tmp_path / "runs"))
    assert form.preset == "offline default"
    form.edit("task", "single")
    assert form.note.startswith("The preset offline default was for ") and "no longer applies" in form.note
    assert form.preset == ""


def test_a_best_metric_the_new_task_never_reports_goes_back_to_automatic(tmp_path):
    form = _form(tmp_path, task="single", train=_table(tmp_path, "train.tsv"), metric_for_best="macro_f1")
    form.edit("metric_for_best", "accuracy")
    form.edit("task", "regression")
    assert form.get("metric_for_best") == "" and "metric_for_best" not in form.edited


def test_imbalanced_training_classes_make_automatic_best_go_by_macro_f1_and_say_so(tmp_path):
    form = _form(tmp_path, task="single", train=_table(tmp_path, "tweets.tsv"))
    form.plan.train_result = {"ok": True, "counts": {"examples": 1000},
                              "class_counts": {"hate": 50, "offensive": 750, "neither": 200}}
    assert form.config().metric_for_best == "macro_f1"
    shown, _ = form.metric_choices(form.config())
    assert "imbalanced classes" in shown
    form.plan.train_result = {"ok": True, "counts": {"examples": 1000},
                              "class_counts": {"hate": 300, "offensive": 500, "neither": 200}}
    assert form.config().metric_for_best == ""          # the task's own (accuracy)
    form.edit("f1_classes", ["hate", "offensive"])
    form.plan.train_result["class_counts"]["hate"] = 10
    assert form.config().metric_for_best == "f_avg"     # named F1 classes come first


# ---- a new training file ------------------------------------------------------------------------------------
def test_a_new_training_file_resets_the_previous_files_layout_and_says_so(tmp_path):
    form = _form(tmp_path, task="single", train=_table(tmp_path, "stance.tsv"), text_columns=["Tweet"],
                 label_column="Stance", encoding="cp1252")
    form.edit("train", _table(tmp_path, "sts.tsv"))
    assert form.get("text_columns") == [] and form.get("label_column") == "" and form.get("encoding") == ""
    assert "Training file sts.tsv: the previous file's Text columns, Label column, Encoding reset" in form.note
    form.edit("skip_invalid", True)   # ticked for one file's bad rows: not carried to the next file's
    form.edit("train", _table(tmp_path, "ratings.tsv"))
    assert form.get("skip_invalid") is False and "the previous file's Skip invalid rows reset" in form.note


def test_a_new_training_file_puts_the_caps_back_to_all_until_one_is_set_again(tmp_path):
    form = _form(tmp_path, task="single", train=_table(tmp_path, "a.tsv"), train_cap=640, dev_cap=100)
    form.edit("train", _table(tmp_path, "b.tsv"))
    assert form.get("train_cap") == 0 and form.get("dev_cap") == 0
    assert form.note.startswith("<span style='color:#b35c00'>Train cap 640 and Dev cap 100, set for the previous file")
    assert form.config().train_cap == 0
    form.edit("train_cap", 50)
    assert "went back to all" not in form.note


def test_the_caps_note_goes_with_the_next_training_file(tmp_path):
    """The caps' warning is about the file change that reset them: a later new file (nothing to reset) drops it,
    so "Train cap 2,000, set for the previous file" never stays two file changes later."""
    form = _form(tmp_path, task="single", train=_table(tmp_path, "a.tsv"), train_cap=2000)
    form.edit("train", _table(tmp_path, "b.tsv"))
    assert "Train cap 2,000, set for the previous file" in form.note
    form.edit("train", _table(tmp_path, "c.tsv"))
    assert "set for the previous file" not in form.note
    assert "Training file c.tsv" in form.note


def test_a_new_training_file_says_the_settings_it_keeps_and_resets_the_best_metric(tmp_path):
    """Settings set for the previous file that a new file keeps (Evaluate every 1, no checkpoints, dropout 0) are
    named in the banner with a link back to their defaults; Best checkpoint by, tied to the data, goes back to
    automatic (the new labels' metric)."""
    form = _form(tmp_path, task="single", train=_table(tmp_path, "stance.tsv"), dropout=0.0, save_checkpoints=False,
                 metric_for_best="macro_f1")
    form.edit("eval_every", 1)
    form.edit("metric_for_best", "macro_f1")
    form.edit("train", _table(tmp_path, "sst2.tsv"))
    assert form.get("metric_for_best") == "" and "metric_for_best" not in form.edited
    assert "cleared: Best checkpoint by (macro_f1)" in form.note
    assert ("Kept from before: evaluate every 1 step, no checkpoints saved, dropout 0 "
            "(<a href='reset-kept-settings'>Reset to defaults</a>)") in form.note
    assert form.get("eval_every") == 1 and form.get("save_checkpoints") is False   # kept, and said
    form.edit("save_checkpoints", True)                  # the line follows what is kept now
    assert "no checkpoints saved" not in form.note and "evaluate every 1 step, dropout 0" in form.note
    assert set(form.reset_kept_settings()) == {"eval_every", "dropout"}
    assert form.get("dropout") == 0.1 and "eval_every" not in form.edited and "Kept from before" not in form.note


def test_a_task_switch_says_the_settings_it_keeps_and_resets_the_best_metric(tmp_path):
    form = _form(tmp_path, task="single", train=_table(tmp_path, "train.tsv"), save_checkpoints=False)
    form.edit("metric_for_best", "macro_f1")             # a metric the new task reports too
    form.edit("task", "pair")
    assert form.get("metric_for_best") == ""
    assert "Best checkpoint by (macro_f1)" in form.note and "Kept from before: no checkpoints saved" in form.note


def test_a_new_training_file_with_every_setting_at_its_default_keeps_nothing_to_say(tmp_path):
    form = _form(tmp_path, task="single", train=_table(tmp_path, "a.tsv"))
    form.edit("train", _table(tmp_path, "b.tsv"))
    assert "Kept from before" not in form.note


def test_the_banner_says_a_new_files_resets_in_two_short_sentences(tmp_path):
    """Caps, layout, dev file and run name all reset by one new file: the note names each, in a few lines of the
    banner at 1280x800 (not a paragraph that scrolls in it)."""
    import re

    form = _form(tmp_path, task="single", train=_table(tmp_path, "train.txt", "stance"), text_columns=["Tweet"],
                 label_column="Stance", label_names=["AGAINST", "FAVOR", "NONE"], train_cap=2000,
                 dev=_table(tmp_path, "dev.txt", "stance"), run_id="stance lr5e-5")
    form.edit("train", _table(tmp_path, "labeled_data.csv", "tweets"))
    plain = re.sub("<[^>]+>", "", form.note)
    for said in ("Train cap 2,000", "Text columns, Label column, Label names", "dev file dev.txt",
                 "Run name (stance lr5e-5)"):
        assert said in plain
    assert len(plain) <= 240, (len(plain), plain)


def test_a_new_training_file_clears_a_run_name_not_typed_since_the_last_launch(tmp_path):
    """A run name of the previous data ("stance lr5e-5", launched) does not name a run on another file; one the
    user typed for this form stays."""
    form = _form(tmp_path, task="single", train=_table(tmp_path, "stance.tsv"), run_id="stance lr5e-5")
    form.edit("train", _table(tmp_path, "tweets.csv"))
    assert form.get("run_id") == ""
    assert "cleared: Run name (stance lr5e-5)" in form.note
    typed = _form(tmp_path, task="single", train=_table(tmp_path, "stance.tsv"))
    typed.edit("run_id", "my tweets run")
    typed.edit("train", _table(tmp_path, "tweets.csv"))
    assert typed.get("run_id") == "my tweets run"
    typed.launched()
    typed.edit("train", _table(tmp_path, "more.csv"))
    assert typed.get("run_id") == ""


def test_a_dev_file_beside_the_previous_training_file_is_cleared_with_a_new_folder(tmp_path):
    form = _form(tmp_path, task="single", train=_table(tmp_path, "train.tsv", "sst2"),
                 dev=_table(tmp_path, "dev.tsv", "sst2"))
    form.edit("train", _table(tmp_path, "train.tsv", "stsb"))
    assert form.get("dev") == ""
    assert "cleared: dev file dev.tsv" in form.note
    kept = _form(tmp_path, task="single", train=_table(tmp_path, "train.tsv", "sst2"),
                 dev=_table(tmp_path, "dev.tsv", "sst2"))
    kept.edit("train", _table(tmp_path, "other.tsv", "sst2"))   # the same folder: the dev file stays
    assert kept.get("dev").endswith("dev.tsv")


def test_a_cleared_dev_file_leaves_the_usual_held_out_share_not_a_zero_that_came_with_it(tmp_path):
    """A form from reviewed rows holds a dev file and a held-out share of 0 (the field is off beside a dev file):
    a training file from another folder clears the dev file, and the run must still have dev rows."""
    form = _form(tmp_path, task="single", train=_table(tmp_path, "reviewed.tsv", "run"),
                 dev=_table(tmp_path, "dev_split.tsv", "run"), dev_fraction=0.0)
    assert form.config().resolved_dev_fraction() == 0.0
    form.edit("train", _table(tmp_path, "train.txt", "stance"))
    cfg = form.config()
    assert cfg.dev == "" and cfg.resolved_dev_fraction() == 0.1


def test_columns_guessed_from_a_headerless_file_are_filled_once_per_file(tmp_path):
    form = _form(tmp_path, task="single", train=_table(tmp_path, "a.tsv"), no_header=True)
    guess = {"basis": "the values", "text_columns": ["2"], "label_column": "1"}
    assert form.fill_guess(guess)
    assert form.get("text_columns") == ["2"] and "text_columns" in form.edited   # texts as if typed
    assert form.get("label_column") == "" and "label_column" not in form.edited    # the label stays a guess,
    assert form.config().label_column == "1"                                       # read by the run's config
    assert "No header row: Text columns 2 and Label column 1 guessed from the first rows (the values)" in form.note
    form.values["text_columns"] = []
    assert not form.fill_guess(guess)                                   # once per training file
    headed = _form(tmp_path, task="single", train=_table(tmp_path, "b.tsv"), no_header=False)
    assert not headed.fill_guess({"basis": "", "text_columns": ["text"], "label_column": "label"})  # by names: the run's


def test_a_task_switch_guesses_the_guessed_columns_again_and_names_typed_ones_that_no_longer_fit(tmp_path):
    """Regression on a headerless STS-B file guessed Text columns 6, 7 and Label column 5: back to Single sentence
    they are cleared and guessed again for it (the launch refused two text columns for a single-sentence task);
    text columns the user typed stay, and the Kept from before line names them with the fix."""
    form = _form(tmp_path, task="regression", train=_table(tmp_path, "stsb.tsv"), no_header=True)
    assert form.fill_guess({"basis": "the values", "text_columns": ["6", "7"], "label_column": "5"})
    form.edit("task", "single")
    assert form.get("text_columns") == [] and form.config().label_column == ""
    assert not {"text_columns", "label_column"} & form.edited
    assert form.fill_guess({"basis": "the values", "text_columns": ["6"], "label_column": "1"})   # guessed again
    assert form.get("text_columns") == ["6"] and form.config().label_column == "1"

    loaded = _form(tmp_path, task="regression", train=_table(tmp_path, "stsb.tsv"), no_header=True)
    loaded.fill_guess({"basis": "the values", "text_columns": ["6", "7"], "label_column": "5"})
    loaded.load(TrainConfig(task="regression", train=loaded.get("train"), no_header=True, text_columns=["6", "7"]))
    loaded.edit("task", "single")   # a loaded config's columns are not a guess: kept, and named
    assert loaded.get("text_columns") == ["6", "7"] and "text columns 6, 7, but Single sentence" in loaded.note

    typed = _form(tmp_path, task="regression", train=_table(tmp_path, "mine.tsv"), no_header=True)
    typed.edit("text_columns", ["6", "7"])
    typed.edit("task", "single")
    assert typed.get("text_columns") == ["6", "7"]
    assert "Kept from before: text columns 6, 7, but Single sentence" in typed.note
    assert "reads 1 text column: choose 1 under Text columns" in typed.note


def test_a_label_column_found_by_its_values_under_a_header_is_filled_and_said(tmp_path):
    """A header whose label column has no usual name ("Text", "Emotion"): the preview's guess by the values fills
    Label column (not the texts, which the header names) and the banner says why; the launch no longer stops at
    "no label column found"."""
    from explorer.core.data.table import preview_table

    path = tmp_path / "emotions.csv"
    lines = ["Text,Emotion"] + [f"{t},{e}" for t, e in (("i feel so happy today", "happy"),
                                                          ("this is sad news for us all", "sadness"),
                                                          ("why would you do that to me", "anger"))] * 10
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    guess = preview_table(path).guess
    assert guess.label_column == "Emotion" and guess.basis == "column Emotion holds a few values (anger, happy, sadness)"
    form = _form(tmp_path, task="single", train=str(path), no_header=False)
    assert form.fill_guess(dataclasses.asdict(guess))
    assert form.config().label_column == "Emotion" and form.get("text_columns") == []
    assert ("No column is named like a label: Label column Emotion guessed from the first rows (column Emotion holds "
            "a few values (anger, happy, sadness)); check it against the preview") in form.note


# ---- steps, evaluations ---------------------------------------------------------------------------------------
def _counted(form: LaunchForm, rows: int) -> None:
    form.plan.train_result = {"ok": True, "counts": {"examples": rows}}


def test_evaluate_every_follows_the_training_rows_unless_the_user_set_it(tmp_path):
    from explorer.core.specs.tasks import eval_every_for

    form = _form(tmp_path, task="single", train=_table(tmp_path, "a.tsv"), batch_size=16, eval_every=0)
    assert not form.fit_eval_every()                      # the file's size is unknown
    _counted(form, 3_200)
    assert form.fit_eval_every()
    assert form.get("eval_every") == eval_every_for("single", 3_200, 16, 1, 0, max_steps=form.plan.planned_steps()[1])
    form.edit("eval_every", 7)
    _counted(form, 9_000)
    assert not form.fit_eval_every() and form.get("eval_every") == 7


def test_a_dev_file_taken_away_by_hand_leaves_the_usual_held_out_share_too(tmp_path):
    """The same form, its dev file cleared with the field's clear button before another training file is chosen
    (from any folder): the share of 0 that came with the dev file goes too, so the run still holds rows out; a 0
    the user typed stays, and the form then says the run is never evaluated."""
    form = _form(tmp_path, task="single", train=_table(tmp_path, "reviewed.tsv", "run"),
                 dev=_table(tmp_path, "dev_split.tsv", "run"), dev_fraction=0.0)
    form.show_note("The dev rows are the first run's: the 281 training rows it held out (Dev data: dev_split.tsv)")
    form.edit("dev", "")
    assert form.config().resolved_dev_fraction() == 0.1
    assert form.note == ("Dev data dev_split.tsv cleared: the run's dev rows now come from Dev fraction (held out of "
                         "the training file), not from it")
    form.edit("train", _table(tmp_path, "own.csv", "own"))
    cfg = form.config()
    assert cfg.dev == "" and cfg.resolved_dev_fraction() == 0.1
    assert form.plan.no_dev_warning(cfg) == ""
    form.edit("dev_fraction", 0.0)
    cfg = form.config()
    assert cfg.resolved_dev_fraction() == 0.0
    warning = ("No dev file and Dev fraction 0: the run will not be evaluated (no dev curve, no best checkpoint: its "
               "result is checkpoints/last).")
    assert form.plan.no_dev_warning(cfg) == warning and form.plan.eval_preview(cfg) == warning


def test_clearing_the_dev_file_of_a_run_checkpoints_fine_tune_warns_that_its_held_out_rows_are_not_new(tmp_path):
    """Fine-tune on reviewed rows starts from the first run's checkpoint on that run's training rows plus the reviewed
    ones, with the first run's dev rows: clearing them would hold rows out of data the checkpoint was trained on,
    and the banner says its figures would be optimistic."""
    run = tmp_path / "runs" / "stance"
    (run / "checkpoints" / "best").mkdir(parents=True)
    (run / "config.json").write_text('{"model": "bundled:minilm", "train": "stance.txt"}', encoding="utf-8")
    form = _form(tmp_path, task="single", train=_table(tmp_path, "train-plus-corrected.tsv", "fine"),
                 dev=_table(tmp_path, "dev-rows-of-stance.tsv", "fine"), dev_fraction=0.0,
                 model=str(run / "checkpoints" / "best"))
    form.edit("dev", "")
    assert "Base model is the checkpoint of run stance: rows held out of this training file may be rows it was " \
           "trained on, so its dev figures would be optimistic" in form.note
    assert form.note.startswith("Dev data dev-rows-of-stance.tsv cleared")
    plain = _form(tmp_path, task="single", train=_table(tmp_path, "a.tsv"), dev=_table(tmp_path, "d.tsv"))
    plain.edit("dev", "")
    assert "optimistic" not in plain.note


def test_an_evaluate_every_not_below_the_planned_steps_is_noted(tmp_path):
    form = _form(tmp_path, task="single", train=_table(tmp_path, "a.tsv"), dev=_table(tmp_path, "d.tsv"),
                 max_steps=60, eval_every=90)
    cfg = form.config()
    assert form.plan.eval_note(cfg) == ("Evaluate every 90 is not below the 60 steps this run plans: it evaluates "
                                        "only at the start and the end")
    form.edit("eval_every", 20)
    assert form.plan.eval_note(form.config()) == ""


def test_the_steps_a_time_budget_fits_are_said_as_an_estimate(tmp_path):
    """A Time budget's steps come from an expected speed (the built-in rate with no past run): the note says
    "about" and that the run counts them again, not that the run plans that many (5 were said, 31 done)."""
    form = _form(tmp_path, task="single", train=_table(tmp_path, "a.tsv"), dev=_table(tmp_path, "d.tsv"),
                 time_budget_minutes=1.0, epochs=4.0, eval_every=500)
    form.plan.train_result = {"ok": True, "counts": {"examples": 5749}}
    planned = form.plan.planned_steps()[1]
    assert 0 < planned < 500
    note = form.plan.eval_note(form.config())
    assert note.startswith(f"Evaluate every 500 is not below the about {planned} steps this run's Time budget fits")
    assert "counts them again as it trains" in note and "this run plans" not in note


def test_a_time_budget_plans_the_steps_this_machines_speed_allows(tmp_path):
    import numpy as np

    form = _form(tmp_path, task="single", train=_table(tmp_path, "a.tsv"), batch_size=10, epochs=100.0,
                 time_budget_minutes=1.0)
    _counted(form, 1_000)
    from explorer.ui.runs.state import Series

    def past(run_id, rate, length, started):
        speed = Series()
        speed.extend(np.array([1.0, 2.0]), np.array([rate, rate]))
        return SimpleNamespace(run_id=run_id, model=form.get("model"), task="single", started_at=started, device="",
                               config={"batch_size": 10, "max_seq_length": length}, series={"samples_per_second": speed})

    length = form.config().resolved_max_seq_length()
    # the latest past run trained a shorter length 2.6 times faster: its speed would promise 78 steps
    form.past_runs = lambda: [past("alike", 5.0, length, 1.0), past("shorter", 13.0, length // 2, 2.0)]
    per_epoch, planned = form.plan.planned_steps()
    assert (per_epoch, planned) == (100, 30)             # 60 s x 5 samples/s / 10 per step


def test_a_first_runs_evaluation_line_gives_the_cadence_the_run_plans_at_rough_rates(tmp_path):
    """No past run here, SST-2's 67,349 training and 872 dev rows, a 3-minute Time budget: the command keeps the
    Evaluate every the field fitted, and the Evaluation line says what the run's planning
    (eval_schedule.plan_for_run) chooses at the rough rates, the built-in training rate of a table's rows and
    ROUGH_EVAL_FACTOR times it to evaluate, around the steps of the budget's training share."""
    from explorer.core.models.speed import builtin_rate
    from explorer.core.training.eval_budget import budget_plan_steps
    from explorer.core.training.eval_schedule import plan_for_run
    from explorer.ui.launch.eval_plan_preview import ROUGH_EVAL_FACTOR

    form = _form(tmp_path, task="single", train=_table(tmp_path, "a.tsv"), dev=_table(tmp_path, "d.tsv"),
                 time_budget_minutes=3.0)
    _counted(form, 67_349)
    form.plan.dev_result = {"ok": True, "counts": {"examples": 872}}
    form.past_runs = lambda: []
    form.fit_eval_every()
    cfg = form.config()
    assert f"--eval-every {cfg.eval_every}" in form.command(cfg)
    rate, per_step = builtin_rate(cfg.model, cfg.task), cfg.batch_size
    steps = budget_plan_steps(180.0, cfg.eval_share, rate / per_step, form.plan._bound_steps())
    own = plan_for_run(wanted_every=cfg.eval_every, share=cfg.eval_share, full_dev_asked=False, sampleable=True, dev_total=872,
                       steps=steps, windows_per_step=per_step, train_rate=rate, eval_rate=ROUGH_EVAL_FACTOR * rate)
    from test_launch_eval_preview import assert_line_gives

    line = form.plan.eval_summary(cfg)
    assert_line_gives(line, own, 872)
    assert line.startswith("Evaluation at rough rates: ") and "whole run about " in line, line


def test_train_rows_and_examples_come_from_the_data_check(tmp_path):
    form = _form(tmp_path, task="ner")
    assert form.plan.train_rows() == 0 and form.plan.train_examples() is None
    form.plan.train_result = {"ok": True, "counts": {"sentences": 14}}
    assert form.plan.train_rows() == 14
    form.plan.train_result = {"ok": False, "counts": {"examples": 14}}
    assert form.plan.train_rows() == 0 and form.plan.train_examples() == 14


# ---- the run's config ---------------------------------------------------------------------------------------
def test_the_config_leaves_out_what_the_task_does_not_use(tmp_path):
    form = _form(tmp_path, task="squad_v2", doc_stride=64, watch=[{"question": "q", "passage": "p"}])
    assert form.config().doc_stride == 64 and form.config().watch == [{"question": "q", "passage": "p"}]
    form.values["task"] = "single"                       # shown, not yet switched: the config follows the form
    cfg = form.config()
    assert cfg.doc_stride == TrainConfig().doc_stride and cfg.watch == []
    assert cfg.num_labels == 0                           # another task infers its own label count
    assert cfg.output_dir == str(tmp_path / "runs")


def test_a_dev_file_and_a_held_out_share_are_never_both_in_the_config(tmp_path):
    form = _form(tmp_path, task="single", train=_table(tmp_path, "a.tsv"), dev_fraction=0.2)
    assert form.config().dev_fraction == 0.2
    form.edit("dev", _table(tmp_path, "d.tsv"))
    assert form.config().dev_fraction == TrainConfig().dev_fraction
    assert not form.enabled_fields(form.config())["dev_fraction"]


def test_best_checkpoint_by_automatic_is_written_out_only_where_it_is_not_the_tasks_default(tmp_path):
    form = _form(tmp_path, task="single", train=_table(tmp_path, "a.tsv"))
    assert form.config().metric_for_best == ""
    form.edit("f1_classes", ["FAVOR", "AGAINST"])        # automatic picks f_avg once F1 classes are named
    assert form.config().metric_for_best == "f_avg"
    auto, choices = form.metric_choices(form.config())
    assert auto.endswith("(F1 classes)") and any(m == "accuracy" for m, _ in choices)


def test_the_command_and_the_banner(tmp_path):
    form = _form(tmp_path, task="single", train=_table(tmp_path, "a.tsv"))
    cfg = form.config()
    assert form.command(cfg).startswith("bert-explorer train ") and "--task single" in form.command(cfg)
    preset, hint, hint_shown = form.banner(cfg)
    assert preset.startswith("<b>") and hint.startswith("Set up a fine-tune.") and hint_shown
    form.show_note("rows <reviewed>")
    preset, _, hint_shown = form.banner(cfg)
    assert preset.endswith("<br>rows &lt;reviewed&gt;") and not hint_shown
    form.load(cfg)
    assert form.banner(cfg)[2]                           # a new form: the hint again


# ---- launching -------------------------------------------------------------------------------------------------
def test_what_blocks_a_launch(tmp_path):
    form = _form(tmp_path, task="single", train=_table(tmp_path, "a.tsv"))
    gate = form.gate
    ok = gate.check(form.config(), [])
    assert ok.problem == "" and ok.windows == []
    refused = gate.refusal("dev", "/x/dev.tsv", {"error": "line 3: no label\nmore"})
    assert refused == "the dev data cannot be used (dev.tsv): line 3: no label"
    assert gate.check(form.config(), [refused]).problem == refused
    bad = gate.check(TrainConfig(task="single", train="a.tsv", batch_size=0), [])
    assert "batch_size" in bad.problem and bad.windows is None          # not validated: windows not checked
    long = gate.check(form.config().__class__(**{**form.config().to_dict(), "max_seq_length": 4096}), [])
    assert long.problem.startswith("window settings do not fit the model: max_seq_length 4096")
    marks = gate.window_marks(long.windows)
    assert marks["max_seq_length"][1] == "error" and marks["doc_stride"] == ("", "warning")


def test_a_taken_run_name_gets_the_next_free_one(tmp_path):
    form = _form(tmp_path, task="single", train=_table(tmp_path, "a.tsv"))
    (tmp_path / "runs" / "stance").mkdir(parents=True)
    assert form.gate.taken_name(form.config()) is None                      # no name typed
    form.edit("run_id", "stance")
    assert form.gate.taken_name(form.config()) == ("stance", "stance-2")
    form.past_runs = lambda: [SimpleNamespace(run_id="stance-2")]
    assert form.gate.taken_name(form.config()) == ("stance", "stance-3")
    form.edit("run_id", "fresh")
    assert form.gate.taken_name(form.config()) is None


def test_what_the_rules_set_goes_through_the_views_echo(tmp_path):
    shown = []
    form = LaunchForm(tmp_path / "runs")
    form.echo = lambda name, value: (shown.append(name), value)[1]
    form.load(TrainConfig(task="single", train_cap=5, train=_table(tmp_path, "a.tsv")))
    assert "train_cap" in shown and "task" in shown
    shown.clear()
    form.edit("train", _table(tmp_path, "b.tsv"))
    assert "train_cap" in shown                          # the reset cap is shown


@pytest.mark.parametrize("pairs, want", [(False, [("a", "a — 1"), ("b", "b")]),
                                         (True, [("a, b", "a, b — 1")])])
def test_column_choices_name_a_sample_value(pairs, want):
    assert column_choices(["a", "b"], {"a": 1}, pairs) == want


def test_grid_suffixes_name_the_grids_settings():
    from explorer.core.specs.train_config import paper_grid

    grid = paper_grid(TrainConfig())
    assert grid_suffixes(grid)[0] == f"-bs{grid[0].batch_size}-lr{grid[0].learning_rate:g}-ep{grid[0].epochs:g}"
    assert len(set(grid_suffixes(grid))) == len(grid)


def test_the_label_names_hint_says_where_the_class_names_go():
    assert LaunchForm.label_names_hint(0) == ""
    assert LaunchForm.label_names_hint(2) == "e.g. negative,positive (the labels are 0, 1)"
    assert LaunchForm.label_names_hint(6) == "a name per class, comma-separated (the labels are 0, 1, 2, 3, …)"


# ---- F1 classes for the stance data ------------------------------------------------------------------------------
def test_stance_labels_fill_f1_classes_so_the_run_reports_f_avg(tmp_path):
    """The SemEval-2016 stance labels (AGAINST, FAVOR, NONE) fill F1 classes with FAVOR, AGAINST (the official
    F_avg), with a word in the banner; Best checkpoint by automatic then means F_avg; another file's classes
    (hate / offensive / neither) take them out again."""
    form = _form(tmp_path, task="single", train=_table(tmp_path, "train.txt", "stance"))
    assert form.offer_f1_classes(["AGAINST", "FAVOR", "NONE"])
    assert form.get("f1_classes") == ["FAVOR", "AGAINST"] and form.config().f1_classes == ["FAVOR", "AGAINST"]
    assert "F1 classes FAVOR, AGAINST" in form.note and "F_avg" in form.note
    assert form.metric_choices(form.config())[0].startswith("F_avg")
    assert not form.offer_f1_classes(["AGAINST", "FAVOR", "NONE"])     # once per file
    form.edit("train", _table(tmp_path, "labeled_data.csv", "tweets"))
    assert form.get("f1_classes") == []
    assert not form.offer_f1_classes(["hate", "offensive", "neither"])


def test_f1_classes_the_user_set_are_never_replaced(tmp_path):
    form = _form(tmp_path, task="single", train=_table(tmp_path, "train.txt", "stance"))
    form.edit("f1_classes", ["FAVOR"])
    assert not form.offer_f1_classes(["AGAINST", "FAVOR", "NONE"]) and form.get("f1_classes") == ["FAVOR"]
    regression = _form(tmp_path, task="regression", train=_table(tmp_path, "train.txt", "stance"))
    assert not regression.offer_f1_classes(["AGAINST", "FAVOR", "NONE"])   # no f_avg on that head


def test_the_stance_classes_are_recognised_by_the_field_figures_table():
    from explorer.core.specs.metrics import field_f1_classes

    assert field_f1_classes(["AGAINST", "FAVOR", "NONE"]) == ("FAVOR", "AGAINST")
    assert field_f1_classes(["FAVOR", "NONE"]) == () and field_f1_classes(None) == ()


# ---- fields that name classes, against the training data's classes -----------------------------------------------
def test_class_fields_set_for_other_data_are_cleared_when_the_new_datas_classes_are_counted(tmp_path):
    """A form filled for stance data (F1 classes FAVOR, AGAINST, Best checkpoint by f_avg, class weights by name)
    whose training file becomes a spam file: once the data check counts ham, spam, the names the file lacks go,
    with f_avg, and the banner names them; the run can no longer fail on them."""
    stance = _table(tmp_path, "reviewed.tsv", "stance")
    form = _form(tmp_path, task="single", train=stance, f1_classes=["FAVOR", "AGAINST"], metric_for_best="f_avg",
                 class_weights="FAVOR=2,AGAINST=1")
    form.edit("metric_for_best", "f_avg")
    form.offer_f1_classes(["AGAINST", "FAVOR", "NONE"])          # its own data: nothing changes
    assert form.get("f1_classes") == ["FAVOR", "AGAINST"]
    form.edit("train", _table(tmp_path, "spam.csv", "spam"))
    assert form.offer_f1_classes(["ham", "spam"])
    assert form.get("f1_classes") == [] and form.get("class_weights") == "" and form.get("metric_for_best") == ""
    cfg = form.config()
    assert cfg.f1_classes == [] and cfg.metric_for_best == "" and "--f1-classes" not in form.command(cfg)
    assert "F1 classes (FAVOR, AGAINST)" in form.note and "Best checkpoint by (f_avg)" in form.note
    assert "(ham, spam): cleared" in form.note
    assert form.class_fields.refusals(form.values) == {}


def test_class_names_typed_for_this_data_that_it_lacks_block_the_launch_by_name(tmp_path):
    """Names set for the data now chosen are the user's: they stay, and Launch is refused naming them and the
    data's classes, before the run loads a model; a later file from another path (a typed path, a loaded
    config) goes through the same count."""
    spam = _table(tmp_path, "spam.csv", "spam")
    form = _form(tmp_path, task="single", train=spam, f1_classes=["FAVOR", "AGAINST"])
    assert not form.offer_f1_classes(["ham", "spam"])            # loaded with this file: the user's to fix
    assert form.get("f1_classes") == ["FAVOR", "AGAINST"]
    assert form.class_fields.refusals(form.values) == {
        "f1_classes": "F1 classes name FAVOR, AGAINST, not classes of the training data (its classes: ham, spam)"}
    form.edit("class_weights", "spam=3,junk=1")
    assert "Class weights names junk, not a class" in form.class_fields.refusals(form.values)["class_weights"]
    form.edit("f1_classes", ["spam"])
    form.edit("class_weights", "balanced")
    assert form.class_fields.refusals(form.values) == {}


def _checked(form, rows: int) -> None:
    """The training data check counted ``rows`` rows of two classes."""
    form.plan.train_result = {"ok": True, "counts": {"examples": rows}, "class_counts": {"0": rows // 2, "1": rows // 2}}
    form.offer_f1_classes(["0", "1"])


def test_a_small_table_on_the_bundled_encoder_gets_learning_rate_1e4_until_the_user_types_one(tmp_path):
    """400 SST-2 rows stay at chance at the task's 2e-5 on the bundled encoder (1e-4 learns): the form picks 1e-4
    for a table under SMALL_TABLE_ROWS and says why; a typed value wins; a big table keeps the task's rate."""
    from explorer.ui.launch.small_table import SMALL_TABLE_LEARNING_RATE, SMALL_TABLE_ROWS

    form = _form(tmp_path, task="single", model="bundled:minilm", train=_table(tmp_path, "train.tsv"))
    assert form.get("learning_rate") is None
    _checked(form, 400)
    assert form.get("learning_rate") == SMALL_TABLE_LEARNING_RATE == 1e-4
    assert "Learning rate 1e-4, not 2e-5: on 400 training rows the bundled encoder learns more" in form.note
    assert "you type wins" in form.note
    assert form.config().learning_rate == 1e-4
    _checked(form, 2_814)                             # the stance tweets: 2e-5 sat at the majority class for long
    assert form.get("learning_rate") == 1e-4 and "on 2,814 training rows" in form.note
    _checked(form, SMALL_TABLE_ROWS * 4)              # a bigger table: the task's rate again, the note gone
    assert form.get("learning_rate") is None and "Learning rate" not in form.note
    _checked(form, 400)
    form.edit("learning_rate", 3e-5)                   # typed: the user's value wins
    _checked(form, 300)
    assert form.get("learning_rate") == 3e-5 and "Learning rate" not in form.note


def test_a_big_file_capped_to_a_small_tables_rows_gets_the_small_table_rate(tmp_path):
    """67,349 SST-2 rows with a Train cap of 2,000 train on 2,000 rows: the form picks 1e-4 and says those rows;
    taking the cap away puts the task's rate back."""
    form = _form(tmp_path, task="single", model="bundled:minilm", train=_table(tmp_path, "train.tsv"))
    _checked(form, 67_349)
    assert form.get("learning_rate") is None
    form.edit("train_cap", 2_000)
    assert form.get("learning_rate") == 1e-4 and "on 2,000 training rows" in form.note
    form.edit("train_cap", 0)
    assert form.get("learning_rate") is None and "Learning rate" not in form.note


def test_the_small_table_rate_is_for_the_bundled_encoder_only(tmp_path):
    form = _form(tmp_path, task="single", model="bert-base-uncased", train=_table(tmp_path, "train.tsv"))
    _checked(form, 400)
    assert form.get("learning_rate") is None
    form.edit("model", "bundled:minilm")
    assert form.get("learning_rate") == 1e-4
    form.edit("model", "bert-base-uncased")            # back to a model it was not measured on: the task's rate
    assert form.get("learning_rate") is None and "Learning rate" not in form.note


def test_a_time_budget_of_few_steps_at_2e5_warns_that_the_run_predicts_one_class(tmp_path):
    """A big table under a short Time budget at the task's 2e-5 trains too few steps to leave chance on the bundled
    encoder: the plan warns with the step estimate, keeps the task's rate (no silent change for a big table), and
    says nothing at 1e-4 or when the budget fits enough steps."""
    from explorer.ui.launch.small_table import SHORT_RUN_STEPS

    form = _form(tmp_path, task="single", model="bundled:minilm", train=_table(tmp_path, "train.tsv"),
                 batch_size=32, epochs=3.0, time_budget_minutes=2.5)
    _checked(form, 9810)
    form.plan.train_rate = lambda: 15.0   # rows/s: 2.5 min x 60 x 15 / 32 = 70 steps
    per_epoch, planned = form.plan.planned_steps()
    assert planned == 70 < SHORT_RUN_STEPS and per_epoch == 307
    # a rate measured on another data set (other texts, other lengths) counts no steps of this one: no warning
    form.plan.train_rate_source = lambda: SimpleNamespace(config={"train": str(tmp_path / "other.tsv")})
    assert form.plan.short_run_warning(form.config()) == ""
    form.plan.train_rate_source = lambda: SimpleNamespace(config={"train": form.get("train")})   # this file's rate
    note = form.plan.short_run_warning(form.config())
    assert note.startswith("In 2:30 about 70 steps (0.2 epoch): at lr 2e-5") and "predicts one class" in note
    assert "1e-4" in note and form.get("learning_rate") is None
    form.edit("learning_rate", 1e-4)
    assert form.plan.short_run_warning(form.config()) == ""
    form.edit("learning_rate", None)
    form.values["time_budget_minutes"] = 30.0   # 843 steps: long enough
    assert form.plan.short_run_warning(form.config()) == ""
    from explorer.ui.launch.small_table import short_run_note

    assert "predicts about the mean score;" in short_run_note(dict(form.values, task="regression"), 70, 307, 2.5, 2e-5)


def test_strongly_imbalanced_training_labels_without_class_weights_are_warned_before_launch(tmp_path):
    """A table of 78% one class, trained without class weights, ended predicting only that class and nothing had
    said so: the plan names the shares by class and the majority, unless the labels are balanced enough, class
    weights are on, or the task takes none."""
    form = _form(tmp_path, task="single", model="bundled:minilm", train=_table(tmp_path, "train.tsv"),
                 learning_rate=1e-4)
    form.plan.train_result = {"ok": True, "counts": {"examples": 511}, "class_counts": {"positive": 112, "negative": 399}}
    note = form.plan.imbalance_warning(form.config())
    assert note.startswith("Imbalanced training labels ('negative' 78%, 'positive' 22%) and no class weights: a short "
                           "run tends to predict only the majority class 'negative'")
    assert 'class weights "balanced"' in note
    form.edit("class_weights", "balanced")
    assert form.plan.imbalance_warning(form.config()) == ""
    form.edit("class_weights", "")
    form.plan.train_result["class_counts"] = {"positive": 240, "negative": 271}   # 53%: balanced enough
    assert form.plan.imbalance_warning(form.config()) == ""
    form.plan.train_result["class_counts"] = {"a": 700, "b": 100, "c": 100, "d": 50, "e": 30, "f": 20}
    assert "('a' 70%, 'b' 10%, 'c' 10%, 'd' 5%, others 5%)" in form.plan.imbalance_warning(form.config())
    form.edit("task", "regression")   # no classes to weigh
    assert form.plan.imbalance_warning(form.config()) == ""


def test_a_label_column_guess_is_made_again_after_the_form_is_loaded_with_the_same_file(tmp_path):
    """The label column guessed from the values is read, never typed: a config loaded for the same training file
    without a label column (a filled form, New run) gets the guess again, so the run still reads a label column."""
    form = _form(tmp_path, task="single", train=_table(tmp_path, "a.tsv"), no_header=True)
    guess = {"basis": "the values", "text_columns": ["2"], "label_column": "1"}
    assert form.fill_guess(guess) and form.config().label_column == "1"
    form.load(TrainConfig(task="single", train=form.get("train"), no_header=True, text_columns=["2"]))
    assert form.config().label_column == ""
    assert form.fill_guess(guess) and form.config().label_column == "1"

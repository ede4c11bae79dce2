"""Launcher: which preset the form holds, a TSV given to a QA task named for what it
is, Launch disabled while the data preview rejects the data, and the offline default."""

import json

import pytest

from explorer.core.specs.train_config import TrainConfig, fast_cpu_preset
from explorer.ui.launch.presets import describe_preset, offline_default, sample_paths

MRPC = "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n1\t1\t2\tAda was born.\tShe was born.\n"


def test_describe_preset():
    assert describe_preset(TrainConfig()).startswith("Preset: paper recipe (lr 3e-05, batch 32, 3 epochs, "
                                                     "max_seq_length 384")
    fast = describe_preset(fast_cpu_preset(TrainConfig()))
    assert fast.startswith("Preset: fast CPU (lr 0.0001") and "max_seq_length 256" in fast
    assert describe_preset(TrainConfig(learning_rate=5e-5)).startswith("Custom settings (lr 5e-05")
    # the offline default (batch 4, 4 epochs, no budget) is not called "fast CPU" (batch 16, 30 minutes)
    import dataclasses
    assert describe_preset(dataclasses.replace(fast_cpu_preset(TrainConfig()), batch_size=4)).startswith("Custom")


def test_offline_default_is_answerable_sample_with_fast_cpu_recipe(tmp_path):
    from explorer.core.data.squad import load_squad

    cfg = offline_default(tmp_path)
    assert cfg.task == "squad_v1" and (cfg.train, cfg.dev) == sample_paths("v1")
    assert cfg.learning_rate == 1e-4 and cfg.max_seq_length == 256
    _, report = load_squad(cfg.train)
    assert report.version == "v1.1" and report.n_impossible == 0 and report.n_questions == 92
    assert describe_preset(cfg).startswith("Preset: offline default (lr 0.0001, batch 4, 4 epochs")
    cfg.validate()


def test_launcher_says_preset_and_rejects_tsv_for_qa(qtbot, tmp_path):
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.resize(1300, 800)
    w.show()
    assert "Preset: offline default (lr 0.0001" in w.preset_label.text()
    qtbot.waitUntil(lambda: w.train_preview.result is not None, timeout=90000)
    assert w.train_preview.result["ok"] and w.launch_btn.isEnabled()
    w.grab().save(str(tmp_path / "launcher_default.png"))
    tsv = tmp_path / "train.tsv"
    tsv.write_text(MRPC, encoding="utf-8")
    with qtbot.waitSignal(w.train_preview.rejected_changed, timeout=90000) as sig:
        w.editors["train"].set(str(tsv))
        w.refresh_previews()
    assert sig.args == [True]
    text = w.train_preview.summary.text()
    assert "tab-separated" in text and "#1 String" in text and "single / pair" in text
    assert "malformed JSON" not in text
    assert not w.launch_btn.isEnabled() and "train data cannot be used" in w.problem.text()
    assert w.launch() is False
    w.grab().save(str(tmp_path / "launcher_tsv.png"))
    # the right task accepts it and Launch comes back
    with qtbot.waitSignal(w.train_preview.rejected_changed, timeout=90000):
        w.editors["task"].set("pair")
        w.editors["dev"].set("")
        w.refresh_previews()
    qtbot.waitUntil(lambda: w.train_preview.result is not None, timeout=90000)
    assert w.train_preview.result["ok"] and w.launch_btn.isEnabled()
    w.editors["learning_rate"].set(5e-5)
    assert "Custom settings" in w.preset_label.text()


def test_preview_squad_json_given_to_classification(tmp_path):
    from explorer.ui.launch.data_preview import preview_data
    from tests.helpers import tiny_squad_dict

    p = tmp_path / "d.json"
    p.write_text(json.dumps(tiny_squad_dict()), encoding="utf-8")
    res = preview_data(str(p), "single")
    assert not res["ok"] and "SQuAD-format JSON" in res["error"] and "single task" in res["error"]
    assert str(p) in res["error"]


def test_a_setting_the_task_does_not_use_stays_out_of_its_run(qtbot, tmp_path):
    """Issue 25 finding 6: switching to a classification task drops the QA watch example and the QA window
    settings from the run's config and command; back on QA they return (the editors keep their values)."""
    from explorer.core.specs.train_config import TrainConfig
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.editors["doc_stride"].set(96)
    qa = w.config()
    assert qa.watch and qa.doc_stride == 96 and qa.dev_fraction is None and "--dev-fraction" not in w.command.toPlainText()
    w.editors["task"].set("single")
    cls = w.config()
    assert cls.watch == [] and cls.doc_stride == TrainConfig().doc_stride
    assert "--watch" not in w.command.toPlainText() and "Ada" not in w.command.toPlainText()
    w.editors["task"].set("squad_v1")
    back = w.config()
    assert back.watch == qa.watch and back.doc_stride == 96


def test_table_settings_are_off_for_ner_and_swag_and_tagging_keeps_its_own(qtbot, tmp_path):
    """The launcher's NER form (seen under Xvfb): text / label columns, dev fraction, class weights and F1 classes
    are table settings, greyed out and kept out of the command for ner and swag; encoding and skip-invalid are
    read by the CoNLL loader too, so they stay on for ner (and off for swag)."""
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    table_only = ("text_columns", "label_column", "id_column", "no_header", "label_names", "dev_fraction",
                  "class_weights", "f1_classes", "new_head")
    for task, tagging_on in (("ner", True), ("swag", False)):
        w.editors["task"].set(task)
        assert not any(w.editors[n].widget.isEnabled() for n in table_only), task
        assert all(w.editors[n].widget.isEnabled() == tagging_on for n in ("encoding", "skip_invalid")), task
        assert w.config().dev_fraction is None and "--dev-fraction" not in w.command.toPlainText()
    w.editors["task"].set("single")
    assert all(w.editors[n].widget.isEnabled() for n in (*table_only, "encoding", "skip_invalid"))
    assert "--dev-fraction" in w.command.toPlainText()


def test_a_task_switch_brings_the_tasks_defaults_to_the_fields_not_edited(qtbot, tmp_path):
    """Issue 25 finding 6: the QA preset's recipe (eval every 23, batch 4, max_seq_length 256, lr 1e-4) does not
    follow a switch to a classification task; the task's TaskFacts defaults do, except where the user typed a
    value, and the banner says the preset no longer applies."""
    from explorer.core.specs.tasks import get_task_facts
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    qa = w.config()
    assert (qa.eval_every, qa.batch_size, qa.resolved_max_seq_length()) == (23, 4, 256)
    assert w.preset_label.text().startswith("<b>Preset: offline default")
    w.editors["epochs"].set(2.0)            # the user's own values stay
    w.editors["batch_size"].set(8)
    w.editors["task"].set("pair")
    cls, facts = w.config(), get_task_facts("pair")
    assert cls.batch_size == 8 and cls.epochs == 2.0
    assert cls.eval_every == facts.default_eval_every
    assert cls.resolved_learning_rate() == facts.default_learning_rate == 2e-5
    assert cls.resolved_max_seq_length() == facts.default_max_seq_length == 128
    banner = w.preset_label.text()
    assert "offline default" in banner and "no longer applies" in banner and "your batch_size kept" in banner
    assert w.hint.isHidden()                 # the note takes the first-visit hint's place: the form does not jump
    assert "Preset: offline default" not in banner.split("<br>")[0]
    assert "--eval-every 23" not in w.command.toPlainText() and "--max-seq-length 256" not in w.command.toPlainText()
    w.apply_preset("offline")              # a preset is a fresh start: its banner, nothing marked edited
    assert w.config().batch_size == 4 and "no longer applies" not in w.preset_label.text()
    assert not w.hint.isHidden()
    assert w.config().train.endswith(".json") and w.config().dev.endswith(".json")


def test_a_task_switch_to_other_data_clears_the_presets_files_not_the_users(qtbot, tmp_path):
    """Fresh-user trial: after the offline (SQuAD) preset, choosing Single sentence kept the SQuAD dev file and
    Launch said 'the dev data cannot be used'. Files a preset put in for another kind of data are cleared, with
    a word in the banner; a file the user picked stays."""
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.apply_preset("offline")
    w.editors["task"].set("single")
    assert w.config().train == "" and w.config().dev == ""
    assert "cleared: choose this task's data" in w.preset_label.text()
    w.editors["task"].set("squad_v1")
    mine = tmp_path / "mine.tsv"
    mine.write_text("sentence\tlabel\ngood\t1\n", encoding="utf-8")
    w.editors["train"].set(str(mine))             # picked by the user: kept across switches
    w.editors["task"].set("pair")
    w.editors["task"].set("single")
    assert w.config().train == str(mine)


def test_the_wheel_scrolls_the_form_not_the_field_under_the_pointer(qtbot, tmp_path):
    """Second fresh-user trial: scrolling the launcher form over Precision turned it to "fp16 (CUDA)" on a CPU
    machine, silently; the third trial saw a Tab-focused field change the same way. The wheel never turns a
    form field."""
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)

    def wheel(widget):
        ev = QWheelEvent(QPointF(5, 5), QPointF(widget.mapToGlobal(QPoint(5, 5))), QPoint(0, 0), QPoint(0, -120),
                         Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
        QApplication.sendEvent(widget, ev)

    precision, batch = w.editors["mixed_precision"], w.editors["batch_size"]
    before = (precision.get(), batch.get())
    for editor in (precision, batch):
        assert editor.widget.focusPolicy() == Qt.FocusPolicy.StrongFocus
        wheel(editor.widget)
    assert (precision.get(), batch.get()) == before          # unfocused: the values stay
    batch.widget.setFocus()
    qtbot.waitUntil(batch.widget.hasFocus)
    wheel(batch.widget)
    assert batch.get() == before[1]                          # focused (Tab): still the form's wheel (third trial)
    batch.widget.stepUp()
    assert batch.get() == before[1] + 1                      # the arrows and keys still change it


def test_a_task_switch_does_not_carry_the_loaded_configs_label_count(qtbot, tmp_path):
    """Fourth trial: after a 3-class stance run's settings were loaded, Regression and NER kept --num-labels 3 in
    the command and in the run's config.json."""
    from explorer.core.specs.train_config import TrainConfig
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="single", train="s.tsv", num_labels=3))
    assert w.config().num_labels == 3 and "--num-labels 3" in w.command.toPlainText()
    w.editors["task"].set("regression")
    assert w.config().num_labels == 0 and "--num-labels" not in w.command.toPlainText()


def test_the_banner_says_what_is_true_once_the_data_files_are_chosen(qtbot, tmp_path):
    """Eighth trial: after a task switch cleared the preset's SQuAD files, the banner still said "were cleared:
    choose this task's data" when the user had chosen them; and a later training file kept the note about the
    file before it."""
    from explorer.core.specs.train_config import TrainConfig
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.apply_preset("offline")
    w.editors["task"].set("single")
    assert "the train and dev data of the preset" in w.preset_label.text()
    w.editors["train"].set(str(tmp_path / "stance_train.csv"))
    banner = w.preset_label.text()
    assert "the dev data of the preset" in banner and "train and dev" not in banner   # only the dev is still to do
    w.editors["dev"].set(str(tmp_path / "stance_dev.csv"))
    banner = w.preset_label.text()
    assert "cleared" not in banner and "choose this task" not in banner
    assert "defaults for the recipe" in banner                                         # the recipe part is still true
    w.set_config(TrainConfig(task="single", train="a.tsv", label_column="Stance"))
    w.editors["train"].set(str(tmp_path / "b.tsv"))
    assert "previous file's Label column" in w.preset_label.text() and "b.tsv" in w.preset_label.text()
    w.editors["train"].set(str(tmp_path / "c.tsv"))                                    # nothing of b's to reset
    banner = w.preset_label.text()
    assert "previous file's" not in banner and "c.tsv" in banner


def test_a_new_training_file_clears_the_previous_files_layout(qtbot, tmp_path):
    """Fifth trial: after the stance file, choosing STS-B kept Tweet / Stance, No header row and the stance label
    names. A newly chosen training file starts from the preview's guesses; the banner says what was cleared."""
    from explorer.core.specs.train_config import TrainConfig
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="single", train="stance.txt", text_columns=["Tweet"], label_column="Stance",
                             encoding="cp1252", label_names="AGAINST, FAVOR, NONE"))
    assert w.config().label_column == "Stance"
    w.editors["train"].set(str(tmp_path / "sts_train.tsv"))
    cfg = w.config()
    assert (cfg.text_columns, cfg.label_column, cfg.encoding, cfg.label_names) == ([], "", "", [])
    assert "previous file's" in w.preset_label.text() and "Label column" in w.preset_label.text()
    w.editors["label_column"].set("score")                  # chosen for this file: kept
    assert w.config().label_column == "score"


def test_the_wheel_never_turns_a_probe_setting(qtbot):
    """Fifth trial: scrolling the probe panel turned n_best_size from 20 to 17."""
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    from explorer.ui.inspectors.probe_panel import ProbePanel

    panel = ProbePanel()
    qtbot.addWidget(panel)
    panel.show()
    box = panel.n_best_size
    before = box.value()
    ev = QWheelEvent(QPointF(5, 5), QPointF(box.mapToGlobal(QPoint(5, 5))), QPoint(0, 0), QPoint(0, -120),
                     Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(box, ev)
    assert box.value() == before and box.focusPolicy() == Qt.FocusPolicy.StrongFocus


def test_the_banner_keeps_its_height_while_its_text_rewraps(qtbot, tmp_path):
    """Seventh trial: the banner re-wrapped to 1-3 lines on every task, file or preset change and moved the form
    under the pointer (a run name typed into Text columns). It keeps one height at every width (eleventh trial: a
    longer text grew it and moved the form when it shrank back), and a text longer than the box scrolls in it
    rather than being cut (the launcher as wide as in a 1280 px window, and narrower)."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    tops = set()
    for width in (820, 640):
        w.resize(width, 700)
        w.show()
        qtbot.waitExposed(w)
        for step in ("offline", "pair", "regression", "squad_v2", "fast-cpu", "paper", "hub-sst2"):
            if step in ("pair", "regression", "squad_v2"):   # a task switch writes a note
                w.editors["task"].set(step)
            else:
                w.apply_preset(step)
            QApplication.processEvents()
            tops.add((w.banner.height(), w.banner.geometry().bottom()))
            text_height = sum(lab.heightForWidth(w.banner.viewport().width()) for lab in (w.hint, w.preset_label)
                              if not lab.isHidden()) + w.banner_text.layout().spacing()
            # nothing cut at the bottom: the text box holds the whole text, and scrolls when the banner is shorter
            assert w.banner_text.height() >= text_height, (width, step)
            assert (w.banner.verticalScrollBar().maximum() > 0) == (text_height > w.banner.viewport().height()), step
    assert len(tops) == 1, tops


def test_the_reason_launch_is_disabled_has_the_full_width(qtbot, tmp_path):
    """Seventh trial: "Cannot launch yet: …" beside the buttons was a 9-line column of one or two words at 1280
    px; it has its own row, as wide as the launcher, above the buttons."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.resize(820, 700)
    w.show()
    qtbot.waitExposed(w)
    w.editors["task"].set("pair")   # the preset's SQuAD files are cleared: "train data is empty"
    QApplication.processEvents()
    assert w.problem.text().startswith("Cannot launch yet:")
    assert w.problem.width() >= 0.9 * w.width()
    assert w.problem.geometry().bottom() < w.launch_btn.geometry().top()
    assert w.problem.heightForWidth(w.problem.width()) <= 3 * w.problem.fontMetrics().lineSpacing()

"""Launcher: which preset the form holds and the intro that names it, a TSV given to a QA task named for what it
is, Launch disabled while the data preview rejects the data (the reason named, on its own full-width row), the
offline default, the Preview command typed as a person types it, "Best checkpoint by", the wheel that scrolls the
form rather than turning a field, and the banner that never moves the form while the user types."""

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from helpers import STANCE_ROWS, STSB_SEVEN_FIELD_ROWS, shown_launcher, write_file
from test_predict_review import _stance_predictions, _stance_run   # the stance run with held-out dev rows

from explorer.core.specs.run_presets import fast_cpu_preset
from explorer.core.specs.train_config import TrainConfig
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


def test_the_offline_squad2_preset_fills_the_form_with_the_bundled_v2_sample(qtbot, tmp_path):
    """The offline run that learns to abstain: the Presets list holds it (with its hover text), and it fills the form
    with the bundled encoder, task squad_v2 and the bundled SQuAD 2.0 sample, a third of it unanswerable; the preset
    line and the intro name it, not the offline default whose recipe it shares."""
    from PySide6.QtCore import Qt

    from explorer.core.data.squad import load_squad
    from explorer.core.specs.run_presets import ABSTAIN_PRESET
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    keys = [w.presets.itemData(i) for i in range(w.presets.count())]
    assert keys[1:3] == ["offline", ABSTAIN_PRESET]
    index = keys.index(ABSTAIN_PRESET)
    assert w.presets.itemText(index).startswith("Offline SQuAD 2.0: bundled:minilm")
    assert "unanswerable" in w.presets.itemData(index, Qt.ItemDataRole.ToolTipRole)
    w.apply_preset(ABSTAIN_PRESET)
    cfg = w.config()
    assert (cfg.model, cfg.task, (cfg.train, cfg.dev)) == ("bundled:minilm", "squad_v2", sample_paths("v2"))
    _, report = load_squad(cfg.train)
    assert report.version == "v2.0" and report.n_impossible == 45 and report.n_questions == 137
    assert w.banner.whole_text().startswith("<b>Preset: offline SQuAD 2.0 (lr 0.0001, batch 4")
    assert "offline SQuAD 2.0 preset" in w.hint.text()
    assert describe_preset(offline_default(tmp_path)).startswith("Preset: offline default")
    cfg.validate()
    from explorer.ui.shell.help_dialog import GETTING_STARTED

    tau_step = GETTING_STARTED.split("<b>τ on dev set</b>", 1)[1].split("</li>", 1)[0]
    assert "<b>Offline SQuAD 2.0</b> preset" in tau_step   # the Getting started help sends τ to it


def test_launcher_says_preset_and_rejects_tsv_for_qa(qtbot, tmp_path):
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.resize(1300, 800)
    w.show()
    assert "Preset: offline default (lr 0.0001" in w.banner.whole_text()
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
    assert "Custom settings" in w.banner.whole_text()


def test_preview_squad_json_given_to_classification(tmp_path):
    from explorer.ui.launch.data_preview import preview_data
    from helpers import tiny_squad_dict

    p = tmp_path / "d.json"
    p.write_text(json.dumps(tiny_squad_dict()), encoding="utf-8")
    res = preview_data(str(p), "single")
    assert not res["ok"] and "SQuAD-format JSON" in res["error"] and "single task" in res["error"]
    assert str(p) in res["error"]


def test_the_wheel_scrolls_the_form_not_the_field_under_the_pointer(qtbot, tmp_path):
    """The wheel never turns a form field, focused (Tab) or not: scrolling the launcher form over Precision must
    not turn it to "fp16 (CUDA)" on a CPU machine, silently."""
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
    assert batch.get() == before[1]                          # focused (Tab): still the form's wheel
    batch.widget.stepUp()
    assert batch.get() == before[1] + 1                      # the arrows and keys still change it


def test_the_wheel_over_any_closed_drop_down_or_number_box_of_the_form_scrolls_the_form(qtbot, tmp_path):
    """Every drop-down and number box in the launcher's scrollable form, the column pickers filled from a file and the
    Run on picker included, keeps its value under the wheel while it is not focused, and the form scrolls instead:
    scrolling over the Label column turned it to another column."""
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QComboBox

    header = "\t".join(["email", "Spam", "Pictures", "Count"])
    rows = "".join(f"mail number {i} with some words\t{'spam' if i % 2 else 'ham'}\tp{i}\t{i}\n" for i in range(20))
    train = str(write_file(tmp_path / "mail.tsv", header + "\n" + rows))
    w = shown_launcher(qtbot, tmp_path, width=820)
    w.resize(820, 400)   # short: the form scrolls
    w.set_config(TrainConfig(task="single", train=train, output_dir=str(tmp_path / "runs")))
    qtbot.waitUntil(lambda: w.train_preview.result is not None, timeout=90000)
    scroll = w.form_view
    boxes = [b for b in scroll.widget().findChildren(QComboBox) + scroll.widget().findChildren(QAbstractSpinBox)
             if b.isVisibleTo(scroll.widget()) and b.isEnabled()]
    assert any(b is w.editors["label_column"].widget or w.editors["label_column"].widget.isAncestorOf(b)
               for b in boxes)

    def value(box):
        return box.currentIndex() if isinstance(box, QComboBox) else box.text()

    for box in boxes:
        box.clearFocus()
        bar = scroll.verticalScrollBar()
        bar.setValue(0)
        before = value(box)
        ev = QWheelEvent(QPointF(5, 5), QPointF(box.mapToGlobal(QPoint(5, 5))), QPoint(0, 0), QPoint(0, -120),
                         Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
        QApplication.sendEvent(box, ev)
        assert value(box) == before, box.objectName() or type(box).__name__
        assert bar.maximum() == 0 or bar.value() > 0, "the form did not scroll"


def test_the_wheel_never_turns_a_probe_setting(qtbot):
    """Scrolling the probe panel never turns n_best_size (from 20 to 17)."""
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
    """The banner keeps one height at every width while its text re-wraps on a task, file or preset change (a
    banner of 1-3 lines moves the form under the pointer: a run name typed into Text columns; a longer text that
    grew it moved the form when it shrank back), and a text longer than the box scrolls in it rather than being
    cut (the launcher as wide as in a 1280 px window, and narrower)."""
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
    """"Cannot launch yet: …" has its own row, as wide as the launcher, above the buttons (beside them it was a
    9-line column of one or two words at 1280 px)."""
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


def test_a_refused_launch_names_the_file_and_why(qtbot, tmp_path):
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="regression", train=str(tmp_path / "train.csv"), dev=str(tmp_path / "dev.tsv")))
    w.dev_preview.result = {"ok": False, "error": "line 2: the label 'positive' is not a number\nmore", "records": []}
    w.dev_preview._set_rejected(True)
    text = w.problem.text()
    assert "dev data cannot be used (dev.tsv): line 2: the label 'positive' is not a number" in text
    assert "more" not in text and not w.launch_btn.isEnabled()


def test_the_preview_command_types_lists_as_a_person_does_and_reads_back():
    """The Preview command types lists as a person does (--text-columns Tweet --label-names AGAINST,FAVOR,NONE,
    never '["Tweet"]'), and the worker reads them back to the same config, "Best checkpoint by" left automatic
    recorded as the launcher records it (f_avg with F1 classes)."""
    import argparse
    import dataclasses

    from explorer.core.specs.tasks import recorded_metric_for_best

    from explorer.ui.launch.presets import command_line
    from explorer.worker.train import add_arguments, config_from_args

    stance = TrainConfig(task="single", train="stance.txt", text_columns=["Tweet"], label_column="Stance",
                         label_names=["AGAINST", "FAVOR", "NONE"], f1_classes=["FAVOR", "AGAINST"])
    line = command_line(stance)
    assert "--text-columns Tweet " in line and "--label-names AGAINST,FAVOR,NONE" in line and "[" not in line
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    odd = [["6", "7"], ["a, b"], ["true"], ["null"], [" x"], ["1.50"], ["x", ""]]
    for cfg in [stance] + [TrainConfig(task="pair", train="t.tsv", label_names=names) for names in odd]:
        recorded = dataclasses.replace(cfg, metric_for_best=recorded_metric_for_best(cfg.to_dict()))
        assert config_from_args(parser.parse_args(cfg.to_cli_args())) == recorded
    assert recorded_metric_for_best(stance.to_dict()) == "f_avg"
    assert TrainConfig(label_names=["a, b"]).to_cli_args() == ["--label-names", '["a, b"]']


def test_the_intro_names_the_preset_the_preset_line_names(qtbot, tmp_path):
    """The first form's intro names the preset the preset line names ("offline default"), never "with fast-CPU
    settings" above "Preset: offline default"."""
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.resize(1280, 800)
    w.show()
    assert "Preset: offline default" in w.banner.whole_text()
    assert "offline default" in w.hint.text() and "fast" not in w.hint.text().lower()
    w.apply_preset("fast-cpu")
    assert "fast CPU" in w.banner.whole_text() and "fast CPU preset" in w.hint.text()


def test_the_form_does_not_move_when_a_typed_cap_takes_the_amber_line_away(qtbot, tmp_path):
    """The banner keeps its height whatever its text; the amber line comes first (in view without scrolling). STS-B
    after an SST-2 run: the banner says in amber that Train cap 640 and Dev cap 200 went back to all (7 lines with
    the task's and the file's notes); typing Train cap 1600 takes that line away, and the form must not move up
    (23 px would put the next click, aimed at Dev cap, in Text columns)."""
    from PySide6.QtCore import QPoint
    from PySide6.QtWidgets import QApplication

    from explorer.ui.launch.data_preview import preview_data
    from explorer.ui.launch.launcher import LauncherPanel

    sst2 = str(write_file(tmp_path / "glue_sst2" / "train.tsv", "sentence\tlabel\na fine film\t1\na dull film\t0\n"))
    stsb = str(write_file(tmp_path / "stsb" / "train.csv", STSB_SEVEN_FIELD_ROWS))
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.resize(820, 700)   # the launcher of a 1280x800 window beside the Runs dock
    w.show()
    qtbot.waitExposed(w)
    w.set_config(TrainConfig(task="single", train=sst2, train_cap=640, dev_cap=200, text_columns=["sentence"],
                             label_column="label"))
    w.editors["task"].set("regression")
    w.editors["train"].set(stsb)
    w.editors["no_header"].set(True)
    w.train_preview._token += 1                        # the data check's guess of the columns, said in the banner
    w.train_preview._done(w.train_preview._token, preview_data(stsb, "regression", options={"no_header": True}))
    QApplication.processEvents()
    assert "No header row: Text columns 6, 7 and Label column 5 guessed" in w.banner.whole_text()
    note = w.banner.whole_text()
    assert "went back to all" in note and note.index("went back to all") < note.index("Regression")

    def dev_cap_y() -> int:
        QApplication.processEvents()
        return w.editors["dev_cap"].widget.mapTo(w, QPoint(0, 0)).y()

    before, banner = dev_cap_y(), w.banner.height()
    w.editors["train_cap"].set(1600)                   # typed: the amber line goes
    assert "went back to all" not in w.banner.whole_text()
    assert (dev_cap_y(), w.banner.height()) == (before, banner)


def test_the_best_checkpoint_is_picked_by_f_avg_once_f1_classes_are_named(qtbot, tmp_path):
    """With "F1 classes FAVOR,AGAINST" set (SemEval-2016's F_avg), Best dev, the Curves' headline and
    checkpoints/best go by F_avg, not accuracy. "Best checkpoint by" is automatic (the task's metric, f_avg once F1
    classes are named) or one the task reports; it goes into the Preview command and the run's config."""
    from explorer.core.errors import ConfigError
    from explorer.core.specs.tasks import automatic_metric_for_best, metric_for_best_choices
    from explorer.ui.launch.launcher import LauncherPanel

    assert automatic_metric_for_best("single", ["FAVOR", "AGAINST"]) == "f_avg"
    assert automatic_metric_for_best("single") == "accuracy" and automatic_metric_for_best("regression") == "pearson"
    assert "f_avg" not in metric_for_best_choices("single") and "f_avg" in metric_for_best_choices("pair", 0, ["A"])
    with pytest.raises(ConfigError, match="f_avg averages the F1 of the F1 classes"):
        TrainConfig(task="single", train="t.tsv", metric_for_best="f_avg").validate()

    stance = str(write_file(tmp_path / "stance" / "train.txt", STANCE_ROWS))
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="single", train=stance, text_columns=["Tweet"], label_column="Stance"))
    best = w.editors["metric_for_best"]
    combo = best.widget
    assert w.config().metric_for_best == "" and combo.currentText() == "automatic: accuracy"
    assert "--metric-for-best" not in w.command.toPlainText()
    w.editors["f1_classes"].set(["FAVOR", "AGAINST"])
    assert combo.currentText() == "automatic: F_avg (F1 classes)"
    assert w.config().metric_for_best == "f_avg" and "--metric-for-best f_avg" in w.command.toPlainText()
    assert [combo.itemData(i) for i in range(combo.count())][:3] == ["", "accuracy", "f1"]
    best.set("macro_f1")                                            # the user's choice wins
    assert w.config().metric_for_best == "macro_f1" and "--metric-for-best macro_f1" in w.command.toPlainText()
    w.editors["f1_classes"].set([])
    best.set("")
    assert w.config().metric_for_best == "" and w.launch_btn.isEnabled()
    # a loaded config whose metric is the automatic one shows automatic; a chosen one stays chosen
    w.set_config(TrainConfig(task="single", train=stance, f1_classes=["FAVOR", "AGAINST"], metric_for_best="f_avg"))
    assert best.get() == "" and w.config().metric_for_best == "f_avg"
    w.set_config(TrainConfig(task="single", train=stance, metric_for_best="macro_f1"))
    assert best.get() == "macro_f1"
    w.editors["task"].set("regression")                             # regression reports no macro F1: automatic
    assert best.get() == "" and combo.currentText() == "automatic: pearson" and w.config().metric_for_best == ""


def _banner_text_height(w) -> int:
    return sum(lab.heightForWidth(w.banner.viewport().width()) for lab in (w.hint, w.preset_label)
               if not lab.isHidden()) + w.banner_text.layout().spacing()


def test_the_fine_tune_note_is_whole_in_the_banner_and_typing_does_not_move_the_form(qtbot, tmp_path, monkeypatch):
    """A form filled in (not typed), as "Fine-tune on reviewed rows" fills it, lets the banner take its text's
    height (up to BANNER_MAX_LINES lines): the long note is whole, not cut mid-sentence in a 5-line banner with its
    own scroll bar at 1280x800, and it names the combined file, not its long path twice; typing a cap afterwards
    still moves nothing (no click lands in the wrong field)."""
    from PySide6.QtCore import QPoint
    from PySide6.QtWidgets import QApplication

    from explorer.core.predict.review import finetune_data
    from explorer.ui.inspectors.predictions_view import fill_launcher

    # paths as long as a user's, whatever the length of pytest's tmp_path
    monkeypatch.chdir(tmp_path)
    home = Path("student") / "home" / "bert-explorer-data" / "semeval2016_stance"
    home.mkdir(parents=True)
    cfg, run, _held = _stance_run(home)
    table, review = _stance_predictions(home, ["a brand new tweet", "another tweet"])
    review.set_label(0, "FAVOR")
    review.mark_reviewed(1)
    fields, note = finetune_data(table, review, cfg, home / "runs" / ".corrections", run_dir=run)
    assert note.count(str(home / "runs" / ".corrections")) == 0 and "stance-plus-corrected-p.tsv" in note
    assert note.count(cfg["train"]) == 1            # the original training file named once

    w = shown_launcher(qtbot, tmp_path)
    short = w.banner.height()
    fill_launcher(w, fields, note)
    QApplication.processEvents()
    assert "The dev rows are the first run" in w.banner.whole_text()
    text = _banner_text_height(w)
    assert w.banner.height() > short                                   # grown for the note
    assert w.banner.verticalScrollBar().maximum() == 0 and text <= w.banner.viewport().height()

    def dev_cap_y() -> int:
        QApplication.processEvents()
        return w.editors["dev_cap"].widget.mapTo(w, QPoint(0, 0)).y()

    before, banner = dev_cap_y(), w.banner.height()
    w.editors["train_cap"].set(100)                 # typed: nothing above Dev cap moves
    w.editors["task"].set("regression")             # a task switch writes its own (shorter) note: no move either
    assert "The dev rows are the first run" not in w.banner.whole_text()
    assert (dev_cap_y(), w.banner.height()) == (before, banner)

    w.set_config(TrainConfig(task="single"))         # filled again with a short text: back to the least height
    QApplication.processEvents()
    assert w.banner.height() == short


def test_a_banner_longer_than_its_cap_scrolls_and_a_resize_refits_it(qtbot, tmp_path):
    """The banner grows to BANNER_MAX_LINES lines at most (a longer note scrolls in it); a narrower panel (a resize,
    not typing) fits the height to the text's new wrapping."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui.launch.launcher import BANNER_LINES, BANNER_MAX_LINES

    w = shown_launcher(qtbot, tmp_path, 1400)
    line = w.preset_label.fontMetrics().lineSpacing()
    w.show_note("a few words of a note " * 25)
    QApplication.processEvents()
    wide = w.banner.height()
    w.resize(900, 700)
    QApplication.processEvents()
    assert w.banner.height() > wide and w.banner.verticalScrollBar().maximum() == 0
    w.show_note("a few words of a note " * 200)
    QApplication.processEvents()
    assert w.banner.height() <= line * BANNER_MAX_LINES + 20 and w.banner.verticalScrollBar().maximum() == 0
    assert BANNER_MAX_LINES > BANNER_LINES


def test_a_note_longer_than_the_banner_ends_at_a_sentence_and_the_tooltip_has_it_all(qtbot, tmp_path):
    """A note taller than the banner shows the whole sentences that fit, then says where the rest is; it never
    ends mid-sentence (a scrolling box cut "…were cleared: choose this" at its bottom edge)."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui.launch.banner import MORE

    w = shown_launcher(qtbot, tmp_path, 1000)
    sentences = [f"Sentence number {i} says a few more words about what the form did to the fields." for i in range(40)]
    w.show_note(" ".join(sentences))
    QApplication.processEvents()
    shown = w.preset_label.text()
    assert shown.endswith(MORE) and shown.removesuffix(MORE).endswith(".")
    assert "Sentence number 0 says" in shown and "Sentence number 39" not in shown
    assert sentences[-1] in w.preset_label.toolTip()
    assert w.banner.verticalScrollBar().maximum() == 0
    w.show_note(sentences[0])   # a note that fits is shown whole, with no pointer to the tooltip
    QApplication.processEvents()
    assert sentences[0] in w.preset_label.text() and MORE not in w.preset_label.text()


def test_the_stance_datas_check_fills_f1_classes_and_the_field_says_what_it_is(qtbot, tmp_path):
    """The training data check finds the SemEval-2016 stance classes: F1 classes shows FAVOR, AGAINST (F_avg is
    reported), the banner says why, and the field's tooltip explains F_avg."""
    from explorer.core.specs.train_config import TrainConfig
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="single", train=str(tmp_path / "stance" / "train.txt")))
    w._offer_columns({"class_counts": {"AGAINST": 5, "FAVOR": 3, "NONE": 2}, "columns": [], "samples": {}})
    w._changed()
    assert w.editors["f1_classes"].get() == ["FAVOR", "AGAINST"]
    assert "F_avg" in w.banner.whole_text()
    tip = w.editors["f1_classes"].focus.toolTip()
    assert "official" in tip and "NONE left out" in tip


def test_f1_classes_the_training_data_lacks_turn_red_and_keep_launch_off(qtbot, tmp_path):
    """F1 classes set for the spam file that name no class of it: the field is red with the missing names and
    Launch stays off with the same sentence; a new file whose classes are counted clears them instead."""
    from explorer.core.specs.train_config import TrainConfig
    from explorer.ui.launch.launcher import LauncherPanel

    spam = write_file(tmp_path / "spam" / "spam.csv", "class,message\nham,hi there\nspam,win now\n")
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="single", train=str(spam), f1_classes=["FAVOR", "AGAINST"]))
    w._offer_columns({"class_counts": {"ham": 5, "spam": 3}, "columns": [], "samples": {}})
    w._changed()
    reason = w.editors["f1_classes"].focus.property("invalidReason")
    assert reason == "F1 classes name FAVOR, AGAINST, not classes of the training data (its classes: ham, spam)"
    assert not w.launch_btn.isEnabled() and "FAVOR, AGAINST" in w.problem.text()
    w.editors["f1_classes"].set(["spam"])
    w._field_changed("f1_classes")
    assert w.editors["f1_classes"].focus.property("invalidReason") == ""


def test_a_form_from_reviewed_rows_switched_to_a_spam_file_loses_the_stance_classes(qtbot, tmp_path):
    """The form "Fine-tune on reviewed rows" fills (stance data, F1 classes FAVOR, AGAINST, Best checkpoint by
    f_avg) gets a spam CSV by Browse…: once the data check counts ham, spam, the command carries neither flag and
    the banner says what went; the run would otherwise fail after loading the model."""
    from explorer.core.specs.train_config import TrainConfig
    from explorer.ui.launch.data_preview import preview_data
    from explorer.ui.launch.launcher import LauncherPanel

    stance = write_file(tmp_path / "review" / "reviewed.tsv", "Tweet\tStance\ngood\tFAVOR\nbad\tAGAINST\nmeh\tNONE\n")
    spam = write_file(tmp_path / "spam" / "spam.csv", "class,message,,,\nham,hi there,,,\nspam,win now,call,0800,today\n")
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="single", train=str(stance), f1_classes=["FAVOR", "AGAINST"],
                             metric_for_best="f_avg", output_dir=str(tmp_path / "runs")))
    w.show_note("Filled from reviewed rows")
    w.editors["metric_for_best"].set("f_avg")
    w._field_changed("metric_for_best")
    w.editors["train"].set(str(spam))              # what Browse… does
    w.train_preview.finished.emit(preview_data(str(spam), "single"))   # no text column guessed: classes unknown
    assert w.editors["f1_classes"].get() == ["FAVOR", "AGAINST"]   # kept until the new data's classes are known
    w.editors["text_columns"].set(["message"])     # the user picks the text column: the classes are counted
    w.train_preview.finished.emit(preview_data(str(spam), "single", text_columns=["message"], label_column="class"))
    command = w.command.toPlainText()
    assert "--f1-classes" not in command and "f_avg" not in command
    assert "F1 classes (FAVOR, AGAINST)" in w.preset_label.text() and "cleared" in w.preset_label.text()
    assert "f1_classes" not in w.problem.text() and "F1 classes" not in w.problem.text()


def test_launch_warns_when_the_output_disk_is_short_of_the_runs_checkpoints(qtbot, tmp_path, monkeypatch):
    """The Base model's weight files give the checkpoints' size; a disk with less free space asks before the run
    starts (it would fail at its first save), and saying no keeps the form with the figures; with Save
    checkpoints off nothing is asked."""
    import collections

    from explorer.core.models.sources import weight_bytes
    from explorer.core.training import checkpoints
    from explorer.ui.launch.launcher import LauncherPanel

    usage = collections.namedtuple("usage", "total used free")
    monkeypatch.setattr(checkpoints.shutil, "disk_usage", lambda path: usage(10**12, 10**12 - 138_000_000, 138_000_000))
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    launched, asked = [], []
    w.launch_requested.connect(lambda cfgs, _s: launched.extend(cfgs))
    w.set_config(offline_default(tmp_path / "runs"))
    w.ask_yes_no = lambda title, text: asked.append(text) or False
    assert w.launch() is False and launched == []
    need = checkpoints.megabytes(checkpoints.checkpoint_bytes(weight_bytes("bundled:minilm") // 4)["total"])
    assert need == "363 MB"
    assert asked == [f"The disk that holds {tmp_path / 'runs'} has 138 MB free, and this run's checkpoints (last with "
                     f"the optimizer state, and best) need about {need}: saving them will fail. Launch anyway? "
                     "(Untick Save checkpoints or choose another Output folder to avoid it.)"]
    assert "Not launched: the disk that holds" in w.problem.text() and "138 MB free" in w.problem.text()
    w.editors["save_checkpoints"].set(False)
    assert w.launch() is True and len(asked) == 1 and launched[-1].save_checkpoints is False


def test_a_run_launched_with_save_checkpoints_off_is_said_beside_launch_with_a_one_click_fix(qtbot, tmp_path):
    """Save checkpoints is kept from one form to the next (a cross-validation's folds do without it): a plain run
    with it off keeps no model to open, said on the line by the Launch button, its link ticking it again."""
    from explorer.ui.launch.launch_checks import NO_CHECKPOINTS, SAVE_CHECKPOINTS_LINK
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(offline_default(tmp_path / "runs"))
    assert NO_CHECKPOINTS not in w.problem.text()
    w.editors["save_checkpoints"].set(False)
    assert NO_CHECKPOINTS in w.problem.text() and SAVE_CHECKPOINTS_LINK in w.problem.text()
    assert w.launch_btn.isEnabled()                       # said, not refused
    w.problem.linkActivated.emit(SAVE_CHECKPOINTS_LINK)
    assert w.editors["save_checkpoints"].get() is True and NO_CHECKPOINTS not in w.problem.text()
    assert "--no-save-checkpoints" not in w.command.toPlainText()


def test_a_run_that_will_never_be_evaluated_is_said_beside_launch(qtbot, tmp_path):
    """No dev file and a Dev fraction of 0: the line beside Launch says the run is never evaluated and keeps no best
    checkpoint, once (the Evaluation line above it does not repeat it), and Dev fraction is amber with the reason;
    a share above 0 clears it."""
    from explorer.ui.launch.launcher import LauncherPanel

    train = write_file(tmp_path / "own.tsv", "sentence\tlabel\n" + "".join(f"row {i}\t{i % 2}\n" for i in range(40)))
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="single", train=str(train), output_dir=str(tmp_path / "runs"), dev_fraction=0.0))
    said = "No dev file and Dev fraction 0: the run will not be evaluated"
    qtbot.waitUntil(lambda: said in w.problem.text(), timeout=5000)
    assert w.problem.text().startswith("<span") and "Note: " + said in w.problem.text()
    assert said not in w.eval_plan.text() and said in w.editors["dev_fraction"].widget.toolTip()
    w.editors["dev_fraction"].set(0.2)
    qtbot.waitUntil(lambda: said not in w.problem.text(), timeout=5000)
    assert said not in w.editors["dev_fraction"].widget.toolTip()


def test_squad_v2_without_a_dev_file_says_it_is_never_evaluated_once(qtbot, tmp_path):
    """SQuAD v2.0 holds out no dev split: without a dev file the sentence that the run is never evaluated shows
    once under the form (the line beside Launch), not also grey on the Evaluation line."""
    from PySide6.QtWidgets import QLabel

    from helpers import write_tiny_squad

    squad = str(write_tiny_squad(tmp_path / "train.json"))
    w = shown_launcher(qtbot, tmp_path)
    w.set_config(TrainConfig(task="squad_v2", train=squad, dev="", output_dir=str(tmp_path / "runs")))
    said = "No dev file: the run will not be evaluated"
    qtbot.waitUntil(lambda: said in w.problem.text(), timeout=90000)
    shown = [lab for lab in w.findChildren(QLabel) if said in lab.text() and lab.isVisibleTo(w)]
    assert shown == [w.problem]


def test_clearing_dev_data_replaces_a_note_that_named_it(qtbot, tmp_path):
    """A form filled from reviewed rows says where its dev rows come from; the person clears Dev data with its
    button: the banner no longer says the dev rows are that file's (the Evaluation line then counts held-out
    rows), and Dev fraction is the usual share again."""
    from explorer.ui.launch.launcher import LauncherPanel

    train = write_file(tmp_path / "run" / "reviewed.tsv", "sentence\tlabel\n" + "".join(f"row {i}\t{i % 2}\n"
                                                                                       for i in range(40)))
    dev = write_file(tmp_path / "run" / "dev_split.tsv", "sentence\tlabel\nok\t1\nno\t0\n")
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="single", train=str(train), dev=str(dev), output_dir=str(tmp_path / "runs"),
                             dev_fraction=0.0))
    w.show_note("The dev rows are the first run's: the rows it held out (Dev data: dev_split.tsv)")
    w.editors["dev"].set("")
    assert "The dev rows are the first run's" not in w.banner.whole_text()
    assert ("Dev data dev_split.tsv cleared: the run's dev rows now come from Dev fraction (held out of the training "
            "file), not from it") in w.banner.whole_text()
    assert w.config().resolved_dev_fraction() == 0.1


def test_the_train_cap_fields_tooltip_says_which_rows_the_cap_keeps(qtbot, tmp_path):
    """A table's Train cap keeps a stratified random N of its rows, seeded by the run: the field's tooltip says so
    with the seed, under the field's own help."""
    from explorer.ui.launch.launcher import LauncherPanel

    sst2 = str(write_file(tmp_path / "train.tsv", "sentence\tlabel\na fine film\t1\na dull film\t0\n"))
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="single", train=sst2, train_cap=1500, seed=7, text_columns=["sentence"],
                             label_column="label"))
    w.editors["train_cap"].set(1500)
    tip = w.editors["train_cap"].focus.toolTip()
    assert "Train cap 1,500: the run trains on a stratified random 1,500 of the training rows" in tip
    assert "seed 7" in tip and "0 = all" in tip
    w.editors["train_cap"].set(0)
    assert "the run trains on" not in w.editors["train_cap"].focus.toolTip()


def test_the_banners_reset_to_defaults_link_puts_the_kept_settings_back(qtbot, tmp_path):
    """After a new training file the banner names the settings kept from before; its "Reset to defaults" link
    puts them to their defaults, and the Preview command no longer carries them."""
    from explorer.ui.launch.kept_settings import RESET_LINK
    from explorer.ui.launch.launcher import LauncherPanel

    a = write_file(tmp_path / "a" / "train.tsv", "sentence\tlabel\nok\t1\nno\t0\n")
    b = write_file(tmp_path / "b" / "train.tsv", "sentence\tlabel\nfine\t1\ndull\t0\n")
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="single", train=str(a), output_dir=str(tmp_path / "runs")))
    w.editors["save_checkpoints"].set(False)
    w.editors["train"].set(str(b))
    assert "Kept from before: no checkpoints saved" in w.banner.whole_text()
    assert "--no-save-checkpoints" in w.command.toPlainText()
    w.preset_label.linkActivated.emit(RESET_LINK)
    assert w.editors["save_checkpoints"].get() is True and "Kept from before" not in w.banner.whole_text()
    assert "--no-save-checkpoints" not in w.command.toPlainText()


def test_the_task_list_opens_below_its_box(qtbot, tmp_path):
    """Fusion opens a drop-down over its box with the current item on the box, so the list's first items sit above
    it and a second click where the list was lands on another task: the launcher's lists open below their box."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.resize(1200, 700)
    w.move(0, 0)
    w.show()
    qtbot.waitExposed(w)
    combo = w.editors["task"].widget
    combo.setCurrentIndex(combo.count() - 2)
    combo.showPopup()
    popup = combo.view().window()
    qtbot.waitUntil(popup.isVisible, timeout=10_000)
    QApplication.processEvents()
    box_bottom = combo.mapToGlobal(combo.rect().bottomLeft()).y()
    assert popup.geometry().top() >= box_bottom - 2, (popup.geometry(), box_bottom)
    combo.hidePopup()


def test_a_short_time_budget_at_2e5_is_named_under_the_form_with_a_link_that_takes_1e4(qtbot, tmp_path):
    """6,000 rows (more than a small table), batch 32 and a 2.5-minute Time budget at the bundled encoder's measured
    speed fit too few steps to leave chance at 2e-5: the problem line says so before Launch (Launch stays enabled) and its link sets the
    learning rate to 1e-4, after which the note is gone."""
    rows = "".join(f"text {i}\t{i % 2}\n" for i in range(6000))
    train = str(write_file(tmp_path / "train.tsv", "sentence\tlabel\n" + rows))
    w = shown_launcher(qtbot, tmp_path)
    w.set_config(TrainConfig(task="single", model="bundled:minilm", train=train, output_dir=str(tmp_path / "runs"),
                             batch_size=32, epochs=3.0, time_budget_minutes=2.5))
    w.form.plan.train_rate = lambda: 15.0   # as a past run on this training file measured
    w.form.plan.train_rate_source = lambda: SimpleNamespace(config={"train": train})
    qtbot.waitUntil(lambda: w.train_preview.result is not None and w.train_preview.result.get("ok"), timeout=90000)
    w._changed()
    assert "predicts one class" in w.problem.text() and w.launch_btn.isEnabled()
    assert w.config().learning_rate is None
    w.problem.linkActivated.emit("use-small-table-rate")
    assert w.config().learning_rate == 1e-4 and "predicts one class" not in w.problem.text()


def test_imbalanced_training_labels_are_noted_under_the_form_with_balanced_class_weights_one_click_away(qtbot, tmp_path):
    """The problem line warns of a 78% majority class without class weights before Launch (Launch stays on), and
    its link sets Class weights to balanced as if typed, which ends the warning."""
    import html

    from explorer.ui.launch.class_balance import BALANCED_LINK
    from explorer.ui.launch.launcher import LauncherPanel

    train = write_file(tmp_path / "data" / "train.tsv", "sentence\tlabel\nok\tnegative\n")
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="single", train=str(train), learning_rate=1e-4, output_dir=str(tmp_path / "runs")))
    w.train_preview.result = {"ok": True, "counts": {"examples": 511},
                              "class_counts": {"negative": 399, "positive": 112}}
    w._changed()
    line = html.unescape(w.problem.text())
    assert "Imbalanced training labels ('negative' 78%, 'positive' 22%)" in line and BALANCED_LINK in line
    assert w.launch_btn.isEnabled()
    w.problem.linkActivated.emit(BALANCED_LINK)
    assert w.editors["class_weights"].get() == "balanced" and w.config().class_weights == "balanced"
    assert "Imbalanced" not in w.problem.text()


def test_a_time_budget_the_evaluations_alone_fill_is_said_beside_launch_with_the_field_amber(qtbot, tmp_path):
    """Where the run's own check (RunPlan.no_time_warning: the evaluations before training and at the end fill the
    Time budget) would fail the run after its first evaluation, the line beside Launch says it before Launch and the
    Time budget field is amber with the reason; Launch stays enabled (said, not refused)."""
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(offline_default(tmp_path / "runs"))
    said = ("the 60 s budget leaves no time to train: the evaluation before training and the final one on all 1,500 "
            "dev rows take about 60 s of it; give the run about 2 minutes, or a Dev cap of at most 695 rows")
    w.form.plan.no_time_warning = lambda cfg: said if cfg.time_budget_minutes else ""
    w.editors["time_budget_minutes"].set(1.0)
    assert said in w.problem.text() and w.launch_btn.isEnabled()
    assert w.editors["time_budget_minutes"].focus.property("invalidReason") == said
    w.editors["time_budget_minutes"].set(0.0)
    assert said not in w.problem.text() and not w.editors["time_budget_minutes"].focus.property("invalidReason")


def test_the_app_wide_wheel_guard_scrolls_a_form_over_any_unfocused_number_box(qtbot):
    """App-wide (the application's event filter, not a per-field guard): the wheel over an unfocused spin box or
    combo box in any scrollable form (a dialog, a settings page) leaves its value and scrolls the form; a focused
    one takes the wheel. Scrolling the form turned "Evaluate every" to another value."""
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication, QComboBox, QScrollArea, QSpinBox, QVBoxLayout, QWidget

    from explorer.ui.shell.tooltips import install_tooltip_wrapper

    app = QApplication.instance()
    had = getattr(app, "_tooltip_wrapper", None)
    wrapper = install_tooltip_wrapper(app)
    try:
        form = QWidget()
        layout = QVBoxLayout(form)
        spin, combo = QSpinBox(), QComboBox()
        spin.setRange(0, 1000)
        spin.setValue(10)
        combo.addItems(["a", "b", "c"])
        layout.addWidget(spin)
        layout.addWidget(combo)
        layout.addSpacing(2000)
        area = QScrollArea()
        area.setWidget(form)
        area.setWidgetResizable(True)
        area.resize(300, 200)
        qtbot.addWidget(area)
        area.show()
        qtbot.waitExposed(area)

        def wheel(widget):
            ev = QWheelEvent(QPointF(5, 5), QPointF(widget.mapToGlobal(QPoint(5, 5))), QPoint(0, 0),
                             QPoint(0, -120), Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                             Qt.ScrollPhase.NoScrollPhase, False)
            QApplication.sendEvent(widget, ev)

        bar = area.verticalScrollBar()
        for box in (spin, combo):
            bar.setValue(0)
            wheel(box)
            assert bar.value() > 0, "the form did not scroll"
        assert spin.value() == 10 and combo.currentIndex() == 0
        assert spin.focusPolicy() == Qt.FocusPolicy.StrongFocus
        spin.setFocus()
        qtbot.waitUntil(spin.hasFocus)
        wheel(spin)
        assert spin.value() != 10                               # focused: the wheel is the box's
    finally:
        if had is None:
            app.removeEventFilter(wrapper)
            app._tooltip_wrapper = None

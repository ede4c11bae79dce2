"""Launcher minors from the eighth fresh-user trial (issue 25): the label count follows the data chosen now,
a task switch treats the train and dev files alike, the Preview command is typed as a person types it, the
intro names the preset applied, classification evaluates several times per epoch, Getting started covers own
data, and the tau study remembers its measured rate."""

from pathlib import Path

import pytest

from explorer.core.errors import ConfigError
from explorer.core.specs.train_config import TrainConfig


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_a_new_training_file_does_not_carry_the_loaded_label_count(qtbot, tmp_path):
    """Eighth trial: after the 3-class stance run's settings, choosing SST-2 (2 classes) kept --num-labels 3."""
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="single", train=str(tmp_path / "stance.txt"), num_labels=3))
    assert w.config().num_labels == 3
    w.editors["train"].set(str(tmp_path / "sst2_train.tsv"))
    assert w.config().num_labels == 0 and "--num-labels" not in w.command.toPlainText()


def test_a_label_count_other_than_the_datas_is_refused_before_the_head_is_built(tmp_path):
    """config.json would say num_labels 3 for a head with 2 outputs (its size comes from id2label)."""
    from explorer.core.training.setup import fit_head
    from explorer.core.training.tasks import get_task

    data = _write(tmp_path / "sst2.tsv", "sentence\tlabel\ngood film\tpositive\nbad film\tnegative\n")
    config = TrainConfig(task="single", train=str(data), num_labels=3)
    task = get_task("single")
    with pytest.raises(ConfigError, match=r"num_labels is 3, but .*sst2.tsv has 2 labels"):
        fit_head("unused", task, task.load(config, "train"), None, config, None)


def test_a_training_file_from_other_data_clears_the_dev_file_beside_the_previous_one(qtbot, tmp_path):
    """Eighth trial: SST-2 -> Regression -> STS-B's train.csv kept SST-2's dev.tsv; Launch was refused with "the
    dev data cannot be used". The dev file goes with its training file; one chosen with the new file stays."""
    from explorer.ui.launch.launcher import LauncherPanel

    sst2, stsb = tmp_path / "glue_sst2", tmp_path / "stsb"
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="single", train=str(sst2 / "train.tsv"), dev=str(sst2 / "dev.tsv")))
    w.editors["task"].set("regression")
    assert w.config().dev == str(sst2 / "dev.tsv")          # the user's files stay across the switch
    w.editors["train"].set(str(stsb / "train.csv"))
    assert w.config().dev == "" and "dev file dev.tsv was the previous data's" in w.preset_label.text()
    w.editors["dev"].set(str(stsb / "dev.csv"))
    w.editors["train"].set(str(stsb / "train_small.csv"))   # same folder: the dev file is this data's
    assert w.config().dev == str(stsb / "dev.csv")


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
    """Eighth trial: --text-columns '["Tweet"]' --label-names '["AGAINST", ...]' in the Preview command."""
    import argparse

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
        assert config_from_args(parser.parse_args(cfg.to_cli_args())) == cfg
    assert TrainConfig(label_names=["a, b"]).to_cli_args() == ["--label-names", '["a, b"]']


def test_the_intro_names_the_preset_the_preset_line_names(qtbot, tmp_path):
    """Eighth trial: the first form's intro said "with fast-CPU settings", the line under it "Preset: offline
    default"."""
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.resize(1280, 800)
    w.show()
    assert "Preset: offline default" in w.preset_label.text()
    assert "offline default" in w.hint.text() and "fast" not in w.hint.text().lower()
    w.apply_preset("fast-cpu")
    assert "fast CPU" in w.preset_label.text() and "fast CPU preset" in w.hint.text()


def test_table_tasks_start_at_four_evaluations_per_epoch_of_the_file():
    from explorer.core.specs.tasks import eval_every_for

    assert eval_every_for("single", 2000, 16) == 31            # ceil(2000 / 16) = 125 steps, / 4
    assert eval_every_for("pair", 67349, 16, train_cap=2000) == 31
    assert eval_every_for("regression", 100, 16, gradient_accumulation_steps=2) == 1   # 4 steps: each one
    assert eval_every_for("single", 0, 16) == 0               # size unknown: start and end
    assert eval_every_for("squad_v1", 2000, 16) == 0          # QA keeps its own default


def test_the_launcher_sets_evaluate_every_from_the_data_check_unless_the_user_did(qtbot, tmp_path):
    """Eighth trial: classification runs evaluated only at start and end, so there was no dev curve."""
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="single", train=str(tmp_path / "sst2.tsv"), batch_size=16, train_cap=2000))
    res = {"ok": True, "counts": {"examples": 67349, "labels": 2}, "records": [], "error": ""}
    w.train_preview.result = res
    w.train_preview.finished.emit(res)
    assert w.config().eval_every == 31 and "--eval-every 31" in w.command.toPlainText()
    w.editors["batch_size"].set(32)
    assert w.config().eval_every == 15                       # ceil(2000 / 32) = 63 steps, / 4
    w.editors["eval_every"].set(100)
    w.editors["batch_size"].set(8)
    assert w.config().eval_every == 100                      # the user's value stays


def test_getting_started_walks_the_own_data_classification_path():
    """Eighth trial: Help -> Getting started covered only QA. The names it gives are the app's own."""
    import inspect

    from explorer.ui.inspectors import classify_dev_view, predictions_view
    from explorer.ui.runs import dock
    from explorer.ui.shell.help_dialog import GETTING_STARTED

    own = GETTING_STARTED.split("Your own data", 1)[1].split("What each panel answers")[0]
    for step in ("Train data", "Text columns", "Label column", "Curves", "Classify: dev set", "Predictions"):
        assert step in own
    for name, module in (("Score dev set", classify_dev_view), ("Predict on a file…", dock),
                         ("Save labelled file…", predictions_view)):
        assert name in own and f'"{name}"' in inspect.getsource(module)
    assert "fast-CPU" not in GETTING_STARTED


def test_the_tau_estimate_remembers_the_measured_rate_across_a_restart(tmp_path, monkeypatch):
    """Eighth trial: after a restart the estimate said "a guess until the first run here measures it" although
    8.1 questions/s had been measured."""
    import explorer.ui.inspectors.dev_view as dv
    import explorer.ui.shell.settings as shell_settings
    from explorer.ui.shell.settings import AppSettings

    path = tmp_path / "settings.ini"
    monkeypatch.setattr(dv, "_measured_qps", None)
    monkeypatch.setattr(shell_settings, "_current", AppSettings(path))
    assert "a guess" in dv.estimate_text(400, 0)
    dv.remember_qps(8.1)
    shell_settings.current_settings().sync()
    monkeypatch.setattr(dv, "_measured_qps", None)                    # the restart: a new process
    monkeypatch.setattr(shell_settings, "_current", AppSettings(path))
    text = dv.estimate_text(405, 0)
    assert "at 8.1 questions/s (measured here" in text and "50 s" in text

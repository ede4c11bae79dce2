"""Groups tab "Cross-validate…": the dialog queues the K fold runs of core.studies.cv_runs.start_cv_group (the
function `group --cv K` uses), with the folds' files as the command's plan writes them."""

from __future__ import annotations

import json

import pytest

from explorer.core.studies import cv_runs
from explorer.core.studies import groups
from explorer.core.specs.train_config import TrainConfig
from test_cv_group import _write_table


@pytest.fixture
def window(queued_window):
    return queued_window


def _past_run(tmp_path):
    """A finished past run of the bundled model that trained at 3, 4 and 5 samples/s (median 4)."""
    from explorer.ui.runs.state import RunState, Series

    past = RunState(run_id="old", path=tmp_path / "old", config={"model": "bundled:minilm"}, status="finished")
    past.series["samples_per_second"] = speed = Series()
    for step, sps in enumerate((3.0, 4.0, 5.0)):
        speed.append(step, sps)
    return past


def _accept_with(monkeypatch, k: int, column: str, seen: dict):
    from explorer.ui.groups.cv_dialog import CrossValidateDialog

    def fake_exec(dialog):
        seen["default_k"] = dialog.k.value()
        seen["columns"] = [dialog.column.itemData(i) for i in range(dialog.column.count())]
        dialog.k.setValue(k)
        dialog.column.setCurrentIndex(dialog.column.findData(column))
        return CrossValidateDialog.DialogCode.Accepted

    monkeypatch.setattr(CrossValidateDialog, "exec", fake_exec)


def test_cross_validate_queues_the_folds_of_the_cli_plan(window, monkeypatch, tmp_path):
    w = window
    data = _write_table(tmp_path / "d.csv", n=12, groups_of=lambda i: f"a{i // 2}")
    base = TrainConfig(task="single", train=str(data), text_columns=["sentence"], label_column="label",
                       id_column="id", dev=str(data), dev_cap=5, seed=7)   # dev settings: not used by the folds
    w.launcher.set_config(base)
    w.launcher.train_preview.result = {"columns": ["id", "author", "sentence", "label"]}
    w.groups_tab.group_name.setText("mycv")
    seen: dict = {}
    _accept_with(monkeypatch, 3, "author", seen)
    w.groups_tab.queue_cv.click()
    assert seen == {"default_k": 5, "columns": ["", "id", "author", "sentence", "label"]}
    assert "Queued group mycv: 3 runs (12 examples, fold sizes 4, 4, 4)" in w.groups_tab.message.text()

    runs = w.groups_tab.runs_dir
    folder = groups.group_dir(runs, "mycv")
    group = groups.load_group_file(folder / groups.GROUP_FILE)
    assert group.kind == "cv" and group.cv["k"] == 3 and group.cv["group_column"] == "author"
    queued = {c.run_id: c for c in w.manager.queue}
    assert sorted(queued) == [m.run_id for m in group.members] == ["mycv-01", "mycv-02", "mycv-03"]

    # the command's plan of the same settings (no dev: each fold is its own dev set)
    ref_runs = tmp_path / "ref"
    ref_base = TrainConfig(task="single", train=str(data), text_columns=["sentence"], label_column="label",
                           id_column="id", seed=7, output_dir=str(ref_runs))
    ref_group, ref_configs, _ = cv_runs.start_cv_group(ref_base, ref_runs, "mycv", 3, "author")
    ref_folder = groups.group_dir(ref_runs, "mycv")
    for ref in ref_configs:
        got = queued[ref.run_id]
        assert (got.dev, got.dev_fraction, got.dev_cap) != (str(data), None, 5)
        for field in ("train", "dev"):
            mine, theirs = getattr(got, field), getattr(ref, field)
            assert mine.startswith(str(folder)) and theirs.startswith(str(ref_folder))
            assert open(mine, encoding="utf-8").read() == open(theirs, encoding="utf-8").read()
        assert got.dev_cap == 0 and got.dev_fraction is None and got.seed == 7
        assert got.to_dict() == json.loads((folder / "configs" / f"{ref.run_id}.json").read_text())
    fold_of = json.loads((folder / cv_runs.FOLDS_FILE).read_text())["fold"]
    assert fold_of == json.loads((ref_folder / cv_runs.FOLDS_FILE).read_text())["fold"]
    assert all(fold_of[2 * a] == fold_of[2 * a + 1] for a in range(6))   # one author, one fold


def test_cross_validate_refuses_a_task_it_cannot_fold(qtbot, monkeypatch, tmp_path):
    from explorer.ui.groups.tabs import GroupsTab

    tab = GroupsTab(tmp_path)
    qtbot.addWidget(tab)
    data = _write_table(tmp_path / "d.csv")
    seen: dict = {}
    _accept_with(monkeypatch, 3, "", seen)
    base = TrainConfig(task="regression", train=str(data), text_columns=["sentence"], label_column="label")
    assert tab.cross_validate(base, ["sentence", "label"]) is None
    assert not seen and not (tmp_path / ".groups").exists()
    text = tab.message.text()
    assert "Cross-validation is made for classification tables" in text and "--" not in text
    missing = TrainConfig(task="single", train=str(tmp_path / "nope.csv"))
    assert tab.cross_validate(missing, []) is None and "local training file" in tab.message.text()


class _InProcessClient:
    """An InspectClient stand-in that runs the inspector op in this process, answering through the event loop
    (as the child's answers arrive)."""

    def __init__(self):
        self.ops: list[str] = []

    def request(self, op, data, on_done=None, on_error=None, on_progress=None):
        from PySide6.QtCore import QTimer

        from explorer.worker.inspector_ops import OPS, State

        self.ops.append(op)
        value = OPS[op][0](State(), data, lambda d, t: None, lambda: False)
        QTimer.singleShot(0, lambda: on_done(value))
        return len(self.ops)

    def cancel(self, rid):
        pass


def _cv_group_with_fake_folds(tmp_path, monkeypatch):
    """A cv group "cvg" of 3 finished fold runs over 12 rows whose held-out predictions are right on every row but
    each fold's first; returns (group, folds.json)."""
    import csv

    from test_groups import _fake_run

    data = _write_table(tmp_path / "d.csv")
    base = TrainConfig(task="single", train=str(data), text_columns=["sentence"], label_column="label",
                       output_dir=str(tmp_path))
    group, configs, _ = cv_runs.start_cv_group(base, tmp_path, "cvg", 3)
    for member in group.members:
        _fake_run(tmp_path, member.run_id, [(0, 0.4), (3, 0.5)], task="single")
    gold = json.loads((groups.group_dir(tmp_path, "cvg") / cv_runs.FOLDS_FILE).read_text())

    def fake_predict_fold(group_folder, plan, index, run_dir, *, batch_size=32, predict=None):
        """Fold ``index``: right on every row but the fold's first (p_neg, p_pos by the gold label)."""
        out = cv_runs.fold_predictions_path(group_folder, index)
        rows = [i for i in range(plan.n) if plan.fold[i] == index + 1]
        with open(out, "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(["id", "predicted_label", "p_neg", "p_pos"])
            for j, i in enumerate(rows):
                right = plan.labels[i] if j else 1 - plan.labels[i]
                w.writerow([plan.ids[i], ["neg", "pos"][right], 0.9 if right == 0 else 0.1, 0.1 if right == 0 else 0.9])
        return out

    monkeypatch.setattr(cv_runs, "predict_fold", fake_predict_fold)
    return group, gold


def test_a_finished_cv_group_gets_its_out_of_fold_figure_from_the_inspector_op(qtbot, monkeypatch, tmp_path):
    from explorer.ui.groups.tabs import GroupsTab

    group, gold = _cv_group_with_fake_folds(tmp_path, monkeypatch)
    tab = GroupsTab(tmp_path)
    qtbot.addWidget(tab)
    tab.folds.client = client = _InProcessClient()
    with qtbot.waitSignal(tab.group_shown, timeout=10_000):
        tab.show_group("cvg")
    assert client.ops == ["cv_oof"]
    with qtbot.waitSignal(tab.group_shown, timeout=10_000):   # shown again once the folds are in
        pass
    pooled = cv_runs.read_oof(tmp_path, "cvg")
    assert pooled is not None and pooled.folds_done == 3 and gold["n"] == 12
    assert abs(pooled.metrics["accuracy"] - 100 * 9 / 12) < 1e-9    # one wrong row per fold
    assert f"accuracy (%) {pooled.metrics['accuracy']:.2f}" in tab.view.summary.text()
    assert client.ops == ["cv_oof"]                                # once per group: not asked again


def test_the_last_fold_ending_while_no_group_is_shown_predicts_the_held_out_folds(qtbot, monkeypatch, tmp_path):
    """The pooled out-of-fold figure comes when the last fold ends, whatever the Groups page shows (not only once
    the group is shown again, i.e. after a restart)."""
    from explorer.ui.groups.tabs import GroupsTab

    group, _gold = _cv_group_with_fake_folds(tmp_path, monkeypatch)
    tab = GroupsTab(tmp_path)
    qtbot.addWidget(tab)
    tab.folds.client = client = _InProcessClient()
    with qtbot.waitSignal(tab.listed, timeout=10_000):
        tab.refresh()
    assert tab.view.group is None and client.ops == []
    with qtbot.waitSignal(tab.folds_predicted, timeout=10_000):
        tab._member_ended(group.members[-1].run_id)
    assert client.ops == ["cv_oof"] and cv_runs.read_oof(tmp_path, "cvg").folds_done == 3


def test_the_dialog_estimates_the_folds_time_from_past_runs_of_the_model_here(window, monkeypatch, tmp_path):
    """Cross-validate… gives a time estimate (5 × ~176 steps can be an hour), as Queue paper grid does.
    The K fold runs are estimated from the samples/s past runs of the same model measured on this machine (the
    grid's figure), each training on (K - 1) / K of the rows, updated as K changes."""
    from explorer.ui.groups.cv_dialog import CrossValidateDialog
    from explorer.ui.runs.state import format_seconds

    w = window
    data = _write_table(tmp_path / "d.csv", n=12, groups_of=lambda i: f"a{i // 2}")
    w.launcher.set_config(TrainConfig(task="single", model="bundled:minilm", train=str(data), epochs=2,
                                      text_columns=["sentence"], label_column="label", id_column="id"))
    w.launcher.train_preview.result = {"columns": ["id", "author", "sentence", "label"], "counts": {"examples": 1000}}
    w.launcher.past_runs = lambda: [_past_run(tmp_path)]
    seen = {}

    def fake_exec(dialog):
        seen[5] = dialog.estimate.text()
        dialog.k.setValue(4)
        seen[4] = dialog.estimate.text()
        return CrossValidateDialog.DialogCode.Rejected

    monkeypatch.setattr(CrossValidateDialog, "exec", fake_exec)
    w.groups_tab.group_name.setText("est")
    w.groups_tab.queue_cv.click()
    rate = "4.0 samples/s, the median of 1 past run(s) of this model here"
    # K=5: 5 runs x 800 rows x 2 epochs = 8,000 samples at 4 samples/s; K=4: 4 x 750 x 2 = 6,000
    time5, disk5 = seen[5].split("\n")
    assert time5 == (f"Estimated time: {format_seconds(2000)} in all (8,000 training samples at {rate}; each fold's "
                     "evaluation and the out-of-fold predictions come on top).")
    assert seen[4].startswith(f"Estimated time: {format_seconds(1500)} in all (6,000 training samples")
    # and the disk the folds' checkpoints take, from the model's weight files, for this K
    from explorer.core.models.sources import weight_bytes
    from explorer.core.studies.cv import fold_disk_line
    line = fold_disk_line(weight_bytes("bundled:minilm"), 5)
    assert line and disk5 == line[0].upper() + line[1:] + "."
    assert disk5.startswith("Each fold keeps checkpoints/last (model + optimizer state) and checkpoints/best: about ")
    assert seen[4].split("\n")[1].endswith(" for 4.")


def test_the_folds_estimate_stops_each_fold_at_the_launchers_time_budget(window, qtbot, monkeypatch, tmp_path):
    """With a time budget each fold run ends at it: 5 folds of 0.75 min take about 3:45, not the 33:20 their
    samples would, and the estimate says the budget cut them. The budget typed as 0.75 stays 0.75."""
    from explorer.ui.groups.cv_dialog import CrossValidateDialog

    w = window
    data = _write_table(tmp_path / "d.csv", n=12, groups_of=lambda i: f"a{i // 2}")
    w.launcher.set_config(TrainConfig(task="single", model="bundled:minilm", train=str(data), epochs=2,
                                      text_columns=["sentence"], label_column="label", id_column="id"))
    spin = w.launcher.editors["time_budget_minutes"].widget
    spin.clear()
    qtbot.keyClicks(spin, "0.75")   # as typed: not rounded to 0.7
    spin.interpretText()
    assert w.launcher.config().time_budget_minutes == 0.75
    w.launcher.train_preview.result = {"columns": ["id", "author", "sentence", "label"], "counts": {"examples": 1000}}
    w.launcher.past_runs = lambda: [_past_run(tmp_path)]
    seen = []
    monkeypatch.setattr(CrossValidateDialog, "exec",
                        lambda dialog: (seen.append(dialog.estimate.text()), CrossValidateDialog.DialogCode.Rejected)[1])
    w.groups_tab.group_name.setText("est")
    w.groups_tab.queue_cv.click()
    assert seen and seen[0].startswith("Estimated time: 3:45 in all (8,000 training samples")
    assert "5 of 5 runs stop at their 0:45 time budget (without it 33:20)" in seen[0]
    # the budget is wall time, evaluations included: only the out-of-fold predictions come after the folds
    assert seen[0].split("\n")[0].endswith("the budget includes their evaluations; the out-of-fold predictions come "
                                           "on top).")
    spin.clear()
    qtbot.keyClicks(spin, "90")   # a budget no fold reaches: each fold's evaluations still come on top, up to it
    spin.interpretText()
    w.groups_tab.queue_cv.click()
    assert seen[1].split("\n")[0].endswith("each fold's evaluation and the out-of-fold predictions come on top, "
                                           "each run ending at its 1:30:00 time budget at the latest).")


def test_a_refusal_under_the_groups_buttons_goes_once_the_launch_form_can_be_cross_validated(window, monkeypatch,
                                                                                                tmp_path):
    """Cross-validate… for a regression form says why not under the buttons; after a classification config is
    loaded the dialog opens, and the note no longer names the regression task beside it."""
    from explorer.ui.groups.cv_dialog import CrossValidateDialog

    w = window
    data = _write_table(tmp_path / "d.csv", n=12, groups_of=lambda i: f"a{i // 2}")
    w.launcher.set_config(TrainConfig(task="regression", train=str(data)))
    w.groups_tab.queue_cv.click()
    assert "the Launch tab's task is Regression" in w.groups_tab.message.text()
    w.launcher.set_config(TrainConfig(task="single", train=str(data), text_columns=["sentence"],
                                      label_column="label"))
    shown = []
    monkeypatch.setattr(CrossValidateDialog, "exec",
                        lambda d: (shown.append(w.groups_tab.message.text()), CrossValidateDialog.DialogCode.Rejected)[1])
    w.groups_tab.queue_cv.click()
    assert shown == [""]


def test_the_cross_validate_dialog_shows_its_estimate_and_checkpoint_note_whole_on_a_1280x800_screen(qtbot):
    """The estimate paragraph and the sentence on the folds' checkpoints each get the height their wrapped lines
    need (none cut to fewer lines), also after K changes, and the dialog fits a 1280x800 screen."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui.groups.cv_dialog import CrossValidateDialog

    base = TrainConfig(task="single", train="d.csv", save_checkpoints=False)
    note = cv_runs.fold_checkpoints(base)[1]
    long_estimate = ("Estimated time: 3:45 in all (8,000 training samples at 35.6 samples/s measured on this machine "
                     "for bundled:minilm; 5 of 5 runs stop at their 0:45 time budget (without it 33:20); the budget "
                     "includes their evaluations; the out-of-fold predictions come on top).")
    dialog = CrossValidateDialog(["id", "author"], "train.csv",
                                 estimate=lambda k: long_estimate + " More words." * (k - 4), note=note)
    qtbot.addWidget(dialog)
    dialog.show()
    QApplication.processEvents()

    def whole(label):
        return label.isVisible() and label.height() >= label.heightForWidth(label.width())

    assert dialog.note.text() == note and "Save checkpoints is off" in note
    assert whole(dialog.estimate) and whole(dialog.note)
    dialog.k.setValue(12)
    QApplication.processEvents()
    assert whole(dialog.estimate) and whole(dialog.note)
    assert dialog.width() <= 1280 and dialog.height() <= 800


def test_the_cross_validate_dialog_opened_from_a_window_is_as_tall_as_its_text_with_the_buttons_under_it(qtbot):
    """Opened over a window (as the Groups tab opens it), with the rare-class sentence and the checkpoint note: the
    dialog is as tall as its wrapped text at its width, never the height of a narrower layout (1,664 px on an
    800-px screen, the buttons a screen below the text), and K changing keeps it fitted."""
    from PySide6.QtWidgets import QApplication, QWidget

    from explorer.ui.groups.cv_dialog import CrossValidateDialog

    owner = QWidget()
    qtbot.addWidget(owner)
    owner.resize(1280, 800)
    owner.show()
    base = TrainConfig(task="single", train="d.csv", save_checkpoints=False)
    dialog = CrossValidateDialog(["text", "label"], "rare.csv", owner, note=cv_runs.fold_checkpoints(base)[1],
                                 estimate=lambda k: f"Estimated time: {k}:00 in all ({k} fold runs of about 1:00)",
                                 classes={"pos": 164, "neg": 136, "neutral": 2, "mixed": 1})
    qtbot.addWidget(dialog)
    dialog.show()
    QApplication.processEvents()
    for k in (5, 3, 20):
        dialog.k.setValue(k)
        QApplication.processEvents()
        need = dialog.layout().totalHeightForWidth(dialog.width())
        assert dialog.height() == need and need <= 800, (k, dialog.height(), need)
        assert dialog.queue.mapTo(dialog, dialog.queue.rect().bottomLeft()).y() <= dialog.height()


def test_the_cross_validate_dialog_says_the_folds_split_the_train_caps_rows(qtbot, monkeypatch, tmp_path):
    """The Launch form's Train cap is applied to the folds, and the dialog says so before they are queued; the
    queued folds hold the capped rows."""
    from explorer.ui.groups.cv_dialog import CrossValidateDialog
    from explorer.ui.groups.tabs import GroupsTab

    (tmp_path / "runs").mkdir()
    tab = GroupsTab(tmp_path / "runs")
    qtbot.addWidget(tab)
    data = _write_table(tmp_path / "d.csv", n=30)
    base = TrainConfig(task="single", train=str(data), text_columns=["sentence"], label_column="label",
                       train_cap=12, save_checkpoints=False)
    said = []

    def fake_exec(dialog):
        said.append(dialog.note.text())
        dialog.k.setValue(3)
        return CrossValidateDialog.DialogCode.Accepted

    monkeypatch.setattr(CrossValidateDialog, "exec", fake_exec)
    group, configs = tab.cross_validate(base, ["id", "author", "sentence", "label"])
    assert said[0].startswith("Train cap 12: the folds split the same stratified 12 training rows")
    assert "Save checkpoints is off" in said[0]
    assert tab.cv_note.startswith("12 examples (Train cap 12 of 30 rows)") and len(configs) == 3


def test_cross_validate_names_the_group_after_the_forms_run_name_when_one_is_set(qtbot, monkeypatch, tmp_path):
    """With the name box empty the cv group is named after the Launch form's run name ("stance_lr5e-5-cv"); with
    no run name, after the training file ("d-cv"). Restarts name themselves by the same rule."""
    from explorer.ui.groups.cv_dialog import CrossValidateDialog
    from explorer.ui.groups.tabs import GroupsTab

    (tmp_path / "runs").mkdir()
    tab = GroupsTab(tmp_path / "runs")
    qtbot.addWidget(tab)
    data = _write_table(tmp_path / "d.csv", n=12)
    base = TrainConfig(task="single", train=str(data), text_columns=["sentence"], label_column="label",
                       save_checkpoints=False, run_id="stance_lr5e-5")

    def fake_exec(dialog):
        dialog.k.setValue(2)
        return CrossValidateDialog.DialogCode.Accepted

    monkeypatch.setattr(CrossValidateDialog, "exec", fake_exec)
    group, configs = tab.cross_validate(base, ["id", "author", "sentence", "label"])
    assert group.name == "stance_lr5e-5-cv" and all(c.run_id.startswith("stance_lr5e-5-cv") for c in configs)
    unnamed, _ = tab.cross_validate(TrainConfig(**{**base.__dict__, "run_id": ""}), ["sentence", "label"])
    assert unnamed.name == "d-cv"
    restarts, _ = tab.plan_group("restarts", base)
    assert restarts.name == "stance_lr5e-5-restarts"


def test_the_folds_estimate_counts_the_train_caps_rows():
    """With Train cap 12 of 30 rows the K fold runs train on (K - 1) / K of the 12 rows each, as the folds do."""
    from explorer.ui.launch.grid_estimate import Throughput, cv_estimate

    capped = TrainConfig(task="single", train="d.csv", train_cap=12, epochs=1)
    assert cv_estimate(capped, 3, 30, Throughput(4.0, 2)) == \
        cv_estimate(TrainConfig(task="single", train="d.csv", epochs=1), 3, 12, Throughput(4.0, 2))


def test_the_dialog_names_the_classes_rarer_than_k_folds_before_they_are_queued(qtbot, monkeypatch, tmp_path):
    """The dialog says which classes have fewer rows than K (by name, updated with K, gone with a group column),
    refuses only K that no stratified folds can have, and the queued group's status line says it again."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui.groups.cv_dialog import CrossValidateDialog
    from explorer.ui.groups.tabs import GroupsTab
    from test_cv_group import _write_rare_table

    dialog = CrossValidateDialog(["author"], "d.csv", classes={"neg": 6, "pos": 6, "sad|disgust|angry": 1,
                                                               "sad|angry": 2})
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.k.setValue(2)
    QApplication.processEvents()
    assert dialog.rare.isVisible() and dialog.rare.text().startswith(
        "sad|disgust|angry has 1 row, fewer than the 2 folds: it is held out in only 1 of the 2 folds;")
    assert dialog.rare.height() >= dialog.rare.heightForWidth(dialog.rare.width())   # whole
    dialog.k.setValue(3)
    assert dialog.rare.text().startswith("sad|disgust|angry has 1 row and sad|angry 2, fewer than the 3 folds")
    assert dialog.queue.isEnabled()
    dialog.k.setValue(7)
    assert "every class has fewer rows than the 7 folds (the largest, neg, has 6)" in dialog.rare.text()
    assert not dialog.queue.isEnabled()
    dialog.column.setCurrentIndex(dialog.column.findData("author"))
    assert not dialog.rare.isVisible() and dialog.queue.isEnabled()

    (tmp_path / "runs").mkdir()
    tab = GroupsTab(tmp_path / "runs")
    qtbot.addWidget(tab)
    data = _write_rare_table(tmp_path / "d.csv")
    base = TrainConfig(task="single", train=str(data), text_columns=["sentence"], label_column="label")
    said = []

    def fake_exec(dialog):
        dialog.k.setValue(3)
        said.append(dialog.rare.text())
        return CrossValidateDialog.DialogCode.Accepted

    monkeypatch.setattr(CrossValidateDialog, "exec", fake_exec)
    group, configs = tab.cross_validate(base, ["id", "author", "sentence", "label"])
    assert said[0].startswith("sad|disgust|angry has 1 row and sad|angry 2, fewer than the 3 folds") and len(configs) == 3
    assert "sad|disgust|angry has 1 row and sad|angry 2" in tab.cv_note


def test_the_folds_estimate_says_when_a_time_budget_leaves_too_few_steps_to_learn():
    """3 folds of 5,937 rows in a 1-minute budget at 3.76 samples/s fit about 6 steps of 32 rows each: the estimate
    says so, with the budget whose plan fits the floor of steps; at 400 steps a fold, or with a budget that fits
    enough, it does not."""
    from explorer.core.training.budget import MIN_BUDGET_STEPS
    from explorer.ui.launch.grid_estimate import Throughput, cv_estimate

    base = TrainConfig(task="single", train="d.csv", epochs=3, time_budget_minutes=1.0)
    text = cv_estimate(base, 3, 5937, Throughput(3.76, 2))
    assert "3 of 3 runs stop at their 1:00 time budget" in text
    assert ("Each fold trains about 6 steps in its 1:00 budget (evaluating its 1,979 held-out rows takes the rest): "
            "too few to learn; give each fold about 9 minutes.") in text
    assert MIN_BUDGET_STEPS == 50
    fast = cv_estimate(base, 3, 5937, Throughput(400 * 32 / 51.0, 2))   # about 400 steps fit the budget
    assert "too few to learn" not in fast
    longer = cv_estimate(TrainConfig(task="single", train="d.csv", epochs=3, time_budget_minutes=10.0), 3, 5937,
                         Throughput(3.76, 2))
    assert "too few to learn" not in longer


def test_the_dialog_says_when_each_fold_holds_out_too_few_rows_for_its_figure(qtbot):
    """20 rows in 5 folds: each fold's figure on 4 held-out rows swings from 0 to 100%; the dialog says so before
    Queue, with what to do instead, and Queue stays on; folds of enough rows say nothing."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui.groups.cv_dialog import CrossValidateDialog

    dialog = CrossValidateDialog(["text", "label"], "small.csv", classes={"neg": 10, "pos": 10})
    qtbot.addWidget(dialog)
    dialog.show()
    QApplication.processEvents()
    text = dialog.small.text()
    assert dialog.small.isVisible() and text.startswith("Each of the 5 folds holds out 4 rows of the 20")
    assert "fewer folds" in text and "more data" in text and "pooled out-of-fold figure" in text
    assert dialog.queue.isEnabled()
    dialog.k.setValue(3)
    assert "about 6 rows of the 20" in dialog.small.text()

    big = CrossValidateDialog(["text", "label"], "big.csv", classes={"neg": 100, "pos": 100})
    qtbot.addWidget(big)
    big.show()
    QApplication.processEvents()
    assert not big.small.isVisible() and big.queue.isEnabled()

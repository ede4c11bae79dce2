"""Groups tab "Cross-validate…": the dialog queues the K fold runs of core.cv_runs.start_cv_group (the
function `group --cv K` uses), with the folds' files as the command's plan writes them."""

from __future__ import annotations

import json

import pytest

from explorer.core import cv_runs, groups
from explorer.core.training.config import TrainConfig
from test_cv_group import _write_table


@pytest.fixture
def window(qtbot, tmp_path):
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    runs = tmp_path / "runs"
    runs.mkdir()
    w = MainWindow(runs, AppSettings(tmp_path / "s.ini"), probe_device=False)
    w.manager.max_parallel = 0                     # queued, never started
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
    qtbot.waitUntil(lambda: not w.runs.loading, timeout=10_000)
    return w


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

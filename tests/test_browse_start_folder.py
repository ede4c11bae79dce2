"""Browse… opens beside the file (or folder) its field names, not in the app's working folder
(explorer.ui.shell.start_folder; the launcher's data and model fields, the inspectors' file fields)."""

from __future__ import annotations

from explorer.ui.shell.start_folder import start_folder


def test_a_file_opens_its_folder_a_folder_its_parent(tmp_path):
    data = tmp_path / "tweets"
    data.mkdir()
    (data / "train.csv").write_text("text,label\n")
    run = tmp_path / "trainer_out" / "checkpoint-16"
    run.mkdir(parents=True)
    assert start_folder(str(data / "train.csv")) == str(data)
    assert start_folder(str(run)) == str(tmp_path / "trainer_out")   # the other checkpoints listed beside it


def test_a_missing_path_or_hub_id_falls_back_to_the_first_existing_folder(tmp_path):
    (tmp_path / "a.csv").write_text("x\n")
    assert start_folder("bert-base-uncased", "", str(tmp_path / "gone"), str(tmp_path)) == str(tmp_path)
    assert start_folder("", str(tmp_path / "a.csv")) == str(tmp_path)
    assert start_folder("  ", "") == ""


def test_the_launchers_dev_browse_opens_beside_the_training_file(qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    from explorer.ui.launch.launcher import LauncherPanel

    data = tmp_path / "stance"
    data.mkdir()
    (data / "train.txt").write_text("Tweet\tStance\nx\tFAVOR\n")
    asked = []
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        staticmethod(lambda parent, caption, start, *a: (asked.append(start), ("", ""))[1]))
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.editors["train"].set(str(data / "train.txt"))
    w.form_view._browse_data("dev")
    w.form_view._browse_data("train")
    assert asked == [str(data), str(data)]


def test_the_predictions_browse_opens_beside_the_current_file(qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    from explorer.ui.inspectors.predictions_view import PredictDialog

    (tmp_path / "new.csv").write_text("text\nhello\n")
    asked = []
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        staticmethod(lambda parent, caption, start, *a: (asked.append(start), ("", ""))[1]))
    dialog = PredictDialog("model-dir")
    qtbot.addWidget(dialog)
    dialog.data_edit.setText(str(tmp_path / "new.csv"))
    dialog._browse()
    assert asked == [str(tmp_path)]

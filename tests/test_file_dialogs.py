"""Every file dialog of the app opens by one rule (explorer.ui.shell.file_dialogs): the folder of the file in its
field, else the last folder used for that kind of file (kept in the settings), else the runs folder; never the
process's working folder. A source scan holds every QFileDialog call of explorer/ui to it; the tests below check
the rule and the launcher's Load… / Save… and the Attention page's Dev file browse. The dialogs are replaced:
nothing modal opens."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DIALOG_FUNCTIONS = {"getOpenFileName", "getOpenFileNames", "getSaveFileName", "getExistingDirectory",
                    "getOpenFileUrl", "getOpenFileUrls", "getSaveFileUrl", "getExistingDirectoryUrl"}
RULE = {"dialog_folder", "dialog_path"}   # what a dialog's start folder must come from


def _start_argument(call: ast.Call, position: int, keyword: str) -> ast.expr | None:
    if len(call.args) > position:
        return call.args[position]
    return next((k.value for k in call.keywords if k.arg == keyword), None)


def dialog_calls_without_the_rule(source: str) -> tuple[int, list[int]]:
    """(QFileDialog calls in ``source``, the lines of those whose start folder is not a call of the rule)."""
    calls, bad = 0, []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in DIALOG_FUNCTIONS:
            start = _start_argument(node, 2, "dir")
        elif isinstance(func, ast.Name) and func.id == "QFileDialog":
            start = _start_argument(node, 2, "directory")
        else:
            continue
        calls += 1
        named = start.func.id if isinstance(start, ast.Call) and isinstance(start.func, ast.Name) else ""
        if named not in RULE:
            bad.append(node.lineno)
    return calls, bad


def test_the_scan_finds_a_dialog_without_a_start_folder():
    assert dialog_calls_without_the_rule('QFileDialog.getOpenFileName(self, "Dev file")') == (1, [1])
    assert dialog_calls_without_the_rule('QFileDialog.getSaveFileName(self, "CSV", "curves.csv", "")') == (1, [1])
    assert dialog_calls_without_the_rule('QFileDialog(self, "Pick")') == (1, [1])
    assert dialog_calls_without_the_rule('QFileDialog.getExistingDirectory(self, "x", dialog_folder("model"))') \
        == (1, [])


def test_every_file_dialog_in_the_ui_opens_by_the_rule():
    calls, bad = 0, []
    for path in sorted((ROOT / "explorer" / "ui").rglob("*.py")):
        found, lines = dialog_calls_without_the_rule(path.read_text(encoding="utf-8"))
        calls += found
        bad += [f"{path.relative_to(ROOT)}:{line}" for line in lines]
    assert calls >= 5, "the scan found no file dialogs: has QFileDialog moved?"
    assert not bad, ("file dialogs whose start folder is not file_dialogs.dialog_folder / dialog_path (they open "
                     f"in the process's working folder): {bad}")


# ---- the rule -----------------------------------------------------------------------------------------------
@pytest.fixture
def places(tmp_path, monkeypatch):
    """A working folder the dialogs must never open in, a home, a runs folder and settings naming it."""
    from explorer.ui.shell.settings import AppSettings

    for name in ("cwd", "home", "runs", "data", "configs"):
        (tmp_path / name).mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    settings = AppSettings(tmp_path / "s.ini")
    settings.set_runs_dir(str(tmp_path / "runs"))
    return tmp_path, settings


def test_the_field_then_a_file_beside_it_then_the_last_folder_of_its_kind_then_the_runs_folder(places):
    from explorer.ui.shell.file_dialogs import dialog_folder, dialog_path

    root, settings = places
    (root / "data" / "train.csv").write_text("text,label\n")
    assert dialog_folder("data", str(root / "data" / "train.csv"), settings=settings) == str(root / "data")
    assert dialog_folder("data", "", near=[str(root / "data" / "train.csv")], settings=settings) == str(root / "data")
    assert dialog_folder("data", "bert-base-uncased", settings=settings) == str(root / "runs")   # a hub id: no file
    settings.set_last_dir("data", str(root / "configs"))
    assert dialog_folder("data", "", settings=settings) == str(root / "configs")
    assert dialog_folder("model", "", settings=settings) == str(root / "runs")   # another kind: its own folder
    assert dialog_path("export", "curves.png", settings=settings) == str(root / "runs" / "curves.png")


def test_never_the_working_folder(places):
    from explorer.ui.shell.file_dialogs import dialog_folder

    root, settings = places
    settings.set_runs_dir(str(root / "not made yet"))
    assert dialog_folder("data", "", settings=settings) == str(root)   # the folder the runs folder would be in
    assert dialog_folder("data", "bert-base-uncased", settings=settings) == str(root)
    assert dialog_folder("data", "", settings=settings, runs_dir=str(root / "runs")) == str(root / "runs")


def test_a_folder_that_no_longer_exists_opens_its_nearest_existing_parent_not_home(places):
    """A deleted runs folder or last folder of a kind: the dialog opens in the nearest folder above it that
    exists (where it was), not in the home folder; the home folder only when no such folder is known."""
    import shutil

    from explorer.ui.shell.file_dialogs import dialog_folder

    root, settings = places
    runs = root / "work" / "bert" / "runs"
    runs.mkdir(parents=True)
    settings.set_runs_dir(str(runs))
    settings.set_last_dir("data", str(root / "data" / "tweets" / "2024"))   # two levels below an existing folder
    assert dialog_folder("data", "", settings=settings) == str(runs)      # the runs folder exists: it wins
    shutil.rmtree(runs)
    assert dialog_folder("model", "", settings=settings) == str(root / "work" / "bert")
    assert dialog_folder("data", "", settings=settings) == str(root / "data")   # the last folder's parent first
    assert dialog_folder("data", "", settings=settings, runs_dir="relative/runs") == str(root / "data")
    assert dialog_folder("model", "", settings=settings, runs_dir="relative/runs") == str(root / "home")


def test_a_chosen_file_s_folder_is_the_next_start_of_its_kind(places, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    from explorer.ui.shell.file_dialogs import open_file, open_folder, save_file

    root, settings = places
    asked = []

    def answer(path):
        return staticmethod(lambda _parent, _caption, start, *_a: (asked.append(start), (path, ""))[1])

    monkeypatch.setattr(QFileDialog, "getOpenFileName", answer(str(root / "data" / "a.csv")))
    assert open_file(None, "Data", "data", settings=settings) == str(root / "data" / "a.csv")
    open_file(None, "Data", "data", settings=settings)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", answer(str(root / "configs" / "x.png")))
    save_file(None, "Save", "export", "curves.png", settings=settings)
    save_file(None, "Save", "export", "curves.png", settings=settings)
    monkeypatch.setattr(QFileDialog, "getExistingDirectory",
                        staticmethod(lambda _p, _c, start, *_a: (asked.append(start), str(root / "configs"))[1]))
    open_folder(None, "Into", "report", settings=settings, into=True)   # a folder written into: itself next time
    open_folder(None, "Into", "report", settings=settings, into=True)
    assert asked == [str(root / "runs"), str(root / "data"), str(root / "runs" / "curves.png"),
                     str(root / "configs" / "curves.png"), str(root / "runs"), str(root / "configs")]


# ---- the launcher's Load… / Save… and the Attention page's Dev file -------------------------------------------
def test_load_config_opens_in_the_last_config_folder_else_the_runs_folder(qtbot, places, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    from explorer.ui.launch.launcher import LauncherPanel
    from explorer.ui.shell.settings import AppSettings

    root, settings = places
    w = LauncherPanel(root / "runs", settings)
    qtbot.addWidget(w)
    w.save_json(root / "configs" / "mine.json")
    asked = []
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(
        lambda _p, _c, start, *_a: (asked.append(start), (str(root / "configs" / "mine.json"), ""))[1]))
    w._ask_load()   # never used before: the runs folder, not the app's working folder
    w._ask_load()   # the folder a config was just loaded from
    settings.sync()
    again = LauncherPanel(root / "runs", AppSettings(root / "s.ini"))   # after a restart too
    qtbot.addWidget(again)
    again._ask_load()
    assert asked == [str(root / "runs"), str(root / "configs"), str(root / "configs")]
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(
        lambda _p, _c, start, *_a: (asked.append(start), ("", ""))[1]))
    again._ask_save()
    assert asked[-1] == str(root / "configs" / "run.json")


def test_the_head_importance_dev_file_browse_opens_beside_its_file_else_the_last_data_folder(qtbot, places,
                                                                                           monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    from explorer.ui.inspectors.head_importance_panel import HeadImportancePanel
    from explorer.ui.shell.settings import set_current_settings

    root, settings = places
    set_current_settings(settings)   # the window's (the conftest sets it back)
    (root / "data" / "dev.json").write_text("{}")
    asked = []
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(
        lambda _p, _c, start, *_a: (asked.append(start), ("", ""))[1]))
    panel = HeadImportancePanel(None, "qa")
    qtbot.addWidget(panel)
    panel._browse()
    settings.set_last_dir("data", str(root / "configs"))
    panel._browse()
    panel.dev.setText(str(root / "data" / "dev.json"))
    panel._browse()
    assert asked == [str(root / "runs"), str(root / "configs"), str(root / "data")]

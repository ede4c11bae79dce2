"""Open folder: a desktop with no file manager (the opener missing or failing) gets a message with the folder's
path in the status bar and a dialog whose text can be selected, not a click that does nothing."""

import sys

from PySide6.QtCore import QProcess
from PySide6.QtWidgets import QWidget

from explorer.ui.shell.folder_opener import FolderOpener


def _opener(qtbot, command):
    parent = QWidget()
    qtbot.addWidget(parent)
    said = []
    return FolderOpener(parent, said.append, command=command), said


def test_a_failing_opener_says_so_with_the_path(qtbot, tmp_path):
    failing = [sys.executable, "-c", "import sys; sys.stderr.write('no method available for opening it'); "
               "sys.exit(3)"]
    opener, said = _opener(qtbot, lambda path: [*failing, path])
    opener.open(tmp_path)
    qtbot.waitUntil(lambda: bool(said), timeout=30000)
    assert str(tmp_path) in said[0] and "status 3" in said[0] and "no method available" in said[0]
    assert str(tmp_path) in opener.dialog.text() and opener.dialog.isVisible()
    assert opener.dialog.textInteractionFlags() & opener.dialog.textInteractionFlags().TextSelectableByMouse


def test_a_missing_opener_says_so(qtbot, tmp_path):
    opener, said = _opener(qtbot, lambda path: [str(tmp_path / "no-such-opener"), path])
    opener.open(tmp_path)
    qtbot.waitUntil(lambda: bool(said), timeout=30000)
    assert "is not installed" in said[0] and str(tmp_path) in said[0]


def test_an_opener_that_succeeds_says_nothing(qtbot, tmp_path):
    opener, said = _opener(qtbot, lambda path: [sys.executable, "-c", "pass", path])
    opener.open(tmp_path)
    qtbot.waitUntil(lambda: not opener.findChildren(QProcess), timeout=30000)   # it ran and exited
    assert said == [] and opener.dialog is None

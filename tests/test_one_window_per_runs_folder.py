"""One window per runs folder (explorer.ui.shell.single_instance): a second start on the folder an open window
shows brings that window to the front and exits 0; another folder opens its own window; a socket left by a window
that crashed does not block the next start."""

from __future__ import annotations

import os

from PySide6.QtNetwork import QLocalServer

from explorer.ui.shell.single_instance import WindowDoor, server_name, wake_open_window


def test_a_start_on_an_open_folder_wakes_that_window_and_another_folder_does_not(qtbot, tmp_path):
    runs, other = tmp_path / "runs", tmp_path / "other"
    runs.mkdir()
    other.mkdir()
    raised = []
    door = WindowDoor(str(runs), lambda: raised.append(True))
    try:
        assert door.listening
        assert not wake_open_window(str(other))                 # no window on that folder: a new one opens
        assert wake_open_window(str(runs / ".." / "runs"))      # the same folder, written another way
        qtbot.waitUntil(lambda: raised == [True], timeout=5000)
        door.listen_on(str(other))                              # File → Change runs folder…
        assert wake_open_window(str(other)) and not wake_open_window(str(runs))
        qtbot.waitUntil(lambda: raised == [True, True], timeout=5000)
    finally:
        door.close()
    assert not wake_open_window(str(runs))                      # closed: the next start opens a window


def test_a_socket_left_by_a_crashed_window_is_replaced(qtbot, tmp_path):
    """A crash leaves the socket file behind (nothing listens on it): the next window takes the name over."""
    from PySide6.QtCore import QDir

    name = server_name(str(tmp_path))
    left = os.path.join(QDir.tempPath(), name)
    open(left, "w").close()          # what a killed QLocalServer leaves: a path nobody listens on
    try:
        assert not wake_open_window(str(tmp_path))
        door = WindowDoor(str(tmp_path), lambda: None)
        assert door.listening
        door.close()
    finally:
        QLocalServer.removeServer(name)


def test_the_second_start_says_so_and_exits_without_a_window(qtbot, tmp_path, monkeypatch, capsys):
    """`bert-explorer --runs-dir R` while a window is open on R: exit 0, one line naming the folder, no window."""
    import explorer.ui.app as app_module

    runs = tmp_path / "runs"
    runs.mkdir()
    door = WindowDoor(str(runs), lambda: None)
    built = []
    monkeypatch.setattr(app_module, "create_window", lambda *a, **k: built.append(a))
    monkeypatch.setattr("explorer.ui.shell.preflight.platform_problem", lambda: "")
    try:
        rc = app_module.main(["--runs-dir", str(runs), "--settings", str(tmp_path / "s.ini")])
    finally:
        door.close()
    assert rc == 0 and built == []
    assert f"already open on {runs}" in capsys.readouterr().out

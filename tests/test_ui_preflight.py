"""Start-up checks before Qt: missing xcb libraries and no display give a message
and exit 1, never Qt's abort."""

from __future__ import annotations

import sys

import pytest

from explorer.ui import app

from explorer.ui.shell import preflight

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the xcb plugin is Linux-only")


@linux
def test_missing_libraries_name_packages_and_the_apt_line():
    msg = preflight.platform_problem({"DISPLAY": ":0"}, finder=lambda: ["libxcb-icccm.so.4", "libxcb-keysyms.so.1"])
    assert "libxcb-icccm.so.4, libxcb-keysyms.so.1" in msg
    assert "packages libxcb-icccm4, libxcb-keysyms1" in msg
    assert preflight.APT_LINE in msg
    for pkg in ("libxcb-cursor0", "libxcb-icccm4", "libxcb-keysyms1", "libxkbcommon-x11-0", "libegl1"):
        assert pkg in preflight.APT_LINE.split()


@linux
def test_no_problem_with_libraries_and_display_or_other_platform():
    assert preflight.platform_problem({"DISPLAY": ":0"}, finder=lambda: []) is None
    never = lambda: pytest.fail("the xcb libraries must not be checked for another platform")  # noqa: E731
    assert preflight.platform_problem({"QT_QPA_PLATFORM": "offscreen"}, finder=never) is None
    assert preflight.platform_problem({"WAYLAND_DISPLAY": "wayland-0"}, finder=never) is None


@linux
def test_no_display_is_said_plainly():
    msg = preflight.platform_problem({}, finder=lambda: [])
    assert "needs a display" in msg and "xvfb-run" in msg


def test_ldd_parsing(tmp_path, monkeypatch):
    lib = tmp_path / "libqxcb.so"
    lib.write_bytes(b"")

    class Done:
        stdout = ("\tlibxcb-cursor.so.0 => /lib/libxcb-cursor.so.0 (0x1)\n"
                  "\tlibxcb-icccm.so.4 => not found\n\tlibxcb-keysyms.so.1 => not found\n")

    monkeypatch.setattr(preflight.shutil, "which", lambda name: "/usr/bin/ldd")
    monkeypatch.setattr(preflight.subprocess, "run", lambda *a, **k: Done())
    assert preflight.ldd_missing([lib, tmp_path / "absent.so"]) == ["libxcb-icccm.so.4", "libxcb-keysyms.so.1"]


@linux
def test_gui_main_prints_the_line_and_exits_1(monkeypatch, capsys):
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.setattr(preflight, "missing_xcb_libraries", lambda: ["libxcb-icccm.so.4"])
    monkeypatch.setattr(preflight.platform_problem, "__defaults__",
                        (None, preflight.missing_xcb_libraries))
    assert app.main([]) == 1
    assert preflight.APT_LINE in capsys.readouterr().err


@linux
def test_background_without_display_says_how_to_start(monkeypatch, capsys):
    for name in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY", "DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    started = []
    monkeypatch.setattr("subprocess.Popen", lambda *a, **k: started.append(a))
    assert app.main(["--background"]) == 0
    out = capsys.readouterr().out
    assert "No display here" in out and "bert-explorer" in out
    assert not started


def test_the_background_log_is_the_users_own(monkeypatch, tmp_path):
    """Two users of one machine never share (or can plant) the --background log: it lives in each user's
    state folder."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert app.background_log_path() == tmp_path / "state" / "bert-explorer" / "app.log"
    monkeypatch.delenv("XDG_STATE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert app.background_log_path() == tmp_path / "home" / ".local" / "state" / "bert-explorer" / "app.log"


def test_readme_has_the_apt_line_and_two_commands_matching_ci():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    readme = (root / "README.md").read_text(encoding="utf-8")
    assert preflight.APT_LINE in readme
    setup = readme.split("## Set-up", 1)[1].split("```bash", 1)[1].split("```", 1)[0].strip().splitlines()
    assert len(setup) == 2
    assert setup[0].startswith("python3 -m venv ") and setup[0].endswith("bert-explorer --background")
    ci = (root / ".ci" / "run").read_text(encoding="utf-8")
    assert "QT_QPA_PLATFORM=offscreen" in ci and setup[1].split("offscreen ", 1)[1] in ci


def test_the_guide_lists_every_shortcut():
    from pathlib import Path

    from explorer.ui.shell.help_dialog import SHORTCUTS

    page = (Path(__file__).resolve().parents[1] / "docs" / "keyboard.md").read_text(encoding="utf-8")
    for key, where, what in SHORTCUTS:
        assert f"| {key} | {where} | {what} |" in page


def test_the_app_collects_garbage_only_on_the_gui_thread(qapp):
    """Automatic collection is off and a GUI-thread timer collects instead (a collection on a reader thread
    can free a Qt object there, and Qt aborts)."""
    import gc
    import types

    owner = types.SimpleNamespace()
    gc.enable()
    try:
        app.collect_on_the_gui_thread(owner)
        assert not gc.isenabled()
    finally:
        gc.disable()   # the test session's own rule (tests/conftest.py)
    collector = owner._gc_on_gui_thread
    assert collector.timer.isActive() and collector.timer.interval() == 1000
    collector.timer.stop()

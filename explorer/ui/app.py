"""`bert-explorer` with no arguments: the desktop app.

    bert-explorer [--runs-dir FOLDER] [--settings FILE.ini] [--background]

Before Qt is touched, explorer.ui.shell.preflight checks that the window can open (Qt's xcb libraries
present, a display set) and otherwise prints why, with the apt line that fixes it, and exits 1
(instead of Qt's abort, exit 134). --background: start the app detached from the terminal and return
at once; where there is no display, only say how to start it (exit 0) - the README's install command
ends with it. --runs-dir: where runs are listed and written (default: the remembered folder, else
$EXPLORER_RUNS_DIR, else ~/bert-explorer-runs). --settings: keep the app's settings in this INI
file instead of the user's (tests and scripts; $EXPLORER_SETTINGS does the same).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from functools import partial
from pathlib import Path

from explorer.app_args import add_app_arguments
from explorer.paths import default_runs_dir


def build_parser() -> argparse.ArgumentParser:
    """The app's parser: the options that `bert-explorer --help` lists (explorer.app_args.add_app_arguments)."""
    p = argparse.ArgumentParser(prog="bert-explorer", description="BERT Explorer desktop app.")
    add_app_arguments(p)
    return p


def start_in_background(argv: list[str]) -> int:
    """The README's install command ends here: start the app detached (its output in a log file) when a
    display is present, else print how to start it. Returns the exit code (0, or 1 when Qt cannot start)."""
    import subprocess

    from explorer.ui.shell.preflight import HEADLESS_HINT, has_display, platform_problem

    if not has_display():
        print(f"BERT Explorer is installed. No display here, so the app was not started: {HEADLESS_HINT}. "
              "On a desktop, start it with `bert-explorer`.")
        return 0
    problem = platform_problem()
    if problem:
        print(problem, file=sys.stderr)
        return 1
    log = background_log_path()
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as out:
        child = subprocess.Popen([sys.executable, "-m", "explorer", *argv], stdin=subprocess.DEVNULL,
                                 stdout=out, stderr=out, start_new_session=True)
    print(f"BERT Explorer started in the background (pid {child.pid}; its output goes to {log}). "
          "Start it again any time with `bert-explorer`.")
    return 0


def background_log_path() -> Path:
    """Where ``--background`` sends the app's output: the user's own state folder
    (``$XDG_STATE_HOME/bert-explorer/app.log``, else ``~/.local/state/bert-explorer/app.log``), never a file in
    the shared temporary folder that every user of the machine would write to (or could plant a link at)."""
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "bert-explorer" / "app.log"


def create_app():
    """The QApplication (created if needed), named for QSettings and styled; nothing heavy imported yet."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui.shell.settings import APP_NAME, ORG_NAME
    from explorer.ui.shell.style import apply_style

    app = QApplication.instance()
    if app is None:
        app = QApplication(sys.argv[:1])
    app.setApplicationName(APP_NAME)
    app.setOrganizationName(ORG_NAME)
    app.setApplicationDisplayName(APP_NAME)
    apply_style(app)
    return app


def runs_folder(runs_dir: str, settings) -> str:
    """The runs folder a window opens on: ``runs_dir`` (``--runs-dir``), else the one remembered in ``settings``
    (an AppSettings), else the default (explorer.paths.default_runs_dir)."""
    return runs_dir or settings.runs_dir() or str(default_runs_dir())


def create_window(runs_dir: str = "", settings_path: str = "", probe_device: bool = True, splash=None,
                  settings=None):
    """The QApplication (created if needed, named for QSettings) and a MainWindow (not shown).
    ``splash``: a shell.splash.StartupSplash told each step while the window is built; ``settings``: the
    AppSettings to use (else read from ``settings_path``)."""
    from explorer.ui.shell.settings import AppSettings

    app = create_app()
    if splash is not None:
        splash.step("loading the plotting library and building the pages…")
    from explorer.ui.shell.main_window import MainWindow

    settings = settings or AppSettings(settings_path or None)
    folder = runs_folder(runs_dir, settings)
    window = MainWindow(folder, settings, probe_device=probe_device)
    if splash is not None:
        splash.step("opening the window…")
    # Move everything built so far out of the cyclic garbage collector's reach: later full
    # collections then scan only new objects and stay short (no pauses in the event loop).
    gc.collect()
    gc.freeze()
    window.lazy_pages.idle_done = gc.freeze   # and the pages built after the first paint
    collect_on_the_gui_thread(window)
    # Wrapped tooltips from here on (none shows before the window does): the filter sees every event,
    # and the ~100,000 of building the window cost a quarter of its CPU time through it.
    from explorer.ui.shell.tooltips import install_tooltip_wrapper

    install_tooltip_wrapper(app)
    return app, window


def collect_on_the_gui_thread(owner) -> None:
    """The cyclic garbage collector runs only on the GUI thread, from a timer (pyqtgraph's GarbageCollector:
    automatic collection off, a check every second). A collection that starts on another thread (a reader
    or worker thread allocating) may free a Qt object caught in a reference cycle there, and Qt aborts the
    process. ``owner`` keeps the collector (and its timer) alive."""
    from pyqtgraph.util.garbage_collector import GarbageCollector

    owner._gc_on_gui_thread = GarbageCollector(interval=1.0)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser().parse_args(argv)
    if args.background:
        return start_in_background([a for a in argv if a != "--background"])
    from explorer.ui.shell.preflight import platform_problem

    problem = platform_problem()
    if problem:   # Qt would abort (exit 134) with a message about one library; say what to install instead
        print(problem, file=sys.stderr)
        return 1
    create_app()
    from explorer.ui.shell.settings import AppSettings
    from explorer.ui.shell.single_instance import WindowDoor, bring_to_front, wake_open_window

    settings = AppSettings(args.settings or None)
    folder = runs_folder(args.runs_dir, settings)
    if wake_open_window(folder):   # one window per runs folder: the open one comes to the front
        print(f"BERT Explorer is already open on {folder}: its window was brought to the front. "
              "Start it with --runs-dir FOLDER for another runs folder.")
        return 0
    from explorer.ui.shell.splash import hand_over, show_splash

    splash = show_splash()   # on screen within a second; the main window takes longer
    app, window = create_window(args.runs_dir, args.settings, splash=splash, settings=settings)
    window.door = WindowDoor(folder, partial(bring_to_front, window), window)
    hand_over(splash, window)
    rc = app.exec()
    if window.detached:
        # runs left training: exit without running the QProcess destructors, which would kill them
        print(f"Left training: {', '.join(window.detached)} (the next start shows them again)", file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(int(rc))
    # Destroy the widgets while Python is still fully alive: letting the interpreter's final garbage
    # collection tear down linked pyqtgraph plots crashes PySide6 6.12 (bool refcount abort).
    from PySide6.QtCore import QCoreApplication, QEvent

    window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    del window
    return int(rc)


if __name__ == "__main__":
    sys.exit(main())

"""`bert-explorer` with no arguments: the desktop app.

    bert-explorer [--runs-dir FOLDER] [--settings FILE.ini]

--runs-dir: where runs are listed and written (default: the remembered folder, else
$EXPLORER_RUNS_DIR, else ~/bert-explorer-runs). --settings: keep the app's settings in this INI
file instead of the user's (tests and scripts; $EXPLORER_SETTINGS does the same).
"""

from __future__ import annotations

import argparse
import gc
import sys

from explorer.paths import default_runs_dir


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="bert-explorer", description="BERT Explorer desktop app.")
    p.add_argument("--runs-dir", default="", help="runs folder (default: remembered, else ~/bert-explorer-runs)")
    p.add_argument("--settings", default="", help="settings INI file (default: the user's settings)")
    return p


def create_window(runs_dir: str = "", settings_path: str = "", probe_device: bool = True):
    """The QApplication (created if needed, named for QSettings) and a MainWindow (not shown)."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui.settings import APP_NAME, ORG_NAME, AppSettings
    from explorer.ui.style import apply_style

    app = QApplication.instance()
    if app is None:
        app = QApplication(sys.argv[:1])
    app.setApplicationName(APP_NAME)
    app.setOrganizationName(ORG_NAME)
    app.setApplicationDisplayName(APP_NAME)
    apply_style(app)
    from explorer.ui.main_window import MainWindow

    settings = AppSettings(settings_path or None)
    folder = runs_dir or settings.runs_dir() or str(default_runs_dir())
    window = MainWindow(folder, settings, probe_device=probe_device)
    # Move everything built so far out of the cyclic garbage collector's reach: later full
    # collections then scan only new objects and stay short (no pauses in the event loop).
    gc.collect()
    gc.freeze()
    return app, window


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    app, window = create_window(args.runs_dir, args.settings)
    window.show()
    rc = app.exec()
    # Destroy the widgets while Python is still fully alive: letting the interpreter's final garbage
    # collection tear down linked pyqtgraph plots crashes PySide6 6.12 (bool refcount abort).
    from PySide6.QtCore import QCoreApplication, QEvent

    window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    del window
    return int(rc)


if __name__ == "__main__":
    sys.exit(main())

"""Where the project's own files live (resources/, the default runs folder)."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
RESOURCES = REPO_ROOT / "resources"
SAMPLES = RESOURCES / "samples"


def default_runs_dir() -> Path:
    """The runs folder: $EXPLORER_RUNS_DIR if set, else ~/bert-explorer-runs."""
    env = os.environ.get("EXPLORER_RUNS_DIR")
    return Path(env) if env else Path.home() / "bert-explorer-runs"


SETTINGS_ENV = "EXPLORER_SETTINGS"   # the desktop app's settings file, when not its usual place


def app_settings_file() -> Path:
    """The desktop app's settings file (Qt's INI format, user scope): $EXPLORER_SETTINGS, else
    BERT Explorer/BERT Explorer.ini under $XDG_CONFIG_HOME (~/.config), or %APPDATA% on Windows."""
    env = os.environ.get(SETTINGS_ENV)
    if env:
        return Path(env)
    base = os.environ.get("APPDATA") if os.name == "nt" else os.environ.get("XDG_CONFIG_HOME")
    return Path(base or Path.home() / ".config") / "BERT Explorer" / "BERT Explorer.ini"


def app_runs_dir() -> Path:
    """The runs folder the desktop app opens without --runs-dir: the one its settings remember (``runs_dir`` in
    the settings file's [General] section) when that is a folder, else :func:`default_runs_dir`. Read without Qt,
    so the command line lists the same folder the app shows."""
    import configparser

    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read(app_settings_file(), encoding="utf-8")
        value = parser.get("General", "runs_dir", fallback="").strip()
    except (configparser.Error, OSError, UnicodeDecodeError):
        value = ""
    if len(value) >= 2 and value[0] == value[-1] == '"':   # Qt quotes a value with commas or spaces at its ends
        value = value[1:-1]
    folder = Path(value).expanduser() if value else None
    return folder if folder is not None and folder.is_dir() else default_runs_dir()

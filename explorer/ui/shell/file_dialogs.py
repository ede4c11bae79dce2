"""Where every file dialog of the app opens, by one rule, and the dialogs that follow it.

The rule (:func:`dialog_folder`): the folder of the file or folder the field names now, when it names one; else the
folder of a file the form names beside it (the training file for the dev file); else the last folder used for that
kind of file (``kind``: "data", "model", "config", "run", "export", …; kept in the settings across sessions); else
the runs folder; when none of these exists (the runs folder or the last folder deleted), the nearest existing folder
above one of them, in the same order (start_folder.nearest_existing_parent); else the home folder. Never the
process's working folder as Qt's default: a dialog given no folder opened where the app was started from (the clone
folder), and the user walked from there to their data every time.

Every QFileDialog call of explorer/ui passes :func:`dialog_folder` or :func:`dialog_path` as its folder
(tests/test_file_dialogs.py scans for it); :func:`open_file`, :func:`open_folder` and :func:`save_file` are the
common calls, and they remember the folder of what was chosen for the next dialog of that kind.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from PySide6.QtWidgets import QFileDialog, QWidget

from explorer.ui.shell.settings import AppSettings, current_runs_dir, current_settings
from explorer.ui.shell.start_folder import nearest_existing_parent, start_folder

__all__ = ["EXPORT_KIND", "dialog_folder", "dialog_path", "open_file", "open_folder", "remember_folder", "save_file"]

EXPORT_KIND = "export"   # the kind of every file or folder the app writes a view, table or report to


def _settings(settings: AppSettings | None) -> AppSettings | None:
    return settings if settings is not None else current_settings()


def dialog_folder(kind: str, current: str = "", *, near: Iterable[str] = (), settings: AppSettings | None = None,
                  runs_dir: str | Path = "") -> str:
    """The absolute folder a dialog for ``kind`` opens in.

    Args:
        kind: what the file is ("data", "model", "config", "run", "export", "runs_dir"): the settings' last folder
            of that kind (AppSettings.last_dir) is the fallback after the fields.
        current: the path the dialog's field holds now ("" or a hub id: skipped); a file's or a folder's parent.
        near: other paths of the same form, used in order when ``current`` names nothing (a file's folder, a folder).
        settings: the app's settings (default: the window's, settings.current_settings; None outside the app).
        runs_dir: the runs folder (default: the window's, settings.current_runs_dir).
    """
    settings = _settings(settings)
    last = settings.last_dir(kind) if settings is not None else ""
    runs = str(runs_dir or current_runs_dir(settings))
    home = str(Path.home())
    # none of them exists (the runs folder deleted): the nearest folder above one of them, before the home folder
    folder = start_folder(current, *near, last, runs) or nearest_existing_parent(current, *near, last, runs) or home
    return os.path.abspath(folder)


def dialog_path(kind: str, name: str, current: str = "", **where) -> str:
    """A Save dialog's proposed file: ``name`` (a file name) in :func:`dialog_folder` of ``kind`` and ``current``
    (``where``: its ``near``, ``settings``, ``runs_dir``)."""
    return str(Path(dialog_folder(kind, current, **where)) / Path(name).name)


def remember_folder(kind: str, path: str, *, settings: AppSettings | None = None, itself: bool = False) -> None:
    """Keep the folder ``path`` (a chosen file or folder) is in as the next start folder of ``kind``: a file's
    folder, a folder's parent (where it is listed beside its siblings, as :func:`dialog_folder` opens a field's),
    or with ``itself`` the folder ``path`` (a folder files were written into)."""
    settings = _settings(settings)
    if settings is not None and path:
        path = Path(path).expanduser().resolve()
        settings.set_last_dir(kind, str(path if itself else path.parent))


def open_file(parent: QWidget | None, caption: str, kind: str, filters: str = "", current: str = "", **where) -> str:
    """Ask for an existing file of ``kind`` (QFileDialog.getOpenFileName with ``filters``), opened by the rule;
    the chosen path ("" when cancelled), its folder remembered."""
    path, _ = QFileDialog.getOpenFileName(parent, caption, dialog_folder(kind, current, **where), filters)
    if path:
        remember_folder(kind, path, settings=where.get("settings"))
    return path


def open_folder(parent: QWidget | None, caption: str, kind: str, current: str = "", *, into: bool = False,
                **where) -> str:
    """Ask for an existing folder of ``kind`` (QFileDialog.getExistingDirectory), opened by the rule; the chosen
    folder ("" when cancelled). Its parent is remembered (a model or run folder, listed among its siblings next
    time), or with ``into`` (a folder files are written into) the folder itself."""
    path = QFileDialog.getExistingDirectory(parent, caption, dialog_folder(kind, current, **where))
    if path:
        remember_folder(kind, path, settings=where.get("settings"), itself=into)
    return path


def save_file(parent: QWidget | None, caption: str, kind: str, name: str, filters: str = "", current: str = "",
              **where) -> str:
    """Ask where to save ``name`` (QFileDialog.getSaveFileName), proposed in the rule's folder; the chosen path
    ("" when cancelled), its folder remembered."""
    path, _ = QFileDialog.getSaveFileName(parent, caption, dialog_path(kind, name, current, **where), filters)
    if path:
        remember_folder(kind, path, settings=where.get("settings"))
    return path

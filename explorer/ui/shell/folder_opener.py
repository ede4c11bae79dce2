"""Open a folder in the desktop's file manager, and say so where the user looks when none opens it.

QDesktopServices.openUrl starts ``xdg-open`` detached on Linux and reports success whether or not a file manager
opened the folder: on a desktop without one the click did nothing and the reason was only in the log. Here the
opener runs as a child process whose exit status is read: a failure (it is missing, it fails, or no application
handles folders) puts a message in the status bar and a dialog whose text (the folder's path) can be selected and
copied.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QProcess, Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QMessageBox, QWidget

__all__ = ["FolderOpener", "opener_command", "could_not_open"]


def opener_command(path: str | Path) -> list[str] | None:
    """The command that shows ``path`` in the file manager (Linux and the BSDs: xdg-open; macOS: open); None where
    Qt's own call reports failure itself (Windows)."""
    if sys.platform == "darwin":
        return ["open", str(path)]
    if sys.platform.startswith("win"):
        return None
    return ["xdg-open", str(path)]


def could_not_open(path: str | Path, why: str) -> str:
    """'Could not open the folder …: why. Its path is …' (the status bar's and the dialog's text)."""
    return f"Could not open the folder in a file manager ({why}). Its path: {path}"


class FolderOpener(QObject):
    """Opens folders with ``command`` (path -> argv, default :func:`opener_command`); a failure calls
    ``show_message(text)`` and shows a non-modal dialog over ``parent`` with the path selectable."""

    def __init__(self, parent: QWidget, show_message: Callable[[str], None],
                 command: Callable[[str], list[str] | None] = opener_command):
        super().__init__(parent)
        self._parent, self._show_message, self._command = parent, show_message, command
        self.dialog: QMessageBox | None = None   # the last failure's dialog (kept for tests and to close it)

    def open(self, path: str | Path) -> None:
        """Open ``path``; the answer comes when the opener exits (a message only when it failed)."""
        argv = self._command(str(path))
        if argv is None:
            if not QDesktopServices.openUrl(QUrl.fromLocalFile(str(path))):
                self._failed(path, "no application to show folders is set up on this desktop")
            return
        proc = QProcess(self)
        proc.errorOccurred.connect(lambda error: self._start_failed(proc, path, argv[0], error))
        proc.finished.connect(lambda code, status: self._finished(proc, path, argv[0], code, status))
        proc.start(argv[0], argv[1:])

    def _start_failed(self, proc: QProcess, path, program: str, error) -> None:
        if error == QProcess.ProcessError.FailedToStart:   # no finished signal follows
            self._failed(path, f"{program} is not installed")
            proc.deleteLater()

    def _finished(self, proc: QProcess, path, program: str, code: int, status) -> None:
        err = bytes(proc.readAllStandardError()).decode("utf-8", "replace").strip().splitlines()
        proc.deleteLater()
        if status != QProcess.ExitStatus.NormalExit or code != 0:
            detail = f": {err[-1]}" if err else ""
            self._failed(path, f"{program} exited with status {code}, no file manager opened it{detail}")

    def _failed(self, path, why: str) -> None:
        text = could_not_open(path, why)
        self._show_message(text)
        box = QMessageBox(QMessageBox.Icon.Information, "Open folder", text, QMessageBox.StandardButton.Close,
                          self._parent)
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.setWindowModality(Qt.WindowModality.NonModal)
        box.open()
        self.dialog = box

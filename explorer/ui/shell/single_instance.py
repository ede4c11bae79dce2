"""One window per runs folder: a second `bert-explorer` start on the folder an open window shows brings that
window to the front and exits, instead of opening a second window that follows, launches and cleans up the
same runs (two windows on one folder each followed the same live runs and offered the same run names).

The open window listens on a local socket (QLocalServer) named after the user and the resolved runs folder; a new
start connects to it first. A socket left by a window that crashed answers nothing and is replaced. Another runs
folder (``--runs-dir``) is another name, so a second window on other runs still opens.
"""

from __future__ import annotations

import getpass
import hashlib
from pathlib import Path
from typing import Callable

from PySide6.QtCore import QObject
from PySide6.QtNetwork import QLocalServer, QLocalSocket

__all__ = ["RAISE", "WindowDoor", "bring_to_front", "server_name", "wake_open_window"]

RAISE = b"raise\n"        # what a new start sends to the open window
CONNECT_MS = 500          # how long a new start waits for an open window to answer


def server_name(runs_dir: str) -> str:
    """The local socket name of the window on ``runs_dir`` (resolved, so ``~/runs`` and its absolute path are
    one folder), per user: "bert-explorer-" and 16 hex digits of a SHA-1."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):   # no name for this uid (a container): the uid's home folder stands for it
        user = str(Path.home())
    folder = str(Path(runs_dir).expanduser().resolve())
    return "bert-explorer-" + hashlib.sha1(f"{user}\0{folder}".encode()).hexdigest()[:16]


def wake_open_window(runs_dir: str) -> bool:
    """Ask the window open on ``runs_dir`` (if any) to come to the front; True when one answered. Needs no event
    loop (blocking waits of at most CONNECT_MS each)."""
    socket = QLocalSocket()
    socket.connectToServer(server_name(runs_dir))
    if not socket.waitForConnected(CONNECT_MS):
        return False
    socket.write(RAISE)
    socket.flush()
    socket.waitForBytesWritten(CONNECT_MS)
    socket.disconnectFromServer()
    return True


class WindowDoor(QObject):
    """The open window's side: listens on ``server_name(runs_dir)`` and calls ``on_raise`` when a new start asks.
    ``listening`` tells whether the name was taken (False: the socket could not be made; the app runs on, only
    without this guard)."""

    def __init__(self, runs_dir: str, on_raise: Callable[[], None], parent: QObject | None = None):
        super().__init__(parent)
        self._on_raise = on_raise
        self.server = QLocalServer(self)
        # only this user may connect; with a socket option set, Qt makes the socket in a private folder and moves it
        # into place, so a path left by a window that crashed is replaced (a live window answered wake_open_window)
        self.server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self.listening = False
        self.listen_on(runs_dir)
        self.server.newConnection.connect(self._accept)

    def listen_on(self, runs_dir: str) -> None:
        """Answer for ``runs_dir`` from now on (the window changed its runs folder)."""
        self.server.close()
        self.listening = self.server.listen(server_name(runs_dir))

    def _accept(self) -> None:
        while self.server.hasPendingConnections():
            socket = self.server.nextPendingConnection()
            socket.readyRead.connect(lambda s=socket: self._read(s))
            socket.disconnected.connect(socket.deleteLater)
            if socket.bytesAvailable():
                self._read(socket)

    def _read(self, socket: QLocalSocket) -> None:
        if bytes(socket.readAll().data()).startswith(RAISE.strip()):
            self._on_raise()

    def close(self) -> None:
        """Stop listening (the window closes)."""
        self.server.close()


def bring_to_front(window) -> None:
    """Show ``window`` normal (not minimised), raised and active."""
    from PySide6.QtCore import Qt

    window.setWindowState(window.windowState() & ~Qt.WindowState.WindowMinimized)
    window.show()
    window.raise_()
    window.activateWindow()

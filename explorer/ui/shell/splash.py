"""The start-up splash (issue 25, finding 9): something on screen within a second of `bert-explorer`.

Building the main window imports pyqtgraph and builds every page, which takes many seconds on a busy
2-core machine; meanwhile the user saw nothing. :func:`show_splash` puts up a small frameless window
("BERT Explorer — loading…", the steps as they happen) right after the QApplication exists, before any
heavy import; ``splash.finish(window)`` closes it once the main window is shown. Qt only (QSplashScreen),
no pyqtgraph.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPixmap
from PySide6.QtWidgets import QApplication, QSplashScreen

from explorer.paths import RESOURCES

SPLASH_SIZE = (460, 200)   # logical pixels


def splash_pixmap() -> QPixmap:
    """The splash picture: the app icon, the name and "loading…" on a light background."""
    w, h = SPLASH_SIZE
    pm = QPixmap(w, h)
    pm.fill(QColor("#f7f7f9"))
    p = QPainter(pm)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setPen(QColor("#c8c8d0"))
    p.drawRect(0, 0, w - 1, h - 1)
    icon = RESOURCES / "icons" / "app.svg"
    if icon.is_file():
        from PySide6.QtGui import QIcon

        p.drawPixmap(24, 40, QIcon(str(icon)).pixmap(72, 72))
    title = QFont()
    title.setPointSize(20)
    title.setBold(True)
    p.setFont(title)
    p.setPen(QColor("#222222"))
    p.drawText(112, 76, "BERT Explorer")
    body = QFont()
    body.setPointSize(11)
    p.setFont(body)
    p.setPen(QColor("#555555"))
    p.drawText(112, 104, "loading… (the first start takes a while)")
    p.end()
    return pm


class StartupSplash(QSplashScreen):
    """A splash that says which start-up step is running (:meth:`step`)."""

    def __init__(self):
        super().__init__(splash_pixmap(), Qt.WindowType.WindowStaysOnTopHint)
        self.setObjectName("startupSplash")
        self.steps: list[str] = []

    def step(self, text: str) -> None:
        """Show ``text`` ("building the pages…") at the bottom and paint it now."""
        self.steps.append(text)
        self.showMessage(text, Qt.AlignmentFlag.AlignBottom | Qt.AlignmentFlag.AlignLeft, QColor("#444444"))
        QApplication.processEvents()


def show_splash() -> StartupSplash:
    """Show the splash at once (a QApplication must exist) and paint it before returning."""
    splash = StartupSplash()
    splash.show()
    splash.raise_()
    QApplication.processEvents()
    return splash


def hand_over(splash: StartupSplash, window) -> None:
    """Show ``window`` in front and close ``splash`` at once.

    QSplashScreen.finish(window) waits until the window reports it is exposed; on an X server without a
    window manager that report could be late, and at 1920x1080 only the splash stayed on screen for over
    30 s although the window was ready (second fresh-user trial). Here the window is shown, raised and
    painted first, then the splash closes: no gap, and no wait on the window system."""
    window.show()
    window.raise_()
    window.activateWindow()
    QApplication.processEvents()
    splash.close()

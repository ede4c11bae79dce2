"""The start-up splash: something on screen within a second of `bert-explorer`.

Building the main window imports pyqtgraph and builds every page, which takes many seconds on a busy
2-core machine; meanwhile the user saw nothing. :func:`show_splash` puts up a small frameless window
("BERT Explorer — loading…", the steps as they happen) right after the QApplication exists, before any
heavy import; :func:`hand_over` closes it once the main window is shown. Qt only, no pyqtgraph.

A plain widget with the splash window flags, not QSplashScreen: QSplashScreen.show() waits until the window
system reports the splash exposed, up to a second, and on an X server that wait took the whole second (measured:
show() 1.01 s of wall time, 0.02 s of CPU) before the main window's build could begin.
"""

from __future__ import annotations

import time

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPixmap
from PySide6.QtWidgets import QApplication, QWidget

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


class StartupSplash(QWidget):
    """A frameless, always-on-top splash window that says which start-up step is running (:meth:`step`)."""

    def __init__(self):
        super().__init__(None, Qt.WindowType.SplashScreen | Qt.WindowType.FramelessWindowHint
                         | Qt.WindowType.WindowStaysOnTopHint)
        self.setObjectName("startupSplash")
        self.setWindowTitle("BERT Explorer")
        self._pixmap = splash_pixmap()
        self.setFixedSize(*SPLASH_SIZE)
        self.steps: list[str] = []
        self.message = ""
        self.painted = False   # a paintEvent ran (show_splash waits for one after the window is exposed)
        screen = QApplication.primaryScreen()
        if screen is not None:   # centred, as QSplashScreen placed it
            area = screen.availableGeometry()
            self.move(area.center().x() - SPLASH_SIZE[0] // 2, area.center().y() - SPLASH_SIZE[1] // 2)

    def paintEvent(self, _event) -> None:  # noqa: N802 - Qt API
        handle = self.windowHandle()
        self.painted = self.painted or bool(handle is not None and handle.isExposed())
        p = QPainter(self)
        p.drawPixmap(0, 0, self._pixmap)
        if self.message:
            p.setPen(QColor("#444444"))
            p.drawText(self.rect().adjusted(12, 0, -12, -10), Qt.AlignmentFlag.AlignBottom | Qt.AlignmentFlag.AlignLeft,
                       self.message)
        p.end()

    def step(self, text: str) -> None:
        """Show ``text`` ("building the pages…") at the bottom and paint it now."""
        self.steps.append(text)
        self.message = text
        self.repaint()
        QApplication.processEvents()


EXPOSE_WAIT_S = 0.3   # the longest show_splash waits for the window system to report the splash on screen


def show_splash(wait_s: float = EXPOSE_WAIT_S, clock=time.monotonic, pause=time.sleep) -> StartupSplash:
    """Show the splash at once (a QApplication must exist) and paint it before returning.

    Events are processed until the window system reports the splash exposed and it has painted since, for at most
    ``wait_s`` seconds (5 ms pauses between): one round of events was not always enough, and the splash then
    first painted at the next step, after the pages were built (2026-12-02, ``scripts/startup_time.py`` at load
    2-3: in 3 of 8 starts the first frame came at 3.1-3.8 s with the main window, at 0.9 s in the others). On a
    quiet X server the report comes within the first round (12-15 ms). ``clock`` / ``pause`` are for tests."""
    splash = StartupSplash()
    splash.show()
    splash.raise_()
    deadline = clock() + wait_s
    while True:
        QApplication.processEvents()
        handle = splash.windowHandle()
        if (handle is not None and handle.isExposed() and splash.painted) or clock() >= deadline:
            return splash
        pause(0.005)


def hand_over(splash: StartupSplash, window) -> None:
    """Show ``window`` in front and close ``splash`` at once.

    QSplashScreen.finish(window) waits until the window reports it is exposed; on an X server without a
    window manager that report could be late, and at 1920x1080 only the splash stayed on screen for over
    30 s although the window was ready. Here the window is shown, raised and
    painted first, then the splash closes: no gap, and no wait on the window system."""
    window.show()
    window.raise_()
    window.activateWindow()
    QApplication.processEvents()
    splash.close()

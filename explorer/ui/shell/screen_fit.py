"""The main window's first size: the preferred one, or less so that it fits the screen it opens on; and the guard
that keeps it inside that screen when its contents ask for more (ScreenGuard)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QRect, QSize, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QSizePolicy, QWidget

# Room for the window frame (title bar, borders) that the window manager adds around the client area;
# unknown before the window is shown, so a typical desktop frame is assumed.
FRAME_W = 16
FRAME_H = 40


def available_geometry(widget: QWidget) -> QRect | None:
    """The available geometry (screen minus task bars and docks, QScreen.availableGeometry) of the
    screen ``widget`` will open on, or of the primary screen; None without a screen."""
    screen = widget.screen() if widget.screen() is not None else QGuiApplication.primaryScreen()
    return screen.availableGeometry() if screen is not None else None


def fit_to_screen(widget: QWidget, width: int, height: int) -> QSize:
    """Resize ``widget`` to ``width`` x ``height`` pixels, or less so that it and its frame fit the
    available screen geometry; returns the size asked for. (Qt still keeps a widget at least as large
    as its minimum size.)"""
    area = available_geometry(widget)
    if area is not None and area.width() > 0 and area.height() > 0:
        width = min(width, area.width() - FRAME_W)
        height = min(height, area.height() - FRAME_H)
    size = QSize(max(width, 1), max(height, 1))
    widget.resize(size)
    return size


class ScreenGuard(QObject):
    """Keeps top-level ``window`` inside the available geometry of its screen when its contents ask for more:
    ``give_way`` (the main window's pages) then yields height (its vertical size policy Ignored: its minimum no
    longer counts) and the window is resized and moved back inside. Without it a third row of tabs grew a
    1264x760 window at y=25 on a 1280x800 screen without a window manager to 1264x796, its status bar off the
    screen's bottom. Installed once per window (:func:`guard_screen`)."""

    def __init__(self, window: QWidget, give_way: QWidget):
        super().__init__(window)
        self.window, self.give_way = window, give_way
        self._timer = QTimer(self, singleShot=True, interval=0)
        self._timer.timeout.connect(self.fit)
        window.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt's name
        if watched is self.window and event.type() in (QEvent.Type.Resize, QEvent.Type.Move):
            self._timer.start()
        return False

    def fit(self) -> bool:
        """Bring the window back inside the screen's available geometry; returns whether it had to."""
        area, frame = available_geometry(self.window), self.window.frameGeometry()
        if area is None or area.isEmpty() or area.contains(frame) or not self.window.isVisible():
            return False
        extra_w, extra_h = frame.width() - self.window.width(), frame.height() - self.window.height()
        if frame.height() > area.height():
            policy = self.give_way.sizePolicy()
            policy.setVerticalPolicy(QSizePolicy.Policy.Ignored)
            self.give_way.setSizePolicy(policy)
            self.give_way.setMinimumHeight(0)
            if self.window.layout() is not None:   # the window's minimum without the pages', before the resize
                self.window.layout().activate()
        width = min(self.window.width(), area.width() - extra_w)
        height = min(self.window.height(), area.height() - extra_h)
        self.window.resize(width, height)
        x = min(max(frame.x(), area.left()), area.right() + 1 - (width + extra_w))
        y = min(max(frame.y(), area.top()), area.bottom() + 1 - (height + extra_h))
        self.window.move(x, y)
        return True


def guard_screen(window: QWidget, give_way: QWidget) -> ScreenGuard:
    """``window``'s ScreenGuard, made on the first call."""
    guard = window.findChild(ScreenGuard)
    return guard if guard is not None else ScreenGuard(window, give_way)

"""The screen a window opens on (its available geometry, the frame a window manager adds) and the guard that keeps
the main window inside that screen when its contents ask for more (ScreenGuard). Its size at the start:
explorer.ui.shell.window_geometry."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QRect, QTimer
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


class ScreenGuard(QObject):
    """Keeps top-level ``window`` from growing past the bottom of its screen's available geometry when its
    contents' minimum height forces it taller (more rows of tabs over a tall page): ``give_way`` (the main
    window's pages) then yields height (its vertical size policy Ignored: its minimum no longer counts) and the
    window goes back to its height before, moved up where it still reaches past the bottom. A resize asked for
    (by the user or the program) is left alone: only a growth to exactly the window's new minimum height is a
    forced one. Without it a third row of tabs grew a 1264x760 window at y=25 on a 1280x800 screen without a
    window manager to 1264x796, its status bar off the screen's bottom. One per window (:func:`guard_screen`)."""

    def __init__(self, window: QWidget, give_way: QWidget):
        super().__init__(window)
        self.window, self.give_way = window, give_way
        window.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt's name
        if watched is self.window and event.type() == QEvent.Type.Resize:
            old, new = event.oldSize().height(), event.size().height()
            if 0 < old < new and new <= self.window.minimumSizeHint().height():
                QTimer.singleShot(0, self, lambda h=old: self.fit(h))
        return False

    def fit(self, height_before: int, tries: int = 3) -> bool:
        """Give the window back ``height_before`` (or what the screen has room for) when it reaches past the
        bottom of the available geometry; returns whether it had to. The window's new minimum (without the
        pages') is known once its layouts are redone: a window still held taller tries again on the next turn."""
        area, frame = available_geometry(self.window), self.window.frameGeometry()
        if area is None or area.isEmpty() or not self.window.isVisible() or frame.bottom() <= area.bottom():
            return False
        policy = self.give_way.sizePolicy()
        if policy.verticalPolicy() != QSizePolicy.Policy.Ignored:
            policy.setVerticalPolicy(QSizePolicy.Policy.Ignored)
            self.give_way.setSizePolicy(policy)
            self.give_way.setMinimumHeight(0)
        extra = frame.height() - self.window.height()
        height = max(1, min(height_before, area.height() - extra))
        self.window.resize(self.window.width(), height)
        self.window.move(frame.x(), max(area.top(), min(frame.y(), area.bottom() + 1 - (height + extra))))
        if self.window.height() > height and tries > 1:
            QTimer.singleShot(0, self, lambda: self.fit(height_before, tries - 1))
        return True


def guard_screen(window: QWidget, give_way: QWidget) -> ScreenGuard:
    """``window``'s ScreenGuard, made on the first call."""
    guard = window.findChild(ScreenGuard)
    return guard if guard is not None else ScreenGuard(window, give_way)

"""The screen a window opens on (its available geometry, the frame a window manager adds), the guard that keeps
the main window inside that screen when its contents ask for more (ScreenGuard), and the rule every dialog and tool
window follows (ScreenKeeper, :func:`keep_on_screen`): shown or resized, its frame stays inside the screen. The main
window's size at the start: explorer.ui.shell.window_geometry."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QRect, Qt, QTimer
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


class ScreenKeeper(QObject):
    """Keeps top-level ``window`` (a dialog or tool window) inside its screen's available geometry whenever it is
    shown or resized: a window that grew after it was placed (its results came in) is moved up and left until its
    frame fits, and one taller or wider than the screen is first cut to the screen's size (a window whose content
    scrolls keeps its buttons in view; its minimum size is the limit Qt keeps). A window moved by the user is left
    where it is until it is shown or resized again. Without it a dialog placed at y = 210 for its first short text
    grew to 668 px and put its buttons below an 800 px screen. One per window (:func:`keep_on_screen`)."""

    def __init__(self, window: QWidget):
        super().__init__(window)
        self.window = window
        self._pending = False
        window.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt's name
        if watched is self.window and event.type() in (QEvent.Type.Show, QEvent.Type.Resize) and not self._pending:
            self._pending = True   # one fit per turn of the event loop, after the layouts and Qt's placement
            QTimer.singleShot(0, self, self._fit_later)
        return False

    def _fit_later(self) -> None:
        self._pending = False
        self.fit()

    def fit(self) -> bool:
        """Move (and where it must, shrink) the window so that its frame lies inside the available geometry;
        returns whether it had to."""
        window = self.window
        area = available_geometry(window)
        if area is None or area.isEmpty() or not window.isWindow() or not window.isVisible():
            return False
        frame = window.frameGeometry()
        # QWidget's own size: a dialog may name a field of its own "width" (the class shares' interval width box)
        size = QWidget.size(window)
        extra_w, extra_h = frame.width() - size.width(), frame.height() - size.height()
        width = min(size.width(), max(1, area.width() - extra_w))
        height = min(size.height(), max(1, area.height() - extra_h))
        shrunk = (width, height) != (size.width(), size.height())
        if shrunk:
            window.resize(width, height)
            frame = window.frameGeometry()
        x = max(area.left(), min(frame.x(), area.right() + 1 - frame.width()))
        y = max(area.top(), min(frame.y(), area.bottom() + 1 - frame.height()))
        if (x, y) != (frame.x(), frame.y()):
            window.move(x, y)
            return True
        return shrunk


def keep_on_screen(window: QWidget) -> ScreenKeeper:
    """``window``'s ScreenKeeper, made on the first call: call it in the constructor of every dialog and tool
    window whose size may change after it is shown."""
    keeper = window.findChild(ScreenKeeper, options=Qt.FindChildOption.FindDirectChildrenOnly)
    return keeper if keeper is not None else ScreenKeeper(window)

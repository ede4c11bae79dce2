"""The main window's size and place on its screen at the start, and the Runs dock's width.

First start: the window takes the screen's whole available area (less a typical window frame), so a person on a
1920x1080 screen gets a 1920-wide window, not a fixed 1500x940 in a corner. Reopen: the saved geometry comes back,
fitted to the current screen (never larger, never outside it); a window that filled the screen it was saved on
(within FILLED_SLACK pixels of that screen's available size) fills the current one, so a session at 1280x800
followed by one on a 1920x1080 screen opens at the whole 1920x1080, as it was left: "the whole screen".

Without a window manager (a bare X server) nobody adds a frame or maximises the window: once shown, a window at its
first-start rectangle that got no frame takes the whole available area (:class:`FillWithoutFrame`); a window
remembered covering its screen's whole area opens on the whole area at once; a remembered geometry that did not
fill its screen still wins.

The decisions are plain functions of sizes (:func:`first_rect`, :func:`restored_rect`, :func:`runs_dock_width`)
so they can be checked against any screen size; :func:`open_window` and :func:`restore_window` apply them.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QRect, Qt, QTimer

from explorer.ui.shell import screen_fit
from explorer.ui.shell.screen_fit import FRAME_H, FRAME_W

FILLED_SLACK = 48          # px: a saved window this close to its screen's available size filled that screen
DOCK_MIN, DOCK_MAX = 372, 640   # the Runs dock's width in pixels: 372 up to a 1280-wide window (its pages need
DOCK_SHARE = 0.38               # the rest), plus this share of every pixel beyond (1920 wide: about 615)
FRAME_SETTLE_MS = 1000     # after the first show: a window manager has framed the window by then
TITLE_BAR_MIN = 10         # px: a frame this much taller than the client area has a window manager's title bar


def first_rect(area: QRect) -> QRect:
    """The window's client rectangle at a first start on a screen whose available geometry is ``area``: all of
    it, less the frame a window manager adds (FRAME_W x FRAME_H)."""
    return QRect(area.x(), area.y(), max(1, area.width() - FRAME_W), max(1, area.height() - FRAME_H))


def filled(size: tuple[int, int], screen: tuple[int, int] | None) -> bool:
    """Whether a window of client ``size`` (width, height) filled a screen of available size ``screen``."""
    return screen is not None and (size[0] >= screen[0] - FRAME_W - FILLED_SLACK
                                   and size[1] >= screen[1] - FRAME_H - FILLED_SLACK)


def covered(size: tuple[int, int], screen: tuple[int, int] | None) -> bool:
    """Whether a window of client ``size`` (width, height) covered the whole available ``screen`` (no frame: a
    window on a screen without a window manager, made to fill it)."""
    return screen is not None and size[0] >= screen[0] and size[1] >= screen[1]


def restored_rect(saved: QRect, saved_screen: tuple[int, int] | None, area: QRect) -> QRect:
    """Where a window saved at client rectangle ``saved`` on a screen of available size ``saved_screen`` (None:
    unknown) opens on a screen whose available geometry is ``area``: the whole of it when it filled the screen it
    was saved on (all of ``area`` itself when it covered that screen's whole area: no window manager framed it, so
    none will frame it now, and the rectangle sized for a frame would leave a strip of the screen unused), else its
    saved size at most the area's (less the frame), moved inside the area."""
    if covered((saved.width(), saved.height()), saved_screen):
        return QRect(area)
    if filled((saved.width(), saved.height()), saved_screen):
        return first_rect(area)
    width = max(1, min(saved.width(), area.width() - FRAME_W))
    height = max(1, min(saved.height(), area.height() - FRAME_H))
    x = min(max(saved.x(), area.x()), area.x() + area.width() - FRAME_W - width)
    y = min(max(saved.y(), area.y()), area.y() + area.height() - FRAME_H - height)
    return QRect(max(area.x(), x), max(area.y(), y), width, height)


def runs_dock_width(window_width: int) -> int:
    """The Runs dock's width in pixels for a window ``window_width`` wide: a wide window gives the run names room."""
    return max(DOCK_MIN, min(DOCK_MAX, DOCK_MIN + round(DOCK_SHARE * (window_width - 1280))))


def screen_size(window) -> tuple[int, int] | None:
    """The available size (width, height) of the screen ``window`` is on; None without a screen."""
    area = screen_fit.available_geometry(window)
    return (area.width(), area.height()) if area is not None and not area.isEmpty() else None


def fit_runs_dock(window) -> None:
    """Give ``window``'s Runs dock (``window.runs_dock``) its width for the window's width."""
    window.resizeDocks([window.runs_dock], [runs_dock_width(window.width())], Qt.Orientation.Horizontal)


class RunsDockFollower(QObject):
    """Keeps the Runs dock at its width for the window's width (:func:`runs_dock_width`) while the window is
    resized, as long as the dock has the width it was given (a dock the user dragged keeps the user's width)."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        window.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt's name
        if watched is self.window and event.type() == QEvent.Type.Resize:
            old, new = event.oldSize().width(), event.size().width()
            dock = self.window.runs_dock.width()
            if old > 0 and old != new and abs(dock - runs_dock_width(old)) <= 8:
                QTimer.singleShot(0, self, lambda: fit_runs_dock(self.window))
        return False


def follow_window_width(window) -> RunsDockFollower:
    """Fit ``window``'s Runs dock to the window's width now and whenever the window is resized (RunsDockFollower)."""
    fit_runs_dock(window)
    return RunsDockFollower(window)


def fills_unframed(size: tuple[int, int], frame_size: tuple[int, int], area: QRect) -> bool:
    """Whether a shown window of client ``size`` whose frame is ``frame_size`` should take the whole available
    ``area``: no window manager framed it (no title bar: its frame is at most a few pixels taller) and it has its first-start size there
    (:func:`first_rect`: a first start, or a remembered window that filled its screen), not a size of its own."""
    first = first_rect(area)
    return frame_size[1] - size[1] < TITLE_BAR_MIN and size == (first.width(), first.height())


class FillWithoutFrame(QObject):
    """Gives ``window`` the whole available area of its screen FRAME_SETTLE_MS after its first show when no window
    manager framed it (:func:`fills_unframed`) and nothing moved or sized it since that show: on a bare X server
    nobody maximises it, and the first-start rectangle, sized for a frame that never came, left a strip of the
    screen unused."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.shown_at: QRect | None = None   # the geometry at the first show: a window moved or sized since is left
        window.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt's name
        if watched is self.window and event.type() == QEvent.Type.Show:
            self.window.removeEventFilter(self)
            self.shown_at = QRect(self.window.geometry())
            QTimer.singleShot(FRAME_SETTLE_MS, self, self.fill)
        return False

    def fill(self) -> bool:
        """Take the whole available area when :func:`fills_unframed` says so; returns whether it did."""
        w = self.window
        area = screen_fit.available_geometry(w)
        moved = self.shown_at is not None and w.geometry() != self.shown_at   # by a window manager, or by code
        if (area is None or area.isEmpty() or not w.isVisible() or w.isMaximized() or w.isFullScreen() or moved
                or not fills_unframed(w.size().toTuple(), w.frameGeometry().size().toTuple(), area)):
            return False
        w.setGeometry(area)
        return True


def _apply(window, rect: QRect) -> None:
    window.resize(rect.size())
    window.move(rect.topLeft())


def open_window(window) -> None:
    """Give a new ``window`` its first-start rectangle on the screen it opens on (:func:`first_rect`); the whole
    area once shown when no window manager frames it (:class:`FillWithoutFrame`)."""
    window.fill_without_frame = FillWithoutFrame(window)
    area = screen_fit.available_geometry(window)
    if area is not None and not area.isEmpty():
        _apply(window, first_rect(area))
    else:
        window.resize(1264, 760)


def restore_window(window, geometry, state, saved) -> None:
    """Restore ``window``'s saved ``geometry`` and dock ``state`` (QByteArrays or None), then fit it to its current
    screen (:func:`restored_rect`) from ``saved``: (screen size, client rectangle) as AppSettings.window_screen
    gives them, or None (the restored geometry is fitted then). The Runs dock gets its width for the new size when
    the window was made to fill a screen of another size (the saved dock width was the other screen's)."""
    if geometry is not None:
        window.restoreGeometry(geometry)
    if state is not None:
        window.restoreState(state)
    area = screen_fit.available_geometry(window)
    if geometry is None or area is None or area.isEmpty():
        return
    saved_screen, rect = saved if saved is not None else (None, None)
    before = QRect(*rect) if rect is not None else QRect(window.pos(), window.size())
    _apply(window, restored_rect(before, saved_screen, area))
    if filled((before.width(), before.height()), saved_screen) and saved_screen != (area.width(), area.height()):
        fit_runs_dock(window)


def saved_window(window) -> tuple[tuple[int, int] | None, tuple[int, int, int, int]]:
    """(screen size, client rectangle) of ``window`` now, for AppSettings.set_window's ``screen`` and ``rect``."""
    return screen_size(window), (window.x(), window.y(), window.width(), window.height())

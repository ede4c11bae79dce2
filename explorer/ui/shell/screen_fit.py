"""The main window's first size: the preferred one, or less so that it fits the screen it opens on."""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

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

"""The app's look: resources/style.qss and the icons in resources/icons/."""

from __future__ import annotations

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from explorer.paths import RESOURCES

STYLE_FILE = RESOURCES / "style.qss"
ICONS = RESOURCES / "icons"


def icon(name: str) -> QIcon:
    """resources/icons/<name>.svg (an empty icon if the file is missing)."""
    path = ICONS / f"{name}.svg"
    return QIcon(str(path)) if path.is_file() else QIcon()


def apply_style(app: QApplication) -> None:
    """Fusion style + the project's style sheet + the window icon. The wrapped tooltips
    (shell.tooltips.install_tooltip_wrapper) are installed by app.create_window once the window is built:
    an application-wide event filter in Python sees every event, and building the window sends over
    100,000 (a quarter of its CPU time)."""
    sheet = STYLE_FILE.read_text(encoding="utf-8") if STYLE_FILE.is_file() else ""
    # setStyle and setStyleSheet repolish every live widget: skipped when already in place (a second window,
    # the tests' many windows), where they made each window's set-up slower than the last
    if getattr(app, "_explorer_styled", False) and app.styleSheet() == sheet:
        return
    app.setStyle("Fusion")
    if sheet:
        app.setStyleSheet(sheet)
    app.setWindowIcon(icon("app"))
    app._explorer_styled = True

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
    """Fusion style + the project's style sheet + the window icon + wrapped tooltips app-wide."""
    from explorer.ui.shell.tooltips import install_tooltip_wrapper

    app.setStyle("Fusion")
    install_tooltip_wrapper(app)
    if STYLE_FILE.is_file():
        app.setStyleSheet(STYLE_FILE.read_text(encoding="utf-8"))
    app.setWindowIcon(icon("app"))

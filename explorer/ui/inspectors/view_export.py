"""Keep a view: any inspector widget as PNG or SVG at the size it is shown, and the attention page's
interactive HTML (explorer.core.attention.html_export), behind one "Export" button with a menu.

PNG is ``QWidget.grab()`` (what is on screen, pixel for pixel, at the screen's device pixel ratio); SVG renders
the same widget tree into a QSvgGenerator (lines and text stay vectors; pyqtgraph plots and images as their
items paint them).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from PySide6.QtCore import QPoint, QRect, QSize, Signal
from PySide6.QtGui import QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QFileDialog, QMainWindow, QMenu, QMessageBox, QWidget

from explorer.ui.shell.file_dialogs import EXPORT_KIND, dialog_path, remember_folder
from explorer.ui.shell.menu_button import MenuToolButton
from explorer.ui.shell.tasks import run_in_thread

EXPORT_DIR_KIND = EXPORT_KIND   # the settings' last folder an export was saved in (AppSettings.last_dir)


def export_png(widget: QWidget, path: str | Path) -> bool:
    """``widget`` as shown, to a PNG file; False when the file could not be written."""
    return widget.grab().save(str(path), "PNG")


def export_svg(widget: QWidget, path: str | Path, title: str = "") -> bool:
    """``widget`` as shown (its size in pixels), to an SVG file; False when nothing could be written."""
    size = widget.size()
    gen = QSvgGenerator()
    gen.setFileName(str(path))
    gen.setSize(QSize(size.width(), size.height()))
    gen.setViewBox(QRect(0, 0, size.width(), size.height()))
    gen.setTitle(title or widget.windowTitle() or "BERT Explorer view")
    painter = QPainter()
    if not painter.begin(gen):
        return False
    try:
        widget.render(painter, QPoint(0, 0))
    finally:
        painter.end()
    return Path(path).is_file() and Path(path).stat().st_size > 0


class ExportButton(MenuToolButton):
    """An "Export" button whose menu saves ``target()`` as PNG or SVG, and, when ``html`` is given, the
    interactive HTML page: ``html(path)`` gathers what to write on the GUI thread (raising ValueError when there
    is nothing to export) and returns a function of no arguments that writes the file, run on a worker thread.

    ``ask_path(caption, file name, filter) -> str`` is QFileDialog.getSaveFileName's first value (tests
    replace it); the dialog proposes the file's name in the last folder an export was written to, else the runs
    folder (file_dialogs.dialog_path), and a written file's folder is the next one. ``saved`` holds the last path
    written (tests read it). The window's status bar says "Writing …" while the HTML page is written and "Saved
    the attention view to PATH" once a file is written (the user learns that the file was written).

    Signals:
        exported(path): a file was written (PNG / SVG at once, HTML when its thread is done).
    """

    exported = Signal(str)

    def __init__(self, target: Callable[[], QWidget], name: str, *,
                 html: Callable[[str], Callable[[], object]] | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.target, self.name, self.html = target, name, html
        self.ask_path = lambda caption, name, filt: QFileDialog.getSaveFileName(self, caption,
                                                                                dialog_path(EXPORT_KIND, name), filt)[0]
        self.saved: str | None = None
        self.setText("Export")
        self.setToolTip("Save this view as a PNG image or an SVG drawing at the size shown"
                        + (", or as one interactive HTML page that opens offline in any browser" if html else ""))
        menu = QMenu(self)
        if html is not None:
            menu.addAction("Interactive HTML page…", self.ask_html)
        menu.addAction("PNG image…", lambda: self.ask_image("png"))
        menu.addAction("SVG drawing…", lambda: self.ask_image("svg"))
        self.setMenu(menu)

    def ask_image(self, kind: str) -> None:
        path = self.ask_path(f"Save the {self.name} as {kind.upper()}",
                             f"{self.name.replace(' ', '_')}.{kind}",
                             "PNG images (*.png)" if kind == "png" else "SVG drawings (*.svg)")
        if not path:
            return
        ok = export_png(self.target(), path) if kind == "png" else export_svg(self.target(), path, self.name)
        if ok:
            self._saved(path)
        else:
            QMessageBox.warning(self, "Export", f"Could not write {path}.")

    def ask_html(self) -> None:
        path = self.ask_path(f"Save the {self.name} as an interactive HTML page",
                             f"{self.name.replace(' ', '_')}.html", "HTML pages (*.html)")
        if not path:
            return
        try:
            job = self.html(path)
        except ValueError as exc:
            QMessageBox.warning(self, "Export", f"Nothing written: {exc}")
            return
        self.setEnabled(False)
        self._say(f"Writing the {self.name} to {path} …", 0)

        def done(_value) -> None:
            self.setEnabled(True)
            self._saved(path)

        def failed(message: str, _tb: str) -> None:
            self.setEnabled(True)
            self._say("")
            QMessageBox.warning(self, "Export", f"Could not write {path}: {message}")

        run_in_thread(job, on_done=done, on_error=failed, owner=self)

    def _saved(self, path: str) -> None:
        self.saved = path
        remember_folder(EXPORT_KIND, path)
        self._say(f"Saved the {self.name} to {path}")
        self.exported.emit(path)

    def _say(self, text: str, ms: int = 15000) -> None:
        """``text`` in the status bar of the main window this button is in (none: nothing)."""
        window = self.window()
        if isinstance(window, QMainWindow):
            if text:
                window.statusBar().showMessage(text, ms)
            else:
                window.statusBar().clearMessage()

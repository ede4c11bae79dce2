"""The Help menu's actions of the main window (explorer.ui.shell.main_window.MainWindow): a tab's help, the user
guide, the non-modal help pages and About, as a mixin whose methods read the window's ``tabs``, ``runs_dir`` and
``settings``.
"""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox

from explorer.ui.inspectors.registry import page_help
from explorer.ui.shell.help_dialog import HelpDialog

__all__ = ["HelpActions", "panel_help_text"]


def panel_help_text(title: str) -> str:
    """A tab's help: the registry page's (explorer.ui.inspectors.registry), else the glossary's shell panel."""
    text = page_help(title)
    if text is not None:
        return text
    try:
        from explorer.glossary import panel_help

        return panel_help({"Launch": "Launcher"}.get(title, title).replace("&&", "&"))
    except (ImportError, KeyError):
        return ""


class HelpActions:
    """The Help menu's actions, mixed into the main window (a QMainWindow with ``tabs``, ``runs_dir``,
    ``settings`` and ``show_message``)."""

    def show_help(self, title: str, html: str) -> HelpDialog:
        """One non-modal help page per title (shown again, not duplicated)."""
        dlg = self._help_dialogs.get(title)
        if dlg is None:
            dlg = self._help_dialogs[title] = HelpDialog(title, html, self)
        dlg.show()
        dlg.raise_()
        return dlg

    def help_panel(self) -> None:
        """Help → About this panel (F1): the current tab's help with a link to its user-guide page."""
        title = self.tabs.tabText(self.tabs.currentIndex())
        from explorer.ui.shell.guide import help_with_link

        text = help_with_link(title, panel_help_text(title) or "No help for this panel yet.")
        QMessageBox.information(self, f"About the {title.replace('&&', '&')} panel", text)

    def open_user_guide(self) -> None:
        """Help → User guide: the guide's front page (built HTML when there is one, else its Markdown)."""
        from explorer.ui.shell.guide import open_page

        problem = open_page()
        if problem:
            self.show_message(problem, 15000)

    def about(self) -> None:
        """Help → About BERT Explorer: what it does, the runs folder and the settings file."""
        QMessageBox.about(self, "BERT Explorer",
                          "Launch BERT fine-tunes, watch them learn live, and probe span scores, the "
                          f"no-answer threshold and attention flow.\n\nRuns folder: {self.runs_dir}\n"
                          f"Settings: {self.settings.file_name()}")

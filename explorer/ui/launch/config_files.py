"""The launcher's config files and clipboard: Load… / Save… a run config (.json) and Copy the command line.

A mixin of :class:`~explorer.ui.launch.launcher.LauncherPanel`: it uses the panel's ``config()``,
``set_config()``, ``settings``, ``runs_dir``, ``command`` and ``status_message``.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMessageBox

from explorer.core.specs.train_config import ConfigError, TrainConfig
from explorer.ui.shell.file_dialogs import dialog_folder, remember_folder, save_file

CONFIG_KIND = "config"   # the settings' last folder a run config was loaded from or saved in


class ConfigFiles:
    """Load / save the launcher's form as a run config, copy its command line."""

    def save_json(self, path: str | Path) -> None:
        """Save the form as a run config (.json) at ``path``."""
        self.config().save(path)

    def load_json(self, path: str | Path) -> None:
        """Load a config file into the form (ConfigError with the reason when it is not one)."""
        self.set_config(TrainConfig.load(path))

    def _ask_load(self) -> None:
        """Load… a run config: the dialog opens in the folder last used for a config, else the runs folder
        (file_dialogs.dialog_folder), never the app's working folder."""
        path, _ = QFileDialog.getOpenFileName(self, "Load run config",
                                              dialog_folder(CONFIG_KIND, settings=self.settings, runs_dir=self.runs_dir),
                                              "Run configs (*.json)")
        if not path:
            return
        try:
            self.load_json(path)
        except ConfigError as exc:
            QMessageBox.warning(self, "Not a run config", str(exc))
            return
        remember_folder(CONFIG_KIND, path, settings=self.settings)
        self.status_message.emit(f"Loaded {path}")

    def _ask_save(self) -> None:
        path = save_file(self, "Save run config", CONFIG_KIND, "run.json", "Run configs (*.json)",
                         settings=self.settings, runs_dir=self.runs_dir)
        if path:
            self.save_json(path)
            self.status_message.emit(f"Saved {path}")

    def _copy_command(self) -> None:
        from PySide6.QtWidgets import QApplication

        QApplication.clipboard().setText(self.command.toPlainText())
        self.status_message.emit("Command copied to the clipboard")

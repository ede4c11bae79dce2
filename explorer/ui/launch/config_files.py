"""The launcher's config files and clipboard: Load… / Save… a run config (.json) and Copy the command line.

A mixin of :class:`~explorer.ui.launch.launcher.LauncherPanel`: it uses the panel's ``config()``,
``set_config()``, ``settings``, ``command`` and ``status_message``.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMessageBox

from explorer.core.specs.train_config import ConfigError, TrainConfig


class ConfigFiles:
    """Load / save the launcher's form as a run config, copy its command line."""

    def save_json(self, path: str | Path) -> None:
        """Save the form as a run config (.json) at ``path``."""
        self.config().save(path)

    def load_json(self, path: str | Path) -> None:
        """Load a config file into the form (ConfigError with the reason when it is not one)."""
        self.set_config(TrainConfig.load(path))

    def _ask_load(self) -> None:
        start = self.settings.last_dir("config") if self.settings else ""
        path, _ = QFileDialog.getOpenFileName(self, "Load run config", start, "Run configs (*.json)")
        if not path:
            return
        try:
            self.load_json(path)
        except ConfigError as exc:
            QMessageBox.warning(self, "Not a run config", str(exc))
            return
        if self.settings:
            self.settings.set_last_dir("config", str(Path(path).parent))
        self.status_message.emit(f"Loaded {path}")

    def _ask_save(self) -> None:
        start = self.settings.last_dir("config") if self.settings else ""
        path, _ = QFileDialog.getSaveFileName(self, "Save run config", str(Path(start or ".") / "run.json"),
                                              "Run configs (*.json)")
        if path:
            self.save_json(path)
            if self.settings:
                self.settings.set_last_dir("config", str(Path(path).parent))
            self.status_message.emit(f"Saved {path}")

    def _copy_command(self) -> None:
        from PySide6.QtWidgets import QApplication

        QApplication.clipboard().setText(self.command.toPlainText())
        self.status_message.emit("Command copied to the clipboard")

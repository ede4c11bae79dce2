"""What the main window remembers across sessions (AppSettings): where it was and the Launch form as it was left.

:func:`restore_session` puts both back at start and says what could not be read; :func:`remember_session` keeps
them at quit. The window is explorer.ui.shell.main_window.MainWindow (``settings``, ``runs_dir``, ``launcher``)."""

from __future__ import annotations

from explorer.core.specs.train_config import TrainConfig
from explorer.ui.shell.window_geometry import restore_window, saved_window


def restore_session(window) -> str:
    """Put ``window`` where it was and fill its Launch form as it was left; returns the note of what was not read
    ("the saved launcher form in FILE was unreadable (...); using the defaults", a saved runs folder that is now a
    file, ...), '' when everything was."""
    settings = window.settings
    restore_window(window, settings.geometry(), settings.window_state(), settings.window_screen())
    last, note = settings.saved_form()
    if last:
        known = dict(last, output_dir=last.get("output_dir") or str(window.runs_dir), run_id="")
        try:
            window.launcher.set_config(TrainConfig.from_dict(known), settings.saved_edited())
        except Exception as exc:  # noqa: BLE001 - a saved value no editor accepts: start from the defaults
            note = f"the saved launcher form in {settings.file_name()} was unreadable ({exc}); using the defaults"
            window.launcher.set_config(TrainConfig(output_dir=str(window.runs_dir)))
    notes = list(getattr(settings, "notes", []))   # e.g. a saved runs folder that is now a file
    return "; ".join(notes + ([note] if note else []))


def remember_session(window) -> None:
    """Keep ``window``'s geometry, state and screen and its Launch form (values and which the user edited)."""
    settings = window.settings
    settings.set_window(window.saveGeometry(), window.saveState(), *saved_window(window))
    settings.set_last_config(window.launcher.config().to_dict(), window.launcher.form.edited)
    settings.sync()

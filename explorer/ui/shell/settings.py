"""What the app remembers between sessions (QSettings): window geometry, folders, the last form.

``AppSettings(path)`` stores in an INI file at ``path`` (tests and scripts pass a temp path, or set
$EXPLORER_SETTINGS) and otherwise in the platform's usual place under the organisation and
application name "BERT Explorer".
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterable

from PySide6.QtCore import QByteArray, QSettings

from explorer.paths import SETTINGS_ENV

APP_NAME = "BERT Explorer"
ORG_NAME = "BERT Explorer"
RUN_NAMES_KEPT = 5000   # run names kept across sessions (ShownRunNames), the newest first kept
# where the names the Runs list showed runs by are kept (model · task · data, ui.runs.names); the older key
# "runs/names" held names that may leave out the model or the task: never read (such a run is named by the rule
# again) and dropped at the first write of the new one
RUN_NAMES_KEY = "runs/names_model_task_data"
OLD_RUN_NAMES_KEY = "runs/names"


class AppSettings:
    """Typed access to the few things the app remembers."""

    def __init__(self, path: str | Path | None = None):
        path = path or os.environ.get(SETTINGS_ENV)
        if path:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            self.qs = QSettings(str(path), QSettings.Format.IniFormat)
        else:
            self.qs = QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORG_NAME, APP_NAME)
        self.notes: list[str] = []   # what reading the settings fell back on (shown in the status bar)

    def file_name(self) -> str:
        return self.qs.fileName()

    # ---- window --------------------------------------------------------------------------
    def geometry(self) -> QByteArray | None:
        v = self.qs.value("window/geometry")
        return v if isinstance(v, QByteArray) and not v.isEmpty() else None

    def window_state(self) -> QByteArray | None:
        v = self.qs.value("window/state")
        return v if isinstance(v, QByteArray) and not v.isEmpty() else None

    def set_window(self, geometry: QByteArray, state: QByteArray, screen: tuple[int, int] | None = None,
                   rect: tuple[int, int, int, int] | None = None) -> None:
        """Remember the window's geometry and dock state, ``screen``: the available size (width, height in pixels)
        of the screen it was on, and ``rect``: its client rectangle (x, y, width, height), so a window that filled a
        smaller screen fills a larger one next time."""
        self.qs.setValue("window/geometry", geometry)
        self.qs.setValue("window/state", state)
        if screen is not None and rect is not None:
            self.qs.setValue("window/screen", "x".join(str(int(v)) for v in screen))
            self.qs.setValue("window/rect", ",".join(str(int(v)) for v in rect))

    def window_screen(self) -> tuple[tuple[int, int], tuple[int, int, int, int]] | None:
        """(screen size, client rectangle) saved with the geometry (set_window); None when none or unreadable."""
        try:
            screen = tuple(int(v) for v in str(self.qs.value("window/screen", "") or "").split("x"))
            rect = tuple(int(v) for v in str(self.qs.value("window/rect", "") or "").split(","))
        except ValueError:
            return None
        return (screen, rect) if len(screen) == 2 and len(rect) == 4 else None

    # ---- remembered layout (splitter positions, folded panels) ------------------------------
    def layout_value(self, key: str) -> str:
        """The text a view saved under ``key`` ("curves/flow"), '' when none; the view parses it."""
        return str(self.qs.value(f"layout/{key}", "") or "")

    def set_layout_value(self, key: str, value: str) -> None:
        """Remember ``value`` (text, e.g. JSON) under ``key`` for :meth:`layout_value`."""
        self.qs.setValue(f"layout/{key}", value)

    # ---- folders -------------------------------------------------------------------------
    def last_dir(self, kind: str) -> str:
        """Last folder used for ``kind`` ("model", "data", "config", "run"); '' if none."""
        return str(self.qs.value(f"dirs/{kind}", "") or "")

    def set_last_dir(self, kind: str, folder: str) -> None:
        self.qs.setValue(f"dirs/{kind}", folder)

    def runs_dir(self) -> str:
        """The remembered runs folder; '' when none, or when the saved path now names something that is
        not a folder (a file): then :attr:`notes` says so and the caller uses its default."""
        value = str(self.qs.value("runs_dir", "") or "")
        if value and Path(value).expanduser().exists() and not Path(value).expanduser().is_dir():
            note = f"the saved runs folder {value} in {self.file_name()} is not a folder; using the default"
            if note not in self.notes:
                self.notes.append(note)
            return ""
        return value

    def set_runs_dir(self, folder: str) -> None:
        self.qs.setValue("runs_dir", folder)

    def _paths(self, key: str) -> list[str]:
        """The list of paths kept as JSON under ``key``; [] when none or not readable."""
        raw = self.qs.value(key, "")
        try:
            data = json.loads(str(raw)) if raw else []
        except json.JSONDecodeError:
            return []
        return [str(p) for p in data if isinstance(p, str) and p] if isinstance(data, list) else []

    def _set_paths(self, key: str, paths: list[str]) -> None:
        self.qs.setValue(key, json.dumps(list(dict.fromkeys(str(p) for p in paths))))

    def _add_path(self, key: str, path: str | Path) -> None:
        path = str(Path(path).expanduser().resolve())
        self._set_paths(key, [p for p in self._paths(key) if p != path] + [path])

    def run_names(self) -> dict[str, str]:
        """Resolved run folder -> the name the Runs list showed it by (ShownRunNames); {} when none or unreadable."""
        try:
            data = json.loads(str(self.qs.value(RUN_NAMES_KEY, "") or "{}"))
        except json.JSONDecodeError:
            return {}
        return {str(k): str(v) for k, v in data.items() if k and v} if isinstance(data, dict) else {}

    def set_run_names(self, names: dict[str, str]) -> None:
        """Keep ``names`` (resolved run folder -> name), the newest RUN_NAMES_KEPT; the old key's names go."""
        self.qs.setValue(RUN_NAMES_KEY, json.dumps(dict(list(names.items())[-RUN_NAMES_KEPT:])))
        self.qs.remove(OLD_RUN_NAMES_KEY)

    def opened_runs(self) -> list[str]:
        """Run folders opened with File > Open run folder, in the order opened (reloaded at start)."""
        return self._paths("runs/opened")

    def set_opened_runs(self, folders: list[str]) -> None:
        self._set_paths("runs/opened", folders)

    def add_opened_run(self, folder: str | Path) -> None:
        """Remember a run folder opened from disk (once; kept across restarts)."""
        self._add_path("runs/opened", folder)

    def predictions_pages(self) -> list[str]:
        """The predictions files shown in Predictions pages when the window last closed, in the order opened
        (opened again at start: a page must not be gone after a restart)."""
        return self._paths("predictions/open")

    def set_predictions_pages(self, files: list[str]) -> None:
        self._set_paths("predictions/open", files)

    def add_predictions_page(self, file: str | Path) -> None:
        """Remember a predictions file shown in a Predictions page (once; until its page is closed)."""
        self._add_path("predictions/open", file)

    def remove_predictions_page(self, file: str | Path) -> None:
        """Forget a predictions file whose page was closed."""
        file = str(Path(file).expanduser().resolve())
        self.set_predictions_pages([p for p in self.predictions_pages() if p != file])

    # ---- remote hosts (explorer.core.remote) -----------------------------------------------
    def _json_list(self, key: str) -> list[dict]:
        raw = self.qs.value(key, "")
        try:
            data = json.loads(str(raw)) if raw else []
        except json.JSONDecodeError:
            note = f"the saved {key} in {self.file_name()} is not JSON; starting without them"
            if note not in self.notes:
                self.notes.append(note)
            return []
        return [d for d in data if isinstance(d, dict)] if isinstance(data, list) else []

    def hosts(self) -> list:
        """The remote hosts (explorer.core.remote.hosts.Host), in the order the user added them."""
        from explorer.core.remote.hosts import Host

        return [Host.from_dict(d) for d in self._json_list("remote/hosts") if d.get("target")]

    def set_hosts(self, hosts: list) -> None:
        self.qs.setValue("remote/hosts", json.dumps([h.to_dict() for h in hosts]))

    def remote_runs(self) -> list:
        """The remembered runs on remote hosts (explorer.core.remote.hosts.RemoteRun), followed again at start."""
        from explorer.core.remote.hosts import RemoteRun

        out = []
        for d in self._json_list("remote/runs"):
            try:
                out.append(RemoteRun.from_dict(d))
            except (KeyError, TypeError, ValueError):
                continue
        return out

    def set_remote_runs(self, runs: list) -> None:
        self.qs.setValue("remote/runs", json.dumps([r.to_dict() for r in runs]))

    def inspect_choice(self, host_name: str) -> str:
        """How a checkpoint of a run on ``host_name`` opens in the inspectors: "host" (the inspector child on
        the host over SSH), "fetch" (a local copy), or "" (ask each time)."""
        choice = self._inspect_choices().get(host_name, "")
        return choice if choice in ("host", "fetch") else ""

    def _inspect_choices(self) -> dict:
        raw = self.qs.value("remote/inspect", "")
        try:
            choices = json.loads(str(raw)) if raw else {}
        except json.JSONDecodeError:
            choices = {}
        return choices if isinstance(choices, dict) else {}

    def set_inspect_choice(self, host_name: str, choice: str) -> None:
        """Remember ``choice`` ("host", "fetch", or "" = ask) for ``host_name`` (see :meth:`inspect_choice`)."""
        if choice not in ("host", "fetch", ""):
            raise ValueError(f"an inspect choice is 'host', 'fetch' or '', not {choice!r}")
        choices = self._inspect_choices()
        choices.pop(host_name, None)
        if choice:
            choices[host_name] = choice
        self.qs.setValue("remote/inspect", json.dumps(choices))

    def ssh_config(self) -> str:
        """The ssh_config chosen with the Hosts dialog's "Use it" (passed to every ssh / scp as ``-F``; applied with
        explorer.core.remote.hosts.use_ssh_config); "" = the file ssh reads itself."""
        return str(self.qs.value("remote/ssh_config", "") or "")

    def set_ssh_config(self, path: str) -> None:
        """Remember ``path`` ("" = none) and apply it to this process's ssh command lines at once."""
        from explorer.core.remote.hosts import use_ssh_config

        self.qs.setValue("remote/ssh_config", str(path or ""))
        use_ssh_config(path or None)

    # ---- the launcher form ---------------------------------------------------------------
    def run_on(self) -> str:
        """The host the launcher's Run on named at its last change; "" for this machine (or never chosen)."""
        return str(self.qs.value("launcher/run_on", "") or "")

    def set_run_on(self, host_name: str) -> None:
        """Remember the Run on choice: a host's name, "" for this machine."""
        self.qs.setValue("launcher/run_on", str(host_name or ""))

    def last_config(self) -> dict | None:
        """The saved launcher form as a dict, or None when there is none or it is unreadable."""
        return self.saved_form()[0]

    def saved_form(self) -> tuple[dict | None, str]:
        """The launcher form saved at the last close, checked against TrainConfig.

        Returns:
            (values, "") when usable (unknown keys, e.g. from another version, are dropped);
            (None, "") when nothing was saved;
            (None, note) when it is unreadable: the note names the settings file and what was wrong
            (not JSON, not an object, a value of the wrong type such as batch_size "abc").
        """
        from explorer.core.specs.train_config import TrainConfig, type_problems

        raw = self.qs.value("launcher/last_config", "")
        if not raw:
            return None, ""
        where = f"the saved launcher form in {self.file_name()}"
        try:
            data = json.loads(str(raw))
        except json.JSONDecodeError as exc:
            return None, f"{where} was unreadable (not JSON: {exc.msg} at column {exc.colno}); using the defaults"
        if not isinstance(data, dict):
            return None, f"{where} was unreadable (a {type(data).__name__}, not an object); using the defaults"
        known = {k: v for k, v in data.items() if k in TrainConfig.__dataclass_fields__}
        problems = type_problems(known)
        if problems:
            return None, f"{where} was unreadable ({'; '.join(problems)}); using the defaults"
        return known, ""

    def set_last_config(self, config: dict, edited: Iterable[str] = ()) -> None:
        """Save the launcher form ``config`` and the names of the fields the user set in it (``edited``: they stay
        the user's after a restart, not refitted to the data: :meth:`saved_edited`)."""
        self.qs.setValue("launcher/last_config", json.dumps(config))
        self.qs.setValue("launcher/last_edited", json.dumps(sorted(edited)))

    def saved_edited(self) -> set[str]:
        """The field names the user had set in the saved launcher form; empty when none or unreadable."""
        try:
            names = json.loads(str(self.qs.value("launcher/last_edited", "") or "[]"))
        except json.JSONDecodeError:
            return set()
        return {n for n in names if isinstance(n, str)} if isinstance(names, list) else set()

    # ---- measured speeds ------------------------------------------------------------------
    def tau_questions_per_second(self) -> float | None:
        """The τ study's last measured inference rate on this machine (dev questions per second), for its
        time estimate after a restart; None when never measured or unreadable."""
        try:
            value = float(self.qs.value("tau_study/questions_per_second", 0) or 0)
        except (TypeError, ValueError):
            return None
        return value if value > 0 and value == value and value != float("inf") else None

    def set_tau_questions_per_second(self, qps: float) -> None:
        self.qs.setValue("tau_study/questions_per_second", float(qps))

    def tau_dev_file(self) -> str:
        """The SQuAD v2.0 file of the last τ study run (the τ page's file field after a restart); "" when none."""
        return str(self.qs.value("tau_study/dev_file", "") or "")

    def set_tau_dev_file(self, path: str) -> None:
        self.qs.setValue("tau_study/dev_file", str(path))

    def sync(self) -> None:
        self.qs.sync()


_current: AppSettings | None = None
_runs_dir = ""   # the window's runs folder (set_current_settings)


def set_current_settings(settings: AppSettings | None, runs_dir: str | Path = "") -> None:
    """The settings of this process's window (MainWindow sets its own) and its runs folder (``runs_dir``, which a
    command-line --runs-dir may have set apart from the settings), for pages that remember a measured figure or a
    folder without being handed the settings (the τ study's questions/s, the file dialogs' folders)."""
    global _current, _runs_dir
    _current, _runs_dir = settings, str(runs_dir or "")


def current_settings() -> AppSettings | None:
    """The settings :func:`set_current_settings` named; None outside the app (nothing is remembered)."""
    return _current


def current_runs_dir(settings: AppSettings | None = None) -> str:
    """The runs folder the window shows (:func:`set_current_settings`), else the one saved in ``settings`` (default:
    :func:`current_settings`), else the default (explorer.paths.default_runs_dir); it may not exist yet."""
    from explorer.paths import default_runs_dir

    settings = settings if settings is not None else _current
    return _runs_dir or (settings.runs_dir() if settings is not None else "") or str(default_runs_dir())


class ShownRunNames:
    """The names the Runs list showed runs by, kept across sessions (``settings``: AppSettings.run_names), so that a
    run keeps its name from one session to the next whatever other runs are listed. :meth:`names`: those of the
    sessions before this one (the list of this session still renames runs as runs come and go);
    :meth:`remember`: this session's, for the next."""

    def __init__(self, settings: AppSettings):
        self._settings = settings
        self._before = settings.run_names()
        self._now = dict(self._before)

    def names(self) -> dict[str, str]:
        """Resolved run folder -> the name it was shown by in an earlier session."""
        return self._before

    def remember(self, names: dict[str, str]) -> None:
        """Keep ``names`` (resolved run folder -> name shown) for the next session; written only when they changed."""
        if any(self._now.get(path) != name for path, name in names.items()):
            for path, name in names.items():
                self._now.pop(path, None)
                self._now[path] = name
            self._settings.set_run_names(self._now)

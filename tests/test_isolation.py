"""The test suite never writes into the user's HOME, runs folder, settings or caches:
every location resolves inside the session's sandbox, in this process and in a child process, and the
write guard that fails the session notices a write into a real location."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import _GUARD, SANDBOX
from isolation import WriteGuard, real_home


def _inside_sandbox(path) -> bool:
    return Path(os.path.abspath(path)).is_relative_to(SANDBOX)


def test_every_location_is_in_the_sandbox():
    from explorer.core.qa.tau_study import default_cache_dir
    from explorer.paths import default_runs_dir
    from explorer.ui.shell.settings import AppSettings

    places = {"home": Path.home(), "runs": default_runs_dir(), "cache": default_cache_dir(),
              "settings": AppSettings().file_name()}
    for name in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "HF_HOME", "HF_DATASETS_CACHE"):
        places[name] = os.environ[name]
    outside = {k: str(v) for k, v in places.items() if not _inside_sandbox(v)}
    assert not outside, outside
    assert not _inside_sandbox(real_home())


def test_qsettings_default_scope_is_in_the_sandbox(monkeypatch):
    """Without $EXPLORER_SETTINGS the app falls back on QSettings' user INI: also in the sandbox."""
    from explorer.ui.shell.settings import AppSettings

    monkeypatch.delenv("EXPLORER_SETTINGS")
    assert _inside_sandbox(AppSettings().file_name()), AppSettings().file_name()


def test_a_child_process_inherits_the_sandbox():
    code = ("import json; from explorer.paths import default_runs_dir; from explorer.core.qa.tau_study import "
            "default_cache_dir; from pathlib import Path; "
            "print(json.dumps([str(Path.home()), str(default_runs_dir()), str(default_cache_dir())]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert all(_inside_sandbox(p) for p in json.loads(out)), out


def test_the_guard_records_writes_into_real_locations(tmp_path):
    home = real_home()
    guard = WriteGuard([home / "bert-explorer-runs"])
    guard.active = True
    guard.check("open", (str(home / "bert-explorer-runs" / "x" / "events.jsonl"), "a", 0))
    guard.check("os.mkdir", (home / "bert-explorer-runs" / "20260101-qa-ner", 0o777, -1))
    guard.check("open", (str(home / "bert-explorer-runs" / "x" / "config.json"), "r", 0))    # reading is fine
    guard.check("open", (str(tmp_path / "ok.txt"), "w", 0))
    guard.check("os.rename", (str(tmp_path / "a"), str(home / "bert-explorer-runs" / "b"), -1, -1))
    assert len(guard.violations) == 3, guard.violations
    assert "os.mkdir" in guard.violations[1]


def test_the_session_guard_is_on():
    assert _GUARD.active
    assert str(real_home() / "bert-explorer-runs") in _GUARD.protected

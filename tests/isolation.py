"""Keep the test suite out of the user's own files.

``sandbox_locations(root)`` points every place the product (or a library under it) writes to at a
folder under ``root``: HOME, XDG_CONFIG_HOME / XDG_CACHE_HOME / XDG_DATA_HOME, the runs folder
($EXPLORER_RUNS_DIR, else ~/bert-explorer-runs in explorer/paths.py), the settings file
($EXPLORER_SETTINGS, else QSettings' user INI under XDG_CONFIG_HOME), the tau-study cache
($EXPLORER_CACHE_DIR) and the Hugging Face caches (HF_HOME, HF_DATASETS_CACHE). The bundled encoder
(``bundled:minilm``) comes from an installed package, not a cache; an existing hub cache is kept
readable through HF_HUB_CACHE so that real-data tests still find hub models that were downloaded.

``WriteGuard`` is an audit hook (PEP 578) that records every write-like call (open for writing,
mkdir, rename/replace, remove, link, copy) aimed at one of the user's real locations; conftest.py
fails the session when it recorded any. Child processes inherit the sandboxed environment.
"""

from __future__ import annotations

import os
import pwd
import sys
from pathlib import Path

WRITE_EVENTS = {"open", "os.mkdir", "os.rename", "os.remove", "os.rmdir", "os.link", "os.symlink",
                "os.truncate", "shutil.copyfile", "shutil.rmtree", "shutil.move"}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


def real_home() -> Path:
    """The user's home folder, from the password database (not $HOME, which the sandbox replaces)."""
    try:
        return Path(pwd.getpwuid(os.getuid()).pw_dir)
    except (KeyError, OSError):
        return Path(os.environ.get("HOME", "~")).expanduser()


def protected_locations(env: dict | None = None) -> list[Path]:
    """The user's real locations that no test may write into (resolved before the sandbox is set)."""
    env = dict(os.environ if env is None else env)
    home = real_home()
    places = [home / "bert-explorer-runs", home / ".config", home / ".cache", home / ".local"]
    for name in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "EXPLORER_RUNS_DIR", "EXPLORER_SETTINGS",
                 "EXPLORER_CACHE_DIR", "HF_HOME", "HF_DATASETS_CACHE"):
        if env.get(name):
            places.append(Path(env[name]).expanduser())
    return [Path(os.path.abspath(p)) for p in places]


def sandbox_locations(root: Path, env=os.environ) -> dict[str, str]:
    """Set (in ``env``) every location variable to a folder under ``root``; returns what was set."""
    root = Path(root)
    hub = Path(env.get("HF_HUB_CACHE") or Path(env.get("HF_HOME") or real_home() / ".cache" / "huggingface") / "hub")
    values = {
        "HOME": root / "home",
        "XDG_CONFIG_HOME": root / "home" / ".config",
        "XDG_CACHE_HOME": root / "home" / ".cache",
        "XDG_DATA_HOME": root / "home" / ".local" / "share",
        "EXPLORER_RUNS_DIR": root / "runs",
        "EXPLORER_SETTINGS": root / "settings" / "settings.ini",
        "EXPLORER_CACHE_DIR": root / "cache",
        "HF_HOME": root / "hf",
        "HF_DATASETS_CACHE": root / "hf" / "datasets",
    }
    if hub.is_dir():
        values["HF_HUB_CACHE"] = hub     # read-only use: tests never download (HF_HUB_OFFLINE=1)
    for name, path in values.items():
        if name not in ("EXPLORER_SETTINGS", "HF_HUB_CACHE"):
            Path(path).mkdir(parents=True, exist_ok=True)
        env[name] = str(path)
    return {k: str(v) for k, v in values.items()}


def _as_path(value) -> str | None:
    if isinstance(value, int) or value is None:
        return None
    try:
        value = os.fsdecode(os.fspath(value))
    except TypeError:
        return None
    return os.path.abspath(value)


class WriteGuard:
    """Records write-like calls into ``protected`` folders (an audit hook; hooks cannot be removed,
    so ``active`` switches it off)."""

    def __init__(self, protected: list[Path]):
        self.protected = [str(p) for p in protected]
        self.violations: list[str] = []
        self.active = False

    def _inside(self, path: str | None) -> bool:
        return path is not None and any(path == p or path.startswith(p + os.sep) for p in self.protected)

    def check(self, event: str, args: tuple) -> None:
        """Audit-hook body: records ``event(args)`` when it writes into a protected folder."""
        if not self.active or event not in WRITE_EVENTS:
            return
        if event == "open":
            path, mode, flags = (tuple(args) + (None, None, None))[:3]
            writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or \
                     (mode is None and isinstance(flags, int) and flags & _WRITE_FLAGS)
            targets = [path] if writes else []
        elif event in ("os.rename", "shutil.move"):
            targets = list(args[:2])                     # the source goes, the destination comes
        elif event in ("os.link", "os.symlink", "shutil.copyfile"):
            targets = list(args[1:2])                    # only the destination is written
        else:
            targets = list(args[:1])
        for target in targets:
            path = _as_path(target)
            if self._inside(path):
                self.violations.append(f"{event}: {path}")

    def install(self) -> WriteGuard:
        sys.addaudithook(self.check)
        self.active = True
        return self

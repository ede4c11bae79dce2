"""Start-up checks that run before Qt is touched (Qt-free, importable without a display).

Qt's xcb platform plugin aborts the process (exit 134, SIGABRT) when one of its shared libraries is
missing or no display can be reached; on a stock Debian/Ubuntu image that happens for
``libxcb-icccm4`` and ``libxcb-keysyms1``. :func:`platform_problem` finds such a fault first and
returns a message with the one ``apt-get install`` line that fixes it, so the app can print it
and exit 1 instead.
"""

from __future__ import annotations

import ctypes.util
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Callable, Mapping

# shared library (soname) of the xcb plugin and its Qt library -> the Debian/Ubuntu package shipping it
# (found with `ldd` on PySide6's plugins/platforms/libqxcb.so and lib/libQt6XcbQpa.so.6, Debian 12)
XCB_PACKAGES = {
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb-util.so.1": "libxcb-util1",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libfontconfig.so.1": "libfontconfig1",
    "libdbus-1.so.3": "libdbus-1-3",
}
APT_LINE = "sudo apt-get install -y " + " ".join(dict.fromkeys(XCB_PACKAGES.values()))
HEADLESS_HINT = ("run it on a machine with a desktop, or over `ssh -X`, or under a virtual display "
                 "(`xvfb-run bert-explorer`); the command-line tools (`bert-explorer train|eval|score|probe`) "
                 "need no display")


def qt_folder() -> Path | None:
    """PySide6's Qt folder (holding lib/ and plugins/), found without importing PySide6; None if absent."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(list(spec.submodule_search_locations)[0]) / "Qt"
    return folder if folder.is_dir() else None


def ldd_missing(paths: list[Path]) -> list[str] | None:
    """Sonames that ``ldd`` reports "not found" for any of ``paths`` (sorted, unique); None without ldd."""
    ldd = shutil.which("ldd")
    if ldd is None:
        return None
    missing: set[str] = set()
    for path in paths:
        if not path.is_file():
            continue
        try:
            out = subprocess.run([ldd, str(path)], capture_output=True, text=True, timeout=20).stdout
        except (OSError, subprocess.SubprocessError):
            return None
        missing |= {ln.split("=>")[0].strip() for ln in out.splitlines() if "not found" in ln}
    return sorted(missing)


def find_library_missing(sonames=tuple(XCB_PACKAGES)) -> list[str]:
    """Sonames ``ctypes.util.find_library`` cannot find (the fallback when ldd is not installed)."""
    out = []
    for soname in sonames:
        stem = soname.split(".so")[0].removeprefix("lib")
        if ctypes.util.find_library(stem) is None:
            out.append(soname)
    return out


def missing_xcb_libraries() -> list[str]:
    """Sonames the Qt xcb plugin needs that this system lacks ([] when PySide6 is not installed)."""
    qt = qt_folder()
    if qt is None:
        return []
    found = ldd_missing([qt / "plugins" / "platforms" / "libqxcb.so", qt / "lib" / "libQt6XcbQpa.so.6"])
    return find_library_missing() if found is None else found


def platform_will_be_xcb(env: Mapping[str, str]) -> bool:
    """Will Qt pick its xcb plugin? (Linux, QT_QPA_PLATFORM unset or naming xcb first, no Wayland session)."""
    if not sys.platform.startswith("linux"):
        return False
    wanted = env.get("QT_QPA_PLATFORM", "").strip()
    if wanted:
        return wanted.split(";")[0].split(":")[0] == "xcb"
    return not env.get("WAYLAND_DISPLAY")


def platform_problem(env: Mapping[str, str] | None = None,
                     finder: Callable[[], list[str]] = missing_xcb_libraries) -> str | None:
    """Why the GUI cannot start here (a message naming the missing libraries and the apt line), or None.

    ``finder`` returns the missing sonames (a parameter so tests can stand in for the system).
    """
    env = os.environ if env is None else env
    if not platform_will_be_xcb(env):
        return None
    missing = finder()
    if missing:
        packages = sorted({XCB_PACKAGES.get(s, s) for s in missing})
        return ("BERT Explorer cannot open its window: Qt's xcb platform plugin needs system libraries that "
                f"are not installed: {', '.join(missing)} (package{'s' if len(packages) > 1 else ''} "
                f"{', '.join(packages)}).\nInstall all the libraries Qt needs on Debian/Ubuntu with:\n\n"
                f"    {APT_LINE}\n")
    if not env.get("DISPLAY"):
        return f"BERT Explorer needs a display and none is set here (DISPLAY is empty): {HEADLESS_HINT}."
    return None


def has_display(env: Mapping[str, str] | None = None) -> bool:
    """Can a window be shown? (DISPLAY or WAYLAND_DISPLAY set, or a platform named explicitly; not Linux: yes)."""
    env = os.environ if env is None else env
    if not sys.platform.startswith("linux"):
        return True
    return bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY") or env.get("QT_QPA_PLATFORM"))

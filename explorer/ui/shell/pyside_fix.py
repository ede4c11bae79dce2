"""Work around a reference-count bug of PySide6 6.12 (shiboken6 6.12.0) on CPython 3.11.

Measured here (scripts in the UI report): every ``Signal.emit()`` drops one reference to ``True``
and every call of a void C++ method (``QLabel.setText``, ``QWidget.resize``, ``processEvents``...)
drops one reference to ``None``, without having taken them. On CPython < 3.12 these singletons are
ordinary refcounted objects (~2,000 references to True after importing Qt), so after a few thousand
signals the interpreter aborts with "Fatal Python error: bool_dealloc: deallocating True or False"
(or none_dealloc). CPython 3.12+ makes them immortal, which is what :func:`apply` emulates: it adds
2**40 references to None, True, False (and Ellipsis / NotImplemented), which no session can use up.
The singletons are never freed anyway, so this changes nothing else. No-op on CPython >= 3.12 and
on other interpreters. Imported by explorer/ui/__init__.py, so every Qt entry point gets it.
"""

from __future__ import annotations

import ctypes
import sys

BALLAST = 1 << 40
_applied = False


def needed() -> bool:
    """Only PySide6 6.12.x on CPython < 3.12 leaks (6.8.3-6.11.3 measured clean; pyproject pins <6.12,
    so this is a safety net for an environment that ends up on 6.12 anyway)."""
    if sys.implementation.name != "cpython" or sys.version_info >= (3, 12):
        return False
    try:
        from importlib.metadata import version

        major, minor = (int(x) for x in version("shiboken6").split(".")[:2])
    except Exception:  # noqa: BLE001 - no or an odd version string: apply the fix to be safe
        return True
    return (major, minor) >= (6, 12)


def apply() -> bool:
    """Make None/True/False effectively immortal (once per process). Returns True if applied now."""
    global _applied
    if _applied or not needed():
        return False
    for obj in (None, True, False, Ellipsis, NotImplemented):
        ctypes.c_ssize_t.from_address(id(obj)).value += BALLAST
    _applied = True
    return True

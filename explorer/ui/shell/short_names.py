"""A class name cut to a title's length, without Qt: its start and end around "…", on one line.

What explorer.ui.shell.class_names titles headers and boxes with, and what the Qt-free page models use in a
sentence that names the classes ("keys 1 = Arabic, 2 = Danish, 3 = यह एक लंबा…बन गया।"): a class name comes from
the user's data and may be a whole paragraph (a broken quote in a CSV).
"""

from __future__ import annotations

NAME_CHARS = 40   # characters: a title longer than this is cut in its middle ("…")


def short_name(name: str, limit: int = NAME_CHARS) -> str:
    """``name`` on one line and at most ``limit`` characters: its start and its end around "…" when longer."""
    one_line = " ".join(str(name).split()) if ("\n" in str(name) or "\r" in str(name)) else str(name)
    if len(one_line) <= limit:
        return one_line
    head = (limit - 1) // 2 + (limit - 1) % 2
    tail = limit - 1 - head
    return one_line[:head] + "…" + (one_line[-tail:] if tail else "")

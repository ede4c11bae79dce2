"""Where a Browse… dialog opens: beside the file or folder its field names now, not in the app's working folder.

Qt-free. A researcher who picked ``~/data/tweets/train.csv`` and presses Browse… for the dev file expects
``~/data/tweets``; a dialog that opened in the app's folder made them walk there again every time.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["nearest_existing_parent", "start_folder"]


def start_folder(current: str, *fallbacks: str) -> str:
    """The folder a file dialog opens in: the folder holding ``current`` when it names an existing file or folder
    (a folder's parent, where it and its siblings, e.g. a run's other checkpoints, are listed), else the first of
    ``fallbacks`` that exists (a file's folder, a folder itself: the last folder used, the sample data), else ""
    (Qt's default). ``current`` may be a hub id or empty: then it is skipped."""
    text = (current or "").strip()
    if text:
        path = Path(text).expanduser()
        if path.exists():
            return str(path.parent)
    for other in fallbacks:
        if not other:
            continue
        path = Path(other).expanduser()
        if path.is_dir():
            return str(path)
        if path.exists():
            return str(path.parent)
    return ""


def nearest_existing_parent(*paths: str) -> str:
    """The nearest folder that exists above the first of ``paths`` that has one: a deleted runs folder
    ``~/bert/runs`` opens ``~/bert``, where it was, not the home folder. Only absolute paths (after ``~``) count,
    so a hub id or a relative name never leads to the process's working folder; a file system root counts as no
    folder (it says nothing of where the files were). "" when none has such a parent."""
    for text in paths:
        path = Path((text or "").strip()).expanduser()
        if not text or not path.is_absolute():
            continue
        for parent in path.parents:
            if parent.is_dir() and parent != Path(parent.anchor):
                return str(parent)
    return ""

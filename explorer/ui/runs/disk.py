"""A run's disk use and the clean-ups the Runs dock offers (Qt-free; call from a worker thread).

``checkpoints/best`` is a hard-linked snapshot of ``checkpoints/last`` (core/training/checkpoints.py),
so sizes count each file once (by inode). A finished run can drop ``checkpoints/last`` (keep only
best) or the ``training_state.pt`` files (optimizer and scheduler state, about twice the model's
size; needed only to resume). Deleting a run moves its folder to ``<runs folder>/.trash/`` (listed
nowhere, removed by hand) so nothing is lost by a slip.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from explorer.core.runs.layout import CHECKPOINTS, checkpoint_path
from explorer.core.training.checkpoints import STATE_FILE

TRASH = ".trash"


def disk_usage(path: str | Path) -> int:
    """Bytes under ``path`` (files counted once per inode; links not followed; 0 if missing)."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            try:
                st = os.lstat(os.path.join(root, name))
            except OSError:
                continue
            key = (st.st_dev, st.st_ino)
            if key not in seen:
                seen.add(key)
                total += st.st_size
    return total


def format_size(n: int | None) -> str:
    """1536 -> '1.5 KB', 519e6 -> '519 MB' (decimal units, as file managers show); None -> ''."""
    if n is None:
        return ""
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" or n >= 100 else f"{n:.1f} {unit}"
        n /= 1000
    return ""


def optimizer_state_files(run_dir: str | Path) -> list[Path]:
    """The ``training_state.pt`` files under ``<run_dir>/checkpoints`` (all kinds)."""
    base = Path(run_dir) / CHECKPOINTS
    return sorted(base.glob(f"*/{STATE_FILE}")) if base.is_dir() else []


def delete_optimizer_state(run_dir: str | Path) -> tuple[int, int]:
    """Remove every training_state.pt of the run; returns (bytes before, bytes after). Raises OSError."""
    before = disk_usage(run_dir)
    for path in optimizer_state_files(run_dir):
        path.unlink()
    return before, disk_usage(run_dir)


def keep_only_best(run_dir: str | Path) -> tuple[int, int]:
    """Remove ``checkpoints/last`` (and a leftover ``last.old``) when ``checkpoints/best`` exists.

    Returns (bytes before, bytes after). Raises FileNotFoundError naming the folder when the run has no
    best checkpoint (nothing would be left to probe), OSError when a file cannot be removed.
    """
    best = checkpoint_path(run_dir, "best")
    if not best.is_dir():
        raise FileNotFoundError(f"{best} does not exist: keeping only the best checkpoint would leave none")
    before = disk_usage(run_dir)
    for name in ("last", "last.old"):
        if checkpoint_path(run_dir, name).exists():
            shutil.rmtree(checkpoint_path(run_dir, name))
    return before, disk_usage(run_dir)


def trash_run(run_dir: str | Path) -> Path:
    """Move the run folder into ``<its parent>/.trash/`` (a time suffix if taken); returns the new path."""
    run_dir = Path(run_dir)
    trash = run_dir.parent / TRASH
    trash.mkdir(exist_ok=True)
    target = trash / run_dir.name
    if target.exists():
        target = trash / f"{run_dir.name}-{time.strftime('%Y%m%d-%H%M%S')}"
    shutil.move(str(run_dir), str(target))
    return target

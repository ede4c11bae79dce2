"""CPU priorities of the child processes (POSIX niceness), defined once (Qt-free, torch-free).

The GUI runs at niceness 0; a training worker at 10 ($EXPLORER_WORKER_NICE, 0 = leave it), the inspector
child at 5 ($EXPLORER_INSPECT_NICE): the GUI wins the CPU when it needs it, and the probe the user waits
for wins over the fine-tune (docs/architecture.md, Processes). The training worker lowers itself
(explorer.worker.train.lower_priority) and the GUI also sets it right after the start
(explorer.ui.runs.runner), which covers the seconds before the worker's first line runs. The Runs list's
bag-of-words baseline (`bert-explorer baseline` in a child, explorer.ui.runs.baseline_jobs) runs at the
training worker's niceness too: it is a long CPU job nobody waits on line by line.
"""

from __future__ import annotations

import os

TRAIN_NICE = 10
INSPECT_NICE = 5


def _from_env(name: str, default: int) -> int:
    try:
        return int(os.environ.get(name, default) or 0)
    except ValueError:
        return default


def worker_niceness(default: int = TRAIN_NICE) -> int:
    """The training worker's niceness: $EXPLORER_WORKER_NICE (0 = leave it), else ``default``."""
    return _from_env("EXPLORER_WORKER_NICE", default)


def inspect_niceness(default: int = INSPECT_NICE) -> int:
    """The inspector child's niceness increment: $EXPLORER_INSPECT_NICE, else ``default``."""
    return _from_env("EXPLORER_INSPECT_NICE", default)

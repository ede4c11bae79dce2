"""Checkpoints of remote runs opened on their host (Qt-free): which run a host path belongs to.

A page that inspects a checkpoint on its host (the inspector child over SSH) holds the host's path
(``RUNS/<run_id>/checkpoints/best`` there); what the run was launched with (its dev file as the user gave it) is
in the run's local mirror. :func:`remember_on_host` is called for each run whose checkpoint is opened on its host,
and :func:`run_on_host` answers for a path inside that run's remote folder (explorer.core.models.checkpoint_windows
asks it when it names a run's dev file).
"""

from __future__ import annotations

import posixpath
import threading

from explorer.core.remote.hosts import RemoteRun

_lock = threading.Lock()
_runs: dict[str, RemoteRun] = {}   # the run's folder on its host -> the run


def remember_on_host(run: RemoteRun) -> None:
    """Note that checkpoints of ``run`` are inspected on its host by their paths there."""
    with _lock:
        _runs[run.remote_dir.rstrip("/")] = run


def forget_on_host() -> None:
    """Forget every run noted by :func:`remember_on_host` (a new runs folder; tests)."""
    with _lock:
        _runs.clear()


def run_on_host(path: str) -> RemoteRun | None:
    """The run noted by :func:`remember_on_host` whose folder on its host holds ``path``, or None."""
    text = posixpath.normpath(str(path or "")) if path else ""
    if not text:
        return None
    with _lock:
        runs = dict(_runs)
    return next((run for folder, run in runs.items() if text == folder or text.startswith(folder + "/")), None)

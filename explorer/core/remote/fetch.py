"""Fetch a remote run's checkpoint folder into its local mirror, on demand, with progress.

The inspectors then open it locally (the other choice is the inspector child on the host over SSH:
explorer.core.remote.ssh.inspector_argv). Files come one by one (scp) into ``<folder>.part`` beside the
target, renamed into place once complete, so a cancelled or failed fetch never leaves a half checkpoint
that looks whole.
"""

from __future__ import annotations

import json
import posixpath
import shutil
from pathlib import Path
from typing import Callable

from explorer.core.errors import Cancelled, RemoteHostError
from explorer.core.remote import ssh
from explorer.core.remote.hosts import RemoteRun
from explorer.core.remote.launch import HOSTSIDE


def local_path_of(run: RemoteRun, remote_path: str) -> Path | None:
    """Where a path inside the run's remote folder lives in the local mirror; None for a path outside it."""
    rel = posixpath.relpath(remote_path, run.remote_dir)
    if rel == "." or rel.startswith(".."):
        return None
    return Path(run.local_dir) / rel


def fetch_folder(run: RemoteRun, remote_path: str, progress: Callable[[int, int], None] | None = None,
                 cancelled: Callable[[], bool] | None = None) -> Path:
    """Copy the remote folder ``remote_path`` (inside the run folder, e.g. its ``checkpoints/best``) into
    the mirror; ``progress(bytes done, bytes total)`` after each file. Returns the local folder.

    Raises:
        RemoteHostError: the folder is missing or empty on the host, or a copy failed (one sentence).
        Cancelled: ``cancelled()`` became true between files.
    """
    target = local_path_of(run, remote_path)
    if target is None:
        raise RemoteHostError(f"{remote_path} is not inside the run folder {run.remote_dir} on {run.host.name}")
    host = run.host
    listing = json.loads(ssh.run_checked(host, [host.python, "-m", HOSTSIDE, "ls", remote_path]).decode() or "[]")
    if not listing:
        raise RemoteHostError(f"{host.name} has no files in {remote_path} (the run has not saved it yet)")
    total, done = sum(size for _, size in listing), 0
    part = target.with_name(target.name + ".part")
    shutil.rmtree(part, ignore_errors=True)
    for rel, size in listing:
        if cancelled is not None and cancelled():
            shutil.rmtree(part, ignore_errors=True)
            raise Cancelled()
        dest = part / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        ssh.copy_from(host, posixpath.join(remote_path, rel), dest)
        done += size
        if progress is not None:
            progress(done, total)
    if target.exists():
        shutil.rmtree(target)
    part.rename(target)
    return target

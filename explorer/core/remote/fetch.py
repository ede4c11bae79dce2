"""Fetch a remote run's checkpoint folder into its local mirror, on demand, with progress.

The inspectors then open it locally (the other choice is the inspector child on the host over SSH:
explorer.core.remote.ssh.inspector_argv). Files come one by one (scp) into ``<folder>.part`` beside the
target, renamed into place once complete, so a cancelled or failed fetch never leaves a half checkpoint
that looks whole. Beside a complete copy, ``<folder>.fetched.json`` keeps the host's listing it was copied
from (path, bytes, mtime of each file); :func:`fetch_checkpoint` reuses the copy while the host lists the same files (one SSH call, nothing
copied), and fetches again once the run saved a newer checkpoint there.
"""

from __future__ import annotations

import json
import os
import posixpath
import shutil
from dataclasses import dataclass
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


MANIFEST_SUFFIX = ".fetched.json"   # <copy>.fetched.json beside a complete local copy: the host's listing
# the run folder's files the inspectors and Compare read beside a checkpoint: the training rows a run without a
# dev file held out (without it, Compare said the run "held no training rows out")
RUN_FILES = ("dev_split.csv",)


def _manifest(target: Path) -> Path:
    return target.with_name(target.name + MANIFEST_SUFFIX)


@dataclass
class Fetched:
    """What :func:`fetch_checkpoint` did.

    Attributes:
        path: the local copy (a complete folder).
        reused: True when the copy was already there and the host lists the same files (nothing copied).
        bytes: the size of the folder on the host, in bytes.
    """

    path: Path
    reused: bool
    bytes: int


def _listing(run: RemoteRun, remote_path: str) -> list[list]:
    host = run.host
    listing = json.loads(ssh.run_checked(host, [host.python, "-m", HOSTSIDE, "ls", remote_path]).decode() or "[]")
    if not listing:
        raise RemoteHostError(f"{host.name} has no files in {remote_path} (the run has not saved it yet)")
    return listing


def _copy_is_current(target: Path, listing: list[list]) -> bool:
    try:
        saved = json.loads(_manifest(target).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return saved == listing and all((target / rel).is_file() and (target / rel).stat().st_size == size
                                    for rel, size, *_ in listing)


def fetch_checkpoint(run: RemoteRun, remote_path: str, progress: Callable[[int, int], None] | None = None,
                     cancelled: Callable[[], bool] | None = None) -> Fetched:
    """The local copy of the remote checkpoint folder ``remote_path``: reused when complete and current
    (see the module docstring), else fetched as :func:`fetch_folder` does (``progress(bytes done, bytes
    total)`` after each file; ``cancelled()`` checked between files).

    Raises:
        RemoteHostError: the folder is missing or empty on the host, or a copy failed (one sentence).
        Cancelled: the user cancelled; the previous copy, if any, is left as it was.
    """
    target = local_path_of(run, remote_path)
    if target is None:
        raise RemoteHostError(f"{remote_path} is not inside the run folder {run.remote_dir} on {run.host.name}")
    listing = _listing(run, remote_path)
    total = sum(int(entry[1]) for entry in listing)
    if _copy_is_current(target, listing):
        fetch_run_files(run)
        return Fetched(path=target, reused=True, bytes=total)
    path = _fetch(run, remote_path, target, listing, progress, cancelled)
    fetch_run_files(run)
    return Fetched(path=path, reused=False, bytes=total)


def fetch_run_files(run: RemoteRun) -> list[Path]:
    """Copy the run folder's RUN_FILES the mirror lacks from the host (a run with a dev file has no
    dev_split.csv: nothing is copied for it). Returns the files copied; a copy that fails leaves nothing behind."""
    copied = []
    for name in RUN_FILES:
        local = Path(run.local_dir) / name
        if local.is_file():
            continue
        part = local.with_name(name + ".part")
        try:
            ssh.copy_from(run.host, posixpath.join(run.remote_dir, name), part, timeout=120.0)
            os.replace(part, local)
            copied.append(local)
        except (RemoteHostError, OSError):
            part.unlink(missing_ok=True)
    return copied


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
    return _fetch(run, remote_path, target, _listing(run, remote_path), progress, cancelled)


def _fetch(run: RemoteRun, remote_path: str, target: Path, listing: list[list],
           progress: Callable[[int, int], None] | None, cancelled: Callable[[], bool] | None) -> Path:
    total, done = sum(int(entry[1]) for entry in listing), 0
    part = target.with_name(target.name + ".part")
    shutil.rmtree(part, ignore_errors=True)
    for rel, size, *_ in listing:
        if cancelled is not None and cancelled():
            shutil.rmtree(part, ignore_errors=True)
            raise Cancelled()
        dest = part / rel
        dest.parent.mkdir(parents=True, exist_ok=True)

        def partial(dest=dest, done=done) -> None:   # a large file's bytes so far (scp writes it in place)
            if progress is not None:
                try:
                    progress(done + dest.stat().st_size, total)
                except OSError:
                    pass
        try:
            ssh.copy_from(run.host, posixpath.join(remote_path, rel), dest, watch=partial, cancelled=cancelled)
        except Cancelled:
            shutil.rmtree(part, ignore_errors=True)
            raise
        done += int(size)
        if progress is not None:
            progress(done, total)
    _manifest(target).unlink(missing_ok=True)
    if target.exists():
        shutil.rmtree(target)
    part.rename(target)
    _manifest(target).write_text(json.dumps(listing), encoding="utf-8")
    return target

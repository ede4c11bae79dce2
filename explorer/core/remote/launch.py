"""Launch a training run on a remote host.

1. ``hostside prepare``: the remote runs folder and its content-addressed store ``RUNS/.blobs``.
2. The config's local files (``model`` when it is a local folder, ``train``, ``dev``) are hashed
   (SHA-256 of the bytes; a folder: of its files' relative paths and bytes) and copied to
   ``RUNS/.blobs/<hash>/<name>`` only when that hash is not there yet: a second run does not copy the same
   file again. The copied config names those paths and the remote runs folder.
3. ``hostside launch``: the worker starts in its own session on the host; its events.jsonl is in
   ``RUNS/<run_id>/``. The local mirror folder gets the run's local config.json and its remote.json
   (host and remote folder: explorer.core.remote.hosts.save_remote_run); the follower
   (explorer.core.remote.follow) streams the events into it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from explorer.core.errors import RemoteHostError
from explorer.core.remote import ssh
from explorer.core.remote.check import MIN_FREE_BYTES, disk_full_sentence
from explorer.core.remote.hosts import Host, RemoteRun, save_remote_run
from explorer.core.runs.layout import config_file
from explorer.core.specs.train_config import TrainConfig

HOSTSIDE = "explorer.core.remote.hostside"
FILE_FIELDS = ("model", "train", "dev")   # TrainConfig fields that may name local files or folders


def content_hash(path: str | Path) -> str:
    """SHA-256 hex of a file's bytes, or of a folder's sorted (relative path, file hash) pairs."""
    path = Path(path)
    h = hashlib.sha256()
    if path.is_dir():
        for f in sorted(p for p in path.rglob("*") if p.is_file()):
            h.update(f.relative_to(path).as_posix().encode() + b"\0" + content_hash(f).encode() + b"\n")
        return h.hexdigest()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def local_files(config: TrainConfig) -> dict[str, Path]:
    """The config's fields that name an existing local file or folder -> that path (hub ids and
    ``bundled:`` models are not files and stay as they are)."""
    out = {}
    for name in FILE_FIELDS:
        value = str(getattr(config, name) or "")
        if value and ":" not in value.split("/")[0] and Path(value).expanduser().exists():
            out[name] = Path(value).expanduser().resolve()
    return out


@dataclass
class Upload:
    """What :func:`upload_files` did: field -> remote path, and the hashes that were copied this time."""

    remote_paths: dict[str, str]
    copied: list[str]


def upload_files(host: Host, root: str, files: dict[str, Path]) -> Upload:
    """Copy ``files`` into ``root/.blobs`` by content hash (missing hashes only); see the module docstring.

    Raises:
        RemoteHostError: a copy failed (key, reachability, disk full: one sentence).
    """
    blobs = f"{root}/.blobs"
    hashes = {field: content_hash(p)[:40] for field, p in files.items()}
    remote = {field: f"{blobs}/{hashes[field]}/{files[field].name}" for field in files}
    keys = {field: f"{hashes[field]}/{files[field].name}" for field in files}
    have = set()
    if keys:
        out = ssh.run_checked(host, [host.python, "-m", HOSTSIDE, "have", blobs, *sorted(set(keys.values()))])
        have = set(out.decode().splitlines())
    missing: dict[str, list[Path]] = {}   # hash -> the files to send under it (one per name)
    for f, key in keys.items():
        if key not in have and files[f] not in missing.get(hashes[f], []):
            missing.setdefault(hashes[f], []).append(files[f])
    if missing:
        parts = [f"{blobs}/{h}.part" for h in missing]
        ssh.run_checked(host, ["mkdir", "-p", *parts])
        for h, srcs in missing.items():
            ssh.copy_to(host, srcs, f"{blobs}/{h}.part/")
        ssh.run_checked(host, " && ".join(f"mv {ssh.quote(f'{blobs}/{h}.part')} {ssh.quote(f'{blobs}/{h}')}"
                                          for h in missing))
    return Upload(remote_paths=remote, copied=sorted(missing))


def remote_config(config: TrainConfig, remote_paths: dict[str, str], root: str) -> TrainConfig:
    """The config as the host runs it: its files at their remote paths, its output in the remote runs folder."""
    return dataclasses.replace(config, output_dir=root, **remote_paths)


def launched_config(ran: dict, local: dict) -> dict:
    """A remote run's config as it was launched here: ``ran`` (the config the host ran, as its ``started`` event
    names it: files in the host's content store ``RUNS/.blobs/<hash>/<name>``, the host's runs folder) with the
    fields :func:`remote_config` rewrote (``model``, ``train``, ``dev``, ``output_dir``) as ``local`` (the mirror's
    config.json) names them. Its names and file stems are then the ones the run had while it ran: a run read back
    from its mirror is not named after a content hash ('3f2a…' for ``.blobs/3f2a…/train.csv``)."""
    if not local:
        return dict(ran)
    out = dict(ran)
    for name in (*FILE_FIELDS, "output_dir"):
        if name in local:
            out[name] = local[name]
    return out


def prepare_root(host: Host) -> str:
    """Create the remote runs folder and its store (``hostside prepare``); returns it as the host resolved it.

    Raises:
        RemoteHostError: the host cannot be used, answers nonsense, or its disk is full (one sentence).
    """
    res = ssh.run_checked(host, [host.python, "-m", HOSTSIDE, "prepare", host.runs_dir])
    try:
        info = json.loads(res.decode().strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        raise RemoteHostError(f"{host.name}: bert-explorer on the host answered {res[:200]!r}; "
                              "check the host (Hosts dialog)") from None
    if int(info.get("free_bytes", MIN_FREE_BYTES)) < MIN_FREE_BYTES:
        raise RemoteHostError(disk_full_sentence(host, info["root"], int(info["free_bytes"]), MIN_FREE_BYTES))
    return info["root"]


def launch_run(host: Host, config: TrainConfig, local_dir: str | Path, gpus: int = 1) -> tuple[RemoteRun, Upload]:
    """Start ``config`` (its ``run_id`` already chosen) on ``host``; the local mirror is ``local_dir``.

    Returns the RemoteRun to follow and remember, and what was uploaded.

    Raises:
        RemoteHostError: the host cannot be used (one sentence), or its disk is full.
    """
    if not config.run_id:
        raise ValueError("launch_run needs a config with its run_id chosen")
    root = prepare_root(host)
    upload = upload_files(host, root, local_files(config))
    remote_cfg = remote_config(config, upload.remote_paths, root)
    out = ssh.run_checked(host, [host.python, "-m", HOSTSIDE, "launch", root, config.run_id, str(int(gpus))],
                          stdin=json.dumps(remote_cfg.to_dict(), indent=2).encode())
    started = json.loads(out.decode().strip().splitlines()[-1])
    local_dir = Path(local_dir)
    local_dir.mkdir(parents=True, exist_ok=True)
    config.save(config_file(local_dir))
    run = RemoteRun(run_id=config.run_id, host=host, remote_dir=started["run_dir"], local_dir=str(local_dir))
    save_remote_run(run)
    return run, upload


def request_remote(run: RemoteRun, request: str) -> str:
    """Stop early (``"stop"``: the STOP file) or cancel (``"cancel"``: SIGTERM to the worker) a run on its
    host, exactly as for a local run started elsewhere; returns the host's one-line answer.

    Raises:
        RemoteHostError: the host cannot be reached (one sentence).
    """
    if request not in ("stop", "cancel"):
        raise ValueError(f"request must be 'stop' or 'cancel', not {request!r}")
    host = run.host
    out = ssh.run_checked(host, [host.python, "-m", HOSTSIDE, request, run.remote_dir])
    return out.decode("utf-8", "replace").strip()

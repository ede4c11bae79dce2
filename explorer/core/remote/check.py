""""Check host": what is on a remote machine (one SSH command, no bert-explorer needed there).

:func:`check_host` returns a :class:`HostCheck`: the host's Python version, whether ``bert-explorer``
imports with that Python and its version (else the exact install command), the GPUs
(``nvidia-smi --query-gpu=name,memory.total --format=csv,noheader``; none is fine) and the free disk of
the remote runs folder. A host that cannot be used gives ``problem``: one sentence (key refused,
unreachable, package missing, disk full).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from explorer.core.errors import RemoteHostError
from explorer.core.remote import ssh
from explorer.core.remote.ssh import install_command, not_installed_sentence
from explorer.core.remote.hosts import Host

MIN_FREE_BYTES = 200 * 1024 * 1024   # below this the remote runs folder counts as full (a checkpoint is larger)
MAX_GPUS = 16   # the most GPUs a run on a host may ask for before a check has counted them

# Runs with the host's Python (any 3.x); prints one JSON object. argv[1]: the runs folder.
_PROBE = r"""
import json, os, shutil, subprocess, sys
out = {"python": sys.version.split()[0], "executable": sys.executable}
try:
    import explorer
    out["explorer"] = getattr(explorer, "__version__", "?")
except Exception as exc:
    out["explorer"] = None
    out["import_error"] = "%s: %s" % (type(exc).__name__, exc)
runs = os.path.expanduser(sys.argv[1])
try:
    os.makedirs(runs, exist_ok=True)
    out["runs_dir"] = os.path.abspath(runs)
    out["free_bytes"] = shutil.disk_usage(runs).free
except OSError as exc:
    out["runs_error"] = "%s (%s)" % (exc.strerror or exc, runs)
try:
    res = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total", "--format=csv,noheader"],
                         capture_output=True, text=True, timeout=20)
    out["gpus"] = [ln.strip() for ln in res.stdout.splitlines() if ln.strip()] if res.returncode == 0 else []
except (OSError, subprocess.SubprocessError):
    out["gpus"] = []
print(json.dumps(out))
"""


@dataclass
class HostCheck:
    """What :func:`check_host` found.

    Attributes:
        host: the host checked.
        python: the Python version on the host ("" when it could not run).
        explorer_version: bert-explorer's version there, None when it does not import.
        install_command: the exact command that installs it there ("" when installed).
        gpus: one "name, memory" line per GPU (``nvidia-smi``), [] when none.
        runs_dir: the remote runs folder as the host resolved it.
        free_bytes: free disk there, None when unknown.
        problem: one sentence when the host cannot take a run ("" when it can).
    """

    host: Host
    python: str = ""
    explorer_version: str | None = None
    install_command: str = ""
    gpus: list[str] = field(default_factory=list)
    runs_dir: str = ""
    free_bytes: int | None = None
    problem: str = ""

    @property
    def ok(self) -> bool:
        return not self.problem

    @property
    def gpu_count(self) -> int | None:
        """The GPUs the check found (0: none, the run uses the host's CPU); None when it could not look (no
        Python ran there)."""
        return len(self.gpus) if self.python else None

    def lines(self) -> list[str]:
        """The check as short lines for the Hosts dialog."""
        out = []
        if self.python:
            out.append(f"Python {self.python} ({self.host.python})")
        if self.explorer_version:
            out.append(f"bert-explorer {self.explorer_version}")
        elif self.python:
            out.append(f"bert-explorer is not installed: {self.install_command}")
        if self.python:
            out.append("GPUs: " + ("; ".join(self.gpus) if self.gpus else "none (runs on the host's CPU)"))
        if self.free_bytes is not None:
            out.append(f"free disk in {self.runs_dir}: {self.free_bytes / 1e9:.1f} GB")
        if self.problem:
            out.append(self.problem)
        return out


def gpu_range(gpu_count: int | None) -> tuple[int, int]:
    """The GPUs a run on a host may ask for, (lowest, highest): 0 to 0 where its check found none (the run uses
    the host's CPU), 1 to the GPUs found, 1 to MAX_GPUS before a check has counted them."""
    if gpu_count is None:
        return 1, MAX_GPUS
    return (0, 0) if gpu_count <= 0 else (1, gpu_count)


def check_host(host: Host, timeout: float = ssh.SSH_TIMEOUT, min_free_bytes: int = MIN_FREE_BYTES) -> HostCheck:
    """Check ``host`` over SSH (one command); never raises for a host problem, it is in ``problem``
    (less than ``min_free_bytes`` free in the remote runs folder counts as a full disk)."""
    out = HostCheck(host=host)
    bad = host.problem()
    if bad:
        out.problem = bad
        return out
    try:
        res = ssh.run(host, [host.python, "-c", _PROBE, host.runs_dir], timeout=timeout)
    except RemoteHostError as exc:
        out.problem = str(exc)
        return out
    stderr = res.stderr.decode("utf-8", "replace")
    if res.returncode == 127 or "No such file or directory" in stderr and res.returncode != 0 and not res.stdout:
        out.problem = (f"{host.name}: there is no Python at {host.python} on the host; name the Python "
                       f"(or the venv's bin/python) that should run the training.")
        return out
    if res.returncode != 0:
        out.problem = ssh.explain(host, stderr, res.returncode)
        return out
    try:
        info = json.loads(res.stdout.decode("utf-8", "replace").strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        out.problem = f"{host.name}: the check printed something unexpected ({res.stdout[:200]!r})"
        return out
    out.python = info.get("python", "")
    out.explorer_version = info.get("explorer")
    out.gpus = list(info.get("gpus") or [])
    out.runs_dir = info.get("runs_dir", host.runs_dir)
    out.free_bytes = info.get("free_bytes")
    if out.explorer_version is None:
        out.install_command = install_command(host)
        out.problem = not_installed_sentence(host)
    elif info.get("runs_error"):
        out.problem = f"{host.name}: cannot use the runs folder: {info['runs_error']}"
    elif out.free_bytes is not None and out.free_bytes < min_free_bytes:
        out.problem = disk_full_sentence(host, out.runs_dir, out.free_bytes, min_free_bytes)
    return out


def host_gpus(host: Host, timeout: float = ssh.SSH_TIMEOUT) -> list[str] | None:
    """The host's GPUs as "name, memory" lines (``nvidia-smi --query-gpu``); [] for none (no nvidia-smi
    or no GPU); None when the host cannot be asked (ssh failed: the status bar then names no device)."""
    try:
        res = ssh.run(host, ["nvidia-smi", "--query-gpu=name,memory.total", "--format=csv,noheader"],
                      timeout=timeout)
    except RemoteHostError:
        return None
    if res.returncode == 255:
        return None
    if res.returncode != 0:
        return []
    return [ln.strip() for ln in res.stdout.decode("utf-8", "replace").splitlines() if ln.strip()]


def disk_full_sentence(host: Host, runs_dir: str, free_bytes: int, needed: int = MIN_FREE_BYTES) -> str:
    """The one sentence for a remote runs folder without room for a run."""
    return (f"the disk on {host.name} that holds {runs_dir} is full ({free_bytes / 1e6:.0f} MB free, a run "
            f"needs at least {needed / 1e6:.0f} MB); free space there or choose another runs folder.")

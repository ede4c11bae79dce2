"""A real OpenSSH server on 127.0.0.1 for the remote-host tests.

:func:`start_sshd` generates a host key and a client key (``ssh-keygen``) in a temporary folder, writes
an ``sshd_config`` (127.0.0.1, a free port, the client key as the only authorized key, no passwords,
no PAM, its pid file in the folder) and starts ``/usr/sbin/sshd -D -e`` as the user running the tests;
it also writes an ``ssh_config`` with the alias ``explorer-test`` (the host key already in its
known_hosts, so host-key checking stays strict). The product reads that file through
``$EXPLORER_SSH_CONFIG`` (explorer.core.remote.ssh), because ``ssh`` itself reads ``~/.ssh/config``
of the password database, not of ``$HOME``.

The "remote" Python is this interpreter through another path: ``<tmp>/remote-python/bin/python``, a
wrapper that sets PYTHONPATH to this worktree and keeps HOME and the caches in the temporary folder
(sshd gives the session a clean environment).

Raises :class:`SshdUnavailable` (the fixture turns it into a loud skip) when sshd is not installed or
does not start.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

SSHD = "/usr/sbin/sshd"
ALIAS = "explorer-test"
START_TIMEOUT = 15.0
REPO_ROOT = Path(__file__).resolve().parents[1]


class SshdUnavailable(RuntimeError):
    """sshd is missing or did not start; the message says why."""


@dataclass
class SshServer:
    """A running test sshd and everything a client needs to reach it."""

    root: Path
    port: int
    ssh_config: Path
    python: Path            # the wrapper the "host" runs as its Python
    bare_python: Path       # the same interpreter without site-packages: bert-explorer does not import
    runs: Path              # the remote runs folder on the "host"
    proc: subprocess.Popen
    log: list[str] = field(default_factory=list)
    alias: str = ALIAS

    def stop(self) -> None:
        """Kill the detached workers still running in the host's runs folder (a test that failed before its
        stop or cancel left one training on: it once ran 36 minutes past its test), then stop sshd (SIGTERM,
        then SIGKILL after 5 s); its session children end with their channels."""
        kill_left_workers(self.runs)
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


def kill_left_workers(runs: Path) -> list[int]:
    """SIGKILL the process group of every live worker named by a ``<runs>/<run>/worker.pid``
    (explorer.core.runs.workers.worker_pid: the worker removes the file when it ends; hostside starts it as a session
    leader, so its group id is its pid and accelerate's children go with it). Returns the pids killed."""
    from explorer.core.runs.layout import PID_FILE
    from explorer.core.runs.workers import worker_pid

    killed = []
    for path in sorted(Path(runs).glob(f"*/{PID_FILE}")):
        pid = worker_pid(path.parent)
        if pid:
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                continue
            killed.append(pid)
    return killed


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _keygen(path: Path) -> None:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "explorer-test", "-f", str(path)],
                   check=True, capture_output=True, timeout=30)


def _write_python_wrapper(root: Path) -> Path:
    """``<root>/remote-python/bin/python``: this interpreter, this worktree's code, the sandboxed HOME."""
    home = root / "remote-home"
    home.mkdir(exist_ok=True)
    keep = {name: os.environ[name] for name in ("HF_HOME", "HF_HUB_CACHE", "HF_DATASETS_CACHE", "XDG_CACHE_HOME",
                                                 "XDG_CONFIG_HOME", "EXPLORER_CACHE_DIR") if name in os.environ}
    env = {"HOME": str(home), "PYTHONPATH": str(REPO_ROOT), "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1",
           "TOKENIZERS_PARALLELISM": "false", "PYTHONUNBUFFERED": "1", **keep}
    exports = "".join(f"export {k}='{v}'\n" for k, v in env.items())
    path = root / "remote-python" / "bin" / "python"
    path.parent.mkdir(parents=True)
    path.write_text(f"#!/bin/sh\n{exports}exec '{sys.executable}' \"$@\"\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def start_sshd(root: Path, *, sftp: bool = True) -> SshServer:
    """Start the server under ``root`` (a fresh temporary folder); see the module docstring. ``sftp=False``:
    no SFTP subsystem, as on minimal servers, so scp must use the legacy SCP protocol (``scp -O``)."""
    if not Path(SSHD).exists():
        raise SshdUnavailable(f"{SSHD} is not installed (Debian: apt-get install openssh-server; .ci/run does)")
    if shutil.which("ssh") is None or shutil.which("ssh-keygen") is None:
        raise SshdUnavailable("the OpenSSH client (ssh, ssh-keygen) is not installed")
    if os.geteuid() == 0 and not Path("/run/sshd").is_dir():
        raise SshdUnavailable("sshd as root needs its privilege separation folder /run/sshd (mkdir -p /run/sshd)")
    root.mkdir(parents=True, exist_ok=True)
    _keygen(root / "host_key")
    _keygen(root / "client_key")
    _keygen(root / "wrong_key")   # a key the server does not know
    authorized = root / "authorized_keys"
    shutil.copy(root / "client_key.pub", authorized)
    port = _free_port()
    config = root / "sshd_config"
    config.write_text("\n".join([
        f"ListenAddress 127.0.0.1:{port}",
        f"HostKey {root / 'host_key'}",
        f"AuthorizedKeysFile {authorized}",
        f"PidFile {root / 'sshd.pid'}",
        "StrictModes no", "UsePAM no", "PasswordAuthentication no", "KbdInteractiveAuthentication no",
        "PubkeyAuthentication yes", "PermitRootLogin prohibit-password", "AllowTcpForwarding no",
        "X11Forwarding no", "PrintMotd no", "LogLevel INFO", "MaxSessions 50", "MaxStartups 50",
        "ClientAliveInterval 0", "Subsystem sftp internal-sftp" if sftp else "", "",
    ]), encoding="utf-8")
    host_pub = (root / "host_key.pub").read_text(encoding="utf-8").split()[:2]
    (root / "known_hosts").write_text(f"[127.0.0.1]:{port} {' '.join(host_pub)}\n", encoding="utf-8")
    user = os.environ.get("USER") or __import__("pwd").getpwuid(os.getuid()).pw_name
    ssh_config = root / "ssh_config"
    ssh_config.write_text("\n".join([
        f"Host {ALIAS}",
        "  HostName 127.0.0.1", f"  Port {port}", f"  User {user}",
        f"  IdentityFile {root / 'client_key'}", "  IdentitiesOnly yes",
        f"  UserKnownHostsFile {root / 'known_hosts'}", "  StrictHostKeyChecking yes",
        "  BatchMode yes", "  ConnectTimeout 10",
        f"Host {ALIAS}-wrongkey",
        "  HostName 127.0.0.1", f"  Port {port}", f"  User {user}",
        f"  IdentityFile {root / 'wrong_key'}", "  IdentitiesOnly yes", "  IdentityAgent none",
        f"  UserKnownHostsFile {root / 'known_hosts'}", "  StrictHostKeyChecking yes", "  BatchMode yes",
        f"Host {ALIAS}-down",
        "  HostName 127.0.0.1", f"  Port {_free_port()}", f"  User {user}",
        f"  IdentityFile {root / 'client_key'}", "  IdentitiesOnly yes",
        f"  UserKnownHostsFile {root / 'known_hosts'}", "  StrictHostKeyChecking yes", "  BatchMode yes", "",
    ]), encoding="utf-8")
    for key in ("client_key", "wrong_key"):
        (root / key).chmod(0o600)
    bare = root / "bare-python"
    bare.write_text(f"#!/bin/sh\nexec '{sys.executable}' -S \"$@\"\n", encoding="utf-8")
    bare.chmod(0o755)
    proc = subprocess.Popen([SSHD, "-D", "-e", "-f", str(config)], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    server = SshServer(root=root, port=port, ssh_config=ssh_config, python=_write_python_wrapper(root), bare_python=bare,
                       runs=root / "remote-runs", proc=proc)
    listening = threading.Event()

    def read_log():
        for line in proc.stderr:
            server.log.append(line.rstrip())
            if "Server listening" in line:
                listening.set()

    threading.Thread(target=read_log, daemon=True).start()
    if not listening.wait(START_TIMEOUT) or proc.poll() is not None:
        server.stop()
        raise SshdUnavailable("sshd did not start: " + " | ".join(server.log[-5:]))
    deadline = time.monotonic() + START_TIMEOUT
    while True:   # the port listens; the first login proves keys and config
        res = subprocess.run(["ssh", "-F", str(ssh_config), ALIAS, "true"], capture_output=True, text=True,
                             timeout=START_TIMEOUT, stdin=subprocess.DEVNULL)
        if res.returncode == 0:
            return server
        if time.monotonic() > deadline:
            server.stop()
            raise SshdUnavailable(f"cannot log in to the test sshd: {res.stderr.strip()} | "
                                  + " | ".join(server.log[-5:]))
        time.sleep(0.2)

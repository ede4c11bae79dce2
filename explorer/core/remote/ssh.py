"""The system OpenSSH client: command lines, running them, and one sentence for each failure.

Everything goes through ``ssh`` / ``scp`` so the user's ``~/.ssh/config`` (or $EXPLORER_SSH_CONFIG, or the
file chosen with explorer.core.remote.hosts.use_ssh_config: ``-F``),
agent, jump hosts and known hosts apply. ``BatchMode=yes``: ssh never asks for a password or a
passphrase (the app stores none); a key it cannot use is refused with a clear sentence instead.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import time
from pathlib import Path
from typing import Callable

from explorer import __version__
from explorer.core.errors import Cancelled, RemoteHostError
from explorer.core.remote.hosts import (Host, known_hosts_file, ssh_config_override, unread_home_sentence,
                                        unread_known_hosts_sentence)

SSH_TIMEOUT = 60.0          # seconds for one short command (check, copy of a small file, a signal)
WATCH_SECONDS = 0.25        # how often a running copy reports progress and checks for Cancel
PACKAGE = "bert-explorer"   # what a host's Python must import to run the worker and the host-side commands


def _where(host: Host, port_flag: str) -> list[str]:
    """``-F CONFIG`` (ssh_config_override), ``-p PORT``, ``-i KEY``: which config, port and key the app uses."""
    args = []
    config = ssh_config_override()
    if config is not None:
        args += ["-F", str(config)]
    if host.port:
        args += [port_flag, str(int(host.port))]
    if host.key:
        args += ["-i", str(Path(host.key).expanduser()), "-o", "IdentitiesOnly=yes"]
    return args


def _common(host: Host, port_flag: str) -> list[str]:
    return [*_where(host, port_flag),
            "-o", "BatchMode=yes", "-o", "ConnectTimeout=15", "-o", "ServerAliveInterval=15",
            "-o", "ServerAliveCountMax=4"]


def connect_command(host: Host) -> str:
    """The interactive ``ssh`` command (a shell line) that reaches ``host`` as the app does (same ``-F``,
    ``-p``, ``-i``; no BatchMode, so ssh may ask to accept a host key): what a message tells the user to run."""
    return " ".join(shlex.quote(a) for a in ["ssh", *_where(host, "-p"), host.target])


def ssh_argv(host: Host, command: list[str] | str) -> list[str]:
    """``ssh ... target -- COMMAND``; a list is shell-quoted for the host's shell (a leading ``~/`` of an
    argument stays unquoted so that the host resolves it)."""
    if isinstance(command, list):
        command = " ".join(quote(str(a)) for a in command)
    return ["ssh", *_common(host, "-p"), host.target, "--", command]


INSPECT_GPU_ENV = "EXPLORER_INSPECT_GPU"   # "1": the inspector child puts its models on the GPU (inspect_ops.on_device)


def inspector_argv(host: Host) -> list[str]:
    """The inspector child on the host over ssh (same frames on stdin / stdout as the local child,
    explorer.core.protocol.frames): for explorer.ui.inspectors.client.ProcessTransport(argv=...). It puts the models
    it loads on the host's GPU when it has one ($EXPLORER_INSPECT_GPU=1 for that command only)."""
    return ssh_argv(host, [f"{INSPECT_GPU_ENV}=1", host.python, "-m", "explorer.worker.inspector"])


def scp_argv(host: Host, sources: list[str | Path], remote: str, *, legacy: bool = False) -> list[str]:
    """``scp -r -q SOURCES target:REMOTE`` (SFTP mode; REMOTE may start with ``~/``); ``legacy``: ``scp -O``
    with REMOTE escaped for the host's shell (:func:`remote_spec`)."""
    return ["scp", *(["-O"] if legacy else []), *_common(host, "-P"), "-r", "-q", *[str(s) for s in sources],
            remote_spec(host, remote, legacy=legacy)]


def remote_spec(host: Host, path: str, *, legacy: bool = False) -> str:
    """``target:PATH`` for scp. In SFTP mode (scp's default) PATH is taken as it is; the legacy SCP protocol
    (``scp -O``) hands PATH to the host's shell, which would split a run name with a space into two paths
    ("No such file or directory"), so there every character outside ``[A-Za-z0-9_./~+-]`` is escaped with a
    backslash (a leading ``~/`` still expanded). Backslashes rather than quotes: scp checks the file name the
    host sends back against the requested name as a pattern, where ``\\x`` means ``x`` but a quote is a quote.
    Escaping in SFTP mode too would make the backslashes part of the name."""
    return f"{host.target}:{_shell_escape(path) if legacy else path}"


def _shell_escape(path: str) -> str:
    return "".join(c if c.isascii() and (c.isalnum() or c in "_./~+-") else "\\" + c for c in path)


def quote(arg: str) -> str:
    """shlex.quote, except that ``~/rest`` becomes ``~/'rest'`` so the host's shell expands the ``~``."""
    if arg == "~":
        return "~"
    if arg.startswith("~/"):
        return "~/" + shlex.quote(arg[2:])
    return shlex.quote(arg)


def install_command(host: Host) -> str:
    """The command that installs this app's version with the host's Python."""
    return f"{shlex.quote(host.python)} -m pip install '{PACKAGE}=={__version__}'"


def not_installed_sentence(host: Host) -> str:
    """The one sentence for a host whose Python does not import bert-explorer, with the install command."""
    return (f"bert-explorer is not installed for {host.python} on {host.name}; install it there with: "
            f"{install_command(host)}")


def explain(host: Host, stderr: str, code: int) -> str:
    """One sentence for what went wrong talking to ``host`` (from ssh's / the command's stderr)."""
    text = stderr.strip()
    last = next((ln.strip() for ln in reversed(text.splitlines()) if ln.strip()), "")
    where = host.name or host.target
    if "Permission denied (publickey" in text or "Permission denied (" in text:
        return (f"{where} refused the key (Permission denied (publickey)): add your public key to "
                f"~/.ssh/authorized_keys on the host, or name the right key file for this host.")
    if "REMOTE HOST IDENTIFICATION HAS CHANGED" in text:
        offending = re.search(r"Offending \S+ key in (.+):(\d+)\s*$", text, flags=re.MULTILINE)
        old = (f"line {offending.group(2)} of {offending.group(1)}" if offending else "the old key in known_hosts")
        return (f"{where}: the host key CHANGED since it was stored in known_hosts (REMOTE HOST IDENTIFICATION "
                f"HAS CHANGED): the host was reinstalled, or someone is in between. Ask its administrator for "
                f"the new key's fingerprint, remove {old}, then connect once in a terminal with: "
                f"{connect_command(host)}")
    if "Host key verification failed" in text:
        used = known_hosts_file(host.target)
        note = unread_known_hosts_sentence(used)
        return (f"{where}: unknown host key (the first connection: {used}, the known_hosts file ssh reads, has no "
                f"key for it). " + (f"{note} " if note else "") + "To check its fingerprint and accept it, connect "
                f"once in a terminal with: {connect_command(host)}")
    for sign in ("Could not resolve hostname", "Connection refused", "Connection timed out", "No route to host",
                 "Network is unreachable", "Connection closed by", "Connection reset", "Operation timed out",
                 "Bad port"):
        if sign in text:
            note = unread_home_sentence() if sign == "Could not resolve hostname" else ""
            return f"{where} cannot be reached ({last})." + (f" {note}" if note else "")
    if "No module named 'explorer" in text or "No module named explorer" in text:
        return not_installed_sentence(host)
    if "No space left on device" in text or "Disk quota exceeded" in text:
        return (f"the disk on {where} that holds the remote runs folder {host.runs_dir} is full ({last}); "
                f"free space there or choose another runs folder for this host.")
    if code == 255:
        return f"{where} cannot be reached over SSH ({last or 'ssh exited with code 255'})."
    if code == 1 and last and not last.startswith("Traceback"):   # a host-side command said why (SystemExit)
        return f"{where}: {last}"
    return f"{where}: the command failed with code {code}" + (f" ({last})" if last else "") + "."


def run(host: Host, command: list[str] | str, *, stdin: bytes | None = None,
        timeout: float = SSH_TIMEOUT) -> subprocess.CompletedProcess:
    """Run one command on the host; returns the CompletedProcess (bytes) whatever its exit code.

    Raises:
        RemoteHostError: ssh is not installed, or the command took longer than ``timeout`` seconds.
    """
    argv = ssh_argv(host, command)
    try:
        return subprocess.run(argv, input=stdin, capture_output=True, timeout=timeout,
                              stdin=None if stdin is not None else subprocess.DEVNULL)
    except FileNotFoundError:
        raise RemoteHostError("the OpenSSH client (ssh) is not installed on this machine") from None
    except subprocess.TimeoutExpired:
        raise RemoteHostError(f"{host.name}: no answer within {timeout:.0f} s") from None


def run_checked(host: Host, command: list[str] | str, *, stdin: bytes | None = None,
                timeout: float = SSH_TIMEOUT) -> bytes:
    """:func:`run`, returning stdout; raises RemoteHostError with :func:`explain`'s sentence on failure."""
    res = run(host, command, stdin=stdin, timeout=timeout)
    if res.returncode != 0:
        raise RemoteHostError(explain(host, res.stderr.decode("utf-8", "replace"), res.returncode))
    return res.stdout


# what scp says when the host's sshd offers no SFTP subsystem (scp >= 9 copies over SFTP by default)
NO_SFTP = ("subsystem request failed", "connection closed", "sftp-server: not found", "sftp-server: no such file")


def _scp(host: Host, argv_for: Callable[[bool], list[str]], what: str, timeout: float,
         watch: Callable[[], None] | None = None, cancelled: Callable[[], bool] | None = None) -> None:
    """Run scp with ``argv_for(False)``; ``watch()`` every WATCH_SECONDS while it copies, ``cancelled()``
    likewise (True: scp is stopped and Cancelled raised). A host without SFTP (an sshd with no sftp-server, which
    ``ssh`` itself reaches fine) gets one more try with ``argv_for(True)``: the legacy SCP protocol (``scp -O``,
    the remote path quoted for the host's shell)."""
    returncode, stderr = _scp_once(host, argv_for(False), what, timeout, watch, cancelled)
    if returncode != 0 and any(s in stderr.lower() for s in NO_SFTP):
        returncode, stderr = _scp_once(host, argv_for(True), what, timeout, watch, cancelled)
    if returncode != 0:
        raise RemoteHostError(explain(host, stderr, returncode))


def _scp_once(host: Host, argv: list[str], what: str, timeout: float, watch: Callable[[], None] | None,
              cancelled: Callable[[], bool] | None) -> tuple[int, str]:
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    except FileNotFoundError:
        raise RemoteHostError("the OpenSSH client (scp) is not installed on this machine") from None
    deadline = time.monotonic() + timeout
    try:
        while True:
            try:
                proc.wait(timeout=WATCH_SECONDS)
                break
            except subprocess.TimeoutExpired:
                if cancelled is not None and cancelled():
                    raise Cancelled() from None
                if time.monotonic() > deadline:
                    raise RemoteHostError(f"{host.name}: copying {what} took longer than {timeout:.0f} s") from None
                if watch is not None:
                    watch()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    stderr = proc.stderr.read().decode("utf-8", "replace") if proc.stderr is not None else ""
    if proc.stderr is not None:
        proc.stderr.close()
    return proc.returncode, stderr


def copy_from(host: Host, remote: str, local: str | Path, timeout: float = 3600.0,
              watch: Callable[[], None] | None = None, cancelled: Callable[[], bool] | None = None) -> None:
    """Copy the file ``remote`` on the host to the local path ``local`` (scp); ``watch()`` is called about
    every WATCH_SECONDS while it copies (e.g. to report the bytes already in ``local``).

    Raises:
        RemoteHostError: the copy failed (the sentence of :func:`explain`).
        Cancelled: ``cancelled()`` became true; scp was stopped (``local`` may be partial).
    """
    def argv_for(legacy: bool) -> list[str]:
        return ["scp", *(["-O"] if legacy else []), *_common(host, "-P"), "-q",
                remote_spec(host, remote, legacy=legacy), str(local)]

    _scp(host, argv_for, remote, timeout, watch, cancelled)


def copy_to(host: Host, sources: list[str | Path], remote: str, timeout: float = 3600.0) -> None:
    """Copy local files / folders into the folder ``remote`` on the host (scp -r).

    Raises:
        RemoteHostError: the copy failed (the sentence of :func:`explain`: key, reachability, disk full).
    """
    _scp(host, lambda legacy: scp_argv(host, sources, remote, legacy=legacy), f"to {remote}", timeout)

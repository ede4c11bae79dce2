"""Remote hosts and remembered remote runs as plain data (stored by the app's settings as JSON).

A :class:`Host` never holds a password: authentication is whatever the user's OpenSSH client does (keys,
agent, ``~/.ssh/config``).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

SSH_CONFIG_ENV = "EXPLORER_SSH_CONFIG"   # an ssh_config used instead of ~/.ssh/config (ssh -F)
# sbatch --time formats: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS
_SLURM_TIME = re.compile(r"^(\d+|\d+:\d{1,2}|\d+:\d{1,2}:\d{1,2}|\d+-\d+(:\d{1,2}){0,2})$")


@dataclass
class SlurmOptions:
    """How runs are submitted when the host is a SLURM login node (explorer.core.remote.slurm).

    Attributes:
        partition: ``sbatch --partition``; "" = the cluster's default partition.
        gpus: GPUs per job (``--gres=gpu:N``; 0 = no ``--gres`` line, a CPU job); more than one runs
            the worker with ``accelerate launch --multi_gpu`` inside the job, as a direct launch does.
        time_limit: ``sbatch --time`` (minutes, ``HH:MM:SS`` or ``D-HH:MM:SS``); "" = the partition's.
        extra: more sbatch options, one a line (``--account=lab`` or ``#SBATCH --account=lab``).
    """

    partition: str = ""
    gpus: int = 1
    time_limit: str = "04:00:00"
    extra: str = ""

    def extra_lines(self) -> list[str]:
        """The extra options as ``#SBATCH ...`` lines (blank lines dropped)."""
        out = []
        for line in self.extra.splitlines():
            line = line.strip()
            if line:
                out.append(line if line.startswith("#SBATCH") else f"#SBATCH {line}")
        return out

    def problem(self) -> str:
        """'' when usable, else what is wrong (one sentence for the Hosts dialog)."""
        if re.search(r"\s", self.partition.strip()):
            return f"the SLURM partition {self.partition!r} contains a space"
        if not 0 <= int(self.gpus) <= 64:
            return f"GPUs per job must be between 0 and 64, not {self.gpus}"
        if self.time_limit.strip() and not _SLURM_TIME.match(self.time_limit.strip()):
            return (f"the time limit {self.time_limit!r} is not one sbatch reads: write minutes (90), "
                    f"HH:MM:SS (04:00:00) or D-HH:MM:SS (1-12:00:00)")
        for n, line in enumerate(self.extra.splitlines(), 1):
            text = line.strip()
            if text and not (text.startswith("-") or text.startswith("#SBATCH -")):
                return (f"extra sbatch line {n} ({text[:40]!r}) is not an sbatch option: write it as "
                        f"--account=lab or #SBATCH --account=lab")
        return ""


@dataclass
class Host:
    """One remote machine.

    Attributes:
        name: how the app lists it (unique; defaults to the target).
        target: an ``~/.ssh/config`` alias or ``user@host`` / ``host``.
        port: the SSH port; 0 = the config's (or 22).
        key: a private key file (``ssh -i``); "" = the config's / the agent's.
        python: the Python on the host that has bert-explorer (a venv's ``bin/python``); default ``python3``.
        runs_dir: the runs folder on the host (``~`` allowed, resolved there).
        slurm: set when the host is a SLURM login node: runs are submitted with ``sbatch``
            (:class:`SlurmOptions`); None = the worker starts directly on the host.
        gpus_found: the GPUs the host's last check counted (0: none, its runs use the CPU); None = not
            checked since its SSH host was set. Saved with the host, so a rename or a restart keeps it.
    """

    name: str = ""
    target: str = ""
    port: int = 0
    key: str = ""
    python: str = "python3"
    runs_dir: str = "~/bert-explorer-runs"
    slurm: SlurmOptions | None = None
    gpus_found: int | None = None

    def __post_init__(self):
        self.name = self.name or self.target
        if isinstance(self.slurm, dict):
            names = {f.name for f in dataclasses.fields(SlurmOptions)}
            self.slurm = SlurmOptions(**{k: v for k, v in self.slurm.items() if k in names})

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "Host":
        """A host from its stored dict; unknown keys are ignored, a "password" key is never read."""
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})

    def problem(self) -> str:
        """'' when usable, else what is missing or wrong (for the Hosts dialog)."""
        if not self.target.strip():
            return "a host needs an SSH alias or user@host"
        if re.search(r"\s", self.target.strip()):
            return f"the host {self.target!r} contains a space"
        if not 0 <= int(self.port) <= 65535:
            return f"port {self.port} is not between 1 and 65535"
        if self.key and not Path(self.key).expanduser().is_file():
            return f"the key file {self.key} does not exist"
        if not self.python.strip():
            return "name the Python on the host (python3, or a venv's bin/python)"
        if not self.runs_dir.strip():
            return "name a runs folder on the host"
        if self.slurm is not None:
            return self.slurm.problem()
        return ""


@dataclass
class RemoteRun:
    """A run started on a host, remembered so that it is followed again after a restart.

    Attributes:
        run_id: the run's id (its folder name on both sides).
        host: the :class:`Host` it runs on (a copy, so renaming the host list does not lose it).
        remote_dir: its run folder on the host (absolute, as the host resolved it).
        local_dir: the local mirror folder (config.json, events.jsonl streamed from the host).
        done: the follower saw a terminal event (not followed again).
        slurm_job: the SLURM job it is (``"123"``, or ``"123_0"`` for task 0 of job array 123); "" for a
            worker started directly.
    """

    run_id: str
    host: Host
    remote_dir: str
    local_dir: str
    done: bool = False
    slurm_job: str = ""

    def to_dict(self) -> dict:
        return {"run_id": self.run_id, "host": self.host.to_dict(), "remote_dir": self.remote_dir,
                "local_dir": self.local_dir, "done": self.done, "slurm_job": self.slurm_job}

    @classmethod
    def from_dict(cls, data: dict) -> "RemoteRun":
        return cls(run_id=str(data["run_id"]), host=Host.from_dict(dict(data["host"])),
                   remote_dir=str(data["remote_dir"]), local_dir=str(data["local_dir"]),
                   done=bool(data.get("done", False)), slurm_job=str(data.get("slurm_job") or ""))


def save_remote_run(run: RemoteRun) -> Path:
    """Write ``run`` (host, remote folder; never a password) into its local mirror's ``remote.json``
    (explorer.core.runs.layout.remote_file), so the run is known as remote after a restart even once it ended."""
    from explorer.core.runs.layout import remote_file

    path = remote_file(run.local_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = run.to_dict()
    data.pop("done", None)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def read_remote_run(run_dir: str | Path) -> RemoteRun | None:
    """The RemoteRun a local mirror folder records in its ``remote.json``; None for a local run or an
    unreadable file (the folder is then shown as a local run). ``local_dir`` is ``run_dir`` as given."""
    from explorer.core.runs.layout import remote_file

    try:
        data = json.loads(remote_file(run_dir).read_text(encoding="utf-8"))
        return RemoteRun.from_dict(dict(data, local_dir=str(run_dir)))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def login_home() -> Path:
    """The home folder ssh uses: the passwd entry's (ssh never reads $HOME), else Path.home() where there is no
    passwd database (Windows) or no entry for this user."""
    try:
        import pwd

        return Path(pwd.getpwuid(os.getuid()).pw_dir)
    except (ImportError, KeyError, AttributeError):
        return Path.home()


_chosen_config: Path | None = None   # the "Use it" choice (use_ssh_config), process-wide; the env variable wins


def use_ssh_config(path: str | Path | None) -> None:
    """Make every ssh / scp / ``ssh -G`` the app runs read ``path`` (``-F path``); None or "" = ssh's own
    file again. The GUI calls it with the remembered setting (AppSettings.ssh_config) at start and on the Hosts
    dialog's "Use it"; $EXPLORER_SSH_CONFIG still wins over it."""
    global _chosen_config
    _chosen_config = Path(path).expanduser() if path else None


def ssh_config_override() -> Path | None:
    """The file passed to ssh as ``-F``: $EXPLORER_SSH_CONFIG, else the :func:`use_ssh_config` choice, else None
    (ssh reads ``.ssh/config`` of the passwd home itself)."""
    if os.environ.get(SSH_CONFIG_ENV):
        return Path(os.environ[SSH_CONFIG_ENV]).expanduser()
    return _chosen_config


def ssh_config_path() -> Path:
    """The ssh_config the app reads and passes to ssh: :func:`ssh_config_override`, else ``.ssh/config`` in the
    passwd home, the file ssh itself reads (never $HOME/.ssh/config when $HOME is elsewhere: ssh reads another)."""
    return ssh_config_override() or (login_home() / ".ssh" / "config")


def home_ssh_config() -> Path:
    """``$HOME/.ssh/config`` (which ssh never reads when $HOME is not the passwd home)."""
    return Path.home() / ".ssh" / "config"


def unread_home_config() -> tuple[Path, Path] | None:
    """(``$HOME/.ssh/config``, the file ssh reads instead) when the first exists and ssh does not read it (a
    container, a fresh-HOME setup, ``sudo -E``); None when it is missing or already the file in use. Raises
    nothing."""
    home, used = home_ssh_config(), ssh_config_path()
    try:
        if not home.is_file() or home.resolve() == used.expanduser().resolve():
            return None
    except OSError:
        return None
    return home, used


def unread_home_sentence() -> str:
    """One line saying that $HOME's ssh config is not the one ssh reads (for the Hosts dialog and the
    "cannot be reached" sentence), or "" when :func:`unread_home_config` finds nothing."""
    found = unread_home_config()
    if found is None:
        return ""
    home, used = found
    whose = ("$EXPLORER_SSH_CONFIG" if os.environ.get(SSH_CONFIG_ENV) else
             "the file chosen in the Hosts dialog" if _chosen_config is not None else "the account's home")
    return f"Your HOME's SSH config ({home}) is not the one ssh reads ({used}: {whose})."


def ssh_resolved(target: str, timeout: float = 5.0) -> dict[str, str] | None:
    """What ssh itself makes of ``target`` (an alias or user@host) under its config: ``ssh -G`` (which connects
    to nothing) -> {"hostname", "user", "port", "userknownhostsfile"} (the last: its first file);
    :func:`ssh_config_override` is passed as ``-F``. None when
    there is no ssh program, it fails, or it takes over ``timeout`` seconds (a ``Match exec`` in the config)."""
    import shutil
    import subprocess

    ssh = shutil.which("ssh")
    if not ssh or not target.strip() or target.startswith("-"):
        return None
    override = ssh_config_override()
    args = [ssh, "-G"] + (["-F", str(override)] if override is not None else []) + [target]
    try:
        res = subprocess.run(args, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    if res.returncode != 0:
        return None
    out = {}
    for line in res.stdout.splitlines():
        key, _, value = line.partition(" ")
        if key in ("hostname", "user", "port") and key not in out:
            out[key] = value.strip()
        elif key == "userknownhostsfile" and value.split() and key not in out:
            out[key] = value.split()[0]
    return out or None


def known_hosts_file(target: str) -> Path:
    """The known_hosts file ssh reads and writes for ``target``: the first UserKnownHostsFile of ``ssh -G`` (a
    leading ``~`` is the account's home, :func:`login_home`, as ssh expands it), else
    ``<login_home>/.ssh/known_hosts``."""
    named = (ssh_resolved(target) or {}).get("userknownhostsfile", "")
    if named == "~" or named.startswith("~/"):
        return login_home() / named[2:]
    return Path(named) if named and named.lower() != "none" else login_home() / ".ssh" / "known_hosts"


def unread_known_hosts_sentence(used: Path) -> str:
    """One sentence when $HOME holds a known_hosts file other than ``used`` (the one ssh reads), else "" (a key
    accepted into $HOME/.ssh/known_hosts goes unseen, as ssh reads the account's home)."""
    home = os.environ.get("HOME", "")
    theirs = Path(home) / ".ssh" / "known_hosts" if home else None
    if theirs is None or theirs == used or not theirs.is_file():
        return ""
    return (f"A key in your HOME's {theirs} is not read: ssh reads the account's home, not $HOME (or name that file "
            "with UserKnownHostsFile in the SSH config).")


def _config_port(target: str, path: Path) -> int | None:
    """The Port an ssh_config gives ``target``'s host, read from the file (the first match wins, as in ssh; Host
    patterns with * ? and ! are matched, Match blocks are skipped). None when it sets none or cannot be read."""
    import fnmatch

    host = target.rsplit("@", 1)[-1]
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    applies = True   # lines before the first Host line apply to every host
    for line in lines:
        words = line.split("#")[0].replace("=", " ").split()
        if not words:
            continue
        key = words[0].lower()
        if key == "host":
            pats = words[1:]
            negated = any(fnmatch.fnmatch(host, p[1:]) for p in pats if p.startswith("!"))
            applies = not negated and any(fnmatch.fnmatch(host, p) for p in pats if not p.startswith("!"))
        elif key == "match":
            applies = False
        elif key == "port" and applies and len(words) > 1:
            try:
                return int(words[1])
            except ValueError:
                return None
    return None


def configured_port(target: str) -> int:
    """The port ssh connects to for ``target`` when the app gives none: ``ssh -G``'s when ssh is there (the
    truth), else the ssh_config file's Port for that host, else 22."""
    resolved = ssh_resolved(target)
    if resolved and resolved.get("port", "").isdigit():
        return int(resolved["port"])
    return _config_port(target, ssh_config_path()) or 22


def ssh_aliases(path: str | Path | None = None) -> list[str]:
    """The concrete ``Host`` names of an ssh_config (patterns with ``*``/``?``/``!`` left out), in file
    order; [] when the file is missing or unreadable."""
    path = Path(path) if path is not None else ssh_config_path()
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    out: list[str] = []
    for line in text.splitlines():
        m = re.match(r"\s*Host\s+(.+)", line, flags=re.IGNORECASE)
        if not m:
            continue
        for name in m.group(1).split("#")[0].split():
            if not any(c in name for c in "*?!") and name not in out:
                out.append(name)
    return out


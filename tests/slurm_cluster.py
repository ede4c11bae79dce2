"""A real single-node SLURM cluster on this machine for tests/test_remote_slurm.py.

:func:`start_cluster` writes, in a temporary folder: a munge key (``munged`` with its own socket), a
``slurm.conf`` (cluster ``explorertest``, this machine as controller and only node at 127.0.0.1, free ports,
proctrack/linuxproc, task/none, select/cons_tres, no accounting: ``sacct`` says so and the app reads
states with squeue / scontrol), and starts ``munged -F``, ``slurmctld -D`` and ``slurmd -D`` as the user
running the tests (root: slurmd runs jobs as their submitter). ``$SLURM_CONF`` names the file, so the
system's SLURM set-up (if any) is untouched. :meth:`SlurmCluster.stop` cancels every job and stops the
three daemons.

The "login node" Python is a wrapper around the test sshd's remote Python that exports ``SLURM_CONF``
(an ssh session has a clean environment): the app's host-side commands and the jobs they submit find
this cluster.

Raises :class:`SlurmUnavailable` (the test module turns it into a loud skip) when a program is missing
or the node does not come up.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import stat
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

PROGRAMS = {"munged": "/usr/sbin/munged", "slurmctld": "/usr/sbin/slurmctld", "slurmd": "/usr/sbin/slurmd"}
START_TIMEOUT = 30.0
PARTITION = "debug"


class SlurmUnavailable(RuntimeError):
    """SLURM (or munge) is missing or did not start; the message says why."""


@dataclass
class SlurmCluster:
    """A running test cluster."""

    root: Path
    conf: Path
    procs: list[subprocess.Popen] = field(default_factory=list)

    @property
    def env(self) -> dict:
        return dict(os.environ, SLURM_CONF=str(self.conf))

    def run(self, *argv: str, timeout: float = 30.0) -> subprocess.CompletedProcess:
        """A SLURM command (squeue, scontrol, ...) against this cluster."""
        return subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout, env=self.env,
                              stdin=subprocess.DEVNULL)

    def logs(self) -> str:
        out = []
        for name in ("slurmctld.log", "slurmd.log"):
            try:
                out.append(f"{name}: " + " | ".join((self.root / name).read_text(errors="replace").splitlines()[-5:]))
            except OSError:
                pass
        return "; ".join(out)

    def step_daemons(self) -> list[int]:
        """The pids of this cluster's ``slurmstepd`` processes (they carry its SLURM_CONF in their environment)."""
        out = []
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit():
                continue
            try:
                if not (proc / "cmdline").read_bytes().startswith(b"slurmstepd"):
                    continue
                env = (proc / "environ").read_bytes().split(b"\0")
            except OSError:
                continue
            if f"SLURM_CONF={self.conf}".encode() in env:
                out.append(int(proc.name))
        return out

    def stop(self) -> None:
        """Cancel every job and let the steps end (at most 15 s), SIGTERM the daemons (SIGKILL after 5 s),
        then SIGKILL any of this cluster's slurmstepd still there (one whose slurmd is gone waits forever)."""
        if shutil.which("scancel"):
            try:
                self.run("scancel", "--full", "--user", str(os.getuid()), timeout=10)
                deadline = time.monotonic() + 15
                while self.run("squeue", "-h", timeout=10).stdout.strip() and time.monotonic() < deadline:
                    time.sleep(0.2)
            except (OSError, subprocess.SubprocessError):
                pass
        for proc in reversed(self.procs):
            if proc.poll() is None:
                proc.terminate()
        for proc in reversed(self.procs):
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        for pid in self.step_daemons():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def missing_programs() -> list[str]:
    """The programs a test cluster needs that are not installed (Debian: slurm-wlm munge)."""
    out = [name for name, path in PROGRAMS.items() if not Path(path).exists()]
    out += [name for name in ("sbatch", "squeue", "scontrol", "scancel", "sinfo") if shutil.which(name) is None]
    return out


def start_cluster(root: Path) -> SlurmCluster:
    """Start munged, slurmctld and slurmd under ``root`` (a fresh temporary folder); waits until the node
    is idle (at most START_TIMEOUT seconds)."""
    missing = missing_programs()
    if missing:
        raise SlurmUnavailable(f"not installed: {', '.join(missing)} (Debian: apt-get install slurm-wlm munge; "
                               ".ci/run does)")
    if os.geteuid() != 0:
        raise SlurmUnavailable("slurmd must run as root to start jobs (the tests run as another user)")
    root.mkdir(parents=True, exist_ok=True)
    for sub in ("munge", "state", "spool"):
        (root / sub).mkdir()
    (root / "munge").chmod(0o711)
    key = root / "munge" / "munge.key"
    key.write_bytes(os.urandom(1024))
    key.chmod(stat.S_IRUSR)
    sock = root / "munge" / "munge.sock"
    host = socket.gethostname().split(".")[0]
    conf = root / "slurm.conf"
    conf.write_text("\n".join([
        "ClusterName=explorertest", f"SlurmctldHost={host}(127.0.0.1)",
        f"SlurmctldPort={_free_port()}", f"SlurmdPort={_free_port()}",
        "SlurmUser=root", "SlurmdUser=root", "AuthType=auth/munge", f"AuthInfo=socket={sock}", "CredType=cred/munge",
        f"StateSaveLocation={root / 'state'}", f"SlurmdSpoolDir={root / 'spool'}",
        f"SlurmctldPidFile={root / 'slurmctld.pid'}", f"SlurmdPidFile={root / 'slurmd.pid'}",
        f"SlurmctldLogFile={root / 'slurmctld.log'}", f"SlurmdLogFile={root / 'slurmd.log'}",
        "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none", "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_Core", "JobAcctGatherType=jobacct_gather/none",
        "AccountingStorageType=accounting_storage/none", "JobCompType=jobcomp/none", "MpiDefault=none",
        "SlurmdParameters=config_overrides",   # 4 CPUs on a 2-core machine: the test jobs never queue for a core
        "ReturnToService=2", "SchedulerType=sched/backfill", "MinJobAge=600", "KillWait=5", "InactiveLimit=0",
        f"NodeName={host} NodeAddr=127.0.0.1 CPUs=4 RealMemory=1000 State=UNKNOWN",
        f"PartitionName={PARTITION} Nodes={host} Default=YES MaxTime=INFINITE State=UP", "",
    ]), encoding="utf-8")
    cluster = SlurmCluster(root=root, conf=conf)
    env = cluster.env

    def start(argv, name):
        out = open(root / f"{name}.out", "wb")
        cluster.procs.append(subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                              env=env))

    start([PROGRAMS["munged"], "-F", "-f", f"--key-file={key}", f"--socket={sock}",
           f"--pid-file={root / 'munge' / 'munged.pid'}", f"--seed-file={root / 'munge' / 'seed'}",
           f"--log-file={root / 'munge' / 'munged.log'}"], "munged")
    deadline = time.monotonic() + START_TIMEOUT
    while not sock.exists():
        if cluster.procs[0].poll() is not None or time.monotonic() > deadline:
            cluster.stop()
            raise SlurmUnavailable("munged did not start: " + (root / "munged.out").read_text(errors="replace")[-300:])
        time.sleep(0.05)
    start([PROGRAMS["slurmctld"], "-D", "-f", str(conf)], "slurmctld")
    start([PROGRAMS["slurmd"], "-D", "-f", str(conf), "-N", host], "slurmd")
    while True:   # the daemons run; the node must report to the controller
        res = cluster.run("sinfo", "-h", "-o", "%T", timeout=10)
        if res.returncode == 0 and res.stdout.strip() in ("idle", "mixed", "allocated"):
            return cluster
        dead = [p.args[0] for p in cluster.procs if p.poll() is not None]
        if dead or time.monotonic() > deadline:
            cluster.stop()
            why = f"{', '.join(dead)} exited" if dead else f"the node is {res.stdout.strip() or res.stderr.strip()!r}"
            raise SlurmUnavailable(f"the test cluster did not come up ({why}): {cluster.logs()}")
        time.sleep(0.2)


def login_python(root: Path, remote_python: Path, conf: Path, broken_on_nodes: bool = False) -> Path:
    """A wrapper of the test sshd's remote Python that exports SLURM_CONF; ``broken_on_nodes``: inside a
    job it fails at once, as a venv missing on the compute nodes does."""
    path = root / ("python-broken-on-nodes" if broken_on_nodes else "python-login")
    fail = ('if [ -n "${SLURM_JOB_ID:-}" ]; then echo "python: the venv is not mounted on this node" >&2; exit 1; fi\n'
            if broken_on_nodes else "")
    path.write_text(f"#!/bin/sh\nexport SLURM_CONF='{conf}'\n{fail}exec '{remote_python}' \"$@\"\n", encoding="utf-8")
    path.chmod(0o755)
    return path

"""Runs on a SLURM cluster: the host is a login node, the worker runs as a batch job (Qt-free).

A host with :class:`~explorer.core.remote.hosts.SlurmOptions` gets its runs through ``sbatch``:

1. :func:`sbatch_script` writes the job script the user sees before submitting: the partition,
   ``--gres=gpu:N``, ``--time``, the extra lines, output and error files in the remote run folder, and the
   same worker command as a direct launch (``python -m explorer train --config ...``, or ``accelerate
   launch --multi_gpu`` for several GPUs). Paths are relative to the remote runs folder, where the job is
   submitted. Several runs of one group (restarts, a grid, cross-validation folds) become ONE job array
   (``--array=0-N``): task ``i`` trains the ``i``-th run, chosen by ``$SLURM_ARRAY_TASK_ID``.
2. :func:`submit` copies the configs' data once (by content hash, as a direct launch does), then the host
   (``hostside submit``) writes each run's config, creates the run folders and runs
   ``sbatch --parsable``; each run folder gets ``slurm.json`` (its job id).
3. The job's state (PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT, ...) is read on the host
   with ``squeue``, then ``scontrol show job`` (jobs the controller still remembers), then ``sacct``
   (where accounting is configured): :func:`query_job`. :class:`SlurmFollower` reports it until the job
   runs, then follows ``events.jsonl`` exactly as for a direct run; ``hostside tail`` keeps waiting while
   the job is queued and, when the job ended without a terminal event, appends ``cancelled`` (scancel
   before the worker started) or ``failed`` with the tail of the job's error file.
4. Cancel is ``scancel JOB`` (``hostside cancel`` sees ``slurm.json``); Stop early is the usual STOP file.

Tested against a real single-node SLURM (Debian's slurm-wlm: slurmctld + slurmd + munged started by
tests/test_remote_slurm.py) through the test sshd; GPUs (``--gres``) are not tested there (no GPU).
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from explorer.core.errors import RemoteHostError
from explorer.core.remote import ssh
from explorer.core.remote.follow import RemoteFollower
from explorer.core.remote.hosts import Host, RemoteRun, save_remote_run
from explorer.core.remote.worker_command import worker_argv

JOB_FILE = "slurm.json"        # in a run folder: {"job", "job_id", "array_index", "error_files"}
SLURM_DIR = ".slurm"           # in the remote runs folder: the job scripts, an array's first output
OUT_FILE, ERR_FILE = "slurm.out", "slurm.err"   # in the run folder: the job's stdout / stderr
QUERY_TIMEOUT = 30.0           # seconds for one squeue / scontrol / sacct call on the host
POLL_SECONDS = 5.0             # how often SlurmFollower asks for the state of a queued job
# Job states after which the job will not run again (squeue / scontrol / sacct spell them alike).
ENDED_STATES = frozenset({"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED",
                          "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE", "SPECIAL_EXIT", "REVOKED", "UNKNOWN"})
NOT_ANSWERED = "NOT_ANSWERED"   # the controller did not answer: neither waiting nor ended, ask again
WAITING_STATES = frozenset({"PENDING", "CONFIGURING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED", "RESV_DEL_HOLD",
                            "SUSPENDED", "STOPPED"})   # the worker is not running (yet / now)


@dataclass
class JobState:
    """One SLURM job's state as the host's tools reported it.

    Attributes:
        job: the job id as the app names it (``"123"``, ``"123_0"`` for an array task).
        state: the base state in capitals (``"CANCELLED by 0"`` -> ``"CANCELLED"``); ``"UNKNOWN"`` when no
            tool knows the job any more.
        reason: squeue's / scontrol's reason (``"Priority"``, ``"Resources"``, ``"NonZeroExitCode"``; "" for none).
        exit_code: ``"code:signal"`` when known ("" otherwise).
        source: which tool answered (squeue, scontrol, sacct, or "" for none).
    """

    job: str
    state: str
    reason: str = ""
    exit_code: str = ""
    source: str = ""

    @property
    def ended(self) -> bool:
        """The job will not run (again): the worker is gone or never started."""
        return self.state in ENDED_STATES

    @property
    def waiting(self) -> bool:
        """Queued (or held): the worker has not started."""
        return self.state in WAITING_STATES

    def label(self) -> str:
        """``"PENDING: Priority"``, ``"RUNNING"``, ``"FAILED (exit 1:0)"``: for the run's status."""
        text = self.state
        if self.reason and self.reason not in ("None", "(null)"):
            text += f": {self.reason}"
        if self.exit_code and self.exit_code != "0:0" and self.ended:
            text += f" (exit {self.exit_code})"
        return text

    def to_dict(self) -> dict:
        """As JSON-able dict (``hostside slurm-state`` prints it)."""
        return {"job": self.job, "state": self.state, "reason": self.reason, "exit_code": self.exit_code,
                "source": self.source}

    @classmethod
    def from_dict(cls, data: dict) -> "JobState":
        """The inverse of :meth:`to_dict` (missing keys: an UNKNOWN state)."""
        return cls(job=str(data.get("job", "")), state=str(data.get("state", "UNKNOWN")),
                   reason=str(data.get("reason", "")), exit_code=str(data.get("exit_code", "")),
                   source=str(data.get("source", "")))


# ---- the job script --------------------------------------------------------------------------
def job_name(run_ids: list[str]) -> str:
    """``bert-explorer-<first run id>`` with characters sbatch and file names accept."""
    return "bert-explorer-" + re.sub(r"[^A-Za-z0-9_.-]", "_", run_ids[0])[:80]


def worker_command(python: str, config: str, gpus: int) -> str:
    """The worker's command line in the job script, ``config`` already a shell word; the same argv as a direct
    launch (explorer.core.remote.worker_command.worker_argv)."""
    marker = "@CONFIG@"
    return " ".join(config if a == marker else ssh.quote(a) for a in worker_argv(python, marker, gpus))


def sbatch_script(host: Host, run_ids: list[str]) -> str:
    """The job script that trains ``run_ids`` on ``host`` (its ``slurm`` options); one run is one job,
    several are one job array (task ``i`` -> ``run_ids[i]``). See the module docstring.

    Raises:
        ValueError: no run ids, or the host is not a SLURM login node.
    """
    if not run_ids:
        raise ValueError("sbatch_script needs at least one run id")
    opts = host.slurm
    if opts is None:
        raise ValueError(f"{host.name} is not marked as a SLURM login node")
    n = len(run_ids)
    name = job_name(run_ids)
    what = f"{n} runs as one job array" if n > 1 else f"run {run_ids[0]}"
    lines = ["#!/bin/bash", f"# bert-explorer: {what} (submitted in the runs folder on {host.name})",
             f"#SBATCH --job-name={name}"]
    if opts.partition.strip():
        lines.append(f"#SBATCH --partition={opts.partition.strip()}")
    if int(opts.gpus) > 0:
        lines.append(f"#SBATCH --gres=gpu:{int(opts.gpus)}")
    if opts.time_limit.strip():
        lines.append(f"#SBATCH --time={opts.time_limit.strip()}")
    if n > 1:
        lines += [f"#SBATCH --array=0-{n - 1}",
                  f"#SBATCH --output={SLURM_DIR}/%x-%A_%a.out", f"#SBATCH --error={SLURM_DIR}/%x-%A_%a.err"]
    else:
        lines += [f"#SBATCH --output={run_ids[0]}/{OUT_FILE}", f"#SBATCH --error={run_ids[0]}/{ERR_FILE}"]
    lines += opts.extra_lines()
    lines += ["", "set -eu", "export PYTHONUNBUFFERED=1"]
    if n > 1:
        lines += ["RUN_IDS=(" + " ".join(shlex.quote(r) for r in run_ids) + ")",
                  'RUN_ID="${RUN_IDS[$SLURM_ARRAY_TASK_ID]}"',
                  f'exec >"$RUN_ID/{OUT_FILE}" 2>"$RUN_ID/{ERR_FILE}"   # this task\'s output in its run folder']
    else:
        lines.append(f"RUN_ID={shlex.quote(run_ids[0])}")
    lines.append("exec " + worker_command(host.python, '".launch/$RUN_ID.json"', int(opts.gpus)))
    return "\n".join(lines) + "\n"


# ---- reading the tools' output (pure) --------------------------------------------------------
def _base_state(text: str) -> str:
    word = (text.strip().split() or ["UNKNOWN"])[0].rstrip("+").upper()
    return word or "UNKNOWN"


def _expand_indices(text: str) -> list[str]:
    """``"0-2,5"`` (optionally ``%limit``, in brackets) -> ["0", "1", "2", "5"]; [] for nothing numeric."""
    text = text.strip("[]").split("%")[0]
    out: list[str] = []
    for part in text.split(","):
        m = re.fullmatch(r"(\d+)(?:-(\d+))?(?::\d+)?", part.strip())
        if m:
            lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
            out += [str(i) for i in range(lo, min(hi, lo + 10_000) + 1)]
    return out


def _job_ids(job: str) -> list[str]:
    """``"12_[0-2]"`` -> 12_0, 12_1, 12_2; ``"12_3"`` and ``"12"`` stay."""
    m = re.fullmatch(r"(\d+)_\[(.+)\]", job)
    if m:
        return [f"{m.group(1)}_{i}" for i in _expand_indices(m.group(2))]
    return [job]


def parse_squeue(text: str) -> dict[str, JobState]:
    """``squeue -h -r -o '%i|%T|%r'`` lines -> job id -> JobState (a pending array range is expanded)."""
    out = {}
    for line in text.splitlines():
        parts = line.strip().split("|")
        if len(parts) < 2 or not parts[0]:
            continue
        for job in _job_ids(parts[0].strip()):
            out[job] = JobState(job=job, state=_base_state(parts[1]), reason=parts[2].strip() if len(parts) > 2 else "",
                                source="squeue")
    return out


def parse_scontrol(text: str) -> dict[str, JobState]:
    """``scontrol show job -o`` (one job a line, ``Key=Value`` fields) -> job id -> JobState; an array
    task is named ``ArrayJobId_ArrayTaskId``."""
    out = {}
    for line in text.splitlines():
        fields = dict(re.findall(r"(\w+)=(\S*)", line))
        if "JobId" not in fields or "JobState" not in fields:
            continue
        array, task = fields.get("ArrayJobId", ""), fields.get("ArrayTaskId", "")
        jobs = [f"{array}_{i}" for i in _expand_indices(task)] if array and task else [fields["JobId"]]
        for job in jobs:
            out[job] = JobState(job=job, state=_base_state(fields["JobState"]), reason=fields.get("Reason", ""),
                                exit_code=fields.get("ExitCode", ""), source="scontrol")
    return out


def parse_sacct(text: str) -> dict[str, JobState]:
    """``sacct -n -X -P -o JobID,State,ExitCode,Reason`` lines -> job id -> JobState."""
    out = {}
    for line in text.splitlines():
        parts = line.strip().split("|")
        if len(parts) < 2 or not parts[0] or "." in parts[0]:
            continue
        for job in _job_ids(parts[0]):
            out[job] = JobState(job=job, state=_base_state(parts[1]), exit_code=parts[2] if len(parts) > 2 else "",
                                reason=parts[3] if len(parts) > 3 else "", source="sacct")
    return out


def sbatch_refusal(stderr: str) -> str:
    """sbatch's own message, without its ``sbatch: error:`` prefixes (the most telling line last)."""
    lines = [re.sub(r"^sbatch:\s*(error:\s*)?", "", ln.strip()) for ln in stderr.splitlines() if ln.strip()]
    lines = [ln for ln in lines if ln]
    if not lines:
        return "sbatch exited without saying why"
    # "invalid partition specified: gpu" + "Batch job submission failed: Invalid partition name specified"
    return "; ".join(dict.fromkeys(lines[-2:]))


# ---- on the host (hostside) ------------------------------------------------------------------
def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise SystemExit(f"there is no {name} on this host's PATH (is it a SLURM login node? a non-interactive "
                         f"ssh session may lack the PATH that 'module load slurm' gives)")
    return path


def _call(argv: list[str], cwd: str | Path | None = None) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=QUERY_TIMEOUT, stdin=subprocess.DEVNULL,
                              cwd=cwd)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return subprocess.CompletedProcess(argv, 1, "", str(exc))


def _not_found(res: subprocess.CompletedProcess) -> bool:
    """The tool answered and does not know the job (squeue / scontrol: "Invalid job id specified")."""
    return res.returncode == 0 or "Invalid job id" in (res.stderr or "")


def query_job(job: str) -> JobState:
    """The job's state on this host (a login node): squeue, then scontrol (finished jobs the controller
    still remembers), then sacct (accounting); ``UNKNOWN`` (ended) when every tool answered without
    knowing it; ``NOT_ANSWERED`` (neither waiting nor ended: ask again later) when the controller did
    not answer, with the tool's message as the reason."""
    base = job.split("_")[0]
    res = _call([_tool("squeue"), "-h", "-r", "-j", base, "-o", "%i|%T|%r"])
    if not _not_found(res):
        last = (res.stderr or res.stdout).strip().splitlines()[-1:] or ["no answer"]
        return JobState(job=job, state=NOT_ANSWERED, reason=last[0][:200], source="squeue")
    found = parse_squeue(res.stdout) if res.returncode == 0 else {}
    if job in found:
        return found[job]
    if shutil.which("scontrol"):
        res = _call(["scontrol", "show", "job", "-o", job])
        found = parse_scontrol(res.stdout) if res.returncode == 0 else {}
        if job in found:
            return found[job]
    if shutil.which("sacct"):   # without slurmdbd: "Slurm accounting storage is disabled", exit 1
        res = _call(["sacct", "-n", "-X", "-P", "-j", job, "-o", "JobID,State,ExitCode,Reason"])
        found = parse_sacct(res.stdout) if res.returncode == 0 else {}
        if job in found:
            return found[job]
    return JobState(job=job, state="UNKNOWN")


def job_of(run_dir: str | Path) -> dict | None:
    """The run folder's ``slurm.json`` ({"job", "job_id", "array_index", "error_files"}), None for a run
    not submitted to SLURM."""
    try:
        data = json.loads((Path(run_dir) / JOB_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("job") else None


def submit_here(root: str, request: dict) -> dict:
    """``hostside submit``: write the configs (``.launch/RUN_ID.json``) and the script (``.slurm/``), make
    the run folders, ``sbatch --parsable`` in ``root``, record ``slurm.json`` in each run folder.

    ``request``: {"script": text, "configs": [config dicts with run_id]}. Returns {"job_id", "runs":
    [{"run_id", "run_dir", "job"}]}.

    Raises:
        SystemExit: one sentence (sbatch missing, a run folder already there, sbatch's refusal); nothing is
            left behind then.
    """
    sbatch = _tool("sbatch")
    root_path = Path(root)
    configs = list(request["configs"])
    run_ids = [str(c["run_id"]) for c in configs]
    for rid in run_ids:
        if (root_path / rid).exists():
            raise SystemExit(f"a run named {rid} already exists in {root_path} on this host; choose another Run name")
    (root_path / ".launch").mkdir(parents=True, exist_ok=True)
    (root_path / SLURM_DIR).mkdir(parents=True, exist_ok=True)
    script = root_path / SLURM_DIR / f"{job_name(run_ids)}.sbatch"
    script.write_text(str(request["script"]), encoding="utf-8")
    for cfg in configs:
        (root_path / ".launch" / f"{cfg['run_id']}.json").write_text(json.dumps(cfg, indent=2), encoding="utf-8")
        (root_path / str(cfg["run_id"])).mkdir(parents=True)
    res = _call([sbatch, "--parsable", str(script)], cwd=root_path)   # the job runs in the runs folder
    job_id = res.stdout.strip().split(";")[0].strip() if res.returncode == 0 else ""
    if not job_id.isdigit():
        for rid in run_ids:
            shutil.rmtree(root_path / rid, ignore_errors=True)
        raise SystemExit(f"sbatch refused the job: {sbatch_refusal(res.stderr or res.stdout)}")
    runs = []
    array = len(run_ids) > 1
    for i, rid in enumerate(run_ids):
        job = f"{job_id}_{i}" if array else job_id
        errors = [f"{rid}/{ERR_FILE}"] + ([f"{SLURM_DIR}/{job_name(run_ids)}-{job_id}_{i}.err"] if array else [])
        (root_path / rid / JOB_FILE).write_text(json.dumps({"job": job, "job_id": job_id,
                                                            "array_index": i if array else None,
                                                            "error_files": errors}), encoding="utf-8")
        runs.append({"run_id": rid, "run_dir": str(root_path / rid), "job": job})
    return {"job_id": job_id, "runs": runs, "script": str(script)}


def error_tail(run_dir: str | Path, limit: int = 4000) -> str:
    """The end of the job's error file(s) (``slurm.err`` in the run folder, an array task's first error
    file under ``.slurm/``), "" when empty or missing."""
    run_dir = Path(run_dir)
    info = job_of(run_dir) or {}
    text = ""
    for rel in info.get("error_files") or [ERR_FILE]:
        path = run_dir.parent / rel if "/" in rel else run_dir / rel
        try:
            text += path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
    return text[-limit:]


def ended_without_result(run_dir: str | Path, state: JobState) -> tuple[str, dict]:
    """The terminal event to append for a job that ended without one: (event type, fields).

    ``cancelled`` for a job cancelled before its worker reported (scancel of a queued job); ``failed`` with
    the state and the last line of the job's error file otherwise (the traceback field holds its tail)."""
    if state.state == "CANCELLED":
        return "cancelled", {"source": "slurm"}
    tail = error_tail(run_dir)
    last = next((ln.strip() for ln in reversed(tail.splitlines()) if ln.strip()), "")
    why = f"SLURM job {state.job} ended {state.label()} before the worker reported a result"
    why += f"; its error file ends: {last[:300]}" if last else "; its error file is empty"
    return "failed", {"error": why, "traceback": tail, "source": "slurm"}


def cancel_here(run_dir: str | Path) -> str:
    """``scancel`` the run's job (one line for the status bar).

    Raises:
        SystemExit: scancel is missing or refused (its message).
    """
    info = job_of(run_dir)
    if info is None:
        raise SystemExit(f"{Path(run_dir).name} was not submitted to SLURM")
    res = _call([_tool("scancel"), str(info["job"])])
    if res.returncode != 0:
        raise SystemExit(f"scancel {info['job']} failed: {(res.stderr or res.stdout).strip()[:300]}")
    return f"{Path(run_dir).name}: asked SLURM to cancel job {info['job']} (scancel)"


# ---- on the laptop ---------------------------------------------------------------------------
def submit(host: Host, configs: list, script: str, local_dirs: list[str | Path]) -> list[RemoteRun]:
    """Submit ``configs`` (TrainConfigs, run ids chosen) to the SLURM login node ``host`` as ``script``
    (:func:`sbatch_script` of their run ids, as the user saw it): their data copied once by content hash,
    then ``hostside submit``. Returns one RemoteRun per config (``slurm_job`` set), in order; each
    ``local_dirs[i]`` gets its config.json.

    Raises:
        RemoteHostError: the host cannot be used, sbatch is missing, sbatch refused the job (its message),
            or the disk is full: one sentence.
    """
    from explorer.core.remote.launch import HOSTSIDE, local_files, prepare_root, remote_config, upload_files
    from explorer.core.runs.layout import config_file

    if host.slurm is None:
        raise RemoteHostError(f"{host.name} is not marked as a SLURM login node (Hosts dialog)")
    if len(local_dirs) != len(configs) or not configs:
        raise ValueError("submit needs one local folder per config, and at least one config")
    root = prepare_root(host)
    remote = []
    for cfg in configs:
        upload = upload_files(host, root, local_files(cfg))
        remote.append(remote_config(cfg, upload.remote_paths, root).to_dict())
    out = ssh.run_checked(host, [host.python, "-m", HOSTSIDE, "submit", root],
                          stdin=json.dumps({"script": script, "configs": remote}).encode())
    try:
        answer = json.loads(out.decode().strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        raise RemoteHostError(f"{host.name}: the submission answered {out[:200]!r}") from None
    runs = []
    for cfg, local, info in zip(configs, local_dirs, answer["runs"]):
        local = Path(local)
        local.mkdir(parents=True, exist_ok=True)
        cfg.save(config_file(local))
        run = RemoteRun(run_id=cfg.run_id, host=host, remote_dir=info["run_dir"], local_dir=str(local),
                        slurm_job=info["job"])
        save_remote_run(run)   # the mirror says where it runs: still known as remote after it ended and a restart
        runs.append(run)
    return runs


def job_state(run: RemoteRun, timeout: float = ssh.SSH_TIMEOUT) -> JobState:
    """The state of a submitted run's job, read on its login node (``hostside slurm-state``).

    Raises:
        RemoteHostError: the host cannot be reached (one sentence).
    """
    from explorer.core.remote.launch import HOSTSIDE

    host = run.host
    out = ssh.run_checked(host, [host.python, "-m", HOSTSIDE, "slurm-state", run.slurm_job], timeout=timeout)
    try:
        return JobState.from_dict(json.loads(out.decode().strip().splitlines()[-1]))
    except (json.JSONDecodeError, IndexError, AttributeError):
        raise RemoteHostError(f"{host.name}: the SLURM state query answered {out[:200]!r}") from None


class SlurmFollower(RemoteFollower):
    """A :class:`RemoteFollower` for a SLURM job: while the job waits in the queue it reports the job's
    state every ``poll_seconds`` through ``on_job(JobState)`` (on the follower's thread); once the job runs
    (or ended) it follows events.jsonl as for a direct run (``hostside tail`` knows the job and ends the
    file with ``cancelled`` / ``failed`` when the job ended without a result)."""

    def __init__(self, run: RemoteRun, on_job: Callable[[JobState], None] | None = None,
                 poll_seconds: float = POLL_SECONDS, **kwargs):
        super().__init__(run, **kwargs)
        self.on_job = on_job or (lambda state: None)
        self.poll_seconds = poll_seconds
        self.last_state: JobState | None = None
        self.started = threading.Event()   # the job left the queue (running or ended)

    def _loop(self) -> None:
        while not self._stop.is_set() and self.offset == 0:
            try:
                state = job_state(self.run)
            except RemoteHostError as exc:
                self.on_status(f"cannot read the state of SLURM job {self.run.slurm_job}: {exc}")
                self._stop.wait(self.poll_seconds)
                continue
            if self.last_state is None or state.label() != self.last_state.label():
                self.last_state = state
                self.on_job(state)
            if not state.waiting and state.state != NOT_ANSWERED:
                break
            self._stop.wait(self.poll_seconds)
        self.started.set()
        super()._loop()


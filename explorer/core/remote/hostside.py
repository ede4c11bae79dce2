"""The commands the app runs on a remote host: ``python -m explorer.core.remote.hostside COMMAND ...``.

- ``prepare RUNS_DIR``: create the runs folder and its ``.blobs`` store; print {"root", "free_bytes"}.
- ``have BLOBS HASH/NAME...``: print those already in the content-addressed store, one a line (the same
  bytes under another name are linked to NAME on the host, not sent again).
- ``launch ROOT RUN_ID GPUS`` (the run config as JSON on stdin): write ``ROOT/.launch/RUN_ID.json``, start
  the worker in its own session (setsid; stdin /dev/null, output to ``RUN_DIR/worker.log``, so it survives
  the SSH connection and the laptop), record its pid in ``worker.pid``; print {"run_dir", "pid", "argv"}.
- ``tail RUN_DIR OFFSET``: write ``events.jsonl`` from byte OFFSET on stdout as it grows (the app's
  follower); when the worker is gone and everything is written, exit 0, after appending a ``failed`` event
  (``source: "host"``) for a worker that died without a terminal event. Exits when the SSH session is gone.
- ``ls FOLDER``: the files under FOLDER as JSON [[relative path, bytes, mtime ns], ...] (fetching a checkpoint).
- ``stop RUN_DIR`` / ``cancel RUN_DIR``: the same requests as for a local run (the STOP file; SIGTERM to
  the worker, or ``scancel`` for a run submitted to SLURM), printed as one line.
- ``submit ROOT`` ({"script", "configs"} as JSON on stdin): a SLURM submission (explorer.core.remote.slurm):
  configs, run folders, ``sbatch --parsable``; print {"job_id", "runs"}.
- ``slurm-state JOB``: the job's state (squeue, scontrol, sacct) as JSON.

For a run folder with ``slurm.json`` (a SLURM job), ``tail`` waits while the job is queued or running
(not while a pid file says so: the worker runs on a compute node), and a job that ended without a terminal
event gets ``cancelled`` (scancel) or ``failed`` with the tail of its error file.

Runs on the host with the host's Python; imports nothing heavy (no torch).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

from explorer.core.protocol.events import TERMINAL_EVENTS, make_event, read_events
from explorer.core.remote.worker_command import worker_argv
from explorer.core.runs.appending import append_event
from explorer.core.runs.layout import events_file, pid_file
from explorer.core.runs.workers import request_stop, terminate_worker, worker_alive

POLL_SECONDS = 0.2
SLURM_POLL_SECONDS = 2.0   # tail: how often a SLURM job's state is asked (squeue) while no event arrives
CHUNK = 1 << 16


def _prepare(runs_dir: str) -> dict:
    root = Path(runs_dir).expanduser().resolve()
    (root / ".blobs").mkdir(parents=True, exist_ok=True)
    (root / ".launch").mkdir(parents=True, exist_ok=True)
    return {"root": str(root), "free_bytes": shutil.disk_usage(root).free}


def _launch(root: str, run_id: str, gpus: int, config_text: str) -> dict:
    root_path = Path(root)
    run_dir = root_path / run_id
    if run_dir.exists():   # never append a new run to another one's events
        raise SystemExit(f"a run named {run_id} already exists in {root_path} on this host; choose another Run name")
    config_path = root_path / ".launch" / f"{run_id}.json"
    config_path.parent.mkdir(parents=True, exist_ok=True)
    config_path.write_text(config_text, encoding="utf-8")
    run_dir.mkdir(parents=True, exist_ok=True)
    argv = worker_argv(sys.executable, str(config_path), gpus)
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    with open(run_dir / "worker.log", "ab") as log:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True, env=env, cwd=str(root_path))
    pid_file(run_dir).write_text(json.dumps({"pid": proc.pid, "host": socket.gethostname(), "time": time.time()}),
                                 encoding="utf-8")
    return {"run_dir": str(run_dir), "pid": proc.pid, "argv": argv}


def _have(blobs: Path, key: str) -> bool:
    """Is ``HASH/NAME`` in the store? The same bytes stored under another name are linked (a file) or
    symlinked (a folder) to NAME here, so a renamed copy of a file is not sent again."""
    digest, _, name = key.partition("/")
    target = blobs / digest / name
    if target.exists():
        return True
    others = [p for p in (blobs / digest).iterdir() if not p.name.endswith(".part")] if (blobs / digest).is_dir() else []
    if not others:
        return False
    try:
        if others[0].is_dir():
            target.symlink_to(others[0].name, target_is_directory=True)
        else:
            os.link(others[0], target)
    except OSError:
        shutil.copy2(others[0], target) if others[0].is_file() else shutil.copytree(others[0], target)
    return True


def _has_terminal(path: Path) -> bool:
    try:
        events = read_events(path)
    except OSError:
        return False
    return bool(events) and events[-1].get("event") in TERMINAL_EVENTS


def _record_death(run_dir: Path) -> None:
    """The worker is gone without a terminal event: append ``failed`` with the end of worker.log."""
    try:
        tail = (run_dir / "worker.log").read_text(encoding="utf-8", errors="replace")[-8000:]
    except OSError:
        tail = ""
    last = next((ln.strip() for ln in reversed(tail.splitlines()) if ln.strip()), "")
    why = "the worker on the host stopped without reporting a result" + (f": {last[:300]}" if last else "")
    append_event(run_dir, make_event("failed", run_dir.name, error=why, traceback=tail, source="host"))


class _SlurmLiveness:
    """``alive()`` for a SLURM run: the job is not ended (its state asked at most every SLURM_POLL_SECONDS)."""

    def __init__(self, job: str):
        self.job = job
        self.state = None
        self.asked = 0.0

    def alive(self) -> bool:
        from explorer.core.remote import slurm

        if self.state is None or time.monotonic() - self.asked >= SLURM_POLL_SECONDS:
            self.state, self.asked = slurm.query_job(self.job), time.monotonic()
        return not self.state.ended


def _record_slurm_end(run_dir: Path, state) -> None:
    from explorer.core.remote import slurm

    if not run_dir.is_dir():   # the run was deleted on the host: nothing to end
        return

    kind, fields = slurm.ended_without_result(run_dir, state)
    append_event(run_dir, make_event(kind, run_dir.name, **fields))


def _tail(run_dir: str, offset: int, out=None) -> int:
    run_dir = Path(run_dir)
    out = out or sys.stdout.buffer
    path = events_file(run_dir)
    parent = os.getppid()
    recorded = False
    from explorer.core.remote.slurm import job_of

    job = job_of(run_dir)
    slurm_job = _SlurmLiveness(str(job["job"])) if job else None
    while True:
        data = b""
        if path.exists():
            with open(path, "rb") as fh:
                fh.seek(offset)
                data = fh.read(CHUNK)
        if data:
            try:
                out.write(data)
                out.flush()
            except (BrokenPipeError, OSError):
                return 1
            offset += len(data)
            continue
        if os.getppid() != parent:   # the SSH session ended (its process is gone)
            return 1
        if not (slurm_job.alive() if slurm_job is not None else worker_alive(run_dir)):
            if path.exists() and path.stat().st_size > offset:
                continue
            if not recorded and not _has_terminal(path):
                recorded = True
                if slurm_job is not None:
                    _record_slurm_end(run_dir, slurm_job.state)
                else:
                    _record_death(run_dir)
                continue
            return 0
        time.sleep(POLL_SECONDS)


def main(argv: list[str] | None = None) -> int:
    """Run one host-side command (see the module docstring); returns the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    cmd, rest = args[0], args[1:]
    if cmd == "prepare":
        print(json.dumps(_prepare(rest[0])))
    elif cmd == "have":
        for key in rest[1:]:
            if _have(Path(rest[0]), key):
                print(key)
    elif cmd == "launch":
        print(json.dumps(_launch(rest[0], rest[1], int(rest[2]), sys.stdin.read())))
    elif cmd == "tail":
        return _tail(rest[0], int(rest[1]))
    elif cmd == "stop":
        run_dir = Path(rest[0])
        if not worker_alive(run_dir):
            print(f"{run_dir.name}: no live worker to stop")
            return 0
        request_stop(run_dir)
        print(f"Asked {run_dir.name} to stop early (it saves and evaluates first)")
    elif cmd == "ls":
        folder = Path(rest[0])
        files = sorted(p for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else []
        stats = [(p, p.stat()) for p in files]   # [relative path, bytes, mtime in ns] (fetch.py reuses a copy by them)
        print(json.dumps([[p.relative_to(folder).as_posix(), st.st_size, st.st_mtime_ns] for p, st in stats]))
    elif cmd == "cancel":
        from explorer.core.remote import slurm

        print(slurm.cancel_here(rest[0]) if slurm.job_of(rest[0]) else terminate_worker(rest[0]))
    elif cmd == "submit":
        from explorer.core.remote import slurm

        print(json.dumps(slurm.submit_here(rest[0], json.loads(sys.stdin.read()))))
    elif cmd == "slurm-state":
        from explorer.core.remote import slurm

        print(json.dumps(slurm.query_job(rest[0]).to_dict()))
    else:
        print(f"unknown command {cmd!r}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

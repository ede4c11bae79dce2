"""A run's worker process, seen from its folder: the pid file, "stop early" (the STOP file) and SIGTERM for a
worker this process did not start (Qt-free, torch-free).

``worker.pid`` holds {"pid", "host", "time"} while the worker lives (:func:`write_pid_file`, removed on exit);
:func:`worker_alive` reads it (another host's worker is assumed alive). explorer.core.runs.status turns "no
terminal event and a live worker" into ``running``.
"""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path

from explorer.core.runs.layout import pid_file, stop_file


def write_pid_file(run_dir: str | Path) -> Path:
    """Record this process as the run's worker (removed by :func:`remove_pid_file` on exit)."""
    path = pid_file(run_dir)
    path.write_text(json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "time": time.time()}),
                    encoding="utf-8")
    return path


def remove_pid_file(run_dir: str | Path) -> None:
    try:
        path = pid_file(run_dir)
        info = json.loads(path.read_text(encoding="utf-8"))
        if info.get("pid") == os.getpid():
            path.unlink()
    except (OSError, json.JSONDecodeError):
        pass


def worker_alive(run_dir: str | Path) -> bool:
    """Is the run's worker process still alive? (pid file present, same host, process exists and
    is not a zombie). On another host the answer is "assume yes"."""
    try:
        info = json.loads(pid_file(run_dir).read_text(encoding="utf-8"))
        pid = int(info["pid"])
    except (OSError, ValueError, KeyError, TypeError, json.JSONDecodeError):
        return False
    if info.get("host") and info.get("host") != socket.gethostname():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    if stat.exists():
        try:
            if stat.read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return False
        except (OSError, IndexError):
            pass
    return True


def request_stop(run_dir: str | Path) -> Path:
    """Create the STOP file: the worker finishes its step, evaluates, saves and finishes."""
    path = stop_file(run_dir)
    path.write_text(str(time.time()), encoding="utf-8")
    return path


def worker_pid(run_dir: str | Path) -> int | None:
    """The pid in ``<run_dir>/worker.pid`` when that worker is alive (this host), else None."""
    if not worker_alive(run_dir):
        return None
    try:
        return int(json.loads(pid_file(run_dir).read_text(encoding="utf-8"))["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def terminate_worker(run_dir: str | Path) -> str:
    """SIGTERM the worker of a run this process did not start (the worker then logs ``cancelled``).

    Returns a one-line message for the status bar (what was done, or why nothing was).
    """
    import signal

    pid = worker_pid(run_dir)
    if pid is None:
        return f"{Path(run_dir).name}: no live worker process to cancel"
    try:
        os.kill(pid, signal.SIGTERM)
    except OSError as exc:
        return f"{Path(run_dir).name}: cannot signal worker {pid}: {exc}"
    return f"{Path(run_dir).name}: cancel sent to worker {pid}"

"""Shared by the time-to-quality scripts (scripts/ner_time_to_f1.py, scripts/stsb_time_to_pearson.py): their
common flags, the time-budgeted ``bert-explorer train`` command, and a loop that follows the run's events and
prints one line per evaluation.

The run is the real CLI in a child process with ``--time-budget-minutes`` (the learning rate warms up and
decays to 0 over the budget; evaluations are not counted in it). The load average is printed at the start
and the end: the figures depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("EXPLORER_REAL_DATA", ROOT.parent / "shared" / "data"))
sys.path.insert(0, str(ROOT))


def budget_parser(description: str) -> argparse.ArgumentParser:
    """The flags every time-to-quality script takes (--out, --minutes, --model, the recipe, caps)."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--out", required=True, help="folder for the run")
    p.add_argument("--minutes", type=float, default=10.0, help="training time budget (minutes)")
    p.add_argument("--model", default="bundled:minilm")
    p.add_argument("--epochs", type=float, default=3.0, help="at most this many epochs (the budget usually ends first)")
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--learning-rate", type=float, default=1e-4)
    p.add_argument("--max-seq-length", type=int, default=128)
    p.add_argument("--eval-every", type=int, default=0, help="steps between dev evaluations (0 = start and end)")
    p.add_argument("--train-cap", type=int, default=0)
    p.add_argument("--dev-cap", type=int, default=0)
    from explorer.benchmarks import add_results_argument

    add_results_argument(p)
    return p


def budget_command(a: argparse.Namespace, task: str, train: Path, dev: Path | None, run_id: str,
                   extra: tuple[str, ...] = ()) -> list[str]:
    """``python -m explorer train`` for ``task`` with the parsed flags ``a`` and a time budget; ``dev`` None
    leaves the dev set to ``extra`` (e.g. ``--dev-fraction 0.1``, a split held out of ``train``)."""
    dev_flags = ["--dev", str(dev)] if dev is not None else []
    return [sys.executable, "-m", "explorer", "train", "--model", a.model, "--task", task,
            "--train", str(train), *dev_flags, "--time-budget-minutes", str(a.minutes), "--epochs", str(a.epochs),
            "--batch-size", str(a.batch_size), "--learning-rate", str(a.learning_rate),
            "--max-seq-length", str(a.max_seq_length), "--eval-every", str(a.eval_every),
            "--train-cap", str(a.train_cap), "--dev-cap", str(a.dev_cap),
            "--output-dir", str(Path(a.out) / "runs"), "--run-name", run_id, "--save-every", "0", *extra]


def cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system, the process and its waited-for children) that process ``pid`` has used,
    from /proc/PID/stat (Linux); NaN where that cannot be read."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")   # utime stime cutime cstime
    except (OSError, ValueError, IndexError):
        return float("nan")


def follow_run(cmd: list[str], header: str, line_of: Callable[[dict], str], nice: int = 0,
               results: tuple[argparse.Namespace, str] | None = None) -> int:
    """Run ``cmd``, print ``header``, then ``"<training minutes>  <CPU minutes>  <step>  " + line_of(metrics)``
    for every eval event as it comes (and a failed event's message); returns the run's exit code.

    Training minutes are the run's own clock (``train_seconds``: wall time spent training, evaluations not
    counted); CPU minutes are what the training process has used so far, evaluations included (the
    machine-load-independent measure; on an idle 2-core machine about twice the wall minutes). The training
    worker would lower its own priority to niceness 10 for the GUI's sake; here it runs at ``nice``
    (``EXPLORER_WORKER_NICE``), so that other work on the machine does not starve the measurement.
    ``results`` = (the parsed flags, the benchmark's name): with ``--results``, the last evaluation's metrics,
    its training and CPU minutes are recorded (explorer.benchmarks)."""
    from explorer.benchmarks import load_average, record

    load0 = load_average()
    last: dict = {}
    print(f"load average at start: {os.getloadavg()}", flush=True)
    print("command:", " ".join(cmd), flush=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               EXPLORER_WORKER_NICE=str(nice))
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    train_seconds = 0.0
    print("minutes  CPU-min  step  " + header, flush=True)
    for line in proc.stdout:
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        if ev.get("event") == "step":
            train_seconds = float(ev.get("train_seconds") or train_seconds)
        elif ev.get("event") == "eval":
            cpu = cpu_seconds(proc.pid) / 60
            last = {"training minutes": train_seconds / 60, "CPU minutes": cpu, "step": ev["step"],
                    **{f"dev {k}": v for k, v in ev["metrics"].items() if isinstance(v, (int, float))}}
            print(f"{train_seconds / 60:7.2f}  {cpu:7.2f}  {ev['step']:4d}  {line_of(ev['metrics'])}  "
                  f"load {os.getloadavg()[0]:.1f}", flush=True)
        elif ev.get("event") == "failed":
            print("failed:", ev.get("error"), flush=True)
    rc = proc.wait()
    print(f"load average at end: {os.getloadavg()}")
    if results is not None and last:
        args, name = results
        record(args, name, case=f"{args.minutes:g}-minute budget, {args.model}", figures=last, load_start=load0)
    return rc

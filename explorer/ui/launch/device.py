"""What device and precision a run would use, found in a child process (the GUI never imports torch).

``DeviceProbe.start()`` runs a few lines of Python with QProcess: the device accelerate would pick
(CUDA, MPS or CPU), its name, and what mixed precision "auto" resolves to there
(explorer.core.training.precision.resolve_mixed_precision). ``detected(dict)`` arrives when done.
"""

from __future__ import annotations

import json
import os
import sys

from PySide6.QtCore import QObject, QProcess, QProcessEnvironment, Signal

from explorer.paths import REPO_ROOT

PROBE_CODE = r"""
import json
out = {"device": "CPU", "name": "", "precision": "fp32", "count": 0}
try:
    import torch
    from explorer.core.training.precision import resolve_mixed_precision
    if torch.cuda.is_available():
        out.update(device="CUDA", name=torch.cuda.get_device_name(0), count=torch.cuda.device_count())
        dev = "cuda"
    elif getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        out.update(device="MPS")
        dev = "mps"
    else:
        from explorer.core.threads import INSPECTOR, TRAINING, choose_here
        train, inspect = choose_here(TRAINING), choose_here(INSPECTOR)
        out.update(count=train.threads, inspect_threads=inspect.threads, threads_why=train.describe(),
                   threads_said=train.summary())
        dev = "cpu"
    mp = resolve_mixed_precision("auto", dev)
    out["precision"] = {"no": "fp32"}.get(mp, mp)
except Exception as exc:
    out["error"] = f"{type(exc).__name__}: {exc}"
print(json.dumps(out))
"""


def describe(info: dict) -> str:
    """'CUDA (NVIDIA H200) · bf16' / 'CPU (2 threads) · fp32' for the status bar; on a CPU the torch threads a
    fine-tune gets now, with why where they are fewer than the cores ('CPU (1 of 2 threads: the machine is busy,
    load 1.6) · fp32': ThreadChoice.summary), and, where fewer, the inspector's: 'CPU (2 threads, inspector 1) ·
    fp32' (explorer.core.threads, from the cores and the load when the app started; each run chooses again at its
    start)."""
    dev = info.get("device", "CPU")
    count = info.get("count")
    said = info.get("threads_said") or (f"{count} thread{'s' if count != 1 else ''}" if count else "")
    extra = info.get("name") or (said if dev == "CPU" else "")
    inspect = info.get("inspect_threads")
    if dev == "CPU" and extra and inspect and inspect != info.get("count"):
        extra = f"{extra}, inspector {inspect}"
    if dev == "CUDA" and int(info.get("count", 1) or 1) > 1:
        extra = f"{extra} ×{info['count']}"
    text = f"{dev} ({extra})" if extra else dev
    return f"{text} · {info.get('precision', 'fp32')}"


def describe_run(device: str, mixed_precision: str) -> str:
    """The ``started`` event's device ("cpu", "cuda:0") and precision -> 'CUDA:0 · bf16'."""
    mp = {"no": "fp32", "": "fp32"}.get(mixed_precision, mixed_precision)
    return f"{device.upper() if device else '?'} · {mp}"


class DeviceProbe(QObject):
    detected = Signal(dict)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.info: dict | None = None
        self.proc = QProcess(self)
        env = QProcessEnvironment.systemEnvironment()
        env.insert("PYTHONPATH", os.pathsep.join(p for p in (str(REPO_ROOT), env.value("PYTHONPATH")) if p))
        self.proc.setProcessEnvironment(env)
        self.proc.finished.connect(self._finished)

    def start(self) -> None:
        self.proc.start(sys.executable, ["-c", PROBE_CODE])

    def _finished(self, *_args) -> None:
        text = bytes(self.proc.readAllStandardOutput().data()).decode("utf-8", "replace")
        lines = [ln for ln in text.splitlines() if ln.startswith("{")]
        try:
            self.info = json.loads(lines[-1]) if lines else {"device": "CPU", "error": "no answer"}
        except json.JSONDecodeError:
            self.info = {"device": "CPU", "error": "unreadable answer"}
        self.detected.emit(self.info)

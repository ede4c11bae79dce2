"""scripts/time_to_f1.py end to end on a tiny model: the fast-CPU command line it builds, snapshots
taken at each save with their step and windows, and each snapshot scored on the dev questions."""

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from helpers import save_tiny_model, write_tiny_squad

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import time_to_f1  # noqa: E402


def test_command_is_the_fast_cpu_preset_with_overrides(tmp_path):
    args = SimpleNamespace(model="bundled:minilm", train="t.json", batch_size=None, learning_rate=2e-4,
                           max_seq_length=None, doc_stride=None, warmup_ratio=None, epochs=None, max_steps=None,
                           time_budget_minutes=None, save_every=50, extra=[])
    cmd = time_to_f1.train_command(args, tmp_path / "runs" / "r")
    flags = {cmd[i]: cmd[i + 1] for i in range(len(cmd) - 1)}
    assert cmd[1:4] == ["-m", "explorer", "train"]
    assert flags["--time-budget-minutes"] == "30.0" and flags["--batch-size"] == "16"
    assert flags["--max-seq-length"] == "256" and flags["--learning-rate"] == "0.0002"   # the override
    assert flags["--save-every"] == "50" and flags["--run-name"] == "r"


def test_snapshots_and_curve(tmp_path):
    model = save_tiny_model(tmp_path / "qa", "qa")
    data = write_tiny_squad(tmp_path / "sq1.json", v2=False, repeat=2)
    out = tmp_path / "out"
    res = subprocess.run([sys.executable, str(ROOT / "scripts" / "time_to_f1.py"), "--out", str(out),
                          "--model", str(model), "--train", str(data), "--dev", str(data), "--minutes", "0",
                          "--max-steps", "4", "--save-every", "2", "--batch-size", "4", "--dev-questions", "5",
                          "--max-seq-length", "128", "--doc-stride", "32"],
                         capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    curve = json.loads((out / "curve.json").read_text())
    assert [r["step"] for r in curve] == [2, 4]
    assert [r["windows"] for r in curve] == [8, 16]
    assert all(0 <= r["f1"] <= 100 and 0 <= r["exact_match"] <= r["f1"] + 1e-9 for r in curve)
    assert curve[0]["seconds"] <= curve[1]["seconds"]
    assert (out / "snapshots" / "step-4" / "model.safetensors").is_file()

"""scripts/fault_injection.py, small: one SIGKILL of a real worker on a tiny model, then --resume.

The full run (20 kills, disk full) is by hand: ``python scripts/fault_injection.py`` (docs/reliability.md);
the disk-full save itself is tested in process by tests/test_bad_inputs.py (disk-full-on-checkpoint-save).
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
sys.path.insert(0, str(SCRIPTS))

import fault_injection  # noqa: E402


def test_one_kill_loses_nothing(tmp_path):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = fault_injection.main(["--kills", "1", "--enospc", "0", "--max-steps", "12", "--seed", "1",
                                   "--workdir", str(tmp_path)])
    text = out.getvalue()
    assert rc == 0, text
    assert "1/1 runs: events parse, checkpoints whole" in text, text
    counts = json.loads(text.strip().splitlines()[-1])
    assert counts["kills_ok"] == 1 and counts["kills"] == 1
    assert tmp_path.is_dir() and not any(tmp_path.iterdir())   # its runs and model removed, the folder kept


def test_checks_catch_a_half_written_checkpoint_and_a_bad_line(tmp_path):
    """The checks themselves can fail: a torn middle line and a checkpoint folder without its info file."""
    run_dir = tmp_path / "run"
    (run_dir / "checkpoints" / "last").mkdir(parents=True)
    (run_dir / "events.jsonl").write_text('{"event":"step","run_id":"r","step":1,"loss":1.0}\nnot json\n'
                                          '{"event":"step","run_id":"r","step":2,"loss":1.0}\n')
    injection = fault_injection.Injection("t")
    assert fault_injection.check_events(run_dir, injection) == 2
    fault_injection.check_checkpoints(run_dir, injection)
    assert any("line 2 does not parse" in p for p in injection.problems)
    assert any("checkpoints/last is half-written" in p for p in injection.problems)


def test_checkpoint_files_are_fsynced_before_the_swap(tmp_path, monkeypatch):
    """Power-cut safety: every file of the new checkpoint is fsynced while it is still the temp folder."""
    import os

    from helpers import tiny_loaded_model

    from explorer.core.training import checkpoints

    synced: list[str] = []
    real_fsync = os.fsync

    def spy(fd):
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        return real_fsync(fd)
    monkeypatch.setattr(checkpoints.os, "fsync", spy)
    loaded = tiny_loaded_model("qa")
    final = checkpoints.save_checkpoint(tmp_path, loaded.model, loaded.tokenizer, step=1, training_state={"step": 1})
    names = {p.name for p in final.iterdir()}
    in_temp = {Path(s).name for s in synced if "/.tmp-last-" in s}
    assert names <= in_temp and {"model.safetensors", "training_state.pt", "checkpoint.json"} <= names
    assert str(tmp_path / "checkpoints") in synced          # the folder holding the renamed checkpoint


def test_seed_ranges():
    assert fault_injection.parse_seeds("0-4") == [0, 1, 2, 3, 4]
    assert fault_injection.parse_seeds("0,3,7-8") == [0, 3, 7, 8]
    import pytest

    with pytest.raises(ValueError):
        fault_injection.parse_seeds("4-0")


def test_no_complete_checkpoint_makes_the_refusal_the_pass(tmp_path):
    """Killed while the first checkpoint was written (only its temp folder left): --resume must refuse, and
    that refusal passes the injection; a checkpoint the events reported but that is gone fails it."""
    from explorer.core.specs.train_config import TrainConfig

    run_dir = tmp_path / "run"
    (run_dir / "checkpoints" / ".tmp-last-123").mkdir(parents=True)
    TrainConfig(train="x.json", run_id="run", output_dir=str(tmp_path)).save(run_dir / "config.json")
    (run_dir / "events.jsonl").write_text('{"event":"started","run_id":"run","time":1}\n'
                                          '{"event":"step","run_id":"run","time":2,"step":1,"loss":1.0}\n')
    injection = fault_injection.Injection("t")
    fault_injection.check_resume(run_dir, {1: 1.0}, 12, injection)
    assert injection.ok and injection.refused and "while writing the first checkpoint" in injection.detail, injection
    with open(run_dir / "events.jsonl", "a") as fh:
        fh.write('{"event":"checkpoint","run_id":"run","time":3,"step":5,"path":"x","kind":"last"}\n')
    lost = fault_injection.Injection("t2")
    fault_injection.check_resume(run_dir, {1: 1.0}, 12, lost)
    assert any("reported written but is not there" in p for p in lost.problems), lost


def test_a_kill_aimed_at_a_save_finds_the_checkpoint_writers_temp_folder(tmp_path):
    """kill_in_save looks in <run>/checkpoints (it once looked in the run folder itself, so every kill aimed at
    a save missed and the worker ran to its end): a `.tmp-last-*` folder there is seen and the process killed."""
    import random
    import signal
    import subprocess

    run_dir = tmp_path / "run"
    (run_dir / "checkpoints" / ".tmp-last-123").mkdir(parents=True)
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(8)"])
    try:
        assert fault_injection.kill_in_save(proc, run_dir, "writing", 1, random.Random(0)) is True
        assert proc.returncode == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

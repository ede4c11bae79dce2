"""Other tools' run folders are a table of readers (explorer/core/runs/readers/): a new kind of run folder is one
RunReader registered by its module, and listing, reading, the Runs list's status, the "not a run folder" message
and the store's re-read of a changed folder all follow it with no other edit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.core.runs import reading
from explorer.core.runs.readers import base
from explorer.core.runs.readers.base import ForeignRun, RunReader, register_reader, run_readers

MARK = "metrics.log"   # the made-up tool's file: one "step loss" pair per line


def _read(path: Path, now: float) -> ForeignRun:
    events = [{"event": "started", "run_id": path.name, "time": now, "config": {"model": "tool-model", "task": ""}}]
    for line in (path / MARK).read_text(encoding="utf-8").splitlines():
        step, loss = line.split()
        events.append({"event": "step", "run_id": path.name, "time": now, "step": int(step), "loss": float(loss)})
    return ForeignRun(kind="Line Logger", run_id=path.name, status="stopped", config=events[0]["config"],
                      events=events, notes=[f"Line Logger run: {MARK}"])


def _line_logger(tmp_path: Path, monkeypatch) -> RunReader:
    monkeypatch.setattr(base, "_READERS", dict(base._READERS))   # the table as it was after this test
    return register_reader(RunReader(kind="Line Logger", looks_for=f"no {MARK}",
                                     recognises=lambda p: (Path(p) / MARK).is_file(), read=_read,
                                     recheck=lambda p, status, now: status == "stopped"))


def _tool_run(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / MARK).write_text("1 2.5\n2 2.0\n3 1.25\n", encoding="utf-8")
    return folder


def test_the_built_in_readers_are_table_entries():
    kinds = [r.kind for r in run_readers()]
    assert kinds == ["HF Trainer", "TensorBoard"]     # folders are matched in this order
    assert reading.run_kinds() == ("BERT Explorer", "HF Trainer", "TensorBoard")


def test_a_new_kind_of_run_folder_is_one_registered_reader(tmp_path, monkeypatch):
    _line_logger(tmp_path, monkeypatch)
    run = _tool_run(tmp_path / "runs" / "tool-run")
    ours = tmp_path / "runs" / "ours"
    ours.mkdir()
    (ours / "config.json").write_text(json.dumps({"model": "bundled:minilm", "task": "pair"}))

    assert reading.run_kind(run) == "Line Logger" and reading.run_kind(ours) == "BERT Explorer"
    assert [p.name for p in reading.run_dirs(tmp_path / "runs")] == ["ours", "tool-run"]
    rec = reading.load_run(run)
    assert rec.kind == "Line Logger" and rec.status == "stopped" and rec.config["model"] == "tool-model"
    assert [e["loss"] for e in rec.steps()] == [2.5, 2.0, 1.25] and rec.summary.steps == 3
    assert rec.notes == ["Line Logger run: metrics.log"]
    summaries = {s.run_id: s for s in reading.list_runs(tmp_path / "runs")}
    assert summaries["tool-run"].kind == "Line Logger" and summaries["tool-run"].status == "stopped"

    other = tmp_path / "elsewhere"
    other.mkdir()
    with pytest.raises(ValueError, match=r"not a run folder: .*checkpoint-N\), no metrics.log and no TensorBoard"):
        reading.load_run(other)


def test_the_store_asks_a_reader_whether_a_listed_run_changed(tmp_path, monkeypatch):
    from explorer.core.runs.store import RunStore

    _line_logger(tmp_path, monkeypatch)
    run = _tool_run(tmp_path / "tool-run")
    rec = reading.load_run(run)
    store = RunStore(tmp_path)
    store.add(rec.summary)
    assert store.trainer_folders_to_recheck() == [rec.summary]
    rec.summary.status = "finished"
    assert store.trainer_folders_to_recheck() == []

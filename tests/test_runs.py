"""Runs on disk: status from events + worker liveness, listing, loading, run ids, checkpoints."""

import json
import os
import subprocess
import sys

import pytest

from explorer.core.runs import layout, naming, reading, workers
from explorer.core.protocol.events import EventWriter


def _make_run(folder, run_id, events, config=None, pid=None):
    d = folder / run_id
    d.mkdir(parents=True)
    (d / "config.json").write_text(json.dumps(config or {"run_id": run_id, "model": "m", "task": "squad_v2"}))
    w = EventWriter(run_id, path=d / "events.jsonl")
    for name, fields in events:
        w.emit(name, **fields)
    w.close()
    if pid is not None:
        (d / layout.PID_FILE).write_text(json.dumps({"pid": pid, "host": __import__("socket").gethostname()}))
    return d


def _dead_pid():
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_status_is_derived_from_events_and_liveness(tmp_path):
    start = ("started", {"steps_total": 10})
    ev = lambda s, f1: ("eval", {"step": s, "metrics": {"f1": f1, "exact_match": f1 - 5}})  # noqa: E731
    _make_run(tmp_path, "a-finished", [start, ev(0, 10.0), ("step", {"step": 5}), ev(5, 40.0), ev(10, 30.0),
                                       ("finished", {"metrics": {"f1": 30.0}, "stopped_early": True})])
    _make_run(tmp_path, "b-failed", [("failed", {"error": "train file x does not exist"})])
    _make_run(tmp_path, "c-cancelled", [start, ("cancelled", {"step": 3})])
    _make_run(tmp_path, "d-running", [start, ("step", {"step": 1})], pid=os.getpid())
    _make_run(tmp_path, "e-crashed", [start, ("step", {"step": 2})], pid=_dead_pid())
    _make_run(tmp_path, "f-resumed", [start, ("cancelled", {"step": 3}), start, ("step", {"step": 4})],
              pid=_dead_pid())
    (tmp_path / ".launch").mkdir()                      # GUI's launch configs: not a run
    (tmp_path / ".launch" / "config.json").write_text("{}")
    (tmp_path / "not-a-run").mkdir()
    found = {s.run_id: s for s in reading.list_runs(tmp_path)}
    assert set(found) == {"a-finished", "b-failed", "c-cancelled", "d-running", "e-crashed", "f-resumed"}
    assert {k: s.status for k, s in found.items()} == {
        "a-finished": "stopped", "b-failed": "failed", "c-cancelled": "cancelled", "d-running": "running",
        "e-crashed": "crashed", "f-resumed": "crashed"}
    a = found["a-finished"]
    assert (a.metric_name, a.metric_value, a.steps, a.steps_total, a.stopped_early) == ("f1", 40.0, 10, 10, True)
    assert found["b-failed"].error == "train file x does not exist"
    assert reading.derive_status([], alive=True) == "running"
    assert reading.list_runs(tmp_path / "nowhere") == []


def test_load_run_gives_config_events_checkpoints_and_final_metrics(tmp_path):
    d = _make_run(tmp_path, "r1", [("started", {"steps_total": 2}), ("eval", {"step": 2, "metrics": {"accuracy": 0.8}}),
                                   ("finished", {"metrics": {"accuracy": 0.8}})],
                  config={"run_id": "r1", "model": "m", "task": "single"})
    ck = d / "checkpoints" / "last"
    ck.mkdir(parents=True)
    (ck / "checkpoint.json").write_text(json.dumps({"step": 2}))
    (d / "checkpoints" / ".tmp-best-123").mkdir()      # a torn temp folder is not a checkpoint
    rec = reading.load_run(d)
    assert rec.run_id == "r1" and rec.config["task"] == "single" and len(rec.events) == 3
    assert rec.checkpoints == {"last": str(ck)} and rec.final_metrics == {"accuracy": 0.8}
    assert rec.status == "finished" and rec.summary.metric_name == "accuracy" and len(rec.evals()) == 1
    with pytest.raises(ValueError, match="not a run folder"):
        reading.load_run(tmp_path / "empty-dir-that-is-missing")


def test_a_resumed_runs_orphaned_steps_are_dropped_and_the_notes_say_so(tmp_path):
    """A run that crashed at step 15 after its last checkpoint at 10 and was resumed logs 11.. again: the crashed
    worker's steps 11..15 and its evaluation at 12 are dropped (as TensorBoard purges a restarted writer's), so
    each step reads once with the resumed value, the best is not an orphaned evaluation's, and the notes say so."""
    from explorer.core.runs.export import export_runs_csv

    first = [("started", {"config": {}})] + [("step", {"step": s, "loss": 10.0 - 0.5 * s}) for s in range(1, 16)]
    first.insert(13, ("eval", {"step": 12, "metrics": {"f1": 99.0}}))
    first.insert(11, ("eval", {"step": 10, "metrics": {"f1": 50.0}}))
    resumed = [("started", {"config": {}, "resumed_from_step": 10})]
    resumed += [("step", {"step": s, "loss": 100.0 + s}) for s in range(11, 13)]
    resumed.append(("eval", {"step": 12, "metrics": {"f1": 60.0}}))
    d = _make_run(tmp_path, "r", first + resumed)
    rec = reading.load_run(d)
    losses = [(e["step"], e["loss"]) for e in rec.events if e["event"] == "step"]
    assert losses == [(s, 10.0 - 0.5 * s) for s in range(1, 11)] + [(11, 111.0), (12, 112.0)]
    assert [(e["step"], e["metrics"]["f1"]) for e in rec.events if e["event"] == "eval"] == [(10, 50.0), (12, 60.0)]
    assert rec.summary.metric_value == 60.0 and rec.summary.steps == 12
    assert ("restart found: resumed from step 10 after the log reached step 15; 6 event(s) of steps 11..15 logged "
            "before the resume were dropped") in rec.notes[0]
    out = tmp_path / "all.csv"
    export_runs_csv([d], out)
    rows = [line.split(",") for line in out.read_text(encoding="utf-8").splitlines()[1:]]
    assert sorted(int(r[1]) for r in rows if r[2] in ("loss", "train/loss")) == list(range(1, 13))
    from explorer.core.studies.capsule import _evaluations
    from explorer.core.specs.best import best_of_events

    evals = _evaluations([json.loads(line) for line in (d / "events.jsonl").read_text(encoding="utf-8").splitlines()])
    assert best_of_events(evals, "f1") == (12, 60.0)     # the capsule's best: never the orphaned 99.0


def test_run_ids_pid_file_and_stop_file(tmp_path):
    rid = naming.new_run_id("bundled:minilm", "squad_v1", tmp_path, now=0)
    assert rid.endswith("-minilm-squad_v1") and "/" not in rid
    (tmp_path / rid).mkdir()
    assert naming.new_run_id("bundled:minilm", "squad_v1", tmp_path, now=0) == rid + "-2"
    assert naming.new_run_id("org/some model", "single", now=0).endswith("-some-model-single")
    workers.write_pid_file(tmp_path)
    assert workers.worker_alive(tmp_path)
    workers.remove_pid_file(tmp_path)
    assert not workers.worker_alive(tmp_path) and not (tmp_path / layout.PID_FILE).exists()
    assert workers.request_stop(tmp_path).name == "STOP"


def test_checkpoints_are_atomic_and_best_is_a_snapshot(tmp_path):
    from explorer.core.models.loading import load_model
    from helpers import tiny_loaded_model
    from explorer.core.training.checkpoints import (CheckpointError, checkpoint_dir, copy_checkpoint,
                                                    load_training_state, save_checkpoint)

    with pytest.raises(CheckpointError, match="no checkpoint to resume from"):
        load_training_state(tmp_path)
    loaded = tiny_loaded_model("qa")
    save_checkpoint(tmp_path, loaded.model, loaded.tokenizer, step=3, metrics={"f1": 1.0},
                    training_state={"step": 3}, kind="last")
    best = copy_checkpoint(tmp_path, "last", "best", metrics={"f1": 1.0})
    # overwrite last with a different model: best keeps the old weights
    other = tiny_loaded_model("qa", seed=1)
    save_checkpoint(tmp_path, other.model, other.tokenizer, step=5, training_state={"step": 5}, kind="last")
    assert sorted(p.name for p in (tmp_path / "checkpoints").iterdir()) == ["best", "last"]
    folder, state = load_training_state(tmp_path)
    assert state["step"] == 5 and folder == checkpoint_dir(tmp_path, "last")
    assert json.loads((best / "checkpoint.json").read_text())["step"] == 3
    a = load_model(str(best), "qa").model.state_dict()
    ref = loaded.model.state_dict()
    assert all((a[k] == ref[k]).all() for k in ref)
    assert (best / "model.safetensors").exists()
    # a crash between the two renames leaves last.old, which is still found
    os.replace(tmp_path / "checkpoints" / "last", tmp_path / "checkpoints" / "last.old")
    assert checkpoint_dir(tmp_path, "last").name == "last.old"


def test_runs_command_without_a_folder_lists_the_apps_runs_folder_and_names_it(tmp_path, monkeypatch, capsys):
    """`bert-explorer runs` alone lists the folder the desktop app opens: the one its settings remember, else
    $EXPLORER_RUNS_DIR; stderr names it."""
    from explorer.cli import main

    default, remembered = tmp_path / "default runs", tmp_path / "chosen, in the app"
    _make_run(default, "in-default", [("started", {"steps_total": 2})])
    _make_run(remembered, "in-chosen", [("started", {"steps_total": 2})])
    monkeypatch.setenv("EXPLORER_RUNS_DIR", str(default))
    monkeypatch.setenv("EXPLORER_SETTINGS", str(tmp_path / "none.ini"))
    assert main(["runs"]) == 0
    out, err = capsys.readouterr()
    assert "in-default" in out and str(default) in err
    settings = tmp_path / "settings.ini"
    settings.write_text(f'[General]\nruns_dir="{remembered}"\n', encoding="utf-8")   # as Qt writes a path with a comma
    monkeypatch.setenv("EXPLORER_SETTINGS", str(settings))
    assert main(["runs"]) == 0
    out, err = capsys.readouterr()
    assert "in-chosen" in out and "in-default" not in out and str(remembered) in err
    monkeypatch.setenv("EXPLORER_RUNS_DIR", str(tmp_path / "never made"))
    monkeypatch.setenv("EXPLORER_SETTINGS", str(tmp_path / "none.ini"))
    assert main(["runs"]) == 2
    assert "no runs folder yet" in capsys.readouterr().err

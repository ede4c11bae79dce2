"""The run store (explorer/core/runs/): one layout, one run id rule, one discovery, appends only through
EventWriter, and the observable RunStore with its callback emitters (explorer/core/evented.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from explorer.core.runs import appending, layout, naming, reading, store as run_store
from explorer.core.evented import EmitterGroup, EventEmitter
from explorer.core.protocol.events import EventWriter, make_event, read_events

REPO = Path(__file__).resolve().parent.parent


def write_run(folder: Path, run_id: str, *, steps: int = 6, finished: bool = True, model="bundled:minilm") -> Path:
    run = folder / run_id
    run.mkdir(parents=True)
    (run / "config.json").write_text(json.dumps({"run_id": run_id, "model": model, "task": "squad_v2"}))
    ev = [{"event": "started", "run_id": run_id, "time": 100.0, "steps_total": steps}]
    for i in range(1, steps + 1):
        ev.append({"event": "step", "run_id": run_id, "time": 100.0 + i, "step": i, "loss": 3.0 - 0.1 * i})
        if i % 3 == 0:
            ev.append({"event": "eval", "run_id": run_id, "time": 100.0 + i, "step": i, "metrics": {"best_f1": 10.0 * i}})
    if finished:
        ev.append({"event": "finished", "run_id": run_id, "time": 200.0, "metrics": {}, "seconds": 100.0})
    (run / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in ev))
    return run


# ---- layout -------------------------------------------------------------------------------------
def test_layout_paths_and_checkpoint_to_run_folder(tmp_path):
    run = tmp_path / "r1"
    (run / "checkpoints" / "best").mkdir(parents=True)
    assert layout.config_file(run) == run / "config.json"
    assert layout.events_file(run) == run / "events.jsonl"
    assert layout.stop_file(run) == run / "STOP" and layout.pid_file(run) == run / "worker.pid"
    assert layout.checkpoint_path(run, "best") == run / "checkpoints" / "best"
    assert layout.run_dir_of(run / "checkpoints" / "best") == run
    assert layout.run_dir_of(str(run / "checkpoints" / "last.old") + "/") == run
    assert layout.run_dir_of(run) == run                        # a run folder is its own run
    assert layout.run_dir_of(tmp_path / "saved-model") is None   # a folder saved elsewhere
    assert reading.run_config_of(run / "checkpoints" / "best") == {}   # no config.json
    (run / "config.json").write_text(json.dumps({"model": "bundled:minilm", "task": "pair", "bogus": 1}))
    assert reading.run_config_of(run / "checkpoints" / "best") == {"model": "bundled:minilm", "task": "pair"}


def test_no_module_outside_the_store_rebuilds_the_layout():
    """`.parent.parent` and path joins with "events.jsonl", "checkpoints", "STOP", "worker.pid" live in
    core/runs/layout.py only (a model folder's own config.json is transformers' file, not the run's: not checked)."""
    offenders = []
    pattern = re.compile(r"\.parent\.parent|/ \"(events\.jsonl|checkpoints|STOP|worker\.pid)\"")
    allowed = {"explorer/paths.py", "explorer/core/runs/layout.py"}
    for path in sorted((REPO / "explorer").rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        if rel in allowed:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line):
                offenders.append(f"{rel}:{n}: {line.strip()}")
    assert offenders == []


# ---- the run id rule ----------------------------------------------------------------------------
def test_one_run_id_rule_for_the_worker_and_the_gui(tmp_path):
    pytest.importorskip("PySide6")
    from explorer.core.specs.train_config import TrainConfig
    from explorer.ui.runs.runner import make_run_id

    now = 1_780_000_000.0
    base = naming.new_run_id("google-bert/bert-base-uncased", "pair", now=now)
    assert re.fullmatch(r"\d{8}-\d{6}-bert-base-uncased-pair", base)
    assert naming.new_run_id("bundled:minilm", "pair", now=now, suffix=" lr 3e-5").endswith("-minilm-pair-lr-3e-5")
    assert naming.new_run_id("bundled:minilm", "pair", now=now, taken={naming.new_run_id("bundled:minilm", "pair",
                                                                                      now=now)}).endswith("-2")
    (tmp_path / naming.new_run_id("bundled:minilm", "pair", now=now)).mkdir()
    assert naming.new_run_id("bundled:minilm", "pair", tmp_path, now=now).endswith("-pair-2")
    parent = write_run(tmp_path, "20261130-101500-minilm-squad_v2")
    ckpt = str(parent / "checkpoints" / "best")
    assert naming.model_short_name(ckpt) == "minilm-ft"        # a run's checkpoint is named by its run's model
    cfg = TrainConfig(model=ckpt, task="squad_v2")
    gui = make_run_id(cfg, set(), tmp_path)
    assert gui[16:] == naming.new_run_id(ckpt, "squad_v2", tmp_path)[16:] and "-minilm-ft-squad_v2" in gui


# ---- discovery ----------------------------------------------------------------------------------
def test_discovery_lists_run_folders_and_names_broken_ones(tmp_path, monkeypatch):
    write_run(tmp_path, "b")
    write_run(tmp_path, "a")
    (tmp_path / ".launch").mkdir()
    (tmp_path / ".launch" / "config.json").write_text("{}")
    (tmp_path / "not-a-run").mkdir()
    assert [p.name for p in reading.run_dirs(tmp_path)] == ["a", "b"]
    assert reading.run_dirs(tmp_path / "missing") == []

    def read(path):
        if path.name == "b":
            raise ValueError("boom")
        return reading.load_run(path)

    records, problems = reading.read_runs(tmp_path, read)
    assert [r.run_id for r in records] == ["a"] and problems == [f"{tmp_path / 'b'}: boom"]


def test_the_list_read_keeps_only_the_last_step_and_agrees_with_the_full_read(tmp_path):
    run = write_run(tmp_path, "r", finished=False)
    with open(run / "events.jsonl", "a", encoding="utf-8") as fh:
        fh.write("garbage\n")
    full, quick = reading.load_run(run), reading.load_run(run, steps="last")
    assert len(full.steps()) == 6 and [e["step"] for e in quick.steps()] == [6]
    assert quick.evals() == full.evals() and quick.status == full.status == "crashed"
    for name in ("status", "metric_name", "metric_value", "steps", "steps_total", "duration"):
        assert getattr(quick.summary, name) == getattr(full.summary, name), name
    assert quick.notes == full.notes and "skipped 1 unreadable line" in quick.notes[0]


# ---- appends through EventWriter ----------------------------------------------------------------
def test_append_event_goes_through_the_writer_ends_a_torn_line_and_raises(tmp_path, monkeypatch):
    run = write_run(tmp_path, "r", finished=False)
    with open(run / "events.jsonl", "a", encoding="utf-8") as fh:
        fh.write('{"event": "step", "run_')       # a crash tore the last line
    written = []
    real = EventWriter.write
    monkeypatch.setattr(EventWriter, "write", lambda self, ev: written.append(ev) or real(self, ev))
    ev = appending.append_event(run, make_event("failed", "r", error="died", traceback="", source="gui"))
    assert written == [ev]
    assert read_events(run / "events.jsonl")[-1]["error"] == "died"
    with pytest.raises(OSError, match="cannot append the failed event to .*events.jsonl"):
        appending.append_event(tmp_path / "r" / "config.json", ev)   # a file where the run folder should be


def test_gui_and_worker_records_go_through_the_writer(tmp_path, monkeypatch):
    pytest.importorskip("PySide6")
    from explorer.core.specs.train_config import TrainConfig
    from explorer.ui.runs.runner import record_cancelled_queued
    from explorer.worker import train

    written = []
    real = EventWriter.write
    monkeypatch.setattr(EventWriter, "write", lambda self, ev: written.append(ev["event"]) or real(self, ev))
    cfg = TrainConfig(output_dir=str(tmp_path), run_id="q1")
    assert record_cancelled_queued(cfg) == ""
    assert read_events(tmp_path / "q1" / "events.jsonl")[-1]["queued"] is True
    train._print_failed("w", "window settings do not fit")   # a run refused before its folder: stdout only
    assert written == ["cancelled", "failed"]
    (tmp_path / "blocked").write_text("a file, not a folder")
    problem = record_cancelled_queued(TrainConfig(output_dir=str(tmp_path / "blocked"), run_id="q2"))
    assert problem.startswith("q2: the cancelled queued run is not recorded on disk")   # visible, not swallowed


def test_nothing_appends_to_events_jsonl_by_hand():
    hits = []
    for path in sorted((REPO / "explorer").rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"open\(.*[\"']a[\"']", line) and rel != "explorer/core/protocol/events.py":
                hits.append(f"{rel}:{n}")
    assert hits == []


# ---- the emitter --------------------------------------------------------------------------------
def test_event_emitter_calls_in_order_once_and_lets_errors_through():
    e, seen = EventEmitter("x"), []
    first = e.connect(lambda v: seen.append(("first", v)))
    e.connect(first)                                       # connected once
    e.connect(lambda v: seen.append(("second", v)))
    e.emit(1)
    assert seen == [("first", 1), ("second", 1)] and len(e) == 2
    e.disconnect(first)
    e.emit(2)
    assert seen[-1] == ("second", 2) and len(seen) == 3
    e.connect(lambda v: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        e.emit(3)
    group = EmitterGroup("added", "changed")
    assert group["added"] is group.added
    with pytest.raises(KeyError, match="no event 'nope'; events: added, changed"):
        group["nope"]


# ---- the observable store -----------------------------------------------------------------------
class _State:
    def __init__(self, run_id, status="running", path=None):
        self.run_id, self.status, self.path, self.config = run_id, status, path, {"task": "pair"}


class _Driver:
    def __init__(self):
        self.calls = []

    def stop_early(self, run_id):
        self.calls.append(("stop", run_id))

    def cancel(self, run_id):
        self.calls.append(("cancel", run_id))


def test_store_emits_per_field_events_and_owns_who_drives_a_run(tmp_path):
    store, seen, driver = run_store.RunStore(tmp_path), [], _Driver()
    for name in store.events.names:
        store.events[name].connect(lambda *args, name=name: seen.append((name, *args)))
    live = _State("live", "queued")
    store.add(live, driver=driver)
    assert store.offer(_State("live", "crashed")) is False and store.get("live") is live   # the live state wins
    run_dir = tmp_path / "elsewhere"
    run_dir.mkdir()
    outside = _State("elsewhere", "running", run_dir)
    assert store.offer(outside) is True
    store.changed("live", {"loss"})
    store.ended("live", "finished")
    store.changed("unknown", {"loss"})                      # not listed: nothing
    assert [s.run_id for s in store.tracked()] == ["live", "elsewhere"]
    assert store.running_elsewhere() == [outside] and store.is_driven("live") and not store.is_driven("elsewhere")
    assert store.stop_early("live") == "" and store.cancel("live") == ""
    assert driver.calls == [("stop", "live"), ("cancel", "live")]
    assert store.stop_early("elsewhere").startswith("Asked elsewhere to stop early")
    assert (run_dir / "STOP").is_file()
    assert store.cancel("elsewhere") == "elsewhere: no live worker process to cancel"
    (run_dir / "checkpoints" / "best").mkdir(parents=True)
    assert store.run_of(run_dir / "checkpoints" / "best") is outside
    assert store.config_of(run_dir / "checkpoints" / "best") == {"task": "pair"}
    store.remove("elsewhere")
    store.note("hello")
    assert seen == [("added", live), ("added", outside), ("changed", "live", {"loss"}), ("ended", "live", "finished"),
                    ("removed", "elsewhere"), ("message", "hello")]
    assert "elsewhere" not in store and store.ids() == ["live"]


# ---- the Qt side: the bridge, the Runs dock and Curves follow the store ----------------------------
def test_dock_and_curves_follow_the_store_and_the_bridge_delivers_on_the_gui_thread(qtbot, tmp_path):
    pytest.importorskip("pytestqt")
    import threading

    from PySide6.QtCore import QThread

    from explorer.ui.curves.panel import CurvesPanel
    from explorer.ui.runs.bridge import StoreBridge
    from explorer.ui.runs.dock import RunsPanel
    from explorer.ui.runs.store import load_summary

    store = run_store.RunStore(tmp_path)
    bridge = StoreBridge(store)
    dock, curves = RunsPanel(), CurvesPanel()
    qtbot.addWidget(dock)
    qtbot.addWidget(curves)
    dock.follow(bridge)
    curves.follow(bridge)
    state = load_summary(write_run(tmp_path, "r1"))
    store.offer(state)
    assert dock.all_ids() == ["r1"] and dock.state("r1") is state
    curves.set_runs([state])
    curves._timer.stop()
    curves.model.dirty.clear()
    store.changed("r1", {"loss"})
    assert curves.model.dirty == {"r1": {"loss"}}                # the shown run's curve is due for a redraw
    threads = []
    bridge.changed.connect(lambda *_: threads.append(QThread.currentThread()))
    worker = threading.Thread(target=store.changed, args=("r1", {"lr"}))
    worker.start()
    worker.join()
    qtbot.waitUntil(lambda: len(threads) == 1, timeout=5000)
    assert threads[0] is dock.thread()                      # delivered on the GUI thread
    store.remove("r1")
    assert dock.all_ids() == []


# ---- a run is one folder ---------------------------------------------------------------------------------------------
def test_two_folders_of_one_name_are_two_runs_told_apart_by_their_parent(tmp_path, capsys):
    """An HF Trainer folder hf-output and its TensorBoard export tb/hf-output: opening the export lists it beside
    the Trainer run ("hf-output (tb)"), never in its place; reading either folder again finds its own key."""
    from test_hf_trainer_runs import _trainer_state

    from explorer.cli import main
    from explorer.core.runs.store import RunStore
    from explorer.ui.runs.store import load_run_state

    trainer = tmp_path / "hf-output"
    _trainer_state(trainer, 20, end=True)
    assert main(["export-tensorboard", str(trainer), "--out", str(tmp_path / "tb")]) == 0
    capsys.readouterr()
    store = RunStore()
    removed: list[str] = []
    store.events.removed.connect(removed.append)
    store.offer(load_run_state(trainer))
    store.offer(load_run_state(tmp_path / "tb" / "hf-output"))
    assert sorted(store.ids()) == ["hf-output", "hf-output (tb)"]
    assert Path(store.get("hf-output").path) == trainer and store.get("hf-output").kind != store.get(
        "hf-output (tb)").kind
    again = load_run_state(tmp_path / "tb" / ".." / "tb" / "hf-output")   # the same folder by another spelling
    store.offer(again)
    assert again.run_id == "hf-output (tb)" and len(store.ids()) == 2 and not removed
    assert store.listed_key(trainer) == "hf-output" and store.listed_key(tmp_path / "elsewhere") is None
    store.remove("hf-output (tb)")
    assert store.listed_key(tmp_path / "tb" / "hf-output") is None and store.ids() == ["hf-output"]


def test_a_run_read_crashed_before_any_event_is_rechecked_while_its_folder_is_new(tmp_path):
    """A folder read with a config.json and no event nor live worker reads as crashed, yet its worker may only not
    have recorded itself yet: the store names it for a re-read while its config.json is new, or once its folder is
    gone; an old one, one with events and a run driven here are left alone."""
    store = run_store.RunStore(tmp_path)
    folders = {}
    for name in ("new", "with-events", "gone", "driven"):
        folders[name] = tmp_path / name
        folders[name].mkdir()
        (folders[name] / "config.json").write_text("{}")
    states = {name: _State(name, "crashed", folder) for name, folder in folders.items()}
    states["with-events"].last_event_at = 100.0
    for name, state in states.items():
        store.add(state, driver=_Driver() if name == "driven" else None)
    (folders["gone"] / "config.json").unlink()
    folders["gone"].rmdir()
    written = (folders["new"] / "config.json").stat().st_mtime
    assert store.unstarted_to_recheck(now=written + 5) == [states["new"], states["gone"]]
    assert store.unstarted_to_recheck(now=written + run_store.NEW_FOLDER_S + 1) == [states["gone"]]


def test_a_queued_run_waits_for_a_run_left_training_by_an_earlier_window(qtbot, tmp_path, monkeypatch):
    """A run of this machine listed as running with a worker this window did not start (left training at the last
    quit) holds the queue's place: the run queued now starts only when that one has ended."""
    from explorer.core.runs.store import RunStore
    from explorer.core.specs.train_config import TrainConfig
    from explorer.ui.runs.run_cells import status_text
    from explorer.ui.runs.runner import RunManager
    from explorer.ui.runs.state import RunState

    store = RunStore(tmp_path)
    manager = RunManager(tmp_path, store=store, max_parallel=1)
    started = []
    monkeypatch.setattr(manager, "_start", lambda cfg: started.append(cfg.run_id))
    store.offer(RunState(run_id="inherited", path=tmp_path / "inherited", status="running"))
    store.offer(RunState(run_id="remote", path=tmp_path / "remote", status="running", host="lab"))   # not here
    (queued,) = manager.enqueue([TrainConfig(train="x.json", output_dir=str(tmp_path), run_id="next")])
    assert started == [] and manager.queued() == [queued]    # not beside the run still training
    assert status_text(manager.states[queued]) == "queued: waits for inherited"
    store.offer(RunState(run_id="inherited", path=tmp_path / "inherited", status="finished"))   # re-read as it ended
    assert started == [queued] and manager.states[queued].waits_for == ()


def test_a_run_queued_behind_a_terminal_run_says_what_it_waits_for_in_the_list_and_the_status_bar(
        qtbot, tmp_path, monkeypatch):
    """`bert-explorer train` in a terminal on the same runs folder holds the queue's one place: the run launched in
    the app reads "queued: waits for <that run>" in the Runs list, its tooltip says the run started outside this
    window and that one run trains at a time on this machine, and the status bar's activity line names it too."""
    from explorer.core.runs.store import RunStore
    from explorer.core.specs.train_config import TrainConfig
    from explorer.ui.runs.run_cells import COLUMNS, RunCells, status_text
    from explorer.ui.runs.runner import RunManager
    from explorer.ui.runs.state import RunState
    from explorer.ui.shell.status_texts import activity_line

    store = RunStore(tmp_path)
    manager = RunManager(tmp_path, store=store, max_parallel=1)
    monkeypatch.setattr(manager, "_start", lambda cfg: None)
    store.offer(RunState(run_id="sst2-cli", path=tmp_path / "sst2-cli", status="running"))   # the terminal's run
    (queued,) = manager.enqueue([TrainConfig(train="x.json", output_dir=str(tmp_path), run_id="sst2-app")])
    state = manager.states[queued]
    assert status_text(state) == "queued: waits for sst2-cli"
    tip = RunCells(source=type("S", (), {"names": {}, "sizes": {}})()).tooltip(state, COLUMNS.index("Status"))
    assert "waits for sst2-cli, started outside this window" in tip and "One run trains at a time" in tip
    text, why = activity_line([state, store.get("sst2-cli")], lambda rid: rid)
    assert "1 queued: waits for sst2-cli (training outside this window)" in text
    assert "One run trains at a time on this machine" in why

"""A remote run's local mirror read back (no sshd: the folder is written as the launch and the follower write it): it
lists under the name it had while it ran, and its checkpoint's dev file is named as the user gave it on every page
that fills it in, while the file read is the one where the inspector runs."""

from __future__ import annotations

import json
from pathlib import Path

from explorer.core.protocol.events import EventWriter
from explorer.core.remote.hosts import Host, RemoteRun, save_remote_run
from explorer.core.runs.layout import config_file, events_file
from explorer.core.specs.train_config import TrainConfig

RUN_ID = "20261205-101500-minilm-single-stance"
HASH = "3f2a9c0b1d4e5f60718293a4b5c6d7e8f9012345"


def write_mirror(tmp_path: Path, *, finished: bool = True) -> tuple[RemoteRun, TrainConfig]:
    """A finished remote run's mirror as explorer.core.remote.launch.launch_run and the follower leave it: config.json
    (the config as launched here), remote.json, events.jsonl streamed from the host (its started event names the
    host's content-store copies). The host's runs folder is ``tmp_path/host``; its dev copy is a real file."""
    data = tmp_path / "data" / "stance"
    data.mkdir(parents=True)
    (data / "train.csv").write_text("text,label\na,0\nb,1\n", encoding="utf-8")
    (data / "dev.csv").write_text("text,label\nc,0\nd,1\n", encoding="utf-8")
    runs, host_root = tmp_path / "runs", tmp_path / "host"
    local = TrainConfig(model="bundled:minilm", task="single", train=str(data / "train.csv"),
                        dev=str(data / "dev.csv"), run_id=RUN_ID, output_dir=str(runs))
    blobs = host_root / ".blobs" / HASH
    blobs.mkdir(parents=True)
    (blobs / "dev.csv").write_text("text,label\nc,0\nd,1\n", encoding="utf-8")
    ran = TrainConfig(**{**local.to_dict(), "train": str(blobs / "train.csv"), "dev": str(blobs / "dev.csv"),
                         "output_dir": str(host_root)})
    mirror = runs / RUN_ID
    mirror.mkdir(parents=True)
    local.save(config_file(mirror))
    run = RemoteRun(run_id=RUN_ID, host=Host(target="lab"), remote_dir=str(host_root / RUN_ID), local_dir=str(mirror))
    save_remote_run(run)
    w = EventWriter(run_id=RUN_ID, path=events_file(mirror))
    w.emit("started", config=ran.to_dict(), steps_total=4)
    w.emit("eval", step=4, metrics={"accuracy": 0.5})
    if finished:
        w.emit("finished", step=4, metrics={"accuracy": 0.5})
    return run, local


def test_a_finished_remote_run_read_back_keeps_the_name_it_had_while_it_ran(tmp_path):
    from explorer.ui.runs.names import short_names
    from explorer.ui.runs.state import RunState
    from explorer.ui.runs.store import load_run_state, load_summaries

    _run, local = write_mirror(tmp_path)
    live = RunState(run_id=RUN_ID, path=Path(local.output_dir) / RUN_ID, config=local.to_dict())   # as launched
    while_running = short_names({RUN_ID: live.config})[RUN_ID]
    states, problems = load_summaries(tmp_path / "runs")   # the Runs list read at start-up
    assert problems == [] and [s.run_id for s in states] == [RUN_ID]
    state = states[0]
    assert state.host == "lab" and state.status == "finished"
    assert short_names({RUN_ID: state.config})[RUN_ID] == while_running == "minilm · single · stance"
    assert state.config["train"] == local.train and state.config["dev"] == local.dev
    assert HASH not in json.dumps(load_run_state(state.path).config)   # the selected run's whole read too

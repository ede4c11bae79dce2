"""A remote run's local mirror read back (no sshd: the folder is written as the launch and the follower write it): it
lists under the name it had while it ran, and its checkpoint's dev file is named as the user gave it on every page
that fills it in, while the file read is the one where the inspector runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

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


def write_host_run(run: RemoteRun, local: TrainConfig) -> Path:
    """The run's folder on the host as hostside launch leaves it (the host's config.json names its copies) with a
    checkpoint; returns the checkpoint's path there (what a page holds when it inspects on the host)."""
    host_dir = Path(run.remote_dir)
    blobs = Path(json.loads(events_file(run.local_dir).read_text().splitlines()[0])["config"]["dev"]).parent
    ran = TrainConfig(**{**local.to_dict(), "train": str(blobs / "train.csv"), "dev": str(blobs / "dev.csv"),
                         "output_dir": str(host_dir.parent)})
    (host_dir / "checkpoints" / "best").mkdir(parents=True)
    ran.save(config_file(host_dir))
    return host_dir / "checkpoints" / "best"


@pytest.fixture
def on_host(tmp_path):
    """A finished remote run whose checkpoint is inspected on its host: (run, local config, host checkpoint)."""
    from explorer.core.remote.on_host import forget_on_host, remember_on_host

    run, local = write_mirror(tmp_path)
    ckpt = write_host_run(run, local)
    remember_on_host(run)
    yield run, local, ckpt
    forget_on_host()


def test_a_remote_runs_dev_file_is_named_as_given_and_read_from_the_hosts_copy(on_host):
    from explorer.core.classify.dev_report import run_data_settings
    from explorer.core.models.checkpoint_windows import run_dev_file

    run, local, ckpt = on_host
    dev = run_dev_file(str(ckpt))
    assert dev.shown == local.dev and dev.path == str(Path(run.remote_dir).parent / ".blobs" / HASH / "dev.csv")
    assert "lab's copy" in dev.note and dev.to_read(local.dev) == dev.path
    assert dev.to_read("/elsewhere/mine.csv") == "/elsewhere/mine.csv"   # a typed file is read as typed
    assert run_data_settings(str(ckpt))["train"] == local.train   # the run's settings as launched
    fetched = Path(run.local_dir) / "checkpoints" / "best"   # the copy fetched into the mirror: the user's own file
    fetched.mkdir(parents=True)
    assert run_dev_file(str(fetched)) == type(dev)(shown=local.dev, path=local.dev)


def test_every_page_that_fills_a_runs_dev_file_names_it_as_given(on_host, qtbot):
    """Classify: dev set, Tag: dev set and Head importance show the dev file as the user gave it (a tooltip names
    the host's copy) and send the host's copy; τ on dev set asks the same rule."""
    from explorer.core.models.checkpoint_windows import run_dev_file
    from explorer.ui.inspectors.classify_dev_view import ClassifyDevView
    from explorer.ui.inspectors.head_importance_panel import HeadImportancePanel
    from explorer.ui.inspectors.tag_view import TagDevView, TagView

    run, local, ckpt = on_host
    copy = run_dev_file(str(ckpt)).path
    page = ClassifyDevView(lambda: None, lambda: "single")
    qtbot.addWidget(page)
    assert page.prefill_from_run(str(ckpt))
    assert page.path.text() == local.dev and "lab's copy" in page.path.toolTip()
    assert page.masking_dev_set()["dev"] == copy and page.prefill.path_to_read(page.path.text()) == copy
    page.path.setText("/elsewhere/mine.csv")
    assert page.path.toolTip() == "" and page.prefill.path_to_read(page.path.text()) == "/elsewhere/mine.csv"

    tag = TagDevView(TagView())
    qtbot.addWidget(tag)
    assert tag.prefill_from_run(json.loads(config_file(run.local_dir).read_text()), run_dev_file(str(ckpt)))
    assert tag.path.text() == local.dev and "lab's copy" in tag.path.toolTip()
    assert tag.masking_dev_set()["dev"] == copy

    heads = HeadImportancePanel(None, "qa")
    qtbot.addWidget(heads)
    heads.prefill_dev(run_dev_file(str(ckpt)))
    assert heads.dev.text() == local.dev and "lab's copy" in heads.dev.toolTip()
    sent = []
    heads.job.start = lambda op, data: sent.append(data) or 1   # the request as the child would get it
    heads.run()
    assert [d["dev"] for d in sent] == [copy]

    from explorer.ui.inspectors.components.dev_tau import run_dev, run_dev_file as tau_dev_file

    config = json.loads(config_file(run.local_dir).read_text())
    config_file(run.local_dir).write_text(json.dumps(dict(config, task="squad_v2")))   # τ on dev set: SQuAD 2.0 runs
    assert run_dev(str(ckpt)) == run_dev_file(str(ckpt)) and tau_dev_file(str(ckpt)) == local.dev


def test_a_followed_remote_run_keeps_its_launched_names_when_the_host_says_it_started(tmp_path, qtbot):
    from explorer.core.runs.store import RunStore
    from explorer.ui.runs.remote_runner import RemoteRunManager

    _run, local = write_mirror(tmp_path)
    started = json.loads(events_file(Path(local.output_dir) / RUN_ID).read_text().splitlines()[0])
    manager = RemoteRunManager(local.output_dir, object(), RunStore(local.output_dir))
    state = manager._add(local, Host(target="lab"), "starting", "starting on lab", None)
    manager._on_event(RUN_ID, started)
    assert state.status == "running" and HASH not in json.dumps(state.config)
    assert state.config["train"] == local.train and state.config["task"] == "single"

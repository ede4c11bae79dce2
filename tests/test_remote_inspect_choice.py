"""A remote run's checkpoint in the inspectors: on the host over SSH or as a fetched copy, the
choice remembered per host; the Host column of Runs; the one-sentence launch failures; a run that ended
before the app started is still known as remote (its mirror's remote.json), without the settings.

One finished run is made once for the module, by hand, on the "host" (the test sshd's runs folder) and in
its local mirror: no training, so these tests cost seconds."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot
from helpers import save_tiny_model, write_tiny_squad

from explorer.core.errors import Cancelled, RemoteHostError
from explorer.core.protocol.events import encode_event, make_event
from explorer.core.remote import launch as remote_launch
from explorer.core.remote.fetch import fetch_checkpoint
from explorer.core.remote.hosts import Host, RemoteRun, read_remote_run, save_remote_run
from explorer.core.remote.ssh import inspector_argv
from explorer.core.runs.layout import checkpoint_path, config_file, events_file
from explorer.core.specs.train_config import TrainConfig
from explorer.ui.shell.settings import AppSettings

RUN_ID = "remote-done"


def qapp_events() -> None:
    QApplication.processEvents()


@pytest.fixture(scope="module")
def done_run(sshd_server, tmp_path_factory):
    """A finished QA run on the host (checkpoints/best: a tiny model) and its local mirror (config.json,
    events.jsonl, remote.json), as a finished launch_run + follower leave them."""
    root = tmp_path_factory.mktemp("remote-inspect")
    host = Host(name="lab", target=sshd_server.alias, python=str(sshd_server.python), runs_dir=str(sshd_server.runs))
    remote_dir = sshd_server.runs / RUN_ID
    best = checkpoint_path(remote_dir, "best")
    save_tiny_model(best, "qa")
    data = write_tiny_squad(root / "sq.json")
    cfg = TrainConfig(model="bundled:minilm", task="squad_v2", train=str(data), dev=str(data), run_id=RUN_ID,
                      output_dir=str(root / "runs"))
    events = [make_event("started", RUN_ID, seq=1, config=cfg.to_dict(), steps_total=4),
              make_event("step", RUN_ID, seq=2, step=4, loss=1.5, lr=1e-5),
              make_event("eval", RUN_ID, seq=3, step=4, metrics={"best_f1": 50.0, "f1": 48.0, "exact_match": 40.0},
                         seconds=1.0),
              make_event("checkpoint", RUN_ID, seq=4, step=4, path=str(best), kind="best"),
              make_event("finished", RUN_ID, seq=5, metrics={"best_f1": 50.0}, seconds=3.0,
                         best_checkpoint=str(best), stopped_early=False)]
    text = "".join(encode_event(e) + "\n" for e in events)
    events_file(remote_dir).write_text(text, encoding="utf-8")
    (remote_dir / "dev_split.csv").write_text("row_id,line,label\n7,8,1\n", encoding="utf-8")
    local_dir = root / "runs" / RUN_ID
    local_dir.mkdir(parents=True)
    cfg.save(config_file(local_dir))
    events_file(local_dir).write_text(text, encoding="utf-8")
    run = RemoteRun(run_id=RUN_ID, host=host, remote_dir=str(remote_dir), local_dir=str(local_dir))
    save_remote_run(run)
    local_run = root / "runs" / "local-one"   # a run of this machine beside it
    local_run.mkdir()
    TrainConfig(model="bundled:minilm", task="squad_v2", run_id="local-one").save(config_file(local_run))
    events_file(local_run).write_text(encode_event(make_event("finished", "local-one", seq=1, metrics={},
                                                               seconds=1.0)) + "\n", encoding="utf-8")
    return run, str(best), root


def test_remote_json_names_the_host_and_never_a_password(done_run):
    run, _best, _root = done_run
    again = read_remote_run(run.local_dir)
    assert again == run
    assert "password" not in Path(run.local_dir, "remote.json").read_text().lower()
    assert read_remote_run(Path(run.local_dir).parent / "local-one") is None


def test_fetch_reuses_a_current_copy_and_fetches_a_newer_one_again(done_run):
    run, best, _root = done_run
    seen = []
    first = fetch_checkpoint(run, best, lambda d, t: seen.append((d, t)))
    assert not first.reused and first.path == Path(run.local_dir) / "checkpoints" / "best"
    remote = {p.relative_to(best).as_posix(): p.read_bytes() for p in Path(best).rglob("*") if p.is_file()}
    assert {p.relative_to(first.path).as_posix(): p.read_bytes() for p in first.path.rglob("*") if p.is_file()} == remote
    assert seen[-1] == (first.bytes, first.bytes) == (sum(map(len, remote.values())),) * 2
    # the rows the run held out as dev come with it (Compare and Classify: dev set read them beside the checkpoint)
    assert (Path(run.local_dir) / "dev_split.csv").read_text() == (Path(run.remote_dir) / "dev_split.csv").read_text()

    seen.clear()
    second = fetch_checkpoint(run, best, lambda d, t: seen.append((d, t)))
    assert second.reused and second.path == first.path and seen == []   # nothing copied

    # the host saved a newer checkpoint (the fetch in the window's test below copies it again, not reused)
    os.utime(Path(best) / "config.json", ns=(time.time_ns(), time.time_ns() + 10**9))
    with pytest.raises(Cancelled):   # cancelled: the old copy stays whole, no half copy beside it
        fetch_checkpoint(run, best, cancelled=lambda: True)
    assert (first.path / "config.json").is_file() and not first.path.with_name("best.part").exists()


def test_launch_failures_are_one_sentence(sshd_server, done_run, tmp_path, monkeypatch):
    run, _best, root = done_run
    cfg = TrainConfig(model="bundled:minilm", task="squad_v2", train=str(root / "sq.json"), run_id="nope")
    bare = Host(name="bare", target=sshd_server.alias, python=str(sshd_server.bare_python),
                runs_dir=str(sshd_server.runs))
    with pytest.raises(RemoteHostError) as missing:
        remote_launch.launch_run(bare, cfg, tmp_path / "nope")
    assert str(missing.value).startswith(f"bert-explorer is not installed for {bare.python} on bare; install it "
                                         f"there with: {bare.python} -m pip install 'bert-explorer==")
    wrong = Host(name="wrong", target=f"{sshd_server.alias}-wrongkey", python=run.host.python)
    with pytest.raises(RemoteHostError, match=r"^wrong refused the key \(Permission denied \(publickey\)\)"):
        remote_launch.launch_run(wrong, cfg, tmp_path / "nope")
    monkeypatch.setattr(remote_launch, "MIN_FREE_BYTES", 10**18)
    with pytest.raises(RemoteHostError, match=r"^the disk on lab that holds .* is full \("):
        remote_launch.launch_run(run.host, cfg, tmp_path / "nope")
    assert not (tmp_path / "nope").exists()   # nothing was started or mirrored


@pytest.fixture(scope="module")
def window(qapp, request, done_run, tmp_path_factory):
    """One main window for the module, started after the remote run ended (an app restart: the settings
    do not list the run; its mirror's remote.json says where it ran)."""
    from explorer.ui.shell.main_window import MainWindow

    run, _best, root = done_run
    settings = AppSettings(tmp_path_factory.mktemp("settings") / "s.ini")
    settings.set_hosts([run.host])
    w = MainWindow(root / "runs", settings, probe_device=False)
    w.resize(1280, 800)
    w.show()
    QtBot(request).waitUntil(lambda: w.store.get(RUN_ID) is not None and w.store.get("local-one") is not None,
                             timeout=30_000)
    assert settings.remote_runs() == []
    w.remote_inspect.client_getter = lambda: w.hub.client   # the window's client (each test resets the shared one)
    yield w
    w.hub.client.stop()   # the window's client (its pages' requests) ends with the window, not in a later test
    w.close()
    w.deleteLater()
    QApplication.processEvents()


def test_a_remote_run_has_an_icon_and_its_host_column_is_in_the_header_menu(qtbot, window):
    """The Host column is hidden at start, as Size and Task are: shown beside the names it left them "minilm ·
    …n · train"). A remote run has the network icon before its name, its tooltip names the host,
    and the header menu's "Show Host" puts the column right after Run."""
    from PySide6.QtWidgets import QHeaderView

    from explorer.ui.runs.dock import COLUMNS

    dock = window.runs
    host_col, run_col = COLUMNS.index("Host"), COLUMNS.index("Run")
    model = dock.model
    remote, local = model.run_index(RUN_ID), model.run_index("local-one")
    assert dock.table.isColumnHidden(host_col)
    assert [model.data(i.siblingAtColumn(host_col)) for i in (remote, local)] == ["lab", ""]
    assert "trains on lab" in model.data(remote, 3)   # the Run tooltip (ToolTipRole)
    assert model.data(remote, 1) is not None and not model.data(remote, 1).isNull()   # DecorationRole: an icon
    assert model.data(local, 1) is None
    dock.fit_columns()
    qapp_events()
    assert dock.table.columnWidth(run_col) >= dock.table.sizeHintForColumn(run_col) - 1   # the names whole
    show = next(a for a in dock.table.header().actions() if a.text() == "Show Host")
    show.setChecked(True)
    dock.fit_columns()
    assert not dock.table.isColumnHidden(host_col)
    hh: QHeaderView = dock.table.header()
    assert hh.visualIndex(host_col) == 1   # right after the run's name
    assert 40 <= dock.table.columnWidth(host_col) <= dock.table.HOST_MAX_PX
    show.setChecked(False)


def test_inspect_on_the_host_asks_once_remembers_and_says_so(qtbot, window, done_run, monkeypatch):
    from inspect_double import ThreadTransport

    run, best, _root = done_run
    client = window.hub.client
    argvs = []
    client.place_transport = lambda argv: (argvs.append(argv), ThreadTransport())[1]   # the "host's" child
    monkeypatch.setattr("explorer.core.remote.check.host_gpus", lambda host, timeout=0: ["NVIDIA H200, 143771 MiB"])

    window.open_checkpoint(best)
    dialog = window.remote_inspect.dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.on_host_btn.text() == "Inspect on lab"
    assert dialog.fetch_btn.text() == "Fetch checkpoints/best and inspect here"
    dialog.remember.setChecked(True)
    dialog.on_host_btn.click()
    assert window.settings.inspect_choice("lab") == "host"
    assert client.place_argv == inspector_argv(run.host) and client.place == "lab"
    assert "EXPLORER_INSPECT_GPU=1 " in client.place_argv[-1]   # the host's child uses its GPU
    assert client._slots["qa"] == ("load", {"slot": "qa", "source": best, "task": "qa"})
    qtbot.waitUntil(lambda: window.inspect_label.text() == "Inspecting on lab (GPU: NVIDIA H200)",
                    timeout=10_000)
    assert not window.inspect_label.isHidden()
    qtbot.waitUntil(lambda: client.running and argvs == [inspector_argv(run.host)], timeout=10_000)

    window.remote_inspect.dialog = None
    window.open_checkpoint(best)   # remembered: no question
    assert window.remote_inspect.dialog is None

    local = save_tiny_model(Path(run.local_dir).parent / "elsewhere" / "checkpoints" / "best", "qa")
    window.open_checkpoint(str(local))   # a checkpoint of this machine: the child runs here again
    assert client.place_argv is None and window.inspect_label.isHidden()
    assert client._slots["qa"][1]["source"] == str(local)
    shutil.rmtree(local.parents[1])


def test_fetch_and_inspect_here_with_progress_then_reuse(qtbot, window, done_run):
    from explorer.ui.launch.hosts_dialog import HostsDialog

    run, best, _root = done_run
    dialog = HostsDialog(window.settings)   # the way to change the remembered choice
    qtbot.addWidget(dialog)
    dialog.inspect.setCurrentIndex(dialog.inspect.findData("fetch"))
    dialog.accept()
    assert window.settings.inspect_choice("lab") == "fetch"

    shown = []
    window.remote_inspect.message.connect(shown.append)
    window.open_checkpoint(best)
    progress = window.remote_inspect.progress
    assert progress is not None and progress.labelText().startswith("Fetching lab:…/best")
    from explorer.ui.shell.screen_fit import ScreenKeeper

    assert progress.findChild(ScreenKeeper) is not None   # its label changes: it is kept inside the screen
    qtbot.waitUntil(lambda: window.remote_inspect.progress is None, timeout=30_000)
    local = Path(run.local_dir) / "checkpoints" / "best"
    assert shown and shown[-1].startswith("Inspecting a local copy of lab:…/best (fetched "), shown
    assert window.inspect_label.text() == "Inspecting a local copy of lab:…/best"
    client = window.hub.client
    assert client.place_argv is None and client._slots["qa"][1]["source"] == str(local)

    window.open_checkpoint(best)
    qtbot.waitUntil(lambda: window.remote_inspect.progress is None and len(shown) >= 2, timeout=30_000)
    assert "the copy fetched earlier is current" in shown[-1]


def test_a_missing_file_on_the_host_says_where_files_are_read(qtbot, tmp_path):
    from inspect_double import ThreadTransport

    from explorer.ui.inspectors.client import InspectClient

    client = InspectClient(ThreadTransport)
    client.place_transport = lambda argv: ThreadTransport()   # the "host's" child
    got = []
    try:
        for place in (None, ["ssh", "lab", "--", "python", "-m", "explorer.worker.inspector"]):
            client.set_place(place, "lab")
            client.request("squad_rows", {"path": str(tmp_path / "dev.json")}, on_error=lambda m, tb: got.append(m))
            qtbot.waitUntil(lambda: len(got) == (1 if place is None else 2), timeout=20_000)
    finally:
        client.stop()
    assert "no such file" in got[0] and "inspectors run on" not in got[0]
    assert got[1].startswith(got[0]) and got[1].endswith("(the inspectors run on lab, so files are read there; "
                                                          "fetch the checkpoint and inspect it here to use files of "
                                                          "this machine)")


class _PlaceClient:
    """The shared inspector client as far as the opener moves it (set_place)."""

    def __init__(self):
        self.place_argv, self.place = None, ""

    def set_place(self, argv, name=""):
        self.place_argv, self.place = argv, name if argv else ""


def test_checkpoints_for_an_op_on_two_ask_like_open_best_then_run_on_the_host_or_fetch(qtbot, done_run, tmp_path):
    """Compare two classifiers' checkpoints (RemoteCheckpointOpener.prepare): asked as Open best checkpoint asks
    (never a remote run's checkpoint used without asking), the answer remembered."""
    from explorer.ui.runs.remote_inspect import RemoteCheckpointOpener

    run, best, _root = done_run
    settings, client, got = AppSettings(tmp_path / "s.ini"), _PlaceClient(), []

    def not_here(*_args):
        raise AssertionError("prepare opens nothing in a page")
    opener = RemoteCheckpointOpener(settings, lambda: client, not_here, not_here)
    opener.prepare([(None, "/a/best"), (None, "/b/best")], got.append)   # local: no question
    assert got == [["/a/best", "/b/best"]] and opener.dialog is None

    opener.prepare([(run, best), (run, best)], got.append)
    assert opener.dialog is not None and opener.dialog.isVisible() and len(got) == 1
    opener.dialog.remember.setChecked(True)
    opener.dialog.on_host_btn.click()
    assert got[-1] == [best, best] and client.place_argv == inspector_argv(run.host)
    assert settings.inspect_choice("lab") == "host"

    local_copy = str(Path(run.local_dir) / "checkpoints" / "best")
    opener.prepare([(None, "/a/best"), (run, best)], got.append)   # not all on the host: fetched, run here
    qtbot.waitUntil(lambda: len(got) == 3, timeout=30_000)
    assert got[-1] == ["/a/best", local_copy] and client.place_argv is None

    settings.set_inspect_choice("lab", "fetch")
    opener.prepare([(run, best), (run, best)], got.append)
    qtbot.waitUntil(lambda: len(got) == 4, timeout=30_000)
    assert got[-1] == [local_copy, local_copy] and client.place_argv is None


def test_compare_two_classifiers_of_a_remote_run_asks_first(qtbot, window, done_run):
    run, best, _root = done_run
    window.settings.set_inspect_choice("lab", "")
    before = list(getattr(window, "classifier_comparisons", []))
    window.remote_inspect.dialog = None
    window.runs.classifiers_compare_requested.emit([{"source": best, "name": "a", "task": "squad_v2"},
                                                    {"source": best, "name": "b", "task": "squad_v2"}])
    dialog = window.remote_inspect.dialog
    assert dialog is not None and dialog.isVisible()
    dialog.reject()   # Cancel: nothing is compared
    assert list(getattr(window, "classifier_comparisons", [])) == before


def test_the_open_choice_is_remembered_only_when_ticked(qtbot, done_run, tmp_path):
    """"Remember for HOST" starts unticked: a choice that fails (a fetch the host refuses) is asked again next
    time instead of repeating silently."""
    from explorer.ui.runs.remote_inspect import RemoteCheckpointOpener

    run, best, _root = done_run
    settings, client, got = AppSettings(tmp_path / "s.ini"), _PlaceClient(), []

    def not_here(*_args):
        raise AssertionError("prepare opens nothing in a page")
    opener = RemoteCheckpointOpener(settings, lambda: client, not_here, not_here)
    opener.prepare([(run, best)], got.append)
    assert not opener.dialog.remember.isChecked()
    opener.dialog.on_host_btn.click()
    assert got[-1] == [best] and settings.inspect_choice("lab") == ""
    opener.dialog = None
    opener.prepare([(run, best)], got.append)
    assert opener.dialog is not None and opener.dialog.isVisible()   # asked again


def test_a_load_sent_as_the_child_moves_gets_its_reply_not_the_remembered_one(qtbot, tmp_path):
    """A page's load of a checkpoint, sent right after the inspectors moved to a host (a new child, which gets the
    models remembered from the last one), is the load whose reply the page receives: the remembered load of the
    same slot is not sent after it and does not take its place, so the page leaves "loading …" and names the
    checkpoint it shows."""
    from helpers import save_tiny_model
    from inspect_double import ThreadTransport

    from explorer.ui.inspectors.client import InspectClient

    first = save_tiny_model(tmp_path / "first", "qa")
    second = save_tiny_model(tmp_path / "second", "qa")
    client = InspectClient(ThreadTransport)
    client.place_transport = lambda argv: ThreadTransport()
    done, failed = [], []
    try:
        client.load("qa", str(first), "qa", on_done=done.append, on_error=lambda m, tb: failed.append(m))
        qtbot.waitUntil(lambda: len(done) == 1, timeout=20_000)
        client.set_place(["ssh", "lab", "--", "python", "-m", "explorer.worker.inspector"], "lab")
        # what a bundled: model leaves for the new child (a folder stands in for it: no download in tests)
        client._slots["qa"] = ("load", {"slot": "qa", "source": str(first), "task": "qa"})
        client.load("qa", str(second), "qa", on_done=done.append, on_error=lambda m, tb: failed.append(m))
        qtbot.waitUntil(lambda: len(done) == 2 or bool(failed), timeout=20_000)
    finally:
        client.stop()
    assert not failed and len(done) == 2
    assert str(second) in str(getattr(done[1], "source", done[1]))

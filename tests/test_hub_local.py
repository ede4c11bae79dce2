"""The hub path, proven against a local hub on 127.0.0.1 (scripts/local_hub.py), no network: a model download
with byte progress, Cancel leaving no half file, the second use offline from the cache, a cut connection resumed
or failing in one sentence, gated and missing repositories in one sentence, a hub dataset id (with config and
split) training and evaluating, and the inspector's download bar (bytes, rate, time left) in the GUI."""

from __future__ import annotations

import os
import re
import sys
import time
import types
from pathlib import Path

import pytest
from helpers import save_tiny_model

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import local_hub  # noqa: E402

from explorer.core.errors import Cancelled, ModelSourceError, SquadDataError  # noqa: E402
from explorer.core.hub import HubError, fetch  # noqa: E402

MODEL = "test-org/tiny-qa"
DATASET = "test-org/squad-mini"


@pytest.fixture(scope="module")
def repo_folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("hub-repos")
    return {"model": save_tiny_model(root / "tiny-qa", "qa"), "dataset": local_hub.write_squad_mini(root / "squad-mini")}


@pytest.fixture
def hub(repo_folders, tmp_path, monkeypatch):
    """A local hub serving the tiny QA model, squad-mini and a gated copy; this process's huggingface_hub and
    datasets point at it, online, with their caches in tmp_path. Stopped after the test."""
    repos = [local_hub.HubRepo(MODEL, repo_folders["model"]),
             local_hub.HubRepo(DATASET, repo_folders["dataset"], "dataset"),
             local_hub.HubRepo("test-org/gated-qa", repo_folders["model"], gated=True)]
    server = local_hub.LocalHub(repos).start()

    def patch(obj, name, value):
        if obj is os.environ:
            monkeypatch.setitem(os.environ, name, value)
        else:
            monkeypatch.setattr(obj, name, value)

    local_hub.point_hub_libraries(server.url, tmp_path / "hf", patch)
    import huggingface_hub.constants as constants
    import huggingface_hub.file_download as file_download

    monkeypatch.setattr(constants, "DOWNLOAD_CHUNK_SIZE", 16 * 1024)   # several progress calls per file
    # the library waits 1 s before resuming a cut download: not here (time itself is untouched)
    monkeypatch.setattr(file_download, "time", types.SimpleNamespace(sleep=lambda s: None, time=time.time,
                                                                     monotonic=time.monotonic))
    server.cache = Path(tmp_path / "hf" / "hub")
    yield server
    server.stop()


def _leftovers(cache: Path) -> list[Path]:
    return sorted(cache.rglob("*.incomplete")) if cache.exists() else []


def _go_offline(monkeypatch):
    import huggingface_hub.constants as constants

    monkeypatch.setitem(os.environ, "HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)


def test_download_reports_bytes_then_second_use_is_offline(hub, repo_folders, monkeypatch):
    events = []
    folder = Path(fetch(MODEL, progress=lambda d, t: events.append((d, t))))
    served = {p.name: p.stat().st_size for p in repo_folders["model"].iterdir()}
    assert (folder / "model.safetensors").read_bytes() == (repo_folders["model"] / "model.safetensors").read_bytes()
    assert events and events[-1][0] == events[-1][1] == sum(served[p.name] for p in folder.iterdir())
    assert len(events) > 3 and all(d2 >= d1 for (d1, _), (d2, _) in zip(events, events[1:]))
    assert ("GET", f"/api/models/{MODEL}/revision/main", None) in hub.requests

    from explorer.core.models.loading import load_model

    hub.stop()                      # no server at all: the second use must come from the cache
    _go_offline(monkeypatch)
    loaded = load_model(MODEL, "qa")
    assert loaded.source == MODEL and Path(loaded.path) == folder and not loaded.head_initialised


def test_cancel_leaves_no_half_file(hub):
    events = []
    with pytest.raises(Cancelled):
        fetch(MODEL, progress=lambda d, t: events.append(d), cancelled=lambda: len(events) >= 1)
    assert _leftovers(hub.cache) == []
    snapshots = list(hub.cache.glob("models--test-org--tiny-qa/snapshots/*"))
    assert not any((s / "model.safetensors").exists() for s in snapshots)     # the big file never landed
    blobs = hub.cache / "models--test-org--tiny-qa" / "blobs"
    stale, fresh = blobs / "dead.1234abcd.incomplete", blobs / "busy.5678abcd.incomplete"
    for path in (stale, fresh):                       # a killed process's half file, and one being written
        path.write_bytes(b"x" * 100)
    os.utime(stale, (time.time() - 3600, time.time() - 3600))
    folder = Path(fetch(MODEL))                                                # and the cache is not poisoned
    assert (folder / "model.safetensors").stat().st_size > 16 * 1024
    assert not stale.exists() and fresh.exists()


def test_cut_connection_resumes_with_a_range_request(hub, repo_folders):
    hub.drop_after, hub.drop_times = 40_000, 1
    folder = Path(fetch(MODEL))
    assert (folder / "model.safetensors").read_bytes() == (repo_folders["model"] / "model.safetensors").read_bytes()
    ranges = [r for m, p, r in hub.requests if m == "GET" and p.endswith("/model.safetensors") and r]
    assert len(ranges) == 1 and 0 < int(ranges[0][6:-1]) <= 40_000   # from the bytes kept (whole chunks)


def test_connection_cut_every_time_fails_in_one_sentence(hub):
    hub.drop_after, hub.drop_times = 0, -1
    with pytest.raises(HubError) as err:
        fetch(MODEL, allow_patterns=["model.safetensors"])
    text = str(err.value)
    assert text.startswith(f"The download of {MODEL} was cut off and could not be resumed") and "\n" not in text
    assert _leftovers(hub.cache) == []


def test_gated_and_missing_repositories_are_one_sentence(hub):
    from explorer.core.data.squad import load_squad
    from explorer.core.models.loading import load_model

    with pytest.raises(ModelSourceError) as gated:
        load_model("test-org/gated-qa", "qa")
    assert str(gated.value).startswith("The model test-org/gated-qa on the hub is gated: accept its terms")
    with pytest.raises(ModelSourceError) as missing:
        load_model("test-org/no-such-model", "qa")
    assert str(missing.value).startswith("There is no model test-org/no-such-model on the hub (http://127.0.0.1:")
    with pytest.raises(SquadDataError) as no_data:
        load_squad("test-org/no-such-data::plain_text::train")
    assert str(no_data.value).startswith("There is no dataset test-org/no-such-data on the hub")
    for exc in (gated.value, missing.value, no_data.value):
        assert "\n" not in str(exc) and str(exc).count(". ") == 0 and "Traceback" not in str(exc)


def test_hub_dataset_id_trains_and_evaluates(hub, tmp_path, monkeypatch):
    import contextlib
    import io

    from explorer.core.data.squad import load_squad
    from explorer.core.protocol.events import iter_events
    from explorer.worker.train import EXIT_OK, main as train_main

    train, dev = f"{DATASET}::plain_text::train", f"{DATASET}::plain_text::validation"
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = train_main(["--model", MODEL, "--task", "squad_v1", "--train", train, "--dev", dev, "--max-steps", "3",
                         "--batch-size", "8", "--output-dir", str(tmp_path / "runs"), "--run-id", "hubrun"])
    events = list(iter_events(buf.getvalue().splitlines()))
    assert rc == EXIT_OK, events[-1]
    started = next(e for e in events if e["event"] == "started")
    assert started["num_train_examples"] == 16
    final = events[-1]
    assert final["event"] == "finished" and {"exact_match", "f1"} <= set(final["metrics"])
    assert final["metrics"]["total"] == 8          # every validation question of the hub split was scored
    hub.stop()                      # evaluating again needs neither the server nor the network
    _go_offline(monkeypatch)
    dataset, report = load_squad(dev)
    assert len(dataset) == 8 and report.n_questions == 8


def test_inspector_download_bar_shows_progress_and_cancel(hub, qtbot, tmp_path):
    from explorer.ui.inspectors.hub import InspectorHub

    h = InspectorHub()
    for _, w in h.tabs():
        qtbot.addWidget(w)
    shown = []

    def on_progress(done, total):
        shown.append(h.download_bar.detail.text())
        if "left" in shown[-1] and h.download_bar.cancel_button.isEnabled():   # rate and time left are known
            h.download_bar.cancel_button.click()

    hub.throttle_bps = 100_000      # progress with a rate and a time left before the end
    hub.hold_after = 100_000        # and the download waits there until released: cancelled while it runs, however
    meter = h.download_bar.meter   # a time left from the second report on: the download is held soon after it
    meter.min_reports, meter.min_seconds = 1, 0.0
    h.downloads.job.progress.connect(on_progress)   # late a loaded machine delivers the progress to the GUI thread
    try:
        with qtbot.waitSignal(h.downloads.job.cancelled, timeout=60_000):
            h.open_model(MODEL)
    finally:
        hub.hold_after = 0
        hub.release.set()
    assert h.download_bar.bar.isHidden() and "cancelled; nothing half-downloaded" in h.download_bar.title.text()
    assert re.fullmatch(r"[\d.]+ (B|KiB) of [\d.]+ KiB · about \d+:\d\d left", shown[-1]), shown
    assert _leftovers(hub.cache) == []

    hub.throttle_bps = 0
    h.downloads.job.progress.disconnect(on_progress)
    with qtbot.waitSignal(h.model_changed, timeout=30_000):
        h.open_model(MODEL)
    assert h.loaded.source == MODEL and h.download_bar.isHidden()


def test_launcher_downloads_a_hub_model_before_its_run_starts(hub, qtbot, tmp_path):
    from explorer.core.hub import cached_snapshot
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.editors["model"].set(MODEL)
    with qtbot.waitSignal(w.launch_requested, timeout=30_000) as launched:
        assert w.launch()
        assert not w.download_bar.isHidden()        # the run waits for the download, the GUI does not
    assert launched.args[0][0].model == MODEL and cached_snapshot(MODEL) is not None
    assert w.download_bar.isHidden()
    w.editors["model"].set("test-org/gated-qa")
    with qtbot.waitSignal(w.downloader().stopped, timeout=30_000):
        w.launch()
    assert w.problem.text().startswith("Cannot launch: The model test-org/gated-qa on the hub is gated")


def test_rate_meter_gives_rate_and_time_left():
    from explorer.core.hub import RateMeter, format_eta

    now = [0.0]
    meter = RateMeter("o/n", window_s=3.0, clock=lambda: now[0])
    first = meter.update(0, 10 * 2 ** 20)
    assert first.rate_bps is None and first.eta_s is None and first.text() == "0 B of 10 MiB"
    for t in (1.0, 2.0, 3.0, 4.0, 5.0):          # 1 MiB/s, then 3 MiB/s for the last three seconds
        now[0] = t
        shown = meter.update(int(t * 2 ** 20) if t <= 2 else int((2 + 3 * (t - 2)) * 2 ** 20), 20 * 2 ** 20)
    assert shown.rate_bps == pytest.approx(3 * 2 ** 20) and shown.eta_s == pytest.approx(3.0)
    assert shown.text() == "11 MiB of 20 MiB · 3.0 MiB/s · about 3 s left"
    assert [format_eta(s) for s in (8.4, 125, 3840)] == ["8 s", "2 min 05 s", "1 h 04 min"]


def test_datasets_library_reads_the_local_hub_directly(hub):
    import datasets

    ds = datasets.load_dataset(DATASET, local_hub.SQUAD_MINI_CONFIG, split="validation")
    assert len(ds) == 8 and ds[0]["answers"]["text"] == [local_hub.squad_mini_rows()[16]["answers"]["text"][0]]
    assert any(m == "GET" and f"/api/datasets/{DATASET}/tree/" in p for m, p, _ in hub.requests)

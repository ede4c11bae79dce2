"""The main window driving real `bert-explorer train` child processes on a tiny random model.

One run is launched through the form and followed to `finished` (started/step/eval/checkpoint events,
points on the curves); two more run side by side: one is cancelled (SIGTERM -> `cancelled`), the other
is killed (SIGKILL -> marked failed, its logged points stay). Past runs are loaded from disk, and
closing the window with an active run asks first.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402

from explorer.core.protocol.events import read_events  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from helpers import save_tiny_model, write_tiny_squad  # noqa: E402

RUN_TIMEOUT_MS = 120_000


@pytest.fixture(scope="module")
def tiny_files(tmp_path_factory):
    root = tmp_path_factory.mktemp("tiny")
    return {"model": str(save_tiny_model(root / "model", "qa")),
            "train": str(write_tiny_squad(root / "train.json", v2=True, repeat=2)),
            "dev": str(write_tiny_squad(root / "dev.json", v2=True))}


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setattr("explorer.ui.runs.runner.WORKER_NICE", 0)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "settings.ini"), probe_device=False)
    qtbot.addWidget(w)
    w.show()
    yield w
    w.manager.cancel_all(wait_ms=5000)


def fill_form(w, tiny_files, **extra):
    """Type a tiny run into the launcher, as a user would (through the editors)."""
    ed = w.launcher.editors
    values = dict(model=tiny_files["model"], task="squad_v2", train=tiny_files["train"], dev=tiny_files["dev"],
                  max_seq_length=64, doc_stride=16, max_query_length=16, batch_size=4, max_steps=6,
                  eval_every=3, mixed_precision="no", seed=1)
    values.update(extra)
    for name, value in values.items():
        ed[name].set(value)
    w.launcher.watch.set([])


def test_launch_real_run_and_watch_it_finish(window, qtbot, tiny_files):
    w = window
    fill_form(w, tiny_files)
    assert w.launcher.launch_btn.isEnabled(), w.launcher.problem.text()
    assert "--max-steps 6" in w.launcher.command.toPlainText()
    qtbot.mouseClick(w.launcher.launch_btn, Qt.MouseButton.LeftButton)
    assert len(w.manager.states) == 1
    run_id = next(iter(w.manager.states))
    seen: list[str] = []
    labels: set[str] = set()
    w.manager.procs[run_id].event.connect(lambda ev: seen.append(ev["event"]))
    w.manager.changed.connect(lambda *_: labels.add(w.device_label.text()))
    assert w.tabs.currentWidget() is w.curves and w.runs.selected_ids() == [run_id]
    state = w.manager.states[run_id]
    qtbot.waitUntil(lambda: state.status in ("finished", "failed"), timeout=RUN_TIMEOUT_MS)
    assert state.status == "finished", f"{state.error}\n{state.stderr_tail[-2000:]}"
    # the events arrived in protocol order
    kinds = [k for k in seen if k != "log"]
    assert kinds[0] == "started" and kinds[-1] == "finished"
    assert kinds.count("step") == 6 and kinds.count("eval") >= 2 and "checkpoint" in kinds
    assert state.steps_total == 6 and state.step == 6 and state.device == "cpu"
    # ... and became points on the curves
    w.curves.redraw_now()
    assert w.curves.point_count(run_id, "loss") == 6 and w.curves.point_count(run_id, "lr") == 6
    assert w.curves.point_count(run_id, "dev/f1") == kinds.count("eval")
    assert "step 6 of 6" in w.curves.progress_label.text()
    row = w.runs.model.rows.index(state)
    assert w.runs.model.data(w.runs.model.index(row, 1)) == "finished"
    best = w.runs.model.data(w.runs.model.index(row, 2))      # the number first: a narrow column keeps it
    assert best.split(" ", 1)[1] == "F1"          # squad_v2: f1 at τ = 0 of the checkpoint best_f1 picked
    assert best.split(" ", 1)[0].endswith("%")
    float(best.split(" ", 1)[0].rstrip("%"))
    assert "device: CPU · fp32" in labels                      # status bar, from the started event
    assert not any("idle" in t for t in labels - {"device: probing… (idle)"})   # never "idle" during the run
    assert w.device_label.text().endswith("(idle)")
    # the same run on disk: events.jsonl has every step, the launch config is kept
    disk = read_events(Path(state.path) / "events.jsonl")
    assert sum(e["event"] == "step" for e in disk) == 6 and disk[-1]["event"] == "finished"
    assert json.loads((w.runs_dir / ".launch" / f"{run_id}.json").read_text())["max_steps"] == 6
    assert w.runs.inspect_btn.isEnabled()                      # a best checkpoint exists


def test_cancel_one_run_and_kill_another(window, qtbot, tiny_files):
    w = window
    w.manager.max_parallel = 2
    fill_form(w, tiny_files, max_steps=100_000, eval_every=0, save_checkpoints=False, dev="")
    ids = w.launch([w.launcher.config(), w.launcher.config()])
    cancel_id, kill_id = ids
    a, b = w.manager.states[cancel_id], w.manager.states[kill_id]
    qtbot.waitUntil(lambda: len(a.series.get("loss", ())) >= 2 and len(b.series.get("loss", ())) >= 2,
                    timeout=RUN_TIMEOUT_MS)
    w.runs.select([cancel_id])
    qtbot.mouseClick(w.runs.cancel_btn, Qt.MouseButton.LeftButton)
    assert a.status == "cancelling"
    os.kill(w.manager.procs[kill_id].pid(), signal.SIGKILL)
    qtbot.waitUntil(lambda: a.status == "cancelled" and b.status == "failed", timeout=30_000)
    assert "killed" in b.error
    points = len(b.series["loss"])
    assert points >= 2
    w.runs.select([kill_id])
    w.curves.redraw_now()
    assert w.curves.point_count(kill_id, "loss") == points       # the logged points stay
    assert "killed" in w.runs.error_label.text() and w.runs.error_btn.isEnabled()
    # the GUI wrote the failure into the run's log, so the run reads the same from disk
    from explorer.ui.runs.store import load_run_state

    again = load_run_state(b.path)
    assert again.status == "failed" and len(again.series["loss"]) == points
    assert load_run_state(a.path).status == "cancelled"
    assert not w.manager.active()


def _write_past_run(folder: Path, run_id: str, f1s=(20.0, 35.5)) -> Path:
    run = folder / run_id
    run.mkdir(parents=True)
    (run / "config.json").write_text(json.dumps({"model": "bundled:minilm", "task": "squad_v2", "run_id": run_id}))
    ev = [{"event": "started", "run_id": run_id, "time": 100.0, "steps_total": 4, "device": "cpu",
           "mixed_precision": "no"}]
    for i in range(1, 5):
        ev.append({"event": "step", "run_id": run_id, "time": 100.0 + i, "step": i, "epoch": i / 4, "loss": 3.0 - i / 4,
                   "lr": 1e-4, "grad_norm": 1.0, "samples_per_second": 4.0, "elapsed": float(i)})
        if i % 2 == 0:
            ev.append({"event": "eval", "run_id": run_id, "time": 100.0 + i, "step": i,
                       "metrics": {"f1": f1s[i // 2 - 1], "exact_match": 10.0}})
    ev.append({"event": "finished", "run_id": run_id, "time": 110.0, "metrics": {"f1": f1s[-1]}, "seconds": 10.0,
               "best_checkpoint": None, "stopped_early": False})
    (run / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in ev))
    return run


def test_past_runs_load_from_disk(qtbot, tmp_path):
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    _write_past_run(tmp_path / "runs", "old-run")
    (tmp_path / "runs" / "not-a-run").mkdir()
    outside = _write_past_run(tmp_path / "elsewhere", "other-run", f1s=(5.0, 6.0))
    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    qtbot.addWidget(w)
    qtbot.waitUntil(lambda: "old-run" in w.runs.all_ids(), timeout=10_000)
    s = w.runs.state("old-run")
    assert s.status == "finished" and s.best_metric() == ("f1", 35.5, 4) and w.runs.all_ids() == ["old-run"]
    assert not s.loaded and len(s.series["loss"]) == 1          # listed lazily: only the last step event read
    w.runs.select(["old-run"])
    qtbot.waitUntil(lambda: w.runs.state("old-run").loaded, timeout=10_000)   # curves read on selection
    w.curves.redraw_now()
    assert w.curves.point_count("old-run", "loss") == 4 and w.curves.point_count("old-run", "dev/f1") == 2
    w.open_run_folder(outside)                                   # File > Open run folder…
    qtbot.waitUntil(lambda: w.runs.selected_ids() == ["other-run"], timeout=10_000)
    w.curves.redraw_now()
    assert w.curves.point_count("other-run", "loss") == 4


def test_closing_with_an_active_run_asks(qtbot, tmp_path, monkeypatch):
    from explorer.core.specs.train_config import TrainConfig
    from explorer.ui.shell import main_window
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    qtbot.addWidget(w)
    w.show()
    w.manager.max_parallel = 0                  # keep the run queued: active, but no process needed
    (run_id,) = w.launch([TrainConfig(train="x.json", output_dir=str(tmp_path / "runs"))])
    asked = []
    answers = iter([None, "cancel"])
    monkeypatch.setattr(main_window, "ask_quit", lambda _w, running, queued, **_k: asked.append(queued) or next(answers))
    assert not w.close() and w.isVisible() and asked[0] == [run_id]
    assert w.manager.states[run_id].status == "queued"
    assert w.close() and len(asked) == 2 and w.manager.states[run_id].status == "cancelled"
    assert AppSettings(tmp_path / "s.ini").geometry() is not None       # window geometry remembered
    assert (tmp_path / "runs" / run_id / "config.json").is_file()      # the cancelled queued run stays listed


def test_app_names_and_temp_settings(qtbot, tmp_path):
    from PySide6.QtCore import QCoreApplication

    from explorer.ui.app import build_parser, create_window

    args = build_parser().parse_args(["--runs-dir", str(tmp_path / "r"), "--settings", str(tmp_path / "s.ini")])
    _app, w = create_window(args.runs_dir, args.settings, probe_device=False)
    qtbot.addWidget(w)
    assert QCoreApplication.applicationName() == "BERT Explorer"
    assert w.settings.file_name() == str(tmp_path / "s.ini") and w.runs_dir == tmp_path / "r"
    assert [w.tabs.tabText(i) for i in range(w.tabs.count())][:2] == ["Launch", "Curves"]
    names = [w.tabs.tabText(i) for i in range(w.tabs.count())]
    assert {"Groups", "Compare"} <= set(names), names   # the run-group tabs beside the inspectors
    view = next(a.menu() for a in w.menuBar().actions() if a.text() == "&View")
    listed = [a.text() for a in view.actions()]
    assert "Spans && τ" in names and "Spans && τ" in listed    # both show "Spans & τ" ("&&" is one "&")
    assert not any("&&&&" in t for t in listed), listed
    time.sleep(0)


def test_opened_run_folders_are_listed_again_after_a_restart(qtbot, tmp_path):
    """File > Open run folder is remembered in the settings and reloaded at start; a
    folder that no longer exists is skipped with a status-bar note and forgotten."""
    import shutil

    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    outside = _write_past_run(tmp_path / "elsewhere", "other-run")
    gone = _write_past_run(tmp_path / "usb", "gone-run")
    ini = tmp_path / "s.ini"
    w = MainWindow(tmp_path / "runs", AppSettings(ini), probe_device=False)
    qtbot.addWidget(w)
    for folder, run_id in ((outside, "other-run"), (gone, "gone-run")):
        w.open_run_folder(folder)
        qtbot.waitUntil(lambda rid=run_id: w.runs.selected_ids() == [rid], timeout=10_000)
    w.settings.sync()
    assert AppSettings(ini).opened_runs() == [str(outside.resolve()), str(gone.resolve())]
    shutil.rmtree(gone)

    again = MainWindow(tmp_path / "runs", AppSettings(ini), probe_device=False)
    qtbot.addWidget(again)
    qtbot.waitUntil(lambda: "other-run" in again.runs.all_ids(), timeout=10_000)
    assert "gone-run" not in again.runs.all_ids()
    assert "no longer exists and was skipped: " + str(gone.resolve()) in again.settings_note
    qtbot.waitUntil(lambda: "no longer exists" in again.statusBar().currentMessage(), timeout=10_000)
    assert again.settings.opened_runs() == [str(outside.resolve())]

"""GUI building blocks without child processes: smoothing, run state, curves, runs list, launcher form."""

from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest

pytest.importorskip("pytestqt")

from explorer.core.specs.train_config import TrainConfig  # noqa: E402
from explorer.ui.curves.plotmath import DEFAULT_SMOOTHING, ema_smooth, robust_range, smoothed  # noqa: E402
from explorer.ui.runs.state import RunState, Series, format_seconds, progress_text  # noqa: E402


# ---------------------------------------------------------------------------------- pure numbers
def test_ema_smooth_matches_tensorboard_by_hand():
    y = np.array([4.0, 2.0, 3.0])
    w = 0.5
    # last: 0.5*0+0.5*4=2 -> /(1-0.5)=4 ; 0.5*2+0.5*2=2 -> /(0.75)=2.6667 ; 0.5*2+0.5*3=2.5 -> /0.875=2.857142
    assert ema_smooth(y, w) == pytest.approx([4.0, 8 / 3, 2.5 / 0.875])
    assert ema_smooth(y, 0.0) == pytest.approx(y)
    with pytest.raises(ValueError):
        ema_smooth(y, 1.0)


def test_incremental_ema_equals_full_smoothing():
    from explorer.ui.curves.plotmath import IncrementalEMA

    y = np.random.default_rng(1).normal(3.0, 1.0, 3000)
    inc = IncrementalEMA()
    for n in (1, 2, 10, 777, 1500, 3000):       # the series grows between redraws
        assert np.allclose(inc.update(y[:n], 0.95), ema_smooth(y[:n], 0.95), rtol=0, atol=1e-12)
    assert np.allclose(inc.update(y[:50], 0.5), ema_smooth(y[:50], 0.5))   # weight change / shorter: recompute


def test_robust_range_ignores_a_spike_and_handles_log():
    y = np.concatenate([np.linspace(1.0, 2.0, 200), [1000.0]])
    lo, hi = robust_range([y])
    assert hi < 3.0 and lo > 0.8          # the spike at 1000 does not set the range
    llo, lhi = robust_range([np.array([0.0, -1.0, 10.0, 100.0])], lo_pct=0, hi_pct=100, log=True, pad=0)
    assert (llo, lhi) == pytest.approx((1.0, 2.0))   # log10 of the positive values only
    assert robust_range([np.array([])]) is None


def test_series_grows_and_finds_nearest():
    s = Series(capacity=2)
    for i in range(5):
        s.append(i * 10, i * i)
    assert len(s) == 5 and list(s.x) == [0, 10, 20, 30, 40]
    assert s.value_at(24) == (20.0, 4.0)
    assert s.value_at(26) == (30.0, 9.0)
    assert s.value_at(999) == (40.0, 16.0)


def _events(run_id="r1", steps=20, total=40, evals=(10, 20), finish=True, loss=lambda i: 5.0 - i * 0.1):
    t0 = 1000.0
    ev = [{"event": "started", "run_id": run_id, "time": t0, "config": {"model": "m", "task": "squad_v2"},
           "device": "cpu", "mixed_precision": "bf16", "num_parameters": 10, "steps_total": total}]
    for i in range(1, steps + 1):
        ev.append({"event": "step", "run_id": run_id, "time": t0 + i, "step": i, "epoch": i / total,
                   "loss": loss(i), "lr": 1e-4, "grad_norm": 1.0, "samples_per_second": 8.0, "elapsed": float(i)})
        if i in evals:
            ev.append({"event": "eval", "run_id": run_id, "time": t0 + i, "step": i,
                       "metrics": {"f1": 10.0 + i, "exact_match": 5.0 + i, "total": 35, "best_f1_thresh": None}})
    if finish:
        ev.append({"event": "finished", "run_id": run_id, "time": t0 + steps + 1, "metrics": {"f1": 30.0},
                   "seconds": 21.0, "best_checkpoint": "/x/best", "stopped_early": False})
    return ev


def test_run_state_from_events():
    s = RunState.from_events("r1", _events())
    assert s.status == "finished" and s.steps_total == 40 and s.step == 20
    assert len(s.series["loss"]) == 20 and s.series["loss"].y[-1] == pytest.approx(3.0)
    assert "dev/total" not in s.series and "dev/best_f1_thresh" not in s.series   # counts and nulls skipped
    assert s.best_metric() == ("f1", 30.0, 20)
    assert s.best_checkpoint_path() == "/x/best" and s.duration == 21.0
    live = RunState.from_events("r2", _events(finish=False), alive=True)
    assert live.status == "running" and live.eta() == pytest.approx(20.0)   # 20 s for 20 steps, 20 to go
    assert "step 20 of 40" in progress_text(live) and "remaining 0:20" in progress_text(live)
    dead = RunState.from_events("r3", _events(finish=False))
    assert dead.status == "crashed"
    # an ended run whose files hold no times (an HF Trainer folder without its end summary) shows no
    # "elapsed 0:00"; a live run at its start does
    untimed = RunState.from_events("hf", [{"event": "step", "run_id": "hf", "time": 0, "step": 6, "loss": 1.0}])
    assert untimed.live_elapsed() == 0 and "elapsed" not in progress_text(untimed)
    assert "elapsed 0:00" in progress_text(RunState.from_events("r4", [{"event": "started", "run_id": "r4",
                                                                        "time": 0.0}], alive=True), now=0.0)
    assert format_seconds(3725) == "1:02:05" and format_seconds(65) == "1:05"


def test_time_budgeted_run_progress_says_estimate_and_budget_left():
    """A budgeted run shows no total until the worker's estimate, then '~' and the budget trained (never 'step 0
    of 13,292', the epochs cap, with an x axis to 13,000 before the first estimate)."""
    cfg = {"time_budget_minutes": 30.0}
    events = [{"event": "started", "run_id": "b", "time": 1.0, "steps_total": 13292, "config": cfg}]
    state = RunState.from_events("b", events, alive=True)
    assert state.steps_total == 0 and progress_text(state).startswith("step 0 · 0:00 of 30:00 budget trained")
    events.append({"event": "step", "run_id": "b", "time": 130.0, "step": 10, "loss": 2.0, "elapsed": 129.0,
                   "train_seconds": 120.0, "steps_total": 150})
    state = RunState.from_events("b", events, alive=True)
    assert state.steps_total == 150 and state.eta() == pytest.approx(30 * 60 - 120)   # the budget left
    assert "step 10 of ~150 · 2:00 of 30:00 budget trained" in progress_text(state)
    assert "remaining 28:00" in progress_text(state)


# ---------------------------------------------------------------------------------- widgets
@pytest.fixture
def curves(qtbot):
    from helpers import shown_curves_panel

    return shown_curves_panel(qtbot, 1000, 800)


def test_curves_overlay_smoothing_and_crosshair(curves):
    a, b = RunState.from_events("run-a", _events("run-a")), RunState.from_events("run-b", _events("run-b", steps=10))
    curves.set_runs([a, b])
    curves.redraw_now()
    assert curves.point_count("run-a", "loss") == 20 and curves.point_count("run-b", "loss") == 10
    assert curves.point_count("run-a", "dev/f1") == 2 and "dev/exact_match" in curves.panels
    loss = curves.panels["loss"]
    raw_y = np.asarray(loss.raw_items["run-a"].yData)
    curves.smooth.setValue(0)
    curves.redraw_now()
    assert np.asarray(loss.items["run-a"].yData) == pytest.approx(raw_y)
    curves.smooth.setValue(90)
    curves.redraw_now()
    assert np.asarray(loss.items["run-a"].yData) == pytest.approx(ema_smooth(raw_y, 0.9))
    curves.set_crosshair(10)
    assert "</span> 4 <span" in curves.panels["loss"].header.text()   # raw loss at step 10: 5 - 10 * 0.1
    assert "run-a" in curves.legend.text() and "run-b" in curves.legend.text()
    curves.set_runs([b])
    curves.redraw_now()
    assert "run-a" not in loss.items and curves.point_count("run-b", "loss") == 10


def test_curves_live_growth_window_outliers_and_log(curves, qtbot):
    s = RunState.from_events("live", _events("live", steps=5, total=400, finish=False), alive=True)
    curves.set_runs([s])
    qtbot.waitUntil(lambda: curves.point_count("live", "loss") == 5, timeout=60_000)   # staggered, no redraw_now
    for ev in _events("live", steps=300, total=400, finish=False, loss=lambda i: 2.0 + 250.0 / (100 + i))[6:]:
        changed = s.apply(ev)
        curves.run_updated("live", changed)
    qtbot.waitUntil(lambda: curves.point_count("live", "loss") == 300, timeout=60_000)
    s.series["grad_norm"].append(301, 1e6)       # one huge spike
    curves.outlier_box.setChecked(True)
    curves.redraw_now()
    y_lo, y_hi = curves.panels["grad_norm"].plot.getViewBox().viewRange()[1]
    assert y_hi < 10                              # the spike does not set the range
    curves.last_n.setValue(50)
    curves.redraw_now()
    x_lo, x_hi = curves.panels["loss"].plot.getViewBox().viewRange()[0]
    assert 240 <= x_lo <= 252 and 300 <= x_hi <= 302
    curves.log_box.setChecked(True)
    curves.redraw_now()
    y_lo, y_hi = curves.panels["loss"].plot.getViewBox().viewRange()[1]   # log10 units of loss 2.6..2.7
    assert math.log10(2.55) < y_lo < math.log10(2.65) < math.log10(2.7) < y_hi < math.log10(2.8)
    assert curves.panels["loss"].plot.ctrl.logYCheck.isChecked()
    assert not curves.panels["dev/f1"].plot.ctrl.logYCheck.isChecked()   # metrics in percent stay linear
    assert "step 300 of 400" in curves.progress_label.text()


def test_curves_export_csv_and_png(curves, qtbot, tmp_path):
    curves.set_runs([RunState.from_events("run-a", _events("run-a", steps=3, evals=(2,)))])
    done = []
    curves.export_csv(tmp_path / "c.csv", on_done=done.append)
    qtbot.waitUntil(lambda: bool(done), timeout=60_000)
    rows = list(csv.DictReader(open(tmp_path / "c.csv", encoding="utf-8")))
    assert done == [len(rows)] and len(rows) == 3 * 4 + 2   # 4 train series x 3 steps + f1, EM at step 2
    loss = [r for r in rows if r["series"] == "loss"]
    assert [(r["step"], float(r["value"])) for r in loss] == [("1", 4.9), ("2", 4.8), ("3", 4.7)]
    assert curves.export_png(tmp_path / "c.png") and (tmp_path / "c.png").stat().st_size > 5000


def test_runs_panel_selection_and_failed_error(qtbot):
    from explorer.ui.runs.dock import RunsPanel

    p = RunsPanel()
    qtbot.addWidget(p)
    p.show()
    ok = RunState.from_events("ok", _events("ok"))
    bad = RunState.from_events("bad", _events("bad", finish=False) + [
        {"event": "failed", "run_id": "bad", "error": "out of memory at step 20", "traceback": "Traceback: ..."}])
    p.upsert(ok)
    p.upsert(bad)
    assert p.model.rowCount() == 2
    row_ok = p.model.rows.index(ok)
    assert p.model.data(p.model.index(row_ok, 2)) == "30.00% F1"  # best dev metric, percent, the number first
    assert "@20" in p.model.data(p.model.index(row_ok, 2), 3)     # the step of checkpoints/best: in the tooltip
    from explorer.ui.runs.dock import COLUMNS

    assert p.model.data(p.model.index(row_ok, COLUMNS.index("Duration"))) == "0:21"
    assert p.model.data(p.model.index(row_ok, COLUMNS.index("Step"))) == "20/40"
    with qtbot.waitSignal(p.selection_changed) as sig:
        p.select(["bad"])
    assert sig.args == [["bad"]]
    assert p.error_btn.isEnabled() and "out of memory at step 20" in p.error_label.text()
    assert not p.stop_btn.isEnabled() and not p.cancel_btn.isEnabled()
    dlg = p.show_error()
    text = dlg.layout().itemAt(0).widget().toPlainText()
    assert "out of memory at step 20" in text and "Traceback: ..." in text
    dlg.close()


def test_the_error_dialog_wraps_a_long_message_at_its_width(qtbot):
    """A 400-character message is read whole in the Show error… dialog at 1280x800: its lines wrap at the dialog's
    width, with no horizontal scrollbar to scroll along one line."""
    from PySide6.QtWidgets import QPlainTextEdit, QWidget

    from explorer.ui.runs.dock import ErrorDialog

    window = QWidget()
    qtbot.addWidget(window)
    window.resize(1280, 800)
    words = "the 1-minute budget leaves no time to train: raise the time budget or set a Dev cap, "
    message = (words * 6)[:400]
    state = RunState.from_events("bad", _events("bad", finish=False) + [
        {"event": "failed", "run_id": "bad", "error": message, "traceback": ""}])
    dlg = ErrorDialog(state, window)   # closed with its parent
    dlg.show()
    qtbot.waitExposed(dlg)
    assert dlg.width() <= 1280 and dlg.height() <= 800
    assert dlg.text.lineWrapMode() == QPlainTextEdit.LineWrapMode.WidgetWidth
    qtbot.waitUntil(lambda: dlg.text.document().blockCount() >= 1, timeout=5000)
    assert dlg.text.horizontalScrollBar().maximum() == 0
    assert message in dlg.text.toPlainText()


def test_launcher_defaults_presets_command_and_json(qtbot, tmp_path):
    from explorer.paths import SAMPLES
    from explorer.ui.launch.launcher import LauncherPanel, command_line

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    cfg = w.config()
    assert cfg.model == "bundled:minilm" and cfg.task == "squad_v1"   # answerable sample: learns spans fast
    assert cfg.train.startswith(str(SAMPLES)) and cfg.dev.startswith(str(SAMPLES))
    assert cfg.max_seq_length == 256 and cfg.learning_rate == 1e-4 and cfg.output_dir == str(tmp_path / "runs")
    assert w.launch_btn.isEnabled() and cfg.watch[0]["question"] == "Where was Ada born?"
    # the form edits the config; fields not in the form are kept from the loaded config
    w.set_config(TrainConfig(model="bundled:minilm", task="squad_v1", train="t.json", adam_beta2=0.98))
    w.editors["batch_size"].set(16)
    w.editors["learning_rate"].set(5e-5)
    w.editors["model"].set("bert-base-uncased")
    cfg = w.config()
    assert (cfg.batch_size, cfg.learning_rate, cfg.model, cfg.adam_beta2) == (16, 5e-5, "bert-base-uncased", 0.98)
    cmd = w.command.toPlainText()
    assert cmd == command_line(cfg) and cmd.startswith("bert-explorer train ")
    assert "--batch-size 16" in cmd and "--learning-rate 5e-05" in cmd and "--adam-beta2 0.98" in cmd
    w.editors["train"].set("")
    assert not w.launch_btn.isEnabled() and "train data is empty" in w.problem.text()
    w.apply_preset("hub_squad2")
    cfg = w.config()
    assert (cfg.model, cfg.train, cfg.task) == ("bert-base-uncased", "rajpurkar/squad_v2", "squad_v2")
    w.apply_preset("hub_mrpc")
    assert w.config().train == "nyu-mll/glue::mrpc" and not w.editors["doc_stride"].widget.isEnabled()
    w.save_json(tmp_path / "run.json")
    assert json.loads((tmp_path / "run.json").read_text())["train"] == "nyu-mll/glue::mrpc"
    w.apply_preset("offline")
    w.load_json(tmp_path / "run.json")
    assert w.config().task == "pair"
    with qtbot.waitSignal(w.launch_requested) as sig:
        w.queue_grid(confirm=False)
    configs, suffixes = sig.args
    assert len(configs) == 24 and {c.learning_rate for c in configs} == {5e-5, 4e-5, 3e-5, 2e-5}
    assert suffixes[0] == "-bs16-lr5e-05-ep2"


def test_data_preview_counts_and_problems(qtbot, tmp_path):
    from explorer.ui.launch.preview import DataPreview

    good = tmp_path / "good.json"
    good.write_text(json.dumps({"version": "v2.0", "data": [{"title": "T", "paragraphs": [
        {"context": "Ada was born in London.", "qas": [
            {"id": "a", "question": "Where was Ada born?", "answers": [{"text": "London", "answer_start": 16}]},
            {"id": "b", "question": "Who?", "answers": [{"text": "Paris", "answer_start": 0}]},
            {"id": "c", "question": "When?", "answers": [], "is_impossible": True}]}]}]}))
    p = DataPreview("train")
    qtbot.addWidget(p)
    with qtbot.waitSignal(p.finished, timeout=60000) as sig:
        p.request(str(good), "squad_v2")
    res = sig.args[0]
    # training data loads as the run loads it: 'Paris' is not in the context, so 'b' is dropped and counted
    assert res["ok"] and res["counts"]["questions"] == 2 and res["counts"]["unanswerable"] == 1
    assert res["counts"]["dropped"] == 1 and res["answer_check"].startswith("0 answers repaired, 1 dropped")
    assert len(res["problems"]) == 2 and all("id 'b'" in x for x in res["problems"])
    assert "2 problem" in p.problems.text() and "id 'b'" in p.problems.text()
    assert "0 answers repaired, 1 dropped" in p.summary.text()
    assert p.table.rowCount() == 2 and p.table.item(0, 0).text() == "Where was Ada born?"
    dev = DataPreview("validation")  # dev data is scored as given: nothing dropped, the problem listed
    qtbot.addWidget(dev)
    with qtbot.waitSignal(dev.finished, timeout=60000) as sig:
        dev.request(str(good), "squad_v2")
    assert sig.args[0]["counts"]["questions"] == 3 and "kept as given" in sig.args[0]["answer_check"]
    with qtbot.waitSignal(p.finished, timeout=60000) as sig:
        p.request(str(tmp_path / "missing.json"), "squad_v2")
    assert not sig.args[0]["ok"] and "missing.json" in p.summary.text()
    p.request("rajpurkar/squad_v2", "squad_v2")                    # hub ids are not fetched on their own
    assert "Hub dataset" in p.summary.text() and not p.fetch_btn.isHidden()


def test_settings_go_to_the_given_file(tmp_path):
    from explorer.ui.shell.settings import AppSettings

    s = AppSettings(tmp_path / "s.ini")
    s.set_last_dir("data", "/data")
    s.set_last_config({"model": "x"})
    s.sync()
    assert (tmp_path / "s.ini").is_file() and AppSettings(tmp_path / "s.ini").last_dir("data") == "/data"
    assert AppSettings(tmp_path / "s.ini").last_config() == {"model": "x"}


def test_run_process_parses_stdout_and_reports_a_silent_exit(qtbot, tmp_path, monkeypatch):
    """A stand-in worker: two events, a library warning on stdout, stderr text, then exit 3 without
    a result -> the GUI synthesises `failed` (naming the exit code and the last stderr line) and
    appends it to the run's events.jsonl."""
    import sys

    from explorer.ui.runs import runner as process

    script = tmp_path / "fake_worker.py"
    script.write_text(
        "import json, sys\n"
        "print(json.dumps({'event': 'started', 'run_id': 'r', 'steps_total': 3, 'device': 'cpu'}))\n"
        "print('Some weights were not initialized')\n"
        "print(json.dumps({'event': 'step', 'run_id': 'r', 'step': 1, 'loss': 2.5}), flush=True)\n"
        "sys.stderr.write('RuntimeError: boom\\n')\n"
        "sys.exit(3)\n")
    monkeypatch.setattr(process, "worker_command", lambda path: [sys.executable, str(script)])
    cfg = TrainConfig(train="x.json", output_dir=str(tmp_path / "runs"), run_id="r")
    (tmp_path / "runs" / "r").mkdir(parents=True)
    proc = process.RunProcess(cfg, tmp_path / "cfg.json")
    events = []
    proc.event.connect(events.append)
    with qtbot.waitSignal(proc.ended, timeout=20_000) as sig:
        proc.start()
    assert sig.args == ["failed"]
    assert [e["event"] for e in events] == ["started", "step", "failed"]
    assert "exited with code 3" in events[-1]["error"] and "RuntimeError: boom" in events[-1]["error"]
    assert "Some weights were not initialized" in proc.stderr
    logged = (tmp_path / "runs" / "r" / "events.jsonl").read_text()
    assert '"event":"failed"' in logged
    proc.stop_early()
    assert (tmp_path / "runs" / "r" / "STOP").is_file()


def test_a_worker_killed_between_its_log_and_stdout_loses_no_event(qtbot, tmp_path, monkeypatch):
    """The worker appends each event to events.jsonl, then prints it. A stand-in that wrote three steps to the
    file and printed two before it died: the window receives the third from the file, before the failure."""
    import sys

    from explorer.core.protocol.events import EventWriter
    from explorer.ui.runs import runner as process

    run_dir = tmp_path / "runs" / "r"
    run_dir.mkdir(parents=True)
    writer = EventWriter("r", path=run_dir / "events.jsonl")
    printed = [writer.emit("started", steps_total=3, device="cpu")]
    printed += [writer.emit("step", step=i, loss=3.0 - i) for i in (1, 2)]
    writer.emit("step", step=3, loss=0.5)
    writer.close()
    script = tmp_path / "fake_worker.py"
    script.write_text("import json, os, signal\n"
                      + "".join(f"print(json.dumps({ev!r}), flush=True)\n" for ev in printed)
                      + "os.kill(os.getpid(), signal.SIGKILL)\n")
    monkeypatch.setattr(process, "worker_command", lambda path: [sys.executable, str(script)])
    proc = process.RunProcess(TrainConfig(train="x.json", output_dir=str(tmp_path / "runs"), run_id="r"),
                              tmp_path / "cfg.json")
    events = []
    proc.event.connect(events.append)
    with qtbot.waitSignal(proc.ended, timeout=20_000) as sig:
        proc.start()
    assert sig.args == ["failed"]
    assert [(e["event"], e.get("step")) for e in events[:4]] == [("started", None), ("step", 1), ("step", 2),
                                                                  ("step", 3)]
    assert events[-1]["event"] == "failed" and events[-1]["seq"] == 5
    on_disk = process.read_events(run_dir / "events.jsonl")
    assert [e["seq"] for e in on_disk] == [1, 2, 3, 4, 5]


def test_the_event_seq_and_the_budget_bookkeeping_are_not_curves():
    from explorer.ui.runs.state import RunState

    s = RunState.from_events("r", [{"event": "step", "run_id": "r", "time": 1.0, "seq": 7, "step": 1, "loss": 2.0,
                                    "grad_norm_embeddings": 0.5, "train_seconds": 3.0, "train_budget": 480.0}])
    assert "loss" in s.series and "grad_norm_embeddings" in s.series
    assert not {"seq", "train_seconds", "train_budget"} & set(s.series)


def test_a_series_keeps_whether_its_steps_only_grow_and_how_many_values_are_not_finite():
    s = Series(capacity=2)
    for x, y in ((1, 0.5), (2, math.nan), (2, 1.0), (3, math.inf)):
        s.append(x, y)
    assert s.steps_sorted and s.nonfinite == 2
    s.extend(np.array([4.0, 5.0]), np.array([1.0, -np.inf]))
    assert s.steps_sorted and s.nonfinite == 3 and len(s) == 6
    s.extend(np.array([4.5]), np.array([2.0]))                 # goes back across the two appends
    assert not s.steps_sorted
    t = Series()
    t.extend(np.array([1.0, 3.0, 2.0]), np.zeros(3))            # goes back inside one extend
    assert not t.steps_sorted and t.nonfinite == 0
    u = Series()
    u.append(5.0, 1.0)
    u.append(4.0, 1.0)
    assert not u.steps_sorted


def test_the_smoothed_loss_is_computed_where_the_run_is_read_and_kept_with_the_series(tmp_path, monkeypatch):
    from explorer.ui.curves import plotmath
    from explorer.ui.runs.store import load_run_state

    run_dir = tmp_path / "runs" / "r1"
    run_dir.mkdir(parents=True)
    (run_dir / "config.json").write_text(json.dumps({"model": "m", "task": "squad_v1", "run_id": "r1"}))
    lines = [{"event": "started", "run_id": "r1", "time": 1.0, "steps_total": 400}]
    losses = 3.0 + np.sin(np.arange(300))
    lines += [{"event": "step", "run_id": "r1", "time": 1.0 + s, "step": s, "loss": float(losses[s - 1])}
              for s in range(1, 301)]
    (run_dir / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in lines))
    state = load_run_state(run_dir)             # the reader thread's call
    loss = state.series["loss"]
    ema = loss.derived["ema"]
    assert ema.weight == DEFAULT_SMOOTHING
    np.testing.assert_array_equal(ema.out, ema_smooth(loss.y, DEFAULT_SMOOTHING))
    calls = []
    monkeypatch.setattr(plotmath.IncrementalEMA, "_smooth_new",
                        lambda self, new, w, orig=plotmath.IncrementalEMA._smooth_new: (calls.append(len(new)),
                                                                                         orig(self, new, w))[1])
    values, generation = smoothed(loss, DEFAULT_SMOOTHING)
    assert np.shares_memory(values, ema.out) and calls == []    # nothing computed again
    state.apply({"event": "step", "step": 301, "loss": 9.0})
    values, _ = smoothed(loss, DEFAULT_SMOOTHING)
    assert calls == [1]                          # only the new point
    np.testing.assert_array_equal(values, ema_smooth(loss.y, DEFAULT_SMOOTHING))
    values, later = smoothed(loss, 0.9)         # another weight: computed again, a new generation
    assert later != generation and calls[-1] == 301
    np.testing.assert_allclose(values, ema_smooth(loss.y, 0.9), rtol=0, atol=1e-12)

"""The Runs dock: lazy listing with a loading note, readable names, rename / delete, sizes and clean-ups, the paper
grid's confirmation, cancelled queued runs kept, the columns whole at 1280x800, and the greyed "Open best
checkpoint" that says why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtWidgets import QInputDialog, QMessageBox  # noqa: E402

from explorer.core.specs.train_config import TrainConfig  # noqa: E402
from explorer.ui.runs import names as run_names  # noqa: E402
from explorer.ui.runs import disk as run_disk
from explorer.ui.runs.store import load_summaries, load_summary  # noqa: E402

WAIT_MS = 120_000   # the ceiling of every wait below: a hung read or signal, never a speed figure (10 s ran
                    # out at load 13 on the 2-core machine); each wait ends as soon as its condition holds


def write_run(folder: Path, run_id: str, *, lr=5e-5, bs=32, ep=3.0, steps=50, f1s=(10.0, 30.0, 20.0),
              checkpoints=True) -> Path:
    run = folder / run_id
    run.mkdir(parents=True)
    cfg = {"run_id": run_id, "model": "bundled:minilm", "task": "squad_v2", "train": "t.json",
           "learning_rate": lr, "batch_size": bs, "epochs": ep, "seed": 42}
    (run / "config.json").write_text(json.dumps(cfg))
    ev = [{"event": "started", "run_id": run_id, "time": 100.0, "steps_total": steps}]
    for i in range(1, steps + 1):
        ev.append({"event": "step", "run_id": run_id, "time": 100.0 + i, "step": i, "loss": 3.0,
                   "samples_per_second": 4.0 + (i % 3), "elapsed": float(i)})
        if i % (steps // len(f1s)) == 0 and i // (steps // len(f1s)) <= len(f1s):
            ev.append({"event": "eval", "run_id": run_id, "time": 100.0 + i, "step": i,
                       "metrics": {"f1": f1s[i // (steps // len(f1s)) - 1]}})
    ev.append({"event": "finished", "run_id": run_id, "time": 200.0, "metrics": {}, "seconds": 100.0})
    (run / "events.jsonl").write_text("".join(json.dumps(e, separators=(",", ":")) + "\n" for e in ev))
    if checkpoints:
        for kind in ("last", "best"):
            ck = run / "checkpoints" / kind
            ck.mkdir(parents=True)
            (ck / "model.safetensors").write_bytes(b"m" * 1000)
            (ck / "training_state.pt").write_bytes(b"o" * 2000)
            (ck / "checkpoint.json").write_text("{}")
    return run


def test_summary_reads_status_and_best_without_the_step_events(tmp_path):
    write_run(tmp_path, "20261130-101500-minilm-squad_v2")
    s = load_summary(tmp_path / "20261130-101500-minilm-squad_v2")
    assert s.status == "finished" and not s.loaded
    assert s.best_metric() == ("f1", 30.0, 32) and s.step == 50 and s.steps_total == 50
    assert len(s.series["loss"]) == 1                          # only the last step event
    states, problems = load_summaries(tmp_path)
    assert [x.run_id for x in states] == [s.run_id] and problems == []


def test_short_names_show_what_differs_and_user_names_win():
    base = {"model": "bundled:minilm", "task": "squad_v2", "train": "t.json", "batch_size": 32, "epochs": 3.0}
    runs = {"20261130-101500-minilm-squad_v2-bs32-lr5e-05-ep3": dict(base, learning_rate=5e-5),
            "20261130-101600-minilm-squad_v2-bs32-lr3e-05-ep3": dict(base, learning_rate=3e-5),
            "20261130-111700-minilm-pair": dict(base, task="pair", train="m.tsv", learning_rate=2e-5)}
    names = run_names.short_names(runs, {"20261130-101600-minilm-squad_v2-bs32-lr3e-05-ep3": "my best"})
    assert names["20261130-101500-minilm-squad_v2-bs32-lr5e-05-ep3"] == "minilm · squad_v2 · t · lr5e-05"   # differs
    assert names["20261130-101600-minilm-squad_v2-bs32-lr3e-05-ep3"] == "my best"
    assert names["20261130-111700-minilm-pair"] == "minilm · pair · m"    # alone: the model, task and data file
    a, b = "20261130-101500-bert-squad_v2", "20261130-101600-minilm-pair"
    other = run_names.short_names({a: dict(base, model="bert-base-uncased"), b: dict(base, task="pair")})
    assert other == {a: "bert-base-uncased · squad_v2 · t", b: "minilm · pair · t"}   # the same rule
    twins = run_names.short_names({"20261130-101500-a": base, "20261130-121600-b": base})
    assert twins == {"20261130-101500-a": "minilm · squad_v2 · t · 10:15",      # same settings: the time
                     "20261130-121600-b": "minilm · squad_v2 · t · 12:16"}


def test_model_label_of_a_checkpoint_names_its_run(tmp_path):
    run = write_run(tmp_path, "20261130-101500-minilm-squad_v2")
    assert run_names.model_label(str(run / "checkpoints" / "best")) == "minilm-ft"
    assert run_names.model_label("bert-base-uncased") == "bert-base-uncased"
    from explorer.ui.runs.runner import make_run_id

    cfg = TrainConfig(model=str(run / "checkpoints" / "best"), task="squad_v2")
    assert "-best-" not in make_run_id(cfg, set(), tmp_path) and "minilm-ft-squad_v2" in make_run_id(cfg, set(), tmp_path)


def test_sizes_count_hard_links_once_and_clean_ups(tmp_path):
    run = write_run(tmp_path, "r1")
    (run / "checkpoints" / "best" / "model.safetensors").unlink()
    (run / "checkpoints" / "best" / "model.safetensors").hardlink_to(run / "checkpoints" / "last" / "model.safetensors")
    total = run_disk.disk_usage(run)
    assert total == run_disk.disk_usage(run / "checkpoints") + sum(
        p.stat().st_size for p in run.iterdir() if p.is_file())
    assert run_disk.disk_usage(run / "checkpoints") == 1000 + 2000 * 2 + 4    # the linked model once
    before, after = run_disk.delete_optimizer_state(run)
    assert before - after == 4000 and not run_disk.optimizer_state_files(run)
    before, after = run_disk.keep_only_best(run)
    assert not (run / "checkpoints" / "last").exists() and (run / "checkpoints" / "best").is_dir()
    assert after == before - 2                                               # the link stays with best
    assert run_disk.format_size(519_000_000) == "519 MB" and run_disk.format_size(1536) == "1.5 KB"
    with pytest.raises(FileNotFoundError, match="best"):
        run_disk.keep_only_best(write_run(tmp_path, "r2", checkpoints=False))


@pytest.fixture
def window(qtbot, tmp_path):
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    runs = tmp_path / "runs"
    write_run(runs, "20261130-101500-minilm-squad_v2-bs32-lr5e-05-ep3")
    write_run(runs, "20261130-101600-minilm-squad_v2-bs32-lr3e-05-ep3", lr=3e-5)
    w = MainWindow(runs, AppSettings(tmp_path / "s.ini"), probe_device=False)
    w.manager.max_parallel = 0
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
    return w


def test_loading_note_never_says_no_runs_while_reading(window, qtbot):
    window.scan_runs()   # a fresh read (the constructor's may be done already on a fast machine)
    assert window.runs.note.text() == "Loading runs…"          # the read runs on a worker thread
    qtbot.waitUntil(lambda: len(window.runs.all_ids()) == 2 and not window.runs.loading, timeout=WAIT_MS)
    assert window.runs.note.isHidden()
    window.runs.set_loading(False)
    for rid in window.runs.all_ids():
        window.runs.model.remove(rid)
    window.runs._update_buttons()
    assert "No runs in this folder yet" in window.runs.note.text()


def test_names_sizes_rename_delete(window, qtbot, monkeypatch):
    qtbot.waitUntil(lambda: len(window.runs.all_ids()) == 2, timeout=WAIT_MS)
    model = window.runs.model
    texts = sorted(model.data(model.index(i, 0)) for i in range(2))
    assert [t.split(" · ")[-1] for t in texts] == ["lr3e-05", "lr5e-05"]
    assert all(t.startswith("minilm · squad_v2 · ") for t in texts), texts
    tip = model.data(model.index(0, 0), role=3)  # ToolTipRole
    assert model.rows[0].run_id in tip
    qtbot.waitUntil(lambda: len(model.sizes) == 2, timeout=WAIT_MS)
    size_col = list(model.__class__.__module__ and __import__("explorer.ui.runs.dock", fromlist=["x"]).COLUMNS).index("Size")
    assert model.data(model.index(0, size_col)).endswith("KB")

    rid = model.rows[0].run_id
    window.runs.select([rid])
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("baseline", True))
    assert window.runs.rename_selected()
    assert run_names.display_name(window.runs_dir / rid) == "baseline"
    assert model.data(model.index(0, 0)) == "baseline"
    qtbot.waitUntil(lambda: "baseline" in window.curves.legend.text(), timeout=60_000)   # the legend follows

    menu = window.runs.context_menu(window.runs._selected_states())
    enabled = {a.text(): a.isEnabled() for a in menu.actions() if a.text()}
    assert enabled["Keep only best checkpoint…"] and enabled["Delete optimizer state…"] and enabled["Delete…"]
    assert "Predict on a file…" in enabled

    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a[2]) or QMessageBox.StandardButton.Yes)
    assert window.runs.delete_optimizer_state_selected()
    qtbot.waitUntil(lambda: not run_disk.optimizer_state_files(window.runs_dir / rid), timeout=WAIT_MS)
    assert "can no longer be resumed" in asked[-1]
    assert window.runs.delete_selected()
    assert rid not in window.runs.all_ids() and not (window.runs_dir / rid).exists()
    assert (window.runs_dir / ".trash" / rid / "config.json").is_file()      # moved, not lost
    assert "Delete 1 run(s)" in asked[-1]


def test_paper_grid_confirmation_gives_count_and_estimate(window, qtbot, monkeypatch):
    qtbot.waitUntil(lambda: len(window.runs.all_ids()) == 2, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: window.launcher.train_examples() is not None, timeout=WAIT_MS)   # the preview child process
    n = window.launcher.train_examples()
    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a[2]) or QMessageBox.StandardButton.No)
    assert not window.launcher.queue_grid()
    assert not window.manager.states                                   # nothing queued without a yes
    text = asked[0]
    assert text.startswith("Queue 24 runs") and "Estimated time: at least" in text
    assert "median of 2 past run(s)" in text and "6.0 samples/s" in text   # listed runs: their last step (4 + 50 % 3)
    from explorer.core.specs.train_config import paper_grid

    samples = sum(int(n * c.epochs) for c in paper_grid(window.launcher.config()))
    assert f"{samples:,} training samples" in text
    # the Launch tab's button and the Run menu's action ask too (their clicked(bool) / triggered(bool) once
    # arrived as confirm=False and queued 24 runs at once)
    window.launcher.grid_btn.click()
    menu_action = next(a for m in window.menuBar().actions() for a in m.menu().actions()
                       if a.text() == "Queue paper &grid")
    menu_action.trigger()
    assert len(asked) == 3 and not window.manager.states
    # a yes queues the grid as a run group (the Groups tab's planner), not as 24 loose runs
    grouped, flat = [], []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    monkeypatch.setattr(window.launcher, "group_grid", lambda: grouped.append(1) or True)
    window.launcher.launch_requested.connect(lambda *a: flat.append(a))
    window.launcher.grid_btn.click()
    assert grouped == [1] and flat == []


def test_cancelled_queued_run_stays_listed(window, qtbot, tmp_path):
    qtbot.waitUntil(lambda: len(window.runs.all_ids()) == 2, timeout=WAIT_MS)
    (rid,) = window.launch([TrainConfig(train="x.json", output_dir=str(window.runs_dir))])
    window.manager.cancel(rid)
    assert rid in window.runs.all_ids()
    model = window.runs.model
    row = next(i for i, s in enumerate(model.rows) if s.run_id == rid)
    assert model.data(model.index(row, 1)) == "cancelled (queued)"
    again = load_summary(window.runs_dir / rid)                          # after a restart too
    assert again.status == "cancelled" and model.status_text(again) == "cancelled (queued)"


def test_open_best_checkpoint_fills_a_dev_question(window, qtbot, tmp_path, monkeypatch):
    from explorer.ui.runs.examples import example_for_run

    dev = tmp_path / "dev.json"
    dev.write_text(json.dumps({"version": "v2.0", "data": [{"title": "t", "paragraphs": [
        {"context": "Nobody knows.", "qas": [{"id": "a", "question": "Who?", "answers": [], "is_impossible": True}]},
        {"context": "Paris is the capital of France.",
         "qas": [{"id": "b", "question": "What is the capital?", "answers": [{"text": "Paris", "answer_start": 0}]}]},
    ]}]}))
    assert example_for_run({"dev": str(dev)}) == ("What is the capital?", "Paris is the capital of France.")
    assert example_for_run({"dev": "missing.json", "watch": [{"question": "Q?", "passage": "P."}]}) == ("Q?", "P.")
    qtbot.waitUntil(lambda: len(window.runs.all_ids()) == 2, timeout=WAIT_MS)
    state = window.runs.model.rows[0]
    state.config["dev"] = str(dev)
    opened = []
    monkeypatch.setattr(window.hub, "open_model", lambda path: opened.append(path))
    monkeypatch.setattr(window.hub, "open_example", lambda q, p: opened.append((q, p)))
    window.open_checkpoint(str(state.path / "checkpoints" / "best"))
    qtbot.waitUntil(lambda: len(opened) == 2, timeout=WAIT_MS)
    assert opened[1] == ("What is the capital?", "Paris is the capital of France.")


def test_status_bar_counts_a_run_running_in_another_process(window, qtbot):
    """A run left training when the app last quit is listed as running; the status bar says so."""
    qtbot.waitUntil(lambda: len(window.runs.all_ids()) == 2 and not window.runs.loading, timeout=WAIT_MS)
    assert "idle" in window.device_label.text() and window.activity_label.text() == ""
    state = window.runs.state(window.runs.all_ids()[0])
    state.status = "running"
    window._update_device_label()
    window._update_activity()
    assert "idle" not in window.device_label.text()
    assert window.activity_label.text().startswith("running: ")


def test_run_names_elide_at_their_end_with_the_whole_name_in_the_tooltip(qtbot):
    """A run name longer than the Run column reads from its start ("Twitter airl…"); no delegate elides it in its
    middle."""
    from PySide6.QtCore import Qt

    from explorer.ui.runs.dock import COLUMNS, RunsPanel

    panel = RunsPanel()
    qtbot.addWidget(panel)
    assert panel.table.itemDelegateForColumn(COLUMNS.index("Run")) is None   # the view's own: its elide mode
    assert panel.table.textElideMode() == Qt.TextElideMode.ElideRight


def test_the_status_count_says_what_the_dock_lists_beyond_the_folder(window, qtbot):
    """The status bar counts the runs the dock lists, a run opened from elsewhere too (never "4 runs in …" over a
    list of 5)."""
    qtbot.waitUntil(lambda: len(window.runs.all_ids()) == 2, timeout=WAIT_MS)
    one = [window.store.get(window.runs.all_ids()[0])]
    window.reading.scanned((one, []))
    text = window.statusBar().currentMessage()
    assert text.startswith("1 run in ") and "(2 listed with those opened from elsewhere or queued)" in text


def test_a_long_status_line_never_widens_the_window(window, qtbot):
    """During a run the status bar's activity and device labels give way to their short forms of whole words
    instead of asking the window for 1624 px on a 1280 px screen."""
    before = window.minimumSizeHint().width()
    window.activity_label.set_forms("running: " + "a-very-long-run-name-" * 12 + " step 120/400 · 1 running",
                                    "1 running")
    window.device_label.set_forms("device: CPU (2 threads) · fp32 on a-remote-host-with-a-long-name " * 3,
                                  "a-remote-host-with-a-long-name")
    window.resize(1264, 760)
    window.show()
    qtbot.waitUntil(lambda: window.activity_label.width() > 0)
    assert window.minimumSizeHint().width() <= max(before, 1264)
    assert window.activity_label.shown_text() == "1 running"


def test_typed_run_names_are_whole_in_the_default_dock_at_1280x800(qtbot, tmp_path):
    """A typed Run name ("stance-4") is whole in the Runs dock at 1280x800 and 1920x1080, never "st…-4": the names
    get the width the whole short columns leave (up to ~24 characters whole); Best dev shows its number first;
    the size moved into the Run tooltip."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication, QStyle

    from explorer.ui.runs.dock import COLUMNS
    from explorer.ui.shell.layout_check import header_need
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings
    from explorer.ui.shell.style import apply_style

    apply_style(QApplication.instance())
    typed = ["stance-4", "sst2-lr3e-5-bs32-seed42x", "mrpc-pairs-second-try"]
    for i, name in enumerate(typed):
        write_run(tmp_path / "runs", name, lr=5e-5 / (i + 1), f1s=(61.25, 72.5, 70.0))
    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    w.manager.max_parallel = 0
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
    w.show()
    qtbot.waitUntil(lambda: len(w.runs.all_ids()) == 3 and not w.runs.loading, timeout=10_000)
    table = w.runs.table
    margin = 2 * (table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, table) + 1)
    for size in ((1280, 800), (1920, 1080)):
        w.resize(*size)
        qtbot.waitUntil(lambda: table.viewport().width() > 0 and not w.runs._fit_timer.isActive())
        shown = {}
        for row in range(table.model().rowCount()):
            index = table.model().index(row, COLUMNS.index("Run"))
            text = index.data()
            shown[text] = table.visualRect(index).width() - margin - table.fontMetrics().horizontalAdvance(text)
        assert set(shown) == set(typed)
        assert all(room >= 0 for room in shown.values()), (size, shown)
        best = table.model().index(0, COLUMNS.index("Best dev"))
        assert best.data() == "72.50% F1"                  # the number first, then the metric
        room = table.visualRect(best).width() - margin - table.fontMetrics().horizontalAdvance(best.data())
        assert room >= 0, (size, room)                      # whole beside the names, and so is its title
        assert table.header().sectionSize(best.column()) >= header_need(table.header(), best.column(), "Best dev")
    run = table.model().index(0, COLUMNS.index("Run"))
    assert "size on disk: " in run.data(Qt.ItemDataRole.ToolTipRole)
    assert table.isColumnHidden(COLUMNS.index("Size"))


def test_a_run_another_process_starts_in_the_folder_is_listed_without_refresh(window, qtbot):
    """A CLI run started in the same runs folder is listed without Refresh: the folder is watched (a new run
    folder is listed when it appears); the external poll looks too (no change notices)."""
    qtbot.waitUntil(lambda: len(window.runs.all_ids()) == 2 and not window.runs.loading, timeout=10_000)
    window.reading.poll.stop()                                    # only the folder watch can list it
    write_run(window.runs_dir, "cli-run", checkpoints=False)
    qtbot.waitUntil(lambda: "cli-run" in window.runs.all_ids(), timeout=10_000)
    assert window.runs.state("cli-run").status == "finished"
    window.reading.watcher.removePaths(window.reading.watcher.directories())   # a file system without notices
    write_run(window.runs_dir, "cli-run-2", checkpoints=False)
    qtbot.waitUntil(lambda: not window.reading.looking)
    window.reading.poll_external()
    qtbot.waitUntil(lambda: "cli-run-2" in window.runs.all_ids(), timeout=10_000)
    assert window.reading.watcher.directories() == [str(window.runs_dir)]   # watched again
    assert sorted(window.runs.all_ids()).count("cli-run") == 1


def test_the_greyed_open_best_checkpoint_button_says_why_and_enables_at_the_first_checkpoint(qtbot, monkeypatch):
    """Greyed at step 8 of an SST-2 run (its first checkpoint comes at step 10), the button's tooltip says why and
    when it enables; it enables at the first checkpoint."""
    from explorer.ui.runs.dock import INSPECT_TIP, RunsPanel
    from explorer.ui.runs.state import RunState
    from explorer.ui.shell.tooltips import rich_tooltip

    dock = RunsPanel()
    qtbot.addWidget(dock)
    run = RunState(run_id="r1", status="running", config={"task": "single", "eval_every": 10})
    dock.upsert(run)
    monkeypatch.setattr(dock, "_selected_states", lambda: [run])
    dock._update_buttons()
    assert not dock.inspect_btn.isEnabled()
    tip = dock.inspect_tip([run])
    assert tip.startswith("No checkpoint yet: r1 saves checkpoints/best at its first evaluation") and "every 10" in tip
    assert dock.inspect_btn.toolTip() == rich_tooltip(tip)     # wrapped, not one 760-pixel line
    run.apply({"event": "checkpoint", "kind": "best", "step": 10, "path": "/runs/r1/checkpoints/best"})
    monkeypatch.setattr(dock, "selected_ids", lambda: ["r1"])
    dock.refresh("r1")                     # what the store's "changed" does for the selected run
    assert dock.inspect_btn.isEnabled() and dock.inspect_btn.toolTip() == rich_tooltip(INSPECT_TIP)
    queued = RunState(run_id="q1", status="queued", config={"task": "single"})
    assert dock.inspect_tip([queued]) == "q1 is queued: it saves its first checkpoint once it trains."
    assert "&&" not in INSPECT_TIP        # a tooltip is not a button label: no mnemonic escapes


def _classification_run(folder: Path, run_id: str, model: str, train: str, accuracy: float) -> None:
    import json

    run = folder / run_id
    run.mkdir(parents=True)
    (run / "config.json").write_text(json.dumps({"run_id": run_id, "model": model, "task": "single", "train": train,
                                                 "batch_size": 16, "learning_rate": 1e-4}))
    ev = [{"event": "started", "run_id": run_id, "time": 100.0, "steps_total": 50},
          {"event": "step", "run_id": run_id, "time": 101.0, "step": 1, "loss": 0.7},
          {"event": "eval", "run_id": run_id, "time": 102.0, "step": 50, "metrics": {"accuracy": accuracy}},
          {"event": "finished", "run_id": run_id, "time": 200.0, "metrics": {}, "seconds": 100.0}]
    (run / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in ev))


def test_best_dev_is_whole_beside_long_run_names_at_1280x800(qtbot, tmp_path):
    """At 1280x800 the Runs list's Best dev value and a short metric name ("79.25% acc") keep their width beside
    long run names ("minilm · single · train · 12-02 03:37"), never "79.25% a…"; a long name elides at its end."""
    from PySide6.QtWidgets import QApplication, QStyle

    from explorer.ui.runs.dock import COLUMNS
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings
    from explorer.ui.shell.style import apply_style

    apply_style(QApplication.instance())
    runs = tmp_path / "runs"
    same = "/data/tweets_about_politics.tsv"   # two runs of one recipe on one file: told apart by time
    _classification_run(runs, "20261202-032900-minilm-single-tweets", "bundled:minilm", same, 0.7925)
    _classification_run(runs, "20261202-033700-minilm-single-tweets", "bundled:minilm", same, 0.6263)
    _classification_run(runs, "20261202-040000-bert-base-uncased-single-x", "google-bert/bert-base-uncased",
                        "/data/x.tsv", 0.71)
    w = MainWindow(runs, AppSettings(tmp_path / "s.ini"), probe_device=False)
    w.manager.max_parallel = 0
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
    w.resize(1280, 800)
    w.show()
    table = w.runs.table
    qtbot.waitUntil(lambda: len(w.runs.all_ids()) == 3 and not w.runs.loading, timeout=10_000)
    qtbot.waitUntil(lambda: table.viewport().width() > 0 and not w.runs._fit_timer.isActive())
    margin = 2 * (table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, table) + 1)
    names = [table.model().index(r, COLUMNS.index("Run")).data() for r in range(3)]
    assert max(len(n) for n in names) > 30, names                  # names as long as a user's
    for row in range(3):
        best = table.model().index(row, COLUMNS.index("Best dev"))
        assert best.data().endswith("% acc"), best.data()
        room = table.visualRect(best).width() - margin - table.fontMetrics().horizontalAdvance(best.data())
        assert room >= 0, (best.data(), room)


def test_run_menu_entries_are_decided_without_qt():
    """The run menu's entries, in order, for an empty selection: Qt-free (explorer.ui.runs.run_menu)."""
    from explorer.ui.runs.run_menu import run_menu_entries
    from explorer.ui.runs.selection import RunSelection

    entries = run_menu_entries(RunSelection([]))
    labels = [e.label if e is not None else "-" for e in entries]
    assert labels[:3] == ["Rename…", "Delete…", "-"] and labels[-1] == "Export scalars to CSV…"
    by_label = {e.label: e for e in entries if e is not None}
    assert not by_label["Open folder"].enabled and not by_label["Predict on a file…"].enabled


def test_a_run_elsewhere_whose_worker_removed_its_folder_leaves_the_list(window, qtbot):
    """A CLI run refused before its first step (a bad data path) removes the folder it made; listed as running while
    its worker lived, it leaves the list at the next re-read, as after a restart, and the status bar says why (it
    stayed "running" until the app restarted)."""
    from explorer.core.runs.workers import write_pid_file

    qtbot.waitUntil(lambda: len(window.runs.all_ids()) == 2 and not window.runs.loading, timeout=WAIT_MS)
    window.reading.poll.stop()                                    # each re-read below is asked for
    run = window.runs_dir / "cli-refused"
    run.mkdir()
    (run / "config.json").write_text(json.dumps({"run_id": "cli-refused", "model": "bundled:minilm",
                                                 "task": "single", "train": "missing.tsv"}))
    write_pid_file(run)                                           # this process stands for the live worker
    qtbot.waitUntil(lambda: "cli-refused" in window.runs.all_ids(), timeout=WAIT_MS)
    assert window.runs.state("cli-refused").status == "running"
    for name in ("config.json", "worker.pid"):                    # what the worker does when it is refused
        (run / name).unlink()
    run.rmdir()
    window.reading.poll_external()
    qtbot.waitUntil(lambda: "cli-refused" not in window.runs.all_ids(), timeout=WAIT_MS)
    assert "cli-refused" not in window.store
    assert "cli-refused" in window.statusBar().currentMessage() and "is gone" in window.statusBar().currentMessage()
    assert len(window.runs.all_ids()) == 2


def test_a_run_first_read_before_its_worker_recorded_itself_is_read_again(window, qtbot):
    """A CLI run whose folder is read when it holds only config.json (its worker, at a low priority, has not written
    worker.pid yet) reads as crashed; the re-reads follow it, so it shows running once its worker is recorded and
    failed once it reports, as a restart would show it (it stayed "crashed")."""
    from explorer.core.runs.workers import write_pid_file

    qtbot.waitUntil(lambda: len(window.runs.all_ids()) == 2 and not window.runs.loading, timeout=WAIT_MS)
    window.reading.poll.stop()                                    # each re-read below is asked for
    run = window.runs_dir / "cli-slow"
    run.mkdir()
    (run / "config.json").write_text(json.dumps({"run_id": "cli-slow", "model": "bundled:minilm", "task": "single",
                                                 "train": "t.tsv"}))
    qtbot.waitUntil(lambda: "cli-slow" in window.runs.all_ids(), timeout=WAIT_MS)
    assert window.runs.state("cli-slow").status == "crashed"
    write_pid_file(run)                                           # this process stands for the live worker
    qtbot.waitUntil(lambda: not window.reading.looking, timeout=WAIT_MS)
    window.reading.poll_external()
    qtbot.waitUntil(lambda: window.runs.state("cli-slow").status == "running", timeout=WAIT_MS)
    (run / "events.jsonl").write_text(json.dumps({"event": "failed", "run_id": "cli-slow", "time": 100.0,
                                                  "error": "a setting the task refuses", "traceback": ""}) + "\n")
    (run / "worker.pid").unlink()
    qtbot.waitUntil(lambda: not window.reading.looking, timeout=WAIT_MS)
    window.reading.poll_external()
    qtbot.waitUntil(lambda: window.runs.state("cli-slow").status == "failed", timeout=WAIT_MS)

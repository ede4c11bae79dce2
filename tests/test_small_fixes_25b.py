"""Minors from the ninth fresh-user trial (issue 25): a task switch says when the data files were chosen for a
task whose labels mean something else, and a regression label column of 0/1 is called a likely class label."""

from pathlib import Path

from explorer.core.specs.train_config import TrainConfig

SST2 = "sentence\tlabel\ngood film\t1\nbad film\t0\nfine film\t1\n"


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_regression_label_column_of_only_0_and_1_is_called_a_likely_class_label(tmp_path):
    """Ninth trial: SST-2's 0/1 labels passed as regression scores without a word."""
    from explorer.core.data.scores_and_label_sets import load_regression
    from explorer.ui.launch.data_preview import preview_data

    sst2 = _write(tmp_path / "sst2.tsv", SST2)
    data = load_regression(str(sst2))
    assert any("holds only 0 and 1: classification?" in p for p in data.problems)
    assert any(level == "warning" and "only 0 and 1" in m for level, m in data.notes)   # the run's log says it too
    res = preview_data(str(sst2), "regression")
    assert res["ok"] and any("holds only 0 and 1: classification?" in p for p in res["problems"])
    stsb = _write(tmp_path / "stsb.tsv", "sentence1\tsentence2\tscore\na\tb\t0\nc\td\t1\ne\tf\t3.8\n")
    assert not load_regression(str(stsb)).problems


def test_a_task_switch_names_the_data_files_chosen_for_a_task_whose_labels_mean_something_else(qtbot, tmp_path):
    """Ninth trial: switching Single sentence -> Regression kept SST-2's train and dev files without a word (only a
    new training file cleared the dev file). The banner names the files kept and the task they were chosen for,
    until they are changed."""
    from explorer.ui.launch.launcher import LauncherPanel

    sst2 = tmp_path / "glue_sst2"
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="single", train=str(sst2 / "train.tsv"), dev=str(sst2 / "dev.tsv")))
    w.editors["task"].set("regression")
    banner = w.preset_label.text()
    assert ("the train and dev files (train.tsv, dev.tsv) were chosen for Single sentence (SST-2 style): check that "
            "they hold a number (score) per row" in banner)
    w.editors["dev"].set(str(tmp_path / "stsb" / "dev.csv"))       # the dev file is this task's now
    banner = w.preset_label.text()
    assert "the train file (train.tsv) was chosen for Single sentence" in banner and "dev.tsv" not in banner
    w.editors["train"].set(str(tmp_path / "stsb" / "train.csv"))
    assert "chosen for Single sentence" not in w.preset_label.text()
    w.editors["task"].set("pair")                                   # files chosen for Regression, now for classes
    assert "were chosen for Regression" in w.preset_label.text() and "a class per row" in w.preset_label.text()
    w.editors["task"].set("regression")                             # back to the task they were chosen for
    assert "chosen for" not in w.preset_label.text()
    w.editors["task"].set("single")
    w.editors["train"].set(str(sst2 / "train.tsv"))
    w.editors["dev"].set(str(sst2 / "dev.tsv"))
    w.editors["task"].set("pair")                                   # same labels (a class per row): nothing to say
    assert "chosen for" not in w.preset_label.text()


class _SilentClient:
    """An InspectClient stand-in that never answers (the test hands the window its result)."""

    def request(self, op, data, on_done=None, on_error=None, on_progress=None):
        return 1

    def cancel(self, rid):
        pass


def test_the_classifier_compare_window_shows_all_its_lines_at_its_default_size(qtbot):
    """Ninth trial: the Compare window (two classifiers) cut its last line at its default 640x260."""
    import numpy as np

    from explorer.core.classify.compare import compare_classifiers
    from explorer.ui.groups.classifier_compare import ClassifierCompareWindow
    from explorer.ui.shell.layout_check import layout_offenders

    rng = np.random.default_rng(0)
    gold = rng.integers(0, 3, 60)
    a, b = "sst2-minilm-lr2e-5-3-epochs-seed-1", "sst2-minilm-lr1e-4-3-epochs-seed-1"
    comparison = compare_classifiers(gold, rng.normal(size=(60, 3)), rng.normal(size=(60, 3)), name_a=a, name_b=b,
                                     source="/home/student/data/glue_sst2/dev.tsv", resamples=200)
    w = ClassifierCompareWindow([{"source": "a", "name": a, "task": "single"},
                                 {"source": "b", "name": b, "task": "single"}], client=_SilentClient())
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    w._done({"lines": comparison.lines()})
    QApplication_process(qtbot)
    assert w.text.height() >= w.text.heightForWidth(w.text.width())
    assert not layout_offenders(w)
    assert w.size().width() == 640             # it grew down, not sideways
    w.resize(w.minimumSize())                   # shrunk as far as it goes: still every line
    QApplication_process(qtbot)
    assert w.text.height() >= w.text.heightForWidth(w.text.width()), (w.size(), w.text.size())


def QApplication_process(qtbot) -> None:   # noqa: N802 - a few turns of the event loop for the layouts
    from PySide6.QtWidgets import QApplication

    for _ in range(3):
        QApplication.processEvents()


def test_the_n_best_answer_text_wraps_whole_in_a_narrow_column(qtbot, tiny_qa):
    """Ninth trial: at 1280x800 the n-best text column showed "ytical engine of …"; the answer text wraps in its
    column (each row as tall as its text, again when the column's width changes), the whole text in its tooltip."""
    from explorer.core.qa.probe import probe
    from explorer.ui.inspectors.spans_view import SpansView

    passage = " ".join(f"in {1815 + i} ada lovelace wrote note {i} on the analytical engine of charles babbage "
                       "in london." for i in range(12))
    view = SpansView()
    qtbot.addWidget(view)
    view.resize(1000, 700)
    view.show()
    qtbot.waitExposed(view)
    view.set_result(probe(tiny_qa, "where was ada born?", passage))
    table = view.nbest
    table.setFixedWidth(table.minimumWidth())   # the narrowest the page lets it be: the text column's minimum

    def whole() -> bool:
        return all(table.rowHeight(r) >= table.sizeHintForRow(r) for r in range(table.rowCount()))

    texts = [table.item(r, 1).text() for r in range(table.rowCount())]
    long = max(range(len(texts)), key=lambda r: table.fontMetrics().horizontalAdvance(texts[r]))
    qtbot.waitUntil(lambda: table.columnWidth(1) < table.fontMetrics().horizontalAdvance(texts[long]))
    qtbot.waitUntil(whole)                        # an answer wider than its column: on two or more lines, whole
    assert all(table.item(r, 1).toolTip() == texts[r] for r in range(len(texts)))
    height = table.rowHeight(long)
    # wider: room for the longest text on one line whatever the style's font (in the whole suite an earlier test's
    # app style makes it larger than the page's default width allows)
    table.setFixedWidth(3 * table.fontMetrics().horizontalAdvance(texts[long]) + 300)
    qtbot.waitUntil(lambda: table.columnWidth(1) > table.fontMetrics().horizontalAdvance(texts[long]) + 20)
    qtbot.waitUntil(lambda: whole() and table.rowHeight(long) < height)   # wider: fitted again, one line


def test_the_preview_command_has_a_dev_file_or_a_dev_fraction_never_both(qtbot, tmp_path):
    """Ninth trial: the Preview command read "--dev .../dev.tsv ... --dev-fraction 0.1". With a dev file the Dev
    fraction is greyed out and stays out of the command and the run's config; without one it is back."""
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="single", train=str(tmp_path / "train.tsv"), dev=str(tmp_path / "dev.tsv")))
    command = w.command.toPlainText()
    assert "--dev " in command and "--dev-fraction" not in command
    assert w.config().dev_fraction is None and not w.editors["dev_fraction"].widget.isEnabled()
    w.editors["dev_fraction"].set(0.2)
    assert "--dev-fraction" not in w.command.toPlainText()
    w.editors["dev"].set("")                                    # no dev file: the held-out share is the user's
    assert w.editors["dev_fraction"].widget.isEnabled() and w.config().dev_fraction == 0.2
    assert "--dev-fraction 0.2" in w.command.toPlainText()


def test_the_run_menu_opens_the_hosts_dialog(qtbot, tmp_path):
    """Ninth trial: the Hosts dialog was only behind the launcher's "Hosts…" button; the Run menu has it too,
    with a shortcut."""
    from PySide6.QtGui import QKeySequence

    from explorer.ui.launch.hosts_dialog import HostsDialog
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
    run_menu = next(a.menu() for a in w.menuBar().actions() if a.text() == "&Run")
    hosts = next(a for a in run_menu.actions() if a.text() == "&Hosts…")
    assert hosts.shortcut() == QKeySequence("Ctrl+Shift+H")
    hosts.trigger()
    dialog = w.launcher.run_on.dialog
    assert isinstance(dialog, HostsDialog) and dialog.isVisible()
    dialog.close()


def test_the_curves_progress_line_keeps_the_step_and_the_time_left_when_it_is_cut(qtbot):
    """Ninth trial: at 1280 px the progress line elided its middle, the step ("sst2-…get trained · epoch 0.05");
    the step and the time left stay, the epoch, the elapsed time and then the run's name give way, the whole line
    in the tooltip."""
    import time

    from helpers import shown_curves_panel

    from explorer.ui.runs.state import RunState

    name, t0 = "sst2-minilm-fast-cpu-lr1e-4-dropout0-30min-budget", time.time() - 130
    events = [{"event": "started", "run_id": name, "time": t0, "steps_total": 13292,
               "config": {"time_budget_minutes": 30.0}},
              {"event": "step", "run_id": name, "time": t0 + 129.0, "step": 1210, "loss": 2.0, "elapsed": 129.0,
               "train_seconds": 120.0, "steps_total": 15150, "epoch": 0.05}]
    curves = shown_curves_panel(qtbot, 900, 600)   # what the Curves tab has at 1280 px beside the Runs list
    curves.set_runs([RunState.from_events(name, events, alive=True)])
    label = curves.progress_label
    whole = label.toolTip()
    assert "step 1,210 of ~15,150" in whole and "epoch 0.05" in whole and "remaining 28:00" in whole
    for width in (900, 640, 440):
        curves.resize(width, 600)
        qtbot.waitUntil(lambda: label.width() < label.fontMetrics().horizontalAdvance(whole))
        shown = label.shown_text()
        assert "step 1,210 of ~15,150" in shown, (width, shown)
        assert label.fontMetrics().horizontalAdvance(shown) <= label.contentsRect().width()
        if width >= 640:
            assert "remaining 28:00" in shown, (width, shown)


def test_every_page_before_its_first_result_has_whole_headers(qtbot, tmp_path, monkeypatch):
    """Ninth trial: "P(predicted)" was cut in the dev-set tables before their first result (the default 100 px
    column). Every page of a fresh window, at both sizes, has nothing cut (tests/test_layout_sizes.py checks the
    pages filled with results)."""
    import sys

    from PySide6.QtWidgets import QApplication

    from explorer.ui.shell.layout_check import layout_offenders
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings
    from explorer.ui.shell.style import apply_style

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
    from layout_shots import resize, show_page

    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "cache"))
    app = QApplication.instance()
    apply_style(app)
    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    w._inspector_opened = True            # no first-visit load of the bundled encoder
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
    w.show()
    qtbot.waitExposed(w)
    titles = [w.tabs.tabText(i) for i in range(w.tabs.count())]
    assert {"Classify: dev set", "Tag: dev set"} <= set(titles)
    cut = []
    for size in ((1280, 800), (1920, 1080)):
        resize(w, size, app)
        for title in titles:
            show_page(w, title, app)
            cut += [f"{size} {title}: {o}" for o in layout_offenders(w)]
    assert not cut, "\n".join(cut)


def test_a_plot_the_runs_never_logged_says_so(qtbot, tmp_path):
    """Ninth trial: an HF Trainer folder opened as a run showed an empty samples/s plot without a word. A training
    plot none of the shown runs has a point of, while they have logged steps, says "not logged by this run"; a run
    before its first step, or a plot another shown run fills, says nothing."""
    import json

    from helpers import shown_curves_panel

    from explorer.core.runs.store import load_run
    from explorer.ui.runs.state import RunState

    out = tmp_path / "hf-out"
    out.mkdir()
    history = [{"step": s, "epoch": s / 100, "loss": 1.5 - s / 100, "learning_rate": 1e-5, "grad_norm": 2.0}
               for s in range(10, 60, 10)]
    (out / "trainer_state.json").write_text(json.dumps({"global_step": 50, "max_steps": 100,
                                                        "log_history": history}))
    trainer = RunState.from_events("hf-out", load_run(out).events)   # File -> Open run folder reads it so
    assert len(trainer.series["loss"]) == 5 and "samples_per_second" not in trainer.series
    curves = shown_curves_panel(qtbot, 1000, 700)
    curves.set_runs([trainer])
    curves.redraw_now()
    notes = {key: panel.note for key, panel in curves.panels.items() if panel.isVisible()}
    assert notes["samples_per_second"].isVisible() and notes["samples_per_second"].text() == "not logged by this run"
    assert not any(notes[k].isVisible() for k in ("loss", "lr", "grad_norm"))
    plot = curves.panels["samples_per_second"].widget
    assert plot.rect().contains(notes["samples_per_second"].geometry())

    started = RunState.from_events("new", [{"event": "started", "run_id": "new", "time": 1.0, "steps_total": 10}],
                                   alive=True)
    curves.set_runs([started])              # nothing logged yet: nothing is missing
    curves.redraw_now()
    assert not notes["samples_per_second"].isVisible()
    own = RunState.from_events("own", [{"event": "step", "run_id": "own", "time": 1.0, "step": 1, "loss": 1.0,
                                        "lr": 1e-4, "grad_norm": 1.0, "samples_per_second": 40.0}])
    curves.set_runs([trainer, own])         # another run fills the plot
    curves.redraw_now()
    assert not notes["samples_per_second"].isVisible()


def test_the_majority_class_baseline_travels_in_the_started_event(tmp_path):
    """Ninth trial: a remote run's curves had no majority-class line: its dev_split.csv stays on the host, and the
    GUI computed the baseline from the files. The worker computes it where the data is and sends it in its started
    event; a mirror folder holding only config.json and events.jsonl draws the same line."""
    import contextlib
    import io
    import shutil

    from helpers import save_tiny_model

    from explorer.core.metrics.baselines import dev_baseline
    from explorer.core.protocol.events import iter_events
    from explorer.core.runs.store import load_run
    from explorer.ui.runs.state import RunState
    from explorer.worker.train import main as train_main

    data = _write(tmp_path / "stance.tsv", "Tweet\tStance\n" + "".join(
        f"tweet {i}\t{['AGAINST', 'AGAINST', 'FAVOR', 'NONE'][i % 4]}\n" for i in range(40)))
    model = save_tiny_model(tmp_path / "cls3", "classification", num_labels=3)
    argv = ["--task", "single", "--model", model, "--train", data, "--text-columns", "Tweet", "--label-column",
            "Stance", "--max-steps", 1, "--batch-size", 4, "--max-seq-length", 16, "--mixed-precision", "no",
            "--no-save-checkpoints", "--eval-every", 0, "--output-dir", tmp_path / "host-runs", "--run-id", "held"]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert train_main([str(a) for a in argv]) == 0
    started = next(e for e in iter_events(buf.getvalue().splitlines()) if e["event"] == "started")
    run = tmp_path / "host-runs" / "held"
    assert (run / "dev_split.csv").is_file() and not started["config"]["dev"]
    expected = dev_baseline(started["config"], run)
    assert expected is not None and started["dev_baseline"] == expected.to_dict()
    assert started["dev_baseline"]["metrics"]["accuracy"] == 0.5       # AGAINST: half of every stratified split

    mirror = tmp_path / "mirror" / "held"                                # what a remote run's mirror folder holds
    mirror.mkdir(parents=True)
    for name in ("config.json", "events.jsonl"):
        shutil.copy(run / name, mirror / name)
    state = RunState.from_events("held", load_run(mirror).events)
    state.path = str(mirror)
    assert state.baseline() == expected and "baseline 50.00" in RunState.from_events(
        "held", load_run(mirror).events + [{"event": "eval", "run_id": "held", "time": 2.0, "step": 1,
                                            "metrics": {"accuracy": 0.25}}]).best_text()

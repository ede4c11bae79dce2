"""The bag-of-words baseline beside each run: the Runs list's "vs BoW" cell and tooltip (Qt-free, from the saved
comparison), a restarts group's summary of its members' comparisons, and the run menu's "Compute bag-of-words
baseline" running its command in a child process."""

from __future__ import annotations

import json
import os
import sys

from explorer.core.runs.layout import bag_of_words_file
from explorer.ui.runs.baseline_cells import BaselineCells, difference_text
from explorer.ui.runs.state import RunState


def _save(run_dir, difference: float, low: float, high: float, baseline: float = 0.6) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    doc = {"run_id": run_dir.name, "checkpoint": "last", "n_train": 80, "n_dev": 40,
           "lines": ["accuracy: fine-tuned is better by 5.0 accuracy points"],
           "difference": {"metric": "accuracy", "baseline": baseline, "model": baseline + difference,
                          "difference": difference, "low": low, "high": high, "level": 0.95, "mcnemar_p": 0.03},
           "name": "bag-of-words (TF-IDF + linear)", "metrics": {"accuracy": baseline}, "detail": ""}
    bag_of_words_file(run_dir).write_text(json.dumps(doc), encoding="utf-8")


def test_the_runs_list_shows_the_saved_difference_and_reads_a_new_file(tmp_path):
    run = tmp_path / "r1"
    state = RunState(run_id="r1", path=run, config={"task": "single"})
    cells = BaselineCells()
    run.mkdir()
    assert cells.text(state) == "" and cells.tooltip_lines(state)[0].startswith("bag-of-words baseline: none computed")
    _save(run, 0.05, 0.01, 0.09)
    assert cells.text(state) == "+5.0 better" and cells.sort_key(state) == 0.05
    assert "checkpoints/last on its 40 dev rows" in cells.tooltip_lines(state)[0]
    _save(run, -0.02, -0.06, 0.02)
    os.utime(bag_of_words_file(run), ns=(1, 1))   # another modification time: read again
    assert cells.text(state) == "-2.0 tie"
    assert difference_text({"metric": "pearson", "difference": -0.1, "low": -0.2, "high": -0.05}) == "-0.100 worse"
    qa = RunState(run_id="qa", path=tmp_path / "qa", config={"task": "squad_v2"})
    assert cells.tooltip_lines(qa) == []   # no baseline for that task: no hint either


def test_a_restarts_group_sums_up_its_members_comparisons(tmp_path):
    from types import SimpleNamespace

    from explorer.ui.groups.group_baselines import group_baseline_lines

    members = [SimpleNamespace(run_id=f"g-0{i}") for i in (1, 2, 3)]
    group = SimpleNamespace(kind="restarts", name="g", base={"task": "single"}, members=members)
    assert "none computed for its 3 runs" in group_baseline_lines(tmp_path, group)[0]
    _save(tmp_path / "g-01", 0.05, 0.01, 0.09)
    _save(tmp_path / "g-02", -0.01, -0.05, 0.03)
    (line,) = group_baseline_lines(tmp_path, group)
    assert line.startswith("bag-of-words baseline (2 of 3 runs compared): accuracy (%) 60.0;")
    assert "mean +2.0 (range -1.0 to +5.0)" in line and "1 better, 1 tied, 0 worse" in line


def test_compute_baseline_runs_the_command_in_a_child_and_refreshes_the_row(qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMenu

    from explorer.ui.runs import baseline_jobs
    from explorer.ui.runs.dock import RunsPanel

    run = tmp_path / "r1"
    run.mkdir()
    writes = (f"import json, pathlib; pathlib.Path({str(bag_of_words_file(run))!r}).write_text(json.dumps("
              "{'difference': {'metric': 'accuracy', 'difference': 0.1, 'low': 0.02, 'high': 0.2}, 'lines': []})); "
              "print('r1 against ...'); print('  accuracy: fine-tuned is better by 10.0 points')")
    monkeypatch.setattr(baseline_jobs, "baseline_command", lambda run_dir: [sys.executable, "-c", writes])
    panel = RunsPanel()
    qtbot.addWidget(panel)
    state = RunState(run_id="r1", path=run, config={"task": "single"}, status="finished")
    panel.upsert(state)
    messages = []
    panel.message.connect(messages.append)
    menu = QMenu()
    baseline_jobs.add_baseline_action(menu, state, panel)
    action = menu.actions()[-1]
    assert action.text() == "Compute bag-of-words baseline" and action.isEnabled()
    for off in (RunState(run_id="q", path=run, config={"task": "squad_v2"}, status="finished"), None):
        baseline_jobs.add_baseline_action(menu, off, panel)
        assert not menu.actions()[-1].isEnabled()
    action.trigger()
    jobs = baseline_jobs.jobs_of(panel)
    with qtbot.waitSignal(jobs.done, timeout=20_000) as done:
        pass
    assert done.args == ["r1", True]
    assert any(m.startswith("Computing the bag-of-words baseline of r1") for m in messages)
    assert messages[-1] == "r1 vs bag-of-words: accuracy: fine-tuned is better by 10.0 points"
    from explorer.ui.runs.run_cells import COLUMNS

    assert panel.model.cells.text(state, COLUMNS.index("vs BoW")) == "+10.0 better"


def _fake_child(run, go):
    """A child that says it scores 2 of 4 dev rows, waits for the file ``go``, then writes a comparison in which
    the bag-of-words baseline is significantly better (as `bert-explorer baseline --progress` would)."""
    doc = {"run_id": "r1", "checkpoint": "last", "n_train": 800, "n_dev": 200,
           "lines": ["accuracy: bag-of-words is better by 5.6 accuracy points, 95% interval 1.9 to 9.4; "
                     "McNemar p = 0.005"],
           "figures": {"baseline": {"accuracy": 0.768}, "model": {"accuracy": 0.712}},
           "difference": {"metric": "accuracy", "difference": -0.056, "low": -0.094, "high": -0.019}}
    return ("import json, pathlib, sys, time\n"
            "print('progress ' + json.dumps({'stage': 'scoring checkpoints/last on the dev rows', 'done': 2, "
            "'total': 4}), file=sys.stderr, flush=True)\n"
            f"while not pathlib.Path({str(go)!r}).exists(): time.sleep(0.05)\n"
            f"pathlib.Path({str(bag_of_words_file(run))!r}).write_text(json.dumps({doc!r}))\n")


def test_the_baseline_shows_its_progress_runs_niced_and_shows_its_verdict_and_column(qtbot, tmp_path, monkeypatch):
    from explorer.ui.runs import baseline_jobs
    from explorer.ui.runs.baseline_row import BaselineRow
    from explorer.ui.runs.dock import RunsPanel
    from explorer.ui.runs.run_cells import COLUMNS

    run, go = tmp_path / "r1", tmp_path / "go"
    run.mkdir()
    monkeypatch.setattr(baseline_jobs, "baseline_command", lambda _d: [sys.executable, "-c", _fake_child(run, go)])
    monkeypatch.delenv("EXPLORER_WORKER_NICE", raising=False)
    niced = []
    monkeypatch.setattr(os, "setpriority", lambda which, pid, nice: niced.append((pid, nice)), raising=False)
    panel = RunsPanel()
    qtbot.addWidget(panel)
    panel.resize(420, 700)
    panel.show()
    state = RunState(run_id="r1", path=run, config={"task": "single"}, status="finished")
    panel.upsert(state)
    row = panel.findChild(BaselineRow)
    column = COLUMNS.index("vs BoW")
    assert panel.table.isColumnHidden(column)   # no run has a baseline yet
    jobs = baseline_jobs.jobs_of(panel)
    with qtbot.waitSignal(jobs.progress, timeout=20_000):
        assert jobs.start(str(run))
    assert row.job_bar.isVisible() and row.job_bar.cancel_button.isEnabled()
    assert "scoring checkpoints/last on the dev rows" in row.stage.text() and row.stage.isVisible()
    assert row.job_bar.detail.text().startswith("2 of 4 dev rows")
    assert niced and niced[0][1] == 10   # a training's niceness, not the GUI's 0
    assert row.minimumSizeHint().width() <= 400   # fits the Runs dock at 1280x800 without widening the window
    panel.grab().save(str(tmp_path / "running.png"))
    with qtbot.waitSignal(jobs.done, timeout=20_000) as done:
        go.write_text("")
    assert done.args == ["r1", True]
    assert not row.job_bar.isVisible() and row.notice.isVisible()
    text = row.verdict.text()
    assert "bag-of-words is better by 5.6 accuracy points" in text and "(-5.6 worse)" in text
    assert "fine-tuned (checkpoints/last): accuracy (%) 71.20" in text and "bag-of-words: accuracy (%) 76.80" in text
    assert not panel.table.isColumnHidden(column)
    assert next(a for a in panel.table.header().actions() if a.text() == "Show vs BoW").isChecked()


def test_the_vs_bow_column_shows_once_a_listed_run_has_a_baseline(qtbot, tmp_path):
    from explorer.ui.runs.baseline_row import BaselineRow
    from explorer.ui.runs.dock import RunsPanel
    from explorer.ui.runs.run_cells import COLUMNS

    panel = RunsPanel()
    qtbot.addWidget(panel)
    panel.upsert(RunState(run_id="r0", path=tmp_path / "r0", config={"task": "single"}, status="finished"))
    qtbot.wait(1)
    assert panel.table.isColumnHidden(COLUMNS.index("vs BoW"))
    _save(tmp_path / "r1", 0.05, 0.01, 0.09)
    panel.upsert(RunState(run_id="r1", path=tmp_path / "r1", config={"task": "single"}, status="finished"))
    qtbot.waitUntil(lambda: not panel.table.isColumnHidden(COLUMNS.index("vs BoW")), timeout=5_000)
    entry = next(a for a in panel.table.header().actions() if a.text() == "Show vs BoW")
    entry.setChecked(False)   # hidden again by the user: more runs listed leave it hidden
    _save(tmp_path / "r2", 0.05, 0.01, 0.09)
    panel.upsert(RunState(run_id="r2", path=tmp_path / "r2", config={"task": "single"}, status="finished"))
    panel.findChild(BaselineRow)._reveal_listed()   # what the list's zero timer does after new rows
    assert panel.table.isColumnHidden(COLUMNS.index("vs BoW"))


def test_cancel_stops_the_baseline_child_and_hides_its_row(qtbot, tmp_path, monkeypatch):
    from explorer.ui.runs import baseline_jobs
    from explorer.ui.runs.baseline_row import BaselineRow
    from explorer.ui.runs.dock import RunsPanel

    run = tmp_path / "r1"
    run.mkdir()
    monkeypatch.setattr(baseline_jobs, "baseline_command",
                        lambda _d: [sys.executable, "-c", _fake_child(run, tmp_path / "never")])
    panel = RunsPanel()
    qtbot.addWidget(panel)
    panel.upsert(RunState(run_id="r1", path=run, config={"task": "single"}, status="finished"))
    row = panel.findChild(BaselineRow)
    jobs = baseline_jobs.jobs_of(panel)
    with qtbot.waitSignal(jobs.progress, timeout=20_000):
        jobs.start(str(run))
    with qtbot.waitSignal(jobs.done, timeout=20_000) as done:
        row.job_bar.cancel_button.click()
    assert done.args == ["r1", False] and jobs.errors["r1"] == "cancelled"
    assert row.job_bar.isHidden() and row.notice.isHidden() and not bag_of_words_file(run).exists()


def test_the_job_row_shows_elapsed_time_for_an_uncounted_stage_and_time_left_while_scoring(qtbot, tmp_path):
    """Reading and fitting have no count: the row says how long the job has run ("0:05 elapsed", never a blank);
    scoring the dev rows counts them, and the row gives the time left from that rate."""
    from explorer.ui.runs.baseline_row import BaselineRow
    from explorer.ui.runs.dock import RunsPanel

    panel = RunsPanel()
    qtbot.addWidget(panel)
    row = panel.findChild(BaselineRow)
    clock = [100.0]
    row.now = lambda: clock[0]
    row.job_bar.meter.now = lambda: clock[0]
    row._started("r1")
    clock[0] = 105.0
    row._progress("r1", "reading the run's training and dev rows", 0, 0)
    assert row.job_bar.detail.text() == "0:05 elapsed"
    clock[0] = 107.0
    row._show_elapsed()                                   # what the row's clock does each second
    assert row.job_bar.detail.text() == "0:07 elapsed"
    for done, t in ((10, 110.0), (20, 112.0), (40, 116.0)):   # 5 rows a second
        clock[0] = t
        row._progress("r1", "scoring checkpoints/last on the dev rows", done, 120)
    assert row.job_bar.detail.text() == "40 of 120 dev rows · about 0:16 left"
    assert not row._clock.isActive()
    row._progress("r1", "the paired test (10,000 bootstrap resamples)", 0, 0)
    assert row.job_bar.detail.text() == "0:16 elapsed"
    row._done("r1", False)
    assert not row._clock.isActive()

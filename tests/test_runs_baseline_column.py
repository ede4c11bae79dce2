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
    assert messages[0].startswith("Computing the bag-of-words baseline of r1")
    assert messages[-1] == "r1 vs bag-of-words: accuracy: fine-tuned is better by 10.0 points"
    from explorer.ui.runs.run_cells import COLUMNS

    assert panel.model.cells.text(state, COLUMNS.index("vs BoW")) == "+10.0 better"

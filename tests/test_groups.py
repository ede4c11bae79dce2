"""Run groups (core/studies/groups.py, commands/group.py): group files, planning, reading with killed/missing members."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import pytest

from explorer.core.studies import groups
from explorer.core.protocol.events import EVENTS_FILE
from explorer.core.runs.layout import CONFIG_FILE
from explorer.core.specs.train_config import TrainConfig


def _fake_run(runs_dir, run_id, evals, finished=True, seed=1, task="pair", metric="accuracy", per_class=None):
    """A run folder written by hand: config.json + events (started, steps, evals, finished or nothing);
    ``per_class``: the per-class table (explorer.core.metrics.glue.per_class_metrics) of every evaluation."""
    d = runs_dir / run_id
    d.mkdir(parents=True)
    (d / CONFIG_FILE).write_text(json.dumps(TrainConfig(run_id=run_id, task=task, seed=seed).to_dict()))
    ev = [{"event": "started", "run_id": run_id, "time": 1.0, "steps_total": 10}]
    for step, acc in evals:
        ev.append({"event": "step", "run_id": run_id, "time": 2.0, "step": step, "loss": 1.0 / (step + 1)})
        ev.append({"event": "eval", "run_id": run_id, "time": 2.0, "step": step,
                   "metrics": {metric: acc, **({"per_class": per_class} if per_class else {})}})
    if finished:
        ev.append({"event": "finished", "run_id": run_id, "time": 3.0, "metrics": {}, "seconds": 2.0})
    (d / EVENTS_FILE).write_text("\n".join(json.dumps(e) for e in ev) + "\n")
    return d


def test_plan_restarts_names_seeds_and_varied():
    group, configs = groups.plan_restarts(TrainConfig(epochs=1.0), "mrpc", [3, 1, 2])
    assert [c.run_id for c in configs] == ["mrpc-01", "mrpc-02", "mrpc-03"]
    assert [c.seed for c in configs] == [3, 1, 2] and all(c.epochs == 1.0 for c in configs)
    assert group.kind == "restarts" and group.varied == ["seed"] and group.seeds == [3, 1, 2]
    assert "seed" not in group.base and group.base["epochs"] == 1.0
    with pytest.raises(groups.GroupError, match="seeds repeat"):
        groups.plan_restarts(TrainConfig(), "x", [1, 1])
    with pytest.raises(groups.GroupError, match="plain folder name"):
        groups.plan_restarts(TrainConfig(), "../up", [1])


def test_restarts_and_grid_points_hold_out_the_same_dev_rows(tmp_path):
    """The members of a restarts group (and of a grid) vary the training seed, not the dev rows they are scored on:
    each gets the base's split seed, so a table without a dev file holds out the same rows in every member, and
    their mean ± sd and a paired comparison are about one dev set (the seed chose the split: three restarts were
    scored on three different 281-row dev sets)."""
    from explorer.core.training.tasks import get_task

    rows = "".join(f"text number {i}\t{['a', 'b', 'c'][i % 3]}\n" for i in range(60))
    data = tmp_path / "t.tsv"
    data.write_text("sentence\tlabel\n" + rows, encoding="utf-8")
    base = TrainConfig(task="single", train=str(data), seed=7)
    _group, configs = groups.plan_restarts(base, "r", [11, 12, 13])
    assert [c.split_seed for c in configs] == [7, 7, 7] and [c.seed for c in configs] == [11, 12, 13]
    _grid, points = groups.plan_grid(base, "g", seeds=[1, 2], grid={"learning_rate": [1e-4, 2e-4]})
    assert {c.split_seed for c in points} == {7}
    task = get_task("single")
    held_out = [sorted(task.split_dev(task.load(c, "train"), c, None)[1].row_ids) for c in configs]
    assert held_out[0] == held_out[1] == held_out[2] and len(held_out[0]) == 6
    alone = TrainConfig(task="single", train=str(data), seed=11)   # a single run: its seed splits, as before
    assert alone.dev_split_seed() == 11
    assert sorted(task.split_dev(task.load(alone, "train"), alone, None)[1].row_ids) != held_out[0]


def test_generated_seeds_distinct_and_reproducible():
    a = groups.generate_seeds(5, seed=7)
    assert len(set(a)) == 5 and a == groups.generate_seeds(5, seed=7) and a != groups.generate_seeds(5, seed=8)
    assert all(1 <= s < 10_000 for s in a + groups.generate_seeds(50, seed=1))   # short enough to read in a name
    with pytest.raises(groups.GroupError, match="at least 1"):
        groups.generate_seeds(0)


def test_plan_paper_grid_with_two_seeds():
    group, configs = groups.plan_grid(TrainConfig(), "g", seeds=[1, 2])
    assert len(configs) == 48 and group.varied == ["batch_size", "learning_rate", "epochs", "seed"]
    points = {(c.batch_size, c.learning_rate, c.epochs, c.seed) for c in configs}
    assert len(points) == 48 and (16, 5e-5, 2.0, 2) in points
    assert group.members[1].params == {"batch_size": 16, "learning_rate": 5e-5, "epochs": 2.0, "seed": 2}
    small, cfgs = groups.plan_grid(TrainConfig(), "s", grid={"learning_rate": [1e-4, 2e-4], "epochs": [1, 2]})
    assert [(c.learning_rate, c.epochs) for c in cfgs] == [(1e-4, 1), (1e-4, 2), (2e-4, 1), (2e-4, 2)]
    with pytest.raises(groups.GroupError, match="not training settings"):
        groups.plan_grid(TrainConfig(), "s", grid={"nope": [1]})


def test_group_file_round_trip_and_no_overwrite(tmp_path):
    group, _ = groups.plan_restarts(TrainConfig(), "r", [1, 2, 3])
    path = groups.write_group(tmp_path, group)
    assert path == tmp_path / ".groups" / "r" / "group.json"
    back = groups.load_group_file(path)
    assert back.run_ids == ["r-01", "r-02", "r-03"] and back.seeds == [1, 2, 3] and back.kind == "restarts"
    with pytest.raises(groups.GroupError, match="already exists"):
        groups.write_group(tmp_path, group)
    listed, notes = groups.list_groups(tmp_path)
    assert [g.name for g in listed] == ["r"] and notes == []


def test_broken_group_file_is_a_note(tmp_path):
    bad = tmp_path / ".groups" / "bad"
    bad.mkdir(parents=True)
    (bad / "group.json").write_text('{"kind": "restarts", "members": [')
    listed, notes = groups.list_groups(tmp_path)
    assert listed == [] and len(notes) == 1 and "not valid JSON" in notes[0] and "bad" in notes[0]
    (bad / "group.json").write_text('{"kind": "other", "members": []}')
    with pytest.raises(groups.GroupError, match="kind 'other'"):
        groups.load_group_file(bad / "group.json")


def test_killed_and_missing_members_leave_the_group_readable(tmp_path):
    group, _ = groups.plan_restarts(TrainConfig(), "r", [1, 2, 3])
    groups.write_group(tmp_path, group)
    _fake_run(tmp_path, "r-01", [(0, 0.5), (5, 0.7), (10, 0.8)])
    killed = _fake_run(tmp_path, "r-02", [(0, 0.5), (5, 0.6)], finished=False)
    with open(killed / EVENTS_FILE, "a") as fh:
        fh.write('{"event": "step", "run_id": "r-02", "st')   # torn last line of a killed worker
    g, states = groups.read_group(tmp_path, "r")
    assert [s.status for s in states] == ["finished", "crashed", "missing"]
    g, rows, notes = groups.load_group_data(tmp_path, "r")
    assert [r.status for r in rows] == ["finished", "crashed", "missing"]
    # classification shares on the display scale (percent), as the Runs list and the curves show them
    assert rows[0].best == pytest.approx(80.0) and rows[1].final == pytest.approx(60.0)
    assert len(rows[2].eval_values) == 0
    assert rows[0].final_metrics == {"accuracy": pytest.approx(80.0)}
    assert any("r-03" in n and "no run folder" in n for n in notes)
    assert any("r-02" in n for n in notes)   # the skipped torn line is named


def test_group_values_and_labels_use_the_runs_lists_display_scale(tmp_path):
    from explorer.core.studies.group_stats import group_table

    for task, metric, value, shown, label in (("pair", "accuracy", 0.7075, 70.75, "accuracy (%)"),
                                               ("squad_v1", "f1", 66.7, 66.7, "F1 (%)")):
        folder = tmp_path / task
        g, _ = groups.plan_restarts(TrainConfig(task=task), "g", [1])
        groups.write_group(folder, g)
        _fake_run(folder, "g-01", [(10, value)], task=task, metric=metric)
        _, rows, _ = groups.load_group_data(folder, "g")
        assert rows[0].eval_values[-1] == pytest.approx(shown)      # SQuAD is percent already: not scaled again
        table = group_table(rows, ["seed"])
        assert table.label == label and table.final.mean == pytest.approx(shown)


def _cli(args):
    """The command in this process (helpers.run_cli); test_cli_group_runs_two_tiny_restarts_to_the_end runs
    the entry point in a child process."""
    from helpers import run_cli

    return run_cli(args)


def test_cli_group_plan_only_writes_group_and_configs(tmp_path):
    p = _cli(["group", "--group", "mrpc3", "--restarts", "3", "--task", "pair", "--train", "t.tsv",
              "--output-dir", str(tmp_path), "--epochs", "1", "--plan-only"])
    assert p.returncode == 0, p.stderr
    g = groups.load_group_file(tmp_path / ".groups" / "mrpc3" / "group.json")
    assert len(g.members) == 3 and len(set(g.seeds)) == 3
    cfgs = sorted((tmp_path / ".groups" / "mrpc3" / "configs").glob("*.json"))
    assert [c.stem for c in cfgs] == ["mrpc3-01", "mrpc3-02", "mrpc3-03"]
    data = [json.loads(c.read_text()) for c in cfgs]
    assert [d["seed"] for d in data] == g.seeds and {d["output_dir"] for d in data} == {str(tmp_path)}
    assert p.stdout.count("bert-explorer train --config ") == 3      # lines that run as they stand
    assert "3 restarts, varied seed" in p.stderr
    again = _cli(["group", "--group", "mrpc3", "--restarts", "3", "--output-dir", str(tmp_path), "--plan-only"])
    assert again.returncode == 2 and "already exists" in again.stderr and "Traceback" not in again.stderr


def test_cli_group_needs_a_kind_and_consistent_seeds(tmp_path):
    p = _cli(["group", "--group", "x", "--output-dir", str(tmp_path)])
    assert p.returncode == 2 and "--restarts N, --seeds" in p.stderr
    p = _cli(["group", "--group", "x", "--restarts", "2", "--seeds", "1,2,3", "--output-dir", str(tmp_path)])
    assert p.returncode == 2 and "--restarts 2 but 3 --seeds" in p.stderr


def test_cli_group_runs_two_tiny_restarts_to_the_end(tmp_path):
    """The whole path: group.json, two members trained in child processes, statuses and curves read back."""
    from helpers import REPO_ROOT, save_tiny_model, worker_env, write_tiny_squad

    model = save_tiny_model(tmp_path / "qa", "qa")
    data = write_tiny_squad(tmp_path / "sq2.json")
    runs = tmp_path / "runs"
    p = subprocess.run([sys.executable, "-m", "explorer", "group", "--group", "two", "--seeds", "5,6",
                        "--model", str(model), "--task", "squad_v2", "--train", str(data), "--dev", str(data),
                        "--dev-cap", "4", "--batch-size", "4", "--max-steps", "2", "--max-seq-length", "64",
                        "--doc-stride", "16", "--max-query-length", "16", "--no-save-checkpoints",
                        "--output-dir", str(runs)], capture_output=True, text=True, env=worker_env(),
                       cwd=REPO_ROOT, timeout=400)
    assert p.returncode == 0, p.stderr[-2000:]
    g, rows, notes = groups.load_group_data(runs, "two")
    assert [r.status for r in rows] == ["finished", "finished"] and [m.seed for m in g.members] == [5, 6]
    assert all(len(r.eval_values) >= 1 and r.metric_name for r in rows)
    configs = [json.loads((runs / r.run_id / "config.json").read_text()) for r in rows]
    assert [c["seed"] for c in configs] == [5, 6]
    assert "group two: restarts, 2 runs" in p.stdout and "final best F1 (%): " in p.stdout   # the spread, printed


def test_cli_group_says_its_members_in_lines_and_summarises_every_metric_with_f_avg(tmp_path):
    """A group's terminal has lines a person reads, no worker JSON: what is queued, each member's start, progress
    and end, each evaluation's figures (F_avg among them when F1 classes are named), then the summary's mean ± sd of
    every final metric the runs report."""
    from helpers import REPO_ROOT, save_tiny_model, worker_env

    model = save_tiny_model(tmp_path / "cls", "classification")
    labels = ["FAVOR", "AGAINST", "NONE"]
    rows = [f"{i}\tt{i % 2}\t{'good fine' if i % 3 else 'bad worst'} tweet {i}\t{labels[i % 3]}" for i in range(24)]
    data = tmp_path / "stance.txt"
    data.write_text("ID\tTarget\tTweet\tStance\n" + "\n".join(rows) + "\n", encoding="utf-8")
    runs = tmp_path / "runs"
    p = subprocess.run([sys.executable, "-m", "explorer", "group", "--group", "st", "--seeds", "1,2",
                        "--model", str(model), "--new-head", "--task", "single", "--train", str(data),
                        "--dev-fraction", "0.5", "--f1-classes", "FAVOR,AGAINST", "--batch-size", "4",
                        "--max-steps", "2", "--max-seq-length", "16", "--no-save-checkpoints",
                        "--output-dir", str(runs)], capture_output=True, text=True, env=worker_env(),
                       cwd=REPO_ROOT, timeout=400)
    assert p.returncode == 0, p.stderr[-2000:]
    out = (p.stdout + p.stderr).splitlines()
    assert not [line for line in out if line.lstrip().startswith("{")], out   # no worker event on the terminal
    assert "group st: queued st-01 (seed 1), st-02 (seed 2)" in p.stderr
    for run_id in ("st-01", "st-02"):
        assert f"{run_id}: training 2 steps" in p.stderr and f"{run_id}: step 2/2 (100%)" in p.stderr
        assert f"{run_id}: finished in " in p.stderr
        dev = next(line for line in out if line.startswith(f"{run_id}: dev at step 2: "))
        assert "accuracy (%) " in dev and "F_avg (%) " in dev, dev
    assert p.stderr.count("reading training data") == 1      # the data notes once, not once per member
    finals = [line for line in p.stdout.splitlines() if line.startswith("final ")]
    assert {line.split(":")[0] for line in finals} >= {"final accuracy (%)", "final macro F1 (%)", "final F_avg (%)"}
    assert all(" ± " in line and "n 2)" in line for line in finals), finals


def test_member_lines_say_each_tenth_of_the_steps_once_and_an_error_once():
    from explorer.commands.group_members import MemberLines

    said: list[str] = []
    lines = MemberLines("g-01", said.append, info=False)
    events = [{"event": "log", "level": "info", "message": "reading training data x"},
              {"event": "started", "config": {"task": "single"}, "steps_total": 100, "num_train_examples": 9}]
    events += [{"event": "step", "step": s, "loss": 0.5} for s in range(1, 101)]
    events += [{"event": "eval", "step": 100, "metrics": {"f_avg": 0.5, "total": 9, "per_class": {}}}]
    for event in events:
        lines.feed(json.dumps(event) + "\n")
    lines.feed("error: the dev file has no Stance column\n")
    lines.feed(json.dumps({"event": "failed", "error": "the dev file has no Stance column"}) + "\n")
    assert said[0] == "g-01: training 100 steps on 9 examples"
    steps = [line for line in said if line.startswith("g-01: step ")]
    assert [line.split()[2] for line in steps] == [f"{s}/100" for s in (1, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100)]
    assert "g-01: dev at step 100: F_avg (%) 50.00" in said
    assert said[-2:] == ["error: the dev file has no Stance column", "g-01: failed"]


def test_restart_seed_reaches_the_new_head(tmp_path):
    """Restarts differ in the new head's initialisation (paper section 4.1), not only in data order."""
    import torch
    from helpers import save_tiny_model

    from explorer.core.training.setup import load_for_training
    from explorer.core.training.tasks import get_task

    folder = save_tiny_model(tmp_path / "enc", "qa")   # no classifier in the files: the pair head is new

    class _Writer:
        def emit(self, *_a, **_k):
            pass

    heads = []
    for seed in (1, 2, 1):
        loaded = load_for_training(str(folder), get_task("pair"), 2, TrainConfig(task="pair", seed=seed), _Writer())
        heads.append(loaded.model.classifier.weight.detach().clone())
    assert not torch.equal(heads[0], heads[1]) and torch.equal(heads[0], heads[2])


def test_rename_and_trash_a_group_folder(tmp_path):
    g1, _ = groups.plan_restarts(TrainConfig(), "a", [1, 2])
    g2, _ = groups.plan_restarts(TrainConfig(), "b", [1])
    groups.write_group(tmp_path, g1)
    groups.write_group(tmp_path, g2)
    with pytest.raises(groups.GroupError, match="'b' already exists"):
        groups.rename_group(tmp_path, "a", "b")
    with pytest.raises(groups.GroupError, match="has no group.json"):
        groups.rename_group(tmp_path, "nope", "c")
    path = groups.rename_group(tmp_path, "a", "c")
    renamed = groups.load_group_file(path)
    assert renamed.name == "c" and renamed.run_ids == ["a-01", "a-02"]      # members keep their run ids
    assert sorted(g.name for g in groups.list_groups(tmp_path)[0]) == ["b", "c"]
    first = groups.trash_group_folder(tmp_path, "c")
    assert (first / "group.json").is_file() and not (tmp_path / ".groups" / "c").exists()
    groups.write_group(tmp_path, groups.plan_restarts(TrainConfig(), "c", [5])[0])
    second = groups.trash_group_folder(tmp_path, "c")                      # a second "c" keeps the first
    assert second != first and (first / "group.json").is_file()
    with pytest.raises(groups.GroupError, match="no folder"):
        groups.trash_group_folder(tmp_path, "c")


def test_cli_group_summary_prints_the_spread_of_every_final_metric(tmp_path):
    g, _ = groups.plan_restarts(TrainConfig(task="pair"), "s", [1, 2, 3])
    groups.write_group(tmp_path, g)
    _fake_run(tmp_path, "s-01", [(0, 0.5), (10, 0.70)])
    _fake_run(tmp_path, "s-02", [(0, 0.5), (10, 0.80)], finished=False)     # killed: its last evaluation counts
    p = _cli(["group", "--group", "s", "--summary", "--output-dir", str(tmp_path)])
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == "group s: restarts, 3 runs, varied seed"
    assert "s-03" in lines[3] and "missing" in lines[3]
    assert "final accuracy (%): 75.0000 ± 7.0711 (best 80.0000, worst 70.0000, n 2)" in lines   # the Runs list's scale
    assert "final accuracy (%) 70.0000" in lines[1] and "best 70.0000" in lines[1]
    assert any("s-03: no run folder" in ln for ln in lines)
    p = _cli(["group", "--group", "nope", "--summary", "--output-dir", str(tmp_path)])
    assert p.returncode == 2 and "nope" in p.stderr and "Traceback" not in p.stderr


def test_cli_group_summary_of_members_without_a_dev_figure_says_so_instead_of_nan(tmp_path):
    """Every member failed before its first evaluation: each row reads "—" and the summary says there is no mean
    to give, never "nan" or an optimism warning about figures that do not exist."""
    g, _ = groups.plan_restarts(TrainConfig(task="pair"), "s", [1, 2])
    groups.write_group(tmp_path, g)
    _fake_run(tmp_path, "s-01", [], finished=False)
    _fake_run(tmp_path, "s-02", [], finished=False)
    p = _cli(["group", "--group", "s", "--summary", "--output-dir", str(tmp_path)])
    assert p.returncode == 0, p.stderr
    assert "nan" not in p.stdout and "optimistic" not in p.stdout
    assert "final accuracy (%) —  best —" in p.stdout.splitlines()[1]
    assert "no member has a dev figure yet" in p.stdout


def test_cli_group_summary_reads_the_default_runs_folder_without_output_dir(tmp_path, monkeypatch):
    """`group --summary --group NAME` as docs/statistics.md gives it, without --output-dir: the runs folder the
    app uses by default (EXPLORER_RUNS_DIR here), not a traceback."""
    g, _ = groups.plan_restarts(TrainConfig(task="pair"), "s", [1, 2])
    groups.write_group(tmp_path, g)
    _fake_run(tmp_path, "s-01", [(0, 0.5), (10, 0.70)])
    _fake_run(tmp_path, "s-02", [(0, 0.5), (10, 0.80)])
    monkeypatch.setenv("EXPLORER_RUNS_DIR", str(tmp_path))
    p = _cli(["group", "--group", "s", "--summary"])
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[0] == "group s: restarts, 2 runs, varied seed"


def test_a_running_members_latest_evaluation_is_no_final_figure(tmp_path):
    """While one restart still trains, the group's final figures are the ended runs' only: the running run's
    latest evaluation was counted as final, so a mean of 2 with an interval from -202 to 296 stood beside the
    Runs list's "(n 1)"; its curve still counts."""
    from explorer.core.studies.group_stats import final_metric_stats, group_table

    runs = tmp_path / "runs"
    _one_restart_running(runs)
    _group, members, _notes = groups.load_group_data(runs, "g")
    running = members[1]
    assert running.status == "running" and len(running.eval_values) == 2      # its curve is kept
    table = group_table(members, [])
    assert table.final.n == 1 and table.final.mean == 80.0
    assert final_metric_stats(members)["accuracy"].n == 1
    assert running.final_metrics == {} and running.final != running.final   # NaN: no final figure yet


def _worker_of(run_dir) -> None:
    """Mark ``run_dir``'s worker as this live process (its pid file), so the run reads as running."""
    import os
    import socket

    from explorer.core.runs.workers import pid_file

    pid_file(run_dir).write_text(json.dumps({"pid": os.getpid(), "host": socket.gethostname()}), encoding="utf-8")


def test_the_groups_page_reads_the_group_shown_again_when_its_members_move_on(qtbot, tmp_path):
    """Refresh (and a member's end, through the same path) reads the group shown again: the summary beside
    the list stayed at "1 finished, 1 running" after every member had finished, until another row was clicked."""
    from explorer.ui.groups.tabs import GroupsTab

    runs = tmp_path / "runs"
    live = _one_restart_running(runs)
    tab = GroupsTab(runs)
    qtbot.addWidget(tab)
    qtbot.waitUntil(lambda: tab.tree.topLevelItemCount() == 1, timeout=10_000)
    with qtbot.waitSignal(tab.group_shown, timeout=10_000):
        tab.tree.setCurrentItem(tab.tree.topLevelItem(0))
    assert [m.status for m in tab.view.members] == ["finished", "running"]
    with open(live / EVENTS_FILE, "a", encoding="utf-8") as fh:   # the second restart ends
        fh.write(json.dumps({"event": "eval", "run_id": "g-02", "time": 4.0, "step": 10,
                             "metrics": {"accuracy": 0.7}}) + "\n")
        fh.write(json.dumps({"event": "finished", "run_id": "g-02", "time": 5.0, "metrics": {},
                             "seconds": 4.0}) + "\n")
    with qtbot.waitSignal(tab.group_shown, timeout=10_000):
        tab.refresh()
    assert [m.status for m in tab.view.members] == ["finished", "finished"]


def _one_restart_running(runs):
    """Group "g" of two restarts: g-01 finished at 80%, g-02 still training (its worker this process) at 20%
    after step 5; returns g-02's folder."""
    group, _configs = groups.plan_restarts(TrainConfig(task="pair"), "g", [1, 2])
    groups.write_group(runs, group)
    _fake_run(runs, "g-01", [(0, 0.5), (10, 0.8)])
    live = _fake_run(runs, "g-02", [(0, 0.5), (5, 0.2)], finished=False)
    _worker_of(live)
    return live


def test_the_groups_page_shows_members_the_runner_holds_as_queued_or_running_not_missing(qtbot, tmp_path):
    """A member the window's runner has queued has no folder yet: the Groups page lists it "queued" (then
    "running" once it starts), in the tree and beside it, without a "no run folder" note; a member with no
    folder that the runner does not hold stays "missing"."""
    from explorer.core.runs.store import RunStore
    from explorer.ui.groups.tabs import GroupsTab
    from explorer.ui.runs.bridge import StoreBridge
    from explorer.ui.runs.state import RunState

    runs = tmp_path / "runs"
    group, _configs = groups.plan_restarts(TrainConfig(task="pair"), "g", [1, 2, 3])
    groups.write_group(runs, group)
    _fake_run(runs, "g-01", [(0, 0.5), (10, 0.8)])
    store = RunStore(runs)
    bridge = StoreBridge(store)
    store.add(RunState(run_id="g-02", status="queued"))   # queued by the window's runner: no folder yet
    tab = GroupsTab(runs)
    qtbot.addWidget(tab)
    tab.watch_runs(bridge)
    qtbot.waitUntil(lambda: tab.tree.topLevelItemCount() == 1 and tab.tree.topLevelItem(0).childCount() == 3,
                    timeout=10_000)
    top = tab.tree.topLevelItem(0)
    assert [top.child(i).text(1) for i in range(3)] == ["finished", "queued", "missing"]
    with qtbot.waitSignal(tab.group_shown, timeout=10_000):
        tab.tree.setCurrentItem(top)
    assert [m.status for m in tab.view.members] == ["finished", "queued", "missing"]
    assert not any(n.startswith("g-02:") for n in tab.view.notes) and any(n.startswith("g-03:") for n in tab.view.notes)
    store.get("g-02").status = "running"   # the runner starts it
    with qtbot.waitSignal(tab.group_shown, timeout=10_000):
        store.changed("g-02")
    assert tab.tree.topLevelItem(0).child(1).text(1) == "running"
    assert [m.status for m in tab.view.members] == ["finished", "running", "missing"]


def test_a_member_trained_from_a_terminal_reads_finished_in_the_tree_once_the_run_list_sees_it_end(qtbot, tmp_path):
    """A group run from a terminal: the page read member g-03 "running" from its folder; when the run list re-reads
    the folder and lists the run finished, the tree reads "finished" too (as the run list and the table beside it),
    without Refresh."""
    from explorer.core.runs.store import RunStore
    from explorer.ui.groups.tabs import GroupsTab
    from explorer.ui.runs.bridge import StoreBridge
    from explorer.ui.runs.state import RunState

    runs = tmp_path / "runs"
    group, _configs = groups.plan_restarts(TrainConfig(task="pair"), "g", [1, 2, 3])
    groups.write_group(runs, group)
    _fake_run(runs, "g-01", [(0, 0.5), (10, 0.8)])
    _fake_run(runs, "g-02", [(0, 0.5), (10, 0.7)])
    live = _fake_run(runs, "g-03", [(0, 0.5)], finished=False)
    _worker_of(live)
    store = RunStore(runs)
    bridge = StoreBridge(store)
    store.add(RunState(run_id="g-03", status="running", path=str(live)))   # listed from its folder, not driven here
    tab = GroupsTab(runs)
    qtbot.addWidget(tab)
    tab.watch_runs(bridge)
    qtbot.waitUntil(lambda: tab.tree.topLevelItemCount() == 1 and tab.tree.topLevelItem(0).childCount() == 3,
                    timeout=10_000)
    with qtbot.waitSignal(tab.group_shown, timeout=10_000):
        tab.tree.setCurrentItem(tab.tree.topLevelItem(0))
    assert tab.tree.topLevelItem(0).child(2).text(1) == "running"
    with open(live / EVENTS_FILE, "a", encoding="utf-8") as f:   # the terminal's run ends
        f.write(json.dumps({"event": "finished", "run_id": "g-03", "time": 3.0, "metrics": {}, "seconds": 2.0}) + "\n")
    (live / "worker.pid").unlink()
    with qtbot.waitSignal(tab.group_shown, timeout=10_000):
        store.offer(RunState(run_id="g-03", status="finished", path=str(live)))   # the run list's re-read
    assert tab.tree.topLevelItem(0).child(2).text(1) == "finished"
    assert [m.status for m in tab.view.members] == ["finished", "finished", "finished"]


def test_the_restarts_count_and_the_seeds_stay_in_agreement(qtbot, tmp_path):
    """Seeds "1,2" queue 2 runs: the restarts box says 2, not the 3 it started at; a new count takes or adds seeds
    ("1, 2, 3"), empty seeds stay empty (generated), and a half-typed list leaves the count as it is."""
    from explorer.ui.groups.tabs import GroupsTab

    (tmp_path / "runs").mkdir()
    tab = GroupsTab(tmp_path / "runs")
    qtbot.addWidget(tab)
    assert tab.restarts.value() == 3
    qtbot.keyClicks(tab.seeds, "1,2")
    assert tab.restarts.value() == 2
    tab.restarts.setValue(3)
    assert tab.seeds.text() == "1, 2, 3"
    tab.restarts.setValue(1)
    assert tab.seeds.text() == "1"
    qtbot.keyClicks(tab.seeds, ",x")
    assert tab.restarts.value() == 1 and tab.seeds.text() == "1,x"
    tab.seeds.clear()
    tab.restarts.setValue(4)
    assert tab.seeds.text() == ""


def test_members_with_a_config_but_no_folder_are_found_as_never_started(tmp_path):
    group, configs = groups.plan_restarts(TrainConfig(), "cv-x", [1, 2, 3])
    groups.write_group(tmp_path, group)
    groups.write_member_configs(tmp_path, group, configs)
    _fake_run(tmp_path, "cv-x-01", [(0, 0.5), (10, 0.8)])
    found = groups.never_started_members(tmp_path)
    assert [f.group for f in found] == ["cv-x"]
    assert [p.stem for p in found[0].configs] == ["cv-x-02", "cv-x-03"]
    assert found[0].sentence() == "2 run(s) of cv-x were queued and never started"
    assert all(TrainConfig.from_dict(json.loads(p.read_text())).run_id == p.stem for p in found[0].configs)
    # the runs this window still holds queued are not offered
    assert [p.stem for p in groups.never_started_members(tmp_path, busy={"cv-x-02"})[0].configs] == ["cv-x-03"]
    assert groups.never_started_members(tmp_path, busy={"cv-x-02", "cv-x-03"}) == []
    # a member cancelled while queued (quitting cancels the queue) never started either; one that trained did
    from explorer.ui.runs.runner import record_cancelled_queued

    cfg = TrainConfig.from_dict(json.loads(found[0].configs[0].read_text()))
    assert record_cancelled_queued(dataclasses.replace(cfg, output_dir=str(tmp_path))) == ""
    assert groups.cancelled_while_queued(tmp_path / "cv-x-02")
    assert [p.stem for p in groups.never_started_members(tmp_path)[0].configs] == ["cv-x-02", "cv-x-03"]
    assert not groups.cancelled_while_queued(tmp_path / "cv-x-01")



def test_runs_queued_on_their_own_at_quit_are_found_apart_from_group_members_and_user_cancels(tmp_path):
    """never_started_runs: the records of runs left in the queue at quit, in run id order; a group's member (offered
    with its group), a queued run the user cancelled, a run that trained and a busy one are not among them."""
    from explorer.ui.runs.runner import record_cancelled_queued

    group, configs = groups.plan_restarts(TrainConfig(), "cv-x", [1, 2])
    groups.write_group(tmp_path, group)
    out = str(tmp_path)
    assert record_cancelled_queued(dataclasses.replace(configs[0], output_dir=out), at_quit=True) == ""
    for run_id in ("b-lone", "a-lone", "busy"):
        assert record_cancelled_queued(TrainConfig(output_dir=out, run_id=run_id), at_quit=True) == ""
    assert record_cancelled_queued(TrainConfig(output_dir=out, run_id="user-cancelled")) == ""
    _fake_run(tmp_path, "trained", [(0, 0.5), (10, 0.8)])
    found = groups.never_started_runs(tmp_path, busy={"busy"})
    assert [p.name for p in found] == ["a-lone", "b-lone"]
    assert groups.queued_at_quit(tmp_path / "busy") and not groups.queued_at_quit(tmp_path / "user-cancelled")


def test_restarts_with_the_name_box_empty_name_themselves_like_cross_validation(qtbot, tmp_path):
    """An empty name box is no error: the group is named from the training file and its kind (the rule
    Cross-validate names its group by), a taken name followed by -2."""
    from explorer.ui.groups.tabs import GroupsTab

    (tmp_path / "runs").mkdir()
    tab = GroupsTab(tmp_path / "runs")
    qtbot.addWidget(tab)
    base = TrainConfig(task="single", train=str(tmp_path / "my reviews.csv"), model="m")
    group, configs = tab.plan_group("restarts", base)
    assert group.name == "my_reviews-restarts" and len(configs) == tab.restarts.value()
    # each member's config is kept, so a restart still queued when the app quits is offered again at the next start
    assert [p.stem for p in groups.never_started_members(tmp_path / "runs")[0].configs] == [c.run_id for c in configs]
    again, _ = tab.plan_group("restarts", base)
    assert again.name == "my_reviews-restarts-2"
    assert groups.default_group_name(tmp_path / "runs", base.train, "cv") == "my_reviews-cv"


def one_class_table(stuck: bool = True) -> dict:
    """The per-class table of 10 dev rows of classes '1', '2', '3': every row predicted '3' (``stuck``), else each
    row's own class."""
    import numpy as np

    from explorer.core.metrics.glue import per_class_metrics

    gold = np.array([0] * 3 + [1] * 3 + [2] * 4)
    return per_class_metrics(gold, np.full(10, 2) if stuck else gold, ["1", "2", "3"])["per_class"]


def _restarts_of(tmp_path, stuck: tuple[bool, ...], name="s"):
    """A finished restarts group of a 3-class table, one member per entry of ``stuck`` (its evaluations predict
    only '3': macro F1 19.05, else every row right: 100)."""
    g, _ = groups.plan_restarts(TrainConfig(task="single", learning_rate=1e-4), name,
                                list(range(1, len(stuck) + 1)))
    groups.write_group(tmp_path, g)
    for i, one in enumerate(stuck, start=1):
        value = 0.1905 if one else 1.0
        _fake_run(tmp_path, f"{name}-{i:02d}", [(0, 0.1905), (5, value), (10, value)], task="single",
                  metric="macro_f1", per_class=one_class_table(one))
    return g


def test_a_restarts_group_whose_members_all_predict_one_class_says_so_in_the_cli_summary_and_report(tmp_path):
    """Both restarts predict only '3' for every dev row: "19.0 ± 0.0" is the majority rate twice, not a stable
    result; the summary and the report say so, with what to try. A healthy group gets no such line."""
    from explorer.core.studies.group_stats import group_table
    from explorer.core.studies.reports import write_group_report

    _restarts_of(tmp_path, (True, True))
    p = _cli(["group", "--group", "s", "--summary", "--output-dir", str(tmp_path)])
    assert p.returncode == 0, p.stderr
    said = [ln for ln in p.stdout.splitlines() if ln.startswith("note: both seeds")]
    assert said == ["note: both seeds predict only '3' for every dev row (the models learned nothing, so the ± 0.0 "
                    "is no stability) at learning rate 1e-4: train longer (more epochs or "
                    "more training rows)"]
    g, members, notes = groups.load_group_data(tmp_path, "s")
    report = write_group_report(tmp_path / "report", g, members, group_table(members, list(g.varied)), notes=notes)
    assert "both seeds predict only '3' for every dev row (the models learned nothing" in (
        report / "report.md").read_text(encoding="utf-8")

    _restarts_of(tmp_path, (False, False), name="h")
    p = _cli(["group", "--group", "h", "--summary", "--output-dir", str(tmp_path)])
    assert p.returncode == 0, p.stderr
    assert "learned nothing" not in p.stdout and "predict" not in p.stdout


def test_one_of_three_seeds_stuck_on_one_class_is_counted_in_the_groups_sentence():
    """Some members learned: the sentence counts the stuck ones and says the mean mixes them with the others;
    members never predicting some classes are counted alike; none noted: no sentence."""
    from explorer.core.metrics.baselines import NO_NOTE, one_class_note
    from explorer.core.studies.group_classes import SOME_LEARNED_NOTHING, group_class_note

    stuck = one_class_note({"per_class": one_class_table()}, 1e-5)
    note = group_class_note([stuck, NO_NOTE, NO_NOTE], "restarts", spread=30.0, learning_rate=1e-5)
    assert note.kind == SOME_LEARNED_NOTHING and note.mark() == " !"
    assert note.text.startswith("1 of 3 seeds predicts only '3' for every dev row (it learned nothing, and the mean "
                                "± sd mixes it with the others): try a larger learning rate")
    assert not group_class_note([NO_NOTE, NO_NOTE], "restarts")


def test_a_group_a_group_command_is_driving_is_not_offered_as_left_behind(tmp_path):
    """While a ``bert-explorer group`` command drives a group (it starts the members one after the other), its
    members not yet started are its own queue: an app started meanwhile does not offer to queue them again (it
    queued duplicates beside the command's members); once the command has ended they are offered."""
    group, configs = groups.plan_restarts(TrainConfig(), "cv-x", [1, 2])
    groups.write_group(tmp_path, group)
    groups.write_member_configs(tmp_path, group, configs)
    with groups.driving(tmp_path, "cv-x") as folder:
        assert groups.driven_elsewhere(tmp_path, "cv-x")
        assert groups.never_started_members(tmp_path) == []
    assert not groups.driven_elsewhere(tmp_path, "cv-x") and not any(folder.glob("*.pid"))
    assert [p.stem for p in groups.never_started_members(tmp_path)[0].configs] == ["cv-x-01", "cv-x-02"]


def test_the_group_command_records_itself_as_the_driver_while_its_members_train(tmp_path, monkeypatch):
    """``group --cv`` and ``--curve`` run their members through train_members, inside ``groups.driving``: while a
    member trains, the group is driven elsewhere for any other process reading the runs folder."""
    from explorer.commands import group as group_command
    from explorer.commands import group_members

    group, configs = groups.plan_restarts(TrainConfig(), "rs", [1, 2])
    groups.write_group(tmp_path, group)
    paths = groups.write_member_configs(tmp_path, group, configs)
    seen = []
    monkeypatch.setattr(group_members, "run_member",
                        lambda cmd, lines: seen.append(groups.driven_elsewhere(tmp_path, "rs")) or 0)
    assert group_command.train_members(tmp_path, group, paths, lambda m: f"seed {m.seed}") == []
    assert seen == [True, True] and not groups.driven_elsewhere(tmp_path, "rs")


def test_the_groups_pages_best_column_marks_a_member_stuck_on_one_class_as_the_runs_list_does(qtbot, tmp_path):
    """A member whose model predicts one class for every dev row reads " · one class" after its best figure in the
    Groups page's list, in amber with the sentence in the tooltip, word for word the Runs list's Best dev cell; a
    member that learned reads its figure alone."""
    from PySide6.QtGui import QColor

    from explorer.ui.groups.tabs import GroupsTab
    from explorer.ui.launch.form_model import WARNING_COLOR
    from explorer.ui.runs.dock import COLUMNS, RunsPanel
    from explorer.ui.runs.store import load_summary

    _restarts_of(tmp_path, (True, False))
    tab = GroupsTab(tmp_path)
    qtbot.addWidget(tab)
    qtbot.waitUntil(lambda: tab.tree.topLevelItemCount() == 1 and tab.tree.topLevelItem(0).childCount() == 2,
                    timeout=10_000)
    stuck, learned = tab.tree.topLevelItem(0).child(0), tab.tree.topLevelItem(0).child(1)
    panel = RunsPanel()
    qtbot.addWidget(panel)
    for rid in ("s-01", "s-02"):
        panel.upsert(load_summary(tmp_path / rid))
    model = panel.model

    def runs_list_best(rid):
        return model.data(model.run_index(rid, COLUMNS.index("Best dev")))

    assert stuck.text(2).endswith(" !") and stuck.text(2) == runs_list_best("s-01")
    assert "!" not in learned.text(2) and learned.text(2) == runs_list_best("s-02")
    assert stuck.foreground(2).color() == QColor(WARNING_COLOR)
    assert "predicts only '3' for every dev row" in stuck.toolTip(2)


def test_the_groups_page_shows_the_only_group_and_its_best_figure_once_a_member_has_ended(qtbot, tmp_path):
    """One group, g-01 ended at 80%, g-02 still training: the group's row reads the ended member's best figure as the
    Runs list's group row does ("(1 seed)", the headline naming the metric in its tooltip; the member training has a best so far, not
    its figure), and the page shows the group without a click in its list."""
    from explorer.ui.groups.tabs import GroupsTab

    runs = tmp_path / "runs"
    _one_restart_running(runs)
    tab = GroupsTab(runs)
    qtbot.addWidget(tab)
    qtbot.waitUntil(lambda: tab.tree.topLevelItemCount() == 1, timeout=10_000)
    top = tab.tree.topLevelItem(0)
    assert top.text(2) == "80.00% (1 seed)", top.text(2)
    assert top.toolTip(2) == "best dev acc 80.00% over 1 seed"
    qtbot.waitUntil(lambda: tab.view.group is not None, timeout=10_000)
    assert tab.view.group.name == "g" and [m.status for m in tab.view.members] == ["finished", "running"]
    assert "no group" not in (tab.view.curves.getPlotItem().titleLabel.text or "")



def test_the_groups_page_with_no_group_shown_points_to_its_own_list_too(qtbot):
    """Before a group is shown the plot says where to pick one: the page's own list as well as the Runs dock."""
    from explorer.ui.groups.view import GroupView

    view = GroupView()
    qtbot.addWidget(view)
    view._draw_curves()
    assert view.curves.getPlotItem().titleLabel.text == "no group: pick one in the list beside or in the Runs dock"


def test_the_group_row_says_no_figure_before_a_member_has_ended():
    """Members queued or training, or never started, give the group's row no figure yet."""
    from explorer.core.runs.reading import RunSummary
    from explorer.ui.groups.tree_cells import group_best_cell

    group, _configs = groups.plan_restarts(TrainConfig(task="pair"), "g", [1, 2])

    def member(i, status, value):
        summary = RunSummary(run_id=f"g-0{i}", path="", status=status, task="pair", metric_name="accuracy",
                             metric_value=value)
        return groups.MemberState(member=group.members[i - 1], path=None, status=status, summary=summary)

    assert group_best_cell("restarts", [member(1, "running", 0.6), member(2, "queued", None)]) == ("", "")
    assert group_best_cell("restarts", [member(1, "finished", 0.6), member(2, "finished", 0.8)])[0] == \
        "70.0 ± 14.1%"
    live = group_best_cell("restarts", [member(1, "finished", 0.6), member(2, "finished", 0.8)],
                           live_of=lambda rid: "running" if rid == "g-02" else None)
    assert live == ("60.00% (1 seed)", "best dev acc 60.00% over 1 seed")


def test_a_group_just_queued_is_shown_and_selected_without_a_click(qtbot, tmp_path):
    """Two groups listed, the first one shown: queuing the second (follow_group, as the window does once it has
    queued its members) shows it beside the list and selects its row once the list is read again."""
    from explorer.core.runs.store import RunStore
    from explorer.ui.groups.tabs import GroupsTab
    from explorer.ui.runs.bridge import StoreBridge

    runs = tmp_path / "runs"
    first, _configs = groups.plan_restarts(TrainConfig(task="pair"), "a", [1])
    groups.write_group(runs, first)
    _fake_run(runs, "a-01", [(0, 0.5), (10, 0.8)])
    tab = GroupsTab(runs)
    qtbot.addWidget(tab)
    qtbot.waitUntil(lambda: tab.tree.topLevelItemCount() == 1, timeout=10_000)
    with qtbot.waitSignal(tab.group_shown, timeout=10_000):
        tab.tree.setCurrentItem(tab.tree.topLevelItem(0))
    assert tab.view.group.name == "a"
    queued, _configs = groups.plan_restarts(TrainConfig(task="pair"), "b", [1, 2])
    groups.write_group(runs, queued)
    tab.refresh()   # as plan_group does, before the window follows the group
    store = RunStore(runs)
    with qtbot.waitSignal(tab.group_shown, timeout=10_000):
        tab.follow_group("b", [m.run_id for m in queued.members], StoreBridge(store))
    assert tab.view.group.name == "b"
    qtbot.waitUntil(lambda: tab.tree.topLevelItemCount() == 2, timeout=10_000)
    tab.refresh()
    qtbot.waitUntil(lambda: tab.tree.currentItem() is not None
                    and tab.tree.currentItem().data(0, 0x0100) == "b", timeout=10_000)
    assert tab.view.group.name == "b"

"""The learning curve group: nested stratified subsets, the shared dev rows, the CLI end to end on a tiny
model, and each size's figure checked by hand against scikit-learn."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from explorer.core.studies.learning_curve import LearningCurveError, nested_subsets, plan_learning_curve
from explorer.core.specs.train_config import TrainConfig

WORDS = ["red", "blue", "green", "cat", "dog", "runs", "sleeps", "fast", "slow", "big", "small", "tree"]


def _write_table(path, n=40):
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "sentence", "label"])
        for i in range(n):
            words = " ".join(WORDS[(i * 5 + j) % len(WORDS)] for j in range(3 + i % 4))
            label = ["neg", "pos", "none"][i % 3] if i % 5 else "neg"
            w.writerow([f"r{i:02d}", f"{words} number {i} {label if i % 2 else ''}", label])
    return path


def _rows(path):
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def test_subsets_are_nested_and_keep_each_class_share():
    labels = np.array([0] * 50 + [1] * 30 + [2] * 20)
    subsets = nested_subsets(labels, (0.125, 0.25, 0.5, 1.0), seed=3)
    for small, big in zip(subsets, subsets[1:]):
        assert set(small.tolist()) <= set(big.tolist())
    assert len(subsets[-1]) == 100
    for s, f in zip(subsets, (0.125, 0.25, 0.5, 1.0)):
        counts = np.bincount(labels[s], minlength=3)
        assert np.all(np.abs(counts - np.array([50, 30, 20]) * f) <= 1)
    assert [a.tolist() for a in nested_subsets(labels, seed=3)] == [a.tolist() for a in subsets]
    assert nested_subsets(labels, seed=4)[0].tolist() != subsets[0].tolist()


def test_subset_class_counts_match_sklearn_stratified_split():
    from sklearn.model_selection import train_test_split

    labels = np.array([0] * 61 + [1] * 27 + [2] * 12)
    ours = nested_subsets(labels, (0.25, 1.0), seed=0)[0]
    _, ref = train_test_split(np.arange(100), test_size=0.25, stratify=labels, random_state=0)
    assert np.abs(np.bincount(labels[ours]) - np.bincount(labels[ref])).max() <= 1


def test_bad_fractions_are_refused():
    with pytest.raises(LearningCurveError, match="ascending"):
        nested_subsets([0, 1], (0.5, 0.25))
    with pytest.raises(LearningCurveError, match="ascending"):
        nested_subsets([0, 1], (0.5, 1.5))


def test_plan_holds_out_one_dev_set_shared_by_every_size(tmp_path):
    data = _write_table(tmp_path / "d.csv")
    base = TrainConfig(model="bundled:minilm", task="single", train=str(data), text_columns=["sentence"],
                       label_column="label", dev_fraction=0.25, seed=1)
    group, configs, _, record = plan_learning_curve(base, tmp_path / "runs", "lc")
    assert group.kind == "curve" and [m.params["fraction"] for m in group.members] == [0.125, 0.25, 0.5, 1.0]
    assert len({c.dev for c in configs}) == 1
    dev = set(record["dev_indices"])
    assert len(dev) == 10 and all(not dev & set(s) for s in record["subsets"])
    assert record["sizes"][-1] == 30 and set(record["subsets"][-1]) | dev == set(range(40))
    with pytest.raises(LearningCurveError, match="dev-fraction above 0"):
        plan_learning_curve(TrainConfig(model="m", task="single", train=str(data), dev_fraction=0.0),
                            tmp_path / "runs", "lc2")


def test_a_regression_curve_holds_out_a_random_dev_set_and_scores_pearson(tmp_path):
    from explorer.core.specs.tasks import head_of_task
    from explorer.core.studies.curve_results import judged_metric

    path = tmp_path / "r.csv"
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["a", "b", "score"])
        for i in range(40):
            w.writerow([f"{WORDS[i % 12]} {i}", f"{WORDS[(i * 7) % 12]} {i}", f"{(i % 6) * 0.8:.1f}"])
    base = TrainConfig(model="m", task="regression", train=str(path), text_columns=["a"],
                       label_column="score", dev_fraction=0.2)
    _, configs, data, record = plan_learning_curve(base, tmp_path / "runs", "reg")
    assert data.labels is None and record["class_names"] == [] and record["dev_rows"] == 8
    assert record["sizes"] == [4, 8, 16, 32] and not any(c.label_names for c in configs)
    assert judged_metric(base.to_dict(), head_of_task("regression")) == "pearson"


def test_cli_curve_scores_every_size_beside_the_baseline(tmp_path, monkeypatch):
    from helpers import REPO_ROOT, run_cli, save_tiny_model, worker_env
    from sklearn.metrics import f1_score

    for name, value in worker_env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(REPO_ROOT)
    model = save_tiny_model(tmp_path / "enc", "classification")
    data = _write_table(tmp_path / "data.csv")
    runs = tmp_path / "runs"
    cmd = ["group", "--group", "lc", "--curve", "25,50,100", "--model", str(model), "--task", "single",
           "--train", str(data), "--text-columns", "sentence", "--label-column", "label", "--id-column", "id",
           "--dev-fraction", "0.3", "--new-head", "--metric-for-best", "macro_f1", "--max-steps", "2", "--max-seq-length", "24",
           "--output-dir", str(runs)]
    p = run_cli(cmd)
    assert p.returncode == 0, p.stderr[-3000:]
    assert "Estimated time:" in p.stderr
    folder = runs / ".groups" / "lc"
    result = json.loads((folder / "curve_result.json").read_text())
    assert [pt["train_rows"] for pt in result["points"]] == [7, 14, 28]
    assert result["metric"] == "macro_f1"
    dev = _rows(folder / "curve" / "dev.csv")
    gold = [r["label"] for r in dev]
    for i, pt in enumerate(result["points"]):
        pred = [r["predicted_label"] for r in _rows(folder / "curve" / f"size-{i + 1}-predictions.csv")]
        assert pt["model"]["value"] == pytest.approx(
            f1_score(gold, pred, average="macro", labels=["neg", "none", "pos"], zero_division=0))
        assert pt["model"]["low"] <= pt["model"]["value"] <= pt["model"]["high"]
        assert pt["versus"]["difference"] == pytest.approx(pt["model"]["value"] - pt["baseline"]["value"])
    assert "learning curve of lc" in p.stdout and "bag-of-words" in p.stdout
    assert "fewer than 30" in p.stdout      # 12 dev rows: every class is thin

    again = run_cli(cmd)
    assert again.returncode == 0 and again.stderr.count("already done; kept") == 3

    from explorer.core.studies.curve_results import collect_curve     # the Groups page's scoring step
    from explorer.core.studies.groups import GROUP_FILE, load_group_file

    reports = []
    collect_curve(runs, load_group_file(folder / GROUP_FILE), progress=lambda d, n: reports.append((d, n)),
                  cancelled=lambda: False)
    assert reports == [(12, 36), (24, 36), (36, 36)]     # each size's 12 dev rows (cached: whole at once)


# -- the Groups page ---------------------------------------------------------------------------------
def _curve_result(group_folder, group):
    from explorer.core.metrics.intervals import FigureInterval
    from explorer.core.metrics.optimism import dev_overlap, figure_marks
    from explorer.core.studies.curve_results import RESULT_FILE, CurveResult, SizePoint, _fit

    def fig(v):
        return FigureInterval(value=v, low=v - 0.08, high=v + 0.08, se=0.04, n=10, level=0.95, resamples=200, seed=0)

    points = [SizePoint(fraction=m.params["fraction"], train_rows=m.params["train_rows"], run_id=m.run_id,
                        model=fig(v), baseline=fig(b), versus={"difference": v - b, "low": v - b - 0.1,
                                                               "high": v - b + 0.1, "mcnemar_p": 0.2})
              for m, v, b in zip(group.members, (0.41, 0.52, 0.58, 0.61), (0.45, 0.49, 0.52, 0.54))]
    result = CurveResult(group=group.name, metric="f_avg", n_dev=10, points=points,
                         marks=figure_marks(class_support={"neg": 4, "pos": 3, "none": 3},
                                            overlap=dev_overlap(["a b"], ["a  b", "c"])))
    result.fit, result.fit_note = _fit([(p.train_rows, p.model) for p in points], 1.0)
    (group_folder / RESULT_FILE).write_text(json.dumps(result.to_dict()))
    return result


def test_groups_page_shows_the_curve_the_baseline_and_the_marks(qtbot, tmp_path):
    from test_groups import _fake_run

    from explorer.core.studies.groups import group_dir
    from explorer.core.studies.learning_curve import start_learning_curve
    from explorer.ui.groups.tabs import GroupsTab

    data = _write_table(tmp_path / "d.csv")
    base = TrainConfig(model="bundled:minilm", task="single", train=str(data), text_columns=["sentence"],
                       label_column="label", dev_fraction=0.25)
    group, _, _ = start_learning_curve(base, tmp_path, "lc")
    for m in group.members:
        _fake_run(tmp_path, m.run_id, [(0, 0.4), (3, 0.5)], finished=False, task="single")
    tab = GroupsTab(tmp_path)
    qtbot.addWidget(tab)
    tab.resize(1300, 700)
    with qtbot.waitSignal(tab.group_shown, timeout=10_000):
        tab.show_group("lc")
    assert "learning curve: not scored yet" in tab.view.summary.text()
    assert tab.view.curve_plot.drawn is None and tab.view.curve_plot.isVisibleTo(tab)
    result = _curve_result(group_dir(tmp_path, "lc"), group)
    with qtbot.waitSignal(tab.group_shown, timeout=10_000):
        tab.show_group("lc")
    text = tab.view.summary.text()
    import html
    for line in result.lines("F_avg (%)", 100.0):
        assert html.escape(line) in text
    assert "bag-of-words 54.0 (46.0 to 62.0)" in text and "the next doubling" in text
    assert "1 of 2 dev rows (50.0%) also occur in the training rows" in text
    assert "t interval" not in text   # the sizes' mean would mix training-set sizes: no interval of it
    assert "per size: " in text and "±" not in text   # nor a mean ± sd: each size's figure on its own
    drawn = tab.view.curve_plot.drawn   # the same figures drawn: sizes on log2 rows, the fit's next doubling
    assert list(drawn.model.value) == pytest.approx([41, 52, 58, 61]) and drawn.next is not None
    tab.show()
    tab.resize(1000, 600)      # a narrow page (1280x800 beside the Runs dock): every plot within its pane
    qtbot.waitUntil(lambda: tab.view.curves.width() < 400)
    for plot in (tab.view.curves, tab.view.curve_plot):
        assert plot.getPlotItem().geometry().width() <= plot.width() + 1, "a title widened the plot past its pane"
    legend = tab.view.curves.getPlotItem().legend   # one line per size, named by its rows
    assert [label.text for _sample, label in legend.items] == [f"{m.params['train_rows']} rows" for m in group.members]
    tab.grab().save(str(tmp_path / "curve.png"))
    report = tab.view.export_report(tmp_path / "report")
    assert (report / "learning_curve.png").is_file() and "## Learning curve" in (report / "report.md").read_text()
    md = (report / "report.md").read_text()   # the report too: each size on its own, no mean or band across sizes
    assert f"- final accuracy (%) per size: {group.members[0].params['train_rows']} rows 50.00" in md
    assert "- final accuracy (%): " not in md
    assert (report / "summary.csv").read_text().splitlines()[0] == "metric," + ",".join(
        f"{m.params['train_rows']} rows" for m in group.members)
    assert not (report / "curves.csv").exists()


def test_learning_curve_button_asks_with_the_sizes_and_the_time_then_writes_the_group(qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    from explorer.core.studies.groups import GROUP_FILE, group_dir
    from explorer.ui.groups.tabs import GroupsTab

    data = _write_table(tmp_path / "d.csv")
    base = TrainConfig(model="bundled:minilm", task="single", train=str(data), text_columns=["sentence"],
                       label_column="label", dev_fraction=0.25)
    tab = GroupsTab(tmp_path / "runs")
    qtbot.addWidget(tab)
    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda _p, _t, text: asked.append(text) or QMessageBox.StandardButton.No)
    assert tab.learning_curve(base, estimate=lambda sizes: f"Estimated time: {sum(sizes)} s") is None
    assert "4 runs on 4 (12.5%), 8 (25%), 15 (50%), 30 (100%) training rows" in asked[0]
    assert "10 rows of d.csv held out once" in asked[0] and "Estimated time: 57 s" in asked[0]
    assert not (group_dir(tmp_path / "runs", "d-curve") / GROUP_FILE).exists()
    monkeypatch.setattr(QMessageBox, "question", lambda *_a: QMessageBox.StandardButton.Yes)
    group, configs = tab.learning_curve(base)
    assert group.kind == "curve" and len(configs) == 4 and (group_dir(tmp_path / "runs", "d-curve") / GROUP_FILE).exists()


def test_the_curve_estimate_stops_each_size_at_its_time_budget():
    """A learning curve of budgeted runs: each size takes at most its budget (the larger sizes would not), and
    the estimate says how many the budget stops."""
    from explorer.core.runs.throughput import Speed, estimate_text

    speed = Speed(samples_per_second=10.0, n_runs=1)
    text = estimate_text([100, 200, 400, 800], speed, budget_seconds=25.0)   # 10, 20, 40, 80 s without it
    assert text.startswith("Estimated time: 80 s in all (1,500 training samples")
    assert "2 of 4 runs stop at their 25 s time budget (without it 2 min)" in text
    uncut = estimate_text([100, 200], speed, budget_seconds=25.0)
    assert "runs stop at" not in uncut        # the budget cuts no run: its evaluations come on top, up to it
    assert uncut.endswith("evaluation comes on top, each run ending at its 25 s time budget at the latest).")
    # the budget is wall time: when it stops every run their evaluations are inside it
    assert estimate_text([400, 800], speed, budget_seconds=25.0, after="the dev predictions").endswith(
        "the budget includes their evaluations; the dev predictions come on top).")


def test_a_curve_groups_figures_read_size_by_size_never_as_a_mean():
    """Each size trains on other rows: the Groups page, the CLI summary and the Runs dock give the figure per
    size (the dock: the largest size's), where restarts of one setting get mean ± sd and a t interval."""
    import numpy as np

    from explorer.core.studies.group_stats import MemberData, group_table, per_size_lines
    from explorer.core.studies.groups import Group, GroupMember
    from explorer.ui.groups.group_summary import summary_head, summary_tail
    from explorer.ui.runs.group_rows import GroupRow

    rows, acc = (400, 800, 1600), (50.92, 54.36, 77.06)
    members = [MemberData(run_id=f"lc-0{i}", status="finished", params={"fraction": r / 3200, "train_rows": r},
                          metric_name="accuracy", task="single", eval_steps=np.array([0, 9]),
                          eval_values=np.array([50.0, a]), final_metrics={"accuracy": a, "macro_f1": a - 10})
               for i, (r, a) in enumerate(zip(rows, acc), 1)]
    curve = Group(name="lc", kind="curve", varied=["fraction"], seeds=[1],
                  members=[GroupMember(run_id=m.run_id, seed=1, params=m.params) for m in members])
    table = group_table(members, ["fraction"])
    text = summary_head(curve, members, table, [])
    assert text.startswith("final accuracy (%) per size: 400 rows 50.92, 800 rows 54.36, 1600 rows 77.06")
    tail = summary_tail(curve, members, table)   # after the curve's own lines, so they stay in view
    assert "macro F1 (%) per size: 400 rows 40.92" in tail and "±" not in tail
    assert "±" not in text and "t interval" not in text and f"{np.mean(acc):.2f}" not in text
    assert per_size_lines(members, "accuracy")[0] == text.split("  |")[0].split("<br>")[0][len("final "):]

    restarts = Group(name="r", kind="restarts", varied=["seed"], seeds=[1, 2, 3], members=curve.members)
    assert summary_tail(restarts, members, table) == ""
    text = summary_head(restarts, members, table, [])
    assert f"{np.mean(acc):.2f} ± {np.std(acc, ddof=1):.2f}" in text and "t interval" in text

    def state(value):   # a finished run whose best (and only scored) evaluation gave ``value`` percent
        from explorer.ui.runs.state import RunState

        return RunState.from_events("m", [
            {"event": "started", "run_id": "m", "time": 0.0, "config": {"task": "single"}, "steps_total": 9},
            {"event": "eval", "run_id": "m", "time": 1.0, "step": 9, "metrics": {"accuracy": value / 100}},
            {"event": "finished", "run_id": "m", "time": 2.0, "metrics": {}}])

    row = GroupRow(group=curve, states=[state(a) for a in acc])
    assert row.best_text() == "77.06% acc at 1600 rows" and row.best_sort_key() == 77.06
    assert "largest size" in row.tooltip()
    assert "±" in GroupRow(group=restarts, states=[state(a) for a in acc]).best_text()
    live = state(46.14)
    from explorer.core.runs import status as run_status

    live.status = run_status.RUNNING                 # a restart still training: its best so far is no figure yet
    mixed = GroupRow(group=restarts, states=[state(60.52), state(60.84), live])
    assert mixed.best_text() == "best dev acc 60.7 ± 0.2% over 2 seeds" and mixed.best()[1].n == 2


def test_the_curve_estimate_says_when_the_time_budget_leaves_the_larger_sizes_too_few_steps():
    """Sizes of 400 to 3,200 rows in a 1-minute budget at 3.76 samples/s fit about 6 steps of 32 rows: the estimate
    says so with the budget that fits enough; at a speed that fits hundreds of steps it does not."""
    from explorer.ui.launch.grid_estimate import Throughput, curve_estimate

    base = TrainConfig(task="single", train="d.csv", epochs=1, time_budget_minutes=1.0)
    text = curve_estimate(base, [400, 800, 1600, 3200], Throughput(3.76, 2))
    assert text.endswith("\nEach size trains about 6 steps in its 1:00 budget: too few to learn; give each size "
                         "about 9 minutes.")
    assert "too few to learn" not in curve_estimate(base, [400, 800, 1600, 3200], Throughput(400.0, 2))

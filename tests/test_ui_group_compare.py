"""Group view and Compare view (explorer/ui/groups/view.py, compare_view.py), offscreen."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

pytest.importorskip("pytestqt")

from explorer.core.qa.compare import QuestionComparison, compare_decodings  # noqa: E402
from explorer.core.studies.group_stats import MemberData  # noqa: E402
from explorer.core.studies.groups import plan_grid, plan_restarts  # noqa: E402
from explorer.core.specs.train_config import TrainConfig  # noqa: E402


def _members(group, values):
    return [MemberData(run_id=m.run_id, status="finished", params=m.params, metric_name="accuracy",
                       eval_steps=np.array([0.0, 10.0]), eval_values=np.array([0.5, v])) for m, v in zip(group.members, values)]


def test_group_view_restarts_band_table_and_report(qtbot, tmp_path):
    from explorer.ui.groups.view import GroupView

    group, _ = plan_restarts(TrainConfig(task="pair"), "r", [1, 2, 3])
    view = GroupView()
    qtbot.addWidget(view)
    view.resize(1000, 700)
    view.set_group(group, _members(group, [0.7, 0.8, 0.9]), ["a note"])
    assert view.table.rowCount() == 3 and "0.80 ± 0.10" in view.summary.text()
    assert not view.heat_plot.isVisibleTo(view)
    view.band_mode.setCurrentIndex(1)   # ± sd
    assert "sd" in view.curves.plotItem.titleLabel.text
    low, high = view.curves.viewRange()[1]
    assert 0.4 < low < 0.5 and 0.9 < high < 1.0        # the data's range (0.5 .. 0.9 + sd), not down to 0
    view.table.sortItems(view.table_data.columns.index("best"), Qt.DescendingOrder)
    assert view.table.item(0, 0).text() == "r-03"
    folder = view.export_report(tmp_path / "rep")
    assert (folder / "group.png").stat().st_size > 1000 and (folder / "runs.csv").exists()
    assert "![group](group.png)" in (folder / "report.md").read_text()


def test_group_view_grid_heat_map_and_tooltip(qtbot, tmp_path):
    from explorer.ui.groups.view import GroupView

    group, _ = plan_grid(TrainConfig(), "g", seeds=[1, 2], grid={"learning_rate": [2e-5, 3e-5], "epochs": [2, 3]})
    values = [0.60, 0.64, 0.70, 0.72, 0.80, 0.84, 0.50, 0.52]   # (lr, ep, seed) in plan order
    view = GroupView()
    qtbot.addWidget(view)
    view.set_group(group, _members(group, values))
    assert view.heat_plot.isVisibleTo(view) and view.x_axis.currentText() == "learning_rate"
    assert view.heat.mean.shape == (2, 2)
    assert view.heat.mean[0, 0] == pytest.approx(0.62)          # lr 2e-5, ep 2: seeds 0.60, 0.64
    assert view.heat.mean[1, 1] == pytest.approx(0.51)          # lr 3e-5, ep 3
    assert view.heat_tooltip(1, 0) == "learning_rate 3e-05, epochs 2: 0.82 ± 0.03 (0.80..0.84, n 2)"
    assert len(view.heat_labels) == 4
    folder = view.export_report(tmp_path / "rep")
    assert (folder / "heatmap.png").exists() and (folder / "heatmap.csv").exists()


class _Dec:
    def __init__(self, text, sd):
        self.text, self.score_diff = text, sd

    def answer(self, tau=0.0):
        return self.text if self.score_diff > tau else ""

    @property
    def best_text(self):
        return self.text


def test_compare_view_counts_table_and_click_opens_question(qtbot, tmp_path):
    from explorer.ui.groups.compare_view import COLUMNS, CompareView

    gold = {"q1": ["Paris"], "q2": ["Ada"], "q3": []}
    a = {"q1": _Dec("Paris", 1), "q2": _Dec("Bob", 1), "q3": _Dec("x", -1)}
    b = {"q1": _Dec("Rome", 1), "q2": _Dec("Ada", 1), "q3": _Dec("x", -1)}
    c = compare_decodings(a, b, gold, questions={"q1": "capital?", "q2": "who?", "q3": "none?"},
                          contexts={"q1": "Paris is the capital.", "q2": "Ada wrote.", "q3": "x"})
    view = CompareView()
    qtbot.addWidget(view)
    view.set_comparison(c)
    assert view.table.rowCount() == 2 and "only A 1 | only B 1" in view.header.text()
    em = [view.table.item(0, COLUMNS.index(c)).text() for c in ("EM A", "EM B")]
    assert sorted(em) == ["0", "1"]                                      # one right, the other wrong
    with qtbot.waitSignal(view.question_requested, timeout=60_000) as sig:
        view.table.cellDoubleClicked.emit(0, 1)
    assert sig.args[0] in ("capital?", "who?") and sig.args[1] in ("Paris is the capital.", "Ada wrote.")
    folder = view.export_report(tmp_path / "rep", data="dev.json")
    assert (folder / "compare.png").stat().st_size > 1000 and "dev.json" in (folder / "report.md").read_text()
    assert isinstance(view.rows[0], QuestionComparison)


def test_groups_tab_lists_groups_with_members_and_broken_files(qtbot, tmp_path):
    from test_groups import _fake_run

    from explorer.core.studies.groups import write_group
    from explorer.ui.groups.tabs import GroupsTab

    group, _ = plan_restarts(TrainConfig(task="pair"), "r", [1, 2, 3])
    write_group(tmp_path, group)
    _fake_run(tmp_path, "r-01", [(0, 0.5), (10, 0.8)])
    _fake_run(tmp_path, "r-02", [(0, 0.5), (5, 0.6)], finished=False)   # killed: no terminal event
    (tmp_path / ".groups" / "broken").mkdir()
    (tmp_path / ".groups" / "broken" / "group.json").write_text("[]")
    tab = GroupsTab(tmp_path)
    qtbot.addWidget(tab)
    qtbot.waitUntil(lambda: tab.tree.topLevelItemCount() == 1, timeout=10_000)   # read off the GUI thread
    top = tab.tree.topLevelItem(0)
    assert [top.child(i).text(1) for i in range(top.childCount())] == ["finished", "crashed", "missing"]
    assert top.child(0).text(2) == "80.00% acc"   # the Runs list's form of a stored 0.8
    assert "broken" in tab.message.text() and "not an object" in tab.message.text()
    with qtbot.waitSignal(tab.group_shown, timeout=10_000):   # read off the GUI thread
        tab.tree.setCurrentItem(top)
    assert tab.view.group.name == "r" and tab.view.table.rowCount() == 3
    (tmp_path / ".groups" / "r" / "group.json").write_text("{")
    tab.show_group("r")
    qtbot.waitUntil(lambda: "not valid JSON" in tab.message.text(), timeout=10_000)
    assert tab.view.group.name == "r" and "GroupError" not in tab.message.text()


def test_compare_tab_command_and_loading_a_report(qtbot, tmp_path):
    from explorer.core.studies.reports import write_comparison_report
    from explorer.ui.groups.tabs import CompareTab

    gold = {"q1": ["Paris"], "q2": []}
    c = compare_decodings({"q1": _Dec("Paris", 1), "q2": _Dec("x", 1)}, {"q1": _Dec("Rome", 1), "q2": _Dec("x", -1)},
                          gold, contexts={"q1": "Paris.", "q2": "x"})
    folder = write_comparison_report(tmp_path / "rep", c)
    tab = CompareTab()
    qtbot.addWidget(tab)
    tab.a.setText("A")
    tab.b.setText("B")
    tab.data.setText("dev.json")
    cmd = tab.command(tmp_path / "o")
    assert cmd[:3] == ["-m", "explorer", "compare"] and cmd[cmd.index("--cap") + 1] == "300"
    assert tab.load_folder(folder) and tab.view.table.rowCount() == 2
    assert tab.view.comparison.counts == c.counts
    assert not tab.load_folder(tmp_path) and "comparison.json" in tab.status.text()
    tab.a.setText("")
    tab.start()
    assert "checkpoint A" in tab.status.text() and tab.process is None


def test_groups_tab_plans_a_named_group_from_the_launch_settings(qtbot, tmp_path):
    from explorer.core.studies.groups import load_group_file
    from explorer.ui.groups.tabs import GroupsTab

    tab = GroupsTab(tmp_path)
    qtbot.addWidget(tab)
    tab.group_name.setText("seeds")
    tab.restarts.setValue(2)
    group, configs = tab.plan_group("restarts", TrainConfig(task="pair", output_dir="/elsewhere"))
    assert [c.run_id for c in configs] == ["seeds-01", "seeds-02"] and {c.output_dir for c in configs} == {str(tmp_path)}
    assert load_group_file(tmp_path / ".groups" / "seeds" / "group.json").seeds == [c.seed for c in configs]
    qtbot.waitUntil(lambda: tab.tree.topLevelItemCount() == 1, timeout=10_000)
    with pytest.raises(ValueError, match="already exists"):
        tab.plan_group("restarts", TrainConfig())
    tab.group_name.setText("grid")
    _, grid = tab.plan_group("grid", TrainConfig())
    assert len(grid) == 24
    tab.group_name.setText("listed")
    tab.seeds.setText("7, 8 9")
    group, configs = tab.plan_group("restarts", TrainConfig())
    assert [c.seed for c in configs] == [7, 8, 9] and group.seeds == [7, 8, 9]
    tab.seeds.setText("7,x")
    with pytest.raises(ValueError, match="'x' is not a whole number"):
        tab.plan_group("restarts", TrainConfig())


def test_compare_tab_says_it_is_for_qa_and_how_to_compare_two_classifiers(qtbot, tmp_path):
    """The Compare tab says it is for QA and how to compare two classifier runs (never a SQuAD-only form without
    a word for someone with two classifiers)."""
    from helpers import save_tiny_model

    from explorer.ui.groups.tabs import CompareTab

    tab = CompareTab()
    qtbot.addWidget(tab)
    assert tab.hint.text().startswith("Two question-answering (SQuAD) checkpoints")
    assert "right-click → Compare two classifiers on the dev rows…" in tab.hint.text()
    cls = save_tiny_model(tmp_path / "cls", "classification")
    qa = save_tiny_model(tmp_path / "qa", "qa")
    tab.a.setText(str(cls))
    tab.b.setText(str(qa))
    tab.data.setText(str(tmp_path / "dev.json"))
    tab.start()
    assert tab.process is None                               # nothing started for a classifier
    assert tab.status.text().startswith(f"Checkpoint A: '{cls}' is a classification model")
    assert tab.status.text().endswith("select both runs in the Runs list, right-click → Compare two classifiers on "
                                      "the dev rows…")
    tab.a.setText(str(qa))
    tab.a.editingFinished.emit()                             # fixed: the note goes
    assert tab.status.text() == ""


def test_compare_tab_says_what_it_compares_for_checkpoint_as_head(qtbot, tmp_path):
    """The first line follows checkpoint A's head (the head spec decides): a QA checkpoint (or none) gets the
    SQuAD comparison, a classifier is told it is compared on its dev rows from the Runs list, a tagger that the
    app does not compare taggers."""
    from helpers import save_tiny_model

    from explorer.ui.groups.tabs import CompareTab

    tab = CompareTab()
    qtbot.addWidget(tab)
    for kind, start in (("classification", "Checkpoint A is a classifier: two classifiers are compared on the "
                                           "first run's dev rows"),
                        ("token_classification", "Checkpoint A is a token-classification (tagging) model: "),
                        ("qa", "Two question-answering (SQuAD) checkpoints")):
        tab.a.setText(str(save_tiny_model(tmp_path / kind, kind)))
        tab.a.editingFinished.emit()
        assert tab.hint.text().startswith(start), tab.hint.text()
    assert "SQuAD" in tab.hint.text() and "right-click → Compare two classifiers on the dev rows…" in tab.hint.text()


def test_compare_tab_swaps_a_and_b_and_runs_a_shown_comparison_again(qtbot, tmp_path, monkeypatch):
    """Swap A ⇄ B (its button; Ctrl+Shift+X on the page) exchanges the checkpoints; with a comparison shown it is
    run again the other way round (the child's --a is the old B)."""
    from explorer.core.studies.reports import write_comparison_report
    from explorer.ui.groups.tabs import CompareTab, GroupPages
    from explorer.ui.inspectors.registry import COMPARE_PAGE, page

    tab = CompareTab()
    qtbot.addWidget(tab)
    tab.a.setText("first")
    tab.b.setText("second")
    tab.swap_button.click()
    assert (tab.a.text(), tab.b.text()) == ("second", "first") and tab.status.text() == "A and B swapped."
    gold = {"q1": ["Paris"]}
    c = compare_decodings({"q1": _Dec("Paris", 1)}, {"q1": _Dec("Rome", 1)}, gold, contexts={"q1": "Paris."})
    assert tab.load_folder(write_comparison_report(tmp_path / "rep", c))
    tab.data.setText("dev.json")
    started = []
    monkeypatch.setattr(tab, "start", lambda: started.append(tab.command(tmp_path / "o")))
    GroupPages(None, tab).swap()   # what the page's shortcut calls
    assert started and started[0][started[0].index("--a") + 1] == "first"
    assert [s.keys[0] for s in page(COMPARE_PAGE).shortcuts] == ["Ctrl+Shift+X"]

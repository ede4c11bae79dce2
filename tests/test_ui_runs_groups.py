"""Run groups in the Runs dock: one expandable row per group with its members as
children, the group row's status counts and mean ± sd, selecting a group or a member, rename and delete."""

from __future__ import annotations

import dataclasses
import json

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtWidgets import QInputDialog, QMessageBox, QPushButton  # noqa: E402

from explorer.core.studies.groups import load_group_file, plan_restarts, write_group  # noqa: E402
from explorer.core.specs.train_config import TrainConfig  # noqa: E402
from explorer.ui.runs.store import load_summary  # noqa: E402
from explorer.ui.runs.dock import COLUMNS  # noqa: E402


def _group_folder(tmp_path):
    """Group r of 3 restarts: r-01 best 80 %, r-02 best 60 % (killed), r-03 never started; one lone run."""
    from test_groups import _fake_run

    group, _ = plan_restarts(TrainConfig(task="pair", model="bundled:minilm"), "r", [1, 2, 3])
    write_group(tmp_path, group)
    _fake_run(tmp_path, "r-01", [(0, 0.5), (5, 0.7), (10, 0.8)])
    _fake_run(tmp_path, "r-02", [(0, 0.5), (5, 0.6)], finished=False)
    _fake_run(tmp_path, "lone", [(0, 0.5), (5, 0.55)])
    return group


@pytest.fixture
def panel(qtbot, tmp_path):
    _group_folder(tmp_path)
    p = _runs_panel(qtbot, tmp_path, ("r-01", "r-02", "lone"))
    p.show()
    return p


def _runs_panel(qtbot, runs_dir, run_ids):
    """A Runs list of ``runs_dir`` that has read ``run_ids``; the end of the read re-reads the groups."""
    from explorer.ui.runs.dock import RunsPanel

    p = RunsPanel()
    qtbot.addWidget(p)
    p.runs_dir_getter = lambda: runs_dir
    p.set_loading(True)
    for rid in run_ids:
        p.upsert(load_summary(runs_dir / rid))
    p.set_loading(False)
    return p


def _text(model, index, col):
    return model.data(index.siblingAtColumn(COLUMNS.index(col)))


def test_group_is_one_expandable_row_with_members_as_children(panel):
    m = panel.model
    assert m.rowCount() == 2                                          # the lone run + the group row
    lone, grp = m.index(0, 0), m.index(1, 0)
    assert m.data(lone) == "lone" or "lone" in m.data(lone, 3)
    assert m.data(grp) == "r" and m.rowCount(grp) == 2
    assert m.data(m.index(0, 0, grp)) == "seed 1 · r-01"             # a member: what the group varies, then its id
    assert [m.node(m.index(i, 0, grp))[1].run_id for i in range(2)] == ["r-01", "r-02"]
    assert m.parent(m.index(1, 0, grp)) == grp
    assert _text(m, grp, "Status") == "1 crashed, 1 finished, 1 missing"
    # best accuracy per member (percent): 80 and 60 -> mean 70, sample sd 14.14
    assert _text(m, grp, "Best dev") == "70.0 ± 14.1% acc"   # as short as a run's cell
    assert "'>best dev acc 70.0 ± 14.1% over 2 seeds\n" in m.data(grp, 3)   # the Groups page's headline
    assert _text(m, grp, "Step") == "15/20"                    # 10 of 10 + 5 of 10 (r-02 was killed at 5)
    assert "r-03: missing" in m.data(grp, 3) and "(best 80.00, worst 60.00, n 2)" in m.data(grp, 3)
    view_group = panel._view_index(m.group_index("r"))
    assert panel.table.isExpanded(view_group)


def test_a_group_with_one_member_figure_shows_no_spread(qtbot, tmp_path):
    """With one member evaluated the group row reads "80.00% acc (1 seed)", not "80.0 ± 0.0%" (a ± from one
    value reads as certainty); its tooltip and the summary's Stats line say n 1 without a ±."""
    from explorer.core.studies.group_stats import stats
    from explorer.ui.runs.dock import RunsPanel

    _group_folder(tmp_path)
    p = RunsPanel()
    qtbot.addWidget(p)
    p.runs_dir_getter = lambda: tmp_path
    p.set_loading(True)
    p.upsert(load_summary(tmp_path / "r-01"))
    p.set_loading(False)
    m = p.model
    grp = m.group_index("r")
    assert _text(m, grp, "Best dev") == "80.00% acc (1 seed)"
    assert "best dev acc 80.00% over 1 seed" in m.data(grp, 3)
    assert "±" not in m.data(grp, 3)
    assert stats([41.5]).text() == "41.50 (n 1)" and stats([40.0, 43.0]).text().startswith("41.50 ± 2.12")


def test_selecting_group_row_or_member(panel, qtbot):
    with qtbot.waitSignal(panel.group_selected, timeout=60_000) as sig:
        panel.select_group("r")
    assert sig.args == ["r"] and panel.selected_ids() == [] and panel.selected_groups() == ["r"]
    with qtbot.waitSignal(panel.selection_changed, timeout=60_000) as sig:
        panel.select(["r-02"])
    assert sig.args == [["r-02"]] and panel.selected_groups() == []
    # a new member (the queue adds it live) goes under its group, in group order
    from test_groups import _fake_run

    _fake_run(panel.runs_dir(), "r-03", [(0, 0.5)])
    panel.upsert(load_summary(panel.runs_dir() / "r-03"))
    grp = panel.model.group_index("r")
    assert [panel.model.node(panel.model.index(i, 0, grp))[1].run_id for i in range(3)] == ["r-01", "r-02", "r-03"]
    assert panel.selected_ids() == ["r-02"]                         # the selection survived the insert
    told = []
    panel.selection_changed.connect(told.append)
    panel.group_selected.connect(told.append)
    panel.reload_groups()                                            # a re-read keeps the selection, quietly
    assert told == [] and panel.selected_ids() == ["r-02"] and panel.model.rowCount(panel.model.group_index("r")) == 3


def test_rename_and_delete_a_group(panel, monkeypatch, tmp_path):
    panel.select_group("r")
    menu = panel.group_menu("r")
    assert {a.text(): a.isEnabled() for a in menu.actions() if a.text()}["Delete group…"]
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("seeds", True))
    assert panel.rename_selected()
    assert load_group_file(tmp_path / ".groups" / "seeds" / "group.json").name == "seeds"
    assert not (tmp_path / ".groups" / "r").exists() and panel.selected_groups() == ["seeds"]
    assert panel.model.rowCount(panel.model.group_index("seeds")) == 2
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("../x", True))
    warned = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: warned.append(a[2]))
    assert not panel.rename_selected() and "plain folder name" in warned[-1]

    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a[2]) or QMessageBox.StandardButton.No)
    assert not panel.delete_selected() and (tmp_path / "r-01").is_dir()       # no: nothing moves
    assert "Delete group seeds" in asked[-1] and "2 member run(s)" in asked[-1]
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    assert panel.delete_selected()
    assert not (tmp_path / "r-01").exists() and (tmp_path / ".trash" / "r-01" / "config.json").is_file()
    assert (tmp_path / ".trash" / "groups" / "seeds" / "group.json").is_file()
    assert not (tmp_path / ".groups" / "seeds").exists()
    assert panel.all_ids() == ["lone"] and panel.model.rowCount() == 1


def test_a_live_member_blocks_deleting_its_group(panel, monkeypatch):
    panel.model.find("r-01").status = "running"
    told = []
    monkeypatch.setattr(QMessageBox, "information", lambda *a, **k: told.append(a[2]))
    assert not panel.group_menu("r").actions()[-1].isEnabled()
    assert not panel.delete_group("r") and "Stop or cancel" in told[-1]


def test_main_window_group_row_shows_the_group_tab(qtbot, tmp_path):
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    runs = tmp_path / "runs"
    runs.mkdir()
    _group_folder(runs)
    w = MainWindow(runs, AppSettings(tmp_path / "s.ini"), probe_device=False)
    w.manager.max_parallel = 0
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
    qtbot.waitUntil(lambda: len(w.runs.all_ids()) == 3 and not w.runs.loading, timeout=10_000)
    assert w.runs.model.rowCount() == 2 and w.runs.model.group_names == ["r"]
    with qtbot.waitSignal(w.groups_tab.group_shown, timeout=10_000):
        w.runs.select_group("r")
    assert w.tabs.currentWidget() is w.groups_tab and w.groups_tab.view.group.name == "r"
    assert w.groups_tab.view.table.rowCount() == 3
    w.runs.select(["r-01"])
    assert w.runs.selected_ids() == ["r-01"]
    json.dumps(w.runs.model.group("r").to_dict())   # the group stays plain data


def test_a_group_a_terminal_command_writes_while_the_window_is_open_is_listed_without_refresh(qtbot, tmp_path):
    """``bert-explorer group`` in a terminal writes group.json, then its members' folders: as soon as the Runs
    list shows the members, it shows them under their group's row and the Groups page lists the group (it read
    "No groups yet" until Refresh)."""
    from test_groups import _fake_run

    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    runs = tmp_path / "runs"
    runs.mkdir()
    _fake_run(runs, "lone", [(0, 0.5), (5, 0.55)])
    w = MainWindow(runs, AppSettings(tmp_path / "s.ini"), probe_device=False)
    w.manager.max_parallel = 0
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
    qtbot.waitUntil(lambda: len(w.runs.all_ids()) == 1 and not w.runs.loading, timeout=10_000)
    tab = w.groups_tab
    qtbot.waitUntil(lambda: tab.message.text().startswith("No groups yet"), timeout=10_000)
    group, _ = plan_restarts(TrainConfig(task="pair"), "g", [1, 2, 3])
    write_group(runs, group)
    _fake_run(runs, "g-01", [(0, 0.5), (10, 0.8)])
    _fake_run(runs, "g-02", [(0, 0.5), (10, 0.7)])
    qtbot.waitUntil(lambda: tab.tree.topLevelItemCount() == 1, timeout=20_000)
    top = tab.tree.topLevelItem(0)
    assert top.text(0) == "g" and top.childCount() == 3
    assert not tab.message.text().startswith("No groups yet")
    qtbot.waitUntil(lambda: w.runs.model.group_names == ["g"] and w.runs.model.rowCount(
        w.runs.model.group_index("g")) == 2, timeout=20_000)


def test_queued_group_lands_under_its_row_in_the_runs_dock(qtbot, queued_window):
    w = queued_window
    w.groups_tab.group_name.setText("q")
    w.groups_tab.seeds.setText("4,5")
    w.groups_tab.queue_restarts.click()
    assert "Queued group q: 2 runs" in w.groups_tab.message.text()
    m = w.runs.model
    grp = m.group_index("q")
    assert grp.isValid() and m.rowCount(grp) == 2 and m.rowCount() == 1
    assert m.data(grp.siblingAtColumn(COLUMNS.index("Status"))) == "2 queued"
    assert [m.data(m.index(i, 0, grp)) for i in range(2)] == ["seed 4 · q-01", "seed 5 · q-02"]


def test_a_group_queued_in_the_window_reads_queued_on_the_groups_page_not_missing(qtbot, queued_window):
    """The members the window's runner has queued have no folder yet: the Groups page's list reads them
    "queued", as the Runs list does."""
    w = queued_window
    tab = w.groups_tab
    tab.group_name.setText("q")
    tab.seeds.setText("4,5")
    tab.queue_restarts.click()

    def statuses():
        top = tab.tree.topLevelItem(0) if tab.tree.topLevelItemCount() else None
        return [top.child(i).text(1) for i in range(top.childCount())] if top is not None else []
    qtbot.waitUntil(lambda: len(statuses()) == 2, timeout=10_000)
    assert statuses() == ["queued", "queued"]


def test_the_window_shows_a_cross_validations_pooled_figure_once_its_folds_are_predicted(qtbot, tmp_path):
    """The Groups page's end of the held-out folds' prediction re-reads the Runs list's groups: the cv group's
    row shows the pooled out-of-fold figure."""
    import dataclasses

    from explorer.core.studies.cv_runs import OOF_METRICS_FILE, OofResult
    from explorer.core.studies.groups import group_dir
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings
    from test_groups import _fake_run

    runs = tmp_path / "runs"
    restarts, _ = plan_restarts(TrainConfig(task="pair", model="bundled:minilm"), "cv5", [1, 2])
    write_group(runs, dataclasses.replace(restarts, kind="cv", cv={"k": 2, "source": "train.tsv"}))
    _fake_run(runs, "cv5-01", [(0, 0.5), (10, 0.8)])
    _fake_run(runs, "cv5-02", [(0, 0.5), (10, 0.7)])
    w = MainWindow(runs, AppSettings(tmp_path / "s.ini"), probe_device=False)
    w.manager.max_parallel = 0
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
    qtbot.waitUntil(lambda: len(w.runs.all_ids()) == 2 and not w.runs.loading, timeout=10_000)
    m = w.runs.model
    assert _text(m, m.group_index("cv5"), "Best dev") == "75.0 ± 7.1% acc"
    (group_dir(runs, "cv5") / OOF_METRICS_FILE).write_text(json.dumps(OofResult(None, 200, 2, 2,
                                                                               {"accuracy": 77.79}).to_dict()))
    w.groups_tab.folds_predicted.emit("cv5")
    assert _text(m, m.group_index("cv5"), "Best dev") == "77.79% acc"


def test_in_a_narrow_dock_the_names_keep_their_share_and_best_dev_keeps_its_figures(panel, qtbot):
    """A list narrower than the dock of a 1280-wide window: the run names keep 45% of it, Best dev shows each figure
    whole (a cut value loses its end, never its number); given room, Best dev is whole and the names take the rest."""
    from PySide6.QtCore import Qt

    table = panel.table
    col = COLUMNS.index("Best dev")
    table.setFixedWidth(300)   # the dock dragged narrower
    qtbot.waitUntil(lambda: table.viewport().width() < 300)
    panel.fit_columns()
    assert table.columnWidth(COLUMNS.index("Run")) >= 0.45 * table.viewport().width()
    view = table.model()
    for index in [view.index(r, col) for r in range(view.rowCount())]:
        shown = table.fontMetrics().elidedText(index.data() or "", Qt.TextElideMode.ElideRight,
                                               table.visualRect(index).width())
        assert shown.startswith((index.data() or "").split(" ")[0]), (index.data(), shown)
    names = table.columnWidth(COLUMNS.index("Run"))
    table.setMinimumWidth(0)
    table.setMaximumWidth(16777215)
    panel.resize(1400, 400)
    qtbot.waitUntil(lambda: table.columnWidth(col) >= table.sizeHintForColumn(col))   # the values whole
    assert table.columnWidth(COLUMNS.index("Run")) > names   # the names: the rest


def test_best_dev_header_and_values_are_whole_in_the_default_dock_width(panel, qtbot):
    """In the default dock (430 px) "Best dev" and its values are whole (never "60.00 a…", a group row never
    "accuracy (%) 70.00 ± …"): the value comes first, then the metric, and the column fits them."""
    from PySide6.QtWidgets import QStyle

    table = panel.table
    margin = 2 * (table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, table) + 1)
    col = COLUMNS.index("Best dev")
    panel.resize(430, 600)
    table.expandAll()
    qtbot.waitUntil(lambda: table.viewport().width() > 0 and not panel._fit_timer.isActive())
    panel.fit_columns()
    cells = []
    for row in range(table.model().rowCount()):
        top = table.model().index(row, col)
        cells.append(top)
        cells += [table.model().index(r, col, table.model().index(row, 0)) for r in range(table.model().rowCount(
            table.model().index(row, 0)))]
    texts = [i.data() for i in cells]
    assert "70.0 ± 14.1% acc" in texts and "80.00% acc" in texts
    for index in cells:
        room = table.visualRect(index).width() - margin - table.fontMetrics().horizontalAdvance(index.data())
        assert room >= 0, (index.data(), room)
    header = table.header()
    assert header.sectionSize(col) >= header.sectionSizeHint(col)     # the header itself is whole
    assert any("@10" in index.data(3) for index in cells)   # the step of r-01's best: in the tooltip


def test_a_cross_validations_row_shows_its_pooled_out_of_fold_figure_once_predicted(qtbot, tmp_path):
    """A cv group's row reads the folds' mean ± sd of their best dev until its held-out folds are predicted; then
    the pooled out-of-fold figure of the ranking metric (the Groups page's answer), said so in the tooltip with
    the folds' spread beside it; it sorts by that figure."""
    import dataclasses

    from explorer.core.studies.cv_runs import OOF_METRICS_FILE, OofResult
    from explorer.core.studies.groups import group_dir
    from test_groups import _fake_run

    restarts, _ = plan_restarts(TrainConfig(task="pair", model="bundled:minilm"), "cv5", [1, 2])
    group = dataclasses.replace(restarts, kind="cv", cv={"k": 2, "source": "train.tsv"})
    write_group(tmp_path, group)
    _fake_run(tmp_path, "cv5-01", [(0, 0.5), (10, 0.8)])
    _fake_run(tmp_path, "cv5-02", [(0, 0.5), (10, 0.7)])
    p = _runs_panel(qtbot, tmp_path, ("cv5-01", "cv5-02"))
    m = p.model
    assert _text(m, m.group_index("cv5"), "Best dev") == "75.0 ± 7.1% acc"   # the folds' best dev, before
    assert "best dev acc 75.0 ± 7.1% over 2 folds" in m.data(m.group_index("cv5"), 3)
    assert "pooled out-of-fold" not in m.data(m.group_index("cv5"), 3)
    pooled = OofResult(None, 200, 2, 2, {"accuracy": 77.79, "f1": 80.1})
    (group_dir(tmp_path, "cv5") / OOF_METRICS_FILE).write_text(json.dumps(pooled.to_dict()))
    p.reload_groups()
    grp = m.group_index("cv5")
    assert _text(m, grp, "Best dev") == "77.79% acc"
    tip = m.data(grp, 3)
    assert "pooled out-of-fold accuracy: 77.79% acc (n 200" in tip and "2 of 2 folds" in tip
    assert "best dev accuracy over 2 fold run(s): 75.00 ± 7.07" in tip
    assert p.model.cells.group_sort_key(m.group_row("cv5"), COLUMNS.index("Best dev")) == 77.79


def test_a_cross_validations_tooltip_names_the_classes_its_fold_and_pooled_macro_f1_average_over(qtbot, tmp_path):
    """Each fold's held-out rows hold 2 of the table's 4 classes: the tooltip says, beside the folds' best dev macro
    F1, that it averages over those 2 classes and the pooled figure over all 4 (so 48 ± 3 beside 20.6 reads as
    two averages, not a contradiction); with every class in every fold it says nothing of the kind."""
    import dataclasses

    from explorer.core.studies.cv_runs import OOF_METRICS_FILE, OofResult
    from explorer.core.studies.groups import group_dir
    from test_groups import _fake_run

    restarts, _ = plan_restarts(TrainConfig(task="single", model="bundled:minilm"), "rare", [1, 2])
    group = dataclasses.replace(restarts, kind="cv", cv={"k": 2, "source": "rare.csv"})
    write_group(tmp_path, group)
    _fake_run(tmp_path, "rare-01", [(10, 0.45)], task="single", metric="macro_f1")
    _fake_run(tmp_path, "rare-02", [(10, 0.51)], task="single", metric="macro_f1")
    tips = []
    for fold_classes in ([2, 2], [4, 4]):
        pooled = OofResult(None, 303, 2, 2, {"macro_f1": 20.64, "accuracy": 56.77}, fold_classes=fold_classes,
                           classes=4)
        (group_dir(tmp_path, "rare") / OOF_METRICS_FILE).write_text(json.dumps(pooled.to_dict()))
        p = _runs_panel(qtbot, tmp_path, ("rare-01", "rare-02"))
        p.reload_groups()
        tips.append(p.model.data(p.model.group_index("rare"), 3))
    assert "best dev macro_f1 over 2 fold run(s): 48.00 ± 4.24 (best 51.00, worst 45.00, n 2) (per fold: macro over " \
           "the 2 classes each fold's dev part holds; pooled: over all 4 classes)" in tips[0]
    assert "pooled out-of-fold macro_f1: 20.64" in tips[0]
    assert "per fold:" not in tips[1]


def test_the_groups_page_and_the_runs_list_give_a_restarts_group_the_same_best_dev_headline(qtbot, tmp_path):
    """Each restart's best evaluation (what checkpoints/best holds) differs from its last one here: the Groups page's
    headline and the Runs list's group row give the same mean ± sd of the best ones, labelled "best dev", and the
    Groups page keeps the last evaluations' mean under "final"."""
    from explorer.core.studies.groups import load_group_data
    from explorer.ui.groups.view import GroupView
    from test_groups import _fake_run

    group, _ = plan_restarts(TrainConfig(task="pair", model="bundled:minilm"), "s", [1, 2, 3])
    write_group(tmp_path, group)
    _fake_run(tmp_path, "s-01", [(0, 0.5), (5, 0.8), (10, 0.7)])    # best 80, final 70
    _fake_run(tmp_path, "s-02", [(0, 0.5), (5, 0.9), (10, 0.6)])    # best 90, final 60
    _fake_run(tmp_path, "s-03", [(0, 0.5), (5, 0.85), (10, 0.65)])  # best 85, final 65
    panel = _runs_panel(qtbot, tmp_path, ("s-01", "s-02", "s-03"))
    grp = panel.model.group_index("s")
    assert _text(panel.model, grp, "Best dev") == "85.0 ± 5.0% acc"   # the short cell; the headline is its tooltip
    row_text = panel.model.data(grp, 3).split("\n")[0].split(">", 1)[1]
    assert row_text == "best dev acc 85.0 ± 5.0% over 3 seeds"

    view = GroupView()
    qtbot.addWidget(view)
    g, members, notes = load_group_data(tmp_path, "s")
    view.set_group(g, members, notes)
    summary = view.summary.text()
    assert summary.startswith(f"<b>{row_text}</b>")
    assert "final accuracy (%): 65.00 ± 5.00" in summary


def test_run_names_keep_a_readable_width_beside_group_rows_in_the_default_dock(qtbot, tmp_path):
    """In the default dock width (430 px) with a restarts group and a one-fold cross-validation listed, every run's
    name keeps at least 120 px and reads more than "…": the group rows' Best dev cells are as short as a run's
    ("85.0 ± 5.0% acc", "61.13% acc (1 fold)") and the column stops growing at its cap; the whole headline is in
    the row's tooltip."""
    import dataclasses

    from PySide6.QtCore import Qt

    from test_groups import _fake_run

    restarts, _ = plan_restarts(TrainConfig(task="pair", model="bundled:minilm"), "minilm-single-seeds", [1, 2, 3])
    write_group(tmp_path, restarts)
    cv, _ = plan_restarts(TrainConfig(task="pair", model="bundled:minilm"), "minilm-single-cv", [1, 2])
    write_group(tmp_path, dataclasses.replace(cv, kind="cv", cv={"k": 2, "source": "train.tsv"}))
    for i, best in enumerate((0.8, 0.9, 0.85), start=1):
        _fake_run(tmp_path, f"minilm-single-seeds-0{i}", [(0, 0.5), (5, best)])
    _fake_run(tmp_path, "minilm-single-cv-01", [(0, 0.5), (10, 0.6113)])
    _fake_run(tmp_path, "minilm-single-cv-02", [(0, 0.5)], finished=False)
    ids = [f"minilm-single-seeds-0{i}" for i in (1, 2, 3)] + ["minilm-single-cv-01", "minilm-single-cv-02"]
    panel = _runs_panel(qtbot, tmp_path, ids)
    panel.show()
    panel.resize(430, 600)
    table = panel.table
    table.expandAll()
    qtbot.waitUntil(lambda: table.viewport().width() > 0 and not panel._fit_timer.isActive())
    panel.fit_columns()
    m = panel.model
    assert _text(m, m.group_index("minilm-single-seeds"), "Best dev") == "85.0 ± 5.0% acc"
    assert _text(m, m.group_index("minilm-single-cv"), "Best dev") == "61.13% acc (1 fold)"
    assert "best dev acc 85.0 ± 5.0% over 3 seeds" in m.data(m.group_index("minilm-single-seeds"), 3)
    assert "best dev acc 61.13% over 1 fold" in m.data(m.group_index("minilm-single-cv"), 3)
    view = table.model()
    names = []
    for row in range(view.rowCount()):
        top = view.index(row, 0)
        names += [top] + [view.index(r, 0, top) for r in range(view.rowCount(top))]
    assert len(names) == 7
    for index in names:
        shown = table.fontMetrics().elidedText(index.data(), Qt.TextElideMode.ElideRight, table.visualRect(index).width())
        assert table.visualRect(index).width() >= 120 and shown != "…", (index.data(), table.visualRect(index).width())


def test_runs_seeds_and_folds_read_apart_in_the_dock_of_a_1280_wide_window(qtbot, tmp_path):
    """In the Runs dock of a 1280x800 window, with a run evaluating (a long status), a restarts group with one member
    running and a cross-validation of three folds, the Run column keeps at least 45% of the list and every member
    shows what tells it apart ("seed 2", "fold 3") before any cut; Best dev keeps each figure whole."""
    import dataclasses

    from PySide6.QtCore import Qt

    from explorer.core.runs import status as run_status
    from explorer.ui.shell.window_geometry import runs_dock_width
    from test_groups import _fake_run

    restarts, _ = plan_restarts(TrainConfig(task="pair", model="bundled:minilm"), "stance-seeds", [1, 2])
    write_group(tmp_path, restarts)
    cv, _ = plan_restarts(TrainConfig(task="pair", model="bundled:minilm"), "stance-cv", [1, 2, 3])
    folds = [dataclasses.replace(m, params={"fold": i}) for i, m in enumerate(cv.members, start=1)]
    write_group(tmp_path, dataclasses.replace(cv, kind="cv", members=folds, varied=["fold"],
                                              cv={"k": 3, "source": "train.tsv"}))
    _fake_run(tmp_path, "stance-seeds-01", [(0, 0.5), (5, 0.5492)])
    _fake_run(tmp_path, "stance-seeds-02", [(0, 0.4)], finished=False)
    for fold in (1, 2, 3):
        _fake_run(tmp_path, f"stance-cv-0{fold}", [(0, 0.5), (10, 0.6 + fold / 100)])
    _fake_run(tmp_path, "minilm-single-tiny", [(0, 0.5)], finished=False)
    ids = ["stance-seeds-01", "stance-seeds-02", "stance-cv-01", "stance-cv-02", "stance-cv-03", "minilm-single-tiny"]
    panel = _runs_panel(qtbot, tmp_path, ids)
    evaluating = {"rows_done": 0, "rows_total": 100, "step": 5}
    for rid in ("stance-seeds-02", "minilm-single-tiny"):
        panel.upsert(dataclasses.replace(panel.model.find(rid), status=run_status.RUNNING, evaluating=evaluating))
    panel.show()
    panel.resize(runs_dock_width(1280) - 12, 600)   # the dock's frame and margins
    table = panel.table
    table.expandAll()
    qtbot.waitUntil(lambda: table.viewport().width() > 0 and not panel._fit_timer.isActive())
    panel.fit_columns()
    view = table.model()
    assert _text(panel.model, panel.model.run_index("minilm-single-tiny"), "Status") == "evaluating 0%"
    assert table.columnWidth(COLUMNS.index("Run")) >= 0.45 * table.viewport().width()
    members = {}
    for row in range(view.rowCount()):
        top = view.index(row, 0)
        for r in range(view.rowCount(top)):
            index = view.index(r, 0, top)
            members[index.data()] = table.fontMetrics().elidedText(index.data(), Qt.TextElideMode.ElideRight,
                                                                     table.visualRect(index).width())
    assert sorted(members) == ["fold 1 · stance-cv-01", "fold 2 · stance-cv-02", "fold 3 · stance-cv-03",
                               "seed 1 · stance-seeds-01", "seed 2 · stance-seeds-02"]
    for name, shown in members.items():
        assert shown.startswith(name.split(" · ")[0] + " · "), (name, shown)
    best = COLUMNS.index("Best dev")
    for index in [view.index(r, best) for r in range(view.rowCount())]:
        figure = (index.data() or "").split(" ")[0]
        shown = table.fontMetrics().elidedText(index.data() or "", Qt.TextElideMode.ElideRight,
                                               table.visualRect(index).width())
        assert shown.startswith(figure), (index.data(), shown)


@pytest.mark.parametrize("column, order", [("Run", "DescendingOrder"), ("Run", "AscendingOrder"),
                                           ("Best dev", "DescendingOrder"), ("Best dev", "AscendingOrder")])
def test_a_groups_members_keep_the_groups_order_whatever_the_list_is_sorted_by(qtbot, tmp_path, column, order):
    """The folds of a cross-validation read fold 1, 2, 3 under their group and restarts read in the order they were
    queued, whichever column sorts the list and in either order (the list opens newest first, which put fold 3 on
    top); a member listed after the others (it started later) still goes to its place in the group's order."""
    import dataclasses

    from PySide6.QtCore import Qt

    from test_groups import _fake_run

    restarts, _ = plan_restarts(TrainConfig(task="pair", model="bundled:minilm"), "rst", [410, 1825, 7])
    write_group(tmp_path, restarts)
    cv, _ = plan_restarts(TrainConfig(task="pair", model="bundled:minilm"), "rare-cv", [1, 2, 3])
    folds = [dataclasses.replace(m, params={"fold": i}) for i, m in enumerate(cv.members, start=1)]
    write_group(tmp_path, dataclasses.replace(cv, kind="cv", members=folds, varied=["fold"],
                                              cv={"k": 3, "source": "rare.csv"}))
    for fold, best in ((1, 0.5091), (2, 0.4904), (3, 0.4490)):   # the best falls with the fold: no sort agrees
        _fake_run(tmp_path, f"rare-cv-0{fold}", [(0, 0.2), (10, best)])
    for i, best in ((1, 0.4889), (2, 0.2763), (3, 0.6)):
        _fake_run(tmp_path, f"rst-0{i}", [(0, 0.2), (10, best)])
    panel = _runs_panel(qtbot, tmp_path, ("rare-cv-03", "rare-cv-01", "rst-02", "rst-03", "rst-01"))
    panel.table.sortByColumn(COLUMNS.index(column), getattr(Qt.SortOrder, order))
    panel.upsert(load_summary(tmp_path / "rare-cv-02"))   # listed last, goes between folds 1 and 3
    view = panel.table.model()

    def members(group):
        top = panel.proxy.mapFromSource(panel.model.group_index(group))
        return [view.index(r, 0, top).data() for r in range(view.rowCount(top))]

    assert members("rare-cv") == ["fold 1 · rare-cv-01", "fold 2 · rare-cv-02", "fold 3 · rare-cv-03"]
    assert [name.split(" · ")[1] for name in members("rst")] == ["rst-01", "rst-02", "rst-03"]


def test_a_best_dev_figure_of_a_dev_sample_says_so_in_the_part_shown_in_the_dock_of_a_1280_wide_window(qtbot):
    """A run still training has its best on the 243-row dev sample of its 872 dev rows: in the Runs dock of a
    1280x800 window its Best dev cell, cut or not, shows that it is a sample's figure (a " (sample)" after the
    figure read "83.54% acc (sam…" there), with the figure itself whole; the tooltip says which rows, and a figure
    on all dev rows has no mark."""
    from PySide6.QtCore import Qt

    from PySide6.QtWidgets import QApplication

    from explorer.ui.runs.dock import RunsPanel
    from explorer.ui.runs.state import RunState
    from explorer.ui.shell.style import apply_style
    from explorer.ui.shell.window_geometry import runs_dock_width

    apply_style(QApplication.instance())   # the app's own look (Fusion + style.qss), whatever ran before

    def run(run_id, task, metric, value, rows, finished):
        events = [{"event": "started", "run_id": run_id, "config": {"task": task}, "steps_total": 322},
                  {"event": "eval", "run_id": run_id, "step": 263, "metrics": {metric: value},
                   "dev_rows": rows, "dev_total": 872},
                  {"event": "checkpoint", "run_id": run_id, "step": 263, "kind": "best", "metric": metric,
                   "path": "b"}]
        if finished:
            events.append({"event": "finished", "run_id": run_id, "time": 3.0, "metrics": {metric: value}})
        return RunState.from_events(run_id, events)

    panel = RunsPanel()
    qtbot.addWidget(panel)
    panel.upsert(run("20261206-101500-single-glue_sst2", "single", "accuracy", 0.8354, 243, False))
    panel.upsert(run("20261206-100000-squad_v1-squad_v1_small", "squad_v1", "f1", 35.66, 872, True))
    panel.show()
    panel.resize(runs_dock_width(1280) - 12, 600)   # the dock's frame and margins
    table = panel.table
    qtbot.waitUntil(lambda: table.viewport().width() > 0 and not panel._fit_timer.isActive())
    panel.fit_columns()
    col = COLUMNS.index("Best dev")
    sampled = panel.proxy.mapFromSource(panel.model.run_index("20261206-101500-single-glue_sst2", col))
    shown = table.fontMetrics().elidedText(sampled.data(), Qt.TextElideMode.ElideRight,
                                           table.visualRect(sampled).width())
    assert shown.startswith("≈83.54% acc"), (sampled.data(), shown)   # ≈: a sample's figure
    assert "≈: measured on the 243-row stratified sample of the 872 dev rows" in sampled.data(Qt.ItemDataRole.ToolTipRole)
    whole = panel.proxy.mapFromSource(panel.model.run_index("20261206-100000-squad_v1-squad_v1_small", col))
    assert whole.data() == "35.66% F1"


def test_members_queued_when_the_app_closed_are_offered_again_at_the_start(qtbot, tmp_path):
    """Quitting drops the queue; the group's configs stay: the next start names the members never started and one
    click queues them again under their own run ids."""
    from explorer.core.studies.groups import write_member_configs
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings
    from test_groups import _fake_run

    runs = tmp_path / "runs"
    runs.mkdir()
    group, configs = plan_restarts(TrainConfig(task="pair", model="bundled:minilm", train="train.tsv",
                                                       output_dir=str(runs)), "r",
                                   [1, 2, 3])
    write_group(runs, group)
    write_member_configs(runs, group, configs)
    _fake_run(runs, "r-01", [(0, 0.5), (10, 0.8)])
    from explorer.ui.runs.runner import record_cancelled_queued

    assert record_cancelled_queued(configs[2]) == ""   # what quitting leaves of a queued run: "cancelled (queued)"
    w = MainWindow(runs, AppSettings(tmp_path / "s.ini"), probe_device=False)
    w.manager.max_parallel = 0                     # queued, never started
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
    qtbot.waitUntil(lambda: w.never_started_offer is not None, timeout=10_000)
    button = w.statusBar().findChild(QPushButton, "queue_never_started")
    assert button is w.never_started_offer
    assert button.text() == "2 run(s) of r were queued and never started: Queue them again"
    button.click()
    assert w.manager.queued() == ["r-02", "r-03"]   # under their own ids: the cancelled record gave way
    assert "Queued again: 2 run(s)" in w.statusBar().currentMessage()
    assert not (runs / "r-03" / "events.jsonl").exists()


def test_a_start_without_never_started_members_offers_nothing(qtbot, queued_window):
    qtbot.wait(50)   # the offer is decided on the first event-loop turn
    assert queued_window.never_started_offer is None
    assert queued_window.statusBar().findChild(QPushButton, "queue_never_started") is None


def test_runs_queued_on_their_own_when_the_app_quit_are_offered_again_at_the_start(qtbot, tmp_path, monkeypatch):
    """Quitting with "Leave it training" drops the queue: a run queued on its own (no group) is named by the next
    start and one click queues it again under its own run id; a queued run the user cancelled is not offered."""
    from PySide6.QtCore import Qt

    from explorer.ui.shell import detach, main_window
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    runs = tmp_path / "runs"
    runs.mkdir()
    base = TrainConfig(task="pair", model="bundled:minilm", train="train.tsv", output_dir=str(runs))
    first = MainWindow(runs, AppSettings(tmp_path / "s.ini"), probe_device=False)
    first.manager.max_parallel = 0                 # queued, never started
    qtbot.addWidget(first, before_close_func=lambda w: w.manager.cancel_all())
    kept, dropped = first.manager.enqueue([dataclasses.replace(base, run_id="lone-a"),
                                           dataclasses.replace(base, run_id="lone-b")])
    first.manager.cancel(dropped)                  # the user's own cancel: not offered again
    monkeypatch.setattr(main_window, "ask_quit", lambda *_a, **_k: detach.LEAVE)
    assert first.close()
    assert (runs / kept / "config.json").is_file()

    w = MainWindow(runs, AppSettings(tmp_path / "s.ini"), probe_device=False)
    w.manager.max_parallel = 0
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
    qtbot.waitUntil(lambda: w.never_started_runs_offer is not None, timeout=10_000)
    button = w.statusBar().findChild(QPushButton, "queue_never_started_runs")
    assert button is w.never_started_runs_offer
    assert button.text() == "1 run(s) were queued and never started (lone-a): Queue them again"
    # the run dropped at quit reads "not started" in the Runs list, never "cancelled"; the user's cancel keeps its word
    m = w.runs.model
    qtbot.waitUntil(lambda: m.run_index("lone-a").isValid() and m.run_index(dropped).isValid(), timeout=10_000)
    assert _text(m, m.run_index("lone-a"), "Status") == "not started"
    assert m.data(m.run_index("lone-a", COLUMNS.index("Status")), Qt.ItemDataRole.ToolTipRole).startswith(
        "queued when the app quit; the status bar offers to queue it again")
    assert _text(m, m.run_index(dropped), "Status") == "cancelled (queued)"
    button.click()
    assert w.manager.queued() == ["lone-a"]        # under its own id: the cancelled record gave way
    assert "Queued again: 1 run(s)" in w.statusBar().currentMessage()
    assert not (runs / "lone-a" / "events.jsonl").exists()


def test_a_restarts_group_that_learned_nothing_is_amber_with_its_sentence_on_the_row_and_the_groups_page(qtbot,
                                                                                                     tmp_path):
    """Both restarts predict only '3' for every dev row: the group row's Best dev figure is marked and amber, the
    sentence is in its tooltip and under the Groups page's headline; a healthy group's row is neither."""
    from PySide6.QtCore import Qt

    from explorer.core.studies.groups import load_group_data
    from explorer.ui.groups.view import GroupView
    from test_groups import _restarts_of

    _restarts_of(tmp_path, (True, True))
    _restarts_of(tmp_path, (False, False), name="h")
    panel = _runs_panel(qtbot, tmp_path, ("s-01", "s-02", "h-01", "h-02"))
    col = COLUMNS.index("Best dev")
    grp = panel.model.group_index("s").siblingAtColumn(col)
    sentence = "both seeds predict only '3' for every dev row (the models learned nothing, so the ± 0.0 is no stability)"
    assert panel.model.data(grp).endswith(" !")
    assert panel.model.data(grp, Qt.ItemDataRole.ForegroundRole) is not None
    assert sentence in panel.model.data(grp, Qt.ItemDataRole.ToolTipRole)
    healthy = panel.model.group_index("h").siblingAtColumn(col)
    assert "one class" not in panel.model.data(healthy)
    assert panel.model.data(healthy, Qt.ItemDataRole.ForegroundRole) is None
    assert "learned nothing" not in panel.model.data(healthy, Qt.ItemDataRole.ToolTipRole)

    view = GroupView()
    qtbot.addWidget(view)
    view.set_group(*load_group_data(tmp_path, "s"))
    assert sentence in view.summary.text().replace("&#x27;", "'")
    view.set_group(*load_group_data(tmp_path, "h"))
    assert "learned nothing" not in view.summary.text()


def test_a_groups_members_queued_when_the_app_quit_count_as_not_started_on_its_row(tmp_path):
    """A group row counts its members dropped from the queue at quit as "not started" (the status bar offers them
    again), apart from a member the user cancelled while it waited ("cancelled")."""
    from explorer.core.studies.groups import Group, GroupMember
    from explorer.ui.runs.group_rows import GroupRow
    from explorer.ui.runs.state import RunState

    def dropped(run_id, at_quit):
        ev = {"event": "cancelled", "run_id": run_id, "time": 1.0, "queued": True, "source": "gui"}
        return RunState.from_events(run_id, [dict(ev, at_quit=True) if at_quit else ev])

    states = [dropped("g-01", True), dropped("g-02", True), dropped("g-03", False)]
    group = Group(name="g", kind="seeds", members=[GroupMember(s.run_id, seed=i) for i, s in enumerate(states, 1)],
                  varied=[], seeds=[1, 2, 3])
    row = GroupRow(group, states)
    assert row.status_text() == "2 not started, 1 cancelled"
    assert row.colour_status() == "not started"


def test_long_offers_in_the_status_bar_never_widen_the_window_past_a_1280_screen(qtbot):
    """Two groups and plain runs left queued at quit gave two long "Queue them again" buttons; a status bar's
    permanent widgets set the window's minimum width, which went to 1742 px on a 1280-px screen (the Launch button
    and half of every page off screen). An offer asks for its whole text but gives way, its text elided in the
    middle (its action kept at the end), the whole text in its tooltip."""
    from PySide6.QtWidgets import QLabel, QMainWindow

    from explorer.ui.shell.offer_button import offer_button

    groups_text = "; ".join(f"{k} run(s) of cross-validation-{k} were queued and never started" for k in (1, 3, 5))
    runs_text = ("3 run(s) were queued and never started (20261206-191024-stance-lr0.0001, 20261206-191544-sst2, "
                 "20261206-192010-conll and 2 more): Queue them again")
    window = QMainWindow()
    qtbot.addWidget(window)
    window.setCentralWidget(QLabel("page"))
    first = offer_button(groups_text + ": Queue them again", "Click to queue them again.", "queue_never_started")
    second = offer_button(runs_text, "Click to queue them again.", "queue_never_started_runs")
    for button in (first, second):
        window.statusBar().addPermanentWidget(button)
    window.statusBar().addPermanentWidget(QLabel("device: CPU (1 of 2 threads: the machine is busy, load 1.6) · fp32"))
    assert first.toolTip().startswith(groups_text) and second.toolTip().startswith(runs_text)
    window.show()
    qtbot.waitExposed(window)
    assert window.statusBar().minimumSizeHint().width() <= 1280   # the bar no longer holds the window wider
    window.resize(1280, 800)
    qtbot.waitUntil(lambda: window.width() == 1280)
    for button in (first, second):
        qtbot.waitUntil(lambda b=button: "…" in b.text())
        assert button.text().endswith("them again")   # the action at its end
        assert button.fontMetrics().horizontalAdvance(button.text()) <= button.width()
    window.resize(3000, 800)   # room enough: the whole text
    qtbot.waitUntil(lambda: first.text() == groups_text + ": Queue them again")

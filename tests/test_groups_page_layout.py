"""The Groups page of a cross-validation group at 1280x800 (also 1264x760, its client area inside a window frame)
and 1920x1080: the pooled out-of-fold line (the cross-validation's answer) and the top of the summary in view
without a drag, the rest of the summary one wheel turn away; and every metric on the page in the Runs list's
format (percent shares with 2 decimals, never a fraction beside a percent)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

from layout_shots import SIZES, resize, settle, show_page  # noqa: E402

FOLD_F_AVG = (0.4146, 0.4292, 0.4459)   # stored as fractions, as a classification run stores its metrics


def _cv_group(runs: Path):
    """A 3-fold cv group of a stance-like table ranked by F_avg, its members finished, its pooled figures in."""
    from test_cv_group import _write_table
    from test_groups import _fake_run

    from explorer.core.specs.train_config import TrainConfig
    from explorer.core.studies import cv_runs, groups

    runs.mkdir()
    data = _write_table(runs.parent / "d.csv")
    base = TrainConfig(task="single", train=str(data), text_columns=["sentence"], label_column="label",
                       f1_classes=["pos"], metric_for_best="f_avg")
    group, _configs, cvdata, folds = cv_runs.plan_cv(base, runs, "cv-stance", 3)
    groups.write_group(runs, group)
    cv_runs.write_folds(groups.group_dir(runs, "cv-stance"), cvdata, folds, 3, 0, "")
    for member, value in zip(group.members, FOLD_F_AVG):
        _fake_run(runs, member.run_id, [(0, 0.13), (19, value)], task="single", metric="f_avg")
    pooled = cv_runs.OofResult(groups.group_dir(runs, "cv-stance") / cv_runs.OOF_FILE, 2814, 3, 3,
                               {"accuracy": 42.15, "matthews_corrcoef": 0.14, "macro_f1": 41.32,
                                "weighted_f1": 42.92, "f_avg": 41.77})
    (groups.group_dir(runs, "cv-stance") / cv_runs.OOF_METRICS_FILE).write_text(json.dumps(pooled.to_dict()))


def test_cv_groups_page_shows_the_pooled_line_first_and_scrolls_its_summary(qtbot, tmp_path, monkeypatch):
    """At every size the pooled out-of-fold line with F_avg (the group's ranking metric) first is the summary's
    first line and in view with the summary's top; the summary scrolls in its own area (a long one was cut
    mid-sentence in a splitter pane that only a drag could open)."""
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "cache"))
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    from explorer.ui.shell.layout_check import out_of_view
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings
    from explorer.ui.shell.style import apply_style

    app = QApplication.instance()
    apply_style(app)
    _cv_group(tmp_path / "runs")
    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    w.manager.max_parallel = 0
    w._inspector_opened = True
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
    w.show()
    qtbot.waitExposed(w)
    tab = w.groups_tab
    with qtbot.waitSignal(tab.group_shown, timeout=10_000):
        tab.show_group("cv-stance")
    view = tab.view
    view.show_baselines([f"baseline line {i}, long enough to wrap at the width of the summary on a small screen, "
                         f"as a real group's baseline, label errors and intervals are" for i in range(4)])
    text = view.summary.text()
    assert text.startswith("<b>pooled out-of-fold (n 2814, each example predicted once, 3 of 3 folds): "
                           "F_avg (%) 41.77, accuracy (%) 42.15")
    lines = 4 * view.summary.fontMetrics().lineSpacing()   # the pooled line (wrapped) and the first figures
    report = []
    for size in SIZES:
        resize(w, size, app)
        show_page(w, "Groups", app)
        for what, widget, top in (("summary area", view.summary_area, None), ("summary top", view.summary, lines),
                                  ("member table", view.table, None)):
            why = out_of_view(widget, top=top)
            if why:
                report.append(f"{size[0]}x{size[1]} {what}: {why}")
    assert not report, "\n".join(report)
    resize(w, (1280, 800), app)
    show_page(w, "Groups", app)
    bar = view.summary_area.verticalScrollBar()
    assert bar.maximum() > 0   # a long summary at 1280x800: the wheel must reach the rest
    port = view.summary_area.viewport()
    centre = QPointF(port.width() / 2, port.height() / 2)
    wheel = QWheelEvent(centre, QPointF(port.mapToGlobal(centre.toPoint())), QPoint(0, 0), QPoint(0, -120),
                        Qt.NoButton, Qt.NoModifier, Qt.NoScrollPhase, False)
    QApplication.sendEvent(port, wheel)
    settle(app)
    assert bar.value() > 0


def test_groups_page_writes_every_metric_as_the_runs_list_does(qtbot, tmp_path):
    """The member tree's "best" column reads "41.46% F_avg" as the Runs list's Best dev (it showed 0.4146 beside
    percents), the member table's cells 41.46 under "best F_avg (%)", the other means with the same digits."""
    from explorer.ui.groups.tabs import GroupsTab

    _cv_group(tmp_path / "runs")
    tab = GroupsTab(tmp_path / "runs")
    qtbot.addWidget(tab)
    qtbot.waitUntil(lambda: tab.tree.topLevelItemCount() == 1, timeout=10_000)
    top = tab.tree.topLevelItem(0)
    assert [top.child(i).text(2) for i in range(top.childCount())] == ["41.46% F_avg", "42.92% F_avg",
                                                                      "44.59% F_avg"]
    with qtbot.waitSignal(tab.group_shown, timeout=10_000):
        tab.show_group("cv-stance")
    t = tab.view.table
    best = [t.horizontalHeaderItem(j).text() for j in range(t.columnCount())].index("best F_avg (%)")
    assert sorted(t.item(i, best).text() for i in range(t.rowCount())) == ["41.46", "42.92", "44.59"]


def test_the_member_tree_shows_where_a_groups_run_names_differ(qtbot, tmp_path):
    """The folds of a group share its name as a prefix: in a narrow tree column each member's name is cut in the
    middle, so its end (the fold's number) stays and no two members read the same; the tooltip names it whole."""
    from PySide6.QtGui import QFontMetrics

    from explorer.ui.groups.tabs import GroupsTab

    _cv_group(tmp_path / "runs")
    tab = GroupsTab(tmp_path / "runs")
    qtbot.addWidget(tab)
    qtbot.waitUntil(lambda: tab.tree.topLevelItemCount() == 1, timeout=10_000)
    top = tab.tree.topLevelItem(0)
    names = [top.child(i).text(0) for i in range(top.childCount())]
    metrics = QFontMetrics(tab.tree.font())
    width = metrics.horizontalAdvance(names[0]) * 2 // 3          # a column too narrow for the whole name
    shown = [metrics.elidedText(n, tab.tree.NAME_ELIDE, width) for n in names]
    assert all(s != n for s, n in zip(shown, names)) and len(set(shown)) == len(names), shown
    assert [top.child(i).toolTip(0) for i in range(top.childCount())] == names


def test_the_queue_buttons_stay_put_as_the_message_under_them_grows(qtbot, tmp_path):
    """A message of one line, then of six (a refusal, a queued group's note), then none: Cross-validate… and Queue
    restarts keep their place, so a click aimed at one never lands on the other."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui.groups.tabs import GroupsTab

    (tmp_path / "runs").mkdir()
    tab = GroupsTab(tmp_path / "runs")
    qtbot.addWidget(tab)
    tab.resize(1280, 700)
    tab.show()
    app = QApplication.instance()
    settle(app)

    def places():
        settle(app)
        return [b.mapTo(tab, b.rect().topLeft()).y() for b in (tab.queue_restarts, tab.queue_cv)]

    tab.message.setText("Reading group cv…")
    before = places()
    tab.message.setText(" ".join(["Queued group stock-cv: 5 runs (5,781 examples, fold sizes 1157, 1156, 1156, 1156, "
                                  "1156; each fold saves its checkpoints although Save checkpoints is off)"] * 3))
    assert places() == before
    tab.message.setText("")
    assert places() == before


def test_the_member_trees_names_keep_their_share_and_best_reads_whole_at_1280x800_and_1920x1080(qtbot, tmp_path,
                                                                                                monkeypatch):
    """The list of groups and their runs beside the group's page: the names keep 38% of the list; every value of
    "best" lies whole inside the view at both sizes, never past its right edge ("48." of "48.14% F_avg"), and every
    "status" at 1920x1080 (at 1280x800 a group's "restarts, 3 runs" may be cut at its end, whole in its tooltip)."""
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "cache"))
    from PySide6.QtGui import QFontMetrics
    from PySide6.QtWidgets import QApplication, QStyle

    from test_groups import _fake_run

    from explorer.core.specs.train_config import TrainConfig
    from explorer.core.studies import groups
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings
    from explorer.ui.shell.style import apply_style

    app = QApplication.instance()
    apply_style(app)
    runs = tmp_path / "runs"
    _cv_group(runs)
    group, _configs = groups.plan_restarts(TrainConfig(task="single", metric_for_best="f_avg"), "stance-seeds",
                                           [53710185, 239081664, 1373158607])
    groups.write_group(runs, group)
    for member, value in zip(group.members, (0.5142, 0.5249, 0.4814)):
        _fake_run(runs, member.run_id, [(0, 0.13), (19, value)], task="single", metric="f_avg")
    w = MainWindow(runs, AppSettings(tmp_path / "s.ini"), probe_device=False)
    w.manager.max_parallel = 0
    w._inspector_opened = True
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
    w.show()
    qtbot.waitExposed(w)
    tree = w.groups_tab.tree
    qtbot.waitUntil(lambda: tree.topLevelItemCount() == 2, timeout=10_000)
    fm = QFontMetrics(tree.font())
    pad = 2 * (tree.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, tree) + 1)
    report = []
    for size in ((1280, 800), (1920, 1080)):
        resize(w, size, app)
        show_page(w, "Groups", app)
        port = tree.viewport().rect()
        for i in range(tree.topLevelItemCount()):
            top = tree.topLevelItem(i)
            for item in [top] + [top.child(j) for j in range(top.childCount())]:
                for col in ((1, 2) if size[0] > 1280 else (2,)):
                    text = item.text(col)
                    rect = tree.visualItemRect(item)
                    left = tree.header().sectionViewportPosition(col)
                    width = tree.header().sectionSize(col)
                    if text and (fm.horizontalAdvance(text) + pad > width or left < 0 or left + width > port.right() + 1
                                 or rect.height() <= 0):
                        report.append(f"{size[0]}x{size[1]} {item.text(0)} column {col} {text!r}: needs "
                                      f"{fm.horizontalAdvance(text) + pad} px, section {left}..{left + width}, "
                                      f"view 0..{port.right() + 1}")
        assert tree.columnWidth(0) >= 0.38 * port.width(), (size, tree.columnWidth(0), port.width())
    assert not report, "\n".join(report)
    names = [tree.topLevelItem(1).child(j) for j in range(3)]
    assert [item.toolTip(0) for item in names] == [item.text(0) for item in names]

"""The main window's shell (issue 11, points 4, 19, 20, 23): per-panel Ctrl+Return, the Help menu,
wrapped tooltips, the window title, the status bar during a run."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QPoint, Qt  # noqa: E402
from PySide6.QtWidgets import QApplication, QLabel, QToolTip  # noqa: E402

from explorer.core.training.config import TrainConfig  # noqa: E402


@pytest.fixture
def shell(qtbot, tmp_path):
    from explorer.ui.main_window import MainWindow
    from explorer.ui.settings import AppSettings
    from explorer.ui.style import apply_style

    apply_style(QApplication.instance())
    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    w.manager.max_parallel = 0            # launched runs stay queued: no worker process
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())   # pytest-qt closes first
    w.show()
    qtbot.waitExposed(w)
    w.activateWindow()
    return w


def ctrl_return(qtbot, widget):
    widget.setFocus()
    qtbot.keyClick(widget, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)


def test_ctrl_return_launches_only_from_the_launch_tab(shell, qtbot):
    assert shell.tabs.currentWidget() is shell.launcher
    ctrl_return(qtbot, shell.launcher.editors["learning_rate"].focus)
    assert len(shell.manager.states) == 1                      # launched from the Launch tab
    shell.tabs.setCurrentWidget(shell.curves)
    ctrl_return(qtbot, shell.curves)
    assert len(shell.manager.states) == 1                      # not from Curves


def test_ctrl_return_in_the_passage_box_probes_not_launches(shell, qtbot):
    assert shell.hub is not None
    probes = []
    shell.hub.panel.probe_requested.connect(lambda: probes.append(1))
    shell._inspector_opened = True                             # do not load the bundled model
    spans_page = shell.hub.tabs()[1][1]
    shell.tabs.setCurrentWidget(spans_page)
    passage = shell.hub.panel.passage
    assert spans_page.isAncestorOf(passage)
    ctrl_return(qtbot, passage)
    assert probes == [1] and not shell.manager.states
    shell.tabs.setCurrentWidget(shell.hub.tabs()[0][1])        # Attention: the panel moves along
    ctrl_return(qtbot, shell.hub.panel.question)
    assert probes == [1, 1] and not shell.manager.states


def test_every_listed_shortcut_is_bound(shell):
    from PySide6.QtGui import QAction, QKeySequence

    from explorer.ui.help_dialog import SHORTCUTS

    bound = {a.shortcut().toString() for a in shell.findChildren(QAction) if not a.shortcut().isEmpty()}
    bound |= {s.key().toString() for s in shell.shortcuts}
    bound |= {s.key().toString() for s in shell.runs.shortcuts}
    for key, _where, _what in SHORTCUTS:
        if key.startswith("Ctrl+wheel") or "…" in key:
            continue
        assert QKeySequence(key).toString() in bound, key


def test_help_menu_pages(shell):
    titles = [a.text() for m in shell.menuBar().findChildren(type(shell.menuBar().addMenu("x")))
              for a in m.actions()]
    assert {"&Getting started", "&Keyboard shortcuts", "&Zooming and moving plots"} <= set(titles)
    dlg = shell.show_help("Keyboard shortcuts", __import__("explorer.ui.help_dialog", fromlist=["x"]).shortcuts_html())
    text = dlg.browser.toPlainText()
    assert "Ctrl+Return" in text and "probe the question and passage now" in text
    from explorer.ui.help_dialog import PLOTS_HELP
    assert "Ctrl+wheel" in PLOTS_HELP and "reset view" in PLOTS_HELP


def test_window_title_does_not_repeat_the_app_name(shell):
    assert "BERT Explorer" not in shell.windowTitle() and str(shell.runs_dir) in shell.windowTitle()


def test_long_tooltips_wrap(shell, qtbot):
    from explorer.ui.tooltips import rich_tooltip

    long_text = "a tooltip that explains something at length " * 12
    label = QLabel("x")
    qtbot.addWidget(label)
    label.setToolTip(long_text)                                  # plain text in ...
    assert label.toolTip().startswith("<p") and "explains" in label.toolTip()   # ... wrapped rich text out
    assert rich_tooltip("short") == "short"
    QToolTip.showText(QPoint(10, 10), label.toolTip(), label)
    tips = [w for w in QApplication.topLevelWidgets() if w.objectName() == "qtooltip_label" and w.isVisible()]
    assert tips and tips[0].width() < 800                       # one line would be ~2,800 px
    QToolTip.hideText()
    assert shell.launcher.launch_btn.toolTip().startswith("<p")   # applied app-wide, also to existing widgets


def test_status_bar_names_the_active_run(shell):
    (run_id,) = shell.launch([TrainConfig(train="x.json", output_dir=str(shell.runs_dir))])
    state = shell.manager.states[run_id]
    state.status = "running"
    shell._update_device_label()
    shell._update_activity()
    assert "idle" not in shell.device_label.text()
    assert "running" in shell.activity_label.text()
    state.status = "queued"               # back in the queue: the fixture cancels it before closing

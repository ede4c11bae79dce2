"""The main window's shell: per-panel Ctrl+Return, the Help menu and Getting started, wrapped tooltips, the window
title, the status bar during a run, the Quit dialog, and every tab one click away."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QPoint, Qt  # noqa: E402
from PySide6.QtWidgets import QApplication, QLabel, QToolTip  # noqa: E402

from explorer.core.specs.train_config import TrainConfig  # noqa: E402


@pytest.fixture
def shell(qtbot, tmp_path):
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings
    from explorer.ui.shell.style import apply_style

    apply_style(QApplication.instance())
    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    w.manager.max_parallel = 0            # launched runs stay queued: no worker process
    if w.hub is not None:                 # its 2.5 s prewarm timer shows the Attention page for one event-loop
        w.hub._prewarmed = True           # turn: on a busy machine a test body can land in that turn
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())   # pytest-qt closes first
    w.show()
    qtbot.waitExposed(w)
    w.activateWindow()
    return w


@pytest.fixture(scope="module")
def shell_view(qapp, tmp_path_factory):
    """One main window, built like ``shell``, for the tests that only read it (menus, shortcuts, title,
    tooltips): building a main window takes seconds (every page and plot), so these share one."""
    from PySide6.QtTest import QTest

    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings
    from explorer.ui.shell.style import apply_style

    apply_style(qapp)
    root = tmp_path_factory.mktemp("shell-view")
    w = MainWindow(root / "runs", AppSettings(root / "s.ini"), probe_device=False)
    if w.hub is not None:
        w.hub._prewarmed = True           # as in ``shell``: no prewarm turn on the Attention tab
    w.manager.max_parallel = 0
    w.show()
    assert QTest.qWaitForWindowExposed(w, 60_000)
    yield w
    w.manager.cancel_all()
    w.close()
    w.deleteLater()


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


def test_every_listed_shortcut_is_bound(shell_view):
    from PySide6.QtGui import QAction, QKeySequence

    from explorer.ui.shell.help_dialog import SHORTCUTS

    shell_view.lazy_pages.build_all()   # a page's own keys are bound when the page is built (its first show)
    bound = {a.shortcut().toString() for a in shell_view.findChildren(QAction) if not a.shortcut().isEmpty()}
    bound |= {s.key().toString() for s in shell_view.shortcuts}
    bound |= {s.key().toString() for s in shell_view.runs.shortcuts}
    for key, _where, _what in SHORTCUTS:
        if key.startswith("Ctrl+wheel") or "…" in key:
            continue
        assert QKeySequence(key).toString() in bound, key


def test_help_menu_pages(shell_view):
    titles = [a.text() for m in shell_view.menuBar().findChildren(type(shell_view.menuBar().addMenu("x")))
              for a in m.actions()]
    assert {"&Getting started", "&Keyboard shortcuts", "&Zooming and moving plots"} <= set(titles)
    dlg = shell_view.show_help("Keyboard shortcuts", __import__("explorer.ui.shell.help_dialog", fromlist=["x"]).shortcuts_html())
    text = dlg.browser.toPlainText()
    assert "Ctrl+Return" in text and "probe the question and passage now" in text
    from explorer.ui.shell.help_dialog import PLOTS_HELP
    assert "Ctrl+wheel" in PLOTS_HELP and "reset view" in PLOTS_HELP


def test_window_title_does_not_repeat_the_app_name(shell_view):
    """The title names the runs folder by its last two parts, not its whole path, and not the app's name."""
    title = shell_view.windowTitle()
    runs = Path(shell_view.runs_dir)
    assert "BERT Explorer" not in title and title == f"runs in {runs.parent.name}/{runs.name}"
    assert str(runs.parent) not in title


def test_window_title_of_a_folder_in_home_and_near_the_root():
    from explorer.ui.shell.status_texts import window_title

    assert window_title(Path.home() / "runs") == "runs in ~/runs"
    assert window_title(Path("/data/projects/bert/runs")) == "runs in bert/runs"
    assert window_title(Path("/runs")) == "runs in /runs"


def test_long_tooltips_wrap(shell_view, qtbot):
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QHelpEvent

    from explorer.ui.shell.tooltips import install_tooltip_wrapper, rich_tooltip

    install_tooltip_wrapper(QApplication.instance())   # what app.create_window does once the window is built
    long_text = "a tooltip that explains something at length " * 12
    label = QLabel("x")
    qtbot.addWidget(label)
    label.setToolTip(long_text)
    label.show()
    assert label.toolTip() == long_text                          # the property stays as set
    QApplication.sendEvent(label, QHelpEvent(QEvent.Type.ToolTip, QPoint(2, 2), label.mapToGlobal(QPoint(2, 2))))
    tips = [w for w in QApplication.topLevelWidgets() if w.objectName() == "qtooltip_label" and w.isVisible()]
    assert tips and "explains" in tips[0].text() and tips[0].text().startswith("<p")
    assert tips[0].width() < 800                                 # one line would be ~2,800 px
    QToolTip.hideText()
    assert rich_tooltip("short") == "short"
    assert rich_tooltip("<b>rich</b> " + long_text).startswith("<b>")   # rich text is left to Qt


def test_status_bar_names_the_active_run(shell):
    (run_id,) = shell.launch([TrainConfig(train="x.json", output_dir=str(shell.runs_dir))])
    state = shell.manager.states[run_id]
    state.status = "running"
    shell._update_device_label()
    shell._update_activity()
    assert "idle" not in shell.device_label.text()
    assert "running" in shell.activity_label.text()
    state.status = "queued"               # back in the queue: the fixture cancels it before closing


@pytest.mark.parametrize("size", [(1264, 760), (1920, 1080)])
def test_a_status_message_never_runs_into_the_permanent_labels(shell, qtbot, size):
    """The status message is a label of its own left of the permanent labels, elided with "…" in its share of the
    width, and the bar paints no text of its own: QStatusBar draws its message under the permanent labels'
    start, cut mid-letter ("Ope" + "loading /tmp/…" of the inspectors' busy label, "…and not t running: stance
    lr1e-4 …")."""
    from PySide6.QtGui import QFontMetrics

    bar = shell.statusBar()
    shell.resize(*size)
    message = ("The dev rows are the first run's: the 281 training rows it held out (its dev_split.csv), with their "
               "original labels and not trained on, so both runs' dev figures are measured on the same rows")
    shell.show_inspector_busy("loading /tmp/student/home/bert-explorer-runs/20261202-052726-minilm-squad_v1-"
                              "squad_v1_sample_train/checkpoints/best …")
    shell.status_widgets.on_inspector_page(True)   # the place is said on the inspector pages
    shell.status_widgets.show_place("Inspecting a local copy of gpubox:…/best")
    shell.activity_label.setText("running: stance lr1e-4 step 33/150 · 1 running")
    shell.show_message(message, 60_000)
    assert bar.currentMessage() == message
    qtbot.waitUntil(lambda: bar.message_rect().width() > 0 and shell.activity_label.width() > 0)
    QApplication.processEvents()
    shown = bar.shown_message()
    assert shown.endswith("…") and message.startswith(shown[:-1]) and len(shown) > 12, shown
    assert QFontMetrics(bar.message_label.font()).horizontalAdvance(shown) <= bar.message_rect().width()
    others = [shell.inspect_label, shell.inspector_busy_label, shell.inspector_busy, shell.activity_label,
              shell.device_label]
    for w in others:   # every permanent widget right of the message, none overlapping it
        assert w.isVisible() and w.geometry().left() >= bar.message_rect().right(), w
    assert bar.message_label.toolTip() == message
    shell.statusBar().clearMessage()
    assert bar.shown_message() == "" and bar.message_label.text() == ""


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_the_status_bar_keeps_whole_words_beside_a_long_message(shell, qtbot, monkeypatch, size):
    """After a restart that follows runs on a host, the run activity and the device read whole: the long lines
    where they fit, else their short forms ("2 running", the host alias), the long text in their tooltips; at
    1280x800 they elided each other mid-word ("following 20261206-… running: …2 running device…pubox3")."""
    from explorer.core.runs import status as run_status
    from explorer.ui.runs.state import RunState
    from explorer.ui.shell.layout_check import layout_offenders

    name = "20261206-101112-bert-base-uncased-squad_v2-squad_v2_train_full-lr3e-5"
    runs = [RunState(run_id=name, status=run_status.RUNNING, steps_total=8000, step=1234),
            RunState(run_id=name + "-seed2", status=run_status.RUNNING, steps_total=8000, step=99)]
    runs[0].device, runs[0].mixed_precision = "cuda:0", "bf16"
    monkeypatch.setattr(shell.store, "tracked", lambda: runs)
    monkeypatch.setattr(shell.remote, "host_of", lambda rid: "gpubox3")
    shell.resize(*size)
    shell._update_status_labels()
    shell.show_message(f"following {name} and {name}-seed2 on gpubox3 again after the restart", 60_000)
    bar = shell.statusBar()
    qtbot.waitUntil(lambda: shell.activity_label.width() > 0 and shell.device_label.width() > 0)
    QApplication.processEvents()
    activity, device = shell.activity_label, shell.device_label
    assert activity.shown_text() in (activity.text(), "2 running"), activity.shown_text()
    assert device.shown_text() in (device.text(), "gpubox3"), device.shown_text()
    assert device.text().endswith("on gpubox3") and name in activity.text()
    if size[0] == 1280:
        assert activity.shown_text() == "2 running" and device.shown_text() == "gpubox3"
        assert activity.text() in activity.toolTip() and device.text() in device.toolTip()
    cut = [str(o) for o in layout_offenders(bar) if "statusMessage" not in o.path]
    assert not cut, cut


def test_where_the_inspectors_compute_is_said_on_their_pages_only(shell):
    """"Inspecting on lab (CPU)" beside Launch or Curves read as an inspection still going on long after it
    ended: the note shows on the inspector pages, and comes back with them."""
    shell.tabs.setCurrentWidget(shell.launcher)
    shell.status_widgets.show_place("Inspecting on lab (CPU)")
    assert shell.inspect_label.isHidden() and shell.inspect_label.text() == "Inspecting on lab (CPU)"
    shell.status_widgets.on_inspector_page(True)
    assert not shell.inspect_label.isHidden()
    shell.tabs.setCurrentWidget(shell.curves)
    assert shell.inspect_label.isHidden()
    shell.status_widgets.show_place("")
    shell.status_widgets.on_inspector_page(True)
    assert shell.inspect_label.isHidden()   # this machine: nothing to say


class _FakeProc:
    def __init__(self):
        self.stops = 0

    def stop_early(self):
        self.stops += 1


def test_quit_leave_it_training_keeps_the_worker(shell, monkeypatch):
    from explorer.ui.shell import detach
    from explorer.ui.shell import main_window

    (run_id,) = shell.launch([TrainConfig(train="x.json", output_dir=str(shell.runs_dir))])
    shell.manager.states[run_id].status = "running"
    fake = _FakeProc()
    shell.manager.procs[run_id] = fake
    offered = []
    monkeypatch.setattr(main_window, "ask_quit", lambda _w, running, queued, **_k: offered.append(running) or detach.LEAVE)
    cancelled = []
    monkeypatch.setattr(shell.manager, "cancel_all", lambda *a, **k: cancelled.append(1))
    assert shell.close()
    assert offered == [[run_id]] and shell.detached == [run_id] and not cancelled and fake.stops == 0
    shell.manager.procs.clear()
    shell.manager.states[run_id].status = "queued"


def test_quit_stop_early_closes_when_the_run_has_ended(shell, monkeypatch):
    from explorer.ui.shell import detach
    from explorer.ui.shell import main_window

    (run_id,) = shell.launch([TrainConfig(train="x.json", output_dir=str(shell.runs_dir))])
    shell.manager.states[run_id].status = "running"
    fake = _FakeProc()
    shell.manager.procs[run_id] = fake
    monkeypatch.setattr(main_window, "ask_quit", lambda *_a, **_k: detach.STOP)
    assert not shell.close() and shell.isVisible() and fake.stops == 1    # stays open while it saves
    shell.manager.procs.clear()
    shell.manager.states[run_id].status = "stopped"
    shell.manager.ended.emit(run_id, "stopped")                          # the worker reported its end
    assert not shell.isVisible()


def test_quit_dialog_offers_the_four_choices(shell, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    from explorer.ui.shell import detach

    seen = []

    def fake_exec(box):
        seen.extend(b.text() for b in box.buttons())
        return 0

    monkeypatch.setattr(QMessageBox, "exec", fake_exec)
    assert detach.ask_quit(shell, ["r1"], ["r2"]) is None       # closed without a choice: do not quit
    assert {"Leave it training", "Stop early and quit", "Cancel run and quit", "Cancel"} <= set(
        t.replace("&", "") for t in seen)


def test_quit_dialog_names_the_remote_runs_followed_and_says_they_go_on(shell, monkeypatch):
    """With a local run and a remote one followed, Quit names the remote runs and says they go on, not only "1
    run(s) training (stance corrected)", which leaves unclear whether Stop early / Cancel act on the remote run."""
    from PySide6.QtWidgets import QMessageBox

    from explorer.ui.runs.state import RunState

    (run_id,) = shell.launch([TrainConfig(train="x.json", output_dir=str(shell.runs_dir))])
    shell.manager.states[run_id].status = "running"
    shell.manager.procs[run_id] = _FakeProc()
    remote = RunState(run_id="stance", path=shell.runs_dir / "stance", config={}, status="running")
    remote.host = "gpubox"
    shell.remote.states["stance"] = remote
    ended = RunState(run_id="old", path=shell.runs_dir / "old", config={}, status="finished")
    ended.host = "gpubox"
    shell.remote.states["old"] = ended
    seen = {}

    def fake_exec(box):
        seen["text"], seen["info"] = box.text(), box.informativeText()
        return 0

    monkeypatch.setattr(QMessageBox, "exec", fake_exec)
    try:
        assert not shell.close()            # no choice: the window stays
    finally:
        shell.manager.procs.clear()
        shell.manager.states[run_id].status = "queued"
        shell.remote.states.clear()
    assert seen["text"] == (f"1 run(s) training ({run_id}).\n1 remote run(s) followed (stance on gpubox): they "
                            "keep training on their host whatever you choose.")
    assert "The buttons act on the runs of this machine only" in seen["info"]


def test_quit_with_only_remote_runs_followed_names_them_as_going_on(shell, monkeypatch):
    """No run of this machine is active but a remote one is followed: quitting says so (it goes on on its host, it is
    followed again at the next start) instead of closing without a word."""
    from PySide6.QtWidgets import QMessageBox

    from explorer.ui.runs.state import RunState

    remote = RunState(run_id="stance", path=shell.runs_dir / "stance", config={}, status="running")
    remote.host = "gpubox"
    shell.remote.states["stance"] = remote
    seen = {}

    def fake_exec(box):
        seen["text"], seen["buttons"] = box.text(), [b.text().replace("&", "") for b in box.buttons()
                                                     if not b.isHidden()]
        return 0

    monkeypatch.setattr(QMessageBox, "exec", fake_exec)
    try:
        assert not shell.close()            # no choice: the window stays
    finally:
        shell.remote.states.clear()
    assert seen["text"] == ("1 remote run(s) followed (stance on gpubox): they go on on their host and are followed "
                            "again at the next start.")
    assert "Quit" in seen["buttons"] and "Cancel run and quit" not in seen["buttons"]


def _answer_after(box, label: str) -> None:
    """Click the quit question's button ``label`` (as a person would once the question is read)."""
    for button in box.buttons():
        if button.text().replace("&", "") == label and not button.isHidden():
            button.click()
            return


def test_a_run_that_ends_while_the_quit_question_is_open_leaves_it(shell, qtbot, tmp_path, monkeypatch):
    """The quit question stays open while the runs go on: a run that finishes meanwhile (its row in the Runs list
    says finished) is no longer named as training, Leave it training and Stop early and quit go (there is nothing
    left to leave or stop), and Quit closes the window."""
    import sys

    from PySide6.QtWidgets import QMessageBox

    from explorer.ui.runs import runner

    go = tmp_path / "go"
    script = tmp_path / "stand_in_worker.py"   # trains until told to finish, then reports finished and exits
    script.write_text("import json, pathlib, time\n"
                      "print(json.dumps({'event': 'started', 'run_id': 'r', 'steps_total': 4}), flush=True)\n"
                      f"while not pathlib.Path({str(go)!r}).exists():\n"
                      "    time.sleep(0.05)\n"
                      "print(json.dumps({'event': 'finished', 'run_id': 'r', 'seconds': 1.0}), flush=True)\n")
    monkeypatch.setattr(runner, "worker_command", lambda _path: [sys.executable, str(script)])
    shell.manager.max_parallel = 1
    (run_id,) = shell.launch([TrainConfig(train="x.json", output_dir=str(shell.runs_dir))])
    state = shell.manager.states[run_id]
    qtbot.waitUntil(lambda: state.status == "running", timeout=20_000)
    seen = []

    def fake_exec(box):
        seen.append(box.text())
        go.touch()                                                  # the run finishes while the question is open
        qtbot.waitUntil(lambda: not shell.manager.working(), timeout=20_000)
        seen.append((box.text(), {b.text().replace("&", "") for b in box.buttons() if not b.isHidden()}))
        _answer_after(box, "Quit")
        return 0

    monkeypatch.setattr(QMessageBox, "exec", fake_exec)
    shell.close()
    assert run_id in seen[0] and shell.store.get(run_id).status == "finished"
    text, buttons = seen[1]
    assert run_id not in text and buttons == {"Quit", "Cancel"}
    assert not shell.isVisible()


def test_a_remote_run_that_ends_while_the_quit_question_is_open_is_no_longer_named(shell, monkeypatch):
    """A remote run followed that finishes while the quit question is open (its mirrored events say finished, the
    Runs list too) leaves the question: it no longer says the run goes on on its host."""
    from PySide6.QtWidgets import QMessageBox

    from explorer.ui.runs.state import RunState

    remote = RunState(run_id="stance", path=shell.runs_dir / "stance", config={}, status="running")
    remote.host = "gpubox"
    shell.remote.states["stance"] = remote
    shell.remote.added.emit(remote)                                 # listed in the Runs list, driven by the follower
    seen = []

    def fake_exec(box):
        seen.append(box.text())
        shell.remote._event.emit("stance", {"event": "finished", "run_id": "stance", "seconds": 1.0})
        shell.remote._done.emit("stance")                          # what the follower's thread sends
        seen.append((box.text(), [b.text().replace("&", "") for b in box.buttons() if not b.isHidden()]))
        _answer_after(box, "Quit")
        return 0

    monkeypatch.setattr(QMessageBox, "exec", fake_exec)
    try:
        shell.close()
    finally:
        shell.remote.states.clear()
    assert "stance on gpubox" in seen[0] and shell.store.get("stance").status == "finished"
    text, buttons = seen[1]
    assert "stance" not in text and set(buttons) == {"Quit", "Cancel"}
    assert not shell.isVisible()


class _SilentClient:
    """An InspectClient stand-in that never answers (the Compare window waits for its result)."""

    def request(self, op, data, on_done=None, on_error=None, on_progress=None):
        return 1

    def cancel(self, rid):
        pass


@pytest.mark.parametrize("how", ["Close button", "Escape"])
def test_ctrl_q_right_after_the_compare_window_closes_quits(shell, qtbot, how):
    """Closing the two-classifier Compare window gives the keys back to the main window: Ctrl+Q pressed next quits
    (it was ignored once, the keyboard focus left in no window)."""
    from PySide6.QtWidgets import QDialogButtonBox

    from explorer.ui.groups.classifier_compare import ClassifierCompareWindow

    qtbot.waitUntil(lambda: QApplication.activeWindow() is shell)
    compare = ClassifierCompareWindow([{"source": "a", "name": "a", "task": "single"},
                                       {"source": "b", "name": "b", "task": "single"}], client=_SilentClient(),
                                      parent=shell)
    compare.show()
    qtbot.waitExposed(compare)
    if how == "Escape":
        qtbot.keyClick(compare, Qt.Key.Key_Escape)
    else:
        qtbot.mouseClick(compare.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Close),
                         Qt.MouseButton.LeftButton)
    assert not compare.isVisible()
    QApplication.processEvents()
    assert QApplication.activeWindow() is shell
    qtbot.keyClick(QApplication.focusWidget() or shell, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
    assert not shell.isVisible()


def test_quit_plan_acts_on_the_runs_of_this_machine_only():
    from explorer.ui.shell.quitting import CANCEL, LEAVE, STOP, QuitPlan

    plan = QuitPlan.of(["a", "b"], ["b"], [("r", "gpubox")])
    assert plan.running == ["a"] and plan.queued == ["b"] and plan.asks
    assert plan.stopped(STOP) == ["a"] and plan.stopped(LEAVE) == [] and plan.left_training(LEAVE) == ["a"]
    assert plan.cancels_all(CANCEL) and not plan.cancels_all(LEAVE)
    assert not QuitPlan.of([], [], []).asks and QuitPlan.of([], [], [("r", "h")]).asks
    assert not QuitPlan.of([], [], [("r", "h")]).cancels_all(CANCEL)   # "Quit" with no run of this machine active


def test_the_quit_question_says_the_queued_runs_are_offered_again_at_the_next_start():
    from explorer.ui.shell.detach import quit_text

    _text, info = quit_text(["cv-x-03"], ["cv-x-04", "cv-x-05"])
    assert "cancelled" not in info.split("\n")[0]
    assert "the next start offers them again in one click (a group's runs with their group)" in info


def test_event_writer_keeps_logging_when_stdout_goes_away(tmp_path):
    from explorer.core.protocol.events import EventWriter, read_events

    class Gone:
        def write(self, _text):
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self):
            pass

    w = EventWriter("r", path=tmp_path / "events.jsonl", stream=Gone())
    w.emit("step", step=1)
    w.emit("step", step=2)
    assert [e["step"] for e in read_events(tmp_path / "events.jsonl")] == [1, 2] and w.stream is None


def test_getting_started_walks_the_own_data_classification_path():
    """Help -> Getting started walks the own-data classification path, not only QA; the names it gives are the
    app's own."""
    import inspect

    from explorer.ui.inspectors import classify_dev_view, predictions_view
    from explorer.ui.runs import dock
    from explorer.ui.shell.help_dialog import GETTING_STARTED

    own = GETTING_STARTED.split("Your own data", 1)[1].split("What each panel answers")[0]
    for step in ("Train data", "Text columns", "Label column", "Curves", "Classify: dev set", "Predictions"):
        assert step in own
    for name, module in (("Score dev set", classify_dev_view), ("Predict on a file…", dock),
                         ("Save labelled file…", predictions_view)):
        assert name in own and f'"{name}"' in inspect.getsource(module)
    assert "fast-CPU" not in GETTING_STARTED


def test_every_tab_is_one_click_away_at_1280x800(qtbot, tmp_path):
    """At 1280x800 the "Tabs ▾" button at the end of the tab rows lists every tab and opens the one chosen."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings
    from explorer.ui.shell.style import apply_style

    apply_style(QApplication.instance())
    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    w.manager.max_parallel = 0
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
    w.resize(1280, 800)
    w.show()
    qtbot.waitUntil(lambda: w.tab_list.isVisible())
    button = w.tab_list
    corner = button.mapTo(w, button.rect().topRight())
    assert 0 <= corner.x() < w.width()                                        # the button itself is in view
    actions = button.fill()
    assert [a.text() for a in actions] == [w.tabs.tabText(i) for i in range(w.tabs.count())]
    assert actions[0].isChecked()
    target = next(a for a in actions if a.text() == "Embeddings")
    target.trigger()
    assert w.tabs.tabText(w.tabs.currentIndex()) == "Embeddings"


def test_the_tabs_fit_at_1280x800_and_stay_put_when_a_predictions_page_opens(qtbot, tmp_path):
    """Every tab's button is whole and in view at 1280x800 (rows that wrap, no scroll arrows, no "Tag:" cut) and at
    1920x1080; a Predictions page opening adds its tab at the end and the others do not move (a click aimed at
    one tab never lands on another)."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui.shell.layout_check import layout_offenders, out_of_view
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings
    from explorer.ui.shell.style import apply_style

    app = QApplication.instance()
    apply_style(app)
    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    w.manager.max_parallel = 0
    w._inspector_opened = True
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
    w.resize(1280, 800)
    w.show()
    qtbot.waitExposed(w)
    qtbot.waitUntil(lambda: len(w.tab_rows.buttons) == w.tabs.count())
    assert not w.tabs.tabBar().isVisible()          # the one-row bar, with its scroll arrows, is not shown
    for size in ((1280, 800), (1920, 1080)):
        w.resize(*size)
        app.processEvents()
        rows = w.tab_rows
        assert [b.text() for b in rows.buttons] == [w.tabs.tabText(i) for i in range(w.tabs.count())]
        cut = [out_of_view(b) for b in rows.buttons] + [str(o) for o in layout_offenders(w) if "tabRow" in o.path]
        assert not [c for c in cut if c], (size, cut)
    w.resize(1280, 800)
    app.processEvents()
    before = {b.text(): b.mapTo(w, b.rect().topLeft()) for b in w.tab_rows.buttons}
    _open_predictions(w, tmp_path, "p")
    qtbot.waitUntil(lambda: len(w.tab_rows.buttons) == w.tabs.count())
    app.processEvents()
    after = {b.text(): b.mapTo(w, b.rect().topLeft()) for b in w.tab_rows.buttons}
    assert all(after[t] == p for t, p in before.items()), [t for t, p in before.items() if after[t] != p]
    new = w.tab_rows.buttons[-1]
    # whole, or elided in the middle where the fixed tabs leave it too little room (a wider Runs dock), named whole
    # in its tooltip: the tab rows stay two
    title = "Predictions: p.predictions.csv"
    assert new.text() == title or ("…" in new.text() and new.toolTip().startswith(title)), new.text()
    assert new.isChecked() and not out_of_view(new)
    assert len({b.mapTo(w, b.rect().topLeft()).y() for b in w.tab_rows.buttons if b.isVisibleTo(w)}) <= 2
    w.tab_rows.buttons[0].click()
    assert w.tabs.currentIndex() == 0


def test_every_tab_button_shows_its_page_after_the_lazy_pages_are_built(qtbot, tmp_path):
    """A tab button keeps working after its page's placeholder is replaced by the built page (the button goes by
    the tab's position, not by the placeholder it was made with)."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    w.manager.max_parallel = 0
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
    w.resize(1280, 800)
    w.show()
    qtbot.waitExposed(w)
    qtbot.waitUntil(lambda: len(w.tab_rows.buttons) == w.tabs.count())
    pages = {"Attention", "Spans && τ", "τ on dev set", "Classify", "Classify: dev set", "Tag", "Tag: dev set",
             "Explain", "Curves", "Launch"}   # the model pages and the run pages (Compare may send its first visit on)
    for _ in range(2):   # the second pass clicks buttons whose pages were built during the first
        for i in range(w.tabs.count()):
            if w.tabs.tabText(i) not in pages:
                continue
            w.tab_rows.buttons[i].click()
            assert w.tabs.currentIndex() == i, w.tabs.tabText(i)   # at once (a page's first visit may move on later)
            assert [b.isChecked() for b in w.tab_rows.buttons].count(True) == 1
            QApplication.processEvents()


def test_a_run_that_ends_refreshes_the_launch_forms_estimate_from_its_rates(shell):
    """The Evaluation line reads the rates past runs measured: when a run ends, its rates count at once, without a
    field being changed first."""
    from explorer.core.runs import status as run_status
    from explorer.ui.runs.state import RunState

    launcher = shell.launcher
    cfg = launcher.config()
    before = launcher.eval_plan.toolTip()
    past = RunState(run_id="just-ended", status=run_status.FINISHED,
                    config={"model": cfg.model, "task": cfg.task, "max_seq_length": cfg.max_seq_length,
                            "batch_size": cfg.batch_size})
    past.started_at = 1.0
    past.apply({"run_id": "just-ended", "event": "step", "time": 1.0, "step": 10, "loss": 1.0,
                "samples_per_second": 123.0})
    past.apply({"run_id": "just-ended", "event": "eval", "time": 2.0, "step": 10, "metrics": {},
                "rows_per_second": 77.0, "dev_rows": 400, "dev_total": 400})
    runs = []
    launcher.past_runs = lambda: list(runs)
    runs.append(past)
    shell.store_events.ended.emit("just-ended", run_status.FINISHED)
    after = launcher.eval_plan.toolTip()
    assert after != before and "just-ended" in after, after


def _open_predictions(w, folder, name: str) -> None:
    """Open a one-row classification predictions file ``<name>.predictions.csv`` (written in ``folder``) as a
    Predictions page of ``w``."""
    from explorer.core.predict.writing import write_table

    path = write_table(folder / f"{name}.predictions.csv", ["text", "predicted_label", "p_a", "p_b", "margin"],
                       [{"text": "x", "predicted_label": "a", "p_a": 0.6, "p_b": 0.4, "margin": 0.2}])
    w.open_predictions({"out": str(path), "kind": "classification", "label_names": ["a", "b"],
                        "input_columns": ["text"], "text_columns": ["text"]})


def test_tab_buttons_keep_two_rows_and_the_rest_are_counted_in_the_tabs_list(shell, qtbot, tmp_path):
    """Four Predictions pages (as restored at start-up) in a 1280x800 window: the tab buttons stay in two rows,
    every fixed tab, the current page and the page used last (elided) keep their button, and "Tabs (+N) ▾" counts and lists the others; choosing
    one from the list shows its button."""
    w = shell
    w.resize(1264, 760)
    QApplication.processEvents()
    fixed = w.tabs.count()
    for name in ("new_texts", "headerless_pred", "with_header", "tweets_200"):
        _open_predictions(w, tmp_path, name)
    w.tabs.setCurrentIndex(0)
    qtbot.waitUntil(lambda: len(w.tab_rows.buttons) == w.tabs.count())
    for _ in range(3):
        QApplication.processEvents()
    rows = w.tab_rows
    shown = [b for b in rows.buttons if b.isVisibleTo(w)]
    tops = {b.mapTo(w, b.rect().topLeft()).y() for b in shown}
    assert len(tops) <= 2, sorted(tops)
    assert abs(w.tab_list.mapTo(w, w.tab_list.rect().center()).y() - shown[-1].mapTo(w, shown[-1].rect().center()).y()) <= 4
    assert all(b.isVisibleTo(w) for b in rows.buttons[:fixed])   # every fixed tab keeps its button
    assert rows.hidden and min(rows.hidden) >= fixed
    assert w.tab_list.text() == f"Tabs (+{len(rows.hidden)}) ▾"
    # the page used last (the newest) keeps its button, its name elided, rather than all of them behind the list
    assert w.tabs.count() - 1 not in rows.hidden
    assert rows.buttons[-1].text() != w.tabs.tabText(w.tabs.count() - 1)
    last = rows.hidden[-1]
    action = w.tab_list.fill()[last]
    action.trigger()
    QApplication.processEvents()
    assert w.tabs.currentIndex() == last
    assert rows.buttons[last].isVisibleTo(w) and rows.buttons[last].isChecked()
    tops = {b.mapTo(w, b.rect().topLeft()).y() for b in rows.buttons if b.isVisibleTo(w)}
    assert len(tops) <= 2
    narrow = len(rows.hidden)
    w.resize(1900, 1000)   # a wider window shows more of them
    for _ in range(3):
        QApplication.processEvents()
    assert len(rows.hidden) < narrow
    assert w.tab_list.text() == (f"Tabs (+{len(rows.hidden)}) ▾" if rows.hidden else "Tabs ▾")
    w.tabs.setCurrentIndex(0)
    while rows.hidden:
        shown_closable = [i for i in sorted(rows._closable) if i not in rows.hidden]
        w.tabs.removeTab(shown_closable[0])
        qtbot.waitUntil(lambda: len(rows.buttons) == w.tabs.count())
        QApplication.processEvents()
    assert w.tab_list.text() == "Tabs ▾"


def test_shown_tabs_keeps_the_last_used_optional_page_elided_when_none_fits_whole():
    """A fixed page current, two rows of 300 px: the fixed pages (two rows less 140 px) leave no room for a whole
    optional button (200 px), but for the last used one narrowed (it was hidden with all the others behind the
    list); with too little room for MIN_ELIDED_PX all stay hidden."""
    from explorer.ui.shell.tab_rows import MIN_ELIDED_PX, shown_tabs

    widths = [150, 150, 150, 200, 200, 200]          # pages 0-2 fixed, 3-5 optional (Predictions)
    optional = {3, 4, 5}
    shown, px = shown_tabs(widths, optional, 0, (20, 30), 300, 0, recent=4)
    assert shown == [0, 1, 2, 4]
    assert MIN_ELIDED_PX <= px < 200 and 150 + px + 30 <= 300
    shown, px = shown_tabs(widths, optional, 0, (20, 30), 300, 0, recent=-1)
    assert (shown, px) == ([0, 1, 2], None)
    shown, px = shown_tabs([150, 150, 280, 200, 200], {3, 4}, 0, (20, 30), 300, 0, recent=3)
    assert (shown, px) == ([0, 1, 2], None)


def test_a_status_bar_widget_removed_and_deleted_is_no_longer_framed(qtbot):
    """The "Queue them again" button goes once clicked: removed and deleted, the bar's paint no longer frames it
    (its frame was drawn from a deleted widget: a RuntimeError on every repaint)."""
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication, QPushButton

    from explorer.ui.shell.status_bar import MessageBar

    bar = MessageBar()
    qtbot.addWidget(bar)
    button = QPushButton("Queue them again")
    bar.addPermanentWidget(button)
    bar.show()
    qtbot.waitExposed(bar)
    bar.removeWidget(button)
    button.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)   # deleted now, as the event loop would
    bar.repaint()   # would raise in paintEvent (pytest-qt fails the test on an exception in a Qt override)
    assert bar.grab().width() > 0


def test_menu_shortcuts_work_with_the_focus_anywhere_in_the_curves_page(shell, qtbot, monkeypatch):
    """Ctrl+Shift+H (Run → Hosts…) opens the Hosts dialog whatever widget of the Curves page holds the focus: a
    plot clicked into (its view box the scene's focus item), and each control of the page."""
    import pyqtgraph as pg
    from PySide6.QtWidgets import QWidget

    from explorer.ui.launch.hosts_dialog import HostsDialog
    from explorer.ui.runs.state import RunState

    opened = []
    monkeypatch.setattr(HostsDialog, "show", lambda self: opened.append(self))
    shell.tabs.setCurrentWidget(shell.curves)
    events = ([{"event": "started", "run_id": "a", "time": 1.0, "steps_total": 10}]
              + [{"event": "step", "run_id": "a", "time": 2.0 + i, "step": i, "loss": 1.0 / i} for i in range(1, 10)]
              + [{"event": "eval", "run_id": "a", "time": 3.0, "step": 5, "metrics": {"accuracy": 0.7}}])
    shell.curves.set_runs([RunState.from_events("a", events)])
    shell.curves.redraw_now()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is shell, timeout=10_000)
    view = next(v for v in shell.curves.findChildren(pg.GraphicsView) if v.isVisible())
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.viewport().rect().center())
    qtbot.waitUntil(lambda: QApplication.focusWidget() is view, timeout=10_000)
    targets = [view] + [c for c in shell.curves.findChildren(QWidget)
                        if c.isVisible() and c.focusPolicy() != Qt.FocusPolicy.NoFocus]
    for n, target in enumerate(targets, 1):
        if n > 1:
            target.setFocus()
            qtbot.waitUntil(lambda: QApplication.focusWidget() is not None, timeout=10_000)
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_H,
                       Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
        assert len(opened) == n, type(target).__name__


def test_ctrl_4_on_a_selected_run_without_a_checkpoint_opens_nothing_and_says_so(shell, qtbot, tmp_path):
    """A run just launched takes the selection; Ctrl+4 (Spans & τ) then loaded the bundled encoder, the new run's
    base model, as if it were that run. Now the page opens nothing and the status bar and the page say the run has
    no checkpoint yet; once it has one, the next visit opens that checkpoint in the page that was asked for."""
    from helpers import save_tiny_model

    assert shell.hub is not None
    loaded = []
    shell.hub.open_model = lambda path: loaded.append(str(path))
    (run_id,) = shell.launch([TrainConfig(task="squad_v2", model="bundled:minilm", train="x.json",
                                          output_dir=str(shell.runs_dir))])
    assert shell.runs.selected_ids() == [run_id]
    spans = shell.pages["Spans && τ"]
    shell.runs.table.setFocus()
    qtbot.keyClick(shell.runs.table, Qt.Key.Key_4, Qt.KeyboardModifier.ControlModifier)
    assert shell.tabs.currentWidget() is spans
    assert loaded == []                                        # not the bundled encoder in the run's place
    said = shell.statusBar().currentMessage()
    assert said.startswith("Nothing opened in Spans & τ:") and "is queued" in said
    assert shell.hub.panel.status.text() == said
    best = save_tiny_model(tmp_path / "best", "qa")            # the run has saved checkpoints/best since
    shell.manager.states[run_id].checkpoints["best"] = str(best)
    shell.tabs.setCurrentWidget(shell.curves)
    qtbot.keyClick(shell.runs.table, Qt.Key.Key_4, Qt.KeyboardModifier.ControlModifier)
    assert loaded == [str(best)] and shell.tabs.currentWidget() is spans


def test_ctrl_4_with_no_run_selected_loads_the_bundled_encoder_and_names_it(shell, qtbot):
    assert shell.hub is not None
    loaded = []
    shell.hub.open_model = lambda path: loaded.append(str(path))
    shell.runs.table.setFocus()
    qtbot.keyClick(shell.runs.table, Qt.Key.Key_4, Qt.KeyboardModifier.ControlModifier)
    assert loaded and set(loaded) == {"bundled:minilm"}          # as before: the page's example to probe
    said = shell.statusBar().currentMessage()
    assert said.startswith("Spans & τ: the bundled encoder bundled:minilm, its QA head untrained") and \
        "no SQuAD run selected" in said

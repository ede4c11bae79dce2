"""Every page of the main window usable at 1280x800 (a common laptop; also 1264x760, its client area inside a
window frame) and 1920x1080.

The window is filled as a person sees it after using it (scripts/layout_shots.fill_pages: the launcher's
data preview, a probe in Attention and Spans & τ, a τ sweep, Classify and its dev set, Tag and its dev
set, a Compare report, a Predictions page; tiny random models), then at each size every tab is shown
with the Runs dock beside it and explorer.ui.shell.layout_check lists what is cut: the window larger than
the screen, widgets outside their parent, elided labels, buttons, header titles and short cells, plots and
legends outside their view. All offenders of all pages are reported at once.

Beside that: the pages before their first result, the window inside a 1600 x 900 screen, a running run and a long
probe that never widen it, a long data-preview message that scrolls instead of growing it, and the τ page's
tables with four rows in view.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

from layout_shots import SIZES, fill_pages, resize, show_page  # noqa: E402


@pytest.fixture
def filled_window(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "cache"))
    from PySide6.QtWidgets import QApplication

    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.style import apply_style

    apply_style(QApplication.instance())   # the app's own look (Fusion + style.qss), whatever ran before
    from explorer.ui.shell.settings import AppSettings

    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    w.manager.max_parallel = 0
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
    w.show()
    qtbot.waitExposed(w)

    def wait_until(predicate, what):
        qtbot.waitUntil(predicate, timeout=60_000)

    titles = fill_pages(w, tmp_path, wait_until)
    return w, titles


def test_every_page_fits_at_1280x800_and_1920x1080(filled_window, qtbot):
    from PySide6.QtWidgets import QApplication

    from explorer.ui.shell.layout_check import layout_offenders, size_offenders

    w, titles = filled_window
    app = QApplication.instance()
    assert {"Launch", "Curves", "Spans && τ", "Classify: dev set", "Compare"} <= set(titles)
    assert any(t.startswith("Predictions") for t in titles)
    report = []
    for size in SIZES:
        resize(w, size, app)
        for title in titles:
            show_page(w, title, app)
            assert w.runs_dock.isVisible()
            found = size_offenders(w, *size) + layout_offenders(w)
            report += [f"{size[0]}x{size[1]} {title}: {o}" for o in found]
    assert not report, f"{len(report)} cut at these sizes:\n" + "\n".join(report)


def test_the_check_finds_a_cut_label_a_header_and_a_widget_outside(qtbot):
    """The check itself can fail: an elided label, a narrow header section, a child outside its parent, a list line
    running off its box (a word-wrapped list of the same line is whole)."""
    from PySide6.QtWidgets import QLabel, QListWidget, QTableWidget, QWidget

    from explorer.ui.shell.layout_check import layout_offenders

    top = QWidget()
    qtbot.addWidget(top)
    top.resize(300, 200)
    label = QLabel("a label much longer than the forty pixels it is given", top)
    label.setGeometry(0, 0, 40, 20)
    table = QTableWidget(1, 1, top)
    table.setHorizontalHeaderLabels(["|score_diff − τ| is a long title"])
    table.setGeometry(0, 30, 200, 100)
    table.setColumnWidth(0, 40)
    outside = QLabel("x", top)
    outside.setGeometry(280, 190, 50, 30)
    line = "window 1: 183 tokens, chars 0..812; s_null 2.31; best 'the engine'"
    cut, wrapped = QListWidget(top), QListWidget(top)
    for box, x in ((cut, 210), (wrapped, 250)):
        box.addItem(line)
        box.setGeometry(x, 0, 40, 60)
    wrapped.setWordWrap(True)
    top.show()
    qtbot.waitExposed(top)
    kinds = sorted({o.kind for o in layout_offenders(top)})
    assert kinds == ["elided", "header", "list", "outside"]
    assert [o.path.split(" > ")[-1] for o in layout_offenders(top) if o.kind == "list"] == ["QListWidget row 0"]
    assert any("section 0" in o.path and "needs" in o.detail for o in layout_offenders(top))


def test_the_check_finds_a_row_title_lower_than_its_line(qtbot, app_style):
    """A row whose title's line (its descent: an underscore) is taller than the row between the sheet's padding is
    reported; a row of the header's own height is not."""
    from PySide6.QtWidgets import QTableWidget

    from explorer.ui.shell.layout_check import layout_offenders

    table = QTableWidget(2, 1)
    qtbot.addWidget(table)
    table.setVerticalHeaderLabels(["gold refund_not_showing_up", "gold age_limit"])
    table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 4)
    table.resize(400, 200)
    table.show()
    qtbot.waitExposed(table)
    found = [o for o in layout_offenders(table) if o.kind == "header"]
    assert len(found) == 2 and "row 0" in found[0].path and "high" in found[0].detail, found
    table.verticalHeader().setDefaultSectionSize(table.verticalHeader().sectionSizeHint(0) + 2)
    assert not [o for o in layout_offenders(table) if o.kind == "header"]


def test_the_check_finds_tabs_behind_the_scroll_arrows(qtbot):
    """A tab bar too narrow for its tabs scrolls them: every tab is reported (the arrows take the bar's end);
    wide enough, none is."""
    from PySide6.QtWidgets import QLabel, QTabWidget

    from explorer.ui.shell.layout_check import hidden_tabs, layout_offenders

    tabs = QTabWidget()
    qtbot.addWidget(tabs)
    for title in ("Block flow per layer", "Model view", "Head importance"):
        tabs.addTab(QLabel("x"), title)
    tabs.resize(200, 120)
    tabs.show()
    qtbot.waitExposed(tabs)
    assert hidden_tabs(tabs.tabBar()) == ["Block flow per layer", "Model view", "Head importance"]
    assert [o.kind for o in layout_offenders(tabs) if o.kind == "tabs"] == ["tabs"]
    tabs.resize(900, 120)
    qtbot.waitUntil(lambda: not hidden_tabs(tabs.tabBar()))


def test_the_check_finds_a_clipped_combo_and_a_menu_arrow_over_the_text(qtbot):
    """A combo box that clips its text without "…" ("1: 165 tokens, chars" on the Attention page at 1280x800) and
    a menu arrow drawn over a tool button's text ("Export⌄": Fusion draws an instant-popup tool button's arrow over
    the text, as QToolButton's size hint leaves no room for it) are both reported; MenuToolButton and a combo sized
    to its contents pass."""
    from PySide6.QtWidgets import QComboBox, QMenu, QToolButton, QWidget

    from explorer.ui.shell.layout_check import layout_offenders
    from explorer.ui.shell.menu_button import MenuToolButton

    top = QWidget()
    qtbot.addWidget(top)
    top.resize(600, 200)
    combo = QComboBox(top)
    combo.addItem("1: 165 tokens, chars 0-812")
    combo.setGeometry(0, 0, 120, 24)
    plain = QToolButton(top)
    plain.setText("Export")
    plain.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
    plain.setMenu(QMenu(plain))
    plain.move(0, 40)
    roomy = MenuToolButton(top)
    roomy.setText("Export")
    roomy.setMenu(QMenu(roomy))
    roomy.move(0, 80)
    whole = QComboBox(top)
    whole.addItem("window 1 of 3 · 165 tokens · chars 0–812")
    whole.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
    whole.move(0, 120)
    top.show()
    qtbot.waitExposed(top)
    for w in (plain, roomy, whole):   # shown: polished with the app's style sheet (its font) first
        w.resize(w.sizeHint())
    found = layout_offenders(top)
    assert sorted(o.path.split(" > ")[-1] for o in found) == ["QComboBox", "QToolButton['Export']"], found
    assert any("'1: 165 tokens, chars 0-812' needs" in o.detail for o in found)


def test_the_attention_window_picker_names_the_window_whole(qtbot):
    """Its items read "window 2 of 3 · 165 tokens · chars 374–940" and the box is as wide as the widest."""
    from types import SimpleNamespace

    from explorer.ui.inspectors.attention_view import AttentionView

    win = SimpleNamespace(index=1, tokens=["t"] * 165, offsets=[None, (374, 380), (900, 940), None])
    assert AttentionView._window_label(win, 3) == "window 2 of 3 · 165 tokens · chars 374–940"
    view = AttentionView()
    qtbot.addWidget(view)
    view.window_box.addItems(["window 1 of 3 · 165 tokens · chars 0–812", "window 12 of 13 · 384 tokens · chars 10374–12940"])
    assert view.window_box.sizeHint().width() > view.window_box.fontMetrics().horizontalAdvance(
        "window 12 of 13 · 384 tokens · chars 10374–12940")


def test_the_check_finds_a_plot_squeezed_flat_but_not_a_strip(qtbot):
    """A plot whose data area is a few pixels high is cut (the Attention page's block-flow curves at
    1280x800); a plot given a maximum height on purpose (a strip) is not."""
    import pyqtgraph as pg
    from PySide6.QtWidgets import QVBoxLayout, QWidget

    from explorer.ui.shell.layout_check import MIN_PLOT_VIEW, layout_offenders

    top = QWidget()
    qtbot.addWidget(top)
    lay = QVBoxLayout(top)
    flat, strip = pg.PlotWidget(), pg.PlotWidget()
    for plot in (flat, strip):
        plot.setTitle("a title")
        plot.setLabel("bottom", "layer")
        plot.plot([1, 2], [0.5, 1.0])
        lay.addWidget(plot)
    strip.setFixedHeight(110)      # a strip: its data area is low on purpose
    top.resize(500, 230)           # the flat plot gets what is left: a low data area
    top.show()
    qtbot.waitExposed(top)
    flat_h = flat.getPlotItem().getViewBox().size().height()
    assert 0 < flat_h < MIN_PLOT_VIEW and strip.getPlotItem().getViewBox().size().height() < MIN_PLOT_VIEW
    plots = [o for o in layout_offenders(top) if o.kind == "plot"]
    assert len(plots) == 1 and f"x{flat_h:.0f} px" in plots[0].detail, plots


def test_form_columns_splitter_and_flow_give_way_when_narrow(qtbot):
    """The mechanisms behind the fixes: the launcher form folds to one column, a splitter stacks its
    panes, a flow row wraps, each when its width is too small, and unfolds when there is room again."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QPushButton, QWidget

    from explorer.ui.launch.form_columns import FormColumns
    from explorer.ui.shell.adaptive_splitter import AdaptiveSplitter
    from explorer.ui.shell.flow_layout import FlowLayout

    def wide(w):
        b = QWidget()
        b.setMinimumSize(w, 40)
        return b

    parent = QWidget()   # as children (in the app: of a scroll area / a page), not windows with a minimum size
    qtbot.addWidget(parent)
    parent.resize(800, 500)
    parent.show()
    form = FormColumns([wide(300)], [wide(300)], parent)
    form.show()
    form.resize(700, 400)
    qtbot.waitUntil(form.two_columns)
    assert form.minimumSizeHint().width() == 300    # one column's, not two
    form.resize(400, 400)
    qtbot.waitUntil(lambda: not form.two_columns())

    split = AdaptiveSplitter(parent)
    split.addWidget(wide(300))
    split.addWidget(wide(300))
    split.show()
    split.resize(400, 300)
    qtbot.waitUntil(lambda: split.orientation() == Qt.Orientation.Vertical)
    assert split.minimumSizeHint().width() == 300
    split.resize(700, 300)
    qtbot.waitUntil(lambda: split.orientation() == Qt.Orientation.Horizontal)

    host = QWidget()
    flow = FlowLayout(host)
    buttons = [QPushButton(f"button number {i}") for i in range(6)]
    for b in buttons:
        flow.addWidget(b)
    qtbot.addWidget(host)
    host.show()
    one_row = flow.sizeHint().width()
    assert flow.minimumSize().width() < one_row / 3
    assert flow.heightForWidth(one_row) < flow.heightForWidth(one_row // 3)
    host.resize(one_row // 3, flow.heightForWidth(one_row // 3))
    qtbot.waitUntil(lambda: len({b.y() for b in buttons}) > 1)
    assert all(b.geometry().right() <= host.width() for b in buttons)


def _running_qa_run(runs: Path, run_id: str) -> None:
    """A QA run at step 54 of 80 with watch flows in its evaluations, its worker alive on another host (so it
    reads as running, with a Host, and no process of this machine is ever signalled)."""
    import json
    import time

    from explorer.core.runs.layout import pid_file

    run = runs / run_id
    run.mkdir(parents=True)
    (run / "config.json").write_text(json.dumps({"run_id": run_id, "model": "bundled:minilm", "task": "squad_v2",
                                                 "train": "t.json"}))
    now = time.time()
    events = [{"event": "started", "run_id": run_id, "time": now - 70, "steps_total": 80}]
    questions = ["Where was Ada born?", "Who wrote the first program for the analytical engine of Charles Babbage?"]
    for i in range(55):
        if i:
            events.append({"event": "step", "run_id": run_id, "time": now - 70 + i, "step": i, "epoch": i / 38,
                           "loss": 3 - i / 30, "lr": 1e-5, "grad_norm": 2.0, "samples_per_second": 8.0,
                           "elapsed": float(i)})
        if i % 10 == 0:
            watch = [{"question": q, "flow": {"question->passage": [0.1 * k + i / 100 for k in range(2)]}}
                     for q in questions]
            events.append({"event": "eval", "run_id": run_id, "time": now - 70 + i, "step": i,
                           "metrics": {"f1": 10.0 + i}, "watch": watch})
    (run / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    pid_file(run).write_text(json.dumps({"pid": 1, "host": "a-gpu-box-elsewhere", "time": now}))


def test_a_running_run_and_a_long_probe_never_widen_the_window_past_1280(qtbot, tmp_path, monkeypatch, tiny_qa):
    """At 1280x800 the window never grows to 1624 px (making that its minimum) once Curves shows a QA run's
    attention flow over training (its title and three pickers in one row asked for 1224 px, and the tab stack is
    as wide as its widest page, so Spans & τ was laid out 1624 wide as well). With a running
    run (progress line) in Curves and a long passage probed in Spans & τ the window stays within 1280, and
    neither page has a cut or overlapping part (the wrapped flow header squeezed its note over the legend; the
    Spans pane, beside the dock that a listed run widens, clipped the decision and the n-best table)."""
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "cache"))
    from PySide6.QtWidgets import QApplication

    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings
    from explorer.ui.shell.style import apply_style
    from layout_shots import LONG_PASSAGE, QUESTION

    app = QApplication.instance()
    apply_style(app)
    run_id = "20261201-221500-minilm-squad_v2"
    _running_qa_run(tmp_path / "runs", run_id)
    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    w.manager.max_parallel = 0
    w._inspector_opened = True            # no first-visit load of the bundled encoder
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
    resize(w, (1280, 800), app)
    w.show()
    qtbot.waitExposed(w)
    qtbot.waitUntil(lambda: run_id in w.runs.all_ids() and not w.runs.loading, timeout=60_000)
    w.runs.select([run_id])
    show_page(w, "Curves", app)
    qtbot.waitUntil(lambda: w.curves.flow_view.isVisible(), timeout=60_000)
    assert w.curves.focus_run().status == "running"
    assert "step 54 of 80" in w.curves.progress_label.text() and w.curves.progress_label.isVisible()
    hub = w.hub
    hub.set_model(tiny_qa)
    hub.open_example(QUESTION, LONG_PASSAGE)
    qtbot.waitUntil(lambda: hub.result is not None and not hub.probes._outstanding, timeout=60_000)
    from explorer.ui.shell.layout_check import layout_offenders, size_offenders

    for title in ("Curves", "Spans && τ"):
        show_page(w, title, app)
        assert w.minimumSizeHint().width() <= 1280, title
        assert w.width() <= 1280, title
        # and nothing drawn over or cut: the flow's wrapped header and note, the decision beside a wide dock
        found = size_offenders(w, 1280, 800) + layout_offenders(w)
        assert not found, (title, [str(o) for o in found])


# the page's room at 1280x800: the window less the title and frame (1264x760), the menu bar, the tabs and the
# status bar; beside the Runs dock
PAGE_AT_1280 = (884, 660)


def test_the_tau_page_keeps_four_rows_of_each_table_at_1280x800(qtbot):
    """The τ table and the questions near τ each keep four rows in view at 1280x800, never one."""
    from PySide6.QtWidgets import QTableWidgetItem

    from explorer.ui.inspectors.dev_view import TABLE_MIN_ROWS, DevTauView

    view = DevTauView()
    qtbot.addWidget(view)
    assert view.minimumSizeHint().height() <= PAGE_AT_1280[1]   # the page never makes the window taller
    view.resize(*PAGE_AT_1280)
    view.show()
    qtbot.waitExposed(view)
    view.table.setRowCount(20)
    for r in range(20):
        view.table.setItem(r, 0, QTableWidgetItem(f"+{r}.0"))
    view.result_tabs.setCurrentIndex(1)
    qtbot.waitUntil(lambda: view.table.isVisible())
    rows = view.table.viewport().height() // view.table.verticalHeader().defaultSectionSize()
    assert rows >= TABLE_MIN_ROWS
    view.result_tabs.setCurrentIndex(0)
    view.tau_table.setVisible(True)
    view.tau_table.setRowCount(4)
    view.tau_table.setFixedHeight(view.tau_table.horizontalHeader().sizeHint().height()
                                  + 4 * view.tau_table.verticalHeader().defaultSectionSize() + 2)
    qtbot.waitUntil(lambda: view.tau_table.isVisible())
    area = view.result_tabs.currentWidget()
    assert area.viewport().height() >= view.tau_table.height()   # the four τ rows in view, not scrolled


def test_the_tau_page_keeps_its_curves_in_place_while_a_study_runs(qtbot, tmp_path, app_style):
    """At 1280x800, with the SQuAD v1.1 warning above, pressing Run leaves the curves where they were, the same
    size, with a "computing" note on the empty chart: the veil laid over the results became a pane of their
    splitter and the curves folded into their tab for the run, the page laid out anew twice."""
    from types import SimpleNamespace

    from explorer.ui.inspectors.dev_view import DevTauView

    dev = tmp_path / "dev-subset.json"
    dev.write_text('{"data": [{"paragraphs": [{"qas": [{"question": "q?"}]}]}]}', encoding="utf-8")
    view = DevTauView(cache_dir=tmp_path)
    qtbot.addWidget(view)
    view.head_note.setText("Warning: this checkpoint was fine-tuned on SQuAD v1.1 (extractive QA), where every "
                           "question has an answer. Its no-answer score was never trained, so τ here is "
                           "uncalibrated and its no-answer figures mean little; use a model trained with "
                           "unanswerable questions (SQuAD v2.0) for them.")
    view.head_note.setVisible(True)
    view.path.setText(str(dev))
    _shown(qtbot, view, PAGE_AT_1280)
    before = (view.plot.mapTo(view, view.plot.rect().topLeft()), view.plot.size(), view.split.folded)
    view.loaded = SimpleNamespace(source="/home/me/runs/20261206-101838-minilm-squad_v1/checkpoints/best")
    view.job.start = lambda *args, **kwargs: None   # the study itself is not the point: the page while it runs
    assert view.run(str(dev), 300)
    view.job_bar.set_progress(224, 339)
    _process_events()
    _process_events()
    during = (view.plot.mapTo(view, view.plot.rect().topLeft()), view.plot.size(), view.split.folded)
    assert during == before and not view.split.folded and view.split.count() == 2
    assert view.plot.note.isVisible() and "computing" in view.plot.note.toPlainText()
    view._on_failed("stopped", "")
    assert not view.plot.note.isVisible() and not view.split.held


def test_every_page_before_its_first_result_has_whole_headers(qtbot, tmp_path, monkeypatch):
    """Every page of a fresh window, at both sizes, has nothing cut before its first result (e.g. "P(predicted)"
    in a dev-set table's default 100 px column); test_every_page_fits_at_1280x800_and_1920x1080 checks the pages
    filled with results."""
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


@pytest.fixture
def app_style():
    """The app's style sheet (fonts, paddings: the sizes a user sees), taken off again afterwards."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui.shell.style import apply_style

    from PySide6.QtCore import QEvent

    app = QApplication.instance()
    sheet, style = app.styleSheet(), app.style().name()
    apply_style(app)
    yield
    # pytest-qt has closed the test's widgets and called deleteLater; delete them now, or the style change
    # below re-polishes a whole closed main window first (20 s of teardown on the loaded 2-core machine)
    app.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
    app.setStyleSheet(sheet)
    app.setStyle(style)


def test_main_window_opens_inside_a_small_screen(qtbot, tmp_path, monkeypatch, app_style):
    """The window opens inside a 1600 x 900 screen (never 1683 px wide), also once its widest page is shown."""
    from PySide6.QtCore import QRect
    from PySide6.QtGui import QScreen

    from explorer.ui.shell import screen_fit
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    width, height = 1600, 900
    monkeypatch.setattr(QScreen, "availableGeometry", lambda self: QRect(0, 0, width, height))
    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    assert w.width() + screen_fit.FRAME_W <= width and w.height() + screen_fit.FRAME_H <= height
    assert w.minimumSizeHint().width() + screen_fit.FRAME_W <= width
    w.tabs.setCurrentWidget(w.curves)                 # the widest page no longer widens the window
    qtbot.wait(10)
    assert w.width() + screen_fit.FRAME_W <= width


def test_a_long_data_preview_message_scrolls_and_never_grows_the_window(qtbot):
    """The data preview's notes scroll in a box of at most NOTES_MAX_SHARE of the panel or what the table's
    TABLE_ROWS_SHOWN rows leave of it, the whole text still there: a summary that takes the height its wrapped text needs as a minimum grew the window to 1541x3315 on a
    1280x800 screen with STS-B's notes, and it could not be made smaller."""
    from explorer.ui.launch.preview import NOTES_MAX_SHARE, TABLE_ROWS_SHOWN, DataPreview
    from explorer.ui.shell.columns import rows_tall

    panel = DataPreview("train")
    qtbot.addWidget(panel)
    panel.resize(420, 600)
    panel.show()
    qtbot.waitExposed(panel)
    long = "<br>".join(f"note {i}: 197 rows have more fields than the 7 of the first row; lines 5553, 5554"
                       for i in range(80))
    panel.show_text(long)
    panel.problems.setText("<br>".join(f"line {i}: empty text" for i in range(40)))
    panel.problems.show()
    panel._fit_summary()
    qtbot.wait(20)
    assert panel.notes_height() > 1500                               # the text itself is long ...
    assert panel.minimumSizeHint().height() < 400                    # ... the panel's minimum is not
    assert panel.notes.height() <= max(NOTES_MAX_SHARE * panel.height(), panel.height() - panel.table_room()) + 3
    assert panel.table.height() >= rows_tall(panel.table, TABLE_ROWS_SHOWN)   # the table's rows under them
    assert panel.notes.verticalScrollBar().maximum() > 0              # scrolls to the rest
    assert panel.notes.widget().height() >= panel.notes_height() - 20
    panel.show_text("✓ 2,814 examples, 3 labels")                    # a short one takes only its lines
    panel.problems.hide()
    panel._fit_summary()
    qtbot.wait(20)
    assert panel.notes.maximumHeight() < 90


# the page's room at 1920x1080 in the same way (the window less its frame, bars and tabs, beside the Runs dock)
PAGE_AT_1920 = (1526, 960)


def _shown(qtbot, view, size) -> None:
    from PySide6.QtWidgets import QApplication

    view.resize(*size)
    view.show()
    qtbot.waitExposed(view)
    for _ in range(3):
        QApplication.instance().processEvents()


def _rows_in_view(table) -> int:
    """How many of ``table``'s rows lie whole inside its viewport, its header in view above them."""
    bottom = table.viewport().height()
    return sum(1 for r in range(table.rowCount())
               if 0 <= table.rowViewportPosition(r) and table.rowViewportPosition(r) + table.rowHeight(r) <= bottom + 1)


@pytest.mark.parametrize("size", [PAGE_AT_1280, PAGE_AT_1920], ids=["1280x800", "1920x1080"])
def test_the_tag_head_arithmetic_is_whole_beside_the_tag_map(qtbot, size, app_style):
    """The per-piece head arithmetic (logits_i = T_i Wᵀ + b, a column per term) shows its longest line whole: no
    sideways scrolling of a pane that cut its "model" column and the by-hand check."""
    from helpers import tag_pages, tiny_tagger

    view, _dev = tag_pages(qtbot)
    view.set_loaded(tiny_tagger())
    view.sentence.setText("ada was born in london")
    view.result = None
    view.run()
    qtbot.waitUntil(lambda: view.result is not None, timeout=30_000)
    _shown(qtbot, view, size)
    text = view.text
    longest = max(text.toPlainText().splitlines(), key=text.fontMetrics().horizontalAdvance)
    assert text.horizontalScrollBar().maximum() == 0, (
        f"{longest!r} needs {text.fontMetrics().horizontalAdvance(longest)} px, "
        f"the pane shows {text.viewport().width()}")
    assert text.isVisible() and text.viewport().height() >= 8 * text.fontMetrics().lineSpacing()


CONLL_TAGS = ["O", "B-LOC", "I-LOC", "B-MISC", "I-MISC", "B-ORG", "I-ORG", "B-PER", "I-PER"]


def drawn_labels(heat) -> list[str]:
    """The labels ``heat``'s bottom axis draws at its present size and view (a TokenHeatmap's)."""
    axis = heat.bottom_axis
    lo, hi = heat.plot.vb.viewRange()[0]
    values = [v for _spacing, level in axis.tickValues(lo, hi, axis.width()) for v in level]
    return [s for s in axis.tickStrings(values, 1, 1) if s]


@pytest.mark.parametrize("size", [PAGE_AT_1280, PAGE_AT_1920], ids=["1280x800", "1920x1080"])
def test_the_tag_map_names_every_tag_of_conll(qtbot, size, app_style):
    """The words x tags P(tag) map names each of the nine CoNLL-2003 tags under its column, whole: flat where they
    fit, upright where they do not (a flat axis named every second tag at 1280x800, no B-* column at all)."""
    from PySide6.QtGui import QFontMetricsF
    from helpers import tag_pages, tiny_loaded_model

    view, _dev = tag_pages(qtbot)
    loaded = tiny_loaded_model("token_classification", num_labels=len(CONLL_TAGS), seed=2)
    loaded.model.config.id2label = dict(enumerate(CONLL_TAGS))
    view.set_loaded(loaded)
    view.sentence.setText("TOP AFTER INNINGS in london ada was born")
    view.result = None
    view.run()
    qtbot.waitUntil(lambda: view.result is not None, timeout=30_000)
    _shown(qtbot, view, size)
    view.heat.grab()   # drawn once at this size: the axis stands its labels up as it paints
    axis = view.heat.bottom_axis
    assert drawn_labels(view.heat) == CONLL_TAGS
    fm = QFontMetricsF(axis.style.get("tickFont") or view.heat.font())
    if axis.upright:   # the axis is as tall as the longest tag
        assert axis.height() >= max(fm.horizontalAdvance(t) for t in CONLL_TAGS)
    else:
        cell = axis.width() / len(CONLL_TAGS)
        assert all(fm.horizontalAdvance(t) < cell for t in CONLL_TAGS)


def _dev_report(k: int, names: list[str] | None = None):
    """A classifier's dev report of ``k`` classes (named ``names``, else "class 0" …), with a dozen rows in each
    example list."""
    import numpy as np

    from explorer.core.classify.dev_report import ClassificationDevReport, DevRow

    names = list(names) if names is not None else [f"class {i}" for i in range(k)]
    rows = [DevRow(index=i, text_a=f"example text number {i}", text_b="", label=i % k, prediction=(i + 1) % k,
                   probabilities=[1.0 / k] * k, margin=0.1) for i in range(12)]
    per = {n: {"precision": 0.5, "recall": 0.5, "f1": 0.5, "support": 3} for n in names}
    return ClassificationDevReport(accuracy=0.5, f1=0.5, mcc=0.1, confusion=np.ones((k, k), dtype=int),
                                   boundary=rows, mistakes=rows, total=3 * k, label_names=names, per_class=per,
                                   macro_f1=0.5, weighted_f1=0.5)


def _dev_view(qtbot, report):
    """A Classify: dev set page showing ``report`` (not yet sized)."""
    from explorer.ui.inspectors.classify_dev_view import ClassifyDevView

    view = ClassifyDevView(lambda: None, lambda: "single")
    qtbot.addWidget(view)
    view.show_report(report, "single", model="m", data="dev.tsv")
    return view


@pytest.mark.parametrize("size", [PAGE_AT_1280, PAGE_AT_1920], ids=["1280x800", "1920x1080"])
@pytest.mark.parametrize("classes", [3, 8])
def test_classify_dev_tables_keep_four_rows_each(qtbot, size, classes, app_style):
    """Confusion matrix, per-class metrics and the two example lists each show at least four rows (all of a
    shorter table), whatever the number of classes: fixed heights for the upper two left the lists one row
    tall. A splitter shares the height between them."""
    view = _dev_view(qtbot, _dev_report(classes))
    _shown(qtbot, view, size)
    assert view.minimumSizeHint().height() <= PAGE_AT_1280[1]    # the page never makes the window taller
    short = {}
    for name, table in (("confusion", view.confusion), ("per class", view.per_class),
                        ("boundary", view.boundary), ("mistakes", view.mistakes)):
        want = min(4, table.rowCount())
        if _rows_in_view(table) < want:
            short[name] = (_rows_in_view(table), table.rowCount())
    assert not short, short


@pytest.mark.parametrize("size", [PAGE_AT_1280, PAGE_AT_1920], ids=["1280x800", "1920x1080"])
@pytest.mark.parametrize("classes", [5, 6])
def test_classify_dev_tables_show_every_class_of_a_small_model_whole(qtbot, size, classes, app_style):
    """A 5- or 6-class model's confusion matrix shows every gold row whole and the per-class table every class
    row (a 5-class model's averages too): the room of a sideways scroll bar the columns never needed and tall
    rows cut the last gold row in half at 1280x800. A table that scrolls shows whole rows, none cut."""
    view = _dev_view(qtbot, _dev_report(classes))
    _shown(qtbot, view, size)
    assert _rows_in_view(view.confusion) == classes
    whole = view.per_class.rowCount() if classes == 5 or size == PAGE_AT_1920 else classes
    assert _rows_in_view(view.per_class) >= whole
    for table in (view.confusion, view.per_class):
        rows = _rows_in_view(table)
        row_h = table.verticalHeader().defaultSectionSize()
        if rows < table.rowCount():
            assert table.viewport().height() - rows * row_h < row_h // 2, "a row cut in half at the bottom"
    assert min(_rows_in_view(view.boundary), _rows_in_view(view.mistakes)) >= 4


@pytest.mark.parametrize("size", [PAGE_AT_1280, PAGE_AT_1920], ids=["1280x800", "1920x1080"])
def test_classify_dev_per_class_table_of_many_classes_shows_a_dozen_rows_and_the_rest_stays_reachable(qtbot, size,
                                                                                                       app_style):
    """30 classes: the per-class table shows at least a dozen whole rows (it kept four at 1280x800 and at
    1920x1080, the confusion matrix taking the height); the confusion matrix keeps four gold rows or more and is
    in view at the top; the example lists stay reachable: in view without scrolling at 1920x1080, by scrolling
    the results at 1280x800."""
    from PySide6.QtWidgets import QLabel

    from explorer.ui.shell.layout_check import out_of_view

    per_class_rows = 12   # classify_dev_panels.PER_CLASS_ROWS
    view = _dev_view(qtbot, _dev_report(30))
    _shown(qtbot, view, size)
    assert view.minimumSizeHint().height() <= PAGE_AT_1280[1]    # the page never makes the window taller
    top = view.findChild(QLabel, "panelHeader")   # one line: the tables get the height
    assert top.height() <= top.fontMetrics().lineSpacing() + 8 and top.toolTip(), (top.height(), top.text())
    assert _rows_in_view(view.per_class) >= per_class_rows, _rows_in_view(view.per_class)
    assert _rows_in_view(view.confusion) >= 4 and not out_of_view(view.confusion, top=60)
    if size == PAGE_AT_1920:
        assert _rows_in_view(view.per_class) >= 16, _rows_in_view(view.per_class)
        assert not out_of_view(view.boundary) and not out_of_view(view.per_class)
    view.results_scroll.ensureWidgetVisible(view.boundary)
    for _ in range(3):
        _process_events()
    assert not out_of_view(view.boundary) and _rows_in_view(view.boundary) >= 4


def _process_events() -> None:
    from PySide6.QtWidgets import QApplication

    QApplication.instance().processEvents()


@pytest.mark.parametrize("size", [PAGE_AT_1280, PAGE_AT_1920], ids=["1280x800", "1920x1080"])
def test_classify_dev_row_titles_read_class_names_with_their_underscores(qtbot, size, app_style):
    """The confusion matrix's and the per-class table's row titles read a class name exactly as the data has it,
    underscores included: compact rows under the sheet's padding clipped the foot of the line ("gold Refund not
    showing up" beside the column title "pred Refund_not_showing_up")."""
    from PySide6.QtCore import Qt

    from explorer.ui.shell.layout_check import layout_offenders

    rep = _dev_report(12, [f"lost_or_stolen_{i}" if i % 2 else f"age_limit_{i}" for i in range(12)])
    view = _dev_view(qtbot, rep)
    _shown(qtbot, view, size)
    titles = [view.confusion.model().headerData(r, Qt.Orientation.Vertical) for r in range(3)]
    assert titles == [f"gold {n}" for n in rep.label_names[:3]]
    cut = [str(o) for o in layout_offenders(view) if o.kind == "header"]
    assert not cut, "\n".join(cut)


@pytest.mark.parametrize("size", [PAGE_AT_1280, PAGE_AT_1920], ids=["1280x800", "1920x1080"])
def test_classify_dev_macro_row_title_is_short_and_whole_with_the_details_in_its_tooltip(qtbot, size, app_style):
    """Where classes without dev rows are left out of the macro F1, the macro row reads "macro average (9 of 10)"
    whole (the long title was cut in its middle at 1280x800); its tooltip names the classes left out."""
    from PySide6.QtCore import Qt

    from explorer.ui.shell.layout_check import header_need

    rep = _dev_report(10)
    rep.per_class["class 9"] = {"precision": 0.0, "recall": 0.0, "f1": 0.0, "support": 0, "in_macro": False}
    view = _dev_view(qtbot, rep)
    _shown(qtbot, view, size)
    rows = view.per_class.verticalHeader()
    macro = 10
    title = view.per_class.model().headerData(macro, Qt.Orientation.Vertical)
    assert title == "macro average (9 of 10)"
    assert header_need(rows, macro, title) <= rows.width() + 1, (header_need(rows, macro, title), rows.width())
    tip = view.per_class.verticalHeaderItem(macro).toolTip()
    assert "9 of 10 classes" in tip and "class 9" in tip


def test_classify_dev_tables_cut_a_class_name_of_a_paragraph_and_keep_their_cells_in_view(qtbot, tmp_path, app_style):
    """A class named by a 1,800-character paragraph (a broken quote in the training CSV) is cut in the confusion
    matrix's and the per-class table's row and column titles, whole in their tooltips: the row titles' column
    stays narrow and the counts are in view (its width pushed every cell thousands of pixels to the right)."""
    from PySide6.QtWidgets import QAbstractScrollArea


    long_name = ("यह एक लंबा अनुच्छेद है जो एक टूटे हुए उद्धरण चिह्न से लेबल बन गया। " * 28).strip()
    rep = _dev_report(3, ["Arabic", "Danish", long_name])
    view = _dev_view(qtbot, rep)
    _shown(qtbot, view, PAGE_AT_1280)
    assert view.minimumSizeHint().width() <= PAGE_AT_1280[0]   # the page's width in a 1280x800 window
    for table in (view.confusion, view.per_class):
        assert table.verticalHeader().width() <= 400, table.verticalHeader().width()
        left = table.columnViewportPosition(0)
        assert 0 <= left and left + table.columnWidth(0) <= table.viewport().width(), (left, table.viewport().width())
        assert isinstance(table, QAbstractScrollArea) and table.sizeHint().width() <= 1280
    assert view.confusion.verticalHeaderItem(2).toolTip() == f"gold {long_name}"
    assert view.confusion.horizontalHeaderItem(2).toolTip() == f"pred {long_name}"
    assert len(view.confusion.verticalHeaderItem(2).text()) <= 40
    assert view.per_class.verticalHeaderItem(2).toolTip() == long_name
    assert all(view.confusion.columnWidth(c) <= 400 for c in range(3))
    view.grab().save(str(tmp_path / "classify_dev_long_class.png"))


EMOTIONS = ["I can't tell", "Negative emotion", "No emotion toward brand or product", "Positive emotion"]


def test_classify_dev_confusion_matrix_of_four_long_class_names_fits_the_page_width(qtbot, app_style):
    """Four classes with long names ("No emotion toward brand or product") at 1280x800: the confusion matrix fits
    the page's width with no sideways scroll (its last column "pred Positive" was cut off), each column naming its
    class cut to its share ("pred <class>" whole in the tooltip), its rows naming each class whole, as the
    per-class table's rows do (both read "No emoti…nd or product")."""
    from PySide6.QtCore import Qt


    rep = _dev_report(4, EMOTIONS)
    view = _dev_view(qtbot, rep)
    _shown(qtbot, view, PAGE_AT_1280)
    table = view.confusion
    last = table.columnCount() - 1
    assert table.columnViewportPosition(last) + table.columnWidth(last) <= table.viewport().width() + 1
    assert not table.horizontalScrollBar().isVisible()
    columns = [table.horizontalHeaderItem(c).text() for c in range(4)]
    assert columns[0] == "I can't tell" and columns[2].startswith("No emo") and "…" in columns[2], columns
    assert table.horizontalHeaderItem(2).toolTip() == "pred No emotion toward brand or product"
    rows = [table.model().headerData(r, Qt.Orientation.Vertical) for r in range(4)]
    assert rows[2] == "gold No emotion toward brand or product", rows
    per_class = [view.per_class.model().headerData(r, Qt.Orientation.Vertical) for r in range(4)]
    assert per_class == EMOTIONS


def test_classify_dev_confusion_matrix_of_short_class_names_names_its_columns(qtbot, app_style):
    """A few short class names fit side by side: the columns read "pred <class>", not numbers."""
    rep = _dev_report(2, ["negative", "positive"])
    view = _dev_view(qtbot, rep)
    assert [view.confusion.horizontalHeaderItem(c).text() for c in range(2)] == ["pred negative", "pred positive"]
    assert view.confusion.horizontalHeaderItem(0).toolTip() == ""
    emotions = _dev_report(4, EMOTIONS)
    view.show_report(emotions, "single", model="m", data="dev.tsv")
    view.show_report(rep, "single", model="m", data="dev.tsv")   # the cut report's tooltips do not stay
    assert [view.confusion.horizontalHeaderItem(c).toolTip() for c in range(2)] == ["", ""]


LIAR = ["half-true", "mostly-true", "barely-true", "pants-fire", "false", "true"]


@pytest.mark.parametrize("size", [PAGE_AT_1280, PAGE_AT_1920], ids=["1280x800", "1920x1080"])
def test_classify_dev_confusion_matrix_of_six_classes_names_every_column(qtbot, size, app_style):
    """Six classes whose titles do not fit side by side as "pred <class>" (LIAR's): every column still names its
    class, whole where its share of the width holds it, "pred <class>" in its tooltip; the header reads whole
    (the columns read "pred 1" … "pred 6"). Twelve long names give twelve distinct cut names."""
    from explorer.ui.inspectors.components.classify_dev import confusion_titles
    from explorer.ui.shell.layout_check import layout_offenders

    rep = _dev_report(6, LIAR)
    view = _dev_view(qtbot, rep)
    _shown(qtbot, view, size)
    table = view.confusion
    assert [table.horizontalHeaderItem(c).text() for c in range(6)] == LIAR
    assert [table.horizontalHeaderItem(c).toolTip() for c in range(6)] == [f"pred {n}" for n in LIAR]
    cut = [str(o) for o in layout_offenders(view) if o.kind == "header"]
    assert not cut, "\n".join(cut)
    many = [f"customer_complaint_about_{i}" for i in range(12)]
    columns = confusion_titles(many).columns
    assert len(set(columns)) == 12 and all("pred" not in c and not c.isdigit() for c in columns), columns


@pytest.mark.parametrize("size", [PAGE_AT_1280, PAGE_AT_1920], ids=["1280x800", "1920x1080"])
def test_classify_dev_example_lists_give_the_text_the_rest_of_the_width(qtbot, size, app_style):
    """Nearest the decision boundary / Most confident mistakes: the text column takes what the short columns
    leave, inside the list (no sideways scrolling to read it), elided at its end (a tweet read from its start, not
    "@united hi…nks David.") with the whole text as its tooltip; it started some 290 px into the list at 1280x800
    and showed a few characters."""
    from PySide6.QtCore import Qt


    text = "@someone the people of this country deserve better than what we saw this week #SemST, nobody forgets"
    rep = _dev_report(3)
    for row in rep.boundary:
        row.text_a = text
    view = _dev_view(qtbot, rep)
    _shown(qtbot, view, size)
    for table in (view.boundary, view.mistakes):
        last = table.columnCount() - 1
        start, width = table.columnViewportPosition(last), table.columnWidth(last)
        assert start + width <= table.viewport().width() + 1, (start, width, table.viewport().width())
        assert width >= table.viewport().width() * 0.35 and width >= 150, (width, table.viewport().width())
        assert table.verticalHeader().isHidden() and table.textElideMode() == Qt.TextElideMode.ElideRight
    assert view.boundary.item(0, 4).toolTip() == text


def test_tabs_wrapping_to_a_third_row_never_push_the_window_past_the_screen(qtbot, tmp_path, monkeypatch, app_style):
    """On a 1280x800 screen without a window manager (the window's frame is its geometry), Predictions tabs that
    wrap the tab buttons to a third row over a tall page never grow the window past the screen's bottom: the
    pages give way, the status bar stays on screen (it ran some 20 px off it)."""
    from PySide6.QtCore import QRect
    from PySide6.QtGui import QScreen
    from PySide6.QtWidgets import QApplication, QLabel, QWidget

    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    area = QRect(0, 0, 1280, 800)
    monkeypatch.setattr(QScreen, "availableGeometry", lambda self: QRect(area))
    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    w.setGeometry(0, 25, 1264, 760)
    one_row = w.tab_rows.buttons[0].sizeHint().height()
    tall = QWidget()
    tall.setMinimumHeight(700)   # a page taller than the room the rows of tabs leave it
    for i in range(4):
        w.tabs.addTab(QLabel("predictions"), f"Predictions: stance_test_{i}.predictions.csv")
    w.tabs.addTab(tall, "Predictions: tall.predictions.csv")
    w.tabs.setCurrentWidget(tall)
    qtbot.waitUntil(lambda: len(w.tab_rows.buttons) == w.tabs.count())
    for _ in range(5):
        QApplication.processEvents()
    assert w.tab_rows.height() >= 3 * one_row   # the buttons wrap to a third row
    qtbot.waitUntil(lambda: area.contains(w.frameGeometry()), timeout=3_000)
    bar = w.statusBar()
    assert bar.mapToGlobal(bar.rect().bottomLeft()).y() <= area.bottom()
    w.tabs.setCurrentIndex(0)   # the pages still switch and the window stays inside
    QApplication.processEvents()
    assert area.contains(w.frameGeometry())


def _plain_text(text: str) -> str:
    """A label's text as a person reads it (rich text rendered to plain text)."""
    from PySide6.QtGui import QTextDocument

    doc = QTextDocument()
    doc.setHtml(text)
    return doc.toPlainText()


@pytest.mark.parametrize("size", [PAGE_AT_1280, PAGE_AT_1920], ids=["1280x800", "1920x1080"])
def test_the_launchers_evaluation_line_is_short_and_leaves_the_form_its_room(qtbot, tmp_path, size, app_style):
    """With past runs' rates the Evaluation line under the form said the whole plan in six lines at 1280x800 (the
    rates' source, the sample, the run's time split up), which left the form's fields some 230 px: it reads one
    short sentence, the whole explanation in its tooltip and behind "more…"; the fields keep their room."""
    from helpers import write_file

    from explorer.core.runs import status as run_status
    from explorer.core.specs.train_config import TrainConfig
    from explorer.ui.launch.launcher import LauncherPanel
    from explorer.ui.runs.state import RunState

    rows = "".join(f"text number {i} of the file\t{i % 3}\n" for i in range(1500))
    train = write_file(tmp_path / "train.tsv", "sentence\tlabel\n" + rows)
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    cfg = TrainConfig(task="single", train=str(train), output_dir=str(tmp_path / "runs"), batch_size=32,
                      max_seq_length=64, dev_fraction=0.3)
    past = RunState(run_id="past-run-of-this-model-on-another-file", status=run_status.FINISHED,
                    config={"model": cfg.model, "task": "single", "max_seq_length": 64, "batch_size": 16})
    past.apply({"run_id": past.run_id, "event": "step", "time": 1.0, "step": 10, "loss": 1.0,
                "samples_per_second": 30.0})
    past.apply({"run_id": past.run_id, "event": "eval", "time": 2.0, "step": 10, "metrics": {},
                "rows_per_second": 100.0, "dev_rows": 400, "dev_total": 400})
    w.form.plan.past_runs = lambda: [past]
    w.set_config(cfg)
    _shown(qtbot, w, size)
    line = w.eval_plan
    qtbot.waitUntil(lambda: "Expected, at the rates" in line.toolTip() + line.text(), timeout=30_000)
    _shown(qtbot, w, size)
    shown = _plain_text(line.text())
    assert shown.startswith("Evaluation: every ") and "whole run about" in shown, shown
    assert line.toolTip().startswith("Expected, at the rates past run past-run-of-this-model-on-another-file")
    assert line.height() <= 2 * line.fontMetrics().lineSpacing() + 4, (line.height(), line.shown_text())
    scroll = w.form_view
    assert scroll.viewport().height() >= (400 if size == PAGE_AT_1280 else 700), scroll.viewport().height()
    _click_link(qtbot, line)   # a person's click on "more…": the whole explanation in place, in view
    _shown(qtbot, w, size)
    assert line.unfolded and _plain_text(line.text()) == f"{line.full} less"
    assert line.isVisible() and line.height() >= line.heightForWidth(line.width())   # all its lines, none cut
    assert line.visibleRegion().boundingRect().height() >= line.heightForWidth(line.width())
    assert line.mapTo(w, line.rect().bottomLeft()).y() <= w.height()   # inside the window, not below it
    _click_link(qtbot, line)   # "less" folds it again
    assert line.shown_text().startswith("Evaluation: every ")


def _click_link(qtbot, label) -> None:
    """Click ``label``'s one link with the mouse where it is drawn: the point the pointing-hand cursor shows over."""
    from PySide6.QtCore import QPoint, Qt

    step = max(2, label.fontMetrics().averageCharWidth() // 2)
    for y in range(1, label.height(), 3):
        for x in range(1, label.width(), step):
            qtbot.mouseMove(label, QPoint(x, y))
            if label.cursor().shape() == Qt.CursorShape.PointingHandCursor:
                qtbot.mouseClick(label, Qt.MouseButton.LeftButton, pos=QPoint(x + step, y))
                return
    raise AssertionError(f"no link drawn in {label.text()!r}")


def test_the_heads_off_field_shows_a_typical_selection_whole_at_1280x800(qtbot, tiny_qa, app_style, tmp_path):
    """On Spans & τ at 1280x800 the Heads off field shows "5.3, 6.1, 2.4" whole (it was 30 px: only "6.1" showed),
    and the page is no wider than the window leaves it."""
    from helpers import probe_in_small_windows

    from explorer.ui.inspectors.hub import InspectorHub
    from explorer.ui.inspectors.registry import SPANS

    hub = InspectorHub()
    page = dict(hub.tabs())[SPANS]
    qtbot.addWidget(page)
    hub.set_model(tiny_qa)
    _shown(qtbot, page, PAGE_AT_1280)
    probe_in_small_windows(qtbot, hub, "Where was Ada born?", "Ada was born in London in 1815.")
    field = hub.head_mask.field
    field.setText("5.3, 6.1, 2.4")
    qtbot.waitUntil(field.isVisible)
    frame = field.style().pixelMetric(field.style().PixelMetric.PM_DefaultFrameWidth)
    text_room = field.contentsRect().width() - 2 * frame
    assert text_room >= field.fontMetrics().horizontalAdvance(field.text())
    assert page.minimumSizeHint().width() <= PAGE_AT_1280[0]
    page.grab().save(str(tmp_path / "spans_1280.png"))


def test_a_dialog_that_grows_past_the_screen_moves_up_and_left_and_is_cut_to_the_screen(qtbot, monkeypatch):
    """screen_fit.keep_on_screen: a dialog whose size changes after it is shown keeps its frame inside the screen's
    available geometry: moved up and left when it grows past the bottom right corner, cut to the screen's size
    (its content scrolls) when asked for more than the screen; a dialog that fits is left where it is."""
    from PySide6.QtCore import QRect
    from PySide6.QtGui import QScreen
    from PySide6.QtWidgets import QDialog

    from explorer.ui.shell.screen_fit import keep_on_screen

    area = QRect(0, 0, 1280, 800)
    monkeypatch.setattr(QScreen, "availableGeometry", lambda self: QRect(area))
    dialog = QDialog()
    qtbot.addWidget(dialog)
    keep_on_screen(dialog)
    assert keep_on_screen(dialog) is keep_on_screen(dialog)   # one per window
    dialog.setGeometry(900, 300, 300, 200)
    dialog.show()
    qtbot.waitExposed(dialog)
    placed = dialog.frameGeometry()
    qtbot.wait(20)
    assert dialog.frameGeometry() == placed                      # it fits: left alone
    dialog.resize(600, 650)                                      # its results came
    qtbot.waitUntil(lambda: area.contains(dialog.frameGeometry()), timeout=5_000)
    assert dialog.size().width() == 600 and dialog.size().height() == 650   # moved, not shrunk
    dialog.resize(1500, 1200)
    qtbot.waitUntil(lambda: area.contains(dialog.frameGeometry()), timeout=5_000)
    assert dialog.frameGeometry().width() <= 1280 and dialog.frameGeometry().height() <= 800


def test_every_dialog_and_tool_window_keeps_itself_on_the_screen():
    """Each QDialog subclass of the app, and each tool window opened on its own, calls
    screen_fit.keep_on_screen in its constructor: its size changes after it is shown (results, checks, a longer
    message), and without it the window kept its first place and grew past the screen's bottom."""
    import ast

    root = Path(__file__).resolve().parent.parent / "explorer" / "ui"
    tool_windows = {"CalibrationView", "SquadCalibrationView", "CheckpointCompareView"}
    missing, seen = [], set()
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            bases = {getattr(b, "id", getattr(b, "attr", "")) for b in node.bases}
            if "QDialog" not in bases and node.name not in tool_windows:
                continue
            seen.add(node.name)
            init = next((f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
            calls = {getattr(c.func, "id", "") for c in ast.walk(init) if isinstance(c, ast.Call)} if init else set()
            if "keep_on_screen" not in calls:
                missing.append(f"{path.relative_to(root)}:{node.name}")
    assert tool_windows <= seen and "ClassifierCompareWindow" in seen
    assert not missing, missing


def test_the_check_finds_a_cut_short_cell_in_a_tree(qtbot):
    """A tree's column (the Runs list is one) is measured as a table's: a short text wider than its column is
    cut; its stretched column is not."""
    from PySide6.QtGui import QStandardItem, QStandardItemModel
    from PySide6.QtWidgets import QHeaderView, QTreeView

    from explorer.ui.shell.layout_check import layout_offenders

    model = QStandardItemModel(0, 2)
    group = QStandardItem("a group of runs")
    group.appendRow([QStandardItem("a run"), QStandardItem("≈50.80% acc (1 eval)")])
    model.appendRow([group, QStandardItem("85.0%")])
    tree = QTreeView()
    qtbot.addWidget(tree)
    tree.setModel(model)
    tree.header().setStretchLastSection(False)
    tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
    tree.resize(400, 200)
    tree.setColumnWidth(1, 60)
    tree.expandAll()
    tree.show()
    qtbot.waitExposed(tree)
    cut = [o for o in layout_offenders(tree) if o.kind == "cell"]
    assert len(cut) == 1 and "column 1" in cut[0].path
    tree.setColumnWidth(1, tree.fontMetrics().horizontalAdvance("≈50.80% acc (1 eval)") + 20)
    assert [o for o in layout_offenders(tree) if o.kind == "cell"] == []


@pytest.mark.parametrize("size", [PAGE_AT_1280, PAGE_AT_1920], ids=["1280x800", "1920x1080"])
def test_the_block_flow_caption_of_one_head_reads_whole(qtbot, size, tiny_qa, app_style):
    """With a head chosen in the head box the caption over the block flow table names it whole ("Head 4 only"),
    the way back to the layer's mean in its tooltip: the long caption ran past the pane's right edge at 1280x800."""
    from explorer.core.qa.probe import probe
    from explorer.ui.inspectors.attention_view import AttentionView
    from explorer.ui.shell.layout_check import layout_offenders, widget_path

    view = AttentionView()
    qtbot.addWidget(view)
    view.set_result(probe(tiny_qa, "where was ada born?", "ada was born in london.", attentions=True))
    view.head.setCurrentIndex(view.head.count() - 1)
    _shown(qtbot, view, size)
    label = view.flow.which
    assert label.text() == f"Head {view.head.count() - 1} only"
    assert "choose mean" in label.toolTip()
    assert label.isVisible() and label.fontMetrics().horizontalAdvance(label.text()) <= label.contentsRect().width()
    cut = [o for o in layout_offenders(view) if o.path == widget_path(label)]
    assert not cut, cut

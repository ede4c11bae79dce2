"""Every page of the main window usable at 1280x800 (a common laptop; also 1264x760, its client area inside a
window frame) and 1920x1080 (issue 25, finding 3).

The window is filled as a person sees it after using it (scripts/layout_shots.fill_pages: the launcher's
data preview, a probe in Attention and Spans & τ, a τ sweep, Classify and its dev set, Tag and its dev
set, a Compare report, a Predictions page; tiny random models), then at each size every tab is shown
with the Runs dock beside it and explorer.ui.shell.layout_check lists what is cut: the window larger than
the screen, widgets outside their parent, elided labels, buttons, header titles and short cells, plots and
legends outside their view. All offenders of all pages are reported at once.
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
    """The check itself can fail: an elided label, a narrow header section, a child outside its parent."""
    from PySide6.QtWidgets import QLabel, QTableWidget, QWidget

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
    top.show()
    qtbot.waitExposed(top)
    kinds = sorted({o.kind for o in layout_offenders(top)})
    assert kinds == ["elided", "header", "outside"]
    assert any("section 0" in o.path and "needs" in o.detail for o in layout_offenders(top))


def test_the_check_finds_a_plot_squeezed_flat_but_not_a_strip(qtbot):
    """A plot whose data area is a few pixels high is cut (the Attention page's block-flow curves at
    1280x800, issue 25); a plot given a maximum height on purpose (a strip) is not."""
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

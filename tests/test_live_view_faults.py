"""Small faults a fresh user found in the live views (issue 12, round 2): a readout that went stale
under a still pointer, the block-flow legend over the curves, a window wider than the screen, a
single tick on the span table's end-token axis."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF, Qt

from explorer.ui.runs.state import RunState


def _started(run_id="live", steps_total=100):
    return {"event": "started", "run_id": run_id, "time": 0.0, "steps_total": steps_total,
            "config": {"model": "m", "task": "squad"}}


def _step(i, loss):
    return {"event": "step", "run_id": "live", "time": float(i), "step": i, "epoch": i / 100, "loss": loss,
            "lr": 1e-4, "grad_norm": 1.0, "samples_per_second": 8.0, "elapsed": float(i)}


@pytest.fixture
def curves(qtbot):
    from helpers import shown_curves_panel

    return shown_curves_panel(qtbot, 1000, 700)


def _readout(panel) -> str:
    return panel.header.text().split("&nbsp;", 1)[-1]


def test_hover_readout_follows_live_data_under_a_still_pointer(curves):
    state = RunState.from_events("live", [_started()] + [_step(i, 5.0 - 0.01 * i) for i in range(1, 21)])
    state.status = "running"
    curves.smooth.setValue(0)
    curves.set_runs([state])
    curves.redraw_now()
    panel = curves.panels["loss"]
    vb = panel.plot.getViewBox()
    assert vb.viewRange()[0][1] >= 100                       # live: the axis spans the planned steps
    # the pointer rests over step ~90, right of the last point (step 20): the readout shows step 20
    pos = vb.mapViewToScene(QPointF(90.0, 4.9))
    curves._mouse_moved(panel, pos)
    assert "@20" in _readout(panel) and "4.8" in _readout(panel)
    for i in range(21, 41):                                  # the run goes on; the pointer does not move
        state.apply(_step(i, 1.25))
    curves.run_updated("live", {"loss", "lr", "grad_norm", "samples_per_second"})
    curves.redraw_now()
    for key in ("loss", "lr"):
        assert "@40" in _readout(curves.panels[key])        # every refreshed plot follows the new data
    assert "1.25" in _readout(panel)
    # the pointer leaves the plot: no readout stays behind
    panel.widget.left.emit()
    assert panel.header.text() == f"<b>{panel.title}</b>"
    state.apply(_step(41, 1.0))
    curves.run_updated("live", {"loss"})
    curves.redraw_now()
    assert panel.header.text() == f"<b>{panel.title}</b>"


@pytest.mark.parametrize("view_name", ["attention", "classify"])
def test_block_flow_legend_never_covers_the_curves(qtbot, view_name):
    import numpy as np

    if view_name == "attention":
        from explorer.ui.inspectors.attention_view import AttentionView as View
    else:
        from explorer.ui.inspectors.classify_view import ClassifyView as View
    view = View()
    qtbot.addWidget(view)
    view.resize(1100, 800)
    view.show()
    qtbot.waitExposed(view)
    plot = view.flow_plot.getPlotItem()
    for k, curve in enumerate(view._flow_curves):          # shares up to 1.0 in every layer, as in BERT
        curve.setData(np.arange(12), np.linspace(0.7, 1.0, 12) - 0.02 * k)
    view.flow_plot.show()
    view.flow_plot.resize(600, 300)
    qtbot.waitUntil(lambda: view.flow_plot.isVisible())
    qtbot.wait(50)
    legend = plot.legend
    assert legend is not None and len(legend.items) == len(view._flow_curves)
    assert [label.text for _, label in legend.items] == [c.name() for c in view._flow_curves]
    brush = legend.opts["brush"]
    assert brush.style() == Qt.BrushStyle.SolidPattern and brush.color().alpha() == 255   # opaque
    box, plot_area = legend.sceneBoundingRect(), plot.vb.sceneBoundingRect()
    assert box.height() > 10 and not box.intersects(plot_area)          # outside the data area
    assert box.top() >= plot.getAxis("bottom").sceneBoundingRect().top()
    assert box.bottom() <= view.flow_plot.height() + 1                    # and inside the widget


def _drawn_ticks(axis):
    """The tick labels pyqtgraph would draw on ``axis`` now, with their rectangles."""
    from PySide6.QtGui import QImage, QPainter

    img = QImage(10, 10, QImage.Format.Format_ARGB32)
    p = QPainter(img)
    try:
        specs = axis.generateDrawSpecs(p)
    finally:
        p.end()
    return [(rect, text) for rect, _flags, text in (specs[2] if specs else []) if text]


def _readable(drawn, labels):
    """Every drawn label is its token or a "…"-shortened start of one, and no two overlap."""
    texts = [t for _, t in drawn]
    assert all(t in labels or (t.endswith("…") and any(lab.startswith(t[:-1]) for lab in labels)) for t in texts)
    rects = sorted((r for r, _ in drawn), key=lambda r: r.left())
    assert all(a.right() <= b.left() for a, b in zip(rects, rects[1:]))


WORDS = "the quick brown fox jumped over lazy dogs ##ing university normandy photosynthesis a in of".split()


@pytest.mark.parametrize("width", [330, 700])
@pytest.mark.parametrize("n", [1, 3, 8, 20, 60, 384])
def test_end_token_axis_shows_readable_ticks_for_any_span_count(qtbot, width, n):
    import numpy as np

    from explorer.ui.inspectors.heatmap import TokenHeatmap
    from explorer.ui.inspectors.token_axis import ReadableTokenAxis

    hm = TokenHeatmap()
    axis = ReadableTokenAxis("bottom")
    hm.plot.setAxisItems({"bottom": axis})
    hm.bottom_axis = axis
    qtbot.addWidget(hm)
    hm.resize(width, 400)
    hm.show()
    qtbot.waitExposed(hm)
    labels = [WORDS[i % len(WORDS)] for i in range(n)]
    hm.set_matrix(np.random.default_rng(0).random((n, n)), labels, labels)
    qtbot.wait(10)
    drawn = _drawn_ticks(axis)
    assert len(drawn) >= min(n, 3), [t for _, t in drawn]
    _readable(drawn, labels)


def test_span_table_end_axis_in_the_spans_view(qtbot, tiny_qa):
    from explorer.core.qa.probe import probe
    from explorer.ui.inspectors.spans_view import SpansView
    from explorer.ui.inspectors.token_axis import ReadableTokenAxis

    view = SpansView()
    qtbot.addWidget(view)
    view.resize(1000, 700)
    view.show()
    qtbot.waitExposed(view)
    passage = "ada lovelace was born in london in 1815 and wrote notes on the analytical engine. " * 2
    view.set_result(probe(tiny_qa, "where was ada born?", passage))
    qtbot.wait(20)
    axis = view.table_map.bottom_axis
    assert isinstance(axis, ReadableTokenAxis) and view.table_map.plot.getAxis("bottom") is axis
    assert axis.labelString() and "end token j" in axis.labelString()
    drawn = _drawn_ticks(axis)
    assert len(drawn) >= 3, [t for _, t in drawn]
    _readable(drawn, axis.labels)


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
    """Reported: the window opened 1683 px wide on a 1600 x 900 screen."""
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


def test_tau_sweep_legend_sits_below_the_plot(qtbot, tmp_path):
    """The τ study's legend floated over τ 4-6, exactly where the best τ, its star and the NoAns / F1 crossing
    were (fresh-user trial): it sits under the axis now, every curve named, outside the data area."""
    from explorer.ui.inspectors.dev_view import DevTauView

    view = DevTauView(cache_dir=tmp_path / "cache")
    qtbot.addWidget(view)
    view.resize(1000, 700)
    view.show()
    qtbot.waitExposed(view)
    plot = view.plot.getPlotItem()
    qtbot.wait(50)
    legend = plot.legend
    names = [label.text for _, label in legend.items]
    assert "chosen τ (drag)" in names and "F1, exact sweep" in names
    box, plot_area = legend.sceneBoundingRect(), plot.vb.sceneBoundingRect()
    assert box.height() > 10 and not box.intersects(plot_area)
    assert box.top() >= plot.getAxis("bottom").sceneBoundingRect().top()


def test_a_long_data_preview_message_scrolls_and_never_grows_the_window(qtbot):
    """Fresh-user trial 1-B1: the preview's summary took the height its wrapped text needed as a minimum, so
    STS-B's notes grew the window to 1541x3315 on a 1280x800 screen, and it could not be made smaller. The
    notes now scroll in a box of at most NOTES_MAX_SHARE of the panel; the whole text is still there."""
    from explorer.ui.launch.preview import NOTES_MAX_SHARE, DataPreview

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
    assert panel.notes.height() <= NOTES_MAX_SHARE * panel.height() + 3
    assert panel.notes.verticalScrollBar().maximum() > 0              # scrolls to the rest
    assert panel.notes.widget().height() >= panel.notes_height() - 20
    panel.show_text("✓ 2,814 examples, 3 labels")                    # a short one takes only its lines
    panel.problems.hide()
    panel._fit_summary()
    qtbot.wait(20)
    assert panel.notes.maximumHeight() < 90

"""Plot readouts, legends and token axes in the live views: the hover readout follows live data under a still
pointer and leaves with it, the block-flow and τ-sweep legends sit outside the data area (never over the
curves; the Attention page's block flow has the table beside the curves as its key), and a token axis (the span table's end tokens) shows several readable ticks for any token count."""

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
    curves.crosshair.mouse_moved(panel, pos)
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
    if view_name == "attention":   # its key is the table beside the curves: each column's title in its curve's colour
        assert legend is None
        for c, curve in enumerate(view._flow_curves):
            assert view.flow_table.horizontalHeaderItem(c).foreground().color() == curve.opts["pen"].color()
        return
    assert legend is not None and len(legend.items) == len(view._flow_curves)
    assert [label.text for _, label in legend.items] == [c.name() for c in view._flow_curves]
    brush = legend.opts["brush"]
    assert brush.style() == Qt.BrushStyle.SolidPattern and brush.color().alpha() == 255   # opaque
    box, plot_area = legend.sceneBoundingRect(), plot.vb.sceneBoundingRect()
    assert box.height() > 10 and not box.adjusted(1, 1, -1, -1).intersects(plot_area)          # outside the data area
    below = box.top() >= plot.getAxis("bottom").sceneBoundingRect().top()
    beside = box.left() >= plot_area.right() - 1                            # right of the curves, at their height
    assert below or beside
    assert box.bottom() <= view.flow_plot.height() + 1                    # and inside the widget
    assert box.right() <= view.flow_plot.width() + 1


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


def test_tau_sweep_legend_sits_below_the_plot(qtbot, tmp_path):
    """The τ study's legend sits under the axis, every curve named, outside the data area: never over τ 4-6,
    where the best τ, its star and the NoAns / F1 crossing are."""
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
    assert box.height() > 10 and not box.adjusted(1, 1, -1, -1).intersects(plot_area)
    assert box.top() >= plot.getAxis("bottom").sceneBoundingRect().top()

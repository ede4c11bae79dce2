"""Work spread over event-loop turns so that no turn holds the GUI thread long: the Attention
view's second turn, the hub's steps after the paint, the τ study over three turns, the flow-over-training lines a
few per turn, tables told once, a progress bar painted with the turn. The event loop is driven by hand
(processEvents / waitUntil on a condition): nothing here depends on the machine's speed."""

import numpy as np
import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QObject
from PySide6.QtWidgets import QApplication, QTableWidget, QTableWidgetItem, QWidget

PASSAGE = "ada lovelace was born in london in 1815 and wrote the first program. " * 3


def _shown(qtbot, widget, width: int = 1200, height: int = 800):
    """``widget`` shown (and exposed) offscreen at width x height, closed with the test."""
    qtbot.addWidget(widget)
    widget.resize(width, height)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


# ----------------------------------------------------------------------------------- turns.py
class _Painted(QWidget):
    def __init__(self, log):
        super().__init__()
        self.log = log

    def paintEvent(self, _event):  # noqa: N802
        self.log.append("paint")


def test_after_paint_runs_after_the_paint_already_asked_for(qtbot):
    """QTimer.singleShot(0) ran before a pending paint; after_paint runs after it, turns=2 one turn later still,
    and not at all once its context is deleted."""
    from PySide6.QtCore import QTimer

    from explorer.ui.shell.turns import after_paint

    log: list = []
    w = _shown(qtbot, _Painted(log), 100, 100)
    QApplication.processEvents()
    log.clear()
    w.update()
    QTimer.singleShot(0, lambda: log.append("singleShot"))
    after_paint(w, lambda: log.append("after_paint"))
    after_paint(w, lambda: log.append("two turns"), turns=2)
    qtbot.waitUntil(lambda: "two turns" in log)
    assert log.index("singleShot") < log.index("paint") < log.index("after_paint") < log.index("two turns")
    gone = QObject()
    after_paint(gone, lambda: log.append("never"))
    gone.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)   # gone before the timer's turn
    for _ in range(5):
        QApplication.processEvents()
    assert "never" not in log


def test_paint_later_progress_bar_paints_in_the_turns_paint(qtbot):
    from explorer.ui.shell.turns import PaintLaterProgressBar

    paints: list = []

    class Bar(PaintLaterProgressBar):
        def paintEvent(self, event):  # noqa: N802
            paints.append(self.value())
            super().paintEvent(event)

    bar = Bar()
    qtbot.addWidget(bar)
    bar.setRange(0, 10)
    bar.show()
    qtbot.waitExposed(bar)
    QApplication.processEvents()
    paints.clear()
    bar.setValue(4)
    assert bar.value() == 4 and paints == []      # a plain QProgressBar has painted here already
    qtbot.waitUntil(lambda: bool(paints))
    assert paints[-1] == 4


def test_cells_told_once_fills_the_cells_and_tells_the_views_once(qtbot):
    from PySide6.QtWidgets import QHeaderView

    from explorer.ui.shell.columns import cells_told_once

    table = QTableWidget(3, 2)
    qtbot.addWidget(table)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    changes: list = []
    table.model().dataChanged.connect(lambda a, b: changes.append((a.row(), a.column(), b.row(), b.column())))
    with cells_told_once(table) as t:
        for r in range(3):
            for c in range(2):
                t.setItem(r, c, QTableWidgetItem("a much longer text" if (r, c) == (2, 1) else "x"))
    assert changes == [(0, 0, 2, 1)]
    assert table.item(2, 1).text() == "a much longer text" and not table.model().signalsBlocked()
    QApplication.processEvents()
    assert table.columnWidth(1) > table.columnWidth(0)     # the header measured the contents after all


# ----------------------------------------------------------------------------------- the Attention view
@pytest.fixture
def shown_view(qtbot, tiny_qa):
    from explorer.core.qa.probe import probe
    from explorer.ui.inspectors.attention_view import AttentionView

    view = _shown(qtbot, AttentionView())
    result = probe(tiny_qa, "where was ada born?", PASSAGE, attentions=True)
    view.set_result(result)
    qtbot.waitUntil(lambda: not view.redraw_pending())
    return view, result


def test_a_shown_views_change_draws_the_map_now_and_the_rest_in_the_next_turn(shown_view, qtbot):
    view, result = shown_view
    att = result.attention[0]
    view.head.setCurrentIndex(2)
    np.testing.assert_array_equal(view.heatmap.matrix, att.attentions[0, 1].astype(np.float32))
    assert view.redraw_pending()
    assert view.flow_table.item(0, 0).text() == f"{att.flow[0].mean(axis=0)[0, 1]:.3f}"   # still the head mean
    qtbot.waitUntil(lambda: not view.redraw_pending())
    assert view.flow_table.item(0, 0).text() == f"{att.flow[0, 1, 0, 1]:.3f}"
    np.testing.assert_array_equal(view.head_view.weights, view.current_matrix()[np.ix_(view.shown.left_idx,
                                                                                         view.shown.right_idx)])


def test_a_quick_series_of_changes_draws_the_rest_once_for_the_last(shown_view, qtbot, monkeypatch):
    view, result = shown_view
    calls: list = []
    real = view._redraw_head_view
    monkeypatch.setattr(view, "_redraw_head_view", lambda: (calls.append(view.layer.currentIndex()), real()))
    view.layer.setCurrentIndex(1)
    view.head.setCurrentIndex(3)
    view.layer.setCurrentIndex(0)
    qtbot.waitUntil(lambda: not view.redraw_pending())
    assert calls == [0]
    np.testing.assert_array_equal(view.head_view.weights, view.current_matrix()[np.ix_(view.shown.left_idx,
                                                                                         view.shown.right_idx)])


def test_what_reads_the_head_views_tokens_draws_the_rest_first(shown_view):
    """A hover or the selection between the two turns (merged word pieces: other rows) reads the new tokens."""
    view, _result = shown_view
    view.merge.setChecked(True)
    assert view.redraw_pending()
    view._on_heatmap_hover(1, 2)
    assert not view.redraw_pending()
    assert len(view.head_view.left_labels) == len(view.shown.left_idx)
    assert view.shown.left_idx.max() < len(view.shown.labels)
    view.head.setCurrentIndex(1)
    assert view.redraw_pending() and view.selected_tokens() == [] and not view.redraw_pending()
    view.head.setCurrentIndex(2)                           # a hover on the lines before the second turn
    view.head_view.set_hover("left", 1)
    assert not view.redraw_pending() and view.head_view.hover == ("left", 1)
    assert view.heatmap.row_marker.isVisible()
    view.head_view.set_hover("", -1)                       # and the mouse leaves: nothing stays highlighted
    assert not view.heatmap.row_marker.isVisible()


def test_a_new_result_or_window_is_drawn_from_its_own_weights(shown_view, qtbot, tiny_qa):
    """The cached layer means belong to one weights array: another probe (another model's weights, another
    passage) shows its own numbers, also with a redraw of the previous one still pending."""
    from explorer.core.qa.probe import probe

    view, _first = shown_view
    view.layer.setCurrentIndex(1)                          # the rest of this change is still pending
    other = probe(tiny_qa, "who wrote the program?", "the first program was written by ada. " * 2, attentions=True)
    view.set_result(other)
    qtbot.waitUntil(lambda: not view.redraw_pending())
    att = other.attention[0]
    np.testing.assert_array_equal(view.heatmap.matrix, att.attentions[1].mean(axis=0, dtype=np.float32))
    assert view.flow_table.item(1, 0).text() == f"{att.flow[1].mean(axis=0)[0, 1]:.3f}"
    assert view.head_view.left_labels == [t for t, b in zip(other.windows[0].tokens, other.windows[0].blocks)
                                          if b == "question"]


def test_a_first_result_lays_the_page_out_in_the_maps_turn(qtbot, tiny_qa):
    """The flow table's new rows and the plot's first title change the page's layout: they come with the map, so
    that the second turn does not move the map (drawn, then a turn later smaller: a jump on the first probe)."""
    from PySide6.QtCore import QCoreApplication, QEvent

    from explorer.core.qa.probe import probe
    from explorer.ui.inspectors.attention_view import AttentionView

    def lay_out():
        for _ in range(3):
            QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
            QApplication.processEvents()

    view = _shown(qtbot, AttentionView())
    view.set_result(probe(tiny_qa, "where was ada born?", PASSAGE, attentions=True))
    assert view.redraw_pending()
    view._rest.stop()                                      # hold the second turn back while the page lays out
    lay_out()
    first = view.heatmap.geometry()
    view._redraw_rest()
    lay_out()
    assert view.heatmap.geometry() == first and view.flow_table.rowCount() == 2


def test_a_hidden_view_draws_everything_at_once(qtbot, tiny_qa):
    from explorer.core.qa.probe import probe
    from explorer.ui.inspectors.attention_view import AttentionView

    view = AttentionView()
    qtbot.addWidget(view)
    result = probe(tiny_qa, "where was ada born?", PASSAGE, attentions=True)
    view.set_result(result)
    view.head.setCurrentIndex(1)
    assert not view.redraw_pending()
    assert view.flow_table.item(0, 0).text() == f"{result.attention[0].flow[0, 0, 0, 1]:.3f}"


# ----------------------------------------------------------------------------------- the τ study
def test_a_shown_study_comes_in_three_turns_and_study_ready_after_the_last(qtbot, tiny_qa, tmp_path):
    from explorer.core.qa.tau_study import run_study, study_figures
    from explorer.ui.inspectors.dev_view import DevTauView
    from helpers import write_tiny_squad

    study = run_study(tiny_qa, str(write_tiny_squad(tmp_path / "dev.json", v2=True)), 6, cache_dir=tmp_path)
    payload = (study, study_figures(study))
    view = _shown(qtbot, DevTauView())
    ready: list = []
    view.study_ready.connect(ready.append)
    view._on_finished(payload, model="m")
    assert view.curves["f1"].getData()[0] is not None and view.table.rowCount() == 0 and view.summary.text() == ""
    qtbot.waitUntil(lambda: view.summary.text() != "")
    assert not ready
    qtbot.waitUntil(lambda: bool(ready))
    assert ready == [study] and view.table.rowCount() == len(study)
    view._on_finished(payload, model="m")                  # shown again, then cleared before its turns came
    view.clear_results()
    for _ in range(6):
        QApplication.processEvents()
    assert view.table.rowCount() == 0 and view.summary.text() == "" and ready == [study]


# ----------------------------------------------------------------------------------- flow over training
def _flow_run(layers: int, evals: int = 2):
    """A RunState-like object whose eval events carry a watch flow for ``layers`` layers."""
    from types import SimpleNamespace

    pairs = ("question->passage", "passage->question")
    rows = [{"event": "eval", "step": 10 * k, "metrics": {"f1": 1.0},
             "watch": [{"question": "q?", "flow": {p: [0.1 * (layer + 1) + 0.01 * k for layer in range(layers)]
                                                   for p in pairs}}]} for k in range(evals)]
    return SimpleNamespace(run_id="r", evals=rows)


def test_a_shown_flow_view_makes_its_first_lines_a_few_per_turn(qtbot, monkeypatch):
    from explorer.ui.curves.flow_training import LINES_PER_TURN, FlowOverTraining

    view = _shown(qtbot, FlowOverTraining(), 1000, 400)
    made: list = []
    real = view._make_lines

    def counting(key, all_now=False):
        before = len(view._items)
        real(key, all_now)
        made.append(len(view._items) - before)
    monkeypatch.setattr(view, "_make_lines", counting)
    view.set_runs([_flow_run(layers=7)])
    assert len(view.plot.plotItem.listDataItems()) == 0 and view.lines_pending()   # after the view's paint
    qtbot.waitUntil(lambda: not view.lines_pending())
    assert made == [LINES_PER_TURN, LINES_PER_TURN, 7 - 2 * LINES_PER_TURN]        # one call per turn
    items = view.plot.plotItem.listDataItems()
    assert len(items) == 7 and len(view.plot.plotItem.legend.items) == 7
    for item, (layer, x, y) in zip(items, view.lines()):
        np.testing.assert_allclose(item.getData()[1], y)
    view.set_runs([_flow_run(layers=5, evals=3)])          # other layers: made again, finished on demand
    view.finish_lines()
    assert not view.lines_pending() and len(view.plot.plotItem.listDataItems()) == 5
    assert len(view.plot.plotItem.legend.items) == 5


def test_a_flow_view_in_a_hidden_window_makes_all_lines_at_once(qtbot):
    from explorer.ui.curves.flow_training import FlowOverTraining

    view = FlowOverTraining()
    qtbot.addWidget(view)
    view.set_runs([_flow_run(layers=7)])
    assert len(view.plot.plotItem.listDataItems()) == 7 and not view.lines_pending()

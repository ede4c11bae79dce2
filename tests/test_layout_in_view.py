"""What a student must see together, without scrolling, on the QA pages at 1280x800 (also 1264x760, its client
area inside a window frame) and 1920x1080.

Spans & τ after a probe of a long passage: the question, the Probe button, the answer (best_non_null_score with
its text), the τ inequality (the decision line), the top of the span score table and the top of the n-best span
table (its header and first rows). Attention after a probe by a 6-layer model: every
row of the block flow table, and the readout under the views with its hint whole. τ on dev set after a study:
every row of the τ table, each "what it is" whole (wrapped, never cut with "…"). explorer.ui.shell.layout_check's
out_of_view decides "in view": the widget's rect inside every ancestor's rect, scroll areas' viewports included.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

from layout_shots import LONG_PASSAGE, QUESTION, SIZES, resize, settle, show_page  # noqa: E402

SPAN_TABLE_TOP = 120   # px of the span score table that must show: its first rows and columns
USAGE_HINT = "Rows attend to columns; hover a token to see where its attention goes."
# what a long passage of a 12-layer model says under the attention map (explorer.core.attention.budget.budget_note)
NOTE = ("30 windows x 12 layers x 12 heads x 384² float16 would need 1.2 GiB (budget 256 MiB); keeping only the "
        "shown window")
NBEST_ROWS = 3         # rows of the n-best table that must show under its header


def _inspector_window(qtbot, tmp_path, monkeypatch, model, passage):
    """The main window (the app's style, no worker, no first-visit load) with ``model`` probing ``passage``."""
    from helpers import shown_main_window

    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "cache"))
    w = shown_main_window(qtbot, tmp_path, inspector_opened=True)
    w.hub.set_model(model)
    w.hub.open_example(QUESTION, passage)
    return w


@pytest.fixture
def qa_window(qtbot, tmp_path, monkeypatch, tiny_qa):
    """The main window with a probe of a long passage and a τ study of a small SQuAD v2.0 file."""
    from helpers import write_tiny_squad

    w = _inspector_window(qtbot, tmp_path, monkeypatch, tiny_qa, LONG_PASSAGE)
    hub = w.hub
    qtbot.waitUntil(lambda: hub.result is not None and not hub.probes._outstanding, timeout=60_000)
    # the study's last turn (τ's line, the table, the sentence under it and the split's fit) done, not only begun
    with qtbot.waitSignal(hub.dev_view.study_ready, timeout=60_000):
        hub.dev_view.run(str(write_tiny_squad(tmp_path / "dev.json", v2=True, repeat=2)), 0)
    return w


def test_spans_page_shows_question_probe_answer_decision_and_span_table_together(qa_window):
    """Question, Probe, answer, τ inequality and the n-best table's top in view together at every size; the n-best
    table shows NBEST_MIN_ROWS rows, the span score map and the passage (with its windows list) are in view whole
    at their readable heights: beside the tables where they fit, one tab click away under the decision at 1280x800
    (stacked there, the map got a 50 px strip, the n-best table two rows, the passage lay below the fold)."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui.inspectors.spans_view import MAP_MIN_HEIGHT, MAP_TABBED_MIN_HEIGHT, NBEST_MIN_ROWS
    from explorer.ui.shell.layout_check import out_of_view

    w, app = qa_window, QApplication.instance()
    spans, panel = w.hub.spans_view, w.hub.panel
    report = []
    for size in SIZES:
        resize(w, size, app)
        show_page(w, "Spans && τ", app)
        tabs = spans.right_tabs
        if spans.panes.narrow:
            tabs.setCurrentWidget(spans.nbest)
            app.processEvents()
        for what, widget, top in (("question", panel.question, None), ("Probe", panel.probe_button, None),
                                  ("answer", spans.best_label, None), ("τ inequality", spans.decision_label, None),
                                  ("n-best table", spans.nbest, nbest_top(spans.nbest))):
            why = out_of_view(widget, top=top)
            if why:
                report.append(f"{size[0]}x{size[1]} {what}: {why}")
        if rows_in_view(spans.nbest) < NBEST_MIN_ROWS:
            report.append(f"{size[0]}x{size[1]} the n-best table shows {rows_in_view(spans.nbest)} rows")
        report += [f"{size[0]}x{size[1]} n-best column {c}" for c in columns_cut(spans.nbest)]
        for what, widget, page in (("span table", spans.table_map, spans.table_map),
                                   ("passage", spans.passage, spans.panes.passage_pane),
                                   ("windows list", spans.windows_list, spans.panes.passage_pane)):
            if spans.panes.narrow:   # one click on its tab (the page laid out for it, and scrolled to the map)
                tabs.setCurrentWidget(page)
                settle(app)
            elif what == "span table":
                tabs.setCurrentWidget(page)
                settle(app)
            # whole at 1280x800 and 1920x1080; in the 1264x760 client area of a framed window its top
            why = out_of_view(widget, top=SPAN_TABLE_TOP if size == (1264, 760) else None)
            if why:
                report.append(f"{size[0]}x{size[1]} {what}: {why}")
        if spans.table_map.height() < (MAP_TABBED_MIN_HEIGHT if spans.panes.narrow else MAP_MIN_HEIGHT):
            report.append(f"{size[0]}x{size[1]} the span score map is {spans.table_map.height()} px high")
        if size[0] < 1920 and not spans.panes.narrow:
            report.append(f"{size[0]}x{size[1]}: the panes are side by side")
    resize(w, WINDOW_AT_1920, app)   # the window a 1920x1080 screen reopens (not maximised)
    show_page(w, "Spans && τ", app)
    if spans.panes.narrow:
        spans.right_tabs.setCurrentWidget(spans.nbest)
        app.processEvents()
    report += [f"1500x940 n-best column {c}" for c in columns_cut(spans.nbest)]
    assert not report, "\n".join(report)


WINDOW_AT_1920 = (1500, 940)


def test_the_chosen_scores_tab_gives_the_span_score_map_a_readable_height(qa_window):
    """With the span score table's tab chosen, at 1280x800 and 1920x1080: its data area (the cells inside the axes,
    as explorer.ui.shell.layout_check measures a plot) is at least MAP_DATA_MIN_HEIGHT px high and the whole map is
    in view, with the question, the answer and the τ inequality. Back on the n-best tab the page is unscrolled."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui.inspectors.spans_view import MAP_DATA_MIN_HEIGHT
    from explorer.ui.shell.layout_check import out_of_view

    w, app = qa_window, QApplication.instance()
    spans, panel = w.hub.spans_view, w.hub.panel
    report = []
    for size in ((1280, 800), (1920, 1080)):
        resize(w, size, app)
        show_page(w, "Spans && τ", app)
        spans.right_tabs.setCurrentWidget(spans.table_map)
        settle(app)
        data = spans.table_map.plot.getViewBox().size().height()
        if data < MAP_DATA_MIN_HEIGHT:
            report.append(f"{size[0]}x{size[1]} the span score map's data area is {data:.0f} px high")
        for what, widget in (("span score map", spans.table_map), ("question", panel.question),
                             ("answer", spans.best_label), ("τ inequality", spans.decision_label)):
            why = out_of_view(widget)
            if why:
                report.append(f"{size[0]}x{size[1]} {what}: {why}")
        if spans.panes.narrow:
            spans.right_tabs.setCurrentWidget(spans.nbest)
            settle(app)
            why = out_of_view(spans.nbest, top=nbest_top(spans.nbest)) or out_of_view(spans.best_label)
            if why:
                report.append(f"{size[0]}x{size[1]} back on the n-best tab: {why}")
    assert not report, "\n".join(report)




def columns_cut(table) -> list[str]:
    """The headers of ``table``'s columns not whole inside its viewport (cut on the right, or behind a scroll)."""
    width = table.viewport().width()
    return [f"{table.horizontalHeaderItem(c).text()!r} at {table.columnViewportPosition(c)}+{table.columnWidth(c)} "
            f"of {width} px" for c in range(table.columnCount())
            if table.columnViewportPosition(c) < 0 or table.columnViewportPosition(c) + table.columnWidth(c) > width + 1]


def rows_in_view(table) -> int:
    """How many of ``table``'s rows lie whole inside its viewport."""
    bottom = table.viewport().height()
    return sum(1 for r in range(table.rowCount())
               if 0 <= table.rowViewportPosition(r) and table.rowViewportPosition(r) + table.rowHeight(r) <= bottom + 1)


def nbest_top(table) -> int:
    """The px of ``table`` that hold its header and its first NBEST_ROWS rows (as wrapped, their own heights)."""
    rows = sum(table.rowHeight(r) for r in range(min(NBEST_ROWS, table.rowCount())))
    return table.horizontalHeader().height() + rows + table.frameWidth()


@pytest.fixture
def six_layer_window(qtbot, tmp_path, monkeypatch):
    """The main window with a probe of a passage by a 6-layer tiny QA model (a block flow table of six rows)."""
    from helpers import tiny_loaded_model

    w = _inspector_window(qtbot, tmp_path, monkeypatch, tiny_loaded_model("qa", layers=6), LONG_PASSAGE[:900])
    hub = w.hub
    qtbot.waitUntil(lambda: hub.result is not None and not hub.probes._outstanding, timeout=60_000)
    return w


def _read_lower_page(view, widget, app) -> None:
    """As a person reads a lower tab's page whole: where it is taller than its tab, the handle over the tabs dragged
    to the top (the token views fold away) and the tab's page scrolled to ``widget``'s top."""
    from PySide6.QtCore import QPoint

    from explorer.ui.shell.scrolling import page_scroll_area

    area = page_scroll_area(widget)
    if area.verticalScrollBar().maximum() > 0:
        view.split.setSizes([0, sum(view.split.sizes())])
        settle(app)
    area.verticalScrollBar().setValue(widget.mapTo(area.widget(), QPoint(0, 0)).y())
    settle(app)


def test_attention_block_flow_table_shows_every_layer_and_the_hint_whole(six_layer_window, qtbot):
    """On the Attention page of a 6-layer model, at each size: the block flow table shows all six rows under its
    header once the page is scrolled to it (it kept three, a fixed 110 px minimum); the usage hint under the views ("Rows attend to columns; hover a token ...") is whole beside a memory-budget note in
    the readout: not elided, the wrapped lines of both inside their labels' heights."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication, QLabel

    from explorer.ui.shell.layout_check import out_of_view

    w, app = six_layer_window, QApplication.instance()
    view = w.hub.attention_view
    table, info = view.flow_table, view.info
    view.result.attention_note = NOTE
    report = []
    for size in SIZES:
        resize(w, size, app)
        show_page(w, "Attention", app)
        qtbot.waitUntil(lambda: table.rowCount() == 6, timeout=30_000)
        view._redraw()
        app.processEvents()
        _read_lower_page(view, table, app)
        rows = [r for r in range(6) if table.rowViewportPosition(r) >= 0
                and table.rowViewportPosition(r) + table.rowHeight(r) <= table.viewport().height() + 1]
        if len(rows) < 6:
            report.append(f"{size[0]}x{size[1]}: the block flow table shows {len(rows)} of 6 layers")
        why = out_of_view(table)
        if why:
            report.append(f"{size[0]}x{size[1]} block flow table: {why}")
        # the usage hint and the memory note (a long passage over the attention budget) both whole
        labels = [lab for lab in view.findChildren(QLabel) if lab.isVisible() and USAGE_HINT in lab.text()]
        if not labels:
            report.append(f"{size[0]}x{size[1]}: no label shows the usage hint whole; the readout shows "
                          f"{info.text_shown()!r}")
        if NOTE not in info.text_shown():
            report.append(f"{size[0]}x{size[1]}: the readout cuts the memory note: {info.text_shown()!r}")
        for label in labels + [info]:
            rect = label.contentsRect()
            need = label.fontMetrics().boundingRect(0, 0, rect.width(), 10_000, int(Qt.TextFlag.TextWordWrap),
                                                    label.text()).height()
            if need > rect.height():
                report.append(f"{size[0]}x{size[1]}: {label.text()[:30]!r}... needs {need} px, has {rect.height()}")
    assert not report, "\n".join(report)


LINES_MIN_HEIGHT = 180   # px the lines view gets at least, its tab chosen where it is a tab


def _bring_into_view(widget, page) -> None:
    """Choose, in every tab stack between ``widget`` and ``page``, the tab that holds ``widget``."""
    from PySide6.QtWidgets import QStackedWidget

    child, parent = widget, widget.parentWidget()
    while parent is not None and parent is not page:
        if isinstance(parent, QStackedWidget):
            parent.setCurrentWidget(child)
        child, parent = parent, parent.parentWidget()


def _scrolls_on_the_way(widget, page) -> list[str]:
    """The scroll areas between ``widget`` and ``page`` that would have to be scrolled (they have a range)."""
    from PySide6.QtWidgets import QAbstractScrollArea

    found, parent = [], widget.parentWidget()
    while parent is not None and parent is not page:
        if isinstance(parent, QAbstractScrollArea) and parent.verticalScrollBar().maximum() > 0:
            found.append(f"{type(parent).__name__} scrolls {parent.verticalScrollBar().maximum()} px")
        parent = parent.parentWidget()
    return found


def test_the_lines_view_the_lower_tabs_and_a_whole_hover_readout_without_scrolling(six_layer_window, qtbot):
    """On the Attention page at 1280x800 (also 1264x760) and 1920x1080, with nothing scrolled: the lines view is
    at least LINES_MIN_HEIGHT px high and in view (its tab chosen where it is one), the lower tabs' bar (Block
    flow, Model view, Head importance) is in view with no scroll area on the way to it, and a hover over the token
    map shows its whole sentence in the readout (at 1280x800 the lines view got 60 px, the lower tabs were
    reached only by scrolling the page, and the readout ended "… gives 0.044 of its attenti…")."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui.shell.layout_check import out_of_view

    w, app = six_layer_window, QApplication.instance()
    view = w.hub.attention_view
    bar = view.bottom.tabBar()
    report = []
    for size in SIZES:
        resize(w, size, app)
        show_page(w, "Attention", app)
        _bring_into_view(view.head_scroll, view)
        settle(app)
        where = f"{size[0]}x{size[1]}"
        if view.head_scroll.height() < LINES_MIN_HEIGHT:
            report.append(f"{where}: the lines view is {view.head_scroll.height()} px high")
        for what, widget in (("lines view", view.head_scroll), ("lower tab bar", bar)):
            why = out_of_view(widget)
            if why:
                report.append(f"{where} {what}: {why}")
            report += [f"{where} {what}: {s}" for s in _scrolls_on_the_way(widget, view)]
        _bring_into_view(view.heatmap, view)
        settle(app)
        view._on_heatmap_hover(1, len(view.current_labels()) - 2)
        sentence = view.info.full_text
        assert "Averaged over all layers and heads" in sentence
        if view.info.text_shown() != sentence:
            report.append(f"{where}: the readout shows {view.info.text_shown()!r} of {sentence!r}")
    assert not report, "\n".join(report)


LOWER_PANE_MIN = 200   # px the lower tabs (block flow, model view, head importance) get without a drag
PLOT_IN_VIEW = 120     # px of a plot's data area that must show, inside its tab, with nothing dragged or scrolled


def _in_view_height(item_widget, rect, ancestor) -> int:
    """How many px of ``rect`` (in ``item_widget``'s coordinates) lie inside ``ancestor``'s rect, up and down."""
    from PySide6.QtCore import QPoint

    top = item_widget.mapTo(ancestor, QPoint(0, int(rect.top()))).y()
    bottom = item_widget.mapTo(ancestor, QPoint(0, int(rect.bottom()))).y()
    return max(0, min(bottom, ancestor.height()) - max(top, 0))


def test_the_lower_tabs_show_the_block_flow_curves_without_dragging_the_handle(six_layer_window, qtbot):
    """On the Attention page at 1280x800, 1264x760 (its client area inside a window frame) and 1920x1080, as it
    opens (no handle dragged, nothing scrolled): the lower tabs get at least LOWER_PANE_MIN px and the block flow
    curves' data area shows at least PLOT_IN_VIEW px of its height in its tab, while the token map's data area stays
    readable too (at 1280x800 the lower tabs got about 90 px: a table row, the curves below the fold until the
    handle was dragged; at 1264x760 about 150 px while the hint and the Compare… and Export buttons had lines of
    their own)."""
    from PySide6.QtWidgets import QApplication

    w, app = six_layer_window, QApplication.instance()
    view = w.hub.attention_view
    report = []
    for size in SIZES:
        resize(w, size, app)
        show_page(w, "Attention", app)
        view.bottom.setCurrentWidget(view.flow)
        _bring_into_view(view.heatmap, view)
        settle(app)
        where = f"{size[0]}x{size[1]}"
        if view.bottom.height() < LOWER_PANE_MIN:
            report.append(f"{where}: the lower tabs are {view.bottom.height()} px high")
        box = view.flow_plot.getPlotItem().getViewBox()
        shown = _in_view_height(view.flow_plot, box.sceneBoundingRect(), view.bottom.currentWidget().viewport())
        if shown < PLOT_IN_VIEW:
            report.append(f"{where}: {shown} px of the block flow curves in view")
        heat = view.heatmap.plot.getViewBox().size().height()
        if heat < PLOT_IN_VIEW:
            report.append(f"{where}: the token map's data area is {heat:.0f} px high")
    assert not report, "\n".join(report)


def test_the_block_flow_key_is_in_view_without_scrolling(six_layer_window, qtbot):
    """On the Attention page at 1264x760 (a 1280x800 window's client area), as it opens: the block flow's key (the
    table's column titles, each in its curve's colour, beside the curves) lies inside its tab's visible area with
    nothing scrolled or dragged; a key under the axis was below the fold of the lower pane, the lines shown without
    their meaning."""
    from PySide6.QtCore import QPoint
    from PySide6.QtWidgets import QApplication

    w, app = six_layer_window, QApplication.instance()
    view = w.hub.attention_view
    resize(w, (1264, 760), app)
    show_page(w, "Attention", app)
    view.bottom.setCurrentWidget(view.flow)
    _bring_into_view(view.heatmap, view)
    settle(app)
    header, port = view.flow_table.horizontalHeader(), view.bottom.currentWidget().viewport()
    top = header.mapTo(port, QPoint(0, 0)).y()
    assert 0 <= top and top + header.height() <= port.height(), f"the key at {top} px of a {port.height()} px tab"
    for c, curve in enumerate(view.flow.curves):
        title = view.flow_table.horizontalHeaderItem(c)
        assert title.foreground().color() == curve.opts["pen"].color(), title.text()


def test_a_head_importance_scoring_shows_its_map_in_the_lower_tab_without_dragging(six_layer_window, qtbot, tmp_path):
    """Attention → Head importance after a scoring, at 1280x800 and 1920x1080, with no handle dragged: the
    importance map's data area shows at least PLOT_IN_VIEW px of its height in the tab (the tab's page scrolls to
    the plots when the scoring arrives; its fields are above them, a scroll away)."""
    from helpers import write_tiny_squad
    from PySide6.QtWidgets import QApplication

    w, app = six_layer_window, QApplication.instance()
    view = w.hub.attention_view
    panel = w.hub.head_importance
    panel.dev.setText(str(write_tiny_squad(tmp_path / "dev.json")))
    panel.cap.setValue(4)
    panel.steps.setValue(2)
    report = []
    for size in (SIZES[0], SIZES[-1]):
        resize(w, size, app)
        show_page(w, "Attention", app)
        view.bottom.setCurrentWidget(panel)
        settle(app)
        panel.report = None
        assert panel.run() is not None
        qtbot.waitUntil(lambda: panel.report is not None or "scoring" not in panel.caption.text(), timeout=60_000)
        assert panel.report is not None, panel.caption.text()
        settle(app)
        if getattr(panel, "plots", None) is not None and panel.plots.tabbed:
            panel.plots.tabs.setCurrentWidget(panel.heat)
            settle(app)
        box = panel.heat.plot.getViewBox()
        shown = _in_view_height(panel.heat, box.sceneBoundingRect(), view.bottom.currentWidget().viewport())
        if shown < PLOT_IN_VIEW:
            report.append(f"{size[0]}x{size[1]}: {shown} px of the importance map in view")
    assert not report, "\n".join(report)


def test_the_probe_button_says_enter_probes_too(qa_window):
    panel = qa_window.hub.panel
    assert "Enter" in panel.probe_button.toolTip()
    assert "Enter" in panel.question.placeholderText()


def test_tau_page_shows_every_row_of_the_tau_table_with_its_explanation_whole(qa_window):
    from PySide6.QtGui import QFontMetrics
    from PySide6.QtWidgets import QApplication

    from explorer.ui.shell.layout_check import out_of_view

    w, app = qa_window, QApplication.instance()
    dev = w.hub.dev_view
    table = dev.tau_table
    assert table.rowCount() >= 3
    report = []
    for size in SIZES:
        for _ in range(2):   # the τ page fits its split to the window once shown: judge the layout it settles on
            resize(w, size, app)
            show_page(w, "τ on dev set", app)
            dev.result_tabs.setCurrentIndex(0)
            settle(app)   # the τ values tab's nested layouts (the table, then the sentence under it) take several rounds
        # the chosen τ and the buttons beside it stay in view after a study (the curves' legend squeezed them out)
        for what, widget in (("chosen τ", dev.tau), ("Calibration…", dev.calibration_button),
                             ("Export", dev.export_button)):
            why = out_of_view(widget)
            if why:
                report.append(f"{size[0]}x{size[1]} {what}: {why}")
        legend = dev.plot.plotItem.legend   # under the axis, inside the plot: over no curve and no text
        if not dev.split.folded:
            box = legend.mapRectToScene(legend.boundingRect())
            axis = dev.plot.plotItem.getAxis("bottom")
            if box.top() < axis.mapRectToScene(axis.boundingRect()).bottom() - 1 or \
                    box.bottom() > dev.plot.viewport().height() + 1:
                report.append(f"{size[0]}x{size[1]} the legend at {box} is over the axis or past the plot")
        why = out_of_view(table)
        if why:
            report.append(f"{size[0]}x{size[1]} τ table: {why}")
        from PySide6.QtWidgets import QStyle

        margin = table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, table) + 1
        what = table.columnWidth(3) - 2 * margin     # the delegate's text rect
        fm = QFontMetrics(table.font())
        for r in range(table.rowCount()):
            text = table.item(r, 3).text()
            need = fm.boundingRect(0, 0, what, 10_000, 0x1000 | 0x0001, text).height()   # TextWordWrap | AlignLeft
            if need > table.rowHeight(r):
                report.append(f"{size[0]}x{size[1]} row {r} 'what it is' needs {need} px of height, has "
                              f"{table.rowHeight(r)}: {text!r}")
        rect = table.visualRect(table.model().index(table.rowCount() - 1, 0))
        if rect.bottom() > table.viewport().height():
            report.append(f"{size[0]}x{size[1]} the last τ row is below the table's viewport")
        # the sentence under the table, which figure to quote, whole in view with the rows (it was cut at the
        # bottom edge at 1280x800, the honest τ row and the sentence reached only with the wheel)
        summary = dev.summary
        why = out_of_view(summary)
        if why:
            report.append(f"{size[0]}x{size[1]} the sentence under the τ table: {why}")
        need = summary.heightForWidth(summary.width())
        if need > summary.height():
            report.append(f"{size[0]}x{size[1]} the sentence under the τ table needs {need} px, has {summary.height()}")
    assert not report, "\n".join(report)


def test_the_tau_curves_stay_in_view_after_a_run_at_each_size(qa_window, qtbot, tmp_path):
    """τ on dev set, the τ values' tab chosen, then Run: the F1/EM curves against τ are in view afterwards, above
    the τ values at 1920x1080 and, where both do not fit (1280x800: the τ values' wrapped rows and the sentence under
    them leave the curves less than their minimum), their own tab brought to the front (the τ values' tab stayed
    chosen and the new curves sat unseen behind a "Curves" tab)."""
    from helpers import write_tiny_squad
    from PySide6.QtWidgets import QApplication

    from explorer.ui.shell.layout_check import out_of_view

    w, app = qa_window, QApplication.instance()
    dev = w.hub.dev_view
    report = []
    for k, size in enumerate(((1280, 800), (1920, 1080))):
        resize(w, size, app)
        show_page(w, "τ on dev set", app)
        dev.result_tabs.setCurrentIndex(0)   # the τ values, as after reading them
        settle(app)
        path = write_tiny_squad(tmp_path / f"dev{k}.json", v2=True, repeat=2)
        with qtbot.waitSignal(dev.study_ready, timeout=60_000):
            dev.run(str(path), 0)
        settle(app)
        where = f"{size[0]}x{size[1]}"
        why = out_of_view(dev.plot) if dev.plot.isVisible() else "hidden behind another tab"
        if why:
            report.append(f"{where}: the curves after Run: {why}")
        elif dev.plot.plotItem.getViewBox().size().height() < PLOT_IN_VIEW:
            report.append(f"{where}: the curves are {dev.plot.plotItem.getViewBox().size().height():.0f} px high")
        if size == (1920, 1080) and (dev.split.folded or out_of_view(dev.tau_table)):
            report.append(f"{where}: the curves and the τ values are not both in view")
    assert not report, "\n".join(report)


def test_the_model_drop_down_lists_hub_ids_whole(qtbot):
    """The probe panel's model list is as wide as its longest hub id (Qt elided it in the middle,
    "deepset/...d-squad2"), without widening the box itself."""
    from explorer.core.specs.hub_checkpoints import QA_PRESETS
    from explorer.ui.inspectors.hub import InspectorHub

    hub = InspectorHub()
    combo = hub.panel.source
    qtbot.addWidget(hub.panel)
    fm = combo.view().fontMetrics()
    longest = max((p.hub_id for p in QA_PRESETS), key=fm.horizontalAdvance)
    assert combo.findText(longest) >= 0
    assert combo.view().minimumWidth() >= fm.horizontalAdvance(longest) + 16
    assert combo.width() < combo.view().minimumWidth()     # the box stays as it was; only its list is wider


def test_the_presets_drop_down_lists_each_preset_whole(qtbot, tmp_path):
    """The launcher's Presets list is as wide as its longest preset name ("bert-base-unca…ll/glue::sst2" was cut in
    the middle), the closed box as narrow as before."""
    from explorer.ui.launch.launcher import LauncherPanel

    panel = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(panel)
    combo = panel.presets
    fm = combo.view().fontMetrics()
    longest = max((combo.itemText(i) for i in range(combo.count())), key=fm.horizontalAdvance)
    assert combo.view().minimumWidth() >= fm.horizontalAdvance(longest) + 16
    assert combo.maximumWidth() <= 330


def test_every_tab_under_the_attention_views_shows_at_each_size(six_layer_window, qtbot):
    """The tab bar under the attention views (Block flow, Model view, Head importance, beside Compare… and Export)
    shows every tab whole, without scroll arrows, at 1280x800 and 1920x1080 (Head importance was behind the
    arrows at 1280x800)."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui.shell.layout_check import hidden_tabs

    w, app = six_layer_window, QApplication.instance()
    bar = w.hub.attention_view.bottom.tabBar()
    assert "Head importance" in [bar.tabText(i) for i in range(bar.count())]
    report = []
    for size in SIZES:
        resize(w, size, app)
        show_page(w, "Attention", app)
        hidden = hidden_tabs(bar)
        if os.environ.get("EXPLORER_SHOTS"):   # a look at the page, scrolled to the tabs: EXPLORER_SHOTS=<folder>
            w.grab().save(os.path.join(os.environ["EXPLORER_SHOTS"], f"attention_{size[0]}x{size[1]}.png"))
        if hidden:
            report.append(f"{size[0]}x{size[1]}: {', '.join(hidden)} not in view (bar {bar.width()} px wide, "
                          f"needs {sum(bar.tabRect(i).width() for i in range(bar.count()))} px)")
    assert not report, "\n".join(report)


def test_head_importance_map_and_pruning_curve_are_readable_at_each_size(six_layer_window, qtbot, tmp_path):
    """Attention → Head importance after a scoring: the importance map's data area is at least the readable plot
    size and names every head, and the pruning curve with its x axis is in view once the page is scrolled to it,
    at each size: beside each other where both fit, as two tabs of the whole width where not (side by side in the
    narrow pane at 1280x800 the map was 71 px wide for all of a layer's heads)."""
    from helpers import write_tiny_squad
    from PySide6.QtWidgets import QApplication

    from explorer.ui.shell.layout_check import layout_offenders, out_of_view

    w, app = six_layer_window, QApplication.instance()
    panel = w.hub.head_importance
    panel.dev.setText(str(write_tiny_squad(tmp_path / "dev.json")))
    panel.cap.setValue(4)
    panel.steps.setValue(2)
    assert panel.run() is not None
    qtbot.waitUntil(lambda: panel.report is not None or "scoring" not in panel.caption.text(), timeout=60_000)
    assert panel.report is not None, panel.caption.text()
    view = w.hub.attention_view
    heads = panel.heat.matrix.shape[1]
    report = []
    for size in SIZES:
        resize(w, size, app)
        show_page(w, "Attention", app)
        view.bottom.setCurrentWidget(panel)
        for plot in (panel.heat, panel.curve):
            plots = getattr(panel, "plots", None)   # (PanesOrTabs)
            if plots is not None and plots.tabbed:
                plots.tabs.setCurrentWidget(plot)
            settle(app)
            _read_lower_page(view, plot, app)
            why = out_of_view(plot)
            if why:
                report.append(f"{size[0]}x{size[1]}: {why}")
            cut = [o for o in layout_offenders(w) if "HeadImportancePanel" in o.path]
            report += [f"{size[0]}x{size[1]}: {o.path.split(' > ')[-1]} {o.detail}" for o in cut]
        named = [s for s in panel.heat.bottom_axis.tickStrings(
            [v for _s, level in panel.heat.bottom_axis.tickValues(*panel.heat.plot.vb.viewRange()[0],
                                                                  panel.heat.bottom_axis.width()) for v in level],
            1, 1) if s]
        if len(named) != heads:
            report.append(f"{size[0]}x{size[1]}: the map names {named} of {heads} heads")
    assert not report, "\n".join(report)


@pytest.fixture
def twelve_layer_window(qtbot, tmp_path, monkeypatch):
    """The main window with a probe by a tiny QA model of BERT-base's shape: 12 layers of 12 heads (a block flow
    table of twelve rows, a 12 x 12 head importance map)."""
    from helpers import tiny_loaded_model

    w = _inspector_window(qtbot, tmp_path, monkeypatch, tiny_loaded_model("qa", layers=12, heads=12),
                          LONG_PASSAGE[:900])
    hub = w.hub
    qtbot.waitUntil(lambda: hub.result is not None and not hub.probes._outstanding, timeout=120_000)
    return w


def _importance_report(layers: int, heads: int) -> dict:
    """A head_importance report (explorer.core.ablation.importance.importance_report's keys) of made-up numbers."""
    import numpy as np

    scores = np.random.default_rng(0).random((layers, heads)).tolist()
    total = layers * heads
    return {"importance": {"scores": scores, "metric": "f1", "examples": 4, "tokens": 400},
            "least_important_first": [[i // heads, i % heads] for i in range(total)],
            "prune_curve": [{"heads_kept": total - k * total // 4, "heads_total": total, "value": 50.0 - k}
                            for k in range(4)]}


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)], ids=["1280x800", "1920x1080"])
def test_a_twelve_layer_models_block_flow_table_keeps_its_header_over_its_rows(twelve_layer_window, size):
    """Attention → Block flow per layer of a 12-layer model: the table, once its tab's page is scrolled to it, is in
    view whole, header and rows together; its rows beyond the room scroll inside the table under the header, and the
    shown layer's row is among those in view (the table asked for all twelve rows, taller than its tab at 1280x800:
    scrolling the page to the last layers took the header out of view)."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui.shell.layout_check import out_of_view

    w, app = twelve_layer_window, QApplication.instance()
    view = block_flow_at(w, size, app)
    table = view.flow_table
    assert table.rowCount() == 12
    area = view.bottom.currentWidget()
    area.verticalScrollBar().setValue(area.verticalScrollBar().maximum())   # the page scrolled as far as it goes
    settle(app)
    assert not out_of_view(table), out_of_view(table)
    assert not out_of_view(table.horizontalHeader())
    view.layer.setCurrentIndex(11)   # the last layer: its row scrolled into view under the header
    settle(app)
    row_top = table.rowViewportPosition(11)
    assert 0 <= row_top and row_top + table.rowHeight(11) <= table.viewport().height() + 1


def block_flow_at(w, size, app):
    """The attention view of window ``w`` sized ``size``, its Block flow per layer tab shown and laid out."""
    view = w.hub.attention_view
    resize(w, size, app)
    show_page(w, "Attention", app)
    view.bottom.setCurrentWidget(view.flow)
    settle(app)
    return view


@pytest.mark.parametrize("size", [(1280, 800), (1264, 760), (1920, 1080)], ids=["1280x800", "1264x760", "1920x1080"])
def test_a_twelve_layer_models_block_flow_shows_four_rows_and_its_curves_as_it_opens(twelve_layer_window, size):
    """Attention → Block flow per layer of a 12-layer model, as it opens (nothing scrolled or dragged): at least four
    of the table's rows are in view whole, beside the curves (at 1280x800 the curves stood over the table and only
    its header row was in view), and the curves' data area shows PLOT_IN_VIEW px or more."""
    from PySide6.QtCore import QPoint
    from PySide6.QtWidgets import QApplication

    w, app = twelve_layer_window, QApplication.instance()
    view = block_flow_at(w, size, app)
    table = view.flow_table
    area = view.bottom.currentWidget().viewport()
    shown = []
    for r in range(table.rowCount()):
        top = table.rowViewportPosition(r)
        bottom = top + table.rowHeight(r)
        in_table = top >= 0 and bottom <= table.viewport().height()
        page_top = table.viewport().mapTo(area, QPoint(0, top)).y()
        page_bottom = table.viewport().mapTo(area, QPoint(0, bottom)).y()
        if in_table and page_top >= 0 and page_bottom <= area.height():
            shown.append(r)
    assert len(shown) >= 4, f"{len(shown)} rows of the block flow table in view"
    box = view.flow_plot.getPlotItem().getViewBox()
    assert _in_view_height(view.flow_plot, box.sceneBoundingRect(), area) >= PLOT_IN_VIEW


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)], ids=["1280x800", "1920x1080"])
def test_a_twelve_by_twelve_head_importance_map_is_whole_without_scrolling(twelve_layer_window, size):
    """Attention → Head importance of a 12 x 12 model after a scoring: the whole map, with a readable data area, is
    in view in the lower tab with nothing scrolled or dragged (the fields and caption over it made the tab's page
    scroll at 1280x800: the map's lower layers were a scroll away)."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui.shell.layout_check import out_of_view

    w, app = twelve_layer_window, QApplication.instance()
    view, panel = w.hub.attention_view, w.hub.head_importance
    resize(w, size, app)
    show_page(w, "Attention", app)
    view.bottom.setCurrentWidget(panel)
    settle(app)
    panel.show_report(_importance_report(12, 12))
    settle(app)
    if panel.plots.tabbed:
        assert panel.plots.tabs.currentWidget() is panel.heat   # the scoring shows its map's tab
    area = view.bottom.currentWidget()
    assert area.verticalScrollBar().maximum() == 0, f"the tab's page scrolls {area.verticalScrollBar().maximum()} px"
    assert not out_of_view(panel.heat), out_of_view(panel.heat)
    assert panel.heat.plot.getViewBox().size().height() >= PLOT_IN_VIEW


def test_the_scores_tab_shows_the_whole_span_map_without_scrolling_the_page(twelve_layer_window):
    """Spans & τ at 1280x800, its Scores tab chosen under the decision: the whole span score map is in view and
    the page does not scroll (the map grew the page when its tab was chosen, seen whole only with the decision's
    top lines scrolled away)."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui.shell.layout_check import out_of_view

    w, app = twelve_layer_window, QApplication.instance()
    spans = w.hub.spans_view
    resize(w, (1280, 800), app)
    show_page(w, "Spans && τ", app)
    assert spans.panes.narrow
    spans.right_tabs.setCurrentWidget(spans.table_map)
    settle(app)
    bar = spans.body_scroll.verticalScrollBar()
    assert bar.maximum() == 0 and bar.value() == 0, f"the page scrolls {bar.maximum()} px"
    for widget in (spans.table_map, spans.decision_label, spans.null_label):
        assert not out_of_view(widget), out_of_view(widget)

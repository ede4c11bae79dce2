"""Several tokens selected in the Attention page's head view (click, Ctrl+click, drag): where their summed
attention goes and what attends to them (explorer.core.attention.selection); the page's Export button (PNG,
SVG at the size shown, the interactive HTML page); and the wheel over a plot, which scrolls the page."""

from __future__ import annotations

import json
import os
import re

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QImage, QMouseEvent
from PySide6.QtWidgets import QApplication

from explorer.core.attention.selection import selection_attention, summed_incoming, summed_outgoing

SHOTS = os.environ.get("EXPLORER_SHOTS")   # a folder: the test also saves its screenshot there


def test_selection_sums():
    rng = np.random.default_rng(0)
    a = rng.random((6, 6)).astype(np.float32)
    a /= a.sum(1, keepdims=True)
    s = selection_attention(a, [4, 1, 1])
    assert s.selected == [1, 4]
    np.testing.assert_allclose(s.outgoing, (a[1] + a[4]) / 2, rtol=1e-6)
    np.testing.assert_allclose(s.incoming, a[:, 1] + a[:, 4], rtol=1e-6)
    assert abs(s.outgoing.sum() - 1) < 1e-5
    assert all(i not in (1, 4) for i, _ in s.top_incoming(3))
    assert s.top_outgoing(1)[0][0] == int(np.argmax(s.outgoing))
    np.testing.assert_allclose(summed_outgoing(a[:3, 2:], [0, 2]), (a[0, 2:] + a[2, 2:]) / 2, rtol=1e-6)
    np.testing.assert_allclose(summed_incoming(a[:3, 2:], [1]), a[:3, 3], rtol=1e-6)
    for bad in ([], [9]):
        with pytest.raises(ValueError):
            selection_attention(a, bad)


def _point(view, side: str, i: int) -> QPoint:
    from explorer.ui.inspectors.head_view import ROW_H

    hv = view.head_view
    x = hv.col_w // 2 if side == "left" else hv.width() - hv.col_w // 2
    return QPoint(int(x), ROW_H + i * ROW_H + ROW_H // 2)


def _drag_to(widget, pos: QPoint) -> None:
    """A mouse move with the left button held (QTest.mouseMove carries no buttons)."""
    ev = QMouseEvent(QMouseEvent.Type.MouseMove, QPointF(pos), QPointF(widget.mapToGlobal(pos)),
                     Qt.MouseButton.NoButton, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(widget, ev)


@pytest.fixture
def shown_view(qtbot, tiny_qa):
    from explorer.core.qa.probe import probe
    from explorer.ui.inspectors.attention_view import AttentionView

    view = AttentionView()
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show()
    qtbot.waitExposed(view)
    result = probe(tiny_qa, "where was ada born?", "ada was born in london in 1815 and lived in paris.",
                   attentions=True, keep_attentions="float32")
    view.set_result(result)
    return view


def test_ctrl_click_and_drag_select_tokens(qtbot, shown_view):
    view = shown_view
    hv = view.head_view
    assert view.direction.currentIndex() == 0    # question -> passage: the sides are subsets of the tokens
    left, right = view.shown.left_idx, view.shown.right_idx
    m = view.current_matrix()

    with qtbot.waitSignal(hv.selection_changed):
        qtbot.mouseClick(hv, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, _point(view, "left", 0))
    qtbot.mouseClick(hv, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ControlModifier, _point(view, "left", 2))
    assert hv.selection == ("left", [0, 2])
    assert view.selected_tokens() == [int(left[0]), int(left[2])]
    s = view.selection_summary()
    np.testing.assert_allclose(s.outgoing, (m[left[0]] + m[left[2]]) / 2, rtol=1e-6)
    np.testing.assert_allclose(s.incoming, m[:, left[0]] + m[:, left[2]], rtol=1e-6)
    side, bars = hv.selection_bars()    # bars behind the passage tokens: where the selection's attention goes
    assert side == "right"
    np.testing.assert_allclose(bars, m[np.ix_([left[0], left[2]], right)].mean(axis=0), rtol=1e-6)
    rows, cols, _ = hv._visible_edges()
    assert set(rows.tolist()) == {0, 2} and set(cols.tolist()) <= set(range(right.size))
    assert "2 selected" in view.info.text_shown() and view.shown.labels[left[0]] in view.info.text_shown()
    qtbot.mouseClick(hv, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ControlModifier, _point(view, "left", 0))
    assert hv.selection == ("left", [2])      # Ctrl+click again removes it

    # drag down the passage column: a range of to-tokens, and what attends to them
    qtbot.mousePress(hv, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, _point(view, "right", 1))
    _drag_to(hv, _point(view, "right", 4))
    qtbot.mouseRelease(hv, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, _point(view, "right", 4))
    assert hv.selection == ("right", [1, 2, 3, 4])
    side, bars = hv.selection_bars()
    assert side == "left"
    np.testing.assert_allclose(bars, m[np.ix_(left, right[1:5])].sum(axis=1), rtol=1e-6)
    if SHOTS:
        view.grab().save(os.path.join(SHOTS, "attention_selection.png"))
    view.layer.setCurrentIndex(1)             # another layer keeps the selection, with that layer's numbers
    assert hv.selection == ("right", [1, 2, 3, 4])
    np.testing.assert_allclose(view.selection_summary().incoming,
                               view.current_matrix()[:, right[1:5]].sum(axis=1), rtol=1e-6)
    hv.setFocus()
    qtbot.keyClick(hv, Qt.Key.Key_Escape)
    assert hv.selection == ("", []) and view.selection_summary() is None


def test_export_png_svg_and_html(qtbot, shown_view, tmp_path):
    from explorer.core.attention.html_export import decode_weights

    view = shown_view
    button = view.export
    assert button.isEnabled()
    view.layer.setCurrentIndex(1)
    view.head.setCurrentIndex(3)
    for kind in ("png", "svg"):
        button.ask_path = lambda *_a, k=kind: str(tmp_path / f"view.{k}")
        button.ask_image(kind)
        assert button.saved == str(tmp_path / f"view.{kind}")
    img = QImage(str(tmp_path / "view.png"))
    dpr = view._split.devicePixelRatioF()
    assert (img.width(), img.height()) == (round(view._split.width() * dpr), round(view._split.height() * dpr))
    svg = (tmp_path / "view.svg").read_text()
    assert "<svg" in svg and f'width="{view._split.width()}' in svg.replace("px", "")
    button.ask_path = lambda *_a: str(tmp_path / "view.html")
    with qtbot.waitSignal(button.exported, timeout=20000):   # written on a worker thread
        button.ask_html()
    assert button.saved == str(tmp_path / "view.html") and button.isEnabled()
    page = (tmp_path / "view.html").read_text(encoding="utf-8")
    data = json.loads(re.search(r'id="attention-data">(.*?)</script>', page, re.S).group(1))
    assert (data["layer"], data["head"]) == (2, 3)
    win = view.result.windows[view.window]
    assert data["tokens"] == list(win.tokens)
    w = decode_weights(data["weights"], (data["layers"], data["heads"], data["seq"], data["seq"]))
    np.testing.assert_allclose(w, view.result.attention[view.window].attentions, atol=1e-4)
    assert '<pre id="report">' in page and "score_diff = best_non_null_score - null_score" in page   # the probe's report


def test_attention_export_says_where_it_saved_in_the_status_bar(qtbot, tmp_path):
    """Attention → Export says in the window's status bar where it saved the page (never a silent write)."""
    from PySide6.QtWidgets import QLabel, QMainWindow

    from explorer.ui.inspectors.view_export import ExportButton

    win = QMainWindow()
    qtbot.addWidget(win)
    body = QLabel("attention")
    win.setCentralWidget(body)
    button = ExportButton(lambda: body, "attention view", parent=body)
    win.show()
    button.ask_path = lambda *_a: str(tmp_path / "view.png")
    button.ask_image("png")
    assert win.statusBar().currentMessage() == f"Saved the attention view to {tmp_path / 'view.png'}"
    button.html = lambda path: (lambda: (tmp_path / "view.html").write_text("<html></html>"))
    button.ask_path = lambda *_a: str(tmp_path / "view.html")
    with qtbot.waitSignal(button.exported, timeout=20000):
        button.ask_html()
        assert win.statusBar().currentMessage() == f"Writing the attention view to {tmp_path / 'view.html'} …"
    assert win.statusBar().currentMessage() == f"Saved the attention view to {tmp_path / 'view.html'}"


def _wheel(widget, ctrl: bool, delta: int = -240) -> None:
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    pos = QPointF(widget.width() / 2, widget.height() / 2)
    mods = Qt.KeyboardModifier.ControlModifier if ctrl else Qt.KeyboardModifier.NoModifier
    ev = QWheelEvent(pos, QPointF(widget.mapToGlobal(pos.toPoint())), QPoint(0, 0), QPoint(0, delta),
                     Qt.MouseButton.NoButton, mods, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, ev)


def test_the_wheel_over_a_plot_of_the_attention_page_scrolls_its_tab_and_ctrl_wheel_zooms(qtbot):
    """On the Attention page the wheel over a lower tab's plot scrolls that tab's page (lower than the block flow
    needs) and the wheel over the token map leaves its zoom; Ctrl+wheel zooms the plot."""
    from PySide6.QtWidgets import QGraphicsView

    from explorer.ui.inspectors.attention_view import AttentionView
    from explorer.ui.shell.scrolling import page_scroll_area

    view = AttentionView()
    qtbot.addWidget(view)
    view.resize(884, 420)   # lower than the block flow's table and plot need: its tab scrolls
    view.show()
    qtbot.waitExposed(view)
    bar = page_scroll_area(view.flow_plot).verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)
    bar.setValue(0)
    box = view.flow_plot.getPlotItem().getViewBox()
    before = [v for r in box.viewRange() for v in r]
    _wheel(view.flow_plot.viewport(), ctrl=False)
    assert bar.value() > 0                                          # the tab's page scrolled
    assert [v for r in box.viewRange() for v in r] == before        # the plot did not zoom
    map_box = view.heatmap.plot.getViewBox()
    map_before = [v for r in map_box.viewRange() for v in r]
    heat = view.heatmap
    graphics = heat if isinstance(heat, QGraphicsView) else heat.findChildren(QGraphicsView)[0]
    _wheel(graphics.viewport(), ctrl=False)
    assert [v for r in map_box.viewRange() for v in r] == map_before   # the token map did not zoom
    scrolled = bar.value()
    _wheel(view.flow_plot.viewport(), ctrl=True)
    assert bar.value() == scrolled                                  # Ctrl+wheel: the page stays
    assert [v for r in box.viewRange() for v in r] != before        # and the plot zoomed


def test_the_wheel_over_the_lines_view_scrolls_the_lines(qtbot, tiny_qa):
    """The question -> passage lines view scrolls under the wheel; the page around it does not scroll at all (the
    lower tabs are in view without it)."""
    from PySide6.QtWidgets import QScrollArea

    from explorer.core.qa.probe import probe
    from explorer.ui.inspectors.attention_view import AttentionView

    view = AttentionView()
    qtbot.addWidget(view)
    view.resize(500, 480)
    view.show()
    qtbot.waitExposed(view)
    assert not [a for a in view.findChildren(QScrollArea) if a.isAncestorOf(view.bottom)]
    if view.token_views.tabbed:   # a narrow page: the map and the lines view are tabs
        view.token_views.tabs.setCurrentWidget(view.token_views.head_box)
    lines = view.head_scroll.viewport()    # where the wheel over the lines arrives (the lines widget ignores it)
    inner = view.head_scroll.verticalScrollBar()
    passage = " ".join(f"in {1815 + i} ada lovelace wrote note {i} on the engine." for i in range(30))
    view.set_result(probe(tiny_qa, "where was ada born?", passage, attentions=True))
    qtbot.waitUntil(lambda: inner.maximum() > 0)
    inner.setValue(0)
    _wheel(lines, ctrl=False)
    assert inner.value() > 0
    _wheel(lines, ctrl=False, delta=240)     # upward: back
    assert inner.value() == 0


def _two_starts(qtbot, tmp_path, between):
    """Two Attention views that remember their layout in one settings file, as two starts of the app do;
    ``between(view)`` acts on the first before the second is made. Returns both."""
    from explorer.ui.inspectors.attention_view import AttentionView
    from explorer.ui.shell.settings import AppSettings

    settings = AppSettings(tmp_path / "s.ini")
    views = []
    for _ in range(2):
        view = AttentionView()
        qtbot.addWidget(view)
        view.resize(900, 1000)
        view.show()
        qtbot.waitExposed(view)
        view.remember_layout(settings)
        views.append(view)
        if len(views) == 1:
            between(view)
    return views


def test_the_handle_between_the_token_views_and_the_lower_tabs_is_remembered(qtbot, tmp_path):
    """Where the user leaves the handle between the token views and the lower tabs is kept in the settings and
    taken again by the next Attention view."""
    moved = []

    def drag(view):
        view.split.moveSplitter(sum(view.split.sizes()) - 420, 1)   # as a drag of the handle does
        moved.extend(view.split.sizes())
        assert abs(moved[1] - 420) <= view.split.handleWidth() + 1
    views = _two_starts(qtbot, tmp_path, drag)
    assert views[1].split.sizes() == moved


def test_a_start_never_opens_with_the_token_views_folded_away(qtbot, tmp_path):
    """The handle dragged to the top folds the token views away; the next Attention view (a new start) shows them
    again at the default sizes instead of a page where nothing says where the token map went."""
    def fold(view):
        view.split.moveSplitter(0, 1)   # the handle dragged to the top
        assert view.split.sizes()[0] == 0
    views = _two_starts(qtbot, tmp_path, fold)
    assert views[1].split.sizes()[0] >= views[1].split.widget(0).minimumSizeHint().height() > 0


def test_export_save_dialog_starts_in_the_runs_folder_then_in_the_last_export_folder(qtbot, tmp_path, monkeypatch):
    """Attention → Export → Interactive HTML page…: the Save dialog opens in the runs folder (not the app's working
    folder), and after a file is written in another folder, there; the folder is kept in the settings, so a new
    session starts there too."""
    from PySide6.QtWidgets import QLabel

    from explorer.ui.inspectors import view_export
    from explorer.ui.inspectors.view_export import ExportButton
    from explorer.ui.shell.settings import AppSettings, current_settings, set_current_settings

    runs, elsewhere, cwd = tmp_path / "runs", tmp_path / "my exports", tmp_path / "cwd"
    for folder in (runs, elsewhere, cwd):
        folder.mkdir()
    monkeypatch.chdir(cwd)
    settings = AppSettings(tmp_path / "s.ini")
    settings.set_runs_dir(str(runs))
    before = current_settings()
    set_current_settings(settings)
    asked = []

    def dialog(_parent, _caption, default, _filter):   # the dialog, never opened: where it would start
        asked.append(default)
        return str(elsewhere / "attention_view.html") if len(asked) == 1 else "", ""

    monkeypatch.setattr(view_export.QFileDialog, "getSaveFileName", dialog)
    try:
        body = QLabel("attention")
        qtbot.addWidget(body)
        button = ExportButton(lambda: body, "attention view", parent=body,
                              html=lambda path: (lambda: open(path, "w").write("<html></html>")))
        with qtbot.waitSignal(button.exported, timeout=20000):
            button.ask_html()
        assert asked[0] == str(runs / "attention_view.html")
        button.ask_html()   # cancelled in the dialog: nothing written
        assert asked[1] == str(elsewhere / "attention_view.html")
        assert AppSettings(tmp_path / "s.ini").last_dir(view_export.EXPORT_DIR_KIND) == str(elsewhere.resolve())
    finally:
        set_current_settings(before)

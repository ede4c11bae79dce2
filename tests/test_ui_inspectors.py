"""pytest-qt tests of the inspectors (offscreen, tiny random model)."""

import json
import math
import threading

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QThreadPool, Qt
from PySide6.QtWidgets import QApplication

from explorer.core.qa.scores import evaluate_decodings, tau_sweep
from explorer.core.qa.probe import probe

from test_ui_inspector_core import squad_v2_file

QUESTION = "where was ada born?"
PASSAGE = "ada lovelace was born in london in 1815. she wrote the first program."


@pytest.fixture
def hub(qtbot, tiny_qa, tmp_path, monkeypatch):
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "cache"))
    from explorer.ui.inspectors import InspectorHub

    h = InspectorHub()
    pages = [w for _, w in h.tabs()]
    for w in pages:
        qtbot.addWidget(w)
    h.set_model(tiny_qa)
    yield h


def probe_in_hub(qtbot, hub, question=QUESTION, passage=PASSAGE):
    with qtbot.waitSignal(hub.result_changed, timeout=20000) as blocker:
        hub.open_example(question, passage)
    return blocker.args[0]


def test_tabs_titles_and_head_note(hub):
    assert [t for t, _ in hub.tabs()] == ["Attention", "Spans && τ", "τ on dev set"]
    assert hub.panel.model_note.isVisibleTo(hub.panel)  # tiny model: untrained head -> the honest note
    assert "untrained head" in hub.panel.model_info.text()


def test_terms_have_glossary_tooltips(hub):
    from explorer.glossary import tooltip

    sv, av, panel = hub.spans_view, hub.attention_view, hub.panel
    assert sv.null_label.toolTip().endswith(tooltip("s_null"))
    assert sv.slider.toolTip() == tooltip("tau") == sv.spin.toolTip()
    assert sv.diff_label.toolTip() == tooltip("score_diff")
    assert panel.doc_stride.toolTip() == tooltip("doc_stride")
    assert panel.n_best_size.toolTip() == tooltip("n_best_size")
    assert av.flow_table.toolTip().endswith(tooltip("block flow"))
    assert av.mode.toolTip() == tooltip("rollout")
    assert hub.dev_view.summary.toolTip() == tooltip("honest_tau")


def test_probe_and_layer_head_selectors(qtbot, hub, tiny_qa):
    result = probe_in_hub(qtbot, hub)
    view = hub.attention_view
    att = result.attention[0]
    assert att.attentions.shape[:2] == (2, 4)
    # default: layer 1, mean over heads
    assert att.attentions.dtype == np.float16  # the hub keeps raw weights in half precision
    np.testing.assert_allclose(view.current_matrix(), att.attentions[0].astype(np.float32).mean(axis=0),
                               rtol=1e-6)
    assert view.current_labels() == result.windows[0].tokens
    view.layer.setCurrentIndex(1)
    view.head.setCurrentIndex(3)  # head 3
    np.testing.assert_allclose(view.current_matrix(), att.attentions[1, 2], rtol=1e-6)
    # the flow table shows layer rows of the chosen head: question -> passage of layer 2, head 3
    assert view.flow_table.item(1, 0).text() == f"{att.flow[1, 2, 0, 1]:.3f}"
    view.head.setCurrentIndex(0)
    assert view.flow_table.item(0, 2).text() == f"{att.flow[0].mean(axis=0)[0, 2]:.3f}"
    # head view: question tokens on the left, passage tokens on the right, top-k lines per token
    win = result.windows[0]
    assert view.head_view.left_labels == [t for t, b in zip(win.tokens, win.blocks) if b == "question"]
    assert view.head_view.edges[0].size == len(view.head_view.left_labels) * view.topk.value()
    # rollout mode disables the selectors and shows core's rollout
    view.mode.setCurrentIndex(1)
    np.testing.assert_allclose(view.current_matrix(), att.rollout, rtol=1e-6)
    assert not view.layer.isEnabled()
    view.mode.setCurrentIndex(0)
    # merge word pieces: "lovelace" becomes one column
    view.merge.setChecked(True)
    assert "lovelace" in view.current_labels()
    assert view.current_matrix().shape[0] == len(view.current_labels()) < len(win.tokens)
    # model view click selects that layer and head
    view.merge.setChecked(False)
    view._on_model_click(0, 1)
    assert view.layer.currentIndex() == 0 and view.head.currentIndex() == 2
    np.testing.assert_allclose(view.current_matrix(), att.attentions[0, 1], rtol=1e-6)


def test_tau_slider_flips_decision_at_score_diff(qtbot, hub):
    result = probe_in_hub(qtbot, hub)
    spans = hub.spans_view
    sd = result.score_diff
    assert math.isfinite(sd)
    spans.set_tau(sd)                      # answer iff score_diff > tau: equal -> no answer
    assert spans.decision_label.text().endswith("no -> no answer")
    spans.set_tau(float(np.nextafter(sd, -np.inf)))
    assert spans.decision_label.text().endswith("yes -> answer")
    # the slider (0.01 steps) flips between the two steps around score_diff
    below, above = math.floor(sd * 100), math.ceil(sd * 100)
    if below == above:   # score_diff is a multiple of 0.01: step below it
        below -= 1
    spans.slider.setValue(below)
    assert "yes -> answer" in spans.decision_label.text()
    assert spans.spin.value() == pytest.approx(below / 100)
    spans.slider.setValue(above)
    assert "no -> no answer" in spans.decision_label.text()
    # the inequality carries the real numbers: best_non_null_score > null_score + tau
    tau = above / 100
    assert f"{result.best_non_null_score:.2f} > {result.null_score + tau:.2f} ?" in spans.decision_label.text()
    # the null score's two parts are shown and add up (a negative second part in parentheses)
    from explorer.core.qa.probe_text import addition, score_digits

    d = score_digits(result.nbest, result.null_start_logit, result.null_end_logit)   # the n-best table's decimals
    assert addition(result.null_start_logit, result.null_end_logit, d) in spans.null_label.text()
    assert f"= {result.byhand_max_abs_diff:.2e}" in spans.byhand_label.text()


def test_the_probe_line_under_probe_follows_tau(qtbot, hub):
    """The line under Probe restates the decision at the τ on screen, never the answer at an older τ."""
    result = probe_in_hub(qtbot, hub)
    spans = hub.spans_view
    answer = result.decision(0.0).answer_text
    assert f"answer at τ=+0.00: \"{answer or 'no answer'}\"" in hub.panel.status.text()
    spans.set_tau(result.score_diff + 1.0)        # above score_diff: the decision above reads "no answer"
    assert spans.decision_label.text().endswith("no -> no answer")
    assert hub.panel.status.text().endswith(f"answer at τ={result.score_diff + 1.0:+.2f}: \"no answer\"")
    spans.slider.setValue(math.floor((result.score_diff - 1.0) * 100))   # the slider too
    assert "no answer" not in hub.panel.status.text() or not answer
    hub.panel.set_status("something else")        # another message is left alone by a τ move
    spans.set_tau(0.5)
    assert hub.panel.status.text() == "something else"


def test_click_span_cell_shows_that_span(qtbot, hub):
    result = probe_in_hub(qtbot, hub)
    spans = hub.spans_view
    spans.right_tabs.setCurrentWidget(spans.table_map)
    spans.show()
    qtbot.waitExposed(spans)
    win = result.windows[0]
    p0 = spans._p0
    assert win.offsets[p0] is not None and (p0 == 0 or win.offsets[p0 - 1] is None)
    i, j = p0 + 2, p0 + 4       # a valid span of three passage tokens
    hm = spans.table_map
    hm.plot.setXRange(0, 10, padding=0)
    hm.plot.setYRange(0, 10, padding=0)
    qtbot.wait(50)
    scene = hm.scene_pos_of(i - p0, j - p0)
    pos = hm.mapFromScene(scene)
    with qtbot.waitSignal(hm.clicked, timeout=60_000) as blocker:
        qtbot.mouseClick(hm.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(int(pos.x()), int(pos.y())))
    assert blocker.args == [i - p0, j - p0]
    text = result.passage[win.offsets[i][0]:win.offsets[j][1]]
    score = win.start_logits[i] + win.end_logits[j]
    assert f'"{text}"' in spans.span_label.text()
    assert f"= {score:.2f}" in spans.span_label.text()
    assert spans.selected == (0, i, j)
    assert np.isnan(spans._table[j - p0, i - p0])   # end before start: masked
    # an n-best row selects its span too
    spans._on_nbest_clicked(0, 0)
    best = result.nbest[0]
    assert spans.selected == (best.window_index, best.start_token, best.end_token)


def test_long_passage_windows_are_listed_and_synced(qtbot, hub):
    hub.panel.max_seq_length.setValue(48)
    hub.panel.doc_stride.setValue(16)
    hub.panel.debounce.stop()
    result = probe_in_hub(qtbot, hub, passage=" ".join([PASSAGE] * 6))
    assert len(result.windows) > 1
    # only the shown (best) window's raw weights travel with the probe; the others come when shown
    assert [k for k, a in enumerate(result.attention) if a.attentions is not None] == [result.best_window.index]
    assert hub.spans_view.windows_list.count() == len(result.windows)
    assert hub.attention_view.window_box.count() == len(result.windows)
    target = 1 if hub.spans_view.window != 1 else 0
    hub.spans_view.windows_list.setCurrentRow(target)
    qtbot.waitUntil(lambda: hub.attention_view.window == target, timeout=60_000)   # one event later
    assert hub.attention_view.current_labels() == result.windows[target].tokens
    qtbot.waitUntil(lambda: result.attention[target].attentions is not None, timeout=20000)
    assert result.attention[target].attentions.shape[2] == len(result.windows[target].tokens)


def test_new_probe_supersedes_stale_one(qtbot):
    from explorer.ui.inspectors.latest import LatestOnly

    pool = QThreadPool()
    pool.setMaxThreadCount(2)
    channel = LatestOnly.in_threads(pool)
    gate = threading.Event()
    got = []
    channel.finished.connect(lambda rid, res: got.append(res))

    started = threading.Event()

    def slow():
        started.set()
        gate.wait(60)
        return "stale"

    channel.submit(slow)
    assert started.wait(60)                                  # the slow job runs before the fresh one is sent
    with qtbot.waitSignal(channel.finished, timeout=60_000):
        channel.submit(lambda: "fresh")
    gate.set()
    assert pool.waitForDone(60_000)
    qtbot.waitUntil(lambda: channel.dropped == 1, timeout=60_000)   # the stale answer arrived and was dropped
    assert got == ["fresh"]
    assert channel.dropped == 1


def test_typing_reprobes_after_debounce(qtbot, hub):
    probe_in_hub(qtbot, hub)
    with qtbot.waitSignal(hub.result_changed, timeout=20000) as blocker:
        hub.panel.question.setText("who was born in london?")
    assert blocker.args[0].question == "who was born in london?"


def test_open_model_failure_and_success_with_fake_loader(qtbot, tiny_qa):
    from inspect_double import ThreadTransport

    from explorer.core.models.loading import ModelSourceError
    from explorer.ui.inspectors import InspectorHub
    from explorer.ui.inspectors.client import InspectClient

    def loader(source):
        if source == "bad/model":
            raise ModelSourceError("'bad/model' looks like a Hugging Face hub id, but the hub cannot be reached")
        return tiny_qa

    client = InspectClient(lambda: ThreadTransport(loader=loader))
    h = InspectorHub(client=client)
    for _, w in h.tabs():
        qtbot.addWidget(w)
    with qtbot.waitSignal(h.message, timeout=60_000) as blocker:
        h.open_model("bad/model")
    assert "cannot be reached" in blocker.args[0] and "Traceback" not in blocker.args[0]
    assert "cannot be reached" in h.panel.status.text()
    with qtbot.waitSignal(h.model_changed, timeout=60_000):
        h.open_model("tiny")
    assert h.loaded.source == tiny_qa.source and h.loaded.describe() == tiny_qa.describe()
    assert h.dev_view.loaded is h.loaded
    client.stop()


def test_dataset_picker_and_shared_panel(qtbot, hub, tmp_path):
    data = squad_v2_file(tmp_path / "dev.json")
    with qtbot.waitSignal(hub.datasets.finished, timeout=20000):
        hub.open_dataset(str(data))
    panel = hub.panel
    assert [panel.article_box.itemText(i) for i in range(panel.article_box.count())] == \
        ["Article_0", "Article_1", "Article_2"]
    panel.article_box.setCurrentIndex(2)
    assert panel.question_box.count() == 4
    with qtbot.waitSignal(hub.result_changed, timeout=20000) as blocker:
        panel._pick_question(1)
    assert blocker.args[0].question == "what did she write?"
    assert "1812" in blocker.args[0].passage
    assert "v2.0" in panel.dataset_label.text() and "12 questions" in panel.dataset_label.text()
    # the one probe panel moves to whichever probe tab is shown
    attention_page, spans_page = hub.page("Attention"), hub.page("Spans && τ")
    spans_page.show()
    assert panel.parent() is spans_page.split
    attention_page.show()
    assert panel.parent() is attention_page.split


def test_examples_file_fallback(tmp_path):
    from explorer.ui.inspectors.probe_panel import FALLBACK_EXAMPLES, load_examples

    ex, note = load_examples(tmp_path / "missing.json")
    assert ex == FALLBACK_EXAMPLES and "not found" in note
    bad = tmp_path / "bad.json"
    bad.write_text("[{\"title\": \"x\"}]")
    ex, note = load_examples(bad)
    assert ex == FALLBACK_EXAMPLES and "no entry" in note
    good = tmp_path / "good.json"
    good.write_text(json.dumps([{"title": "t", "question": "q?", "passage": "p."}]))
    assert load_examples(good) == ([{"title": "t", "question": "q?", "passage": "p."}], "")


def test_the_tau_page_finds_its_dev_file_again_after_a_restart(qtbot, hub, tmp_path):
    """The file of the last τ study is in the file field of the next session's τ page (its results are cached per
    model, file and cap; the field was empty, and the student had to find the path again)."""
    from explorer.ui.inspectors.dev_view import DevTauView
    from explorer.ui.shell.settings import AppSettings, set_current_settings

    settings = AppSettings(tmp_path / "s.ini")
    set_current_settings(settings)
    data = squad_v2_file(tmp_path / "dev.json")
    with qtbot.waitSignal(hub.dev_view.study_ready, timeout=60000):
        assert hub.dev_view.run(str(data), 0)
    settings.sync()
    set_current_settings(AppSettings(tmp_path / "s.ini"))   # the next start reads the settings file again
    again = DevTauView()
    qtbot.addWidget(again)
    assert again.path.text() == str(data)


def test_dev_sweep_best_tau_matches_core_and_opens_question(qtbot, hub, tiny_qa, tmp_path):
    data = squad_v2_file(tmp_path / "dev.json")
    dev = hub.dev_view
    with qtbot.waitSignal(dev.study_ready, timeout=60000) as blocker:
        assert dev.run(str(data), 0)
    study = blocker.args[0]
    assert len(study) == 12 and not study.from_cache
    gold = study.gold
    expected = tau_sweep(study.decodings, gold)
    assert dev.figures.grid.best_tau == expected.best_tau
    assert dev.tau.value() == pytest.approx(expected.best_tau)
    official = evaluate_decodings(study.decodings, gold, tau=0.0)
    assert dev.figures.official["best_tau"] == pytest.approx(official["best_tau"])
    table = {dev.tau_table.item(r, 0).text(): [dev.tau_table.item(r, c).text() for c in (1, 2)]
             for r in range(dev.tau_table.rowCount())}
    assert table["official best τ"] == [f"{official['best_tau']:+.3f}", f"{official['best_f1']:.2f}"]
    assert table["best τ on the grid"][0] == f"{expected.best_tau:+.2f}"
    assert table["chosen τ"][0] == f"{dev.tau.value():+.2f}"
    assert "honest τ (two halves)" in table
    honest_row = [r for r in range(dev.tau_table.rowCount()) if dev.tau_table.item(r, 0).text() == "honest τ (two halves)"]
    assert dev.tau_table.item(honest_row[0], 3).text().startswith("the F1 to quote")   # which number a student quotes
    assert "(the figure to quote)" in dev.summary.text()
    assert "honest" in dev.summary.text()
    abstains = dev.figures.grid.at(expected.best_tau)["answer_rate"] == 0      # the all-no-answer baseline
    assert ("answers no question" in dev.summary.text()) == abstains
    # decodings match a direct probe of the same question (same pipeline)
    k = 0
    direct = probe(tiny_qa, study.questions[k], study.context(k))
    assert study.decodings[study.ids[k]].score_diff == pytest.approx(direct.score_diff, abs=1e-4)
    # the table is sorted by |score_diff - tau|
    col = [float(dev.table.item(r, 1).text()) for r in range(dev.table.rowCount())]
    assert col == sorted(col) and len(col) == 12
    # clicking a row opens it in the Spans view with the chosen tau
    question, passage = dev.row_question(0)
    with qtbot.waitSignal(hub.result_changed, timeout=20000) as res:
        dev.table.cellClicked.emit(0, 0)
    assert res.args[0].question == question and res.args[0].passage == passage
    assert hub.spans_view.tau == pytest.approx(dev.tau.value())
    # SQuAD calibration of the same study at the chosen τ (core/calibration.squad_calibration)
    from explorer.core.metrics.calibration import squad_calibration

    assert dev.calibration_button.isEnabled()
    view = dev.open_calibration()
    expected_cal = squad_calibration(study.decodings, dev.figures.scores, tau=dev.tau.value())
    shown = view.calibration
    assert (shown.best_span.ece, shown.best_span.brier, shown.answering.ece, shown.answering.brier) == pytest.approx(
        (expected_cal.best_span.ece, expected_cal.best_span.brier, expected_cal.answering.ece,
         expected_cal.answering.brier)) and shown.answering.n == 12
    assert f"ECE {expected_cal.answering.ece:.3f}" in view.plots[1].plotItem.titleLabel.text
    view.close()
    # export: official files at the chosen tau
    paths = dev.export(str(tmp_path / "out"))
    odds = json.loads(paths["null_odds"].read_text())
    assert odds[study.ids[0]] == pytest.approx(-study.decodings[study.ids[0]].score_diff)
    preds = json.loads(paths["predictions"].read_text())
    assert preds[study.ids[0]] == study.decodings[study.ids[0]].answer(dev.tau.value())
    # reopening is served from the cache
    with qtbot.waitSignal(dev.study_ready, timeout=20000) as again:
        dev.run(str(data), 0)
    assert again.args[0].from_cache
    assert "cache" in dev.status.text()


def test_dev_sweep_cancel(qtbot, hub, tmp_path):
    data = squad_v2_file(tmp_path / "dev.json", n_paragraphs=12)
    dev = hub.dev_view
    dev.job.cancel()  # no job yet: harmless
    assert dev.run(str(data), 0)
    dev.cancel()
    with qtbot.waitSignal(dev.job.cancelled, timeout=30000):
        pass
    assert dev.run_button.isEnabled() and "cancelled" in dev.status.text()
    assert not dev.run(str(tmp_path / "nope.json"), 0)
    assert "no such file" in dev.status.text()


def test_prewarm_shows_the_attention_page_once_unseen_and_loads_nothing(qtbot):
    """The idle prewarm gives the Attention page its first show (polish, layout, one render) while the window
    shows another tab, with the tab widget's signals blocked: the current tab, the window's updates and the
    inspector child (not started: nothing loads) are as before."""
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtWidgets import QLabel, QTabWidget

    from explorer.ui.inspectors import InspectorHub

    tabs = QTabWidget()
    qtbot.addWidget(tabs)
    tabs.addTab(QLabel("launcher"), "Launch")
    hub = InspectorHub(tabs)
    for title, widget in hub.tabs():
        tabs.addTab(widget, title)
    changes = []
    tabs.currentChanged.connect(changes.append)
    page = hub.tabs()[0][1]
    tabs.resize(900, 600)
    tabs.show()
    qtbot.waitExposed(tabs)
    shows = []

    class Shows(QObject):
        def eventFilter(self, obj, event):  # noqa: N802
            if event.type() == QEvent.Type.Show:
                shows.append(obj)
            return False

    spy = Shows()
    page.installEventFilter(spy)
    hub.prewarm()
    qtbot.waitUntil(lambda: tabs.window().updatesEnabled(), timeout=60_000)
    assert shows == [page]
    assert tabs.currentIndex() == 0 and not page.isVisible() and changes == []
    assert not hub.client.running


def test_the_spans_decision_wraps_to_a_narrow_pane(qtbot, hub):
    """At 1280x800 a long best span never pushes the τ box and the end of best_non_null_score out of sight behind
    a sideways scroll: the decision's lines are cut at a word, whole in their tooltips, each its fixed number of
    lines (best_non_null_score two, for its span's text; a line more would move the τ box from one probe to the
    next); the pane never scrolls sideways."""
    from PySide6.QtWidgets import QApplication

    sv = hub.spans_view
    sv.setParent(None)                     # a window of its own, as wide as the pane in a 1280 px window
    sv.resize(620, 700)
    sv.show()
    sv.best_label.setText('S.T_i + E.T_j = 1.98 + 2.40 = 4.38  "'
                          + "Cristofori, an instrument maker employed by the Medici family " * 3 + '"')
    for _ in range(3):
        QApplication.processEvents()
    viewport = sv.body_scroll.viewport()
    assert not sv.body_scroll.horizontalScrollBar().isVisible()
    assert sv.spin.mapTo(viewport, sv.spin.rect().topRight()).x() <= viewport.width()
    assert sv.best_label.height() < 3 * sv.null_label.height()      # the long span cut after two lines, not wrapped on
    assert sv.best_label.shown_text().startswith("S.T_i + E.T_j = 1.98 + 2.40 = 4.38")
    assert sv.best_label.shown_text().endswith("…") and sv.best_label.text() in sv.best_label.toolTip()


def test_the_probe_form_and_the_tau_box_stay_put_when_a_model_loads_and_a_result_appears(qtbot, tiny_qa, tmp_path,
                                                                                            monkeypatch):
    """The Spans & τ page at 1280x800: the model description grows from one line to four on a load, and the
    honest note appears; neither moves the Question box (a click aimed at it while a model loads lands there), nor
    does a probe's result; the τ box stays where it was after each result too (the lines above it keep their
    number of lines, a longer text cut, whole in its tooltip; short ones read whole). A description longer than its four lines is cut, whole in its
    tooltip."""
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "cache"))
    from explorer.ui.inspectors import InspectorHub
    from explorer.ui.shell.style import apply_style

    apply_style(QApplication.instance())   # the app's font: a line's bounding height is a pixel over its spacing
    hub = InspectorHub()
    for _, w in hub.tabs():
        qtbot.addWidget(w)
    page = dict(hub.tabs())["Spans && τ"]
    page.resize(1280, 800)
    page.show()
    qtbot.waitExposed(page)
    panel = hub.panel

    def where(widget):
        QApplication.processEvents()
        return widget.mapTo(page.window(), QPoint(0, 0))

    before, tau_before = where(panel.question), where(hub.spans_view.spin)
    hub.download_bar.setVisible(True)   # a hub model downloading: its bar at the panel's foot
    assert where(panel.question) == before
    hub.download_bar.setVisible(False)
    hub.set_model(tiny_qa)
    assert "untrained head" in panel.model_info.text() and panel.model_note.isVisibleTo(panel)
    assert where(panel.question) == before
    probe_in_hub(qtbot, hub)
    assert where(panel.question) == before
    assert where(hub.spans_view.spin) == tau_before
    probe_in_hub(qtbot, hub, "who wrote the first program?")   # another best span, another line length
    assert where(panel.question) == before and where(hub.spans_view.spin) == tau_before
    decision = hub.spans_view.decision
    for line in (decision.null_label, decision.best_label, decision.diff_label):   # short lines read whole
        assert line.shown_text() == line.text() and line.text().strip() not in ("", "–", "…"), line.shown_text()
    wide = 'S.T_i + E.T_j = 0.2140 + 0.1398 = 0.3538  "' + "a very long best span " * 12 + '"'
    decision.best_label.setText(wide)   # a line longer than the pane: cut, never a second row above τ
    assert where(hub.spans_view.spin) == tau_before
    assert decision.best_label.text() == wide and decision.best_label.toolTip().startswith(wide)
    long = " ".join(["a description far longer than four lines of the panel"] * 20)
    panel.model_info.setText(long)
    assert where(panel.question) == before
    assert panel.model_info.shown_text().endswith("…") and panel.model_info.toolTip() == long

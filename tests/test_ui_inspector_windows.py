"""Inspectors: the τ-on-dev-set tab before and after a file is chosen (its estimate from the rate measured here,
also after a restart), window settings and dev file from a run checkpoint, the three τ values as a table, the
views' labels, the n-best text that wraps, and the busy sign of a long probe."""

import json
import shutil

import pytest

from test_ui_inspector_core import squad_v2_file


@pytest.fixture
def dev_view(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "cache"))
    from explorer.ui.inspectors.dev_view import DevTauView

    w = DevTauView(cache_dir=tmp_path / "cache")
    w.resize(1000, 700)
    qtbot.addWidget(w)
    w.show()
    return w


def test_dev_tab_before_a_file_and_untrained_warning(dev_view, tiny_qa, tmp_path):
    assert not dev_view.job_bar.isVisibleTo(dev_view)          # no progress row (no "0 / 100 windows") before a run
    dev_view.set_model(tiny_qa)
    assert dev_view.head_note.isVisibleTo(dev_view) and "freshly initialised" in dev_view.head_note.text()
    assert dev_view.estimate.text() == ""
    dev_view.grab().save(str(tmp_path / "dev_empty.png"))


def test_dev_tab_estimate_and_cap(dev_view, tiny_qa, tmp_path, monkeypatch):
    import explorer.ui.inspectors.dev_view as dv

    import explorer.ui.shell.settings as shell_settings

    monkeypatch.setattr(dv, "_measured_qps", None)
    monkeypatch.setattr(shell_settings, "_current", None)   # no remembered rate from another test's window
    data = squad_v2_file(tmp_path / "dev.json")   # 12 questions
    dev_view.set_model(tiny_qa)
    dev_view.path.setText(str(data))
    assert "12 of 12 questions" in dev_view.estimate.text() and "guess" in dev_view.estimate.text()
    dev_view.cap.setValue(5)
    assert "5 of 12 questions" in dev_view.estimate.text()
    monkeypatch.setattr(dv, "_measured_qps", 0.01)   # slow machine: 4,000 s -> suggest a cap
    dev_view.cap.setValue(0)
    assert "measured here" in dev_view.estimate.text() and "first N questions" in dev_view.estimate.text()
    assert dv.estimate_text(4000, 0).startswith("≈ 111 h") is False   # minutes, not hours text
    assert "min" in dv.estimate_text(4000, 0)


def _checkpoint_of_run(tmp_path, model_dir, dev, **config):
    run = tmp_path / "runs" / "r1"
    ckpt = run / "checkpoints" / "best"
    shutil.copytree(model_dir, ckpt)
    (run / "config.json").write_text(json.dumps({"task": "squad_v2", "dev": str(dev), **config}), encoding="utf-8")
    return ckpt


def test_only_a_squad_v2_run_prefills_its_dev_file(tmp_path):
    """A v1.1 run's dev file has no unanswerable question: the τ study is not pre-filled with it."""
    from explorer.ui.inspectors.components.dev_tau import run_dev_file

    dev = tmp_path / "dev.json"
    dev.write_text("{}", encoding="utf-8")
    for task, expected in (("squad_v2", str(dev)), ("squad_v1", ""), ("single", "")):
        run = tmp_path / task
        ckpt = run / "checkpoints" / "best"
        ckpt.mkdir(parents=True)
        (run / "config.json").write_text(json.dumps({"task": task, "dev": str(dev)}), encoding="utf-8")
        assert run_dev_file(str(ckpt)) == expected, task


def test_a_relative_dev_file_of_a_run_launched_elsewhere_is_prefilled(tmp_path):
    """A run launched from the command line in another folder records ``--dev data/dev.json`` relative to that
    folder: the τ study finds it there (the run folder less its relative output_dir), not an empty field."""
    from explorer.ui.inspectors.components.dev_tau import run_dev_file

    dev = tmp_path / "project" / "data" / "dev.json"
    dev.parent.mkdir(parents=True)
    dev.write_text("{}", encoding="utf-8")
    run = tmp_path / "project" / "out" / "runs" / "r1"
    ckpt = run / "checkpoints" / "best"
    ckpt.mkdir(parents=True)
    (run / "config.json").write_text(json.dumps({"task": "squad_v2", "dev": "data/dev.json",
                                                 "output_dir": "out/runs"}), encoding="utf-8")
    assert run_dev_file(str(ckpt)) == str(dev)


def test_a_squad_v1_checkpoint_is_warned_that_tau_is_uncalibrated(dev_view, tiny_qa, tmp_path):
    """A checkpoint whose run (or known hub card) trained on SQuAD v1.1 never learnt a no-answer score: the page
    says τ is uncalibrated for it; a SQuAD 2.0 run's checkpoint and an unknown model get no such warning."""
    import dataclasses

    from explorer.ui.inspectors.components.dev_tau import no_answer_training_note

    for task in ("squad_v1", "squad_v2"):
        run = tmp_path / task
        (run / "checkpoints" / "best").mkdir(parents=True)
        (run / "config.json").write_text(json.dumps({"task": task}), encoding="utf-8")
    v1, v2 = (str(tmp_path / task / "checkpoints" / "best") for task in ("squad_v1", "squad_v2"))
    assert "uncalibrated" in no_answer_training_note(v1) and "SQuAD v1.1" in no_answer_training_note(v1)
    assert no_answer_training_note(v2) == "" and no_answer_training_note(str(tmp_path / "elsewhere")) == ""
    assert "uncalibrated" in no_answer_training_note("distilbert/distilbert-base-cased-distilled-squad")
    assert no_answer_training_note("deepset/roberta-base-squad2") == ""
    dev_view.set_model(dataclasses.replace(tiny_qa, path=v1, head_initialised=False))
    assert dev_view.head_note.isVisibleTo(dev_view) and "uncalibrated" in dev_view.head_note.text()
    assert '"Offline SQuAD 2.0" preset' in dev_view.head_note.text()   # the way out: a model that learnt to abstain
    dev_view.set_model(dataclasses.replace(tiny_qa, path=v2, head_initialised=False))
    assert not dev_view.head_note.isVisibleTo(dev_view)



def test_a_squad_v2_checkpoint_trained_on_no_unanswerable_question_is_warned_as_a_v1_one(dev_view, tiny_qa,
                                                                                          tmp_path):
    """A SQuAD v2.0 run whose training questions held no unanswerable one (its ``started`` event records 0) never
    learnt a no-answer score either: the page warns for its checkpoint as for a SQuAD v1.1 one; a v2.0 run that
    trained on some, or one that does not record the count, is not warned."""
    import dataclasses

    from explorer.ui.inspectors.components.dev_tau import no_answer_training_note

    for name, started in (("none", {"train_unanswerable": 0}), ("some", {"train_unanswerable": 44}),
                          ("unrecorded", {})):
        run = tmp_path / name
        (run / "checkpoints" / "best").mkdir(parents=True)
        (run / "config.json").write_text(json.dumps({"task": "squad_v2"}), encoding="utf-8")
        (run / "events.jsonl").write_text(json.dumps({"event": "started", "run_id": name, "time": 1.0,
                                                      "config": {"task": "squad_v2"},
                                                      **started}) + "\n", encoding="utf-8")
    none, some, unrecorded = (str(tmp_path / n / "checkpoints" / "best") for n in ("none", "some", "unrecorded"))
    assert no_answer_training_note(none) == (
        "Warning: this checkpoint was trained on no unanswerable question. Its no-answer score was never trained, "
        "so τ here is uncalibrated and its no-answer figures (HasAns / NoAns trade-off, the best τ) mean little; "
        "use a model trained with unanswerable questions (SQuAD v2.0) for them: the Launch tab's \"Offline SQuAD "
        "2.0\" preset trains one offline in minutes on the bundled SQuAD 2.0 sample "
        "(bert-explorer train --preset offline-squad2).")
    assert no_answer_training_note(some) == "" and no_answer_training_note(unrecorded) == ""
    dev_view.set_model(dataclasses.replace(tiny_qa, path=none, head_initialised=False))
    assert dev_view.head_note.isVisibleTo(dev_view) and "no unanswerable question" in dev_view.head_note.text()
    dev_view.set_model(dataclasses.replace(tiny_qa, path=some, head_initialised=False))
    assert not dev_view.head_note.isVisibleTo(dev_view)

def test_run_checkpoint_prefills_dev_file_and_window_settings(qtbot, tmp_path, monkeypatch):
    from explorer.ui.inspectors import InspectorHub
    from helpers import save_tiny_model

    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "cache"))
    data = squad_v2_file(tmp_path / "dev.json")
    model_dir = save_tiny_model(tmp_path / "m")
    ckpt = _checkpoint_of_run(tmp_path, model_dir, data, max_seq_length=64, doc_stride=16, max_query_length=20)
    hub = InspectorHub()
    for _, w in hub.tabs():
        qtbot.addWidget(w)
    with qtbot.waitSignal(hub.model_changed, timeout=30000):
        hub.open_model(str(ckpt))
    panel = hub.panel
    assert (panel.max_seq_length.value(), panel.doc_stride.value(), panel.max_query_length.value()) == (64, 16, 20)
    assert "config.json" in panel.trained_note.text()
    dev = hub.dev_view
    assert dev.path.text() == str(data) and "max_seq_length 64" in dev.estimate.text()
    with qtbot.waitSignal(dev.study_ready, timeout=60000) as blocker:
        assert dev.run(dev.path.text(), 0)
    assert blocker.args[0].settings["max_seq_length"] == 64 and blocker.args[0].settings["doc_stride"] == 16
    dev.resize(1200, 800)
    dev.show()
    qtbot.wait(50)
    dev.grab().save(str(tmp_path / "dev_study.png"))


# ---- heat maps, readouts, n-best ------------------------------------------------------------------
def test_heatmap_hover_label_leave_and_no_si_prefix(qtbot):
    import numpy as np
    from PySide6.QtCore import QEvent

    from explorer.ui.inspectors.heatmap import TokenHeatmap

    hm = TokenHeatmap()
    qtbot.addWidget(hm)
    hm.resize(300, 300)
    hm.show()
    labels = [f"tok{i}" for i in range(60)]      # 60 rows in 300 px: the axis shows only some labels
    hm.set_matrix(np.random.default_rng(0).random((60, 60)), labels, labels)
    hm.plot.setLabel("left", "start token i")
    with qtbot.waitSignal(hm.hovered) as sig:
        hm._on_mouse_moved(hm.scene_pos_of(37, 5))
    assert sig.args == [37, 5]
    hm.highlight_row(37)
    assert hm.row_marker.isVisible() and hm.hover_label.isVisible()
    assert hm.hover_label.textItem.toPlainText() == "tok37"     # the hovered row's own token
    assert abs(hm.hover_label.pos().y() - 37.5) < 1e-6
    ticks_before = hm.left_axis.tickValues(0, 60, 250)
    with qtbot.waitSignal(hm.hovered) as sig:
        QApplication_send_leave(hm)
    assert sig.args == [-1, -1]
    assert not hm.row_marker.isVisible() and not hm.hover_label.isVisible()
    assert hm.left_axis.tickValues(0, 60, 250) == ticks_before
    hm.clear_map()
    hm.plot.setYRange(0, 1e-3)
    assert "x0.001" not in hm.left_axis.labelString() and "0.001" not in hm.left_axis.labelString()
    assert hm.matrix.shape == (0, 0) and hm.left_axis.labels == []
    assert QEvent is not None


def QApplication_send_leave(widget):  # noqa: N802 - helper
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication

    QApplication.sendEvent(widget, QEvent(QEvent.Type.Leave))


def test_attention_readout_fixed_height(qtbot, tiny_qa):
    from explorer.ui.inspectors.common import ReadoutLabel

    label = ReadoutLabel("short", lines=2)
    qtbot.addWidget(label)
    label.resize(300, label.height())
    label.show()
    h = label.height()
    label.setText("a very long hover readout " * 40)
    assert label.height() == h and label.text_shown().endswith("…") and label.toolTip().startswith("a very long")
    assert label.full_text.count("readout") == 40


def test_a_readout_that_fits_its_lines_wrapped_is_shown_whole(qtbot):
    """A text that wraps into the readout's lines is shown whole, never cut by the estimate of what fits (it cut a
    hover sentence at "… gives 0.044 of its attenti…" with room left on its last line)."""
    from PySide6.QtCore import Qt

    from explorer.ui.inspectors.common import ReadoutLabel

    label = ReadoutLabel("short", lines=3)
    qtbot.addWidget(label)
    label.resize(400, label.height())
    label.show()
    words, text = ("gives 0.044 of its attention to the question " * 20).split(), ""
    room = label.contentsRect()
    for word in words:   # the longest run of words that still wraps into the three lines
        longer = f"{text} {word}".strip()
        if label.fontMetrics().boundingRect(0, 0, room.width(), 10_000, int(Qt.TextFlag.TextWordWrap),
                                            longer).height() > room.height():
            break
        text = longer
    label.setText(text)
    assert label.text_shown() == text


def test_attention_view_hover_keeps_layout(qtbot, tiny_qa, tmp_path):
    from explorer.core.qa.probe import probe
    from explorer.ui.inspectors.attention_view import AttentionView

    view = AttentionView()
    qtbot.addWidget(view)
    view.resize(1200, 800)
    view.show()
    res = probe(tiny_qa, "where was ada born?", "ada lovelace was born in london in 1815. " * 3, attentions=True)
    view.set_result(res)
    qtbot.wait(20)
    geometry = view.heatmap.geometry()
    info_h = view.info.height()
    view._on_heatmap_hover(3, 4)
    qtbot.wait(20)
    assert view.heatmap.geometry() == geometry and view.info.height() == info_h
    assert view.heatmap.hover_label.textItem.toPlainText() == view.shown.labels[3]
    view._on_heatmap_hover(-1, -1)
    assert not view.heatmap.row_marker.isVisible()
    view.grab().save(str(tmp_path / "attention.png"))


def test_nbest_text_column_gets_the_room(qtbot, tiny_qa, tmp_path):
    from PySide6.QtWidgets import QHeaderView

    from explorer.core.qa.probe import probe
    from explorer.ui.inspectors.spans_view import SpansView

    view = SpansView()
    qtbot.addWidget(view)
    view.resize(1200, 800)
    view.show()
    view.set_result(probe(tiny_qa, "where was ada born?", "ada lovelace was born in london in 1815. " * 4))
    qtbot.wait(20)
    hh = view.nbest.horizontalHeader()
    assert hh.sectionResizeMode(1) == QHeaderView.ResizeMode.Stretch
    assert all(hh.sectionResizeMode(k) == QHeaderView.ResizeMode.ResizeToContents for k in (0, 2, 3, 4, 5))
    assert view.nbest.columnWidth(1) > max(view.nbest.columnWidth(k) for k in (0, 2, 3, 4, 5))
    view.grab().save(str(tmp_path / "spans.png"))
    view.set_result(None)
    assert view.table_map.matrix.shape == (0, 0)
    assert "0.001" not in view.table_map.left_axis.labelString()


def test_the_status_bar_shows_a_busy_sign_while_a_probe_runs(qtbot, tmp_path, monkeypatch):
    """A long probe has a busy sign in view (the probe panel's busy bar is below its fold at 1280x800): the status
    bar shows a moving bar and "probing …" from the probe's request until its answer."""
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "cache"))
    from helpers import tiny_loaded_model

    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    w.manager.max_parallel = 0
    w._inspector_opened = True
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
    w.show()
    w.hub.set_model(tiny_loaded_model("qa"))
    assert not w.inspector_busy.isVisibleTo(w)
    w.hub.open_example("where was ada born?", "ada was born in london.")   # the answer comes in a later event
    assert w.inspector_busy.isVisibleTo(w) and w.inspector_busy_label.text() == "probing …"
    qtbot.waitUntil(lambda: w.hub.result is not None and not w.hub.probes._outstanding, timeout=30_000)
    assert not w.inspector_busy.isVisibleTo(w) and not w.inspector_busy_label.isVisibleTo(w)


def test_the_tau_estimate_remembers_the_measured_rate_across_a_restart(tmp_path, monkeypatch):
    """The τ study's estimate uses the rate measured here (8.1 questions/s) also after a restart, never "a guess
    until the first run here measures it" once one has."""
    import explorer.ui.inspectors.dev_view as dv
    import explorer.ui.shell.settings as shell_settings
    from explorer.ui.shell.settings import AppSettings

    path = tmp_path / "settings.ini"
    monkeypatch.setattr(dv, "_measured_qps", None)
    monkeypatch.setattr(shell_settings, "_current", AppSettings(path))
    assert "a guess" in dv.estimate_text(400, 0)
    dv.remember_qps(8.1)
    shell_settings.current_settings().sync()
    monkeypatch.setattr(dv, "_measured_qps", None)                    # the restart: a new process
    monkeypatch.setattr(shell_settings, "_current", AppSettings(path))
    text = dv.estimate_text(405, 0)
    assert "at 8.1 questions/s (measured here" in text and "50 s" in text


def test_the_n_best_answer_text_wraps_whole_in_a_narrow_column(qtbot, tiny_qa):
    """The n-best answer text wraps in its column (each row as tall as its text, again when the column's width
    changes), the whole text in its tooltip; never cut as "ytical engine of …" at 1280x800."""
    from explorer.core.qa.probe import probe
    from explorer.ui.inspectors.spans_view import SpansView

    passage = " ".join(f"in {1815 + i} ada lovelace wrote note {i} on the analytical engine of charles babbage "
                       "in london." for i in range(12))
    view = SpansView()
    qtbot.addWidget(view)
    view.resize(1000, 700)
    view.show()
    qtbot.waitExposed(view)
    view.set_result(probe(tiny_qa, "where was ada born?", passage))
    table = view.nbest
    table.setFixedWidth(table.minimumWidth())   # the narrowest the page lets it be: the text column's minimum

    def whole() -> bool:
        return all(table.rowHeight(r) >= table.sizeHintForRow(r) for r in range(table.rowCount()))

    texts = [table.item(r, 1).text() for r in range(table.rowCount())]
    long = max(range(len(texts)), key=lambda r: table.fontMetrics().horizontalAdvance(texts[r]))
    qtbot.waitUntil(lambda: table.columnWidth(1) < table.fontMetrics().horizontalAdvance(texts[long]))
    qtbot.waitUntil(whole)                        # an answer wider than its column: on two or more lines, whole
    assert all(table.item(r, 1).toolTip() == texts[r] for r in range(len(texts)))
    height = table.rowHeight(long)
    # wider: room for the longest text on one line whatever the style's font (in the whole suite an earlier test's
    # app style makes it larger than the page's default width allows)
    table.setFixedWidth(3 * table.fontMetrics().horizontalAdvance(texts[long]) + 300)
    qtbot.waitUntil(lambda: table.columnWidth(1) > table.fontMetrics().horizontalAdvance(texts[long]) + 20)
    qtbot.waitUntil(lambda: whole() and table.rowHeight(long) < height)   # wider: fitted again, one line

"""A result view says which model produced its results and clears them (with a one-line
note naming both models) when another model is loaded; a row of the old table never opens with the new
model, and an answer to a request sent to the old model is dropped."""

import dataclasses

from helpers import tiny_loaded_model, write_tiny_classification, write_tiny_conll

from explorer.core.models.info import model_name, stale_results_note
from explorer.ui.inspectors.classify_view import classify_tabs


def _named(loaded, source: str):
    return dataclasses.replace(loaded, source=source) if dataclasses.is_dataclass(loaded) else loaded


def test_model_name_and_note():
    class Info:
        source, path = "runs/a/checkpoints/best", "runs/a/checkpoints/best"

    assert model_name(Info()) == "runs/a/checkpoints/best" and model_name(None) == ""
    Info.source = "bundled:minilm"
    Info.path = "/cache/minilm"
    assert model_name(Info()) == "bundled:minilm (file /cache/minilm)"
    assert stale_results_note("A", "B") == "Results were for A; the model changed to B: run again."


def test_classify_dev_table_is_cleared_when_another_model_is_opened(qtbot, tmp_path):
    (_, view), (_, dev) = classify_tabs()
    qtbot.addWidget(view)
    qtbot.addWidget(dev)
    model_a = _named(tiny_loaded_model("classification"), "runs/a/checkpoints/best")
    view.set_loaded(model_a)
    data = write_tiny_classification(tmp_path / "d.tsv", repeat=1)
    dev.path.setText(str(data))
    dev.run()
    qtbot.waitUntil(lambda: dev.report is not None, timeout=30000)
    assert dev.boundary.rowCount() > 0
    assert dev.source.label.text() == f"Results of runs/a/checkpoints/best on {data}"

    view.set_loaded(_named(tiny_loaded_model("classification", num_labels=3, seed=3), "runs/b/checkpoints/best"))
    assert dev.report is None and dev.boundary.rowCount() == dev.mistakes.rowCount() == dev.confusion.rowCount() == 0
    assert dev.metrics.text() == ""
    assert dev.source.label.text() == stale_results_note("runs/a/checkpoints/best", "runs/b/checkpoints/best")
    opened = []
    dev.open_requested.connect(opened.append)
    dev._clicked(dev.boundary, 0)
    assert opened == []


def test_the_model_changed_line_goes_with_the_next_change_of_model(qtbot, tmp_path):
    """Results of A, then B loaded: the line names B. Then C loaded (the page has no results of its own): no line
    names B, or any model, as the one loaded."""
    (_, view), (_, dev) = classify_tabs()
    qtbot.addWidget(view)
    qtbot.addWidget(dev)
    view.set_loaded(_named(tiny_loaded_model("classification"), "runs/a/checkpoints/best"))
    dev.path.setText(str(write_tiny_classification(tmp_path / "d.tsv", repeat=1)))
    dev.run()
    qtbot.waitUntil(lambda: dev.report is not None, timeout=30000)
    view.set_loaded(_named(tiny_loaded_model("classification", seed=3), "hf/out/checkpoint-6"))
    assert dev.source.label.text() == stale_results_note("runs/a/checkpoints/best", "hf/out/checkpoint-6")
    view.set_loaded(_named(tiny_loaded_model("classification", seed=4), "runs/stance/checkpoints/best"))
    assert dev.source.label.isHidden() and dev.source.label.text() == ""
    view.set_loaded(_named(tiny_loaded_model("classification"), "runs/a/checkpoints/best"))
    assert dev.source.label.isHidden()


def test_an_answer_for_the_previous_model_is_dropped(qtbot, tmp_path):
    (_, view), (_, dev) = classify_tabs()
    qtbot.addWidget(view)
    qtbot.addWidget(dev)
    view.set_loaded(_named(tiny_loaded_model("classification"), "model-a"))
    dev.path.setText(str(write_tiny_classification(tmp_path / "d.tsv", repeat=1)))
    dev.source.ask(view.loaded)   # a request to model-a is in flight ...
    view.set_loaded(_named(tiny_loaded_model("classification", seed=4), "model-b"))   # ... when model-b opens
    from explorer.core.classify.dev_report import dev_report
    import numpy as np

    dev._arrived(dev_report(np.array([[1.0, 0.0], [0.0, 1.0]]), [0, 1], ["a", "b"]))
    assert dev.report is None and dev.boundary.rowCount() == 0
    # the same model loaded again keeps its table
    dev.run()
    qtbot.waitUntil(lambda: dev.report is not None, timeout=30000)
    view.set_loaded(_named(tiny_loaded_model("classification", seed=4), "model-b"))
    assert dev.report is not None and dev.source.label.text().startswith("Results of model-b")


def test_tag_dev_report_is_cleared_when_the_tag_model_changes(qtbot, tmp_path):
    from helpers import tag_pages, tiny_tagger

    view, dev = tag_pages(qtbot)
    loaded = tiny_tagger()
    view.set_loaded(_named(loaded, "tagger-a"))
    dev.path.setText(str(write_tiny_conll(tmp_path / "dev.txt")))
    dev.run()
    qtbot.waitUntil(lambda: dev.report is not None, timeout=30000)
    assert dev.mistakes.rowCount() > 0 and dev.source.label.text().startswith("Results of tagger-a on ")
    view.set_loaded(_named(loaded, "tagger-b"))
    assert dev.report is None and dev.mistakes.rowCount() == 0
    assert dev.source.label.text() == stale_results_note("tagger-a", "tagger-b")


def test_tau_study_is_cleared_when_the_qa_model_changes(qtbot, tiny_qa, tmp_path):
    from test_ui_inspector_core import squad_v2_file

    from explorer.ui.inspectors.dev_view import DevTauView

    dev = DevTauView(cache_dir=tmp_path / "cache")
    qtbot.addWidget(dev)
    dev.set_model(_named(tiny_qa, "qa-a"))
    with qtbot.waitSignal(dev.study_ready, timeout=60000):
        assert dev.run(str(squad_v2_file(tmp_path / "dev.json")), 0)
    assert dev.table.rowCount() > 0 and dev.source.label.text() == "Results of qa-a on dev.json"
    dev.set_model(_named(tiny_qa, "qa-b"))
    assert dev.study is None and dev.table.rowCount() == 0 and not dev.export_button.isEnabled()
    assert dev.source.label.text() == stale_results_note("qa-a", "qa-b")
    asked = []
    dev.open_question.connect(lambda *a: asked.append(a))
    dev._on_row_clicked(0, 0)
    assert asked == []


def _hub_probed_by_model_a(qtbot, tmp_path, monkeypatch):
    """Spans & τ and Attention (an InspectorHub) showing a tiny QA model "model-a"'s probe of a short passage."""
    from explorer.ui.inspectors import InspectorHub

    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "cache"))
    hub = InspectorHub()
    for _, w in hub.tabs():
        qtbot.addWidget(w)
    hub.set_model(_named(tiny_loaded_model("qa"), "model-a"))
    with qtbot.waitSignal(hub.result_changed, timeout=30000):
        hub.open_example("where was ada born?", "ada was born in london in 1815.")
    return hub


def test_the_probe_views_grey_the_previous_models_answer_until_the_new_one_is_shown(qtbot, tmp_path, monkeypatch):
    """In the seconds after Open best checkpoint, Spans & τ never shows the untrained head's span and scores
    unmarked beside the new checkpoint's name and question: they are greyed under "Results of A: updating for B…"
    until B's probe is shown."""
    from helpers import save_tiny_model

    from explorer.ui.inspectors.common import updating_note

    hub = _hub_probed_by_model_a(qtbot, tmp_path, monkeypatch)
    assert not any(c.stale for c in hub.stale) and hub.stale[0].veils[0].isHidden()
    new = str(save_tiny_model(tmp_path / "model-b", "qa", seed=5))
    hub.open_model(new)
    for cover, body in zip(hub.stale, (hub.spans_view.body_scroll, hub.attention_view.body)):
        assert cover.stale and cover.label.text() == updating_note("model-a", new) == \
            f"Results of model-a: updating for {new}…"
        assert cover.veils[0].isVisibleTo(body) and not cover.label.isHidden()
    qtbot.waitUntil(lambda: not hub.stale[0].stale, timeout=60000)   # the new model's probe is shown
    assert hub.loaded.source == new and hub.stale[0].veils[0].isHidden()
    assert hub.stale[1].label.isHidden()


def test_classify_greys_the_previous_models_numbers_while_another_loads(qtbot, tmp_path):
    from helpers import save_tiny_model

    from explorer.ui.inspectors.common import updating_note

    (_, view), (_, dev) = classify_tabs()
    qtbot.addWidget(view)
    qtbot.addWidget(dev)
    view.set_loaded(_named(tiny_loaded_model("classification"), "model-a"))
    view.inputs.text_a.setText("the city was born")
    view.run()
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)
    new = str(save_tiny_model(tmp_path / "model-b", "classification", seed=5))
    view.source.setText(new)
    view.load_model()
    assert view.stale_cover.stale and view.stale_cover.label.text() == updating_note("model-a", new)
    assert all(v.isVisibleTo(v.parentWidget()) for v in view.stale_cover.veils)   # the strip and the tables
    qtbot.waitUntil(lambda: view.result is not None and not view.stale_cover.stale, timeout=60000)
    assert view.loaded.source == new and all(v.isHidden() for v in view.stale_cover.veils)
    view.source.setText(str(tmp_path / "nowhere"))     # a load that fails: the previous model's numbers hold
    view.load_model()
    assert view.stale_cover.stale
    qtbot.waitUntil(lambda: not view.stale_cover.stale, timeout=30000)
    assert view.loaded.source == new
    # ... under that model's name: the model box never names the failed path above another model's numbers
    assert view.source.text() == new
    assert "nowhere" in view.status.text() and view.status.text().endswith(f"(still in use: {new})")


def test_a_failed_load_in_spans_puts_the_model_still_in_use_back_in_the_model_box(qtbot, tmp_path, monkeypatch):
    """Spans & τ after a load that fails: the probe shown is the previous model's, and the model box names it
    again; the error says which model is still in use."""
    hub = _hub_probed_by_model_a(qtbot, tmp_path, monkeypatch)
    with qtbot.waitSignal(hub.loads.failed, timeout=60000):
        hub.open_model(str(tmp_path / "nowhere"))
    assert hub.panel.source.currentText() == "model-a" and hub.loaded.source == "model-a"
    assert "nowhere" in hub.panel.status.text() and hub.panel.status.text().endswith("(still in use: model-a)")
    assert not any(c.stale for c in hub.stale)

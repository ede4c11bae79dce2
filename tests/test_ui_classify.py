"""The Classify and classification dev-set tabs, offscreen: a tiny model classified from typed inputs
(single, pair with flow, SWAG), the dev report rendered, and a click opening an example in Classify."""

import numpy as np
import pytest
from helpers import tiny_loaded_model, write_tiny_classification

from explorer.core.classify.dev_report import dev_report
from explorer.ui.inspectors.classify_view import ClassifyView, classify_tabs


@pytest.fixture
def view(qtbot):
    v = ClassifyView()
    qtbot.addWidget(v)
    return v


def _run(qtbot, v):
    v.result = None
    v.run()
    qtbot.waitUntil(lambda: v.result is not None, timeout=30000)
    return v.result


def test_pair_classification_is_rendered_with_its_arithmetic(qtbot, view):
    view.set_loaded(tiny_loaded_model("classification", num_labels=3))
    view.kind.setCurrentIndex(1)
    view.inputs.text_a.setText("ada was born in london.")
    view.inputs.text_b.setText("where was ada born?")
    view.label.setValue(1)
    res = _run(qtbot, view)
    assert res.kind == "pair" and view.table.rowCount() == 3
    assert view.table.item(1, 2).text() == f"{res.probabilities[1]:.4f}"
    text = view.text.toPlainText()
    assert "loss for label 1 = -log" in text and "by-hand check" in text and "layer  2: A -> B" in text
    assert view.strip_image.image.shape == (32, 1)


def test_swag_rows_one_per_ending(qtbot, view):
    view.set_loaded(tiny_loaded_model("multiple_choice"))
    assert view.current_kind() == "swag"
    view.inputs.context.setText("ada was born in london.")
    for edit, text in zip(view.inputs.endings, ["the city", "a river", "the model", "an answer"]):
        edit.setText(text)
    res = _run(qtbot, view)
    assert view.table.rowCount() == 4 and view.table.item(0, 0).text().startswith("ending 0")
    assert view.strip_image.image.shape == (32, 4) and res.probabilities.sum() == pytest.approx(1.0)


def test_errors_show_in_the_status_line(qtbot, view):
    view.run()
    assert "no model loaded" in view.status.text()
    view.set_loaded(tiny_loaded_model("classification"))
    view.inputs.text_a.setText("   ")
    view.run()
    qtbot.waitUntil(lambda: "sentence A is empty" in view.status.text(), timeout=30000)


def test_dev_view_renders_and_a_click_opens_the_example(qtbot, tmp_path):
    from PySide6.QtWidgets import QTabWidget

    tabs = QTabWidget()
    qtbot.addWidget(tabs)
    pages = classify_tabs(tabs)
    for title, w in pages:
        tabs.addTab(w, title)
    view, dev = pages[0][1], pages[1][1]
    view.set_loaded(tiny_loaded_model("classification"))
    dev.path.setText(str(write_tiny_classification(tmp_path / "d.tsv", repeat=1)))
    dev.run()
    qtbot.waitUntil(lambda: dev.report is not None, timeout=30000)
    assert dev.confusion.rowCount() == 2 and dev.metrics.text().startswith("accuracy")
    assert sum(int(dev.confusion.item(i, j).text()) for i in range(2) for j in range(2)) == dev.report.total
    tabs.setCurrentWidget(dev)
    first = dev.report.boundary[0]
    with qtbot.waitSignal(dev.open_requested) as sig:
        dev.boundary.cellClicked.emit(0, 4)
    assert sig.args[0]["text_a"] == first.text_a and sig.args[0]["label"] == first.label
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)
    assert tabs.currentWidget() is view and view.inputs.text_a.text() == first.text_a


def test_mistakes_list_from_a_report(qtbot):
    from explorer.ui.inspectors.classify_dev_view import ClassifyDevView

    dev = ClassifyDevView(lambda: None, lambda: "swag")
    qtbot.addWidget(dev)
    rep = dev_report(np.array([[3.0, 0, 0, 0], [0, 0, 0, 1.0]]), [1, 3], ["c0", "c1"], ["a | b | c | d"] * 2)
    dev.show_report(rep, "swag")
    assert dev.mistakes.rowCount() == 1 and dev.mistakes.item(0, 0).text() == "1"
    with qtbot.waitSignal(dev.open_requested) as sig:
        dev.mistakes.cellClicked.emit(0, 0)
    assert sig.args[0] == {"kind": "swag", "text_a": "c0", "endings": ["a", "b", "c", "d"], "label": 1}


def test_checkpoint_head_and_task_of_classifier_and_swag_checkpoints(tmp_path):
    import json

    from helpers import save_tiny_model

    from explorer.core.models.checkpoint_windows import checkpoint_task_name

    assert checkpoint_task_name(str(save_tiny_model(tmp_path / "qa", "qa"))) == ("qa", "squad_v1")
    assert checkpoint_task_name(str(save_tiny_model(tmp_path / "mc", "multiple_choice"))) == ("multiple_choice", "swag")
    best = save_tiny_model(tmp_path / "run" / "checkpoints" / "best", "classification")
    assert checkpoint_task_name(str(best)) == ("classification", "single")
    (tmp_path / "run" / "config.json").write_text(json.dumps({"task": "pair"}))
    assert checkpoint_task_name(str(best)) == ("classification", "pair")
    (tmp_path / "run" / "config.json").write_text(json.dumps({"task": "squad_v2"}))   # the run's task has another head
    assert checkpoint_task_name(str(best)) == ("classification", "single")
    assert checkpoint_task_name(str(tmp_path / "nowhere")) == (None, None)


def test_screenshot_script_opens_a_checkpoint_in_classify(qtbot, tmp_path):
    import importlib.util
    import json

    from helpers import REPO_ROOT, save_tiny_model

    spec = importlib.util.spec_from_file_location("screenshots_classify", REPO_ROOT / "scripts" / "screenshots_classify.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    best = save_tiny_model(tmp_path / "run" / "checkpoints" / "best", "classification")
    (tmp_path / "run" / "config.json").write_text(json.dumps({"task": "single"}))
    dev = write_tiny_classification(tmp_path / "d.tsv", repeat=1)
    assert mod.main([str(tmp_path / "shots"), "--checkpoint", str(best), "--dev", str(dev),
                     "--text", "the river is in paris."]) == 0
    for name in ("classify.png", "classify_dev.png", "classify_opened.png"):
        assert (tmp_path / "shots" / name).stat().st_size > 1000


def test_pair_flow_views_show_the_per_layer_numbers(qtbot, view):
    view.set_loaded(tiny_loaded_model("classification"))
    view.kind.setCurrentIndex(1)
    view.inputs.text_a.setText("ada was born in london.")
    view.inputs.text_b.setText("the river is in paris.")
    res = _run(qtbot, view)
    xs, ys = view._flow_curves[0].getData()
    assert list(xs) == [1, 2] and np.allclose(ys, res.flow_mean[:, 0, 1])
    assert view.flow_map.value(1, 3) == pytest.approx(float(res.flow[1, 3, 0, 1]))


def test_the_gold_label_box_names_the_heads_classes(qtbot, view):
    """Class names rather than numbers: the gold box of a head with id2label shows "1 (FAVOR)" and goes up to
    K - 1; a name typed in it is read as its id."""
    from helpers import tiny_loaded_model

    loaded = tiny_loaded_model("classification", num_labels=3)
    cfg = loaded.model.config
    cfg.id2label = {0: "AGAINST", 1: "FAVOR", 2: "NONE"}
    cfg.label2id = {n: i for i, n in cfg.id2label.items()}
    view.label.setValue(-1)
    view.set_loaded(loaded)                                 # a new head's names: still "none", never "-1"
    assert view.label.lineEdit().text() == "none"
    view.label.setValue(1)
    assert view.label.text() == "1 (FAVOR)" and view.label.maximum() == 2
    assert view.label.valueFromText("NONE") == 2
    view.label.setValue(-1)
    assert view.label.text() == "none"


def test_dev_metrics_use_the_metric_tables_names_and_percent_scale(qtbot):
    """Issue 25 finding 7: a 3-class F1 is "macro F1", accuracy is in percent as in the curves (not 0.6667)."""
    from explorer.ui.inspectors.classify_dev_view import ClassifyDevView

    dev = ClassifyDevView(lambda: None, lambda: "single")
    qtbot.addWidget(dev)
    logits = np.array([[3.0, 0, 0], [0, 2.0, 0], [0, 0, 1.0], [2.0, 0, 0]])
    dev.show_report(dev_report(logits, [0, 1, 2, 1], ["t"] * 4, label_names=["a", "b", "c"]), "single")
    text = dev.metrics.text()
    assert text.startswith("accuracy (%) 75.00") and "macro F1 (%) " in text and "0.7500" not in text
    two = dev_report(np.array([[1.0, 0], [0, 1.0]]), [0, 1], ["x", "y"], label_names=["neg", "pos"])
    dev.show_report(two, "single")
    two = dev.metrics.text()    # binary: F1 of the positive class, named so, and macro F1 beside it as its own figure
    assert "F1 (%) 100.00 of class pos" in two and two.count("macro F1 (%) 100.00") == 1


def test_a_newly_loaded_model_replaces_the_shown_result(qtbot, view):
    """Fresh-user trial: after opening the stance checkpoint, Classify still showed the SST-2 model's two
    LABEL_0/LABEL_1 rows and its gold "1 (FAVOR)". A new model clears the result and classifies the same input
    again; a gold id of another head's classes is reset to none."""
    view.set_loaded(tiny_loaded_model("classification", num_labels=2))
    view.inputs.text_a.setText("a fine film")
    view.label.setValue(1)
    assert _run(qtbot, view).logits.shape == (2,) and view.table.rowCount() == 2
    three = tiny_loaded_model("classification", num_labels=3)
    three.model.config.id2label = {0: "AGAINST", 1: "FAVOR", 2: "NONE"}
    three.model.config.label2id = {n: i for i, n in three.model.config.id2label.items()}
    view.set_loaded(three)
    assert view.result is None and view.table.rowCount() == 0 and view.label.value() == -1
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)
    assert view.result.logits.shape == (3,) and view.table.rowCount() == 3
    assert view.table.item(0, 0).text().startswith("AGAINST")


def test_the_class_table_shows_every_column_in_the_page_width_of_a_1280_window(qtbot, view):
    """Sixth trial: the table scrolled sideways in its pane at 1280x800 ("lass / ending"). At the width the page
    has there (the window less the Runs dock), every column is in view: no sideways scrolling, every title whole."""
    from explorer.ui.shell.layout_check import layout_offenders

    view.set_loaded(tiny_loaded_model("classification", num_labels=3))
    view.kind.setCurrentIndex(1)
    view.inputs.text_a.setText("ada was born in london.")
    view.inputs.text_b.setText("where was ada born?")
    view.resize(880, 700)
    view.show()
    qtbot.waitExposed(view)
    _run(qtbot, view)
    from PySide6.QtWidgets import QApplication

    for _ in range(3):                    # the splitter and the table take their new sizes
        QApplication.processEvents()
    bar = view.table.horizontalScrollBar()
    assert bar.maximum() == 0, f"the table scrolls sideways by {bar.maximum()} px"
    assert not [o for o in layout_offenders(view) if o.kind in ("header", "cell")]


def test_readable_label_names_use_the_runs_names_for_a_generic_head():
    from explorer.core.classify.arithmetic import readable_label_names

    assert readable_label_names(["LABEL_0", "LABEL_1"], ["negative", "positive"]) == ["negative", "positive"]
    assert readable_label_names(["0", "1"], ["negative", "positive"]) == ["negative", "positive"]
    assert readable_label_names(["neg", "pos"], ["negative", "positive"]) == ["neg", "pos"]    # the head's own
    assert readable_label_names(["LABEL_0", "LABEL_1"], ["a", "b", "c"]) == ["0", "1"]   # ids, not LABEL_k (10th trial)
    assert readable_label_names(["LABEL_0", "LABEL_1"], []) == ["0", "1"]
    assert readable_label_names(["LABEL_0"], []) == ["LABEL_0"]                # a regression head: no class


def test_an_sst2_checkpoint_with_generic_labels_shows_its_runs_label_names(qtbot, tmp_path, view):
    """Sixth trial: an SST-2 checkpoint read LABEL_0 / LABEL_1 in Classify, and "Open best checkpoint" showed the
    built-in example. Opened from its run, whose config names the classes, the page shows negative / positive
    (table, gold box, status) for the run's first dev example."""
    from helpers import save_tiny_model

    from explorer.ui.inspectors.classify_view import ClassifyPages

    from explorer.ui.runs.examples import first_classification_example

    ckpt = save_tiny_model(tmp_path / "run" / "checkpoints" / "best", "classification", num_labels=2)
    dev = write_tiny_classification(tmp_path / "dev.tsv")
    config = {"task": "single", "dev": str(dev), "label_names": ["negative", "positive"]}
    first = first_classification_example(config)
    assert first is not None and first["text_a"] == dev.read_text().splitlines()[1].split("\t")[0]
    ClassifyPages([("Classify", view)]).open_checkpoint("Classify", str(ckpt), "single", config)
    # the run's first dev example, classified once the model is in (sixth trial: the built-in example instead)
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)
    res = view.result
    assert view.label.names == ["negative", "positive"] and view.inputs.text_a.text() == first["text_a"]
    assert res.inputs[0].text_a == first["text_a"] and res.label == first["label"]
    assert res.label_names == ["negative", "positive"]
    assert [view.table.item(k, 0).text().split(" ←")[0] for k in range(2)] == ["negative", "positive"]
    assert "(negative)" in view.status.text() or "(positive)" in view.status.text()

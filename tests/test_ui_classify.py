"""The Classify and classification dev-set tabs, offscreen: a tiny model classified from typed inputs
(single, pair with flow, SWAG), the dev report rendered, a click opening an example in Classify, a checkpoint
opened from its run (its first dev example, its label names, its dev file and Dev cap), a typed sentence that
drops the example's gold label, and the result veiled when the text changes."""

import re

import numpy as np
import pytest
from helpers import STSB_SEVEN_FIELD_ROWS, tiny_loaded_model, write_file, write_tiny_classification

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
    """Class names rather than numbers: the gold box of a head with id2label lists "none" and "1 (FAVOR)" up to
    K - 1, a drop-down on which the Down key moves to the next class (on a spin box at "none" it did nothing
    visible)."""
    from PySide6.QtCore import Qt

    from helpers import tiny_loaded_model

    loaded = tiny_loaded_model("classification", num_labels=3)
    cfg = loaded.model.config
    cfg.id2label = {0: "AGAINST", 1: "FAVOR", 2: "NONE"}
    cfg.label2id = {n: i for i, n in cfg.id2label.items()}
    view.label.setValue(-1)
    view.set_loaded(loaded)                                 # a new head's names: still "none", never "-1"
    assert view.label.currentText() == "none"
    assert [view.label.itemText(k) for k in range(view.label.count())] == ["none", "0 (AGAINST)", "1 (FAVOR)",
                                                                          "2 (NONE)"]
    view.label.setValue(1)
    assert view.label.currentText() == "1 (FAVOR)" and view.label.value() == 1
    view.label.setValue(-1)
    qtbot.keyClick(view.label, Qt.Key.Key_Down)
    assert view.label.value() == 0 and view.label.currentText() == "0 (AGAINST)"
    view.label.setValue(-1)
    assert view.label.currentText() == "none"


def test_typing_over_a_filled_example_replaces_it(qtbot, view):
    """The example a checkpoint opens with is selected whole by the first click into Sentence A, so the sentence the
    user types replaces it (it was appended to it and classified as one text); a later click places the cursor."""
    from PySide6.QtCore import Qt

    view.set_loaded(tiny_loaded_model("classification", num_labels=2))
    view.show()
    qtbot.waitExposed(view)
    view.open_example({"kind": "single", "text_a": "it 's a charming and often affecting journey .", "label": 1})
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)
    edit = view.inputs.text_a
    qtbot.mouseClick(edit, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: edit.selectedText() == edit.text())
    qtbot.keyClicks(edit, "a gripping film")
    assert edit.text() == "a gripping film"
    qtbot.mouseClick(edit, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(edit, "!")
    assert edit.text().startswith("a gripping") and edit.text().count("!") == 1


def test_dev_metrics_use_the_metric_tables_names_and_percent_scale(qtbot):
    """A 3-class F1 is "macro F1", accuracy is in percent as in the curves (not 0.6667)."""
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


def test_the_runs_dev_rows_repeating_its_training_rows_are_said_under_the_dev_figures(qtbot, tmp_path):
    """A run that found 3 of its 40 dev rows among its training rows (its log event): Score dev set on its own dev
    file shows the figures with a line saying they are optimistic; on another file no line."""
    import json
    from types import SimpleNamespace

    from explorer.core.metrics.optimism import DevOverlap, dev_overlap_fields
    from explorer.core.protocol.events import EventWriter
    from explorer.ui.inspectors.classify_dev_view import ClassifyDevView

    folder = tmp_path / "runs" / "dup"
    (folder / "checkpoints" / "best").mkdir(parents=True)
    dev_file = write_file(tmp_path / "dev.csv", "sentence,label\na,0\nb,1\n")
    (folder / "config.json").write_text(json.dumps({"task": "single", "dev": str(dev_file)}), encoding="utf-8")
    writer = EventWriter("dup", path=folder / "events.jsonl")
    writer.emit("log", **dev_overlap_fields(DevOverlap(shared=3, n_dev=40)))
    writer.close()
    loaded = SimpleNamespace(source=str(folder / "checkpoints" / "best"), slot=0)
    dev = ClassifyDevView(lambda: loaded, lambda: "single")
    qtbot.addWidget(dev)
    dev._job.start = lambda *_args: None   # the report is handed in below, as the inspector would answer
    rep = dev_report(np.array([[1.0, 0], [0, 1.0]]), [0, 1], ["a", "b"], label_names=["neg", "pos"])
    dev.run()
    dev._arrived(rep)
    assert dev.metrics.text() and dev.optimism.isVisibleTo(dev)
    assert dev.optimism.text() == "! optimistic: 3 of 40 dev rows (7.5%) also occur in the training rows"
    dev.path.setText(str(write_file(tmp_path / "other.csv", "sentence,label\nc,0\n")))
    dev.run()
    assert not dev.optimism.isVisibleTo(dev)   # a new request clears the line with the figures
    dev._arrived(rep)
    assert dev.metrics.text() and not dev.optimism.isVisibleTo(dev) and dev.optimism.text() == ""


def test_the_dev_page_heading_names_what_a_regression_head_shows(qtbot):
    """A regression model's dev page says Pearson, Spearman, MSE, predicted against gold and the largest errors,
    not accuracy and a confusion matrix it never shows; a classifier's report brings the classifier heading back."""
    from explorer.core.classify.dev_report import regression_dev_report
    from explorer.ui.inspectors.classify_dev_view import ClassifyDevView

    kind = ["regression"]
    dev = ClassifyDevView(lambda: None, lambda: kind[0])
    qtbot.addWidget(dev)
    dev.show()
    heading = dev.top_line.text()
    assert "Pearson" in heading and "largest errors" in heading
    assert "accuracy" not in heading and "confusion" not in heading
    rep = regression_dev_report(np.array([1.0, 2.0, 3.5]), [1.0, 2.5, 3.0], ["a", "b", "c"])
    dev.show_report(rep, "regression")
    assert "Pearson" in dev.top_line.text()
    kind[0] = "single"
    dev.show_report(dev_report(np.array([[1.0, 0], [0, 1.0]]), [0, 1], ["x", "y"]), "single")
    assert "confusion matrix" in dev.top_line.text()


def test_a_newly_loaded_model_replaces_the_shown_result(qtbot, view):
    """After the stance checkpoint is opened, Classify shows none of the SST-2 model's result (its two
    LABEL_0/LABEL_1 rows, its gold "1 (FAVOR)"): a new model clears the result and classifies the same input
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
    """At the width the page has in a 1280x800 window (the window less the Runs dock), every column is in view: no
    sideways scrolling, every title whole (never "lass / ending")."""
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
    assert readable_label_names(["LABEL_0", "LABEL_1"], ["a", "b", "c"]) == ["0", "1"]   # ids, not LABEL_k
    assert readable_label_names(["LABEL_0", "LABEL_1"], []) == ["0", "1"]
    assert readable_label_names(["LABEL_0"], []) == ["LABEL_0"]                # a regression head: no class


def test_an_sst2_checkpoint_with_generic_labels_shows_its_runs_label_names(qtbot, tmp_path, view):
    """An SST-2 checkpoint opened from its run, whose config names the classes, shows negative / positive (table,
    gold box, status), not LABEL_0 / LABEL_1, for the run's first dev example, not the built-in example."""
    from helpers import save_tiny_model

    from explorer.ui.inspectors.classify_view import ClassifyPages

    from explorer.ui.runs.examples import first_classification_example

    ckpt = save_tiny_model(tmp_path / "run" / "checkpoints" / "best", "classification", num_labels=2)
    dev = write_tiny_classification(tmp_path / "dev.tsv")
    config = {"task": "single", "dev": str(dev), "label_names": ["negative", "positive"]}
    first = first_classification_example(config)
    assert first is not None and first["text_a"] == dev.read_text().splitlines()[1].split("\t")[0]
    ClassifyPages([("Classify", view)]).open_checkpoint("Classify", str(ckpt), "single", config)
    # the run's first dev example (not the built-in example), classified once the model is in
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)
    res = view.result
    assert view.label.names == ["negative", "positive"] and view.inputs.text_a.text() == first["text_a"]
    assert res.inputs[0].text_a == first["text_a"] and res.label == first["label"]
    assert res.label_names == ["negative", "positive"]
    assert [view.table.item(k, 0).text().split(" ←")[0] for k in range(2)] == ["negative", "positive"]
    assert re.search(r"prediction (negative|positive) \(class id [01]\)", view.status.text())


def test_classify_opened_from_a_run_gets_its_first_example_and_the_dev_page_uses_the_loaded_model(qtbot, tmp_path):
    """Classify opened from a run gets the run's first example (also with label names that do not read the
    file's first label, and a data path relative to the runs folder), an empty sentence says why; Classify: dev
    set uses the model loaded in Classify rather than asking for one."""
    from helpers import tiny_loaded_model, write_tiny_classification

    from explorer.ui.inspectors.classify_view import classify_tabs
    from explorer.ui.runs.examples import first_classification_example

    train = write_tiny_classification(tmp_path / "runs" / "data" / "train.tsv")
    first_text = train.read_text(encoding="utf-8").splitlines()[1].split("\t")[0]
    relative = {"task": "single", "train": "data/train.tsv", "output_dir": str(tmp_path / "runs")}
    assert first_classification_example(relative)["text_a"] == first_text          # against the runs folder
    words = tmp_path / "words.tsv"
    words.write_text("sentence\tlabel\nit is great\tpositive\nbad one\tnegative\n", encoding="utf-8")
    other_names = {"task": "single", "train": str(words), "label_names": "AGAINST, FAVOR"}   # names that do not read it
    example = first_classification_example(other_names)
    assert example is not None and example["text_a"] == "it is great" and example["label"] == -1
    assert first_classification_example({"task": "single", "train": "gone.tsv"}) is None

    (_, view), (_, dev) = classify_tabs()
    qtbot.addWidget(view)
    qtbot.addWidget(dev)
    dev.show()
    assert "Load a model in Classify" in dev.status.text()
    view.fill_example(None)
    assert "cannot be read here" in view.status.text()       # the empty sentence says why
    view.set_loaded(tiny_loaded_model("classification", num_labels=2))
    assert "Uses the model loaded in Classify" in dev.status.text()
    assert "Load a model" not in dev.status.text()


def test_classify_from_a_run_that_held_rows_out_opens_its_first_held_out_row(tmp_path):
    """A run without a dev file (10% of its training rows held out, dev_split.csv) opens Classify on its first
    held-out row, as the page says (the first dev example), not on a training row."""
    from explorer.core.data.classification import load_classification
    from explorer.core.data.split import write_dev_split
    from explorer.core.runs.layout import dev_split_file
    from explorer.ui.runs.examples import first_classification_example

    train = tmp_path / "stance.tsv"
    train.write_text("ID\tTweet\tStance\n" + "".join(f"{100 + i}\ttweet number {i}\t{['AGAINST', 'FAVOR', 'NONE'][i % 3]}\n"
                                                      for i in range(12)), encoding="utf-8")
    config = {"task": "single", "train": str(train), "text_columns": ["Tweet"], "label_column": "Stance",
              "label_names": ["AGAINST", "FAVOR", "NONE"]}
    data = load_classification(str(train), text_columns=["Tweet"], label_column="Stance",
                               label_names=["AGAINST", "FAVOR", "NONE"])
    run = tmp_path / "runs" / "stance"
    write_dev_split(dev_split_file(run), data, [7, 4])
    example = first_classification_example(config, str(run))
    assert example["text_a"] == "tweet number 4" and example["label"] == 1       # the first held-out row, FAVOR
    assert first_classification_example(config)["text_a"] == "tweet number 0"   # no run folder: the file's first


def test_classify_table_titles_are_whole_before_the_first_result(qtbot):
    """The empty Classify table's titles are whole before a result (at 1280x800 never "lass / ending" or
    "t = C·W_k +")."""
    from explorer.ui.inspectors.classify_view import classify_tabs

    (_, view), (_, dev) = classify_tabs()
    qtbot.addWidget(view)
    qtbot.addWidget(dev)
    header = view.table.horizontalHeader()
    assert all(view.table.columnWidth(i) >= header.sectionSizeHint(i) for i in range(view.table.columnCount()))


def test_a_long_checkpoint_path_in_a_status_line_does_not_widen_the_page(qtbot):
    """"loading <a long run's checkpoint path> ..." in Classify's status line wraps instead of asking for the
    path's whole width (a word-wrapped label cannot break a word), which grew a 1280x800 window to 1615 px."""
    from explorer.ui.inspectors.classify_view import ClassifyView

    view = ClassifyView()
    qtbot.addWidget(view)
    view.resize(880, 700)
    view.show()
    before = view.minimumSizeHint().width()
    path = "/tmp/home/bert-explorer-runs/20261202-005935-minilm-single-train-" + "x" * 80 + "/checkpoints/best"
    view._status(f"loading {path} ...")
    assert view.status.text() == f"loading {path} ..."          # as set: the break marks are not part of it
    assert view.minimumSizeHint().width() == before and view.status.minimumSizeHint().width() <= 120
    assert view.status.heightForWidth(300) > view.status.heightForWidth(3000)   # it wraps instead


def test_classify_drops_the_examples_gold_label_for_a_typed_sentence(qtbot):
    """A sentence the user types after a dev example (gold 1) drops the example's gold label, so no loss is shown
    for a label the user never chose; a label chosen for the typed text stays."""
    from helpers import tiny_loaded_model

    from explorer.ui.inspectors.classify_view import ClassifyView

    view = ClassifyView()
    qtbot.addWidget(view)
    view.set_loaded(tiny_loaded_model("classification", num_labels=2))
    view.result = None
    view.open_example({"kind": "single", "text_a": "a gripping, beautifully acted film", "label": 1})
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)
    assert view.label.value() == 1 and "loss for label 1 = -log" in view.text.toPlainText()
    qtbot.keyClicks(view.inputs.text_a, " not")                 # the user's own sentence now
    assert view.label.value() == -1 and view.label.currentText() == "none"
    assert "gold label: none chosen" in view.status.text()
    view.result = None
    view.run()
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)
    text = view.text.toPlainText()
    assert "loss for label" not in text and "gold label: none chosen, so no loss" in text
    view.label.setValue(0)                                       # chosen for the typed text: it stays
    qtbot.keyClicks(view.inputs.text_a, "!")
    assert view.label.value() == 0


def _classify_view(qtbot):
    from explorer.ui.inspectors.classify_view import ClassifyView

    view = ClassifyView()
    qtbot.addWidget(view)
    return view


def test_a_pair_model_opened_after_a_single_sentence_model_gets_its_own_pair_or_says_b_is_empty(qtbot, tmp_path):
    """An STS-B regression checkpoint (pairs, header-less columns 6, 7) opened after an SST-2 model never scores
    the SST-2 sentence with Sentence B empty ("score 2.6510") without a hint: the previous model's sentence goes
    (another kind of model), the run's first dev pair comes with its gold score, and a pair model asked about
    Sentence A alone says that Sentence B is empty."""
    from helpers import save_tiny_model, tiny_loaded_model

    from explorer.ui.inspectors.classify_view import ClassifyPages

    view = _classify_view(qtbot)
    view.set_loaded(tiny_loaded_model("classification"))
    view.inputs.text_a.setText("it 's a charming and often affecting journey .")
    view.run()
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)
    ckpt = save_tiny_model(tmp_path / "stsb" / "checkpoints" / "best", "classification", num_labels=1)
    dev = write_file(tmp_path / "stsb" / "dev.csv", STSB_SEVEN_FIELD_ROWS)
    config = {"task": "regression", "dev": str(dev), "no_header": True, "text_columns": ["6", "7"],
              "label_column": "5", "dev_cap": 300}
    ClassifyPages([("Classify", view)]).open_checkpoint("Classify", str(ckpt), "regression", config)
    assert "charming" not in view.inputs.text_a.text()                 # not the SST-2 model's sentence
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)
    assert (view.inputs.text_a.text(), view.inputs.text_b.text()) == ("A plane is taking off.",
                                                                      "An air plane is taking off.")
    assert view.gold.text() == "5" and view.result.inputs[0].text_b == "An air plane is taking off."
    assert "Sentence B is empty" not in view.status.text()
    view.inputs.text_b.setText("")                                      # Sentence A alone: said
    view.result = None
    view.inputs.text_a.returnPressed.emit()                             # Return classifies
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)
    assert "this model reads sentence pairs and Sentence B is empty" in view.status.text()
    assert view.text.toPlainText().startswith("note: this model reads sentence pairs")
    assert "reads sentence pairs" in view.inputs.text_b.placeholderText()


def test_classify_veils_the_result_when_the_text_changes_and_return_classifies(qtbot):
    """Return in Sentence A classifies (as it probes in Spans & τ), and the old sentence's result is veiled under
    new text until it is classified again."""
    from helpers import tiny_loaded_model

    view = _classify_view(qtbot)
    view.set_loaded(tiny_loaded_model("classification"))
    view.inputs.text_a.setText("the city was born")
    view.inputs.text_a.returnPressed.emit()
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)
    assert not view.stale_cover.stale
    view.inputs.text_a.setText("the city was old")                     # new text: the old result is veiled
    assert view.stale_cover.stale and "press Classify (or Return)" in view.stale_cover.label.text()
    from PySide6.QtWidgets import QSplitter                             # the veil is no third pane of the splitter
    assert [w.count() for w in view.findChildren(QSplitter)] == [2]
    view.inputs.text_a.setText("the city was born")                    # put back: the result is its own again
    assert not view.stale_cover.stale
    view.inputs.text_a.setText("the city was old")
    first = view.result
    view.inputs.text_a.returnPressed.emit()
    qtbot.waitUntil(lambda: view.result is not first, timeout=30000)
    assert not view.stale_cover.stale and view.result.inputs[0].text_a == "the city was old"


def test_classify_dev_set_takes_the_runs_dev_cap(qtbot, tmp_path):
    """Opening a run's checkpoint gives Classify: dev set the run's Dev cap with its dev file (all rows for a run
    that evaluated all), so its figure is on the rows the run evaluated (never "pearson 0.66 (200 examples)" from
    an earlier run's "first 200" beside the Runs list's "0.648 pearson" on 300); a file the user typed keeps the
    cap they chose."""
    import json

    from explorer.ui.inspectors.classify_dev_view import ClassifyDevView

    def run(name: str, **config) -> str:
        folder = tmp_path / "runs" / name
        (folder / "checkpoints" / "best").mkdir(parents=True)
        (folder / "config.json").write_text(json.dumps({"task": "regression", "train": "/data/train.csv", **config}))
        return str(folder / "checkpoints" / "best")

    dev = ClassifyDevView(lambda: None, lambda: "regression")
    qtbot.addWidget(dev)
    assert dev.cap.value() == 200                                       # the page's own default
    assert dev.prefill_from_run(run("stsb", dev="/data/stsb/dev.csv", dev_cap=300, no_header=True))
    assert dev.path.text() == "/data/stsb/dev.csv" and dev.cap.value() == 300
    assert dev.prefill_from_run(run("sst2", dev="/data/sst2/dev.tsv", dev_cap=0))
    assert dev.path.text() == "/data/sst2/dev.tsv" and dev.cap.text() == "all"
    dev.path.setText("/mine/dev.tsv")
    dev.cap.setValue(50)
    assert dev.prefill_from_run(run("other", dev="/data/other/dev.tsv", dev_cap=300))
    assert dev.path.text() == "/mine/dev.tsv" and dev.cap.value() == 50


def test_a_new_heads_kind_moves_no_button_and_empties_a_single_models_sentence_b(qtbot, view):
    """From a regression (STS-B) model to a single-sentence one: Classify and Predict on a file… stay where they
    were (a click meant for Classify hit Predict on a file… when the wide score box gave way to the class box), and
    the pair model's Sentence B is emptied and greyed, its row kept so nothing below moves."""
    from PySide6.QtWidgets import QPushButton

    view.resize(1500, 700)
    view.show()
    qtbot.waitExposed(view)
    buttons = [b for b in view.findChildren(QPushButton) if b.text() in ("Classify", "Predict on a file…")]
    assert len(buttons) == 2
    view.inputs.text_a.setText("A man with a hard hat is dancing.")
    view.inputs.text_b.setText("A man wearing a hard hat is dancing.")
    stsb = tiny_loaded_model("classification", num_labels=1)
    stsb.model.config.problem_type = "regression"
    view.run_pairs = True
    view.set_loaded(stsb)
    qtbot.waitUntil(lambda: view.gold.isVisible())
    _settle()
    where = [b.mapTo(view, b.rect().topLeft()) for b in buttons]
    assert view.inputs.text_b.isEnabled() and view.inputs.text_b.text()
    view.set_loaded(tiny_loaded_model("classification", num_labels=3))
    qtbot.waitUntil(lambda: view.label.isVisible())
    _settle()
    assert [b.mapTo(view, b.rect().topLeft()) for b in buttons] == where
    assert view.inputs.text_b.text() == "" and not view.inputs.text_b.isEnabled()
    assert view.inputs.text_a.text() == "A man with a hard hat is dancing."


def _settle() -> None:
    """Deliver the posted layout requests (nested layouts post more), then the other events."""
    from PySide6.QtCore import QCoreApplication, QEvent

    for _ in range(4):
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        QCoreApplication.processEvents()


def test_a_run_without_readable_data_clears_another_runs_example_but_keeps_a_typed_sentence(qtbot, view):
    """A checkpoint whose run has no data here (an HF Trainer folder) does not keep the sentence of the run opened
    before it: the inputs empty to their placeholder; a sentence the person typed stays."""
    view.set_loaded(tiny_loaded_model("classification", num_labels=2))
    view.result = None
    view.open_example({"kind": "single", "text_a": "the previous run's dev sentence", "label": 1})
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)
    view.fill_example(None)
    assert view.inputs.text_a.text() == "" and view.inputs.text_a.placeholderText()
    assert view.result is None and view.label.value() == -1
    assert "cannot be read here" in view.status.text() and "previous run's example was cleared" in view.status.text()
    view.inputs.text_a.setText("my own sentence")
    view.inputs.text_a.textEdited.emit("my own sentence")
    view.fill_example(None)
    assert view.inputs.text_a.text() == "my own sentence"


def _hold_the_load(view, monkeypatch) -> None:
    """The page's model load is asked but has not finished: nothing reaches the child, the load stays outstanding
    until the test hands the model in (set_loaded)."""
    monkeypatch.setattr(view._loader, "submit", lambda *a, **k: setattr(view._loader, "_outstanding", True))


def test_a_sentence_typed_while_an_sst2_checkpoint_loads_is_kept_and_classified_by_it(qtbot, tmp_path, view,
                                                                                       monkeypatch):
    """Opened from its run, an SST-2 checkpoint still loading: the sentence and gold label the person typed meanwhile
    are kept when the model is in, and classified by it (the run's dev example never replaces them)."""
    from helpers import save_tiny_model

    from explorer.ui.runs.examples import first_classification_example

    ckpt = save_tiny_model(tmp_path / "run" / "checkpoints" / "best", "classification", num_labels=2)
    dev = write_tiny_classification(tmp_path / "dev.tsv")
    config = {"task": "single", "dev": str(dev), "label_names": ["negative", "positive"]}
    _hold_the_load(view, monkeypatch)
    view.open_checkpoint(str(ckpt), "single", config["label_names"])
    assert view.loading and "loading" in view.status.text()
    typed = "a gripping, beautifully acted film, though far too long"
    qtbot.keyClicks(view.inputs.text_a, typed)
    view.label.setValue(1)
    view.run()                                                  # Classify pressed while the model loads
    view.fill_example(first_classification_example(config))    # the run's example arrives meanwhile
    view._loader._outstanding = False
    view.set_loaded(tiny_loaded_model("classification", num_labels=2))
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)
    assert view.inputs.text_a.text() == typed
    assert view.result.inputs[0].text_a == typed and view.result.label == 1
    assert view.label.value() == 1 and "typed input was kept" in view.status.text()


def test_an_example_filled_sentence_is_replaced_by_the_opened_runs_example(qtbot, tmp_path, view, monkeypatch):
    """Inputs an example filled (untouched by the person) take the opened run's dev example once its model is in."""
    from helpers import save_tiny_model

    from explorer.ui.runs.examples import first_classification_example

    view.open_example({"kind": "single", "text_a": "the previous run's dev sentence", "label": 1})
    ckpt = save_tiny_model(tmp_path / "run" / "checkpoints" / "best", "classification", num_labels=2)
    config = {"task": "single", "dev": str(write_tiny_classification(tmp_path / "dev.tsv"))}
    _hold_the_load(view, monkeypatch)
    view.open_checkpoint(str(ckpt), "single")
    first = first_classification_example(config)
    view.fill_example(first)
    view._loader._outstanding = False
    view.set_loaded(tiny_loaded_model("classification", num_labels=2))
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)
    assert view.inputs.text_a.text() == first["text_a"] and view.result.inputs[0].text_a == first["text_a"]


def test_the_gold_choices_are_the_loading_checkpoints_classes(qtbot, tmp_path, view, monkeypatch):
    """While a two-class checkpoint loads, the gold label box offers its two classes by name (its config), not the
    ids 0..3 offered before any model; a gold id the new classes lack is cleared with a word in the status line."""
    from helpers import save_tiny_model

    ckpt = save_tiny_model(tmp_path / "run" / "checkpoints" / "best", "classification", num_labels=2)
    view.label.setValue(3)
    _hold_the_load(view, monkeypatch)
    view.open_checkpoint(str(ckpt), "single", ["negative", "positive"])
    assert view.loading and view.label.isEnabled()
    assert [view.label.itemText(k) for k in range(view.label.count())] == ["none", "0 (negative)", "1 (positive)"]
    assert view.label.value() == -1 and "gold label 3 cleared" in view.status.text()


def test_the_typed_inputs_rule_and_the_checkpoints_class_names_before_it_loads(tmp_path):
    """Inputs are the person's when they hold text other than the last example fill's; a chosen gold id stays while
    the head has it; a checkpoint's classes are read from its config.json (two when transformers left them out)."""
    import json

    from explorer.ui.inspectors.components.typed_inputs import checkpoint_label_names, holds_typed_inputs, kept_gold

    assert not holds_typed_inputs(("", " "), None) and not holds_typed_inputs(("the example",), ("the example",))
    assert holds_typed_inputs(("my sentence",), None) and holds_typed_inputs(("my sentence",), ("the example",))
    assert kept_gold(1, 2) == (1, "") and kept_gold(-1, 2) == (-1, "")
    assert kept_gold(3, 2)[0] == -1 and "gold label 3 cleared" in kept_gold(3, 2)[1]
    (tmp_path / "config.json").write_text(json.dumps({"architectures": ["BertForSequenceClassification"]}))
    assert checkpoint_label_names(str(tmp_path)) == ["LABEL_0", "LABEL_1"]
    (tmp_path / "config.json").write_text(json.dumps({"id2label": {"1": "pos", "0": "neg"}}))
    assert checkpoint_label_names(str(tmp_path)) == ["neg", "pos"]
    assert checkpoint_label_names(str(tmp_path / "missing")) == []

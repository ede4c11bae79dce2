"""Classify and Classify: dev set with a regression head (a score, no softmax; predicted against gold with the
identity line) and a multi-label head (sigmoids with thresholds), offscreen, tiny models in memory."""

import numpy as np
import test_ui_classify
from helpers import tiny_loaded_model

from explorer.core.classify.dev_report import regression_dev_report
from explorer.ui.inspectors.classify_dev_view import ClassifyDevView
from explorer.ui.inspectors.classify_view import classify_tasks

view = test_ui_classify.view   # the Classify tab fixture and its run-and-wait helper
_run = test_ui_classify._run


def test_a_regression_head_shows_as_a_score_not_a_one_class_softmax(qtbot, view):
    loaded = tiny_loaded_model("classification", num_labels=1)
    loaded.model.config.problem_type = "regression"
    view.set_loaded(loaded)
    assert view.current_kind() == "regression" and view.gold.isVisibleTo(view) and not view.label.isVisibleTo(view)
    view.inputs.text_a.setText("the city")
    view.inputs.text_b.setText("the river")
    view.gold.setText("3.5")
    res = _run(qtbot, view)
    assert res.problem_type == "regression" and res.label == 3.5 and res.inputs[0].text_b == "the river"
    assert view.table.horizontalHeaderItem(1).text() == "score = C·w + b"
    assert view.table.rowCount() == 1 and "P = 1.0000" not in view.text.toPlainText()
    assert view.status.text().startswith(f"score {res.score:.4f}") and "prediction 0" not in view.status.text()
    assert "(score - gold)^2" in view.text.toPlainText()
    view.gold.setText("high")
    view.run()
    assert "gold score 'high' is not a number" in view.status.text()


def test_a_multilabel_head_shows_sigmoids_and_the_labels_over_their_thresholds(qtbot, view):
    loaded = tiny_loaded_model("classification", num_labels=3)
    cfg = loaded.model.config
    cfg.problem_type = "multi_label_classification"
    cfg.id2label, cfg.label2id = {0: "econ", 1: "politics", 2: "sport"}, {"econ": 0, "politics": 1, "sport": 2}
    cfg.label_thresholds = {"econ": 0.0, "politics": 1.0, "sport": 0.0}
    view.set_loaded(loaded)
    assert view.current_kind() == "multilabel"
    view.inputs.text_a.setText("the city")
    view.gold.setText("econ;sport")
    res = _run(qtbot, view)
    assert res.label == [0, 2] and res.predicted == [0, 2]
    assert view.table.horizontalHeaderItem(2).text().startswith("P = sigmoid")
    assert "τ 1.00" in view.table.item(1, 2).text() and "← prediction" not in view.table.item(1, 0).text()
    assert view.status.text().startswith("predicted labels: econ, sport")


def test_regression_dev_view_draws_predicted_against_gold_with_the_identity_line(qtbot):
    dev = ClassifyDevView(lambda: None, lambda: "regression")
    qtbot.addWidget(dev)
    gold = np.array([0.0, 1.0, 2.5, 4.0, 5.0])
    pred = np.array([0.5, 1.0, 2.0, 4.5, 3.0])
    rep = regression_dev_report(pred.reshape(-1, 1), gold, [f"a{i}" for i in range(5)], [f"b{i}" for i in range(5)],
                                n=2)
    dev.show_report(rep, "regression")
    x, y = dev._points.getData()
    assert list(x) == list(gold) and list(y) == list(pred)
    ix, iy = dev._identity.getData()
    assert list(ix) == list(iy) == [0.0, 5.0]
    # names and scales from the metric table (correlations and mse unscaled)
    assert "pearson " in dev.metrics.text() and "spearman " in dev.metrics.text() and "mse 0.95" in dev.metrics.text()
    assert dev.scatter.isVisibleTo(dev) and not dev.confusion.isVisibleTo(dev)
    assert dev.mistakes.item(0, 0).text() == "5" and dev.mistakes.item(0, 3).text() == "-2.000"   # largest error first
    with qtbot.waitSignal(dev.open_requested) as sig:
        dev.mistakes.cellClicked.emit(0, 0)
    assert sig.args[0] == {"kind": "regression", "text_a": "a4", "text_b": "b4", "label": 5.0}
    dev.clear_results()   # another model (a classifier): no empty regression plot stays until its report
    assert not dev.scatter.isVisibleTo(dev)


def test_the_head_list_offers_both_tasks():
    assert {"regression", "multilabel"} <= set(classify_tasks().values())


def test_the_launcher_offers_both_tasks_and_previews_their_labels(qtbot, tmp_path):
    from explorer.ui.launch.data_preview import preview_data
    from explorer.ui.launch.launcher import LauncherPanel

    scores = tmp_path / "sts.tsv"
    scores.write_text("sentence1\tsentence2\tscore\na\tb\t0.5\nc\td\t4.5\n", encoding="utf-8")
    res = preview_data(str(scores), "regression")
    assert res["ok"] and "scores 0.5 to 4.5" in res["summary"] and res["records"][1]["label"] == "4.5"
    sets = tmp_path / "ml.tsv"
    sets.write_text("text\tlabels\na\tecon;politics\nb\tecon\n", encoding="utf-8")
    res = preview_data(str(sets), "multilabel")
    assert res["ok"] and "2 labels (econ: 2, politics: 1)" in res["summary"]
    assert res["records"][0]["label"] == "econ; politics"

    # a released STS-B file: no header, 7 fields, a row with 9 (counted, never shifted), cp1252 bytes
    raw = tmp_path / "stsb_raw.csv"
    raw.write_bytes(b"main\tx\t2012\t1\t5.000\tA plane takes off.\tAn air plane takes off.\n"
                    b"main\tx\t2012\t2\t3.800\tA caf\xe9 opens.\tA man plays a flute.\tsrc\tsrc2\n")
    res = preview_data(str(raw), "regression", text_columns=["6", "7"], label_column="5",
                       options={"no_header": True})
    assert res["ok"], res["error"]
    assert "scores 3.8 to 5" in res["summary"] and res["records"][1]["text"] == "A caf\u00e9 opens."
    assert res["records"][1]["label"] == "3.8"
    res = preview_data(str(raw), "regression", text_columns=["6", "7"], label_column="5")
    assert "expected 7 fields (as in the header), got 9" in res["error"]   # the setting reaches the reader

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.editors["train"].set(str(scores))
    w.editors["dev"].set("")
    w.editors["task"].set("regression")
    w._changed()
    assert not w.editors["label_separator"].widget.isEnabled() and w.editors["label_column"].widget.isEnabled()
    # class weights and F_avg classes are for classes: off for scores, and out of the command
    assert not w.editors["class_weights"].widget.isEnabled() and not w.editors["f1_classes"].widget.isEnabled()
    assert w.editors["dev_fraction"].widget.isEnabled()      # a regression run holds out a random dev split
    assert "--task regression" in w.command.toPlainText() and "num_labels" not in w.problem.text()
    w.editors["task"].set("multilabel")
    w._changed()
    assert w.editors["label_separator"].widget.isEnabled() and w.config().label_separator == ";"


def test_predictions_in_a_narrow_band_of_the_gold_range_are_said(qtbot):
    """STS-B predictions all in 2.74-2.78 on a 0-5 axis are said, as a classifier predicting one class is (never
    a flat plot with no word)."""
    from explorer.core.metrics.baselines import narrow_scores_note

    dev = ClassifyDevView(lambda: None, lambda: "regression")
    qtbot.addWidget(dev)
    gold = np.array([0.0, 1.0, 2.5, 4.0, 5.0, 4.1, 2.7])
    pred = np.array([2.74, 2.75, 2.76, 2.78, 2.77, 2.755, 2.76])
    dev.show_report(regression_dev_report(pred, gold, ["a"] * 7, ["b"] * 7), "regression")
    assert dev.status.text() == ("7 dev examples scored; the predictions span 2.74-2.78 of the gold 0-5: the model "
                                 "predicts about the mean; train longer or with a larger learning rate")
    assert "the same score for every example" in narrow_scores_note(pred - 2.7, gold)   # far from the mean
    assert narrow_scores_note(gold * 0.8 + 0.3, gold) == ""                           # spread out: nothing to say
    dev.show_report(regression_dev_report(gold * 0.8, gold, ["a"] * 7, ["b"] * 7), "regression")
    assert dev.status.text() == "7 dev examples scored"


def test_predictions_worse_than_the_mean_are_said_on_the_dev_set_page(qtbot):
    """STS-B predictions about 1.4 for every pair (Pearson 0.169, spread over more than a tenth of the gold range)
    score an MSE worse than always predicting the mean: the status line says so with both MSEs and R², and what
    to try; beside a narrow band's line where both hold; nothing for a model that beats the mean."""
    dev = ClassifyDevView(lambda: None, lambda: "regression")
    qtbot.addWidget(dev)
    gold = np.array([0.2, 0.8, 1.6, 2.4, 3.0, 3.6, 4.2, 4.8])
    pred = np.array([1.32, 1.53, 1.08, 1.74, 1.20, 1.26, 1.41, 1.59])
    dev.show_report(regression_dev_report(pred, gold, ["a"] * 8, ["b"] * 8), "regression")
    assert dev.status.text() == ("8 dev examples scored; the model predicts worse than always predicting the mean "
                                 "score (MSE 3.66 against 2.32 of always predicting the dev mean; R² -0.58); train "
                                 "longer or with a larger learning rate")
    narrow = pred * 0.1 + 1.3   # 1.43-1.45: a narrow band as well
    dev.show_report(regression_dev_report(narrow, gold, ["a"] * 8, ["b"] * 8), "regression")
    assert dev.status.text().startswith("8 dev examples scored; the model predicts worse than always predicting")
    assert dev.status.text().endswith("the model predicts about the same score for every example; train longer or "
                                      "with a larger learning rate")
    dev.show_report(regression_dev_report(gold * 0.8 + 0.3, gold, ["a"] * 8, ["b"] * 8), "regression")
    assert dev.status.text() == "8 dev examples scored"


def test_before_scoring_the_lists_are_titled_for_the_chosen_heads_task(qtbot):
    dev = ClassifyDevView(lambda: None, lambda: "regression")
    qtbot.addWidget(dev)
    dev.show()
    assert dev.lists.titles[1].text().startswith("Largest errors")
    assert not dev.lists.boundary_box.isVisibleTo(dev)
    columns = [dev.mistakes.horizontalHeaderItem(c).text() for c in range(dev.mistakes.columnCount())]
    assert "P" not in columns
    classifier = ClassifyDevView(lambda: None, lambda: "single")
    qtbot.addWidget(classifier)
    classifier.show()
    assert classifier.lists.titles[1].text() == "Most confident mistakes"
    assert classifier.lists.boundary_box.isVisibleTo(classifier)


def test_the_largest_errors_list_is_headed_by_the_signed_difference_it_shows(qtbot):
    """The errors keep their sign (a prediction too high or too low), so the list's title names "predicted - gold"
    and its order by size, never an absolute value the column does not show."""
    dev = ClassifyDevView(lambda: None, lambda: "regression")
    qtbot.addWidget(dev)
    dev.show()
    gold = np.array([1.0, 2.0, 3.0, 4.0])
    pred = np.array([1.1, 3.5, 1.0, 4.0])   # errors +0.1, +1.5, -2.0, 0
    dev.show_report(regression_dev_report(pred, gold, ["a", "b", "c", "d"]), "regression")
    title = dev.lists.titles[1].text()
    assert "|" not in title and "predicted - gold" in title and "by size" in title, title
    errors = [dev.mistakes.item(r, 3).text() for r in range(dev.mistakes.rowCount())]
    assert errors[:3] == ["-2.000", "+1.500", "+0.100"]   # signed, largest first by size
    assert "too high" in dev.mistakes.horizontalHeaderItem(3).toolTip()

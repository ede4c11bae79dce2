"""A regression head's one output is "score" everywhere (Classify, its arithmetic, Classify: dev set, the run's
id2label), and where the column matters it is "score (column 5)": a model trained on header-less STS-B (label
column 5) never shows "5 ← prediction | +2.7790" or "= 2.7790 (5; one output…)" in Classify, where the column's
position would read as a predicted 5 on the 0-5 scale."""

import json

from helpers import save_tiny_model, tiny_loaded_model
from test_regression_multilabel import _write
from test_training_loop import run as _train   # the worker's main in this process -> (rc, events)
from test_ui_classify import _run, view  # noqa: F401 - the Classify tab fixture


def _stsb_like_model():
    """A tiny regression head whose config names its output "5", as a header-less STS-B run wrote it."""
    loaded = tiny_loaded_model("classification", num_labels=1)
    cfg = loaded.model.config
    cfg.problem_type = "regression"
    cfg.id2label, cfg.label2id = {0: "5"}, {"5": 0}
    return loaded


def test_classify_names_the_one_output_score_not_the_column_position(qtbot, view):  # noqa: F811
    view.set_loaded(_stsb_like_model())
    assert view.loaded.label_names == ["score"]
    view.inputs.text_a.setText("the city")
    view.inputs.text_b.setText("the river")
    res = _run(qtbot, view)
    assert res.label_names == ["score"]
    assert view.table.item(0, 0).text() == "score ← prediction"
    text = view.text.toPlainText()
    assert "(5;" not in text and "5 ←" not in text
    assert f"score = C . w + b = {res.score:.4f}   (one output, no softmax" in text


def test_the_names_of_a_heads_outputs():
    from explorer.core.classify.arithmetic import score_column_words
    from explorer.core.specs.heads import output_names

    cfg = _stsb_like_model().model.config
    assert output_names(cfg) == ["score"]
    cls = tiny_loaded_model("classification", num_labels=2).model.config
    cls.id2label = {0: "negative", 1: "positive"}
    assert output_names(cls) == ["negative", "positive"]
    assert score_column_words("5", no_header=True) == "score (column 5)"
    assert score_column_words("similarity") == "score (column 'similarity')" and score_column_words("") == "score"


def test_classify_dev_set_says_score_and_the_column_it_read(qtbot, tmp_path):
    from explorer.core.training.dev_scoring import score_classification_dev
    from explorer.ui.inspectors.classify_dev_view import ClassifyDevView

    loaded = _stsb_like_model()
    data = _write(tmp_path / "sts.tsv", [f"x\ty\t{i % 5}.0\tthe city {i}\tthe river {i % 3}" for i in range(12)])
    settings = {"text_columns": ["4", "5"], "label_column": "3", "no_header": True}
    rep = score_classification_dev(loaded.model, loaded.tokenizer, "regression", str(data), settings=settings)
    assert rep.label_names == ["score"]
    dev = ClassifyDevView(lambda: None, lambda: "regression")
    qtbot.addWidget(dev)
    dev.no_header.setChecked(True)
    dev.label_column.setCurrentText("3")
    dev.show_report(rep, "regression")
    assert dev.scatter.getPlotItem().getAxis("bottom").labelText == "gold score (column 3)"


def test_a_header_less_regression_run_writes_score_as_its_id2label(tmp_path):
    model = save_tiny_model(tmp_path / "m", "classification", num_labels=1)
    data = _write(tmp_path / "sts.csv", [f"g\t{i}\tx\ty\t{(i % 5) * 1.1:.2f}\tthe city {i % 5}\tthe river {i % 3}"
                                         for i in range(24)])
    rc, ev = _train(["--model", model, "--task", "regression", "--train", data, "--dev", data, "--no-header",
                     "--text-columns", "6,7", "--label-column", "5", "--max-steps", 2, "--batch-size", 8,
                     "--output-dir", tmp_path, "--run-id", "r"])
    assert rc == 0, ev[-1]
    saved = json.loads((tmp_path / "r" / "checkpoints" / "best" / "config.json").read_text())
    assert saved["id2label"] == {"0": "score"} and saved["label2id"] == {"score": 0}

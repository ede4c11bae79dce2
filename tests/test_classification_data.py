"""Classification data loading (GLUE TSV/CSV/JSONL, column mapping, label checks) and GLUE metrics."""

import numpy as np
import pytest
from helpers import write_tiny_classification

from explorer.core.data.classification import ClassificationDataError, load_classification
from explorer.core.metrics.glue import (accuracy, binary_f1, classification_metrics, matthews_corrcoef,
                                                 pearson, spearman)


def test_sst2_style_tsv(tmp_path):
    p = tmp_path / "train.tsv"
    p.write_text("sentence\tlabel\nit 's a \"charming\" film . \t1\nbleak \t0\n\n", encoding="utf-8")
    d = load_classification(str(p))
    assert d.texts_a == ['it \'s a "charming" film . ', "bleak "] and d.texts_b is None
    assert d.labels == [1, 0] and d.num_labels == 2 and d.columns == ("sentence", "", "label")


def test_mrpc_style_tsv_with_bom_and_pair_columns(tmp_path):
    p = tmp_path / "dev.tsv"
    p.write_text("\ufeffQuality\t#1 ID\t#2 ID\t#1 String\t#2 String\n1\t1\t2\tA \"quoted\" one.\tThe other.\n"
                 "0\t3\t4\tx\ty\n", encoding="utf-8")
    d = load_classification(str(p), pair=True)
    assert d.texts_a == ['A "quoted" one.', "x"] and d.texts_b == ["The other.", "y"] and d.labels == [1, 0]
    assert d.columns == ("#1 String", "#2 String", "Quality")


def test_csv_jsonl_column_mapping_and_cap(tmp_path):
    csv = tmp_path / "d.csv"
    csv.write_text('review,stars\n"good, really",2\nbad,0\nok,1\n', encoding="utf-8")
    d = load_classification(str(csv), text_columns=["review"], label_column="stars")
    assert d.texts_a[0] == "good, really" and d.labels == [2, 0, 1] and d.num_labels == 3
    assert len(load_classification(str(csv), text_columns=["review"], label_column="stars", cap=2)) == 2
    js = write_tiny_classification(tmp_path / "p.jsonl", pair=True, columns=("y", "left", "right"))
    d = load_classification(str(js), pair=True, text_columns=["left", "right"], label_column="y")
    assert len(d) == 6 and d.labels[:2] == [1, 0]


def test_negative_integer_labels_message_names_the_label_names_fix(tmp_path):
    """A -2..2 sentiment column is refused with the fix in the CLI's words and, shown in the launcher, in its own, the file's distinct
    values as the names to type; typing them loads the file; a GLUE test column of -1 only gets no such hint."""
    from explorer.ui.launch.data_preview import plain_words

    p = tmp_path / "scale.csv"
    p.write_text("text,Sentiment\na,-2\nb,0\nc,2\nd,-1\ne,1\nf,2\n", encoding="utf-8")
    with pytest.raises(ClassificationDataError) as err:
        load_classification(str(p))
    msg = str(err.value)
    assert "line 2, column 2 'Sentiment': label -2 is negative" in msg
    assert msg.endswith("If these are classes, name them in order: --label-names=-2,-1,0,1,2")   # the CLI's words
    assert plain_words(msg).endswith("name them in order: type -2,-1,0,1,2 in \u201cLabel names\u201d")   # the launcher's
    data = load_classification(str(p), label_names="-2,-1,0,1,2".split(","))
    assert data.labels == [0, 2, 4, 1, 3, 4] and data.label_names == ["-2", "-1", "0", "1", "2"]
    p.write_text("text,label\na,-1\nb,-1\n", encoding="utf-8")
    with pytest.raises(ClassificationDataError) as err:
        load_classification(str(p))
    assert "Label names" not in str(err.value)


def test_known_names_are_detected(tmp_path):
    p = tmp_path / "d.tsv"
    p.write_text("text\tlabel\nfine\t1\n", encoding="utf-8")
    assert load_classification(str(p)).texts_a == ["fine"]
    p.write_text("premise\thypothesis\tgold_label\na\tb\t2\n", encoding="utf-8")
    d = load_classification(str(p), pair=True)
    assert (d.texts_a, d.texts_b, d.class_names()[d.labels[0]]) == (["a"], ["b"], "2")


def test_a_label_column_without_a_usual_name_is_named_as_the_likely_one_never_trained_on_unasked(tmp_path):
    """A header "Text,Emotion": no usual label name, so loading stops (a column guessed from its values is never
    trained on unasked), and the message names the column holding a few short values as the likely one."""
    path = tmp_path / "emotions.csv"
    path.write_text("Text,Emotion\ni feel so happy today,happy\nthis is sad news for us all,sadness\n"
                    "why would you do that to me,anger\ni am glad,happy\n", encoding="utf-8")
    with pytest.raises(ClassificationDataError) as err:
        load_classification(str(path))
    assert str(err.value) == (f"{path}: no label column found among ['Text', 'Emotion']; give its name with "
                              "--label-column (Emotion? column Emotion holds a few values (anger, happy, sadness))")
    assert load_classification(str(path), label_column="Emotion").num_labels == 3


def test_bad_input_messages_name_file_line_and_problem(tmp_path):
    with pytest.raises(ClassificationDataError, match="does not exist"):
        load_classification(str(tmp_path / "missing.tsv"))
    p = tmp_path / "a.tsv"
    p.write_text("phrase\tsentiment\nok\t1\n", encoding="utf-8")
    with pytest.raises(ClassificationDataError, match=r"no sentence column found among \['phrase', 'sentiment'\]"):
        load_classification(str(p))
    with pytest.raises(ClassificationDataError, match="label column 'y' not found"):
        load_classification(str(p), text_columns=["phrase"], label_column="y")
    with pytest.raises(ClassificationDataError, match="needs 2 text column"):
        load_classification(str(p), pair=True, text_columns=["phrase"], label_column="sentiment")
    p.write_text("sentence\tlabel\nok\t1\nmeh\tpositive\n", encoding="utf-8")
    with pytest.raises(ClassificationDataError, match=r"a.tsv line 3, column 2 'label': label 'positive' is not an integer"):
        load_classification(str(p))
    p.write_text("sentence\tlabel\nok\t1.5\n", encoding="utf-8")
    with pytest.raises(ClassificationDataError, match="line 2, column 2 'label': label '1.5' is not an integer"):
        load_classification(str(p))
    assert load_classification(str(p), regression=True).labels == [1.5]
    p.write_text("sentence\tlabel\nok\t-1\n", encoding="utf-8")
    with pytest.raises(ClassificationDataError, match="line 2, column 2 'label': label -1 is negative"):
        load_classification(str(p))
    p.write_text("sentence\tlabel\n", encoding="utf-8")
    with pytest.raises(ClassificationDataError, match="no examples"):
        load_classification(str(p))
    p.write_text("sentence\tlabel\nonly-one-field\n", encoding="utf-8")
    with pytest.raises(ClassificationDataError, match=r"line 2: expected 2 fields \(as in the header\), got 1"):
        load_classification(str(p))
    j = tmp_path / "b.jsonl"
    j.write_text('{"sentence": "a", "label": 1}\n[1]\n', encoding="utf-8")
    with pytest.raises(ClassificationDataError, match="b.jsonl line 2: expected a JSON object"):
        load_classification(str(j))
    x = tmp_path / "c.parquet"
    x.write_text("", encoding="utf-8")
    with pytest.raises(ClassificationDataError, match="unknown file type"):
        load_classification(str(x))


def test_glue_metrics_against_hand_computation():
    y = np.array([1, 1, 1, 0, 0, 0, 1, 0])
    p = np.array([1, 1, 0, 0, 0, 1, 1, 0])
    # TP=3 TN=3 FP=1 FN=1
    assert accuracy(y, p) == 0.75
    assert binary_f1(y, p) == pytest.approx(2 * 3 / (2 * 3 + 1 + 1))
    assert matthews_corrcoef(y, p) == pytest.approx((3 * 3 - 1 * 1) / np.sqrt(4 * 4 * 4 * 4))
    assert matthews_corrcoef(y, np.ones_like(y)) == 0.0       # constant prediction
    # 3 classes, checked against the covariance formula by hand: perfect = 1
    assert matthews_corrcoef([0, 1, 2, 2], [0, 1, 2, 2]) == pytest.approx(1.0)
    x = np.array([1.0, 2.0, 3.0, 4.0])
    assert pearson(x, 2 * x + 1) == pytest.approx(1.0)
    assert pearson(x, -x) == pytest.approx(-1.0)
    # Spearman with ties: ranks of [1, 2, 2, 3] are [1, 2.5, 2.5, 4]
    assert spearman([1, 2, 2, 3], [1, 2, 3, 4]) == pytest.approx(pearson([1, 2.5, 2.5, 4], [1, 2, 3, 4]))
    assert spearman([1, 5, 2, 9], [10, 50, 20, 90]) == pytest.approx(1.0)
    m = classification_metrics(y, np.stack([1 - p, p], axis=1).astype(float))
    assert m["accuracy"] == 0.75 and "f1" in m and "matthews_corrcoef" in m
    r = classification_metrics(np.array([0.5, 1.5, 2.5]), np.array([[0.4], [1.6], [2.4]]))
    assert r["pearson"] > 0.99 and r["spearman"] == pytest.approx(1.0) and r["mse"] == pytest.approx(0.01)


def test_macro_f1_leaves_out_classes_with_no_dev_row_as_scikit_learn_does():
    """A dev split too small to hold a row of every class (22 intents, four of them with one row in the file):
    macro F1 averages the classes that occur in the gold labels or the predictions, as sklearn's
    f1_score(average="macro"); a class with neither is not a 0 in the mean, and the per-class table says so."""
    from sklearn.metrics import f1_score

    from explorer.core.metrics.glue import per_class_metrics
    from explorer.ui.inspectors.components.classify_dev import per_class_table

    names = ["a", "b", "c", "rare", "never"]
    gold = np.array([0, 0, 1, 1, 2, 2, 0, 1])
    pred = np.array([0, 1, 1, 1, 2, 3, 0, 1])          # "rare" predicted once, never in gold; "never" nowhere
    m = per_class_metrics(gold, pred, names)
    assert m["macro_f1"] == pytest.approx(f1_score(gold, pred, average="macro", zero_division=0))
    assert m["per_class"]["rare"]["in_macro"] and not m["per_class"]["never"]["in_macro"]

    class Report:
        per_class, macro_f1, weighted_f1, total, f_avg, f1_classes = m["per_class"], m["macro_f1"], 0.5, 8, None, []
    _titles, rows = per_class_table(Report, "single")
    assert ("never (no dev rows)", ["—", "—", "—", 0]) in rows
    assert rows[len(names)][0] == "macro average (4 of 5)"   # short: whole beside the class names at 1280x800
    from explorer.ui.inspectors.components.classify_dev import per_class_tips

    tip = per_class_tips(Report)["macro average (4 of 5)"]
    assert "4 of 5 classes" in tip and tip.endswith("Left out (1 without dev rows): never")
    # Classify: dev set's headline, and Compare's figure of each model, are the same macro F1
    from explorer.core.classify.compare import compare_classifiers
    from explorer.core.classify.dev_report import dev_report

    logits = np.eye(len(names))[pred] * 3.0
    rep = dev_report(logits, gold, [f"text {i}" for i in range(len(gold))], label_names=names)
    assert rep.f1 == pytest.approx(m["macro_f1"]) and rep.macro_f1 == pytest.approx(m["macro_f1"])
    other = np.eye(len(names))[gold] * 3.0
    cmp = compare_classifiers(gold, logits, other, label_names=names, resamples=200)
    assert cmp.macro_f1.value_a == pytest.approx(m["macro_f1"])


def test_the_data_check_warns_of_a_label_of_a_paragraph_and_names_its_line(tmp_path):
    """A CSV row with a broken quote makes the rest of the file one label (a class named by 1,800 characters): the
    data check warns with the label's length and its line, and the summary and warnings give its name cut."""
    from explorer.ui.launch.data_preview import preview_data

    paragraph = "a whole paragraph of text that a broken quote made the label of this row " * 25
    rows = [f"text {i},{'ab'[i % 2]}\n" for i in range(12)]
    rows[6] = f'text 6,"{paragraph}"\n'
    path = tmp_path / "t.csv"
    path.write_text("sentence,label\n" + "".join(rows))
    res = preview_data(str(path), "single")
    assert res["ok"]
    said = [p for p in res["problems"] if "a broken quote?" in p]
    assert said == [f"a label of {len(paragraph.strip()):,} characters on line 8: a broken quote? "
                    f"(“{paragraph.strip()[:20]}…{paragraph.strip()[-19:]}”)"], res["problems"]
    assert all(len(p) < 400 for p in res["problems"]) and len(res["summary"]) < 400

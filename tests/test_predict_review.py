"""The review of a predictions file: saved and restored, the labelled file, agreement, fine-tune data."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from explorer.core.predict.review import (Review, agreement, current_labels, finetune_data, gold_as_names,
                                          load_predictions, save_labelled, uncertainty)
from explorer.core.predict.writing import write_table


def _predictions(tmp_path):
    cols = ["text", "label", "predicted_label", "p_neg", "p_pos", "margin", "error"]
    rows = [{"text": f"t{i}", "label": i % 2, "predicted_label": "pos" if i < 3 else "neg",
             "p_neg": 0.5 - m / 2, "p_pos": 0.5 + m / 2, "margin": m, "error": ""}
            for i, m in enumerate([0.9, 0.1, 0.5, 0.3])]
    path = write_table(tmp_path / "p.csv", cols, rows)
    review = Review.from_summary({"out": str(path), "kind": "classification", "label_names": ["neg", "pos"],
                                  "input_columns": ["text", "label"], "text_columns": ["text"], "model": "m"})
    return load_predictions(path), review


def test_review_round_trip_and_labelled_file(tmp_path):
    table, review = _predictions(tmp_path)
    assert review.gold_column == "label" and len(table) == 4
    assert list(np.argsort(uncertainty(table, review))) == [1, 3, 2, 0]
    review.set_label(1, "neg")
    review.mark_reviewed(2)
    with pytest.raises(ValueError, match="not one of the labels"):
        review.set_label(0, "maybe")
    review.save()
    again = Review.load(table.path)
    assert again.labels == {1: "neg"} and again.reviewed == {1, 2} and again.label_names == ["neg", "pos"]
    assert current_labels(table, again) == ["pos", "neg", "pos", "neg"]
    out = save_labelled(table, again, tmp_path / "labelled.tsv")
    rows = list(csv.DictReader(open(out, encoding="utf-8"), delimiter="\t"))
    assert list(rows[0]) == ["text", "label", "label_source"]
    assert [r["label_source"] for r in rows] == ["model", "person", "model", "model"]
    assert rows[1]["label"] == "neg"


def test_agreement_and_gold_names():
    gold = gold_as_names(["0", "1", "1", "0", ""], ["neg", "pos"])
    assert gold == ["neg", "pos", "pos", "neg", ""]
    a = agreement(gold, ["neg", "pos", "neg", "neg", "pos"], ["neg", "pos"])
    assert a.n == 4 and a.accuracy == pytest.approx(0.75)
    from sklearn.metrics import cohen_kappa_score

    assert a.kappa == pytest.approx(cohen_kappa_score(gold[:4], ["neg", "pos", "neg", "neg"]))
    assert a.confusion.tolist() == [[2, 0], [1, 1]]
    assert agreement(["", ""], ["a", "b"]) is None


def test_finetune_data_combines_the_training_file_and_the_corrections(tmp_path):
    from helpers import write_tiny_classification

    train = write_tiny_classification(tmp_path / "train.tsv")
    table, review = _predictions(tmp_path)
    with pytest.raises(ValueError, match="no corrected rows"):
        finetune_data(table, review, {}, tmp_path / "runs" / ".corrections")
    review.set_label(1, "neg")
    review.set_label(3, "pos")
    fields, note = finetune_data(table, review, {"train": str(train), "task": "single", "model": "base"},
                                 tmp_path / "runs" / ".corrections")
    rows = list(csv.DictReader(open(fields["train"], encoding="utf-8"), delimiter="\t"))
    assert len(rows) == 8 + 2 and rows[-2:] == [{"text": "t1", "label": "neg"}, {"text": "t3", "label": "pos"}]
    assert {r["label"] for r in rows} == {"neg", "pos"}              # integer ids written as the head's names
    assert fields["model"] == "base" and fields["text_columns"] == ["text"] and fields["label_column"] == "label"
    assert fields["label_names"] == ["neg", "pos"]
    assert "one train file" in note and str(train) in note
    from explorer.core.data.classification import load_classification

    data = load_classification(fields["train"], text_columns=["text"], label_column="label",
                               label_names=fields["label_names"])
    assert len(data) == 10 and data.labels[-2:] == [0, 1]


def test_finetune_data_keeps_quotes_and_string_labels_of_the_training_file(tmp_path):
    """A tweet with quotes (the TSV writer refused it: 'need to escape') and string labels in another order
    than the head's: the combined file holds the texts as they were and the names, in the head's order."""
    from explorer.core.data.classification import load_classification

    train = tmp_path / "stance.tsv"
    train.write_text('Tweet\tStance\nhe said "no" to it\tAGAINST\n"quoted" start\tFAVOR\nback\\slash\tNONE\n',
                     encoding="utf-8")
    cols = ["text", "pred_label", "prob_AGAINST", "prob_FAVOR", "prob_NONE"]
    path = write_table(tmp_path / "p.tsv", cols, [{"text": 'new "one"', "pred_label": "NONE", "prob_AGAINST": 0.2,
                                                   "prob_FAVOR": 0.3, "prob_NONE": 0.5}])
    review = Review.from_summary({"out": str(path), "kind": "classification",
                                  "label_names": ["NONE", "FAVOR", "AGAINST"], "input_columns": ["text"],
                                  "text_columns": ["text"], "model": "m"})
    review.set_label(0, "FAVOR")
    fields, _ = finetune_data(load_predictions(path), review, {"train": str(train), "text_columns": ["Tweet"],
                                                               "label_column": "Stance", "no_header": True,
                                                               "encoding": "cp1252", "class_weights": "balanced",
                                                               "max_steps": 300, "run_id": "stance",
                                                               "dev_fraction": 0.1}, tmp_path / "c")
    # the run's recipe goes along; how its old file was read does not (second trial: a kept No header row
    # refused the combined file, and max_steps came from the launcher's last state)
    assert (fields["class_weights"], fields["max_steps"], fields["dev_fraction"]) == ("balanced", 300, 0.1)
    assert (fields["no_header"], fields["encoding"], fields["id_column"]) == (False, "", "")
    assert "run_id" not in fields
    rows = list(csv.reader(open(fields["train"], encoding="utf-8", newline=""), delimiter="\t",
                           quoting=csv.QUOTE_NONE))
    assert rows == [["text", "label"], ['he said "no" to it', "AGAINST"], ['"quoted" start', "FAVOR"],
                    ["back\\slash", "NONE"], ['new "one"', "FAVOR"]]
    data = load_classification(fields["train"], text_columns=["text"], label_column="label",
                               label_names=fields["label_names"])
    assert fields["label_names"] == ["NONE", "FAVOR", "AGAINST"] and data.labels == [2, 1, 0, 1]

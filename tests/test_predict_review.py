"""The review of a predictions file: saved and restored, the labelled file, agreement, fine-tune data."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from helpers import write_file

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
    assert list(rows[0]) == ["text", "label_in_file", "label", "label_source", "p_neg", "p_pos"]   # gold kept; probabilities
    assert [round(float(r["p_pos"]), 2) for r in rows] == [0.95, 0.55, 0.75, 0.65]
    assert again.reviewed_in(len(table)) == 2 and again.reviewed_in(2) == 1
    # row 2 was looked at and kept: "model, reviewed", not "model" as if nobody had checked it
    assert [r["label_source"] for r in rows] == ["model", "person", "model, reviewed", "model"]
    assert rows[1]["label"] == "neg"


def test_agreement_macro_f1_averages_the_labels_that_occur_not_every_class_of_the_model():
    """A 6-row file of a 5-class model names 2 classes: the macro F1 is over those 2 (by hand: neg and pos each
    P 2/3, R 2/3, F1 2/3), not over 5 with three zeros (0.27); the confusion matrix keeps all 5 labels."""
    from sklearn.metrics import f1_score

    gold = ["neg", "neg", "neg", "pos", "pos", "pos"]
    pred = ["neg", "neg", "pos", "pos", "pos", "neg"]
    a = agreement(gold, pred, ["neg", "pos", "a", "b", "c"])
    assert a.macro_f1 == pytest.approx(2 / 3) == pytest.approx(f1_score(gold, pred, average="macro"))
    assert a.labels == ["neg", "pos", "a", "b", "c"] and a.confusion.shape == (5, 5)


def test_gold_numbered_from_one_names_classes_as_the_training_data_read_them():
    """A gold column numbered 1..4 with no 0 beside a head named World..Sci/Tech (trained on such a file): label 1
    is World, as the training data read it; a column with a 0 keeps ids 0..K-1."""
    names = ["World", "Sports", "Business", "Sci/Tech"]
    assert gold_as_names(["1", "4", "3", ""], names) == ["World", "Sci/Tech", "Business", ""]
    assert gold_as_names(["0", "1", "3"], names) == ["World", "Sports", "Sci/Tech"]
    assert gold_as_names(["1", "4"], ["1", "2", "3", "4"]) == ["1", "4"]


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
    with pytest.raises(ValueError, match="no reviewed rows"):
        finetune_data(table, review, {}, tmp_path / "runs" / ".corrections")
    review.set_label(1, "neg")
    review.set_label(3, "pos")
    fields, note = finetune_data(table, review, {"train": str(train), "task": "single", "model": "base"},
                                 tmp_path / "runs" / ".corrections")
    rows = list(csv.DictReader(open(fields["train"], encoding="utf-8"), delimiter="\t"))
    assert len(rows) == 8 + 2 and rows[-2:] == [{"sentence": "t1", "label": "neg", "label_source": "person"},
                                                {"sentence": "t3", "label": "pos", "label_source": "person"}]
    assert {r["label"] for r in rows} == {"neg", "pos"}              # integer ids written as the head's names
    assert {r["label_source"] for r in rows[:8]} == {"original"}     # the training file's own column names
    assert fields["model"] == "base" and fields["text_columns"] == ["sentence"] and fields["label_column"] == "label"
    assert fields["label_names"] == ["neg", "pos"]
    assert "one train file" in note and str(train) in note
    from explorer.core.data.classification import load_classification

    data = load_classification(fields["train"], text_columns=["sentence"], label_column="label",
                               label_names=fields["label_names"])
    assert len(data) == 10 and data.labels[-2:] == [0, 1]


def test_a_fine_tune_from_the_reviewed_checkpoint_is_sized_to_the_reviewed_rows(tmp_path):
    """From the reviewed checkpoint (same head, same classes) the run does not repeat the first run's 4 epochs over
    the whole training file: 3 epochs over the 2 reviewed rows and 3 training rows per reviewed row mixed in, of
    both classes; the note says the rows, epochs and steps. From the first run's model the whole recipe stays."""
    from helpers import write_tiny_classification

    train = write_tiny_classification(tmp_path / "train.tsv", repeat=5)    # 40 rows
    table, review = _predictions(tmp_path)
    review.model = str(tmp_path / "run1" / "checkpoints" / "best")
    Path(review.model).mkdir(parents=True)
    (Path(review.model) / "config.json").write_text(json.dumps({
        "architectures": ["BertForSequenceClassification"], "id2label": {"0": "neg", "1": "pos"}, "num_labels": 2}))
    review.set_label(1, "neg")
    review.mark_reviewed(2)
    run = {"train": str(train), "task": "single", "model": "base", "epochs": 4.0, "batch_size": 4, "max_steps": 0,
           "time_budget_minutes": 30.0, "seed": 7}
    fields, note = finetune_data(table, review, run, tmp_path / "runs" / ".corrections")
    assert fields["model"] == review.model
    assert fields["epochs"] == 3.0 and fields["max_steps"] == 0 and fields["time_budget_minutes"] == 0.0
    rows = list(csv.DictReader(open(fields["train"], encoding="utf-8"), delimiter="\t"))
    assert [r["sentence"] for r in rows[:2]] == ["t1", "t2"] and len(rows) == 2 + 6
    assert {r["label_source"] for r in rows[2:]} == {"original"} and {r["label"] for r in rows[2:]} == {"neg", "pos"}
    assert ("3 epochs over the 2 reviewed rows and 6 rows of train.tsv mixed in (3 per reviewed row" in note
            and "8 rows in all: about 6 optimizer steps at batch 4, not the first run's 4 epochs over 42 rows" in note)
    # the same review from the first run's model: every training row, the first run's recipe
    review.model = "m"
    fields, note = finetune_data(table, review, run, tmp_path / "runs" / ".corrections")
    assert fields["model"] == "base" and fields["epochs"] == 4.0 and fields["time_budget_minutes"] == 30.0
    assert len(list(csv.DictReader(open(fields["train"], encoding="utf-8"), delimiter="\t"))) == 42
    assert "short fine-tune" not in note


def test_finetune_data_reads_the_training_file_with_the_runs_label_names(tmp_path):
    """A run whose classes are written -1 and 1 was trained with Label names "-1,1": the combined file reads its
    training file the same way, instead of refusing "label -1 is negative … --label-names=-1,1"."""
    train = tmp_path / "train.tsv"
    train.write_text("sentence\tlabel\n" + "".join(f"text {i}\t{'1' if i % 2 else '-1'}\n" for i in range(8)),
                     encoding="utf-8")
    cols = ["text", "predicted_label", "p_-1", "p_1", "margin", "error"]
    path = write_table(tmp_path / "p.csv", cols, [{"text": f"t{i}", "predicted_label": "1", "p_-1": 0.4, "p_1": 0.6,
                                                   "margin": 0.2, "error": ""} for i in range(3)])
    review = Review.from_summary({"out": str(path), "kind": "classification", "label_names": ["-1", "1"],
                                  "input_columns": ["text"], "text_columns": ["text"], "model": "m"})
    review.set_label(1, "-1")
    fields, _ = finetune_data(load_predictions(path), review, {"train": str(train), "task": "single", "model": "m",
                                                               "label_names": ["-1", "1"]}, tmp_path / "c")
    rows = list(csv.DictReader(open(fields["train"], encoding="utf-8"), delimiter="\t"))
    assert len(rows) == 9 and rows[-1]["label"] == "-1" and {r["label"] for r in rows} == {"-1", "1"}


def test_finetune_data_of_a_capped_run_holds_its_rows_and_every_reviewed_row_uncapped(tmp_path):
    """A first run capped at 5 rows trained on the 5 its cap kept: the combined file holds those 5 and the two
    reviewed rows after them, and the fields clear the cap (a cap of 5 left in the launcher would draw 5 rows of
    the combined file and leave corrections out)."""
    from helpers import write_tiny_classification

    train = write_tiny_classification(tmp_path / "train.tsv")
    table, review = _predictions(tmp_path)
    review.set_label(1, "neg")
    review.set_label(3, "pos")
    fields, note = finetune_data(table, review, {"train": str(train), "task": "single", "model": "base",
                                                 "train_cap": 5}, tmp_path / "runs" / ".corrections")
    rows = list(csv.DictReader(open(fields["train"], encoding="utf-8"), delimiter="\t"))
    assert len(rows) == 5 + 2 and [r["sentence"] for r in rows[-2:]] == ["t1", "t3"]
    assert fields["train_cap"] == 0
    assert "the 5 rows the first run's Train cap kept, seed 42" in note


def test_finetune_data_of_a_capped_run_holds_the_rows_the_run_trained_on(tmp_path):
    """A first run capped at 10 rows of a label-sorted file trained on a stratified 10 (both classes), not the
    file's first 10: the combined file holds exactly the rows the run read, in the file's order, then the
    reviewed row."""
    from helpers import write_label_sorted_table

    from explorer.core.specs.train_config import TrainConfig
    from explorer.core.training.tasks import get_task

    train = write_label_sorted_table(tmp_path / "sorted.tsv", names=("neg", "pos"))
    run = get_task("single").load(TrainConfig(task="single", train=str(train), train_cap=10, seed=5), "train")
    table, review = _predictions(tmp_path)
    review.set_label(1, "pos")
    fields, _ = finetune_data(table, review, {"train": str(train), "task": "single", "model": "base",
                                              "train_cap": 10, "seed": 5}, tmp_path / "runs" / ".corrections")
    rows = list(csv.DictReader(open(fields["train"], encoding="utf-8"), delimiter="\t"))
    assert [r["sentence"] for r in rows] == list(run.texts_a) + ["t1"]
    assert {r["label"] for r in rows[:10]} == {"neg", "pos"}


def test_finetune_data_keeps_quotes_and_string_labels_of_the_training_file(tmp_path):
    """A tweet with quotes (the TSV writer refused it: 'need to escape') and string labels in another order
    than the head's: the combined file holds the texts as they were and the names, in the head's order."""
    from explorer.core.data.classification import load_classification

    train = tmp_path / "stance.tsv"
    train.write_text('he said "no" to it\tAGAINST\n"quoted" start\tFAVOR\nback\\slash\tNONE\n',
                     encoding="utf-8")
    cols = ["text", "pred_label", "prob_AGAINST", "prob_FAVOR", "prob_NONE"]
    path = write_table(tmp_path / "p.tsv", cols, [{"text": 'new "one"', "pred_label": "NONE", "prob_AGAINST": 0.2,
                                                   "prob_FAVOR": 0.3, "prob_NONE": 0.5}])
    review = Review.from_summary({"out": str(path), "kind": "classification",
                                  "label_names": ["NONE", "FAVOR", "AGAINST"], "input_columns": ["text"],
                                  "text_columns": ["text"], "model": "m"})
    review.set_label(0, "FAVOR")
    fields, _ = finetune_data(load_predictions(path), review, {"train": str(train), "text_columns": ["1"],
                                                               "label_column": "2", "no_header": True,
                                                               "encoding": "cp1252", "class_weights": "balanced",
                                                               "max_steps": 300, "run_id": "stance",
                                                               "dev_fraction": 0.1}, tmp_path / "c")
    # the run's recipe goes along; how its old file was read does not (a kept No header row would refuse the
    # combined file, and max_steps must not come from the launcher's last state)
    assert (fields["class_weights"], fields["max_steps"], fields["dev_fraction"]) == ("balanced", 300, 0.1)
    assert (fields["no_header"], fields["encoding"], fields["id_column"]) == (False, "", "")
    assert "run_id" not in fields
    rows = list(csv.reader(open(fields["train"], encoding="utf-8", newline=""), delimiter="\t",
                           quoting=csv.QUOTE_NONE))
    # read as the run read it (no header, cp1252), written with a header of its positions
    assert rows == [["1", "2", "label_source"], ['he said "no" to it', "AGAINST", "original"],
                    ['"quoted" start', "FAVOR", "original"], ["back\\slash", "NONE", "original"],
                    ['new "one"', "FAVOR", "person"]]
    data = load_classification(fields["train"], text_columns=fields["text_columns"], label_column=fields["label_column"],
                               label_names=fields["label_names"])
    assert fields["label_names"] == ["NONE", "FAVOR", "AGAINST"] and data.labels == [2, 1, 0, 1]


def _stance_run(tmp_path, dev: str = ""):
    """A stance-like training file (ID, Target, Tweet, Stance), a run folder whose config.json reads it with
    explicit columns and, without ``dev``, a dev_split.csv of 6 held-out rows written as the task writes it."""
    import json

    from explorer.core.data.classification import load_classification
    from explorer.core.data.split import stratified_split, write_dev_split
    from explorer.core.runs.layout import dev_split_file

    train = tmp_path / "stance.tsv"
    stances = ["AGAINST", "FAVOR", "NONE"]
    lines = ["ID\tTarget\tTweet\tStance"] + [f"{100 + i}\tTarget {i % 4}\ttweet number {i}\t{stances[i % 3]}"
                                              for i in range(24)]
    train.write_text("\n".join(lines) + "\n", encoding="utf-8")
    cfg = {"task": "single", "model": "base", "train": str(train), "dev": dev, "text_columns": ["Tweet"],
           "label_column": "Stance", "id_column": "ID", "dev_fraction": None if dev else 0.25, "seed": 3}
    run = tmp_path / "runs" / "run1"
    run.mkdir(parents=True)
    (run / "config.json").write_text(json.dumps(cfg), encoding="utf-8")
    held = []
    if not dev:
        data = load_classification(str(train), text_columns=["Tweet"], label_column="Stance", id_column="ID")
        held, _ = stratified_split(data.labels, 0.25, 3)
        write_dev_split(dev_split_file(run), data, held)
    return cfg, run, [str(100 + i) for i in held]


def _stance_predictions(tmp_path, texts: list[str]):
    cols = ["ID", "Target", "Tweet", "predicted_label", "margin"]
    rows = [{"ID": f"9{k}", "Target": "Target X", "Tweet": t, "predicted_label": "NONE", "margin": 0.1}
            for k, t in enumerate(texts)]
    path = write_table(tmp_path / "p.tsv", cols, rows)
    review = Review.from_summary({"out": str(path), "kind": "classification",
                                  "label_names": ["AGAINST", "FAVOR", "NONE"], "input_columns": ["ID", "Target", "Tweet"],
                                  "text_columns": ["Tweet"], "model": "m"})
    return load_predictions(path), review


def _tsv(path):
    return list(csv.DictReader(open(path, encoding="utf-8", newline=""), delimiter="\t", quoting=csv.QUOTE_NONE))


def test_finetune_data_keeps_the_first_runs_held_out_rows_as_dev(tmp_path):
    """The first run's held-out rows are the new run's dev file (original labels), so its dev figures are on the
    same rows (never a new 10% split); none of them is trained on (a corrected row that is one of them neither),
    and every column of the stance file survives."""
    from explorer.core.data.classification import load_classification

    cfg, run, held = _stance_run(tmp_path)
    assert len(held) == 6
    held_text = f"tweet number {int(held[0]) - 100}"
    table, review = _stance_predictions(tmp_path, ["a brand new tweet", held_text])
    review.set_label(0, "FAVOR")
    stances = ["AGAINST", "FAVOR", "NONE"]
    review.set_label(1, stances[(int(held[0]) - 99) % 3])             # another label than its gold one
    fields, note = finetune_data(table, review, cfg, tmp_path / "runs" / ".corrections", run_dir=run)

    dev = _tsv(fields["dev"])
    assert [r["ID"] for r in dev] == held and fields["dev_fraction"] == 0.0
    # named after the training file whose rows they hold, then the predictions / run they came from (never stance
    # rows in a file named after the predictions file)
    train_stem = Path(cfg["train"]).name.split(".")[0]
    assert Path(fields["train"]).name == f"{train_stem}-plus-corrected-p.tsv"
    assert Path(fields["dev"]).name == f"{train_stem}-dev-rows-of-{cfg.get('run_id') or 'p'}.tsv"
    gold = {f"{100 + i}": ["AGAINST", "FAVOR", "NONE"][i % 3] for i in range(24)}
    assert all(r["Stance"] == gold[r["ID"]] for r in dev)                 # the original gold labels
    assert list(dev[0]) == ["ID", "Target", "Tweet", "Stance", "label_source"]
    train = _tsv(fields["train"])
    assert list(train[0]) == ["ID", "Target", "Tweet", "Stance", "label_source"]
    assert not set(held) & {r["ID"] for r in train}
    assert held_text not in {r["Tweet"] for r in train}                   # the corrected dev row is not trained on
    assert len(train) == 24 - 6 + 1
    assert train[-1] == {"ID": "90", "Target": "Target X", "Tweet": "a brand new tweet", "Stance": "FAVOR",
                         "label_source": "person"}
    assert train[0]["Target"] == "Target 0" and train[0]["label_source"] == "original"
    assert note.startswith("The dev rows are the first run's: the 6 training rows it held out")
    assert "1 reviewed row is among those dev rows" in note
    # the new run reads both files with its fields
    for path in (fields["train"], fields["dev"]):
        data = load_classification(path, text_columns=fields["text_columns"], label_column=fields["label_column"],
                                   label_names=fields["label_names"])
        assert len(data) in (19, 6)


def test_finetune_data_keeps_an_explicit_dev_file(tmp_path):
    """A run with a dev file keeps it (a stale dev_split.csv in the folder is not read), and one read with
    no_header gets the same rows rewritten with a header, so the new fields read it."""
    from explorer.core.data.classification import load_classification
    from explorer.core.runs.layout import dev_split_file

    dev = tmp_path / "dev.tsv"
    dev.write_text("ID\tTarget\tTweet\tStance\n7\tT\tsome dev tweet\tFAVOR\n8\tT\tanother one\tNONE\n",
                   encoding="utf-8")
    cfg, run, _ = _stance_run(tmp_path, dev=str(dev))
    dev_split_file(run).write_text("row_id,line,label\n100,2,AGAINST\n", encoding="utf-8")
    table, review = _stance_predictions(tmp_path, ["a brand new tweet"])
    review.set_label(0, "FAVOR")
    fields, note = finetune_data(table, review, cfg, tmp_path / "c", run_dir=run)
    assert fields["dev"] == str(dev) and fields.get("dev_fraction") is None
    assert len(_tsv(fields["train"])) == 24 + 1 and f"its dev file {dev} is kept" in note

    bare = tmp_path / "bare.tsv"
    bare.write_text("1\tT\tsome dev tweet\tFAVOR\n2\tT\tanother one\tNONE\n", encoding="utf-8")
    train = tmp_path / "bare_train.tsv"
    train.write_text("".join(f"{i}\tT\ttweet {i}\t{['FAVOR', 'NONE'][i % 2]}\n" for i in range(6)), encoding="utf-8")
    cfg = {"task": "single", "train": str(train), "dev": str(bare), "text_columns": ["3"], "label_column": "4",
           "no_header": True}
    fields, note = finetune_data(table, review, cfg, tmp_path / "c2", run_dir=run)
    assert fields["dev"] != str(bare) and "rewritten" in note
    data = load_classification(fields["dev"], text_columns=fields["text_columns"], label_column=fields["label_column"],
                               label_names=fields["label_names"])
    assert data.texts_a == ["some dev tweet", "another one"] and data.raw_labels == ["FAVOR", "NONE"]
    assert _tsv(fields["train"])[-1]["3"] == "a brand new tweet"


def test_a_row_without_a_prediction_is_labelled_none_in_the_labelled_file(tmp_path):
    """A row predict could not label (an empty text: its error column says why) has no label, so its source is
    "none", not "model"."""
    cols = ["text", "predicted_label", "p_neg", "p_pos", "margin", "error"]
    rows = [{"text": "good", "predicted_label": "pos", "p_neg": 0.2, "p_pos": 0.8, "margin": 0.6, "error": ""},
            {"text": "", "predicted_label": "", "p_neg": "", "p_pos": "", "margin": "",
             "error": "line 3: empty 'text'"}]
    path = write_table(tmp_path / "p.csv", cols, rows)
    review = Review.from_summary({"out": str(path), "kind": "classification", "label_names": ["neg", "pos"],
                                  "input_columns": ["text"], "text_columns": ["text"], "model": "m"})
    out = save_labelled(load_predictions(path), review, tmp_path / "labelled.csv")
    got = list(csv.DictReader(open(out, encoding="utf-8")))
    assert [(r["label"], r["label_source"]) for r in got] == [("pos", "model"), ("", "none")]


def test_the_labelled_file_keeps_the_files_own_label_column_beside_the_reviewed_one(tmp_path):
    """A file predicted with its own gold ``label`` column (0/1, as its source wrote them): the labelled file keeps
    those values as ``label_in_file`` and writes the model's or the person's labels as ``label``, never over them."""
    cols = ["text", "label", "predicted_label", "p_negative", "p_positive", "margin", "error"]
    rows = [{"text": "love it", "label": "1", "predicted_label": "positive", "p_negative": 0.1, "p_positive": 0.9,
             "margin": 0.8, "error": ""},
            {"text": "broke in a week", "label": "0", "predicted_label": "positive", "p_negative": 0.4,
             "p_positive": 0.6, "margin": 0.2, "error": ""}]
    path = write_table(tmp_path / "p.csv", cols, rows)
    review = Review.from_summary({"out": str(path), "kind": "classification", "label_names": ["negative", "positive"],
                                  "input_columns": ["text", "label"], "text_columns": ["text"], "model": "m"})
    out = save_labelled(load_predictions(path), review, tmp_path / "labelled.csv")
    got = list(csv.DictReader(open(out, encoding="utf-8")))
    assert list(got[0])[:4] == ["text", "label_in_file", "label", "label_source"]
    assert [(r["label_in_file"], r["label"]) for r in got] == [("1", "positive"), ("0", "positive")]


def _classification_predictions(tmp_path, rows=None):
    """A classification predictions file of a stance model (id, text, author, then the model's columns; row 5 is
    an empty text) and a fresh review of it."""
    from explorer.core.predict.review import Review, load_predictions
    from explorer.core.predict.writing import write_table

    rows = rows or [
        {"id": str(i), "text": f"a tweet of some length about topic number {i}, " * 2, "author": "Zoë Müller",
         "predicted_label": ["AGAINST", "FAVOR", "NONE"][i % 3], "p_AGAINST": "0.4165", "p_FAVOR": "0.5306",
         "p_NONE": "0.0529", "margin": f"{0.1 + i / 100:.4f}", "error": ""} for i in range(1, 17)]
    rows[4] = dict(rows[4], text="", predicted_label="", p_AGAINST="", p_FAVOR="", p_NONE="", margin="",
                   error="line 6: empty 'text'")
    path = write_table(tmp_path / "new_texts.predictions.csv", list(rows[0]), rows)
    review = Review(str(path), "model", "new_texts.csv", "classification", ["AGAINST", "FAVOR", "NONE"],
                    ["id", "text", "author"], ["text"])
    return load_predictions(path), review


def test_a_fine_tune_adds_the_reviewed_rows_corrected_and_confirmed(tmp_path):
    """Fine-tuning on corrections adds the changed rows and the row the researcher reviewed and confirmed
    (FAVOR, kept): a confirmed row is a labelled example; it goes in, marked, and the note says so."""
    import csv

    from explorer.core.predict.review import finetune_data

    train = write_file(tmp_path / "stance" / "train.tsv", "Tweet\tStance\n" + "".join(
        f"tweet {i}\t{['AGAINST', 'FAVOR', 'NONE'][i % 3]}\n" for i in range(9)))
    table, review = _classification_predictions(tmp_path)
    review.set_label(1, "AGAINST")             # corrected (the model said NONE)
    review.mark_reviewed(0)                    # confirmed: the model's FAVOR kept
    review.mark_reviewed(4)                    # the empty row: no label, not an example
    fields, note = finetune_data(table, review, {"train": str(train), "task": "single", "model": "m"}, tmp_path / "c")
    rows = list(csv.DictReader(open(fields["train"], encoding="utf-8"), delimiter="\t"))
    added = [(r["Tweet"][:20], r["Stance"], r["label_source"]) for r in rows[9:]]
    assert added == [(table.column("text")[0][:20], "FAVOR", "model, reviewed"),
                     (table.column("text")[1][:20], "AGAINST", "person")]
    assert "2 reviewed rows of new_texts.predictions.csv (1 corrected, 1 confirmed: the model's label, kept)" in note


def test_fine_tune_again_starts_from_the_reviewed_checkpoint_when_its_head_and_classes_match(tmp_path):
    """"Fine-tune on reviewed rows" starts from the checkpoint whose predictions were reviewed (same head, same
    classes in the same order); a checkpoint of another head or other classes, a missing one, or a
    cross-validation group's review starts from the first run's model, and the note says which and why."""
    import json

    from explorer.core.predict.review import start_model

    def checkpoint(name, arch, id2label):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "config.json").write_text(json.dumps({"architectures": [arch], "id2label": id2label,
                                                         "num_labels": len(id2label)}), encoding="utf-8")
        return str(folder)

    _table, review = _predictions(tmp_path)
    run = {"model": "bert-base-uncased", "task": "single"}
    review.model = checkpoint("best", "BertForSequenceClassification", {"0": "neg", "1": "pos"})
    model, note = start_model(run, review, "single", ["neg", "pos"])
    assert model == review.model and note.startswith(
        f"The new run starts from the reviewed checkpoint {tmp_path.parent.name}/{tmp_path.name}/best (same head, "
        "same classes)")   # its run's folder and below: the Model field has the whole path
    assert "set Model" not in note   # the run from it is a short one, sized to the reviewed rows
    model, note = start_model(run, review, "single", ["pos", "neg"])           # the classes in another order
    assert model == "bert-base-uncased" and "its classes are not the run's (pos, neg)" in note
    review.model = checkpoint("qa", "BertForQuestionAnswering", {})
    model, note = start_model(run, review, "single", ["neg", "pos"])
    assert model == "bert-base-uncased" and "its head is question-answering" in note
    review.model = str(tmp_path / "gone")
    assert start_model(run, review, "single", ["neg", "pos"])[0] == "bert-base-uncased"
    review.model, review.train_config = checkpoint("fold", "BertForSequenceClassification", {"0": "neg", "1": "pos"}), \
        str(tmp_path / "group.json")
    assert start_model(run, review, "single", ["neg", "pos"])[0] == "bert-base-uncased"

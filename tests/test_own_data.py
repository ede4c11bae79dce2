"""Your own labelled data. Every loader path of core/data/table.py with a file the test writes
(CSV, TSV, JSONL, xlsx, cp1252, BOM + CRLF, lone \\r, no header, extra fields), the label rules (string
classes, score-like columns, empty texts, missing labels, unseen dev labels), the stratified dev split,
balanced class weights against scikit-learn, f_avg, and the checkpoint head against the data's labels."""

import contextlib
import io
import json
from pathlib import Path

import numpy as np
import pytest
from helpers import save_tiny_model

from explorer.core.data.classification import (
    ClassificationDataError,
    load_classification,
)
from explorer.core.data.split import stratified_split
from explorer.core.data.columns_guess import guess_columns
from explorer.core.data.table import preview_table, read_table
from explorer.core.errors import ConfigError
from explorer.core.protocol.events import iter_events
from explorer.core.metrics.glue import classification_metrics
from explorer.core.specs.train_config import TrainConfig
from explorer.core.training.tasks.classification import parse_weights_for


def _write(path: Path, text: str, encoding: str = "utf-8") -> Path:
    with open(path, "w", newline="", encoding=encoding) as fh:
        fh.write(text)
    return path


def test_csv_tsv_jsonl_and_string_labels(tmp_path):
    c = _write(tmp_path / "d.csv", 'id,text,stance\n7,"good, really",FAVOR\n8,bad,AGAINST\n9,meh,NONE\n')
    d = load_classification(str(c), id_column="id")
    assert d.texts_a == ["good, really", "bad", "meh"] and d.label_names == ["AGAINST", "FAVOR", "NONE"]
    assert d.labels == [1, 0, 2] and d.row_ids == ["7", "8", "9"] and d.lines == [2, 3, 4]
    t = _write(tmp_path / "d.tsv", 'Tweet\tStance\nsay "hi"\tFAVOR\nno\tAGAINST\n')
    d = load_classification(str(t), label_names=["FAVOR", "AGAINST"])
    assert d.texts_a[0] == 'say "hi"' and d.labels == [0, 1] and d.label_names == ["FAVOR", "AGAINST"]
    j = _write(tmp_path / "d.jsonl", '{"sentence": "a", "label": "pos"}\n\n{"sentence": "b", "label": "neg"}\n')
    assert load_classification(str(j)).labels == [1, 0]


def test_xlsx_first_sheet(tmp_path):
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["text", "label"])
    sheet.append(["fine film", "pos"])
    sheet.append(["dull", "neg"])
    sheet.append([None, "neg"])
    book.save(tmp_path / "d.xlsx")
    with pytest.raises(ClassificationDataError, match=r"d.xlsx row 4, column 1 'text': empty text"):
        load_classification(str(tmp_path / "d.xlsx"))
    d = load_classification(str(tmp_path / "d.xlsx"), skip_invalid=True)
    assert d.texts_a == ["fine film", "dull"] and d.label_names == ["neg", "pos"]
    assert any("1 row skipped" in m for _, m in d.notes)


def test_cp1252_is_detected_and_named_or_forced(tmp_path):
    p = tmp_path / "w.txt"
    p.write_bytes("Tweet\tStance\r\nit\u2019s caf\u00e9 time\tFAVOR\r\nno\tNONE\r\n".encode("cp1252"))
    t = read_table(p)
    assert t.encoding == "Windows-1252" and t.rows[0][1] == ["it\u2019s caf\u00e9 time", "FAVOR"]
    assert "read as Windows-1252: 2 bytes are not UTF-8 (the first on line 2)" in t.notes
    assert read_table(p, encoding="latin-1").rows[0][1][0] == "it\x92s caf\u00e9 time"
    with pytest.raises(ClassificationDataError, match="line 2: byte 0x92 is not UTF-8 text"):
        read_table(p, encoding="utf-8")


def test_bytes_windows_1252_leaves_undefined_are_read_as_latin1_and_said(tmp_path):
    p = tmp_path / "l.csv"   # 0x9d and 0x81 are not Windows-1252: only Latin-1 decodes every byte
    p.write_bytes("text,label\nfine,pos\ncaf\xe9 \x9d wait,neg\nplain \x81 text,pos\n".encode("latin-1"))
    t = read_table(p)
    assert t.encoding == "Latin-1" and [v for _, v in t.rows][1:] == [["caf\xe9 \x9d wait", "neg"],
                                                                     ["plain \x81 text", "pos"]]
    assert "read as Latin-1: 3 bytes are not UTF-8 (the first on line 3)" in t.notes


def test_bom_crlf_lone_cr_and_quoted_line_break(tmp_path):
    p = _write(tmp_path / "a.tsv", "\ufeffsentence\tlabel\r\na warm\rfilm\t1\r\na dull plot\t0\r\n")
    d = load_classification(str(p))
    assert d.texts_a == ["a warm\rfilm", "a dull plot"] and d.labels == [1, 0] and d.columns[0] == "sentence"
    c = _write(tmp_path / "a.csv", 'sentence,label\r\n"a warm, funny film",1\r\n"two\r\nlines",0\r\nthree,1\r\n')
    d = load_classification(str(c))
    assert d.texts_a == ["a warm, funny film", "two\nlines", "three"] and d.lines == [2, 3, 5]
    assert not any(t.endswith("\r") for t in d.texts_a) and d.raw_labels == ["1", "0", "1"]


# old Mac line ends (a bare CR ends each line, a LF inside a quoted text), bytes 0x9d and 0x81 that Windows-1252
# leaves undefined: only Latin-1 decodes every byte
MAC_LATIN1 = ('tweet_text,directed_at,emotion\r'
              '"first tweet, plain",iPad,Positive emotion\r'
              '"caf\xe9 \x9d wait\nnext line",,No emotion\r'
              'plain \x81 text,Google,Negative emotion\r')


def test_old_mac_line_ends_and_latin1_bytes_are_read_and_said(tmp_path):
    p = tmp_path / "mac.csv"
    p.write_bytes(MAC_LATIN1.encode("latin-1"))
    t = read_table(p)
    assert t.encoding == "Latin-1" and t.columns == ["tweet_text", "directed_at", "emotion"]
    assert [line for line, _ in t.rows] == [2, 3, 4]
    assert [v[2] for _, v in t.rows] == ["Positive emotion", "No emotion", "Negative emotion"]
    assert t.rows[1][1][0] == "caf\xe9 \x9d wait\nnext line"
    assert "read as Latin-1: 3 bytes are not UTF-8 (the first on line 3)" in t.notes
    assert any("old Mac line ends (CR) read as line ends" in n for n in t.notes)
    d = load_classification(str(p), text_columns=["tweet_text"], label_column="emotion")
    assert d.raw_labels == ["Positive emotion", "No emotion", "Negative emotion"] and d.lines == [2, 3, 4]
    assert d.texts_a[2] == "plain \x81 text"


def test_the_launcher_preview_reads_old_mac_line_ends_and_latin1(tmp_path):
    from explorer.ui.launch import data_preview

    p = tmp_path / "mac.csv"
    p.write_bytes(MAC_LATIN1.encode("latin-1"))
    res = data_preview.preview_data(str(p), "single", text_columns=["tweet_text"], label_column="emotion")
    assert res["ok"], res["error"]
    assert res["counts"]["examples"] == 3
    assert [r["emotion"] for r in res["records"]] == ["Positive emotion", "No emotion", "Negative emotion"]
    notes = " ".join(res["notes"])
    assert "read as Latin-1" in notes and "old Mac line ends (CR) read as line ends" in notes


def test_a_byte_not_in_the_given_encoding_is_named_on_its_line_counted_by_cr(tmp_path):
    p = tmp_path / "mac.csv"
    p.write_bytes(MAC_LATIN1.encode("latin-1"))
    with pytest.raises(ClassificationDataError, match="mac.csv line 3: byte 0x9d is not Windows-1252 text"):
        read_table(p, encoding="cp1252")
    with pytest.raises(ClassificationDataError, match="mac.csv line 3: byte 0xe9 is not UTF-8 text"):
        read_table(p, encoding="utf-8")


def test_old_mac_line_ends_are_found_when_quoted_texts_hold_more_line_feeds_than_there_are_rows(tmp_path):
    """Rows ended by a bare CR whose quoted reviews hold more LFs than the file has rows (a restaurant review
    table: 10,000 CRs, 16,751 LFs inside its reviews): the line ends are counted outside quotes, so the file reads
    as its rows, not as one header line of thousands of columns. The same rows ended by LF stay LF rows (each on
    the line where it starts), a lone CR in a quoted text kept as text."""
    review = '"Great food.\nSlow service.\nWould come back.\nReally."'
    rows = [f"Cafe {i},{review},{1 + i % 5}" for i in range(6)]
    p = tmp_path / "reviews.csv"
    p.write_bytes(("Restaurant,Review,Rating\r" + "\r".join(rows) + "\r").encode("utf-8"))
    t = read_table(p)
    assert t.columns == ["Restaurant", "Review", "Rating"]
    assert [line for line, _ in t.rows] == [2, 3, 4, 5, 6, 7]
    assert t.rows[0][1][1] == "Great food.\nSlow service.\nWould come back.\nReally."
    assert any("old Mac line ends (CR) read as line ends" in n for n in t.notes)
    lf = tmp_path / "lf.csv"
    lf.write_bytes(("Restaurant,Review,Rating\n" + "\n".join(rows).replace("Really.", "Really\r.") + "\n")
                   .encode("utf-8"))
    t = read_table(lf)
    assert [line for line, _ in t.rows] == [2, 6, 10, 14, 18, 22]
    assert t.rows[0][1][1] == "Great food.\nSlow service.\nWould come back.\nReally\r."


def test_a_lone_cr_in_a_file_of_lf_lines_stays_text_and_a_mostly_cr_file_splits(tmp_path):
    lf = tmp_path / "lf.csv"
    lf.write_bytes(b"text,label\nwarm\rfilm,pos\ndull\rplot\rtoo,neg\n")
    assert [v for _, v in read_table(lf).rows] == [["warm\rfilm", "pos"], ["dull\rplot\rtoo", "neg"]]
    txt = tmp_path / "mac.txt"
    txt.write_bytes(b"first text\rsecond text\r\rthird\r")
    t = read_table(txt)
    assert [v for _, v in t.rows] == [["first text"], ["second text"], ["third"]] and [n for n, _ in t.rows] == [1, 2, 4]


def test_no_header_positions_and_long_rows_counted(tmp_path):
    p = _write(tmp_path / "sts.csv", "g\tf\ty\t1\t4.2\tA man.\tA guy.\n"
                                     "g\tf\ty\t2\t0.5\tA dog.\tA cat.\tnote\tmore\n"
                                     "g\tf\ty\t3\t3.0\tRain.\tIt rains.\n")
    t = read_table(p, no_header=True)
    assert t.columns == ["1", "2", "3", "4", "5", "6", "7"] and t.long_rows == [2]
    assert any("1 row has more fields than the 7 most rows have" in n and "lines 2" in n for n in t.notes)
    d = load_classification(str(p), pair=True, no_header=True, text_columns=["6", "7"], label_column="5",
                            regression=True)
    assert d.texts_b == ["A guy.", "A cat.", "It rains."] and d.labels == [4.2, 0.5, 3.0]
    with pytest.raises(ClassificationDataError, match="no header; give the text column"):
        load_classification(str(p), no_header=True)


def test_extra_field_with_a_header_is_an_error_naming_the_line(tmp_path):
    p = _write(tmp_path / "x.tsv", "sentence\tlabel\nok\t1\nnot\tok\t0\n")
    with pytest.raises(ClassificationDataError, match=r"x.tsv line 3: expected 2 fields \(as in the header\), got 3"):
        load_classification(str(p))


def test_empty_text_and_missing_label_are_listed_or_skipped(tmp_path):
    p = _write(tmp_path / "e.csv", "text,label\nfine,a\n  ,b\nok,\nyes,b\nyes,b\n")
    with pytest.raises(ClassificationDataError) as exc:
        load_classification(str(p))
    msg = str(exc.value)
    assert "2 row problems" in msg and "e.csv line 3, column 1 'text': empty text" in msg
    assert "e.csv line 4, column 2 'label': missing label" in msg and "--skip-invalid" in msg
    d = load_classification(str(p), skip_invalid=True)
    assert d.texts_a == ["fine", "yes", "yes"]
    assert any("2 rows skipped" in m for _, m in d.notes) and any("1 duplicate row" in m for _, m in d.notes)


def test_labels_of_another_kind_than_the_column_are_listed_or_skipped(tmp_path):
    rows = [("great food", "5"), ("slow", "2"), ("ok", "3"), ("meh", "Like"), ("fine", "4"), ("nice", "3.5"),
            ("bad", "1"), ("good", "4")]
    p = _write(tmp_path / "r.csv", "Review,Rating\n" + "".join(f"{t},{y}\n" for t, y in rows))
    with pytest.raises(ClassificationDataError) as exc:
        load_classification(str(p), label_column="Rating")
    msg = str(exc.value)
    assert msg.startswith("2 of 8 labels: not a whole number, while most labels are (")
    assert "r.csv line 5, column 2 'Rating': 'Like'" in msg and "r.csv line 7, column 2 'Rating': '3.5'" in msg
    assert "--skip-invalid" in msg
    d = load_classification(str(p), label_column="Rating", skip_invalid=True)
    assert d.texts_a == ["great food", "slow", "ok", "fine", "bad", "good"] and d.lines == [2, 3, 4, 6, 8, 9]
    assert d.label_names == ["1", "2", "3", "4", "5"] and d.labels == [4, 1, 2, 3, 0, 3] and d.numbered_from == 1
    assert any(m.endswith("2 rows skipped (label not a whole number, while most labels are) on lines 5, 7 "
                          "(first: 'Like')") for _, m in d.notes)
    # the launcher's preview names the box that skips them, and with it ticked counts what is left
    from explorer.ui.launch.data_preview import preview_data

    out = preview_data(str(p), "single", n_records=5, label_column="Rating")
    assert not out["ok"] and "“Skip invalid rows”" in out["error"] and "'Like'" in out["error"]
    out = preview_data(str(p), "single", n_records=5, label_column="Rating", options={"skip_invalid": True})
    assert out["ok"] and out["counts"]["examples"] == 6 and out["counts"]["labels"] == 5


def test_a_label_that_is_not_one_of_the_label_names_is_skipped_with_skip_invalid(tmp_path):
    p = _write(tmp_path / "n.csv", "text,label\na,pos\nb,neg\nc,postive\nd,pos\ne,1\nf,neg\n")
    with pytest.raises(ClassificationDataError, match="n.csv line 4, column 2 'label': 'postive'"):
        load_classification(str(p), label_names=["neg", "pos"])
    d = load_classification(str(p), label_names=["neg", "pos"], skip_invalid=True)
    assert d.texts_a == ["a", "b", "d", "f"] and d.labels == [1, 0, 1, 0]
    assert any("2 rows skipped (label not one of the label names" in m and "on lines 4, 6 " in m for _, m in d.notes)


def test_whitespace_and_case_of_labels(tmp_path):
    p = _write(tmp_path / "l.tsv", "text\tlabel\na\t FAVOR \nb\tFavor\nc\tAGAINST\n")
    d = load_classification(str(p))
    assert d.label_names == ["AGAINST", "FAVOR", "Favor"]
    assert any("1 label had spaces around them, stripped" in m for _, m in d.notes)
    assert any("'FAVOR' and 'Favor' differ only by case" in m for lvl, m in d.notes if lvl == "warning")


@pytest.mark.parametrize("labels, why", [(["0.5", "3.8", "2"], "values from 0.5 to 3.8"),
                                         (["5.0", "3.0", "1.0"], "whole numbers written as 5.0")])
def test_score_like_labels_are_refused_with_a_pointer_to_regression(tmp_path, labels, why):
    p = _write(tmp_path / "s.tsv", "text\tscore\n" + "".join(f"t{i}\t{y}\n" for i, y in enumerate(labels)))
    with pytest.raises(ClassificationDataError, match="--task regression") as exc:
        load_classification(str(p))
    assert why in str(exc.value) and "s.tsv line" in str(exc.value) and "column 2 'score'" in str(exc.value)
    assert ("is not an integer" in str(exc.value)) == (labels[0] == "0.5")   # 5.0 is a whole number, said so


def _numbered_from_one(path: Path) -> Path:
    """A table as AG News writes it: header label,title,description and classes numbered 1..4."""
    return _write(path, "label,title,description\n" + "".join(f"{1 + i % 4},t{i},words of row {i}\n"
                                                               for i in range(12)))


def test_integer_labels_numbered_from_one_are_classes_named_by_their_numbers(tmp_path):
    d = load_classification(str(_numbered_from_one(tmp_path / "ag.csv")), text_columns=["description"])
    assert d.label_names == ["1", "2", "3", "4"] and d.num_labels == 4 and d.labels[:4] == [0, 1, 2, 3]
    assert d.class_counts() == {"1": 3, "2": 3, "3": 3, "4": 3}
    ones = load_classification(str(_write(tmp_path / "ones.csv", "label,text\n1,a\n1,b\n")))
    assert ones.labels == [1, 1] and ones.label_names is None   # only 1s: ids of a 0/1 column without its 0s
    assert any("labels 1..4 have no 0: read as 4 classes named 1..4" in m and "--task regression" in m
               for m in d.problems)


def test_a_label_column_of_years_is_said_to_look_like_years_naming_the_columns_that_could_be_the_label(tmp_path):
    """Years 2012..2020 taken for the label are read as 9 classes with the word that they look like years and the
    column that could be the label (whole ratings 1 to 5), not the pointer to regression; without such a column the
    warning says so. Gapped values that are not years keep the rating-scale pointer."""
    from explorer.ui.launch.data_preview import preview_data

    rows = "".join(f"{2012 + i % 9},words of review {i},{1 + i % 5}\n" for i in range(45))
    reviews = _write(tmp_path / "reviews.csv", "year,review,rating\n" + rows)
    d = load_classification(str(reviews), label_column="year", text_columns=["review"])
    assert d.label_names == [str(y) for y in range(2012, 2021)]
    said = [m for m in d.problems if "column 'year'" in m]
    assert len(said) == 1 and "look like years (four-digit whole numbers 1900-2100), read as 9 classes" in said[0]
    assert said[0].endswith("if the label is another column: column 'rating' holds whole numbers 1 to 5 in every "
                            "row: set --label-column to 'rating'"), said[0]
    assert "rating scale" not in said[0]
    out = preview_data(str(reviews), "single", label_column="year", text_columns=["review"])
    assert any("look like years" in p and "set “Label column” to 'rating'" in p for p in out["problems"])
    alone = _write(tmp_path / "alone.csv", "year,review\n" + "".join(f"{2012 + i % 9},review {i}\n" for i in range(18)))
    d = load_classification(str(alone), label_column="year", text_columns=["review"])
    assert any("look like years" in m and m.endswith("no other column holds classes in every row: check that it is "
                                                     "the label") for m in d.problems), d.problems
    gaps = _write(tmp_path / "gaps.csv", "sentiment,text\n" + "".join(f"{v},t{i}\n" for i, v in enumerate([1, 3, 5] * 2)))
    d = load_classification(str(gaps))
    assert any("labels 1, 3, 5 are read as 3 classes" in m and "--task regression" in m for m in d.problems)


def test_k_label_names_name_classes_numbered_one_to_k(tmp_path):
    names = ["World", "Sports", "Business", "Sci/Tech"]
    d = load_classification(str(_numbered_from_one(tmp_path / "ag.csv")), text_columns=["description"],
                            label_names=names)
    assert d.label_names == names and [names[y] for y in d.labels[:4]] == names   # a row labelled 1 is World
    zero_based = _write(tmp_path / "z.csv", "label,description\n0,a\n3,b\n")
    assert load_classification(str(zero_based), text_columns=["description"], label_names=names).labels == [0, 3]


def test_no_column_named_like_a_text_names_the_guess_from_the_values_and_how_to_take_it(tmp_path):
    with pytest.raises(ClassificationDataError) as exc:
        load_classification(str(_numbered_from_one(tmp_path / "ag.csv")))
    assert ("column description holds the longest texts, the guess shown for --text-columns; to read it: "
            "--text-columns=description") in str(exc.value)


def test_a_dev_file_numbered_from_one_without_the_last_class_maps_as_the_training_data(tmp_path):
    """With 4 label names a dev file holding only 1..3 reads as ids 1..3 alone; checked against the training data
    (numbered 1..4) its label 1 is still the first name."""
    from explorer.core.training.tasks import get_task

    names = ["World", "Sports", "Business", "Sci/Tech"]
    train = load_classification(str(_numbered_from_one(tmp_path / "ag.csv")), text_columns=["description"],
                                label_names=names)
    dev = load_classification(str(_write(tmp_path / "d.csv", "label,text\n1,a\n3,b\n")), label_names=names)
    dev = get_task("single").check_data(train, dev, TrainConfig(task="single", train="x", dev="y"))
    assert [names[y] for y in dev.labels] == ["World", "Business"]


def test_a_dev_file_without_label_zero_keeps_the_integer_ids_of_zero_based_training_data(tmp_path):
    from explorer.core.training.tasks import get_task

    train = load_classification(str(_write(tmp_path / "t.csv", "label,text\n0,a\n1,b\n2,c\n")))
    dev = load_classification(str(_write(tmp_path / "d.csv", "label,text\n1,a\n2,b\n")))
    dev = get_task("single").check_data(train, dev, TrainConfig(task="single", train="x", dev="y"))
    assert dev.labels == [1, 2] and dev.label_names is None


def test_a_head_without_names_scores_a_dev_file_without_label_zero_by_its_integer_ids(tmp_path):
    """A checkpoint with LABEL_0..LABEL_2 and a dev file holding only 1 and 2 (read alone as classes named 1..2):
    Classify: dev set keeps the file's integers as the head's ids."""
    from types import SimpleNamespace

    from explorer.core.training.dev_scoring import classes_as_model
    from explorer.core.training.tasks import get_task

    model = SimpleNamespace(config=SimpleNamespace(num_labels=3, id2label={0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}))
    dev = load_classification(str(_write(tmp_path / "d.csv", "label,text\n1,a\n2,b\n")))
    out = classes_as_model(model, get_task("single"), dev)
    assert out.labels == [1, 2] and out.label_names is None


def test_a_head_without_names_scores_a_dev_file_of_values_with_gaps_by_its_integer_ids(tmp_path):
    """A dev file holding 0 and 2 only (read alone as classes named 0 and 2) is scored by a LABEL_0..LABEL_2 head
    with the file's integers as its ids; a named head's classes by the training's numbering."""
    from types import SimpleNamespace

    from explorer.core.training.dev_scoring import classes_as_model
    from explorer.core.training.tasks import get_task

    dev = load_classification(str(_write(tmp_path / "d.csv", "label,text\n0,a\n2,b\n")))
    assert dev.label_names == ["0", "2"]
    model = SimpleNamespace(config=SimpleNamespace(num_labels=3, id2label={0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}))
    assert classes_as_model(model, get_task("single"), dev).labels == [0, 2]
    named = SimpleNamespace(config=SimpleNamespace(num_labels=3, id2label={0: "neg", 1: "neu", 2: "pos"}))
    assert classes_as_model(named, get_task("single"), dev).labels == [0, 2]


def test_a_dev_label_never_seen_in_training_names_it_and_its_line(tmp_path):
    train = load_classification(str(_write(tmp_path / "t.tsv", "text\tlabel\na\tneg\nb\tpos\n")))
    dev = load_classification(str(_write(tmp_path / "d.tsv", "text\tlabel\nc\tpos\nd\tneutral\n")))
    with pytest.raises(ClassificationDataError, match=r"d.tsv line 3, column 'label': dev label 'neutral' never "
                                                      r"occurs in the training data \(its labels: neg, pos\)"):
        dev.relabel(train.label_names)
    dev_ok = load_classification(str(_write(tmp_path / "d2.tsv", "text\tlabel\nc\tpos\n")))
    assert dev_ok.labels == [0] and dev_ok.relabel(train.label_names).labels == [1]


def test_column_guessing_and_preview(tmp_path):
    g = guess_columns(["ID", "Target", "Tweet", "Stance"])
    assert (g.text_columns, g.label_column, g.id_column) == (("Tweet",), "Stance", "ID")
    assert guess_columns(["sentence1", "sentence2", "score"], pair=True).text_columns == ("sentence1", "sentence2")
    p = _write(tmp_path / "big.csv", "id,question,class\n" + "".join(f"{i},q{i},c{i % 2}\n" for i in range(50)))
    prev = preview_table(p, n=5)
    assert prev.n_rows == 50 and len(prev.rows) == 5 and prev.guess.label_column == "class"


DATED_ROWS = [("101", "2019-03-04", "the new phone is great value", "pos"),
              ("102", "2019-03-04", "battery died after a single day", "neg"),
              ("103", "2019-03-05", "it arrived on time and works", "neutral"),
              ("104", "2019-03-05", "would not buy this again ever", "neg"),
              ("105", "2019-03-04", "a fine screen for the price", "pos"),
              ("106", "2019-03-05", "nothing special about it at all", "neutral")]


@pytest.mark.parametrize("header", ["id,date,text,polarity", "id,date,text,sentiment", ""])
def test_a_date_or_id_column_is_never_guessed_as_the_label(tmp_path, header):
    """Dates (two days here, fewer distinct values than the three classes) and ids are not classes: the label is
    the column of a few values named like one, or found by its values when the file has no header."""
    lines = [header] if header else []
    lines += [",".join(row) for row in DATED_ROWS]
    prev = preview_table(_write(tmp_path / "dated.csv", "\n".join(lines) + "\n"), no_header=not header)
    label = header.split(",")[3] if header else prev.columns[3]
    assert prev.guess.label_column == label, prev.guess
    assert prev.guess.text_columns == ((("text",) if header else (prev.columns[2],)))


REVIEWS = ["great phone works well every day", "terrible battery died after a week of use",
           "okay value for the money paid here", "love the screen and the camera too",
           "shipping was slow but the item is fine"]


@pytest.mark.parametrize("rating", ["overall_rating", "Stars", "score", "y", "Review Rating", "target"])
def test_a_column_named_like_a_rating_is_the_label_over_a_year_of_fewer_values(tmp_path, rating):
    """A review table: a year column (three years, fewer distinct values than the five ratings) and titles; a
    column whose name has a label word as a whole word is the label, a year, date or id column never is."""
    lines = [f"Review_ID,Review_Title,Review_Text,Review_Year,{rating},Review_Date"]
    lines += [f"{i},title number {i},{REVIEWS[i % 5]} {i},{2014 + i % 3},{1 + (i * 7) % 5},2015-0{1 + i % 2}-01"
              for i in range(40)]
    prev = preview_table(_write(tmp_path / "amazon_reviews.csv", "\n".join(lines) + "\n"))
    assert prev.guess.label_column == rating, prev.guess
    assert prev.guess.text_columns == ("Review_Text",)


def test_a_year_or_index_column_named_as_such_is_never_guessed_as_the_label(tmp_path):
    """Without a label-named column, a column whose name says year or index is not taken for the classes."""
    lines = ["Review_Text,Review_Year,row index,verdict"]
    lines += [f"{REVIEWS[i % 5]} {i},{2014 + i % 2},{i % 3},{('good', 'bad', 'mixed')[i % 3]}" for i in range(30)]
    prev = preview_table(_write(tmp_path / "reviews.csv", "\n".join(lines) + "\n"))
    assert prev.guess.label_column == "verdict", prev.guess


YELP_HEADER = ("business_categories,business_id,business_name,business_review_count,business_stars,"
               "reviewer_average_stars,stars,text,user_id")


def _yelp_shaped(path: Path, n: int = 60, bad: int | None = None) -> Path:
    """A review table of the shape of a public Yelp CSV (CRLF): a business's average stars (3.5, 4, 4.5, 5), a
    reviewer's average stars (4.25), the review's own stars 1 to 5 (the label), ids, names and texts. ``bad``: the
    business's averages are whole numbers but in that many rows (2 in 5 else)."""
    lines = [YELP_HEADER]
    for i in range(n):
        average = ("3.5" if i < bad else "4") if bad is not None else ("3.5", "4", "4", "4.5", "5")[i % 5]
        lines.append(f"Food; Coffee & Tea,b{i % 30},Cafe number {i % 30},{10 + i},{average},"
                     f"{3 + (i * 7 % 40) / 20:.2f},{1 + i * 3 % 5},{REVIEWS[i % 5]} visit {i},u{i}")
    return _write(path, "\r\n".join(lines) + "\r\n")


def test_among_columns_named_like_a_label_the_whole_label_word_holding_classes_wins(tmp_path):
    """Three columns hold the word "stars"; the business's and the reviewer's averages (decimals: no classes) and
    names where it is one word among others lose to the column named "stars" of whole stars 1 to 5, and the basis
    says why the averages were passed over."""
    prev = preview_table(_yelp_shaped(tmp_path / "yelp.csv"))
    assert prev.guess.label_column == "stars", prev.guess
    assert prev.guess.text_columns == ("text",)
    assert "column business_stars holds decimals (3.5, 4, 4.5, 5): averages, not classes" in prev.guess.basis
    # a usual label name holding averages yields to a label-named column of classes, by the same rule
    lines = ["text,score,stars"] + [f"{REVIEWS[i % 5]} {i},{('3.5', '4', '4.5')[i % 3]},{1 + i % 5}"
                                    for i in range(30)]
    prev = preview_table(_write(tmp_path / "scored.csv", "\n".join(lines) + "\n"))
    assert prev.guess.label_column == "stars", prev.guess
    assert preview_table(tmp_path / "scored.csv", score=True).guess.label_column == "score"   # regression's own


def test_a_label_column_refused_in_many_rows_names_the_columns_that_could_be_the_label(tmp_path):
    """Business averages taken for the label: 2 in 5 are not whole numbers, so the refusal says the column
    may not be the label and names the column of whole stars; skipping those rows is only the last resort."""
    with pytest.raises(ClassificationDataError) as exc:
        load_classification(str(_yelp_shaped(tmp_path / "yelp.csv")), label_column="business_stars")
    msg = str(exc.value)
    assert msg.startswith("24 of 60 labels: not a whole number, while most labels are ("), msg
    assert ("40% of the rows, so column 'business_stars' may not be the label; column 'stars' holds whole numbers "
            "1 to 5 in every row: set --label-column to 'stars'. Only as the last resort skip such rows with "
            "--skip-invalid (it drops 24 of 60 rows)") in msg
    assert "fix them, or skip" not in msg
    from explorer.ui.launch.data_preview import preview_data

    out = preview_data(str(tmp_path / "yelp.csv"), "single", n_records=5, label_column="business_stars")
    assert not out["ok"] and "set “Label column” to 'stars'" in out["error"]
    # a few bad rows of many: the advice stays to fix them or skip them
    with pytest.raises(ClassificationDataError) as exc:
        load_classification(str(_yelp_shaped(tmp_path / "few.csv", n=200, bad=2)), label_column="business_stars")
    assert str(exc.value).startswith("2 of 200 labels: not a whole number")
    assert str(exc.value).endswith("; fix them, or skip such rows with --skip-invalid"), str(exc.value)


def test_a_label_column_of_averages_refused_as_scores_names_the_column_that_could_be_the_label(tmp_path):
    """A reviewer's average stars (4.25, 3.60) taken for the label are refused as scores; before the pointer to
    regression (which would train on the averages) the message names the column of whole stars 1 to 5."""
    with pytest.raises(ClassificationDataError) as exc:
        load_classification(str(_yelp_shaped(tmp_path / "yelp.csv")), label_column="reviewer_average_stars")
    msg = str(exc.value)
    assert "the labels look like scores (values from 3 to 4.95); if the label is another column: column 'stars' " \
           "holds whole numbers 1 to 5 in every row: set --label-column to 'stars'; for scores use --task regression" \
           in msg, msg
    # a table whose only column of numbers is the scores keeps the pointer to regression alone
    p = _write(tmp_path / "s.tsv", "text\tscore\n" + "".join(f"t{i}\t{y}\n" for i, y in enumerate(["0.5", "3.8", "2"])))
    with pytest.raises(ClassificationDataError, match=r"\(values from 0.5 to 3.8\); for scores use --task regression"):
        load_classification(str(p))


@pytest.mark.parametrize("header", ["classs,question", ""])
def test_a_file_sorted_by_its_label_gets_the_same_column_guess(tmp_path, header):
    """A file sorted by its label (120 rows of one intent, then 40 of another): the first rows hold one class,
    so a guess from them found no label column; the guess reads rows spread over the whole file."""
    rows = [("atis_flight" if i < 120 else "atis_airfare", f" show me flights number {i} from boston") for i in
            range(160)]
    lines = ([header] if header else []) + [",".join(r) for r in rows]
    prev = preview_table(_write(tmp_path / "sorted.csv", "\n".join(lines) + "\n"), no_header=not header)
    assert prev.guess.label_column == prev.columns[0], prev.guess
    assert prev.guess.text_columns == (prev.columns[1],)
    assert len(prev.rows) == 20 and prev.rows[0][0] == "atis_flight"   # the preview still shows the first rows


def test_a_text_column_not_named_like_one_and_phrase_classes_beside_a_mostly_blank_column_are_guessed(tmp_path):
    """A header that names no usual text column ("tweet_text") beside a column mostly blank (the brand a tweet is
    about) and one of four phrase classes ("No emotion toward brand or product"): the longest texts are the text,
    the class column the label, not the blank-riddled brand column; the basis says both."""
    brands = ["iPad", "Apple", "Google", "iPhone", "Android"]
    classes = ["No emotion toward brand or product", "Positive emotion", "Negative emotion", "I can't tell"]
    lines = ["tweet_text,emotion_in_tweet_is_directed_at,is_there_an_emotion_directed_at_a_brand_or_product"]
    for i in range(120):
        brand = brands[i % 5] if i % 3 == 0 else ""
        lines.append(f"@user{i} the new gadget number {i} at the show looks {'great' if i % 2 else 'odd'},"
                     f"{brand},{classes[i % 4]}")
    prev = preview_table(_write(tmp_path / "tweets.csv", "\n".join(lines) + "\n"))
    assert prev.guess.text_columns == ("tweet_text",), prev.guess
    assert prev.guess.label_column == "is_there_an_emotion_directed_at_a_brand_or_product", prev.guess
    assert "tweet_text holds the longest texts" in prev.guess.basis


def test_dates_and_times_in_other_forms_are_never_the_label():
    from explorer.core.data.columns_guess import guess_columns_from_values, is_dated, label_by_values

    days = ["Mon Apr 06 22:19:45 PDT 2009", "Tue Apr 07 08:01:02 PDT 2009"]
    assert all(is_dated(v) for v in days + ["04/03/2019", "22:19", "Apr 6, 2009"])
    assert not any(is_dated(v) for v in ["pos", "4", "May", "FAVOR", "3.800", "NO QUERY", "a fine day 12"])
    rows = [["12:00" if i % 3 else "13:30", days[i % 2], f"some words of tweet number {i}", str(i % 4), f"u{i}"]
            for i in range(12)]
    columns = ["hour", "when", "tweet", "polarity", "user"]
    assert label_by_values(columns, rows, ("tweet",)) == ("polarity", "column polarity holds a few values (0, 1, 2, 3)")
    guess = guess_columns_from_values(["c1", "c2", "c3", "c4", "c5"], rows)
    assert guess.text_columns == ("c3",) and guess.label_column == "c4", guess


def test_stratified_split_is_reproducible_and_keeps_shares():
    y = [0] * 60 + [1] * 30 + [2] * 10
    a, notes = stratified_split(y, 0.1, seed=3)
    b, _ = stratified_split(y, 0.1, seed=3)
    c, _ = stratified_split(y, 0.1, seed=4)
    assert a == b and a != c and notes == []
    assert [sum(1 for i in a if y[i] == k) for k in range(3)] == [6, 3, 1]
    _, notes = stratified_split([0] * 20 + [1], 0.1, seed=0, names=["big", "tiny"])
    assert "tiny (1 row)" in notes[0][1]


def test_balanced_weights_equal_sklearn_and_explicit(tmp_path):
    from sklearn.utils.class_weight import compute_class_weight

    d = load_classification(str(_write(tmp_path / "w.tsv", "text\tlabel\n" + "".join(
        f"t{i}\t{lab}\n" for i, lab in enumerate(["AGAINST"] * 7 + ["FAVOR"] * 2 + ["NONE"] * 3)))))
    ours = parse_weights_for("balanced", d)
    theirs = compute_class_weight("balanced", classes=np.arange(3), y=np.asarray(d.labels))
    assert np.allclose(ours, theirs)
    assert parse_weights_for("FAVOR=2.5", d) == [1.0, 2.5, 1.0]
    with pytest.raises(ValueError, match="'MAYBE', not a class of the training data"):
        parse_weights_for("MAYBE=2", d)


def test_per_class_metrics_and_f_avg():
    from sklearn.metrics import f1_score

    y = np.array([0, 0, 1, 1, 2, 2, 2, 0])
    p = np.array([0, 1, 1, 1, 2, 0, 2, 0])
    logits = np.eye(3)[p]
    m = classification_metrics(y, logits, label_names=["AGAINST", "FAVOR", "NONE"], f1_classes=["FAVOR", "AGAINST"])
    per = f1_score(y, p, average=None)
    assert m["per_class"]["FAVOR"]["f1"] == pytest.approx(per[1]) and m["per_class"]["NONE"]["support"] == 3
    assert m["f_avg"] == pytest.approx((per[0] + per[1]) / 2)
    assert m["macro_f1"] == pytest.approx(f1_score(y, p, average="macro"))
    assert m["weighted_f1"] == pytest.approx(f1_score(y, p, average="weighted"))


# ---- training: head against data, split, weights -------------------------------------------------------
def _run(argv):
    from explorer.worker.train import main as train_main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = train_main([str(a) for a in argv])
    return rc, list(iter_events(buf.getvalue().splitlines()))


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    d = tmp_path_factory.mktemp("own-models")
    return {"cls3": str(save_tiny_model(d / "cls3", "classification", num_labels=3)),
            "cls2": str(save_tiny_model(d / "cls2", "classification", num_labels=2))}


def _stance(path: Path, n: int = 20) -> Path:
    rows = [("I love it", "FAVOR"), ("I hate it", "AGAINST"), ("the sky", "NONE"), ("so bad", "AGAINST")]
    return _write(path, "ID\tTweet\tStance\r\n" + "".join(f"{i}\t{rows[i % 4][0]} {i}\t{rows[i % 4][1]}\r\n"
                                                            for i in range(n)))


COMMON = ["--task", "single", "--max-steps", 2, "--batch-size", 4, "--max-seq-length", 32, "--mixed-precision", "no",
          "--no-save-checkpoints"]


def test_head_mismatch_message_and_new_head(models, tmp_path):
    data = _write(tmp_path / "two.tsv", "sentence\tlabel\n" + "a b\tneg\nc d\tpos\n" * 4)
    rc, ev = _run(COMMON + ["--model", models["cls3"], "--train", data, "--output-dir", tmp_path, "--run-id", "a"])
    assert rc == 2 and ev[-1]["event"] == "failed"
    assert ("the checkpoint's head has 3 labels (LABEL_0, LABEL_1, LABEL_2); the data has 2 (neg, pos). "
            "Use --new-head") in ev[-1]["error"]
    rc, ev = _run(COMMON + ["--model", models["cls3"], "--train", data, "--output-dir", tmp_path, "--run-id", "b",
                            "--new-head", "--dev-fraction", 0])
    assert rc == 0, ev[-1]
    logs = [e["message"] for e in ev if e["event"] == "log"]
    assert any(m.startswith("new head: the checkpoint's head has 3 labels") and "encoder's weights are kept" in m
               for m in logs)
    started = next(e for e in ev if e["event"] == "started")
    assert started["label_names"] == ["neg", "pos"] and not started["load_report"].get("warning")


def test_stance_like_file_trains_with_split_weights_names_and_resume_reads_the_split(models, tmp_path):
    data = _stance(tmp_path / "stance.txt")
    argv = COMMON + ["--model", models["cls2"], "--train", data, "--text-columns", "Tweet", "--label-column", "Stance",
                     "--id-column", "ID", "--class-weights", "balanced", "--f1-classes", "FAVOR,AGAINST",
                     "--new-head", "--output-dir", tmp_path, "--run-id", "s", "--save-checkpoints"]
    rc, ev = _run(argv)
    assert rc == 0, ev[-1]
    started = next(e for e in ev if e["event"] == "started")
    assert started["class_weights"] == pytest.approx({"AGAINST": 20 / 30, "FAVOR": 20 / 15, "NONE": 20 / 15}, rel=0.2)
    assert started["num_train_examples"] + started["num_dev_examples"] == 20
    split = (tmp_path / "s" / "dev_split.csv").read_text().splitlines()
    assert split[0] == "row_id,line,label" and len(split) - 1 == started["num_dev_examples"]
    final = ev[-1]["metrics"]
    assert set(final["per_class"]) == {"AGAINST", "FAVOR", "NONE"} and "f_avg" in final and "macro_f1" in final
    cfg = json.loads((tmp_path / "s" / "checkpoints" / "last" / "config.json").read_text())
    assert cfg["id2label"] == {"0": "AGAINST", "1": "FAVOR", "2": "NONE"} and cfg["label2id"]["NONE"] == 2
    # the same split comes back on a later start from the same folder
    from explorer.core.specs.train_config import TrainConfig
    from explorer.core.training.tasks import get_task

    config = TrainConfig.load(tmp_path / "s" / "config.json")
    task = get_task("single")
    _, dev, notes = task.split_dev(task.load(config, "train"), config, tmp_path / "s")
    assert "read back" in notes[0][1] and [str(i) for i in dev.row_ids] == [r.split(",")[0] for r in split[1:]]


def test_labels_the_head_knows_are_mapped_by_name(models, tmp_path):
    from explorer.core.specs.train_config import TrainConfig
    from explorer.core.training.setup import fit_head
    from explorer.core.training.tasks import get_task

    folder = Path(models["cls3"]).parent / "named3"
    if not folder.exists():
        save_tiny_model(folder, "classification", num_labels=3)
        cfg = json.loads((folder / "config.json").read_text())
        cfg["id2label"] = {"0": "pos", "1": "neg", "2": "none"}
        cfg["label2id"] = {"pos": 0, "neg": 1, "none": 2}
        (folder / "config.json").write_text(json.dumps(cfg))
    data = _write(tmp_path / "pn.tsv", "sentence\tlabel\na\tneg\nb\tpos\n")
    config = TrainConfig(task="single", model=str(folder), train=str(data))
    task = get_task("single")
    train = task.load(config, "train")

    class Quiet:
        def emit(self, *a, **k):
            pass
    head, train2, _ = fit_head(str(folder), task, train, None, config, Quiet())
    assert head["num_labels"] == 3 and train2.labels == [1, 0] and train2.label_names == ["pos", "neg", "none"]


@pytest.mark.real_data
def test_real_stance_file_loads_with_its_columns(real_data):
    path = real_data / "stance_semeval2016" / "train.txt"   # (real_data skips when the folder is missing)
    d = load_classification(str(path), text_columns=["Tweet"], label_column="Stance", id_column="ID")
    assert len(d) == 2814 and d.label_names == ["AGAINST", "FAVOR", "NONE"]
    assert d.class_counts() == {"AGAINST": 1342, "FAVOR": 731, "NONE": 741}
    assert any("read as Windows-1252: 12 bytes are not UTF-8" in m for _, m in d.notes)
    assert not any(t.endswith("\r") for t in d.texts_a)


def test_own_data_flags_parse():
    import argparse

    from explorer.worker.train import add_arguments, config_from_args

    p = argparse.ArgumentParser()
    add_arguments(p)
    cfg = config_from_args(p.parse_args(["--train", "x.csv", "--task", "pair", "--no-header", "--text-columns", "6,7",
                                         "--label-column", "5", "--class-weights", "balanced", "--f1-classes",
                                         "FAVOR,AGAINST", "--label-names", "AGAINST,NONE,FAVOR", "--new-head",
                                         "--skip-invalid", "--dev-fraction", "0.2", "--encoding", "cp1252"]))
    assert cfg.no_header is True and cfg.text_columns == ["6", "7"] and cfg.label_column == "5"
    assert cfg.f1_classes == ["FAVOR", "AGAINST"] and cfg.label_names == ["AGAINST", "NONE", "FAVOR"]
    assert cfg.new_head and cfg.skip_invalid and cfg.dev_fraction == 0.2 and cfg.encoding == "cp1252"
    assert config_from_args(p.parse_args(["--train", "x", "--text-columns", "Tweet"])).text_columns == ["Tweet"]
    cfg.validate()
    with pytest.raises(ValueError, match="class_weights"):
        config_from_args(p.parse_args(["--train", "x", "--class-weights", "lots"])).validate()
    with pytest.raises(ValueError, match="dev_fraction must be in"):
        config_from_args(p.parse_args(["--train", "x", "--dev-fraction", "1.5"])).validate()


def test_a_table_numbered_from_one_trains_a_head_with_those_classes(models, tmp_path):
    data = _numbered_from_one(tmp_path / "ag.csv")
    base = COMMON + ["--model", models["cls2"], "--train", data, "--text-columns", "description", "--new-head",
                     "--dev-fraction", 0.25, "--output-dir", tmp_path, "--save-checkpoints"]
    rc, ev = _run(base + ["--run-id", "n"])
    assert rc == 0, ev[-1]
    assert next(e for e in ev if e["event"] == "started")["label_names"] == ["1", "2", "3", "4"]
    cfg = json.loads((tmp_path / "n" / "checkpoints" / "last" / "config.json").read_text())
    assert cfg["id2label"] == {"0": "1", "1": "2", "2": "3", "3": "4"}
    rc, ev = _run(base + ["--run-id", "w", "--label-names", "World,Sports,Business,Sci/Tech"])
    assert rc == 0, ev[-1]
    cfg = json.loads((tmp_path / "w" / "checkpoints" / "last" / "config.json").read_text())
    assert cfg["id2label"] == {"0": "World", "1": "Sports", "2": "Business", "3": "Sci/Tech"}


def _odd_ratings(path: Path, labels=(1, 3, 5), n: int = 12) -> Path:
    """A table as the CrowdFlower Apple tweets write it: sentiment coded 1, 3 and 5 (no 2, no 4)."""
    return _write(path, "sentiment,text\n" + "".join(f"{labels[i % len(labels)]},tweet words {i} about it\n"
                                                     for i in range(n)))


def test_labels_coded_1_3_5_are_three_classes_named_by_their_values(tmp_path):
    """Classes are the values present: 1, 3, 5 give three classes named "1", "3", "5" (not five with 2 and 4
    empty) in the launcher's counts; 0..K-1 all present keep their ids; a dev value absent from train is named."""
    from explorer.core.training.tasks import get_task
    from explorer.ui.launch.data_preview import preview_data

    train = _odd_ratings(tmp_path / "apple.csv")
    d = load_classification(str(train))
    assert d.label_names == ["1", "3", "5"] and d.num_labels == 3 and d.labels[:3] == [0, 1, 2]
    assert d.class_counts() == {"1": 4, "3": 4, "5": 4}
    res = preview_data(str(train), "single")
    assert res["ok"] and res["class_counts"] == {"1": 4, "3": 4, "5": 4} and res["counts"]["labels"] == 3
    zero_based = load_classification(str(_odd_ratings(tmp_path / "z.csv", labels=(0, 1, 2))))
    assert zero_based.label_names is None and zero_based.labels[:3] == [0, 1, 2]
    config = TrainConfig(task="single", train="x", dev="y")
    dev = load_classification(str(_odd_ratings(tmp_path / "dev.csv", labels=(5, 1), n=4)))
    assert get_task("single").check_data(d, dev, config).labels == [2, 0, 2, 0]   # each value its own class
    stray = load_classification(str(_odd_ratings(tmp_path / "stray.csv", labels=(1, 2, 3), n=3)))
    with pytest.raises(ClassificationDataError, match=r"stray.csv line 3, column 'sentiment': dev label '2' never "
                                                      r"occurs in the training data \(its labels: 1, 3, 5\)"):
        get_task("single").check_data(d, stray, config)


def test_a_run_on_labels_coded_1_3_5_has_three_classes_in_its_head_and_its_dev_report(models, tmp_path):
    """The run's id2label is {0: "1", 1: "3", 2: "5"} and Classify: dev set's confusion matrix is 3 x 3, named so."""
    from explorer.core.classify.dev_report import run_data_settings
    from explorer.core.models.loading import load_model
    from explorer.core.training.dev_scoring import score_classification_dev

    train = _odd_ratings(tmp_path / "apple.csv")
    rc, ev = _run(COMMON[:-1] + ["--model", models["cls2"], "--train", train, "--new-head", "--dev-fraction", 0.25,
                                 "--output-dir", tmp_path, "--run-id", "apple", "--save-checkpoints"])
    assert rc == 0, ev[-1]
    ckpt = tmp_path / "apple" / "checkpoints" / "last"
    assert json.loads((ckpt / "config.json").read_text())["id2label"] == {"0": "1", "1": "3", "2": "5"}
    loaded = load_model(str(ckpt), "classification")
    report = score_classification_dev(loaded.model, loaded.tokenizer, "single", str(train), cap=None,
                                      settings=run_data_settings(str(ckpt)))
    assert report.label_names == ["1", "3", "5"] and report.confusion.shape == (3, 3)
    assert all(report.confusion.sum(axis=1) > 0)   # the held-out rows hold each class: none is empty


def test_label_names_name_integer_ids_in_train_and_dev(tmp_path):
    p = _write(tmp_path / "i.tsv", "sentence\tlabel\na\t0\nb\t1\n")
    train = load_classification(str(p), label_names=["negative", "positive"])
    dev = load_classification(str(p), label_names=["negative", "positive"])
    assert train.label_names == ["negative", "positive"] and dev.relabel(train.label_names).labels == [0, 1]


def test_a_regression_file_without_dev_gets_a_seeded_random_split(tmp_path):
    """STS-B with Dev fraction 0.1 and no dev file holds out a dev split (never trains on every row with 0 dev
    examples, no best checkpoint and no word). Scores have no classes to stratify, so the split is a seeded
    random one, written to dev_split.csv and read back; with fraction 0 the run says it is never evaluated."""
    from explorer.core.data.scores_and_label_sets import load_regression
    from explorer.core.specs.train_config import TrainConfig
    from explorer.core.training.tasks import get_task

    p = tmp_path / "sts.tsv"
    p.write_text("sentence1\tsentence2\tscore\n" + "".join(f"a {i}\tb {i}\t{i % 6}.5\n" for i in range(40)),
                 encoding="utf-8")
    data = load_regression(str(p))
    task = get_task("regression")
    run = tmp_path / "run"
    run.mkdir()
    cfg = TrainConfig(task="regression", train=str(p), dev_fraction=0.1, seed=3)
    train, dev, notes = task.split_dev(data, cfg, run)
    assert len(dev) == 4 and len(train) == 36 and (run / "dev_split.csv").is_file()
    assert any("4 of 40 training rows (10%, random, seed 3)" in m for _, m in notes)
    assert sorted(dev.texts_a + train.texts_a) == sorted(data.texts_a)          # every row once
    again_train, again_dev, _ = task.split_dev(data, cfg, run)                  # resume reads it back
    assert again_dev.texts_a == dev.texts_a and again_dev.labels == dev.labels
    _, none, notes0 = task.split_dev(data, TrainConfig(task="regression", train=str(p), dev_fraction=0.0), None)
    assert none is None and "never evaluated" in notes0[0][1]


def test_a_headerless_file_read_with_a_header_is_told_it_may_have_none(tmp_path):
    """STS-B (no header; 7 or 9 fields) read with a header gets more than "expected 7 fields (as in the header),
    got 9": a "header" holding numbers is a data row, and the message points at the No header row box; a real
    header gets the plain message."""
    p = _write(tmp_path / "sts.tsv", "main-captions\tMSRvid\t2012test\t0001\t5.000\tA plane.\tA jet.\n"
                                     "main-captions\tMSRvid\t2012test\t0004\t3.800\tA man.\tA guy.\tx\ty\n")
    with pytest.raises(ClassificationDataError, match=r"line 2: expected 7 fields .*holds numbers: if the file "
                                                      r"has no header row, say so \(No header row\)"):
        load_classification(str(p))
    q = _write(tmp_path / "x.tsv", "sentence\tlabel\nok\t1\nnot\tok\t0\n")
    with pytest.raises(ClassificationDataError) as info:
        load_classification(str(q))
    assert "holds numbers" not in str(info.value)


def test_a_label_count_other_than_the_datas_is_refused_before_the_head_is_built(tmp_path):
    """config.json would say num_labels 3 for a head with 2 outputs (its size comes from id2label)."""
    from explorer.core.training.setup import fit_head
    from explorer.core.training.tasks import get_task

    data = _write(tmp_path / "sst2.tsv", "sentence\tlabel\ngood film\tpositive\nbad film\tnegative\n")
    config = TrainConfig(task="single", train=str(data), num_labels=3)
    task = get_task("single")
    with pytest.raises(ConfigError, match=r"num_labels is 3, but .*sst2.tsv has 2 labels"):
        fit_head("unused", task, task.load(config, "train"), None, config, None)


def test_the_data_report_says_which_figure_the_stance_field_quotes_and_how_to_get_it(tmp_path):
    """Labels that name the SemEval-2016 stance classes: the training data's notes say the field quotes F_avg over
    FAVOR and AGAINST and which flag reports it; once --f1-classes names them, that the run reports it."""
    from explorer.core.specs.train_config import TrainConfig
    from explorer.core.training.tasks import get_task

    data = _stance(tmp_path / "stance.txt")
    task = get_task("single")
    config = TrainConfig(task="single", train=str(data), text_columns=["Tweet"], label_column="Stance")
    notes = [m for _, m in task.load(config, "train").notes]
    note = next(m for m in notes if "F_avg" in m)
    assert "SemEval-2016 Task 6 (stance) quotes F_avg = (F1(FAVOR) + F1(AGAINST)) / 2" in note
    assert "add --f1-classes FAVOR,AGAINST" in note
    config.f1_classes = ["FAVOR", "AGAINST"]
    assert any(m.endswith("this run reports it as f_avg") for _, m in task.load(config, "train").notes)
    other = _write(tmp_path / "pn.tsv", "sentence\tlabel\na\tneg\nb\tpos\n")
    assert not any("F_avg" in m for _, m in task.load(TrainConfig(task="single", train=str(other)), "train").notes)


def _mostly_utf8_file(tmp_path: Path) -> Path:
    """A few hundred UTF-8 rows in Latin, Cyrillic and Devanagari script; line 50 holds a UTF-8 character cut in the
    middle, lines 120 and 200 a Latin-1 byte each."""
    texts = ["plain words here", "\u043f\u0440\u0438\u0432\u0435\u0442 \u043c\u0438\u0440",
             "\u0928\u092e\u0938\u094d\u0924\u0947 \u0926\u0941\u0928\u093f\u092f\u093e"]
    lines = [b"Text,Language"]
    for i in range(2, 302):
        lines.append(f"{texts[i % 3]} {i},{['English', 'Russian', 'Hindi'][i % 3]}".encode())
    lines[49] = "\u0928\u092e".encode()[:-1] + b" cut,Hindi"
    lines[119] = b"K\xf6ln,German"
    lines[199] = b"gar\xe7on,French"
    p = tmp_path / "langs.csv"
    p.write_bytes(b"\r\n".join(lines) + b"\r\n")
    return p


def test_a_utf8_file_with_a_few_undecodable_lines_stays_utf8_and_names_them(tmp_path):
    p = _mostly_utf8_file(tmp_path)
    with pytest.raises(ClassificationDataError) as exc:
        load_classification(str(p), label_column="Language")
    msg = str(exc.value)
    assert "line 50: byte 0xe0 is not UTF-8 text" in msg and "3 rows hold bytes that are not UTF-8 (lines 50, 120, 200)" in msg
    assert "--skip-invalid, or fix those lines" in msg and "give the file's encoding" not in msg
    d = load_classification(str(p), label_column="Language", skip_invalid=True)
    assert len(d) == 297 and 50 not in d.lines and 120 not in d.lines and d.texts_a[2].startswith("\u043f\u0440")
    assert any("3 rows skipped: bytes that are not UTF-8 on lines 50, 120, 200" in m for _, m in d.notes)
    t = read_table(p, skip_invalid=True, max_rows=5)
    assert t.encoding == "UTF-8" and t.n_rows == 297 and len(t.rows) == 5
    with pytest.raises(ClassificationDataError, match="line 50: byte 0xe0 is not UTF-8 text; 3 rows"):
        read_table(p, encoding="utf-8")
    # the launcher's preview reads it the same way: refused with the way out named, or the rows left out and counted
    from explorer.ui.launch.data_preview import preview_data

    out = preview_data(str(p), "single", n_records=5, label_column="Language")
    assert not out["ok"] and "“Skip invalid rows”" in out["error"] and out["columns"] == ["Text", "Language"]
    out = preview_data(str(p), "single", n_records=5, label_column="Language", options={"skip_invalid": True})
    assert out["ok"] and out["counts"]["examples"] == 297
    assert any("3 rows skipped: bytes that are not UTF-8 on lines 50, 120, 200" in n for n in out["notes"])
    # a table too big to read whole in the preview is counted in pieces by the same rule
    from explorer.core.data.table_stream import count_rows

    with pytest.raises(ClassificationDataError, match=r"3 rows hold bytes that are not UTF-8 \(lines 50, 120, 200\) "
                                                      r"while the rest of the file is UTF-8"):
        count_rows(p, label_index=1)
    count = count_rows(p, label_index=1, skip_invalid=True)
    assert count.n_rows == 297 and count.note == "3 rows skipped: bytes that are not UTF-8 on lines 50, 120, 200"
    # predict reads it as UTF-8 too, those rows coming out with an error
    from explorer.core.predict.reading import iter_rows

    info, rows = iter_rows(p)
    rows = list(rows)
    assert "UTF-8 but for a few lines" in info.note and rows[2].values["Text"].startswith("\u043f\u0440")
    assert [r.line for r in rows if r.error] == [50, 120, 200]


def test_a_windows_1252_file_with_a_few_utf8_lookalikes_stays_windows_1252(tmp_path):
    p = tmp_path / "w.tsv"
    p.write_bytes(("text\tlabel\n" + "".join(f"caf\u00e9 {i}\tpos\n" for i in range(30))
                   + "\u00c3\u00a9 twice\tneg\n").encode("cp1252"))
    t = read_table(p)
    assert t.encoding == "Windows-1252" and t.rows[0][1][0] == "caf\u00e9 0"

"""The Predictions page's Qt-free model (explorer/ui/inspectors/components/predictions.py) on small predicted files:
which labels a row may get and what a key or a choice does, the row's text, the info line, the agreements, the
annotators' table and the first sort. No window, no qtbot."""

import csv
import json

import pytest

from explorer.core.predict.review import Review, load_predictions
from explorer.ui.inspectors.components.predictions import (ANNOTATORS_HINT, ANNOTATORS_NOTE, ReviewState,
                                                           answer_span, is_number_column)

MODEL = ["pos", "neg", "pos", "neg", "pos", "pos"]


def classification(tmp_path):
    path = tmp_path / "p.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["text", "label", "a", "b", "predicted_label", "p_neg", "p_pos", "margin", "error"])
        for i, m in enumerate(MODEL):
            p = 0.8 if m == "pos" else 0.2
            w.writerow([f"row <{i}>" if i != 5 else "", m if i != 1 else "pos", m, "pos", m if i != 5 else "", 1 - p,
                        p, abs(2 * p - 1), "" if i != 5 else "line 7: empty 'text'"])
    review = Review.from_summary({"out": str(path), "kind": "classification", "label_names": ["neg", "pos"],
                                  "input_columns": ["text", "label", "a", "b"], "text_columns": ["text"],
                                  "model": str(tmp_path / "nowhere")})
    return ReviewState(load_predictions(path), review)


def qa(tmp_path):
    path = tmp_path / "qa.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["question", "context", "answer", "answer_start", "answer_end", "score_diff", "error"])
        w.writerow(["who?", "ada was born in london", "ada", 0, 3, 2.0, ""])
        w.writerow(["where?", "nothing here", "", "", "", -1.0, ""])
    review = Review.from_summary({"out": str(path), "kind": "qa", "tau": 0.5, "input_columns": ["question", "context"],
                                  "text_columns": ["question", "context"]})
    return ReviewState(load_predictions(path), review)


def test_number_columns_and_answer_spans(tmp_path):
    assert is_number_column("p_FAVOR") and is_number_column("margin") and not is_number_column("text")
    state = qa(tmp_path)
    assert answer_span(state.table, 0) == (0, 3) and answer_span(state.table, 1) is None


def test_a_label_the_model_gave_counts_as_reviewed_another_as_a_correction(tmp_path):
    state = classification(tmp_path)
    assert state.choices() == ["neg", "pos"] and state.key_label("2") == "pos"
    assert state.key_label("3") is None and state.key_label("r") is None
    assert state.set_label(0, "pos") == ""                 # the model's own label: confirmed
    assert 0 in state.review.reviewed and 0 not in state.review.labels and state.corrected() == 0
    assert state.set_label(1, "pos") == ""                 # a correction
    assert state.labels[1] == "pos" and state.corrected() == 1
    refused = state.mark_reviewed(1, False)               # a corrected row stays reviewed (its ✓ is its mark)
    assert "corrected" in refused and 1 in state.review.reviewed
    assert state.mark_reviewed(0, False) == "" and 0 not in state.review.reviewed   # a confirmed one may go back


def test_a_saved_review_marks_its_corrected_rows_reviewed(tmp_path):
    """A review saved with labels but without them in "reviewed" (by hand, an older version) opens with every
    corrected row marked ✓."""
    state = classification(tmp_path)
    state.review.labels[3] = "pos"
    state.review.reviewed.clear()
    state.review.save()
    again = ReviewState(state.table, Review.load(state.table.path))
    assert 3 in again.review.reviewed and again.corrected() == 1


def test_a_saved_review_longer_than_the_file_opens_without_an_index_error(tmp_path):
    """The predictions file was written again with fewer rows than its saved review names: the rows past its end
    are left out of the counts and the fine-tune data, not an IndexError."""
    from explorer.core.predict.review import reviewed_labels

    state = classification(tmp_path)
    state.review.labels.update({2: "neg", 40: "neg"})
    state.review.reviewed.update({2, 40, 41})
    state.review.save()
    again = ReviewState(state.table, Review.load(state.table.path))
    assert again.corrected() == 1
    assert "1 corrected</b>, 1 reviewed" in again.info(6)
    assert set(reviewed_labels(again.table, again.review)) == {2}


def test_a_row_the_model_could_not_read_gets_no_label(tmp_path):
    state = classification(tmp_path)
    assert not state.labelable(5)
    assert state.set_label(5, "neg") == "Row 6 has no label: line 7: empty 'text'"
    assert state.mark_reviewed(5) == "Row 6 has no label to confirm: line 7: empty 'text'"
    assert state.mark_reviewed(5, False) == ""             # un-marking is always allowed
    assert 5 not in state.review.labels


def test_the_row_text_escapes_and_marks_a_qa_answer(tmp_path):
    text = classification(tmp_path).row_html(0)
    assert text.startswith("<p><b>text</b>: row &lt;0&gt;</p>") and "label: pos</span><br>" in text
    assert "<b style='background:#ffe082'>ada</b> was born in london" in qa(tmp_path).row_html(0)


def test_the_info_line_counts_rows_errors_corrections_and_names_the_keys(tmp_path):
    state = classification(tmp_path)
    state.set_label(1, "pos")
    info = state.info(6)
    assert info.startswith("<b>p.csv</b>: 6 rows (6 shown), classification, model ")
    assert ("1 with an error; <b>1 corrected</b>, 1 reviewed. Sorted least certain first; keys 1 = neg, 2 = pos "
            "set the label") in info
    assert "τ +0.50" in qa(tmp_path).info(2) and "nearest τ first" in qa(tmp_path).info(2)


def test_the_review_keys_name_their_labels_when_the_labels_are_numbers(tmp_path):
    """Classes named "-1" and "1" are keys 1 and 2 in id order: the info line says which key is which class
    ("1 = -1, 2 = 1"), as for any other names; past nine labels the digits end."""
    from explorer.ui.inspectors.components.predictions import review_keys

    state = classification(tmp_path)
    state.review.label_names = ["-1", "1"]
    assert review_keys(state.choices()) == "1 = -1, 2 = 1"
    assert "keys 1 = -1, 2 = 1 set the label" in state.info(6)
    assert state.key_label("1") == "-1" and state.key_label("2") == "1"
    many = [f"c{k}" for k in range(12)]
    assert review_keys(many).startswith("1 = c0, 2 = c1") and "9 = c8, … (the others: the Label box)" in review_keys(many)
    assert review_keys([]) == ""


def test_agreements_with_the_gold_and_a_persons_column(tmp_path):
    state = classification(tmp_path)
    lines, gold = state.agreements()
    assert gold is not None and lines[0].startswith("Model vs gold <b>label_in_file</b> (")
    assert len(lines) == 1
    state.review.person_column = "a"
    lines, _ = state.agreements()
    assert lines[1].startswith("Model vs person <b>a</b> (") and "Cohen's κ 1.000" in lines[1]
    assert qa(tmp_path).agreements() == ([], None)


def test_annotators_need_two_ticked_columns(tmp_path):
    state = classification(tmp_path)
    assert state.person_choices() == ["label", "a", "b"]
    assert state.annotators() == (ANNOTATORS_HINT, [])
    state.review.annotator_columns = ["a"]
    assert state.annotators() == ("a ticked; tick at least one more annotator column.", [])
    state.review.annotator_columns = ["a", "b"]
    note, rows = state.annotators()
    assert note == ANNOTATORS_NOTE and rows[0].who == "a vs model" and rows[-1].statistic == "Krippendorff's α"
    assert qa(tmp_path).annotators() == ("", [])


def test_the_table_opens_least_certain_first(tmp_path):
    assert classification(tmp_path).first_sort(["#", "reviewed", "label", "text", "margin"]) == 4
    assert qa(tmp_path).first_sort(["#", "reviewed", "label", "|score_diff − τ|"]) == 3


@pytest.mark.parametrize("with_run", [False, True])
def test_the_next_runs_data_goes_beside_the_runs_or_the_predictions(tmp_path, with_run):
    state = classification(tmp_path)
    if with_run:
        run = tmp_path / "runs" / "r1"
        (run / "checkpoints" / "best").mkdir(parents=True)
        (run / "config.json").write_text(json.dumps({"task": "single", "train": "t.tsv"}), encoding="utf-8")
        state.review.model = str(run / "checkpoints" / "best")
    cfg, folder, run_dir = state.corrections_place()
    if with_run:
        assert cfg["train"] == "t.tsv" and run_dir == run and folder == tmp_path / "runs" / ".corrections"
    else:
        assert (cfg, run_dir, folder) == ({}, None, tmp_path / ".corrections")


def headerless(tmp_path, text_columns=("2",)):
    """A predicted header-less file: columns by position, "1" a gold rating, the text(s) after it; classes named
    by numbers ("1", "5")."""
    path = tmp_path / "rated.predictions.csv"
    inputs = ["1", *text_columns]
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(inputs + ["predicted_label", "p_1", "p_5", "margin", "error"])
        w.writerow(["5", *[f"great {c}" for c in text_columns], "5", 0.1, 0.9, 0.8, ""])
        w.writerow(["1", *[f"awful {c}" for c in text_columns], "1", 0.7, 0.3, 0.4, ""])
    review = Review.from_summary({"out": str(path), "kind": "classification", "label_names": ["1", "5"],
                                  "input_columns": inputs, "text_columns": list(text_columns)})
    return ReviewState(load_predictions(path), review)


def test_a_headerless_files_columns_are_titled_by_role_never_by_a_bare_number(tmp_path):
    state = headerless(tmp_path)
    assert state.column_title("2") == "text" and state.column_title("1") == "column 1"
    assert "column 2 of the input file" in state.column_tip("2") and "the text the model read" in state.column_tip("2")
    assert state.column_title("margin") == "margin" and state.column_tip("margin") is None
    page = state.row_html(0)
    assert "<b>text</b>: great 2" in page and "column 1: 5" in page and "<b>2</b>" not in page
    pair = headerless(tmp_path, ("2", "3"))
    assert [pair.column_title(c) for c in ("2", "3")] == ["text (column 2)", "text (column 3)"]
    # a file with a header keeps its names
    assert classification(tmp_path).column_title("text") == "text"
    assert classification(tmp_path).column_title("label") == "label_in_file"

"""The Classify page's Qt-free model (explorer/ui/inspectors/components/classify.py): what each task's input and
gold are, the gold typed in the box, the logit table and verdict of each head, the arithmetic text and the note on
a pair model given one sentence. No window, no qtbot."""

from types import SimpleNamespace

import numpy as np
import pytest

from explorer.core.classify.arithmetic import class_words
from explorer.core.specs.heads import MULTI_LABEL, REGRESSION, SINGLE_LABEL
from explorer.ui.inspectors.components.classify import (LONE_SENTENCE_NOTE, classify_tasks, flow_lines, free_gold,
                                                        gold_text, is_choice, lone_sentence_note, parse_gold,
                                                        reads_pairs, result_lines, table_headers, table_rows,
                                                        verdict)


def result(problem=SINGLE_LABEL.problem_type, kind="single", n_inputs=1, flow=None, **kw):
    base = dict(kind=kind, problem_type=problem, logits=np.array([1.5, -0.25]), probabilities=np.array([0.85, 0.15]),
                prediction=0, predicted=[0], thresholds=np.array([0.5, 0.4]), label_names=["neg", "pos"],
                score=3.812, max_abs_diff=1e-9, pooler="C = tanh(W_p h_[CLS] + b_p)", W=np.zeros((2, 4)),
                b=np.zeros(2), flow=flow, flow_mean=None if flow is None else flow.mean(axis=1),
                inputs=[SimpleNamespace(C=np.zeros(4), tokens=["[CLS]", "fine", "[SEP]"]) for _ in range(n_inputs)],
                arithmetic_lines=lambda digits: [f"arithmetic to {digits} digits"])
    base.update(kw)
    return SimpleNamespace(**base)


def test_the_page_shows_the_classifier_and_multiple_choice_tasks_with_their_gold():
    tasks = classify_tasks()
    assert set(tasks.values()) >= {"single", "pair", "swag", "regression", "multilabel"}
    assert is_choice("swag") and not is_choice("pair")
    assert free_gold("regression") and free_gold("multilabel") and not free_gold("single")


def test_pairs_are_read_by_pair_tasks_and_by_runs_that_read_two_columns():
    assert reads_pairs("pair", False) and not reads_pairs("single", True) and not reads_pairs("swag", True)
    assert reads_pairs("regression", True) and not reads_pairs("regression", False)


def test_the_gold_box_takes_a_score_or_label_names_and_ids():
    assert parse_gold(" 3.8 ", "regression", []) == 3.8
    assert parse_gold("", "regression", []) is None
    assert parse_gold("pos; 0;;pos", "multilabel", ["neg", "pos"]) == [0, 1]
    with pytest.raises(ValueError, match="gold score 'high' is not a number"):
        parse_gold("high", "regression", [])
    with pytest.raises(ValueError, match=r"gold label 'maybe' is not one of the head's labels \(neg, pos\)"):
        parse_gold("maybe", "multilabel", ["neg", "pos"])
    assert gold_text("regression", 3.0) == "3" and gold_text("regression", None) == ""
    assert gold_text("multilabel", [0, 2]) == "0;2" and gold_text("multilabel", None) == ""


@pytest.mark.parametrize("problem, kind, headers, third, said", [
    (SINGLE_LABEL.problem_type, "single", "logit = C·W_k + b_k", "0.8500", "prediction neg (class id 0)"),
    (SINGLE_LABEL.problem_type, "swag", "score = C_k·w + b", "0.8500", "prediction neg (class id 0)"),
    (REGRESSION.problem_type, "regression", "score = C·w + b", "the score is the prediction", "score 3.8120"),
    (MULTI_LABEL.problem_type, "multilabel", "logit = C·W_k + b_k", "0.8500  (τ 0.50)", "predicted labels: neg"),
])
def test_each_head_has_its_table_and_verdict(problem, kind, headers, third, said):
    res = result(problem, kind)
    assert table_headers(res)[1] == headers
    rows = table_rows(res)
    assert rows[0] == ("neg ← prediction", "+1.5000", third) and rows[1][0] == "pos"
    assert verdict(res) == said


def test_unnamed_classes_are_said_by_number_once():
    assert verdict(result(label_names=["0", "1"])) == "prediction 0"


def test_the_summary_names_a_numbered_class_as_the_arithmetic_pane_does():
    # ratings named "1".."5": class id 2 is the rating "3"; the summary and the pane say it the same way
    res = result(label_names=["1", "2", "3", "4", "5"], prediction=2, logits=np.zeros(5),
                 probabilities=np.full(5, 0.2))
    assert verdict(res) == "prediction '3' (class id 2)"
    assert class_words(res.label_names, 2) == "'3' (class id 2)"
    assert class_words(["neg", "pos"], 1) == "pos (class id 1)" and class_words(["0", "1"], 1) == "1"


def test_a_pair_model_given_sentence_a_alone_says_so():
    res = result(kind="pair")
    assert lone_sentence_note(res, True, ("a film", "")) == LONE_SENTENCE_NOTE
    assert lone_sentence_note(res, True, ("a film", "a movie")) == ""
    assert lone_sentence_note(res, False, ("a film", "")) == ""
    assert lone_sentence_note(result(kind="swag", n_inputs=4), True, ("", "")) == ""


def test_the_arithmetic_text_lists_inputs_shapes_and_the_pair_flow():
    flow = np.random.default_rng(0).random((2, 4, 3, 3))
    lines = result_lines(result(flow=flow, n_inputs=2))
    assert lines[:2] == ["input 0: [CLS] fine [SEP]", "input 1: [CLS] fine [SEP]"]
    assert lines[3] == "C = tanh(W_p h_[CLS] + b_p)   (C: 2 x 4; W: 2 x 4; b: 2)"
    assert "arithmetic to 4 digits" in lines and lines[-2:] == flow_lines(flow.mean(axis=1))
    assert flow_lines(flow.mean(axis=1))[0].startswith(f"layer  1: A -> B {flow.mean(axis=1)[0, 0, 1]:.3f}")
    assert result_lines(result())[0] == "input: [CLS] fine [SEP]"

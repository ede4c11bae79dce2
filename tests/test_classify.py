"""Classify arithmetic: the seed's worked numbers (three-class toy, SWAG toy), and the by-hand check on
tiny single / pair / multiple-choice models (C W^T + b from the [CLS] state equals the model's logits)."""

import numpy as np
import pytest
from helpers import tiny_loaded_model

from explorer.core.classify.arithmetic import ClassifyError, head_logits, softmax_loss
from explorer.core.classify.forward import classify_choices, classify_text


def test_three_class_toy_from_the_seed():
    # H = 4, K = 3: each logit is C . W_k, giving (1.50, -1.80, -0.65)
    C = np.array([1.0, 0.5, -1.0, 2.0])
    W = np.array([[0.5, 1.0, 0.0, 0.25], [-1.0, 0.4, 1.0, 0.0], [-0.15, -1.0, 0.0, 0.0]])
    logits = head_logits(C, W)
    assert logits == pytest.approx([1.50, -1.80, -0.65])
    P, loss = softmax_loss(logits, 0)
    assert np.round(P, 3).tolist() == [0.867, 0.032, 0.101] and round(loss, 3) == 0.143
    assert np.exp(logits).sum() == pytest.approx(5.169, abs=1e-3)


def test_swag_toy_from_the_seed():
    # four [CLS] vectors, one learned vector w = (2, -1, 0.5, 1): scores (3.0, -0.7, 2.4, 0.75)
    w = np.array([[2.0, -1.0, 0.5, 1.0]])
    C = np.array([[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, -0.6, 0.6], [1.0, 0.0, 0.8, 0.0], [0.5, 0.5, 0.5, 0.0]])
    scores = head_logits(C, w).reshape(-1)
    assert scores == pytest.approx([3.0, -0.7, 2.4, 0.75])
    P, loss = softmax_loss(scores, 0)   # "ending 1" of the seed is index 0 here
    assert np.round(P, 3).tolist() == [0.596, 0.015, 0.327, 0.063] and round(loss, 3) == 0.518


def test_label_out_of_range_is_a_clear_error():
    with pytest.raises(ClassifyError, match="label 3 is out of range: the head has 3 outputs"):
        softmax_loss([0.0, 1.0, 2.0], 3)


@pytest.mark.parametrize("text_b", ["", "where is the river?"])
def test_by_hand_logits_match_the_model_single_and_pair(text_b):
    loaded = tiny_loaded_model("classification", num_labels=3)
    res = classify_text(loaded.model, loaded.tokenizer, "ada was born in london.", text_b, label=2)
    assert res.kind == ("pair" if text_b else "single") and res.W.shape == (3, 32) and res.logits.shape == (3,)
    assert res.max_abs_diff < 1e-5 and np.allclose(res.by_hand_logits, res.logits, atol=1e-5)
    # the model's logits are exactly C W^T + b with the C it reports
    assert np.allclose(head_logits(res.inputs[0].C, res.W, res.b), res.logits, atol=1e-5)
    assert res.probabilities.sum() == pytest.approx(1.0)
    assert res.loss == pytest.approx(-np.log(res.probabilities[2]))
    assert res.prediction == int(np.argmax(res.logits)) and res.inputs[0].tokens[0] == "[CLS]"
    if text_b:
        assert res.flow.shape == (2, 4, 3, 3)
        assert np.allclose(np.nansum(res.flow_mean, axis=-1), 1.0, atol=1e-5)  # each block's attention sums to 1
    else:
        assert res.flow is None
    name = res.label_names[2]
    assert any(line.startswith(f"loss for label {name} (class id 2) = -log") for line in res.arithmetic_lines())
    # classes named by numbers other than their ids (ratings 1..5): the name first, the id named as an id
    res.label_names = ["1", "2", "3", "4", "5"][:len(res.label_names)]
    assert f"prediction: '{res.prediction + 1}' (class id {res.prediction})" in res.arithmetic_lines()


def test_by_hand_scores_match_the_multiple_choice_model():
    loaded = tiny_loaded_model("multiple_choice")
    endings = ["was first", "is a river", "did answer the question", "how"]
    res = classify_choices(loaded.model, loaded.tokenizer, "ada was born in london.", endings, start="the",
                           label=1)
    assert res.kind == "swag" and len(res.inputs) == 4 and res.W.shape == (1, 32) and res.logits.shape == (4,)
    assert res.max_abs_diff < 1e-5
    C = np.stack([x.C for x in res.inputs])
    assert np.allclose(head_logits(C, res.W, res.b).reshape(-1), res.logits, atol=1e-5)
    assert res.inputs[2].tokens[-6:] == ["the", "did", "answer", "the", "question", "[SEP]"]
    assert res.loss == pytest.approx(-np.log(res.probabilities[1])) and res.probabilities.sum() == pytest.approx(1)


def test_wrong_head_and_bad_inputs_are_clear_errors():
    cls = tiny_loaded_model("classification")
    mc = tiny_loaded_model("multiple_choice")
    with pytest.raises(ClassifyError, match="is not a ForMultipleChoice model"):
        classify_choices(cls.model, cls.tokenizer, "a", ["b", "c", "d", "e"])
    with pytest.raises(ClassifyError, match="is not a ForSequenceClassification model"):
        classify_text(mc.model, mc.tokenizer, "a")
    with pytest.raises(ClassifyError, match="4 non-empty endings"):
        classify_choices(mc.model, mc.tokenizer, "a", ["b", "c"])
    with pytest.raises(ClassifyError, match="sentence A is empty"):
        classify_text(cls.model, cls.tokenizer, "  ")


def test_dev_report_counts_and_ranks():
    from explorer.core.classify.dev_report import dev_report

    logits = np.array([[2.0, 0.0], [0.1, 0.0], [0.0, 3.0], [4.0, 0.0], [0.0, 0.2]])
    labels = [0, 1, 1, 1, 1]   # rows 1 and 3 are wrong; row 3 very confidently
    rep = dev_report(logits, labels, [f"s{i}" for i in range(5)], n=2)
    assert rep.accuracy == pytest.approx(0.6) and rep.confusion.tolist() == [[1, 0], [2, 2]]
    assert rep.f1 == pytest.approx(2 * 2 / (2 * 2 + 0 + 2))       # TP 2, FP 0, FN 2
    assert [r.index for r in rep.mistakes] == [3, 1] and [r.index for r in rep.boundary] == [1, 4]
    assert rep.mistakes[0].confidence == pytest.approx(np.exp(4) / (np.exp(4) + 1))
    with pytest.raises(ValueError, match="do not match"):
        dev_report(logits, labels[:3], ["x"] * 3)


def test_score_dev_on_a_tiny_model(tmp_path):
    from helpers import write_tiny_classification

    from explorer.core.training.dev_scoring import score_classification_dev

    loaded = tiny_loaded_model("classification")
    path = write_tiny_classification(tmp_path / "d.tsv", repeat=1)
    rep = score_classification_dev(loaded.model, loaded.tokenizer, "single", str(path), n=3)
    assert rep.total == rep.confusion.sum() and 0 <= rep.accuracy <= 1 and len(rep.boundary) == 3
    assert rep.accuracy == pytest.approx(np.trace(rep.confusion) / rep.total)

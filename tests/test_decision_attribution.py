"""Why did it abstain: integrated gradients of score_diff = best span score - s_null (explorer.core.explain.decision)
on tiny QA models: completeness within 1 %, the decision's numbers equal the probe's, the refinement of the
integration points, the words pushed toward answering and toward no answer, the CLI's JSON and the refusals."""

import json

import numpy as np
import pytest
import torch

from explorer import cli
from explorer.core.explain.attribution import AttributionError, pad_baseline
from explorer.core.explain.decision import (batch_points, explain_any, explain_decision, explain_probe_window,
                                            explain_question_decision, head_name, score_diff_of, valid_spans)
from explorer.core.qa.decoding import span_score_table
from explorer.core.qa.probe import probe
from helpers import save_tiny_model, tiny_loaded_model

QUESTIONS = [("Where was Ada born?", "Ada Lovelace was born in London in 1815. She wrote the first program."),
             ("Who wrote the first program?", "The first program was written by Ada for a machine in London."),
             ("When did the river freeze?", "The river in Paris is long. Bert asked a question about the model.")]


@pytest.fixture(scope="module")
def qa_model():
    """The tiny QA BERT with its start/end layer scaled up, so the scores move by whole logits along the path."""
    loaded = tiny_loaded_model("qa")
    with torch.no_grad():
        loaded.model.qa_outputs.weight.mul_(30)
    return loaded


@pytest.mark.parametrize("question,passage", QUESTIONS)
def test_attributions_add_up_to_the_decisions_change_within_one_percent(qa_model, question, passage):
    a = explain_question_decision(qa_model.model, qa_model.tokenizer, question, passage, steps=32)
    wanted = a.target_value - a.baseline_value
    assert abs(wanted) > 0.05
    assert abs(a.total - wanted) <= 0.01 * abs(wanted)
    assert a.relative_gap <= 0.01 and a.warning == ""
    assert a.details["tries"][-1] == a.steps and a.target.kind == "score_diff"
    # score_diff at the input is the probe's (one window: the same best span, the same s_null)
    got = probe(qa_model, question, passage)
    assert len(got.windows) == 1
    assert a.target_value == pytest.approx(got.score_diff, abs=1e-4)
    best = got.nbest[0]
    assert (a.details["input"]["start"], a.details["input"]["end"]) == (best.start_token, best.end_token)


def test_the_baseline_value_is_score_diff_at_the_pad_baseline(qa_model):
    question, passage = QUESTIONS[0]
    a = explain_question_decision(qa_model.model, qa_model.tokenizer, question, passage, steps=16)
    window = probe(qa_model, question, passage).windows[0]
    ids = torch.tensor([window.input_ids])
    base = pad_baseline(ids, qa_model.tokenizer)
    types = torch.tensor([[0 if i <= window.input_ids.index(qa_model.tokenizer.sep_token_id) else 1
                           for i in range(len(window.input_ids))]])
    with torch.no_grad():
        out = qa_model.model(input_ids=base, token_type_ids=types)
    table = span_score_table(out.start_logits[0].numpy(), out.end_logits[0].numpy(), window.offsets)
    null = float(out.start_logits[0, 0] + out.end_logits[0, 0])
    assert a.baseline_value == pytest.approx(float(np.nanmax(table)) - null, abs=1e-4)


def test_score_diff_of_takes_the_best_valid_span():
    s = torch.tensor([[0.0, 9.0, 1.0, 3.0, 2.0]])
    e = torch.tensor([[0.0, 9.0, 5.0, -3.0, 0.5]])
    valid = valid_spans([False, False, True, True, True], max_answer_length=2)
    got = score_diff_of(torch.stack([s, e], dim=1), valid, 0)
    assert float(got) == pytest.approx(6.0)          # (2, 2): 1 + 5; the question token's 18 is not a span
    valid1 = valid_spans([False, False, True, True, True], max_answer_length=1)
    assert float(score_diff_of(torch.stack([s, e], dim=1), valid1, 0)) == pytest.approx(6.0)


def test_more_points_until_complete_and_a_warning_when_the_cap_stops_it(qa_model):
    question, passage = QUESTIONS[0]
    a = explain_question_decision(qa_model.model, qa_model.tokenizer, question, passage, steps=4,
                                  max_relative_gap=1e-12, max_steps=16)
    assert a.details["tries"] == [4, 8, 16] and a.steps == 16
    assert "after 16 points" in a.warning


def test_progress_counts_batches_of_every_try_so_far(qa_model):
    """With progress the points go in several batches per try (a short window's 50 points fitted one batch: the bar
    jumped from nothing to done), and the count runs on over the refinement's tries, never back."""
    question, passage = QUESTIONS[0]
    seen = []
    a = explain_question_decision(qa_model.model, qa_model.tokenizer, question, passage, steps=20,
                                  max_relative_gap=1e-12, max_steps=40, progress=lambda d, t: seen.append((d, t)))
    assert a.details["tries"] == [20, 40]
    per_try = [batch_points(n, 30) for n in (20, 40)]
    assert per_try == [2, 4]    # PROGRESS_BATCHES batches of points each
    assert seen[-1] == (20, 20)   # 10 batches of the first try, 10 of the second
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert len({d for d, _ in seen if d < 10}) >= 5   # reports between the start and the end of a try
    assert batch_points(50, 30, 7) == 7 and batch_points(50, 30, progress=False) is None


def test_pushes_name_words_by_sign(qa_model):
    question, passage = QUESTIONS[1]
    a = explain_question_decision(qa_model.model, qa_model.tokenizer, question, passage, steps=32, merge_words=True)
    up, down = a.details["toward_answer"], a.details["toward_no_answer"]
    assert up or down
    assert all(v > 0 for _, v in up) and all(v < 0 for _, v in down)
    assert [v for _, v in up] == sorted((v for _, v in up), reverse=True)
    words = {t for t, _ in up + down}
    assert "[CLS]" not in words and "[SEP]" not in words and all(not t.startswith("##") for t in words)


def test_probe_window_gives_the_same_attributions_as_the_typed_input(qa_model):
    question, passage = QUESTIONS[2]
    window = probe(qa_model, question, passage).windows[0]
    a = explain_probe_window(qa_model.model, qa_model.tokenizer, window, steps=16, merge_words=False)
    b = explain_question_decision(qa_model.model, qa_model.tokenizer, question, passage, steps=16)
    assert a.tokens == b.tokens
    assert np.allclose(a.attributions, b.attributions, atol=1e-9)


def test_roberta_family_without_token_types(tmp_path):
    from explorer.core.models.loading import load_model
    from family_models import FAMILIES, family_tokenizer, save_family

    fam = FAMILIES["roberta"]
    tok = family_tokenizer(fam, [q + " " + p for q, p in QUESTIONS] * 4)
    loaded = load_model(str(save_family(tmp_path / "roberta", fam, tok)), task="qa")
    with torch.no_grad():
        loaded.model.qa_outputs.weight.mul_(30)
    question, passage = QUESTIONS[0]
    a = explain_question_decision(loaded.model, loaded.tokenizer, question, passage, steps=32, max_seq_length=100)
    assert a.relative_gap <= 0.01       # the baseline's value is taken at the input's positions, as the path starts
    got = probe(loaded, question, passage, max_seq_length=100, doc_stride=32)
    assert len(got.windows) == 1 and a.target_value == pytest.approx(got.score_diff, abs=1e-4)


def test_refusals():
    cls = tiny_loaded_model("classification")
    with pytest.raises(AttributionError, match="question-answering"):
        explain_decision(cls.model, cls.tokenizer, [2, 5, 3], [False, True, False], 0)
    with pytest.raises(AttributionError, match="answer-or-abstain decision"):
        explain_any(cls.model, cls.tokenizer, "ada", target="score_diff")
    qa = tiny_loaded_model("qa")
    with pytest.raises(AttributionError, match="no passage token"):
        explain_decision(qa.model, qa.tokenizer, [2, 5, 3], [False, False, False], 0)
    with pytest.raises(AttributionError, match="integrated gradients only"):
        explain_any(qa.model, qa.tokenizer, "who", "ada was born", target="score_diff", method="gxi")


def test_cli_writes_the_decision_and_its_pushes(tmp_path, capsys):
    folder = save_tiny_model(tmp_path / "model", "qa")
    out = tmp_path / "why.json"
    question, passage = QUESTIONS[0]
    assert cli.main(["explain", "--model", str(folder), "--text", question, "--text-pair", passage,
                     "--target", "score_diff", "--steps", "16", "--merge-words", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    got = json.loads(out.read_text())
    assert got["target_spec"]["kind"] == "score_diff" and got["head"] == head_name()
    assert got["target_value"] == pytest.approx(got["details"]["input"]["score_diff"])
    assert got["baseline_value"] == pytest.approx(got["details"]["baseline"]["score_diff"])
    assert set(got["details"]) >= {"toward_answer", "toward_no_answer", "tries", "cls_index"}
    assert "pushed toward answering:" in printed and "pushed toward no answer:" in printed

"""The two decode rules (explorer.core.qa.decode_rules): this app's passage-only search and run_qa's search over
all tokens, on constructed logits where they differ and where they agree, and run_qa's rule against a loop-for-loop
reference rewrite of transformers' postprocess_qa_predictions (tests/run_qa_postprocess.py)."""

import numpy as np
import pytest

from explorer.core.qa.decode_rules import (DECODE_RULES, DecodeRuleError, EMPTY_TEXT, decode_example_run_qa,
                                           decode_predictions_by, decoder_of, other_rule, rule_differences)
from explorer.core.qa.decoding import decode_example, null_odds, predictions_at
from explorer.core.qa.windows import prepare_qa_features
from helpers import tiny_tokenizer
from run_qa_postprocess import run_qa_postprocess

# [CLS] q1 q2 [SEP] p1 p2 p3 [SEP]: the question tokens hold the top two start and end logits
CROWDED_CONTEXT = "p1 p2 p3"
CROWDED_OFFSETS = [None, None, None, None, (0, 2), (3, 5), (6, 8), None]
CROWDED_START = np.array([0.0, 9.0, 8.0, -5.0, 1.0, 3.0, 2.0, -5.0])
CROWDED_END = np.array([0.0, 9.0, 8.0, -5.0, 5.0, -3.0, 0.5, -5.0])


def decode_both(context, starts, ends, offsets, n_best_size, max_answer_length=30):
    cls = [0] * len(offsets)
    ours = decode_example(context, starts, ends, offsets, cls, n_best_size=n_best_size,
                          max_answer_length=max_answer_length)
    theirs = decode_example_run_qa(context, starts, ends, offsets, cls, n_best_size=n_best_size,
                                   max_answer_length=max_answer_length)
    return ours, theirs


def test_question_tokens_crowd_out_the_best_passage_start_under_run_qa():
    # top 4 over all tokens: starts q1, q2, p2, p3 and ends q1, q2, p1, p3: run_qa never tries p1 as a start
    ours, theirs = decode_both(CROWDED_CONTEXT, [CROWDED_START], [CROWDED_END], [CROWDED_OFFSETS], n_best_size=4)
    assert (ours.nbest[0].text, ours.nbest[0].score) == ("p1", pytest.approx(6.0))
    assert (theirs.nbest[0].text, theirs.nbest[0].score) == ("p2 p3", pytest.approx(3.5))
    assert ours.null_score == theirs.null_score == 0.0
    assert ours.score_diff == pytest.approx(6.0) and theirs.score_diff == pytest.approx(3.5)
    assert ours.answer(0.0) == "p1" and theirs.answer(0.0) == "p2 p3"
    rows = rule_differences({"q": ours}, {"q": theirs}, tau=0.0)
    assert rows == [{"id": "q", "answer": "p1", "other_answer": "p2 p3", "score_diff": pytest.approx(6.0),
                     "other_score_diff": pytest.approx(3.5)}]
    # at tau 4 the app answers and run_qa abstains: still a difference, now answer against no answer
    assert rule_differences({"q": ours}, {"q": theirs}, tau=4.0)[0]["other_answer"] == ""
    assert rule_differences({"q": ours}, {"q": theirs}, tau=7.0) == []    # both abstain


def test_run_qa_with_no_passage_pair_answers_its_empty_stand_in():
    # top 3: starts q1, q2, p2; ends q1, q2, p1: the only passage pair ends before it starts
    ours, theirs = decode_both(CROWDED_CONTEXT, [CROWDED_START], [CROWDED_END], [CROWDED_OFFSETS], n_best_size=3)
    assert ours.nbest[0].text == "p1"
    assert [c.text for c in theirs.nbest] == [EMPTY_TEXT]
    assert theirs.best_non_null_score == 0.0 and theirs.score_diff == -theirs.null_score
    ref, odds, _ = run_qa_postprocess([{"id": "q", "context": CROWDED_CONTEXT,
                                        "windows": [(CROWDED_START, CROWDED_END, CROWDED_OFFSETS)]}], n_best_size=3,
                                      null_score_diff_threshold=0.5)
    assert odds["q"] == -theirs.score_diff and ref["q"] == theirs.answer(-0.5) == EMPTY_TEXT


def test_rules_agree_when_the_question_tokens_score_low():
    context = "w0 w1 w2 w3"
    offsets = [None, None, None, None, (0, 2), (3, 5), (6, 8), (9, 11), None]
    s = np.array([-1.0, -4.0, -4.0, -9.0, 0.12, 0.3, 2.6, 0.25, -9.0])
    e = np.array([-1.0, -4.0, -4.0, -9.0, 3.2, 1.0, 1.1, 1.9, -9.0])
    ours, theirs = decode_both(context, [s], [e], [offsets], n_best_size=3)
    assert ours.nbest[0].text == theirs.nbest[0].text == "w2 w3"
    assert ours.score_diff == pytest.approx(theirs.score_diff) == pytest.approx(6.5)
    assert rule_differences({"q": ours}, {"q": theirs}) == []


def random_examples(rng, n_examples):
    """Examples of 1-3 windows: [CLS] question [SEP] passage [SEP], passage words of 2-3 characters."""
    examples = []
    for k in range(n_examples):
        words = [f"w{i}" for i in range(int(rng.integers(3, 15)))]
        context = " ".join(words)
        starts = np.cumsum([0] + [len(w) + 1 for w in words[:-1]])
        windows = []
        for _ in range(int(rng.integers(1, 4))):
            q = int(rng.integers(1, 6))
            lo = int(rng.integers(0, len(words)))
            hi = int(rng.integers(lo + 1, len(words) + 1))
            offsets = [None] * (q + 2) + [(int(starts[i]), int(starts[i]) + len(words[i])) for i in range(lo, hi)]
            offsets.append(None)
            n = len(offsets)
            scale = float(rng.choice([1.0, 4.0]))
            s = rng.normal(size=n).astype(np.float32).astype(np.float64) * scale
            e = rng.normal(size=n).astype(np.float32).astype(np.float64) * scale
            windows.append((s, e, offsets))
        examples.append({"id": f"q{k}", "context": context, "windows": windows})
    return examples


@pytest.mark.parametrize("n_best_size,max_answer_length", [(2, 30), (3, 2), (5, 4), (20, 30)])
def test_run_qa_rule_matches_the_reference_rewrite(n_best_size, max_answer_length):
    rng = np.random.default_rng(n_best_size)
    examples = random_examples(rng, 200)
    ref_preds, ref_odds, ref_nbest = run_qa_postprocess(examples, n_best_size=n_best_size,
                                                         max_answer_length=max_answer_length)
    differ = 0
    for ex in examples:
        s, e, offs = zip(*ex["windows"])
        dec = decode_example_run_qa(ex["context"], list(s), list(e), list(offs), [0] * len(offs),
                                    n_best_size=n_best_size, max_answer_length=max_answer_length, example_id=ex["id"])
        assert dec.answer(0.0) == ref_preds[ex["id"]], ex["id"]
        assert -dec.score_diff == pytest.approx(ref_odds[ex["id"]], abs=1e-12)
        mine = dec.nbest_entries(with_null=True)
        if dec.nbest[0].text != EMPTY_TEXT:     # run_qa puts its stand-in first whatever its score
            assert [(m["text"], m["start_logit"], m["end_logit"]) for m in mine] == \
                [(r["text"], r["start_logit"], r["end_logit"]) for r in ref_nbest[ex["id"]]]
            assert [m["probability"] for m in mine] == pytest.approx([r["probability"] for r in ref_nbest[ex["id"]]])
        ours = decode_example(ex["context"], list(s), list(e), list(offs), [0] * len(offs), n_best_size=n_best_size,
                              max_answer_length=max_answer_length)
        differ += ours.answer(0.0) != dec.answer(0.0)
        assert ours.best_non_null_score >= dec.best_non_null_score or dec.nbest[0].text == EMPTY_TEXT
    assert differ > 0 if n_best_size <= 3 else True     # small n-best: question tokens crowd candidates out


def test_decode_predictions_by_rule_on_real_windows():
    tok = tiny_tokenizer()
    questions = ["who was born in paris", "what is the river"]
    contexts = ["ada was born in paris in the first year . " * 6, "the river of london is the first river ."]
    feats = prepare_qa_features(questions, contexts, tok, max_seq_length=48, doc_stride=16, max_query_length=16)
    assert len(feats) > len(questions)          # several windows for the long passage
    rng = np.random.default_rng(3)
    width = max(feats.lengths())
    start = rng.normal(size=(len(feats), width)) * 3
    end = rng.normal(size=(len(feats), width)) * 3
    examples = [{"id": f"e{i}", "context": c} for i, c in enumerate(contexts)]
    decodings = decode_predictions_by("run_qa", examples, feats, start, end, n_best_size=5)
    ref_examples = [{"id": f"e{ex}", "context": contexts[ex],
                     "windows": [(start[k][:len(feats.input_ids[k])], end[k][:len(feats.input_ids[k])],
                                  feats.offset_mapping[k]) for k in ks]}
                    for ex, ks in sorted(feats.windows_of().items())]
    assert all(feats.cls_index[k] == 0 for k in range(len(feats)))   # run_qa's null position is 0
    ref_preds, ref_odds, _ = run_qa_postprocess(ref_examples, n_best_size=5)
    assert predictions_at(decodings, 0.0) == ref_preds
    assert null_odds(decodings) == pytest.approx(ref_odds)
    assert decode_predictions_by("passage", examples, feats, start, end, n_best_size=5).keys() == decodings.keys()


def test_rule_names():
    assert set(DECODE_RULES) == {"passage", "run_qa"}
    assert decoder_of("passage") is decode_example and other_rule("run_qa") == "passage"
    with pytest.raises(DecodeRuleError, match="'squad' is not one of passage, run_qa"):
        decoder_of("squad")

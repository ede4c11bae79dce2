"""Spans are text of the passage: stripped, offsets moved, white-space-only candidates never listed
(cases README "Also seen")."""

import numpy as np
import pytest

from explorer.core.qa.decoding import decode_example, decode_predictions, passage_span
from explorer.core.qa.windows import prepare_qa_features
from helpers import tiny_tokenizer


def _check(passage, decoding):
    for c in decoding.nbest:
        assert c.text and c.text == passage[c.start_char:c.end_char] == c.text.strip(), c
    texts = [c.text for c in decoding.nbest]
    assert len(texts) == len(set(texts))


def _logits(n, best):
    s, e = np.full(n, -5.0), np.full(n, -5.0)
    s[0] = e[0] = -20.0       # [CLS]: no-answer score low
    for rank, (i, j) in enumerate(best):
        s[i] = max(s[i], 5.0 - rank)
        e[j] = max(e[j], 5.0 - rank)
    return s, e


def test_no_break_space_only_candidate_never_enters_the_nbest():
    passage = "Paris\u00a0is big"
    offsets = [None, (0, 5), (5, 6), (6, 8), (9, 12), None]
    s, e = _logits(6, [(2, 2), (1, 1)])        # the no-break space alone scores best
    d = decode_example(passage, [s], [e], [offsets], [0], n_best_size=20)
    _check(passage, d)
    assert all(c.text.strip() for c in d.nbest)
    assert d.nbest[0].text != "\u00a0" and d.best_text.strip() == d.best_text
    assert d.answer(-100.0) != ""               # the answer is real text, not an abstention in disguise


def test_trailing_space_in_offsets_gives_paris_at_0_5():
    passage = "Paris  is big"
    offsets = [None, (0, 6), (7, 9), (10, 13), None]
    s, e = _logits(5, [(1, 1)])
    d = decode_example(passage, [s], [e], [offsets], [0])
    best = d.nbest[0]
    assert (best.text, best.start_char, best.end_char) == ("Paris", 0, 5)
    _check(passage, d)


def test_leading_space_is_moved_too_and_duplicates_merge():
    passage = "x  Paris is"
    offsets = [None, (0, 1), (1, 8), (3, 8), (9, 11), None]   # " Paris" and "Paris" give the same text
    s, e = _logits(6, [(2, 2), (3, 3)])
    d = decode_example(passage, [s], [e], [offsets], [0])
    assert (d.nbest[0].text, d.nbest[0].start_char, d.nbest[0].end_char) == ("Paris", 3, 8)
    assert [c.text for c in d.nbest].count("Paris") == 1


@pytest.mark.parametrize("seed", range(30))
def test_random_offsets_and_white_space_keep_the_invariant(seed):
    rng = np.random.default_rng(seed)
    chars = list("ab \u00a0\u3000\t\nc")
    passage = "".join(rng.choice(chars, size=40))
    cuts = np.sort(rng.choice(np.arange(1, 40), size=12, replace=False))
    bounds = [0, *cuts.tolist(), 40]
    offsets = [None] + [(bounds[k], bounds[k + 1]) for k in range(len(bounds) - 1)] + [None]
    s, e = rng.normal(size=len(offsets)), rng.normal(size=len(offsets))
    d = decode_example(passage, [s], [e], [offsets], [0], n_best_size=10, max_answer_length=5)
    _check(passage, d)


def test_passage_span_helper():
    assert passage_span("Paris  is", 0, 6) == (0, 5, "Paris")
    assert passage_span("a\u00a0b", 1, 2) == (1, 1, "")
    assert passage_span(" \u3000Tokyo\t", 0, 8) == (2, 7, "Tokyo")


def test_through_the_tokenizer_with_a_no_break_space():
    tok = tiny_tokenizer()
    passage = "Paris\u00a0is  big and   old ."
    feats = prepare_qa_features(["where ?"], [passage], tok, max_seq_length=64, doc_stride=16)
    rng = np.random.default_rng(0)
    n = len(feats.input_ids[0])
    d = decode_predictions([{"id": "q", "context": passage}], feats, [rng.normal(size=n)], [rng.normal(size=n)])
    _check(passage, d["q"])
    assert d["q"].nbest


def test_bench_decoding_script_runs(capsys):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
    import bench_decoding

    assert bench_decoding.main(["--n", "5", "--repeats", "1"]) == 0
    out = capsys.readouterr().out
    assert "clean offsets" in out and "white space in offsets" in out and "windows/s" in out

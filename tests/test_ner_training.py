"""Token tagging: piece alignment, windows, seqeval equality, and a few training steps of --task ner."""

import itertools
import json
import random

import numpy as np
import pytest
from helpers import save_tiny_model, tiny_tokenizer, write_tiny_conll
from test_training_loop import (
    run,  # the worker's main in this process, its events parsed
)

from explorer.core.data.conll import TaggingData
from explorer.core.tagging.alignment import (
    IGNORE_INDEX,
    align_labels,
    best_windows,
    entities_of,
    merge_word_predictions,
    plan_windows,
    window_rows,
    word_pieces,
)
from explorer.core.specs.train_config import TrainConfig
from explorer.core.metrics.tagging import tagging_metrics
from explorer.core.training.tasks import get_task


def test_first_piece_labelled_rest_ignored():
    tok = tiny_tokenizer()
    data = TaggingData("t", [["ada", "xyzq", "london"]], [["B-PER", "O", "B-LOC"]], [[1, 2, 3]],
                       label_names=["O", "B-LOC", "B-PER"])
    feats = get_task("ner").featurize(data, tok, TrainConfig(task="ner", max_seq_length=32), train=True)
    batch = feats.collate([0])
    ids = batch["input_ids"][0].tolist()
    pieces = tok.convert_ids_to_tokens(ids)
    assert pieces == ["[CLS]", "ada", "x", "##y", "##z", "##q", "london", "[SEP]"]
    assert batch["labels"][0].tolist() == [IGNORE_INDEX, 2, 0, IGNORE_INDEX, IGNORE_INDEX, IGNORE_INDEX, 1,
                                           IGNORE_INDEX]
    assert align_labels([None, 0, 0, 1, None], [5, 7]) == [IGNORE_INDEX, 5, IGNORE_INDEX, 7, IGNORE_INDEX]


@pytest.mark.parametrize("seed", range(5))
def test_windows_overlap_and_cover_every_word(seed):
    rng = random.Random(seed)
    counts = [rng.randint(1, 4) for _ in range(60)]
    room, overlap = 16, 4
    wins = plan_windows(counts, room, overlap)
    assert len(wins) > 1 and wins[0].start == 0 and wins[-1].end == len(counts)
    for a, b in itertools.pairwise(wins):
        assert b.start < a.end and sum(counts[b.start:a.end]) >= overlap and b.start > a.start
    assert all(sum(counts[w.start:w.end]) <= room for w in wins)
    best = best_windows(wins, len(counts))
    assert all(wins[k].start <= w < wins[k].end for w, k in enumerate(best))


def test_long_sentence_split_and_merged_back_per_word():
    tok = tiny_tokenizer()
    words = [["ada", "london", "paris", "the", "city"] * 9]
    rows = window_rows(tok, word_pieces(tok, words), 12)
    assert len(rows) > 3 and all(len(ids) <= 12 for ids, _, _ in rows)
    # a fake "model" whose logit is the word index at each first piece: merged values recover every word
    values = [np.array([[-1.0] if w is None else [float(w)] for w in wids]) for _, wids, _ in rows]
    merged = merge_word_predictions([len(words[0])], rows, values)[0]
    assert merged[:, 0].tolist() == list(range(len(words[0])))


def test_f1_equals_seqeval_and_hand_example():
    from seqeval.metrics import f1_score
    from seqeval.scheme import IOB2

    gold = [["B-PER", "I-PER", "O", "B-LOC"], ["B-ORG", "O", "B-PER"]]
    pred = [["B-PER", "I-PER", "O", "I-LOC"], ["B-ORG", "O", "B-LOC"]]
    m = tagging_metrics(gold, pred)
    # by hand: 4 gold entities, predicted (strict) PER, ORG, LOC@[1,2]: 2 right of 3 predicted
    assert m["precision"] == pytest.approx(2 / 3) and m["recall"] == pytest.approx(2 / 4)
    assert m["f1"] == pytest.approx(2 * (2 / 3) * 0.5 / (2 / 3 + 0.5)) and m["token_accuracy"] == pytest.approx(5 / 7)
    assert m["per_type"]["PER"] == {"precision": 1.0, "recall": 0.5, "f1": pytest.approx(2 / 3), "support": 2}
    rng = np.random.default_rng(0)
    tags = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]
    g = [[tags[k] for k in rng.integers(0, 5, 12)] for _ in range(40)]
    p = [[tags[k] for k in rng.integers(0, 5, 12)] for _ in range(40)]
    assert tagging_metrics(g, p)["f1"] == f1_score(g, p, mode="strict", scheme=IOB2)
    assert [(e.type, e.start_word, e.end_word) for e in entities_of(pred[0])] == [("PER", 0, 1)]


def test_train_ner_end_to_end(tmp_path):
    model = save_tiny_model(tmp_path / "m", "qa")
    data = write_tiny_conll(tmp_path / "train.txt", repeat=4)
    rc, ev = run(["--model", model, "--task", "ner", "--train", data, "--dev", data, "--epochs", 6,
                  "--batch-size", 8, "--learning-rate", 1e-2, "--dropout", 0, "--output-dir", tmp_path / "runs",
                  "--run-id", "ner", "--max-seq-length", 8])
    assert rc == 0, ev[-1]
    started = next(e for e in ev if e["event"] == "started")
    assert started["label_names"] == ["O", "B-LOC", "B-MISC", "I-MISC", "B-PER"]
    evals = [e for e in ev if e["event"] == "eval"]
    assert evals[-1]["metrics"]["loss"] < evals[0]["metrics"]["loss"]
    assert evals[-1]["metrics"]["f1"] > 0.5 and set(evals[-1]["metrics"]["per_type"]) <= {"LOC", "MISC", "PER"}
    cfg = json.loads((tmp_path / "runs" / "ner" / "checkpoints" / "best" / "config.json").read_text())
    assert cfg["architectures"] == ["BertForTokenClassification"] and cfg["id2label"]["4"] == "B-PER"


def test_an_iob1_file_trains_and_its_conversion_note_is_logged(tmp_path):
    """Tagging data's notes are plain sentences (the scheme converted): they reach the run's log as info events
    (they once stopped the run with "internal error ValueError: too many values to unpack")."""
    model = save_tiny_model(tmp_path / "m", "qa")
    data = tmp_path / "iob1.conll"
    data.write_text("ada I-PER\nwas O\nin O\nlondon I-LOC\n\nparis I-LOC\nis O\n", encoding="utf-8")
    rc, ev = run(["--model", model, "--task", "ner", "--train", data, "--dev", data, "--max-steps", 1,
                  "--batch-size", 2, "--max-seq-length", 16, "--output-dir", tmp_path / "runs", "--run-id", "iob1"])
    assert rc == 0, ev[-1]
    assert any(e["event"] == "log" and e["level"] == "info" and e["message"].endswith("tags read as IOB1 and "
                                                                                      "converted to IOB2") for e in ev)

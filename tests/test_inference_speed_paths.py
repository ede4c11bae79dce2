"""Eval at scale: the same batches, the same predictions, compact n-best files, int8.

eval's predictions.json / null_odds.json are compared with an independent computation (one window at a time,
decode_example per question); nbest_predictions.json parses to what json.dumps(indent=2) wrote before.
"""

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from explorer.core.qa.decoding import decode_example, json_one_key_per_line, null_odds, predictions_at
from explorer.core.qa.windows import collate_qa, prepare_qa_features
from explorer.core.qa.inference import batch_order, quantize_int8

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
CTX = "Ada Lovelace was born in London in 1815. She wrote the first program for a machine."


def test_batch_order_longest_first_stable_and_complete():
    lengths = [5, 9, 5, 7, 9, 1, 5]
    batches = batch_order(lengths, 3)
    assert batches == [[1, 4, 3], [0, 2, 6], [5]]
    assert batch_order([], 4) == []
    with pytest.raises(ValueError, match="batch_size must be at least 1; got 0"):
        batch_order(lengths, 0)


def test_json_one_key_per_line_is_the_same_data():
    data = {"q1": [{"text": "Zürich „x“", "probability": 0.1 + 0.2, "start_logit": -1e-7, "end_logit": 3.0}],
            "q2": [], "q\"3": [{"text": "", "probability": 1.0, "start_logit": 2.5, "end_logit": -0.5}]}
    text = json_one_key_per_line(data)
    assert json.loads(text) == json.loads(json.dumps(data, indent=2, ensure_ascii=False)) == data
    assert text.count("\n") == len(data) + 2 and "Zürich" in text
    assert json.loads(json_one_key_per_line({})) == {}


def _squad(tmp_path):
    qas = [{"id": "q1", "question": "Where was Ada born?", "answers": [{"text": "London", "answer_start": 25}]},
           {"id": "q2", "question": "When was Ada born?", "answers": [{"text": "1815", "answer_start": 35}]},
           {"id": "q3", "question": "Where did Ada die?", "answers": [], "is_impossible": True}]
    data = {"version": "v2.0", "data": [{"title": "Ada", "paragraphs": [
        {"context": " ".join([CTX] * 6), "qas": qas[:2]}, {"context": CTX, "qas": qas[2:]}]}]}
    path = tmp_path / "dev.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path, [(q, p["context"]) for p in data["data"][0]["paragraphs"] for q in p["qas"]]


def test_eval_files_equal_one_window_at_a_time(tmp_path, tiny_qa, capsys):
    from explorer.commands import eval as eval_cmd

    model_dir = tmp_path / "model"
    tiny_qa.model.save_pretrained(model_dir)
    tiny_qa.tokenizer.save_pretrained(model_dir)
    data, rows = _squad(tmp_path)
    parser = argparse.ArgumentParser()
    eval_cmd.add_arguments(parser)
    out = tmp_path / "out"
    args = parser.parse_args(["--model", str(model_dir), "--data", str(data), "--out", str(out), "--json",
                              "--max-seq-length", "48", "--doc-stride", "16", "--batch-size", "3"])
    assert eval_cmd.run(args) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result["speed"]["timing"]) == {"data_load", "model_load", "windows", "forward", "decoding",
                                              "files_and_metrics"}
    tok, model = tiny_qa.tokenizer, tiny_qa.model
    decodings = {}
    for q, context in rows:          # independent: one window per forward, decode_example per question
        feats = prepare_qa_features([q["question"]], [context], tok, max_seq_length=48, doc_stride=16)
        starts, ends = [], []
        for k in range(len(feats)):
            with torch.inference_mode():
                o = model(**collate_qa(feats, [k], tok.pad_token_id))
            starts.append(o.start_logits[0].numpy())
            ends.append(o.end_logits[0].numpy())
        decodings[q["id"]] = decode_example(context, starts, ends, feats.offset_mapping, feats.cls_index,
                                            example_id=q["id"])
    assert json.loads((out / "predictions.json").read_text()) == predictions_at(decodings, 0.0)
    written = json.loads((out / "null_odds.json").read_text())
    for qid, value in null_odds(decodings).items():
        assert math.isclose(written[qid], value, abs_tol=1e-4)
    nbest = json.loads((out / "nbest_predictions.json").read_text())
    assert [e["text"] for e in nbest["q1"]] == [e["text"] for e in decodings["q1"].nbest_entries()]


def test_quantize_int8_keeps_the_head_and_the_original(tiny_qa):
    from explorer.core.qa.probe import probe

    q8 = quantize_int8(tiny_qa)
    assert q8 is not tiny_qa and q8.tokenizer is tiny_qa.tokenizer and q8.source == tiny_qa.source
    assert type(q8.model.qa_outputs) is torch.nn.Linear                        # the by-hand check still works
    assert "quantized" in type(q8.model.bert.encoder.layer[0].attention.self.query).__module__
    assert type(tiny_qa.model.bert.encoder.layer[0].attention.self.query) is torch.nn.Linear   # untouched
    r32 = probe(tiny_qa, "Where was Ada born?", CTX)
    r8 = probe(q8, "Where was Ada born?", CTX)
    assert r8.byhand_max_abs_diff is not None and r8.byhand_max_abs_diff < 1e-4
    np.testing.assert_allclose(r8.windows[0].start_logits, r32.windows[0].start_logits, atol=0.05)
    assert quantize_int8(tiny_qa.model).qa_outputs is not tiny_qa.model.qa_outputs      # a bare model: a copy


def test_bench_eval_concat_file(tmp_path):
    sys.path.insert(0, str(SCRIPTS))
    import bench_eval

    def write(path, articles):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"data": [
            {"title": t, "paragraphs": [{"context": "London", "qas": [
                {"id": i, "question": "Where?", "answers": [{"text": "London", "answer_start": 0}]} for i in ids]}]}
            for t, ids in articles.items()]}))

    write(tmp_path / "squad_v2.0" / "dev-subset.json", {"A1": ["a"], "A2": ["b"]})
    write(tmp_path / "squad_v1.1" / "dev-part1.json", {"B1": ["b", "c"]})
    write(tmp_path / "squad_v2.0" / "train-subset.json", {"T": ["t1", "t2", "t3", "t4"]})
    out, what = bench_eval.build_concat(tmp_path, total=8, out=tmp_path / "concat.json")
    data = json.loads(out.read_text())["data"]
    assert [a["title"] for a in data] == ["A1", "B1", "A2", "T"]       # interleaved, then the top-up
    ids = [q["id"] for a in data for p in a["paragraphs"] for q in p["qas"]]
    assert len(ids) == len(set(ids)) == 8
    assert ids[:4] == ["a", "b-dup0", "c", "b"] and ids[4:] == ["t1", "t2", "t3", "t4"]
    assert "8 questions" in what and "1 repeated ids renamed" in what


def test_bench_probe_prints_the_ratio(tmp_path, tiny_qa, capsys):
    sys.path.insert(0, str(SCRIPTS))
    import bench_probe

    tiny_qa.model.save_pretrained(tmp_path)
    tiny_qa.tokenizer.save_pretrained(tmp_path)
    assert bench_probe.main(["--model", str(tmp_path), "--runs", "2"]) == 0
    out = capsys.readouterr().out
    # one ratio line per case (with one torch thread each case also prints its CPU-time ratio)
    assert out.count(": probe / bare forward") == 2 and "full 384-token window" in out

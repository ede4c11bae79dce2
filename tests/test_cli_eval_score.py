"""`bert-explorer eval` and `bert-explorer score` end to end on a tiny saved model and tiny SQuAD files."""

import argparse
import json

import pytest

from explorer.commands import eval as eval_cmd
from explorer.commands import score as score_cmd

CTX = "Ada Lovelace was born in London in 1815. She wrote the first program for a machine."


def squad_file(tmp_path, v2=True, name="dev.json"):
    qas = [
        {"id": "q1", "question": "Where was Ada born?", "answers": [{"text": "London", "answer_start": 25}]},
        {"id": "q2", "question": "When was Ada born?", "answers": [{"text": "1815", "answer_start": 35},
                                                                  {"text": "in 1815", "answer_start": 32}]},
        {"id": "q3", "question": "What did she write?", "answers": [{"text": "the first program",
                                                                     "answer_start": CTX.index("the first")}]},
    ]
    if v2:
        for q in qas:
            q["is_impossible"] = False
        qas.append({"id": "q4", "question": "Where did Ada die?", "answers": [], "is_impossible": True})
    data = {"version": "v2.0" if v2 else "1.1",
            "data": [{"title": "Ada", "paragraphs": [{"context": " ".join([CTX] * 6), "qas": qas}]}]}
    p = tmp_path / name
    p.write_text(json.dumps(data), encoding="utf-8")
    return p


@pytest.fixture(scope="module")
def tiny_model_dir(tmp_path_factory):
    from helpers import tiny_loaded_model

    lm = tiny_loaded_model("qa")
    d = tmp_path_factory.mktemp("tiny_qa_model")
    lm.model.save_pretrained(d)
    lm.tokenizer.save_pretrained(d)
    return d


def parse(module, argv):
    p = argparse.ArgumentParser()
    module.add_arguments(p)
    return p.parse_args(argv)


def test_eval_writes_official_files_and_scores_agree(tmp_path, tiny_model_dir, capsys):
    data = squad_file(tmp_path)
    out = tmp_path / "out"
    argv = ["--model", str(tiny_model_dir), "--data", str(data), "--out", str(out), "--max-seq-length", "64",
            "--doc-stride", "16", "--batch-size", "3", "--tau", "0.5", "--json"]
    assert eval_cmd.run(parse(eval_cmd, argv)) == 0
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert "windows" in captured.err  # progress on stderr
    assert result["version"] == "v2.0" and result["speed"]["questions"] == 4
    assert result["speed"]["windows"] > 4  # the passage needs several 64-token windows
    preds = json.loads((out / "predictions.json").read_text())
    odds = json.loads((out / "null_odds.json").read_text())
    nbest = json.loads((out / "nbest_predictions.json").read_text())
    assert set(preds) == set(odds) == set(nbest) == {"q1", "q2", "q3", "q4"}
    for q in preds:  # answered iff score_diff = -null_odds > tau
        assert (preds[q] != "") == (-odds[q] > 0.5)
        if preds[q]:
            assert preds[q] == next(e["text"] for e in nbest[q] if e["text"])
    # the official-style scorer on the written files gives the same exact / f1 / HasAns numbers
    scored = score_cmd.score(str(data), str(out / "predictions.json"), str(out / "null_odds.json"))
    m = result["metrics"]
    for key, value in scored.items():   # every key score prints, best threshold included
        assert m["exact_match" if key == "exact" else key] == value, key
    assert scored["NoAns_total"] == 1 and result["score_command"].startswith("bert-explorer score --data")
    assert set(result["best_spans"]) >= {"best_f1", "best_tau"}
    assert list(scored)[:3] == ["exact", "f1", "total"] and "best_f1_thresh" in scored
    assert len(result["tau_grid"]["taus"]) == 49


def test_eval_below_minus_one_names_the_score_threshold(tmp_path, tiny_model_dir, capsys):
    """tau < -1: score's default --na-prob-thresh 1.0 would blank answers eval gave; eval names the
    threshold that reproduces its numbers, and score with it prints exactly them."""
    data = squad_file(tmp_path)
    out = tmp_path / "out"
    argv = ["--model", str(tiny_model_dir), "--data", str(data), "--out", str(out), "--max-seq-length", "64",
            "--doc-stride", "16", "--tau", "-3", "--json"]
    assert eval_cmd.run(parse(eval_cmd, argv)) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["score_command"].endswith("--na-prob-thresh 3")
    scored = score_cmd.score(str(data), str(out / "predictions.json"), str(out / "null_odds.json"), na_prob_thresh=3.0)
    for key, value in scored.items():
        assert result["metrics"]["exact_match" if key == "exact" else key] == value, key


def test_eval_text_report_and_cap(tmp_path, tiny_model_dir, capsys):
    data = squad_file(tmp_path, v2=False)
    argv = ["--model", str(tiny_model_dir), "--data", str(data), "--out", str(tmp_path / "o"), "--cap", "2"]
    assert eval_cmd.run(parse(eval_cmd, argv)) == 0
    text = capsys.readouterr().out
    assert "SQuAD v1.1: 2 questions" in text and "exact_match" in text and "questions/s" in text
    assert not (tmp_path / "o" / "null_odds.json").exists()
    assert set(json.loads((tmp_path / "o" / "predictions.json").read_text())) == {"q1", "q2"}


def test_eval_bad_inputs(tmp_path, tiny_model_dir, capsys):
    assert eval_cmd.run(parse(eval_cmd, ["--model", str(tiny_model_dir), "--data", str(tmp_path / "x.json")])) == 2
    assert "no such file" in capsys.readouterr().err
    data = squad_file(tmp_path)
    assert eval_cmd.run(parse(eval_cmd, ["--model", str(tmp_path / "nomodel"), "--data", str(data)])) == 2
    assert "does not exist" in capsys.readouterr().err


def test_eval_skip_invalid(tmp_path, tiny_model_dir, capsys):
    data = json.loads(squad_file(tmp_path).read_text(encoding="utf-8"))
    del data["data"][0]["paragraphs"][0]["qas"][1]["question"]  # q2: one broken record
    p = tmp_path / "broken.json"
    p.write_text(json.dumps(data), encoding="utf-8")
    argv = ["--model", str(tiny_model_dir), "--data", str(p), "--out", str(tmp_path / "out"), "--json"]
    assert eval_cmd.run(parse(eval_cmd, argv)) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "1 invalid question record:" in err
    assert "id 'q2': missing field 'question'" in err
    assert "`bert-explorer eval --skip-invalid` / strict=False (Python)" in err
    assert eval_cmd.run(parse(eval_cmd, argv + ["--skip-invalid"])) == 0
    out = capsys.readouterr()
    assert "3 questions (1 unanswerable)" in out.err and "1 record skipped" in out.err
    assert "warning: skipped: " in out.err and json.loads(out.out)["speed"]["questions"] == 3
    assert "q2" not in json.loads((tmp_path / "out" / "predictions.json").read_text(encoding="utf-8"))


def test_score_v11_gold_as_predictions(tmp_path, capsys):
    data = squad_file(tmp_path, v2=False)
    preds = tmp_path / "p.json"
    preds.write_text(json.dumps({"q1": "London", "q2": "1815", "q3": "the first program", "extra": "x"}))
    args = parse(score_cmd, ["--data", str(data), "--predictions", str(preds)])
    assert score_cmd.run(args) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out) == {"exact_match": 100.0, "f1": 100.0}
    assert "1 prediction ids are not questions" in captured.err


def test_score_v20_worked_values(tmp_path):
    data = squad_file(tmp_path)
    preds = tmp_path / "p.json"
    preds.write_text(json.dumps({"q1": "in London", "q2": "", "q3": "the first program", "q4": ""}))
    out = score_cmd.score(str(data), str(preds))
    # q1: F1 1.0 (articles/"in"? no: "in london" vs "london" -> P 0.5, R 1, F1 2/3), q2 0, q3 1, q4 1
    assert out["f1"] == pytest.approx(100 * (2 / 3 + 0 + 1 + 1) / 4)
    assert out["exact"] == pytest.approx(50.0) and out["HasAns_total"] == 3
    assert "best_f1" not in out


def test_score_errors(tmp_path, capsys):
    data = squad_file(tmp_path)
    preds = tmp_path / "p.json"
    preds.write_text(json.dumps({"q1": "London"}))
    assert score_cmd.run(parse(score_cmd, ["--data", str(data), "--predictions", str(preds)])) == 2  # user error
    err = capsys.readouterr().err
    assert "no prediction for 3 of the 4 questions" in err and "q2, q3, q4" in err
    assert score_cmd.run(parse(score_cmd, ["--data", str(data), "--predictions", str(preds),
                                           "--allow-missing"])) == 0
    captured = capsys.readouterr()
    assert "3 of 4 questions have no prediction" in captured.err and "q2, q3, q4" in captured.err
    assert json.loads(captured.out)["total"] == 4   # counted, scored 0 (as evaluate-v1.1.py does)
    preds.write_text('{"q1": "London",\n "q2": }')
    assert score_cmd.run(parse(score_cmd, ["--data", str(data), "--predictions", str(preds)])) == 2
    assert "malformed JSON at line 2, column" in capsys.readouterr().err
    preds.write_text(json.dumps({"q1": "a", "q2": "b", "q3": "c", "q4": ""}))
    odds = tmp_path / "o.json"
    odds.write_text(json.dumps({"q1": 1.0, "q2": "high"}))
    assert score_cmd.run(parse(score_cmd, ["--data", str(data), "--predictions", str(preds),
                                           "--null-odds", str(odds)])) == 2
    assert "not a number" in capsys.readouterr().err
    odds.write_text(json.dumps({"q1": 1.0}))
    assert score_cmd.run(parse(score_cmd, ["--data", str(data), "--predictions", str(preds),
                                           "--null-odds", str(odds)])) == 2
    assert "no null odds for 3 predicted questions" in capsys.readouterr().err


def test_eval_decode_rule_run_qa_reproduces_the_reference_and_lists_differences(tmp_path, tiny_model_dir, capsys):
    """--decode-rule run_qa writes what run_qa's post-processing gives on the same logits; each rule's report lists
    the questions whose answer differs under the other, with both answers."""
    from explorer.core.data.squad import load_squad
    from explorer.core.models.loading import load_model
    from explorer.core.qa.inference import predict_squad
    from run_qa_postprocess import run_qa_postprocess

    data = squad_file(tmp_path)
    base = ["--model", str(tiny_model_dir), "--data", str(data), "--max-seq-length", "64", "--doc-stride", "16",
            "--n-best-size", "2", "--json"]
    reports = {}
    for rule in ("passage", "run_qa"):
        out = tmp_path / rule
        assert eval_cmd.run(parse(eval_cmd, base + ["--out", str(out), "--decode-rule", rule])) == 0
        reports[rule] = json.loads(capsys.readouterr().out)["decode_rule"]
    ours, theirs = reports["passage"], reports["run_qa"]
    assert ours["other_rule"] == "run_qa" and theirs["other_rule"] == "passage"
    assert ours["differences"]      # n_best_size 2 on a random head: question tokens crowd some passages out
    assert [(r["id"], r["answer"], r["other_answer"]) for r in ours["differences"]] == \
        [(r["id"], r["other_answer"], r["answer"]) for r in theirs["differences"]]
    dataset, _ = load_squad(str(data))
    loaded = load_model(str(tiny_model_dir), task="qa")
    feats, start, end = predict_squad(loaded, dataset, max_seq_length=64, doc_stride=16, max_query_length=64)
    examples = [{"id": dataset[ex]["id"], "context": dataset[ex]["context"],
                 "windows": [(start[k][:len(feats.input_ids[k])], end[k][:len(feats.input_ids[k])],
                              feats.offset_mapping[k]) for k in ks]} for ex, ks in sorted(feats.windows_of().items())]
    ref_preds, ref_odds, _ = run_qa_postprocess(examples, n_best_size=2)
    assert json.loads((tmp_path / "run_qa" / "predictions.json").read_text()) == ref_preds
    assert json.loads((tmp_path / "run_qa" / "null_odds.json").read_text()) == pytest.approx(ref_odds, abs=1e-5)
    passage_preds = json.loads((tmp_path / "passage" / "predictions.json").read_text())
    assert {q for q in ref_preds if ref_preds[q].strip() != passage_preds[q]} == {r["id"] for r in ours["differences"]}

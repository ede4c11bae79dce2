"""bert-explorer predict: every row out in input order, the same labels as Classify, resume, QA = eval."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from explorer.core.errors import Cancelled
from explorer.core.predict.engine import predict_file
from explorer.core.predict.reading import iter_rows
from helpers import save_tiny_model, write_tiny_squad

WORDS = "good bad fine worst city river model answer year first name the a of".split()


def _texts(n: int, seed: int = 0) -> list[str]:
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(WORDS, size=int(rng.integers(1, 7)))) for _ in range(n)]


def _write_csv(path, texts, labels=None):
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "text"] + (["label"] if labels is not None else []))
        for i, t in enumerate(texts):
            w.writerow([f"r{i}", t] + ([labels[i]] if labels is not None else []))
    return path


def _read_csv(path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def cls_model(tmp_path_factory):
    return save_tiny_model(tmp_path_factory.mktemp("m") / "cls", "classification", num_labels=3)


def test_ten_thousand_rows_in_order_probabilities_and_classify_labels(tmp_path, cls_model):
    from explorer.core.classify.forward import classify_text
    from explorer.core.models.loading import load_model

    texts = _texts(10_000)
    data = _write_csv(tmp_path / "in.csv", texts)
    loaded = load_model(str(cls_model), task="classification")
    summary = predict_file(str(cls_model), str(data), str(tmp_path / "out.csv"), loaded=loaded, batch_size=256,
                           chunk_rows=4096)
    rows = _read_csv(tmp_path / "out.csv")
    assert summary.rows == len(rows) == 10_000
    assert [r["id"] for r in rows] == [f"r{i}" for i in range(10_000)]
    assert [r["text"] for r in rows] == texts
    names = ["LABEL_0", "LABEL_1", "LABEL_2"]
    p = np.array([[float(r[f"p_{n}"]) for n in names] for r in rows])
    np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-9)
    top2 = np.sort(p, axis=1)[:, ::-1]
    np.testing.assert_allclose([float(r["margin"]) for r in rows], top2[:, 0] - top2[:, 1], atol=1e-9)
    for i in range(0, 10_000, 499):   # the same label as Classify, row by row
        res = classify_text(loaded.model, loaded.tokenizer, texts[i])
        assert rows[i]["predicted_label"] == res.label_names[res.prediction]
        np.testing.assert_allclose(p[i], res.probabilities, atol=1e-5)
    assert all(r["error"] == "" for r in rows)


def test_cancelled_then_resumed_writes_each_row_once(tmp_path, cls_model, monkeypatch):
    from explorer.core.models.loading import load_model
    from explorer.core.predict import engine

    monkeypatch.setattr(engine, "BATCH_PROGRESS_SECONDS", 0.0)   # a report after every batch

    texts = _texts(700, seed=1)
    data = _write_csv(tmp_path / "in.csv", texts)
    loaded = load_model(str(cls_model), task="classification")
    polls = {"n": 0}

    def cancel_late():
        polls["n"] += 1
        return polls["n"] > 5    # batches of 32 -> inside the third chunk of 100 rows

    out = tmp_path / "out.tsv"
    reports = []
    with pytest.raises(Cancelled) as stopped:
        predict_file(str(cls_model), str(data), str(out), loaded=loaded, chunk_rows=100, cancelled=cancel_late,
                     progress=lambda done, total: reports.append(done))
    partial = list(csv.DictReader(open(out, encoding="utf-8"), delimiter="\t"))
    assert 0 < len(partial) < 700
    # every row run is kept at the interrupt (in the file, or ahead of it): the bar's last count is the rows kept
    kept = len(partial) + stopped.value.rows_ahead
    assert len(partial) == stopped.value.rows_written and max(reports) == reports[-1] == kept
    summary = predict_file(str(cls_model), str(data), str(out), loaded=loaded, chunk_rows=100, resume=True)
    assert summary.resumed_from == len(partial) and summary.rows == 700
    rows = list(csv.DictReader(open(out, encoding="utf-8"), delimiter="\t"))
    assert [r["id"] for r in rows] == [f"r{i}" for i in range(700)]
    full = tmp_path / "full.tsv"
    predict_file(str(cls_model), str(data), str(full), loaded=loaded, chunk_rows=100)
    again = list(csv.DictReader(open(full, encoding="utf-8"), delimiter="\t"))
    assert [r["predicted_label"] for r in rows] == [r["predicted_label"] for r in again]


def test_a_cancel_keeps_the_batches_already_run_and_resume_does_not_run_them_again(tmp_path, cls_model):
    """A cancel is seen before each batch: the batch run before it is written (the rows run longest first: here in
    input order, nothing is kept ahead), and resume predicts only the rows after it; the rows are those a run
    without a cancel writes."""
    from explorer.core.models.loading import load_model

    texts = [" ".join(["city"] * (100 - i)) for i in range(100)]   # one token a word: 102, 101, ... tokens
    data = _write_csv(tmp_path / "in.csv", texts)
    loaded = load_model(str(cls_model), task="classification")
    polls = {"n": 0}

    def cancel_at_the_second_batch():
        polls["n"] += 1
        return polls["n"] >= 2     # asked before each batch: one batch of 10 rows ran

    out = tmp_path / "out.csv"
    with pytest.raises(Cancelled) as stopped:
        predict_file(str(cls_model), str(data), str(out), loaded=loaded, chunk_rows=100, batch_size=10,
                     cancelled=cancel_at_the_second_batch)
    assert stopped.value.rows_written == len(_read_csv(out)) == 10 and stopped.value.rows_ahead == 0
    summary = predict_file(str(cls_model), str(data), str(out), loaded=loaded, chunk_rows=100, batch_size=10,
                           resume=True)
    assert summary.resumed_from == 10 and summary.new_rows == 90 and summary.rows == 100
    full = tmp_path / "full.csv"
    predict_file(str(cls_model), str(data), str(full), loaded=loaded, chunk_rows=100, batch_size=10)
    assert [(r["id"], r["predicted_label"]) for r in _read_csv(out)] == \
        [(r["id"], r["predicted_label"]) for r in _read_csv(full)]


def test_a_chunk_runs_in_batches_sorted_by_length_over_the_whole_chunk(tmp_path, cls_model):
    """Each batch is padded to about its own rows' length: the tokens forwarded are those of a length sort of the
    whole chunk (as the dev scoring's), not of sorts inside a few batches of input order, which pad more."""
    from explorer.core.models.batched_forward import length_order
    from explorer.core.models.loading import load_model

    words = np.random.default_rng(3).permutation(np.arange(1, 81))   # one token a word: lengths in random order
    data = _write_csv(tmp_path / "in.csv", [" ".join(["city"] * int(n)) for n in words])
    loaded = load_model(str(cls_model), task="classification")
    forwarded = []
    loaded.model.register_forward_pre_hook(lambda _m, _a, kw: forwarded.append(kw["input_ids"].numel()),
                                           with_kwargs=True)
    predict_file(str(cls_model), str(data), str(tmp_path / "out.csv"), loaded=loaded, chunk_rows=80, batch_size=4)
    lengths = [int(n) + 2 for n in words]   # [CLS] and [SEP]; 80 rows: one chunk
    whole_chunk = sum(len(b) * max(lengths[i] for i in b) for b in length_order(lengths, 4))
    assert sum(forwarded) == whole_chunk


def test_each_text_is_tokenized_once_for_both_the_length_sort_and_its_batch(tmp_path, cls_model, monkeypatch):
    from explorer.core.predict import engine

    texts = _texts(300, seed=4)
    data = _write_csv(tmp_path / "in.csv", texts)
    encoded = []
    real = engine._Runner.encode
    monkeypatch.setattr(engine._Runner, "encode", lambda self, t: encoded.append(len(t)) or real(self, t))
    predict_file(str(cls_model), str(data), str(tmp_path / "out.csv"), chunk_rows=200, batch_size=8)
    assert sum(encoded) == 300
    full = tmp_path / "again.csv"
    monkeypatch.setattr(engine._Runner, "encode", real)
    monkeypatch.setattr(engine._Runner, "_encode_once", lambda self, t: real(self, t))   # tokenized again
    predict_file(str(cls_model), str(data), str(full), chunk_rows=200, batch_size=8)
    assert _read_csv(tmp_path / "out.csv") == _read_csv(full)   # the same ids either way


def test_every_row_comes_out_with_an_error_column(tmp_path, cls_model):
    lines = [json.dumps({"text": "a good model", "n": 1}), "not json", json.dumps([1, 2]),
             json.dumps({"text": "   "}), json.dumps({"text": "the worst year"})]
    data = tmp_path / "in.jsonl"
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    summary = predict_file(str(cls_model), str(data), str(tmp_path / "out.jsonl"))
    rows = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 5 and summary.errors == 3
    assert rows[0]["error"] == "" and rows[0]["predicted_label"].startswith("LABEL_")
    assert "line 2" in rows[1]["error"] and "not JSON" in rows[1]["error"]
    assert "not an object" in rows[2]["error"] and "empty 'text'" in rows[3]["error"]
    assert rows[3]["predicted_label"] is None and rows[4]["error"] == ""


def test_xlsx_in_and_out_and_cp1252_tsv(tmp_path, cls_model):
    import openpyxl

    data = tmp_path / "in.txt"
    data.write_bytes("ID\tTweet\n1\tcafé good “model”\n2\tthe worst year\n".encode("cp1252"))
    info, rows = iter_rows(data)
    assert "Windows-1252" in info.note and [r.values["Tweet"] for r in rows][0] == "café good “model”"
    out = tmp_path / "out.xlsx"
    summary = predict_file(str(cls_model), str(data), str(out))
    assert summary.text_columns == ["Tweet"] and any("cp1252" in n for n in summary.notes)
    got = list(openpyxl.load_workbook(out).active.iter_rows(values_only=True))
    assert got[0][:3] == ("ID", "Tweet", "predicted_label") and len(got) == 3
    again = predict_file(str(cls_model), str(out), str(tmp_path / "again.csv"), text_columns=["2"])
    assert again.rows == 2 and again.text_columns == ["Tweet"]


def test_regression_and_multilabel_columns_follow_the_checkpoint_config(tmp_path):
    import json as _json

    reg = save_tiny_model(tmp_path / "reg", "classification", num_labels=1)
    ml = save_tiny_model(tmp_path / "ml", "classification", num_labels=3)
    cfg = _json.loads((ml / "config.json").read_text())
    cfg["problem_type"] = "multi_label_classification"
    cfg["id2label"] = {"0": "sports", "1": "politics", "2": "tech"}
    cfg["label2id"] = {v: int(k) for k, v in cfg["id2label"].items()}
    (ml / "config.json").write_text(_json.dumps(cfg))
    (ml / "thresholds.json").write_text(_json.dumps({"sports": 0.0, "politics": 1.0, "tech": 0.5}))
    data = _write_csv(tmp_path / "in.csv", _texts(5))
    predict_file(str(reg), str(data), str(tmp_path / "reg.csv"))
    rows = _read_csv(tmp_path / "reg.csv")
    assert "predicted_score" in rows[0] and all(float(r["predicted_score"]) == float(r["predicted_score"]) for r in rows)
    predict_file(str(ml), str(data), str(tmp_path / "ml.jsonl"))
    rows = [_json.loads(x) for x in (tmp_path / "ml.jsonl").read_text().splitlines()]
    for r in rows:   # threshold 0 -> always, 1 -> never, 0.5 -> by the sigmoid
        assert "sports" in r["predicted_labels"] and "politics" not in r["predicted_labels"]
        assert ("tech" in r["predicted_labels"]) == (r["p_tech"] >= 0.5)


def test_swag_predicts_an_ending_per_row(tmp_path):
    mc = save_tiny_model(tmp_path / "mc", "multiple_choice")
    data = tmp_path / "swag.csv"
    with open(data, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["sent1", "sent2", "ending0", "ending1", "ending2", "ending3"])
        w.writerow(["the model", "it", "is good", "is bad", "was first", "the city"])
        w.writerow(["a river", "", "of paris", "of london", "the year", "a name"])
    predict_file(str(mc), str(data), str(tmp_path / "out.csv"))
    rows = _read_csv(tmp_path / "out.csv")
    for r in rows:
        p = [float(r[f"p_ending{k}"]) for k in range(4)]
        assert abs(sum(p) - 1) < 1e-9 and int(r["predicted_ending"]) == int(np.argmax(p))


@pytest.mark.parametrize("v2", [True, False])
def test_qa_answers_equal_eval(tmp_path, v2):
    from explorer.cli import main

    run = tmp_path / "runs" / "r1"
    qa = save_tiny_model(run / "checkpoints" / "best", "qa")
    (run / "config.json").write_text(json.dumps({"task": "squad_v2" if v2 else "squad_v1", "max_seq_length": 48,
                                                 "doc_stride": 16, "max_query_length": 64}))
    squad = write_tiny_squad(tmp_path / "dev.json", v2=v2, repeat=2)
    assert main(["eval", "--model", str(qa), "--data", str(squad), "--out", str(tmp_path / "ev"),
                 "--max-seq-length", "48", "--doc-stride", "16"]) == 0
    official = json.loads((tmp_path / "ev" / "predictions.json").read_text())
    # one chunk holds every question, so predict runs eval's batches (inference.batch_order over the same windows)
    summary = predict_file(str(qa), str(squad), str(tmp_path / "p.jsonl"))   # window settings from the run
    rows = [json.loads(x) for x in (tmp_path / "p.jsonl").read_text().splitlines()]
    assert summary.rows == len(official) == len(rows)
    for r in rows:
        assert r["answer"] == official[r["id"]]
        if v2:
            assert r["decision"] == ("answer" if r["score_diff"] is not None and r["score_diff"] > 0 else "abstain")
        else:   # a squad_v1 run's checkpoint always answers, as eval does on a v1.1 file
            assert r["decision"] == "answer"
        if r["answer"]:
            assert r["context"][r["answer_start"]:r["answer_end"]] == r["answer"]
        assert r["window"] >= 1   # windows numbered from 1, as in the GUI and probe
    # the same questions as a CSV with question and context columns give the same answers
    table = tmp_path / "qa.csv"
    with open(table, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["question", "context"])
        w.writerows([r["question"], r["context"]] for r in rows)
    predict_file(str(qa), str(table), str(tmp_path / "t.csv"))
    assert [r["answer"] for r in _read_csv(tmp_path / "t.csv")] == [r["answer"] for r in rows]


def test_qa_decode_rule_answers_equal_eval_and_name_the_other_rules_answer(tmp_path):
    """predict --decode-rule run_qa answers as eval does with that rule; other_rule_answer holds this app's rule's
    answer exactly where the two differ ("(no answer)" where it abstains)."""
    from explorer.cli import main
    from explorer.core.predict.engine import NO_ANSWER

    run = tmp_path / "runs" / "r1"
    qa = save_tiny_model(run / "checkpoints" / "best", "qa")
    (run / "config.json").write_text(json.dumps({"task": "squad_v2", "max_seq_length": 48, "doc_stride": 16,
                                                 "max_query_length": 64}))
    squad = write_tiny_squad(tmp_path / "dev.json", v2=True, repeat=2)
    official = {}
    for rule in ("passage", "run_qa"):
        assert main(["eval", "--model", str(qa), "--data", str(squad), "--out", str(tmp_path / rule), "--n-best-size",
                     "2", "--decode-rule", rule]) == 0
        official[rule] = json.loads((tmp_path / rule / "predictions.json").read_text())
    predict_file(str(qa), str(squad), str(tmp_path / "p.jsonl"), n_best_size=2, decode_rule="run_qa")
    rows = [json.loads(x) for x in (tmp_path / "p.jsonl").read_text().splitlines()]
    differ = 0
    for r in rows:
        assert r["answer"] == official["run_qa"][r["id"]]
        ours = official["passage"][r["id"]]
        if ours.strip() == r["answer"].strip():
            assert r["other_rule_answer"] == ""
        else:
            differ += 1
            assert r["other_rule_answer"] == (ours or NO_ANSWER)
    assert differ     # a random head with n_best_size 2: question tokens take some of the top places


def test_cli_predict_and_bad_input(tmp_path, cls_model, capsys):
    from explorer.cli import main

    data = _write_csv(tmp_path / "in.csv", _texts(3))
    assert main(["predict", "--model", str(cls_model), "--data", str(data), "--out", str(tmp_path / "o.csv")]) == 0
    assert "3 rows written" in capsys.readouterr().out
    assert main(["predict", "--model", str(cls_model), "--data", str(data), "--out", str(tmp_path / "o.doc")]) == 2
    assert "suffix must be one of" in capsys.readouterr().err
    assert main(["predict", "--model", str(cls_model), "--data", str(data), "--out", str(tmp_path / "o.csv"),
                 "--text-columns", "nope"]) == 2
    assert "no column 'nope'" in capsys.readouterr().err


def test_encoding_equals_the_tokenizer_call_with_truncation(cls_model):
    from explorer.core.models.loading import load_model
    from explorer.core.predict.engine import _Runner
    from explorer.core.predict.facts import checkpoint_facts

    loaded = load_model(str(cls_model), task="classification")
    runner = _Runner(loaded, checkpoint_facts(str(cls_model)), max_seq_length=12, batch_size=4, tau=0.0,
                     doc_stride=128, max_query_length=64, n_best_size=20, max_answer_length=30)
    a, b = ["the model of the year was good " * 5, "a city"], ["the worst river", "name of the first answer " * 4]
    got = runner.encode([[x, y] for x, y in zip(a, b)])
    want = loaded.tokenizer(a, b, truncation=True, max_length=12)
    for key in ("input_ids", "token_type_ids", "attention_mask"):
        assert got[key] == want[key]
    assert runner.encode([[x] for x in a])["input_ids"] == loaded.tokenizer(a, truncation=True, max_length=12)["input_ids"]
    backend = loaded.tokenizer.backend_tokenizer
    backend.no_truncation()
    runner.encode([["a city"]])
    assert backend.truncation is None and backend.padding is None     # the shared tokenizer is left as it was


def test_undecodable_bytes_in_one_row_give_that_row_an_error(tmp_path, cls_model):
    data = tmp_path / "in.csv"
    data.write_bytes(b"text\n" + b"a good model\n" * 300 + b"caf\xe9 bad\n" + b"the worst year\n")
    summary = predict_file(str(cls_model), str(data), str(tmp_path / "out.csv"), encoding="utf-8")
    rows = _read_csv(tmp_path / "out.csv")
    assert summary.rows == len(rows) == 302 and summary.errors == 1
    assert "line 302: bytes that are not utf-8 text" in rows[300]["error"] and rows[300]["text"] == "caf\ufffd bad"


def test_qa_decides_at_the_tau_saved_with_the_run_unless_tau_is_given(tmp_path):
    run = tmp_path / "runs" / "r1"
    qa = save_tiny_model(run / "checkpoints" / "best", "qa")
    (run / "config.json").write_text(json.dumps({"task": "squad_v2", "max_seq_length": 48, "doc_stride": 16}))
    (run / "tau.json").write_text(json.dumps({"tau": 0.3}))
    squad = write_tiny_squad(tmp_path / "dev.json")
    summary = predict_file(str(qa), str(squad), str(tmp_path / "p.jsonl"))
    assert summary.tau == 0.3 and any("τ +0.300 saved in" in n for n in summary.notes)
    for r in (json.loads(x) for x in (tmp_path / "p.jsonl").read_text().splitlines()):
        answered = r["score_diff"] is not None and r["score_diff"] > 0.3
        assert r["decision"] == ("answer" if answered else "abstain") and (r["answer"] != "") == answered
    assert predict_file(str(qa), str(squad), str(tmp_path / "q.jsonl"), tau=-1.5).tau == -1.5


def test_predict_runs_in_eval_mode_and_gives_the_model_back_in_train_mode(tmp_path, cls_model):
    """Case eval-mode-determinism for predict: a model left in train mode with dropout 0.5 gives the same
    probabilities twice, and is in train mode again afterwards."""
    import torch

    from explorer.core.models.loading import load_model

    loaded = load_model(str(cls_model), task="classification")
    for m in loaded.model.modules():
        if isinstance(m, torch.nn.Dropout):
            m.p = 0.5
    loaded.model.train()
    data = _write_csv(tmp_path / "in.csv", _texts(40))
    outs = []
    for k in range(2):
        predict_file(str(cls_model), str(data), str(tmp_path / f"out{k}.csv"), loaded=loaded, batch_size=8)
        outs.append([r["p_LABEL_0"] for r in _read_csv(tmp_path / f"out{k}.csv")])
        assert all(m.training for m in loaded.model.modules())
    assert outs[0] == outs[1]


def test_the_first_chunk_is_small_so_progress_and_an_early_stop_come_soon():
    """The first chunk is FIRST_CHUNK_ROWS, the rest keep the chunk size: a first chunk of 2,048 rows showed no
    progress on 20,000 rows for over a minute, and a Ctrl-C then kept no row."""
    from explorer.core.predict.engine import FIRST_CHUNK_ROWS, _chunks

    sizes = [len(c) for c in _chunks(iter(range(5000)), 2048)]
    assert sizes[0] == FIRST_CHUNK_ROWS and sizes[1:-1] == [2048] * (len(sizes) - 2) and sum(sizes) == 5000
    assert [len(c) for c in _chunks(iter(range(10)), 4)] == [4, 4, 2]      # a chunk size below the first's


def test_an_empty_line_between_rows_is_a_row_with_an_error_not_dropped(tmp_path):
    """200 texts with an empty line among them give 200 rows plus one that says "line 4: an empty line" (a person
    counting rows in and out sees where one went); empty lines at the end of the file are not rows."""
    from explorer.core.predict.reading import iter_rows

    csv_file = tmp_path / "texts.csv"
    csv_file.write_text("id,text\n1,first\n2,second\n\n3,third\n\n\n", encoding="utf-8")
    _, rows = iter_rows(csv_file)
    rows = list(rows)
    assert [r.line for r in rows] == [2, 3, 4, 5]
    assert rows[2].error == "texts.csv line 4: an empty line" and not rows[3].error
    assert [r.index for r in rows] == [0, 1, 2, 3]
    jsonl = tmp_path / "texts.jsonl"
    jsonl.write_text('{"text": "a"}\n\n{"text": "b"}\n\n', encoding="utf-8")
    _, rows = iter_rows(jsonl)
    rows = list(rows)
    assert [(r.line, r.error) for r in rows] == [(1, ""), (2, "texts.jsonl line 2: an empty line"), (3, "")]


def test_the_runs_text_column_is_found_in_another_case_else_by_the_usual_names():
    """A new file's "Sentence" is the column a model trained on "sentence" reads (it was refused: "which column
    holds the text?"); without the run's names, the launcher preview's guess by the usual names."""
    from explorer.core.data.columns_guess import text_columns_for

    assert text_columns_for(["id", "Sentence"], ["sentence"]) == ("Sentence",)
    assert text_columns_for(["Utterance", "text"], ["utterance"]) == ("Utterance",)      # before the usual names
    assert text_columns_for(["Question1", "question2"], ["question1", "question2"], pair=True) == (
        "Question1", "question2")
    assert text_columns_for(["id", "Tweet"], ["body_text"]) == ("Tweet",)                # the usual names
    assert text_columns_for(["sentence1", "sentence2"], (), pair=False) == ("sentence1",)
    assert text_columns_for(["a", "b"], ["c"]) == ()


def test_predict_reads_the_training_text_column_in_another_case(tmp_path):
    from types import SimpleNamespace

    from explorer.core.predict.engine import resolve_text_columns
    from explorer.core.predict.reading import read_header

    path = tmp_path / "new.csv"
    path.write_text("id,Sentence\n1,a fine day\n")
    facts = SimpleNamespace(spec=SimpleNamespace(prediction=SimpleNamespace(text_columns=())),
                            run_config={"task": "single", "text_columns": ["sentence"]})
    assert resolve_text_columns(read_header(path), facts) == ["Sentence"]


def _run_trained_on(tmp_path):
    """A run folder whose checkpoint was trained on train.tsv (8 sentences), and a new file holding 3 of them."""
    from helpers import write_tiny_classification

    run = tmp_path / "runs" / "run1"
    ckpt = save_tiny_model(run / "checkpoints" / "best", "classification", num_labels=2)
    train = write_tiny_classification(tmp_path / "train.tsv")
    (run / "config.json").write_text(json.dumps({"task": "single", "model": "bundled:minilm", "train": str(train),
                                                 "dev": "", "output_dir": str(run.parent)}))
    data = _write_csv(tmp_path / "new.csv", ["the worst year", "a brand new sentence", "good answer ",
                                             "another new one", "worst name of the year"])
    return ckpt, train, data


def test_predicting_rows_the_run_trained_on_says_how_many(tmp_path, capsys):
    """3 of 5 predicted texts are sentences of the run's training file (a space at a cell's end aside): the summary
    and the command's stderr say so in one line; with the training file gone nothing is said."""
    from explorer.cli import main

    ckpt, train, data = _run_trained_on(tmp_path)
    said = ("3 of these 5 rows were in the run's training data: their predictions are not a fair test of the "
            "model.")
    summary = predict_file(str(ckpt), str(data), str(tmp_path / "o.csv"))
    assert summary.training_rows == 3 and said in summary.notes
    assert main(["predict", "--model", str(ckpt), "--data", str(data), "--out", str(tmp_path / "o2.csv")]) == 0
    err = capsys.readouterr().err
    assert err.count(said) == 1
    # the training file itself: every row
    assert predict_file(str(ckpt), str(train), str(tmp_path / "t.csv")).training_rows == 8
    train.unlink()
    summary = predict_file(str(ckpt), str(data), str(tmp_path / "o3.csv"))
    assert summary.training_rows == 0 and not any("training data" in n for n in summary.notes)


def test_rows_the_run_trained_on_are_said_before_the_first_batch_and_again_on_resume(tmp_path, capsys):
    """The training-rows sentence is said before the model loads (predict's stderr: before the bar), so a call
    stopped at its first batch has said it; a resume says it again, counted over the whole file."""
    from explorer.cli import main

    ckpt, _train, data = _run_trained_on(tmp_path)
    said = "note: 3 of these 5 rows were in the run's training data: their predictions are not a fair test of the model."
    lines: list[str] = []
    with pytest.raises(Cancelled):
        predict_file(str(ckpt), str(data), str(tmp_path / "o.csv"), status=lines.append, cancelled=lambda: True)
    assert said in lines
    assert lines.index(said) < next(k for k, line in enumerate(lines) if line.startswith("loading model"))
    resumed: list[str] = []
    summary = predict_file(str(ckpt), str(data), str(tmp_path / "o.csv"), status=resumed.append, resume=True)
    assert said in resumed and summary.training_rows == 3
    assert main(["predict", "--model", str(ckpt), "--data", str(data), "--out", str(tmp_path / "o2.csv")]) == 0
    err = capsys.readouterr().err
    assert err.count(said) == 1 and err.index(said) < err.index("predict:")


def test_empty_lines_of_a_one_text_per_line_file_are_skipped_and_said(tmp_path, cls_model, capsys):
    """A .txt of one text per line with empty lines among the texts: they are no rows, and the summary and the
    command's stderr say how many, naming the first lines; the empty lines at the file's end are not counted."""
    from explorer.cli import main

    data = tmp_path / "texts.txt"
    data.write_text("first\n\nsecond\n\n\nthird\n\n", encoding="utf-8")
    summary = predict_file(str(cls_model), str(data), str(tmp_path / "o.csv"))
    assert summary.rows == 3 and "3 empty rows skipped (lines 2, 4, 5)" in summary.notes
    assert main(["predict", "--model", str(cls_model), "--data", str(data), "--out", str(tmp_path / "o2.csv")]) == 0
    assert capsys.readouterr().err.count("3 empty rows skipped (lines 2, 4, 5)") == 1
    many = tmp_path / "many.txt"
    many.write_text("".join(f"text {k}\n\n" for k in range(8)), encoding="utf-8")
    summary = predict_file(str(cls_model), str(many), str(tmp_path / "o3.csv"))
    assert "7 empty rows skipped (lines 2, 4, 6, 8, 10, …)" in summary.notes
    one = tmp_path / "one.txt"
    one.write_text("a\n\nb\n", encoding="utf-8")
    assert "1 empty row skipped (line 2)" in predict_file(str(cls_model), str(one), str(tmp_path / "o4.csv")).notes
    plain = tmp_path / "plain.txt"
    plain.write_text("a\nb\n\n", encoding="utf-8")
    assert not any("skipped" in n for n in predict_file(str(cls_model), str(plain), str(tmp_path / "o5.csv")).notes)


def test_rows_the_run_held_out_as_dev_are_not_counted_as_trained_on(tmp_path):
    """A run without a dev file held "the worst year" out of its training file as dev (its dev_split.csv): that
    row was never trained on, so 2 of the 5 rows are said, not 3; a pair run's texts are matched as pairs."""
    from explorer.core.data.classification import load_classification
    from explorer.core.data.split import write_dev_split
    from explorer.core.predict.seen import text_key, training_keys
    from explorer.core.runs.layout import dev_split_file
    from helpers import write_tiny_classification

    ckpt, train, data = _run_trained_on(tmp_path)
    run = ckpt.parent.parent
    write_dev_split(dev_split_file(run), load_classification(str(train)), [1])
    summary = predict_file(str(ckpt), str(data), str(tmp_path / "o.csv"))
    assert summary.training_rows == 2
    pair = write_tiny_classification(tmp_path / "pair.tsv", pair=True)
    keys = training_keys({"task": "pair", "train": str(pair)})
    assert text_key(["ada was born in london", "ada was born in the city of london"]) in keys
    assert text_key(["ada was born in london"]) not in keys


def test_a_runs_training_texts_are_read_once_while_the_file_stays_the_same(tmp_path, monkeypatch):
    """Two Predictions pages (or predict runs) of one run read its training file once; a changed file is read
    again."""
    import os

    import explorer.core.data.classification as classification
    from explorer.core.predict.seen import text_key, training_keys

    _ckpt, train, _data = _run_trained_on(tmp_path)
    reads = []
    real = classification.load_classification
    monkeypatch.setattr(classification, "load_classification", lambda *a, **k: reads.append(a) or real(*a, **k))
    config = {"task": "single", "train": str(train)}
    first = training_keys(config)
    assert training_keys(dict(config)) is first and len(reads) == 1
    with open(train, "a", encoding="utf-8") as fh:
        fh.write("a sentence added later\t1\n")
    os.utime(train, ns=(os.stat(train).st_atime_ns, os.stat(train).st_mtime_ns + 10**9))
    assert text_key(["a sentence added later"]) in training_keys(config) and len(reads) == 2


def test_the_rows_a_capped_run_trained_on_are_those_its_train_cap_kept(tmp_path):
    """A run capped at 10 rows of a label-sorted file trained on a stratified 10 of them, not the first 10: the
    predicted rows said to be its training rows are exactly the rows the run read."""
    from helpers import write_label_sorted_table

    from explorer.core.predict.seen import text_key, training_keys
    from explorer.core.specs.train_config import TrainConfig
    from explorer.core.training.tasks import get_task

    train = write_label_sorted_table(tmp_path / "sorted.tsv")
    run = get_task("single").load(TrainConfig(task="single", train=str(train), train_cap=10, seed=3), "train")
    keys = training_keys({"task": "single", "train": str(train), "train_cap": 10, "seed": 3})
    assert keys == frozenset(text_key([t]) for t in run.texts_a) and len(keys) == 10
    assert {int(t.split()[-1]) >= 40 for t in run.texts_a} == {True, False}   # rows of both classes


def _headerless_facts():
    from types import SimpleNamespace

    return SimpleNamespace(spec=SimpleNamespace(prediction=SimpleNamespace(text_columns=())),
                           run_config={"task": "single", "no_header": True, "text_columns": ["2"]})


def test_a_file_is_listed_the_way_the_run_read_its_data_unless_the_header_box_says_otherwise(tmp_path):
    """A run trained without a header row: a new file's columns are positions with a sample value and the run's
    column 2 ticked; a file whose first line names its columns, read with its header, ticks "text" (position 2)."""
    from explorer.core.predict.columns import file_columns
    from explorer.core.predict.reading import reads_without_header

    facts = _headerless_facts()
    assert reads_without_header(facts.run_config) and not reads_without_header(facts.run_config, False)
    path = tmp_path / "noheader.csv"
    path.write_text("7,a fine day,pos\n8,a bad night,neg\n")
    found = file_columns(path, facts)
    assert found.no_header and found.names == ["1", "2", "3"] and found.ticked == ["2"]
    assert [c.label for c in found.columns] == ["1: 7", "2: a fine day", "3: pos"]
    with_header = tmp_path / "header.csv"
    with_header.write_text("id,text,label\n7,a fine day,pos\n")
    assert file_columns(with_header, facts).names == ["1", "2", "3"]          # the run's way by default
    found = file_columns(with_header, facts, no_header=False)
    assert not found.no_header and found.names == ["id", "text", "label"] and found.ticked == ["text"]



def test_predict_reads_old_mac_line_ends_and_latin1_bytes(tmp_path, cls_model):
    data = tmp_path / "mac.csv"   # a bare CR ends each line; a LF inside a quoted text; 0x9d is not Windows-1252
    data.write_bytes('text,emotion\r"caf\xe9 \x9d wait\nnext line",pos\rplain \x81 text,neg\rlast one,pos\r'
                     .encode("latin-1"))
    info, rows = iter_rows(data)
    rows = list(rows)
    assert info.columns == ["text", "emotion"] and "read as Latin-1" in info.note
    assert [r.values["text"] for r in rows] == ["caf\xe9 \x9d wait\nnext line", "plain \x81 text", "last one"]
    assert [r.line for r in rows] == [2, 3, 4] and not any(r.error for r in rows)
    summary = predict_file(str(cls_model), str(data), str(tmp_path / "out.csv"))
    out = _read_csv(tmp_path / "out.csv")
    assert summary.rows == 3 and [r["emotion"] for r in out] == ["pos", "neg", "pos"]

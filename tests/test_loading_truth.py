"""Loading tells the truth: training answers checked, SQuAD 2.0 variants, field counts of
classification rows, and the model load report (newly initialised / missing / unexpected weights)."""

import contextlib
import io
import json
import os
from pathlib import Path

import pytest
from helpers import save_tiny_model

from explorer.core.data.classification import ClassificationDataError, load_classification
from explorer.core.data.squad import SquadDataError, load_squad, load_training_squad
from explorer.core.training.tasks.base import load_note


def _squad(path: Path, qas: list[dict], context: str = "Pure Land sect", version: str = "v1.1") -> Path:
    path.write_text(json.dumps({"version": version, "data": [
        {"title": "T", "paragraphs": [{"context": context, "qas": qas}]}]}), encoding="utf-8")
    return path


def _cases_dir() -> Path | None:
    real = os.environ.get("EXPLORER_REAL_DATA")
    if not real:
        return None
    cases = Path(real).parent / "cases"
    return cases if cases.is_dir() else None


# ------------------------------------------------------------------------ answer-start-misaligned
def test_training_data_repairs_a_misaligned_answer(tmp_path):
    # case answer-start-misaligned: the passage lost its leading space, answer_start 1 reads "ure Land "
    path = _squad(tmp_path / "train.json", [{"id": "syn1", "question": "Which sect?",
                                             "answers": [{"text": "Pure Land", "answer_start": 1}]}])
    ds, report = load_training_squad(str(path))
    assert ds[0]["answers"] == {"text": ["Pure Land"], "answer_start": [0]}
    assert report.repaired == 1 and report.dropped == 0 and report.n_misaligned == 1
    assert report.answer_check() == "1 answer repaired, 0 dropped"
    # eval keeps it as given unless asked (and says so)
    ds_eval, rep_eval = load_squad(str(path))
    assert ds_eval[0]["answers"]["answer_start"] == [1] and "occurs at 0" in rep_eval.problems[0]


def test_training_labels_cover_the_repaired_answer(tmp_path):
    from explorer.core.qa.windows import prepare_qa_features
    from helpers import tiny_tokenizer

    path = _squad(tmp_path / "train.json", [{"id": "syn1", "question": "Which sect?",
                                             "answers": [{"text": "Pure Land", "answer_start": 1}]}])
    ds, _ = load_training_squad(str(path))
    f = prepare_qa_features(ds["question"], ds["context"], tiny_tokenizer(), max_seq_length=64, doc_stride=16,
                            answers=list(ds["answers"]))
    s, e = f.start_positions[0], f.end_positions[0]
    assert "Pure Land sect"[f.offset_mapping[0][s][0]:f.offset_mapping[0][e][1]] == "Pure Land"


def test_training_data_drops_answers_not_in_the_passage_and_counts(tmp_path):
    qas = [
        {"id": "a", "question": "Which sect?", "answers": [{"text": "Pure Land", "answer_start": 1}]},
        {"id": "b", "question": "What?", "answers": [{"text": "Zen", "answer_start": 0},
                                                    {"text": "sect", "answer_start": 10}]},
        {"id": "c", "question": "Who?", "answers": [{"text": "Kyoto", "answer_start": 3}]},
        {"id": "d", "question": "Ok?", "answers": [{"text": "Land", "answer_start": 5}]},
    ]
    ds, report = load_training_squad(str(_squad(tmp_path / "t.json", qas)))
    assert ds["id"] == ["a", "b", "d"]
    assert ds[1]["answers"] == {"text": ["sect"], "answer_start": [10]}
    assert (report.repaired, report.dropped, report.dropped_questions, report.n_misaligned) == (1, 2, 1, 3)
    assert report.answer_check() == "1 answer repaired, 2 dropped (1 question left without an answer, dropped)"
    assert any("'Kyoto' does not occur" in p and "dropped" in p for p in report.problems)
    ds.load_report = report
    level, message = load_note(ds)
    assert level == "warning" and "1 answer repaired, 2 dropped" in message and "t.json" in message


def test_clean_training_data_says_all_answers_match(tmp_path):
    path = _squad(tmp_path / "ok.json", [{"id": "a", "question": "Which?",
                                          "answers": [{"text": "Land", "answer_start": 5}]}])
    ds, report = load_training_squad(str(path))
    assert report.answer_check() == "all 1 gold answer match their passage"
    ds.load_report = report
    assert load_note(ds)[0] == "info"
    assert load_note(object()) is None


def test_training_run_logs_the_answer_check(tmp_path):
    from explorer.core.protocol.events import iter_events
    from explorer.worker.train import EXIT_OK, main as train_main

    model = save_tiny_model(tmp_path / "qa", "qa")
    context = "ada was born in london in 1815."
    qas = [{"id": "a", "question": "where was ada born?", "answers": [{"text": "london", "answer_start": 3}]},
           {"id": "b", "question": "when?", "answers": [{"text": "1815", "answer_start": 26}]},
           {"id": "c", "question": "who?", "answers": [{"text": "paris", "answer_start": 0}]}]
    data = _squad(tmp_path / "train.json", qas, context=context)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = train_main(["--model", str(model), "--task", "squad_v1", "--train", str(data), "--max-steps", "1",
                         "--batch-size", "2", "--output-dir", str(tmp_path / "runs"), "--run-id", "r"])
    events = list(iter_events(buf.getvalue().splitlines()))
    assert rc == EXIT_OK, events[-1]
    logs = [e for e in events if e["event"] == "log" and e["level"] == "warning" and "answer" in e["message"]]
    assert len(logs) == 1
    assert "1 answer repaired, 1 dropped (1 question left without an answer, dropped)" in logs[0]["message"]
    started = next(e for e in events if e["event"] == "started")
    assert started["num_train_examples"] == 2


def test_case_file_answer_start_misaligned():
    cases = _cases_dir()
    if cases is None:
        pytest.skip("EXPLORER_REAL_DATA is not set (the shared cases folder sits beside it)")
    ds, report = load_training_squad(str(cases / "answer-start-misaligned" / "train.json"))
    assert ds[0]["answers"]["answer_start"] == [0] and report.repaired == 1


# ------------------------------------------------------------------------ squad2-no-answers-key
def test_squad2_impossible_without_answers_key_is_unanswerable(tmp_path):
    qas = [{"id": "a", "question": "What is the capital of Spain?", "is_impossible": True,
            "plausible_answers": [{"text": "Paris", "answer_start": 0}]},
           {"id": "b", "question": "What is the capital of France?", "is_impossible": False,
            "answers": [{"text": "Paris", "answer_start": 0}]}]
    path = _squad(tmp_path / "v2.json", qas, context="Paris is the capital of France.", version="v2.0")
    for loader in (load_squad, load_training_squad):
        ds, report = loader(str(path))
        assert ds["id"] == ["a", "b"] and list(ds["is_impossible"]) == [True, False]
        assert ds[0]["answers"] == {"text": [], "answer_start": []}  # plausible_answers are never gold
        assert report.version == "v2.0" and report.n_impossible == 1 and report.n_answers == 1


def test_missing_answers_key_on_an_answerable_question_is_still_an_error(tmp_path):
    path = _squad(tmp_path / "bad.json", [{"id": "x", "question": "Why?", "is_impossible": False}])
    with pytest.raises(SquadDataError, match=r"id 'x': missing field 'answers'"):
        load_squad(str(path))
    path = _squad(tmp_path / "bad1.json", [{"id": "y", "question": "Why?"}])
    with pytest.raises(SquadDataError, match=r"id 'y': missing field 'answers'"):
        load_squad(str(path))


# ------------------------------------------------------------------------ tsv-extra-field
def test_tsv_row_with_an_extra_field_names_file_line_and_counts(tmp_path):
    p = tmp_path / "train.tsv"
    p.write_text("Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n"
                 '1\t11\t12\tHe said "yes".\tHe said\tyes.\n0\t13\t14\tA cat.\tA dog.\n', encoding="utf-8")
    with pytest.raises(ClassificationDataError) as exc:
        load_classification(str(p), pair=True)
    assert str(exc.value).startswith(f"{p} line 2: expected 5 fields (as in the header), got 6")


def test_csv_field_counts_are_checked_too(tmp_path):
    p = tmp_path / "train.csv"
    p.write_text('sentence,label\n"a, quoted, text",1\nplain,0,extra\n', encoding="utf-8")
    with pytest.raises(ClassificationDataError, match=r"train.csv line 3: expected 2 fields \(as in the header\), "
                                                      r"got 3"):
        load_classification(str(p))
    p.write_text('sentence,label\n"a, quoted, text",1\n', encoding="utf-8")
    assert load_classification(str(p)).texts_a == ["a, quoted, text"]


def test_tsv_keeps_quotes_bom_and_unicode_line_separators_as_text(tmp_path):
    p = tmp_path / "mrpc.tsv"
    p.write_text("\ufeffQuality\t#1 ID\t#2 ID\t#1 String\t#2 String\n"
                 '1\t1\t2\t"the witness", he said\tHe said \u2028"no\n', encoding="utf-8")
    d = load_classification(str(p), pair=True)
    assert d.columns == ("#1 String", "#2 String", "Quality")
    assert d.texts_a == ['"the witness", he said'] and d.texts_b == ['He said \u2028"no'] and d.labels == [1]


@pytest.mark.real_data
@pytest.mark.parametrize("name,pair,rows", [("glue_mrpc", True, (3668, 408)), ("glue_sst2", False, (67349, 872))])
def test_real_glue_files_still_load(name, pair, rows):
    real = os.environ.get("EXPLORER_REAL_DATA")
    if not real or not (Path(real) / name).is_dir():
        pytest.skip("EXPLORER_REAL_DATA is not set (or has no GLUE folders)")
    train = load_classification(str(Path(real) / name / "train.tsv"), pair=pair)
    dev = load_classification(str(Path(real) / name / "dev.tsv"), pair=pair)
    assert (len(train), len(dev)) == rows
    if pair:  # quote characters inside sentences stay text
        assert train.texts_a[0].startswith('Amrozi accused his brother, whom he called "the witness"')


# ------------------------------------------------------------------------ checkpoint-missing-encoder
def _wrong_base(tmp_path: Path) -> Path:
    """The case's checkpoint, rebuilt: a tiny QA model whose encoder keys sit under another prefix."""
    from safetensors.torch import load_file, save_file

    good = save_tiny_model(tmp_path / "good", "qa")
    import shutil

    bad = tmp_path / "wrong_base"
    shutil.copytree(good, bad)
    sd = load_file(str(good / "model.safetensors"))
    save_file({k.replace("bert.", "encoder_model.", 1): v for k, v in sd.items()},
              str(bad / "model.safetensors"), metadata={"format": "pt"})
    return bad


def test_checkpoint_with_renamed_encoder_is_a_random_encoder(tmp_path):
    from explorer.core.models.loading import load_model

    loaded = load_model(str(_wrong_base(tmp_path)), "qa")
    r = loaded.load_report
    assert r.n_expected == 39 and len(r.newly_initialised) == 37 and len(r.unexpected) == 37
    assert r.missing == r.newly_initialised and r.mismatched == []
    assert not r.encoder_loaded and r.kind == "random encoder"
    assert r.summary().startswith("37 of 39 weights not in the checkpoint (newly initialised), first: "
                                  "bert.embeddings.")
    assert "37 checkpoint tensors ignored, first: encoder_model.embeddings." in r.summary()
    assert "fine-tuned" not in loaded.describe() and "random encoder" in loaded.describe()
    assert r.warning() and "did not load" in r.warning()
    assert r.to_dict()["n_newly_initialised"] == 37 and json.dumps(r.to_dict())


def test_good_checkpoint_is_fine_tuned_and_other_head_is_new(tmp_path):
    from explorer.core.models.loading import load_model

    good = save_tiny_model(tmp_path / "good", "qa")
    r = load_model(str(good), "qa").load_report
    assert r.ok and r.encoder_loaded and r.kind == "fine-tuned" and r.warning() is None
    assert r.summary() == "all 39 weights loaded from the checkpoint"
    cls = load_model(str(good), "classification")
    r2 = cls.load_report
    assert r2.kind == "pre-trained encoder, new head" and r2.encoder_loaded
    assert set(r2.newly_initialised) == {"bert.pooler.dense.bias", "bert.pooler.dense.weight", "classifier.bias",
                                         "classifier.weight"}
    assert r2.unexpected == ["qa_outputs.bias", "qa_outputs.weight"]
    assert "fine-tuned" not in cls.describe()


def test_mismatched_shapes_count_as_newly_initialised():
    from explorer.core.models.load_report import LoadReport

    info = {"missing_keys": [], "unexpected_keys": [],
            "mismatched_keys": [("classifier.weight", (3, 32), (2, 32))]}
    r = LoadReport.from_loading_info(info, ["bert.embeddings.word_embeddings.weight", "classifier.weight"])
    assert r.newly_initialised == ["classifier.weight"] and r.kind == "pre-trained encoder, new head"
    assert "1 with another shape, first: classifier.weight ((3, 32) -> (2, 32))" in r.summary()


def test_cli_probe_and_eval_warn_about_a_random_encoder(tmp_path, capsys):
    from explorer.cli import main

    bad = str(_wrong_base(tmp_path))
    rc = main(["probe", "--model", bad, "--question", "who was born?", "--passage", "ada was born in london.",
               "--no-flow"])
    out = capsys.readouterr()
    assert rc == 0 and "random encoder" in out.err and "37 of 39 weights not in the checkpoint" in out.err
    assert "fine-tuned" not in out.out
    data = _squad(tmp_path / "d.json", [{"id": "a", "question": "who?", "answers": [{"text": "ada",
                                                                                     "answer_start": 0}]}],
                  context="ada was born in london.")
    rc = main(["eval", "--model", bad, "--data", str(data), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert rc == 0 and "warning:" in err and "37 of 39 weights not in the checkpoint" in err


def test_cli_eval_prints_the_answer_check(tmp_path, capsys):
    from explorer.cli import main

    model = save_tiny_model(tmp_path / "m", "qa")
    data = _squad(tmp_path / "d.json", [{"id": "a", "question": "who?", "answers": [{"text": "ada",
                                                                                     "answer_start": 3}]}],
                  context="ada was born in london.")
    assert main(["eval", "--model", str(model), "--data", str(data), "--out", str(tmp_path / "o")]) == 0
    assert "answer check: 0 answers repaired, 0 dropped, 1 misaligned kept as given" in capsys.readouterr().err
    assert main(["eval", "--model", str(model), "--data", str(data), "--out", str(tmp_path / "o"), "--repair"]) == 0
    assert "answer check: 1 answer repaired, 0 dropped" in capsys.readouterr().err


def test_case_files_squad2_no_answers_key_and_tsv_extra_field():
    cases = _cases_dir()
    if cases is None:
        pytest.skip("EXPLORER_REAL_DATA is not set (the shared cases folder sits beside it)")
    ds, report = load_training_squad(str(cases / "squad2-no-answers-key" / "train.json"))
    assert ds["id"] == ["a", "b"] and list(ds["is_impossible"]) == [True, False] and report.n_answers == 1
    assert ds[0]["answers"]["text"] == []
    tsv = cases / "tsv-extra-field" / "train.tsv"
    with pytest.raises(ClassificationDataError, match=r"train.tsv line 2: expected 5 fields \(as in the header\), "
                                                      r"got 6"):
        load_classification(str(tsv), pair=True)

"""Window settings checked against the model before any work (case max-seq-over-positions), and the probe's
attention memory budget."""

import contextlib
import io
import json

import numpy as np
import pytest

from explorer.core.attention.budget import ATTENTION_BUDGET_BYTES, attention_bytes, budget_note
from explorer.core.qa.probe import probe
from explorer.core.models.window_settings import (WindowLimits, WindowSettingsError, check_limits, check_window_settings,
                                           folder_limits, require_window_settings, source_limits)

QUESTION = "where was ada born?"
LONG = " ".join(["ada was born in london in 1815 and she wrote the first program."] * 12)


def _short_model(tok, positions=64):
    """A tiny BERT QA model with only ``positions`` position embeddings."""
    from transformers import BertConfig, BertForQuestionAnswering

    cfg = BertConfig(vocab_size=len(tok), hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                     intermediate_size=64, max_position_embeddings=positions)
    return BertForQuestionAnswering(cfg).eval()


def test_max_seq_length_over_position_embeddings_names_both_numbers(tiny_qa):
    cfg = tiny_qa.model.config  # 512 positions; the tiny tokenizer states no maximum
    problems = check_window_settings(tiny_qa.tokenizer, cfg, 1024, 128, 64, name="bundled:minilm")
    assert [(p.setting, p.value, p.limit, p.severity) for p in problems] == [("max_seq_length", 1024, 512, "error")]
    assert problems[0].message == "max_seq_length 1024 > 512 position embeddings of bundled:minilm"
    assert check_window_settings(tiny_qa.tokenizer, cfg, 512, 128, 64) == []
    with pytest.raises(WindowSettingsError, match="max_seq_length 1024 > 512 position embeddings"):
        require_window_settings(tiny_qa.tokenizer, cfg, 1024, 128, 64)


def test_tokenizer_maximum_and_roberta_offset():
    limits = WindowLimits(max_positions=None, tokenizer_max_length=256, name="m")
    (p,) = check_limits(limits, 384, 128, 64)
    assert p.message == "max_seq_length 384 > the tokenizer's model_max_length 256 (m)" and p.limit == 256

    class Roberta:
        model_type, max_position_embeddings, pad_token_id = "roberta", 514, 1

    problems = check_window_settings(None, Roberta(), 513, None, None, name="roberta-base")
    assert [p.message for p in problems] == ["max_seq_length 513 > 512 position embeddings of roberta-base"]


def test_same_bound_from_positions_and_tokenizer_is_said_once():
    both = WindowLimits(max_positions=512, tokenizer_max_length=512, name="bundled:minilm")
    assert [p.message for p in check_limits(both, 1024, 128, 64)] == [
        "max_seq_length 1024 > 512 position embeddings of bundled:minilm (its tokenizer's model_max_length is the same)"]
    other = WindowLimits(max_positions=512, tokenizer_max_length=256, name="m")
    assert len(check_limits(other, 1024, 128, 64)) == 2            # two different bounds: both said


def test_cli_eval_refuses_bad_settings_before_reading_data_or_loading_weights(capsys, tmp_path):
    from explorer.cli import main

    rc = main(["eval", "--model", "bundled:minilm", "--data", str(tmp_path / "missing.json"), "--max-seq-length", "1024"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("error:") == 1 and "max_seq_length 1024 > 512 position embeddings" in err
    assert "missing.json" not in err and "bundled:minilm: bert" not in err       # neither read nor loaded


def test_room_for_question_special_tokens_and_doc_stride():
    limits = WindowLimits(n_special=3)
    # 64 - 1 - 3 = 60 <= doc_stride 60: no question at all could work -> error
    (p,) = check_limits(limits, 64, 60, 16)
    assert (p.setting, p.severity, p.limit) == ("doc_stride", "error", 60)
    assert p.message.startswith("doc_stride (overlap) 60 must be smaller than the passage room 60 with even a "
                                "1-token question (max_seq_length 64 - 1 question tokens - 3 special tokens)")
    # a max_query_length-long question leaves 64 - 16 - 3 = 45 <= 50: only a warning
    (p,) = check_limits(limits, 64, 50, 16)
    assert (p.setting, p.severity, p.limit) == ("doc_stride", "warning", 45)
    # the actual question is known: 10 tokens leave 51 > 50
    assert check_limits(limits, 64, 50, 16, question_tokens=10) == []
    (p,) = check_limits(limits, 64, 50, 16, question_tokens=12)
    assert p.severity == "error" and "the longest question has 12 tokens" in p.message and p.limit == 49
    (p,) = check_limits(limits, 16, 4, 64, question_tokens=20)
    assert p.setting == "max_query_length" and p.message.startswith("no room for the passage")
    assert [p.setting for p in check_limits(limits, 0, -1, 0)] == ["max_seq_length", "doc_stride", "max_query_length"]


def test_limits_from_folders_and_sources(tmp_path):
    from helpers import save_tiny_model

    folder = save_tiny_model(tmp_path / "m", "qa")
    limits = folder_limits(folder, name="tiny")
    assert (limits.max_positions, limits.tokenizer_max_length, limits.n_special) == (512, None, 3)
    assert folder_limits(tmp_path) is None and source_limits(str(tmp_path / "nope")) is None
    bundled = source_limits("bundled:minilm")
    if bundled is None:
        pytest.skip("the bundled encoder package is not installed")
    assert (bundled.max_positions, bundled.tokenizer_max_length) == (512, 512)


def test_probe_checks_before_any_forward(tiny_qa):
    short = _short_model(tiny_qa.tokenizer, positions=64)
    with pytest.raises(WindowSettingsError, match=r"max_seq_length 128 > 64 position embeddings"):
        probe(short, QUESTION, LONG, tokenizer=tiny_qa.tokenizer, max_seq_length=128, doc_stride=32)
    assert probe(short, QUESTION, LONG, tokenizer=tiny_qa.tokenizer, max_seq_length=64, doc_stride=16).windows


def _short_folder(tmp_path, tok):
    folder = tmp_path / "short"
    _short_model(tok).save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


def test_cli_probe_and_eval_exit_2_with_the_message(tiny_qa, tmp_path, capsys):
    from explorer.cli import main

    folder = str(_short_folder(tmp_path, tiny_qa.tokenizer))
    rc = main(["probe", "--model", folder, "--question", QUESTION, "--passage", LONG, "--max-seq-length", "128",
               "--doc-stride", "32"])
    err = capsys.readouterr().err
    assert rc == 2 and "max_seq_length 128 > 64 position embeddings of" in err and "Traceback" not in err
    data = tmp_path / "d.json"
    data.write_text(json.dumps({"version": "v2.0", "data": [{"title": "t", "paragraphs": [
        {"context": LONG, "qas": [{"id": "a", "question": QUESTION, "answers": [], "is_impossible": True}]}]}]}))
    rc = main(["eval", "--model", folder, "--data", str(data), "--out", str(tmp_path / "o"), "--max-seq-length",
               "128", "--doc-stride", "32"])
    err = capsys.readouterr().err
    assert rc == 2 and "error: max_seq_length 128 > 64 position embeddings" in err and "Traceback" not in err


def test_train_refuses_before_any_work(tiny_qa, tmp_path, capsys):
    from explorer.core.protocol.events import iter_events
    from explorer.worker.train import EXIT_USAGE, main as train_main

    folder = _short_folder(tmp_path, tiny_qa.tokenizer)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = train_main(["--model", str(folder), "--task", "squad_v2", "--train", str(tmp_path / "missing.json"),
                         "--max-seq-length", "128", "--doc-stride", "32", "--output-dir", str(tmp_path / "runs"),
                         "--run-id", "r"])
    (event,) = list(iter_events(buf.getvalue().splitlines()))
    assert rc == EXIT_USAGE and event["event"] == "failed"
    assert event["error"].startswith("window settings do not fit the model: max_seq_length 128 > 64 position "
                                     "embeddings of")
    assert not (tmp_path / "runs" / "r").exists()      # a run that never started leaves no folder
    assert event["traceback"] == ""
    assert "error: window settings do not fit" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["train", "eval", "probe"])
def test_doc_stride_help_says_overlap(command, capsys):
    from explorer.cli import main

    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--doc-stride" in text and "overlap in tokens between consecutive windows" in text
    assert "between the starts" not in text


# ---------------------------------------------------------------------------------- attention budget
def test_budget_note_names_the_estimate():
    lengths = [384] * 30
    assert attention_bytes(lengths, 12, 12) == 30 * 12 * 12 * 384 ** 2 * 2 == 1_274_019_840
    assert budget_note(lengths, 12, 12, ATTENTION_BUDGET_BYTES) == (
        "30 windows x 12 layers x 12 heads x 384² float16 would need 1.2 GiB (budget 256 MiB); keeping only the "
        "shown window")
    assert budget_note(lengths, 12, 12, ATTENTION_BUDGET_BYTES, itemsize=4).split(" would need ")[1].startswith(
        "2.4 GiB")
    assert budget_note([384, 200], 12, 12, ATTENTION_BUDGET_BYTES) == ""
    assert ATTENTION_BUDGET_BYTES == 256 * 2 ** 20


@pytest.mark.slow
def test_probe_keeps_float16_within_budget_and_one_window_above(tiny_qa):
    full = probe(tiny_qa, QUESTION, LONG, attentions=True, keep_attentions="float32", max_seq_length=48,
                 doc_stride=16, attention_budget=None)
    n = len(full.windows)
    assert n >= 3 and full.attention_note == ""
    within = probe(tiny_qa, QUESTION, LONG, attentions=True, max_seq_length=48, doc_stride=16)
    assert all(a.attentions.dtype == np.float16 for a in within.attention) and within.attention_note == ""
    small = probe(tiny_qa, QUESTION, LONG, attentions=True, max_seq_length=48, doc_stride=16,
                  attention_budget=2 * 4 * 48 * 48 * 2)  # room for one window
    assert small.attention_note.startswith(f"{n} windows x 2 layers x 4 heads x ")
    assert small.attention_note.endswith("keeping only the shown window")
    best = small.best_window.index
    kept = [k for k, a in enumerate(small.attention) if a.attentions is not None]
    assert kept == [best] and small.attention[best].attentions.dtype == np.float16
    other = (best + 1) % n
    weights = small.attention_weights(other)  # computed when shown
    assert weights.dtype == np.float16 and weights.shape == full.attention[other].attentions.shape
    np.testing.assert_allclose(weights.astype(np.float32), full.attention[other].attentions, atol=2e-3)
    assert [k for k, a in enumerate(small.attention) if a.attentions is not None] == [other]
    for a, f in zip(small.attention, full.attention):  # summaries of every window are always there
        np.testing.assert_allclose(a.flow, f.flow, atol=1e-6)


def test_loop_checks_the_loaded_model_too(tiny_qa, tmp_path, monkeypatch):
    """A model whose files the worker's pre-check cannot read (e.g. a hub id downloaded by the loop) is checked
    once loaded, before tokenizing: a failed event naming the numbers, not an index error mid-forward."""
    from explorer.core.protocol.events import iter_events
    from explorer.worker import train as worker
    from helpers import write_tiny_squad

    folder = _short_folder(tmp_path, tiny_qa.tokenizer)
    monkeypatch.setattr(worker, "window_settings_error", lambda config: None)  # skip the pre-check
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = worker.main(["--model", str(folder), "--task", "squad_v2", "--train",
                          str(write_tiny_squad(tmp_path / "t.json")), "--max-seq-length", "128", "--doc-stride", "32",
                          "--output-dir", str(tmp_path / "runs"), "--run-id", "r"])
    failed = [e for e in iter_events(buf.getvalue().splitlines()) if e["event"] == "failed"]
    assert rc == worker.EXIT_USAGE and len(failed) == 1          # a user error (2)
    assert failed[0]["error"].startswith("window settings do not fit the model: max_seq_length 128 > 64 position "
                                         "embeddings of")


def test_predict_squad_checks_positions(tiny_qa):
    from explorer.core.qa.inference import predict_squad

    short = _short_model(tiny_qa.tokenizer)
    rows = [{"question": QUESTION, "context": LONG}]
    with pytest.raises(WindowSettingsError, match="max_seq_length 128 > 64 position embeddings"):
        predict_squad(short, rows, tokenizer=tiny_qa.tokenizer, max_seq_length=128, doc_stride=32)
    feats, start, _ = predict_squad(short, rows, tokenizer=tiny_qa.tokenizer, max_seq_length=64, doc_stride=16)
    assert start.shape[0] == len(feats) > 1


def test_case_max_seq_over_positions_on_the_bundled_encoder(capsys):
    import os
    from pathlib import Path

    from explorer.cli import main

    real = os.environ.get("EXPLORER_REAL_DATA")
    if not real or not (Path(real).parent / "cases" / "max-seq-over-positions").is_dir():
        pytest.skip("EXPLORER_REAL_DATA is not set (the shared cases folder sits beside it)")
    if source_limits("bundled:minilm") is None:
        pytest.skip("the bundled encoder package is not installed")
    passage = Path(real).parent / "cases" / "max-seq-over-positions" / "long_passage.txt"
    rc = main(["probe", "--model", "bundled:minilm", "--question", "Where does the river flow?", "--passage-file",
               str(passage), "--max-seq-length", "1024"])
    err = capsys.readouterr().err
    assert rc == 2 and "max_seq_length 1024 > 512 position embeddings of bundled:minilm" in err
    assert "Traceback" not in err

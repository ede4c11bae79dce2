"""Every common encoder family through the whole pipeline, offline.

For BERT, RoBERTa, DistilBERT, ALBERT, ELECTRA, DeBERTa-v2/v3, XLM-RoBERTa and ModernBERT: a tiny
random model of the real architecture and a trained tokenizer of the family's kind
(tests/family_models.py), saved to a folder, then through the product's public functions: load_model,
prepare_qa_features (windows, labels, sequence_ids), predict_squad + decode + evaluate, probe (by-hand
check of start/end logits through the head found outside the encoder, attention block flow with
blocks from sequence_ids), training 2 steps for QA and for sentence classification (worker main,
in process), and the wrong-model messages (masked-LM, sequence-classification, decoder-only).
"""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest
from family_models import FAMILIES, family_tokenizer, save_family
from helpers import _PAIR, _SINGLE, tiny_squad_dict, write_tiny_classification, write_tiny_squad

from explorer.core.models.loading import ModelSourceError, load_model

NAMES = list(FAMILIES)
QUESTION = "Where was Ada born?"
PASSAGE = ("Ada was born in London in 1815. She wrote the first program for the engine of Babbage. "
           "The river of the city is the Thames. Paris has the river Seine.")
WINDOW = dict(max_seq_length=32, doc_stride=8, max_query_length=12)


def _corpus() -> list[str]:
    texts = []
    for article in tiny_squad_dict()["data"]:
        for para in article["paragraphs"]:
            texts.append(para["context"])
            texts += [q["question"] for q in para["qas"]]
    texts += [s for s, _ in _SINGLE] + [a for a, _, _ in _PAIR] + [b for _, b, _ in _PAIR]
    return texts * 4


@pytest.fixture(scope="session")
def family_dirs(tmp_path_factory):
    """name -> {"qa": folder, "tokenizer": fast tokenizer}, built once per session."""
    root = tmp_path_factory.mktemp("families")
    corpus = _corpus()
    out = {}
    for name, fam in FAMILIES.items():
        tok = family_tokenizer(fam, corpus, vocab_size=400)
        out[name] = {"qa": save_family(root / name, fam, tok, task="qa"), "tokenizer": tok, "root": root}
    return out


@pytest.fixture(scope="session")
def loaded(family_dirs):
    return {name: load_model(str(d["qa"])) for name, d in family_dirs.items()}


@pytest.fixture(scope="session")
def data_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("family-data")
    return {"sq2": str(write_tiny_squad(d / "sq2.json", v2=True)),
            "sst": str(write_tiny_classification(d / "sst.tsv", repeat=2))}


@pytest.mark.parametrize("name", NAMES)
def test_load_reports_the_real_architecture(name, loaded):
    lm = loaded[name]
    fam = FAMILIES[name]
    assert lm.model.config.model_type == name
    assert type(lm.model).__name__.endswith("ForQuestionAnswering")
    assert lm.tokenizer.is_fast and not lm.head_initialised and lm.head_note == ""
    assert lm.model.config.num_hidden_layers == 2 and lm.model.config.num_attention_heads == 4
    expected = {"bert", "electra", "deberta-v2"}  # the family classes that return token_type_ids
    assert ("token_type_ids" in lm.tokenizer.model_input_names) == (name in expected), fam


@pytest.mark.parametrize("name", NAMES)
def test_windows_labels_and_sequence_ids(name, loaded):
    from explorer.core.qa.decoding import decode_example
    from explorer.core.qa.windows import prepare_qa_features

    tok = loaded[name].tokenizer
    answer = {"text": ["Babbage"], "answer_start": [PASSAGE.index("Babbage")]}
    feats = prepare_qa_features([QUESTION], [PASSAGE], tok, answers=[answer], **WINDOW)
    assert len(feats) >= 2                      # the passage needs several windows
    assert (feats.token_type_ids is None) == ("token_type_ids" not in tok.model_input_names)
    labelled = 0
    for k in range(len(feats)):
        ids, seq = feats.input_ids[k], feats.sequence_ids[k]
        assert len(ids) <= WINDOW["max_seq_length"] and ids[feats.cls_index[k]] == tok.cls_token_id
        assert seq[0] is None and 0 in seq and 1 in seq     # question first, whatever the family
        for o, s in zip(feats.offset_mapping[k], seq):
            assert (o is not None) == (s == 1)
        s_tok, e_tok = feats.start_positions[k], feats.end_positions[k]
        if s_tok != feats.cls_index[k]:
            labelled += 1
            positions = np.arange(len(ids))
            starts, ends = np.where(positions == s_tok, 9.0, 0.0), np.where(positions == e_tok, 9.0, 0.0)
            dec = decode_example(PASSAGE, [starts], [ends], [feats.offset_mapping[k]], [feats.cls_index[k]])
            assert dec.best_text == "Babbage"
    assert labelled >= 1


@pytest.mark.parametrize("name", NAMES)
def test_eval_pipeline(name, loaded, data_files):
    from explorer.core.data.squad import gold_answers, load_squad
    from explorer.core.qa.decoding import decode_predictions
    from explorer.core.qa.inference import predict_squad
    from explorer.core.qa.scores import evaluate_decodings

    dataset, _ = load_squad(data_files["sq2"])
    feats, start, end = predict_squad(loaded[name], dataset, batch_size=4, **WINDOW)
    assert start.shape == end.shape and start.shape[0] == len(feats) >= len(dataset)
    decodings = decode_predictions(dataset, feats, start, end)
    assert len(decodings) == len(dataset)
    for ex, d in zip(dataset, decodings.values()):
        for c in d.nbest:
            assert ex["context"][c.start_char:c.end_char] == c.text
    metrics = evaluate_decodings(decodings, gold_answers(dataset), version="v2.0")
    assert metrics["total"] == len(dataset) and 0 <= metrics["f1"] <= 100
    assert {"HasAns_f1", "NoAns_f1", "best_f1", "best_f1_thresh"} <= set(metrics)


@pytest.mark.parametrize("name", NAMES)
def test_probe_byhand_and_block_flow(name, loaded):
    from explorer.core.qa.probe import probe

    r = probe(loaded[name], QUESTION, PASSAGE, attentions=True, **WINDOW)
    assert len(r.windows) >= 2
    assert r.byhand_max_abs_diff is not None and r.byhand_max_abs_diff < 1e-4, r.byhand_note
    if name == "modernbert":   # its start/end layer reads a dense+norm head block, and the note says so
        assert "head block" in r.byhand_note
    assert r.attention is not None and len(r.attention) == len(r.windows) and r.attention_note == ""
    for w, att in zip(r.windows, r.attention):
        assert att.flow.shape == (2, 4, 3, 3)
        n_question = sum(1 for b in w.blocks if b == "question")
        n_passage = sum(1 for b in w.blocks if b == "passage")
        assert n_question == sum(1 for s in _seq_ids(w) if s == 0) > 0
        assert n_passage == sum(1 for o in w.offsets if o is not None) > 0
        np.testing.assert_allclose(att.flow.sum(axis=-1), 1.0, atol=1e-4)   # every from-block's weights sum to 1
    assert r.decoding.nbest and all(PASSAGE[c.start_char:c.end_char] == c.text for c in r.decoding.nbest)


def _seq_ids(window) -> list:
    return [0 if b == "question" else (1 if b == "passage" else None) for b in window.blocks]


def _train(argv) -> tuple[int, list[dict]]:
    from explorer.core.protocol.events import iter_events
    from explorer.worker.train import main as train_main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = train_main([str(a) for a in argv])
    return rc, list(iter_events(buf.getvalue().splitlines()))


@pytest.mark.parametrize("name", NAMES)
def test_train_two_steps_qa_and_classification(name, family_dirs, data_files, tmp_path):
    from explorer.worker.train import EXIT_OK

    folder = family_dirs[name]["qa"]
    rc, ev = _train(["--model", folder, "--task", "squad_v2", "--train", data_files["sq2"], "--dev", data_files["sq2"],
                     "--max-steps", 2, "--batch-size", 8, "--max-seq-length", 64, "--doc-stride", 16,
                     "--max-query-length", 16, "--output-dir", tmp_path, "--run-id", "qa", "--dev-cap", 4])
    assert rc == EXIT_OK, ev[-1]
    steps = [e for e in ev if e["event"] == "step"]
    assert [s["step"] for s in steps] == [1, 2] and all(np.isfinite(s["loss"]) and s["grad_norm"] > 0 for s in steps)
    final = [e for e in ev if e["event"] == "eval"][-1]
    assert {"exact_match", "f1", "best_f1"} <= set(final["metrics"])
    flow = final["watch"][0]["flow"]      # block flow of the watched question, per layer
    assert len(flow["question->passage"]) == 2
    reloaded = load_model(str(tmp_path / "qa" / "checkpoints" / "last"))
    assert type(reloaded.model) is type(load_model(str(folder)).model) and not reloaded.head_initialised

    rc, ev = _train(["--model", folder, "--task", "single", "--train", data_files["sst"], "--dev", data_files["sst"],
                     "--max-steps", 2, "--batch-size", 8, "--output-dir", tmp_path, "--run-id", "cls"])
    assert rc == EXIT_OK, ev[-1]
    started = next(e for e in ev if e["event"] == "started")
    assert started.get("config", {}).get("task", "single") == "single"
    assert {"accuracy", "loss"} <= set([e for e in ev if e["event"] == "eval"][-1]["metrics"])
    cls = load_model(str(tmp_path / "cls" / "checkpoints" / "last"), task="classification")
    assert type(cls.model).__name__.endswith("ForSequenceClassification") and not cls.head_initialised


# ------------------------------------------------------------------------------------- wrong model for the task


@pytest.mark.parametrize("name", ["bert", "roberta", "deberta-v2", "modernbert"])
def test_masked_lm_and_classification_checkpoints_opened_for_qa(name, family_dirs):
    fam, tok, root = FAMILIES[name], family_dirs[name]["tokenizer"], family_dirs[name]["root"]
    for task, kind in (("masked_lm", "masked-language-model"), ("classification", "sequence-classification")):
        folder = root / f"{name}-{task}"
        if not folder.exists():
            save_family(folder, fam, tok, task=task)
        lm = load_model(str(folder))
        assert lm.head_initialised, task
        assert f"is a {kind} checkpoint" in lm.head_note and "question-answering" in lm.head_note
        assert "fine-tuned" in lm.head_note          # what to do
        if not (name == "modernbert" and task == "classification"):
            head = type(lm.model).__name__
            assert "is new, randomly initialised" in lm.head_note, head
        else:   # ModernBERT names both heads "classifier": the weights load, trained for another task
            assert "trained for another task" in lm.head_note
            assert "untrained head" in lm.describe() and "fine-tuned:" not in lm.describe()


def test_bert_masked_lm_note_names_both_heads(family_dirs):
    folder = family_dirs["bert"]["root"] / "bert-masked_lm"
    if not folder.exists():
        save_family(folder, FAMILIES["bert"], family_dirs["bert"]["tokenizer"], task="masked_lm")
    note = load_model(str(folder)).head_note
    assert "(qa_outputs) is new" in note and "its own head (cls) is not used" in note


def test_decoder_only_and_encoder_decoder_are_refused(family_dirs, tmp_path, capsys):
    from transformers import GPT2Config, GPT2LMHeadModel, T5Config, T5ForConditionalGeneration

    from explorer.commands import probe as probe_cmd

    tok = family_dirs["roberta"]["tokenizer"]
    GPT2LMHeadModel(GPT2Config(n_layer=2, n_embd=32, n_head=4, vocab_size=len(tok), bos_token_id=0,
                               eos_token_id=2)).save_pretrained(tmp_path / "gpt2")
    tok.save_pretrained(tmp_path / "gpt2")
    T5ForConditionalGeneration(T5Config(num_layers=2, d_model=32, num_heads=4, d_kv=8, d_ff=64,
                                        vocab_size=len(tok))).save_pretrained(tmp_path / "t5")
    tok.save_pretrained(tmp_path / "t5")
    for task in ("qa", "classification"):
        with pytest.raises(ModelSourceError, match=r"decoder-only language model \(gpt2, GPT2LMHeadModel\)"):
            load_model(str(tmp_path / "gpt2"), task=task)
    with pytest.raises(ModelSourceError, match=r"encoder-decoder model \(t5"):
        load_model(str(tmp_path / "t5"))
    parser = __import__("argparse").ArgumentParser()
    probe_cmd.add_arguments(parser)
    rc = probe_cmd.run(parser.parse_args(["--model", str(tmp_path / "gpt2"), "--question", QUESTION,
                                          "--passage", PASSAGE]))
    err = capsys.readouterr().err
    assert rc == 2 and "decoder-only" in err and "Use an encoder checkpoint" in err and "Traceback" not in err


def test_decoder_only_in_train_is_a_clear_failure(family_dirs, data_files, tmp_path):
    from transformers import GPT2Config, GPT2LMHeadModel

    from explorer.worker.train import EXIT_OK

    tok = family_dirs["roberta"]["tokenizer"]
    GPT2LMHeadModel(GPT2Config(n_layer=1, n_embd=32, n_head=4, vocab_size=len(tok), bos_token_id=0,
                               eos_token_id=2)).save_pretrained(tmp_path / "gpt2")
    tok.save_pretrained(tmp_path / "gpt2")
    rc, ev = _train(["--model", tmp_path / "gpt2", "--task", "squad_v2", "--train", data_files["sq2"],
                     "--max-steps", 1, "--output-dir", tmp_path / "runs", "--run-id", "gpt2"])
    assert rc != EXIT_OK and ev[-1]["event"] == "failed"
    assert "decoder-only" in ev[-1]["error"] and "internal error" not in ev[-1]["error"]


@pytest.mark.parametrize("name", NAMES)
def test_probe_attention_from_hooks_equals_output_attentions(name, loaded):
    """The probe summarises each layer inside the forward (hooks on the modules the family names for its
    attentions, explorer.core.attention.hooks); per window that equals the summaries of a plain eager forward's
    output.attentions (raw float16 weights and block flow, token share, rollout identical)."""
    import torch

    from explorer.core.attention.flow import summarize_attention_layers
    from explorer.core.qa.windows import collate_qa, prepare_qa_features
    from explorer.core.models.loading import eager_attention
    from explorer.core.qa.probe import probe

    lm = loaded[name]
    r = probe(lm, QUESTION, PASSAGE, attentions=True, **WINDOW)
    feats = prepare_qa_features([QUESTION], [PASSAGE], lm.tokenizer, **WINDOW)
    assert len(r.attention) == len(feats) >= 2
    for k, (w, att) in enumerate(zip(r.windows, r.attention)):
        batch = collate_qa(feats, [k], lm.tokenizer.pad_token_id)
        with torch.inference_mode(), eager_attention(lm.model):
            plain = lm.model(**batch, output_attentions=True)
        ref = summarize_attention_layers(plain.attentions, w.blocks, keep="float16")
        for field in ("attentions", "flow", "token_share", "rollout"):
            np.testing.assert_array_equal(getattr(att, field), getattr(ref, field), err_msg=f"{name} {field}")


def test_attention_unavailable_is_said_plainly(loaded, monkeypatch):
    """A model whose attention implementation cannot return weights: the probe still answers and says why."""
    from explorer.core.models import loading as models_mod
    from explorer.core.qa.probe import probe

    @contextlib.contextmanager
    def refuse(model):
        raise ValueError("this attention implementation cannot return attention weights")
        yield model

    monkeypatch.setattr(models_mod, "eager_attention", refuse)
    r = probe(loaded["modernbert"], QUESTION, PASSAGE, attentions=True, **WINDOW)
    assert r.attention is None and "cannot return attention weights" in r.attention_note
    assert r.decoding.nbest and r.byhand_max_abs_diff is not None


# ------------------------------------------------------------------------------------- hub presets


def test_presets_cover_every_family_with_card_figures():
    from explorer.core.specs.hub_checkpoints import QA_PRESETS, preset_for

    assert {p.model_type for p in QA_PRESETS} == set(FAMILIES)
    for p in QA_PRESETS:
        assert p.f1 is not None and 70 < p.f1 < 95, p.hub_id
        assert p.task in ("squad_v1", "squad_v2") and p.card.endswith(p.hub_id)
        assert f"f1 {p.f1:.2f}" in p.tooltip() and p.evaluated_on in p.tooltip()
    assert preset_for("DEEPSET/roberta-base-squad2").family == "RoBERTa"
    assert preset_for("nobody/nothing") is None


def test_launcher_and_inspector_show_the_presets(qtbot, tmp_path):
    from PySide6.QtCore import Qt

    from explorer.core.specs.hub_checkpoints import QA_PRESETS
    from explorer.ui.inspectors.hub import InspectorHub
    from explorer.ui.launch.launcher import LauncherPanel
    from explorer.ui.launch.presets import preset_config

    launcher = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(launcher)
    hub = InspectorHub()
    combo = hub.panel.source
    for p in QA_PRESETS:
        i = launcher.presets.findData(f"qa:{p.hub_id}")
        assert i >= 0 and launcher.presets.itemData(i, Qt.ItemDataRole.ToolTipRole) == p.tooltip()
        cfg = preset_config(f"qa:{p.hub_id}", launcher.config(), tmp_path / "runs")
        assert cfg.model == p.hub_id and cfg.task == p.task and cfg.train.startswith("rajpurkar/squad")
        j = combo.findText(p.hub_id)
        assert j >= 0 and combo.itemData(j, Qt.ItemDataRole.ToolTipRole) == p.tooltip()


def test_offline_preset_gets_the_clear_hub_message(monkeypatch):
    from explorer.core.specs.hub_checkpoints import QA_PRESETS

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelSourceError, match="offline"):
        load_model(QA_PRESETS[1].hub_id)


def test_inspector_says_which_head_is_new_or_refuses_a_decoder(qtbot, family_dirs, tmp_path):
    from transformers import GPT2Config, GPT2LMHeadModel

    from explorer.ui.inspectors import InspectorHub

    tok = family_dirs["roberta"]["tokenizer"]
    GPT2LMHeadModel(GPT2Config(n_layer=1, n_embd=32, n_head=4, vocab_size=len(tok), bos_token_id=0,
                               eos_token_id=2)).save_pretrained(tmp_path / "gpt2")
    tok.save_pretrained(tmp_path / "gpt2")
    mlm = save_family(tmp_path / "mlm", FAMILIES["roberta"], tok, task="masked_lm")
    hub = InspectorHub()
    for _, w in hub.tabs():
        qtbot.addWidget(w)
    with qtbot.waitSignal(hub.message, timeout=20000) as blocker:
        hub.open_model(str(tmp_path / "gpt2"))
    assert "decoder-only" in blocker.args[0] and "Traceback" not in blocker.args[0]
    assert "decoder-only" in hub.panel.status.text()
    with qtbot.waitSignal(hub.model_changed, timeout=20000):
        hub.open_model(str(mlm))
    note = hub.panel.model_note.text()
    assert hub.panel.model_note.isVisibleTo(hub.panel)
    assert "masked-language-model checkpoint (RobertaForMaskedLM)" in note and "(qa_outputs) is new" in note


@pytest.mark.parametrize("name", ["distilbert", "modernbert"])
def test_heads_with_extra_layers_are_not_called_a_random_encoder(name, family_dirs):
    """DistilBERT's classifier has a pre_classifier layer, ModernBERT's heads a `head` block: new layers outside
    the encoder (base_model_prefix), so a masked-LM checkpoint loads as "pre-trained encoder, new head"."""
    folder = family_dirs[name]["root"] / f"{name}-masked_lm"
    if not folder.exists():
        save_family(folder, FAMILIES[name], family_dirs[name]["tokenizer"], task="masked_lm")
    for task in ("qa", "classification"):
        report = load_model(str(folder), task=task, num_labels=2).load_report
        assert report.encoder_loaded and report.kind == "pre-trained encoder, new head", (task, report.summary())


@pytest.mark.parametrize("name", ["electra", "modernbert"])
def test_an_evaluations_watch_probe_runs_under_bf16_autocast(name, family_dirs, data_files, tmp_path):
    """A bf16 run evaluates with its watch probes inside accelerate's autocast: the by-hand check of a model
    whose start/end layer does not read the last hidden state compared a bf16 tensor with a float32 one
    ("BFloat16 did not match Float", the run failed at its first evaluation; seen with 'auto' on a CPU with AMX).
    bf16 is asked for explicitly, so the test holds on CPUs without it too (emulated there)."""
    from explorer.worker.train import EXIT_OK

    rc, ev = _train(["--model", family_dirs[name]["qa"], "--task", "squad_v2", "--train", data_files["sq2"],
                     "--dev", data_files["sq2"], "--dev-cap", 2, "--max-steps", 1, "--batch-size", 4,
                     "--max-seq-length", 64, "--doc-stride", 16, "--max-query-length", 16, "--mixed-precision", "bf16",
                     "--output-dir", tmp_path, "--run-id", "bf16"])
    assert rc == EXIT_OK, ev[-1]
    watch = [e for e in ev if e["event"] == "eval"][-1].get("watch") or []
    assert watch and all(row["null_score"] is not None for row in watch)

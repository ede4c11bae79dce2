"""The head spec (explorer/core/specs/heads.py): every head is declared once, a checkpoint saved with any head is
recognised back as that head from its config.json, its config object and the loaded model, and load_model opens
every head with its own weights. The tests that take ``every_head`` run once per head of the spec."""

from __future__ import annotations

import json

import pytest
from helpers import head_label_names, tiny_tokenizer

from explorer.core.specs import heads
from explorer.core.specs.tasks import get_task_facts, task_for_checkpoint, task_names


def test_a_saved_checkpoint_of_every_head_is_recognised_back(every_head, every_head_checkpoint):
    from transformers import AutoConfig

    from explorer.core.models.checkpoint_windows import checkpoint_task_name
    from explorer.core.predict.facts import checkpoint_facts
    from explorer.ui.inspectors.registry import page_for_checkpoint

    folder = every_head_checkpoint
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    assert config["architectures"][0].endswith(every_head.architecture)
    assert heads.recognise(folder) is every_head                               # the folder (config.json read)
    assert heads.recognise(str(folder)) is every_head
    assert heads.recognise(config) is every_head                               # the config.json dict
    assert heads.recognise(AutoConfig.from_pretrained(folder)) is every_head   # the transformers config
    task = task_for_checkpoint(every_head)
    assert task is not None and get_task_facts(task).head is every_head
    assert checkpoint_task_name(folder) == (every_head.model_head, task)
    facts = checkpoint_facts(str(folder))
    assert facts.spec is every_head and facts.kind == every_head.prediction.kind
    assert facts.label_names == list(head_label_names(every_head).values())
    assert page_for_checkpoint(every_head.model_head).plain_title == every_head.pages[0]


def test_load_model_opens_every_head_with_its_own_weights(every_head, every_head_checkpoint):
    import torch

    from explorer.core.models.info import model_info
    from explorer.core.models.loading import load_model

    loaded = load_model(str(every_head_checkpoint), task=every_head.model_head)
    assert loaded.task == every_head.model_head and not loaded.head_initialised and loaded.head_note == ""
    assert loaded.load_report.kind == "fine-tuned"
    assert type(loaded.model).__name__.endswith(every_head.architecture)
    assert heads.recognise(loaded.model) is every_head                          # the model: class and config
    names = head_label_names(every_head)
    if names:
        assert {int(k): v for k, v in loaded.model.config.id2label.items()} == names
    info = model_info(loaded, "slot")
    assert info.task == every_head.model_head and info.head_problem == every_head.problem
    enc = loaded.tokenizer("where was ada born?", "ada was born in london.", return_tensors="pt")
    if every_head.inputs is heads.Inputs.CHOICES:          # one (context, ending) row per candidate
        enc = {k: v.unsqueeze(1).expand(-1, 2, -1) for k, v in enc.items()}
    with torch.no_grad():
        out = loaded.model(**enc)
    assert all(getattr(out, name, None) is not None for name in every_head.outputs)


def test_a_checkpoint_of_another_head_loads_with_a_new_head_and_says_so(every_head, every_head_checkpoint):
    from explorer.core.models.loading import load_model, other_task_error

    other = next(h for h in heads.heads() if h.model_head != every_head.model_head)
    loaded = load_model(str(every_head_checkpoint), task=other.model_head)
    assert loaded.head_initialised and other.words in loaded.head_note
    message = other_task_error(loaded.model.config, other.model_head, "ckpt")
    assert message.startswith(f"'ckpt' is {every_head.model_words}") and message.endswith(every_head.use)


def test_the_recognition_rule():
    sequence = {"architectures": ["BertForSequenceClassification"]}
    assert heads.recognise({**sequence, "id2label": {"0": "a", "1": "b"}}) is heads.SINGLE_LABEL
    assert heads.recognise({**sequence, "id2label": {"0": "score"}}) is heads.REGRESSION          # one output
    assert heads.recognise({**sequence, "problem_type": "multi_label_classification",
                            "id2label": {"0": "a"}}) is heads.MULTI_LABEL                     # problem_type first
    assert heads.recognise({**sequence, "num_labels": 3}) is heads.SINGLE_LABEL
    assert heads.recognise({**sequence, "id2label": {"0": "a", "1": "b"}},
                           run_head=heads.MULTI_LABEL) is heads.MULTI_LABEL                   # the run's task
    assert heads.recognise({**sequence, "id2label": {"0": "a", "1": "b"}},
                           run_head=heads.QA) is heads.SINGLE_LABEL                           # not this architecture
    assert heads.recognise({"architectures": ["RobertaForQuestionAnswering"]}) is heads.QA
    assert heads.recognise({"architectures": ["BertForMaskedLM"]}) is None                   # no task head
    assert heads.recognise({"architectures": None}) is None and heads.recognise({}) is None
    assert heads.recognise("/nowhere/at/all") is None
    assert heads.classification_head("", 1) is heads.REGRESSION
    assert heads.classification_head("single_label_classification", 1) is heads.SINGLE_LABEL
    assert heads.with_outputs(heads.SINGLE_LABEL, 1) is heads.REGRESSION
    assert heads.with_outputs(heads.TOKEN_CLASSIFICATION, 1) is heads.TOKEN_CLASSIFICATION
    assert heads.architecture_words("BertForMaskedLM") == "masked-language-model"


def test_every_head_is_declared_once_and_named_by_its_tasks():
    specs = heads.heads()
    assert [h.name for h in specs] == ["qa", "classification", "regression", "multilabel", "multiple_choice",
                                       "token_classification"]
    assert heads.model_heads() == ("qa", "classification", "multiple_choice", "token_classification")
    for attribute in ("name", "prediction"):
        values = [getattr(h, attribute) for h in specs]
        assert len(set(values)) == len(values), attribute
    for h in specs:
        assert heads.get_head(h.name) is h and heads.for_prediction_kind(h.prediction.kind) is h
        assert heads.for_model_head(h.model_head).model_head == h.model_head
        assert h.auto_class.startswith("AutoModelFor") and h.pages and h.metrics and h.outputs
        assert any(get_task_facts(t).head is h for t in task_names()), f"no task has the {h.name} head"
        same = [g for g in specs if g.model_head == h.model_head]
        assert {(g.auto_class, g.architecture, g.pages) for g in same} == {(h.auto_class, h.architecture, h.pages)}
    assert {h.explained for h in specs} == set(heads.Explained)
    assert all(get_task_facts(t).head in specs for t in task_names())
    with pytest.raises(KeyError, match="heads: qa, classification"):
        heads.get_head("ranking")


def test_prediction_columns_expand_class_names_and_candidates():
    assert heads.SINGLE_LABEL.prediction.output_columns(["neg", "pos"]) == ["predicted_label", "p_neg", "p_pos",
                                                                           "margin", "error"]
    assert heads.MULTIPLE_CHOICE.prediction.output_columns() == ["predicted_ending", "p_ending0", "p_ending1",
                                                                 "p_ending2", "p_ending3", "error"]
    assert heads.QA.prediction.output_columns()[:3] == ["answer", "answer_start", "answer_end"]


def test_tiny_models_of_every_head_read_the_tiny_tokenizer(every_head):
    from helpers import tiny_head_model

    loaded = tiny_head_model(every_head)
    assert loaded.model.config.vocab_size == len(tiny_tokenizer())
    assert heads.recognise(loaded.model) is every_head


def test_predict_writes_the_columns_of_every_head(every_head, every_head_checkpoint, tmp_path):
    from explorer.core.predict.engine import predict_file

    columns = every_head.prediction.text_columns or ("sentence",)
    texts = {"question": "where was ada born?", "context": "ada was born in london.", "sent1": "ada was born",
             "sent2": "in"}
    rows = [{c: texts.get(c, f"the city {i} {c}") for c in columns} for i in range(3)]
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    summary = predict_file(str(every_head_checkpoint), str(data), str(tmp_path / "out.jsonl"))
    names = list(head_label_names(every_head).values())
    assert summary.kind == every_head.prediction.kind and summary.rows == 3 and summary.errors == 0
    assert summary.columns[-len(every_head.prediction.output_columns(names)):] == \
        every_head.prediction.output_columns(names)
    written = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(written) == 3 and all(r[every_head.prediction.columns[0]] is not None for r in written)

"""Recipe options beyond the BERT paper's, each off by default: a larger learning rate for the new task head
than for the encoder, and SQuAD v1.1 training on the windows that hold the answer only."""

import pytest
import torch

from helpers import tiny_loaded_model, tiny_tokenizer
from explorer.core.qa.windows import prepare_qa_features
from explorer.core.specs.train_config import TrainConfig
from explorer.core.training.recipe import build_optimizer, build_scheduler, head_parameter_names
from explorer.core.training.tasks.qa import QATask, answer_windows


# ---- head learning rate ------------------------------------------------------------------------------------
def _rates(optimizer) -> dict[str, float]:
    """parameter object id -> its group's lr"""
    return {id(p): g["lr"] for g in optimizer.param_groups for p in g["params"]}


@pytest.mark.parametrize("task, head", [("qa", "qa_outputs"), ("classification", "classifier")])
def test_the_head_is_every_weight_outside_the_encoder(task, head):
    model = tiny_loaded_model(task).model
    names = head_parameter_names(model)
    assert names == {n for n, _ in model.named_parameters() if n.startswith(head + ".")}
    assert names and not any(n.startswith("bert.") for n in names)


def test_by_default_every_weight_learns_at_one_rate():
    model = tiny_loaded_model("qa").model
    opt = build_optimizer(model, learning_rate=3e-5)
    assert set(_rates(opt).values()) == {3e-5} and len(opt.param_groups) == 2


def test_a_head_multiplier_gives_the_head_its_own_rate_and_keeps_weight_decay_rules():
    model = tiny_loaded_model("qa").model
    opt = build_optimizer(model, learning_rate=1e-4, weight_decay=0.01, head_lr_multiplier=10.0)
    rates = _rates(opt)
    params = dict(model.named_parameters())
    assert rates[id(params["qa_outputs.weight"])] == pytest.approx(1e-3)
    assert rates[id(params["qa_outputs.bias"])] == pytest.approx(1e-3)
    assert rates[id(params["bert.encoder.layer.0.attention.self.query.weight"])] == pytest.approx(1e-4)
    assert len(rates) == len(params)   # every parameter in exactly one group
    decay = {id(p): g["weight_decay"] for g in opt.param_groups for p in g["params"]}
    assert decay[id(params["qa_outputs.weight"])] == 0.01 and decay[id(params["qa_outputs.bias"])] == 0.0


def test_the_schedule_scales_head_and_encoder_rates_alike():
    model = tiny_loaded_model("qa").model
    opt = build_optimizer(model, learning_rate=1e-4, head_lr_multiplier=5.0)
    sched = build_scheduler(opt, warmup_steps=2, total_steps=10)
    for _ in range(4):
        opt.step()
        sched.step()
    head = head_parameter_names(model)
    params = dict(model.named_parameters())
    rates = _rates(opt)
    head_rate = rates[id(params[next(iter(head))])]
    body_rate = rates[id(params["bert.embeddings.word_embeddings.weight"])]
    assert 0 < body_rate < 1e-4 and head_rate == pytest.approx(5.0 * body_rate)


def test_head_multiplier_is_a_setting_that_refuses_zero():
    assert TrainConfig().head_lr_multiplier == 1.0
    with pytest.raises(Exception, match="head_lr_multiplier"):
        TrainConfig(train="train.json", head_lr_multiplier=0.0).validate()


# ---- windows that hold the answer ----------------------------------------------------------------------------
PASSAGE = " ".join(["the cat sat on the mat"] * 12 + ["the dog ran to the park"])
QUESTION = "where did the dog run"


def _examples(answer_text: str):
    start = PASSAGE.rindex(answer_text)
    return {"question": [QUESTION, "what did the cat sit on"], "context": [PASSAGE, PASSAGE],
            "answers": [{"text": [answer_text], "answer_start": [start]},
                        {"text": ["mat"], "answer_start": [PASSAGE.index("mat")]}]}


def _features(examples, **kw):
    return prepare_qa_features(examples["question"], examples["context"], tiny_tokenizer(), max_seq_length=32,
                               doc_stride=8, max_query_length=16, answers=examples["answers"], **kw)


def test_answer_windows_keep_only_windows_whose_label_is_a_span():
    feats = _features(_examples("park"))
    labelled = [k for k in range(len(feats)) if feats.start_positions[k] != feats.cls_index[k]]
    assert len(feats) > len(labelled) >= 2   # the long passage makes windows without the answer
    kept = answer_windows(feats)
    assert len(kept) == len(labelled)
    assert all(s != c for s, c in zip(kept.start_positions, kept.cls_index))
    assert kept.input_ids == [feats.input_ids[k] for k in labelled]
    assert kept.example_index == [feats.example_index[k] for k in labelled]
    assert kept.offset_mapping == [feats.offset_mapping[k] for k in labelled]
    assert set(kept.example_index) == {0, 1}   # both questions still train


def test_a_question_no_window_answers_keeps_its_windows():
    feats = _features(_examples("park"))
    feats.start_positions[:] = [c if e == 0 else s for s, c, e in
                                zip(feats.start_positions, feats.cls_index, feats.example_index)]
    kept = answer_windows(feats)
    assert kept.example_index.count(0) == feats.example_index.count(0)
    assert all(s != c for s, c, e in zip(kept.start_positions, kept.cls_index, kept.example_index) if e == 1)


class _Rows(dict):
    """The columns QATask.featurize reads, as a datasets.Dataset gives them."""


@pytest.mark.parametrize("task, skip, train, all_windows", [
    ("squad_v1", False, True, True),    # off by default
    ("squad_v1", True, True, False),
    ("squad_v1", True, False, True),    # evaluation reads every window
    ("squad_v2", True, True, True),     # v2.0 learns "no answer" from those windows
])
def test_the_setting_drops_answerless_training_windows_for_squad_v1_only(task, skip, train, all_windows):
    examples = _Rows(_examples("park"))
    config = TrainConfig(task=task, max_seq_length=32, doc_stride=8, max_query_length=16,
                         skip_answerless_windows=skip)
    fs = QATask(task).featurize(examples, tiny_tokenizer(), config, train=train)
    every = _features(examples)
    assert (len(fs) == len(every)) is all_windows
    if not all_windows:
        batch = fs.collate(list(range(len(fs))))
        assert bool((batch["start_positions"] != 0).all())   # [CLS] is position 0 for BERT
        assert isinstance(batch["input_ids"], torch.Tensor)

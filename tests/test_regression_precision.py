"""A checkpoint's dev figures are the same in the training evaluation (Best dev) and in Classify: dev set, for
every head: both compute in fp32 whatever the run's mixed precision
(core.training.precision.evaluation_forward_precision). Under bf16 a score near 2.5 comes out in steps of 1/64,
so the Pearson correlation of an undertrained regression head's near-constant scores was noise (0.406 in the
Runs list, 0.39 in Classify: dev set for one checkpoint), and a class logit's rounding moved with the batch, so a
row at P 0.500 was right in one and wrong in the other (accuracy 74.33 against 74.00)."""

from __future__ import annotations

import csv

import numpy as np
import pytest
import torch

from helpers import tiny_loaded_model, write_tiny_classification

WORDS = ["a", "man", "dog", "is", "running", "cat", "sleeps", "child", "rides", "horse", "the", "plays"]


def _dev(path, n=40):
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["sentence1", "sentence2", "score"])
        for i in range(n):
            a = " ".join(WORDS[(i * 5 + j) % len(WORDS)] for j in range(3 + i % 6))
            b = " ".join(WORDS[(i * 7 + j) % len(WORDS)] for j in range(2 + i % 5))
            w.writerow([a, b, f"{(i * 37) % 51 / 10:.1f}"])
    return path


def _bf16_accelerator():
    """A bf16 Accelerator whatever precision an earlier run of this process chose (accelerate keeps one state per
    process and refuses another precision; make_accelerator resets it the same way for a run)."""
    from accelerate import Accelerator
    from accelerate.state import AcceleratorState, GradientState

    AcceleratorState._reset_state()
    GradientState._reset_state()
    return Accelerator(mixed_precision="bf16", cpu=True)


@pytest.fixture
def near_constant():
    """A tiny regression head whose scores span a few hundredths around 2.47 (an undertrained STS-B run)."""
    loaded = tiny_loaded_model("classification", seed=3, num_labels=1)
    loaded.model.config.problem_type = "regression"
    with torch.no_grad():
        loaded.model.classifier.bias.fill_(2.47)
        loaded.model.classifier.weight.mul_(0.3)
    return loaded


def test_training_evaluation_and_classify_dev_set_give_the_same_pearson_under_bf16(tmp_path, near_constant,
                                                                                     monkeypatch):

    import explorer.core.training.dev_scoring as dev_scoring
    from explorer.core.specs.train_config import TrainConfig
    from explorer.core.training.evaluation import eval_loader, evaluate
    from explorer.core.training.tasks import get_task

    dev = _dev(tmp_path / "dev.csv")
    settings = {"text_columns": ["sentence1", "sentence2"], "label_column": "score"}
    model, tok = near_constant.model, near_constant.tokenizer
    shown = dev_scoring.score_classification_dev(model, tok, "regression", str(dev), cap=None, settings=settings)
    fp32 = _fp32_scores(model, tok, dev, settings)

    task = get_task("regression")
    config = TrainConfig(task="regression", dev=str(dev), text_columns=settings["text_columns"],
                         label_column="score", max_seq_length=128)
    data = task.load(config, "dev")
    features = task.featurize(data, tok, config, train=False)
    accelerator = _bf16_accelerator()
    prepared = accelerator.prepare(model)
    trained = evaluate(accelerator, prepared, tok, task, data, features, eval_loader(accelerator, features, 7),
                       config)["metrics"]
    assert float(np.ptp(fp32)) < 0.2   # the case: near-constant scores
    assert np.allclose(shown.predicted, fp32, atol=1e-5)
    assert round(shown.pearson, 3) == round(trained["pearson"], 3)


def _fp32_scores(model, tok, dev, settings):
    """Row-by-row fp32 forward of the dev file's rows, outside any autocast: the reference."""
    from explorer.core.specs.train_config import TrainConfig
    from explorer.core.training.tasks import get_task

    task = get_task("regression")
    config = TrainConfig(task="regression", dev=str(dev), text_columns=settings["text_columns"],
                         label_column="score", max_seq_length=128)
    feats = task.featurize(task.load(config, "dev"), tok, config, train=False)
    model.eval()
    with torch.inference_mode():
        return np.array([float(model(**task.model_inputs(feats.collate([i]))).logits.float()[0, 0])
                         for i in range(len(feats))])


def test_a_classifiers_training_evaluation_runs_in_fp32_under_a_bf16_run(tmp_path):
    """The logits a bf16 run's evaluation records (dev_outputs.json, Best dev) are the fp32 logits that
    Classify: dev set computes, not bf16 ones whose rounding moves with the batch."""

    from explorer.core.specs.train_config import TrainConfig
    from explorer.core.training.evaluation import eval_loader, gather_outputs
    from explorer.core.training.tasks import get_task

    loaded = tiny_loaded_model("classification", seed=5)
    path = write_tiny_classification(tmp_path / "dev.tsv", repeat=3)
    task = get_task("single")
    config = TrainConfig(task="single", dev=str(path), max_seq_length=32)
    feats = task.featurize(task.load(config, "dev"), loaded.tokenizer, config, train=False)
    loaded.model.eval()
    with torch.inference_mode():     # before prepare, which puts the autocast into the module's forward
        ref = [loaded.model(**task.model_inputs(feats.collate([i]))).logits.float()[0].numpy()
               for i in range(len(feats))]
    accelerator = _bf16_accelerator()
    prepared = accelerator.prepare(loaded.model)
    got = gather_outputs(accelerator, prepared, task, feats, eval_loader(accelerator, feats, 4))
    name = next(iter(got))
    assert np.allclose(np.stack(got[name]), np.stack(ref), atol=1e-5)


def test_classify_dev_set_cuts_inputs_where_the_models_run_cut_them(tmp_path, monkeypatch):
    """A run trained with max_seq_length 64: Classify: dev set scores its checkpoint's dev rows at 64 tokens too
    (it cut every model at 128), so a text longer than one of them is read alike by both; a checkpoint of no
    run keeps 128."""
    import json

    import explorer.core.training.dev_scoring as dev_scoring
    from explorer.core.classify.dev_report import run_max_seq_length
    from explorer.core.runs.layout import config_file
    from explorer.core.specs.train_config import TrainConfig
    from explorer.worker.inspector_ops import OPS, State

    run = tmp_path / "runs" / "r"
    ckpt = run / "checkpoints" / "best"
    ckpt.mkdir(parents=True)
    config_file(run).write_text(json.dumps(TrainConfig(task="regression", max_seq_length=64).to_dict()),
                                encoding="utf-8")
    assert run_max_seq_length(str(ckpt)) == 64 and run_max_seq_length(str(tmp_path / "elsewhere")) == 128
    seen = {}
    monkeypatch.setattr(dev_scoring, "score_classification_dev",
                        lambda *a, max_seq_length=128, **k: seen.setdefault("max_seq_length", max_seq_length))

    class Loaded:
        model = tokenizer = None
        path, source = str(ckpt), str(ckpt)

    state = State()
    monkeypatch.setattr(state, "model", lambda slot: Loaded())
    OPS["classify_dev"][0](state, {"kind": "regression", "path": "dev.csv"}, lambda d, t: None, lambda: False)
    assert seen["max_seq_length"] == 64

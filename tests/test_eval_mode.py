"""Case eval-mode-determinism: every inference entry point runs in eval mode (dropout off) and gives the caller
its model back in the mode it was in; the same input twice gives identical logits, even on a model left in
train mode with dropout 0.5."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from helpers import tiny_loaded_model, write_tiny_classification

QUESTION, PASSAGE = "where was ada born?", "ada lovelace was born in london in 1815 and wrote notes."


def _train_mode(task: str, **kw):
    """A tiny model with dropout 0.5 everywhere, left in train mode (one submodule in eval, to see that
    each submodule's own flag comes back)."""
    loaded = tiny_loaded_model(task, **kw)
    for m in loaded.model.modules():
        if isinstance(m, torch.nn.Dropout):
            m.p = 0.5
    loaded.model.train()
    loaded.model.base_model.embeddings.eval()
    return loaded


def _modes(model) -> list[bool]:
    return [m.training for m in model.modules()]


def test_inference_restores_each_submodule_and_turns_autograd_off():
    from explorer.core.models.eval_mode import inference

    loaded = _train_mode("qa")
    before = _modes(loaded.model)
    with inference(loaded.model):
        assert not any(_modes(loaded.model)) and torch.is_inference_mode_enabled()
    assert _modes(loaded.model) == before
    with pytest.raises(RuntimeError), inference(loaded.model, gradients=True):
        assert torch.is_grad_enabled() and not loaded.model.training
        raise RuntimeError("the block fails")
    assert _modes(loaded.model) == before                     # restored on the way out of an error too


def test_a_model_in_eval_mode_is_not_switched_and_a_flag_set_in_the_block_comes_back(monkeypatch):
    """The inspector's model is always in eval mode: Module.eval (a Python call per submodule, about 1 ms of each
    probe) is skipped; a flag the block itself changes is still set back."""
    from explorer.core.models.eval_mode import inference

    loaded = tiny_loaded_model("qa")
    loaded.model.eval()
    calls: list = []
    real = torch.nn.Module.train
    monkeypatch.setattr(torch.nn.Module, "train", lambda self, mode=True: (calls.append(mode), real(self, mode))[1])
    with inference(loaded.model):
        loaded.model.base_model.encoder.train()               # the block switches a part (a caller's mistake)
    assert calls and False not in calls and not any(_modes(loaded.model))   # no eval(); all back in eval


def test_probe_twice_on_a_train_mode_model_gives_identical_logits():
    from explorer.core.qa.probe import probe

    loaded = _train_mode("qa")
    before = _modes(loaded.model)
    r1 = probe(loaded, QUESTION, PASSAGE, attentions=True)
    r2 = probe(loaded, QUESTION, PASSAGE, attentions=True)
    assert np.array_equal(r1.windows[0].start_logits, r2.windows[0].start_logits)
    assert np.array_equal(r1.windows[0].end_logits, r2.windows[0].end_logits)
    assert _modes(loaded.model) == before
    r1.attention_weights(0)                                   # the lazy attention forward, later
    assert _modes(loaded.model) == before


def test_qa_inference_and_saliency_run_in_eval_mode():
    from explorer.core.qa.inference import predict_squad
    from explorer.core.qa.probe import probe
    from explorer.core.qa.saliency import window_saliency

    loaded = _train_mode("qa")
    before = _modes(loaded.model)
    rows = [{"question": QUESTION, "context": PASSAGE}]
    _, s1, _ = predict_squad(loaded, rows, max_seq_length=64, doc_stride=16, max_query_length=16)
    _, s2, _ = predict_squad(loaded, rows, max_seq_length=64, doc_stride=16, max_query_length=16)
    assert np.array_equal(s1, s2) and _modes(loaded.model) == before
    window = probe(loaded, QUESTION, PASSAGE, attentions=False).windows[0]
    a, b = window_saliency(loaded.model, window, 8, 9), window_saliency(loaded.model, window, 8, 9)
    assert np.array_equal(a.start_attribution, b.start_attribution)
    assert a.start_logit == pytest.approx(float(window.start_logits[8]), abs=1e-5)   # the eval-mode logit
    assert _modes(loaded.model) == before


def test_classify_and_the_dev_table_run_in_eval_mode(tmp_path):
    from explorer.core.training.dev_scoring import score_classification_dev
    from explorer.core.classify.forward import classify_text

    loaded = _train_mode("classification")
    before = _modes(loaded.model)
    c1 = classify_text(loaded.model, loaded.tokenizer, "a warm film", "about ada")
    c2 = classify_text(loaded.model, loaded.tokenizer, "a warm film", "about ada")
    assert np.array_equal(c1.logits, c2.logits) and _modes(loaded.model) == before
    assert c1.max_abs_diff < 1e-4                            # the by-hand C W^T + b has no dropout either
    dev = write_tiny_classification(tmp_path / "dev.tsv")
    score_classification_dev(loaded.model, loaded.tokenizer, "single", str(dev))
    assert _modes(loaded.model) == before

"""QA saliency (gradient x input): each token's attribution equals the finite-difference change of the
logit when that token's embedding is scaled by (1 +- eps), on a tiny QA model in float64."""

import numpy as np
import pytest
import torch
from helpers import tiny_loaded_model

from explorer.core.qa.probe import probe
from explorer.core.qa.saliency import SaliencyError, span_saliency, token_type_ids_from_blocks, window_saliency


@pytest.fixture(scope="module")
def qa():
    loaded = tiny_loaded_model("qa", seed=3)
    res = probe(loaded, "where was ada born?", "ada was born in london. the river is in paris.",
                tokenizer=loaded.tokenizer, attentions=False)
    return loaded, res.windows[0]


def _logit(model, x, types, which, index):
    out = model(inputs_embeds=x.unsqueeze(0), token_type_ids=torch.tensor([types]),
                attention_mask=torch.ones(1, x.shape[0], dtype=torch.long))
    return float((out.start_logits if which == "start" else out.end_logits)[0, index])


def test_gradient_x_input_agrees_with_finite_differences(qa):
    loaded, win = qa
    model = loaded.model.double()
    try:
        p = win.blocks.index("passage")
        s, e = p + 1, p + 3
        sal = window_saliency(model, win, s, e)
        types = token_type_ids_from_blocks(win.blocks)
        x0 = model.get_input_embeddings()(torch.tensor(win.input_ids)).detach()
        eps = 1e-5
        with torch.no_grad():
            for which, index, attr in (("start", s, sal.start_attribution), ("end", e, sal.end_attribution)):
                fd = []
                for i in range(len(win.input_ids)):
                    up, down = x0.clone(), x0.clone()
                    up[i] *= 1 + eps
                    down[i] *= 1 - eps
                    fd.append((_logit(model, up, types, which, index) - _logit(model, down, types, which, index))
                              / (2 * eps))
                assert np.allclose(attr, fd, rtol=1e-5, atol=1e-7), (which, np.abs(attr - fd).max())
                assert np.abs(attr).max() > 1e-3  # not all zero: the check can fail
        assert sal.start_logit == pytest.approx(float(win.start_logits[s]), abs=1e-4)
        assert sal.end_logit == pytest.approx(float(win.end_logits[e]), abs=1e-4)
    finally:
        loaded.model.float()


def test_result_maps_onto_the_passage_and_names_top_tokens(qa):
    loaded, win = qa
    p = win.blocks.index("passage")
    sal = window_saliency(loaded.model, win, p, p)
    chars = sal.passage_char_scores("end")
    assert len(chars) == win.blocks.count("passage") and chars[0][0] == 0
    top = sal.top_tokens("start", 3)
    assert len(top) == 3 and abs(top[0][2]) >= abs(top[1][2]) >= abs(top[2][2])


def test_bad_spans_and_models_are_clear_errors(qa):
    loaded, win = qa
    n = len(win.input_ids)
    with pytest.raises(SaliencyError, match=f"outside the window of {n} tokens"):
        window_saliency(loaded.model, win, 1, n)
    with pytest.raises(SaliencyError, match="before its start"):
        window_saliency(loaded.model, win, 5, 3)
    cls = tiny_loaded_model("classification")
    with pytest.raises(SaliencyError, match="needs a QA model"):
        span_saliency(cls.model, win.input_ids, win.blocks, 1, 1)

"""Batched inference (explorer.core.qa.inference): sorted, dynamically padded batches = one window at a time."""

import numpy as np
import torch

from explorer.core.qa.windows import prepare_qa_features
from explorer.core.qa.inference import predict_squad

ROWS = [
    {"question": "where was ada born?", "context": "ada was born in london in 1815. " * 12},
    {"question": "who?", "context": "the river in paris."},
    {"question": "what year was the first model?", "context": "the first model was in 1999, in a city. " * 5},
]


def test_batched_logits_equal_single_window_forward(tiny_qa):
    feats, start, end = predict_squad(tiny_qa, ROWS, max_seq_length=48, doc_stride=12, batch_size=4)
    ref = prepare_qa_features([r["question"] for r in ROWS], [r["context"] for r in ROWS], tiny_qa.tokenizer,
                              max_seq_length=48, doc_stride=12)
    assert feats.input_ids == ref.input_ids and len(feats) == start.shape[0] > 3
    with torch.inference_mode():
        for k in range(len(feats)):
            ids = torch.tensor([feats.input_ids[k]])
            out = tiny_qa.model(input_ids=ids, token_type_ids=torch.tensor([feats.token_type_ids[k]]),
                                attention_mask=torch.ones_like(ids))
            n = ids.shape[1]
            np.testing.assert_allclose(start[k, :n], out.start_logits[0].numpy(), atol=1e-5)
            np.testing.assert_allclose(end[k, :n], out.end_logits[0].numpy(), atol=1e-5)
            assert np.all(np.isneginf(start[k, n:]))


def test_progress_and_mode_restored(tiny_qa):
    calls = []
    tiny_qa.model.train()
    try:
        feats, _, _ = predict_squad(tiny_qa, ROWS, max_seq_length=48, doc_stride=12, batch_size=2,
                                    progress=lambda d, t: calls.append((d, t)))
        assert tiny_qa.model.training
    finally:
        tiny_qa.model.eval()
    assert calls[-1] == (len(feats), len(feats)) and len(calls) == -(-len(feats) // 2)

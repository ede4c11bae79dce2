"""Dev-set scoring runs the forward as predict does: length-sorted batches come back in row order, equal to a
one-row-at-a-time forward, with progress after each batch and a cancel between batches."""

import numpy as np
import pytest
import torch
from helpers import tiny_loaded_model, write_tiny_classification

from explorer.core.errors import Cancelled
from explorer.core.specs.train_config import TrainConfig
from explorer.core.training.dev_scoring import dev_logits
from explorer.core.training.tasks import get_task


@pytest.fixture(scope="module")
def dev(tmp_path_factory):
    loaded = tiny_loaded_model("classification")
    path = write_tiny_classification(tmp_path_factory.mktemp("dev") / "dev.tsv", repeat=3)
    task = get_task("single")
    config = TrainConfig(task="single", dev=str(path), max_seq_length=32)
    feats = task.featurize(task.load(config, "dev"), loaded.tokenizer, config, train=False)
    return loaded.model, task, feats


def test_length_sorted_logits_come_back_in_row_order_in_fp32(dev):
    """Equal to a row-by-row fp32 forward within fp32's rounding, also on a CPU where bf16 is fast (AMX): dev
    scoring computes in the training evaluation's precision, never bf16, whose rounding moves with the batch."""
    tolerance = 1e-5
    model, task, feats = dev
    seen = []
    z = dev_logits(model, task, feats, 5, progress=lambda done, total: seen.append((done, total)))
    model.eval()
    with torch.inference_mode():
        one = np.stack([model(**task.model_inputs(feats.collate([i]))).logits.float()[0].numpy()
                        for i in range(len(feats))])
    assert z.shape == one.shape and np.allclose(z, one, atol=tolerance)
    assert seen[-1] == (len(feats), len(feats)) and len(seen) == -(-len(feats) // 5)


def test_cancel_between_batches(dev):
    model, task, feats = dev
    calls = []

    def cancelled():
        calls.append(1)
        return len(calls) > 1          # cancelled after the first batch

    with pytest.raises(Cancelled):
        dev_logits(model, task, feats, 5, cancelled=cancelled)
    assert len(calls) == 2

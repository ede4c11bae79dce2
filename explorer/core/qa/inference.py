"""Batched QA inference over a SQuAD dataset: windows -> start_logits, end_logits for every window.

Shared by ``bert-explorer eval``, the training loop's dev evaluation and the GUI. Speed levers
(docs/formulas.md, speed facts): windows are sorted by length so each batch is padded only to its own
longest window (dynamic padding), the forward runs under ``torch.inference_mode``, and bf16 autocast
is available on CPUs with AMX. Results come back in feature order, so
:func:`explorer.core.qa.decoding.decode_predictions` can use them directly.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from explorer.core.models.eval_mode import inference
from explorer.core.qa.windows import QAFeatures, collate_qa, prepare_qa_features
from explorer.core.models.window_settings import require_window_settings


def _columns(dataset) -> tuple[list[str], list[str]]:
    if hasattr(dataset, "column_names"):
        return list(dataset["question"]), list(dataset["context"])
    return [x["question"] for x in dataset], [x["context"] for x in dataset]


def batch_order(lengths, batch_size: int) -> list[list[int]]:
    """The batches predict_squad runs: window indices sorted by length, longest first (stable), cut into
    ``batch_size`` pieces, so each batch is padded only to its own longest window. scripts/bench_eval.py runs
    the bare model over the same batches.

    Args:
        lengths: tokens per window (QAFeatures.lengths()).
        batch_size: windows per forward pass (>= 1).

    Raises:
        ValueError: batch_size < 1.
    """
    from explorer.core.models.batched_forward import length_order

    return length_order(lengths, batch_size)   # longest first: a memory problem shows up at once


def predict_squad(loaded, dataset, *, tokenizer=None, max_seq_length: int = 384, doc_stride: int = 128,
                  max_query_length: int = 64, batch_size: int = 32, bf16: bool = False,
                  features: QAFeatures | None = None,
                  progress: Callable[[int, int], None] | None = None):
    """Run a QA model over every window of every question.

    Args:
        loaded: a LoadedModel (model + tokenizer) or a bare ``*ForQuestionAnswering`` model (then pass
            ``tokenizer``). The model's mode (train/eval) is restored afterwards.
        dataset: datasets.Dataset or list of dicts with ``question`` and ``context`` (canonical SQuAD rows).
        tokenizer: overrides/provides the fast tokenizer.
        max_seq_length, doc_stride, max_query_length: window settings (explorer.core.qa.windows).
        batch_size: windows per forward pass.
        bf16: run the forward under torch.autocast(bfloat16) (logits are returned as float32).
        features: precomputed windows of ``dataset`` (skips tokenization).
        progress: called as progress(windows_done, windows_total) after every batch; may raise to cancel.

    Returns:
        (features, start_logits, end_logits): QAFeatures and two float32 arrays (n_features, L), L = longest
        window; positions past ``len(features.input_ids[k])`` hold -inf.

    Raises:
        ValueError: empty dataset; WindowSettingsError (a ValueError) for window settings that do not fit
            the model (core.models.window_settings).
    """
    import torch

    from explorer.core.models.loading import model_of

    model = model_of(loaded)
    tok = tokenizer or getattr(loaded, "tokenizer", None)
    if tok is None:
        raise ValueError("predict_squad: no tokenizer (pass a LoadedModel or tokenizer=...)")
    questions, contexts = _columns(dataset)
    if not questions:
        raise ValueError("predict_squad: the dataset has no questions")
    if features is None:  # the window must fit the model's positions (the room checks run per chunk below)
        require_window_settings(tok, getattr(model, "config", None), max_seq_length,
                                name=getattr(loaded, "source", None) or "the model")
        features = prepare_qa_features(questions, contexts, tok, max_seq_length=max_seq_length,
                                       doc_stride=doc_stride, max_query_length=max_query_length)
    n = len(features)
    lengths = np.array(features.lengths())
    width = int(lengths.max())
    start = np.full((n, width), -np.inf, dtype=np.float32)
    end = np.full((n, width), -np.inf, dtype=np.float32)
    device = next(model.parameters()).device
    pad_id = tok.pad_token_id if tok.pad_token_id is not None else 0
    done = 0
    with inference(model):
        for idx in batch_order(lengths, batch_size):
            batch = collate_qa(features, idx, pad_id)
            batch.pop("start_positions", None)
            batch.pop("end_positions", None)
            batch = {k: v.to(device) for k, v in batch.items()}
            if bf16:
                with torch.autocast(device_type=device.type, dtype=torch.bfloat16):
                    out = model(**batch)
            else:
                out = model(**batch)
            s = out.start_logits.float().cpu().numpy()
            e = out.end_logits.float().cpu().numpy()
            for row, k in enumerate(idx):
                L = lengths[k]
                start[k, :L] = s[row, :L]
                end[k, :L] = e[row, :L]
            done += len(idx)
            if progress is not None:
                progress(done, n)
    return features, start, end


def quantize_int8(loaded):
    """A copy of a QA model whose encoder ``nn.Linear`` layers run int8 dynamic quantization (weights int8
    per tensor, activations quantized per batch on the fly: ``torch.ao.quantization.quantize_dynamic``).
    The start/end output layer and everything outside ``model.base_model_prefix`` stay float32, so the
    probe's by-hand check still reads the real ``qa_outputs`` weights. CPU only (quantized kernels: fbgemm /
    onednn). scripts/bench_eval.py --int8 measures speed, identical answers and the F1 difference; not offered as a
    CLI flag (measured: 1.9x the fp32 forward but only 50% identical SQuAD 2.0 answers on a lightly fine-tuned
    model, F1 -3.1), so only the benchmarks use it.

    Args:
        loaded: a LoadedModel (a copy is returned with ``model`` replaced) or a bare model (a quantized copy).

    Raises:
        ValueError: a model on a non-CPU device.
    """
    import copy
    import dataclasses
    import warnings

    import torch

    from explorer.core.models.loading import model_of

    model = model_of(loaded)
    device = next(model.parameters()).device
    if device.type != "cpu":
        raise ValueError(f"int8 dynamic quantization runs on the CPU; the model is on {device}")
    prefix = getattr(model, "base_model_prefix", "") or ""
    names = {name for name, m in model.named_modules()
             if isinstance(m, torch.nn.Linear) and (not prefix or name.startswith(prefix + "."))}
    with warnings.catch_warnings():   # torch.ao's deprecation notices: the API still works in this torch
        warnings.simplefilter("ignore")
        quantized = torch.ao.quantization.quantize_dynamic(copy.deepcopy(model).eval(), names, dtype=torch.qint8)
    if dataclasses.is_dataclass(loaded) and not isinstance(loaded, type):
        return dataclasses.replace(loaded, model=quantized)
    return quantized

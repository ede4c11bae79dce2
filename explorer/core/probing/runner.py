"""Layer probes of a fine-tuned checkpoint against the model it was fine-tuned from, as ``bert-explorer
layer-probes`` and the Layer probes page run them: the base model named by the checkpoint's run (or given), both
loaded through explorer.core.models.loading, the label read from the data (explorer.core.probing.study).
"""

from __future__ import annotations

import json
from pathlib import Path

from explorer.core.probing.linear import TEST_FRACTION
from explorer.core.probing.states import ProbeInputError
from explorer.core.probing.study import ProbeStudy, run_sentence_labels, sentence_study, token_study

TOKEN_CAP, SENTENCE_CAP = 200, 400    # sentences of a tagging file / texts of the run's data, by default
NO_BASE = "none"                       # base="none": probe the checkpoint alone


def run_config_of(model: str) -> dict:
    """The config.json of the run a checkpoint folder belongs to, as a dict ({} outside a run or unreadable)."""
    from explorer.core.models.checkpoint_windows import run_config_for_checkpoint

    path = run_config_for_checkpoint(model) if Path(model).is_dir() else None
    if path is None:
        return {}
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _load(source: str, head: str, tokenizer: str | None, device: str):
    from explorer.core.devices import place
    from explorer.core.models.loading import load_model

    loaded = load_model(source, task=head, tokenizer=tokenizer)
    place(loaded.model, device)
    return loaded


def run_layer_probes(model: str, *, labels: str, base: str = "", data: str = "", cap: int = 0, seeds: int = 3,
                     test_fraction: float = TEST_FRACTION, pooling: str = "mean", max_seq_length: int = 128,
                     tokenizer: str | None = None, device: str = "cpu", progress=None,
                     cancelled=None) -> ProbeStudy:
    """Probe every layer of ``base`` and ``model`` for ``labels`` ("tokens": the tags of the tagging file
    ``data``; "sentences": the classes of the checkpoint's run, from ``data`` or the run's dev / train file).

    Args:
        model: the fine-tuned checkpoint folder (or any model source).
        base: the model it was fine-tuned from ("" = its run's config.json ``model``; "none" = none).
        cap: sentences (tokens, default TOKEN_CAP) or texts (sentences, default SENTENCE_CAP) read; 0 = default.
        seeds: train / test splits. test_fraction, pooling, max_seq_length: explorer.core.probing.study.
        tokenizer, device: as load_model and explorer.core.devices.
        progress, cancelled: ``progress(done, total)`` after each probe fit; ``cancelled()`` True stops.

    Raises:
        ProbeInputError: no base model to be found, no data, a task without a class per text, bad numbers.
        ModelSourceError, TaggingDataError, ClassificationDataError, SquadDataError: unreadable inputs.
        ProbeFitError: one class only.
    """
    from explorer.core.models.checkpoint_windows import checkpoint_task_name

    if seeds < 1:
        raise ProbeInputError("seeds must be at least 1")
    if not 0 < test_fraction < 1:
        raise ProbeInputError("the test fraction must be between 0 and 1")
    config = run_config_of(model)
    head, task = checkpoint_task_name(model) if Path(model).is_dir() else (None, None)
    head = head or "classification"     # a bare encoder: any head gives its hidden states
    base = base or config.get("model", "")
    if not base:
        raise ProbeInputError(f"{model} is not in a run folder that names its base model: give the base model (or "
                              f"{NO_BASE!r} to probe the checkpoint alone)")
    if labels == "tokens" and not data:
        raise ProbeInputError("the token label needs a CoNLL or JSONL tagging file")
    models = [] if base.lower() == NO_BASE else [("base model", _load(base, head, tokenizer, device))]
    models.append(("fine-tuned", _load(model, head, tokenizer, device)))
    kept = list(range(seeds))
    if labels == "tokens":
        return token_study(models, data, cap=cap or TOKEN_CAP, max_seq_length=max_seq_length, seeds=kept,
                           test_fraction=test_fraction, progress=progress, cancelled=cancelled)
    source = data or config.get("dev") or config.get("train") or ""
    if not source or not task:
        raise ProbeInputError("the sentence label needs a file of the run's task and a checkpoint whose run names "
                              "its task")
    labelled = run_sentence_labels(task, source, run_config=config, cap=cap or SENTENCE_CAP)
    return sentence_study(models, labelled, pooling=pooling, max_seq_length=max_seq_length, seeds=kept,
                          test_fraction=test_fraction, progress=progress, cancelled=cancelled)

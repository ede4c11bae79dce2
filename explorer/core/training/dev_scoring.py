"""A checkpoint scored on a task's dev data, through the task's own reader and features (what the training
evaluation reads: explorer.core.training.tasks), summarised as explorer.core.classify.dev_report's reports.
For the Classify: dev set page (the inspector child), Compare classifiers and the tests; numpy reports, torch
for the forward passes."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from explorer.core.specs.heads import output_names
from explorer.core.classify.dev_report import TABLE_SETTINGS, dev_report, multilabel_dev_report, regression_dev_report
from explorer.core.classify.forward import label_thresholds
from explorer.core.data.classification import NUMBERED_FROM_KEY
from explorer.core.data.split import load_dev_split
from explorer.core.models.batched_forward import forward_batches
from explorer.core.specs.train_config import TrainConfig
from explorer.core.training.tasks import get_task


def classes_as_model(model, t, data):
    """Classification dev examples whose labels are written as names, renumbered by ``model``'s id2label (matched
    by name; an integer label by the training labels' numbering recorded in the head's config.json
    (``label_numbered_from``), else by the file's own, 1..K being ids 0..K-1, as the run's training read it);
    unchanged for multiple choice, for a head without names, or for examples without names. Raises the data's
    ClassificationDataError (naming the line) for a label the head does not have."""
    if t.facts.is_multiple_choice or not getattr(data, "label_names", None):
        return data
    id2label = getattr(model.config, "id2label", None) or {}
    head = [str(id2label.get(c, id2label.get(str(c), f"LABEL_{c}"))) for c in range(int(model.config.num_labels))]
    if all(h == f"LABEL_{c}" for c, h in enumerate(head)):
        if getattr(data, "numbered_from", 0) or all(str(n).lstrip("+-").isdigit() for n in data.label_names):
            # a head without names takes the file's integers as its ids (1..K, or values with gaps: 0, 2)
            return replace(data.relabel([str(c) for c in range(len(head))]), label_names=None)
        return data
    # the training labels' numbering when the head records it (a dev file holding no row of class K reads 1..K-1
    # alike), else the file's own: a table labelled 1..K read with Label names writes class id i as i+1
    trained = getattr(model.config, NUMBERED_FROM_KEY, None)
    return data.relabel(head, "dev", numbered_from=int(trained) if trained is not None else data.numbered_from)


def score_classification_dev(model, tokenizer, task: str, source: str, *, cap: int | None = 200,
                             max_seq_length: int = 128, batch_size: int = 16, n: int = 10,
                             settings: dict | None = None, cancelled=None, progress=None):
    """Run ``model`` over a dev file of ``task`` (a task with a classification or multiple-choice head: "single",
    "pair", "swag", "regression" or "multilabel") and
    summarise it: a ClassificationDevReport, a RegressionDevReport or a MultiLabelDevReport.

    ``settings``: the table settings (TABLE_SETTINGS: text_columns, label_column, ...; e.g. the run's own from
    :func:`explorer.core.classify.dev_report.run_data_settings`). Labels written as names are matched to the head's id2label by name. With
    ``settings["dev_split"]`` (a run's ``dev_split.csv``) only the rows of ``source`` (the run's training
    file) that the run held out as dev are scored, so a run without a dev file is never scored on the rows
    it trained on; ``cap`` then counts those rows.

    The forward runs as predict's (explorer.core.models.batched_forward: length-sorted, dynamically padded, in
    inference mode, in fp32 as the training evaluation). ``cancelled() -> bool`` is checked between batches;
    ``progress(rows done, rows)`` is called after each.

    Raises the loaders' UserErrors (file, line) for bad data, for a label the head does not have, and for a
    dev split naming rows the file no longer has; Cancelled when ``cancelled()`` turned true."""
    t = get_task(task)
    extra = {k: v for k, v in (settings or {}).items() if k in TABLE_SETTINGS and v not in (None, "")}
    split = (settings or {}).get("dev_split") or ""
    config = TrainConfig(task=task, dev=source, dev_cap=0 if split else cap or 0, max_seq_length=max_seq_length,
                         **extra)
    data = t.load(config, "dev")
    if split:
        rows = load_dev_split(Path(split), data)
        data = data.subset(rows[:cap] if cap else rows)
    data = classes_as_model(model, t, data)
    feats = t.featurize(data, tokenizer, config, train=False)
    z = dev_logits(model, t, feats, batch_size, cancelled=cancelled, progress=progress)
    names = output_names(model.config, z.shape[1])
    if t.facts.is_regression:
        return regression_dev_report(z, data.labels, list(data.texts_a), data.texts_b, n=n, label_names=names)
    if t.facts.is_multilabel:
        if data.label_names != names:   # the file's names, renumbered by the head's
            index = {name: k for k, name in enumerate(names)}
            unknown = [name for name in data.label_names if name not in index]
            if unknown:
                from explorer.core.data.classification import ClassificationDataError

                raise ClassificationDataError(f"{source}: label {unknown[0]!r} is not one of the model's labels "
                                              f"({', '.join(names)})")
            data.labels = [sorted(index[data.label_names[j]] for j in row) for row in data.labels]
        return multilabel_dev_report(z, data.labels, names, label_thresholds(model.config, names))
    if t.facts.is_multiple_choice:
        texts_a = [data.contexts[i] for i in range(len(data))]
        texts_b = [" | ".join(data.choice_pairs(i)[1]) for i in range(len(data))]  # sent2 + ending k
        names = [f"ending {k}" for k in range(z.shape[1])]
    else:
        texts_a, texts_b = list(data.texts_a), list(data.texts_b) if data.texts_b is not None else None
    return dev_report(z, data.labels, texts_a, texts_b, n=n, label_names=names,
                      f1_classes=tuple((settings or {}).get("f1_classes") or ()),
                      multiple_choice=t.facts.is_multiple_choice)


def dev_logits(model, task, feats, batch_size: int, *, cancelled=None, progress=None) -> np.ndarray:
    """(rows, K) float logits of the featurized dev rows ``feats`` (a FeatureSet), in row order, through
    explorer.core.models.batched_forward (length-sorted batches) in fp32, as the training evaluation computes
    them (core.training.precision.evaluation_forward_precision), so a checkpoint scored on its run's dev rows
    gives its Best dev."""
    device = next(model.parameters()).device
    z = None

    def make(idx):
        return {k: v.to(device) for k, v in task.model_inputs(feats.collate(idx)).items()}

    done = 0
    from explorer.core.training.precision import evaluation_forward_precision

    bf16 = evaluation_forward_precision() == "bf16"
    for idx, out in forward_batches(model, feats.lengths, batch_size, make, bf16=bf16, cancelled=cancelled):
        logits = out.logits.float().cpu().numpy()
        if z is None:
            z = np.zeros((len(feats), logits.shape[-1]), dtype=np.float32)
        z[idx] = logits
        done += len(idx)
        if progress is not None:
            progress(done, len(feats))
    return z if z is not None else np.zeros((0, 2))

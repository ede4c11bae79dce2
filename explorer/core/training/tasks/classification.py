"""Sentence ("single", e.g. SST-2) and sentence-pair ("pair", e.g. MRPC) classification.

Head: ``AutoModelForSequenceClassification``: logits = pooled([CLS]) W^T + b (BERT paper, Section 4.1);
loss -log softmax(logits)[y] (cross-entropy), or mean squared error when num_labels is 1 (regression,
STS-B style). Class weights (``class_weights``: "balanced" as scikit-learn's
``compute_class_weight("balanced")`` = n / (K * count), or explicit) weight the cross-entropy. Metrics:
accuracy, F1 (binary), macro / weighted F1, per-class precision / recall / F1 / support, Matthews
correlation, f_avg over ``f1_classes`` (SemEval-2016 stance); Pearson / Spearman for regression.

No dev file: a seeded, stratified share (``dev_fraction``, default 0.1) of the training rows is held out
and its row ids written to ``dev_split.csv`` in the run folder, which later starts (resume) read back.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import torch

from explorer.core.data.classification import (
    NUMBERED_FROM_KEY,
    ClassificationData,
    ClassificationDataError,
    load_classification,
)
from explorer.core.data.sample import capped_rows_of, stratified_by_class
from explorer.core.errors import ConfigError
from explorer.core.runs.dev_outputs import DevOutputs, write_dev_outputs
from explorer.core.runs.layout import dev_split_file
from explorer.core.training.batching import pad_sequences
from explorer.core.specs.train_config import parse_class_weights
from explorer.core.metrics.glue import classification_metrics
from explorer.core.specs.metrics import field_figure_note
from explorer.core.training.tasks.base import FeatureSet, Task
from explorer.core.models.eval_mode import inference



def parse_weights_for(text: str, train_examples: ClassificationData) -> list[float] | None:
    """Per-class loss weights in class-id order from ``class_weights``: "balanced" = n / (K * count_c)
    (scikit-learn's ``compute_class_weight("balanced")``, King and Zeng 2001), or "name=w,..." (classes not
    named weigh 1.0); None for "".

    Raises:
        ConfigError: a named class the training data does not have; "balanced" with an empty class.
    """
    spec = parse_class_weights(text)
    if not spec or train_examples.regression:
        return None
    names = train_examples.class_names()
    counts = np.bincount(np.asarray(train_examples.labels, dtype=np.int64), minlength=len(names))
    if spec == "balanced":
        empty = [names[i] for i, c in enumerate(counts) if c == 0]
        if empty:
            raise ConfigError(f"class_weights balanced: class(es) {', '.join(empty)} have no training example")
        return [float(len(train_examples.labels) / (len(names) * c)) for c in counts]
    unknown = [n for n in spec if n not in names]
    if unknown:
        raise ConfigError(f"class_weights names {', '.join(repr(n) for n in unknown)}, not a class of the training "
                          f"data (its classes: {', '.join(names)})")
    return [float(spec.get(n, 1.0)) for n in names]


def cap_training_rows(data: ClassificationData, config) -> ClassificationData:
    """The training rows a run's Train cap keeps (:func:`explorer.core.data.sample.capped_rows`, seeded by the
    run's ``dev_split_seed``, so the restarts of a group train on the same rows), in the file's order: a
    class-stratified subset of classes, a random one of scores and label sets; ``data`` itself without a cap.
    Predictions (core/predict/seen.py) and the fine-tune on reviewed rows (core/predict/review.py) find the same
    rows through :func:`explorer.core.data.sample.capped_rows_of`."""
    if not config.train_cap or config.train_cap >= len(data):
        return data
    kept = data.subset(capped_rows_of(data, config.train_cap, config.dev_split_seed()))
    kept.notes.append(("info", f"Train cap: {len(kept):,} of the {len(data):,} training rows, "
                       f"{'a stratified' if stratified_by_class(data) else 'a'} random subset (seed "
                       f"{config.dev_split_seed()}), before any dev rows are held out of them"))
    return kept


def one_class_message(train_examples: ClassificationData, config) -> str:
    """Why training rows of a single class cannot train a classifier, naming the class they hold and the cause.
    The Train cap keeps a row of every class when it keeps at least as many rows as there are classes, and the dev
    split never takes a class's last row, so otherwise the file itself holds no other class."""
    names = train_examples.class_names()
    present = sorted(set(train_examples.labels))
    held = " and ".join(repr(names[y] if y < len(names) else str(y)) for y in present) or "no class"
    others = [repr(n) for k, n in enumerate(names) if k not in present]
    cap = int(config.train_cap or 0)
    if 0 < cap < len(names):
        cause = f"Train cap {cap:,} keeps fewer rows than the {len(names)} classes: raise it"
    else:
        column = train_examples.columns[2] if len(train_examples.columns) > 2 else ""
        cause = ("the training file itself holds no row of another class"
                 + (f" ({', '.join(others)} named by Label names)" if others else "")
                 + (f" in its label column {column!r}" if column else "")
                 + ": choose the label column of the classes, or a file with rows of at least 2 classes")
    return (f"{train_examples.source}: the {len(train_examples):,} training rows hold only {held}; {cause}; "
            "classification needs at least 2 classes")


NO_DEV_NOTE = ("info", "no dev data (no dev file and dev fraction 0): the run is never evaluated, keeps no best "
                          "checkpoint and its result is checkpoints/last")

class ClassificationTask(Task):
    """Sentence or sentence-pair classification; ``pair`` comes from the task's facts row."""

    def __init__(self, name: str):
        super().__init__(name)
        self.pair = self.facts.pair

    def load(self, config, split: str) -> ClassificationData:
        """The examples of ``split``; the training data's report also says which figure its field quotes
        (explorer.core.specs.metrics.field_figure_note: SemEval stance labels -> F_avg) and how to get it."""
        source = config.train if split == "train" else config.dev
        cap = 0 if split == "train" else config.dev_cap   # the Train cap keeps a stratified subset: cap_training_rows
        data = load_classification(source, pair=self.pair, text_columns=config.text_columns or None,
                                   label_column=config.label_column, cap=cap,
                                   split="train" if split == "train" else "validation",
                                   regression=config.num_labels == 1, id_column=config.id_column,
                                   no_header=config.no_header, encoding=config.encoding,
                                   label_names=config.label_names or None, skip_invalid=config.skip_invalid)
        if split == "train":
            data = cap_training_rows(data, config)
        note = field_figure_note(data.label_names, config.f1_classes) if split == "train" else None
        if note is not None:
            data.notes.append(note)
        return data

    def num_labels(self, train_examples: ClassificationData, config) -> int:
        if config.num_labels:
            return int(config.num_labels)
        return train_examples.num_labels

    def label_names(self, train_examples: ClassificationData) -> list[str] | None:
        """The class names (id2label order) when the data names its classes, else None."""
        return None if train_examples.regression else train_examples.label_names

    def split_dev(self, train_examples: ClassificationData, config, run_dir):
        """(train, dev or None, notes): the held-out dev split when the run has no dev file (see module doc)."""
        frac = config.resolved_dev_fraction()
        if config.dev:
            return train_examples, None, []
        if frac <= 0:
            return train_examples, None, [NO_DEV_NOTE]
        from explorer.core.data.split import (
            load_dev_split,
            random_split,
            stratified_split,
            write_dev_split,
        )

        path = dev_split_file(run_dir) if run_dir is not None else None
        if path is not None and path.is_file():
            try:
                dev_idx = load_dev_split(path, train_examples)
            except ClassificationDataError as e:
                if not config.train_cap:
                    raise
                raise ClassificationDataError(
                    f"{e} Train cap {config.train_cap:,} keeps a stratified random {config.train_cap:,} of the "
                    f"file's rows (seed {config.dev_split_seed()}) and this run's dev rows are not all among them: "
                    "its rows were chosen otherwise (the file's first rows), so start a new run on them instead of "
                    "resuming this one") from e
            notes = [("info", f"dev split read back from {path}: {len(dev_idx)} rows")]
        else:
            if train_examples.regression:   # scores have no classes to stratify by: a seeded random split
                dev_idx, notes = random_split(len(train_examples), frac, config.dev_split_seed())
            else:
                dev_idx, notes = stratified_split(train_examples.labels, frac, config.dev_split_seed(),
                                                  train_examples.class_names())
            if path is not None:
                write_dev_split(path, train_examples, dev_idx)
            how = "random" if train_examples.regression else "stratified"
            notes = notes + [("info", f"no dev file: {len(dev_idx)} of {len(train_examples)} training rows "
                              f"({frac:.0%}, {how}, seed {config.dev_split_seed()}) held out as dev"
                              + (f"; their ids are in {path}" if path is not None else ""))]
        keep = sorted(set(range(len(train_examples))) - set(dev_idx))
        return train_examples.subset(keep), train_examples.subset(sorted(dev_idx)), notes

    def check_data(self, train_examples, dev_examples, config) -> ClassificationData | None:
        """Cross-checks; returns the dev examples with their labels mapped to the training classes by name."""
        names = self.label_names(train_examples)
        if dev_examples is not None and not train_examples.regression and not dev_examples.regression:
            if names:
                dev_examples = dev_examples.relabel(names, numbered_from=train_examples.numbered_from)
            elif dev_examples.raw_labels and all(r.lstrip("+-").isdigit() for r in dev_examples.raw_labels):
                # integer ids on both sides: a dev file without a 0 (read alone as classes 1..K) keeps the ids
                dev_examples = replace(dev_examples, labels=[int(r) for r in dev_examples.raw_labels],
                                       label_names=None, numbered_from=0)
            elif dev_examples.label_names:
                k = next(i for i, n in enumerate(dev_examples.raw_labels) if not n.lstrip("+-").isdigit())
                raise ClassificationDataError(
                    f"{dev_examples.source} line {dev_examples.lines[k]}: dev label {dev_examples.raw_labels[k]!r} "
                    "is a name, but the training labels are integer ids")
        k = self.num_labels(train_examples, config)
        if not train_examples.regression:
            present = sorted(set(train_examples.labels))
            if len(present) < 2:
                raise ClassificationDataError(one_class_message(train_examples, config))
        for name, data in (("train", train_examples), ("dev", dev_examples)):
            if data is None or k == 1:
                continue
            bad = next((i for i, y in enumerate(data.labels) if y >= k), None)
            if bad is not None:
                line = data.lines[bad] if data.lines else bad + 1
                raise ClassificationDataError(
                    f"{data.source} line {line}: {name} example has label {data.labels[bad]} but the model has "
                    f"{k} labels (0..{k - 1}); set num_labels or fix the data")
        parse_weights_for(config.class_weights, train_examples)   # names checked before any model loads
        unknown = [c for c in config.f1_classes if c not in train_examples.class_names()]
        if unknown and not train_examples.regression:
            raise ConfigError(f"f1_classes names {', '.join(repr(c) for c in unknown)}, not a class of the training "
                              f"data (its classes: {', '.join(train_examples.class_names())})")
        return dev_examples

    def configure_model(self, model, train_examples, config) -> None:
        """The training labels' numbering in the saved config.json (``label_numbered_from``: 1 for a table
        labelled 1..K read with Label names or as classes "1".."K", else 0), so a dev file or a gold column read
        later maps its integers as the training did, even one that holds no row of class K."""
        setattr(model.config, NUMBERED_FROM_KEY, int(getattr(train_examples, "numbered_from", 0) or 0))

    def class_weights(self, train_examples: ClassificationData, config) -> list[float] | None:
        """The loss weight of every class id, or None (see :func:`parse_weights_for`)."""
        return parse_weights_for(config.class_weights, train_examples)

    def started_info(self, train_examples, config) -> dict:
        """Fields for the run's ``started`` event: class names, counts and loss weights."""
        if train_examples.regression:
            return {}
        names = train_examples.class_names()
        info = {"label_names": names, "class_counts": train_examples.class_counts()}
        weights = self.class_weights(train_examples, config)
        if weights is not None:
            info["class_weights"] = dict(zip(names, weights))
        return info

    def featurize(self, examples: ClassificationData, tokenizer, config, *, train: bool) -> FeatureSet:
        max_len = config.resolved_max_seq_length()
        if examples.texts_b is not None:
            enc = tokenizer(examples.texts_a, examples.texts_b, truncation=True, max_length=max_len)
        else:
            enc = tokenizer(examples.texts_a, truncation=True, max_length=max_len)
        ids = enc["input_ids"]
        types = enc.get("token_type_ids")
        labels = examples.labels
        regression = examples.regression or config.num_labels == 1
        weights = None if regression or not train else getattr(examples, "loss_weights", None)
        weight_tensor = torch.tensor(weights, dtype=torch.float32) if weights else None
        pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0

        def collate(indices: list[int]) -> dict:
            rows = [ids[i] for i in indices]
            input_ids = pad_sequences(rows, pad_id)
            mask = pad_sequences([[1] * len(r) for r in rows], 0)
            batch = {"input_ids": input_ids, "attention_mask": mask}
            if types is not None:
                batch["token_type_ids"] = pad_sequences([types[i] for i in indices], 0)
            batch["labels"] = torch.tensor([labels[i] for i in indices],
                                           dtype=torch.float32 if regression else torch.long)
            if weight_tensor is not None:
                batch["class_weight"] = weight_tensor   # (num_labels,) for the loss; not a model input
            return batch

        return FeatureSet([len(r) for r in ids], collate, list(range(len(ids))), raw=enc)

    def loss(self, outputs, batch: dict) -> torch.Tensor:
        logits = outputs.logits.float()
        if logits.shape[-1] == 1:
            return torch.nn.functional.mse_loss(logits.squeeze(-1), batch["labels"].float())
        weight = batch.get("class_weight")
        return torch.nn.functional.cross_entropy(logits, batch["labels"],
                                                 weight=weight.to(logits.device) if weight is not None else None)

    def eval_outputs(self, outputs, batch: dict) -> dict[str, torch.Tensor]:
        logits = outputs.logits.float()
        if logits.shape[-1] == 1:
            loss = (logits.squeeze(-1) - batch["labels"].float()) ** 2
        else:
            loss = torch.nn.functional.cross_entropy(logits, batch["labels"], reduction="none")
        return {"logits": logits, "labels": batch["labels"], "loss": loss}

    def metrics(self, examples, features, outputs, config, out_dir) -> dict:
        logits = np.stack(outputs["logits"]) if outputs["logits"] else np.zeros((0, 2))
        labels = np.asarray(outputs["labels"])
        names = examples.class_names() if examples is not None and not examples.regression else None
        out = classification_metrics(labels, logits, label_names=names, f1_classes=config.f1_classes or None)
        out["loss"] = float(np.mean(outputs["loss"])) if len(outputs["loss"]) else 0.0
        out["total"] = len(labels)
        if out_dir is not None:
            keep_dev_outputs(out_dir, labels, logits, names, lines=dev_lines(examples, len(labels)))
        return out

    def watch(self, model, tokenizer, items: list[dict], config) -> list[dict]:
        """items: {"text": ..., "text_pair": ... (pair tasks)} -> label, probabilities."""
        out = []
        device = next(model.parameters()).device
        for item in items:
            text = item.get("text") or item.get("sentence") or item.get("question") or ""
            pair = item.get("text_pair") or item.get("passage") if self.pair else None
            enc = tokenizer(text, pair, truncation=True, max_length=config.resolved_max_seq_length(),
                            return_tensors="pt") if pair else \
                tokenizer(text, truncation=True, max_length=config.resolved_max_seq_length(), return_tensors="pt")
            with inference(model):
                logits = model(**{k: v.to(device) for k, v in enc.items()}).logits.float()[0]
            row = {"text": text, "logits": logits.tolist()}
            if pair:
                row["text_pair"] = pair
            if logits.numel() > 1:
                probs = torch.softmax(logits, -1)
                row.update(label=int(probs.argmax()), probabilities=probs.tolist())
            out.append(row)
        return out


def dev_lines(examples, n: int) -> list[int]:
    """Each of the ``n`` evaluated rows' line in the dev file (``examples.lines``, in the evaluation's order), or []
    when the examples do not say them for every row (a hub dataset's record numbers are kept too)."""
    lines = list(getattr(examples, "lines", None) or [])
    return [int(x) for x in lines] if len(lines) == n else []


def keep_dev_outputs(out_dir, labels, logits, names=None, lines=()) -> None:
    """Write an evaluation's rows to ``<out_dir>/dev_outputs.json`` (core/runs/dev_outputs.py): (n,) gold and
    (n, K) logits of a classifier (``names``: the K class names), or (n, 1) scores of a regression head; ``lines``:
    each row's line in the dev file (what finds a row again: a cross-validation fold's held-out rows)."""
    logits = np.asarray(logits, dtype=np.float64)
    if logits.ndim == 2 and logits.shape[1] == 1:
        rows = DevOutputs(kind="scores", gold=np.asarray(labels, dtype=np.float64).tolist(),
                          scores=logits[:, 0].tolist(), lines=list(lines))
    else:
        rows = DevOutputs(kind="classes", gold=np.asarray(labels, dtype=np.int64).tolist(), logits=logits.tolist(),
                          label_names=[str(n) for n in names] if names is not None else
                          [str(k) for k in range(logits.shape[1] if logits.ndim == 2 else 0)], lines=list(lines))
    write_dev_outputs(out_dir, rows)


"""Regression ("regression", GLUE STS-B) and multi-label classification ("multilabel", Reuters-21578 style).

Both use ``AutoModelForSequenceClassification`` on one or two text columns: logits = C W^T + b with C the
pooled [CLS] vector (BERT paper, Section 4.1).

- regression: one output (``num_labels`` 1, ``problem_type`` "regression"), score = C . w + b, no softmax;
  loss = mean squared error; dev metrics pearson, spearman (scipy.stats), mse, r2; best by pearson.
- multilabel: K outputs (``problem_type`` "multi_label_classification"), P_k = sigmoid(logit_k) for each
  label on its own; loss = binary cross-entropy with logits, averaged over rows and labels (as
  ``torch.nn.BCEWithLogitsLoss``); dev metrics micro / macro F1 and subset accuracy at tau = 0.5, the honest
  tuned figures, and per-label thresholds (explorer.core.metrics.multilabel). The thresholds chosen
  on dev are written into the checkpoint's config.json (``label_thresholds``: {label: tau}) for prediction.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import torch

from explorer.core.models.eval_mode import inference
from explorer.core.data.classification import ClassificationDataError
from explorer.core.data.scores_and_label_sets import MultiLabelData, load_multilabel, load_regression, multi_hot
from explorer.core.metrics.multilabel import multilabel_metrics
from explorer.core.metrics.regression import regression_metrics
from explorer.core.training.tasks.base import FeatureSet
from explorer.core.training.tasks.classification import ClassificationTask, cap_training_rows, keep_dev_outputs

THRESHOLDS_KEY = "label_thresholds"   # the model config attribute (config.json) holding {label: tau}


def _split(split: str) -> str:
    return "train" if split == "train" else "validation"


def _encode(tokenizer, model, text: str, pair: str, max_len: int) -> torch.Tensor:
    args = (text, pair) if pair else (text,)
    enc = tokenizer(*args, truncation=True, max_length=max_len, return_tensors="pt")
    device = next(model.parameters()).device
    with inference(model):
        return model(**{k: v.to(device) for k, v in enc.items()}).logits.float()[0]


class RegressionTask(ClassificationTask):
    """One score per text or sentence pair (``--task regression``)."""

    def load(self, config, split: str):
        train = split == "train"
        data = load_regression(config.train if train else config.dev, text_columns=config.text_columns or None,
                               label_column=config.label_column, cap=0 if train else config.dev_cap,
                               split=_split(split), no_header=config.no_header, encoding=config.encoding,
                               skip_invalid=config.skip_invalid)
        return cap_training_rows(data, config) if train else data

    def num_labels(self, train_examples, config) -> int:
        return 1

    def check_data(self, train_examples, dev_examples, config) -> None:
        if dev_examples is not None and (dev_examples.texts_b is None) != (train_examples.texts_b is None):
            raise ClassificationDataError(f"{dev_examples.source}: the dev data has "
                                          f"{1 if dev_examples.texts_b is None else 2} text column(s), the "
                                          f"training data {1 if train_examples.texts_b is None else 2}")

    def configure_model(self, model, train_examples, config) -> None:
        """problem_type "regression" and the one output's name, "score" (core.classify.arithmetic.REGRESSION_OUTPUT), so the
        saved config.json says what the head is. Not the label column's name: a header-less file names it by
        position ("5"), which would read as a predicted 5; the run's config keeps the column."""
        from explorer.core.classify.arithmetic import REGRESSION_OUTPUT

        model.config.problem_type = "regression"
        model.config.id2label, model.config.label2id = {0: REGRESSION_OUTPUT}, {REGRESSION_OUTPUT: 0}

    def loss(self, outputs, batch: dict) -> torch.Tensor:
        return torch.nn.functional.mse_loss(outputs.logits.float().squeeze(-1), batch["labels"].float())

    def eval_outputs(self, outputs, batch: dict) -> dict[str, torch.Tensor]:
        score = outputs.logits.float().squeeze(-1)
        return {"score": score, "labels": batch["labels"].float(), "loss": (score - batch["labels"].float()) ** 2}

    def metrics(self, examples, features, outputs, config, out_dir) -> dict:
        out = regression_metrics(np.asarray(outputs["score"]), np.asarray(outputs["labels"]))
        out["loss"] = float(np.mean(outputs["loss"])) if len(outputs["loss"]) else 0.0
        out["total"] = int(len(outputs["labels"]))
        if out_dir is not None:
            keep_dev_outputs(out_dir, outputs["labels"], np.asarray(outputs["score"], dtype=np.float64).reshape(-1, 1))
        return out

    def watch(self, model, tokenizer, items: list[dict], config) -> list[dict]:
        """items: {"text": ..., "text_pair": ...} -> score."""
        out = []
        for item in items:
            text, pair = item.get("text") or item.get("sentence") or "", item.get("text_pair") or ""
            score = float(_encode(tokenizer, model, text, pair, config.resolved_max_seq_length())[0])
            out.append({"text": text, "text_pair": pair, "score": score} if pair else {"text": text, "score": score})
        return out


class MultiLabelTask(ClassificationTask):
    """Any number of labels per text (``--task multilabel``)."""

    def load(self, config, split: str) -> MultiLabelData:
        train = split == "train"
        data = load_multilabel(config.train if train else config.dev, text_columns=config.text_columns or None,
                               label_column=config.label_column, separator=config.label_separator,
                               cap=0 if train else config.dev_cap, split=_split(split),
                               no_header=config.no_header, encoding=config.encoding,
                               skip_invalid=config.skip_invalid)
        return cap_training_rows(data, config) if train else data

    def num_labels(self, train_examples, config) -> int:
        return train_examples.num_labels

    def check_data(self, train_examples, dev_examples, config) -> None:
        """Renumber the dev labels by the training data's names; a dev label training never had is an error
        naming it and its line."""
        if dev_examples is None:
            return
        names = list(train_examples.label_names)
        index = {n: k for k, n in enumerate(names)}
        dev_names = list(dev_examples.label_names)
        for j, name in enumerate(dev_names):
            if name not in index:
                i = next(i for i, row in enumerate(dev_examples.labels) if j in row)
                where = dev_examples.row_where[i] if dev_examples.row_where else f"dev example {i + 1}"
                raise ClassificationDataError(f"{where}: label {name!r} is not one of the training data's labels "
                                              f"({', '.join(names)})")
        dev_examples.labels = [sorted(index[dev_names[j]] for j in row) for row in dev_examples.labels]
        dev_examples.label_names = names

    def split_dev(self, train_examples, config, run_dir):
        """No held-out split for multi-label data (the stratified split needs one class per row): give a dev
        file to evaluate; without one the run says it is never evaluated."""
        from explorer.core.training.tasks.classification import NO_DEV_NOTE

        return train_examples, None, [] if config.dev else [NO_DEV_NOTE]

    def class_weights(self, train_examples, config) -> None:
        """Class weights are for the softmax classifier; BCE here weighs every label alike."""
        return None

    def started_info(self, train_examples, config) -> dict:
        """Fields for the run's ``started`` event: the label names and how many texts carry each."""
        names = list(train_examples.label_names)
        counts = [0] * len(names)
        for row in train_examples.labels:
            for k in row:
                counts[k] += 1
        return {"label_names": names, "label_counts": dict(zip(names, counts))}

    def configure_model(self, model, train_examples, config) -> None:
        """problem_type "multi_label_classification" and id2label / label2id from the training labels."""
        model.config.problem_type = "multi_label_classification"
        names = list(train_examples.label_names)
        model.config.id2label = dict(enumerate(names))
        model.config.label2id = {n: k for k, n in enumerate(names)}

    def before_save(self, model, metrics: dict | None) -> None:
        """The thresholds chosen on dev go into the checkpoint's config.json (``label_thresholds``)."""
        if metrics and isinstance(metrics.get("thresholds"), dict):
            setattr(model.config, THRESHOLDS_KEY, {str(k): float(v) for k, v in metrics["thresholds"].items()})

    def featurize(self, examples: MultiLabelData, tokenizer, config, *, train: bool) -> FeatureSet:
        targets = torch.from_numpy(multi_hot(examples.labels, examples.num_labels))
        plain = dataclasses.replace(examples, labels=[0] * len(examples))
        feats = super().featurize(plain, tokenizer, config, train=train)
        inner = feats.collate_rows

        def collate(indices: list[int]) -> dict:
            batch = inner(indices)
            batch["labels"] = targets[indices]
            return batch

        feats.collate_rows = collate
        return feats

    def loss(self, outputs, batch: dict) -> torch.Tensor:
        return torch.nn.functional.binary_cross_entropy_with_logits(outputs.logits.float(), batch["labels"].float())

    def eval_outputs(self, outputs, batch: dict) -> dict[str, torch.Tensor]:
        logits, y = outputs.logits.float(), batch["labels"].float()
        loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, y, reduction="none").mean(-1)
        return {"logits": logits, "labels": y, "loss": loss}

    def metrics(self, examples, features, outputs, config, out_dir) -> dict:
        k = examples.num_labels
        logits = np.stack(outputs["logits"]) if outputs["logits"] else np.zeros((0, k))
        gold = np.stack(outputs["labels"]) if outputs["labels"] else np.zeros((0, k))
        out = multilabel_metrics(gold, logits, list(examples.label_names), seed=config.seed)
        out["loss"] = float(np.mean(outputs["loss"])) if len(outputs["loss"]) else 0.0
        out["total"] = int(len(gold))
        return out

    def watch(self, model, tokenizer, items: list[dict], config) -> list[dict]:
        """items: {"text": ..., "text_pair": ...} -> per-label probabilities (sigmoid)."""
        out = []
        names = getattr(model.config, "id2label", None) or {}
        for item in items:
            text, pair = item.get("text") or item.get("sentence") or "", item.get("text_pair") or ""
            probs = torch.sigmoid(_encode(tokenizer, model, text, pair, config.resolved_max_seq_length()))
            out.append({"text": text, "probabilities": {str(names.get(k, k)): float(p) for k, p in enumerate(probs)}})
        return out

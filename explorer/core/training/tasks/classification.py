"""Sentence ("single", e.g. SST-2) and sentence-pair ("pair", e.g. MRPC) classification.

Head: ``AutoModelForSequenceClassification``: logits = pooled([CLS]) W^T + b (BERT paper, Section 4.1);
loss -log softmax(logits)[y] (cross-entropy), or mean squared error when num_labels is 1 (regression,
STS-B style). Metrics: accuracy, F1 (binary), Matthews correlation; Pearson / Spearman for regression.
"""

from __future__ import annotations

import numpy as np
import torch

from explorer.core.data.classification import ClassificationData, ClassificationDataError, load_classification
from explorer.core.training.batching import pad_sequences
from explorer.core.training.glue_metrics import classification_metrics
from explorer.core.training.tasks.base import FeatureSet, Task
from explorer.core.eval_mode import inference


class ClassificationTask(Task):
    """Sentence or sentence-pair classification; ``pair`` comes from the task's facts row."""

    def __init__(self, name: str):
        self.name = name
        self.pair = self.facts.pair

    def load(self, config, split: str) -> ClassificationData:
        source = config.train if split == "train" else config.dev
        cap = config.train_cap if split == "train" else config.dev_cap
        return load_classification(source, pair=self.pair, text_columns=config.text_columns or None,
                                   label_column=config.label_column, cap=cap,
                                   split="train" if split == "train" else "validation",
                                   regression=config.num_labels == 1)

    def num_labels(self, train_examples: ClassificationData, config) -> int:
        if config.num_labels:
            return int(config.num_labels)
        return train_examples.num_labels

    def check_data(self, train_examples, dev_examples, config) -> None:
        k = self.num_labels(train_examples, config)
        for name, data in (("train", train_examples), ("dev", dev_examples)):
            if data is None or k == 1:
                continue
            bad = next((i for i, y in enumerate(data.labels) if y >= k), None)
            if bad is not None:
                raise ClassificationDataError(
                    f"{data.source}: {name} example {bad + 1} has label {data.labels[bad]} but the model has "
                    f"{k} labels (0..{k - 1}); set num_labels or fix the data")

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
            return batch

        return FeatureSet([len(r) for r in ids], collate, list(range(len(ids))), raw=enc)

    def loss(self, outputs, batch: dict) -> torch.Tensor:
        logits = outputs.logits.float()
        if logits.shape[-1] == 1:
            return torch.nn.functional.mse_loss(logits.squeeze(-1), batch["labels"].float())
        return torch.nn.functional.cross_entropy(logits, batch["labels"])

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
        out = classification_metrics(labels, logits)
        out["loss"] = float(np.mean(outputs["loss"])) if len(outputs["loss"]) else 0.0
        out["total"] = int(len(labels))
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

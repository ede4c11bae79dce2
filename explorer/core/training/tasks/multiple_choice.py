"""Multiple choice ("swag"): pick the right one of four endings (SWAG, BERT paper Section 4.4).

Head: ``AutoModelForMultipleChoice``: BERT reads each (context, ending k) pair separately; the score of
choice k is C_k . w + b (C_k the pooled [CLS] vector of that pair, w one learned vector); the softmax runs
across the four choices of one example. Loss: -log softmax(scores)[label] (cross-entropy). Metric:
accuracy (share of examples whose highest-scored ending is the right one), as in the paper's Table 4.
"""

from __future__ import annotations

import numpy as np
import torch

from explorer.core.data.swag import NUM_CHOICES, SwagData, load_swag
from explorer.core.models.eval_mode import inference
from explorer.core.training.batching import pad_sequences
from explorer.core.training.tasks.base import FeatureSet, Task


def encode_choices(tokenizer, contexts: list[str], endings: list[str], max_length: int) -> dict:
    """Tokenize the (context, ending) pairs of the choices: lists of ids / token types, one per pair.

    The context is truncated first when a pair is too long ("longest_first", as ``run_swag.py``)."""
    return tokenizer(contexts, endings, truncation=True, max_length=max_length)


class MultipleChoiceTask(Task):
    """SWAG-style multiple choice over NUM_CHOICES endings per example."""

    def __init__(self, name: str = "swag"):
        super().__init__(name)

    def load(self, config, split: str) -> SwagData:
        source = config.train if split == "train" else config.dev
        cap = config.train_cap if split == "train" else config.dev_cap
        return load_swag(source, cap=cap)

    def featurize(self, examples: SwagData, tokenizer, config, *, train: bool) -> FeatureSet:
        """One row per example: NUM_CHOICES token sequences; a batch is (batch, NUM_CHOICES, tokens)."""
        firsts, seconds = [], []
        for i in range(len(examples)):
            a, b = examples.choice_pairs(i)
            firsts += a
            seconds += b
        enc = encode_choices(tokenizer, firsts, seconds, config.resolved_max_seq_length())
        ids, types = enc["input_ids"], enc.get("token_type_ids")
        labels = examples.labels
        pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0

        def collate(indices: list[int]) -> dict:
            seqs = [i * NUM_CHOICES + k for i in indices for k in range(NUM_CHOICES)]
            rows = [ids[j] for j in seqs]
            shape = (len(indices), NUM_CHOICES, -1)
            batch = {"input_ids": pad_sequences(rows, pad_id).view(shape),
                     "attention_mask": pad_sequences([[1] * len(r) for r in rows], 0).view(shape)}
            if types is not None:
                batch["token_type_ids"] = pad_sequences([types[j] for j in seqs], 0).view(shape)
            batch["labels"] = torch.tensor([labels[i] for i in indices], dtype=torch.long)
            return batch

        lengths = [max(len(ids[i * NUM_CHOICES + k]) for k in range(NUM_CHOICES)) for i in range(len(examples))]
        return FeatureSet(lengths, collate, list(range(len(examples))), raw=enc)

    def loss(self, outputs, batch: dict) -> torch.Tensor:
        """Mean over the batch of -log softmax(scores)[label]; scores (batch, NUM_CHOICES)."""
        return torch.nn.functional.cross_entropy(outputs.logits.float(), batch["labels"])

    def eval_outputs(self, outputs, batch: dict) -> dict[str, torch.Tensor]:
        logits = outputs.logits.float()
        loss = torch.nn.functional.cross_entropy(logits, batch["labels"], reduction="none")
        return {"logits": logits, "labels": batch["labels"], "loss": loss}

    def metrics(self, examples, features, outputs, config, out_dir) -> dict:
        """accuracy (fraction), loss (mean cross-entropy) and total (examples scored)."""
        logits = np.stack(outputs["logits"]) if outputs["logits"] else np.zeros((0, NUM_CHOICES))
        labels = np.asarray(outputs["labels"], dtype=np.int64)
        accuracy = float((logits.argmax(-1) == labels).mean()) if labels.size else 0.0
        loss = float(np.mean(outputs["loss"])) if len(outputs["loss"]) else 0.0
        return {"accuracy": accuracy, "loss": loss, "total": int(labels.size)}

    def watch_items(self, config, dev_examples) -> list[dict]:
        if config.watch:
            return list(config.watch)
        if dev_examples is None or not len(dev_examples):
            return []
        return [{"context": dev_examples.contexts[0], "start": dev_examples.starts[0],
                 "endings": list(dev_examples.endings[0]), "label": dev_examples.labels[0]}]

    def watch(self, model, tokenizer, items: list[dict], config) -> list[dict]:
        """items: {"context", "start" (optional), "endings": four texts} -> scores and probabilities."""
        out = []
        device = next(model.parameters()).device
        for item in items:
            endings = [str(e) for e in item.get("endings", [])][:NUM_CHOICES]
            if len(endings) != NUM_CHOICES:
                continue
            context, start = str(item.get("context", "")), str(item.get("start", ""))
            enc = encode_choices(tokenizer, [context] * NUM_CHOICES, [f"{start} {e}".strip() for e in endings],
                                 config.resolved_max_seq_length())
            pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
            batch = {k: pad_sequences(v, pad_id if k == "input_ids" else 0).unsqueeze(0) for k, v in enc.items()}
            with inference(model):
                scores = model(**{k: v.to(device) for k, v in batch.items()}).logits.float()[0]
            probs = torch.softmax(scores, -1)
            out.append({"context": context, "endings": endings, "scores": scores.tolist(),
                        "probabilities": probs.tolist(), "label": int(probs.argmax())})
        return out

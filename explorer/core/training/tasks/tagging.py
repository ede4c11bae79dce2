"""Token tagging ("ner", CoNLL-2003 named entities; BERT paper Section 5.3 and Figure 4d).

Head: ``AutoModelForTokenClassification``: logits_i = T_i W^T + b for every token's final hidden vector
T_i, softmax over the tags. Each word is predicted from its first word piece; the other pieces and the
special tokens carry label -100 and are left out of the cross-entropy (explorer.core.tagging.alignment). Sentences
whose pieces do not fit ``max_seq_length`` are split into overlapping windows of whole words (a quarter of
the window's room overlaps), and each word is predicted from the window where it has the most context.
Metrics: seqeval's entity-level precision / recall / F1 (strict IOB2), per type, and token accuracy
(explorer.core.metrics.tagging); best checkpoint by entity F1. id2label / label2id (the IOB2 tag
set of the training file) and ``word_splitting`` (the rule the training words were formed by,
explorer.core.data.words) go into config.json.
"""

from __future__ import annotations

import numpy as np
import torch

from explorer.core.data.conll import TaggingData, load_tagging, require_tag_set
from explorer.core.data.words import CONFIG_KEY as WORD_RULE_KEY
from explorer.core.data.words import rule_for_sentences
from explorer.core.tagging.alignment import (
    IGNORE_INDEX,
    align_labels,
    merge_word_predictions,
    window_rows,
    word_pieces,
)
from explorer.core.training.batching import pad_sequences
from explorer.core.metrics.tagging import tagging_metrics
from explorer.core.training.tasks.base import FeatureSet, Task


class TaggingTask(Task):
    """Token tagging (``--task ner``)."""

    token_level_outputs = ("logits",)

    def __init__(self, name: str):
        super().__init__(name)

    def load(self, config, split: str) -> TaggingData:
        train = split == "train"
        return load_tagging(config.train if train else config.dev, cap=config.train_cap if train else config.dev_cap,
                            encoding=config.encoding, repair=config.skip_invalid)

    def num_labels(self, train_examples: TaggingData, config) -> int:
        return train_examples.num_labels

    def label_names(self, train_examples: TaggingData) -> list[str]:
        return list(train_examples.label_names)

    def check_data(self, train_examples: TaggingData, dev_examples: TaggingData | None, config):
        """The dev tags must be in the training tag set (an unknown one names its file and line)."""
        if len(train_examples.label_names) < 2:
            from explorer.core.errors import TaggingDataError

            raise TaggingDataError(f"{train_examples.source}: the training tags have only "
                                   f"{', '.join(train_examples.label_names)}; tagging needs at least 2 tags")
        if dev_examples is not None:
            require_tag_set(dev_examples, train_examples.label_names)
        return dev_examples

    def started_info(self, train_examples: TaggingData, config) -> dict:
        """Tag names, the scheme read, the notes (conversion, repairs) and the word splitting rule of the training
        words for the ``started`` event."""
        choice = rule_for_sentences(train_examples.words)
        return {"label_names": list(train_examples.label_names), "tag_scheme": train_examples.scheme,
                "data_notes": list(train_examples.notes) + [choice.note()], WORD_RULE_KEY: choice.rule}

    def configure_model(self, model, train_examples: TaggingData, config) -> None:
        """id2label / label2id from the tag set, and the rule the training words were formed by
        (``word_splitting``: raw text is split by it in predict, the Tag page and explain)."""
        names = list(train_examples.label_names)
        model.config.id2label = dict(enumerate(names))
        model.config.label2id = {n: k for k, n in enumerate(names)}
        setattr(model.config, WORD_RULE_KEY, rule_for_sentences(train_examples.words).rule)

    def featurize(self, examples: TaggingData, tokenizer, config, *, train: bool) -> FeatureSet:
        rows = window_rows(tokenizer, word_pieces(tokenizer, examples.words), config.resolved_max_seq_length())
        word_labels = examples.label_ids()
        labels = [align_labels(wids, word_labels[i]) for _, wids, (i, _, _) in rows]
        pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0

        def collate(indices: list[int]) -> dict:
            ids = [rows[i][0] for i in indices]
            return {"input_ids": pad_sequences(ids, pad_id), "attention_mask": pad_sequences([[1] * len(r) for r in ids], 0),
                    "token_type_ids": pad_sequences([[0] * len(r) for r in ids], 0),
                    "labels": pad_sequences([labels[i] for i in indices], IGNORE_INDEX)}

        return FeatureSet([len(r[0]) for r in rows], collate, [r[2][0] for r in rows], raw=rows)

    def loss(self, outputs, batch: dict) -> torch.Tensor:
        logits = outputs.logits.float()
        return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), batch["labels"].reshape(-1),
                                                 ignore_index=IGNORE_INDEX)

    def eval_outputs(self, outputs, batch: dict) -> dict[str, torch.Tensor]:
        logits = outputs.logits.float()
        y = batch["labels"]
        per_token = torch.nn.functional.cross_entropy(logits.transpose(1, 2), y, ignore_index=IGNORE_INDEX,
                                                      reduction="none")
        return {"logits": logits, "loss_sum": per_token.sum(-1), "labelled": (y != IGNORE_INDEX).sum(-1)}

    def metrics(self, examples: TaggingData, features: FeatureSet, outputs, config, out_dir) -> dict:
        names = list(examples.label_names)
        merged = merge_word_predictions([len(w) for w in examples.words], features.raw, outputs["logits"])
        pred = [[names[k] for k in m.argmax(-1)] if len(m) else [] for m in merged]
        out = tagging_metrics(examples.tags, pred)
        n = float(np.sum(outputs["labelled"])) if len(outputs["labelled"]) else 0.0
        out["loss"] = float(np.sum(outputs["loss_sum"]) / n) if n else 0.0
        out["total"] = len(examples)
        return out

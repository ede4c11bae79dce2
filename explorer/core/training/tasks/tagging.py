"""Token tagging ("ner", CoNLL-2003 named entities; BERT paper Section 5.3 and Figure 4d).

Head: ``AutoModelForTokenClassification``: logits_i = T_i W^T + b for every token's final hidden vector
T_i, softmax over the tags. Each word is predicted from its first word piece; the other pieces and the
special tokens carry label -100 and are left out of the cross-entropy (explorer.core.tagging). Sentences
whose pieces do not fit ``max_seq_length`` are split into overlapping windows of whole words (a quarter of
the window's room overlaps), and each word is predicted from the window where it has the most context.
Metrics: seqeval's entity-level precision / recall / F1 (strict IOB2), per type, and token accuracy
(explorer.core.training.tagging_metrics); best checkpoint by entity F1. id2label / label2id (the IOB2 tag
set of the training file) go into config.json.
"""

from __future__ import annotations

import numpy as np
import torch

from explorer.core.data.conll import TaggingData, load_tagging, require_tag_set
from explorer.core.tagging import IGNORE_INDEX, align_labels, best_windows, plan_windows
from explorer.core.training.batching import pad_sequences
from explorer.core.training.tagging_metrics import tagging_metrics
from explorer.core.training.tasks.base import FeatureSet, Task


def window_overlap(room: int) -> int:
    """Pieces shared by consecutive windows of a long sentence: a quarter of the room."""
    return max(0, room // 4)


def word_pieces(tokenizer, sentences: list[list[str]]) -> list[list[list[int]]]:
    """Piece ids of every word of every sentence (fast tokenizer, ``is_split_into_words``); a word the
    tokenizer turns into no piece at all gets the unknown token, so every word has a first piece."""
    if not sentences:
        return []
    enc = tokenizer(sentences, is_split_into_words=True, add_special_tokens=False)
    unk = tokenizer.unk_token_id if tokenizer.unk_token_id is not None else 0
    out = []
    for i, words in enumerate(sentences):
        pieces: list[list[int]] = [[] for _ in words]
        for pid, w in zip(enc["input_ids"][i], enc.word_ids(i)):
            if w is not None:
                pieces[w].append(int(pid))
        out.append([p or [unk] for p in pieces])
    return out


def window_rows(tokenizer, pieces: list[list[list[int]]], max_seq_length: int):
    """Model rows for sentences of word pieces: ``(input_ids, word_ids, (sentence, window index, Window))``
    per row, [CLS] + pieces + [SEP]; a word longer than the room keeps its first ``room`` pieces."""
    room = max_seq_length - 2
    cls = tokenizer.cls_token_id if tokenizer.cls_token_id is not None else tokenizer.bos_token_id
    sep = tokenizer.sep_token_id if tokenizer.sep_token_id is not None else tokenizer.eos_token_id
    rows = []
    for i, sent in enumerate(pieces):
        counts = [min(len(p), room) for p in sent]
        for k, win in enumerate(plan_windows(counts, room, window_overlap(room))):
            ids, wids = [cls], [None]
            for w in range(win.start, win.end):
                ids.extend(sent[w][:room])
                wids.extend([w] * min(len(sent[w]), room))
            ids.append(sep)
            wids.append(None)
            rows.append((ids, wids, (i, k, win)))
    return rows


def merge_word_predictions(n_words: list[int], rows, row_values: list[np.ndarray]) -> list[np.ndarray]:
    """Per sentence, one value per word (e.g. logits (n_words, K)) taken from the first piece of each word
    in the window where it has the most context (:func:`explorer.core.tagging.best_windows`)."""
    by_sentence: dict[int, list[int]] = {}
    for r, (_, _, (i, _, _)) in enumerate(rows):
        by_sentence.setdefault(i, []).append(r)
    out = []
    for i, n in enumerate(n_words):
        rs = by_sentence.get(i, [])
        wins = [rows[r][2][2] for r in rs]
        best = best_windows(wins, n)
        k_dim = row_values[rs[0]].shape[-1] if rs else 0
        words = np.zeros((n, k_dim), dtype=np.float32)
        for w in range(n):
            r = rs[best[w]]
            pos = rows[r][1].index(w)
            words[w] = row_values[r][pos]
        out.append(words)
    return out


class TaggingTask(Task):
    """Token tagging (``--task ner``)."""

    token_level_outputs = ("logits",)

    def __init__(self, name: str):
        self.name = name

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
        """Tag names, the scheme read and the notes (conversion, repairs) for the ``started`` event."""
        return {"label_names": list(train_examples.label_names), "tag_scheme": train_examples.scheme,
                "data_notes": list(train_examples.notes)}

    def configure_model(self, model, train_examples: TaggingData, config) -> None:
        names = list(train_examples.label_names)
        model.config.id2label = dict(enumerate(names))
        model.config.label2id = {n: k for k, n in enumerate(names)}

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

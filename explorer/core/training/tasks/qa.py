"""Extractive question answering: SQuAD v1.1 ("squad_v1") and v2.0 ("squad_v2").

Head: ``AutoModelForQuestionAnswering``: start_logits = S.T_i, end_logits = E.T_i (BERT paper, Section
4.2/4.3). Training loss per window: (-log P_start(s) - log P_end(e)) / 2, averaged over the batch, as
``BertForQuestionAnswering`` computes it (labels at the [CLS] position when the answer is not in the
window, or the question has none). Evaluation: windows -> n-best span search (core.qa.decoding) -> official
SQuAD metrics (core.qa.scores over core.metrics.squad; v2.0 adds HasAns/NoAns and the best threshold). Watch: core.qa.probe with
attention block flow.
"""

from __future__ import annotations

import math
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
import torch

from explorer.core.data.squad import SquadDataError, gold_answers, load_squad, load_training_squad
from explorer.core.qa.abstain_training import (TRAIN_UNANSWERABLE_KEY, cap_line, capped_questions,
                                               no_abstain_warning)
from explorer.core.qa.decoding import decode_predictions, write_official_files
from explorer.core.qa.windows import collate_qa, prepare_qa_features
from explorer.core.qa.scores import evaluate_decodings
from explorer.core.qa.probe import probe
from explorer.core.training.tasks.base import FeatureSet, Task

FLOW_KEYS = [(a, b) for a in ("question", "passage", "special") for b in ("question", "passage", "special")]


class QATask(Task):
    token_level_outputs = ("start_logits", "end_logits")

    def __init__(self, name: str):
        super().__init__(name)
        self.version = self.facts.squad_version  # "v1.1" | "v2.0"

    # -- data -----------------------------------------------------------------------------
    def load(self, config, split: str):
        source = config.train if split == "train" else config.dev
        cap = config.train_cap if split == "train" else config.dev_cap
        if split == "train":  # every gold answer checked: misaligned ones repaired or dropped, counted
            ds, report = load_training_squad(source, split="train")
        else:
            ds, report = load_squad(source, split="validation")
        notes = []
        if cap and cap < len(ds):
            if split == "train":   # a stratified sample across articles: the first questions may hold no unanswerable
                total = len(ds)
                ds = ds.select(capped_questions(ds["is_impossible"], cap, config.dev_split_seed()))
                notes.append(("info", f"{cap_line(total, len(ds), sum(ds['is_impossible']))} (a random subset "
                                      f"stratified by answerable / unanswerable, seed {config.dev_split_seed()})"))
            else:
                ds = ds.select(range(cap))
        if split == "train" and self.version == "v2.0" and not any(ds["is_impossible"]):
            notes.append(("warning", no_abstain_warning("v2.0", 0, subject="this run")))
        ds.load_report = report  # read by tasks.base.load_note for the run's log event
        ds.notes = notes         # the run's log events (training.setup._emit_notes)
        if self.version == "v1.1" and report.n_impossible:
            raise SquadDataError(f"{source}: {report.n_impossible} unanswerable questions (SQuAD 2.0 data) "
                                 f"but the task is {self.name}; use --task squad_v2")
        return ds

    def training_examples_line(self, examples) -> str:
        """'600 training questions (44 unanswerable)': how many of them teach the no-answer score."""
        n, k = len(examples), int(sum(examples["is_impossible"]))
        return f"{n:,} training questions ({k:,} unanswerable)"

    def started_info(self, train_examples, config) -> dict:
        """The unanswerable training questions, for the run's ``started`` event: the τ on dev set page warns for a
        checkpoint of a run that trained on none (explorer.core.qa.abstain_training)."""
        return {TRAIN_UNANSWERABLE_KEY: int(sum(train_examples["is_impossible"]))}

    def featurize(self, examples, tokenizer, config, *, train: bool) -> FeatureSet:
        feats = prepare_qa_features(list(examples["question"]), list(examples["context"]), tokenizer,
                                    max_seq_length=config.resolved_max_seq_length(), doc_stride=config.doc_stride,
                                    max_query_length=config.max_query_length, answers=list(examples["answers"]))
        if train and config.skip_answerless_windows and not self.facts.has_no_answer:
            feats = answer_windows(feats)
        pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
        return FeatureSet(feats.lengths(), lambda idx: collate_qa(feats, idx, pad_id),
                          list(feats.example_index), raw=feats)

    # -- model ----------------------------------------------------------------------------
    def loss(self, outputs, batch: dict) -> torch.Tensor:
        return self._per_row_loss(outputs, batch).mean()

    @staticmethod
    def _per_row_loss(outputs, batch: dict) -> torch.Tensor:
        """(batch,) (-log P_start(s) - log P_end(e)) / 2 with the softmax over the window's real tokens.

        Padding positions are left out of the softmax. (BertForQuestionAnswering includes them, so its loss
        depends on how far a batch is padded; leaving them out makes dynamic padding, padding to
        max_seq_length and gradient accumulation all give the same loss and gradients.)"""
        start, end = outputs.start_logits.float(), outputs.end_logits.float()
        mask = batch.get("attention_mask")
        if mask is not None:
            pad = mask[:, : start.shape[1]] == 0
            start, end = start.masked_fill(pad, -1e9), end.masked_fill(pad, -1e9)
        f = torch.nn.functional.cross_entropy
        return (f(start, batch["start_positions"], reduction="none")
                + f(end, batch["end_positions"], reduction="none")) / 2

    def eval_outputs(self, outputs, batch: dict) -> dict[str, torch.Tensor]:
        out = {"start_logits": outputs.start_logits.float(), "end_logits": outputs.end_logits.float()}
        if "start_positions" in batch:
            out["loss"] = self._per_row_loss(outputs, batch)
        return out

    def metrics(self, examples, features: FeatureSet, outputs, config, out_dir) -> dict:
        decodings = decode_predictions(examples, features.raw, outputs["start_logits"], outputs["end_logits"],
                                       n_best_size=config.n_best_size, max_answer_length=config.max_answer_length)
        gold = gold_answers(examples)
        metrics = evaluate_decodings(decodings, gold, tau=0.0, version=self.version)
        if outputs.get("loss"):
            metrics["loss"] = float(np.mean(outputs["loss"]))
        if out_dir is not None:
            _write_atomically(decodings, out_dir, self.version == "v2.0")
        return metrics

    # -- watch ----------------------------------------------------------------------------
    def watch_items(self, config, dev_examples) -> list[dict]:
        if config.watch:
            return list(config.watch)
        if dev_examples is None or len(dev_examples) == 0:
            return []
        n = min(2, len(dev_examples))
        return [{"question": dev_examples[i]["question"], "passage": dev_examples[i]["context"]} for i in range(n)]

    def watch(self, model, tokenizer, items: list[dict], config) -> list[dict]:
        rows = []
        for item in items:
            question = item.get("question", "")
            passage = item.get("passage") or item.get("context") or ""
            res = probe(model, question, passage, tokenizer=tokenizer, attentions=True, keep_attentions=None,
                        max_seq_length=config.resolved_max_seq_length(), doc_stride=config.doc_stride,
                        max_query_length=config.max_query_length, n_best_size=config.n_best_size,
                        max_answer_length=config.max_answer_length)
            dec = res.decoding
            window = dec.nbest[0].window_index if dec.nbest else dec.null_window
            flow = res.attention[window].flow_mean if res.attention else None  # (layers, 3, 3)
            row = {"question": question, "passage": passage,
                   "answer": dec.answer(0.0) if self.version == "v2.0" else dec.best_text,
                   "best_span": dec.best_text, "score_diff": _finite(res.score_diff),
                   "null_score": _finite(res.null_score), "best_non_null_score": _finite(res.best_non_null_score),
                   "window": int(window) + 1}   # numbered from 1, as in the GUI and the CLI
            if flow is not None:
                idx = {"question": 0, "passage": 1, "special": 2}
                row["flow"] = {f"{a}->{b}": [float(x) for x in flow[:, idx[a], idx[b]]] for a, b in FLOW_KEYS}
            rows.append(row)
        return rows


def answer_windows(feats):
    """The training windows that hold their question's answer (start label not at the [CLS] position): for
    SQuAD v1.1, where every question has an answer, a window labelled at [CLS] teaches a no-answer the model
    is never asked for. A question whose answer no window holds keeps its windows (nothing else to learn
    from). Returns a QAFeatures of those windows, in their order."""
    import dataclasses

    n = len(feats)
    has = {feats.example_index[k] for k in range(n) if feats.start_positions[k] != feats.cls_index[k]}
    keep = [k for k in range(n) if feats.start_positions[k] != feats.cls_index[k]
            or feats.example_index[k] not in has]
    if len(keep) == n:
        return feats
    cut = {f.name: [getattr(feats, f.name)[k] for k in keep] for f in dataclasses.fields(feats)
           if isinstance(getattr(feats, f.name), list) and len(getattr(feats, f.name)) == n}
    return dataclasses.replace(feats, **cut)


def _finite(x: float):
    return float(x) if x is not None and math.isfinite(x) else None


def _write_atomically(decodings, out_dir, v2: bool) -> None:
    """predictions.json (+ nbest, null_odds) into out_dir, each file replaced atomically."""
    out_dir = Path(out_dir)
    tmp = Path(tempfile.mkdtemp(prefix=".predictions-", dir=out_dir))
    try:
        paths = write_official_files(decodings, tmp, tau=0.0, version_2_with_negative=v2)
        for p in paths.values():
            os.replace(p, out_dir / p.name)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

"""Layer-wise probes of two models on one labelled data set: a token label (entity tags of a CoNLL file) or a
sentence label (the run's own classes), the base model against the fine-tuned checkpoint on the same splits.

Where fine-tuning changed the encoder shows as the gap between the two curves: a sentence label the base model
holds only weakly in its upper layers that the fine-tuned one reads off linearly, or a token label the
fine-tuned model forgets near its top. See explorer.core.probing.states (features) and .linear (the probes).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from explorer.core.probing.linear import (DEFAULT_SEEDS, TEST_FRACTION, LayerCurve, majority_accuracy, plan_splits,
                                          probe_curve)
from explorer.core.probing.states import ProbeInputError, text_features, word_features

LABEL_KINDS = {"tokens": "a tag per word (the entity tags of a CoNLL file)",
               "sentences": "a class per text or pair (the run's own classes)"}
ANSWERABLE = ["answerable", "unanswerable"]   # the sentence label of a SQuAD 2.0 run: its own two outcomes


@dataclass(kw_only=True)
class SentenceLabels:
    """Texts (or pairs) with one class each: texts_a, texts_b (None for single texts), labels (class ids),
    label_names, source (the file), what (the label in words)."""

    texts_a: list[str]
    texts_b: list[str] | None
    labels: list[int]
    label_names: list[str]
    source: str
    what: str


@dataclass(kw_only=True)
class ProbeStudy:
    """Layer-wise probe accuracies of one or more models on one labelled data set.

    Attributes:
        kind: "tokens" or "sentences" (:data:`LABEL_KINDS`); what: the label in words; data: its file.
        label_names: the classes; n_rows: words or texts probed; n_sentences: sentences they come from.
        seeds, test_fraction: the splits (the same for every curve).
        majority: the majority class's test accuracy, mean over the splits (the floor).
        curves: one LayerCurve per model (base first when there are two).
        pooling: sentence rows: "mean" or "cls"; "" for word rows.
        notes: what was left out (truncated words), what was assumed.
        seconds: wall time.
    """

    kind: str
    what: str
    data: str
    label_names: list[str]
    n_rows: int
    n_sentences: int
    seeds: list[int]
    test_fraction: float
    majority: float
    curves: list[LayerCurve]
    pooling: str = ""
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def change(self) -> list[float]:
        """Per layer, the last curve's mean accuracy minus the first's (fine-tuned - base); [] with one curve."""
        if len(self.curves) < 2:
            return []
        return [b - a for a, b in zip(self.curves[0].mean, self.curves[-1].mean)]

    def to_dict(self) -> dict:
        """The JSON of ``bert-explorer layer-probes`` (accuracies as fractions; NaN bounds as None)."""
        def clean(values):
            return [None if v is None or not np.isfinite(v) else float(v) for v in values]

        return {"kind": self.kind, "what": self.what, "data": self.data, "label_names": list(self.label_names),
                "n_rows": self.n_rows, "n_sentences": self.n_sentences, "seeds": list(self.seeds),
                "test_fraction": self.test_fraction, "majority": self.majority, "pooling": self.pooling,
                "curves": [{"name": c.name, "source": c.source, "layers": c.layers, "mean": clean(c.mean),
                            "low": clean(c.low), "high": clean(c.high), "per_seed": c.per_seed,
                            "best_layer": c.best_layer()} for c in self.curves],
                "change": clean(self.change()), "notes": list(self.notes), "seconds": self.seconds}


def _encode_labels(values: list[str], names: list[str] | None = None) -> tuple[np.ndarray, list[str]]:
    names = names or sorted(set(values))
    index = {n: i for i, n in enumerate(names)}
    return np.array([index[v] for v in values]), names


def token_study(models: list[tuple[str, object]], data: str, *, cap: int = 200, max_seq_length: int = 128,
                seeds=DEFAULT_SEEDS, test_fraction: float = TEST_FRACTION, progress=None,
                cancelled=None) -> ProbeStudy:
    """Probe every layer of each (name, LoadedModel) in ``models`` for the tag of each word of a CoNLL or JSONL
    tagging file (explorer.core.data.conll.load_tagging; the first ``cap`` sentences, 0 = all).

    Raises:
        TaggingDataError: an unreadable file. ProbeInputError: models whose tokenizers keep different words.
        ProbeFitError: one tag only."""
    from explorer.core.data.conll import load_tagging

    t0 = time.perf_counter()
    tagged = load_tagging(data, cap=cap)
    feats = [word_features(loaded, tagged.words, max_seq_length=max_seq_length) for _, loaded in models]
    _same_rows(feats, [name for name, _ in models])
    first = feats[0]
    labels, names = _encode_labels([tagged.tags[g][w] for g, w in zip(first.groups, first.word_index)],
                                   tagged.label_names)
    plan = plan_splits(first.groups, seeds=seeds, test_fraction=test_fraction)
    curves = _curves(models, feats, labels, plan, progress, cancelled)
    notes = [f"{first.truncated} words past max_seq_length {max_seq_length} left out"] if first.truncated else []
    return ProbeStudy(kind="tokens", what="entity tag of each word (its first piece)", data=str(data),
                      label_names=names, n_rows=len(labels), n_sentences=len(tagged.words), seeds=plan.seeds,
                      test_fraction=test_fraction, majority=majority_accuracy(labels, plan), curves=curves,
                      notes=notes, seconds=time.perf_counter() - t0)


def sentence_study(models: list[tuple[str, object]], labelled: SentenceLabels, *, pooling: str = "mean",
                   max_seq_length: int = 128, seeds=DEFAULT_SEEDS, test_fraction: float = TEST_FRACTION,
                   progress=None, cancelled=None) -> ProbeStudy:
    """Probe every layer of each (name, LoadedModel) for the class of each text (or pair) of ``labelled``.

    Raises:
        ProbeInputError: no texts, an unknown pooling. ProbeFitError: one class only."""
    t0 = time.perf_counter()
    feats = [text_features(loaded, labelled.texts_a, labelled.texts_b, pooling=pooling,
                           max_seq_length=max_seq_length) for _, loaded in models]
    labels = np.asarray(labelled.labels)
    plan = plan_splits(feats[0].groups, seeds=seeds, test_fraction=test_fraction)
    curves = _curves(models, feats, labels, plan, progress, cancelled)
    return ProbeStudy(kind="sentences", what=labelled.what, data=labelled.source,
                      label_names=list(labelled.label_names), n_rows=len(labels), n_sentences=len(labels),
                      seeds=plan.seeds, test_fraction=test_fraction, majority=majority_accuracy(labels, plan),
                      curves=curves, pooling=pooling, seconds=time.perf_counter() - t0)


def _same_rows(feats, names) -> None:
    ref = feats[0]
    for f, name in zip(feats[1:], names[1:]):
        if not (np.array_equal(f.groups, ref.groups) and np.array_equal(f.word_index, ref.word_index)):
            raise ProbeInputError(f"{name} keeps other words than {names[0]} within max_seq_length (another "
                                  "tokenizer?): the curves would not be on the same rows; lower the cap or raise "
                                  "max_seq_length")


def _curves(models, feats, labels, plan, progress, cancelled) -> list[LayerCurve]:
    total = sum(f.features.shape[0] for f in feats) * len(plan.splits)
    done = [0]

    def step(k, _total):
        if progress is not None:
            progress(done[0] + k, total)

    curves = []
    for (name, loaded), f in zip(models, feats):
        curves.append(probe_curve(f.features, labels, plan, name=name, source=str(getattr(loaded, "source", "")),
                                  progress=step, cancelled=cancelled))
        done[0] += f.features.shape[0] * len(plan.splits)
    return curves


def run_sentence_labels(task: str, data: str, *, run_config: dict | None = None, cap: int = 400,
                        label_names: list[str] | None = None) -> SentenceLabels:
    """The sentence label a run was trained for, read from ``data``: its classes for a single-label table task
    (the run's text and label columns; explorer.core.data.classification), answerable / unanswerable for a QA
    task with no-answer questions (question and passage pairs of a SQuAD file). ``cap``: the first rows only.

    Raises:
        ProbeInputError: a task with no class per text (regression, multi-label, multiple choice, tagging,
            SQuAD v1.1). ClassificationDataError / SquadDataError: an unreadable file."""
    from explorer.core.specs.tasks import get_task_facts, is_single_label_table

    facts = get_task_facts(task)
    cfg = run_config or {}
    if is_single_label_table(task):
        from explorer.core.data.classification import load_classification

        d = load_classification(data, pair=facts.pair, text_columns=cfg.get("text_columns") or None,
                                label_column=cfg.get("label_column") or "", cap=cap, label_names=label_names)
        names = d.label_names or [str(k) for k in sorted(set(d.labels))]
        return SentenceLabels(texts_a=d.texts_a, texts_b=d.texts_b, labels=[int(x) for x in d.labels],
                              label_names=names, source=str(data), what=f"the run's classes ({task})")
    if facts.is_qa and facts.has_no_answer:
        from explorer.core.data.squad import load_squad

        ds, _ = load_squad(data)
        ds = ds.select(range(min(cap, len(ds)))) if cap else ds
        return SentenceLabels(texts_a=list(ds["question"]), texts_b=list(ds["context"]),
                              labels=[int(bool(x)) for x in ds["is_impossible"]], label_names=list(ANSWERABLE),
                              source=str(data), what="answerable or not (question and passage; the run's SQuAD 2.0 "
                                                     "decision)")
    raise ProbeInputError(f"the task {task!r} has no class per text to probe; pass a classification file and a "
                          "single-label task")

"""The inspector child's operations: what each request does with the models it holds.

Each operation is ``fn(state, args, progress, cancelled) -> value``; ``args`` is the request's decoded
``"data"`` (a dict), ``progress(done, total)`` sends a progress event, ``cancelled()`` is True after the GUI
cancelled the request. Values go back through explorer.core.protocol.frames (ProbeResult, TauStudy, ...). Models
live in ``state.models`` under a slot name ("qa", "classify", ...): a load replaces the slot's model.
"""

from __future__ import annotations

import collections
import itertools
import os
import threading
from pathlib import Path
from typing import Callable

from explorer.core.errors import UserError

RESULTS_KEPT = 3   # probe results kept for later attention-weight requests (each up to the 256 MiB budget)
SPACES_KEPT = 2   # embedding spaces kept for projections, neighbours and exports (each layers x points x hidden)


def on_device(loaded):
    """``loaded`` moved to CUDA when $EXPLORER_INSPECT_GPU is "1" and torch sees a GPU (the child on a
    remote host: explorer.core.remote.ssh.inspector_argv sets it), else left on the CPU as loaded. The ops
    put their inputs on the model's device, so results are the same arrays (float32, as on the CPU)."""
    from explorer.core.remote.ssh import INSPECT_GPU_ENV

    if os.environ.get(INSPECT_GPU_ENV) == "1":
        import torch

        if torch.cuda.is_available():
            loaded.model.to("cuda")
    return loaded


class State:
    """The models and recent probe results of one inspector child (shared by its lanes)."""

    def __init__(self, loader: Callable | None = None):
        self.loader = loader
        self.models: dict[str, object] = {}
        self.results: collections.OrderedDict = collections.OrderedDict()
        self.lock = threading.Lock()
        self._refs = itertools.count(1)
        self.spaces: collections.OrderedDict = collections.OrderedDict()   # ref -> kept embedding space
        self.mask_bases: collections.OrderedDict = collections.OrderedDict()   # (model, input) -> unmasked result

    def next_ref(self) -> int:
        """A new name for a kept probe result."""
        return next(self._refs)

    def model(self, slot: str):
        with self.lock:
            loaded = self.models.get(slot)
        if loaded is None:
            raise UserError("no model loaded: enter a model source and press Load")
        return loaded

    def _keep(self, store: collections.OrderedDict, ref, value, limit: int) -> None:
        with self.lock:
            store[ref] = value
            while len(store) > limit:
                store.popitem(last=False)

    def _lookup(self, store: collections.OrderedDict, ref, gone: str):
        with self.lock:
            found = store.get(ref)
        if found is None:
            raise UserError(gone)
        return found

    def keep_result(self, ref, result) -> None:
        self._keep(self.results, ref, result, RESULTS_KEPT)

    def keep_mask_base(self, key, result) -> None:
        """Keep the unmasked result of one model and input for the next masking of the same input."""
        self._keep(self.mask_bases, key, result, RESULTS_KEPT)

    def result(self, ref):
        return self._lookup(self.results, ref, "that probe is no longer held by the inspector process; probe again")

    def keep_space(self, ref, kept: dict) -> None:
        """Keep an embedding space (and its projections) under ``ref``; the oldest beyond SPACES_KEPT go."""
        self._keep(self.spaces, ref, kept, SPACES_KEPT)

    def space(self, ref) -> dict:
        """The kept embedding space ``ref``: {"space", "shared", "projections", "last"}."""
        return self._lookup(self.spaces, ref, "those embeddings are no longer held by the inspector process; "
                                              "press Embed again")


def op_load(state: State, args: dict, progress, cancelled):
    """Load ``source`` for ``task`` into ``slot``; returns its ModelInfo (shown under ``label`` if given)."""
    from explorer.core.models.info import model_info
    from explorer.core.specs.heads import QA

    source, task, slot = args["source"], args.get("task", QA.model_head), args.get("slot", "qa")
    if state.loader is not None and task == QA.model_head:   # the QA loader a test process hands in
        loaded = state.loader(source)
    else:
        from explorer.core.models.loading import load_model

        kwargs = {"num_labels": args["num_labels"]} if args.get("num_labels") else {}
        loaded = on_device(load_model(source, task, **kwargs))
    with state.lock:
        state.models[slot] = loaded
    return model_info(loaded, slot, args.get("label") or None)


def op_probe(state: State, args: dict, progress, cancelled):
    """probe() with attentions on the slot's model; the result is kept for attention_weights."""
    from explorer.core.qa.probe import ATTENTION_BUDGET_BYTES, probe

    loaded = state.model(args.get("slot", "qa"))
    budget = args.get("attention_budget", ATTENTION_BUDGET_BYTES)
    result = probe(loaded, args["question"], args["passage"], tau=float(args.get("tau", 0.0)),
                   attentions=bool(args.get("attentions", True)), keep_attentions=args.get("keep", "float16"),
                   max_seq_length=int(args["max_seq_length"]), doc_stride=int(args["doc_stride"]),
                   max_query_length=int(args.get("max_query_length", 64)),
                   n_best_size=int(args.get("n_best_size", 20)),
                   max_answer_length=int(args.get("max_answer_length", 30)), attention_budget=budget,
                   decode_rule=str(args.get("decode_rule", "passage")))
    from explorer.worker.head_ops import mask_base_key

    state.keep_mask_base(mask_base_key(loaded, {   # the page's probe is the unmasked side of a head comparison
        "text": args["question"], "text_pair": args["passage"], "max_seq_length": args["max_seq_length"],
        "doc_stride": int(args["doc_stride"]), "max_query_length": int(args.get("max_query_length", 64)),
        "tau": args.get("tau", 0.0)}), result)
    if result.lazy_attention is None:
        return result
    ref = state.next_ref()
    result.lazy_attention.wire_ref = ref
    state.keep_result(ref, result)
    return shown_window_only(result)


def shown_window_only(result):
    """A copy of a ProbeResult whose raw attention weights are those of the window shown first (the best
    one) only: the others stay here and travel when the GUI shows them (op_attention_weights), so a
    10-window probe sends 1/10 of its weights (21 MB per 384-token window of a 12-head, 6-layer model)."""
    import copy
    import dataclasses

    best = result.best_window.index
    out = copy.copy(result)
    out.attention = [a if k == best else dataclasses.replace(a, attentions=None)
                     for k, a in enumerate(result.attention)]
    return out


def op_attention_weights(state: State, args: dict, progress, cancelled):
    """(layers, heads, seq, seq) raw weights of window ``window`` of the kept probe ``ref``."""
    result = state.result(args["ref"])
    return result.attention_weights(int(args["window"]))


def op_saliency(state: State, args: dict, progress, cancelled):
    """Gradient x input of a span of a ProbeWindow (explorer.core.qa.saliency.window_saliency)."""
    from explorer.core.models.loading import model_of
    from explorer.core.qa.saliency import window_saliency

    loaded = state.model(args.get("slot", "qa"))
    return window_saliency(model_of(loaded), args["window"], int(args["start"]), int(args["end"]))


def op_explain(state: State, args: dict, progress, cancelled):
    """Token attributions of one typed input on the slot's model (explorer.core.explain.attribution.explain), with
    progress (integrated-gradient batches done, total) and cancel at the next batch: an Attribution."""
    from explorer.core.explain.attribution import DEFAULT_STEPS
    from explorer.core.explain.decision import explain_any

    loaded = state.model(args.get("slot", "explain"))
    return explain_any(loaded.model, loaded.tokenizer, str(args.get("text", "")), str(args.get("text_pair", "")),
                   endings=args.get("endings") or None, target=args.get("target") or None, token=args.get("token"),
                   end=args.get("end"), method=str(args.get("method", "ig")),
                   steps=int(args.get("steps") or DEFAULT_STEPS), merge_words=bool(args.get("merge_words")),
                   max_seq_length=int(args.get("max_seq_length") or 128), progress=progress, cancelled=cancelled)


def op_decision(state: State, args: dict, progress, cancelled):
    """Integrated gradients of a probe window's score_diff on the slot's model (explorer.core.explain.decision):
    which words pushed toward answering and which toward no answer; an Attribution, with progress and cancel."""
    from explorer.core.explain.attribution import DEFAULT_STEPS
    from explorer.core.explain.decision import explain_probe_window

    loaded = state.model(args.get("slot", "qa"))
    return explain_probe_window(loaded.model, loaded.tokenizer, args["window"],
                                max_answer_length=int(args.get("max_answer_length", 30)),
                                steps=int(args.get("steps") or DEFAULT_STEPS), progress=progress, cancelled=cancelled)


def op_layer_probes(state: State, args: dict, progress, cancelled):
    """A probe per layer of a checkpoint and its base model (explorer.core.probing.runner): a ProbeStudy, with
    progress (probe fits done, total) and cancel before the next fit. The models are loaded for this job only."""
    from explorer.core.probing.runner import run_layer_probes

    return run_layer_probes(str(args["model"]), labels=str(args.get("labels", "sentences")),
                            base=str(args.get("base", "")), data=str(args.get("data", "")),
                            cap=int(args.get("cap", 0)), seeds=int(args.get("seeds", 3)),
                            pooling=str(args.get("pooling", "mean")),
                            max_seq_length=int(args.get("max_seq_length", 128)), progress=progress,
                            cancelled=cancelled)


def op_study(state: State, args: dict, progress, cancelled):
    """The τ study (run_study + study_figures) with progress; cancel stops it at the next batch."""
    from explorer.core.qa.tau_study import StudyCancelled, run_study, study_figures

    loaded = state.model(args.get("slot", "qa"))

    def report(done: int, total: int) -> None:
        if cancelled():
            raise StudyCancelled()
        progress(done, total)

    study = run_study(loaded, args["path"], args.get("cap") or None, settings=args.get("settings"),
                      progress=report, cache_dir=Path(args["cache_dir"]) if args.get("cache_dir") else None)
    return study, study_figures(study)


def op_classify(state: State, args: dict, progress, cancelled):
    """The classifier / multiple-choice arithmetic for typed inputs (explorer.core.classify.forward)."""
    from explorer.core.classify.forward import classify_choices, classify_text
    from explorer.core.specs.tasks import find_task_facts

    loaded = state.model(args.get("slot", "classify"))
    label = args.get("label")
    facts = find_task_facts(str(args.get("kind", "")))
    if facts is not None and facts.is_multiple_choice:
        return classify_choices(loaded.model, loaded.tokenizer, args["context"], list(args["endings"]),
                                start=args.get("start", ""), label=label)
    return classify_text(loaded.model, loaded.tokenizer, args["text_a"], args.get("text_b", ""), label=label)


def op_tag(state: State, args: dict, progress, cancelled):
    """Token tagging of a typed sentence on the slot's token-classification model, the head written out for
    piece ``token`` and, unless ``attention`` is false, the sentence's attention (explorer.core.tagging.forward):
    {"tagged": TaggedText, "head": TokenHead | None, "attention": TagAttention | None}. The attention follows
    the probe's memory budget rule (``attention_budget`` bytes, default ATTENTION_BUDGET_BYTES; raw weights kept
    as ``keep``, default float32: a sentence is short, and its weights then equal output_attentions): over it
    only window 0's raw weights travel, the result is kept here and the others come by ``attention_weights``."""
    from explorer.core.tagging.forward import tag_texts, text_attention, token_head

    loaded = state.model(args.get("slot", "tag"))
    tagged = tag_texts(loaded.model, loaded.tokenizer, [str(args.get("text", ""))],
                       max_seq_length=int(args.get("max_seq_length") or 128), keep_hidden=True)[0]
    if not tagged.words:
        raise UserError("type a sentence to tag")
    token = int(args.get("token", -1))
    if token < 0:   # the first piece of the first word
        token = next(i for i, w in enumerate(tagged.piece_words) if w is not None)
    head = token_head(loaded.model, tagged, min(token, len(tagged.pieces) - 1))
    tagged.piece_words = [-1 if w is None else int(w) for w in tagged.piece_words]   # plain ints on the pipe
    attention = None
    if args.get("attention", True):
        attention = text_attention(loaded.model, loaded.tokenizer, tagged.text,
                                   max_seq_length=int(args.get("max_seq_length") or 128),
                                   keep=args.get("keep", "float32"), budget=args.get("attention_budget"))
        if attention.attention and not attention.lazy_attention.within_budget:
            ref = state.next_ref()
            attention.lazy_attention.wire_ref = ref
            state.keep_result(ref, attention)
    return {"tagged": tagged, "head": head, "attention": attention}


def op_tag_dev(state: State, args: dict, progress, cancelled):
    """A CoNLL / JSONL dev file (its first ``cap`` sentences; 0 = all) tagged by the slot's model, with progress
    (model rows done, rows) after every batch and a cancel between batches: TagDevReport (per type, confusion,
    confident mistakes). The file's tags must be in the model's tag set (id2label)."""
    from explorer.core.data.conll import load_tagging
    from explorer.core.errors import Cancelled
    from explorer.core.tagging.alignment import tag_dev_report
    from explorer.core.tagging.forward import softmax, tag_names_of, word_logits

    loaded = state.model(args.get("slot", "tag"))
    names = tag_names_of(loaded.model)
    data = load_tagging(args["path"], cap=int(args.get("cap") or 0), label_names=names, repair=True)

    def report(done: int, total: int) -> None:
        if cancelled():
            raise Cancelled()
        progress(done, total)
    logits = word_logits(loaded.model, loaded.tokenizer, data.words, max_seq_length=int(args.get("max_seq_length") or 128),
                         progress=report)
    return tag_dev_report(str(args["path"]), data.words, data.tags, [softmax(z) if len(z) else z for z in logits], names)


def op_classify_dev(state: State, args: dict, progress, cancelled):
    """A classification dev file scored by the slot's model (explorer.core.classify.dev_report), with progress
    (rows done, rows) after every batch and a cancel between batches; inputs cut at the max_seq_length of the
    model's run (core.classify.dev_report.run_max_seq_length), as its evaluations cut them."""
    from explorer.core.classify.dev_report import run_max_seq_length
    from explorer.core.training.dev_scoring import score_classification_dev

    loaded = state.model(args.get("slot", "classify"))
    window = int(args.get("max_seq_length") or run_max_seq_length(str(loaded.path or loaded.source or "")))
    return score_classification_dev(loaded.model, loaded.tokenizer, args["kind"], args["path"],
                                    cap=args.get("cap") or None, settings=args.get("settings") or None,
                                    max_seq_length=window, progress=progress, cancelled=cancelled)


def op_predict(state: State, args: dict, progress, cancelled):
    """Predict a whole file with a checkpoint (explorer.core.predict.engine.predict_file), with progress events
    (rows done, rows total or 0) and cancel after the current batch (predict_file asks ``cancelled`` before each
    batch); every row run stays: the rows written and those kept ahead of them (resume). The model is loaded here
    for this job (not kept in a slot). Returns PredictSummary.to_dict()."""
    from explorer.core.errors import Cancelled
    from explorer.core.predict.engine import predict_file

    def report(done: int, total) -> None:
        progress(done, total or 0)

    keys = ("text_columns", "encoding", "no_header", "tau", "batch_size", "chunk_rows", "resume", "max_seq_length")
    kwargs = {k: args[k] for k in keys if args.get(k) not in (None, "")}
    last = {"total": 0}

    def report_total(done: int, total) -> None:
        last["total"] = total or 0
        report(done, total)
    try:
        summary = predict_file(args["model"], args["data"], args["out"], progress=report_total, cancelled=cancelled,
                               **kwargs)
    except Cancelled as exc:   # a last progress event: the rows in the file, before the cancelled reply
        if exc.rows_written is not None:
            progress(exc.rows_written + exc.rows_ahead, last["total"])
        raise
    return summary.to_dict()


def op_cv_oof(state: State, args: dict, progress, cancelled):
    """The held-out folds of cross-validation group ``name`` in ``runs_dir``, each taken from its member's final
    evaluation (a fold without its rows kept: predicted by its checkpoints/last), then pooled
    (explorer.core.studies.cv_runs.collect_oof, what ``group --cv K`` does after its members; folds already
    predicted are reused), with progress (held-out rows done, rows) and a cancel between
    batches. Returns OofResult.to_dict() (``path`` None until all k are in).
    The GUI's cross-validation groups get their out-of-fold figure from here."""
    from explorer.core.studies.cv_runs import collect_oof
    from explorer.core.studies.groups import GROUP_FILE, group_dir, load_group_file

    group = load_group_file(group_dir(args["runs_dir"], args["name"]) / GROUP_FILE)
    return collect_oof(args["runs_dir"], group, batch_size=int(args.get("batch_size") or 32), progress=progress,
                       cancelled=cancelled).to_dict()


def op_curve_score(state: State, args: dict, progress, cancelled):
    """The learning curve group ``name`` in ``runs_dir`` scored: each size's dev rows predicted by its member's
    checkpoints/last (cached), the figures with intervals beside the bag-of-words baseline and the fitted curve
    (explorer.core.studies.curve_results.collect_curve, what ``group --curve`` does after its members), with
    progress (dev rows done over every size, rows) and a cancel between batches. Returns the CurveResult's dict;
    the GUI's curve groups get their figures from here."""
    from explorer.core.studies.curve_results import collect_curve
    from explorer.core.studies.groups import GROUP_FILE, group_dir, load_group_file

    group = load_group_file(group_dir(args["runs_dir"], args["name"]) / GROUP_FILE)
    return collect_curve(args["runs_dir"], group, batch_size=int(args.get("batch_size") or 32), progress=progress,
                         cancelled=cancelled).to_dict()


def trained_on_a_dev_rows(source_a: str, source_b: str):
    """For run A and for run B, the dev rows of run A (the rows a comparison of the two judges on) that the run
    trained on (core.metrics.optimism.DevOverlap: texts matched after normalising), from the runs the two
    checkpoints belong to, read as their training read them (core.studies.run_baseline.run_rows): (A's, B's).
    A run trains on rows it is judged on when its training file shares texts with A's dev file, its own included
    (a dev file cut from the training file). Both None when A's dev rows cannot be read without guessing (a run
    that held rows out but has lost its dev_split.csv); one None when that run's rows cannot."""
    return dev_overlaps(source_a, source_b)[:2]


def dev_overlaps(source_a: str, source_b: str, rows=None):
    """:func:`trained_on_a_dev_rows`'s (A's, B's), then the dev rows of run B that run A trained on (what a
    comparison swapped would be judged on): None when B's dev rows are A's (the same texts) or cannot be read.
    ``rows``: :func:`compared_rows` of the two, when already read."""
    from explorer.core.metrics.optimism import dev_overlap

    a, b = compared_rows(source_a, source_b) if rows is None else rows
    if a is None:
        return None, None, None
    judged = _texts(a[1])
    if b is None:
        return dev_overlap(_texts(a[0]), judged), None, None
    b_dev = _texts(b[1])
    same_rows = (dev_overlap(judged, b_dev).shared == len(b_dev) and dev_overlap(b_dev, judged).shared == len(judged))
    return (dev_overlap(_texts(a[0]), judged), dev_overlap(_texts(b[0]), judged),
            None if same_rows else dev_overlap(_texts(a[0]), b_dev))


def _texts(data):
    return list(zip(data.texts_a, data.texts_b)) if data.texts_b is not None else list(data.texts_a)


def chosen_on_a_dev_rows(source_a: str, source_b: str, rows=None):
    """For checkpoint A and checkpoint B: (core.runs.choice.CheckpointChoice or None, the DevOverlap of its run's
    own dev rows against run A's dev rows, the rows a comparison judges on; None when not readable). A run's
    checkpoints/best was chosen on its own dev rows, so on those of them it is judged on its figure is
    optimistic. ``rows``: :func:`compared_rows` of the two, when already read."""
    from explorer.core.metrics.optimism import dev_overlap
    from explorer.core.runs.choice import checkpoint_choice

    a, b = compared_rows(source_a, source_b) if rows is None else rows
    judged = None if a is None else _texts(a[1])
    return tuple((checkpoint_choice(source), None if judged is None or r is None else dev_overlap(_texts(r[1]), judged))
                 for source, r in ((source_a, a), (source_b, b)))


def compared_rows(source_a: str, source_b: str):
    """The (training rows, dev rows) of run A and of run B, as their training read them
    (core.studies.run_baseline.run_rows); None for a run whose rows cannot be read without guessing."""
    from explorer.core.errors import UserError
    from explorer.core.runs.layout import config_file, dev_split_file, run_dir_of
    from explorer.core.specs.train_config import TrainConfig
    from explorer.core.studies.run_baseline import run_rows

    def rows(source: str):
        run_dir = run_dir_of(Path(str(source)).expanduser())
        if run_dir is None or not config_file(run_dir).is_file():
            return None
        config = TrainConfig.load(config_file(run_dir))
        if not config.dev and not dev_split_file(run_dir).is_file() and config.resolved_dev_fraction() > 0:
            return None
        return run_rows(run_dir, config)

    def read(source: str):
        try:
            return rows(source)
        except (OSError, UserError):
            return None

    a = read(source_a)
    return a, a if str(source_b) == str(source_a) else read(source_b)


def b_trained_on_a_dev_rows(source_a: str, source_b: str):
    """The dev rows of run A that run B trained on (:func:`trained_on_a_dev_rows`'s second); None when either
    run's rows cannot be read without guessing."""
    return trained_on_a_dev_rows(source_a, source_b)[1]


def seeds_if_only_they_differ(source_a: str, source_b: str) -> tuple:
    """(A's seed, B's seed) when the runs of the two checkpoints differ in their seed alone (their saved configs,
    core.specs.train_config.differing_settings), else ()."""
    from explorer.core.models.checkpoint_windows import checkpoint_run_config
    from explorer.core.specs.train_config import TrainConfig, differing_settings

    ca, cb = checkpoint_run_config(source_a), checkpoint_run_config(source_b)
    if not ca or not cb or differing_settings(ca, cb) != ["seed"]:
        return ()
    default = TrainConfig.__dataclass_fields__["seed"].default
    return ca.get("seed", default), cb.get("seed", default)


def op_compare_classifiers(state: State, args: dict, progress, cancelled):
    """Checkpoints ``source_a`` and ``source_b`` (two classification runs' best) on the same dev rows: A's run
    dev file, or the training rows A's run held out (core.classify.dev_report.run_data_settings), each scored by
    score_classification_dev (no cap: every row), then core.classify.compare.compare_classifiers with
    ``name_a`` / ``name_b`` and the metric each run picks its best checkpoint by (core.specs.tasks.best_metric_name
    of its config; F_avg over A's f1_classes). Progress (done, 3): A scored, B scored, compared. Returns
    {"lines": [str], "n", "accuracy": [A, B, low, high], "macro_f1": [A, B, low, high], "only_a", "only_b", "p",
    "source", "judged_by" (the metric the verdict goes by),
    "dev_cap" (A's run's Dev cap, not applied here: 0 = none), "judged": [name, A, B, low, high] (when the runs'
    own metric is another), "a_trained_on_dev_rows" / "b_trained_on_dev_rows" (how many of the dev rows A's / B's
    run trained on, None when its rows cannot be read; when either is > 0 the first line warns, naming each run
    that did; a note follows when A trained on B's own dev rows: swapped, the comparison would favour A; when the
    two runs differ only in the seed, the comparison's first line says its difference is seed-to-seed variation),
    "chosen_among": [A's, B's] (the evaluations a checkpoints/best was chosen among on some of these rows, None
    when it was not: its figure is marked optimistic under the verdict, core.metrics.optimism.chosen_checkpoint_notes),
    "swapped": the same reply with B first (ClassifierComparison.swapped: every interval mirrored), when B's run
    judges on the same dev rows in the same order and F_avg over the same classes, so a swap needs no new pass}.
    Raises UserError when A's run names no dev rows or the two heads differ."""
    from explorer.core.classify.compare import compare_classifiers, training_amount
    from explorer.core.classify.dev_report import run_data_settings, run_max_seq_length
    from explorer.core.training.dev_scoring import score_classification_dev
    from explorer.core.errors import Cancelled
    from explorer.core.models.loading import load_model
    from explorer.core.specs.heads import SINGLE_LABEL
    from explorer.core.specs.tasks import best_metric_name, find_task_facts

    source_a, source_b = str(args["source_a"]), str(args["source_b"])
    settings = run_data_settings(source_a)
    task = str(args.get("task") or settings.get("task") or "single")
    facts = find_task_facts(task)
    head = (facts.head if facts is not None else SINGLE_LABEL).model_head
    dev = settings.get("dev") or (settings.get("train") if settings.get("dev_split") else "")
    if not dev:
        raise UserError(f"{source_a}: its run names no dev file and held no training rows out; nothing to "
                        "compare the two on")
    reports = []
    for i, source in enumerate((source_a, source_b)):
        if cancelled():
            raise Cancelled()
        progress(i, 3)
        loaded = on_device(load_model(source, head))
        report = score_classification_dev(loaded.model, loaded.tokenizer, task, dev, cap=None, settings=settings,
                                          max_seq_length=int(args.get("max_seq_length") or run_max_seq_length(source)))
        if getattr(report, "logits", None) is None:
            raise UserError(f"{source}: not a classifier with one label per row; compare needs two classifiers")
        reports.append(report)
    a, b = reports
    if a.label_names != b.label_names:
        raise UserError(f"the two models have different classes ({', '.join(a.label_names)} and "
                        f"{', '.join(b.label_names)}); compare needs the same classes")
    progress(2, 3)
    picked_by = tuple(best_metric_name(s) if s else "" for s in (settings, run_data_settings(source_b)))
    cmp = compare_classifiers(a.labels, a.logits, b.logits, name_a=str(args.get("name_a") or "A"),
                              name_b=str(args.get("name_b") or "B"), source=str(dev),
                              resamples=int(args.get("resamples") or 10_000), picked_by=picked_by,
                              label_names=a.label_names, f1_classes=tuple(settings.get("f1_classes") or ()),
                              seeds=seeds_if_only_they_differ(source_a, source_b))
    rows = compared_rows(source_a, source_b)
    *leaks, swapped = dev_overlaps(source_a, source_b, rows)
    choices = chosen_on_a_dev_rows(source_a, source_b, rows)
    from explorer.core.models.checkpoint_windows import checkpoint_run_config

    budgets = tuple(float(checkpoint_run_config(src).get("time_budget_minutes") or 0) for src in (source_a, source_b))
    amounts = (training_amount(source_a), training_amount(source_b))
    lineage = (source_a, source_b)
    out = _comparison_payload(cmp, leaks, swapped, choices, amounts, budgets, int(settings.get("dev_cap") or 0),
                              lineage)
    settings_b = run_data_settings(source_b)
    if judged_on_the_same_rows(settings, settings_b, rows):
        # B's run judges on the same rows in the same order: its comparison is this one mirrored, no new pass
        out["swapped"] = _comparison_payload(cmp.swapped(), leaks[::-1], None, choices[::-1], amounts[::-1],
                                             budgets[::-1], int(settings_b.get("dev_cap") or 0), lineage[::-1])
    return out


def judged_on_the_same_rows(settings_a: dict, settings_b: dict, rows) -> bool:
    """Whether a comparison with run B first (judged on B's dev rows, F_avg over B's classes) is the one with A
    first, mirrored: both runs read the same dev file in the same way (core.classify.dev_report.run_data_settings:
    its path, columns and labels; neither a held-out split), or their dev rows as read (``rows``:
    :func:`compared_rows`) are the same; and both average F_avg over the same classes."""
    from explorer.core.classify.dev_report import TABLE_SETTINGS

    if (settings_a.get("f1_classes") or None) != (settings_b.get("f1_classes") or None):
        return False
    if same_dev_rows(rows):
        return True
    if not settings_a.get("dev") or not settings_b.get("dev") or settings_a.get("dev_split") or settings_b.get("dev_split"):
        return False
    same_file = Path(str(settings_a["dev"])).expanduser().resolve() == Path(str(settings_b["dev"])).expanduser().resolve()
    return same_file and all(settings_a.get(k) == settings_b.get(k) for k in TABLE_SETTINGS)


def same_dev_rows(rows) -> bool:
    """Whether run A's and run B's dev rows (:func:`compared_rows`) are the same texts with the same labels in the
    same order: then a comparison judged on B's rows is the one judged on A's, mirrored."""
    a, b = rows if rows is not None else (None, None)
    if a is None or b is None:
        return False
    da, db = a[1], b[1]
    return _texts(da) == _texts(db) and list(getattr(da, "labels", []) or []) == list(getattr(db, "labels", []) or [])


def _comparison_payload(cmp, leaks, swapped, choices, amounts, budgets, dev_cap: int, sources=("", "")) -> dict:
    """op_compare_classifiers' reply for one order of the two runs (``cmp``'s A first; ``sources``: their
    checkpoints in that order): its lines with the notes of that order (rows a run trained on, one run started from
    the other's checkpoint, unequal training, checkpoints chosen on the judged rows) and figures."""
    from explorer.core.classify.compare import (started_from_note, swapped_note, trained_on_note,
                                                unequal_training_note)
    from explorer.core.metrics.optimism import chosen_checkpoint_notes

    judged = {} if cmp.judged is None else {
        "judged": [cmp.judged.metric, cmp.judged.value_a, cmp.judged.value_b, cmp.judged.low, cmp.judged.high]}
    notes = [trained_on_note(list(zip((cmp.name_a, cmp.name_b), leaks))), swapped_note(cmp.name_a, cmp.name_b, swapped),
             started_from_note(cmp.name_a, sources[0], cmp.name_b, sources[1], amounts),
             unequal_training_note(cmp.name_a, amounts[0], cmp.name_b, amounts[1], budgets)]
    marks = chosen_checkpoint_notes([(name, *c) for name, c in zip((cmp.name_a, cmp.name_b), choices)])
    return {"lines": [n for n in notes if n] + cmp.lines(marks), "n": cmp.n, "source": cmp.source,
            "judged_by": cmp.judged_by, "dev_cap": dev_cap,
            "chosen_among": [c.evaluations if c is not None and c.chosen and o is not None and o.shared else None
                             for c, o in choices],
            "a_trained_on_dev_rows": leaks[0].shared if leaks[0] is not None else None,
            "b_trained_on_dev_rows": leaks[1].shared if leaks[1] is not None else None,
            "accuracy": [cmp.accuracy.value_a, cmp.accuracy.value_b, cmp.accuracy.low, cmp.accuracy.high],
            "macro_f1": [cmp.macro_f1.value_a, cmp.macro_f1.value_b, cmp.macro_f1.low, cmp.macro_f1.high],
            "only_a": cmp.mcnemar.only_a, "only_b": cmp.mcnemar.only_b, "p": cmp.mcnemar.p, **judged}


def op_squad_rows(state: State, args: dict, progress, cancelled):
    """A SQuAD file -> (rows for the probe panel's pickers, a one-line report)."""
    from explorer.core.data.squad import load_squad

    path = args["path"]
    ds, report = load_squad(path)
    rows = [{"id": i, "title": t, "question": q, "context": c}
            for i, t, q, c in zip(ds["id"], ds["title"], ds["question"], ds["context"])]
    text = (f"{Path(path).name}: SQuAD {report.version}, {report.n_articles} articles, "
            f"{report.n_questions} questions ({report.n_impossible} without answer)")
    return rows, text


def op_hub_download(state: State, args: dict, progress, cancelled):
    """Download hub repository ``repo_id`` (``repo_type`` "model" or "dataset") into the hub cache with
    byte progress (at most ten events a second, and the last) and cancel; returns its local folder."""
    import time

    from explorer.core.hub import fetch

    last = [0.0]

    def report(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] >= 0.1 or done >= total:
            last[0] = now
            progress(done, total)

    return fetch(args["repo_id"], repo_type=args.get("repo_type", "model"), progress=report, cancelled=cancelled)


def op_compare_checkpoints(state: State, args: dict, progress, cancelled):
    """The same example through the slot's model (A) and checkpoint ``source_b`` (B), loaded for QA into the
    slot ``slot + ".compare"`` (kept while the source is the same), or the model of slot ``slot_b`` when given:
    explorer.core.qa.attention_compare's CheckpointComparison of one window."""
    from explorer.core.qa.attention_compare import compare_checkpoints
    from explorer.core.models.loading import load_model

    slot = args.get("slot", "qa")
    loaded_a = state.model(slot)
    source_b = str(args.get("source_b") or "").strip()
    if args.get("slot_b"):   # B already loaded in a slot (the Compare tab's A | B page: compare-a / compare-b)
        kept = state.model(str(args["slot_b"]))
    elif not source_b:
        raise UserError("choose the checkpoint to compare with")
    else:
        with state.lock:
            kept = state.models.get(slot + ".compare")
        if kept is None or getattr(kept, "source", None) != source_b:
            progress(0, 2)
            kept = on_device(load_model(source_b, "qa"))
            with state.lock:
                state.models[slot + ".compare"] = kept
    progress(1, 2)
    window = args.get("window")
    return compare_checkpoints(loaded_a, kept, args["question"], args["passage"],
                               label_a=str(args.get("label_a") or "A"), label_b=str(args.get("label_b") or "B"),
                               window=None if window is None else int(window),
                               max_seq_length=int(args.get("max_seq_length", 384)),
                               doc_stride=int(args.get("doc_stride", 128)),
                               max_query_length=int(args.get("max_query_length", 64)),
                               max_answer_length=int(args.get("max_answer_length", 30)))
def _embed_model(state: State, slot: str, source: str):
    """The model in ``slot`` when it is ``source`` (a model handed over or loaded before), else
    core.embeddings.vectors.load_encoder(source) kept in the slot."""
    from explorer.core.embeddings.vectors import load_encoder

    with state.lock:
        loaded = state.models.get(slot)
    if loaded is not None and (not source or getattr(loaded, "source", None) == source):
        return loaded
    if not source:
        raise UserError("enter a model: a checkpoint folder, a hub id or bundled:minilm")
    loaded = load_encoder(source)
    with state.lock:
        state.models[slot] = loaded
    return loaded


def op_embed(state: State, args: dict, progress, cancelled):
    """Embed a corpus (explorer.core.embeddings.space): ``path`` (+ ``text_column``), ``word`` (+ ``case_sensitive``)
    or sentences pooled by ``pooling``, at most ``max_occurrences``; model ``model`` (slot "embed") and, when
    ``model_b`` is given, the same points through it (slot "embed_b"), rotated onto A by Procrustes. Progress
    in points embedded (both models counted); cancel between batches. The space stays here; returns it without
    its vectors (core.embeddings.space.summary_of)."""
    from explorer.core.embeddings.corpus import read_corpus
    from explorer.core.embeddings.occurrences import find_occurrences
    from explorer.core.embeddings.space import pair_spaces, space_of, summary_of
    from explorer.core.models.info import model_name

    corpus = read_corpus(args["path"], text_column=str(args.get("text_column") or ""))
    word = str(args.get("word") or "")
    options = {"word": word, "case_sensitive": bool(args.get("case_sensitive")),
               "max_occurrences": int(args.get("max_occurrences") or 0), "pooling": str(args.get("pooling") or "cls"),
               "max_seq_length": int(args.get("max_seq_length") or 0), "batch_size": int(args.get("batch_size") or 16)}
    if word.strip():
        options["occurrences"] = find_occurrences(corpus.texts, word, case_sensitive=options["case_sensitive"],
                                                  cap=options["max_occurrences"], where=Path(corpus.source).name)
    loaded = _embed_model(state, "embed", str(args.get("model") or ""))
    source_b = str(args.get("model_b") or "")
    loaded_b = _embed_model(state, "embed_b", source_b) if source_b else None
    share = 2 if loaded_b is not None else 1

    def stage(k: int):
        def report(done: int, total: int) -> None:
            progress(k * total + done, share * total)
        return report

    space = space_of(loaded, corpus, progress=stage(0), cancelled=cancelled, **options)
    if loaded_b is not None:
        other = space_of(loaded_b, corpus, progress=stage(1), cancelled=cancelled, **options)
        name_a, name_b = model_name(loaded), model_name(loaded_b)
        if name_a == name_b:
            name_a, name_b = f"A: {name_a}", f"B: {name_b}"
        space = pair_spaces(space, other, name_a, name_b)
    ref = state.next_ref()
    state.keep_space(ref, {"space": space, "shared": None, "projections": {}})
    return summary_of(space, ref)


def op_embed_project(state: State, args: dict, progress, cancelled):
    """The 2-D map of kept space ``ref`` at ``layer`` (None or "all" = every layer) by ``method`` (pca, tsne,
    umap) with ``clusters`` k-means labels (0 = none): core.embeddings.projection.Projection, remembered for exports."""
    from explorer.core.embeddings.projection import project_space

    kept = state.space(args["ref"])
    layer = args.get("layer")
    layer = None if layer in (None, "all") else int(layer)
    method, clusters = str(args.get("method") or "pca"), int(args.get("clusters") or 0)
    projection, shared = project_space(kept["space"], layer, method, clusters=clusters, shared=kept["shared"],
                                       progress=progress, cancelled=cancelled)
    kept["shared"] = shared
    kept["projections"][(layer, method, clusters)] = projection
    kept["last"] = projection
    return projection


def op_embed_neighbours(state: State, args: dict, progress, cancelled):
    """The ``k`` (default 10) nearest points of point ``index`` at ``layer`` of kept space ``ref`` by cosine in
    the original space: [[index, cosine], ...], nearest first."""
    from explorer.core.embeddings.geometry import nearest_neighbours

    space = state.space(args["ref"])["space"]
    row = space.layer_row(int(args.get("layer", -1)))
    return [[j, c] for j, c in nearest_neighbours(space.vectors[row], int(args["index"]), int(args.get("k") or 10))]


def op_embed_export(state: State, args: dict, progress, cancelled):
    """Write kept space ``ref`` at ``layer`` as projector files (+ coordinates.csv of the map last drawn) into
    ``folder``, or only the map's CSV to ``csv``; returns the paths written (a dict)."""
    from explorer.core.embeddings.export import export_space, write_coordinates

    kept = state.space(args["ref"])
    space, projection = kept["space"], kept.get("last")
    layer = int(args.get("layer", -1))
    if args.get("csv"):
        if projection is None:
            raise UserError("draw the map first")
        meta_layer = projection.layer if projection.layer >= 0 else layer
        meta = space.metadata(meta_layer)
        if projection.point_layers is not None:
            meta = {k: [] for k in meta}
            for r in range(len(space.layers)):
                for k, v in space.metadata(space.layers[r]).items():
                    meta[k].extend(v)
        if projection.clusters is not None:
            meta["cluster"] = [str(c) for c in projection.clusters]
        return {"coordinates": write_coordinates(args["csv"], projection.coords, meta)}
    files = export_space(space, args["folder"], layer, projection)
    return {k: v for k, v in files.__dict__.items() if v}


def op_ping(state: State, args: dict, progress, cancelled):
    """The child's pid and whether torch is loaded (tests, health checks)."""
    import os
    import sys

    return {"pid": os.getpid(), "torch": "torch" in sys.modules, "slots": sorted(state.models)}


from explorer.worker import head_ops  # noqa: E402 - its ops take this module's State

# op name -> (function, lane). Lanes run in order, each on its own thread: "model" (quick, interactive),
# "study" (long, cancellable), "predict" (a whole file labelled: long, cancellable), "io" (file reading,
# quick lookups), "download" (a hub repository into the cache: long, cancellable, never in the way of a
# probe), "explain" (attributions: up to a few hundred forward and backward passes, cancellable), "embed"
# (embeddings and their maps: long, cancellable).
OPS: dict[str, tuple[Callable, str]] = {
    "load": (op_load, "model"), "probe": (op_probe, "model"), "attention_weights": (op_attention_weights, "model"),
    "saliency": (op_saliency, "model"),
    "compare_checkpoints": (op_compare_checkpoints, "model"), "classify": (op_classify, "model"), "tag": (op_tag, "model"), "ping": (op_ping, "model"),
    "mask_heads": (head_ops.op_mask_heads, "model"), "head_importance": (head_ops.op_head_importance, "study"),
    "study": (op_study, "study"), "layer_probes": (op_layer_probes, "study"), "classify_dev": (op_classify_dev, "study"),
    "tag_dev": (op_tag_dev, "study"),
    "predict": (op_predict, "predict"), "cv_oof": (op_cv_oof, "predict"), "curve_score": (op_curve_score, "predict"),
    "compare_classifiers": (op_compare_classifiers, "predict"), "squad_rows": (op_squad_rows, "io"), "hub_download": (op_hub_download, "download"),
    "explain": (op_explain, "explain"), "decision": (op_decision, "explain"),
    "embed": (op_embed, "embed"), "embed_project": (op_embed_project, "embed"),
    "embed_neighbours": (op_embed_neighbours, "io"), "embed_export": (op_embed_export, "io"),
}

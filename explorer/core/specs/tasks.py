"""What each fine-tuning task *is*, in one torch-free table.

Everything that needs to know a fact about a task reads it here: the config (defaults, validation,
help texts), the training loop (which metric picks ``checkpoints/best``), the runs list and the GUI's
run states (which metric ranks runs), the launcher (labels, data preview) and the worker's
``--task`` flag. The task *behaviour* (data loading, features, loss, metrics) lives in
``explorer.core.training.tasks``, which imports torch; this module must stay importable without it.

A task is registered one way: its :class:`TaskFacts` row through :func:`add_task_facts` (the rows below go
through it at import; a plugin calls it at run time). The row names its model head (``head``, an entry of
``explorer.core.specs.heads``) and the training ``Task`` class that implements it (``trainer``, "module:Class"
under ``explorer.core.training.tasks``, built by ``get_task``); a row without a ``trainer`` is known to the
config and the app but cannot be trained. The multiple-choice row (``swag``: ``head=MULTIPLE_CHOICE``, one
score C_k . w per choice, softmax across the four choices, best metric ``accuracy``; BERT paper Section 4.4)
sits in the same table.

Sources of the defaults: BERT paper (Devlin et al. 2019) Section 4 and Appendix A.3 for the
learning rates; the official ``run_squad.py`` (max_seq_length 384) and ``run_classifier.py`` (128).
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass
from typing import Iterable, Mapping

from explorer.core.errors import ConfigError
from explorer.core.specs import heads as _heads
from explorer.core.specs.heads import HeadSpec
from explorer.core.specs.metrics import metric_spec, ranking_fallbacks


@dataclass(frozen=True, kw_only=True)
class TaskFacts:
    """One task's fixed facts.

    Attributes:
        name: the ``--task`` value and config.json's ``task``.
        label: what the GUI shows for it.
        head: its model head (``explorer.core.specs.heads``: QA, SINGLE_LABEL, REGRESSION, MULTI_LABEL,
            MULTIPLE_CHOICE, TOKEN_CLASSIFICATION): what it loads (``head.model_head``), what its checkpoints are
            recognised as and what predict, explain and the inspector pages do with them.
        trainer: the training ``Task`` class, "module:Class" (``explorer.core.training.tasks.get_task`` builds
            it with the task's name); "" = the task cannot be trained.
        best_metric: the dev metric that picks the best checkpoint and ranks runs unless the config's
            ``metric_for_best`` names another (its direction is its row's in ``core/specs/metrics``).
        default_learning_rate: peak AdamW learning rate when the config leaves it unset.
        default_max_seq_length: tokens per window when the config leaves it unset.
        default_batch_size: examples (QA: windows) per micro-batch the launcher starts a task with (the
            paper's 32; BERT Appendix A.3).
        default_eval_every: optimizer steps between dev evaluations the launcher starts a task with (0: at
            the start and the end only).
        default_evals_per_epoch: dev evaluations per epoch of the training file the launcher starts a task
            with once the file's size is known (:func:`eval_every_for`); 0 = ``default_eval_every`` stays.
        data_formats: what ``--train`` / ``--dev`` accept for this task, in words.
        squad_version: "v1.1" / "v2.0" for the QA tasks, "" otherwise.
        pair: classification of sentence pairs (two text columns) rather than single sentences.
        data_kind: which reader its ``--train`` / ``--dev`` files go through: "squad" (official SQuAD
            JSON, ``core/data/squad.py``), "table" (rows of a .tsv / .csv / .jsonl file,
            ``core/data/classification.py``), "swag" (the SWAG CSV, ``core/data/swag.py``) or "conll" (CoNLL word/tag
            columns or JSONL tokens/tags, ``core/data/conll.py``). The data
            sniffer (``core/data/sniff.py``) and the launcher's data preview go by it.
        metrics: the scalar dev metrics the task's evaluation reports (each has a row in
            ``core/specs/metrics``; counts such as ``total`` are not listed); () = its head's ``metrics``.
            ``metric_for_best`` must be one of them (:func:`check_metric_for_best`).
        metric_labels: (metric, label) pairs where this task's metric is not what the shared row of
            ``core/specs/metrics`` names it (ner: "f1" is the entity-level F1, "entity F1"); see
            ``core.specs.metric_display.metric_label``.
        dev_split: how a run without a dev file holds training rows out as dev (``dev_fraction``, the task's
            ``split_dev``): "stratified" (by class), "random" (scores have no classes), or "" (none: such a run
            is never evaluated). See :func:`no_dev_file_note`.
    """

    name: str
    label: str
    head: HeadSpec
    trainer: str = ""
    best_metric: str
    default_learning_rate: float
    default_max_seq_length: int
    data_formats: str
    squad_version: str = ""
    pair: bool = False
    data_kind: str = "table"
    metrics: tuple[str, ...] = ()
    metric_labels: tuple[tuple[str, str], ...] = ()
    default_batch_size: int = 32
    default_eval_every: int = 0
    default_evals_per_epoch: int = 0
    dev_split: str = ""

    def __post_init__(self):
        if not self.metrics:
            object.__setattr__(self, "metrics", self.head.metrics)

    @property
    def is_qa(self) -> bool:
        """Extractive question answering (windows, spans, SQuAD metrics): the span QA head."""
        return self.head is _heads.QA

    @property
    def problem(self) -> str:
        """What its label column holds (the head's ``problem``: "classification", "regression", "multilabel";
        "" for heads other than sequence classification)."""
        return self.head.problem

    @property
    def is_multiple_choice(self) -> bool:
        """One score per candidate ending, softmax across them (SWAG; BERT paper Section 4.4)."""
        return self.head.inputs is _heads.Inputs.CHOICES

    @property
    def has_no_answer(self) -> bool:
        """QA with unanswerable questions (SQuAD v2.0): the no-answer baseline and τ apply."""
        return self.squad_version == "v2.0"

    @property
    def is_regression(self) -> bool:
        """One score per text or pair (STS-B style), not a label."""
        return self.head.scores is _heads.Scores.SCORE

    @property
    def is_multilabel(self) -> bool:
        """Any number of labels per text (one sigmoid per label)."""
        return self.head.scores is _heads.Scores.SIGMOID

    @property
    def takes_pairs(self) -> bool:
        """Its examples may be sentence pairs: the pair tasks, and regression / multi-label, whose tables
        hold one or two text columns (STS-B scores pairs)."""
        return self.pair or self.is_regression or self.is_multilabel


_SQUAD_FORMATS = "an official-format SQuAD JSON file, or the hub id rajpurkar/squad / rajpurkar/squad_v2"
_GLUE_FORMATS = ("a .tsv / .csv file with a header row (GLUE style), a .jsonl / .json file with one object "
                 "per line, or a hub dataset id such as nyu-mll/glue::sst2")
_REGRESSION_FORMATS = (_GLUE_FORMATS + "; the label column holds numbers (e.g. STS-B similarity 0-5), one or two "
                       "text columns")
_MULTILABEL_FORMATS = (_GLUE_FORMATS + "; labels as a delimited list in one column (econ;politics, "
                       "--label-separator) or one 0/1 column per label (several --label-column names)")
_TAGGING_FORMATS = ("a CoNLL column file (word first, tag last, 2 or 4 columns, a blank line between sentences; "
                    "IOB1 / IOB2 / BIOES, read as IOB2) or a .jsonl file with tokens and tags lists")
_SWAG_FORMATS = "a SWAG-format .csv file with a header row (sent1, sent2, ending0..ending3, label)"
# What each task's evaluation reports beyond its head's metrics (tasks/qa.py: evaluate-v2.0 with null odds, plus
# the dev loss); the other tasks report their head's (explorer.core.specs.heads).
_SQUAD_V2_METRICS = ("exact_match", "f1", "HasAns_exact", "HasAns_f1", "NoAns_exact", "NoAns_f1", "best_exact",
                     "best_exact_thresh", "best_f1", "best_f1_thresh", "best_tau", "tau", "loss")
_TASKS = "explorer.core.training.tasks"

# SQuAD 2.0 picks checkpoints by best_f1 (F1 at the best threshold, official evaluate-v2.0): τ is chosen
# after training, so the F1 at τ = 0 would reward a checkpoint for where its null score happens to sit
# rather than for how well it ranks answers against "no answer".
# table and tagging tasks evaluate 4 times per epoch by default: a dev curve to stop early on and to pick the best
# checkpoint from, at a few percent of the training time ("start and end" gives a curve of two points)
TABLE_EVALS_PER_EPOCH = 4

_TABLE: dict[str, TaskFacts] = {}


def add_task_facts(facts: TaskFacts) -> TaskFacts:
    """Register a task: add (or replace, by name) its row. The one way a task comes to exist: the rows below go
    through it, and so does a task added at run time (a plugin). Its training ``Task`` is the row's ``trainer``
    (explorer.core.training.tasks.get_task)."""
    _TABLE[facts.name] = facts
    return facts


for _row in (
    TaskFacts(name="squad_v1", label="SQuAD v1.1 (extractive QA)", head=_heads.QA, trainer=f"{_TASKS}.qa:QATask",
              best_metric="f1", default_learning_rate=3e-5, default_max_seq_length=384,
              data_formats=_SQUAD_FORMATS, squad_version="v1.1", data_kind="squad"),
    TaskFacts(name="squad_v2", label="SQuAD v2.0 (QA + no answer)", head=_heads.QA, trainer=f"{_TASKS}.qa:QATask",
              best_metric="best_f1", default_learning_rate=3e-5, default_max_seq_length=384,
              data_formats=_SQUAD_FORMATS, squad_version="v2.0", data_kind="squad", metrics=_SQUAD_V2_METRICS),
    TaskFacts(name="single", label="Single sentence (SST-2 style)", head=_heads.SINGLE_LABEL,
              trainer=f"{_TASKS}.classification:ClassificationTask", best_metric="accuracy",
              default_learning_rate=2e-5, default_max_seq_length=128, data_formats=_GLUE_FORMATS,
              default_evals_per_epoch=TABLE_EVALS_PER_EPOCH, dev_split="stratified"),
    TaskFacts(name="pair", label="Sentence pair (MRPC style)", head=_heads.SINGLE_LABEL,
              trainer=f"{_TASKS}.classification:ClassificationTask", best_metric="accuracy",
              default_learning_rate=2e-5, default_max_seq_length=128, data_formats=_GLUE_FORMATS, pair=True,
              default_evals_per_epoch=TABLE_EVALS_PER_EPOCH, dev_split="stratified"),
    TaskFacts(name="swag", label="Multiple choice (SWAG)", head=_heads.MULTIPLE_CHOICE,
              trainer=f"{_TASKS}.multiple_choice:MultipleChoiceTask", best_metric="accuracy",
              default_learning_rate=2e-5, default_max_seq_length=128, data_formats=_SWAG_FORMATS, data_kind="swag"),
    # GLUE STS-B: one output, score = C . w + b, mean squared error; GLUE reports Pearson / Spearman.
    TaskFacts(name="regression", label="Regression: a score per text or pair (STS-B style)", head=_heads.REGRESSION,
              trainer=f"{_TASKS}.scores_and_label_sets:RegressionTask", best_metric="pearson",
              default_learning_rate=2e-5, default_max_seq_length=128, data_formats=_REGRESSION_FORMATS,
              default_evals_per_epoch=TABLE_EVALS_PER_EPOCH, dev_split="random"),
    # Reuters-21578 style: one sigmoid per label, binary cross-entropy; micro F1 is the usual headline figure.
    TaskFacts(name="multilabel", label="Multi-label: any number of labels per text (Reuters style)",
              head=_heads.MULTI_LABEL, trainer=f"{_TASKS}.scores_and_label_sets:MultiLabelTask",
              best_metric="micro_f1", default_learning_rate=2e-5, default_max_seq_length=128,
              data_formats=_MULTILABEL_FORMATS, default_evals_per_epoch=TABLE_EVALS_PER_EPOCH),
    # CoNLL-2003 NER (BERT paper Section 5.3, Figure 4d): a tag per word from its first piece, entity-level F1
    # (seqeval strict IOB2, as conlleval); learning rate 5e-5 as Hugging Face run_ner.py.
    TaskFacts(name="ner", label="Token tagging: named entities (CoNLL-2003 style)", head=_heads.TOKEN_CLASSIFICATION,
              trainer=f"{_TASKS}.tagging:TaggingTask", best_metric="f1", default_learning_rate=5e-5,
              default_max_seq_length=128, data_formats=_TAGGING_FORMATS, data_kind="conll",
              metric_labels=(("f1", "entity F1"), ("precision", "entity precision"), ("recall", "entity recall")),
              default_evals_per_epoch=TABLE_EVALS_PER_EPOCH),
):
    add_task_facts(_row)

# When a run's evaluations lack its best metric (e.g. a regression head reports pearson, not
# accuracy), the first of these that is present ranks the run instead (core/specs/metrics).
FALLBACK_METRICS = ranking_fallbacks()


def task_names() -> list[str]:
    """Every known task name, in table order."""
    return list(_TABLE)


def qa_task_names() -> tuple[str, ...]:
    """The extractive-QA task names."""
    return tuple(name for name, f in _TABLE.items() if f.is_qa)


def tasks_reading(data_kind: str) -> tuple[str, ...]:
    """The task names whose data files go through reader ``data_kind`` ("squad", "table", "swag", "conll")."""
    return tuple(name for name, f in _TABLE.items() if f.data_kind == data_kind)


def tasks_on_page(title: str) -> tuple[str, ...]:
    """The task names whose head opens in the inspector page titled ``title`` (its plain title, "Classify")."""
    return tuple(name for name, f in _TABLE.items() if title in f.head.pages)


def task_for_checkpoint(head: HeadSpec | None, run_task: str | None = None) -> str | None:
    """The task a checkpoint with head ``head`` (``explorer.core.specs.heads.recognise``) is opened as:
    ``run_task`` (the task in its run's config.json) when that task has this head, else the first task of the
    table with it; None for no head or a head no task has."""
    if head is None:
        return None
    facts = _TABLE.get(str(run_task or ""))
    if facts is not None and facts.head is head:
        return facts.name
    return next((name for name, f in _TABLE.items() if f.head is head), None)


def task_for_model(model_head: str | None, problem: str = "", current: str | None = None) -> str | None:
    """The task a loaded model is shown as when only its ``model_head`` (``LoadedModel.task``) and, for a sequence
    classifier whose checkpoint records it, its head's ``problem`` (``ModelInfo.head_problem``) are known:
    ``current`` when its head loads as ``model_head`` (with this ``problem`` when given), else the first such task
    of the table; None for no head or one no task has."""
    if not model_head:
        return None

    def fits(facts: TaskFacts) -> bool:
        return facts.head.model_head == model_head and (not problem or facts.head.problem == problem)

    facts = _TABLE.get(str(current or ""))
    if facts is not None and fits(facts):
        return facts.name
    return next((name for name, f in _TABLE.items() if fits(f)), None)


def head_of_task(name: str | None) -> HeadSpec | None:
    """The head of task ``name``; None for an unknown name."""
    facts = _TABLE.get(str(name or ""))
    return facts.head if facts is not None else None


def task_dev_split(name: str | None) -> str:
    """How a run of task ``name`` without a dev file holds training rows out as dev ("stratified", "random"); ""
    when it holds none out (the task's ``dev_split``; an unknown name holds none out)."""
    facts = _TABLE.get(str(name or ""))
    return facts.dev_split if facts is not None else ""


def get_task_facts(name: str) -> TaskFacts:
    """The facts of task ``name``.

    Raises:
        KeyError: unknown name (the message lists the known ones).
    """
    try:
        return _TABLE[name]
    except KeyError:
        raise KeyError(f"task {name!r} is not one of {', '.join(_TABLE)}") from None


def find_task_facts(name: str) -> TaskFacts | None:
    """The facts of task ``name``, or None for an unknown name."""
    return _TABLE.get(name)


def is_qa_task(name: str) -> bool:
    """True for the extractive-QA tasks; False for the others and unknown names."""
    facts = _TABLE.get(name)
    return bool(facts and facts.is_qa)


def is_single_label_table(name: str) -> bool:
    """True for the tasks that give one class per row of a table (single sentence, pair): what McNemar and a
    macro F1 compare; False for regression, multi-label, multiple choice, QA, tagging and unknown names."""
    facts = _TABLE.get(name)
    return bool(facts and facts.data_kind == "table" and not facts.is_regression and not facts.is_multilabel)


def no_dev_file_note(task: str, dev_fraction: float, seed: int, n_rows: int = 0) -> str:
    """What a run of ``task`` without a dev file does about evaluation, in one sentence (the launcher's Dev data
    preview: never "The run will not be evaluated" while the run holds out 10 % as dev).

    ``dev_fraction``: the share held out (TrainConfig.resolved_dev_fraction); ``seed``: the run's seed;
    ``n_rows``: the training rows the run reads (after its Train cap), 0 when not known yet. Only the tasks
    whose row has a ``dev_split`` hold rows out; for the others, and for a fraction of 0, the run is never
    evaluated, and the sentence says so and why."""
    how = task_dev_split(task)
    if not how:
        return ("No dev file: the run will not be evaluated (this task holds out no dev split: give a dev file for "
                "a dev curve and a best checkpoint).")
    if dev_fraction <= 0:
        return ("No dev file and Dev fraction 0: the run will not be evaluated (no dev curve, no best checkpoint: "
                "its result is checkpoints/last).")
    about = f" (about {round(n_rows * dev_fraction):,} of {n_rows:,})" if n_rows > 0 else ""
    return (f"No dev file: the run holds out {dev_fraction:.0%} of the training rows as dev{about} ({how}, seed "
            f"{seed}; Dev fraction), evaluates on them and writes their ids to dev_split.csv in the run folder.")


def train_cap_note(task: str, cap: int, seed: int, n_rows: int = 0) -> str:
    """Which training examples a Train cap of ``cap`` keeps, in one sentence ("" without a cap): a table's a
    seeded random ``cap`` of its rows (stratified by class for one class per row: core.data.sample.capped_rows),
    taken before any dev rows are held out of them; a SQuAD file's questions stratified by answerable /
    unanswerable (core.qa.abstain_training.capped_questions); a CoNLL file's first sentences, a SWAG file's first
    examples. ``n_rows``: the training rows the file holds, 0 when not known yet."""
    if cap <= 0:
        return ""
    facts = find_task_facts(task)
    kind = facts.data_kind if facts is not None else ""
    if kind == "table":
        of = f" of the {n_rows:,} training rows" if n_rows > 0 else " of the training rows"
        if 0 < n_rows <= cap:
            return f"Train cap {cap:,}: the file's {n_rows:,} training rows are all kept."
        by_class = not (facts.is_regression or facts.is_multilabel)
        how, share = ("a stratified random", "each class in its share, ") if by_class else ("a random", "")
        return (f"Train cap {cap:,}: the run trains on {how} {cap:,}{of} ({share}seed {seed}), in the file's "
                "order; any dev rows are held out of them.")
    if kind == "squad":
        return (f"Train cap {cap:,}: the run trains on a random {cap:,} of the training questions, drawn across "
                f"the articles and stratified by answerable / unanswerable (each in its share, seed {seed}).")
    what = {"conll": "sentences", "swag": "examples"}.get(kind, "examples")
    return f"Train cap {cap:,}: the run trains on the first {cap:,} {what} of the training file."


def task_labels() -> dict[str, str]:
    """name -> GUI label, in table order."""
    return {name: f.label for name, f in _TABLE.items()}


def best_metric_name(config: Mapping) -> str:
    """The metric that picks a run's best checkpoint: ``config["metric_for_best"]`` if set, else the
    task's ``best_metric`` ("f1" for an unknown task). ``config`` is a TrainConfig dict (config.json)."""
    chosen = str(config.get("metric_for_best") or "")
    if chosen:
        return chosen
    facts = _TABLE.get(str(config.get("task", "")))
    return facts.best_metric if facts else "f1"


def choose_metric(available: Iterable[str], config: Mapping) -> str | None:
    """Which of the ``available`` metric names ranks this run: :func:`best_metric_name` when present,
    else the first of FALLBACK_METRICS present, else None."""
    names = set(available)
    wanted = best_metric_name(config)
    if wanted in names:
        return wanted
    return next((n for n in FALLBACK_METRICS if n in names), None)


def emitted_metrics(task: str, num_labels: int = 0) -> tuple[str, ...]:
    """The scalar dev metrics a ``task`` run reports (its row's ``metrics``; a head with ``num_labels`` outputs
    that is another head, ``explorer.core.specs.heads.with_outputs``, reports that head's: a sequence classifier
    with one output is a regression head, pearson, spearman, mse, r2, mse_of_mean, loss). () for an unknown task."""
    facts = _TABLE.get(task)
    if facts is None:
        return ()
    head = _heads.with_outputs(facts.head, num_labels)
    return facts.metrics if head is facts.head else head.metrics


def _close_match(name: str, candidates: tuple[str, ...]) -> str | None:
    """The candidate ``name`` most likely meant: the same name in another case or without an ``eval_``
    prefix (transformers' spelling), a candidate it begins ('acc' -> accuracy), else difflib's closest."""
    low = name.lower().removeprefix("eval_")
    for c in candidates:
        if c.lower() == low:
            return c
    starts = [c for c in candidates if c.lower().startswith(low)]
    if starts:
        return starts[0]
    found = difflib.get_close_matches(low, [c.lower() for c in candidates], n=1, cutoff=0.6)
    return next((c for c in candidates if found and c.lower() == found[0]), None)


def check_metric_for_best(task: str, name: str, num_labels: int = 0, f1_classes: Iterable[str] | None = None) -> None:
    """Refuse a ``metric_for_best`` that the ``task`` never reports (or that cannot rank: a threshold), and f_avg
    when ``f1_classes`` is given empty (no F1 classes: the run never reports f_avg; None = not checked).

    ``name`` "" (the task's default) and unknown tasks pass (the task check reports those).

    Raises:
        ConfigError: "metric_for_best 'acc' is not a metric the single task reports (accuracy, f1,
            matthews_corrcoef, loss); did you mean accuracy?" (as transformers' Trainer refuses a
            ``metric_for_best_model`` missing from the evaluation metrics).
    """
    if not name:
        return
    metrics = emitted_metrics(task, num_labels)
    if not metrics:
        return
    pickable = tuple(m for m in metrics if metric_spec(m).can_pick_best)
    if name == "f_avg" and name in pickable and f1_classes is not None and not list(f1_classes):
        raise ConfigError("metric_for_best f_avg averages the F1 of the F1 classes (f1_classes), and none are "
                          "given: name them (SemEval-2016 stance: FAVOR,AGAINST) or pick another metric")
    if name in pickable:
        return
    if name in metrics:
        raise ConfigError(f"metric_for_best {name!r} is not a score (it has no better direction); the {task} "
                          f"task can pick checkpoints/best by {', '.join(pickable)}")
    guess = _close_match(name, pickable)
    hint = f"; did you mean {guess}?" if guess else ""
    raise ConfigError(f"metric_for_best {name!r} is not a metric the {task} task reports "
                      f"({', '.join(pickable)}){hint}")


def data_formats_help() -> str:
    """What ``--train`` / ``--dev`` accept, per kind of task (the help of the data fields)."""
    groups: dict[str, str] = {}
    for f in _TABLE.values():
        groups.setdefault("QA" if f.is_qa else f.head.model_head, f.data_formats)
    return "; ".join(f"{kind}: {formats}" for kind, formats in groups.items())


def metric_for_best_choices(task: str, num_labels: int = 0, f1_classes: Iterable[str] = ()) -> tuple[str, ...]:
    """The dev metrics that may pick a ``task`` run's checkpoints/best (its reported metrics that can rank, in
    the task's order; f_avg only when ``f1_classes`` are given, since the run reports it only then). () for an
    unknown task."""
    has_classes = bool(list(f1_classes or ()))
    return tuple(m for m in emitted_metrics(task, num_labels)
                 if metric_spec(m).can_pick_best and (m != "f_avg" or has_classes))


IMBALANCE_RATIO = 0.10   # imbalanced: the smallest class has fewer than 10% of the largest's examples


def imbalanced_classes(class_counts: Mapping[str, int] | None) -> tuple[str, str] | None:
    """(smallest class, largest class) when the smallest has fewer than IMBALANCE_RATIO of the largest's
    examples (the launcher's imbalance warning and the automatic Best checkpoint by both follow this rule), else
    None; None for fewer than two classes."""
    counts = dict(class_counts or {})
    if len(counts) < 2:
        return None
    small, big = min(counts, key=counts.get), max(counts, key=counts.get)
    return (small, big) if counts[big] and counts[small] < IMBALANCE_RATIO * counts[big] else None


def automatic_metric_for_best(task: str, f1_classes: Iterable[str] = (), num_labels: int = 0,
                              class_counts: Mapping[str, int] | None = None) -> str:
    """What picks checkpoints/best when the launcher's "Best checkpoint by" is left automatic: f_avg when F1
    classes are named for a task that reports it (the researcher named the official measure: SemEval-2016's
    F_avg, so Best dev and checkpoints/best do not go by accuracy); macro_f1 when the training data's
    ``class_counts`` are imbalanced (:func:`imbalanced_classes`; accuracy would pick a model that never predicts
    the small class: 86.7% accuracy at 7% recall of the 6% class); else the task's ``best_metric`` ("" for an
    unknown task)."""
    choices = metric_for_best_choices(task, num_labels, f1_classes)
    if "f_avg" in choices:
        return "f_avg"
    if "macro_f1" in choices and imbalanced_classes(class_counts) is not None:
        return "macro_f1"
    facts = _TABLE.get(task)
    return facts.best_metric if facts else ""


def recorded_metric_for_best(config: Mapping, class_counts: Mapping[str, int] | None = None) -> str:
    """The ``metric_for_best`` a run's config records, by one rule for the launcher and the command line: the one
    named, else :func:`automatic_metric_for_best` of the config's task, F1 classes and label count (and the
    training data's ``class_counts`` where they are known) when it differs from the task's ``best_metric``, else
    "" (the task's default: config.json stays as it was)."""
    chosen = str(config.get("metric_for_best") or "")
    if chosen:
        return chosen
    task = str(config.get("task", ""))
    facts = _TABLE.get(task)
    if facts is None:
        return ""
    auto = automatic_metric_for_best(task, config.get("f1_classes") or (), int(config.get("num_labels") or 0),
                                     class_counts)
    return auto if auto != facts.best_metric else ""


def metric_for_best_help() -> str:
    """The help text of ``metric_for_best``, naming each task's default and the launcher's automatic choice."""
    defaults = ", ".join(f"{f.best_metric} for {name}" for name, f in _TABLE.items())
    return (f"dev metric that picks checkpoints/best (lowest for loss, highest for the scores); empty = the "
            f"task's default ({defaults}), or f_avg when f1_classes are given (the launcher's automatic choice, also "
            f"on the command line)")


def evals_per_epoch_help() -> str:
    """'single, pair, regression, multilabel and ner at 4 evaluations per epoch': the tasks the launcher starts with a
    per-epoch Evaluate every (``default_evals_per_epoch``), for the help of ``eval_every``."""
    groups: dict[int, list[str]] = {}
    for name, f in _TABLE.items():
        if f.default_evals_per_epoch:
            groups.setdefault(f.default_evals_per_epoch, []).append(name)

    def listed(names: list[str]) -> str:
        return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"

    return "; ".join(f"{listed(names)} at {k} evaluations per epoch" for k, names in groups.items())


def task_help() -> str:
    """The help text of ``task``: every name with its label."""
    return "; ".join(f"{name}: {f.label}" for name, f in _TABLE.items())


def _number(value: float) -> str:
    """3e-05 -> '3e-5'; 384 -> '384'."""
    if isinstance(value, int) or float(value).is_integer():
        return str(int(value))
    mantissa, _, exponent = f"{value:.0e}".partition("e")
    return f"{mantissa}e{int(exponent)}"


def defaults_help(attribute: str) -> str:
    """'3e-5 for QA, 2e-5 for classification' for a default of TaskFacts (``attribute``), grouped by
    kind of task (QA, or the model head)."""
    groups: dict[str, list[str]] = {}
    for f in _TABLE.values():
        kind = "QA" if f.is_qa else f.head.model_head
        values = groups.setdefault(kind, [])
        if _number(getattr(f, attribute)) not in values:
            values.append(_number(getattr(f, attribute)))
    return ", ".join(f"{' / '.join(values)} for {kind}" for kind, values in groups.items())


TASK_DEFAULT_FIELDS = ("learning_rate", "max_seq_length", "batch_size", "eval_every")


def run_steps(n_examples: int, batch_size: int, gradient_accumulation_steps: int = 1, train_cap: int = 0, *,
              epochs: float = 1.0, max_steps: int = 0, budget_steps: int = 0) -> tuple[int, int]:
    """(steps per epoch, planned steps) of a run on ``n_examples`` training rows (``train_cap`` > 0 caps them):
    ceil(rows / (batch_size x gradient_accumulation_steps)) steps per epoch; planned = ``max_steps`` when > 0,
    else ceil(``epochs`` x steps per epoch) (core.training.setup.plan_steps's rule, one process), and at most
    ``budget_steps`` when > 0 (the steps a time budget is estimated to allow). (0, max_steps) when the size is
    unknown (``n_examples`` <= 0)."""
    if n_examples <= 0:
        return 0, max(0, int(max_steps))
    rows = min(n_examples, train_cap) if train_cap > 0 else n_examples
    per_step = max(1, batch_size) * max(1, gradient_accumulation_steps)
    steps_per_epoch = -(-rows // per_step)
    planned = int(max_steps) if max_steps > 0 else max(1, math.ceil(max(epochs, 0.0) * steps_per_epoch))
    if budget_steps > 0:
        planned = min(planned, int(budget_steps))
    return steps_per_epoch, max(1, planned)


def eval_every_for(task: str, n_examples: int, batch_size: int, gradient_accumulation_steps: int = 1,
                   train_cap: int = 0, *, epochs: float = 0.0, max_steps: int = 0, budget_steps: int = 0) -> int:
    """Optimizer steps between dev evaluations a task starts with on a training file of ``n_examples`` rows
    (``train_cap`` > 0 caps them): the steps of one epoch, or of the whole run when it plans fewer (``epochs`` >
    0, ``max_steps``, ``budget_steps``: :func:`run_steps`), over the task's ``default_evals_per_epoch``, at
    least 1, so a run shorter than an epoch still evaluates that often (90 for a run of 60 steps would evaluate
    only at the start and the end); the task's ``default_eval_every`` when it has no per-epoch
    default or the size is unknown (``n_examples`` <= 0). Raises KeyError for an unknown task."""
    facts = get_task_facts(task)
    if not facts.default_evals_per_epoch or n_examples <= 0:
        return facts.default_eval_every
    steps_per_epoch, planned = run_steps(n_examples, batch_size, gradient_accumulation_steps, train_cap,
                                         epochs=epochs or 1.0, max_steps=max_steps, budget_steps=budget_steps)
    return max(1, min(steps_per_epoch, planned) // facts.default_evals_per_epoch)


def task_defaults(task: str) -> dict:
    """The recipe a task starts with in the launcher: TASK_DEFAULT_FIELDS -> value. learning_rate and
    max_seq_length are None (the config's "task default": the task's default_learning_rate and
    default_max_seq_length at run time); batch_size and eval_every are its default_batch_size and
    default_eval_every. Raises KeyError (naming the tasks) for an unknown task."""
    facts = get_task_facts(task)
    return {"learning_rate": None, "max_seq_length": None, "batch_size": facts.default_batch_size,
            "eval_every": facts.default_eval_every}

"""Every kind of model head declared once: what it is, how a checkpoint of it is recognised, and what each part
of the app does with it (torch-free, Qt-free).

One :class:`HeadSpec` per kind of head, as SLEAP's ``sleap/nn/heads.py`` declares its heads and LIT's
``lit_nlp/api/types.py`` its output types: span QA, sequence classification with its three problem types
(single-label, regression, multi-label), multiple choice and token classification. An entry names the
transformers ``AutoModelFor…`` class (the loader resolves the name; this module imports no model code), the
outputs the model returns, how a checkpoint is recognised (config.json ``architectures``, ``problem_type``,
``num_labels``), what follows the logits, the inputs it reads, the prediction columns ``predict`` writes, what
``explain`` attributes, the metrics its evaluation reports and the inspector pages that open it.

Modules ask a head for these facts (``spec.inputs is Inputs.CHOICES``, ``spec.prediction.columns``); none
compares head, problem or task names (tests/test_new_task_row.py greps for it). Tasks name their head
(``TaskFacts.head`` in ``explorer.core.specs.tasks``).

Recognising a checkpoint (:func:`recognise`, the one place that decides):

1. the architecture: config.json ``architectures[0]`` (a model: its class name) ends in a head's
   ``architecture`` suffix (``BertForSequenceClassification`` -> "ForSequenceClassification"); none: no head
   (a bare encoder, a masked-LM or pre-training checkpoint);
2. among the heads of one architecture (sequence classification): the one whose ``problem_type`` config.json
   records; else the one whose fixed output count is the config's ``num_labels`` (one output = regression, as
   transformers' own rule); else the head of the run's task when the caller knows it (``run_head``); else the
   first declared (single-label).

Adding a head: one entry in ``_HEADS`` below (a new architecture suffix, or a new problem type of an existing
one), the ``TaskFacts`` row of its task (``explorer.core.specs.tasks``) with its training ``Task``, a data reader
when none fits, and the page that shows it (``explorer.ui.inspectors.registry``) when no page in ``pages`` fits.
Predict, explain, Classify's arithmetic and the Predictions page go by the entry's ``inputs``, ``scores``,
``explained`` and ``prediction``; only a new value of one of those needs code there. See docs/architecture.md.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum
from pathlib import Path


class Inputs(Enum):
    """What one example of a head is, and so how it is tokenized."""

    TEXT = "a text or a sentence pair"                           # [CLS] A [SEP] (B [SEP])
    QUESTION_PASSAGE = "a question and a passage"                # windows of the passage; only the passage truncated
    CHOICES = "a context and candidate endings"                  # one (context, ending) input per candidate
    WORDS = "words, a tag for each"                              # the first piece of a word carries its tag


class Scores(Enum):
    """What follows the logits."""

    SOFTMAX = "softmax"     # one of K (classes, candidate endings, tags of a token)
    SCORE = "score"         # the one output is the prediction (no softmax)
    SIGMOID = "sigmoid"     # a sigmoid per label: any number of labels
    SPAN = "span"           # start and end logits per token: the span start_logits[i] + end_logits[j]


class Explained(Enum):
    """What ``explain`` attributes to the tokens; the value is the name its result reports (``Attribution.head``,
    ``bert-explorer explain``'s JSON ``head``)."""

    CLASS = "classification"             # a class logit, or its margin to the runner-up
    SCORE = "regression"                 # the one score
    ENDING = "multiple_choice"           # one ending's score against the mean of the others, or its margin
    TAG = "token_classification"         # one token's tag logit, or its margin
    SPAN = "qa"                          # start_logits[s], end_logits[e] or their sum


class Uncertainty(Enum):
    """What "least certain first" sorts a predictions file by; the value is the column's title ("" = the file's
    own ``margin`` column, or none)."""

    MARGIN = ""                          # the margin column predict writes (top probability - second)
    CHOICE_MARGIN = "margin (endings)"   # the top two p_ending columns
    THRESHOLD = "min |p − 0.5|"          # the label whose probability is nearest its threshold
    TAU = "|score_diff − τ|"             # the questions nearest τ
    NONE = "in file order"               # no uncertainty (a score)


@dataclass(frozen=True, kw_only=True)
class PredictionSpec:
    """What ``bert-explorer predict`` writes for a head and how the Predictions page reviews it.

    Attributes:
        kind: the head's name in predict's summary (``--json`` "kind") and in a review file
            (``<predictions>.review.json``): "classification", "regression", "multilabel", "swag", "qa", "ner".
        columns: the columns written after the input columns, ``error`` left out; "{label}" stands for each
            class name (id2label) in id order, "{choice}" for each candidate 0..choices-1.
        text_columns: the input columns read unless ``--text-columns`` names others; () = a text column (or a
            pair) found by its usual name.
        optional_texts: positions in the text columns that may be empty (SWAG's sent2).
        label_column: the column holding the model's one label per row, which a person's label corrects.
        choices: candidates per row (multiple choice); 0 otherwise.
        labels_by_name: the label column holds a class name of id2label: gold ids are read as names, several
            annotators' columns compare with it, and the class names come from the p_<label> columns when a
            summary names none.
        one_label_per_row: accuracy and a confusion table against a gold column apply.
        uncertainty: what "least certain first" sorts by (:class:`Uncertainty`).
        answers_with_tau: a QA decision (answer iff score_diff > τ): τ is shown and saved with the review.
        calibrated: the probabilities may be temperature-scaled by the run's calibration.json.
        tags_per_word: a tag per word (a tagger), no label per row: the page offers no row label to set.
    """

    kind: str
    columns: tuple[str, ...]
    text_columns: tuple[str, ...] = ()
    optional_texts: tuple[int, ...] = ()
    label_column: str = "predicted_label"
    choices: int = 0
    labels_by_name: bool = False
    one_label_per_row: bool = False
    uncertainty: Uncertainty = Uncertainty.NONE
    answers_with_tau: bool = False
    calibrated: bool = False
    tags_per_word: bool = False

    def output_columns(self, label_names: list[str] | tuple[str, ...] = ()) -> list[str]:
        """The prediction columns for a head with these class names, ``error`` last."""
        out: list[str] = []
        for column in self.columns:
            if "{label}" in column:
                out += [column.format(label=name) for name in label_names]
            elif "{choice}" in column:
                out += [column.format(choice=k) for k in range(self.choices)]
            else:
                out.append(column)
        return out + ["error"]

    def label_columns(self, label_names: list[str] | tuple[str, ...] = ()) -> list[str]:
        """The columns holding one value per class (a classifier's ``p_<label>`` probabilities), in id order."""
        return [column.format(label=name) for column in self.columns if "{label}" in column for name in label_names]


@dataclass(frozen=True, kw_only=True)
class HeadSpec:
    """One kind of model head.

    Attributes:
        name: the entry's key ("qa", "classification", "regression", "multilabel", "multiple_choice",
            "token_classification").
        model_head: the transformers head it loads as: ``load_model(source, task=model_head)`` and
            ``LoadedModel.task`` ("qa", "classification", "multiple_choice", "token_classification"); the three
            sequence-classification entries share "classification".
        auto_class: the transformers ``AutoModelFor…`` class name (``explorer.core.models.loading`` resolves it).
        architecture: the suffix of config.json ``architectures`` (and of the model's class name) of a
            checkpoint saved with this head ("ForQuestionAnswering").
        problem_type: transformers' ``problem_type`` of its loss ("single_label_classification",
            "regression", "multi_label_classification"); "" where config.json records none.
        num_labels: a fixed number of outputs that tells this head from the others of its architecture (1 for
            regression); 0 = as many as the labels.
        problem: what a task's label column holds, in the task table's words ("classification", "regression",
            "multilabel"); "" for the heads other than sequence classification.
        outputs: the model output fields it is read from ("start_logits", "end_logits" / "logits").
        named_outputs: its outputs are named by config.json ``id2label`` (classes, labels, tags); otherwise they
            are the score, the candidate endings or the start / end of a span.
        output_label: the name of its one output where id2label names none (regression: "score").
        inputs: what one example is (:class:`Inputs`).
        scores: what follows the logits (:class:`Scores`).
        explained: what ``explain`` attributes (:class:`Explained`).
        metrics: the dev metrics its evaluation reports (rows of ``explorer.core.specs.metrics``); a task may
            report others (SQuAD v2.0's no-answer figures: ``TaskFacts.metrics``).
        metric_family: where those metrics are computed.
        pages: the plain titles of the inspector pages that open its checkpoints, the first one preferred
            (``explorer.ui.inspectors.registry``).
        label_words: what a task's label column holds, for a note on data files kept across a task switch.
        task_words: how its tasks are named in a list of the tasks a file fits ("regression", "multi-label");
            "" = by each task's own name, as "classification" ("single / pair classification").
        label_mapping: fine-tuning a checkpoint of this head maps the data's labels (classes, label sets, tags)
            to the checkpoint's head rows by name (id2label; a label the head lacks is refused, ``--new-head``
            starts a fresh head), and class ids of the data are named by their ids. The task's data then has
            ``relabel(names, what)``.
        default_max_seq_length: tokens per input when neither the run nor the user set it.
        words: the head in a sentence ("question-answering (start/end)").
        architecture_words: what a checkpoint of this architecture was made for ("question-answering").
        model_words: a model with this head ("a question-answering model").
        use: where such a model is used in the app ("use the probe (bert-explorer probe / eval)").
        hub_presets: the inspector offers hub checkpoints already fine-tuned for it.
        prediction: what predict writes and the Predictions page reviews (:class:`PredictionSpec`).
        bag_of_words: the linear model of the TF-IDF baseline fitted beside a fine-tune of this head
            (``explorer.core.metrics.bag_of_words``: "logistic", "ridge", "one_vs_rest"); "" = none.
        one_class_unit: what an evaluation that predicted one class for everything is counted over ("dev row":
            a classifier stuck on the majority class; "dev token": a tagger predicting only "O"), named by the
            warning Curves, the Runs list and ``bert-explorer runs`` give
            (``explorer.core.metrics.baselines.one_class_note``); "" = the head gets no such warning.
    """

    name: str
    model_head: str
    auto_class: str
    architecture: str
    problem_type: str = ""
    num_labels: int = 0
    problem: str = ""
    outputs: tuple[str, ...] = ("logits",)
    named_outputs: bool = False
    output_label: str = ""
    inputs: Inputs
    scores: Scores
    explained: Explained
    metrics: tuple[str, ...]
    metric_family: str
    pages: tuple[str, ...]
    label_words: str = ""
    task_words: str = ""
    label_mapping: bool = False
    default_max_seq_length: int = 128
    words: str
    architecture_words: str
    model_words: str
    use: str
    hub_presets: bool = False
    prediction: PredictionSpec
    bag_of_words: str = ""
    one_class_unit: str = ""


_CLASSIFY_USE = "use Classify in the app (or bert-explorer predict)"
_SEQUENCE = dict(model_head="classification", auto_class="AutoModelForSequenceClassification",
                 architecture="ForSequenceClassification", inputs=Inputs.TEXT, pages=("Classify", "Explain"),
                 label_mapping=True, words="sequence-classification", architecture_words="sequence-classification",
                 model_words="a classification model", use=_CLASSIFY_USE)

QA = HeadSpec(
    name="qa", model_head="qa", auto_class="AutoModelForQuestionAnswering", architecture="ForQuestionAnswering",
    outputs=("start_logits", "end_logits"), inputs=Inputs.QUESTION_PASSAGE, scores=Scores.SPAN,
    explained=Explained.SPAN, metrics=("exact_match", "f1", "loss"),
    metric_family="official SQuAD evaluate-v1.1 / evaluate-v2.0 (explorer.core.metrics.squad)",
    pages=("Spans & τ", "Explain"), default_max_seq_length=384, words="question-answering (start/end)",
    architecture_words="question-answering", model_words="a question-answering model",
    use="use the probe (bert-explorer probe / eval)", hub_presets=True,
    prediction=PredictionSpec(kind="qa", columns=("answer", "answer_start", "answer_end", "score_diff", "null_score",
                                                  "decision", "window", "other_rule_answer"),
                              text_columns=("question", "context"), uncertainty=Uncertainty.TAU, answers_with_tau=True))
SINGLE_LABEL = HeadSpec(
    name="classification", problem_type="single_label_classification", problem="classification", **_SEQUENCE,
    named_outputs=True,
    scores=Scores.SOFTMAX, explained=Explained.CLASS,
    metrics=("accuracy", "f1", "macro_f1", "weighted_f1", "f_avg", "matthews_corrcoef", "loss"),
    metric_family="GLUE classification metrics (explorer.core.metrics.glue)", label_words="a class per row",
    bag_of_words="logistic", one_class_unit="dev row",
    prediction=PredictionSpec(kind="classification", columns=("predicted_label", "p_{label}", "margin"),
                              labels_by_name=True, one_label_per_row=True, uncertainty=Uncertainty.MARGIN,
                              calibrated=True))
REGRESSION = HeadSpec(
    name="regression", problem_type="regression", num_labels=1, problem="regression", **_SEQUENCE,
    output_label="score",
    scores=Scores.SCORE, explained=Explained.SCORE, metrics=("pearson", "spearman", "mse", "r2", "mse_of_mean", "loss"),
    metric_family="Pearson / Spearman / mse / R² (explorer.core.metrics.regression)",
    label_words="a number (score) per row", task_words="regression", bag_of_words="ridge",
    prediction=PredictionSpec(kind="regression", columns=("predicted_score",)))
MULTI_LABEL = HeadSpec(
    name="multilabel", problem_type="multi_label_classification", problem="multilabel", **_SEQUENCE,
    named_outputs=True,
    scores=Scores.SIGMOID, explained=Explained.CLASS,
    metrics=("micro_f1", "macro_f1", "subset_accuracy", "honest_micro_f1", "honest_macro_f1",
             "honest_subset_accuracy", "loss"),
    metric_family="micro / macro F1 at per-label thresholds (explorer.core.metrics.multilabel)",
    label_words="a set of labels per row", task_words="multi-label", bag_of_words="one_vs_rest",
    prediction=PredictionSpec(kind="multilabel", columns=("predicted_labels", "p_{label}"),
                              uncertainty=Uncertainty.THRESHOLD))
MULTIPLE_CHOICE = HeadSpec(
    name="multiple_choice", model_head="multiple_choice", auto_class="AutoModelForMultipleChoice",
    architecture="ForMultipleChoice", problem_type="single_label_classification", inputs=Inputs.CHOICES,
    scores=Scores.SOFTMAX, explained=Explained.ENDING, metrics=("accuracy", "loss"),
    metric_family="accuracy over the candidates", pages=("Classify", "Explain"), words="multiple-choice",
    architecture_words="multiple-choice", model_words="a multiple-choice model", use=_CLASSIFY_USE,
    prediction=PredictionSpec(kind="swag", columns=("predicted_ending", "p_ending{choice}"),
                              text_columns=("sent1", "sent2", "ending0", "ending1", "ending2", "ending3"),
                              optional_texts=(1,), label_column="predicted_ending", choices=4,
                              one_label_per_row=True, uncertainty=Uncertainty.CHOICE_MARGIN))
TOKEN_CLASSIFICATION = HeadSpec(
    name="token_classification", model_head="token_classification", auto_class="AutoModelForTokenClassification",
    architecture="ForTokenClassification", named_outputs=True, label_mapping=True, inputs=Inputs.WORDS, scores=Scores.SOFTMAX, explained=Explained.TAG,
    metrics=("f1", "precision", "recall", "token_accuracy", "loss"),
    metric_family="entity-level precision / recall / F1, seqeval strict IOB2 (explorer.core.metrics.tagging)",
    pages=("Tag", "Explain"), words="token-classification", architecture_words="token-classification",
    model_words="a token-classification (tagging) model", use="use bert-explorer predict", one_class_unit="dev token",
    prediction=PredictionSpec(kind="ner", columns=("entities", "words", "tags"), tags_per_word=True))

# In order: the first head of an architecture is the one a checkpoint that records nothing more is read as.
_HEADS: tuple[HeadSpec, ...] = (QA, SINGLE_LABEL, REGRESSION, MULTI_LABEL, MULTIPLE_CHOICE, TOKEN_CLASSIFICATION)

# Architectures that carry no task head: what such a checkpoint was made for (a head note says it).
OTHER_ARCHITECTURES = (("ForMaskedLM", "masked-language-model"), ("ForPreTraining", "pre-training (masked LM)"),
                       ("ForCausalLM", "causal-language-model"), ("LMHeadModel", "language-model"))
# The page that opens a checkpoint without a task head (its head note says what the checkpoint was made for).
NO_HEAD_PAGES = ("Spans & τ",)


def heads() -> tuple[HeadSpec, ...]:
    """Every head, in declaration order."""
    return _HEADS


def model_heads() -> tuple[str, ...]:
    """The distinct ``model_head`` names ("qa", "classification", "multiple_choice", "token_classification"):
    what ``load_model(task=...)`` accepts."""
    return tuple(dict.fromkeys(h.model_head for h in _HEADS))


def get_head(name: str) -> HeadSpec:
    """The head called ``name``. Raises KeyError naming the known ones."""
    for h in _HEADS:
        if h.name == name:
            return h
    raise KeyError(f"no head {name!r}; heads: {', '.join(h.name for h in _HEADS)}")


def for_model_head(model_head: str | None) -> HeadSpec | None:
    """The first head that loads as ``model_head`` (``LoadedModel.task``; sequence classification: its
    single-label entry); None for an unknown name or None."""
    return next((h for h in _HEADS if model_head and h.model_head == model_head), None)


def for_prediction_kind(kind: str | None) -> HeadSpec | None:
    """The head whose predictions are of ``kind`` (a predict summary's or a review file's "kind"); None when
    unknown."""
    return next((h for h in _HEADS if kind and h.prediction.kind == kind), None)


def classification_head(problem_type: str | None = "", num_labels: int = 0) -> HeadSpec:
    """The sequence-classification head of a config's ``problem_type`` and output count (:func:`recognise`'s rule
    among the heads of that architecture: the recorded problem_type, else one output = regression, else
    single-label). A multiple-choice result's "single_label_classification" reads as the single-label head."""
    return _choose([h for h in _HEADS if h.architecture == SINGLE_LABEL.architecture], str(problem_type or ""),
                   int(num_labels or 0), None)


def output_names(config, k: int | None = None) -> list[str]:
    """The names of a sequence-classification head's ``k`` outputs (default ``num_labels``), in id order: its
    ``id2label`` ("label i" where it names none), except the one output of a head that has an ``output_label``
    (regression: "score"), whatever id2label says: it may hold the label column's name, and a header-less
    file's column is named by its position ("5" for STS-B's score column), which read as a class "5" beside the
    score 2.78. ``config``: a transformers config or anything with its attributes."""
    k = int(k if k is not None else getattr(config, "num_labels", 0) or 0)
    head = classification_head(getattr(config, "problem_type", None), getattr(config, "num_labels", 2) or 2)
    if head.output_label and k == 1:
        return [head.output_label]
    id2label = getattr(config, "id2label", None) or {}
    return [str(id2label.get(i, id2label.get(str(i), f"label {i}"))) for i in range(k)]


def with_outputs(head: HeadSpec, num_labels: int) -> HeadSpec:
    """The head a model of ``head``'s architecture with ``num_labels`` outputs is: the entry of that architecture
    with this fixed output count (a sequence classifier with one output is a regression head), else ``head``."""
    n = int(num_labels or 0)
    return next((h for h in _HEADS if h.architecture == head.architecture and h.num_labels and h.num_labels == n),
                head)


def architecture_words(architecture: str) -> str | None:
    """What a checkpoint of ``architecture`` ("BertForMaskedLM") was made for ("masked-language-model"); None
    when the name ends in none of the known suffixes."""
    for h in _HEADS:
        if architecture.endswith(h.architecture):
            return h.architecture_words
    return next((words for suffix, words in OTHER_ARCHITECTURES if architecture.endswith(suffix)), None)


def _read_config(folder: str | Path) -> dict | None:
    try:
        config = json.loads((Path(folder) / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return config if isinstance(config, dict) else None


def _fields(source) -> tuple[str, str, int]:
    """(architecture, problem_type, num_labels) of a config.json dict, a transformers config or a model."""
    if isinstance(source, dict):
        architectures = source.get("architectures") or [""]
        id2label = source.get("id2label") or {}
        n = int(source.get("num_labels") or 0) or (len(id2label) if isinstance(id2label, dict) else 0)
        return str(architectures[0] or ""), str(source.get("problem_type") or ""), n
    config = getattr(source, "config", None)
    if config is not None and not isinstance(source, type) and hasattr(config, "to_dict"):   # a model
        architecture = type(source).__name__
    else:
        config, architecture = source, str((getattr(source, "architectures", None) or [""])[0] or "")
    return architecture, str(getattr(config, "problem_type", None) or ""), int(getattr(config, "num_labels", 0) or 0)


def recognise(source, *, run_head: HeadSpec | None = None) -> HeadSpec | None:
    """The head a checkpoint or model has (the module docstring's rule); None for none (a bare encoder, a language
    model, an unreadable folder).

    Args:
        source: a checkpoint folder (its config.json is read; no torch), a config.json dict, a transformers config
            (its ``architectures``), or a model (its class name, and its config's problem_type / num_labels).
        run_head: the head of the task of the run the checkpoint belongs to, when known: it decides between the
            heads of one architecture when config.json records no problem_type.
    """
    if isinstance(source, (str, Path)):
        source = _read_config(source)
        if source is None:
            return None
    architecture, problem_type, num_labels = _fields(source)
    candidates = [h for h in _HEADS if architecture and architecture.endswith(h.architecture)]
    return _choose(candidates, problem_type, num_labels, run_head) if candidates else None


def _choose(candidates: list[HeadSpec], problem_type: str, num_labels: int, run_head: HeadSpec | None) -> HeadSpec:
    """Among the heads of one architecture (declaration order): the one whose loss is ``problem_type``, else the
    one with a fixed output count of ``num_labels``, else ``run_head`` when it is one of them, else the first."""
    return (next((h for h in candidates if problem_type and h.problem_type == problem_type), None)
            or next((h for h in candidates if h.num_labels and h.num_labels == num_labels), None)
            or (run_head if run_head in candidates else None)
            or candidates[0])

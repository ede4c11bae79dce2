"""What each fine-tuning task *is*, in one torch-free table.

Everything that needs to know a fact about a task reads it here: the config (defaults, validation,
help texts), the training loop (which metric picks ``checkpoints/best``), the runs list and the GUI's
run states (which metric ranks runs), the launcher (labels, data preview) and the worker's
``--task`` flag. The task *behaviour* (data loading, features, loss, metrics) lives in
``explorer.core.training.tasks``, which imports torch; this module must stay importable without it.

Adding a task means one :class:`TaskFacts` row here (or :func:`add_task_facts` at run time) plus a
``Task`` subclass registered in ``explorer.core.training.tasks``. The multiple-choice row (``swag``:
``head="multiple_choice"``, one score C_k . w per choice, softmax across the four choices, best metric
``accuracy``; BERT paper Section 4.4) sits in the same table.

Sources of the defaults: BERT paper (Devlin et al. 2019) Section 4 and Appendix A.3 for the
learning rates; the official ``run_squad.py`` (max_seq_length 384) and ``run_classifier.py`` (128).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping


@dataclass(frozen=True)
class TaskFacts:
    """One task's fixed facts.

    Attributes:
        name: the ``--task`` value and config.json's ``task``.
        label: what the GUI shows for it.
        head: the model head (``explorer.core.models.load_model(source, task=head)``): "qa",
            "classification" or "multiple_choice" (SWAG).
        is_qa: extractive question answering (windows, spans, SQuAD metrics).
        best_metric: the dev metric that picks the best checkpoint and ranks runs (higher is better)
            unless the config's ``metric_for_best`` names another.
        default_learning_rate: peak AdamW learning rate when the config leaves it unset.
        default_max_seq_length: tokens per window when the config leaves it unset.
        data_formats: what ``--train`` / ``--dev`` accept for this task, in words.
        squad_version: "v1.1" / "v2.0" for the QA tasks, "" otherwise.
        pair: classification of sentence pairs (two text columns) rather than single sentences.
        data_kind: which reader its ``--train`` / ``--dev`` files go through: "squad" (official SQuAD
            JSON, ``core/data/squad.py``), "table" (rows of a .tsv / .csv / .jsonl file,
            ``core/data/classification.py``) or "swag" (the SWAG CSV, ``core/data/swag.py``). The data
            sniffer (``core/data/sniff.py``) and the launcher's data preview go by it.
    """

    name: str
    label: str
    head: str
    is_qa: bool
    best_metric: str
    default_learning_rate: float
    default_max_seq_length: int
    data_formats: str
    squad_version: str = ""
    pair: bool = False
    data_kind: str = "table"

    @property
    def is_multiple_choice(self) -> bool:
        """One score per candidate ending, softmax across them (SWAG; BERT paper Section 4.4)."""
        return self.head == "multiple_choice"

    @property
    def has_no_answer(self) -> bool:
        """QA with unanswerable questions (SQuAD v2.0): the no-answer baseline and τ apply."""
        return self.squad_version == "v2.0"


_SQUAD_FORMATS = "an official-format SQuAD JSON file, or the hub id rajpurkar/squad / rajpurkar/squad_v2"
_GLUE_FORMATS = ("a .tsv / .csv file with a header row (GLUE style), a .jsonl / .json file with one object "
                 "per line, or a hub dataset id such as nyu-mll/glue::sst2")
_SWAG_FORMATS = "a SWAG-format .csv file with a header row (sent1, sent2, ending0..ending3, label)"

# SQuAD 2.0 picks checkpoints by best_f1 (F1 at the best threshold, official evaluate-v2.0): τ is chosen
# after training, so the F1 at τ = 0 would reward a checkpoint for where its null score happens to sit
# rather than for how well it ranks answers against "no answer".
_TABLE: dict[str, TaskFacts] = {f.name: f for f in (
    TaskFacts("squad_v1", "SQuAD v1.1 (extractive QA)", "qa", True, "f1", 3e-5, 384, _SQUAD_FORMATS,
              squad_version="v1.1", data_kind="squad"),
    TaskFacts("squad_v2", "SQuAD v2.0 (QA + no answer)", "qa", True, "best_f1", 3e-5, 384, _SQUAD_FORMATS,
              squad_version="v2.0", data_kind="squad"),
    TaskFacts("single", "Single sentence (SST-2 style)", "classification", False, "accuracy", 2e-5, 128,
              _GLUE_FORMATS),
    TaskFacts("pair", "Sentence pair (MRPC style)", "classification", False, "accuracy", 2e-5, 128,
              _GLUE_FORMATS, pair=True),
    TaskFacts("swag", "Multiple choice (SWAG)", "multiple_choice", False, "accuracy", 2e-5, 128, _SWAG_FORMATS,
              data_kind="swag"),
)}

# When a run's evaluations lack its best metric (e.g. a regression head reports pearson, not
# accuracy), the first of these that is present ranks the run instead.
FALLBACK_METRICS = ("f1", "accuracy", "pearson", "matthews_correlation", "exact_match")


def task_names() -> list[str]:
    """Every known task name, in table order."""
    return list(_TABLE)


def qa_task_names() -> tuple[str, ...]:
    """The extractive-QA task names."""
    return tuple(name for name, f in _TABLE.items() if f.is_qa)


def tasks_reading(data_kind: str) -> tuple[str, ...]:
    """The task names whose data files go through reader ``data_kind`` ("squad", "table", "swag")."""
    return tuple(name for name, f in _TABLE.items() if f.data_kind == data_kind)


def tasks_with_head(*heads: str) -> tuple[str, ...]:
    """The task names whose model head is one of ``heads`` ("qa", "classification", "multiple_choice")."""
    return tuple(name for name, f in _TABLE.items() if f.head in heads)


def task_for_checkpoint(head: str | None, run_task: str | None = None) -> str | None:
    """The task a checkpoint with model head ``head`` (``core.models.checkpoint_task``) is opened as:
    ``run_task`` (the task in its run's config.json) when that task has this head, else the first task
    of the table with this head; None for no head or a head no task has."""
    if not head:
        return None
    facts = _TABLE.get(str(run_task or ""))
    if facts is not None and facts.head == head:
        return facts.name
    return next(iter(tasks_with_head(head)), None)


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


def add_task_facts(facts: TaskFacts) -> TaskFacts:
    """Add (or replace) a row at run time, e.g. for a task registered by a plugin."""
    _TABLE[facts.name] = facts
    return facts


def is_qa_task(name: str) -> bool:
    """True for the extractive-QA tasks; False for the others and unknown names."""
    facts = _TABLE.get(name)
    return bool(facts and facts.is_qa)


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


def data_formats_help() -> str:
    """What ``--train`` / ``--dev`` accept, per kind of task (the help of the data fields)."""
    groups: dict[str, str] = {}
    for f in _TABLE.values():
        groups.setdefault("QA" if f.is_qa else f.head, f.data_formats)
    return "; ".join(f"{kind}: {formats}" for kind, formats in groups.items())


def metric_for_best_help() -> str:
    """The help text of ``metric_for_best``, naming each task's default."""
    defaults = ", ".join(f"{f.best_metric} for {name}" for name, f in _TABLE.items())
    return f"dev metric that picks checkpoints/best (higher is better); empty = the task's default ({defaults})"


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
        kind = "QA" if f.is_qa else f.head
        values = groups.setdefault(kind, [])
        if _number(getattr(f, attribute)) not in values:
            values.append(_number(getattr(f, attribute)))
    return ", ".join(f"{' / '.join(values)} for {kind}" for kind, values in groups.items())

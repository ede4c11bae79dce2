"""The task interface of the training loop, and the registry of tasks.

A task knows everything task-specific: which model head to load, how to read its data, how to
turn examples into features and padded batches, the loss from the model's output, what to gather
at evaluation and how to turn it into metrics, and what a "watch" probe shows. The loop in
``loop.py`` only talks to this interface, so adding multiple choice (SWAG) or token tagging means
writing one ``Task`` subclass and naming it in the task's row (``TaskFacts.trainer``), without touching the
loop.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch

from explorer.core.errors import ConfigError
from explorer.core.specs.tasks import TaskFacts, find_task_facts, get_task_facts

MODEL_INPUT_KEYS = ("input_ids", "attention_mask", "token_type_ids")


class FeatureSet:
    """Model-ready rows (not padded) plus a collate function that pads a batch of them.

    Attributes:
        lengths: tokens per row (for length-grouped batches and per-token outputs).
        collate_rows: callable(list of row indices) -> dict of tensors (model inputs + labels).
        examples_of_rows: example index of each row (several rows per example for QA windows).
        raw: the task's own feature object (e.g. QAFeatures) for its metrics.
    """

    def __init__(self, lengths: list[int], collate_rows: Callable[[list[int]], dict],
                 examples_of_rows: list[int] | None = None, raw: Any = None):
        self.lengths = list(lengths)
        self.collate_rows = collate_rows
        self.examples_of_rows = examples_of_rows
        self.raw = raw

    def __len__(self) -> int:
        return len(self.lengths)

    def collate(self, indices: list[int]) -> dict:
        """Padded batch for rows ``indices`` with ``feature_index`` (batch,) added for gathering."""
        indices = [int(i) for i in indices]
        batch = self.collate_rows(indices)
        batch["feature_index"] = torch.tensor(indices, dtype=torch.long)
        return batch


class Task:
    """Base class; subclasses fill in every method. See the module docstring.

    Attributes:
        name: the ``--task`` value; its fixed facts (head, best metric, defaults) are the row
            ``facts`` of explorer.core.specs.tasks.
        token_level_outputs: names of eval outputs that are per token (batch, seq): they are padded
            across processes and cut back to each row's length before ``metrics``.
    """

    name = ""
    token_level_outputs: tuple[str, ...] = ()

    def __init__(self, name: str = ""):
        """Raises ValueError when ``name`` (or the class's ``name``) has no row in explorer.core.specs.tasks."""
        self.name = name or self.name
        if not self.name or find_task_facts(self.name) is None:
            raise ValueError(f"task {self.name!r} needs a row in explorer.core.specs.tasks (add_task_facts)")

    @property
    def facts(self) -> TaskFacts:
        """This task's row of explorer.core.specs.tasks (KeyError if it has none)."""
        return get_task_facts(self.name)

    @property
    def head(self) -> str:
        """The model head for ``load_model(source, task=head)`` (its spec's ``model_head``)."""
        return self.facts.head.model_head

    # -- data -----------------------------------------------------------------------------
    def load(self, config, split: str):
        """Examples of ``config.train`` (split "train") or ``config.dev`` ("dev"), caps applied.
        Raises a ValueError subclass naming the file and record on bad data."""
        raise NotImplementedError

    def num_examples(self, examples) -> int:
        return len(examples)

    def training_examples_line(self, examples) -> str:
        """What the run's "tokenizing …" log line says it tokenizes: '600 training examples'."""
        return f"{self.num_examples(examples)} training examples"

    def num_labels(self, train_examples, config) -> int | None:
        """num_labels for the model head (None when the head has a fixed size)."""
        return None

    def check_data(self, train_examples, dev_examples, config):
        """Cross-checks between train and dev (e.g. label ranges); raise ValueError with specifics. May return
        the dev examples changed (e.g. labels mapped by name); None = unchanged."""

    def split_dev(self, train_examples, config, run_dir) -> tuple[object, object | None, list[tuple[str, str]]]:
        """(train, dev, notes) when the run has no dev file: tasks that hold out a dev split do it here
        (classification: a stratified ``dev_fraction``); the default holds out nothing."""
        return train_examples, None, []

    def label_names(self, train_examples) -> list[str] | None:
        """Class names of the head in id order (the model config's id2label), or None."""
        return None

    def started_info(self, train_examples, config) -> dict:
        """Extra JSON-safe fields for the run's ``started`` event (e.g. class weights)."""
        return {}

    def featurize(self, examples, tokenizer, config, *, train: bool) -> FeatureSet:
        raise NotImplementedError

    # -- model ----------------------------------------------------------------------------
    def configure_model(self, model, train_examples, config) -> None:
        """Set what the saved config.json must say about the head (e.g. ``problem_type``, ``id2label``);
        called once after the model is loaded for training. Default: nothing."""

    def before_save(self, model, metrics: dict | None) -> None:
        """Called with the unwrapped model and the latest dev metrics (None without an evaluation) just
        before a checkpoint is written, e.g. to put tuned thresholds into its config. Default: nothing."""

    def model_inputs(self, batch: dict) -> dict:
        return {k: v for k, v in batch.items() if k in MODEL_INPUT_KEYS}

    def loss(self, outputs, batch: dict) -> torch.Tensor:
        """Scalar training loss (float32) from the model outputs and the batch labels."""
        raise NotImplementedError

    def eval_outputs(self, outputs, batch: dict) -> dict[str, torch.Tensor]:
        """Row-aligned tensors to gather at evaluation, each (batch, ...)."""
        raise NotImplementedError

    def metrics(self, examples, features: FeatureSet, outputs: dict[str, list[np.ndarray]], config,
                out_dir: Path | None) -> dict:
        """Metrics from gathered outputs (``outputs[name][row]`` in feature order). May write
        prediction files into ``out_dir`` (the run folder) when given."""
        raise NotImplementedError

    # -- watch ----------------------------------------------------------------------------
    def watch_items(self, config, dev_examples) -> list[dict]:
        """The watch list for this run (config.watch, or a task default)."""
        return list(config.watch or [])

    def watch(self, model, tokenizer, items: list[dict], config) -> list[dict]:
        """Probe each watch item with the current model; JSON-safe dicts for the eval event."""
        return []


def load_note(examples, what: str = "training") -> tuple[str, str] | None:
    """(level, message) for the run's ``log`` event from what loading found, or None.

    A task's ``load`` may attach ``examples.load_report`` (e.g. a SquadReport); its answer check ("3 answers
    repaired, 1 dropped") becomes a warning when anything was changed, else an info line."""
    report = getattr(examples, "load_report", None)
    if report is None or not hasattr(report, "answer_check"):
        return None
    changed = getattr(report, "n_misaligned", 0) or getattr(report, "n_skipped", 0)
    return ("warning" if changed else "info"), f"{what} data {report.path}: {report.answer_check()}"


def check_loaded_windows(task: Task, loaded, config) -> None:
    """The run's window settings against the loaded model and tokenizer (core.models.window_settings); raises
    WindowSettingsError (a ValueError naming the numbers) on errors. QA tasks (those with token-level
    facts.is_qa) also check question room and doc_stride; the data's own questions are checked when featurized."""
    from explorer.core.models.window_settings import require_window_settings

    qa = task.facts.is_qa   # token tagging has token-level outputs too, but no question or doc_stride
    require_window_settings(loaded.tokenizer, getattr(loaded.model, "config", None),
                            config.resolved_max_seq_length(), config.doc_stride if qa else None,
                            config.max_query_length if qa else None, name=str(config.model))


_BUILT: dict[str, tuple[str, Task]] = {}   # task name -> (the trainer it was built from, the Task)


def _trainer_class(trainer: str) -> type:
    """The class of a "module:Class" trainer name."""
    import importlib

    module, _, name = trainer.partition(":")
    return getattr(importlib.import_module(module), name)


def get_task(name: str) -> Task:
    """The training ``Task`` of task ``name``: its row's ``trainer`` class built with the name (once per row).

    Raises:
        ConfigError (a ValueError): no row, or a row without a trainer; the message lists the trainable tasks.
    """
    facts = find_task_facts(name)
    if facts is None or not facts.trainer:
        raise ConfigError(f"task {name!r} cannot be trained (no implementation registered); trainable tasks: "
                          f"{', '.join(task_names())}")
    built = _BUILT.get(name)
    if built is None or built[0] != facts.trainer:
        built = _BUILT[name] = (facts.trainer, _trainer_class(facts.trainer)(name))
    return built[1]


def task_names() -> list[str]:
    """The trainable task names (rows with a ``trainer``), in table order."""
    from explorer.core.specs.tasks import task_names as all_tasks

    return [n for n in all_tasks() if find_task_facts(n).trainer]

"""TrainConfig: every setting of a fine-tune, with the BERT paper's recipe as defaults.

Source: Devlin et al. 2019, Section 3.2 / 4 and Appendix A.3 (AdamW, weight decay 0.01 except biases
and LayerNorm weights, linear warmup over 10% of steps then linear decay to 0, clipping at 1.0,
dropout 0.1, batch 32, 3 epochs, lr from {5e-5, 4e-5, 3e-5, 2e-5}).

The same dataclass is written to ``runs/<run_id>/config.json``, read by ``bert-explorer train
--config``, produced by the GUI launcher, and mapped one-to-one onto command-line flags
(field ``learning_rate`` <-> ``--learning-rate``).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path

from explorer.core.errors import ConfigError
from explorer.core.task_facts import (check_metric_for_best, data_formats_help, defaults_help, find_task_facts,
                                     is_qa_task, metric_for_best_help, qa_task_names, task_help, task_names)

TASKS = tuple(task_names())          # the rows of explorer.core.task_facts
QA_TASKS = qa_task_names()
MIXED_PRECISION = ("auto", "no", "fp16", "bf16")
# "auto": bf16 autocast where bf16 matmul is fast (CUDA with bf16 support; CPUs with AMX tiles), else "no"
# (fp32). See explorer.core.training.precision.resolve_mixed_precision.

# The paper's fine-tuning grid (Appendix A.3).
PAPER_GRID = {"batch_size": [16, 32], "learning_rate": [5e-5, 4e-5, 3e-5, 2e-5], "epochs": [2, 3, 4]}


@dataclass
class TrainConfig:
    """One fine-tuning run. Units: learning rates per optimizer step; lengths in tokens."""

    model: str = "bundled:minilm"
    task: str = "squad_v2"
    train: str = ""                 # file path or hub id (with optional "::config" e.g. nyu-mll/glue::sst2)
    dev: str = ""                   # file path or hub id; empty = no evaluation
    output_dir: str = ""            # the runs folder; the run lives in output_dir/<run_id>
    run_id: str = ""                # empty = generated (timestamp + model + task)
    epochs: float = 3.0
    max_steps: int = 0              # > 0 overrides epochs
    time_budget_minutes: float = 0.0     # > 0: end when the training steps have taken this long (lr follows the clock)
    batch_size: int = 32
    gradient_accumulation_steps: int = 1
    learning_rate: float | None = None   # None = the task's default (core/task_facts.py)
    weight_decay: float = 0.01
    warmup_ratio: float = 0.1
    max_grad_norm: float = 1.0
    dropout: float = 0.1
    adam_beta1: float = 0.9
    adam_beta2: float = 0.999
    adam_epsilon: float = 1e-8
    max_seq_length: int | None = None    # None = the task's default (core/task_facts.py)
    doc_stride: int = 128
    max_query_length: int = 64
    n_best_size: int = 20
    max_answer_length: int = 30
    eval_every: int = 0             # optimizer steps between evaluations; 0 = start and end only
    dev_cap: int = 0                # evaluate on the first N dev examples; 0 = all
    train_cap: int = 0              # use the first N train examples; 0 = all
    mixed_precision: str = "auto"  # auto | no | fp16 | bf16 (auto: bf16 on CUDA-bf16 and AMX CPUs)
    seed: int = 42
    length_grouping: bool = True    # length-grouped batches (dynamic padding) for speed
    fast_dropout: bool = True       # CPU: cheaper dropout masks (same p everywhere); see training/fast_dropout.py
    log_every: int = 1
    save_checkpoints: bool = True
    save_every: int = 0             # optimizer steps between "last" checkpoints; 0 = at evaluations and the end
    metric_for_best: str = ""       # eval metric that picks checkpoints/best (its direction: core/metric_specs); "" = task default
    watch: list[dict] = field(default_factory=list)   # [{"question": ..., "passage": ...}]
    text_columns: list[str] = field(default_factory=list)   # classification column mapping (1 or 2 names or positions)
    label_column: str = ""          # name or 1-based position
    id_column: str = ""             # name or 1-based position of a row-id column; "" = line numbers
    no_header: bool = False         # the table's first row is data: columns by 1-based position
    encoding: str = ""              # "" = UTF-8, else the detected encoding; or forced ("cp1252")
    label_names: list[str] = field(default_factory=list)   # class names in id order; [] = sorted names
    skip_invalid: bool = False      # skip rows with an empty text or missing label (counted) instead of refusing
    dev_fraction: float | None = None    # no dev file: share held out (stratified, seeded); None = 0.1, 0 = none
    class_weights: str = ""         # "" | "balanced" | "a=1.0,b=2.5": per-class weights in the loss
    f1_classes: list[str] = field(default_factory=list)     # f_avg = macro F1 over these classes (SemEval-2016)
    new_head: bool = False          # a fresh classification head (the checkpoint's dropped), encoder kept
    label_separator: str = ";"      # multilabel: what separates the label names in one cell
    num_labels: int = 0             # 0 = inferred from the train labels
    trust_remote_code: bool = False

    def resolved_learning_rate(self) -> float:
        """learning_rate, or the task's default (explorer.core.task_facts)."""
        if self.learning_rate:
            return float(self.learning_rate)
        facts = find_task_facts(self.task)
        return facts.default_learning_rate if facts else 2e-5

    def resolved_max_seq_length(self) -> int:
        """max_seq_length, or the task's default (explorer.core.task_facts)."""
        if self.max_seq_length:
            return int(self.max_seq_length)
        facts = find_task_facts(self.task)
        return facts.default_max_seq_length if facts else 128

    def resolved_dev_fraction(self) -> float:
        """The share of the training rows held out as dev when no dev file is given (0.1 by default);
        0 when a dev file is given (dev_fraction is then ignored)."""
        if self.dev:
            return 0.0
        return 0.1 if self.dev_fraction is None else float(self.dev_fraction)

    def validate(self) -> "TrainConfig":
        """Raise ConfigError naming the first bad setting; return self when all is well."""
        known = task_names()
        if self.task not in known:
            raise ConfigError(f"task {self.task!r} is not one of {', '.join(known)}")
        check_metric_for_best(self.task, self.metric_for_best, self.num_labels)
        if not self.model:
            raise ConfigError("model is empty: give a hub id, a local folder or bundled:minilm")
        if not self.train:
            raise ConfigError("train data is empty: give a file path or a hub dataset id")
        if self.mixed_precision not in MIXED_PRECISION:
            raise ConfigError(f"mixed_precision {self.mixed_precision!r} is not one of {MIXED_PRECISION}")
        for name in ("eval_every", "dev_cap", "train_cap", "save_every", "max_steps"):
            if int(getattr(self, name)) < 0:
                raise ConfigError(f"{name} must be >= 0, got {getattr(self, name)}")
        if self.learning_rate is not None and not self.learning_rate > 0:
            raise ConfigError(f"learning_rate must be > 0, got {self.learning_rate}")
        if not 0 <= self.dropout < 1:
            raise ConfigError(f"dropout must be in [0, 1), got {self.dropout}")
        if self.log_every < 1:
            raise ConfigError(f"log_every must be >= 1, got {self.log_every}")
        for item in self.watch:
            if not isinstance(item, dict):
                raise ConfigError(f"watch items must be objects like {{\"question\": ..., \"passage\": ...}}, got {item!r}")
        for name in ("batch_size", "gradient_accumulation_steps"):
            if int(getattr(self, name)) < 1:
                raise ConfigError(f"{name} must be >= 1, got {getattr(self, name)}")
        if not self.time_budget_minutes >= 0:
            raise ConfigError(f"time_budget_minutes must be >= 0, got {self.time_budget_minutes}")
        if self.task == "multilabel" and not self.label_separator:
            raise ConfigError("label_separator is empty: give the character that separates label names, e.g. ;")
        if self.max_steps <= 0 and self.epochs <= 0:
            raise ConfigError("give epochs > 0 or max_steps > 0")
        if not 0 <= self.warmup_ratio < 1:
            raise ConfigError(f"warmup_ratio must be in [0, 1), got {self.warmup_ratio}")
        if self.dev_fraction is not None and not 0 <= self.dev_fraction < 1:
            raise ConfigError(f"dev_fraction must be in [0, 1), got {self.dev_fraction}")
        parse_class_weights(self.class_weights)
        if len(set(self.label_names)) != len(self.label_names):
            raise ConfigError(f"label_names has a name twice: {self.label_names}")
        if self.encoding:
            import codecs

            try:
                codecs.lookup(self.encoding)
            except LookupError:
                raise ConfigError(f"encoding {self.encoding!r} is unknown (e.g. utf-8, cp1252, latin-1)") from None
        if len(self.text_columns) > 2:
            raise ConfigError(f"text_columns takes 1 or 2 columns, got {self.text_columns}")
        if is_qa_task(self.task) and self.doc_stride >= self.resolved_max_seq_length() - self.max_query_length - 3:
            raise ConfigError(f"doc_stride {self.doc_stride} leaves no room: it must be smaller than "
                              f"max_seq_length - max_query_length - 3")
        return self

    # ---- serialisation -------------------------------------------------------------------
    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict, source: str = "config") -> "TrainConfig":
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise ConfigError(f"{source}: unknown setting(s) {', '.join(unknown)}")
        problems = type_problems(data)
        if problems:
            raise ConfigError(f"{source}: {'; '.join(problems)}")
        ints = {f.name for f in dataclasses.fields(cls) if str(f.type).startswith("int")}
        return cls(**{k: int(v) if k in ints and isinstance(v, float) else v for k, v in data.items()})

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=2), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> "TrainConfig":
        path = Path(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"config file {path} does not exist") from None
        except json.JSONDecodeError as exc:
            raise ConfigError(f"config file {path} is not valid JSON: {exc.msg} at line {exc.lineno}") from None
        if not isinstance(data, dict):
            raise ConfigError(f"config file {path} must hold a JSON object")
        return cls.from_dict(data, source=str(path))

    def to_cli_args(self) -> list[str]:
        """The flags of ``bert-explorer train`` that reproduce this config (defaults omitted)."""
        default = TrainConfig()
        args: list[str] = []
        for f in dataclasses.fields(self):
            value, base = getattr(self, f.name), getattr(default, f.name)
            if value == base:
                continue
            flag = "--" + f.name.replace("_", "-")
            if isinstance(value, bool):
                args.append(flag if value else "--no-" + f.name.replace("_", "-"))
            elif isinstance(value, list):
                args += [flag, json.dumps(value)]
            else:
                args += [flag, str(value)]
        return args


def parse_class_weights(text: str) -> str | dict[str, float]:
    """``class_weights`` as "" (none), "balanced" or {class name: weight} from "a=1.0,b=2.5".

    Raises:
        ConfigError: not of those forms, or a weight that is not a positive number.
    """
    text = (text or "").strip()
    if text in ("", "balanced"):
        return text
    out: dict[str, float] = {}
    for part in text.split(","):
        name, sep, value = part.partition("=")
        if not sep or not name.strip():
            raise ConfigError(f"class_weights {text!r}: expected \"balanced\" or name=weight pairs like "
                              "\"AGAINST=1.0,FAVOR=2.5\"")
        try:
            w = float(value)
        except ValueError:
            raise ConfigError(f"class_weights: weight {value.strip()!r} of {name.strip()!r} is not a number") from None
        if not w > 0 or w != w or w == float("inf"):
            raise ConfigError(f"class_weights: weight of {name.strip()!r} must be a positive number, got {value.strip()}")
        out[name.strip()] = w
    return out


# One line of help per TrainConfig field: the `bert-explorer train --help` texts (and tooltips). A field's
# default is appended by the CLI unless the text states it (fields whose default depends on the task).
FIELD_HELP: dict[str, str] = {
    "model": "hub id, local model folder or bundled:minilm",
    "task": task_help(),
    "train": f"training data ({data_formats_help()})",
    "dev": "dev data for evaluations: a file path or a hub dataset id; empty = no evaluation",
    "output_dir": "the runs folder; the run lives in OUTPUT_DIR/RUN_ID "
                  "(empty = $EXPLORER_RUNS_DIR, else ~/bert-explorer-runs)",
    "run_id": "name of the run folder; empty = generated from time, model and task",
    "epochs": "passes over the training data (ignored when --max-steps > 0)",
    "max_steps": "optimizer steps to run; 0 = use --epochs instead",
    "time_budget_minutes": "end the run when its training steps have taken this many minutes (evaluations and "
                           "saves not counted); the learning rate then warms up and decays to 0 over the budget "
                           "instead of over the steps (epochs / max_steps stay an upper bound); 0 = no budget",
    "batch_size": "examples (QA: windows) per micro-batch",
    "gradient_accumulation_steps": "micro-batches per optimizer step (effective batch = batch_size x this)",
    "learning_rate": f"peak AdamW learning rate; default: {defaults_help('default_learning_rate')}",
    "weight_decay": "AdamW weight decay (not applied to biases and LayerNorm weights)",
    "warmup_ratio": "fraction of the steps with linear warmup, then linear decay to 0",
    "max_grad_norm": "clip the gradient norm to this; 0 = no clipping",
    "dropout": "dropout probability in the encoder",
    "adam_beta1": "AdamW beta1",
    "adam_beta2": "AdamW beta2",
    "adam_epsilon": "AdamW epsilon",
    "max_seq_length": f"tokens per input window; default {defaults_help('default_max_seq_length')}",
    "doc_stride": "QA: overlap in tokens between consecutive windows of a long passage (tokenizers' stride); "
                  "must be smaller than the passage room max_seq_length - question tokens - special tokens",
    "max_query_length": "QA: question tokens kept",
    "n_best_size": "QA: start/end candidates kept per window when decoding",
    "max_answer_length": "QA: longest answer span, in tokens",
    "eval_every": "optimizer steps between dev evaluations; 0 = evaluate only at the start and the end",
    "dev_cap": "evaluate on the first N dev examples; 0 = all",
    "train_cap": "train on the first N training examples; 0 = all",
    "mixed_precision": "auto, no, fp16 or bf16 (auto: bf16 on CUDA with bf16 and on AMX CPUs, else fp32)",
    "seed": "random seed (data order, dropout, new heads)",
    "length_grouping": "batch examples of similar length together (less padding, faster)",
    "fast_dropout": "cheaper dropout masks on CPU (same p everywhere)",
    "log_every": "optimizer steps between step events",
    "save_checkpoints": "save checkpoints/last and checkpoints/best",
    "save_every": "optimizer steps between saves of checkpoints/last; 0 = at evaluations and the end",
    "metric_for_best": metric_for_best_help(),
    "watch": 'question/passage pairs probed at each evaluation, '
             'e.g. [{"question": "...", "passage": "..."}]',
    "text_columns": "classification: the 1 or 2 text columns, by name or 1-based position (files without a "
                    "header: positions, e.g. 6,7); empty = found among the usual names",
    "label_column": "classification: the label column, by name or 1-based position; empty = found among the "
                    "usual names; multilabel: one column holding a delimited list (see label_separator), or several "
                    "0/1 columns, one per label, as names separated by commas",
    "id_column": "classification: a column of row ids (name or 1-based position), used in the dev split and "
                 "reports; empty = line numbers",
    "no_header": "classification: the table's first row is data, not a header (columns then by 1-based position)",
    "encoding": "classification: the data files' text encoding (e.g. cp1252); empty = UTF-8, or the encoding "
                "detected when a file is not UTF-8",
    "label_names": "classification: the class names in id order (id2label); empty = the labels' names sorted",
    "skip_invalid": "classification: skip rows with an empty text or a missing label (counted) instead of "
                    "refusing the file",
    "dev_fraction": "classification without --dev: the share of the training rows held out as a seeded, "
                    "stratified dev split (written to dev_split.csv in the run folder); default 0.1, 0 = none",
    "class_weights": "classification: per-class weights in the cross-entropy loss: balanced (n / (K x class "
                     "count), as scikit-learn's compute_class_weight) or name=weight pairs, e.g. AGAINST=1,FAVOR=2.5",
    "f1_classes": "classification: classes whose F1 is averaged into f_avg (SemEval-2016 stance: FAVOR,AGAINST)",
    "new_head": "classification: start a fresh head for the data's labels, keeping the checkpoint's encoder "
                "(needed when the checkpoint's head has other labels)",
    "label_separator": "multilabel: what separates the label names in one cell (econ;politics)",
    "num_labels": "classification: number of labels; 0 = inferred from the training labels (regression "
                  "and multilabel need no setting)",
    "trust_remote_code": "allow a hub model to run its own code",
}


def field_help(name: str, *, with_default: bool = True) -> str:
    """The help of TrainConfig field ``name``, written once in FIELD_HELP: the CLI's ``--help`` line and
    the launcher's tooltip. With ``with_default`` the default is appended unless the text states it.

    Raises:
        KeyError: ``name`` is not a TrainConfig field.
    """
    defaults = TrainConfig()
    if not hasattr(defaults, name):
        raise KeyError(f"{name!r} is not a TrainConfig field")
    text = FIELD_HELP.get(name, name.replace("_", " "))
    default = getattr(defaults, name)
    if with_default and "default" not in text and default not in (None, "", []):
        text += f" (default: {default})"
    return text


def _type_ok(value, kind: str) -> bool:
    """Does a JSON value fit a TrainConfig annotation ("int", "float | None", "list[dict]", ...)?"""
    if value is None:
        return "None" in kind
    if isinstance(value, bool):
        return kind.startswith("bool")
    if kind.startswith("bool"):
        return False
    if kind.startswith("int"):
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if kind.startswith("float"):
        return isinstance(value, (int, float))
    if kind.startswith("list"):
        return isinstance(value, list)
    return isinstance(value, str)


def type_problems(data: dict) -> list[str]:
    """One message per known setting whose value has the wrong type, e.g. "batch_size must be an
    integer, got 'abc'". Unknown keys are not checked here (from_dict names them)."""
    words = {"int": "an integer", "float": "a number", "bool": "true or false", "list": "a list", "str": "text"}
    out = []
    for f in dataclasses.fields(TrainConfig):
        if f.name in data:
            kind = str(f.type).replace(" ", "")
            if not _type_ok(data[f.name], kind):
                word = next((w for k, w in words.items() if kind.startswith(k)), kind)
                out.append(f"{f.name} must be {word}, got {data[f.name]!r}")
    return out


def paper_grid(base: TrainConfig) -> list[TrainConfig]:
    """The paper's 24-run grid (batch x lr x epochs) around a base config, in a stable order. Each run goes
    by its epochs: a max_steps or time budget of the base is dropped."""
    out = []
    for bs in PAPER_GRID["batch_size"]:
        for lr in PAPER_GRID["learning_rate"]:
            for ep in PAPER_GRID["epochs"]:
                out.append(dataclasses.replace(base, batch_size=bs, learning_rate=lr, epochs=float(ep), run_id="",
                                               max_steps=0, time_budget_minutes=0.0))   # the grid is by epochs
    return out


FAST_CPU_MINUTES = 30.0


def fast_cpu_preset(base: TrainConfig) -> TrainConfig:
    """Settings that make the small bundled encoder useful in half an hour on a CPU (docs/formulas.md, speed
    facts; README, Benchmarks: the F1-by-minutes curve that chose them, ``scripts/time_to_f1.py``):
    a 30-minute time budget (the learning rate warms up and decays to 0 over the budget, so the run ends
    annealed whatever the machine's speed; at most 2 epochs), batch 16 (twice the updates of batch 32 for
    the same windows), lr 1e-4, max_seq_length 256, length-grouped batches, and mixed precision "auto"
    (bf16 autocast only where bf16 matmul is fast: AMX CPUs, CUDA with bf16; on a CPU without
    AMX bf16 matmul is several times *slower* than fp32, so "auto" keeps fp32 there)."""
    return dataclasses.replace(base, mixed_precision="auto", max_seq_length=256, learning_rate=1e-4,
                               batch_size=16, epochs=2.0, max_steps=0, time_budget_minutes=FAST_CPU_MINUTES,
                               length_grouping=True)


def settings_markdown() -> str:
    """docs/settings.md: one row per TrainConfig field (flag, default, help), generated from FIELD_HELP
    so the CLI help, the tooltips and the docs say the same (tests/test_task_facts.py checks the file)."""
    defaults = TrainConfig()
    lines = ["# Training settings", "",
             "Generated from `explorer/core/training/config.py` (`FIELD_HELP`) by `settings_markdown()`; the same",
             "texts are `bert-explorer train --help` and the launcher's tooltips. Edit them there, not here.", "",
             "| setting | flag | default | what it does |", "|---|---|---|---|"]
    for f in dataclasses.fields(TrainConfig):
        default = getattr(defaults, f.name)
        shown = "task default" if default is None else ("" if default in ("", []) else str(default))
        text = field_help(f.name, with_default=False).replace("|", "\\|")
        lines.append(f"| `{f.name}` | `--{f.name.replace('_', '-')}` | {shown} | {text} |")
    return "\n".join(lines) + "\n"

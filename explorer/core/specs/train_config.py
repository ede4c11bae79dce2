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
from explorer.paths import RESOURCES
from explorer.core.specs.tasks import (check_metric_for_best, data_formats_help, defaults_help, evals_per_epoch_help,
                                     find_task_facts, is_qa_task, metric_for_best_help, task_help, task_names)

TASKS = tuple(task_names())          # the rows of explorer.core.specs.tasks
MIXED_PRECISION = ("auto", "no", "fp16", "bf16")
# Where a run reports its scalars besides events.jsonl: "" / "none" nowhere else; "tensorboard" TensorBoard
# event files in the run folder (explorer.core.runs.tensorboard.TensorBoardWriter; the tensorboard extra).
REPORT_TO = ("", "none", "tensorboard")
# "auto": bf16 autocast where bf16 matmul is fast (CUDA with bf16 support; CPUs with AMX tiles), else "no"
# (fp32). See explorer.core.training.precision.resolve_mixed_precision.

# The paper's fine-tuning grid (Appendix A.3): the "grid" of resources/presets/paper.json.
PAPER_GRID = json.loads((RESOURCES / "presets" / "paper.json").read_text(encoding="utf-8"))["grid"]


# The app's menu item that lists another tool's run folder (explorer.ui.shell.main_window's File menu names it
# from here, so the messages that point to it cannot drift from it).
OPEN_RUN_FOLDER_ACTION = "Open run folder…"
OPEN_RUN_FOLDER_HINT = f"open the Trainer's output_dir (or a checkpoint-N folder) with File → {OPEN_RUN_FOLDER_ACTION}"
# keys that only a transformers Trainer's trainer_state.json holds together (TrainerState.save_to_json)
_TRAINER_STATE_KEYS = {"log_history", "global_step", "best_model_checkpoint"}
# keys of a transformers model's config.json (PretrainedConfig.to_json_file)
_MODEL_CONFIG_KEYS = {"model_type", "architectures", "hidden_size", "num_attention_heads", "vocab_size"}


def foreign_config_note(path: str | Path, data) -> str | None:
    """What a file given as a run config really is when another tool wrote it, and what to do instead; None
    for anything else (a run config, or a file this cannot place).

    ``data``: the file's parsed JSON, or None when it is not JSON text. Recognised (transformers' file names
    and keys): a Trainer's ``trainer_state.json`` (``log_history``, ``global_step``, ...), its
    ``training_args.bin`` (a pickle; never unpickled here) or a ``training_args.json``, and a model's
    ``config.json`` (``model_type``, ``architectures``, ``hidden_size``, ...)."""
    path = Path(path)
    keys = set(data) if isinstance(data, dict) else set()
    if path.name == "trainer_state.json" or len(keys & _TRAINER_STATE_KEYS) >= 2:
        return (f"{path} is a Hugging Face Trainer state (trainer_state.json: its log history and best checkpoint), "
                f"not a run config: {OPEN_RUN_FOLDER_HINT} to see its curves and checkpoints; its settings are "
                f"read from training_args.bin there")
    if path.name.startswith("training_args") or {"per_device_train_batch_size", "output_dir"} <= keys:
        return (f"{path} holds a Hugging Face Trainer's TrainingArguments, not a run config: {OPEN_RUN_FOLDER_HINT}; "
                f"its settings (learning rate, batch size, epochs) are read from it there without unpickling")
    if len(keys & _MODEL_CONFIG_KEYS) >= 2:
        kind = f" {data['model_type']}" if isinstance(data.get("model_type"), str) else ""
        field_label = next(f.metadata["setting"].label for f in dataclasses.fields(TrainConfig) if f.name == "model")
        return (f"{path} is a model's config (the config.json of a Hugging Face{kind} model), not a run config: to "
                f"fine-tune that model, put its folder in the launcher's {field_label} (Folder…); a Trainer "
                f"checkpoint's folder opens with File → {OPEN_RUN_FOLDER_ACTION}")
    return None


MODEL_AND_TASK, DATA, RECIPE, WINDOWS, OUTPUT = ("Model and task", "Data", "Recipe", "Sequence and QA windows",
                                                 "Evaluation and output")
GROUPS = (MODEL_AND_TASK, DATA, RECIPE, WINDOWS, OUTPUT)   # the launcher's group boxes


@dataclass(frozen=True)
class Setting:
    """Everything said about one TrainConfig field, written once beside it (``dataclasses.field`` metadata):
    the CLI's ``--help`` line, the launcher's label, group, editor and tooltip, docs/settings.md, and the
    bounds ``TrainConfig.validate`` checks.

    Attributes:
        help: one line on what the setting does (CLI help, docs, tooltip); the CLI appends the default
            unless the text states it.
        label: the launcher's label; "" = not an editor of the launcher form.
        group: the launcher's group box (one of GROUPS).
        kind: the editor kind (explorer/ui/launch/form_fields.py EDITORS: text, model, task, data, int,
            float, lr, choice, bool, folder, columns, colpick, colpicks, weights, metric, report_to).
        lo, hi: the valid range (None = unbounded), checked by validate and used by the editors;
            ``lo_open`` / ``hi_open``: the bound itself is not allowed.
        step, decimals: the spin box's step and (floats) decimals.
        special: what the editor shows for the lowest value (e.g. "all" for a cap of 0).
        applies: the data kinds (TaskFacts.data_kind) whose tasks use it, space-separated: "squad" = only the QA
            tasks (SQuAD files: windows, questions), "table" = only tasks reading tables (text / label columns),
            "table conll" = those and token tagging; "" = every task (the launcher greys the others out).
        tasks: the task names that use it when fewer than ``applies`` says (label_separator: multilabel).
        none_value: what a spin box shows for the default None (dev_fraction: 0.1, the share None means).
        rank: order inside its launcher group (ties: field order).
        explain: the longer explanation (why, typical values, the paper's choice): the launcher's tooltip
            and the glossary's entry for the setting's name (explorer.glossary takes it from here).
    """

    help: str
    label: str = ""
    group: str = ""
    kind: str = ""
    lo: float | None = None
    hi: float | None = None
    lo_open: bool = False
    hi_open: bool = False
    step: float = 1
    decimals: int = 3
    special: str = ""
    applies: str = ""
    tasks: tuple[str, ...] = ()
    none_value: float | None = None
    rank: int = 0
    explain: str = ""

    def bounds_text(self) -> str:
        """">= 0", "> 0", "in [0, 1)" or "" (the words of validate's message)."""
        if self.lo is not None and self.hi is not None:
            return f"in {'(' if self.lo_open else '['}{self.lo:g}, {self.hi:g}{')' if self.hi_open else ']'}"
        if self.lo is not None:
            return f"{'>' if self.lo_open else '>='} {self.lo:g}"
        if self.hi is not None:
            return f"{'<' if self.hi_open else '<='} {self.hi:g}"
        return ""

    def accepts(self, value) -> bool:
        """Is ``value`` inside the bounds? (NaN never is; None is: "the task's default".)"""
        if value is None or isinstance(value, (str, list, bool)):
            return True
        if self.lo is not None and not (value > self.lo if self.lo_open else value >= self.lo):
            return False
        if self.hi is not None and not (value < self.hi if self.hi_open else value <= self.hi):
            return False
        return value == value


def setting(default, help: str, **described) -> dataclasses.Field:   # noqa: A002 - the word the docs use
    """A TrainConfig field with its :class:`Setting` (``described``: its other attributes)."""
    meta = {"setting": Setting(help, **described)}
    if isinstance(default, list):
        return field(default_factory=list, metadata=meta)
    return field(default=default, metadata=meta)


@dataclass
class TrainConfig:
    """One fine-tuning run. Units: learning rates per optimizer step; lengths in tokens. Each field's
    help, label, group, editor and bounds: its :class:`Setting` (``settings()``)."""

    model: str = setting("bundled:minilm", "a Hugging Face hub id (bert-base-uncased), a local folder with a "
                         "saved model, or bundled:minilm (the offline 6-layer MiniLM encoder shipped with the app)",
                         label="Base model", group=MODEL_AND_TASK, kind="model")
    task: str = setting("squad_v2", f"what the model learns: {task_help()}", label="Task", group=MODEL_AND_TASK,
                        kind="task")
    train: str = setting("", f"training data ({data_formats_help()}); hub ids take an optional ::config "
                         "(nyu-mll/glue::sst2)", label="Train data", group=DATA, kind="data")
    dev: str = setting("", "dev data for evaluations during training: a file path or a hub dataset id; "
                       "empty = no evaluation", label="Dev data", group=DATA, kind="data")
    output_dir: str = setting("", "the runs folder; each run is written to OUTPUT_DIR/RUN_ID (config.json, "
                              "events.jsonl, checkpoints/); empty = $EXPLORER_RUNS_DIR, else ~/bert-explorer-runs",
                              label="Runs folder", group=OUTPUT, kind="folder", rank=4)
    run_id: str = setting("", "name of the run folder (and of the run in the Runs list); empty = generated from date, time, model, task and train data file",
                          label="Run name", group=OUTPUT, kind="text", rank=5)
    epochs: float = setting(3.0, "passes over the training data (ignored when --max-steps > 0)",
                            label="Epochs", group=RECIPE, kind="float", lo=0, step=0.5, decimals=2,
        explain=(
        'Passes over the training data (paper: 2 to 4, default 3). max_steps > 0 overrides it.'))
    max_steps: int = setting(0, "optimizer steps to run; 0 = use --epochs instead", label="Max steps",
                             group=RECIPE, kind="int", lo=0, step=100, special="use epochs")
    time_budget_minutes: float = setting(
        0.0, "the run's wall time in minutes: training, evaluations and checkpoint saves; training stops early "
        "enough for the final evaluation on the whole dev set to fit; the learning rate then warms up and "
        "decays to 0 over the budget instead of over the steps "
        "(epochs / max_steps stay an upper bound: when they end the run first, the decay follows them); 0 = no budget", label="Time budget (min)", group=RECIPE,
        kind="float", lo=0, step=5, decimals=2, special="none")   # 0.75 min is kept, never rounded to 0.7
    batch_size: int = setting(32, "examples (QA: windows) per micro-batch", label="Batch size", group=RECIPE,
                              kind="int", lo=1,
        explain=(
        'Examples (QA: windows) per optimizer step, before gradient accumulation (paper: 16 or 32).'))
    gradient_accumulation_steps: int = setting(1, "micro-batches per optimizer step (effective batch = "
                                               "batch_size x this)", label="Grad. accumulation", group=RECIPE,
                                               kind="int", lo=1)
    learning_rate: float | None = setting(None, f"peak AdamW learning rate; default: "
                                          f"{defaults_help('default_learning_rate')}", label="Learning rate",
                                          group=RECIPE, kind="lr", lo=0, lo_open=True,
        explain=(
        'The peak step size of AdamW. The BERT paper tries 5e-5, 4e-5, 3e-5 and 2e-5; small encoders '
        'such as the bundled MiniLM often want a higher one (about 1e-4).'))
    weight_decay: float = setting(0.01, "AdamW weight decay (not applied to biases and LayerNorm weights)",
                                  label="Weight decay", group=RECIPE, kind="float", lo=0, step=0.01, decimals=4,
                                  rank=2,
        explain=(
        'AdamW shrinks each weight by lr × weight_decay per step (default 0.01), which keeps weights '
        'small. Biases and LayerNorm weights are excluded, as in the released BERT code.'))
    warmup_ratio: float = setting(0.1, "fraction of the steps with linear warmup, then linear decay to 0",
                                  label="Warmup ratio", group=RECIPE, kind="float", lo=0, hi=1, hi_open=True,
                                  step=0.05, rank=1)
    max_grad_norm: float = setting(1.0, "clip the gradient norm to this; 0 = no clipping", label="Max grad norm",
                                   group=RECIPE, kind="float", lo=0, step=0.5, decimals=2, rank=3)
    dropout: float = setting(0.1, "dropout probability in the encoder", label="Dropout", group=RECIPE,
                             kind="float", lo=0, hi=1, hi_open=True, step=0.05, decimals=2, rank=4,
        explain=(
        'The probability of zeroing a hidden unit during training (paper: 0.1); off at evaluation.'))
    adam_beta1: float = setting(0.9, "AdamW beta1", lo=0, hi=1, hi_open=True)
    adam_beta2: float = setting(0.999, "AdamW beta2", lo=0, hi=1, hi_open=True)
    adam_epsilon: float = setting(1e-8, "AdamW epsilon", lo=0, lo_open=True)
    max_seq_length: int | None = setting(None, f"tokens per input window; default "
                                         f"{defaults_help('default_max_seq_length')}", label="max_seq_length",
                                         group=WINDOWS, kind="int", lo=0, step=32, special="task default",
        explain=(
        'The length of one input window in tokens, [CLS] question [SEP] passage [SEP] included (default '
        '384 for QA, 128 for classification). Longer passages are cut into several overlapping windows.'))
    doc_stride: int = setting(128, "QA: overlap in tokens between consecutive windows of a long passage "
                              "(tokenizers' stride, not the step between their starts); must be smaller than the "
                              "passage room max_seq_length - question tokens - special tokens",
                              label="doc_stride (overlap)", group=WINDOWS, kind="int", lo=0, step=16, applies="squad",
        explain=(
        'The overlap, in tokens, between consecutive windows of a long passage (default 128), so that an '
        "answer cut by one window's edge appears whole in the next."))
    max_query_length: int = setting(64, "QA: question tokens kept", label="max_query_length", group=WINDOWS,
                                    kind="int", lo=1, applies="squad",
        explain=(
        'Questions longer than this many tokens are truncated before the windows are built (default 64).'))
    n_best_size: int = setting(20, "QA: start/end candidates kept per window when decoding", label="n_best_size",
                               group=WINDOWS, kind="int", lo=1, applies="squad",
        explain=(
        'How many of the highest start scores and of the highest end scores are paired when searching '
        'for the answer span (default 20), and how many candidates the n-best list keeps.'))
    max_answer_length: int = setting(30, "QA: longest answer span, in tokens", label="max_answer_length",
                                     group=WINDOWS, kind="int", lo=1, applies="squad",
        explain=(
        'The longest answer allowed, in tokens (default 30): spans with j ≥ i + max_answer_length are '
        'never considered.'))
    eval_every: int = setting(0, "optimizer steps between dev evaluations; 0 = evaluate only at the start and "
                              f"the end; the launcher starts {evals_per_epoch_help()} of the training file",
                              label="Evaluate every", group=OUTPUT, kind="int", lo=0, step=50,
                              special="start and end", rank=2,
        explain=(
        'Optimizer steps between evaluations on the dev set; 0 = only at the start and the end.'))
    dev_cap: int = setting(0, "evaluate on the first N dev examples; 0 = all", label="Dev cap", group=DATA,
                           kind="int", lo=0, step=100, special="all", rank=2,
        explain=(
        'Evaluate on the first N dev examples only (0 = all), so evaluations during training stay quick. '
        'The final figures should be computed on the full dev set.'))
    eval_share: float = setting(0.15, "the largest share of the run's wall time dev evaluations (with their metrics "
                                "and the checkpoint saves after them) may take: from the "
                                "measured training and evaluation rates the run evaluates on a stratified dev sample "
                                "(the same rows each time; the whole dev set at the end) and, if that is not enough, "
                                "less often than eval_every (core/training/eval_plan.py); 0 = off: every evaluation "
                                "scores the whole dev set (after dev_cap) every eval_every steps", lo=0, hi=1,
                                hi_open=True)
    full_dev_evals: bool = setting(False, "score the whole dev set at every evaluation (only the cadence then adapts "
                                   "to eval_share)", label="Whole dev set at every evaluation", group=OUTPUT,
                                   kind="bool", rank=2,
        explain=(
        'By default a large dev set is sampled during training (a stratified sample, the same rows at every '
        'evaluation; the whole dev set at the end) so evaluations take at most a fifth of the run. Tick to score '
        'every dev row at every evaluation; the run then evaluates less often.'))
    train_cap: int = setting(0, "train on N training examples; 0 = all. Tables: a stratified random N of the rows "
                             "(each class in its share; seed: split_seed, else seed), taken before any dev rows "
                             "are held out of them; SQuAD: a random N of the questions stratified by answerable / "
                             "unanswerable (same seed); CoNLL and SWAG: the first N sentences or examples", label="Train cap", group=DATA,
                             kind="int", lo=0, step=100, special="all", rank=1)
    mixed_precision: str = setting("auto", "auto, no, fp16 or bf16 (auto: bf16 on CUDA with bf16 and on AMX "
                                   "CPUs, else fp32)", label="Precision", group=OUTPUT, kind="choice", rank=1,
        explain=(
        'Run the matrix products in 16-bit numbers (bf16 or fp16) while the weights stay in fp32. bf16 '
        'is several times faster on CPUs with AMX and on recent GPUs; fp16 needs loss scaling and a GPU.'))
    seed: int = setting(42, "random seed (data order, dropout, new heads)", label="Seed", group=RECIPE,
                        kind="int", lo=0, hi=2**31 - 1, rank=5)
    split_seed: int | None = setting(None, "the seed of the dev rows held out of the training data (no --dev) and of "
                                     "the dev sample evaluated during training; default: --seed. The members of a "
                                     "group of restarts or a grid share the first's, so they score the same dev rows",
                                     lo=0, hi=2**31 - 1)
    length_grouping: bool = setting(True, "batch examples of similar length together (less padding, faster)",
                                    label="Length-grouped batches", group=WINDOWS, kind="bool",
        explain=(
        'Batches are formed from windows of similar length and padded only to the longest in the batch '
        '(dynamic padding), so little time is spent on [PAD] tokens. Same results, often much faster.'))
    fast_dropout: bool = setting(True, "cheaper dropout masks on CPU (same p everywhere); "
                                 "see training/fast_dropout.py")
    log_every: int = setting(1, "optimizer steps between step events", lo=1)
    head_lr_multiplier: float = setting(1.0, "the learning rate of the task head's weights (those outside the "
                                        "pre-trained encoder: a new head starts from random values) as a multiple "
                                        "of the learning rate; 1 = one rate for every weight, as the BERT paper",
                                        lo=0, lo_open=True)
    skip_answerless_windows: bool = setting(False, "SQuAD v1.1: train only on the windows that hold the answer; "
                                            "a long passage's other windows (labelled at [CLS], a no-answer a v1.1 "
                                            "model never gives) are left out of training; evaluation still reads "
                                            "every window", tasks=("squad_v1",))
    save_checkpoints: bool = setting(True, "save checkpoints/last and checkpoints/best (needed to open the model "
                                     "in the inspectors)", label="Save checkpoints", group=OUTPUT, kind="bool",
                                     rank=3)
    report_to: str = setting("", "also write the run's scalars elsewhere while it trains: tensorboard = "
                             "TensorBoard event files in the run folder, beside events.jsonl (needs the tensorboard "
                             "package); empty or none = only events.jsonl", label="TensorBoard event files",
                             group=OUTPUT, kind="report_to", rank=6,
        explain=(
        'Write the loss, learning rate, gradient norm and every dev metric as TensorBoard event files in '
        'the run folder while it trains, so `tensorboard --logdir` on the runs folder shows this run beside '
        'others. Needs the tensorboard package.'))
    save_every: int = setting(0, "optimizer steps between saves of checkpoints/last; 0 = at evaluations and the "
                              "end", lo=0)
    metric_for_best: str = setting("", metric_for_best_help(), label="Best checkpoint by", group=OUTPUT,
                                   kind="metric", rank=7,
        explain=(
        'The dev metric that picks checkpoints/best, Best dev in the Runs list and the first dev plot in Curves. '
        'Automatic: the task\'s own (accuracy, pearson, F1…), or F_avg when F1 classes are named.'))
    watch: list[dict] = setting([], 'question/passage pairs probed at each evaluation, '
                                'e.g. [{"question": "...", "passage": "..."}]')
    text_columns: list[str] = setting([], "classification: the 1 or 2 text columns, by name or 1-based position "
                                      "(files without a header: positions, e.g. 6,7); empty = found among the usual "
                                      "names", label="Text columns", group=DATA, kind="colpicks", applies="table",
                                      rank=3)
    label_column: str = setting("", "classification: the label column, by name or 1-based position; empty = found "
                                "among the usual names; multilabel: one column holding a delimited list (see "
                                "label_separator), or several 0/1 columns, one per label, as names separated by "
                                "commas", label="Label column", group=DATA, kind="colpick", applies="table", rank=4)
    id_column: str = setting("", "classification: a column of row ids (name or 1-based position), used in the dev "
                             "split and reports; empty = line numbers", label="Id column", group=DATA,
                             kind="colpick", applies="table", rank=5)
    no_header: bool = setting(False, "classification: the table's first row is data, not a header (columns then by "
                              "1-based position)", label="No header row", group=DATA, kind="bool", applies="table",
                              rank=6)
    encoding: str = setting("", "classification and tagging: the data files' text encoding (e.g. cp1252); empty = "
                            "UTF-8, or the encoding detected when a file is not UTF-8", label="Encoding", group=DATA,
                            kind="text", applies="table conll", rank=7)
    label_names: list[str] = setting([], "classification: the class names in id order (id2label); empty = the "
                                     "labels' names sorted", label="Label names", group=DATA, kind="columns",
                                     applies="table", rank=8)
    skip_invalid: bool = setting(False, "classification: skip rows with an empty text, a missing label, "
                                 "a label of another kind than most (a 'Like' among ratings 1..5) or "
                                 "bytes that are not UTF-8 (counted) instead of refusing the file; tagging: read an I- tag after O as the start of an "
                                 "entity, as conlleval does (counted), instead of refusing the file",
                                 label="Skip invalid rows", group=DATA, kind="bool", applies="table conll", rank=9)
    dev_fraction: float | None = setting(
        None, "classification without --dev: the share of the training rows held out as a seeded, stratified dev "
        "split (written to dev_split.csv in the run folder); default 0.1, 0 = none", label="Dev fraction",
        group=DATA, kind="float", lo=0, hi=1, hi_open=True, step=0.05, decimals=2, applies="table", rank=10,
        none_value=0.1)
    class_weights: str = setting("", "classification: per-class weights in the cross-entropy loss: balanced (n / "
                                 "(K x class count), as scikit-learn's compute_class_weight) or name=weight pairs, "
                                 "e.g. AGAINST=1,FAVOR=2.5", label="Class weights", group=RECIPE, kind="weights",
                                 applies="table", tasks=("single", "pair"), rank=6)
    f1_classes: list[str] = setting([], "classification: classes whose F1 is averaged into f_avg, reported beside "
                                    "accuracy and macro F1 (SemEval-2016 stance: FAVOR,AGAINST, its official "
                                    "figure F_avg, NONE left out); the launcher fills it when the data's labels are "
                                    "those classes", label="F1 classes", group=OUTPUT, kind="columns",
                                    applies="table", tasks=("single", "pair"), rank=6)
    new_head: bool = setting(False, "classification, multi-label and token tagging: start a fresh head for the "
                             "data's labels (classes, label sets, tags), keeping the checkpoint's encoder (needed "
                             "when the checkpoint's head lacks some of the data's labels)",
                             label="New head", group=MODEL_AND_TASK, kind="bool", applies="table conll", rank=1)
    label_separator: str = setting(";", "multilabel: what separates the label names in one cell (econ;politics)",
                                   label="Label separator", group=DATA, kind="text", tasks=("multilabel",),
                                   rank=11)
    num_labels: int = setting(0, "classification: number of labels; 0 = inferred from the training labels "
                              "(regression and multilabel need no setting)", lo=0)
    trust_remote_code: bool = setting(False, "allow a hub model to run its own code")

    def resolved_learning_rate(self) -> float:
        """learning_rate, or the task's default (explorer.core.specs.tasks)."""
        if self.learning_rate:
            return float(self.learning_rate)
        facts = find_task_facts(self.task)
        return facts.default_learning_rate if facts else 2e-5

    def resolved_max_seq_length(self) -> int:
        """max_seq_length, or the task's default (explorer.core.specs.tasks)."""
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
        check_metric_for_best(self.task, self.metric_for_best, self.num_labels, self.f1_classes)
        if not self.model:
            raise ConfigError("model is empty: give a hub id, a local folder or bundled:minilm")
        if not self.train:
            raise ConfigError("train data is empty: give a file path or a hub dataset id")
        if self.mixed_precision not in MIXED_PRECISION:
            raise ConfigError(f"mixed_precision {self.mixed_precision!r} is not one of {MIXED_PRECISION}")
        if self.report_to not in REPORT_TO:
            raise ConfigError(f"report_to {self.report_to!r} is not one of tensorboard, none (or empty)")
        for f in dataclasses.fields(self):
            rule = f.metadata["setting"]
            if not rule.accepts(getattr(self, f.name)):
                raise ConfigError(f"{f.name} must be {rule.bounds_text()}, got {getattr(self, f.name)}")
        for item in self.watch:
            if not isinstance(item, dict):
                raise ConfigError(f"watch items must be objects like {{\"question\": ..., \"passage\": ...}}, got {item!r}")
        if find_task_facts(self.task).is_multilabel and not self.label_separator:
            raise ConfigError("label_separator is empty: give the character that separates label names, e.g. ;")
        if self.max_steps <= 0 and self.epochs <= 0:
            raise ConfigError("give epochs > 0 or max_steps > 0")
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
        """Read a run config (a run folder's config.json, or one saved by the launcher).

        Raises:
            ConfigError: the file is missing, not JSON, not an object, has unknown or mistyped settings, or is
                another tool's file (a Hugging Face Trainer's trainer_state.json or training_args.bin, a
                model's config.json): then it says what the file is and what to open instead
                (:func:`foreign_config_note`)."""
        path = Path(path)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            raise ConfigError(f"config file {path} does not exist") from None
        except OSError as exc:
            raise ConfigError(f"config file {path} cannot be read: {exc.strerror or exc}") from None
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            note = foreign_config_note(path, None)
            if note:
                raise ConfigError(note) from None
            why = f"{exc.msg} at line {exc.lineno}" if isinstance(exc, json.JSONDecodeError) else "not UTF-8 text"
            raise ConfigError(f"config file {path} is not valid JSON: {why}") from None
        note = foreign_config_note(path, data)
        if note:
            raise ConfigError(note)
        if not isinstance(data, dict):
            raise ConfigError(f"config file {path} must hold a JSON object")
        return cls.from_dict(data, source=str(path))

    def dev_split_seed(self) -> int:
        """The seed of the held-out dev rows and of the dev sample: ``split_seed``, else ``seed``."""
        return dev_split_seed_of({"seed": self.seed, "split_seed": self.split_seed})

    def to_cli_args(self) -> list[str]:
        """The flags of ``bert-explorer train`` that reproduce this config (defaults omitted)."""
        default = TrainConfig()
        args: list[str] = []
        for f in dataclasses.fields(self):
            value, base = getattr(self, f.name), getattr(default, f.name)
            if value == base:
                continue
            flag = field_flag(f.name)
            if isinstance(value, bool):
                args.append(flag if value else "--no-" + f.name.replace("_", "-"))
            elif isinstance(value, list):
                args += [flag, _cli_list(value)]
            else:
                args += [flag, str(value)]
        return args


# a field whose flag is not its name: the launcher calls the run's folder name "Run name"
FIELD_FLAGS = {"run_id": "--run-name"}


def field_flag(name: str) -> str:
    """The ``bert-explorer train`` flag of TrainConfig field ``name``: ``--run-name`` for ``run_id`` (the
    launcher's word), else the name with dashes (``learning_rate`` -> ``--learning-rate``)."""
    return FIELD_FLAGS.get(name, "--" + name.replace("_", "-"))


def _cli_list(items: list) -> str:
    """A list flag's value as a person types it: ``Tweet`` or ``AGAINST,FAVOR,NONE`` (the train parser reads
    "a,b" and a single bare item); JSON (``["a, b"]``) only where that would not read back the same: an item
    with a comma or edge spaces, an empty one, a non-string (watch's dicts), or one bare word JSON would read
    as another type (true, null)."""
    plain = bool(items) and all(isinstance(x, str) and x and "," not in x and x == x.strip() for x in items)
    if plain and len(items) == 1:
        try:
            parsed = json.loads(items[0])
        except json.JSONDecodeError:
            parsed = items[0]
        plain = isinstance(parsed, (int, float, str)) and not isinstance(parsed, bool) and str(parsed) == items[0]
    return ",".join(items) if plain else json.dumps(items)


def settings() -> dict[str, Setting]:
    """name -> Setting of every TrainConfig field, in field order."""
    return {f.name: f.metadata["setting"] for f in dataclasses.fields(TrainConfig)}


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


def field_help(name: str, *, with_default: bool = True) -> str:
    """The help of TrainConfig field ``name``, written once in its Setting: the CLI's ``--help`` line and
    the launcher's tooltip. With ``with_default`` the default is appended unless the text states it.

    Raises:
        KeyError: ``name`` is not a TrainConfig field.
    """
    defaults = TrainConfig()
    if not hasattr(defaults, name):
        raise KeyError(f"{name!r} is not a TrainConfig field")
    text = settings()[name].help
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


def settings_markdown() -> str:
    """docs/settings.md: one row per TrainConfig field (flag, default, bounds, help), generated from the Settings
    so the CLI help, the tooltips and the docs say the same (tests/test_task_facts.py checks the file)."""
    defaults = TrainConfig()
    lines = ["# Training settings", "",
             "Generated from `explorer/core/specs/train_config.py` (each field's `Setting`) by `settings_markdown()`;",
             "the same texts are `bert-explorer train --help` and the launcher's tooltips, the same bounds are",
             "checked by `TrainConfig.validate`. Edit them there, not here.", "",
             "| setting | flag | default | valid | what it does |", "|---|---|---|---|---|"]
    for f in dataclasses.fields(TrainConfig):
        default = getattr(defaults, f.name)
        shown = "task default" if default is None else ("" if default in ("", []) else str(default))
        text = field_help(f.name, with_default=False).replace("|", "\\|")
        valid = f.metadata["setting"].bounds_text()
        lines.append(f"| `{f.name}` | `{field_flag(f.name)}` | {shown} | {valid} | {text} |")
    return "\n".join(lines) + "\n"


def dev_split_seed_of(fields) -> int:
    """A run's ``dev_split_seed`` from its saved config's fields (a dict): ``split_seed``, else ``seed``; the seed
    of its held-out dev rows, of its dev sample and of the rows its Train cap keeps."""
    split = fields.get("split_seed")
    return int(fields.get("seed", TrainConfig.__dataclass_fields__["seed"].default)) if split is None else int(split)


# where a run writes and what it logs, not how it trains: two runs apart only in these are the same setting
BOOKKEEPING_FIELDS = ("output_dir", "run_id", "save_checkpoints", "report_to", "log_every", "save_every", "watch")


def differing_settings(a: dict, b: dict) -> list[str]:
    """The TrainConfig fields two runs' saved configs set differently (a field one of them lacks counts as its
    default), in the fields' order; :data:`BOOKKEEPING_FIELDS` left out. ``["seed"]``: two restarts of one
    setting."""
    out = []
    for f in dataclasses.fields(TrainConfig):
        if f.name in BOOKKEEPING_FIELDS:
            continue
        default = f.default if f.default is not dataclasses.MISSING else (
            f.default_factory() if f.default_factory is not dataclasses.MISSING else None)
        if a.get(f.name, default) != b.get(f.name, default):
            out.append(f.name)
    return out

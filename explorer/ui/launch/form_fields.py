"""The launcher's field table: which TrainConfig fields the form shows, and their editors.

Each :class:`FieldSpec` names a TrainConfig field, its label, group, editor kind and tooltip. The
form reads / writes only these fields; every other field of a loaded config is kept as it was (the
training engineer may add fields without breaking the form).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from PySide6.QtCore import QLocale, Signal
from PySide6.QtGui import QDoubleValidator
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDoubleSpinBox, QHBoxLayout, QLineEdit, QPushButton,
                               QSpinBox, QWidget)

from explorer.core.task_facts import task_labels
from explorer.core.training.config import field_help

TASK_LABELS = task_labels()   # explorer.core.task_facts
PRECISION_LABELS = {
    "auto": "auto (bf16 where fast)",
    "no": "fp32",
    "bf16": "bf16 autocast",
    "fp16": "fp16 (CUDA)",
}
MODEL_CHOICES = ("bundled:minilm", "bert-base-uncased", "bert-large-uncased", "bert-base-cased",
                 "distilbert-base-uncased")


@dataclass(frozen=True)
class FieldSpec:
    name: str            # TrainConfig field
    label: str
    group: str
    kind: str            # text | model | task | data | int | float | lr | choice | bool | folder | columns |
                         # colpick (a column of the data, editable drop-down) | colpicks (1-2 of them) | weights
    tip: str = ""
    lo: float = 0
    hi: float = 1e9
    step: float = 1
    decimals: int = 3
    special: str = ""    # text shown for the minimum value of a spin box (e.g. "auto")
    qa_only: bool = False
    cls_only: bool = False
    tasks: tuple[str, ...] = ()   # enabled only for these tasks (empty = as qa_only / cls_only say)


GROUPS = ("Model and task", "Data", "Recipe", "Sequence and QA windows", "Evaluation and output")

FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("model", "Base model", "Model and task", "model",
              "A Hugging Face hub id (bert-base-uncased), a local folder with a saved model, or bundled:minilm "
              "(the offline 6-layer MiniLM encoder shipped with the app)."),
    FieldSpec("task", "Task", "Model and task", "task",
              "What the model learns: SQuAD v1.1 spans, SQuAD v2.0 spans or no answer, or a [CLS] classifier."),
    FieldSpec("train", "Train data", "Data", "data",
              "A local file (SQuAD JSON; .tsv/.csv/.jsonl for classification) or a hub dataset id such as "
              "rajpurkar/squad_v2 or nyu-mll/glue::sst2."),
    FieldSpec("dev", "Dev data", "Data", "data", "Evaluated during training; empty = no evaluation."),
    FieldSpec("train_cap", "Train cap", "Data", "int", "Use only the first N training examples (0 = all).",
              hi=10_000_000, step=100, special="all"),
    FieldSpec("dev_cap", "Dev cap", "Data", "int", "Evaluate on the first N dev examples only (0 = all).",
              hi=10_000_000, step=100, special="all"),
    FieldSpec("text_columns", "Text columns", "Data", "colpicks",
              "The column of the sentence (or the two columns of a pair, comma-separated), picked from the file's "
              "header; without a header, 1-based positions (e.g. 6, 7). Empty = the usual names.", cls_only=True),
    FieldSpec("label_column", "Label column", "Data", "colpick",
              "The label column, picked from the file's header (or a 1-based position); empty = the usual names. "
              "Regression: the column of scores. Multi-label: one column holding the label names (econ;politics), "
              "or several 0/1 columns, one per label, comma-separated.",
              cls_only=True),
    FieldSpec("id_column", "Id column", "Data", "colpick",
              "Optional column of row ids (kept in the dev split and reports); empty = line numbers.", cls_only=True),
    FieldSpec("no_header", "No header row", "Data", "bool",
              "The file's first row is data; columns are then picked by position.", cls_only=True),
    FieldSpec("encoding", "Encoding", "Data", "text",
              "The file's text encoding (e.g. cp1252); empty = UTF-8, or the encoding found when it is not UTF-8.",
              cls_only=True),
    FieldSpec("label_names", "Label names", "Data", "columns",
              "The class names in id order, comma-separated; empty = the labels' names sorted.", cls_only=True),
    FieldSpec("skip_invalid", "Skip invalid rows", "Data", "bool",
              "Skip rows with an empty text or a missing label (counted) instead of refusing the file.",
              cls_only=True),
    FieldSpec("dev_fraction", "Dev fraction", "Data", "float",
              "Without dev data: the share of the training rows held out as a stratified dev split (0 = none).",
              lo=0, hi=0.9, step=0.05, decimals=2, cls_only=True),
    FieldSpec("class_weights", "Class weights", "Recipe", "weights",
              "Per-class weights in the loss: balanced (rarer classes weigh more, as scikit-learn's "
              "compute_class_weight) or name=weight pairs; empty = none.", cls_only=True),
    FieldSpec("f1_classes", "F1 classes", "Evaluation and output", "columns",
              "Classes whose F1 is averaged into f_avg (SemEval-2016 stance: FAVOR, AGAINST).", cls_only=True),
    FieldSpec("new_head", "New head", "Model and task", "bool",
              "Start a fresh classification head for this data's labels, keeping the checkpoint's encoder "
              "(needed when the checkpoint's head has other labels).", cls_only=True),
    FieldSpec("label_separator", "Label separator", "Data", "text",
              "Multi-label: what separates the label names in one cell (econ;politics).", tasks=("multilabel",)),
    FieldSpec("epochs", "Epochs", "Recipe", "float", "", lo=0.01, hi=1000, step=0.5, decimals=2),
    FieldSpec("max_steps", "Max steps", "Recipe", "int", "Stop after this many optimizer steps (0 = use epochs).",
              hi=100_000_000, step=100, special="use epochs"),
    FieldSpec("time_budget_minutes", "Time budget (min)", "Recipe", "float",
              "End the run after this many minutes of training steps (evaluations and saves not counted); the "
              "learning rate warms up and decays to 0 over the budget. Epochs / max steps stay an upper bound.",
              lo=0, hi=100_000, step=5, decimals=1, special="none"),
    FieldSpec("batch_size", "Batch size", "Recipe", "int", "", lo=1, hi=4096),
    FieldSpec("gradient_accumulation_steps", "Grad. accumulation", "Recipe", "int",
              "Optimizer step every N batches (effective batch = batch size × N).", lo=1, hi=1024),
    FieldSpec("learning_rate", "Learning rate", "Recipe", "lr",
              "Peak learning rate; empty = paper default (3e-5 QA, 2e-5 classification)."),
    FieldSpec("warmup_ratio", "Warmup ratio", "Recipe", "float", "", lo=0, hi=0.99, step=0.05, decimals=3),
    FieldSpec("weight_decay", "Weight decay", "Recipe", "float", "", lo=0, hi=1, step=0.01, decimals=4),
    FieldSpec("max_grad_norm", "Max grad norm", "Recipe", "float", "", lo=0, hi=1000, step=0.5, decimals=2),
    FieldSpec("dropout", "Dropout", "Recipe", "float", "", lo=0, hi=0.95, step=0.05, decimals=2),
    FieldSpec("seed", "Seed", "Recipe", "int", "Random seed for initialisation, shuffling and dropout.", hi=2**31 - 1),
    FieldSpec("max_seq_length", "max_seq_length", "Sequence and QA windows", "int",
              "", hi=8192, step=32, special="auto (384 QA / 128 cls)"),
    FieldSpec("doc_stride", "doc_stride (overlap)", "Sequence and QA windows", "int",
              "Overlap in tokens between consecutive windows of a long passage (not the step between their "
              "starts); must be smaller than max_seq_length - question tokens - special tokens.",
              lo=0, hi=4096, step=16, qa_only=True),
    FieldSpec("max_query_length", "max_query_length", "Sequence and QA windows", "int", "", lo=1, hi=1024,
              qa_only=True),
    FieldSpec("n_best_size", "n_best_size", "Sequence and QA windows", "int", "", lo=1, hi=1000, qa_only=True),
    FieldSpec("max_answer_length", "max_answer_length", "Sequence and QA windows", "int", "", lo=1, hi=1024,
              qa_only=True),
    FieldSpec("length_grouping", "Length-grouped batches", "Sequence and QA windows", "bool", ""),
    FieldSpec("mixed_precision", "Precision", "Evaluation and output", "choice", ""),
    FieldSpec("eval_every", "Evaluate every", "Evaluation and output", "int",
              "Optimizer steps between dev evaluations (0 = at the start and the end only).",
              hi=10_000_000, step=50, special="start and end"),
    FieldSpec("save_checkpoints", "Save checkpoints", "Evaluation and output", "bool",
              "Write checkpoints/last and checkpoints/best (needed to open the model in the inspectors)."),
    FieldSpec("output_dir", "Runs folder", "Evaluation and output", "folder",
              "Each run is written to <runs folder>/<run id>/ (config.json, events.jsonl, checkpoints/)."),
    FieldSpec("run_id", "Run name", "Evaluation and output", "text",
              "Optional folder name of the run; empty = date-time-model-task."),
)


def field_tooltip(spec: FieldSpec) -> str:
    """The glossary's explanation when it has the term, plus the spec's tip (else the field's help text,
    written once in explorer.core.training.config.FIELD_HELP)."""
    text = spec.tip or field_help(spec.name, with_default=False)
    try:
        from explorer.glossary import tooltip

        gl = tooltip(spec.name)
        text = f"{gl}\n\n{spec.tip}".strip() if spec.tip and spec.tip not in gl else gl
    except (ImportError, KeyError):
        pass
    return f"{spec.name}: {text}" if text else spec.name


class Editor:
    """One field's widget with uniform get()/set()/changed."""

    def __init__(self, widget: QWidget, get: Callable[[], Any], set_: Callable[[Any], None], changed: Signal,
                 focus: QWidget | None = None, button: QPushButton | None = None):
        self.widget, self.get, self.set, self.changed = widget, get, set_, changed
        self.focus = focus or widget
        self.button = button


def _with_button(edit: QWidget, text: str) -> tuple[QWidget, QPushButton]:
    host = QWidget()
    lay = QHBoxLayout(host)
    lay.setContentsMargins(0, 0, 0, 0)
    lay.addWidget(edit, 1)
    btn = QPushButton(text)
    lay.addWidget(btn)
    return host, btn


INVALID_STYLE = "background-color: #f8d7da; border: 1px solid #b02a37;"
WARNING_STYLE = "background-color: #fff3cd; border: 1px solid #b35c00;"


def mark_invalid(editor: Editor, reason: str = "", severity: str = "error") -> None:
    """Turn a field red ("error") or amber ("warning") with the reason in its tooltip; "" clears it.
    The field's own tooltip is kept and shown below the reason."""
    widgets = [editor.focus] + ([editor.label] if getattr(editor, "label", None) is not None else [])
    for w in widgets:
        base = w.property("baseToolTip")
        if base is None:
            base = w.toolTip()
            w.setProperty("baseToolTip", base)
        w.setToolTip(f"{severity.upper()}: {reason}\n\n{base}" if reason else base)
    editor.focus.setStyleSheet((INVALID_STYLE if severity == "error" else WARNING_STYLE) if reason else "")
    editor.focus.setProperty("invalidReason", reason)


def make_editor(spec: FieldSpec) -> Editor:
    """Build the editor widget for one field spec."""
    k = spec.kind
    if k in ("text", "data", "folder", "columns"):
        edit = QLineEdit()
        edit.setClearButtonEnabled(True)
        if k == "columns":
            get = lambda: [c.strip() for c in edit.text().split(",") if c.strip()]  # noqa: E731
            set_ = lambda v: edit.setText(", ".join(v or []))  # noqa: E731
        else:
            get = lambda: edit.text().strip()  # noqa: E731
            set_ = lambda v: edit.setText(str(v or ""))  # noqa: E731
        if k in ("data", "folder"):
            host, btn = _with_button(edit, "Browse…")
            return Editor(host, get, set_, edit.textChanged, focus=edit, button=btn)
        return Editor(edit, get, set_, edit.textChanged)
    if k in ("colpick", "colpicks", "weights"):
        combo = QComboBox()
        combo.setEditable(True)
        combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        if k == "weights":
            combo.addItems(["", "balanced"])
        if k == "colpicks":
            get = lambda: [c.strip() for c in combo.currentText().split(",") if c.strip()]  # noqa: E731
            set_ = lambda v: combo.setCurrentText(", ".join(str(x) for x in (v or [])))  # noqa: E731
        else:
            get = lambda: combo.currentText().strip()  # noqa: E731
            set_ = lambda v: combo.setCurrentText(str(v or ""))  # noqa: E731
        return Editor(combo, get, set_, combo.currentTextChanged)
    if k == "model":
        combo = QComboBox()
        combo.setEditable(True)
        combo.addItems(MODEL_CHOICES)
        combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        host, btn = _with_button(combo, "Folder…")
        return Editor(host, lambda: combo.currentText().strip(), lambda v: combo.setCurrentText(str(v or "")),
                      combo.currentTextChanged, focus=combo, button=btn)
    if k in ("task", "choice"):
        combo = QComboBox()
        labels = TASK_LABELS if k == "task" else PRECISION_LABELS
        for key, label in labels.items():
            combo.addItem(label, key)

        def set_choice(v, combo=combo):
            i = combo.findData(v)
            if i < 0:       # a value the table does not know (e.g. a task registered later): keep it
                combo.addItem(str(v), v)
                i = combo.count() - 1
            combo.setCurrentIndex(i)
        return Editor(combo, lambda: combo.currentData(), set_choice, combo.currentIndexChanged)
    if k == "int":
        spin = QSpinBox()
        spin.setRange(int(spec.lo), int(min(spec.hi, 2**31 - 1)))
        spin.setSingleStep(int(spec.step))
        spin.setGroupSeparatorShown(False)
        spin.setMaximumWidth(190 if spec.special else 120)
        if spec.special:
            spin.setSpecialValueText(spec.special)
        if spec.name == "max_seq_length":
            return Editor(spin, lambda: spin.value() or None, lambda v: spin.setValue(int(v or 0)), spin.valueChanged)
        return Editor(spin, spin.value, lambda v: spin.setValue(int(v or 0)), spin.valueChanged)
    if k == "float":
        spin = QDoubleSpinBox()
        spin.setLocale(QLocale.c())
        spin.setDecimals(spec.decimals)
        spin.setRange(spec.lo, spec.hi)
        spin.setSingleStep(spec.step)
        spin.setMaximumWidth(190 if spec.special else 120)
        if spec.special:
            spin.setSpecialValueText(spec.special)
        if spec.name == "dev_fraction":   # None (= 0.1, the config's default) shows as 0.10
            return Editor(spin, lambda: float(spin.value()), lambda v: spin.setValue(0.1 if v is None else float(v)),
                          spin.valueChanged)
        return Editor(spin, lambda: float(spin.value()), lambda v: spin.setValue(float(v or 0)), spin.valueChanged)
    if k == "lr":
        edit = QLineEdit()
        edit.setPlaceholderText("paper default")
        edit.setMaximumWidth(120)
        v = QDoubleValidator(0.0, 1.0, 12)
        v.setNotation(QDoubleValidator.Notation.ScientificNotation)
        v.setLocale(QLocale.c())
        edit.setValidator(v)

        def get_lr():
            t = edit.text().strip()
            try:
                return float(t) if t else None
            except ValueError:
                return None
        return Editor(edit, get_lr, lambda v: edit.setText("" if not v else f"{float(v):g}"), edit.textChanged)
    if k == "bool":
        box = QCheckBox()
        return Editor(box, box.isChecked, lambda v: box.setChecked(bool(v)), box.toggled)
    raise ValueError(f"unknown editor kind {k!r} for field {spec.name}")

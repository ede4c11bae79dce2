"""The launcher's field editors, one per field of explorer.ui.launch.field_specs.FIELDS.

Each TrainConfig field describes itself once (``explorer.core.specs.train_config.Setting``: help, label,
group, editor kind, bounds); :data:`FIELDS` (explorer.ui.launch.field_specs, Qt-free, re-exported here) are
the fields with a launcher label, as :class:`FieldSpec` views. The editors come from a per-kind registry (:data:`EDITORS`, :func:`register_editor`; pyqtgraph's
``parametertree.registerParameterType`` is the model), so a new kind of setting is one factory. The form
reads / writes only these fields; every other field of a loaded config is kept as it was.
"""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QLocale, Qt, Signal
from PySide6.QtGui import QDoubleValidator
from PySide6.QtWidgets import (QAbstractSpinBox, QCheckBox, QComboBox, QDoubleSpinBox, QHBoxLayout, QLineEdit, QPushButton,
                               QSpinBox, QWidget)

from explorer.core.specs.tasks import task_labels
from explorer.ui.launch.field_specs import (FIELDS, FLOAT_MAX, GROUPS, INT_MAX, FieldSpec, field_spec,  # noqa: F401
                                             field_tooltip)
from explorer.ui.shell.wheel_guard import guard_wheel

__all__ = ["EDITORS", "FIELDS", "GROUPS", "Editor", "FieldSpec", "field_spec", "field_tooltip", "make_editor",
           "mark_invalid", "register_editor", "set_field_note", "set_metric_choices"]

PRECISION_LABELS = {
    "auto": "auto (bf16 where fast)",
    "no": "fp32",
    "bf16": "bf16 autocast",
    "fp16": "fp16 (CUDA)",
}
MODEL_CHOICES = ("bundled:minilm", "bert-base-uncased", "bert-large-uncased", "bert-base-cased",
                 "distilbert-base-uncased")


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


def set_field_note(editor: Editor, note: str) -> None:
    """The field's own tooltip with ``note`` under it ("" takes it away); a red or amber reason shown now stays
    above it, and :func:`mark_invalid` keeps the note under the next reason."""
    widgets = [editor.focus] + ([editor.label] if getattr(editor, "label", None) is not None else [])
    for w in widgets:
        own = w.property("ownToolTip")
        if own is None:
            own = w.property("baseToolTip") if w.property("baseToolTip") is not None else w.toolTip()
            w.setProperty("ownToolTip", own)
        base = f"{own}\n\n{note}" if note else own
        w.setProperty("baseToolTip", base)
        if not editor.focus.property("invalidReason"):
            w.setToolTip(base)


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


EditorFactory = Callable[[FieldSpec], Editor]
EDITORS: dict[str, EditorFactory] = {}


def register_editor(kind: str, factory: EditorFactory | None = None):
    """Register ``factory(spec) -> Editor`` for settings of editor kind ``kind`` (also as a decorator)."""
    def add(f: EditorFactory) -> EditorFactory:
        EDITORS[kind] = f
        return f
    return add(factory) if factory is not None else add


def make_editor(spec: FieldSpec) -> Editor:
    """Build the editor widget of one field spec, from the registry of its kind.

    Raises:
        ValueError: no editor is registered for the spec's kind."""
    try:
        factory = EDITORS[spec.kind]
    except KeyError:
        raise ValueError(f"unknown editor kind {spec.kind!r} for field {spec.name}; kinds: "
                         f"{', '.join(EDITORS)}") from None
    editor = factory(spec)
    for w in [editor.widget, *editor.widget.findChildren(QWidget)]:
        if isinstance(w, (QComboBox, QAbstractSpinBox)):
            guard_wheel(w)
    return editor


@register_editor("text")
@register_editor("columns")
@register_editor("data")
@register_editor("folder")
def _line_editor(spec: FieldSpec) -> Editor:
    k = spec.kind
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


@register_editor("colpick")
@register_editor("colpicks")
@register_editor("weights")
def _column_pick_editor(spec: FieldSpec) -> Editor:
    """An editable drop-down: a column of the data file (colpick), one or two of them (colpicks, comma-
    separated; the launcher fills the choices from the file's header), or class weights (weights:
    "", balanced, or typed name=weight pairs)."""
    k = spec.kind
    combo = QComboBox()
    combo.setEditable(True)
    combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
    if k == "weights":
        combo.addItems(["", "balanced"])
    # the launcher lists a column as "5 — 5.000" (its name and a sample value) with the bare name as the item's
    # data: the value is the name, and a chosen item's text becomes the name in the field
    combo.activated.connect(lambda i: combo.setEditText(str(combo.itemData(i)))
                            if combo.itemData(i) is not None else None)

    def value() -> str:
        i = combo.findText(combo.currentText(), Qt.MatchFlag.MatchExactly)
        data = combo.itemData(i) if i >= 0 else None
        return str(data) if data is not None else combo.currentText()

    if k == "colpicks":
        get = lambda: [c.strip() for c in value().split(",") if c.strip()]  # noqa: E731
        set_ = lambda v: combo.setCurrentText(", ".join(str(x) for x in (v or [])))  # noqa: E731
    else:
        get = lambda: value().strip()  # noqa: E731
        set_ = lambda v: combo.setCurrentText(str(v or ""))  # noqa: E731
    return Editor(combo, get, set_, combo.currentTextChanged)


@register_editor("model")
def _model_editor(_spec: FieldSpec) -> Editor:
    combo = QComboBox()
    combo.setEditable(True)
    combo.addItems(MODEL_CHOICES)
    combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
    host, btn = _with_button(combo, "Folder…")
    return Editor(host, lambda: combo.currentText().strip(), lambda v: combo.setCurrentText(str(v or "")),
                  combo.currentTextChanged, focus=combo, button=btn)


@register_editor("task")
@register_editor("choice")
def _choice_editor(spec: FieldSpec) -> Editor:
    combo = QComboBox()
    labels = task_labels() if spec.kind == "task" else PRECISION_LABELS   # live: rows added at run time too
    for key, label in labels.items():
        combo.addItem(label, key)

    def set_choice(v, combo=combo):
        i = combo.findData(v)
        if i < 0:       # a value the table does not know (e.g. a task registered later): keep it
            combo.addItem(str(v), v)
            i = combo.count() - 1
        combo.setCurrentIndex(i)
    return Editor(combo, lambda: combo.currentData(), set_choice, combo.currentIndexChanged)


@register_editor("metric")
def _metric_editor(_spec: FieldSpec) -> Editor:
    """metric_for_best as a drop-down: "automatic: …" (value "") and the metrics that may pick checkpoints/best;
    the launcher fills the items for the form's task (:func:`set_metric_choices`)."""
    combo = QComboBox()
    combo.addItem("automatic", "")

    def set_metric(v, combo=combo):
        i = combo.findData(str(v or ""))
        if i < 0:       # a metric the task's list lacks (a loaded config's): kept, and validate says why
            combo.addItem(str(v), str(v))
            i = combo.count() - 1
        combo.setCurrentIndex(i)
    return Editor(combo, lambda: str(combo.currentData() or ""), set_metric, combo.currentIndexChanged)


def set_metric_choices(editor: Editor, automatic: str, choices: list[tuple[str, str]]) -> None:
    """Refill a "metric" editor: the first item "automatic: <automatic>" (value ""), then ``choices`` ((metric,
    shown text) pairs); the chosen value stays (added when the list lacks it). No change signal is sent."""
    combo = editor.widget
    chosen = editor.get()
    items = [(f"automatic: {automatic}" if automatic else "automatic", "")] + [(text, m) for m, text in choices]
    if [(combo.itemText(i), combo.itemData(i)) for i in range(combo.count())] == items:
        return
    blocked = combo.blockSignals(True)
    try:
        combo.clear()
        for text, value in items:
            combo.addItem(text, value)
        editor.set(chosen)
    finally:
        combo.blockSignals(blocked)


@register_editor("int")
def _int_editor(spec: FieldSpec) -> Editor:
    spin = QSpinBox()
    spin.setRange(int(spec.lo), int(min(spec.hi, INT_MAX)))
    spin.setSingleStep(int(spec.step))
    spin.setGroupSeparatorShown(False)
    spin.setMaximumWidth(190 if spec.special else 120)
    if spec.special:
        spin.setSpecialValueText(spec.special)
    if spec.optional:    # 0 = None = the task's default
        return Editor(spin, lambda: spin.value() or None, lambda v: spin.setValue(int(v or 0)), spin.valueChanged)
    return Editor(spin, spin.value, lambda v: spin.setValue(int(v or 0)), spin.valueChanged)


@register_editor("float")
def _float_editor(spec: FieldSpec) -> Editor:
    from explorer.ui.launch.minutes_spin import MinutesSpinBox

    minutes = spec.name.endswith("_minutes")   # a duration: two decimals or minutes:seconds, never rounded
    spin = MinutesSpinBox() if minutes else QDoubleSpinBox()
    spin.setLocale(QLocale.c())
    if not minutes:
        spin.setDecimals(spec.decimals)
    spin.setRange(spec.lo, spec.hi)
    spin.setSingleStep(spec.step)
    spin.setMaximumWidth(190 if spec.special else 120)
    if spec.special:
        spin.setSpecialValueText(spec.special)
    if spec.none_value is not None:   # None (the config's default) shows as the value it stands for
        return Editor(spin, lambda: float(spin.value()),
                      lambda v: spin.setValue(spec.none_value if v is None else float(v)), spin.valueChanged)
    return Editor(spin, lambda: float(spin.value()), lambda v: spin.setValue(float(v or 0)), spin.valueChanged)


@register_editor("lr")
def _lr_editor(_spec: FieldSpec) -> Editor:
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


@register_editor("bool")
def _bool_editor(_spec: FieldSpec) -> Editor:
    box = QCheckBox()
    return Editor(box, box.isChecked, lambda v: box.setChecked(bool(v)), box.toggled)


@register_editor("report_to")
def _report_to_editor(_spec: FieldSpec) -> Editor:
    """report_to as a checkbox: checked = "tensorboard" (core.specs.train_config.REPORT_TO), else ""."""
    box = QCheckBox()
    return Editor(box, lambda: "tensorboard" if box.isChecked() else "",
                  lambda v: box.setChecked(str(v or "") == "tensorboard"), box.toggled)

"""The probe panel shared by the Attention and Spans views: model source, question, passage,
example pairs, a "load from dataset" picker and the window settings.

It is a form: it emits what the user asked for and shows what it is told (model description,
busy state, errors); the InspectorHub does the work on a worker thread.
"""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (QAbstractSpinBox, QComboBox, QFormLayout, QGroupBox, QHBoxLayout, QLabel, QLineEdit,
                               QPlainTextEdit, QProgressBar, QPushButton, QScrollArea, QSpinBox, QVBoxLayout, QWidget)

from explorer.core.qa.decode_rules import DECODE_RULES
from explorer.paths import RESOURCES
from explorer.ui.shell.combo_popup import popup_fits_items
from explorer.ui.shell.file_dialogs import open_file, open_folder
from explorer.ui.shell.lines_label import LinesLabel

from .common import StatusLabel, tip

EXAMPLES_FILE = RESOURCES / "examples" / "probe_examples.json"
FALLBACK_EXAMPLES = [{
    "title": "Ada Lovelace (built-in)",
    "question": "Where was Ada born?",
    "passage": "Ada Lovelace was born in London in 1815. She worked with Charles Babbage on the "
               "Analytical Engine and wrote what is often called the first computer program.",
}]
MODEL_PRESETS = ["bundled:minilm", "deepset/bert-base-uncased-squad2", "csarron/bert-base-uncased-squad-v1"]
DEBOUNCE_MS = 400
DESCRIPTION_LINES = 4   # the model description's lines (ModelInfo.describe() takes 4 at the panel's width)


def load_examples(path: Path = EXAMPLES_FILE) -> tuple[list[dict], str]:
    """Example pairs from resources/examples/probe_examples.json -> (examples, note).

    Falls back to one built-in pair (with a note saying why) when the file is missing or malformed;
    each entry needs "title", "question" and "passage" strings.
    """
    if not path.exists():
        return list(FALLBACK_EXAMPLES), f"{path} not found; using the built-in example"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return list(FALLBACK_EXAMPLES), f"{path}: cannot read examples ({exc}); using the built-in example"
    good = []
    for k, item in enumerate(data if isinstance(data, list) else []):
        if isinstance(item, dict) and all(isinstance(item.get(f), str) and item.get(f) for f in
                                          ("title", "question", "passage")):
            good.append({"title": item["title"], "question": item["question"], "passage": item["passage"]})
    if not good:
        return list(FALLBACK_EXAMPLES), f"{path}: no entry with title, question and passage; using the built-in example"
    return good, ""


class ProbePanel(QWidget):
    """Inputs of a probe.

    Signals:
        load_model_requested(str): the user pressed Load (or Enter) with this source.
        probe_requested(): the inputs changed (debounced) or the user pressed Probe.
        dataset_requested(str): the user picked a SQuAD file to browse.
    """

    load_model_requested = Signal(str)
    probe_requested = Signal()
    dataset_requested = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setMinimumWidth(280)
        self._dataset_rows: list[dict] = []   # {"title", "question", "context"} of the loaded SQuAD file
        self._filled = ("", "")   # the question and passage the app put in last (an example, a picked row)
        model_box = self._build_model_box()
        dataset_box = self._build_dataset_box()
        settings = self._build_inputs()
        self._layout(model_box, dataset_box, settings)
        self._connect()
        # the panel scrolls: the wheel over a setting scrolls it, never turns the setting (a scroll over n_best_size
        # would take it from 20 to 17 unseen), as in the launcher's form
        from explorer.ui.shell.wheel_guard import guard_wheel

        for kind in (QComboBox, QAbstractSpinBox):
            for box in self.findChildren(kind):
                guard_wheel(box)

    # ----------------------------------------------------------------------------------- building
    def _build_model_box(self) -> QGroupBox:
        """Model source, Browse / Load, what was loaded and its notes, the busy bar and status line."""
        self.source = QComboBox()
        self.source.setEditable(True)
        self.source.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.source.setMinimumContentsLength(8)
        self.source.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        popup_fits_items(self.source)   # hub ids whole in the list ("deepset/...d-squad2" otherwise)
        self.source.addItems(MODEL_PRESETS)
        self.source.setToolTip("A Hugging Face hub id, a local folder (a save_pretrained output or a run "
                               "checkpoint), or bundled:minilm (the offline encoder; its QA head is untrained "
                               "until you fine-tune it).")
        self.browse = QPushButton("Browse…")
        self.load_button = QPushButton("Load")
        # four lines whatever the description (one before a load, four after): the form under it never moves,
        # so a click aimed at the Question box while a model loads lands there (a longer text is cut, whole in
        # its tooltip)
        self.model_info = LinesLabel("No model loaded.", lines=DESCRIPTION_LINES)
        self.model_note = QLabel("")
        self.model_note.setWordWrap(True)
        self.model_note.setStyleSheet("color:#b05000;")
        self.model_note.setVisible(False)
        self.busy_bar = QProgressBar()
        self.busy_bar.setRange(0, 0)       # indeterminate
        self.busy_bar.setMaximumHeight(10)
        self.busy_bar.setTextVisible(False)
        self.busy_bar.setVisible(False)
        self.status = StatusLabel("")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        model_row = QHBoxLayout()
        model_row.addWidget(self.source, 1)
        model_row.addWidget(self.browse)
        model_row.addWidget(self.load_button)
        model_box = QGroupBox("Model")
        mb = QVBoxLayout(model_box)
        mb.addLayout(model_row)
        mb.addWidget(self.model_info)
        return model_box

    def _build_dataset_box(self) -> QGroupBox:
        """The example pairs and the SQuAD file browser (article, question)."""
        self.examples_box = QComboBox()
        self.examples_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.examples, note = load_examples()
        self.examples_box.addItem("— example pairs —")
        for ex in self.examples:
            self.examples_box.addItem(ex["title"])
        if note:
            self.examples_box.setToolTip(note)
        self.dataset_button = QPushButton("SQuAD file…")
        self.dataset_button.setToolTip("Pick a SQuAD-format JSON (v1.1 or v2.0), then an article and a question.")
        self.article_box = QComboBox()
        self.question_box = QComboBox()
        for box in (self.article_box, self.question_box):
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            box.setMinimumContentsLength(10)
        self.article_box.setEnabled(False)
        self.question_box.setEnabled(False)
        self.dataset_label = QLabel("")
        self.dataset_path = ""   # the SQuAD file picked last: the next SQuAD file… opens beside it
        self.dataset_label.setWordWrap(True)
        ds = QGroupBox("Load from dataset")
        dl = QFormLayout(ds)
        dl.addRow(self.dataset_button, self.dataset_label)
        dl.addRow("article", self.article_box)
        dl.addRow("question", self.question_box)
        return ds

    def _build_inputs(self) -> QFormLayout:
        """Question, passage, Probe, and the window / decoding settings (returned as a form)."""
        self.question = QLineEdit()
        self.question.setPlaceholderText("Question (Enter probes)")
        self.passage = QPlainTextEdit()
        self.passage.setPlaceholderText("Passage")
        self.probe_button = QPushButton("Probe")
        self.probe_button.setToolTip("Runs the model on the question and passage (Enter in the question does too; "
                                     "an edit probes again after a short pause)")
        self.max_seq_length = self._spin(32, 4096, 384, "max_seq_length")
        self.doc_stride = self._spin(8, 256, 128, "doc_stride")
        self.max_query_length = self._spin(4, 256, 64, "max_query_length")
        self.n_best_size = self._spin(1, 100, 20, "n_best_size")
        self.max_answer_length = self._spin(1, 200, 30, "max_answer_length")
        self.decode_rule = QComboBox()
        for rule, words in DECODE_RULES.items():
            self.decode_rule.addItem(rule, rule)
            self.decode_rule.setItemData(self.decode_rule.count() - 1, words, Qt.ItemDataRole.ToolTipRole)
        self.decode_rule.setToolTip("How spans are searched: passage = top n_best_size starts and ends among the "
                                    "passage's tokens (this app); run_qa = top n_best_size over all tokens, then "
                                    "pairs outside the passage dropped (transformers' run_qa.py, so published "
                                    "numbers reproduce). The other rule's answer shows under the decision when "
                                    "it differs.")
        settings = QFormLayout()
        settings.addRow("max_seq_length", self.max_seq_length)
        settings.addRow("doc_stride (overlap)", self.doc_stride)
        settings.addRow("max_query_length", self.max_query_length)
        settings.addRow("n_best_size", self.n_best_size)
        settings.addRow("max_answer_length", self.max_answer_length)
        settings.addRow("decode rule", self.decode_rule)
        for row in range(settings.rowCount()):
            label = settings.itemAt(row, QFormLayout.ItemRole.LabelRole).widget()
            field = settings.itemAt(row, QFormLayout.ItemRole.FieldRole).widget()
            label.setToolTip(field.toolTip())
        return settings

    def _layout(self, model_box: QGroupBox, ds: QGroupBox, settings: QFormLayout) -> None:
        self.passage.setMinimumHeight(120)
        inner = QWidget()
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(inner)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)
        layout = QVBoxLayout(inner)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(model_box)
        layout.addWidget(self.examples_box)
        layout.addWidget(ds)
        layout.addWidget(QLabel("Question"))
        layout.addWidget(self.question)
        layout.addWidget(QLabel("Passage"))
        layout.addWidget(self.passage, 1)
        layout.addLayout(settings)
        self.window_note = QLabel()  # why a window field is red (settings checked against the model)
        self.window_note.setObjectName("errorLabel")
        self.window_note.setWordWrap(True)
        self.window_note.hide()
        layout.addWidget(self.window_note)
        self.trained_note = QLabel("")   # where a checkpoint's window settings came from (its run's config)
        self.trained_note.setObjectName("hint")
        self.trained_note.setWordWrap(True)
        layout.addWidget(self.trained_note)
        # Probe, its progress and its status stay under the scrolling part: always in view (at 1280x800 the
        # settings push them below the panel's visible part)
        footer = self._footer = QVBoxLayout()
        footer.setContentsMargins(4, 0, 4, 4)
        # the model's honest note shows and hides with a load: down here it moves none of the form above
        footer.addWidget(self.model_note)
        footer.addWidget(self.probe_button)
        footer.addWidget(self.busy_bar)
        footer.addWidget(self.status)
        outer.addLayout(footer)
        # the scroll area only scrolls vertically, so the panel must be as wide as its contents (model row,
        # spin boxes) plus the scroll bar; otherwise a neighbour with a large minimum width clips it
        self.setMinimumWidth(max(280, inner.minimumSizeHint().width() + scroll.verticalScrollBar().sizeHint().width()))

    def _connect(self) -> None:
        self.debounce = QTimer(self)
        self.debounce.setSingleShot(True)
        self.debounce.setInterval(DEBOUNCE_MS)
        self.debounce.timeout.connect(self.probe_requested)
        self.question.textChanged.connect(self._edited)
        self.passage.textChanged.connect(self._edited)
        for box in (self.max_seq_length, self.doc_stride, self.max_query_length, self.n_best_size,
                    self.max_answer_length):
            box.valueChanged.connect(self._edited)
        self.decode_rule.currentIndexChanged.connect(self._edited)
        self.probe_button.clicked.connect(self._probe_now)
        self.load_button.clicked.connect(lambda: self.load_model_requested.emit(self.source_text()))
        self.source.lineEdit().returnPressed.connect(lambda: self.load_model_requested.emit(self.source_text()))
        self.browse.clicked.connect(self._browse_model)
        self.examples_box.activated.connect(self._pick_example)
        self.dataset_button.clicked.connect(self._browse_dataset)
        self.article_box.currentIndexChanged.connect(self._fill_questions)
        self.question_box.activated.connect(self._pick_question)

    @staticmethod
    def _spin(lo: int, hi: int, value: int, term: str) -> QSpinBox:
        box = QSpinBox()
        box.setRange(lo, hi)
        box.setValue(value)
        box.setToolTip(tip(term))
        return box

    # ----------------------------------------------------------------------------------- values
    def source_text(self) -> str:
        return self.source.currentText().strip()

    def inputs(self) -> dict:
        """question, passage and the window/decoding settings, as probe() keyword arguments."""
        return {"question": self.question.text(), "passage": self.passage.toPlainText(),
                "max_seq_length": self.max_seq_length.value(), "doc_stride": self.doc_stride.value(),
                "max_query_length": self.max_query_length.value(),
                "n_best_size": self.n_best_size.value(), "max_answer_length": self.max_answer_length.value(),
                "decode_rule": self.decode_rule.currentData()}

    def set_inputs(self, question: str, passage: str) -> None:
        """Fill the editors without triggering the debounced probe (the caller probes)."""
        for w in (self.question, self.passage):
            w.blockSignals(True)
        self.question.setText(question)
        self.passage.setPlainText(passage)
        for w in (self.question, self.passage):
            w.blockSignals(False)
        self.debounce.stop()
        self._filled = (self.question.text(), self.passage.toPlainText())

    def holds_typed_text(self) -> bool:
        """The question or passage is the person's: not empty, and not what the app put in last
        (components.typed_inputs.holds_typed_inputs, the rule of every inspector page a run fills)."""
        from .components.typed_inputs import holds_typed_inputs

        return holds_typed_inputs((self.question.text(), self.passage.toPlainText()), self._filled)

    def set_source(self, source: str) -> None:
        self.source.setEditText(source)

    # ----------------------------------------------------------------------------------- display
    def add_to_model_box(self, widget: QWidget) -> None:
        """Put ``widget`` (the hub download bar) at the panel's foot above the model's notes: shown while a model
        downloads, there it moves none of the form."""
        self._footer.insertWidget(0, widget)

    def set_busy(self, text: str | None) -> None:
        """Show the busy bar with text, or hide it with None."""
        self.busy_bar.setVisible(text is not None)
        if text is not None:
            self.status.setText(text)

    def set_status(self, text: str, error: bool = False) -> None:
        self.status.setStyleSheet("color:#b03030;" if error else "")
        self.status.setText(text)

    def set_window_settings(self, window) -> None:
        """Show a checkpoint's window settings (explorer.core.models.checkpoint_windows.WindowSettings) without
        re-probing, and say where they came from. Other models leave the user's values alone."""
        if not window.source:
            self.trained_note.setText("")
            return
        for box, value in ((self.max_seq_length, window.max_seq_length), (self.doc_stride, window.doc_stride),
                           (self.max_query_length, window.max_query_length)):
            box.blockSignals(True)
            box.setValue(value)
            box.blockSignals(False)
        self.trained_note.setText(f"Window settings the checkpoint was trained with, from {window.source}")
        self.trained_note.setToolTip(window.describe())

    def set_window_problems(self, problems: list) -> None:
        """Mark max_seq_length / doc_stride red (errors) or amber (warnings) with the reason in the tooltip
        and under the fields; [] clears. problems: WindowSettingProblem list (core.models.window_settings)."""
        boxes = {"max_seq_length": self.max_seq_length, "doc_stride": self.doc_stride,
                 "max_query_length": self.max_query_length}
        for box in (self.max_seq_length, self.doc_stride, self.max_query_length):
            mine = [p for p in problems if boxes.get(p.setting) is box]
            base = box.property("baseToolTip")
            if base is None:
                base = box.toolTip()
                box.setProperty("baseToolTip", base)
            reason = "; ".join(p.message for p in mine)
            error = any(p.severity == "error" for p in mine)
            box.setToolTip(f"{'ERROR' if error else 'WARNING'}: {reason}\n\n{base}" if reason else base)
            box.setStyleSheet(("background-color:#f8d7da;" if error else "background-color:#fff3cd;")
                              if reason else "")
        self.window_note.setText("\n".join(p.message for p in problems))
        self.window_note.setVisible(bool(problems))

    def set_model_info(self, description: str, head_initialised: bool | None, load_report=None) -> None:
        self.model_info.setText(description)
        if load_report is not None and not load_report.encoder_loaded:
            self.model_note.setVisible(True)
            self.model_note.setText(f"Honest note: the encoder did not load ({load_report.kind}): "
                                    f"{load_report.summary()}. Nothing this model shows means anything.")
            return
        self.model_note.setVisible(bool(head_initialised))
        if head_initialised:
            self.model_note.setText("Honest note: the QA head is freshly initialised (random), so spans, scores "
                                    "and τ decisions mean nothing until it is fine-tuned. The encoder's "
                                    "attention is real.")

    def show_model(self, loaded) -> None:
        """A loaded model (a ModelInfo): its description and honest notes (set_model_info), which head is new or
        unused and what to do, and, for a checkpoint without a tokenizer, whose tokenizer reads the words."""
        report = getattr(loaded, "load_report", None)
        self.set_model_info(loaded.describe(), loaded.head_initialised, report)
        if getattr(loaded, "head_note", "") and (report is None or report.encoder_loaded):
            self.model_note.setText(loaded.head_note)
        tokenizer_note = getattr(loaded, "tokenizer_note", "") or ""
        if tokenizer_note:
            shown = self.model_note.text() if self.model_note.isVisibleTo(self) else ""
            self.model_note.setText((shown + "\n" if shown else "") + tokenizer_note[0].upper() + tokenizer_note[1:]
                                    + ".")
            self.model_note.setVisible(True)

    # ----------------------------------------------------------------------------------- dataset
    def set_dataset_rows(self, path: str, rows: list[dict], report_text: str) -> None:
        """rows: {"title", "question", "context", "id"} in file order; fills the article picker."""
        self._dataset_rows = rows
        self.dataset_label.setText(report_text)
        titles = list(dict.fromkeys(r["title"] for r in rows))
        self.article_box.blockSignals(True)
        self.article_box.clear()
        self.article_box.addItems(titles)
        self.article_box.blockSignals(False)
        self.article_box.setEnabled(bool(titles))
        self.question_box.setEnabled(bool(titles))
        self._fill_questions(0)

    def _fill_questions(self, index: int) -> None:
        title = self.article_box.itemText(index)
        self.question_box.clear()
        for k, r in enumerate(self._dataset_rows):
            if r["title"] == title:
                self.question_box.addItem(r["question"][:90], k)

    def _pick_question(self, index: int) -> None:
        k = self.question_box.itemData(index)
        if k is None:
            return
        r = self._dataset_rows[k]
        self.set_inputs(r["question"], r["context"])
        self.probe_requested.emit()

    def _browse_dataset(self) -> None:
        path = open_file(self, "SQuAD-format JSON", "data", "JSON (*.json);;All files (*)", self.dataset_path)
        if path:
            self.dataset_path = path
            self.dataset_requested.emit(path)

    # ----------------------------------------------------------------------------------- actions
    def _edited(self) -> None:
        self.debounce.start()

    def _probe_now(self) -> None:
        self.debounce.stop()
        self.probe_requested.emit()

    def _pick_example(self, index: int) -> None:
        if index <= 0:
            return
        ex = self.examples[index - 1]
        self.set_inputs(ex["question"], ex["passage"])
        self.probe_requested.emit()

    def _browse_model(self) -> None:
        path = open_folder(self, "Model folder (save_pretrained output or run checkpoint)", "model", self.source_text())
        if path:
            self.set_source(path)
            self.load_model_requested.emit(path)

"""The Classify tab: a GLUE single / pair or SWAG model's arithmetic with its own numbers.

Renders explorer.core.classify.ClassifyResult: the inputs, C (the pooled [CLS] vector fed to the classifier)
as a colour strip (one row per ending for SWAG), the table of logits = C W^T + b and softmax probabilities,
the loss for the chosen label, the prediction, the by-hand check, and for pairs the per-layer attention
block flow between sentence A and sentence B. Model loads and runs happen in the inspector child process
(slot "classify"; explorer.ui.inspectors.client), never in the GUI process.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (QComboBox, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QPlainTextEdit, QPushButton,
                               QSpinBox, QSplitter, QStackedWidget, QStyle, QTableWidget, QTableWidgetItem,
                               QTabWidget, QVBoxLayout, QWidget)

from explorer.core.classify import readable_label_names
from explorer.core.models import MULTI_LABEL_TYPE, REGRESSION_TYPE, SINGLE_LABEL_TYPE
from explorer.core.task_facts import find_task_facts, get_task_facts, task_for_checkpoint, tasks_with_head
from explorer.ui.curves.legend import legend_below
from explorer.ui.shell.columns import fit_columns

from .common import StaleCover, header, tokenizer_suffix
from .registry import CLASSIFY_DEV_PAGE, CLASSIFY_PAGE
from .latest import LatestOnly
from .model_page import ModelPage, bring_to_front

# The tasks this page shows (their rows in explorer.core.task_facts): a [CLS] classifier or a multiple-choice head.
CLASSIFY_HEADS = ("classification", "multiple_choice")


def classify_tasks() -> dict[str, str]:
    """GUI label -> task name of every task with a CLASSIFY_HEADS head, in table order."""
    return {get_task_facts(name).label: name for name in tasks_with_head(*CLASSIFY_HEADS)}


def _is_choice(task: str) -> bool:
    facts = find_task_facts(task)
    return bool(facts and facts.is_multiple_choice)


def _is_regression(task: str) -> bool:
    facts = find_task_facts(task)
    return bool(facts and facts.is_regression)


def _is_multilabel(task: str) -> bool:
    facts = find_task_facts(task)
    return bool(facts and facts.is_multilabel)


def _free_gold(task: str) -> bool:
    """The gold is a float score (regression) or a set of labels (multi-label), not one class id."""
    return _is_regression(task) or _is_multilabel(task)


# (label, colour) of the per-layer flow curves; (from, to) indices in explorer.core.classify.FLOW_BLOCKS order
FLOW_CURVES = (("A → B", "#1f77b4"), ("B → A", "#2ca02c"), ("A → [CLS]/[SEP]", "#9467bd"),
               ("B → [CLS]/[SEP]", "#8c564b"))
FLOW_CELLS = ((0, 1), (1, 0), (0, 2), (1, 2))


class ClassSpin(QSpinBox):
    """The gold class id, shown with the head's class name ("1 (FAVOR)"; "none" below 0); up to K - 1 once the
    head's names are known (SWAG: the ending index, no names)."""

    def __init__(self, parent=None):
        super().__init__(parent, minimum=-1, maximum=99, value=-1, specialValueText="none")
        self.names: list[str] = []

    def set_names(self, names: list[str]) -> None:
        self.names = list(names)
        self.setMaximum(len(self.names) - 1 if self.names else 99)
        at_none = self.value() == self.minimum()
        self.lineEdit().setText(self.specialValueText() if at_none else self.textFromValue(self.value()))

    def textFromValue(self, value: int) -> str:  # noqa: N802 - Qt's name
        if 0 <= value < len(self.names):
            return f"{value} ({self.names[value]})"
        return super().textFromValue(value)

    def valueFromText(self, text: str) -> int:  # noqa: N802 - Qt's name
        head = text.split(" (", 1)[0].strip()
        if head in self.names:
            return self.names.index(head)
        return int(head) if head.lstrip("-").isdigit() else self.value()

    def validate(self, text: str, pos: int):
        from PySide6.QtGui import QValidator

        return QValidator.State.Acceptable, text, pos


def _mono() -> QFont:
    font = QFont("monospace")
    font.setStyleHint(QFont.StyleHint.TypeWriter)
    return font


def flow_lines(flow_mean: np.ndarray) -> list[str]:
    """Per-layer A -> B, B -> A, A -> [CLS]/[SEP], B -> [CLS]/[SEP] lines from a (layers, 3, 3) flow table."""
    f = np.asarray(flow_mean)
    return [f"layer {i + 1:2d}: A -> B {f[i, 0, 1]:.3f}   B -> A {f[i, 1, 0]:.3f}   "
            f"A -> [CLS]/[SEP] {f[i, 0, 2]:.3f}   B -> [CLS]/[SEP] {f[i, 1, 2]:.3f}" for i in range(f.shape[0])]


class _Inputs(QStackedWidget):
    """Sentence A / B (single and pair) or context, start and four endings (SWAG)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        text_page, choice_page = QWidget(), QWidget()
        form = QFormLayout(text_page)
        self.text_a, self.text_b = QLineEdit(), QLineEdit()
        self.text_a.setPlaceholderText("a sentence, e.g. a gripping, beautifully acted film")
        self.text_b.setPlaceholderText("sentence B (pairs only)")
        form.addRow("Sentence A", self.text_a)
        form.addRow("Sentence B", self.text_b)
        form2 = QFormLayout(choice_page)
        self.context, self.start = QLineEdit(), QLineEdit()
        form2.addRow("Context (sent1)", self.context)
        form2.addRow("Start (sent2)", self.start)
        self.endings = [QLineEdit() for _ in range(4)]
        for k, edit in enumerate(self.endings):
            form2.addRow(f"Ending {k}", edit)
        self.addWidget(text_page)
        self.addWidget(choice_page)
        self.currentChanged.connect(self._fit)
        self._fit(0)

    def edits(self) -> list[QLineEdit]:
        """Every input field (both pages)."""
        return [self.text_a, self.text_b, self.context, self.start] + list(self.endings)

    def values(self) -> tuple:
        """The text of every input field, in :meth:`edits` order."""
        return tuple(e.text() for e in self.edits())

    def _fit(self, index: int) -> None:
        """Size the stack to the shown page (a QStackedWidget otherwise keeps the tallest page's height)."""
        from PySide6.QtWidgets import QSizePolicy

        for i in range(self.count()):
            policy = QSizePolicy.Policy.Preferred if i == index else QSizePolicy.Policy.Ignored
            self.widget(i).setSizePolicy(QSizePolicy.Policy.Preferred, policy)
        self.adjustSize()


class ClassifyView(ModelPage):
    """The Classify tab. ``show_result(ClassifyResult)`` renders; ``open_example(dict)`` fills the inputs.

    Signals: message(str), a status line; model_changed(object), a model (ModelInfo) is in use now."""

    def __init__(self, parent=None, *, client=None, slot: str = "classify"):
        super().__init__(parent, client=client, slot=slot,
                         intro="Load a classification or multiple-choice model, type inputs, press Classify.")
        self.run_label_names: list[str] = []   # the opened run's class names (its config), see label_names_of
        self.run_pairs = False     # the opened run read sentence pairs (two text columns): see reads_pairs
        self._pairs_for = ""       # the checkpoint run_pairs is about (another model loaded: not known)
        self._asked: tuple | None = None         # the inputs of the last classify request
        self._result_inputs: tuple | None = None  # the inputs the shown result is for
        self._text_stale = False   # the stale veil is up because the text changed since the shown result
        self._example_when_loaded: dict | None = None   # fill_example's, while the model loads
        self._runner = LatestOnly.in_child(self.client, f"{slot}.classify", self)
        self._runner.finished.connect(lambda _id, res: self.show_result(res))
        self._runner.failed.connect(lambda _id, msg, _tb: self._status(msg))
        self._build()

    def _build(self) -> None:
        self.kind = QComboBox()
        self.kind.addItems(list(classify_tasks()))
        self.source.setText("bundled:minilm")
        self.source.setToolTip("hub id, local folder or a run checkpoint (runs/<id>/checkpoints/best)")
        top = self.model_row(QLabel("Head"), self.kind)
        self.inputs = _Inputs()
        self._example_inputs: tuple | None = None   # the inputs of the example whose gold label the box holds
        for edit in self.inputs.edits():
            edit.textEdited.connect(self._inputs_edited)
            edit.textChanged.connect(self._veil_if_edited)
            edit.returnPressed.connect(self.run)   # as Return probes in Spans & τ
        self.kind.currentTextChanged.connect(self._kind_changed)
        self.label = ClassSpin()
        self.gold = QLineEdit()
        self.gold.setPlaceholderText("none")
        self.gold.setToolTip("regression: a gold score (e.g. 3.8); multi-label: gold labels separated by ';'")
        self.gold.setVisible(False)
        run = QPushButton("Classify")
        run.clicked.connect(self.run)
        from explorer.ui.inspectors.predictions_view import predict_button

        row = QHBoxLayout()
        for w in (QLabel("Gold label / right ending"), self.label, self.gold, run,
                  predict_button(self, lambda: self.loaded.path if self.loaded is not None else self.source.text())):
            row.addWidget(w)
        self.strip = pg.PlotWidget()
        self.strip.setFixedHeight(120)
        self.strip.getPlotItem().hideAxis("left")
        self.strip_image = pg.ImageItem()
        self.strip.addItem(self.strip_image)
        self.strip.setLabel("bottom", "dimension of C (hidden size)")
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["class / ending", "logit = C·W_k + b_k", "P = softmax"])
        self.text = QPlainTextEdit(readOnly=True)
        self.text.setFont(_mono())
        self.flow_plot = pg.PlotWidget(background="w")
        self.flow_plot.setLabel("bottom", "layer")
        self.flow_plot.setLabel("left", "share of attention (mean over heads)")
        legend_below(self.flow_plot)   # under the axis: never over the curves (shares run up to 1.0)
        self._flow_curves = [self.flow_plot.plot([], [], pen=pg.mkPen(c, width=2), symbol="o", symbolSize=6,
                                                 symbolBrush=c, name=n) for n, c in FLOW_CURVES]
        from .heatmap import TokenHeatmap

        self.flow_map = TokenHeatmap(cmap="inferno", colorbar_label="A → B block flow")
        self.right = QTabWidget()
        self.right.addTab(self.text, "Arithmetic")
        self.right.addTab(self.flow_plot, "A ↔ B flow per layer (pairs)")
        self.right.addTab(self.flow_map, "A → B, layers × heads (pairs)")
        lower = QSplitter()
        lower.addWidget(self.table)
        lower.addWidget(self.right)
        fit_columns(self.table)   # the titles whole before the first result too (not "lass / ending")
        lower.setSizes([480, 620])
        layout = QVBoxLayout(self)
        layout.addWidget(header("The classifier head with this model's numbers: C, logits = C Wᵀ + b, softmax, "
                                "loss, and a by-hand check."))
        layout.addLayout(top)
        layout.addWidget(self.inputs, 0)
        layout.addLayout(row)
        # the previous model's numbers stay greyed under "Results of A: updating for B…" until B's are shown; the
        # veil covers a plain host of the splitter (a QSplitter takes a child widget, the veil, as a third pane:
        # the Arithmetic pane shrank to a third while the veil was up)
        lower_host = QWidget()
        host_layout = QVBoxLayout(lower_host)
        host_layout.setContentsMargins(0, 0, 0, 0)
        host_layout.addWidget(lower)
        self.stale_cover = StaleCover(self.strip, lower_host)
        layout.addWidget(self.stale_cover.label)
        layout.addWidget(self.status)
        layout.addWidget(self.strip)
        layout.addWidget(lower_host, 1)

    # -- actions ---------------------------------------------------------------------------
    def current_kind(self) -> str:
        return classify_tasks()[self.kind.currentText()]

    def _show_kind(self, task: str) -> None:
        self.kind.setCurrentText(get_task_facts(task).label)

    def _kind_changed(self, text: str) -> None:
        kind = classify_tasks().get(text, "")
        self.inputs.setCurrentIndex(int(_is_choice(kind)))
        free = _free_gold(kind)     # a float score / a set of labels, not one class id
        self.gold.setVisible(free)
        self.label.setVisible(not free)
        self._fit_pair_hint()

    def reads_pairs(self) -> bool:
        """Does the model read sentence pairs: a pair task, or a regression / multi-label run that read two text
        columns (STS-B)?"""
        kind = self.current_kind()
        if _is_choice(kind):
            return False
        facts = get_task_facts(kind)
        return facts.pair or (facts.takes_pairs and self.run_pairs)

    def _fit_pair_hint(self) -> None:
        """Sentence B's placeholder says whether this model reads it."""
        self.inputs.text_b.setPlaceholderText("sentence B: this model reads sentence pairs" if self.reads_pairs()
                                              else "sentence B (pairs only)")

    def _gold(self):
        """The gold of the typed box: a float (regression), label ids (multi-label) or None.

        Raises:
            ValueError: a score that is not a number, or a label name the head does not have."""
        text = self.gold.text().strip()
        if not text:
            return None
        if _is_regression(self.current_kind()):
            try:
                return float(text)
            except ValueError:
                raise ValueError(f"gold score {text!r} is not a number") from None
        names = self.label_names_of(self.loaded)
        out = []
        for part in (p.strip() for p in text.split(";")):
            if not part:
                continue
            if part in names:
                out.append(names.index(part))
            elif part.isdigit():
                out.append(int(part))
            else:
                raise ValueError(f"gold label {part!r} is not one of the head's labels ({', '.join(names)})")
        return sorted(set(out))
    def load_task(self) -> str:
        return get_task_facts(self.current_kind()).head

    def load_model(self) -> None:
        if self.source.text().strip() != self._pairs_for:   # another model than the opened run's
            self.run_pairs, self._pairs_for = False, ""
        super().load_model()

    def mark_stale(self, was: str, now: str) -> None:
        super().mark_stale(was, now)
        self._text_stale = False   # the model's line now

    def open_checkpoint(self, path: str, kind: str, label_names=(), pairs: bool = False) -> None:
        """Load a checkpoint folder as task ``kind`` (a task of classify_tasks(), e.g. "pair"), with its head;
        ``label_names``: its run's class names (config label_names), shown when the head's are only LABEL_k;
        ``pairs``: its run read two text columns. The inputs typed for a model of another kind are cleared."""
        self.run_label_names = list(label_names or [])
        self.run_pairs, self._pairs_for = bool(pairs), path.strip()
        if kind != self.current_kind():
            self._forget_inputs()
        self._show_kind(kind)
        self.source.setText(path)
        self.load_model()
        self._fit_pair_hint()

    def _forget_inputs(self) -> None:
        """Another kind of model is opened: the inputs and the result typed for the previous one go (else an STS-B
        pair model scores the SST-2 model's lone sentence, 2.65, with no word); the run's first example or the
        user's text comes instead."""
        if self.result is None and not any(v.strip() for v in self.inputs.values()):
            return
        for edit in self.inputs.edits():
            edit.clear()
        self.clear_gold()
        self._example_inputs = self._asked = self._result_inputs = None
        self.result = None
        self.table.setRowCount(0)
        self.strip_image.clear()
        self.text.setPlainText("the previous model's input was for another kind of model: cleared")
        self.stale_cover.clear()
        self._text_stale = False

    def adopt_model(self, loaded) -> None:
        """The head's class names, and its kind when the head decides it (multiple choice, a score, sigmoids)."""
        names = self.label_names_of(loaded)
        if names != self.label.names:
            self.label.setValue(-1)   # another head's classes: its gold id would name a class of this one
        self.label.set_names(names)
        head = getattr(loaded, "task", "")
        problem = getattr(loaded, "head_problem", "")   # the head decides: a score or sigmoids, not a softmax
        task = task_for_checkpoint(head, self.current_kind(), problem or None)
        if task in classify_tasks().values() and task != self.current_kind():
            self._show_kind(task)

    def model_in(self, loaded) -> None:
        """The opened run's first dev example, or the input shown, classified by the new model."""
        pending, self._example_when_loaded = self._example_when_loaded, None
        if pending is not None:          # the opened run's first dev example (ClassifyPages.open_checkpoint)
            self.result = None
            self.open_example(pending)
        elif self.result is not None:
            # the shown numbers were the previous model's (a stance checkpoint's header over an SST-2 result):
            # cleared, and the same input classified again by this model
            self.result = None
            self.table.setRowCount(0)
            self.text.setPlainText("classifying the same input with the newly loaded model…")
            self.run()

    def run(self) -> None:
        if not self.has_model():
            return
        label = None if self.label.value() < 0 else self.label.value()
        if _free_gold(self.current_kind()):
            try:
                label = self._gold()
            except ValueError as exc:
                self._status(str(exc))
                return
        data = {"slot": self.slot, "kind": self.current_kind(), "label": label}
        self._asked = self.inputs.values()
        if _is_choice(self.current_kind()):
            i = self.inputs
            data.update(context=i.context.text(), endings=[e.text() for e in i.endings], start=i.start.text())
        else:
            data.update(text_a=self.inputs.text_a.text(),
                        text_b=self.inputs.text_b.text() if get_task_facts(self.current_kind()).takes_pairs else "")
        self._runner.submit("classify", data)

    def fill_example(self, example: dict | None) -> None:
        """Fill the inputs from ``example`` (as :meth:`open_example`; None: nothing) and classify it now, or once the
        model being loaded is in."""
        if example is None:   # say why the sentence is the one typed before (not an empty one, silently)
            what = "Sentence A and Sentence B" if self.reads_pairs() else "a sentence"
            self._status(f"the run's dev and training files cannot be read here: type {what}, then Classify")
            return
        if str(example.get("text_b") or "").strip():   # the run read pairs (columns found by their names)
            self.run_pairs = True
            self._fit_pair_hint()
        if self.loaded is None or self.loading:
            self._example_when_loaded = example
            return
        self.open_example(example)

    def open_example(self, example: dict) -> None:
        """Fill the inputs from a dev example ({"kind", "text_a", "text_b", "endings", "start", "label"}), run."""
        kind = example.get("kind") or self.current_kind()
        self._show_kind(kind)
        if _is_choice(kind):
            self.inputs.context.setText(example.get("text_a", ""))
            self.inputs.start.setText(example.get("start", ""))
            for edit, text in zip(self.inputs.endings, example.get("endings", [])):
                edit.setText(text)
        else:
            self.inputs.text_a.setText(example.get("text_a", ""))
            self.inputs.text_b.setText(example.get("text_b", ""))
        gold = example.get("label", -1)
        if _is_regression(kind):
            self.gold.setText("" if gold is None else f"{float(gold):g}")
        elif _is_multilabel(kind):
            self.gold.setText(";".join(str(g) for g in gold or []))
        else:
            self.label.setValue(int(gold))
        self._example_inputs = self.inputs.values()
        self.run()

    def _inputs_edited(self, _text: str = "") -> None:
        """A typed input that is no longer the example's: the example's gold label goes (no loss shown for a label
        the user never chose); a gold label chosen for the typed text stays."""
        if self._example_inputs is None or self.inputs.values() == self._example_inputs:
            return
        self._example_inputs = None
        self.clear_gold()
        self._status("gold label: none chosen (the text is no longer the example's); choose one to see its loss")

    def clear_gold(self) -> None:
        """No gold label: 'none' in the class box, the score / label-set box empty."""
        self.label.setValue(-1)
        self.gold.clear()

    # -- rendering -------------------------------------------------------------------------
    def _hold_columns(self) -> None:
        """The table as wide as its columns: all of them in view, none scrolled out (not "lass / ending", the table
        scrolled sideways inside a 385 px pane at 1280x800); the Arithmetic tabs beside it give way."""
        t = self.table
        bar = t.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent, None, t)
        need = (t.verticalHeader().sizeHint().width() + sum(t.columnWidth(c) for c in range(t.columnCount()))
                + 2 * t.frameWidth() + bar)
        t.setMinimumWidth(need)

    def label_names_of(self, loaded) -> list[str]:
        """The class names shown for ``loaded`` (a ModelInfo): its head's, or its run's when the head's are only
        LABEL_k (core.classify.readable_label_names)."""
        return readable_label_names(getattr(loaded, "label_names", None), self.run_label_names)

    def show_result(self, res) -> None:
        """Render a ClassifyResult (its class names as :meth:`label_names_of` says)."""
        names = readable_label_names(res.label_names, self.run_label_names)
        if names != list(res.label_names):
            res = replace(res, label_names=names)
        self.result = res
        self.stale_cover.clear()
        self._result_inputs, self._text_stale = self._asked, False
        C = np.stack([x.C for x in res.inputs])              # (inputs, H)
        lim = float(np.abs(C).max()) or 1.0
        self.strip_image.setImage(C.T, levels=(-lim, lim))
        self.strip_image.setColorMap(pg.colormap.get("CET-D1"))
        self.table.setRowCount(len(res.logits))
        problem = getattr(res, "problem_type", SINGLE_LABEL_TYPE)
        word = "score = C_k·w + b" if _is_choice(res.kind) else "logit = C·W_k + b_k"
        third = "P = softmax"
        if problem == REGRESSION_TYPE:
            word, third = "score = C·w + b", "(no softmax)"
        elif problem == MULTI_LABEL_TYPE:
            third = "P = sigmoid  (τ)"
        self.table.setHorizontalHeaderLabels(["class / ending", word, third])
        chosen = set(res.predicted) if problem == MULTI_LABEL_TYPE else {res.prediction}
        for k, z in enumerate(res.logits):
            name = res.label_names[k] + (" ← prediction" if k in chosen else "")
            if problem == REGRESSION_TYPE:
                p = "the score is the prediction"
            elif problem == MULTI_LABEL_TYPE:
                p = f"{res.probabilities[k]:.4f}  (τ {res.thresholds[k]:.2f})"
            else:
                p = f"{res.probabilities[k]:.4f}"
            for col, value in enumerate((name, f"{z:+.4f}", p)):
                self.table.setItem(k, col, QTableWidgetItem(value))
        fit_columns(self.table)   # every title whole ("P = softmax" was cut in a stretched last section)
        self._hold_columns()
        lines = self.result_lines(res)
        if tokenizer_suffix(self.loaded):   # the words above were read by another model's tokenizer: say whose
            lines.insert(len(res.inputs), f"note: {getattr(self.loaded, 'tokenizer_note', '')}")
        self.text.setPlainText("\n".join(lines))
        self._show_flow(res)
        if problem == REGRESSION_TYPE:
            said = f"score {res.score:.4f}"
        elif problem == MULTI_LABEL_TYPE:
            said = "predicted labels: " + (", ".join(res.label_names[k] for k in res.predicted) or "none")
        else:
            name = res.label_names[res.prediction]
            said = f"prediction {res.prediction}" + (f" ({name})" if name != str(res.prediction) else "")
        lone = self.lone_sentence_note(res)
        if lone:
            self.text.setPlainText(f"note: {lone}\n\n" + self.text.toPlainText())
        self._status(f"{said}; by-hand check {res.max_abs_diff:.1e}{tokenizer_suffix(self.loaded)}"
                     + (f". Note: {lone}" if lone else ""))

    def lone_sentence_note(self, res) -> str:
        """'this model reads sentence pairs and Sentence B is empty: …' when ``res`` is a pair model's answer for
        Sentence A alone, else ''."""
        if _is_choice(res.kind) or not self.reads_pairs() or len(res.inputs) != 1:
            return ""
        asked = self._result_inputs or self.inputs.values()
        if asked[1].strip():
            return ""
        return ("this model reads sentence pairs and Sentence B is empty: its score for Sentence A alone means "
                "little; type Sentence B")

    def _veil_if_edited(self, _text: str = "") -> None:
        """The text changed since the shown result: the result is veiled (common.StaleCover) under a line saying
        so, until Classify or Return answers for the new text, or the text is put back (the old sentence's result is
        never shown un-veiled under new text)."""
        if self.result is None or self._result_inputs is None:
            return
        differs = self.inputs.values() != self._result_inputs
        if differs and not self.stale_cover.stale:
            self.stale_cover.mark("", "")
            self.stale_cover.say("Results of the previous text: press Classify (or Return) for this one")
            self._text_stale = True
        elif not differs and self._text_stale and self.stale_cover.stale:
            self.stale_cover.clear()
            self._text_stale = False

    def _show_flow(self, res) -> None:
        """Pairs: the per-layer flow curves and the A -> B layers x heads map; others: cleared."""
        fm = res.flow_mean
        layers = np.arange(1, fm.shape[0] + 1) if fm is not None else []
        for curve, (a, b) in zip(self._flow_curves, FLOW_CELLS):
            curve.setData(layers, fm[:, a, b] if fm is not None else [])
        if res.flow is not None:
            grid = res.flow[:, :, 0, 1]
            self.flow_map.set_matrix(grid, [f"L{i + 1}" for i in range(grid.shape[0])],
                                     [f"H{j + 1}" for j in range(grid.shape[1])])

    @staticmethod
    def result_lines(res) -> list[str]:
        """The text panel: inputs, shapes, the pooler, the arithmetic, and the pair flow table."""
        lines = []
        for k, x in enumerate(res.inputs):
            prefix = f"input {k}: " if len(res.inputs) > 1 else "input: "
            lines.append(prefix + " ".join(x.tokens))
        H = res.inputs[0].C.shape[0]
        lines += ["", f"{res.pooler}   (C: {len(res.inputs)} x {H}; W: {res.W.shape[0]} x {res.W.shape[1]}; "
                  f"b: {res.b.shape[0]})", ""]
        lines += res.arithmetic_lines(4)
        if res.flow is not None:
            lines += ["", "attention block flow (mean over heads; row = from, share of attention on the block):"]
            lines += flow_lines(res.flow_mean)
        return lines


def classify_tabs(parent=None) -> list[tuple[str, QWidget]]:
    """The Classify tab and the classification dev-set tab, wired (a dev row opens in Classify)."""
    from .classify_dev_view import ClassifyDevView

    view = ClassifyView(parent)
    dev = ClassifyDevView(lambda: view.loaded, lambda: view.current_kind(), parent, client=view.client)

    def open_row(example: dict) -> None:
        view.open_example(example)
        bring_to_front(view)

    dev.open_requested.connect(open_row)
    view.model_changed.connect(dev.model_changed)
    return [(CLASSIFY_PAGE, view), (CLASSIFY_DEV_PAGE, dev)]


class ClassifyPages:
    """The page set of the registry's Classify pages (registry.CLASSIFY): a classifier or SWAG checkpoint
    opens in Classify as its task (its head and the run's task: core.checkpoint_windows.checkpoint_task_name)."""

    def __init__(self, pages: list[tuple[str, QWidget]]):
        self.pages = dict(pages)

    def open_checkpoint(self, title: str, path: str, task: str | None, run_config: dict) -> None:
        """Open ``path`` in page ``title`` with its run's class names, and fill the inputs with the run's first
        dev example (read on a worker thread: explorer.ui.runs.examples.first_classification_example), classified
        once the model is in."""
        from explorer.ui.runs.examples import first_classification_example
        from explorer.ui.shell.tasks import run_in_thread

        view = self.pages[title]
        columns = (run_config or {}).get("text_columns") or []
        if isinstance(columns, str):
            columns = [c for c in columns.split(",") if c.strip()]
        view.open_checkpoint(path, task or view.current_kind(), (run_config or {}).get("label_names") or (),
                             pairs=len(columns) == 2)
        if isinstance(view, ClassifyView):
            from explorer.core.runs import run_dir_of

            run_dir = run_dir_of(path)
            run_in_thread(first_classification_example, dict(run_config or {}),
                          str(run_dir) if run_dir is not None else None, owner=view, on_done=view.fill_example)


def page_set(window) -> ClassifyPages:
    """The registry's provider of Classify and Classify: dev set (kept as ``window.classify_pages``)."""
    window.classify_pages = classify_tabs(window)
    return ClassifyPages(window.classify_pages)

"""The Classify tab: a GLUE single / pair or SWAG model's arithmetic with its own numbers.

Renders explorer.core.classify.arithmetic.ClassifyResult: the inputs, C (the pooled [CLS] vector fed to the classifier)
as a colour strip (one row per ending for SWAG), the table of logits = C W^T + b and softmax probabilities,
the loss for the chosen label, the prediction, the by-hand check, and for pairs the per-layer attention
block flow between sentence A and sentence B. Model loads and runs happen in the inspector child process
(slot "classify"; explorer.ui.inspectors.client), never in the GUI process. What the page decides and says comes
from explorer.ui.inspectors.components.classify; its widgets are explorer.ui.inspectors.classify_panels.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QSplitter, QVBoxLayout, QWidget

from explorer.core.classify.arithmetic import readable_label_names
from explorer.core.specs.tasks import get_task_facts, task_for_model
from explorer.ui.shell.columns import fit_columns

from .classify_panels import (ArithmeticTabs, ClassChoice, ClassifyInputs, LogitTable, SelectOnFirstClick,
                              VectorStrip)
from .common import StaleCover, header, tokenizer_suffix
from .components.typed_inputs import checkpoint_label_names, holds_typed_inputs, kept_gold
from .components.classify import (classify_tasks, free_gold, gold_text, is_choice, lone_sentence_note, parse_gold,
                                  reads_pairs, result_lines, table_headers, table_rows, takes_sentence_b, verdict)
from .latest import LatestOnly
from .model_page import ModelPage, bring_to_front
from .registry import CLASSIFY_DEV_PAGE, CLASSIFY_PAGE


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
        self._note_with_result = ""   # said after the next result's verdict (a typed input kept, a gold cleared)
        self._runner = LatestOnly.in_child(self.client, f"{slot}.classify", self)
        self._runner.finished.connect(lambda _id, res: self.show_result(res))
        self._runner.failed.connect(lambda _id, msg, _tb: self._status(msg))
        self._build()
        self._fit_pair_hint()

    def _build(self) -> None:
        self.kind = QComboBox()
        self.kind.addItems(list(classify_tasks()))
        self.source.setText("bundled:minilm")
        self.source.setToolTip("hub id, local folder or a run checkpoint (runs/<id>/checkpoints/best)")
        top = self.model_row(QLabel("Head"), self.kind)
        self.inputs = ClassifyInputs()
        self._example_inputs: tuple | None = None   # the inputs of the example whose gold label the box holds
        self.first_click = SelectOnFirstClick(self)   # typing over a filled example replaces it, never appends
        for edit in self.inputs.edits():
            self.first_click.watch(edit)
            edit.textEdited.connect(self._inputs_edited)
            edit.textChanged.connect(self._veil_if_edited)
            edit.returnPressed.connect(self.run)   # as Return probes in Spans & τ
        self.kind.currentTextChanged.connect(self._kind_changed)
        self.label = ClassChoice()
        self.gold = QLineEdit()
        self.gold.setPlaceholderText("none")
        self.gold.setToolTip("regression: a gold score (e.g. 3.8); multi-label: gold labels separated by ';'")
        self.gold.setVisible(False)
        run = QPushButton("Classify")
        run.clicked.connect(self.run)
        from explorer.ui.inspectors.predictions_view import predict_button

        # the class box and the score box share one width and the buttons keep theirs, so a new head's kind moves
        # nothing: after a regression model (its score box wide) the buttons slid under the pointer, and a click
        # meant for Classify opened Predict on a file…
        row = QHBoxLayout()
        gold_width = max(self.label.sizeHint().width(), 180)
        for box in (self.label, self.gold):
            box.setFixedWidth(gold_width)
        for w in (QLabel("Gold label / right ending"), self.label, self.gold, run,
                  predict_button(self, lambda: self.loaded.path if self.loaded is not None else self.source.text())):
            row.addWidget(w)
        row.addStretch(1)
        self.strip = VectorStrip()
        self.strip_image = self.strip.image
        self.table = LogitTable()
        self.right = ArithmeticTabs()
        self.text, self.flow_plot, self.flow_map = self.right.text, self.right.flow_plot, self.right.flow_map
        self._flow_curves = self.right.flow_curves
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
        from .head_mask_bar import HeadMaskBar

        self.head_mask = HeadMaskBar(self.client, self.slot, self._mask_inputs,   # heads switched off on this input
                                     class_names=lambda names: readable_label_names(names, self.run_label_names))
        layout.addWidget(self.head_mask)
        self.model_changed.connect(self.head_mask.model_in)   # typed heads checked against its size
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
        self.inputs.setCurrentIndex(int(is_choice(kind)))
        free = free_gold(kind)     # a float score / a set of labels, not one class id
        self.gold.setVisible(free)
        self.label.setVisible(not free)
        self._fit_pair_hint()

    def reads_pairs(self) -> bool:
        """Does the model read sentence pairs: a pair task, or a regression / multi-label run that read two text
        columns (STS-B)?"""
        return reads_pairs(self.current_kind(), self.run_pairs)

    def _fit_pair_hint(self) -> None:
        """Sentence B's placeholder says whether this model reads it; a head that never reads one greys it."""
        self.inputs.text_b.setPlaceholderText(
            "sentence B: this model reads sentence pairs" if self.reads_pairs() else "sentence B (pairs only)"
            if takes_sentence_b(self.current_kind()) else "sentence B: this model reads one sentence")
        self.inputs.show_sentence_b(takes_sentence_b(self.current_kind()))

    def _gold(self):
        """The gold of the typed box: a float (regression), label ids (multi-label) or None.

        Raises:
            ValueError: a score that is not a number, or a label name the head does not have."""
        return parse_gold(self.gold.text(), self.current_kind(), self.label_names_of(self.loaded))

    def load_task(self) -> str:
        return get_task_facts(self.current_kind()).head.model_head

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
        self._gold_choices_while_loading(path)

    def _gold_choices_while_loading(self, path: str) -> None:
        """The gold label choices follow the checkpoint being loaded (its config's class names) at once; when its
        config names none, the box is disabled until the model is in (never ids 0..3 for a two-class model)."""
        names = readable_label_names(checkpoint_label_names(path), self.run_label_names)
        if names:
            gold, note = kept_gold(self.label.value(), len(names))
            self.label.setValue(gold)
            self.label.set_names(names)
            if note:
                self._status(f"{self.status.text()} ({note})")
        self.label.setEnabled(bool(names))

    def holds_typed_text(self) -> bool:
        """Do the inputs hold what the person typed or edited since the last example fill (kept over a run's
        example: components.typed_inputs.holds_typed_inputs)?"""
        return holds_typed_inputs(self.inputs.values(), self._example_inputs)

    def _forget_inputs(self) -> None:
        """Another kind of model is opened: the inputs and the result typed for the previous one go (else an STS-B
        pair model scores the SST-2 model's lone sentence, 2.65, with no word); the run's first example or the
        user's text comes instead."""
        if self.result is None and not any(v.strip() for v in self.inputs.values()):
            return
        self._clear_inputs("the previous model's input was for another kind of model: cleared")

    def _clear_inputs(self, note: str) -> None:
        """Empty inputs (their placeholders show), no gold label and no result; ``note`` in the Arithmetic pane."""
        for edit in self.inputs.edits():
            edit.clear()
        self.clear_gold()
        self._example_inputs = self._asked = self._result_inputs = None
        self.result = None
        self.table.setRowCount(0)
        self.strip_image.clear()
        self.text.setPlainText(note)
        self.stale_cover.clear()
        self._text_stale = False

    def adopt_model(self, loaded) -> None:
        """The head's class names, and its kind when the head decides it (multiple choice, a score, sigmoids)."""
        names = self.label_names_of(loaded)
        self.label.setEnabled(True)
        if not self.label.names and self.holds_typed_text() and not free_gold(self.current_kind()):
            # a gold id the person chose for their text before any class names were known stays while the new head
            # has that class
            gold, note = kept_gold(self.label.value(), len(names))
            self.label.setValue(gold)
            if note:
                self._note_with_result = note
        elif names != self.label.names:
            self.label.setValue(-1)   # another head's classes: its gold id would name a class of this one
        self.label.set_names(names)
        head = getattr(loaded, "task", "")
        problem = getattr(loaded, "head_problem", "")   # the head decides: a score or sigmoids, not a softmax
        task = task_for_model(head, problem or "", self.current_kind())
        if task in classify_tasks().values() and task != self.current_kind():
            self._show_kind(task)

    def model_in(self, loaded) -> None:
        """The opened run's first dev example, or the input shown, classified by the new model."""
        pending, self._example_when_loaded = self._example_when_loaded, None
        typed = self.holds_typed_text()
        if pending is not None and not typed:   # the opened run's first dev example (ClassifyPages.open_checkpoint)
            self.result = None
            self.open_example(pending)
        elif typed:   # what the person typed before the open or while the model loaded: theirs, by this model
            if pending is not None:
                self._note_with_result = "; ".join(n for n in (
                    self._note_with_result, "your typed input was kept (the run's example was not filled in)") if n)
            self.result = None
            self.table.setRowCount(0)
            self.text.setPlainText("classifying your input with the newly loaded model…")
            self.run()
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
        if free_gold(self.current_kind()):
            try:
                label = self._gold()
            except ValueError as exc:
                self._status(str(exc))
                return
        data = {"slot": self.slot, "kind": self.current_kind(), "label": label}
        self._asked = self.inputs.values()
        if is_choice(self.current_kind()):
            i = self.inputs
            data.update(context=i.context.text(), endings=[e.text() for e in i.endings], start=i.start.text())
        else:
            data.update(text_a=self.inputs.text_a.text(),
                        text_b=self.inputs.text_b.text() if get_task_facts(self.current_kind()).takes_pairs else "")
        self._runner.submit("classify", data)

    def _mask_inputs(self) -> dict | None:
        """The classified text (and pair) as mask_heads fields; None before a result or for multiple choice."""
        if self.result is None or is_choice(self.current_kind()):
            return None
        pair = get_task_facts(self.current_kind()).takes_pairs
        return {"text": self.inputs.text_a.text(), "text_pair": self.inputs.text_b.text() if pair else ""}

    def fill_example(self, example: dict | None) -> None:
        """Fill the inputs from ``example`` (as :meth:`open_example`; None: nothing) and classify it now, or once the
        model being loaded is in."""
        if example is None:   # say why there is no example of the run's (not an empty sentence, silently)
            self._example_when_loaded = None   # an earlier run's example still waiting for its model
            what = "Sentence A and Sentence B" if self.reads_pairs() else "a sentence"
            from_data = self._example_inputs is not None and self.inputs.values() == self._example_inputs
            if from_data:   # another run's example: never this model's; what the person typed stays
                self._clear_inputs("no example of this run's data: type an input, then Classify")
            self._status(f"the run's dev and training files cannot be read here: type {what}, then Classify"
                         + (" (the previous run's example was cleared)" if from_data else ""))
            return
        if str(example.get("text_b") or "").strip():   # the run read pairs (columns found by their names)
            self.run_pairs = True
            self._fit_pair_hint()
        if self.loaded is None or self.loading:
            self._example_when_loaded = example
            return
        if self.holds_typed_text():   # what the person typed stays; the run's example fills only untouched inputs
            self._status("your typed input was kept (the run's example was not filled in): press Classify")
            return
        self.open_example(example)

    def open_example(self, example: dict) -> None:
        """Fill the inputs from a dev example ({"kind", "text_a", "text_b", "endings", "start", "label"}), run."""
        kind = example.get("kind") or self.current_kind()
        self._show_kind(kind)
        if is_choice(kind):
            self.inputs.context.setText(example.get("text_a", ""))
            self.inputs.start.setText(example.get("start", ""))
            for edit, text in zip(self.inputs.endings, example.get("endings", [])):
                edit.setText(text)
        else:
            self.inputs.text_a.setText(example.get("text_a", ""))
            self.inputs.text_b.setText(example.get("text_b", ""))
        gold = example.get("label", -1)
        if free_gold(kind):   # a score or a label set in the box, else a class id in the spin box
            self.gold.setText(gold_text(kind, gold))
        else:
            self.label.setValue(int(gold))
        self._example_inputs = self.inputs.values()
        for edit in self.inputs.edits():
            self.first_click.arm(edit)
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
    def label_names_of(self, loaded) -> list[str]:
        """The class names shown for ``loaded`` (a ModelInfo): its head's, or its run's when the head's are only
        LABEL_k (core.classify.arithmetic.readable_label_names)."""
        return readable_label_names(getattr(loaded, "label_names", None), self.run_label_names)

    def show_result(self, res) -> None:
        """Render a ClassifyResult (its class names as :meth:`label_names_of` says)."""
        names = readable_label_names(res.label_names, self.run_label_names)
        if names != list(res.label_names):
            res = replace(res, label_names=names)
        self.result = res
        self.stale_cover.clear()
        self.head_mask.clear()   # a comparison is of the input it ran on
        self._result_inputs, self._text_stale = self._asked, False
        self.strip.show_inputs(res.inputs)
        self.table.fill(table_headers(res), table_rows(res))
        lines = result_lines(res)
        if tokenizer_suffix(self.loaded):   # the words above were read by another model's tokenizer: say whose
            lines.insert(len(res.inputs), f"note: {getattr(self.loaded, 'tokenizer_note', '')}")
        self.text.setPlainText("\n".join(lines))
        self.right.show_flow(res)
        lone = self.lone_sentence_note(res)
        if lone:
            self.text.setPlainText(f"note: {lone}\n\n" + self.text.toPlainText())
        note, self._note_with_result = self._note_with_result, ""
        self._status(f"{verdict(res)}; by-hand check {res.max_abs_diff:.1e}{tokenizer_suffix(self.loaded)}"
                     + (f". Note: {lone}" if lone else "") + (f". Note: {note}" if note else ""))

    def lone_sentence_note(self, res) -> str:
        """'this model reads sentence pairs and Sentence B is empty: …' when ``res`` is a pair model's answer for
        Sentence A alone, else '' (components.classify.lone_sentence_note)."""
        return lone_sentence_note(res, self.reads_pairs(), self._result_inputs or self.inputs.values())

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

    result_lines = staticmethod(result_lines)   # the Arithmetic pane's lines of a ClassifyResult


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
    view.load_started.connect(dev.model_loading)   # the run's dev rows at once, Score waiting for the model
    view.load_ended.connect(dev.load_ended)
    view.head_mask.attach_dev(dev.masking_dev_set, f"the {CLASSIFY_DEV_PAGE} page")   # heads off on its dev file
    return [(CLASSIFY_PAGE, view), (CLASSIFY_DEV_PAGE, dev)]


class ClassifyPages:
    """The page set of the registry's Classify pages (registry.CLASSIFY): a classifier or SWAG checkpoint
    opens in Classify as its task (its head and the run's task: core.models.checkpoint_windows.checkpoint_task_name)."""

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
            from explorer.core.runs.layout import run_dir_of

            run_dir = run_dir_of(path)
            run_in_thread(first_classification_example, dict(run_config or {}),
                          str(run_dir) if run_dir is not None else None, owner=view, on_done=view.fill_example)


def page_set(window) -> ClassifyPages:
    """The registry's provider of Classify and Classify: dev set (kept as ``window.classify_pages``)."""
    window.classify_pages = classify_tabs(window)
    return ClassifyPages(window.classify_pages)

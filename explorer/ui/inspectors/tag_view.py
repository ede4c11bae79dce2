"""The Tag page: a token-classification (NER) model's tags for a typed sentence, with its own numbers.

Renders what the inspector child's ``tag`` op returns (explorer.core.tagging.forward: TaggedText, TokenHead):
the sentence with its predicted entities highlighted by type, a heat strip of every word's tag
probabilities (words x tags, the softmax of each word's first piece), and for the word chosen (a click or Up / Down
on its row of the strip, or the Word box, counted from 1) the head of its first piece written out from the result
held, with no new forward pass: logits_i = T_i W^T + b, softmax over the tags, and the by-hand check against the model's
logits; and the attention views of the same sentence (the QA pages' AttentionView with the sentence's block
names: layer / head / rollout, word pieces or merged words, the head view, flow per layer, layers x heads),
from the ``attention`` the ``tag`` op returns (explorer.core.tagging.forward.TagAttention). Model loads and
runs happen in the inspector child (slot "tag"), never in the GUI process.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from explorer.ui.shell.adaptive_splitter import AdaptiveSplitter
from explorer.ui.shell.class_names import set_header_names
from explorer.ui.shell.columns import whole_headers
from explorer.ui.shell.scrolling import scrolling, wheel_scrolls_page

from .common import ResultSource, StaleCover, StatusLabel, header, tokenizer_suffix
from .components.tag import DEFAULT_SENTENCE, head_lines, highlighted_html, words_note
from .components.typed_inputs import holds_typed_inputs
from .latest import LatestOnly
from .model_page import ModelPage, bring_to_front
from .window_weights import WindowWeights


class TagView(ModelPage):
    """The Tag page. ``show_result({"tagged", "head"})`` renders; ``tag(text)`` asks the child.

    Signals: message(str), a status line; model_changed(object), a model (ModelInfo) is in use now."""

    def __init__(self, parent=None, *, client=None, slot: str = "tag"):
        super().__init__(parent, client=client, slot=slot,
                         intro="Load a token-classification model (a ner run's checkpoint: select the run in the Runs "
                               "list, then Open best checkpoint): the sentence above is tagged at once.")
        self.max_seq_length = 128              # pieces per window, as training's default
        self.attention_budget: int | None = None   # None: the probe's default budget (attention_budget.py)
        self._runner = LatestOnly.in_child(self.client, f"{slot}.tag", self)
        self._runner.finished.connect(lambda _id, res: self.show_result(res))
        self._runner.failed.connect(lambda _id, msg, _tb: self._status(msg))
        self._build()

    def _build(self) -> None:
        from .attention_view import AttentionView
        from .components.attention import SENTENCE_BLOCKS
        from .heatmap import TokenHeatmap

        self.source.setText("bundled:minilm")
        self.source.setToolTip("a token-classification checkpoint (a ner run's checkpoints/best), hub id or folder")
        top = self.model_row()
        # a CoNLL-2003-like sentence is there from the start and is tagged as soon as a model is in: never an empty
        # page with nothing to look at
        self.sentence = QLineEdit(DEFAULT_SENTENCE)
        self._example_text = DEFAULT_SENTENCE   # the sentence the page last filled in (not the person's)
        self.sentence.setPlaceholderText(f"a sentence, e.g. {DEFAULT_SENTENCE}")
        self.sentence.returnPressed.connect(self.run)
        # the word whose arithmetic is written out, counted from 1 as the map's rows; shown from the result held (the
        # logits and T_i are there), never a new forward pass; a click on a row of the map or Up / Down there sets it
        self.word = QSpinBox(minimum=1, maximum=1, value=1)
        self.word.setToolTip("the word (1 = the first, as the rows of the map) whose head arithmetic is written out, "
                             "from its first word piece; a click on a row of the map, or Up / Down there, chooses it")
        self.word.valueChanged.connect(lambda v: self.show_word(v - 1))
        run = QPushButton("Tag")
        run.clicked.connect(self.run)
        row = QHBoxLayout()
        for w in (QLabel("Sentence"), self.sentence, QLabel("Word"), self.word, run):
            row.addWidget(w)
        self.marked = QLabel()
        self.marked.setTextFormat(Qt.TextFormat.RichText)
        self.marked.setWordWrap(True)
        from .label_axis import EveryLabelAxis

        self.heat = TokenHeatmap(cmap="viridis", colorbar_label="P(tag)", bottom_axis=EveryLabelAxis())
        self.heat.setFocusPolicy(Qt.FocusPolicy.StrongFocus)   # a click focuses it: Up / Down then step the words
        self.heat.clicked.connect(lambda r, _c: self.word.setValue(r + 1))
        self.heat.row_step.connect(lambda step: self.word.setValue(self.word.value() + step))
        self.text = QPlainTextEdit(readOnly=True)
        font = QFont("monospace")
        font.setStyleHint(QFont.StyleHint.TypeWriter)
        self.text.setFont(font)
        # the arithmetic beside the map, as wide as its longest line (show_result); under the map when both do
        # not fit side by side (a sideways-scrolled pane cut the "model" column and the by-hand check)
        head_split = AdaptiveSplitter()
        head_split.addWidget(self.heat)
        head_split.addWidget(self.text)
        head_split.setStretchFactor(0, 1)
        head_split.setStretchFactor(1, 0)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.attention_view = AttentionView(blocks=SENTENCE_BLOCKS)
        # a window not kept under the attention memory budget is asked of the child when shown
        self.window_weights = WindowWeights(self.client, f"{self.slot}.attention", self.attention_view, self._status,
                                            self)
        lower = self.lower = QTabWidget()
        lower.addTab(head_split, "Tags and head")
        # in a scroll of its own: the Attention page's views need more height than the Tags and head tab
        self.attention_scroll = scrolling(self.attention_view, horizontal=False)
        lower.addTab(self.attention_scroll, "Attention")
        layout = QVBoxLayout(self)
        layout.addWidget(header("Token tagging with this model's numbers: a tag per word from its first piece, "
                                "logits_i = T_i Wᵀ + b, softmax over the tags, entities by type."))
        layout.addLayout(top)
        layout.addLayout(row)
        from .head_mask_bar import HeadMaskBar

        self.head_mask = HeadMaskBar(self.client, self.slot, self._mask_inputs)   # heads switched off on this input
        layout.addWidget(self.head_mask)
        self.model_changed.connect(self.head_mask.model_in)   # typed heads checked against its size
        self.stale_cover = StaleCover(self.marked, lower)   # the previous model's tags, greyed while another loads
        layout.addWidget(self.stale_cover.label)
        layout.addWidget(self.status)
        layout.addWidget(self.marked)
        # the tags, head and attention tabs scroll inside the page when the window is smaller than they need
        # (a wide heat strip labelling every tag, the attention views' plots): the page's own minimum stays
        # small, so it never makes the window larger than a 1280x800 screen
        self.lower_scroll = scrolling(lower)
        layout.addWidget(self.lower_scroll, 1)
        wheel_scrolls_page(self)   # the wheel over the tag map scrolls the page; Ctrl+wheel zooms it

    # -- actions ---------------------------------------------------------------------------
    def load_task(self) -> str:
        return "token_classification"

    def open_checkpoint(self, path: str) -> None:
        self.source.setText(path)
        self.load_model()

    def model_in(self, loaded) -> None:
        if self.sentence.text().strip():
            self.run()          # the sentence shown (the default one at first) through this model at once

    def run(self) -> None:
        if not self.has_model():
            return
        text = self.sentence.text()
        if not text.strip():
            self._status(f"Type a sentence to tag, e.g. {DEFAULT_SENTENCE}")
            return
        shown = self.attention_view.result
        # the child writes out the first word's head (its W and b serve every word: show_word)
        data = {"slot": self.slot, "text": text, "token": -1, "max_seq_length": self.max_seq_length,
                # another piece of the same sentence: its attention is on screen already
                "attention": shown is None or getattr(shown, "text", None) != text}
        if self.attention_budget is not None:
            data["attention_budget"] = self.attention_budget
        self._runner.submit("tag", data)

    def _mask_inputs(self) -> dict | None:
        """The tagged sentence as mask_heads fields; None before a result."""
        if self.result is None:
            return None
        return {"text": self.result["tagged"].text, "max_seq_length": self.max_seq_length}

    def fill_sentence(self, text: str) -> None:
        """Show ``text`` as the sentence ("" leaves the one shown) and tag it now, or when the model being loaded is
        in (set_loaded tags what the page shows)."""
        if not text:
            return
        if self.holds_typed_text():   # what the person typed stays, tagged by the model once it is in
            self._status("your typed sentence was kept (the run's dev sentence was not filled in)"
                         + ("" if self.loaded is not None and not self.loading else "; it is tagged once the model "
                                                                                     "is in"))
            return
        self.sentence.setText(text)
        self._example_text = text
        if self.loaded is not None and not self.loading:
            self.run()

    def holds_typed_text(self) -> bool:
        """Does the sentence box hold what the person typed or edited since the page last filled it
        (components.typed_inputs.holds_typed_inputs)?"""
        return holds_typed_inputs((self.sentence.text(),), (self._example_text,))

    def tag(self, text: str) -> None:
        self.sentence.setText(text)
        self._example_text = text
        self.run()

    # -- rendering -------------------------------------------------------------------------
    def show_word(self, word: int) -> None:
        """Word ``word``'s (0-based) row highlighted and its head written out: logits from its first piece's T_i with
        the head's W and b, all in the result held (no forward pass)."""
        from explorer.core.tagging.forward import first_piece_of_word, piece_head

        if self.result is None or self.result.get("head") is None:
            return
        tagged, head = self.result["tagged"], self.result["head"]
        if not 0 <= word < len(tagged.words):
            return
        self.heat.chosen_row = word
        self.heat.highlight_row(word)
        piece = first_piece_of_word(tagged, word)
        if piece is None:
            lines = [f"word {word + 1} {tagged.words[word]!r} is past the first window of {self.max_seq_length} "
                     "pieces: its tags come from a later window, whose T_i is not kept here"]
        else:
            lines = head_lines(piece_head(tagged, head.W, head.b, piece), word=(word + 1, tagged.words[word]))
        self.text.setPlainText("\n".join(lines))
        fm = self.text.fontMetrics()
        self.text.setMinimumWidth(max(map(fm.horizontalAdvance, lines)) + 2 * self.text.frameWidth()
                                  + 2 * int(self.text.document().documentMargin()) + 4   # + the cursor
                                  + self.text.verticalScrollBar().sizeHint().width())

    def show_result(self, res: dict) -> None:
        """Render {"tagged": TaggedText, "head": TokenHead, "attention": TagAttention | None}."""
        if self.result is None or self.result["tagged"].text != res["tagged"].text:
            self.head_mask.clear()   # a comparison is of the sentence it ran on
        self.result = res
        self.stale_cover.clear()
        tagged, head = res["tagged"], res["head"]
        self.marked.setText(highlighted_html(tagged.text, tagged.entities, tagged.tag_names))
        rows = [f"{w} ({t})" for w, t in zip(tagged.words, tagged.tags)]
        self.heat.set_matrix(tagged.probabilities, rows, list(tagged.tag_names), levels=(0.0, 1.0))
        self.word.blockSignals(True)   # the word chosen stays where the new sentence has it; shown just below
        self.word.setMaximum(max(1, len(tagged.words)))
        self.word.blockSignals(False)
        self.show_word(self.word.value() - 1)
        attention = res.get("attention")
        if attention is not None or getattr(self.attention_view.result, "text", None) != tagged.text:
            self.attention_view.window = 0
            self.attention_view.set_result(attention)
        ents = ", ".join(f"{e.text} ({e.type})" for e in tagged.entities) or "no entity"
        words = words_note(tagged)
        self._status(f"{len(tagged.words)} words, {len(tagged.pieces)} pieces: {ents}; "
                     f"by-hand check {head.max_abs_diff:.1e}{tokenizer_suffix(self.loaded)}"
                     + (f"; {words}" if words else ""))


class TagDevView(QWidget):
    """The Tag page's dev view: a CoNLL / JSONL dev file scored by the Tag page's model (entity F1 overall and
    per type, the confusion between types with missed / spurious, the most confident mistakes). A double
    click on a mistake opens its sentence on the Tag page (``open_requested(text)``)."""

    open_requested = Signal(str)
    message = Signal(str)

    def __init__(self, tag_view: TagView, parent=None):
        from PySide6.QtWidgets import QAbstractItemView, QTableWidget

        from .job_bar import JobBar
        from .remote import RemoteJob

        super().__init__(parent)
        self.tag_view = tag_view
        self.report = None
        self._job = RemoteJob(tag_view.client, self)
        self._job.finished.connect(self._arrived)
        self.source = ResultSource(self.clear_results)   # which model the report is of; cleared on a switch
        tag_view.model_changed.connect(self.source.model_changed)
        self._data_of = ""
        self._job.failed.connect(lambda msg, _tb: self._ended(msg))
        self._job.cancelled.connect(lambda: self._ended("cancelled: nothing tagged is shown"))
        self.job_bar = JobBar("windows")   # progress after every batch, Cancel between batches
        self._job.progress.connect(self.job_bar.set_progress)
        self.job_bar.cancel_requested.connect(self._job.cancel)
        self.path = QLineEdit()
        self.path.setPlaceholderText("a dev file: CoNLL columns (word first, tag last) or JSONL tokens / tags")
        self.cap = QSpinBox(minimum=0, maximum=1_000_000, value=0, specialValueText="all")
        self.cap.setToolTip("score the first N sentences of the file (all: the whole file)")
        self._path_from_run = ""   # the dev file prefill_from_run put in (replaced by the next run's)
        self._dev_file = None      # that file as shown and as read (core.models.checkpoint_windows.RunDevFile)
        run = QPushButton("Score dev file")
        run.clicked.connect(self.run)
        top = QHBoxLayout()
        for w in (QLabel("Dev file"), self.path, QLabel("first"), self.cap, QLabel("sentences"), run):
            top.addWidget(w)
        self.status = StatusLabel("Load a model on the Tag page, choose a dev file, press Score dev file.")
        self.status.setWordWrap(True)
        self.types = QTableWidget(0, 5)
        self.types.setHorizontalHeaderLabels(["type", "precision", "recall", "F1", "support"])
        self.confusion = QTableWidget(0, 0)
        self.confusion.setToolTip("rows: gold type (spurious = no gold entity on that span); columns: predicted "
                                  "type (missed = no predicted entity on that span); exact spans")
        self.mistakes = QTableWidget(0, 5)
        self.mistakes.setHorizontalHeaderLabels(["word", "gold", "predicted", "P(predicted)", "sentence"])
        self.mistakes.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.mistakes.cellDoubleClicked.connect(self._open_row)
        self.mistakes.horizontalHeader().setStretchLastSection(True)
        whole_headers(self.mistakes)   # before the first result too
        upper = QSplitter()
        upper.addWidget(self.types)
        upper.addWidget(self.confusion)
        layout = QVBoxLayout(self)
        layout.addWidget(header("A dev file tagged by the Tag page's model: entity F1 per type (seqeval strict IOB2), "
                                "which types are confused, missed or spurious, and the most confident mistakes."))
        layout.addLayout(top)
        layout.addWidget(self.status)
        layout.addWidget(self.job_bar)
        layout.addWidget(self.source.label)
        layout.addWidget(upper, 1)
        layout.addWidget(self.mistakes, 1)

    def prefill_from_run(self, config: dict, dev_file=None) -> bool:
        """The dev file and Dev cap of the run whose checkpoint the Tag page opened (its config.json ``dev`` and
        ``dev_cap``), so the score is on the rows the run's curves were (as Classify: dev set is filled in from a
        classifier's run). ``dev_file``: the checkpoint's core.models.checkpoint_windows.RunDevFile (shown as the
        user gave it; the file read may be a remote run's copy on its host, named in the tooltip); without it the
        config's ``dev`` when it is a file here. A path the user typed stays; one the previous run put in is
        replaced. True when the run's dev file was put in."""
        from pathlib import Path

        from explorer.core.models.checkpoint_windows import RunDevFile

        dev = str((config or {}).get("dev") or "").strip()
        if dev_file is None and dev and Path(dev).expanduser().is_file():
            dev_file = RunDevFile(shown=dev, path=dev)
        typed = self.path.text().strip()
        if typed and typed != self._path_from_run:
            return False
        self._dev_file = dev_file
        if dev_file is None:   # no dev file here or on the host (none, a hub id, gone): nothing
            if typed:
                self.path.clear()
            self._path_from_run = ""
            self.path.setToolTip("")
            return False
        self.path.setText(dev_file.shown)
        self.path.setToolTip(dev_file.note)
        self._path_from_run = dev_file.shown
        self.cap.setValue(int((config or {}).get("dev_cap") or 0))
        return True

    def _path_to_read(self) -> str:
        """The dev path a request carries: the run's file as the inspector reads it while the field names it."""
        dev = self._dev_file
        return dev.to_read(self.path.text()) if dev is not None else self.path.text().strip()

    def run(self) -> None:
        if self.tag_view.loaded is None:
            self._status("no model loaded: load one on the Tag page first")
            return
        self.clear_results()   # the previous report never stays beside a new request
        self._status(f"tagging {self.path.text()} ...")
        self.source.ask(self.tag_view.loaded)
        self._data_of = self.path.text().strip()
        self.job_bar.start()
        self._job.start("tag_dev", {"slot": self.tag_view.slot, "path": self._path_to_read(),
                                    "cap": self.cap.value(), "max_seq_length": self.tag_view.max_seq_length})

    def _status(self, text: str) -> None:
        self.status.setText(text)
        self.message.emit(text)

    def _ended(self, message: str) -> None:
        """The job failed or was cancelled: the bar goes, the status says why."""
        self.job_bar.finish()
        self._status(message)

    def _arrived(self, rep) -> None:
        self.job_bar.finish()
        name = self.source.take()
        if name is not None:   # (None: tagged by the model before the one loaded now)
            self.show_report(rep, model=name, data=self._data_of)

    def clear_results(self) -> None:
        """Empty the tables (the report was of another model)."""
        self.report = None
        for table in (self.types, self.confusion, self.mistakes):
            table.setRowCount(0)
        self.confusion.setColumnCount(0)
        self.status.setText("")

    def show_report(self, rep, *, model: str | None = None, data: str = "") -> None:
        """Render a TagDevReport; ``model`` and ``data`` name the model and dev file it is of."""
        from PySide6.QtWidgets import QTableWidgetItem

        self.report = rep
        self.source.show(model, data)
        self.types.setRowCount(len(rep.per_type))
        for r, (t, v) in enumerate(rep.per_type.items()):
            cells = (t, f"{100 * v['precision']:.2f}", f"{100 * v['recall']:.2f}", f"{100 * v['f1']:.2f}",
                     str(v["support"]))
            for c, text in enumerate(cells):
                self.types.setItem(r, c, QTableWidgetItem(text))
        self.confusion.setRowCount(len(rep.confusion_rows))
        self.confusion.setColumnCount(len(rep.confusion_cols))
        set_header_names(self.confusion, Qt.Orientation.Horizontal, list(rep.confusion_cols))
        set_header_names(self.confusion, Qt.Orientation.Vertical, list(rep.confusion_rows))
        for r in range(len(rep.confusion_rows)):
            for c in range(len(rep.confusion_cols)):
                self.confusion.setItem(r, c, QTableWidgetItem(str(int(rep.confusion[r, c]))))
        self.mistakes.setRowCount(len(rep.mistakes))
        for r, m in enumerate(rep.mistakes):
            for c, text in enumerate((m.token, m.gold, m.predicted, f"{m.confidence:.3f}", m.text)):
                self.mistakes.setItem(r, c, QTableWidgetItem(text))
        for table in (self.types, self.confusion, self.mistakes):   # headers and numbers whole, not clipped
            table.resizeColumnsToContents()
        self._status(f"{rep.n_sentences} sentences: entity F1 {100 * rep.f1:.2f} (precision {100 * rep.precision:.2f}, "
                     f"recall {100 * rep.recall:.2f}), token accuracy {100 * rep.token_accuracy:.2f}")

    def masking_dev_set(self) -> dict | None:
        """This page's dev file and first-N as the fields of the Tag page's "Heads off ... and on the dev set"."""
        from .components.head_masking import dev_fields

        return dev_fields(self._path_to_read(), self.cap.value())

    def _open_row(self, row: int, _col: int) -> None:
        if self.report is not None and self.source.is_for(self.tag_view.loaded) and 0 <= row < len(self.report.mistakes):
            self.open_requested.emit(self.report.mistakes[row].text)


def tag_tabs(parent=None) -> list[tuple[str, QWidget]]:
    """The Tag page and its dev view, wired (a double-clicked mistake opens its sentence on the Tag page)."""
    view = TagView(parent)
    dev = TagDevView(view, parent)

    def open_sentence(text: str) -> None:
        view.tag(text)
        bring_to_front(view)

    dev.open_requested.connect(open_sentence)
    view.head_mask.attach_dev(dev.masking_dev_set, "the Tag: dev set page")   # heads off on its dev file too
    return [("Tag", view), ("Tag: dev set", dev)]


class TagPages:
    """The registry's page set of Tag and Tag: dev set (registry.TAG): a token-classification checkpoint
    opens on the Tag page."""

    def __init__(self, pages: list[tuple[str, QWidget]]):
        self.pages = dict(pages)

    def open_checkpoint(self, title: str, path: str, _task: str | None, run_config: dict) -> None:
        """Open ``path`` in page ``title``; the run's first dev sentence (read on a worker thread) replaces the
        sentence shown, and is tagged once the model is in."""
        from explorer.core.models.checkpoint_windows import run_dev_file
        from explorer.ui.runs.examples import first_tagging_sentence
        from explorer.ui.shell.tasks import run_in_thread

        view = self.pages[title]
        view.open_checkpoint(path)
        if isinstance(view, TagView):
            run_in_thread(first_tagging_sentence, dict(run_config or {}), owner=view, on_done=view.fill_sentence)
        for page in self.pages.values():   # Tag: dev set gets the run's dev file and cap
            if isinstance(page, TagDevView):
                page.prefill_from_run(dict(run_config or {}), run_dev_file(path))


def page_set(window) -> TagPages:
    """The registry's provider of the Tag pages (kept as ``window.tag_pages``; ``window.tag_page`` is Tag)."""
    window.tag_pages = tag_tabs(window)
    window.tag_page = window.tag_pages[0][1]
    return TagPages(window.tag_pages)

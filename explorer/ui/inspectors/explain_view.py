"""The Explain page: which tokens push a model's output up or down, for any checkpoint head.

Renders explorer.core.attribution.Attribution (computed in the inspector child by the ``explain`` op, with
progress and cancel): the text (both texts of a pair, each SWAG ending) coloured by attribution on a
diverging scale (red raises the target, blue lowers it, the largest |attribution| full colour), a bar list
sorted by |attribution|, and the completeness line (sum of attributions against f(input) - f(baseline), with
the warning when integrated gradients miss it by more than 5 %). The view exports to PNG and SVG at the size
shown. Model loads and runs happen in the inspector child (slot "explain"), never in the GUI process.
"""

from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPoint, QSize, Qt, Signal
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import (QCheckBox, QComboBox, QFileDialog, QFormLayout, QHBoxLayout, QLabel, QLineEdit,
                               QProgressBar, QPushButton, QSpinBox, QSplitter, QTextBrowser, QVBoxLayout, QWidget)

from explorer.core.task_facts import find_task_facts, get_task_facts, task_for_checkpoint, task_labels
from explorer.core.attribution import SCORE_HEAD

from .common import header
from .model_page import ModelPage
from .remote import CANCELLED_NOTE, RemoteJob
from .saliency_view import colour

EXPLAIN_PAGE = "Explain"
METHOD_LABELS = {"ig": "integrated gradients", "gxi": "gradient × input"}
BARS_SHOWN = 30       # the bar list's rows (largest |attribution| first)
NUM_ENDINGS = 4       # SWAG's endings (explorer.core.data.swag.NUM_CHOICES; not imported: it pulls datasets)
POSITIVE, NEGATIVE = "#d62728", "#1f77b4"


def head_of_task(task: str) -> str:
    """The attribution head (explorer.core.attribution.HEADS) of a task of explorer.core.task_facts."""
    facts = get_task_facts(task)
    if facts.is_qa:
        return "qa"
    if facts.is_regression:
        return SCORE_HEAD
    return facts.head


def segment_labels(task: str) -> tuple[str, str]:
    """What text A and text B are called for ``task``: ("Question", "Passage"), ("Context", "Ending"), ..."""
    facts = find_task_facts(task)
    if facts is None:
        return "Text A", "Text B"
    if facts.is_qa:
        return "Question", "Passage"
    if facts.is_multiple_choice:
        return "Context", "Ending"
    if facts.takes_pairs:
        return "Sentence A", "Sentence B"
    return "Text", "Text B"


def target_choices(task: str, names: list[str]) -> list[tuple[str, str]]:
    """(label shown, target value of explorer.core.attribution.resolve_target) for the target picker."""
    head = head_of_task(task)
    if head == SCORE_HEAD:
        return [("the score", "score")]
    if head == "qa":
        return [("span score (start + end logit)", "span"), ("start logit", "start"), ("end logit", "end")]
    what = {"multiple_choice": "ending", "token_classification": "tag"}.get(head, "class")
    rows = [(f"predicted {what}", ""), (f"margin: predicted {what} vs runner-up", "margin")]
    if head == "multiple_choice":
        names = [f"ending {k}" for k in range(NUM_ENDINGS)]
        rows += [(f"{n} against the others", str(k)) for k, n in enumerate(names)]
    else:
        rows += [(f"logit of {n}", str(k)) for k, n in enumerate(names)]
        rows += [(f"margin: {n} vs the best other", f"margin:{k}") for k, n in enumerate(names)]
    return rows


def _shown(token: str) -> tuple[str, str]:
    """(separator, text) of a token in running text: word pieces join their word."""
    return ("", token[2:]) if token.startswith("##") else (" ", token)


def explain_html(attr, task: str) -> str:
    """The input's texts with each token (or word) coloured by its attribution; special tokens listed apart.

    One paragraph per text (pairs: A and B; QA: question and passage; SWAG: each ending's context and
    ending, the context once per ending since its attributions differ)."""
    a = np.asarray(attr.attributions, dtype=np.float64)
    scale = float(np.abs(a).max()) if len(a) else 0.0
    name_a, name_b = segment_labels(task)
    rows: dict[tuple[int, str], list[str]] = {}
    specials = []
    for i, (tok, seg, choice) in enumerate(zip(attr.tokens, attr.segments, attr.choices)):
        if seg == "special":
            specials.append(f"{html.escape(tok)}{'' if max(attr.choices) == 0 else f' ({choice})'} {a[i]:+.3f}")
            continue
        sep, text = _shown(tok) if not attr.merged else (" ", tok)
        rows.setdefault((choice, seg), []).append(
            f'{sep}<span title="{html.escape(tok)}: {a[i]:+.4f}" style="{colour(a[i], scale)}">{html.escape(text)}</span>')
    parts = []
    multi = max(attr.choices, default=0) > 0
    for (choice, seg), spans in rows.items():
        label = name_a if seg == "a" else name_b
        if multi:
            label = f"{label} (ending {choice})" if seg == "a" else f"{label} {choice}"
        parts.append(f"<p><b>{html.escape(label)}:</b>{''.join(spans)}</p>")
    if specials and all(a[i] == 0 for i, seg in enumerate(attr.segments) if seg == "special"):
        specials = ["0 (the baseline keeps them)"]
    special = f"<p style='color:#555'>special tokens ([CLS], [SEP]): {', '.join(specials)}</p>" if specials else ""
    return (f"<p><b>{html.escape(attr.target.description)}</b> = {attr.target_value:+.5g} "
            f"({METHOD_LABELS.get(attr.method, attr.method)}"
            f"{f', {attr.steps} steps' if attr.method == 'ig' else ''})</p>" + "".join(parts) + special +
            "<p style='color:#666; font-size:small'>red raises the target, blue lowers it; the strongest token is "
            "full colour; hover a token for its number.</p>")


def bar_rows(attr, task: str = "", n: int = BARS_SHOWN) -> list[tuple[str, float]]:
    """(label, attribution) of the n largest |attribution|, largest first. With two texts the label says which
    one the token is in ("born (B)"; QA: Q / P; SWAG: "ctx 2" / "end 2", the input row), so that equal tokens of
    two texts stay apart."""
    facts = find_task_facts(task)
    two = len(set(attr.segments) - {"special"}) > 1
    short = {"a": "A", "b": "B"}
    if facts is not None and facts.is_qa:
        short = {"a": "Q", "b": "P"}
    elif facts is not None and facts.is_multiple_choice:
        short = {"a": "ctx ", "b": "end "}
    multi = max(attr.choices, default=0) > 0
    out = []
    for i, tok, value in attr.ranked(n):
        seg = attr.segments[i]
        where = "" if seg == "special" or not two else f" ({short[seg]}{attr.choices[i] if multi else ''})"
        out.append((f"{tok}{where}", value))
    return out


class BarList(pg.PlotWidget):
    """Horizontal bars of the largest |attribution|, largest at the top, labelled by token."""

    def __init__(self, parent=None):
        super().__init__(parent, background="w")
        self.setLabel("bottom", "attribution (target units)")
        self.getAxis("bottom").enableAutoSIPrefix(False)   # "(x0.001)" under small numbers reads as a unit
        self.getPlotItem().showGrid(x=True, alpha=0.2)
        self.setMouseEnabled(x=False, y=False)
        self.getPlotItem().setMenuEnabled(False)
        self.rows: list[tuple[str, float]] = []

    def set_rows(self, rows: list[tuple[str, float]]) -> None:
        self.rows = list(rows)
        plot = self.getPlotItem()
        plot.clear()
        if not rows:
            return
        ys = np.arange(len(rows))[::-1].astype(float)
        values = np.array([v for _, v in rows])
        brushes = [pg.mkBrush(POSITIVE if v >= 0 else NEGATIVE) for v in values]
        plot.addItem(pg.BarGraphItem(x0=np.minimum(values, 0), width=np.abs(values), y=ys, height=0.7,
                                     brushes=brushes, pens=[pg.mkPen(None)] * len(rows)))
        plot.getAxis("left").setTicks([[(y, label) for y, (label, _) in zip(ys, rows)]])
        plot.addItem(pg.InfiniteLine(0, angle=90, pen=pg.mkPen("#888")))
        lim = float(np.abs(values).max()) or 1.0
        plot.setXRange(-lim * 1.05 if values.min() < 0 else 0, lim * 1.05 if values.max() > 0 else 0, padding=0.02)
        plot.setYRange(-0.6, len(rows) - 0.4, padding=0)


class ExplainView(ModelPage):
    """The Explain page. ``explain()`` sends the typed input to the child; ``show_result(Attribution)`` renders.

    Signals: message(str), a status line; model_changed(object), a model (ModelInfo) is in use now;
    computed(object), an Attribution was shown."""

    computed = Signal(object)

    def __init__(self, parent=None, *, client=None, slot: str = "explain"):
        super().__init__(parent, client=client, slot=slot,
                         intro="Load a fine-tuned checkpoint, type a text, press Explain.")
        self.job = RemoteJob(self.client, self)
        self.job.finished.connect(self.show_result)
        self.job.failed.connect(lambda msg, _tb: self._done(msg))
        self.job.cancelled.connect(lambda: self._done(CANCELLED_NOTE))
        self.job.progress.connect(self._progress)
        self._build()
        self._task_changed()

    # -- building --------------------------------------------------------------------------------------------
    def _build(self) -> None:
        self.task = QComboBox()
        self._tasks = {label: name for name, label in task_labels().items()}
        self.task.addItems(list(self._tasks))
        self.task.currentTextChanged.connect(lambda _t: self._task_changed())
        self.source.setPlaceholderText("a fine-tuned checkpoint folder (runs/<id>/checkpoints/best) or a hub id")
        top = self.model_row(QLabel("Task"), self.task, stretch_source=True)

        form = QFormLayout()
        self.text_a, self.text_b = QLineEdit(), QLineEdit()
        self.label_a, self.label_b = QLabel("Text"), QLabel("Text B")
        form.addRow(self.label_a, self.text_a)
        form.addRow(self.label_b, self.text_b)
        self.endings = [QLineEdit() for _ in range(NUM_ENDINGS)]
        self.ending_row = QWidget()
        ends = QHBoxLayout(self.ending_row)
        ends.setContentsMargins(0, 0, 0, 0)
        for k, e in enumerate(self.endings):
            e.setPlaceholderText(f"ending {k}")
            ends.addWidget(e)
        self.ending_label = QLabel("Endings")
        form.addRow(self.ending_label, self.ending_row)

        self.target = QComboBox()
        self.target.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.target.setMinimumContentsLength(30)
        self.token = QSpinBox(minimum=-1, maximum=4095, value=1)
        self.token.setToolTip("token tagging: the token position (0 is [CLS]); QA: the start token (best: the "
                              "highest start logit)")
        self.end = QSpinBox(minimum=-1, maximum=4095, value=-1, specialValueText="best")
        self.end.setToolTip("QA: the end token (best: the highest end logit from the start on)")
        self.token_label, self.end_label = QLabel("token"), QLabel("end")
        self.method = QComboBox()
        for key, label in METHOD_LABELS.items():
            self.method.addItem(label, key)
        self.steps = QSpinBox(minimum=1, maximum=2000, value=50)
        self.steps.setToolTip("integration points of integrated gradients (more: a smaller completeness gap)")
        self.method.currentIndexChanged.connect(lambda _i: self.steps.setEnabled(self.method.currentData() == "ig"))
        self.merge = QCheckBox("merge word pieces")
        self.run_button = QPushButton("Explain")
        self.run_button.clicked.connect(self.explain)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.job.cancel)
        target_row, method_row = QHBoxLayout(), QHBoxLayout()
        for w in (self.target, self.token_label, self.token, self.end_label, self.end):
            target_row.addWidget(w)
        target_row.addStretch(1)
        for w in (self.method, QLabel("steps"), self.steps, self.merge, self.run_button, self.cancel_button):
            method_row.addWidget(w)
        method_row.addStretch(1)
        form.addRow("Target", target_row)
        form.addRow("Method", method_row)

        self.progress = QProgressBar()
        self.progress.setMaximumHeight(14)
        self.progress.setTextVisible(False)

        self.view = QWidget()      # what the exports save
        self.completeness = QLabel("")
        self.completeness.setWordWrap(True)
        self.completeness.setTextFormat(Qt.TextFormat.RichText)
        self.text = QTextBrowser()
        self.bars = BarList()
        split = QSplitter()
        split.addWidget(self.text)
        split.addWidget(self.bars)
        split.setSizes([640, 520])
        inner = QVBoxLayout(self.view)
        inner.setContentsMargins(0, 0, 0, 0)
        inner.addWidget(self.completeness)
        inner.addWidget(split, 1)
        png, svg = QPushButton("Export PNG…"), QPushButton("Export SVG…")
        png.clicked.connect(lambda: self._export("PNG image (*.png)", ".png", self.export_png))
        svg.clicked.connect(lambda: self._export("SVG drawing (*.svg)", ".svg", self.export_svg))
        exports = QHBoxLayout()
        exports.addWidget(self.status, 1)
        exports.addWidget(png)
        exports.addWidget(svg)

        layout = QVBoxLayout(self)
        layout.addWidget(header("Which tokens raise or lower the chosen output: gradient × input, or integrated "
                                "gradients with the completeness check.", EXPLAIN_PAGE))
        layout.addLayout(top)
        layout.addLayout(form)
        layout.addWidget(self.progress)
        layout.addLayout(exports)
        layout.addWidget(self.view, 1)

    # -- task and model --------------------------------------------------------------------------------------
    def current_task(self) -> str:
        return self._tasks[self.task.currentText()]

    def set_task(self, task: str) -> None:
        self.task.setCurrentText(get_task_facts(task).label)

    def _task_changed(self) -> None:
        task = self.current_task()
        facts = get_task_facts(task)
        head = head_of_task(task)
        name_a, name_b = segment_labels(task)
        self.label_a.setText(name_a)
        self.label_b.setText("Start of the endings" if facts.is_multiple_choice else name_b)
        pair = facts.takes_pairs or facts.is_qa or facts.is_multiple_choice
        self.text_b.setVisible(pair)
        self.label_b.setVisible(pair)
        self.text_b.setPlaceholderText("optional (SWAG's sent2)" if facts.is_multiple_choice else
                                       ("optional: a second text" if not facts.is_qa else ""))
        for w in (self.ending_row, self.ending_label):
            w.setVisible(facts.is_multiple_choice)
        tagging, qa = head == "token_classification", head == "qa"
        self.token.setVisible(tagging or qa)
        self.token_label.setVisible(tagging or qa)
        self.token_label.setText("start" if qa else "token")
        self.token.setSpecialValueText("best" if qa else "")
        self.token.setMinimum(-1 if qa else 0)
        if qa:
            self.token.setValue(-1)
        self.end.setVisible(qa)
        self.end_label.setVisible(qa)
        self._fill_targets()

    def _fill_targets(self) -> None:
        names = list(getattr(self.loaded, "label_names", None) or [])
        current = self.target.currentData()
        self.target.clear()
        for label, value in target_choices(self.current_task(), names):
            self.target.addItem(label, value)
        index = self.target.findData(current)
        self.target.setCurrentIndex(max(index, 0))

    def load_task(self) -> str:
        return get_task_facts(self.current_task()).head

    def load_model(self) -> None:
        if not self.source.text().strip():
            self._status("type a checkpoint folder or hub id first")
            return
        super().load_model()

    def open_checkpoint(self, path: str, task: str | None) -> None:
        """Load a checkpoint folder as task ``task`` (explorer.core.task_facts), or the one shown."""
        if task:
            self.set_task(task)
        self.source.setText(path)
        self.load_model()

    def adopt_model(self, loaded) -> None:
        """The model's task (its head decides) and its targets (its class names)."""
        task = task_for_checkpoint(getattr(loaded, "task", ""), self.current_task(),
                                   getattr(loaded, "head_problem", "") or None)
        if task and task != self.current_task():
            self.set_task(task)
        self._fill_targets()

    def describe_model(self, loaded) -> str:
        note = " (its head is untrained: the attributions explain random outputs)" if loaded.head_initialised else ""
        return loaded.describe() + note

    # -- running ---------------------------------------------------------------------------------------------
    def request(self) -> dict:
        """The ``explain`` op's arguments for what the page shows."""
        task = self.current_task()
        facts = get_task_facts(task)
        head = head_of_task(task)
        data = {"slot": self.slot, "text": self.text_a.text(), "text_pair": "", "target": self.target.currentData(),
                "method": self.method.currentData(), "steps": int(self.steps.value()),
                "merge_words": self.merge.isChecked(), "max_seq_length": facts.default_max_seq_length}
        if facts.takes_pairs or facts.is_qa or facts.is_multiple_choice:
            data["text_pair"] = self.text_b.text()
        if facts.is_multiple_choice:
            data["endings"] = [e.text() for e in self.endings]
        if head == "token_classification":
            data["token"] = int(self.token.value())
        if head == "qa":
            data["token"], data["end"] = int(self.token.value()), int(self.end.value())
        return data

    def explain(self) -> None:
        if not self.has_model():
            return
        data = self.request()
        self.progress.setRange(0, 0)
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self._status(f"explaining with {METHOD_LABELS[data['method']]} ...")
        self.job.start("explain", data)

    def _progress(self, done: int, total: int) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)

    def _done(self, message: str) -> None:
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self._status(message)

    def show_result(self, attr) -> None:
        """Render an Attribution: coloured text, sorted bars, the completeness line."""
        self.result = attr
        self._done(f"{len(attr.tokens)} {'words' if attr.merged else 'tokens'}; {attr.target.description}")
        self.progress.setRange(0, 1)
        self.progress.setValue(1)
        self.text.setHtml(explain_html(attr, self.current_task()))
        self.bars.set_rows(bar_rows(attr, self.current_task()))
        line = html.escape(attr.completeness_line().removesuffix(f". {attr.warning}") if attr.warning
                           else attr.completeness_line())
        if attr.method == "gxi":
            line += " <span style='color:#555'>(gradient × input has no completeness property)</span>"
        if attr.warning:
            line += f"<br><span style='color:#b45f06'><b>warning:</b> {html.escape(attr.warning)}</span>"
        self.completeness.setText(line)
        self.computed.emit(attr)

    # -- export ----------------------------------------------------------------------------------------------
    def _export(self, kind: str, suffix: str, write) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export the explanation", f"explanation{suffix}", kind)
        if path:
            write(path if path.endswith(suffix) else path + suffix)

    def export_png(self, path: str) -> str:
        """Save the explanation (completeness line, text and bars) as shown, as a PNG; returns the path."""
        if not self.view.grab().save(path, "PNG"):
            self._status(f"could not write {path}")
        else:
            self._status(f"saved {path}")
        return path

    def export_svg(self, path: str) -> str:
        """Save the explanation as shown as an SVG drawing (the widgets painted as vectors); returns the path."""
        from PySide6.QtSvg import QSvgGenerator

        gen = QSvgGenerator()
        gen.setFileName(path)
        size = self.view.size()
        gen.setSize(QSize(size.width(), size.height()))
        gen.setViewBox(self.view.rect())
        gen.setTitle("BERT Explorer explanation")
        painter = QPainter(gen)
        try:
            self.view.render(painter, QPoint())
        finally:
            painter.end()
        self._status(f"saved {path}")
        return path


class ExplainPages:
    """The registry's page set of Explain (registry.EXPLAIN): any fine-tuned checkpoint opens there as its task."""

    def __init__(self, view: ExplainView):
        self.pages = {EXPLAIN_PAGE: view}

    def open_checkpoint(self, title: str, path: str, task: str | None, _run_config: dict) -> None:
        self.pages[title].open_checkpoint(path, task)


def page_set(window) -> ExplainPages:
    """The registry's provider of the Explain page (kept as ``window.explain_page``)."""
    window.explain_page = ExplainView(window)
    return ExplainPages(window.explain_page)

"""The Explain page: which tokens push a model's output up or down, for any checkpoint head.

Renders explorer.core.explain.attribution.Attribution (computed in the inspector child by the ``explain`` op, with
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
from PySide6.QtWidgets import (QCheckBox, QComboBox, QFormLayout, QHBoxLayout, QLabel, QLineEdit,
                               QPushButton, QSpinBox, QSplitter, QTextBrowser, QVBoxLayout, QWidget)

from explorer.core.specs.tasks import get_task_facts, task_for_model, task_labels
from explorer.ui.shell.file_dialogs import EXPORT_KIND, save_file

from .common import header
from .components.explain import (METHOD_LABELS, NUM_ENDINGS, bar_rows, explain_fields, explain_html,
                                 explain_request, target_choices)
from .job_bar import JobBar, veil
from .model_page import ModelPage
from .remote import CANCELLED_NOTE, RemoteJob

EXPLAIN_PAGE = "Explain"
POSITIVE, NEGATIVE = "#d62728", "#1f77b4"


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
        self._build()
        self.job.progress.connect(self.job_bar.set_progress)
        self.job_bar.cancel_requested.connect(self.job.cancel)
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
        target_row, method_row = QHBoxLayout(), QHBoxLayout()
        for w in (self.target, self.token_label, self.token, self.end_label, self.end):
            target_row.addWidget(w)
        target_row.addStretch(1)
        for w in (self.method, QLabel("steps"), self.steps, self.merge, self.run_button):
            method_row.addWidget(w)
        method_row.addStretch(1)
        form.addRow("Target", target_row)
        form.addRow("Method", method_row)

        self.job_bar = JobBar("batches", cancel_tip="Stop after the current batch; the explanation shown before "
                                                    "stays faint (it is of the previous inputs)")

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
        layout.addWidget(self.job_bar)
        layout.addLayout(exports)
        layout.addWidget(self.view, 1)

    # -- task and model --------------------------------------------------------------------------------------
    def current_task(self) -> str:
        return self._tasks[self.task.currentText()]

    def set_task(self, task: str) -> None:
        self.task.setCurrentText(get_task_facts(task).label)

    def take_task(self, task: str) -> None:
        """An offered checkpoint's task, when this page lists it."""
        if task in self._tasks.values():
            self.set_task(task)

    def _task_changed(self) -> None:
        """The fields the task takes (components.explain.explain_fields), and its targets."""
        f = explain_fields(self.current_task())
        self.label_a.setText(f.name_a)
        self.label_b.setText(f.name_b)
        self.text_b.setVisible(f.pair)
        self.label_b.setVisible(f.pair)
        self.text_b.setPlaceholderText(f.placeholder_b)
        for w in (self.ending_row, self.ending_label):
            w.setVisible(f.endings)
        self.token.setVisible(f.token)
        self.token_label.setVisible(f.token)
        self.token_label.setText(f.token_name)
        self.token.setSpecialValueText("best" if f.end else "")   # QA: the start token's "best"
        self.token.setMinimum(-1 if f.end else 0)
        if f.end:
            self.token.setValue(-1)
        self.end.setVisible(f.end)
        self.end_label.setVisible(f.end)
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
        return get_task_facts(self.current_task()).head.model_head

    def load_model(self) -> None:
        if not self.source.text().strip():
            self._status("type a checkpoint folder or hub id first")
            return
        super().load_model()

    def open_checkpoint(self, path: str, task: str | None) -> None:
        """Load a checkpoint folder as task ``task`` (explorer.core.specs.tasks), or the one shown."""
        if task:
            self.set_task(task)
        self.source.setText(path)
        self.load_model()

    def adopt_model(self, loaded) -> None:
        """The model's task (its head decides) and its targets (its class names)."""
        task = task_for_model(getattr(loaded, "task", ""), getattr(loaded, "head_problem", "") or "",
                              self.current_task())
        if task and task != self.current_task():
            self.set_task(task)
        self._fill_targets()

    def describe_model(self, loaded) -> str:
        note = " (its head is untrained: the attributions explain random outputs)" if loaded.head_initialised else ""
        return loaded.describe() + note

    # -- running ---------------------------------------------------------------------------------------------
    def request(self) -> dict:
        """The ``explain`` op's arguments for what the page shows."""
        return {"slot": self.slot, **explain_request(
            self.current_task(), text=self.text_a.text(), text_pair=self.text_b.text(),
            endings=[e.text() for e in self.endings], target=self.target.currentData(),
            method=self.method.currentData(), steps=self.steps.value(), merge_words=self.merge.isChecked(),
            token=self.token.value(), end=self.end.value())}

    def explain(self) -> None:
        if not self.has_model():
            return
        data = self.request()
        self.run_button.setEnabled(False)
        self.job_bar.start()
        self._veil(True)   # the explanation shown is of the previous request until the new one replaces it
        self._status(f"explaining with {METHOD_LABELS[data['method']]} ...")
        self.job.start("explain", data)

    def _veil(self, on: bool) -> None:
        for part in (self.completeness, self.text, self.bars):
            veil(part, on)

    def _done(self, message: str) -> None:
        """The job ended; a cancelled or failed one leaves the previous explanation faint (it is of other inputs)."""
        self.job_bar.finish()
        self.run_button.setEnabled(True)
        self._status(message)

    def show_result(self, attr) -> None:
        """Render an Attribution: coloured text, sorted bars, the completeness line."""
        self.result = attr
        self._done(f"{len(attr.tokens)} {'words' if attr.merged else 'tokens'}; {attr.target.description}")
        self._veil(False)
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
        path = save_file(self, "Export the explanation", EXPORT_KIND, f"explanation{suffix}", kind)
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
    """The registry's page set of Explain (registry.EXPLAIN): any fine-tuned checkpoint opens there as its task; the
    checkpoint opened last in another page is filled in while the page has no model of its own, and loaded when
    the page is first shown (components.offered_checkpoint)."""

    def __init__(self, view: ExplainView):
        self.pages = {EXPLAIN_PAGE: view}

    def open_checkpoint(self, title: str, path: str, task: str | None, _run_config: dict) -> None:
        self.pages[title].open_checkpoint(path, task)

    def offer_checkpoint(self, title: str, offered) -> bool:
        return self.pages[title].offer_checkpoint(offered)

    def first_visit(self, title: str) -> None:
        self.pages[title].load_offered()


def page_set(window) -> ExplainPages:
    """The registry's provider of the Explain page (kept as ``window.explain_page``)."""
    window.explain_page = ExplainView(window)
    return ExplainPages(window.explain_page)

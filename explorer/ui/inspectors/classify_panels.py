"""The Classify page's widgets, each showing what it is given (explorer.ui.inspectors.classify_view decides what):
the inputs (sentences or a context with endings), the gold class box, the strip of C, the logit table, and the
Arithmetic / flow tabs.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (QComboBox, QFormLayout, QLineEdit, QPlainTextEdit, QStackedWidget, QStyle,
                               QTableWidget, QTableWidgetItem, QTabWidget, QWidget)

from explorer.core.attention.head_labels import head_axis_labels, layer_axis_labels
from explorer.ui.curves.legend import legend_below
from explorer.ui.shell.columns import fit_columns

from .components.classify import FLOW_CELLS, FLOW_CURVES
from .heatmap import TokenHeatmap


NO_NAMES_CHOICES = 4   # ids offered before a head's class names are known: a SWAG head's four endings


class ClassChoice(QComboBox):
    """The gold class: a drop-down of "none" and the head's classes ("1 (FAVOR)"), or of ids 0..3 while the head
    has no names (SWAG: the right ending). A drop-down rather than a spin box: the Down key on a spin box at
    "none" did nothing visible, and an id says nothing without its name. ``value()`` is the class id, -1 for none;
    ``setValue(id)``; ``set_names(names)`` keeps the chosen id when it is still one of the classes."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.names: list[str] = []
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.set_names([])

    def set_names(self, names: list[str]) -> None:
        keep = self.value() if self.count() else -1
        self.names = list(names)
        self.blockSignals(True)
        self.clear()
        self.addItem("none", -1)
        for k in range(len(self.names) or NO_NAMES_CHOICES):
            self.addItem(f"{k} ({self.names[k]})" if self.names else str(k), k)
        self.blockSignals(False)
        self.setValue(keep)

    def value(self) -> int:
        data = self.currentData()
        return -1 if data is None else int(data)

    def setValue(self, value: int) -> None:  # noqa: N802 - as a spin box's
        index = self.findData(int(value))
        self.setCurrentIndex(index if index >= 0 else 0)


class SelectOnFirstClick(QObject):
    """Selects the whole text of a line edit filled by the program (an example) on its first click or focus, so what
    the user types replaces the example instead of being appended to it; ``arm(edit)`` after each fill. Typing,
    or a click after the first one, places the cursor as usual."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._armed: set[int] = set()

    def watch(self, edit: QLineEdit) -> None:
        edit.installEventFilter(self)
        edit.textEdited.connect(lambda _t, e=edit: self._armed.discard(id(e)))

    def arm(self, edit: QLineEdit) -> None:
        if edit.text():
            self._armed.add(id(edit))

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt's name
        if id(watched) in self._armed:
            kind = event.type()
            if kind == QEvent.Type.MouseButtonRelease or (
                    kind == QEvent.Type.FocusIn and event.reason() != Qt.FocusReason.MouseFocusReason):
                self._armed.discard(id(watched))
                QTimer.singleShot(0, watched.selectAll)   # after the click has placed the cursor
        return False


class ClassifyInputs(QStackedWidget):
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

    def show_sentence_b(self, shown: bool) -> None:
        """Sentence B open for typing, or emptied and greyed (a single-sentence model never reads it: a pair model's
        sentence B left there looked like part of the input). Its row keeps its place, so nothing below it moves."""
        self.text_b.setEnabled(shown)
        if not shown and self.text_b.text():
            self.text_b.clear()

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


def mono() -> QFont:
    """The fixed-width font of the arithmetic text."""
    font = QFont("monospace")
    font.setStyleHint(QFont.StyleHint.TypeWriter)
    return font


class VectorStrip(pg.PlotWidget):
    """C, the pooled [CLS] vector fed to the classifier, as a colour strip (one row per ending for SWAG)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setFixedHeight(120)
        self.getPlotItem().hideAxis("left")
        self.image = pg.ImageItem()
        self.addItem(self.image)
        self.setLabel("bottom", "dimension of C (hidden size)")

    def show_inputs(self, inputs) -> None:
        """The C of every input (ClassifyResult.inputs) on a diverging scale symmetric about zero."""
        C = np.stack([x.C for x in inputs])              # (inputs, H)
        lim = float(np.abs(C).max()) or 1.0
        self.image.setImage(C.T, levels=(-lim, lim))
        self.image.setColorMap(pg.colormap.get("CET-D1"))


class LogitTable(QTableWidget):
    """A row per class (or ending): its name, logit and probability; as wide as its columns."""

    def __init__(self, parent=None):
        super().__init__(0, 3, parent)
        self.setHorizontalHeaderLabels(["class / ending", "logit = C·W_k + b_k", "P = softmax"])

    def fill(self, headers: list[str], rows: list[tuple[str, str, str]]) -> None:
        """The titles and rows of components.classify.table_headers / table_rows."""
        self.setRowCount(len(rows))
        self.setHorizontalHeaderLabels(headers)
        for k, row in enumerate(rows):
            for col, value in enumerate(row):
                self.setItem(k, col, QTableWidgetItem(value))
        fit_columns(self)   # every title whole ("P = softmax" was cut in a stretched last section)
        self.hold_columns()

    def hold_columns(self) -> None:
        """As wide as its columns: all of them in view, none scrolled out (not "lass / ending", the table scrolled
        sideways inside a 385 px pane at 1280x800); the Arithmetic tabs beside it give way."""
        bar = self.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent, None, self)
        need = (self.verticalHeader().sizeHint().width() + sum(self.columnWidth(c) for c in range(self.columnCount()))
                + 2 * self.frameWidth() + bar)
        self.setMinimumWidth(need)


class ArithmeticTabs(QTabWidget):
    """The arithmetic as text (``text``), and for pairs the per-layer attention flow between sentences A and B
    (``flow_plot`` with ``flow_curves``) and the A -> B flow of every layer x head (``flow_map``)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.text = QPlainTextEdit(readOnly=True)
        self.text.setFont(mono())
        self.flow_plot = pg.PlotWidget(background="w")
        self.flow_plot.setLabel("bottom", "layer")
        self.flow_plot.setLabel("left", "share of attention (mean over heads)")
        legend_below(self.flow_plot)   # under the axis: never over the curves (shares run up to 1.0)
        self.flow_curves = [self.flow_plot.plot([], [], pen=pg.mkPen(c, width=2), symbol="o", symbolSize=6,
                                                symbolBrush=c, name=n) for n, c in FLOW_CURVES]
        self.flow_map = TokenHeatmap(cmap="inferno", colorbar_label="A → B block flow")
        # short titles, the rest in their tooltips: the three tabs show whole beside the arithmetic at 1280x800
        # (longer ones put the last behind the tab bar's scroll arrows)
        self.addTab(self.text, "Arithmetic")
        self.addTab(self.flow_plot, "A ↔ B per layer")
        self.addTab(self.flow_map, "A → B, layer × head")
        self.setTabToolTip(1, "Sentence pairs: the share of attention between sentences A and B, per layer (mean "
                              "over heads)")
        self.setTabToolTip(2, "Sentence pairs: the A → B block flow of every layer × head")

    def show_flow(self, res) -> None:
        """Pairs: the per-layer flow curves and the A -> B layers x heads map; others: the curves cleared."""
        fm = res.flow_mean
        layers = np.arange(1, fm.shape[0] + 1) if fm is not None else []
        for curve, (a, b) in zip(self.flow_curves, FLOW_CELLS):
            curve.setData(layers, fm[:, a, b] if fm is not None else [])
        if res.flow is not None:
            grid = res.flow[:, :, 0, 1]
            self.flow_map.set_matrix(grid, layer_axis_labels(grid.shape[0], short=True),
                                     head_axis_labels(grid.shape[1]))

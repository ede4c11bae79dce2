"""The Classify page's widgets, each showing what it is given (explorer.ui.inspectors.classify_view decides what):
the inputs (sentences or a context with endings), the gold class box, the strip of C, the logit table, and the
Arithmetic / flow tabs.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (QFormLayout, QLineEdit, QPlainTextEdit, QSpinBox, QStackedWidget, QStyle,
                               QTableWidget, QTableWidgetItem, QTabWidget, QWidget)

from explorer.core.attention.head_labels import head_axis_labels, layer_axis_labels
from explorer.ui.curves.legend import legend_below
from explorer.ui.shell.columns import fit_columns

from .components.classify import FLOW_CELLS, FLOW_CURVES
from .heatmap import TokenHeatmap


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

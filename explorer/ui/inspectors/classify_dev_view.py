"""The classification dev-set tab: accuracy, F1, MCC, the confusion matrix, the examples nearest the
decision boundary and the most confident mistakes (explorer.core.classify_dev). Clicking an example opens
it in the Classify tab (signal ``open_requested``)."""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (QHBoxLayout, QLabel, QLineEdit, QPushButton, QSpinBox, QSplitter, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from explorer.core.task_facts import find_task_facts

from .client import shared_client
from .common import header
from .remote import RemoteLatest


def _dev_example(kind: str, row) -> dict:
    """The dict ClassifyView.open_example takes, from a DevRow."""
    facts = find_task_facts(kind)
    if facts is not None and facts.is_multiple_choice:
        endings = row.text_b.split(" | ")
        return {"kind": kind, "text_a": row.text_a, "endings": endings, "label": row.label}
    return {"kind": kind, "text_a": row.text_a, "text_b": row.text_b, "label": row.label}


class ClassifyDevView(QWidget):
    """Dev-set view. ``get_loaded()`` / ``get_kind()`` read the Classify tab's model and head kind."""

    open_requested = Signal(dict)

    def __init__(self, get_loaded: Callable, get_kind: Callable[[], str], parent=None, *, client=None):
        super().__init__(parent)
        self.get_loaded, self.get_kind = get_loaded, get_kind
        self.report, self._kind = None, "single"
        self._job = RemoteLatest(client or shared_client(), "classify.dev", self)   # runs in the inspector child
        self._job.finished.connect(lambda _id, rep: self.show_report(rep, self._kind))
        self._job.failed.connect(lambda _id, msg, _tb: self.status.setText(msg))
        self.path = QLineEdit()
        self.path.setPlaceholderText("dev file: GLUE .tsv/.csv/.jsonl, or a SWAG .csv")
        self.cap = QSpinBox(minimum=0, maximum=100000, value=200, specialValueText="all")
        run = QPushButton("Score dev set")
        run.clicked.connect(self.run)
        top = QHBoxLayout()
        for w in (QLabel("Dev data"), self.path, QLabel("first"), self.cap, run):
            top.addWidget(w)
        self.status = QLabel("Load a model in Classify, choose a dev file, press Score dev set.")
        self.metrics = QLabel("")
        self.confusion = QTableWidget(0, 0)
        self.boundary = self._list_table()
        self.mistakes = self._list_table()
        lists = QSplitter()
        for title, table in (("Nearest the decision boundary", self.boundary),
                             ("Most confident mistakes", self.mistakes)):
            box = QWidget()
            v = QVBoxLayout(box)
            v.addWidget(QLabel(title))
            v.addWidget(table)
            lists.addWidget(box)
        layout = QVBoxLayout(self)
        layout.addWidget(header("Dev-set accuracy, F1, MCC and confusion matrix; click an example to open it "
                                "in Classify."))
        layout.addLayout(top)
        layout.addWidget(self.status)
        layout.addWidget(self.metrics)
        layout.addWidget(self.confusion)
        layout.addWidget(lists, 1)

    def _list_table(self) -> QTableWidget:
        t = QTableWidget(0, 5)
        t.setHorizontalHeaderLabels(["#", "gold", "predicted", "P(predicted)", "text"])
        t.horizontalHeader().setStretchLastSection(True)
        t.cellClicked.connect(lambda r, _c, table=t: self._clicked(table, r))
        return t

    def run(self) -> None:
        loaded = self.get_loaded()
        if loaded is None:
            self.status.setText("no model: load one in the Classify tab first")
            return
        self._kind = self.get_kind()
        self.status.setText(f"scoring {self.path.text()} ...")
        self._job.submit("classify_dev", {"slot": loaded.slot, "kind": self._kind, "path": self.path.text().strip(),
                                          "cap": self.cap.value() or None})

    def show_report(self, rep, kind: str = "single") -> None:
        """Render a ClassificationDevReport."""
        self.report, self._kind = rep, kind
        self.status.setText(f"{rep.total} dev examples scored")
        self.metrics.setText(f"accuracy {rep.accuracy:.4f}   F1 {rep.f1:.4f}   MCC {rep.mcc:.4f}   "
                             f"({rep.total} examples)")
        k = rep.confusion.shape[0]
        self.confusion.setRowCount(k)
        self.confusion.setColumnCount(k)
        self.confusion.setHorizontalHeaderLabels([f"pred {n}" for n in rep.label_names])
        self.confusion.setVerticalHeaderLabels([f"gold {n}" for n in rep.label_names])
        for i in range(k):
            for j in range(k):
                self.confusion.setItem(i, j, QTableWidgetItem(str(int(rep.confusion[i, j]))))
        self.confusion.resizeColumnsToContents()
        self.confusion.setFixedHeight(40 + 30 * k)
        for table, rows in ((self.boundary, rep.boundary), (self.mistakes, rep.mistakes)):
            table.setRowCount(len(rows))
            for r, row in enumerate(rows):
                text = row.text_a + (f"  ||  {row.text_b}" if row.text_b else "")
                for c, value in enumerate((row.index + 1, row.label, row.prediction, f"{row.confidence:.3f}", text)):
                    table.setItem(r, c, QTableWidgetItem(str(value)))
            table.resizeColumnsToContents()

    def _clicked(self, table: QTableWidget, r: int) -> None:
        if self.report is None:
            return
        rows = self.report.boundary if table is self.boundary else self.report.mistakes
        if 0 <= r < len(rows):
            self.open_requested.emit(_dev_example(self._kind, rows[r]))

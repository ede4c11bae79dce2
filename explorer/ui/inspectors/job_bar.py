"""A long job's progress line: a bar, "1,240 of 2,478 rows · about 0:40 left" (components.rows_meter.RowsMeter)
and Cancel. Hidden until :meth:`JobBar.start`; the page that owns the job hides it when the job ends."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from .components.rows_meter import RowsMeter


class JobBar(QWidget):
    """Signals: cancel_requested(), the user pressed Cancel."""

    cancel_requested = Signal()

    def __init__(self, what: str = "rows", parent=None):
        super().__init__(parent)
        self.meter = RowsMeter(what)
        self.bar = QProgressBar()
        self.bar.setMaximumHeight(14)
        self.bar.setTextVisible(False)
        self.detail = QLabel("")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop after the current batch; nothing of this job is shown")
        self.cancel_button.clicked.connect(self.cancel_requested)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.bar, 1)
        row.addWidget(self.detail)
        row.addWidget(self.cancel_button)
        self.setVisible(False)

    def start(self) -> None:
        self.meter.start()
        self.bar.setRange(0, 0)   # busy until the first report says how many rows
        self.detail.setText(self.meter.text())
        self.cancel_button.setEnabled(True)
        self.setVisible(True)

    def set_progress(self, done: int, total: int) -> None:
        self.meter.update(done, total)
        self.bar.setRange(0, max(total, 1))
        self.bar.setValue(done)
        self.detail.setText(self.meter.text())

    def finish(self) -> None:
        self.setVisible(False)

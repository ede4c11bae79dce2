"""The Predictions page's Class shares dialog: draw a random review sample, then the share of each class, naive
and prediction-powered side by side, and the reviewed rows a target width needs (the rules:
explorer.ui.inspectors.components.shares.SharesModel)."""

from __future__ import annotations

from PySide6.QtWidgets import (QAbstractItemView, QDialog, QDoubleSpinBox, QHBoxLayout, QHeaderView, QLabel,
                               QPushButton, QSpinBox, QTableWidget, QTableWidgetItem, QVBoxLayout)

from explorer.ui.shell.screen_fit import keep_on_screen

from .components.shares import COLUMNS, SharesModel

TIPS = {
    "naive (predicted labels)": "The model's labels counted as if they were right, with the interval such a count "
                                "would have: biased by the model's errors",
    "reviewed rows alone": "The share among the reviewed rows of the random sample, ignoring the model",
    "prediction-powered": "Prediction-powered inference (Angelopoulos et al. 2023, PPI++): the model's labels of "
                          "every row corrected by its errors on the reviewed random sample; unbiased",
    "reviewed rows needed": "Reviewed rows in all for the target width (prediction-powered, λ = 1)",
}


class SharesDialog(QDialog):
    """Class shares of the page's file (``model``: a SharesModel); ``changed`` is called after a draw (the page
    refreshes its filter)."""

    def __init__(self, model: SharesModel, parent=None, *, changed=None):
        super().__init__(parent)
        keep_on_screen(self)   # shown or resized, its frame stays inside the screen
        self.setWindowTitle("Class shares")
        self.model, self.changed = model, changed
        self.size = QSpinBox()
        self.size.setRange(2, max(2, len(model.table)))
        self.size.setValue(min(300, len(model.table)) if not model.sample_size() else model.sample_size())
        self.size.setToolTip("How many rows to draw at random for review")
        self.seed = QSpinBox()
        self.seed.setRange(0, 2 ** 31 - 1)
        draw = QPushButton("Draw random sample")
        draw.setToolTip("Draw the rows to review uniformly at random (reviewing the least certain first does not "
                        "give a random sample); a new draw replaces the old one")
        draw.clicked.connect(self.draw)
        self.width = QDoubleSpinBox()
        self.width.setRange(0.1, 50.0)
        self.width.setValue(2.5)
        self.width.setSuffix(" points")
        self.width.setPrefix("± ")
        self.width.setToolTip("The target half-width of the 95% interval, in percentage points")
        self.width.valueChanged.connect(lambda _v: self.refresh())
        row = QHBoxLayout()
        for w in (QLabel("Sample rows"), self.size, QLabel("seed"), self.seed, draw, QLabel("Target width"),
                  self.width):
            row.addWidget(w)
        row.addStretch(1)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        for k, name in enumerate(COLUMNS):
            if name in TIPS:
                self.table.horizontalHeaderItem(k).setToolTip(TIPS[name])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.notes = QLabel("")
        self.notes.setWordWrap(True)
        lay = QVBoxLayout(self)
        lay.addLayout(row)
        lay.addWidget(self.status)
        lay.addWidget(self.table, 1)
        lay.addWidget(self.notes)
        self.resize(900, 320)
        self.refresh()

    def draw(self) -> None:
        """Draw the sample (saved in the review), then show the shares again."""
        message = self.model.draw(self.size.value(), self.seed.value())
        if self.changed is not None:
            self.changed()
        self.refresh()
        self.notes.setText(message)

    def refresh(self) -> None:
        """Compute and show the table for the current target width."""
        view = self.model.view(self.width.value())
        self.status.setText(view.status)
        self.table.setRowCount(len(view.rows))
        for r, cells in enumerate(view.rows):
            for c, text in enumerate(cells):
                self.table.setItem(r, c, QTableWidgetItem(text))
        self.notes.setText("\n".join(view.notes))

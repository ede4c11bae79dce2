"""Which dev rows the Classify: dev set page scores: the dev file, the first-N cap, the Text and Label column
pickers, "no header row" and "only the run's held-out dev rows", filled in from the run of Classify's model
(components.classify_dev.RunPrefill decides what a run fills in and what the user typed keeps). The page
(explorer.ui.inspectors.classify_dev_view) runs the job and shows the results; these fields say what it reads."""

from __future__ import annotations

from typing import Sequence

from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QLineEdit, QSpinBox, QVBoxLayout, QWidget

from .components.classify_dev import RunPrefill


class DevDataFields(QWidget):
    """The page's two input rows: "Dev data <file> first <N>" followed by ``buttons`` (the page's Score dev set and
    Calibration...), then "Text <columns> Label <column> [no header row] [only the run's held-out dev rows]".
    No margins of its own: the rows sit in the page's layout as if laid out there."""

    def __init__(self, buttons: Sequence[QWidget] = (), parent=None):
        super().__init__(parent)
        self.path = QLineEdit()
        self.path.setPlaceholderText("dev file: GLUE .tsv/.csv/.jsonl, or a SWAG .csv")
        self.path.textChanged.connect(lambda _text: self._path_tip())
        self.cap = QSpinBox(minimum=0, maximum=100000, value=200, specialValueText="all")
        # the column picker, pre-filled from the run's config.json when the model is a run checkpoint
        self.text_columns = self._picker("text column(s): the usual names", "The text column, or the two of a pair "
                                         "(comma-separated); a 1-based position for a file without a header.")
        self.label_column = self._picker("label column: the usual names", "The label column (name or position).")
        self.no_header = QCheckBox("no header row")
        self.only_split = QCheckBox("only the run's held-out dev rows")
        self.only_split.setToolTip("The run had no dev file: it held some training rows out as dev (dev_split.csv "
                                   "in the run folder). Score only those; unticked, every row of the file is "
                                   "scored, including the rows the model was trained on.")
        self.only_split.setVisible(False)
        self.prefill = RunPrefill()   # what the run of Classify's model fills in, and what the user typed
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        file_row = QHBoxLayout()
        for w in (QLabel("Dev data"), self.path, QLabel("first"), self.cap, *buttons):
            file_row.addWidget(w)
        columns_row = QHBoxLayout()
        for w in (QLabel("Text"), self.text_columns, QLabel("Label"), self.label_column, self.no_header,
                  self.only_split):
            columns_row.addWidget(w)
        columns_row.addStretch(1)
        layout.addLayout(file_row)
        layout.addLayout(columns_row)

    @staticmethod
    def _picker(placeholder: str, tip: str) -> QComboBox:
        """An editable column box that offers what the run named and keeps what the user types."""
        combo = QComboBox()
        combo.setEditable(True)
        combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        combo.setMinimumWidth(140)
        combo.lineEdit().setPlaceholderText(placeholder)
        combo.setToolTip(tip)
        # a column name longer than the box reads from its start ("is_there_an_emotion_direc…"), not its end: a
        # QLineEdit given a text scrolls to its end, and "brand_or_product" hid which column it was
        combo.lineEdit().textChanged.connect(lambda _text, combo=combo: show_start(combo))
        return combo

    def prefill_from_run(self, source: str) -> bool:
        """Fill the dev file, its cap and the column picker from the run's config.json when ``source`` is a run
        checkpoint (runs/<id>/checkpoints/best); fields the user typed are kept (components.classify_dev.RunPrefill
        decides). True when a run was found."""
        pickers = {"text": self.text_columns, "label": self.label_column}
        plan = self.prefill.plan(source, self.path.text(), {k: c.currentText() for k, c in pickers.items()})
        if plan.path is not None:
            self.path.setText(plan.path)
        self._path_tip()
        for key, value in plan.columns.items():
            combo = pickers[key]
            if value and combo.findText(value) < 0:
                combo.addItem(value)
            combo.setCurrentText(value)
            show_start(combo)   # (the same text set again moves the cursor to its end, with no textChanged)
        self.only_split.setVisible(plan.split)
        if not plan.found:
            return False
        self.no_header.setChecked(plan.no_header)
        self.only_split.setChecked(plan.split)
        if plan.cap is not None:
            self.cap.setValue(plan.cap)
        return True

    def prefill_for_model(self, source: str) -> None:
        """Fill the fields from the run of the model ``source`` (a path or hub name; "" for none) unless they were
        filled for it already: a model shown again keeps what the user changed since."""
        if source and source != self.prefill.prefilled_for:
            self.prefill_from_run(source)

    def _path_tip(self) -> None:
        """The file field's tooltip: the copy read when the field names a remote run's dev file as the user gave it."""
        self.path.setToolTip(self.prefill.path_note(self.path.text()))

    def path_to_read(self) -> str:
        """The dev path the request carries: the file field's text, or, while the field names the run's dev file,
        that file as the inspector reads it (a remote run's copy on its host)."""
        return self.prefill.path_to_read(self.path.text())

    def table_settings(self) -> dict:
        """The table settings sent with the request: the picker's columns, plus the run's encoding, id column,
        label names and the classes its F_avg averages (f1_classes); ``dev_split`` only while "only the run's
        held-out dev rows" is offered and ticked."""
        return self.prefill.table_settings(self.text_columns.currentText(), self.label_column.currentText(),
                                           self.no_header.isChecked(),
                                           self.only_split.isChecked() and self.only_split.isVisibleTo(self))


def show_start(combo: QComboBox) -> None:
    """Show an editable box's text from its start (a long name cut at its end), unless the user is typing in it."""
    edit = combo.lineEdit()
    if edit is not None and not edit.hasFocus():
        edit.setCursorPosition(0)

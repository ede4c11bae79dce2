"""The Predictions page's side pane (explorer.ui.inspectors.predictions_view decides what it shows): the current
row's label and reviewed box, its full text, the model's agreement with the gold and a person's labels with the
confusion matrix, and the annotators' agreement; and the splitter that holds the table and that pane.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QFrame, QHBoxLayout, QLabel,
                               QListWidget, QListWidgetItem, QScrollArea, QSplitter, QTableWidget, QTableWidgetItem,
                               QTextBrowser, QVBoxLayout, QWidget)

from explorer.core.predict.review import saved_name
from explorer.ui.shell.class_names import add_names, bound_box, set_header_names
from explorer.ui.shell.glyphs import undrawable, undrawable_note

from .components.predictions import AnnotatorRow, review_keys

SIDE_MIN_PX = 280    # the side pane (label, the row's text, metrics, annotators) never narrower beside the table


class ReviewSplit(QSplitter):
    """The table beside the side pane when the table's columns with a readable text column (``table_need()``,
    px) and SIDE_MIN_PX fit the width; else the side pane under the table, which then has the whole width (at
    1280x800 beside the Runs dock the text column was 115 px of a few words). :meth:`fit` sizes the panes once
    the page has its width (the user's drag is kept after that); a resize past the limit turns it again."""

    def __init__(self, table: QWidget, side: QWidget, table_need, parent=None):
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.table_need = table_need
        self.addWidget(table)
        # the side pane scrolls rather than squeeze the table: stacked at 1280x800 with a gold column's confusion
        # matrix and the annotator boxes, its own minimum height left the table two rows and the handle stuck
        area = QScrollArea()
        area.setWidget(side)
        area.setWidgetResizable(True)
        area.setFrameShape(QFrame.Shape.NoFrame)
        self.addWidget(area)
        self.setChildrenCollapsible(False)
        # the table first: its text, label and the model's numbers; the side pane repeats the row
        self.setStretchFactor(0, 2)
        self.setStretchFactor(1, 1)
        self.fitted = False

    def _wanted(self, width: int) -> Qt.Orientation:
        need = self.table_need()
        return (Qt.Orientation.Horizontal if need is None or width >= need + SIDE_MIN_PX + self.handleWidth()
                else Qt.Orientation.Vertical)

    def fit(self) -> None:
        """Side by side: the table as wide as it needs, at least two thirds, the side pane the rest (at least
        SIDE_MIN_PX); stacked: the table above, 3:2."""
        need = self.table_need()
        if need is None or self.width() <= 0:
            return
        self.setOrientation(self._wanted(self.width()))
        total = sum(self.sizes())
        if self.orientation() == Qt.Orientation.Vertical:
            self.setSizes([total * 3 // 5, total - total * 3 // 5])
        else:
            table = min(max(need, 2 * total // 3), total - SIDE_MIN_PX)
            self.setSizes([table, total - table])
        self.fitted = True

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        if self.fitted and self._wanted(event.size().width()) != self.orientation():
            super().resizeEvent(event)
            self.fit()
            return
        super().resizeEvent(event)


LABEL_TIP = "The label of this row"


class ReviewPane(QWidget):
    """Beside the table: ``label_box`` and ``reviewed_box`` (the current row's), ``text`` (the row in full),
    ``metrics`` and ``confusion`` (the model against the gold and a person's labels), ``annotator_list`` (the
    columns ticked as annotators), ``annotator_note`` and ``annotator_table`` (their agreement)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.label_box = QComboBox()
        bound_box(self.label_box)   # a long class name elides, never widens the window
        self.label_box.setPlaceholderText("none")   # a row the model could not read (labelable)
        self.label_box.setToolTip(LABEL_TIP)
        self.reviewed_box = QCheckBox("Reviewed (R)")
        self.text = QTextBrowser()
        self.metrics = QLabel("")
        self.metrics.setWordWrap(True)
        self.metrics.setTextFormat(Qt.TextFormat.RichText)
        self.confusion = QTableWidget(0, 0)
        self.confusion.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.annotator_list = QListWidget()
        self.annotator_list.setToolTip("Tick the columns that hold annotators' labels (two or more): Krippendorff's "
                                       "α among them, and each one's Cohen's κ against the model and the others")
        self.annotator_list.setMaximumHeight(90)
        self.annotator_table = QTableWidget(0, 4)
        self.annotator_table.setHorizontalHeaderLabels(["agreement", "statistic", "value", "n"])
        self.annotator_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.annotator_table.verticalHeader().setVisible(False)
        self.annotator_table.verticalHeader().setDefaultSectionSize(22)
        self.annotator_note = QLabel("")
        self.annotator_note.setWordWrap(True)
        sv = QVBoxLayout(self)
        row = QHBoxLayout()
        self.label_title = QLabel("Label")
        row.addWidget(self.label_title)
        row.addWidget(self.label_box, 1)
        row.addWidget(self.reviewed_box)
        sv.addLayout(row)
        # the model against the gold column first: in view at the top of the pane, the row's text under it
        sv.addWidget(self.metrics)
        sv.addWidget(self.confusion, 2)
        sv.addWidget(self.text, 3)
        sv.addWidget(QLabel("Annotator columns"))
        sv.addWidget(self.annotator_list)
        sv.addWidget(self.annotator_note)
        sv.addWidget(self.annotator_table, 3)

    def set_file(self, choices: list[str], annotator_columns: list[str], ticked: list[str], *,
                 per_word: bool = False) -> None:
        """A new file: its labels in the label box, its possible annotator columns (``ticked`` ones checked); a
        tagger's file (``per_word``: a tag per word) has no row label, so no Label box."""
        self.label_title.setVisible(not per_word)
        self.label_box.setVisible(not per_word)
        self.annotator_list.blockSignals(True)
        self.annotator_list.clear()
        for c in annotator_columns:
            item = QListWidgetItem(saved_name(c))   # as the labelled file names it: its own "label" is label_in_file
            item.setData(Qt.ItemDataRole.UserRole, c)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if c in ticked else Qt.CheckState.Unchecked)
            self.annotator_list.addItem(item)
        self.annotator_list.blockSignals(False)
        self.label_box.clear()
        add_names(self.label_box, choices)
        keys = review_keys(choices)
        self.label_box.setToolTip(f"The label of this row (keys {keys} do the same)" if keys else LABEL_TIP)
        self.label_box.setEnabled(bool(choices))

    def ticked(self) -> list[str]:
        """The columns ticked as annotators'."""
        return [self.annotator_list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.annotator_list.count())
                if self.annotator_list.item(i).checkState() == Qt.CheckState.Checked]

    def show_row(self, html: str, label: str | None, labelable: bool, reviewed: bool) -> None:
        """The current row: its text, its label in the box (None: none, e.g. a row the model could not read, so the
        box never keeps the previous row's label), whether it can get one, whether it is reviewed."""
        self.text.setHtml(html)
        note = undrawable_note(undrawable(self.text.toPlainText(), self.text.font()))
        if note:   # a box the fonts cannot fill is named, not taken for a broken file
            self.text.setHtml(f"<p style='color:#8a6d00'>{escape(note)}</p>" + html)   # above: in view
        self.label_box.setCurrentIndex(self.label_box.findText(label) if label is not None else -1)
        self.label_box.setEnabled(labelable and self.label_box.count() > 0)
        self.reviewed_box.setEnabled(labelable)
        self.reviewed_box.setChecked(reviewed)

    def show_agreements(self, lines: list[str], with_gold) -> None:
        """The agreement lines and, with a gold column (``with_gold``, an explorer.core.predict.review agreement),
        its confusion matrix: the diagonal blue, the rest red, darker for more rows."""
        self.confusion.setRowCount(0)
        self.confusion.setColumnCount(0)
        self.confusion.setVisible(with_gold is not None)
        self.metrics.setText("<br>".join(lines))
        if with_gold is None:
            return
        a = with_gold
        k = len(a.labels)
        self.confusion.setRowCount(k)
        self.confusion.setColumnCount(k)
        set_header_names(self.confusion, Qt.Orientation.Horizontal, [f"pred {x}" for x in a.labels])
        set_header_names(self.confusion, Qt.Orientation.Vertical, [f"gold {x}" for x in a.labels])
        top = max(1, int(a.confusion.max()))
        for i in range(k):
            for j in range(k):
                item = QTableWidgetItem(str(int(a.confusion[i, j])))
                shade = int(255 - 120 * a.confusion[i, j] / top)
                item.setBackground(QColor(shade, shade, 255) if i == j else QColor(255, shade, shade))
                self.confusion.setItem(i, j, item)
        self._fit_titles()

    def _fit_titles(self) -> None:
        """Each column of the confusion matrix as wide as its title ("pred AGAINST") in the bold a selected cell
        gives it, and its counts: Qt's default section width (100 px) cut the first titles by a few pixels."""
        from explorer.ui.shell.layout_check import header_need

        header = self.confusion.horizontalHeader()
        for j in range(self.confusion.columnCount()):
            title = self.confusion.horizontalHeaderItem(j).text()
            self.confusion.setColumnWidth(j, max(self.confusion.sizeHintForColumn(j),
                                                 header_need(header, j, title, bold=True)))

    def show_annotators(self, note: str, rows: list[AnnotatorRow]) -> None:
        """The annotators' note and table (components.predictions.ReviewState.annotators); the table only while it
        has rows (two or more columns ticked), so an empty one takes no height from the rest."""
        self.annotator_table.setRowCount(0)
        self.annotator_note.setText(note)
        self.annotator_table.setVisible(bool(rows))
        if not rows:
            return
        self.annotator_table.setRowCount(len(rows))
        for i, row in enumerate(rows):
            for j, text in enumerate((row.who, row.statistic, row.value, row.n)):
                item = QTableWidgetItem(text)
                if j >= 2:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.annotator_table.setItem(i, j, item)
        self.annotator_table.resizeColumnsToContents()

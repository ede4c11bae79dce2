"""The Predictions page: a predicted file to review, sort, filter, correct and fine-tune on.

``PredictDialog`` picks a file and its text columns for a checkpoint and runs ``predict`` in the inspector child
(op "predict": progress events, cancel; never in the GUI process). The result opens in a ``PredictionsView``:
a QTableView over :class:`PredictionsModel` (a row order kept as a numpy array, so sorting and filtering 100,000
rows is one argsort, not a Python comparison per pair), sortable by every column, filtered by predicted label,
least certain first (classification: smallest margin; QA: nearest τ by |score_diff − τ|); the full text of the
current row in a side pane; with a gold label column the metrics (accuracy, macro F1) and the confusion matrix,
and Cohen's κ with a person's label column; with two or more annotator columns ticked, one agreement table
(Krippendorff's α among the annotators, each annotator's Cohen's κ against the model and the others:
core.predict.review.annotator_agreement). Keys 1..K (1..9) set the current row's label in the labels' id order, named
in the info line and the Label box's tooltip ("1 = -1, 2 = 1"), or the drop-down does; R marks
it reviewed (Shift+R un-marks); a key or R moves to the next row; every change is saved to
``<predictions>.review.json`` at once (explorer.core.predict.review), so
reopening restores it. "Save labelled file…" writes the input columns + ``label`` + ``label_source`` + the class probabilities;
"Fine-tune on reviewed rows" fills the launcher (:func:`fill_launcher`): the training file plus the rows a person
reviewed, corrected or confirmed (core.predict.review.finetune_data). What the page decides and says about the
file and its review is explorer.ui.inspectors.components.predictions.ReviewState's; the side pane is
explorer.ui.inspectors.predictions_panels.ReviewPane.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QGuiApplication
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QDialog, QFormLayout,
                               QHBoxLayout, QHeaderView, QLabel, QLineEdit, QListWidget, QListWidgetItem,
                               QMessageBox, QPushButton, QTableView, QVBoxLayout, QWidget)

from explorer.core.predict.review import (PredictionTable, Review, finetune_data, load_predictions, saved_name,
                                          uncertainty)
from explorer.ui.shell.class_names import add_names, bound_box, header_title
from explorer.ui.shell.short_names import short_name
from explorer.ui.shell.columns import fit_columns
from explorer.ui.shell.glyphs import undrawable, undrawable_note
from explorer.ui.shell.file_dialogs import EXPORT_KIND, open_file, save_file
from explorer.ui.shell.flow_layout import FlowLayout
from explorer.ui.launch.form_model import WARNING_COLOR

from .common import StatusLabel
from .job_bar import JobBar
from .components.predictions import (HEADER_TIPS, HEADER_TITLES, SAMPLE_FILTER, ReviewState, filtered_rows,
                                     is_number_column, prediction_spec, uncertainty_header)
from .predictions_columns import ColumnFitter
from .predictions_panels import ReviewPane, ReviewSplit
from explorer.ui.shell.screen_fit import keep_on_screen

PERSON_BRUSH = QBrush(QColor("#1565c0"))


class PredictionsModel(QAbstractTableModel):
    """Rows of a PredictionTable in a kept order (``order``: file rows shown, top to bottom).

    Columns: "#" (titled "line": the input file's line, else "row": the data row, 1-based), "reviewed", "label" (the person's if set, else the model's), the
    uncertainty column for QA / SWAG / multi-label, then the input (text) columns, then the file's other columns
    (``headers``: as the labelled file names them, the file's own ``label`` as ``label_in_file``; ``file_columns``:
    as the predictions file does).
    """

    def __init__(self, state: ReviewState, parent: QObject | None = None):
        super().__init__(parent)
        self.state = state
        table, review = self.table, self.review = state.table, state.review
        self.unc = uncertainty(table, review)
        self.lines = state.input_lines()
        self.row_title, self.row_tip = state.row_header()
        self.virtual = ["#", "reviewed", "label"] + ([uncertainty_header(review)] if uncertainty_header(review)
                                                     else [])
        # the text read first (at the right end it is scrolled out of sight at 1280 px), then the model's numbers
        # (probabilities, margin; behind id and author they would be off-screen), then the predicted label, the
        # file's other columns and the error
        texts = [c for c in table.columns if c in review.text_columns]
        numbers = [c for c in table.columns if c not in review.input_columns and is_number_column(c)]
        rest = [c for c in table.columns if c not in texts and c not in numbers and c != "error"]
        self.file_columns = texts + numbers + rest + [c for c in table.columns if c == "error"]
        self.number_columns = numbers
        self._cell_index = [table.columns.index(c) for c in self.file_columns]
        # the file's own label column is titled as the labelled file names it (label_in_file), so the reviewed
        # "label" column never stands for it (each cell and sort goes by the column's place, not its title)
        self.headers = self.virtual + [saved_name(c) for c in self.file_columns]
        self.predicted, self.labels = state.predicted, state.labels   # the state's lists (it relabels rows)
        self.order = np.arange(len(table))
        self.filter_label: str | None = None
        self.sort_column, self.sort_order = None, Qt.SortOrder.AscendingOrder

    # ---- Qt model
    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802 - Qt API
        return 0 if parent.isValid() else int(self.order.size)

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: N802 - Qt API
        return 0 if parent.isValid() else len(self.headers)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802 - Qt API
        if orientation != Qt.Orientation.Horizontal:
            return None
        name = self.headers[section]
        if role == Qt.ItemDataRole.DisplayRole:
            # narrow titles, so the model's numbers fit beside the text at 1280 px: "reviewed" is a ✓ column, a
            # probability column p_AGAINST is titled by its class, AGAINST (the file's name in the tooltip)
            if section == 0:
                return self.row_title
            # a class name of any length is cut (short_name): a title never decides the table's width
            # an input column a header-less file names by position is titled by its role ("text", "column 3");
            # the page's own columns keep their names: "label" is the reviewed label, and only a label column
            # the file brought is titled label_in_file
            if name.startswith("p_"):
                title = name[2:]
            elif section < len(self.virtual):
                title = name
            else:
                title = self.state.column_title(self.file_columns[section - len(self.virtual)])
            return HEADER_TITLES.get(name, header_title(title))
        if role == Qt.ItemDataRole.ToolTipRole:
            if section == 0:
                return self.row_tip
            if name.startswith("p_"):
                return f"{name}: the model's probability of {name[2:]}"
            return HEADER_TIPS.get(name, self.state.column_tip(name) or (name if len(name) > 20 else None))
        return None

    def file_row(self, view_row: int) -> int:
        return int(self.order[view_row])

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        i, c = self.file_row(index.row()), index.column()
        name = self.headers[c]
        if role == Qt.ItemDataRole.DisplayRole:
            if name == "#":
                return str(self.lines[i] if self.lines is not None else i + 1)
            if name == "reviewed":
                return "✓" if i in self.review.reviewed else ""
            if name == "label":   # a class name of any length is cut: it never decides the column's width
                return short_name(self.labels[i])
            if c < len(self.virtual):
                v = self.unc[i]
                return "" if v != v else f"{v:.4f}"
            text = self.table.cells[self._cell_index[c - len(self.virtual)]][i]
            if text and is_number_column(name):
                try:
                    return f"{float(text):.4f}"
                except ValueError:
                    return text
            return text if len(text) <= 200 else text[:200] + "…"
        if role == Qt.ItemDataRole.ToolTipRole and name == "label" and short_name(self.labels[i]) != self.labels[i]:
            return self.labels[i]
        if role == Qt.ItemDataRole.ToolTipRole and name in self.review.text_columns:   # the cell is elided
            text = self.table.cells[self._cell_index[c - len(self.virtual)]][i]
            text = text if len(text) <= 2000 else text[:2000] + "…"
            note = undrawable_note(undrawable(text, QGuiApplication.font()))   # boxes named, as the side pane does
            return f"{text}\n\n{note}" if note else text
        if role == Qt.ItemDataRole.ForegroundRole and name == "label" and i in self.review.labels:
            return PERSON_BRUSH
        if role == Qt.ItemDataRole.FontRole and name == "label" and i in self.review.labels:
            f = QFont()
            f.setBold(True)
            return f
        return None

    # ---- order
    def _key(self, column: int):
        name = self.headers[column]
        n = len(self.table)
        if name == "#":
            return np.arange(n, dtype=float)
        if name == "reviewed":
            return np.array([i in self.review.reviewed for i in range(n)], dtype=float)
        if name == "label":
            return np.array(self.labels, dtype=object)
        if column < len(self.virtual):
            return self.unc
        nums = self.table.numbers(self.file_columns[column - len(self.virtual)])
        values = self.table.cells[self._cell_index[column - len(self.virtual)]]
        filled = sum(bool(v) for v in values)
        if filled and np.isfinite(nums).sum() >= filled:   # a numeric column (blank cells sort last)
            return nums
        return np.array([v.lower() for v in values], dtype=object)

    def sort(self, column: int, order=Qt.SortOrder.AscendingOrder) -> None:
        """Stable sort of the shown rows by ``column`` (numbers as numbers, NaN / blank last either way)."""
        self.layoutAboutToBeChanged.emit()
        self.sort_column, self.sort_order = column, order
        self._reorder()
        self.layoutChanged.emit()

    def _reorder(self) -> None:
        rows = filtered_rows(self.predicted, self.review, self.filter_label)
        if self.sort_column is not None:
            key = self._key(self.sort_column)[rows]
            desc = self.sort_order == Qt.SortOrder.DescendingOrder
            if key.dtype == object:
                idx = sorted(range(rows.size), key=lambda k: key[k], reverse=desc)
                rows = rows[np.array(idx, dtype=int)] if idx else rows
            else:
                nan = np.isnan(key)
                k = np.where(nan, 0.0, -key if desc else key)
                idx = np.lexsort((k, nan))       # NaN last, then the value (stable)
                rows = rows[idx]
        self.order = rows

    def set_filter(self, label: str | None) -> None:
        """Show only rows the model predicted as ``label`` (None: all)."""
        self.layoutAboutToBeChanged.emit()
        self.filter_label = label
        self._reorder()
        self.layoutChanged.emit()

    def row_changed(self, file_row: int) -> None:
        """File row ``file_row``'s label or review changed (in the state): its cells are drawn again."""
        where = np.nonzero(self.order == file_row)[0]
        if where.size:
            r = int(where[0])
            self.dataChanged.emit(self.index(r, 0), self.index(r, self.columnCount() - 1))


class PredictionsView(QWidget):
    """One predictions file under review. ``open(path)`` / ``set_predictions(table, review)``.

    Signals: ``finetune_requested(dict fields, str note)`` (fill the launcher), ``message(str)``.
    """

    finetune_requested = Signal(dict, str)
    message = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.table_data: PredictionTable | None = None
        self.review: Review | None = None
        self.state: ReviewState | None = None   # what the page decides about the file and its review
        self.model: PredictionsModel | None = None
        self._build()

    def _build(self) -> None:
        self.info = QLabel("Predict on a file (Runs list, Classify or Spans & τ) to review its predictions here.")
        self.info.setWordWrap(True)
        self.file_notes = StatusLabel("")   # what holds for the file as a whole (ReviewState.file_notes), in amber
        self.file_notes.setStyleSheet(f"color: {WARNING_COLOR}")
        self.file_notes.hide()
        self.notes_shown_for = None   # the ReviewState whose file notes are shown (found on a thread)
        self.filter = QComboBox()
        self.filter.setToolTip("Show only the rows the model predicted as this label")
        bound_box(self.filter)   # a long class name elides in the box, never widens the window
        self.filter.currentIndexChanged.connect(self._filter_changed)
        self.person = QComboBox()
        self.person.setToolTip("A column holding a person's labels: agreement of the model with it (Cohen's κ)")
        bound_box(self.person)
        self.person.currentIndexChanged.connect(self._person_changed)
        save = QPushButton("Save labelled file…")
        save.clicked.connect(self.ask_save_labelled)
        self.finetune_button = QPushButton("Fine-tune on reviewed rows")
        self.finetune_button.setToolTip("Fill the launcher with a new run on the original training file plus every row "
                                        "you reviewed (✓): those you corrected, with your label, and those you "
                                        "confirmed, with the model's label. Rows not reviewed and rows with an error "
                                        "stay out; the dev rows stay the first run's. From the reviewed checkpoint "
                                        "the run is short, sized to the reviewed rows (the launcher says its rows, "
                                        "epochs and steps).")
        self.finetune_button.clicked.connect(self.finetune)
        shares = QPushButton("Class shares…")
        shares.setToolTip("The share of each class in this file: the model's count and the prediction-powered "
                          "estimate corrected by a random sample of rows you review, with 95% intervals")
        shares.clicked.connect(self.show_shares)
        top = FlowLayout()   # wraps onto a second row in a narrow window instead of widening it
        for w in (QLabel("Predicted label"), self.filter, QLabel("Person's labels"), self.person):
            top.addWidget(w)
        top.addStretch(1)
        top.addWidget(shares)
        top.addWidget(save)
        top.addWidget(self.finetune_button)

        self.view = QTableView()
        self.view.setSortingEnabled(True)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.verticalHeader().setVisible(False)
        self.view.verticalHeader().setDefaultSectionSize(22)
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.view.viewport().installEventFilter(self)   # a new width: the text column gives way (fit_text_columns)
        self.columns = ColumnFitter(self.view, lambda: self.model, lambda: self.review)
        self.view.horizontalHeader().sortIndicatorChanged.connect(lambda *_: self.fit_text_columns())

        self.side = side = ReviewPane()
        self.label_box, self.reviewed_box, self.text = side.label_box, side.reviewed_box, side.text
        self.metrics, self.confusion = side.metrics, side.confusion
        self.annotator_list, self.annotator_table = side.annotator_list, side.annotator_table
        self.annotator_note = side.annotator_note
        self.label_box.activated.connect(lambda k: self.set_label(self.current_row(), self.label_box.itemText(k)))
        self.reviewed_box.clicked.connect(lambda on: self.mark_reviewed(self.current_row(), on))
        self.annotator_list.itemChanged.connect(self._annotators_changed)
        # the review keys (1..K, r / R) work wherever the focus is among the row's widgets: r pressed after picking
        # a label in the drop-down (its focus) marks the row too
        self._key_widgets = (self.view, self.label_box, self.reviewed_box, self.text)
        for widget in self._key_widgets:
            widget.installEventFilter(self)
        split = self.split = ReviewSplit(self.view, side, self._table_need)
        lay = QVBoxLayout(self)
        lay.addWidget(self.info)
        lay.addWidget(self.file_notes)
        lay.addLayout(top)
        lay.addWidget(split, 1)

    # ---- loading
    def open(self, path: str | Path, summary: dict | None = None) -> None:
        """Show a predictions file; its saved review is restored (or a new one made from ``summary``)."""
        table = load_predictions(path)
        review = Review.load(path)
        if review is None:
            review = Review.from_summary(dict(summary or {}, out=str(path)))
            if not review.label_names and prediction_spec(review).labels_by_name:
                review.label_names = [c[2:] for c in table.columns if c.startswith("p_")]
            review.save()
        self.set_predictions(table, review)

    def set_predictions(self, table: PredictionTable, review: Review) -> None:
        self.table_data, self.review = table, review
        self.state = ReviewState(table, review)
        self.model = PredictionsModel(self.state, self)
        self.view.setModel(self.model)
        self.view.selectionModel().currentRowChanged.connect(lambda *_: self._show_current())
        # the file's columns as the labelled file names them (its own "label" is label_in_file)
        for widget, items in ((self.filter, self._filter_items()),
                              (self.person, ["none"] + [saved_name(c) for c in self.state.person_choices()])):
            widget.blockSignals(True)
            widget.clear()
            add_names(widget, items)
            widget.blockSignals(False)
        if review.person_column:
            self.person.setCurrentText(saved_name(review.person_column))
        self.side.set_file(self._choices(), self.state.person_choices(), review.annotator_columns,
                           per_word=prediction_spec(review).tags_per_word)
        self.sort_least_certain()
        fit_columns(self.view)   # short cells and titles whole, text columns elided but readable
        self.fit_text_columns()
        if table.columns and len(table):
            self.view.selectRow(0)
        self._show_current()
        self._update_info()
        self._update_metrics()
        self._find_file_notes()

    def _find_file_notes(self) -> None:
        """The amber notes about the file as a whole (ReviewState.file_notes), found on a worker thread: the
        training-rows count reads the run's whole training file (a second for SST-2's 67,349 rows), which
        would freeze the page as it opens. ``notes_shown_for`` is the state they were found for."""
        from explorer.ui.shell.tasks import run_in_thread

        self.file_notes.hide()
        self.notes_shown_for = None
        state = self.state

        def show(notes: list[str]) -> None:
            if state is not self.state:   # another file was opened meanwhile: its own notes come
                return
            self.file_notes.setText("\n".join(notes))
            self.file_notes.setVisible(bool(notes))
            self.notes_shown_for = state

        run_in_thread(state.file_notes, owner=self, on_done=show)

    def fit_text_columns(self) -> None:
        """The columns fitted to the viewport's width (predictions_columns.ColumnFitter.fit)."""
        self.columns.fit()

    def _table_need(self) -> int | None:
        return self.columns.table_need()

    def fit_split(self) -> None:
        """The table and the side pane side by side or stacked (predictions_panels.ReviewSplit), once, when first
        shown with rows; then the text columns take the table's width."""
        self.split.fit()
        self._split_fitted = self.split.fitted
        self.fit_text_columns()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt API
        super().showEvent(event)
        if not getattr(self, "_split_fitted", False) and self.model is not None:
            from PySide6.QtCore import QTimer

            QTimer.singleShot(0, self.fit_split)   # once the page has its width

    def _choices(self) -> list[str]:
        return self.state.choices() if self.state is not None else []

    def _filter_items(self) -> list[str]:
        """The Predicted label filter: all, each label, and the rows drawn at random for review when drawn."""
        sample = [SAMPLE_FILTER] if self.review is not None and self.review.sample else []
        return ["all"] + self._choices() + sample

    def show_shares(self):
        """The Class shares dialog (explorer.ui.inspectors.shares_dialog); a draw adds the "random sample"
        entry to the filter. Returns the dialog (None without a file)."""
        from .components.shares import SharesModel
        from .shares_dialog import SharesDialog

        if self.table_data is None or self.review is None:
            return None
        dialog = SharesDialog(SharesModel(self.table_data, self.review), self, changed=self._sample_drawn)
        dialog.show()
        return dialog

    def _sample_drawn(self) -> None:
        current = self.filter.currentText()
        self.filter.blockSignals(True)
        self.filter.clear()
        add_names(self.filter, self._filter_items())
        self.filter.blockSignals(False)
        self.filter.setCurrentText(current)
        self._filter_changed(self.filter.currentIndex())

    def sort_least_certain(self) -> None:
        """The default order: least certain first (margin / |score_diff − τ| ascending); regression: file order."""
        if self.model is not None:
            self.view.sortByColumn(self.state.first_sort(self.model.headers), Qt.SortOrder.AscendingOrder)

    # ---- the current row
    def current_row(self) -> int | None:
        """The file row (0-based) of the selected table row, or None."""
        idx = self.view.currentIndex()
        if self.model is None or not idx.isValid():
            return None
        return self.model.file_row(idx.row())

    def select_file_row(self, file_row: int) -> None:
        where = np.nonzero(self.model.order == file_row)[0]
        if where.size:
            self.view.selectRow(int(where[0]))

    def _show_current(self) -> None:
        i = self.current_row()
        if i is None or self.table_data is None:
            self.text.setPlainText("" if self.table_data is None else "No row selected (none shown?)")
            return
        # a row the model could not read (an empty text: "error: line 6: empty 'text'") has no label to show or set
        labelled = self.labelable(i) and self.state.labels[i] in self._choices()
        self.side.show_row(self.state.row_html(i), self.state.labels[i] if labelled else None, self.labelable(i),
                           i in self.review.reviewed)

    def labelable(self, file_row: int) -> bool:
        """Whether a row can get a label: the model read it (no error, e.g. not an empty text)."""
        return self.state is not None and self.state.labelable(file_row)

    # ---- review actions
    def eventFilter(self, obj, event):  # noqa: N802 - Qt API
        from PySide6.QtCore import QEvent

        plain = Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.ShiftModifier, Qt.KeyboardModifier.KeypadModifier
        if event.type() == QEvent.Type.Resize and obj is self.view.viewport():
            self.fit_text_columns()
            return False
        if (event.type() == QEvent.Type.KeyPress and obj in self._key_widgets and self.review is not None
                and event.modifiers() in plain):   # r and R (Shift) alike; Ctrl+R and the like stay the app's
            label = self.state.key_label(event.text())
            if label is not None:
                if self.set_label(self.current_row(), label):
                    self.select_next_row()   # reviewing down the list with the keys alone, as labelling tools do
                return True
            if event.key() == Qt.Key.Key_R:
                # R accepts the row (reviewed, the label shown kept) and moves on like a label key, so a reviewer's
                # "r r 2 r" lands on four rows; pressed on a reviewed row it never un-marks it: Shift+R does
                i = self.current_row()
                if i is None:
                    return True
                if event.modifiers() == Qt.KeyboardModifier.ShiftModifier:
                    self.mark_reviewed(i, False)
                elif self.mark_reviewed(i, True):
                    self.select_next_row()
                return True
        return super().eventFilter(obj, event)

    def set_label(self, file_row: int | None, label: str) -> bool:
        """A person's label for a file row (saved at once); the same as the model's still counts as reviewed.
        Returns whether the label was set (False: no row, or refused and said)."""
        if file_row is not None and self.review is not None:
            return self._changed(file_row, self.state.set_label(file_row, label))
        return False

    def select_next_row(self) -> None:
        """The row under the current one in the table's shown order becomes current; the last row stays."""
        idx = self.view.currentIndex()
        if self.model is not None and idx.isValid() and idx.row() + 1 < self.model.rowCount():
            self.view.selectRow(idx.row() + 1)

    def mark_reviewed(self, file_row: int | None, on: bool = True) -> bool:
        """Row ``file_row`` reviewed (``on``) or not, saved at once; returns whether it was done (False: no row, or
        refused and said)."""
        if file_row is not None and self.review is not None:
            return self._changed(file_row, self.state.mark_reviewed(file_row, on))
        return False

    def _changed(self, file_row: int, refused: str) -> bool:
        """After a review action on ``file_row``: saved and shown (True), or ``refused``'s reason said (False)."""
        if refused:
            self.message.emit(refused)
            return False
        self.review.save()
        self.model.row_changed(file_row)
        self.columns.fit_changed_row(file_row)   # a person's label is bold: its column widens for it, not "AGAI…"
        self._show_current()
        self._update_info()
        self._update_metrics()
        return True

    # ---- filters and metrics
    def _filter_changed(self, k: int) -> None:
        if self.model is not None:
            self.model.set_filter(None if k <= 0 else self.filter.itemText(k))
            if self.model.rowCount():
                self.view.selectRow(0)
            else:
                self.view.setCurrentIndex(self.model.index(-1, -1))
            self._show_current()
            self._update_info()

    def _person_changed(self, k: int) -> None:
        if self.review is None:
            return
        self.review.person_column = "" if k <= 0 else self.state.person_choices()[k - 1]   # the file's name
        self.review.save()
        self._update_metrics()

    def _annotators_changed(self, _item=None) -> None:
        if self.review is None:
            return
        self.review.annotator_columns = self.side.ticked()
        self.review.save()
        self._update_annotators()

    def _update_annotators(self) -> None:
        """The annotator table of the ticked columns (core.predict.review.annotator_agreement)."""
        self.side.show_annotators(*(self.state.annotators() if self.state is not None else ("", [])))

    def corrected(self) -> int:
        """Rows whose label a person changed from the model's."""
        return self.state.corrected() if self.state is not None else 0

    def _update_info(self) -> None:
        if self.state is not None:
            self.info.setText(self.state.info(self.model.rowCount()))

    def _update_metrics(self) -> None:
        self._update_annotators()
        self.side.show_agreements(*(self.state.agreements() if self.state is not None else ([], None)))

    # ---- outputs
    def ask_save_labelled(self) -> None:
        if self.review is None:
            return
        stem = Path(self.review.predictions)
        path = save_file(self, "Save labelled file", EXPORT_KIND, stem.stem + ".labelled.csv",
                         "CSV (*.csv);;TSV (*.tsv);;JSON lines (*.jsonl);;Excel (*.xlsx)", str(stem))
        if path:
            self.save_labelled(path)

    def save_labelled(self, path: str | Path) -> Path:
        """Write the input columns + label + label_source + the class probabilities (core.predict.review.save_labelled)
        to ``path`` (format by suffix); the message counts the reviewed rows as the page does (Review.reviewed_in)."""
        from explorer.core.predict.review import save_labelled

        out = save_labelled(self.table_data, self.review, path)
        self.message.emit(f"Saved {len(self.table_data)} labelled rows ({self.review.reviewed_in(len(self.table_data))} "
                          f"reviewed) to {out}")
        return out

    def finetune(self) -> tuple[dict, str] | None:
        """Build the next run's data (original training file + reviewed rows; the dev rows stay the first run's:
        core/predict/review.finetune_data, in the place ReviewState.corrections_place says) and emit
        finetune_requested."""
        from explorer.core.errors import UserError

        if self.review is None:
            return None
        run_cfg, folder, run_dir = self.state.corrections_place()
        try:
            fields, note = finetune_data(self.table_data, self.review, run_cfg, folder, run_dir=run_dir)
        except UserError as exc:
            QMessageBox.information(self, "Fine-tune on reviewed rows", str(exc))
            return None
        except (OSError, ValueError) as exc:    # csv.Error is a ValueError's sibling: caught below
            QMessageBox.warning(self, "Fine-tune on reviewed rows",
                                f"The combined training file could not be written in {folder}: {exc}")
            return None
        except Exception as exc:  # noqa: BLE001 - said on screen, never only in the log
            QMessageBox.warning(self, "Fine-tune on reviewed rows",
                                f"The combined training file could not be made ({type(exc).__name__}: {exc})")
            return None
        self.finetune_requested.emit(fields, note)
        self.message.emit(note)
        return fields, note


def fill_launcher(launcher, fields: dict, note: str) -> None:
    """Put a new run's fields into the launcher (the rest of its form stays) and say what was done (its banner
    and status message: ``note``, e.g. that the dev rows are the first run's). Run on goes back to this machine,
    where the combined file and the model it starts from are; File → New run then gives the defaults' form."""
    import dataclasses

    from explorer.core.specs.train_config import TrainConfig

    run_on = getattr(launcher, "run_on", None)
    host = run_on.host_name() if run_on is not None else ""
    if host:
        from explorer.ui.launch.hosts_dialog import THIS_MACHINE

        run_on.choose(THIS_MACHINE)
        note += f" Run on: this machine, where the combined file and its model are (was {host})."
    cfg = launcher.config()
    known = {f.name for f in dataclasses.fields(TrainConfig)}
    cfg = dataclasses.replace(cfg, **{k: v for k, v in fields.items() if k in known})
    cfg = dataclasses.replace(cfg, run_id="")
    launcher.set_config(cfg)
    if hasattr(launcher, "form"):   # this run's form, not the user's: File → New run gives the defaults' form
        launcher.form.filled_by = "Fine-tune on reviewed rows"
    if hasattr(launcher, "show_note"):          # the banner keeps it (a status bar message is soon replaced)
        launcher.show_note(note)
    if hasattr(launcher, "status_message"):
        launcher.status_message.emit(note)


class PredictDialog(QDialog):
    """Pick a file and its text columns, start predict in the inspector child, watch progress, cancel.

    ``finished_predictions(dict)`` carries the PredictSummary dict when the run ends.
    """

    finished_predictions = Signal(dict)

    def __init__(self, model: str, parent=None, *, client=None):
        super().__init__(parent)
        keep_on_screen(self)   # shown or resized, its frame stays inside the screen
        from explorer.ui.inspectors.client import shared_client

        self.setWindowTitle("Predict on a file")
        self.client = client or shared_client()
        self.request_id: int | None = None
        self._rows_done: int | None = None   # the rows the child last reported (at a cancel: those in the file)
        self.summary: dict | None = None
        self.model_edit = QLineEdit(model)
        self.model_edit.editingFinished.connect(lambda: (self._set_header_box(), self.read_columns()))
        self.data_edit = QLineEdit()
        self.data_edit.editingFinished.connect(lambda: (self._set_header_box(), self.read_columns()))
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        data_row = QHBoxLayout()
        data_row.addWidget(self.data_edit, 1)
        data_row.addWidget(browse)
        self.columns = QListWidget()
        self.columns.setToolTip("The text column(s) the model reads (QA: question, context; SWAG: sent1, sent2, "
                                "ending0..3)")
        self.no_header = QCheckBox("No header row (the first line is data; columns by position)")
        self.no_header.setToolTip("Ticked when the checkpoint's run read its data without a header row; untick it "
                                  "for a file whose first line names its columns")
        self._set_header_box()
        self.no_header.toggled.connect(self.read_columns)
        self.out_edit = QLineEdit()
        self.resume = QCheckBox("Resume (continue after the rows already in the output)")
        self.job_bar = JobBar("rows", cancel_tip="Stop after the current batch; the rows written so far stay "
                                                 "(tick Resume to continue)")
        self.job_bar.cancel_requested.connect(self.cancel)
        self.status = StatusLabel("")
        self.status.setWordWrap(True)
        self.start_button = QPushButton("Start")
        self.start_button.clicked.connect(self.start)
        form = QFormLayout(self)
        form.addRow("Checkpoint", self.model_edit)
        form.addRow("File", data_row)
        form.addRow("", self.no_header)
        form.addRow("Text columns", self.columns)
        form.addRow("Output (.csv .tsv .jsonl .xlsx)", self.out_edit)
        form.addRow("", self.resume)
        form.addRow(self.job_bar)
        form.addRow(self.status)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.start_button)
        form.addRow(buttons)

    def _browse(self) -> None:
        path = open_file(self, "File to predict", "data", "Tables (*.csv *.tsv *.txt *.jsonl *.json *.xlsx);;All files (*)",
                         self.data_edit.text())
        if path:
            self.set_data(path)

    def set_data(self, path: str) -> None:
        self.data_edit.setText(path)
        self._set_header_box()
        self.read_columns()

    def read_columns(self, _changed=None) -> None:
        """Fill the column list from the file read by the header rule (core.predict.columns.file_columns: the run's
        way unless No header row says otherwise), each column with a sample value, the model's text column(s)
        ticked (torch-free). The engine reads the file the same way: start() passes the box's state."""
        from explorer.core.errors import UserError
        from explorer.core.predict.columns import file_columns

        path = self.data_edit.text().strip()
        self.columns.clear()
        if not path:
            return
        try:
            found = file_columns(path, self._facts(), self.no_header.isChecked())
        except (UserError, OSError) as exc:
            self.status.setText(str(exc))
            return
        for column in found.columns:
            item = QListWidgetItem(column.label)
            item.setData(Qt.ItemDataRole.UserRole, column.name)
            item.setToolTip(column.sample)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if column.name in found.ticked else Qt.CheckState.Unchecked)
            self.columns.addItem(item)
        if not self.out_edit.text().strip():
            p = Path(path)
            self.out_edit.setText(str(p.with_name(p.stem + ".predictions.csv")))
        self.status.setText(found.note)

    def _facts(self):
        """The checkpoint's facts (its run's settings), or None when the checkpoint cannot be read."""
        from explorer.core.errors import UserError
        from explorer.core.predict.facts import checkpoint_facts

        try:
            return checkpoint_facts(self.model_edit.text().strip())
        except (UserError, OSError):
            return None

    def _set_header_box(self) -> None:
        """No header row ticked when the checkpoint's run read its data without one, unless the file's first line
        names its columns (the rule the engine follows when nothing is said)."""
        from explorer.core.predict.reading import reads_without_header

        facts = self._facts()
        path = self.data_edit.text().strip() if hasattr(self, "data_edit") else ""
        self.no_header.blockSignals(True)
        self.no_header.setChecked(reads_without_header(facts.run_config if facts is not None else {}, None,
                                                       path or None))
        self.no_header.blockSignals(False)

    def text_columns(self) -> list[str]:
        """The ticked columns by the names the engine resolves (a position without a header)."""
        items = [self.columns.item(k) for k in range(self.columns.count())]
        return [i.data(Qt.ItemDataRole.UserRole) or i.text() for i in items
                if i.checkState() == Qt.CheckState.Checked]

    def start(self) -> int | None:
        """Send the predict request; returns its id."""
        data = {"model": self.model_edit.text().strip(), "data": self.data_edit.text().strip(),
                "out": self.out_edit.text().strip(), "text_columns": self.text_columns() or None,
                "resume": self.resume.isChecked(), "no_header": self.no_header.isChecked()}
        if not data["data"] or not data["out"]:
            self.status.setText("Pick a file and an output file first")
            return None
        self._rows_done = None
        self.summary = None
        self.start_button.setEnabled(False)
        self.job_bar.start()
        self.status.setText("Starting (the inspector process loads the model)…")
        self.request_id = self.client.request("predict", data, on_done=self._done, on_error=self._failed,
                                              on_progress=self._progress)
        return self.request_id

    def _progress(self, done: int, total: int) -> None:
        """A progress report of the child: rows done of ``total`` (0: not known yet), shown as the child sends
        them (the rows, the time left at the measured rate)."""
        self.job_bar.set_progress(done, total)
        if self.request_id is not None and not self.job_bar.is_cancelling:
            self.status.setText(f"Predicting {Path(self.data_edit.text().strip()).name} …")
        self._rows_done = done   # at a cancel, the child's last report is the rows in the file

    def _done(self, summary) -> None:
        self.summary = summary
        self.request_id = None
        self.start_button.setEnabled(True)
        self.job_bar.finish()
        self.status.setText(f"{summary['rows']} rows written to {summary['out']} ({summary['errors']} with an error)")
        self.finished_predictions.emit(summary)

    def _failed(self, message: str, *rest) -> None:
        self.request_id = None
        self.start_button.setEnabled(True)
        self.job_bar.finish()
        cancelled = "cancel" in str(message).lower()
        rows = self._rows_done
        written = f"{rows} rows run are kept for {self.out_edit.text().strip()}" if rows is not None else \
            "the rows run so far are kept"
        self.status.setText(f"Cancelled: {written}; tick Resume and Start to continue"
                            if cancelled else str(message))
        if cancelled:
            self.resume.setChecked(True)

    def cancel(self) -> None:
        if self.request_id is not None:
            self.client.cancel(self.request_id)
            self.job_bar.cancelling()
            self.status.setText("Cancelling after the current batch…")


def open_predict_dialog(parent, model: str, *, client=None, on_finished=None) -> PredictDialog:
    """Show a PredictDialog for ``model``; ``on_finished(summary)`` runs when its predictions are written
    (default: the main window's Predictions page when there is one). Where the predictions open elsewhere,
    the dialog closes once they are written, so it does not sit on top of the page that shows them."""
    dialog = PredictDialog(model, parent, client=client)
    target = on_finished
    if target is None:
        win = parent.window() if parent is not None else None
        target = getattr(win, "open_predictions", None)
    if target is not None:
        dialog.finished_predictions.connect(target)
        dialog.finished_predictions.connect(lambda _summary: dialog.accept())
    dialog.show()
    return dialog


def predict_button(parent, source) -> QPushButton:
    """A "Predict on a file…" button for a view whose checkpoint is ``source()`` (a path or "")."""
    button = QPushButton("Predict on a file…")
    button.setToolTip("Label every row of a CSV / TSV / JSONL / xlsx file with this checkpoint (runs in the "
                      "inspector process; the result opens in a Predictions page)")
    button.clicked.connect(lambda: open_predict_dialog(parent, source() or ""))
    return button

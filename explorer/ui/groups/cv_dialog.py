"""The "Cross-validate…" dialog of the Groups tab: K folds and an optional group column.

The group itself is made by explorer.core.studies.cv_runs.start_cv_group (the same function as
``bert-explorer group --cv K``), from the Launch tab's settings; this dialog only asks for K and the column.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLabel, QSpinBox, QVBoxLayout
from explorer.ui.shell.screen_fit import keep_on_screen

NO_COLUMN = "(none: stratified by label)"
DIALOG_WIDTH = 520


class CrossValidateDialog(QDialog):
    """K (2..20, default 5) and a group column picked from ``columns`` (the training file's columns, as the
    Launch tab's data preview read them; "" = none, folds stratified by label). ``estimate(k)``: the time the K
    fold runs take (explorer.ui.launch.grid_estimate.cv_estimate), shown under the form and updated with K.
    ``note``: a sentence on what cross-validation changes in those settings (core.studies.cv_runs.fold_checkpoints:
    the folds save checkpoints although Save checkpoints is off), shown under the estimate. ``classes``: the rows
    of each class the folds split (name -> rows); the classes with fewer rows than K are named under the estimate
    as K changes (core.studies.cv.rare_class_note), before anything is queued, and K that cannot make stratified
    folds at all says why and cannot be queued (a group column folds by it instead: no class note then). Folds that
    hold out too few rows each for their figures to mean much are said too (core.studies.cv.small_fold_note), with
    Queue still on. The dialog is as tall as
    its wrapped text needs, so every sentence reads whole without scrolling.

    Read :meth:`values` after ``exec()`` returned Accepted: (k, group column or "")."""

    def __init__(self, columns: list[str], train_name: str, parent=None, *,
                 estimate: Callable[[int], str] | None = None, note: str = "", classes: dict | None = None):
        super().__init__(parent)
        keep_on_screen(self)   # shown or resized, its frame stays inside the screen
        self.classes = dict(classes or {})
        self.setWindowTitle("Cross-validate")
        self.k = QSpinBox()
        self.k.setRange(2, 20)
        self.k.setValue(5)
        self.k.setSuffix(" folds")
        self.k.setToolTip("One run per fold: it trains on the other folds and is scored on its own fold.")
        self.column = QComboBox()
        self.column.addItem(NO_COLUMN, "")
        for c in columns:
            self.column.addItem(c, c)
        self.column.setToolTip("Keep all rows with the same value of this column (one author, one topic, ...) "
                               "in one fold, so no fold's run has seen that value.")
        intro = QLabel(f"Cross-validate {train_name} with the Launch tab's settings: each fold's run trains on the "
                       "other folds; every row is then predicted once by the run that never saw it (the "
                       "out-of-fold figure in the Groups tab). The Launch tab's dev set is not used.")
        intro.setWordWrap(True)
        form = QFormLayout()
        form.addRow("Folds (K)", self.k)
        form.addRow("Group column", self.column)
        self.estimate = QLabel("")
        self.estimate.setWordWrap(True)
        if estimate is not None:
            self.k.valueChanged.connect(lambda k: (self.estimate.setText(estimate(k)), self._fit_text()))
            self.estimate.setText(estimate(self.k.value()))
        self.estimate.setVisible(estimate is not None)
        self.note = QLabel(note)
        self.note.setWordWrap(True)
        self.note.setVisible(bool(note))
        self.rare = QLabel("")
        self.rare.setWordWrap(True)
        self.small = QLabel("")   # folds whose held-out rows are too few for their figures to mean much
        self.small.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.queue = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.queue.setText("Queue the folds")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.resize(DIALOG_WIDTH, self.height())   # the wrapped text's height is worked out at this width
        lay = QVBoxLayout(self)
        lay.addWidget(intro)
        lay.addLayout(form)
        lay.addWidget(self.estimate)
        lay.addWidget(self.rare)
        lay.addWidget(self.small)
        lay.addWidget(self.note)
        lay.addWidget(buttons)
        self._say_classes()
        self.k.valueChanged.connect(self._say_classes)
        self.column.currentIndexChanged.connect(self._say_classes)
        self._fit_text()

    def _say_classes(self, *_args) -> None:
        """Name the classes with fewer rows than K (held out in only some folds), or why K folds stratified by label
        cannot be made (then Queue is off); nothing when a group column folds the rows. Whatever folds the rows,
        say when each fold holds out too few rows for its figure to mean much (Queue stays on)."""
        from explorer.core.studies.cv import fold_class_problem, rare_class_note, small_fold_note

        k = self.k.value()
        stratified = not self.column.currentData() and self.classes
        problem = fold_class_problem(self.classes, k) if stratified else None
        text = (problem or rare_class_note(self.classes, k)) if stratified else ""
        self.rare.setText(text)
        self.rare.setVisible(bool(text))
        small = small_fold_note(self.classes, k) if problem is None else ""
        self.small.setText(small)
        self.small.setVisible(bool(small))
        self.queue.setEnabled(problem is None)
        self._fit_text()

    def _fit_text(self) -> None:
        """The height the wrapped text needs at the dialog's width, no more and no less (its sizeHint is for a
        wider line, which cut the estimate's last line; a height fitted to a narrower width before, kept, left
        the buttons a screen below the text): every sentence whole, the buttons right under it."""
        width = max(self.width(), DIALOG_WIDTH)
        need = self.layout().totalHeightForWidth(width)
        self.setMinimumHeight(need)
        self.resize(width, need)

    def values(self) -> tuple[int, str]:
        """(K, the group column's name or "" for none)."""
        return self.k.value(), self.column.currentData() or ""

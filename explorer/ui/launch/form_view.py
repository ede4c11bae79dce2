"""The launcher's form and preview column as widgets: the editors in their group boxes, the watch examples,
the train / dev data previews and the command preview. They show; explorer.ui.launch.launcher.LauncherPanel
binds them to the form's model (explorer.ui.launch.form_model.LaunchForm).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextOption
from PySide6.QtWidgets import (QAbstractItemView, QFormLayout, QGroupBox, QHBoxLayout, QHeaderView, QLabel,
                               QPlainTextEdit, QPushButton, QScrollArea, QTableWidget, QTableWidgetItem, QTabWidget,
                               QVBoxLayout, QWidget)

from explorer.ui.launch.form_columns import FormColumns
from explorer.ui.launch.form_fields import FIELDS, GROUPS, Editor, field_spec, field_tooltip, make_editor
from explorer.ui.launch.form_model import column_choices
from explorer.ui.launch.preview import DataPreview
from explorer.ui.shell.file_dialogs import open_file, open_folder

__all__ = ["FormView", "PreviewPane", "WatchTable"]


class WatchTable(QWidget):
    """Watch examples: question + passage pairs the worker probes at every evaluation (QA only)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.table = QTableWidget(0, 2)
        self.table.setHorizontalHeaderLabels(["question", "passage"])
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.setColumnWidth(0, 180)
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setMaximumHeight(110)
        add, remove = QPushButton("Add"), QPushButton("Remove")
        add.clicked.connect(lambda: self._add_row("", ""))
        remove.clicked.connect(lambda: [self.table.removeRow(i.row()) for i in
                                        sorted(self.table.selectionModel().selectedRows(), reverse=True)])
        buttons = QVBoxLayout()
        buttons.addWidget(add)
        buttons.addWidget(remove)
        buttons.addStretch(1)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.table, 1)
        lay.addLayout(buttons)
        self.changed = self.table.itemChanged

    def _add_row(self, q: str, p: str) -> None:
        r = self.table.rowCount()
        self.table.insertRow(r)
        self.table.setItem(r, 0, QTableWidgetItem(q))
        self.table.setItem(r, 1, QTableWidgetItem(p))

    def get(self) -> list[dict]:
        out = []
        for r in range(self.table.rowCount()):
            q, p = (self.table.item(r, c).text().strip() if self.table.item(r, c) else "" for c in (0, 1))
            if q and p:
                out.append({"question": q, "passage": p})
        return out

    def set(self, items: list[dict]) -> None:
        self.table.setRowCount(0)
        for it in items or []:
            self._add_row(str(it.get("question", "")), str(it.get("passage", it.get("context", ""))))


class FormView(QScrollArea):
    """One editor per FIELDS entry with its label in its group box, and the watch examples, in two columns when
    there is room (one, scrolling, when not: the preview column stays in view). ``editors``: field name -> Editor
    (``editor.label`` its QLabel); ``watch``: the WatchTable; ``form_host``: the FormColumns inside. The model,
    data and output fields' Browse buttons fill them from a file dialog that starts in the folder last used
    (``settings``: the app's AppSettings, or None)."""

    def __init__(self, settings=None, parent=None):
        super().__init__(parent)
        self._settings = settings
        boxes = {}
        for g in GROUPS:
            box = QGroupBox(g)
            QFormLayout(box).setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
            boxes[g] = box
        self.editors: dict[str, Editor] = {}
        for spec in FIELDS:
            ed = make_editor(spec)
            ed.focus.setToolTip(field_tooltip(spec))
            label = QLabel(spec.label)
            label.setToolTip(field_tooltip(spec))
            boxes[spec.group].layout().addRow(label, ed.widget)
            ed.label = label
            self.editors[spec.name] = ed
        self.watch = WatchTable()
        watch_box = QGroupBox("Watch examples (probed at every evaluation)")
        QVBoxLayout(watch_box).addWidget(self.watch)
        self.watch.setToolTip(field_tooltip(field_spec("watch")))
        self.form_host = FormColumns([boxes["Model and task"], boxes["Data"], watch_box,
                                      boxes["Evaluation and output"]],
                                     [boxes["Recipe"], boxes["Sequence and QA windows"]])
        self.setWidgetResizable(True)
        self.setWidget(self.form_host)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        self.editors["model"].button.clicked.connect(self._browse_model)
        self.editors["train"].button.clicked.connect(lambda: self._browse_data("train"))
        self.editors["dev"].button.clicked.connect(lambda: self._browse_data("dev"))
        self.editors["output_dir"].button.clicked.connect(self._browse_output)
        # another training file: the previous file's columns and guesses must not stay on screen while it is read
        self.editors["train"].changed.connect(self.forget_columns)

    def offer_columns(self, columns: list[str], samples: dict, guess: dict, pairs: bool, label_hint: str) -> None:
        """Fill the column pickers with the training file's ``columns``, each with a sample value ("5 — 5.000",
        "6 — A plane is taking off."; with ``pairs`` the Text columns picker offers column pairs): the choice can be
        made from the screen. A guess by the usual names shows as the placeholder (the run guesses the same);
        ``label_hint``: the Label names placeholder. No change signal is sent; the typed values stay."""
        for name, placeholder in (("text_columns", ", ".join(guess.get("text_columns") or [])),
                                  ("label_column", guess.get("label_column") or ""),
                                  ("id_column", guess.get("id_column") or "")):
            combo = self.editors[name].widget
            current = combo.currentText()
            combo.blockSignals(True)
            combo.clear()
            combo.addItem("")
            for value, shown in column_choices(columns, samples, pairs and name == "text_columns"):
                combo.addItem(shown, value)
            combo.setCurrentText(current)
            combo.blockSignals(False)
            if combo.lineEdit() is not None:
                combo.lineEdit().setPlaceholderText(f"guessed: {placeholder}" if placeholder else
                                                    ("pick a column" if columns else ""))
        self.editors["label_names"].focus.setPlaceholderText(label_hint)

    def forget_columns(self) -> None:
        """Take the previous training file's columns and guesses ("guessed: Y") out of the column pickers (the
        values typed or chosen stay); the data check's read of the new file offers its own (:meth:`offer_columns`)."""
        reading = "reading the file …" if self.editors["train"].get() else ""
        for name in ("text_columns", "label_column", "id_column"):
            combo = self.editors[name].widget
            current = combo.currentText()
            combo.blockSignals(True)
            combo.clear()
            combo.addItem("")
            combo.setCurrentText(current)
            combo.blockSignals(False)
            if combo.lineEdit() is not None:
                combo.lineEdit().setPlaceholderText(reading)

    def _browse_model(self) -> None:
        path = open_folder(self, "Model folder (save_pretrained output or checkpoint)", "model",
                           self.editors["model"].get(), **self._where())
        if path:
            self.editors["model"].set(path)

    def _browse_data(self, which: str) -> None:
        path = open_file(self, f"{which} data", "data",
                         "Data files (*.json *.jsonl *.tsv *.csv *.txt *.xlsx);;All files (*)",
                         self.editors[which].get(), near=[self.editors["train"].get()], **self._where())
        if path:
            self.editors[which].set(path)

    def _browse_output(self) -> None:
        path = open_folder(self, "Runs folder", "runs_dir", self.editors["output_dir"].get(), **self._where())
        if path:
            self.editors["output_dir"].set(path)

    def _where(self) -> dict:
        """The settings and runs folder a Browse… dialog's folder comes from (file_dialogs.dialog_folder): the form's
        Output folder is its runs folder."""
        return {"settings": self._settings, "runs_dir": self.editors["output_dir"].get().strip()}


class PreviewPane(QWidget):
    """The train / dev data previews in tabs (``train_preview``, ``dev_preview``, ``preview_tabs``) above the
    command preview (``command``, read-only) and its Copy button (``copy_button``)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.train_preview, self.dev_preview = DataPreview("train"), DataPreview("validation")
        self.preview_tabs = QTabWidget()
        self.preview_tabs.addTab(self.train_preview, "Train data")
        self.preview_tabs.addTab(self.dev_preview, "Dev data")
        self.command = QPlainTextEdit()
        self.command.setReadOnly(True)
        self.command.setObjectName("command")
        # three lines, the Copy button beside them: the data preview above keeps its rows and notes at 1280x800
        self.command.setMaximumHeight(3 * self.command.fontMetrics().lineSpacing() + 2 * self.command.frameWidth()
                                      + 2 * round(self.command.document().documentMargin()) + 2)
        self.command.setWordWrapMode(QTextOption.WrapMode.WrapAnywhere)
        self.copy_button = QPushButton("Copy")
        self.copy_button.setToolTip("Copy the command: it runs the same fine-tune headless (e.g. on a GPU server).")
        cmd_box = QGroupBox("Preview command")
        cl = QHBoxLayout(cmd_box)
        cl.addWidget(self.command, 1)
        cl.addWidget(self.copy_button, 0, Qt.AlignmentFlag.AlignBottom)
        rl = QVBoxLayout(self)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(self.preview_tabs, 1)
        rl.addWidget(cmd_box)

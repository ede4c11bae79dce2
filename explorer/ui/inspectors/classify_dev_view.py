"""The classification dev-set tab: accuracy, F1, MCC, the confusion matrix, the examples nearest the
decision boundary and the most confident mistakes (explorer.core.classify_dev). Clicking an example opens
it in the Classify tab (signal ``open_requested``).

A regression head shows Pearson, Spearman and MSE, predicted against gold as a scatter with the identity
line (on it = predicted exactly), and the largest errors; a multi-label head shows micro / macro F1, subset
accuracy and a per-label table (threshold, F1, support)."""

from __future__ import annotations

from typing import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QSpinBox, QSplitter,
                               QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from explorer.core.classify_dev import run_data_settings
from explorer.core.metric_display import format_metric, metric_label, to_display

from explorer.core.task_facts import find_task_facts

from explorer.ui.shell.columns import fit_columns, whole_headers

from .client import shared_client
from .common import StatusLabel, ResultSource, header
from .latest import LatestOnly


def _dev_example(kind: str, row) -> dict:
    """The dict ClassifyView.open_example takes, from a DevRow."""
    facts = find_task_facts(kind)
    if facts is not None and facts.is_regression:
        return {"kind": kind, "text_a": row.text_a, "text_b": row.text_b, "label": row.gold}
    if facts is not None and facts.is_multiple_choice:
        endings = row.text_b.split(" | ")
        return {"kind": kind, "text_a": row.text_a, "endings": endings, "label": row.label}
    return {"kind": kind, "text_a": row.text_a, "text_b": row.text_b, "label": row.label}


def _f1_text(rep, kind: str) -> str:
    """The report's F1 named and scaled by the metric table (explorer.core.classify_dev._f1 holds the binary
    F1 of the second class for two classes, else the macro F1): 'F1 (%) 80.00 of class 1' / 'macro F1 (%) 61.20'."""
    names = list(rep.label_names or [])
    if len(names) == 2:
        return f"{format_metric('f1', rep.f1, kind)} of class {names[1]}"
    return format_metric("macro_f1", rep.f1, kind)


class ClassifyDevView(QWidget):
    """Dev-set view. ``get_loaded()`` / ``get_kind()`` read the Classify tab's model and head kind."""

    open_requested = Signal(dict)

    def __init__(self, get_loaded: Callable, get_kind: Callable[[], str], parent=None, *, client=None):
        super().__init__(parent)
        self.get_loaded, self.get_kind = get_loaded, get_kind
        self.report, self._kind = None, "single"
        self._job = LatestOnly.in_child(client or shared_client(), "classify.dev", self)   # runs in the inspector child
        self._job.finished.connect(self._arrived)
        self.source = ResultSource(self.clear_results)   # which model the table is of; cleared on a switch
        self._data_of = ""
        self._job.failed.connect(lambda _id, msg, _tb: self.status.setText(msg))
        self.path = QLineEdit()
        self.path.setPlaceholderText("dev file: GLUE .tsv/.csv/.jsonl, or a SWAG .csv")
        self.cap = QSpinBox(minimum=0, maximum=100000, value=200, specialValueText="all")
        run = QPushButton("Score dev set")
        run.clicked.connect(self.run)
        self.calibrate = QPushButton("Calibration...")
        self.calibrate.setToolTip("Reliability diagrams, ECE, MCE, Brier score before and after temperature scaling "
                                  "(T fitted on one half of these dev examples, shown on the other, both ways)")
        self.calibrate.setEnabled(False)
        self.calibrate.clicked.connect(self.open_calibration)
        self.calibration_view = None
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
        self._settings: dict = {}
        self._prefilled_for = None
        self._path_from_run = ""   # the dev path prefill_from_run put in (replaced when the model changes)
        self._columns_from_run: dict[int, str] = {}   # id(picker) -> the columns prefill_from_run put in
        top = QHBoxLayout()
        for w in (QLabel("Dev data"), self.path, QLabel("first"), self.cap, run, self.calibrate):
            top.addWidget(w)
        cols = QHBoxLayout()
        for w in (QLabel("Text"), self.text_columns, QLabel("Label"), self.label_column, self.no_header,
                  self.only_split):
            cols.addWidget(w)
        cols.addStretch(1)
        self.status = StatusLabel("Load a model in Classify, choose a dev file, press Score dev set.")
        self.metrics = QLabel("")
        self.confusion = QTableWidget(0, 0)
        # per class: precision, recall, F1, support, then the averages (the run's own dev figures, by name)
        self.per_class = QTableWidget(0, 4)
        self.per_class.setVisible(False)
        self.scatter = pg.PlotWidget(background="w")
        self.scatter.setLabel("bottom", "gold score")
        self.scatter.setLabel("left", "predicted score")
        self.scatter.setMinimumHeight(240)
        self._identity = self.scatter.plot([], [], pen=pg.mkPen("#888888", width=1, style=pg.QtCore.Qt.PenStyle.DashLine))
        self._points = pg.ScatterPlotItem(size=5, pen=None, brush=pg.mkBrush(31, 119, 180, 140))
        self.scatter.addItem(self._points)
        self.scatter.setVisible(False)
        self.boundary = self._list_table()
        self.mistakes = self._list_table()
        lists = QSplitter()
        self._titles = []
        for title, table in (("Nearest the decision boundary", self.boundary),
                             ("Most confident mistakes", self.mistakes)):
            box = QWidget()
            v = QVBoxLayout(box)
            self._titles.append(QLabel(title))
            v.addWidget(self._titles[-1])
            v.addWidget(table)
            lists.addWidget(box)
        self._boundary_box = self.boundary.parentWidget()
        layout = QVBoxLayout(self)
        layout.addWidget(header("Dev-set accuracy, F1, MCC and confusion matrix (a regression head: Pearson, "
                                "Spearman, MSE and predicted against gold; multi-label: micro / macro F1; shares in "
                                "percent, as in the curves); click "
                                "an example to open it in Classify."))
        layout.addLayout(top)
        layout.addLayout(cols)
        layout.addWidget(self.status)
        layout.addWidget(self.source.label)
        layout.addWidget(self.metrics)
        layout.addWidget(self.confusion)
        layout.addWidget(self.per_class)
        layout.addWidget(self.scatter)
        layout.addWidget(lists, 1)

    def _list_table(self) -> QTableWidget:
        t = QTableWidget(0, 5)
        t.setHorizontalHeaderLabels(["#", "gold", "predicted", "P(predicted)", "text"])
        t.horizontalHeader().setStretchLastSection(True)
        whole_headers(t)   # before the first result too
        t.cellClicked.connect(lambda r, _c, table=t: self._clicked(table, r))
        return t

    @staticmethod
    def _picker(placeholder: str, tip: str) -> QComboBox:
        combo = QComboBox()
        combo.setEditable(True)
        combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        combo.setMinimumWidth(140)
        combo.lineEdit().setPlaceholderText(placeholder)
        combo.setToolTip(tip)
        return combo

    def prefill_from_run(self, source: str) -> bool:
        """Fill the dev file, its cap and the column picker from the run's config.json when ``source`` is a run
        checkpoint (runs/<id>/checkpoints/best); fields the user typed are kept. The cap is the run's Dev cap when
        the file is the run's dev file (not "first 200" left from an earlier run while this run evaluated 300 rows:
        "pearson 0.66 (200 examples)" beside the Runs list's 0.648), all of the held-out rows of a run without
        one. True when a run was found."""
        settings = run_data_settings(source)
        self._prefilled_for = source
        if not settings:
            self._settings = {}            # another run's encoding, names, columns or dev split must not carry over
            self.only_split.setVisible(False)
            for combo in (self.text_columns, self.label_column):
                if combo.currentText().strip() and combo.currentText().strip() == self._columns_from_run.get(id(combo)):
                    combo.setCurrentText("")
            self._columns_from_run = {}
            return False
        self._settings = settings
        typed = self.path.text().strip()
        if not typed or typed == self._path_from_run:   # empty, or put there for the previous model's run
            self.path.setText(str(settings.get("dev") or settings.get("train") or ""))
            self._path_from_run = self.path.text().strip()
        texts = ", ".join(str(c) for c in settings.get("text_columns") or [])
        label = str(settings.get("label_column") or "")
        for combo, value in ((self.text_columns, texts), (self.label_column, label)):
            shown = combo.currentText().strip()
            # empty, or put there for the previous model's run (its columns need not be this run's): replaced
            if not shown or shown == self._columns_from_run.get(id(combo)):
                if value and combo.findText(value) < 0:
                    combo.addItem(value)
                combo.setCurrentText(value)
                self._columns_from_run[id(combo)] = value
        self.no_header.setChecked(bool(settings.get("no_header")))
        split = bool(settings.get("dev_split"))
        self.only_split.setVisible(split)
        self.only_split.setChecked(split)
        if split:
            self.cap.setValue(0)   # the held-out rows are a tenth of the file: all of them, as the run's curves
        elif settings.get("dev") and self.path.text().strip() == str(settings["dev"]).strip():
            self.cap.setValue(int(settings.get("dev_cap") or 0))   # the rows the run's evaluations scored
        return True

    def showEvent(self, event) -> None:  # noqa: N802 - Qt API
        """Pre-fill from the run of the model loaded in Classify when the tab is shown."""
        super().showEvent(event)
        loaded = self.get_loaded()
        source = str(getattr(loaded, "source", "") or "") if loaded is not None else ""
        if source and source != self._prefilled_for:
            self.prefill_from_run(source)
        self._say_model()

    def _say_model(self) -> None:
        """Before a table is shown, the status line says which model Score dev set uses: the one loaded in
        Classify (it never asks for a model while one is loaded there), else how to get one."""
        if self.report is not None or self._job._outstanding:   # a table, or one on its way, says more
            return
        loaded = self.get_loaded()
        source = str(getattr(loaded, "source", "") or getattr(loaded, "path", "") or "") if loaded is not None else ""
        if loaded is None:
            self.status.setText("Load a model in Classify, choose a dev file, press Score dev set.")
        else:
            self.status.setText(f"Uses the model loaded in Classify ({source or 'loaded'}): choose a dev file "
                                "(a run's is filled in), press Score dev set.")

    def table_settings(self) -> dict:
        """The table settings sent with the request: the picker's columns, plus the run's encoding, id column,
        label names and the classes its F_avg averages (f1_classes)."""
        out = {k: self._settings[k] for k in ("encoding", "id_column", "label_names", "f1_classes")
               if self._settings.get(k)}
        texts = [c.strip() for c in self.text_columns.currentText().split(",") if c.strip()]
        if texts:
            out["text_columns"] = texts
        if self.label_column.currentText().strip():
            out["label_column"] = self.label_column.currentText().strip()
        out["no_header"] = self.no_header.isChecked()
        if self._settings.get("dev_split") and self.only_split.isChecked() and self.only_split.isVisibleTo(self):
            out["dev_split"] = self._settings["dev_split"]
        return out

    def run(self) -> None:
        loaded = self.get_loaded()
        if loaded is None:
            self.status.setText("no model: load one in the Classify tab first")
            return
        source = str(getattr(loaded, "source", "") or "")
        if source and source != self._prefilled_for:
            self.prefill_from_run(source)
        self._kind = self.get_kind()
        split = " (the run's held-out dev rows)" if "dev_split" in self.table_settings() else ""
        self.status.setText(f"scoring {self.path.text()}{split} ...")
        self.source.ask(loaded)
        self._data_of = self.path.text().strip()
        self._job.submit("classify_dev", {"slot": loaded.slot, "kind": self._kind, "path": self.path.text().strip(),
                                          "cap": self.cap.value() or None, "settings": self.table_settings()})

    def _arrived(self, _id, rep) -> None:
        name = self.source.take()
        if name is None:   # asked of the model before the one loaded now: its rows would open with the new one
            return
        self.show_report(rep, self._kind, model=name, data=self._data_of)

    def model_changed(self, loaded) -> None:
        """The Classify tab's model is ``loaded`` now: a table of another model is cleared (with a one-line note
        naming both), and a request still running for it is dropped when it answers."""
        self.source.model_changed(loaded)
        source = str(getattr(loaded, "source", "") or "") if loaded is not None else ""
        if source and source != self._prefilled_for and self.isVisible():   # in view: the new run's file and cap now
            self.prefill_from_run(source)
        self._say_model()

    def clear_results(self) -> None:
        """Empty every table, the metrics line and the scatter; close the calibration window (of those logits)."""
        self.report = None
        self.metrics.setText("")
        for table in (self.confusion, self.boundary, self.mistakes):
            table.setRowCount(0)
        self.confusion.setColumnCount(0)
        self.confusion.setVisible(False)   # (show_report shows it again)
        self.per_class.setRowCount(0)
        self.per_class.setVisible(False)
        self._points.setData([], [])
        self._identity.setData([], [])
        self.calibrate.setEnabled(False)
        if self.calibration_view is not None:
            self.calibration_view.close()
        self.status.setText("")

    def show_report(self, rep, kind: str = "single", *, model: str | None = None, data: str = "") -> None:
        """Render a ClassificationDevReport, a RegressionDevReport or a MultiLabelDevReport; ``model`` and
        ``data`` name the model and dev file it is of (shown above the tables)."""
        self.report, self._kind = rep, kind
        self.source.show(model, data)
        name = type(rep).__name__
        self.scatter.setVisible(name == "RegressionDevReport")
        self._boundary_box.setVisible(name == "ClassificationDevReport")
        self.calibrate.setEnabled(name == "ClassificationDevReport" and getattr(rep, "logits", None) is not None
                                  and rep.total >= 4)
        self.mistakes.parentWidget().setVisible(name != "MultiLabelDevReport")
        self.confusion.setVisible(name != "RegressionDevReport")
        self.per_class.setVisible(name == "ClassificationDevReport" and bool(getattr(rep, "per_class", None)))
        if name == "RegressionDevReport":
            return self._show_regression(rep)
        if name == "MultiLabelDevReport":
            return self._show_multilabel(rep)
        self._titles[1].setText("Most confident mistakes")
        self.mistakes.setHorizontalHeaderLabels(["#", "gold", "predicted", "P(predicted)", "text"])
        self.status.setText(f"{rep.total} dev examples scored")
        extra = ""
        if getattr(rep, "per_class", None) and len(rep.label_names) == 2:
            extra += f"   {format_metric('macro_f1', rep.macro_f1, kind)}"
        if getattr(rep, "f_avg", None) is not None:
            extra += f"   {format_metric('f_avg', rep.f_avg, kind)} ({', '.join(rep.f1_classes)})"
        self.metrics.setText(f"{format_metric('accuracy', rep.accuracy, kind)}   {_f1_text(rep, kind)}{extra}   "
                             f"{format_metric('matthews_corrcoef', rep.mcc, kind)}   ({rep.total} examples)")
        self._show_per_class(rep, kind)
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
        names = list(rep.label_names or [])

        def named(k: int) -> str:   # the class's name, as the confusion matrix says it
            return names[k] if 0 <= k < len(names) else str(k)

        for table, rows in ((self.boundary, rep.boundary), (self.mistakes, rep.mistakes)):
            table.setRowCount(len(rows))
            for r, row in enumerate(rows):
                text = row.text_a + (f"  ||  {row.text_b}" if row.text_b else "")
                for c, value in enumerate((row.index + 1, named(row.label), named(row.prediction),
                                           f"{row.confidence:.3f}", text)):
                    table.setItem(r, c, QTableWidgetItem(str(value)))
            fit_columns(table)   # numbers and class names whole, the text column at least 120 px

    def _show_per_class(self, rep, kind: str) -> None:
        """Precision, recall, F1 and support of every class by name, then macro and weighted F1 and, when the
        run named classes for it, F_avg (scaled as the metric table says)."""
        per = getattr(rep, "per_class", None) or {}
        f1 = metric_label("f1", kind)
        self.per_class.setHorizontalHeaderLabels([metric_label("precision", kind), metric_label("recall", kind), f1,
                                                  "support"])
        rows = [(n, [to_display("precision", v["precision"], kind), to_display("recall", v["recall"], kind),
                     to_display("f1", v["f1"], kind), v["support"]]) for n, v in per.items()]
        if per:
            rows.append(("macro average", ["", "", to_display("macro_f1", rep.macro_f1, kind), rep.total]))
            rows.append(("weighted average", ["", "", to_display("weighted_f1", rep.weighted_f1, kind), rep.total]))
            if rep.f_avg is not None:
                rows.append((f"F_avg ({', '.join(rep.f1_classes)})", ["", "", to_display("f_avg", rep.f_avg, kind), ""]))
        self.per_class.setRowCount(len(rows))
        self.per_class.setVerticalHeaderLabels([n for n, _ in rows])
        for i, (_, values) in enumerate(rows):
            for j, v in enumerate(values):
                text = f"{v:.2f}" if isinstance(v, float) else str(v)
                self.per_class.setItem(i, j, QTableWidgetItem(text))
        self.per_class.resizeColumnsToContents()
        self.per_class.setFixedHeight(40 + 30 * len(rows))

    def open_calibration(self):
        """The calibration view (explorer/ui/inspectors/calibration_view.py) of the dev logits shown now."""
        from explorer.core.calibration import honest_temperature

        from .calibration_view import CalibrationView

        rep = self.report
        if rep is None or getattr(rep, "logits", None) is None:
            return None
        loaded = self.get_loaded()
        source = str(getattr(loaded, "source", "") or "") if loaded is not None else ""
        try:
            cal = honest_temperature(rep.logits, rep.labels, source=f"{source} on {self.path.text().strip()}")
        except ValueError as exc:
            self.status.setText(f"calibration: {exc}")
            return None
        if self.calibration_view is None:
            self.calibration_view = CalibrationView()
            self.calibration_view.resize(1100, 520)
        self.calibration_view.set_calibration(cal, source)
        self.calibration_view.show()
        self.calibration_view.raise_()
        return self.calibration_view

    def _clicked(self, table: QTableWidget, r: int) -> None:
        if self.report is None or type(self.report).__name__ == "MultiLabelDevReport":
            return
        if not self.source.is_for(self.get_loaded()):   # (the table is cleared on a switch; never open A's rows in B)
            return
        if type(self.report).__name__ == "RegressionDevReport":
            rows = self.report.worst if table is self.mistakes else []
        else:
            rows = self.report.boundary if table is self.boundary else self.report.mistakes
        if 0 <= r < len(rows):
            self.open_requested.emit(_dev_example(self._kind, rows[r]))

    def _show_regression(self, rep) -> None:
        """Pearson / Spearman / MSE, predicted against gold with the identity line, the largest errors."""
        from explorer.core.classify import score_column_words

        settings = self.table_settings()
        self.scatter.setLabel("bottom", "gold " + score_column_words(settings.get("label_column", ""),
                                                                     bool(settings.get("no_header"))))
        from explorer.core.baselines import narrow_scores_note

        narrow = narrow_scores_note(rep.predicted, rep.gold)   # a flat scatter says why
        self.status.setText(f"{rep.total} dev examples scored" + (f"; {narrow}" if narrow else ""))
        kind = self._kind
        self.metrics.setText(f"{format_metric('pearson', rep.pearson, kind)}   {format_metric('spearman', rep.spearman, kind)}"
                             f"   {format_metric('mse', rep.mse, kind)}   ({rep.total} examples; on the dashed identity "
                             "line = predicted exactly)")
        gold, pred = np.asarray(rep.gold, dtype=float), np.asarray(rep.predicted, dtype=float)
        self._points.setData(gold, pred)
        if gold.size:
            lo, hi = float(min(gold.min(), pred.min())), float(max(gold.max(), pred.max()))
            self._identity.setData([lo, hi], [lo, hi])
        else:
            self._identity.setData([], [])
        self._titles[1].setText("Largest errors |predicted - gold|")
        self.mistakes.setHorizontalHeaderLabels(["#", "gold", "predicted", "error", "text"])
        self.mistakes.setRowCount(len(rep.worst))
        for r, row in enumerate(rep.worst):
            text = row.text_a + (f"  ||  {row.text_b}" if row.text_b else "")
            for c, value in enumerate((row.index + 1, f"{row.gold:.3f}", f"{row.predicted:.3f}", f"{row.error:+.3f}",
                                       text)):
                self.mistakes.setItem(r, c, QTableWidgetItem(str(value)))
        fit_columns(self.mistakes)

    def _show_multilabel(self, rep) -> None:
        """Micro / macro F1 and subset accuracy at the saved thresholds; one row per label."""
        self.status.setText(f"{rep.total} dev examples scored")
        kind = self._kind
        self.metrics.setText(f"{format_metric('micro_f1', rep.micro_f1, kind)}   {format_metric('macro_f1', rep.macro_f1, kind)}"
                             f"   {format_metric('subset_accuracy', rep.subset_accuracy, kind)}   (at the checkpoint's "
                             f"thresholds; {rep.total} examples)")
        k = len(rep.label_names)
        self.confusion.setRowCount(k)
        self.confusion.setColumnCount(3)
        self.confusion.setHorizontalHeaderLabels(["threshold τ", metric_label("f1"), "support"])
        self.confusion.setVerticalHeaderLabels(list(rep.label_names))
        for i in range(k):
            for j, value in enumerate((f"{rep.thresholds[i]:.2f}", f"{to_display('f1', rep.label_f1[i], kind):.2f}", str(int(rep.support[i])))):
                self.confusion.setItem(i, j, QTableWidgetItem(value))
        self.confusion.resizeColumnsToContents()
        self.confusion.setFixedHeight(40 + 30 * min(k, 10))

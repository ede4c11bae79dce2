"""The classification dev-set tab: accuracy, F1, MCC, the confusion matrix, the examples nearest the
decision boundary and the most confident mistakes (explorer.core.classify.dev_report). Clicking an example opens
it in the Classify tab (signal ``open_requested``).

A regression head shows Pearson, Spearman and MSE, predicted against gold as a scatter with the identity
line (on it = predicted exactly), and the largest errors; a multi-label head shows micro / macro F1, subset
accuracy and a per-label table (threshold, F1, support). What the page fills in and says is
explorer.ui.inspectors.components.classify_dev's; the scatter and the example lists are
explorer.ui.inspectors.classify_dev_panels."""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QPushButton, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from explorer.core.specs.metric_display import metric_label
from explorer.core.specs.tasks import find_task_facts
from explorer.ui.runs.best_rows import scored_rows_note
from explorer.ui.shell.class_names import set_header_names
from explorer.ui.shell.scrolling import scrolling, wheel_passes_to_page_at_end, wheel_scrolls_page

from .classify_dev_fields import DevDataFields
from .classify_dev_panels import ExampleLists, ResultsSplit, ScoreScatter, fill_rows
from .client import shared_client
from .common import ResultSource, StatusLabel, header
from .components.classify_dev import (CLASSIFIER, ERROR_HEADERS, EXAMPLE_HEADERS, MULTILABEL, NO_MODEL, REGRESSION,
                                      ROW_NAME_CHARS, cell, classifier_metrics, clicked_rows,
                                      confusion_titles, dev_example, error_rows,
                                      example_rows, label_rows, loading_line, model_line, multilabel_metrics,
                                      page_heading, per_class_table, queued_line,
                                      per_class_tips, regression_metrics, report_kind)
from .job_bar import JobBar
from .remote import RemoteJob

MISTAKES_LIST_TITLE = "Most confident mistakes"
# the errors keep their sign (over- or under-prediction), so the title names the signed difference and the order
REGRESSION_LIST_TITLE = "Largest errors by size: predicted - gold (+ too high, - too low)"
WIDE_NAME_PX = 340   # px: a row title beside short number columns (a cut confusion matrix, the per-class table)


class ClassifyDevView(QWidget):
    """Dev-set view. ``get_loaded()`` / ``get_kind()`` read the Classify tab's model and head kind."""

    open_requested = Signal(dict)

    def __init__(self, get_loaded: Callable, get_kind: Callable[[], str], parent=None, *, client=None):
        super().__init__(parent)
        self.get_loaded, self.get_kind = get_loaded, get_kind
        self.report, self._kind = None, "single"
        self._job = self._remote_job(client)
        self.source = ResultSource(self.clear_results)   # which model the table is of; cleared on a switch
        self._data_of = ""
        self._loading = ""   # the source Classify is loading: a press of Score waits for it
        self._queued = False        # Score was pressed while it loaded: scoring starts once the model is in
        self._model_arrived = False   # a model came in since the load began (a failed load brings none)
        run = self.score_button = QPushButton("Score dev set")
        run.clicked.connect(self.run)
        self.calibrate = QPushButton("Calibration...")
        self.calibrate.setToolTip("Reliability diagrams, ECE, MCE, Brier score before and after temperature scaling "
                                  "(T fitted on one half of these dev examples, shown on the other, both ways)")
        self.calibrate.setEnabled(False)
        self.calibrate.clicked.connect(self.open_calibration)
        self.calibration_view = None
        # which dev rows are scored, the two buttons at the end of the file's row; their parts by their old names
        fields = self.fields = DevDataFields((run, self.calibrate))
        self.path, self.cap, self.prefill = fields.path, fields.cap, fields.prefill
        self.text_columns, self.label_column = fields.text_columns, fields.label_column
        self.no_header, self.only_split = fields.no_header, fields.only_split
        self.status = StatusLabel(NO_MODEL)
        self.metrics = QLabel("")
        # under the figures: they are optimistic (the run's dev rows repeat its training rows), in the notes' amber
        self.optimism = QLabel("")
        self.optimism.setWordWrap(True)
        self.optimism.setStyleSheet("color: #8a5a00;")
        self.optimism.setVisible(False)
        self._optimism_of = ""   # the line of the rows asked for last (components.classify_dev.RunPrefill)
        layout = QVBoxLayout(self)
        # one line at 1280x800 (the tables get the height), saying what this model's head shows (_say_model)
        self.top_line = header("")
        for w in (self.top_line, fields, self.status, self.job_bar, self.source.label, self.metrics, self.optimism):
            layout.addWidget(w)
        layout.addWidget(self._results_area(), 1)

    def _remote_job(self, client) -> RemoteJob:
        """The scoring job: it runs in the inspector child, with progress after every batch (``job_bar``) and
        Cancel between batches."""
        job = RemoteJob(client or shared_client(), self)
        job.finished.connect(self._arrived)
        job.failed.connect(lambda msg, _tb: self._ended(msg))
        job.cancelled.connect(lambda: self._ended("cancelled: nothing scored is shown"))
        self.job_bar = JobBar("dev rows")
        job.progress.connect(self.job_bar.set_progress)
        self.job_bar.cancel_requested.connect(job.cancel)
        return job

    def _results_area(self) -> QWidget:
        """The confusion matrix (a multi-label head's per-label table), the per-class table, the regression
        scatter and the two example lists, in a split that scrolls where the page is lower than their minimums."""
        self.confusion = QTableWidget(0, 0)
        # per class: precision, recall, F1, support, then the averages (the run's own dev figures, by name)
        self.per_class = QTableWidget(0, 4)
        self.per_class.setVisible(False)
        self.scatter = ScoreScatter()
        self._points, self._identity = self.scatter.points, self.scatter.identity
        self.scatter.setVisible(False)
        lists = self.lists = ExampleLists()
        self.boundary, self.mistakes = lists.boundary, lists.mistakes
        for table in (self.boundary, self.mistakes):
            table.cellClicked.connect(lambda r, _c, table=table: self._clicked(table, r))
        self.results = ResultsSplit(self.confusion, self.per_class, self.scatter, lists)
        # the results scroll up and down where the page is lower than their minimums (a per-class table of many
        # classes keeps PER_CLASS_ROWS rows): the lists below stay reachable, by the wheel over a table too
        self.results_scroll = scrolling(self.results, horizontal=False)
        for table in (self.confusion, self.per_class, self.boundary, self.mistakes):
            wheel_passes_to_page_at_end(table)
        wheel_scrolls_page(self.results)   # the wheel over the predicted-against-gold plot scrolls; Ctrl+wheel zooms
        return self.results_scroll

    def prefill_from_run(self, source: str) -> bool:
        """Fill the dev file, its cap and the column picker from the run's config.json when ``source`` is a run
        checkpoint (runs/<id>/checkpoints/best); fields the user typed are kept. True when a run was found
        (DevDataFields.prefill_from_run)."""
        return self.fields.prefill_from_run(source)

    def showEvent(self, event) -> None:  # noqa: N802 - Qt API
        """Pre-fill from the run of the model loaded in Classify when the tab is shown."""
        super().showEvent(event)
        loaded = self.get_loaded()
        self.fields.prefill_for_model(model_source(loaded))
        self._say_model()

    def _say_model(self) -> None:
        """Before a table is shown, the status line says which model Score dev set uses: the one loaded in
        Classify (it never asks for a model while one is loaded there), the one loading, else how to get one.
        The heading names what the shown report's head, else the loaded model's head, shows."""
        text, tip = page_heading(self._kind if self.report is not None else self.get_kind())
        self.top_line.setText(text)
        self.top_line.setToolTip(tip)
        if self.report is None:   # the lists' titles and columns of the chosen head's task, before any scoring
            self._lists_for_kind(self.get_kind())
        if self.report is None and not self._job.running:   # a table, or one on its way, says more
            self.status.setText(loading_line(self._loading, self.prefill.prefilled_for == self._loading
                                             and bool(self.prefill.settings)) if self._loading
                                else model_line(self.get_loaded()))

    def _lists_for_kind(self, kind: str) -> None:
        """The example lists titled for ``kind``'s report: a regression head's largest errors alone, else the
        classifier's two lists."""
        facts = find_task_facts(kind)
        regression = facts is not None and facts.is_regression
        self.lists.boundary_box.setVisible(not regression)
        if regression:
            self.lists.show_mistakes(REGRESSION_LIST_TITLE, ERROR_HEADERS, [])
        else:
            self.lists.show_mistakes(MISTAKES_LIST_TITLE, EXAMPLE_HEADERS, [])

    def model_loading(self, source: str) -> None:
        """Classify started loading ``source``: its run's dev file, cap and columns are filled in now (they come
        from the run's config.json, not the model), and a press of Score dev set until the load ends is kept and
        run once the model is in (:meth:`run`, :meth:`load_ended`)."""
        self._loading = source
        self._model_arrived = False
        self.score_button.setToolTip(f"{source} is loading in Classify: a press scores the dev set once it is in")
        self.fields.prefill_for_model(source)
        self._say_model()

    def load_ended(self) -> None:
        """Classify's load ended (the model is in, or it failed): a press kept meanwhile scores the dev set with the
        new model now; after a failed load it is dropped, and the status line says nothing was scored."""
        loading, self._loading = self._loading, ""
        self.score_button.setToolTip("")
        queued, self._queued = self._queued, False
        if queued and self._model_arrived:
            self.run()
            return
        self._say_model()
        if queued:
            self.status.setText(f"{loading} did not load in Classify: the dev set was not scored "
                                "(see Classify's status line).")

    def table_settings(self) -> dict:
        """The table settings sent with the request: the picker's columns, plus the run's encoding, id column,
        label names and the classes its F_avg averages (f1_classes) (DevDataFields.table_settings)."""
        return self.fields.table_settings()

    def masking_dev_set(self) -> dict | None:
        """This page's dev file, first-N and table settings as the fields of Classify's "Heads off ... and on the
        dev set" (the run's held-out split, which needs the training file's split record, is not among them)."""
        from .components.head_masking import dev_fields

        settings = {k: v for k, v in self.table_settings().items() if k != "dev_split"}
        return dev_fields(self.fields.path_to_read(), self.cap.value(), self.get_kind(), settings)

    def run(self) -> None:
        loaded = self.get_loaded()
        if self._loading:   # the model the run's rows are for is not in yet: score once it is (load_ended)
            self._queued = True
            self.status.setText(queued_line(self._loading))
            return
        if loaded is None:
            self.status.setText("no model: load one in the Classify tab first")
            return
        self.fields.prefill_for_model(model_source(loaded))
        self._kind = self.get_kind()
        held_out = "dev_split" in self.table_settings()
        split = " (the run's held-out dev rows)" if held_out else ""
        self.clear_results()   # the previous table never stays beside a new request: a stale result is not shown
        self.status.setText(f"scoring {self.path.text()}{split} ...")
        self.source.ask(loaded)
        self._data_of = self.path.text().strip()
        self._optimism_of = self.prefill.overlap_line(self.path.text(), held_out)
        self.job_bar.start()
        self._job.start("classify_dev", {"slot": loaded.slot, "kind": self._kind,
                                         "path": self.fields.path_to_read(),
                                         "cap": self.cap.value() or None, "settings": self.table_settings()})

    def _ended(self, message: str) -> None:
        """The job failed or was cancelled: the bar goes, the status says why."""
        self.job_bar.finish()
        self.status.setText(message)

    def _arrived(self, rep) -> None:
        self.job_bar.finish()
        name = self.source.take()
        if name is None:   # asked of the model before the one loaded now: its rows would open with the new one
            return
        self.show_report(rep, self._kind, model=name, data=self._data_of, optimism=self._optimism_of)

    def model_changed(self, loaded) -> None:
        """The Classify tab's model is ``loaded`` now: a table of another model is cleared (with a one-line note
        naming both), and a request still running for it is dropped when it answers."""
        self._model_arrived = loaded is not None
        self.source.model_changed(loaded)
        if self.isVisible():   # in view: the new run's file now
            self.fields.prefill_for_model(model_source(loaded))
        self._say_model()

    def clear_results(self) -> None:
        """Empty every table, the metrics line and the scatter; close the calibration window (of those logits)."""
        self.report = None
        self.metrics.setText("")
        self.optimism.setText("")
        self.optimism.setVisible(False)
        for table in (self.confusion, self.boundary, self.mistakes):
            table.setRowCount(0)
        self.confusion.setColumnCount(0)
        self.confusion.setVisible(False)   # (show_report shows it again)
        self.per_class.setRowCount(0)
        self.per_class.setVisible(False)
        self.scatter.clear_scores()
        self.scatter.setVisible(False)   # a regression report's plot: the next report shows the layout of its kind
        self.calibrate.setEnabled(False)
        if self.calibration_view is not None:
            self.calibration_view.close()
        self.status.setText("")

    def show_report(self, rep, kind: str = "single", *, model: str | None = None, data: str = "",
                    optimism: str = "") -> None:
        """Render a ClassificationDevReport, a RegressionDevReport or a MultiLabelDevReport; ``model`` and
        ``data`` name the model and dev file it is of (shown above the tables); ``optimism``: why its figures read
        better than new rows would score them (the line under the figures; "": nothing to say)."""
        self.report, self._kind = rep, kind
        self.optimism.setText(f"! {optimism}" if optimism else "")
        self.optimism.setVisible(bool(optimism))
        self.source.show(model, data)
        self._say_model()   # the heading of this report's kind
        name = report_kind(rep)
        self.scatter.setVisible(name == REGRESSION)
        self.lists.boundary_box.setVisible(name == CLASSIFIER)
        self.calibrate.setEnabled(name == CLASSIFIER and getattr(rep, "logits", None) is not None and rep.total >= 4)
        self.mistakes.parentWidget().setVisible(name != MULTILABEL)
        self.confusion.setVisible(name != REGRESSION)
        self.per_class.setVisible(name == CLASSIFIER and bool(getattr(rep, "per_class", None)))
        if name == REGRESSION:
            return self._show_regression(rep)
        if name == MULTILABEL:
            return self._show_multilabel(rep)
        rows = scored_rows_note(self.prefill.best_rows(), rep.total)   # why the Runs list's figure may differ
        self.status.setText(f"{rep.total} dev examples scored" + (f"; {rows}" if rows else ""))
        self.metrics.setText(classifier_metrics(rep, kind))
        self._show_per_class(rep, kind)
        k = rep.confusion.shape[0]
        self.confusion.setRowCount(k)
        self.confusion.setColumnCount(k)
        titles = confusion_titles(rep.label_names)   # names cut to share the width where they do not fit whole
        set_header_names(self.confusion, Qt.Orientation.Horizontal, titles.columns,
                         tips=titles.column_tips if titles.cut else None)
        if titles.cut:   # a row title has room for its class's name up to ROW_NAME_CHARS
            set_header_names(self.confusion, Qt.Orientation.Vertical, titles.rows, px=WIDE_NAME_PX,
                             limit=ROW_NAME_CHARS + 5, tips=titles.row_tips)
        else:
            set_header_names(self.confusion, Qt.Orientation.Vertical, titles.rows)
        for i in range(k):
            for j in range(k):
                self.confusion.setItem(i, j, QTableWidgetItem(str(int(rep.confusion[i, j]))))
        self.confusion.resizeColumnsToContents()
        self.results.fit()
        names = list(rep.label_names or [])
        fill_rows(self.boundary, example_rows(rep.boundary, names))
        self.lists.show_mistakes(MISTAKES_LIST_TITLE, EXAMPLE_HEADERS, example_rows(rep.mistakes, names))

    def _show_per_class(self, rep, kind: str) -> None:
        """Precision, recall, F1 and support of every class by name, then the averages (components.classify_dev)."""
        titles, rows = per_class_table(rep, kind)
        self.per_class.setHorizontalHeaderLabels(titles)
        self.per_class.setRowCount(len(rows))
        # beside four short columns: a class name of a few words whole ("No emotion toward brand or product")
        set_header_names(self.per_class, Qt.Orientation.Vertical, [n for n, _ in rows], px=WIDE_NAME_PX)
        tips = per_class_tips(rep)
        for i, (name, _) in enumerate(rows):
            if name in tips:
                self.per_class.verticalHeaderItem(i).setToolTip(tips[name])
        for i, (_, values) in enumerate(rows):
            for j, v in enumerate(values):
                self.per_class.setItem(i, j, QTableWidgetItem(cell(v)))
        self.per_class.resizeColumnsToContents()

    def open_calibration(self):
        """The calibration view (explorer/ui/inspectors/calibration_view.py) of the dev logits shown now."""
        from explorer.core.metrics.calibration import honest_temperature

        from .calibration_view import CalibrationView

        rep = self.report
        if rep is None or getattr(rep, "logits", None) is None:
            return None
        loaded = self.get_loaded()
        source = model_source(loaded)
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
        if self.report is None:
            return
        if not self.source.is_for(self.get_loaded()):   # (the table is cleared on a switch; never open A's rows in B)
            return
        rows = clicked_rows(self.report, table is self.mistakes)
        if 0 <= r < len(rows):
            self.open_requested.emit(dev_example(self._kind, rows[r]))

    def _show_regression(self, rep) -> None:
        """Pearson / Spearman / MSE, predicted against gold with the identity line, the largest errors; the status
        line says when the predictions are no better than the gold mean (R² 0 or less) or sit in a narrow band."""
        from explorer.core.metrics.baselines import SCORES_ADVICE, below_mean_what, narrow_scores_note
        from explorer.core.classify.arithmetic import score_column_words

        settings = self.table_settings()
        self.scatter.setLabel("bottom", "gold " + score_column_words(settings.get("label_column", ""),
                                                                     bool(settings.get("no_header"))))
        below = below_mean_what(rep.mean_figures())   # an MSE a constant would match, whatever the correlations
        narrow = narrow_scores_note(rep.predicted, rep.gold)   # a flat scatter says why (and what to try)
        said = [f"{rep.total} dev examples scored"] + ([f"the model {below}"] if below else [])
        if narrow or below:
            said.append(narrow or SCORES_ADVICE)   # the narrow band's line ends with the same advice
        self.status.setText("; ".join(said))
        self.metrics.setText(regression_metrics(rep, self._kind))
        self.scatter.show_scores(rep.gold, rep.predicted)
        self.lists.show_mistakes(REGRESSION_LIST_TITLE, ERROR_HEADERS, error_rows(rep))

    def _show_multilabel(self, rep) -> None:
        """Micro / macro F1 and subset accuracy at the saved thresholds; one row per label."""
        self.status.setText(f"{rep.total} dev examples scored")
        self.metrics.setText(multilabel_metrics(rep, self._kind))
        rows = label_rows(rep, self._kind)
        k = len(rows)
        self.confusion.setRowCount(k)
        self.confusion.setColumnCount(3)
        self.confusion.setHorizontalHeaderLabels(["threshold τ", metric_label("f1"), "support"])
        set_header_names(self.confusion, Qt.Orientation.Vertical, list(rep.label_names))
        for i, row in enumerate(rows):
            for j, value in enumerate(row):
                self.confusion.setItem(i, j, QTableWidgetItem(value))
        self.confusion.resizeColumnsToContents()
        self.results.fit()


def model_source(loaded) -> str:
    """The path or hub name Classify's model ``loaded`` was read from; "" for no model (None) or none named."""
    return str(getattr(loaded, "source", "") or "")

"""The Layer probes page: what each layer knows before and after fine-tuning. A logistic-regression probe per layer
of the base model and of the fine-tuned checkpoint (explorer.core.probing, in the inspector child), accuracy per
layer as two lines with their interval bands over seeds, the majority class dashed, and the table of numbers.
The request and the texts come from explorer.ui.inspectors.components.layer_probes.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtWidgets import (QComboBox, QFormLayout, QHBoxLayout, QLineEdit, QPushButton, QSpinBox,
                               QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from explorer.ui.shell.file_dialogs import open_file, open_folder

from .client import shared_client
from .common import StatusLabel, header
from .components.layer_probes import (DATA_HINT, MAJORITY_COLOUR, FormError, curve_series, offered_labels,
                                      request_from, summary_line, table_rows)
from .components.offered_checkpoint import CheckpointOffer, offered_note
from .job_bar import JobBar
from .remote import RemoteJob

PAGE_TITLE = "Layer probes"
TABLE_MAX_WIDTH = 480   # px: the per-layer table beside the plot, never wider


class LayerProbesView(QWidget):
    """The page. ``run_probes()`` sends the form to the child; ``show_study(ProbeStudy)`` draws a result.

    Signals come from ``job`` (explorer.ui.inspectors.remote.RemoteJob): finished, failed, cancelled, progress."""

    def __init__(self, parent=None, *, client=None):
        super().__init__(parent)
        self.client = client or shared_client()
        self.study = None
        self.offer = CheckpointOffer()
        self.job = RemoteJob(self.client, self)
        self.job.finished.connect(self.show_study)
        self.job.failed.connect(lambda msg, _tb: self._stopped(msg))
        self.job.cancelled.connect(lambda: self._stopped("cancelled"))
        self.job_bar = JobBar("probe fits", cancel_tip="Stop before the next probe fit; nothing of this study is shown")
        self.job_bar.cancel_requested.connect(self.job.cancel)
        self.job.progress.connect(self.job_bar.set_progress)
        self._build_form()
        self.plot = pg.PlotWidget(background="w")
        self.plot.setLabel("bottom", "layer (0 = embeddings)")
        self.plot.setLabel("left", "probe accuracy (%)")
        self.plot.addLegend(offset=(10, 10))
        self.plot.setMenuEnabled(False)
        self.table = QTableWidget(0, 0)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setMaximumWidth(TABLE_MAX_WIDTH)
        self.status = StatusLabel("Choose a fine-tuned checkpoint and a label, then Run probes.")
        self.status.setWordWrap(True)
        body = QHBoxLayout()
        body.addWidget(self.plot, 1)
        body.addWidget(self.table)
        layout = QVBoxLayout(self)
        layout.addWidget(header("What each layer knows, before and after fine-tuning: a linear probe per layer "
                                "of the base model and of the checkpoint (Tenney et al. 2019, in small).",
                                panel=PAGE_TITLE))
        layout.addLayout(self.form)
        layout.addWidget(self.job_bar)
        layout.addWidget(self.status)
        layout.addLayout(body, 1)

    def _build_form(self) -> None:
        self.model = QLineEdit()
        self.model.setPlaceholderText("a run's checkpoints/best")
        self.base = QLineEdit()
        self.base.setPlaceholderText("from the run's config.json (or 'none')")
        self.labels = QComboBox()
        self.labels.addItem("sentences: the run's own classes", "sentences")
        self.labels.addItem("tokens: entity tags of a CoNLL file", "tokens")
        self.data = QLineEdit()
        self.seeds = QSpinBox()
        self.seeds.setRange(1, 20)
        self.seeds.setValue(3)
        self.seeds.setToolTip("train / test splits (by sentence); the interval is Student's t over them")
        self.cap = QSpinBox()
        self.cap.setRange(0, 100000)
        self.cap.setToolTip("sentences (tokens) or texts (sentences) read; 0 = 200 / 400")
        self.pooling = QComboBox()
        self.pooling.addItems(["mean", "cls"])
        self.pooling.setToolTip("sentences: a text's vector per layer, the mean of its tokens or the first token's")
        self.run_button = QPushButton("Run probes")
        self.run_button.clicked.connect(self.run_probes)
        browse_model, browse_data = QPushButton("Browse…"), QPushButton("Browse…")
        browse_model.clicked.connect(lambda: self._browse(self.model, folder=True))
        browse_data.clicked.connect(lambda: self._browse(self.data, folder=False))
        self.labels.currentIndexChanged.connect(self._label_changed)
        self._label_changed()
        self.form = QFormLayout()
        self.form.addRow("checkpoint", self._row(self.model, browse_model))
        self.form.addRow("base model", self.base)
        self.form.addRow("label", self._row(self.labels, QWidget()))
        self.form.addRow("data", self._row(self.data, browse_data))
        self.form.addRow("splits / cap / pooling", self._row(self.seeds, self.cap, self.pooling, self.run_button,
                                                             stretch_first=False))

    @staticmethod
    def _row(*widgets, stretch_first: bool = True) -> QHBoxLayout:
        """The widgets in a row; the first takes the free width (a path field), or none does (small fields)."""
        row = QHBoxLayout()
        for k, w in enumerate(widgets):
            row.addWidget(w, 1 if k == 0 and stretch_first else 0)
        if not stretch_first:
            row.addStretch(1)
        return row

    def _label_changed(self) -> None:
        self.data.setPlaceholderText(DATA_HINT[self.labels.currentData()])
        self.pooling.setEnabled(self.labels.currentData() == "sentences")

    def _browse(self, field: QLineEdit, folder: bool) -> None:
        path = (open_folder(self, "Checkpoint folder", "model", field.text()) if folder else
                open_file(self, "Data file", "data", "", field.text()))
        if path:
            field.setText(path)

    def offer_checkpoint(self, offered) -> bool:
        """Take ``offered`` (components.offered_checkpoint) while the checkpoint field holds nothing the person chose:
        its path, and the label its head probes (a tagger's entity tags on its run's dev file). Nothing runs.
        Whether it was taken."""
        if not self.offer.takes(self.model.text(), False):
            return False
        labels, data = offered_labels(offered)
        self.model.setText(offered.path)
        self.labels.setCurrentIndex(self.labels.findData(labels))
        if data and not self.data.text().strip():
            self.data.setText(data)
        self.offer.fill(offered.path)
        self.status.setText(offered_note(offered.path, "press Run probes"))
        return True

    def form_values(self) -> dict:
        """The form as the request's fields (components.layer_probes.request_from reads them)."""
        return {"model": self.model.text(), "base": self.base.text(), "labels": self.labels.currentData(),
                "data": self.data.text(), "cap": self.cap.value(), "seeds": self.seeds.value(),
                "pooling": self.pooling.currentText()}

    def run_probes(self) -> int | None:
        """Send the form to the inspector child (lane "study": cancellable, progress per probe fit)."""
        try:
            request = request_from(self.form_values())
        except FormError as exc:
            self.status.setText(str(exc))
            return None
        self.status.setText("loading the models and reading the data, then a probe per layer and split …")
        self._busy(True)
        return self.job.start("layer_probes", request)

    def _busy(self, on: bool) -> None:
        """A study starts (the progress row, the previous study's curves cleared) or ends."""
        self.run_button.setEnabled(not on)
        if on:
            self.study = None
            self.plot.clear()
            self.table.setRowCount(0)
            self.job_bar.start()
        else:
            self.job_bar.finish()

    def _stopped(self, message: str) -> None:
        self._busy(False)
        self.status.setText(message)

    def show_study(self, study) -> None:
        """Draw a ProbeStudy: a line per model with its interval band, the majority class dashed, the table."""
        self.study = study
        self._busy(False)
        self.plot.clear()
        for s in curve_series(study):
            line = self.plot.plot(s.layers, s.mean, pen=pg.mkPen(s.colour, width=2), symbol="o", symbolSize=6,
                                  symbolBrush=s.colour, name=s.name)
            if s.low is not None:
                lo = pg.PlotDataItem(s.layers, s.low, pen=pg.mkPen(None))
                hi = pg.PlotDataItem(s.layers, s.high, pen=pg.mkPen(None))
                band = pg.FillBetweenItem(lo, hi, brush=pg.mkBrush(pg.mkColor(s.colour).red(),
                                                                   pg.mkColor(s.colour).green(),
                                                                   pg.mkColor(s.colour).blue(), 50))
                self.plot.addItem(band)
            line.setZValue(2)
        layers = study.curves[0].layers
        self.plot.getAxis("bottom").setTicks([[(k, "emb" if k == 0 else str(k)) for k in layers]])   # whole layers
        majority = pg.InfiniteLine(pos=100 * study.majority, angle=0,
                                   pen=pg.mkPen(MAJORITY_COLOUR, style=pg.QtCore.Qt.PenStyle.DashLine),
                                   label="majority class", labelOpts={"position": 0.1, "color": MAJORITY_COLOUR})
        self.plot.addItem(majority)
        headers, rows = table_rows(study)
        self.table.setColumnCount(len(headers))
        self.table.setHorizontalHeaderLabels(headers)
        self.table.setRowCount(len(rows))
        for r, cells in enumerate(rows):
            for c, text in enumerate(cells):
                self.table.setItem(r, c, QTableWidgetItem(text))
        self.table.resizeColumnsToContents()   # the table as wide as its columns (the change column in sight)
        wanted = sum(self.table.columnWidth(c) for c in range(self.table.columnCount())) + 2 * self.table.frameWidth()
        self.table.setFixedWidth(min(wanted + self.table.verticalScrollBar().sizeHint().width(), TABLE_MAX_WIDTH))
        self.status.setText(summary_line(study))


class LayerProbesPages:
    """The registry's page set of the Layer probes page: the checkpoint opened last in another page fills its
    checkpoint field while the field holds nothing the person chose (components.offered_checkpoint)."""

    def __init__(self, view: LayerProbesView):
        self.pages = {PAGE_TITLE: view}

    def offer_checkpoint(self, title: str, offered) -> bool:
        return self.pages[title].offer_checkpoint(offered)


def page_set(window) -> LayerProbesPages:
    """The registry's provider of the Layer probes page (kept as ``window.layer_probes_page``)."""
    window.layer_probes_page = LayerProbesView()
    return LayerProbesPages(window.layer_probes_page)

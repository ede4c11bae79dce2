"""The Embeddings page: one point per occurrence of a word in context (or per text of a file), in 2-D, layer by
layer, for one model or a model before and after fine-tuning.

All the work runs in the inspector child (explorer/worker/inspect_ops.py: ``embed``, ``embed_project``,
``embed_neighbours``, ``embed_export``; explorer.core.embeddings): embedding and t-SNE are RemoteJobs with
progress and cancel, the neighbours and exports quick requests. The GUI keeps only the summary (texts, colour
columns) and the 2-D coordinates it draws with one pyqtgraph ScatterPlotItem in pixel mode.
"""

from __future__ import annotations

import html
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QCheckBox, QComboBox, QFileDialog, QGridLayout, QHBoxLayout, QLabel, QLineEdit,
                               QListWidget, QListWidgetItem, QProgressBar, QPushButton, QSlider, QSpinBox, QSplitter,
                               QVBoxLayout, QWidget)

from explorer.core.embeddings import POOLINGS, PROJECTION_LABELS, available_projections, highlighted

from .client import shared_client
from .common import StatusLabel, header
from .latest import LatestOnly
from .remote import CANCELLED_NOTE, RemoteJob

PAGE_TITLE = "Embeddings"
MODES = {"word in context": "word", "sentences": "sentences"}
STATIC_COLOUR = QColor(0, 0, 0)
# a categorical palette (Tableau 10), then grey for the rest ("other")
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
           "#17becf"]
OTHER = "#c7c7c7"
NO_COLOUR, KMEANS, BY_LAYER = "(one colour)", "k-means clusters", "layer"


def categorical_colours(values: list[str]) -> tuple[list[str], list[tuple[str, str, int]]]:
    """A colour per value (the most frequent values get the palette, the rest grey) and the legend:
    [(value, colour, count)], most frequent first."""
    counts: dict[str, int] = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    order = sorted(counts, key=lambda v: (-counts[v], v))
    colour = {v: PALETTE[k] if k < len(PALETTE) else OTHER for k, v in enumerate(order)}
    legend = [(v, colour[v], counts[v]) for v in order[:len(PALETTE)]]
    rest = sum(counts[v] for v in order[len(PALETTE):])
    if rest:
        legend.append((f"{len(order) - len(PALETTE)} other values", OTHER, rest))
    return [colour[v] for v in values], legend


def highlighted_html(text: str, start: int, end: int, width: int = 160) -> str:
    """The text with the word (characters start:end) in bold on yellow, ``width`` characters each side."""
    if start < 0:
        return html.escape(text[: 2 * width])
    before, word, after = highlighted(text, start, end, width)
    return (f"{html.escape(before)}<b style='background:#ffe066'>{html.escape(word)}</b>{html.escape(after)}")


class EmbeddingsView(QWidget):
    """The page. Signals: ``space_ready(summary)`` after an embed, ``drawn(projection)`` after a map is drawn,
    ``neighbours_ready(list)`` after a click, ``exported(dict)`` after an export (paths written)."""

    space_ready = Signal(object)
    drawn = Signal(object)
    neighbours_ready = Signal(object)
    exported = Signal(object)

    def __init__(self, parent=None, *, client=None):
        super().__init__(parent)
        self.client = client or shared_client()
        self.summary = None
        self.projection = None
        self._cache: dict[tuple, object] = {}
        self._pending_key: tuple = ()
        self._selected = (0, -1)
        self._embed_job = RemoteJob(self.client, self)
        self._embed_job.progress.connect(self._on_progress)
        self._embed_job.finished.connect(self._on_space)
        self._embed_job.failed.connect(lambda msg, _tb: self._stopped(msg))
        self._embed_job.cancelled.connect(lambda: self._stopped(CANCELLED_NOTE))
        self._map_job = RemoteJob(self.client, self)
        self._map_job.progress.connect(self._on_progress)
        self._map_job.finished.connect(self._on_projection)
        self._map_job.failed.connect(lambda msg, _tb: self._stopped(msg))
        self._map_job.cancelled.connect(lambda: self._stopped(CANCELLED_NOTE))
        self._near = LatestOnly.in_child(self.client, "embed.neighbours", self)
        self._near.finished.connect(lambda _id, value: self._on_neighbours(value))
        self._near.failed.connect(lambda _id, msg, _tb: self.status.setText(msg))
        self._export = LatestOnly.in_child(self.client, "embed.export", self)
        self._export.finished.connect(lambda _id, value: self._on_exported(value))
        self._export.failed.connect(lambda _id, msg, _tb: self.status.setText(msg))
        self._build()

    # ------------------------------------------------------------------------------------------- layout
    def _build(self) -> None:
        """The page: the inputs, the run row, the map row, the plot beside the side panel, the status line."""
        form, run_row = self._build_inputs()
        map_row = self._build_map_row()
        self._build_plot()
        split = self._build_side()
        self.status = StatusLabel("Choose a corpus and a word, then press Embed.")
        self.status.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(header("One point per occurrence of a word in its context (or per text), at any layer: "
                                "where its senses separate, and what fine-tuning moved.", PAGE_TITLE))
        layout.addLayout(form)
        layout.addLayout(run_row)
        layout.addLayout(map_row)
        layout.addWidget(split, 1)
        layout.addWidget(self.status)
        self._mode_changed(self.mode.currentText())


    def _build_inputs(self) -> tuple[QGridLayout, QHBoxLayout]:
        """Model A / B, the corpus and its text column; mode, word, pooling, cap, Embed / Cancel and progress."""
        self.model = QLineEdit("bundled:minilm")
        self.model.setToolTip("Model A: a checkpoint folder, a hub id or bundled:minilm (the offline encoder)")
        self.model_b = QLineEdit()
        self.model_b.setPlaceholderText("optional: model B (e.g. the fine-tuned checkpoint) in the same map")
        self.corpus = QLineEdit()
        self.corpus.setPlaceholderText("a .txt file (one text per line), a CSV / TSV / JSONL / xlsx table, a SQuAD "
                                       ".json file or a run folder")
        self.text_column = QLineEdit()
        self.text_column.setPlaceholderText("text column (auto)")
        self.text_column.setMaximumWidth(150)
        browse = [QPushButton("Browse…") for _ in range(3)]
        browse[0].clicked.connect(lambda: self._browse_folder(self.model))
        browse[1].clicked.connect(lambda: self._browse_folder(self.model_b))
        browse[2].clicked.connect(self._browse_corpus)
        self.mode = QComboBox()
        self.mode.addItems(list(MODES))
        self.mode.setToolTip("word in context: one point per occurrence of the word; sentences: one point per text")
        self.word = QLineEdit()
        self.word.setPlaceholderText("word or phrase")
        self.word.setMaximumWidth(180)
        self.word.returnPressed.connect(self.embed)
        self.case = QCheckBox("match case")
        self.pooling = QComboBox()
        self.pooling.addItems(list(POOLINGS))
        self.pooling.setToolTip("sentences: [CLS], the pooler output, or the attention-masked mean of the tokens")
        self.cap = QSpinBox()
        self.cap.setRange(0, 100_000)
        self.cap.setSingleStep(500)
        self.cap.setValue(2000)
        self.cap.setToolTip("at most this many occurrences (spread evenly over the corpus) or texts; 0 = all")
        self.cap.setPrefix("max ")
        self.cap.setSpecialValueText("all occurrences")
        self.embed_button = QPushButton("Embed")
        self.embed_button.clicked.connect(self.embed)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.mode.currentTextChanged.connect(self._mode_changed)


        form = QGridLayout()
        form.addWidget(QLabel("Model"), 0, 0)
        form.addWidget(self.model, 0, 1)
        form.addWidget(browse[0], 0, 2)
        form.addWidget(QLabel("vs B"), 0, 3)
        form.addWidget(self.model_b, 0, 4)
        form.addWidget(browse[1], 0, 5)
        form.addWidget(QLabel("Corpus"), 1, 0)
        corpus_row = QHBoxLayout()
        corpus_row.addWidget(self.corpus, 1)
        corpus_row.addWidget(browse[2])
        corpus_row.addWidget(self.text_column)
        form.addLayout(corpus_row, 1, 1, 1, 5)
        form.setColumnStretch(1, 1)
        form.setColumnStretch(4, 1)
        run_row = QHBoxLayout()
        for w in (self.mode, self.word, self.case, self.pooling, self.cap, self.embed_button, self.cancel_button):
            run_row.addWidget(w)
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(220)
        self.progress.setVisible(False)
        run_row.addWidget(self.progress)
        run_row.addStretch(1)

        return form, run_row

    def _build_map_row(self) -> QHBoxLayout:
        """The layer slider, the projection, the colouring and the static-embedding star."""
        self.layer = QSlider(Qt.Orientation.Horizontal)
        self.layer.setRange(0, 0)
        self.layer.setPageStep(1)
        self.layer.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.layer.setToolTip("the layer drawn: 0 = the input embeddings ... the last encoder layer; every layer "
                              "in one shared frame")
        self.layer.valueChanged.connect(self._layer_changed)
        self.layer_label = QLabel("layer –")
        self.layer_label.setMinimumWidth(150)
        self.method = QComboBox()
        for key in available_projections():
            self.method.addItem(PROJECTION_LABELS[key], key)
        self.method.setToolTip("PCA: one projection fitted on all layers; t-SNE / UMAP: fitted on the layer, then "
                               "rotated onto the PCA frame (orthogonal Procrustes). UMAP appears when umap-learn "
                               "is installed.")
        self.method.currentIndexChanged.connect(lambda _i: self.redraw())
        self.colour = QComboBox()
        self.colour.addItems([NO_COLOUR, KMEANS, BY_LAYER])
        self.colour.currentTextChanged.connect(lambda _t: self.redraw())
        self.k = QSpinBox()
        self.k.setRange(2, 30)
        self.k.setValue(4)
        self.k.setPrefix("k = ")
        self.k.valueChanged.connect(lambda _v: self.colour.currentText() == KMEANS and self.redraw())
        map_row = QHBoxLayout()
        map_row.addWidget(QLabel("Layer"))
        map_row.addWidget(self.layer, 1)
        map_row.addWidget(self.layer_label)
        map_row.addWidget(QLabel("Map"))
        map_row.addWidget(self.method)
        map_row.addWidget(QLabel("Colour by"))
        map_row.addWidget(self.colour)
        map_row.addWidget(self.k)
        self.show_static = QCheckBox("★ input embedding")
        self.show_static.setChecked(True)
        self.show_static.setToolTip("draw the word's static input embedding (one point per vocabulary item); at "
                                    "the upper layers it lies far from the points in context")
        self.show_static.toggled.connect(lambda _on: self.projection is not None and self._draw(self.projection))
        map_row.addWidget(self.show_static)

        return map_row

    def _build_plot(self) -> None:
        """The scatter plot with its hover, static-embedding and selection items."""
        self.plot = pg.PlotWidget(background="w")
        self.plot.setMenuEnabled(False)
        self.plot.hideAxis("left")
        self.plot.hideAxis("bottom")
        self.plot.setAspectLocked(False)
        self.scatter = pg.ScatterPlotItem(pxMode=True, size=7, hoverable=True, hoverSize=11,
                                          hoverPen=pg.mkPen("k", width=1.5), tip=None)
        self.scatter.sigHovered.connect(self._hovered)
        self.scatter.sigClicked.connect(self._clicked)
        self.plot.addItem(self.scatter)
        self.static_item = pg.ScatterPlotItem(pxMode=True, size=20, symbol="star", pen=pg.mkPen("k", width=1.5),
                                              brush=pg.mkBrush("#ffd400"))
        self.plot.addItem(self.static_item)
        self.static_label = pg.TextItem("", color="k", anchor=(0, 1))
        self.plot.addItem(self.static_label)
        self.selected_item = pg.ScatterPlotItem(pxMode=True, size=14, symbol="o", pen=pg.mkPen("r", width=2.5),
                                                brush=pg.mkBrush(0, 0, 0, 0))
        self.plot.addItem(self.selected_item)

    def _build_side(self) -> QSplitter:
        """The side panel (hover text, legend, nearest neighbours, notes, exports) split beside the plot."""
        self.hover = QLabel("Hover over a point to read its sentence; click it for its nearest neighbours.")
        self.hover.setWordWrap(True)
        self.hover.setTextFormat(Qt.TextFormat.RichText)
        self.hover.setMinimumHeight(90)
        self.hover.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.legend = QLabel("")
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setWordWrap(True)
        self.neighbours = QListWidget()
        self.neighbours.setWordWrap(True)
        self.neighbours.setToolTip("the 10 points nearest the clicked one by cosine similarity in the original "
                                   "space (not in the 2-D map); double-click one to select it")
        self.neighbours.itemDoubleClicked.connect(lambda item: self.select(int(item.data(Qt.ItemDataRole.UserRole))))
        self.notes = QLabel("")
        self.notes.setWordWrap(True)
        self.notes.setStyleSheet("color: #555;")
        self.export_projector = QPushButton("Projector TSVs…")
        self.export_projector.setToolTip("vectors.tsv + metadata.tsv (+ projector_config.pbtxt, coordinates.csv) of "
                                         "the layer shown: open them in TensorBoard or projector.tensorflow.org")
        self.export_projector.clicked.connect(self._ask_projector)
        self.export_csv = QPushButton("CSV…")
        self.export_csv.setToolTip("the 2-D coordinates shown, with each point's text and columns")
        self.export_csv.clicked.connect(self._ask_csv)
        self.export_png = QPushButton("PNG…")
        self.export_png.clicked.connect(lambda: self._ask_image("png"))
        self.export_svg = QPushButton("SVG…")
        self.export_svg.clicked.connect(lambda: self._ask_image("svg"))
        for b in (self.export_projector, self.export_csv, self.export_png, self.export_svg):
            b.setEnabled(False)
        exports = QHBoxLayout()
        for b in (self.export_projector, self.export_csv, self.export_png, self.export_svg):
            exports.addWidget(b)

        side = QWidget()
        sl = QVBoxLayout(side)
        sl.setContentsMargins(0, 0, 0, 0)
        sl.addWidget(self.hover)
        sl.addWidget(self.legend)
        sl.addWidget(QLabel("Nearest neighbours (cosine, original space)"))
        sl.addWidget(self.neighbours, 1)
        sl.addWidget(self.notes)
        sl.addLayout(exports)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.plot)
        split.addWidget(side)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([760, 420])

        return split

    def _mode_changed(self, text: str) -> None:
        words = MODES.get(text) == "word"
        self.word.setEnabled(words)
        self.case.setEnabled(words)
        self.pooling.setEnabled(not words)

    def _browse_folder(self, field: QLineEdit) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Model folder")
        if folder:
            field.setText(folder)

    def _browse_corpus(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Corpus", "", "Texts and tables (*.txt *.csv *.tsv *.jsonl *.xlsx "
                                                                  "*.json);;All files (*)")
        if path:
            self.corpus.setText(path)

    # ------------------------------------------------------------------------------------------- requests
    def request_data(self) -> dict:
        """The ``embed`` request the inputs describe."""
        words = MODES.get(self.mode.currentText()) == "word"
        return {"model": self.model.text().strip(), "model_b": self.model_b.text().strip(),
                "path": self.corpus.text().strip(), "text_column": self.text_column.text().strip(),
                "word": self.word.text().strip() if words else "", "case_sensitive": self.case.isChecked(),
                "pooling": self.pooling.currentText(), "max_occurrences": self.cap.value()}

    def embed(self) -> None:
        """Embed the corpus in the inspector child (progress; Cancel stops it)."""
        data = self.request_data()
        if not data["path"]:
            self.status.setText("Choose a corpus file first.")
            return
        if MODES.get(self.mode.currentText()) == "word" and not data["word"]:
            self.status.setText("Enter the word to find (or choose the sentences mode).")
            return
        self._running(True, "embedding …")
        self._embed_job.start("embed", data)

    def cancel(self) -> None:
        """Stop the embedding or the map being computed (the child stops at its next batch or iteration)."""
        self._embed_job.cancel()
        self._map_job.cancel()

    def redraw(self) -> None:
        """Draw the current layer / map / colouring: from the cache, else asked of the child."""
        if self.summary is None:
            return
        key = self._map_key()
        if key in self._cache:
            self._draw(self._cache[key])
            return
        layer, method, clusters = key
        self._pending_key = key
        self._running(True, f"{PROJECTION_LABELS[method]} of {'every layer' if layer == 'all' else f'layer {layer}'} …")
        self._map_job.start("embed_project", {"ref": self.summary.ref, "layer": layer, "method": method,
                                              "clusters": clusters})

    def _map_key(self) -> tuple:
        by = self.colour.currentText()
        layer = "all" if by == BY_LAYER else self.summary.layers[min(self.layer.value(), len(self.summary.layers) - 1)]
        return layer, self.method.currentData() or "pca", self.k.value() if by == KMEANS else 0

    def _running(self, on: bool, text: str = "") -> None:
        self.cancel_button.setEnabled(on)
        self.embed_button.setEnabled(not on)
        self.progress.setVisible(on)
        if on:
            self.progress.setRange(0, 0)
        if text:
            self.status.setText(text)

    def _stopped(self, message: str) -> None:
        self._running(False)
        self.status.setText(message)

    def _on_progress(self, done: int, total: int) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)

    # ------------------------------------------------------------------------------------------- results
    def _on_space(self, summary) -> None:
        self._running(False)
        self.summary = summary
        self._cache.clear()
        self.neighbours.clear()
        self.selected_item.clear()
        current = self.colour.currentText()
        self.colour.blockSignals(True)
        self.colour.clear()
        self.colour.addItems([NO_COLOUR] + list(summary.columns) + [KMEANS, BY_LAYER])
        wanted = "model" if "model" in summary.columns else current
        self.colour.setCurrentText(wanted if self.colour.findText(wanted) >= 0 else NO_COLOUR)
        self.colour.blockSignals(False)
        self.layer.blockSignals(True)
        self.layer.setRange(0, len(summary.layers) - 1)
        self.layer.setValue(len(summary.layers) - 1)
        self.layer.blockSignals(False)
        self._update_layer_label()
        self.notes.setText("; ".join(summary.notes) + f". {summary.hidden} dimensions.")
        what = f"'{summary.word}'" if summary.mode == "word" else f"texts pooled by {summary.pooling}"
        self.status.setText(f"{summary.n_points:,} points of {what} from {Path(summary.source).name} "
                            f"({summary.model})")
        self.space_ready.emit(summary)
        self.redraw()

    def _update_layer_label(self) -> None:
        if self.summary is None:
            return
        layer = self.summary.layers[min(self.layer.value(), len(self.summary.layers) - 1)]
        last = self.summary.layers[-1]
        name = "input embeddings" if layer == 0 else ("pooler" if self.summary.pooling == "pooler" else f"of {last}")
        self.layer_label.setText(f"layer {layer} ({name})")

    def _layer_changed(self, _value: int) -> None:
        self._update_layer_label()
        if self.colour.currentText() != BY_LAYER:
            self.redraw()

    def _on_projection(self, projection) -> None:
        self._running(False)
        if self.summary is None:
            return
        key = self._pending_key
        self._cache[key] = projection
        if key == self._map_key():
            self._draw(projection)
        else:
            self.redraw()

    def _point_values(self, projection) -> tuple[list[str], str]:
        """Each drawn point's colour value and the legend's title."""
        s = self.summary
        by = self.colour.currentText()
        repeat = len(projection.coords) // max(s.n_points, 1)
        if by == BY_LAYER and projection.point_layers is not None:
            return [f"layer {v}" for v in projection.point_layers], "layer"
        if by == KMEANS and projection.clusters is not None:
            return [f"cluster {c + 1}" for c in projection.clusters], "k-means cluster"
        if by in s.columns:
            return list(s.columns[by]) * repeat, by
        return [""] * len(projection.coords), ""

    def _draw(self, projection) -> None:
        self.projection = projection
        values, title = self._point_values(projection)
        colours, legend = categorical_colours(values) if title else (["#1f77b4"] * len(values), [])
        brushes = [pg.mkBrush(c) for c in colours]
        self.scatter.setData(pos=projection.coords, brush=brushes, pen=pg.mkPen(None), data=np.arange(len(values)))
        self.selected_item.clear()
        if projection.static is not None and self.show_static.isChecked():
            self.static_item.setData(pos=projection.static[None])
            self.static_label.setText(f"'{self.summary.word}' input embedding")
            right = float(projection.static[0]) > float(np.median(projection.coords[:, 0]))
            self.static_label.setAnchor((1.05, 1.0) if right else (-0.05, 1.0))
            self.static_label.setPos(float(projection.static[0]), float(projection.static[1]))
        else:
            self.static_item.clear()
            self.static_label.setText("")
        self.legend.setText(("<b>" + html.escape(title) + "</b><br>" if title else "") + "<br>".join(
            f"<span style='color:{c}'>●</span> {html.escape(str(v))} ({n:,})" for v, c, n in legend))
        for b in (self.export_projector, self.export_csv, self.export_png, self.export_svg):
            b.setEnabled(True)
        self.plot.getPlotItem().enableAutoRange()
        self.plot.getViewBox().setDefaultPadding(0.06)
        where = "every layer" if projection.layer < 0 else f"layer {projection.layer}"
        self.status.setText(f"{PROJECTION_LABELS[projection.method]} of {where}: {len(projection.coords):,} points")
        self.drawn.emit(projection)

    def point_index(self, drawn: int) -> int:
        """The summary's point of drawn point ``drawn`` (all layers drawn: they repeat layer by layer)."""
        return int(drawn) % max(self.summary.n_points, 1)

    def _hovered(self, _item, points, _ev) -> None:
        if len(points) and self.summary is not None:
            self.show_point(int(points[0].data()))

    def show_point(self, drawn: int) -> None:
        """Show drawn point ``drawn``'s sentence (word highlighted) and its colour columns above the list."""
        s, i = self.summary, self.point_index(drawn)
        extra = ", ".join(f"{html.escape(k)}: {html.escape(str(v[i]))}" for k, v in s.columns.items())
        layer = (self.projection.point_layers[drawn] if self.projection is not None and self.projection.point_layers
                 else None)
        self.hover.setText(highlighted_html(s.texts[i], s.starts[i], s.ends[i])
                           + f"<br><span style='color:#555'>point {i + 1}"
                           + (f", layer {layer}" if layer is not None else "") + (f"; {extra}" if extra else "")
                           + "</span>")

    def _clicked(self, _item, points, _ev) -> None:
        if len(points):
            self.select(int(points[0].data()))

    def select(self, drawn: int) -> None:
        """Mark drawn point ``drawn`` and ask the child for its 10 nearest neighbours (cosine, original space)."""
        if self.summary is None or self.projection is None:
            return
        self.show_point(drawn)
        self.selected_item.setData(pos=self.projection.coords[drawn][None])
        layer = (self.projection.point_layers[drawn] if self.projection.point_layers else self.projection.layer)
        self._selected = (drawn, layer)
        self._near.submit("embed_neighbours", {"ref": self.summary.ref, "layer": layer,
                                               "index": self.point_index(drawn), "k": 10})

    def _on_neighbours(self, rows) -> None:
        self.neighbours.clear()
        s = self.summary
        offset = self._selected[0] - self.point_index(self._selected[0])
        for j, cos in rows:
            before, word, after = highlighted(s.texts[j], s.starts[j], s.ends[j], 50) if s.starts[j] >= 0 else (
                s.texts[j][:120], "", "")
            extra = f"  [{s.columns['model'][j]}]" if "model" in s.columns else ""
            item = QListWidgetItem(f"{cos:.3f}  {before}[{word}]{after}{extra}" if word else f"{cos:.3f}  {before}{extra}")
            item.setData(Qt.ItemDataRole.UserRole, offset + int(j))
            self.neighbours.addItem(item)
        self.neighbours_ready.emit(rows)

    # ------------------------------------------------------------------------------------------- export
    def _ask_projector(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Folder for vectors.tsv and metadata.tsv")
        if folder:
            self.export_to(folder)

    def _ask_csv(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Coordinates CSV", "coordinates.csv", "CSV (*.csv)")
        if path:
            self.export_to(csv=path)

    def export_to(self, folder: str = "", *, csv: str = "") -> None:
        """Write the layer shown as projector files into ``folder`` (or its map as ``csv``), in the child."""
        if self.summary is None:
            return
        layer = self.projection.layer if self.projection is not None and self.projection.layer >= 0 else -1
        data = {"ref": self.summary.ref, "layer": layer}
        data.update({"csv": csv} if csv else {"folder": folder})
        self._export.submit("embed_export", data)

    def _on_exported(self, paths) -> None:
        self.status.setText("wrote " + ", ".join(str(p) for p in paths.values()))
        self.exported.emit(paths)

    def _ask_image(self, kind: str) -> None:
        path, _ = QFileDialog.getSaveFileName(self, f"Plot as {kind.upper()}", f"embeddings.{kind}",
                                              f"{kind.upper()} (*.{kind})")
        if path:
            self.save_image(path)

    def save_image(self, path: str) -> str:
        """The plot as PNG (pyqtgraph's ImageExporter) or SVG (by the suffix); returns the path. SVG tries
        pyqtgraph's SVGExporter first; its path parser fails on the SVG that Qt 6.11 writes (ValueError), and
        then the plot's scene is rendered into a QSvgGenerator (vector shapes and text as well)."""
        from pyqtgraph import exporters

        item = self.plot.getPlotItem()
        if not path.lower().endswith(".svg"):
            exporters.ImageExporter(item).export(path)
        else:
            try:
                exporters.SVGExporter(item).export(path)
            except ValueError:
                self._render_svg(path)
        self.status.setText(f"wrote {path}")
        return path

    def _render_svg(self, path: str) -> None:
        from PySide6.QtCore import QRectF, QSize
        from PySide6.QtGui import QPainter
        from PySide6.QtSvg import QSvgGenerator

        rect = self.plot.sceneRect() if self.plot.sceneRect().isValid() else QRectF(self.plot.rect())
        generator = QSvgGenerator()
        generator.setFileName(path)
        generator.setSize(QSize(int(rect.width()), int(rect.height())))
        generator.setViewBox(QRectF(0, 0, rect.width(), rect.height()))
        generator.setTitle("BERT Explorer embeddings")
        painter = QPainter(generator)
        try:
            self.plot.scene().render(painter, QRectF(0, 0, rect.width(), rect.height()), rect)
        finally:
            painter.end()


class EmbeddingsPages:
    """The registry's page set of the Embeddings page (registry.EMBEDDINGS)."""

    def __init__(self, view: EmbeddingsView):
        self.pages = {PAGE_TITLE: view}


def page_set(window) -> EmbeddingsPages:
    """The registry's provider of the Embeddings page (kept as ``window.embeddings_page``)."""
    window.embeddings_page = EmbeddingsView()
    return EmbeddingsPages(window.embeddings_page)

"""The Embeddings page: one point per occurrence of a word in context (or per text of a file), in 2-D, layer by
layer, for one model or a model before and after fine-tuning.

All the work runs in the inspector child (explorer/worker/inspector_ops.py: ``embed``, ``embed_project``,
``embed_neighbours``, ``embed_export``; explorer.core.embeddings): embedding and t-SNE are RemoteJobs with
progress and cancel, the neighbours and exports quick requests. The GUI keeps only the summary (texts, colour
columns) and the 2-D coordinates it draws with one pyqtgraph ScatterPlotItem in pixel mode
(explorer.ui.inspectors.embeddings_panels); what to ask for and what to say comes from
explorer.ui.inspectors.components.embeddings.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QGridLayout, QHBoxLayout, QLabel, QLineEdit,
                               QPushButton, QSlider, QSpinBox, QSplitter, QVBoxLayout, QWidget)

from explorer.core.embeddings.projection import PROJECTION_LABELS, available_projections
from explorer.core.embeddings.vectors import POOLINGS
from explorer.ui.shell.file_dialogs import EXPORT_KIND, open_file, open_folder, save_file

from .client import shared_client
from .common import StatusLabel, header
from .components.embeddings import (BY_LAYER, KMEANS, MODES, NO_COLOUR, colour_choices, layer_label, map_key,
                                    map_running_text, map_status, neighbour_items, point_colours, point_html,
                                    point_index, point_layer, request_problem, space_notes, space_status)
from .embeddings_panels import EmbeddingsPlot, EmbeddingsSide
from .job_bar import JobBar, veil
from .latest import LatestOnly
from .remote import CANCELLED_NOTE, RemoteJob

PAGE_TITLE = "Embeddings"


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
        self._embed_job.progress.connect(lambda done, total: self.job_bar.set_progress(done, total))
        self._embed_job.finished.connect(self._on_space)
        self._embed_job.failed.connect(lambda msg, _tb: self._stopped(msg))
        self._embed_job.cancelled.connect(lambda: self._stopped(CANCELLED_NOTE))
        self._map_job = RemoteJob(self.client, self)
        self._map_job.progress.connect(lambda done, total: self.job_bar.set_progress(done, total))
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
        self.plot = EmbeddingsPlot()
        self.scatter, self.static_item, self.static_label = self.plot.scatter, self.plot.static_item, \
            self.plot.static_label
        self.selected_item = self.plot.selected_item
        self.scatter.sigHovered.connect(self._hovered)
        self.scatter.sigClicked.connect(self._clicked)
        self.side = EmbeddingsSide()
        self.hover, self.legend, self.neighbours, self.notes = (self.side.hover, self.side.legend,
                                                                self.side.neighbours, self.side.notes)
        self.neighbours.itemDoubleClicked.connect(lambda item: self.select(int(item.data(Qt.ItemDataRole.UserRole))))
        self.side.export_projector.clicked.connect(self._ask_projector)
        self.side.export_csv.clicked.connect(self._ask_csv)
        self.side.export_png.clicked.connect(lambda: self._ask_image("png"))
        self.side.export_svg.clicked.connect(lambda: self._ask_image("svg"))
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.plot)
        split.addWidget(self.side)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([760, 420])
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
        self.job_bar = JobBar("texts")   # progress, the time left and Cancel of the embedding or the map
        self.job_bar.cancel_requested.connect(self.cancel)
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
        for w in (self.mode, self.word, self.case, self.pooling, self.cap, self.embed_button):
            run_row.addWidget(w)
        run_row.addWidget(self.job_bar, 1)
        run_row.addStretch(0)

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

    def _mode_changed(self, text: str) -> None:
        words = MODES.get(text) == "word"
        self.word.setEnabled(words)
        self.case.setEnabled(words)
        self.pooling.setEnabled(not words)

    def _browse_folder(self, field: QLineEdit) -> None:
        folder = open_folder(self, "Model folder", "model", field.text())
        if folder:
            field.setText(folder)

    def _browse_corpus(self) -> None:
        path = open_file(self, "Corpus", "data", "Texts and tables (*.txt *.csv *.tsv *.jsonl *.xlsx *.json);;All files (*)",
                         self.corpus.text())
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
        problem = request_problem(data, self.mode.currentText())
        if problem:
            self.status.setText(problem)
            return
        self.clear_space()   # the map of the previous corpus or word never stays beside a new embedding
        self._running(True, "embedding …", "occurrences" if data["word"] else "texts")
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
        self._running(True, map_running_text(key), "t-SNE iterations")
        self._map_job.start("embed_project", {"ref": self.summary.ref, "layer": layer, "method": method,
                                              "clusters": clusters})

    def _map_key(self) -> tuple:
        return map_key(self.summary, self.colour.currentText(), self.layer.value(), self.method.currentData() or "pca",
                       self.k.value())

    def _running(self, on: bool, text: str = "", what: str = "texts") -> None:
        """A job starts (``on``: the progress row counting ``what``, the map shown veiled: it is of other settings)
        or ends."""
        self.embed_button.setEnabled(not on)
        veil(self.plot, on)
        if on:
            self.job_bar.start(what)
        else:
            self.job_bar.finish()
        if text:
            self.status.setText(text)

    def clear_space(self) -> None:
        """Forget the embedding shown: the map, its legend, notes, neighbours and exports."""
        self.summary = self.projection = None
        self._cache.clear()
        self.plot.clear_points()
        for part in (self.legend, self.notes, self.hover):
            part.setText("")
        self.neighbours.clear()
        self.side.set_exports(False)

    def _stopped(self, message: str) -> None:
        self._running(False)
        self.status.setText(message)

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
        self.colour.addItems(colour_choices(summary))
        wanted = "model" if "model" in summary.columns else current
        self.colour.setCurrentText(wanted if self.colour.findText(wanted) >= 0 else NO_COLOUR)
        self.colour.blockSignals(False)
        self.layer.blockSignals(True)
        self.layer.setRange(0, len(summary.layers) - 1)
        self.layer.setValue(len(summary.layers) - 1)
        self.layer.blockSignals(False)
        self._update_layer_label()
        self.notes.setText(space_notes(summary))
        self.status.setText(space_status(summary))
        self.space_ready.emit(summary)
        self.redraw()

    def _update_layer_label(self) -> None:
        if self.summary is not None:
            self.layer_label.setText(layer_label(self.summary, self.layer.value()))

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

    def _draw(self, projection) -> None:
        self.projection = projection
        colours, legend = point_colours(self.summary, projection, self.colour.currentText())
        self.plot.draw(projection, colours, self.summary.word, self.show_static.isChecked())
        self.legend.setText(legend)
        self.side.set_exports(True)
        self.status.setText(map_status(projection))
        self.drawn.emit(projection)

    def point_index(self, drawn: int) -> int:
        """The summary's point of drawn point ``drawn`` (all layers drawn: they repeat layer by layer)."""
        return point_index(self.summary, drawn)

    def _hovered(self, _item, points, _ev) -> None:
        if len(points) and self.summary is not None:
            self.show_point(int(points[0].data()))

    def show_point(self, drawn: int) -> None:
        """Show drawn point ``drawn``'s sentence (word highlighted) and its colour columns above the list."""
        self.hover.setText(point_html(self.summary, self.projection, drawn))

    def _clicked(self, _item, points, _ev) -> None:
        if len(points):
            self.select(int(points[0].data()))

    def select(self, drawn: int) -> None:
        """Mark drawn point ``drawn`` and ask the child for its 10 nearest neighbours (cosine, original space)."""
        if self.summary is None or self.projection is None:
            return
        self.show_point(drawn)
        self.plot.mark(self.projection.coords[drawn])
        layer = point_layer(self.projection, drawn)
        layer = self.projection.layer if layer is None else layer
        self._selected = (drawn, layer)
        self._near.submit("embed_neighbours", {"ref": self.summary.ref, "layer": layer,
                                               "index": self.point_index(drawn), "k": 10})

    def _on_neighbours(self, rows) -> None:
        offset = self._selected[0] - self.point_index(self._selected[0])
        self.side.show_neighbours(neighbour_items(self.summary, rows, offset))
        self.neighbours_ready.emit(rows)

    # ------------------------------------------------------------------------------------------- export
    def _ask_projector(self) -> None:
        folder = open_folder(self, "Folder for vectors.tsv and metadata.tsv", EXPORT_KIND, into=True)
        if folder:
            self.export_to(folder)

    def _ask_csv(self) -> None:
        path = save_file(self, "Coordinates CSV", EXPORT_KIND, "coordinates.csv", "CSV (*.csv)")
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
        path = save_file(self, f"Plot as {kind.upper()}", EXPORT_KIND, f"embeddings.{kind}", f"{kind.upper()} (*.{kind})")
        if path:
            self.save_image(path)

    def save_image(self, path: str) -> str:
        """The plot as PNG or SVG, by the suffix (EmbeddingsPlot.save_image); returns the path."""
        self.plot.save_image(path)
        self.status.setText(f"wrote {path}")
        return path


class EmbeddingsPages:
    """The registry's page set of the Embeddings page (registry.EMBEDDINGS)."""

    def __init__(self, view: EmbeddingsView):
        self.pages = {PAGE_TITLE: view}


def page_set(window) -> EmbeddingsPages:
    """The registry's provider of the Embeddings page (kept as ``window.embeddings_page``)."""
    window.embeddings_page = EmbeddingsView()
    return EmbeddingsPages(window.embeddings_page)

"""InspectorHub: the three inspector tabs, the shared probe panel, and the work behind them.

The main window does::

    hub = InspectorHub(parent=self)
    for title, widget in hub.tabs():
        tab_widget.addTab(widget, title)
    hub.open_model("bundled:minilm")

Model loads and probes run on one worker thread (in order, so a probe after a load uses the new
model); a new probe supersedes a queued or running one (its late result is dropped). Typing
re-probes after a short debounce. Nothing blocks the GUI thread.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Callable

from PySide6.QtCore import QObject, Qt, QThreadPool, Signal
from PySide6.QtWidgets import QSplitter, QStackedWidget, QTabWidget, QVBoxLayout, QWidget

from .attention_view import AttentionView
from .dev_view import DevTauView
from .probe_panel import ProbePanel
from .spans_view import SpansView
from .workers import LatestOnly, serial_pool

TAB_TITLES = ("Attention", "Spans && τ", "τ on dev set")


def _add_family_presets(combo) -> None:
    """Fine-tuned QA checkpoints of every encoder family (explorer.core.presets) in the model box; hovering one
    shows the dev figure of its model card."""
    from explorer.core.presets import QA_PRESETS

    for preset in QA_PRESETS:
        index = combo.findText(preset.hub_id)
        if index < 0:
            combo.addItem(preset.hub_id)
            index = combo.count() - 1
        combo.setItemData(index, preset.tooltip(), Qt.ItemDataRole.ToolTipRole)


class _ProbeHost(QWidget):
    """A tab page: the shared probe panel (moved here whenever the page is shown) beside a view."""

    def __init__(self, panel: ProbePanel, view: QWidget, parent=None):
        super().__init__(parent)
        self.panel = panel
        self.split = QSplitter()
        self.split.addWidget(view)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.split)
        self.adopt_panel()

    def adopt_panel(self) -> None:
        if self.panel.parent() is not self.split:
            self.split.insertWidget(0, self.panel)
            self.split.setStretchFactor(0, 0)
            self.split.setStretchFactor(1, 1)
            self.split.setCollapsible(0, False)
            self.split.setSizes([max(370, self.panel.minimumWidth()), 1000])
            self.panel.show()

    def showEvent(self, event) -> None:  # noqa: N802
        self.adopt_panel()
        super().showEvent(event)


class _Holder:
    """The current LoadedModel, set by the worker that loaded it (read by later worker tasks)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._value = None

    def get(self):
        with self._lock:
            return self._value

    def set(self, value):
        with self._lock:
            self._value = value
        return value


def _squad_rows(path: str) -> tuple[list[dict], str]:
    """A SQuAD file -> rows for the dataset picker and a one-line report (runs on a worker)."""
    from explorer.core.data.squad import load_squad

    ds, report = load_squad(path)
    rows = [{"id": i, "title": t, "question": q, "context": c}
            for i, t, q, c in zip(ds["id"], ds["title"], ds["question"], ds["context"])]
    text = (f"{Path(path).name}: SQuAD {report.version}, {report.n_articles} articles, "
            f"{report.n_questions} questions ({report.n_impossible} without answer)")
    return rows, text


def _run_probe(holder: _Holder, inputs: dict, tau: float):
    from explorer.core.probe import probe

    loaded = holder.get()
    if loaded is None:
        raise RuntimeError("no model loaded: enter a model source and press Load")
    return probe(loaded, inputs["question"], inputs["passage"], tau=tau, attentions=True,
                 keep_attentions="float16",  # halves the memory of the raw weights; summaries stay float32
                 max_seq_length=inputs["max_seq_length"], doc_stride=inputs["doc_stride"],
                 max_query_length=inputs.get("max_query_length", 64),
                 n_best_size=inputs["n_best_size"], max_answer_length=inputs["max_answer_length"])


def _window_weights(result, index: int):
    result.attention_weights(index)  # fills result.attention[index] (and drops others over the budget)
    return result, index


def _load(holder: _Holder, source: str, loader: Callable):
    return holder.set(loader(source))


class InspectorHub(QObject):
    """Owns the probe panel, the Attention / Spans & τ / τ on dev set views, and their workers.

    Signals:
        model_changed(object): a LoadedModel is now in use.
        result_changed(object): a new ProbeResult is shown.
        busy_changed(bool): a load or probe is outstanding.
        message(str): a one-line status (errors included), for a status bar.
        tab_requested(str): a view asks to be shown (e.g. "Spans && τ" after a dev-set click).
    """

    model_changed = Signal(object)
    result_changed = Signal(object)
    busy_changed = Signal(bool)
    message = Signal(str)
    tab_requested = Signal(str)

    def __init__(self, parent=None, *, loader: Callable | None = None):
        super().__init__(parent)
        if loader is None:
            from explorer.core.models import load_model as loader
        self._loader = loader
        self.pool = serial_pool(self)
        self._holder = _Holder()
        self.loaded = None
        self.result = None
        self.panel = ProbePanel()
        _add_family_presets(self.panel.source)
        self.attention_view = AttentionView()
        self.spans_view = SpansView()
        self.dev_view = DevTauView()
        self._pages = {
            TAB_TITLES[0]: _ProbeHost(self.panel, self.attention_view),
            TAB_TITLES[1]: _ProbeHost(self.panel, self.spans_view),
            TAB_TITLES[2]: self.dev_view,
        }
        self.loads = LatestOnly(self.pool, self)
        self.probes = LatestOnly(self.pool, self)
        self.datasets = LatestOnly(QThreadPool.globalInstance(), self)
        self.attention_windows = LatestOnly(self.pool, self)  # a window's weights, computed when shown
        self.attention_view.async_weights = True
        self.attention_view.weights_requested.connect(self._fetch_window_weights)
        self.attention_windows.finished.connect(lambda _id, payload: self.attention_view.weights_ready(*payload))
        self.attention_windows.failed.connect(lambda _id, msg, _tb: self._error(f"attention weights: {msg}"))
        self.loads.finished.connect(self._on_loaded)
        self.loads.failed.connect(self._on_load_failed)
        self.probes.finished.connect(self._on_probed)
        self.probes.failed.connect(self._on_probe_failed)
        self.datasets.finished.connect(self._on_dataset)
        self.datasets.failed.connect(lambda _id, msg, _tb: self._error(f"cannot read that SQuAD file: {msg}"))
        for channel in (self.loads, self.probes):
            channel.busy.connect(self._update_busy)

        self.panel.load_model_requested.connect(self.open_model)
        self.panel.probe_requested.connect(self.probe_now)
        self.panel.dataset_requested.connect(self.open_dataset)
        self.attention_view.window_changed.connect(self.spans_view.set_window)
        self.spans_view.window_changed.connect(self.attention_view.set_window)
        self.dev_view.open_question.connect(self._open_from_dev)

    # ----------------------------------------------------------------------------------- public API
    def tabs(self) -> list[tuple[str, QWidget]]:
        """[(title, widget)] for the main window's tab widget: Attention, Spans && τ, τ on dev set."""
        return list(self._pages.items())

    def open_model(self, source: str) -> int:
        """Load a model (hub id, folder, run checkpoint, bundled:minilm) on the worker thread."""
        source = (source or "").strip()
        self.panel.set_source(source)
        self.panel.set_busy(f"loading {source} …")
        return self.loads.submit(_load, self._holder, source, self._loader)

    def set_model(self, loaded) -> None:
        """Use an already loaded LoadedModel (tests, or a model the caller loaded itself)."""
        self._holder.set(loaded)
        self.panel.set_source(loaded.source)
        self._on_loaded(0, loaded)

    def open_example(self, question: str, passage: str) -> int | None:
        """Fill the probe panel and probe at once; returns the request id (None without a model)."""
        self.panel.set_inputs(question, passage)
        return self.probe_now()

    def probe_now(self) -> int | None:
        """Probe the panel's inputs on the worker thread (supersedes any earlier probe)."""
        inputs = self.panel.inputs()
        if not inputs["question"].strip() or not inputs["passage"].strip():
            self.panel.set_status("Type a question and a passage (or pick an example).")
            return None
        if self._holder.get() is None and self.loads.latest == 0:
            source = self.panel.source_text()
            if not source:
                self._error("no model: enter a model source and press Load")
                return None
            self.open_model(source)  # the probe queues behind the load on the same thread
        errors = [p for p in self.check_windows(inputs) if p.severity == "error"]
        if errors:
            self._error("window settings do not fit the model: " + "; ".join(p.message for p in errors))
            return None
        self.panel.set_busy("probing …")
        return self.probes.submit(_run_probe, self._holder, inputs, self.spans_view.tau)

    def check_windows(self, inputs: dict | None = None) -> list:
        """The panel's window settings against the loaded model and tokenizer (red fields with the reason);
        returns the WindowSettingProblem list ([] without a model)."""
        from explorer.core.window_settings import check_window_settings, longest_question_tokens

        loaded = self._holder.get()
        if loaded is None:
            return []
        inputs = inputs or self.panel.inputs()
        question = inputs["question"].strip()
        mql = int(inputs.get("max_query_length", 64))
        tok = loaded.tokenizer
        problems = check_window_settings(
            tok, getattr(loaded.model, "config", None), inputs["max_seq_length"], inputs["doc_stride"], mql,
            question_tokens=longest_question_tokens(tok, [question], mql) if question else None, name=loaded.source)
        self.panel.set_window_problems(problems)
        return problems

    def open_dataset(self, path: str) -> int:
        """Read a SQuAD file on a worker and fill the panel's article / question pickers."""
        self.panel.dataset_label.setText(f"reading {path} …")
        return self.datasets.submit(_squad_rows, path)

    def page(self, title: str) -> QWidget:
        return self._pages[title]

    # ----------------------------------------------------------------------------------- slots
    def _update_busy(self, _=None) -> None:
        busy = self.loads._outstanding or self.probes._outstanding
        if not busy:
            self.panel.set_busy(None)
        self.busy_changed.emit(busy)

    def _on_loaded(self, _request_id: int, loaded) -> None:
        from explorer.core.checkpoint_windows import window_settings_for_checkpoint

        self.loaded = loaded
        self.panel.set_window_settings(window_settings_for_checkpoint(getattr(loaded, "path", "") or loaded.source))
        report = getattr(loaded, "load_report", None)
        self.panel.set_model_info(loaded.describe(), loaded.head_initialised, report)
        if getattr(loaded, "head_note", "") and (report is None or report.encoder_loaded):
            self.panel.model_note.setText(loaded.head_note)  # which head is new or unused, and what to do
        self.check_windows()
        self.panel.set_status(f"model ready: {loaded.source}")
        self.dev_view.set_model(loaded)
        self.model_changed.emit(loaded)
        self.message.emit(loaded.describe())
        if self.panel.inputs()["question"].strip() and self.panel.inputs()["passage"].strip() \
                and not self.probes._outstanding:
            self.probe_now()

    def _on_load_failed(self, _request_id: int, message: str, _tb: str) -> None:
        self._error(message.split(": ", 1)[-1] if message.startswith("ModelSourceError") else message)

    def _on_probed(self, _request_id: int, result) -> None:
        self.result = result
        self.panel.set_status(f"probe: {result.seconds * 1000:.0f} ms, {len(result.windows)} window"
                              f"{'s' if len(result.windows) != 1 else ''}; answer at τ={self.spans_view.tau:+.2f}: "
                              f"\"{result.decision(self.spans_view.tau).answer_text or 'no answer'}\"")
        self.attention_view.set_result(result)
        self.spans_view.set_result(result)
        self.attention_view.set_window(self.spans_view.window)
        self.result_changed.emit(result)

    def _fetch_window_weights(self, index: int) -> None:
        """Compute window ``index``'s raw attention weights on the model's worker thread (memory budget)."""
        if self.attention_view.result is not None:
            self.attention_windows.submit(_window_weights, self.attention_view.result, index)

    def _on_probe_failed(self, _request_id: int, message: str, _tb: str) -> None:
        self._error(message)

    def _on_dataset(self, _request_id: int, payload) -> None:
        rows, text = payload
        self.panel.set_dataset_rows("", rows, text)

    def _open_from_dev(self, question: str, passage: str, tau: float) -> None:
        self.spans_view.set_tau(tau)
        self.open_example(question, passage)
        page = self._pages[TAB_TITLES[1]]
        stack = page.parentWidget()
        if isinstance(stack, QStackedWidget) and isinstance(stack.parentWidget(), QTabWidget):
            stack.parentWidget().setCurrentWidget(page)
        self.tab_requested.emit(TAB_TITLES[1])

    def _error(self, text: str) -> None:
        self.panel.set_busy(None)
        self.panel.set_status(text, error=True)
        self.message.emit(text)

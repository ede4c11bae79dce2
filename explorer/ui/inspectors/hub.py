"""InspectorHub: the three inspector tabs, the shared probe panel, and the work behind them.

The main window does::

    hub = InspectorHub(parent=self)
    for title, widget in hub.tabs():
        tab_widget.addTab(widget, title)
    hub.open_model("bundled:minilm")

Model loads, probes, attention weights, saliency, dataset reading and the dev-set τ study run in the
inspector child process (explorer/worker/inspector.py, reached through explorer.ui.inspectors.client): the
GUI process never imports torch for them. Loads and probes run in order on the child's model lane, so a
probe after a load uses the new model; a new probe supersedes a queued or running one (its late result is
dropped). Typing re-probes after a short debounce. Nothing blocks the GUI thread.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QSplitter, QStackedWidget, QTabWidget, QVBoxLayout, QWidget

from explorer.ui.shell.turns import after_paint

from .attention_view import AttentionView
from .dev_view import DevTauView
from .download_bar import DownloadBar, HubDownloader
from .probe_panel import ProbePanel
from .client import InspectClient, shared_client
from .common import StaleCover, still_loaded_note
from .latest import LatestOnly
from .window_weights import WindowWeights
from .registry import ATTENTION, DEV_TAU, SPANS
from .components.spans import probe_status
from .spans_view import SpansView

TAB_TITLES = (ATTENTION, SPANS, DEV_TAU)   # the hub's pages (titles declared in registry.py)
PREWARM_AFTER_MS = 2500   # after the window has settled (runs scan, device probe, curves prewarm)


def _add_family_presets(combo) -> None:
    """Fine-tuned QA checkpoints of every encoder family (explorer.core.specs.hub_checkpoints) in the model box; hovering one
    shows the dev figure of its model card."""
    from explorer.core.specs.hub_checkpoints import QA_PRESETS

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


class InspectorHub(QObject):
    """Owns the probe panel, the Attention / Spans & τ / τ on dev set views, and their requests to the
    inspector child (one model slot, default "qa").

    Signals:
        model_changed(object): a model is now in use (a :class:`~explorer.core.models.info.ModelInfo`).
        result_changed(object): a new ProbeResult is shown.
        busy_changed(bool): a load or probe is outstanding.
        message(str): a one-line status (errors included, and the child's restarts), for a status bar.
        tab_requested(str): a view asks to be shown (e.g. "Spans && τ" after a dev-set click).
    """

    model_changed = Signal(object)
    result_changed = Signal(object)
    busy_changed = Signal(bool)
    message = Signal(str)
    tab_requested = Signal(str)

    def __init__(self, parent=None, *, client: InspectClient | None = None, slot: str = "qa"):
        super().__init__(parent)
        self.client = client or shared_client()
        self.slot = slot
        self.loaded = None            # ModelInfo of the model in the child
        self.result = None
        self.attention_budget: int | None = None   # None: the probe's default budget (attention_budget.py)
        self.panel = ProbePanel()
        _add_family_presets(self.panel.source)
        self.attention_view = AttentionView()
        self.spans_view = SpansView()
        self.spans_view.saliency.use_client(self.client, slot)
        self.spans_view.why.use_client(self.client, slot)
        self.dev_view = DevTauView(client=self.client, slot=slot)
        from explorer.ui.inspectors.predictions_view import predict_button   # a whole file through the QA model

        self.predict_button = predict_button(self.spans_view, lambda: self.loaded.path if self.loaded is not None else "")
        self.spans_view.layout().addWidget(self.predict_button)
        from .qa_head_controls import QAHeadControls

        self.head_controls = QAHeadControls(self)   # heads switched off (Spans & τ), head importance (Attention)
        self.head_mask, self.head_importance = self.head_controls.mask_bar, self.head_controls.importance
        # results of the previous model stay greyed under "Results of A: updating for B…" until B's probe is shown
        self.stale = (StaleCover(self.spans_view.body_scroll), StaleCover(self.attention_view.body))
        for view, cover in zip((self.spans_view, self.attention_view), self.stale):
            view.layout().insertWidget(1, cover.label)
        self._stale_was = ""             # the model whose results are greyed
        self._fresh_probe: int | None = None   # the first probe asked of the new model
        self._pages = {
            ATTENTION: _ProbeHost(self.panel, self.attention_view),
            SPANS: _ProbeHost(self.panel, self.spans_view),
            DEV_TAU: self.dev_view,
        }
        self.download_bar = DownloadBar()          # a hub id downloads first, in the child, with Cancel
        self.panel.add_to_model_box(self.download_bar)
        self.downloads = HubDownloader(self.client, self.download_bar, self)
        self.downloads.ready.connect(self.open_model)
        self.downloads.stopped.connect(self._on_download_stopped)
        self.loads = LatestOnly.in_child(self.client, f"{slot}.load", self)
        self.probes = LatestOnly.in_child(self.client, f"{slot}.probe", self)
        self.datasets = LatestOnly.in_child(self.client, f"{slot}.squad_rows", self)
        self.window_weights = WindowWeights(self.client, f"{slot}.attention", self.attention_view,
                                            lambda msg: self._error(f"attention weights: {msg}"), self)
        self.attention_windows = self.window_weights.requests   # a window's weights not kept under the budget
        self.loads.finished.connect(self._on_loaded)
        self.loads.failed.connect(self._on_load_failed)
        self.probes.finished.connect(self._on_probed)
        self.probes.failed.connect(self._on_probe_failed)
        self.datasets.finished.connect(self._on_dataset)
        self.datasets.failed.connect(lambda _id, msg, _tb: self._error(f"cannot read that SQuAD file: {msg}"))
        for channel in (self.loads, self.probes):
            channel.busy.connect(self._update_busy)
        self.client.message.connect(self.message)

        self.panel.load_model_requested.connect(self.open_model)
        self.panel.probe_requested.connect(self.probe_now)
        self.panel.dataset_requested.connect(self.open_dataset)
        # the other view follows a window change in a later turn, after the paint (each redraw is 10-20 ms of the
        # GUI thread)
        self.attention_view.window_changed.connect(   # after the attention view's own second turn
            lambda i: after_paint(self, lambda: self.spans_view.set_window(i), turns=2))
        self._status_line = ""   # the probe's line under Probe, restated at each τ while it is shown
        self.spans_view.tau_changed.connect(self._tau_moved)
        self.spans_view.window_changed.connect(lambda i: after_paint(self, lambda: self.attention_view.set_window(i)))
        self.dev_view.open_question.connect(self._open_from_dev)
        self._prewarmed = False
        self.compare_view = None   # the two-checkpoint view, made when first asked for
        self.attention_view.compare.setVisible(True)
        self.attention_view.compare_requested.connect(self.open_compare)
        # the page is the timer's context: a hub whose widgets are gone (tests, a closed window) skips it
        QTimer.singleShot(PREWARM_AFTER_MS, self._pages[ATTENTION], self.prewarm)
        for page in self._pages.values():
            page.destroyed.connect(self._pages_gone)

    def _pages_gone(self, *_) -> None:
        """A page of this hub was deleted (its window closed, a test's teardown): the replies still on their way
        from the inspector child are dropped, not drawn into deleted widgets (a late probe reply raised
        "Internal C++ object already deleted" in the next test's event loop)."""
        for channel in (self.loads, self.probes, self.datasets, self.attention_windows):
            channel.blockSignals(True)

    def open_compare(self, source_b: str = ""):
        """Open the two-checkpoint view (explorer.ui.inspectors.checkpoint_compare_view) on the shown example,
        A = the loaded model; ``source_b`` fills B. Returns the view."""
        from .checkpoint_compare_view import CheckpointCompareView

        if self.compare_view is None:
            self.compare_view = CheckpointCompareView(client=self.client, slot=self.slot)
            self.compare_view.resize(1280, 800)
        result = self.attention_view.result
        if result is not None:
            self.compare_view.set_example(result.question, result.passage, getattr(result, "settings", {}),
                                          label_a=getattr(self.loaded, "label", "") or getattr(self.loaded, "source", "")
                                          or "the loaded model", window=self.attention_view.window)
        if source_b:
            self.compare_view.source_b.setText(source_b)
        self.compare_view.show()
        self.compare_view.raise_()
        return self.compare_view

    # ----------------------------------------------------------------------------------- public API
    def tabs(self) -> list[tuple[str, QWidget]]:
        """[(title, widget)] for the main window's tab widget: Attention, Spans && τ, τ on dev set."""
        return list(self._pages.items())

    def open_model(self, source: str) -> int:
        """Load a model (hub id, folder, run checkpoint, bundled:minilm) in the inspector child. An
        ``owner/name`` hub id is downloaded first (the download bar, cancellable) unless HF_HUB_OFFLINE is set
        (then the load uses the cached copy or says there is none); the model loads after it."""
        source = (source or "").strip()
        self._mark_stale(source)
        if self.downloads.needed(source):
            self.panel.set_source(source)
            self.panel.source.lineEdit().setCursorPosition(0)
            self.panel.set_busy(f"downloading {source} …")
            return self.downloads.fetch(source)
        self.panel.set_source(source)
        self.download_bar.finish()
        self.panel.set_busy(f"loading {source} …")
        data = {"slot": self.slot, "source": source, "task": "qa"}
        rid = self.loads.submit("load", data)
        self.client.remember_load(self.slot, data)   # a restarted child reloads it (after this request)
        return rid

    def _mark_stale(self, source: str) -> None:
        """Another model is asked for: grey the results on screen (another model's) until its probe is shown."""
        from explorer.core.models.info import model_name

        if self.result is None or not source:
            return
        was = self._stale_was if self.stale[0].stale else \
            (getattr(self.loaded, "source", "") or model_name(self.loaded) or "the previous model")
        if was == source:
            return
        self._stale_was, self._fresh_probe = was, None
        for cover in self.stale:
            cover.mark(was, source)

    def _clear_stale(self) -> None:
        self._fresh_probe = None
        for cover in self.stale:
            cover.clear()

    def _on_download_stopped(self, text: str, error: bool) -> None:
        if error:
            self._error(text)
        else:
            self.panel.set_busy(None)
            self.panel.set_status(text)
            self.message.emit(text)

    def set_model(self, loaded) -> None:
        """Use an already loaded model: a ModelInfo of this hub's slot, or a LoadedModel (tests, or a model the
        caller loaded itself), which the child is given (explorer.ui.inspectors.client.InspectClient.adopt)."""
        from explorer.core.models.info import ModelInfo, model_info

        if not isinstance(loaded, ModelInfo):
            self.client.adopt(self.slot, loaded)
            loaded = model_info(loaded, self.slot)
        self.panel.set_source(loaded.source)
        self._on_loaded(0, loaded)

    def open_example(self, question: str, passage: str) -> int | None:
        """Fill the probe panel and probe at once; returns the request id (None without a model)."""
        self.panel.set_inputs(question, passage)
        return self.probe_now()

    def probe_now(self) -> int | None:
        """Probe the panel's inputs in the child (supersedes any earlier probe)."""
        inputs = self.panel.inputs()
        if not inputs["question"].strip() or not inputs["passage"].strip():
            self.panel.set_status("Type a question and a passage (or pick an example).")
            return None
        if self.loaded is None and self.loads.latest == 0:
            source = self.panel.source_text()
            if not source:
                self._error("no model: enter a model source and press Load")
                return None
            self.open_model(source)  # the probe queues behind the load on the child's model lane
        errors = [p for p in self.check_windows(inputs) if p.severity == "error"]
        if errors:
            self._error("window settings do not fit the model: " + "; ".join(p.message for p in errors))
            return None
        self.panel.set_busy("probing …")
        data = {"slot": self.slot, "question": inputs["question"], "passage": inputs["passage"],
                "tau": self.spans_view.tau, "attentions": True, "keep": "float16",
                "max_seq_length": inputs["max_seq_length"], "doc_stride": inputs["doc_stride"],
                "max_query_length": inputs.get("max_query_length", 64), "n_best_size": inputs["n_best_size"],
                "max_answer_length": inputs["max_answer_length"], "decode_rule": inputs.get("decode_rule", "passage")}
        if self.attention_budget is not None:
            data["attention_budget"] = self.attention_budget
        rid = self.probes.submit("probe", data)
        if self.stale[0].stale:   # queued behind the new model's load on the child's model lane
            self._fresh_probe = rid   # its answer is the new model's: it ungreys the views
        return rid

    def check_windows(self, inputs: dict | None = None) -> list:
        """The panel's window settings against the loaded model's limits and tokenizer (red fields with the
        reason); returns the WindowSettingProblem list ([] without a model)."""
        if self.loaded is None:
            return []
        inputs = inputs or self.panel.inputs()
        problems = self.loaded.check_windows(inputs["max_seq_length"], inputs["doc_stride"],
                                             int(inputs.get("max_query_length", 64)), inputs["question"])
        self.panel.set_window_problems(problems)
        return problems

    def open_dataset(self, path: str) -> int:
        """Read a SQuAD file in the child and fill the panel's article / question pickers."""
        self.panel.dataset_label.setText(f"reading {path} …")
        return self.datasets.submit("squad_rows", {"path": path})

    def page(self, title: str) -> QWidget:
        return self._pages[title]

    def prewarm(self) -> None:
        """Show the Attention page once while the window is idle, unseen (the tab widget's updates off and its
        signals blocked, so nothing loads), and hide it again one event-loop turn later: its first real visit then
        skips Qt's first show of the page (polish and layout of every widget: 25-30 ms of the 50 ms budget on a
        busy 2-core machine; scripts/gui_stall_probe.py). Nothing happens when the page is not in a visible tab
        widget (tests, embedding) or is already shown.

        Only the tab widget's updates are turned off, never the window's: on a real X server, turning a top-level
        window's updates off and on around this first show left the window's later repaints off the screen (the
        launcher's "Reading …" and "device: probing…" stayed for minutes after their answers;
        tests/test_x11_repaint.py)."""
        page = self._pages[ATTENTION]
        stack = page.parentWidget()
        tabs = stack.parentWidget() if stack is not None else None
        if self._prewarmed or not isinstance(tabs, QTabWidget) or not tabs.isVisible() or page.isVisible():
            return
        self._prewarmed = True
        current = tabs.currentWidget()
        tabs.setUpdatesEnabled(False)
        tabs.blockSignals(True)
        try:
            tabs.setCurrentWidget(page)
        finally:
            tabs.blockSignals(False)

        def back() -> None:
            if tabs.currentWidget() is page:
                page.grab()   # one render now: the first paint's one-time costs (fonts, pyqtgraph's caches)
            tabs.blockSignals(True)
            try:
                if tabs.currentWidget() is page:
                    tabs.setCurrentWidget(current)
            finally:
                tabs.blockSignals(False)
                tabs.setUpdatesEnabled(True)
        QTimer.singleShot(0, tabs, back)

    def busy_text(self) -> str:
        """What the inspector child is doing for this hub now, in words ("loading MODEL …", "probing …"), or ""."""
        if self.loads._outstanding:
            return f"loading {self.panel.source_text() or 'the model'} …"
        return "probing …" if self.probes._outstanding else ""

    # ----------------------------------------------------------------------------------- slots
    def _update_busy(self, _=None) -> None:
        busy = self.loads._outstanding or self.probes._outstanding
        if not busy:
            self.panel.set_busy(None)
        self.busy_changed.emit(busy)

    def _on_loaded(self, _request_id: int, loaded) -> None:
        from explorer.core.models.checkpoint_windows import window_settings_for_checkpoint

        self.loaded = loaded
        self.panel.set_window_settings(window_settings_for_checkpoint(getattr(loaded, "path", "") or loaded.source))
        self.panel.show_model(loaded)
        self.check_windows()
        self.panel.set_status(f"model ready: {loaded.source}")
        self.dev_view.set_model(loaded)
        from explorer.core.models.checkpoint_windows import abstain_note

        self.spans_view.set_abstain_note(abstain_note(loaded.source, getattr(loaded, "path", "") or ""))
        self.head_controls.model_in(loaded)
        self.model_changed.emit(loaded)
        self.message.emit(loaded.describe())
        if self.panel.inputs()["question"].strip() and self.panel.inputs()["passage"].strip() \
                and not self.probes._outstanding:
            self.probe_now()
        if self.stale[0].stale and self._fresh_probe is None:   # nothing asked of the new model yet
            from explorer.core.models.info import stale_results_note

            for cover in self.stale:
                cover.say(stale_results_note(self._stale_was, loaded.source).replace("run again", "probe again"))

    def _on_load_failed(self, _request_id: int, message: str, _tb: str) -> None:
        """The previous model is still the one in the child: its results hold, and its name goes back in the model
        box (which kept the failed path above that model's numbers); the error says which model is still in use."""
        from explorer.core.models.info import model_name

        self._clear_stale()
        text = message.split(": ", 1)[-1] if message.startswith("ModelSourceError") else message
        if self.loaded is not None:
            still = getattr(self.loaded, "source", "") or model_name(self.loaded)
            self.panel.set_source(still)
            text = still_loaded_note(text, still)
        self._error(text)

    def _tau_moved(self, tau: float) -> None:
        """The probe's line under Probe follows τ, as the decision above it does (never another τ's answer)."""
        if self.result is not None and self._status_line and self.panel.status.text() == self._status_line:
            self._status_line = probe_status(self.result, tau)
            self.panel.set_status(self._status_line)

    def _on_probed(self, request_id: int, result) -> None:
        """Show a probe: the visible view first, the other one in a later event (each redraw of a 384-token
        window takes 10-20 ms of the GUI thread; together they would stall the event loop for twice that)."""
        if self._fresh_probe is not None and request_id == self._fresh_probe:
            self._clear_stale()   # the new model's answer: no longer another model's results
        self.result = result
        self._status_line = probe_status(result, self.spans_view.tau)
        self.panel.set_status(self._status_line)
        views = [self.spans_view.set_result, self._show_attention]
        if self.attention_view.isVisible():
            views.reverse()
        self._show_in_turn(result, views + [self.result_changed.emit])

    def show_result(self, result) -> None:
        """Show a ProbeResult in both views at once (scripts, screenshots); probes arriving from the child are
        shown a view per event-loop turn instead."""
        self._clear_stale()
        self.result = result
        self.spans_view.set_result(result)
        self._show_attention(result)
        self.result_changed.emit(result)

    def _show_attention(self, result) -> None:
        self.attention_view.window = result.best_window.index   # the window the Spans view shows too
        self.attention_view.set_result(result)

    def _show_in_turn(self, result, steps: list) -> None:
        """Run ``steps`` (each called with result) one per event-loop turn, each after the paint of the one before
        (explorer.ui.shell.turns), while result is still the newest."""
        if result is not self.result or not steps:
            return
        steps[0](result)
        if len(steps) > 1:   # the attention view may have left the rest of its redraw to its next turn: after it
            after_paint(self, lambda: self._show_in_turn(result, steps[1:]),
                        turns=2 if self.attention_view.redraw_pending() else 1)

    def _on_probe_failed(self, _request_id: int, message: str, _tb: str) -> None:
        self._error(message)

    def _on_dataset(self, _request_id: int, payload) -> None:
        rows, text = payload
        self.panel.set_dataset_rows("", rows, text)

    def _open_from_dev(self, question: str, passage: str, tau: float) -> None:
        self.spans_view.set_tau(tau)
        self.open_example(question, passage)
        page = self._pages[SPANS]
        stack = page.parentWidget()
        if isinstance(stack, QStackedWidget) and isinstance(stack.parentWidget(), QTabWidget):
            stack.parentWidget().setCurrentWidget(page)
        self.tab_requested.emit(SPANS)

    def _error(self, text: str) -> None:
        self.panel.set_busy(None)
        self.panel.set_status(text, error=True)
        self.message.emit(text)


BUNDLED = "bundled:minilm"   # the encoder a QA page's first visit loads when no SQuAD run is selected


class HubPages:
    """The page set of the registry's QA pages (registry.HUB): Attention, Spans && τ, τ on dev set around
    one InspectorHub (``window.hub``). A checkpoint opens in the hub with a dev question of its run; the first
    visit of a page loads the bundled encoder and probes the classic example, unless something was opened."""

    def __init__(self, window, hub: InspectorHub):
        self.window, self.hub = window, hub
        self.pages = dict(hub.tabs())

    def open_checkpoint(self, _title: str, path: str, _task: str | None, run_config: dict) -> None:
        from explorer.ui.runs.examples import example_for_run
        from explorer.ui.shell.tasks import run_in_thread

        self.window._inspector_opened = True
        self.hub.open_model(path)
        run_in_thread(example_for_run, run_config, owner=self.window, on_done=self._example)

    def _example(self, example: tuple[str, str]) -> None:
        """The run's first dev example fills the probe panel, unless the panel holds a question or passage the
        person typed (before the open or while the checkpoint loaded: ProbePanel.holds_typed_text): theirs is
        probed with the new checkpoint instead, never overwritten."""
        if self.hub.panel.holds_typed_text():
            self.hub.probe_now()
        else:
            self.hub.open_example(*example)

    def first_visit(self, title: str) -> None:
        """The first visit of a QA page (Ctrl+3, Ctrl+4, Ctrl+5 or a click on its tab) before anything was opened
        in it. One SQuAD run selected in the Runs list (RunSelection.first_visit_checkpoint): its checkpoint opens
        here, as "Open best checkpoint in inspectors" would; without a checkpoint yet, nothing opens and the status
        bar and the page say why (a later visit looks again), never the bundled encoder in its place, which a run
        of bundled:minilm just launched would look like. Otherwise: the bundled encoder on the classic example,
        named in the status bar."""
        w = self.window
        if w._inspector_opened:
            return
        from explorer.core.specs.tasks import is_qa_task
        from explorer.ui.inspectors.registry import page
        from explorer.ui.launch.presets import DEFAULT_WATCH

        shown = page(title).plain_title
        runs = getattr(w, "runs", None)
        path, why = runs.selection().first_visit_checkpoint(is_qa_task, runs.name_of) if runs else (None, "")
        if path is not None:
            w.checkpoint_pages.open(path, page_title=title)
            return
        if why:
            text = (f"Nothing opened in {shown}: {why} Select a run with a checkpoint and press Open best "
                    "checkpoint in inspectors, or load a model here.")
            self.hub.panel.set_status(text)
            w.show_message(text, 20000)
            return
        w._inspector_opened = True
        self.hub.open_model(BUNDLED)
        self.hub.open_example(DEFAULT_WATCH[0]["question"], DEFAULT_WATCH[0]["passage"])
        w.show_message(f"{shown}: the bundled encoder {BUNDLED}, its QA head untrained, on an example question (no "
                       "SQuAD run selected); select one and press Open best checkpoint in inspectors for its "
                       "checkpoint.", 15000)

    def probe(self) -> None:
        self.hub.panel.probe_button.click()


def page_set(window) -> HubPages:
    """The registry's provider of the QA pages: one InspectorHub, kept as ``window.hub``."""
    window.hub = InspectorHub(window)
    window.hub.message.connect(window.show_message)
    return HubPages(window, window.hub)

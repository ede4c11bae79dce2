"""The main window: Launch / Curves and the registry's pages, the Runs dock, menus and the status bar.

The tabs after Launch and Curves, their help, their shortcuts and where an opened checkpoint goes come
from the page registry (explorer.ui.inspectors.registry), never from their position. Nothing here blocks:
training runs in worker processes (explorer.ui.runs.runner), run folders are read on QThreadPool threads
(explorer.ui.runs.store), the device is probed in a child process (explorer.ui.launch.device), and the
inspectors' model loads and computation run in the inspector child process (explorer.worker.inspector,
reached through explorer.ui.inspectors.client): the GUI process never imports torch.

The runs live in one observable model, explorer.core.runs.store.RunStore: the run queue adds the runs it
drives, reads from disk are offered to it (it decides that a driven run's live state wins), and the
Runs dock and Curves follow it through explorer.ui.runs.bridge.StoreBridge. The window relays no run
events and never asks who owns a run: stop and cancel go to the store. A Predictions page is opened per
predictions file, as a tab of its own ("Predictions: <file>", :meth:`MainWindow.open_predictions`), not a
registry page.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (QDockWidget, QFrame, QLabel, QMainWindow, QVBoxLayout, QWidget)

from explorer.core.specs.train_config import TrainConfig
from explorer.ui.curves.panel import CurvesPanel
from explorer.ui.shell.folder_opener import FolderOpener
from explorer.ui.shell.status_bar import MessageBar, StatusWidgets
from explorer.ui.shell.status_texts import window_title
from explorer.ui.shell.tab_list import TabList
from explorer.ui.shell.tab_rows import RowTabWidget, tabs_with_rows
from explorer.ui.shell.detach import ask_quit
from explorer.ui.shell.quitting import QuitPlan
from explorer.ui.launch.device import DeviceProbe, describe, describe_run
from explorer.ui.shell.help_actions import HelpActions, panel_help_text
from explorer.ui.launch.launcher import LauncherPanel
from explorer.ui.inspectors.client import shared_client
from explorer.ui.runs.remote_inspect import RemoteCheckpointOpener
from explorer.ui.runs.remote_runner import RemoteRunManager
from explorer.ui.runs import research_actions
from explorer.ui.runs.never_started import offer_never_started_runs
from explorer.ui.runs.runner import RunManager
from explorer.core.runs import status as run_status
from explorer.core.runs.store import RunStore
from explorer.ui.runs.bridge import StoreBridge
from explorer.ui.runs.dock import RunsPanel
from explorer.ui.shell.window_geometry import follow_window_width, open_window
from explorer.ui.shell.window_memory import remember_session, restore_session
from explorer.ui.shell.settings import AppSettings, set_current_settings
from explorer.ui.shell.file_dialogs import open_folder
from explorer.ui.shell.tooltips import rich_tooltip
from explorer.ui.inspectors.registry import (CLASSIFY, EMBEDDINGS, EXPLAIN, GROUPS, HUB, PROBE_KEYS, TAG, page,
                                             page_help, pages, wiring)
from explorer.ui.shell.lazy_pages import LazyPages, PageMap, PageSetAttribute
from explorer.ui.shell.checkpoint_pages import CheckpointPages
from explorer.ui.shell.predictions_tabs import PredictionsTabs
from explorer.ui.shell.window_menus import build_menus
from explorer.ui.shell.run_launching import RunLaunching
from explorer.ui.shell.run_reading import RunReading
from explorer.ui.shell.status_texts import (activity_line, activity_short, device_line, device_short, ended_message,
                                            gone_note)

PANEL_KEYS = PROBE_KEYS   # Ctrl+Return and the keypad's Enter: Launch in the Launch tab, a page's own elsewhere


def panel_shortcut(widget: QWidget, slot, keys: tuple[str, ...] = PANEL_KEYS) -> list[QShortcut]:
    """``keys`` (Ctrl+Return and keypad Enter) active only while focus is inside ``widget`` (its tab)."""
    out = []
    for key in keys:
        sc = QShortcut(QKeySequence(key), widget)
        sc.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        sc.activated.connect(slot)
        out.append(sc)
    return out


def placeholder(title: str, why: str = "") -> QWidget:
    """A clean page that names what will be there."""
    page = QFrame()
    page.setObjectName("placeholder")
    text = (page_help(title) or title).replace("&&", "&")
    label = QLabel(f"<h3>{title.replace('&&', '&')}</h3><p>{text}</p>"
                   f"<p style='color:#777'>{why or 'This panel is not available in this build.'}</p>")
    label.setWordWrap(True)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    lay = QVBoxLayout(page)
    lay.addWidget(label)
    return page


class MainWindow(HelpActions, QMainWindow):
    """The app's window. The registry's pages are built when first needed (explorer.ui.shell.lazy_pages):
    their tab is shown, code reads ``pages[title]``, ``page_sets[provider]`` or an attribute below, or the idle
    chain started by the first paint gets to them (one provider per event-loop turn)."""

    # what the registry's providers keep on the window (their page_set docstrings); reading one builds it
    hub = PageSetAttribute(HUB, default=None)   # the InspectorHub (None when its provider failed)
    classify_pages = PageSetAttribute(CLASSIFY)
    groups_tab = PageSetAttribute(GROUPS)
    compare_tab = PageSetAttribute(GROUPS)
    tag_pages = PageSetAttribute(TAG)
    tag_page = PageSetAttribute(TAG)
    explain_page = PageSetAttribute(EXPLAIN)
    embeddings_page = PageSetAttribute(EMBEDDINGS)

    def __init__(self, runs_dir: str | Path, settings: AppSettings | None = None, probe_device: bool = True):
        super().__init__()
        self._curves_prewarm_queued = False   # the Curves plots: built and rendered after the first paint
        self.runs_dir = Path(runs_dir)
        self.settings = settings or AppSettings()
        set_current_settings(self.settings, self.runs_dir)   # pages that remember a measured rate (the τ study's estimate)
        self._set_title()
        open_window(self)   # the screen's available area at a first start (_restore: the saved one)
        self.store = RunStore(self.runs_dir)
        self.store_events = StoreBridge(self.store, self)
        self.manager = RunManager(self.runs_dir, self, store=self.store)
        self.remote = RemoteRunManager(self.runs_dir, self.settings, self.store, self)   # runs on SSH hosts
        self.checkpoint_pages = CheckpointPages(self)   # a checkpoint into the page for its head
        self.launching = RunLaunching(self)             # a launch to this machine, a host or SLURM
        self.remote_inspect = RemoteCheckpointOpener(self.settings, shared_client,
                                                     lambda path, _config: self.open_checkpoint(path),
                                                     self.checkpoint_pages.open_on_host, self)
        self.launcher = LauncherPanel(self.runs_dir, self.settings)
        self.curves = CurvesPanel(settings=self.settings)   # remembers where its splitter was left
        self.runs = RunsPanel()
        self.runs.follow(self.store_events)
        self.curves.follow(self.store_events)
        self.door = None   # answers a new start on this runs folder (shell.single_instance.WindowDoor; set by main)
        self.tabs = RowTabWidget()   # its tabs shown as rows of buttons that wrap (tab_rows): all in view at 1280 px
        self.lazy_pages = LazyPages(self, self.tabs, placeholder, self._page_set_built)
        self.page_sets = PageMap(self.lazy_pages, "page_sets")   # registry provider -> its page set (built on use)
        self.pages = PageMap(self.lazy_pages, "pages")           # registry page title -> its tab widget (same)
        self.shortcuts: list[QShortcut] = []     # the panels' Ctrl+Return (a page's: bound when it is built)
        self._inspector_opened = False
        self._quit_choice: str | None = None
        self.detached: list[str] = []   # runs left training on quit (app.main then exits without killing them)
        self.predictions = PredictionsTabs(self)   # a tab per predictions file

        self.tabs.setDocumentMode(True)
        self.tab_list = TabList(self.tabs)   # every tab in one menu, at the end of the tab rows
        self.tabs.addTab(self.launcher, "Launch")
        self.tabs.addTab(self.curves, "Curves")
        self._add_pages()
        for i in range(self.tabs.count()):
            help_text = panel_help_text(self.tabs.tabText(i))
            if help_text:
                self.tabs.setTabToolTip(i, rich_tooltip(help_text))
        holder, self.tab_rows = tabs_with_rows(self.tabs, self.tab_list)
        self.setCentralWidget(holder)
        self.runs_dock = QDockWidget("Runs", self)
        self.runs_dock.setObjectName("runsDock")
        self.runs_dock.setWidget(self.runs)
        self.runs_dock.setToolTip(panel_help_text("Runs"))
        self._help_dialogs: dict = {}   # title -> its HelpDialog (HelpActions.show_help)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.runs_dock)
        follow_window_width(self)   # wider on a wider window: the run names get the room

        self._build_status_bar()
        self.idle_device = "probing…"
        build_menus(self)
        self._install_panel_shortcuts()

        self._training: frozenset[str] = frozenset()   # the runs training now, as the launcher's estimate last read
        self._connect_panels()

        self.device = DeviceProbe(self)
        self.device.detected.connect(self._device_detected)
        # the probe's child imports torch (1-2 s of CPU): started after the first paint, so that on a 2-core
        # machine it does not take a core from the window's build and first paint
        self._device_probe_pending = probe_device
        self.reading = RunReading(self)   # run folders into the store; the runs folder watched and polled
        self.reading.poll.start()
        self._restore()
        self._reopen_runs()
        self._reopen_predictions()
        self.scan_runs()
        self.remote.resume()   # remote runs of earlier sessions that had not ended: followed again
        self.never_started_runs_offer = None   # "Queue them again" for runs left queued at the last quit
        QTimer.singleShot(0, self, lambda: setattr(self, "never_started_runs_offer", offer_never_started_runs(self)))

    # ---- layout pieces -------------------------------------------------------------------
    def _build_status_bar(self) -> None:
        """The status bar (MessageBar: the temporary message in an elided label of its own, left of the rest) and its
        permanent widgets (StatusWidgets: where the inspectors run, their busy sign, the run activity, the device)."""
        self.setStatusBar(MessageBar(self))
        self.status_widgets = sw = StatusWidgets(self.statusBar())
        self.device_label, self.activity_label, self.inspect_label = sw.device_label, sw.activity_label, sw.inspect_label
        self.inspector_busy, self.inspector_busy_label = sw.inspector_busy, sw.inspector_busy_label
        self.remote_inspect.place_changed.connect(sw.show_place)
        self.remote_inspect.message.connect(lambda text: self.show_message(text, 15000))

    def _connect_panels(self) -> None:
        """The launcher, Curves and Runs dock signals to the window's actions."""
        self.launcher.past_runs = lambda: list(self.runs.model.rows)
        self.launcher.launch_requested.connect(self.launch)
        self.launcher.status_message.connect(self.show_message)
        self.curves.status_message.connect(self.show_message)
        self.store_events.added.connect(lambda _state: self._update_activity())
        self.store_events.changed.connect(lambda *_: self._update_status_labels())
        self.store_events.ended.connect(self._run_ended)
        self.store_events.message.connect(lambda text: self.show_message(text, 15000))
        self.runs.selection_changed.connect(lambda ids: self.reading.show_selected(ids))
        self.runs.stop_requested.connect(self.stop_early)
        self.runs.cancel_requested.connect(self.cancel_run)
        self.folder_opener = FolderOpener(self, lambda text: self.show_message(text, 30000))
        self.runs.open_folder_requested.connect(self._open_folder)
        self.runs.open_checkpoint_requested.connect(self.open_checkpoint)
        self.runs.predict_requested.connect(self.predict_on_file)
        self.runs.compare_requested.connect(self.compare_checkpoints)
        self.runs.label_issues_requested.connect(
            lambda name: research_actions.open_label_issues(self, self.runs.runs_dir(), name))
        self.runs.capsule_requested.connect(lambda path: research_actions.write_run_capsule(self, path))
        self.runs.refresh_requested.connect(self.scan_runs)
        self.runs.removed.connect(lambda _rid: self._refresh_selected())   # the dock removed it from the store
        self.curves.name_of = self.runs.name_of                      # the legend names runs as the list does
        self.runs.renamed.connect(lambda _rid: self.curves.update_legend())
        self.runs.message.connect(self.show_message)
        self.tabs.currentChanged.connect(self._tab_changed)

    def _add_pages(self) -> None:
        """The registry's pages after Launch and Curves, in its order: pending tabs, each page built by its
        provider when first needed (explorer.ui.shell.lazy_pages); the providers' start-up hooks (what must
        work before their pages are built: the Runs dock's group rows)."""
        import importlib

        self.lazy_pages.add_tabs()
        for hook in wiring():
            module, _, function = hook.partition(":")
            getattr(importlib.import_module(module), function)(self)

    def _page_set_built(self, provider: str, page_set) -> None:
        """A provider's pages are in their tabs: bind their shortcuts; the QA pages' busy sign in the status bar;
        the checkpoint opened last offered to them (CheckpointPages.offer)."""
        self.checkpoint_pages.offer(provider, page_set)
        for spec in pages():
            if spec.provider == provider:
                for shortcut in spec.shortcuts:
                    self.shortcuts += panel_shortcut(self.pages[spec.title], getattr(page_set, shortcut.method),
                                                     shortcut.keys)
        if provider == HUB and self.hub is not None:
            self.hub.busy_changed.connect(lambda _busy: self.show_inspector_busy(self.hub.busy_text()))
            self.hub.attention_view.remember_layout(self.settings)   # where the views' handle was left

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt API
        """The first paint starts the device probe's child and queues the Curves plots' build and first render
        (CurvesPanel.prewarm; built at once instead when the Curves page is shown first), then the pages not built
        yet, one per event-loop turn."""
        super().paintEvent(event)
        if self._device_probe_pending:
            self._device_probe_pending = False
            QTimer.singleShot(0, self, self.device.start)
        if not self._curves_prewarm_queued:
            self._curves_prewarm_queued = True
            QTimer.singleShot(0, self.curves, self.curves.prewarm)
        self.lazy_pages.start_idle_builds()

    def show_page(self, title: str) -> QWidget | None:
        """Bring the registry page ``title`` to the front; its widget (None when there is no such page)."""
        widget = self.pages.get(page(title).title)
        if widget is not None:
            self.tabs.setCurrentWidget(widget)
        return widget

    def _install_panel_shortcuts(self) -> None:
        """Ctrl+Return means Launch in the Launch tab; on a registry page, what the page declares (Probe on
        Attention and Spans && τ, bound when the page is built: _page_set_built); nothing elsewhere."""
        self.shortcuts += panel_shortcut(self.launcher, self.launcher.launch)

    def _set_title(self) -> None:
        # Qt adds the application's display name ("… — BERT Explorer") itself; do not repeat it
        self.setWindowTitle(window_title(self.runs_dir))

    # ---- runs ----------------------------------------------------------------------------
    def launch(self, configs: list[TrainConfig], suffixes: list[str] | None = None) -> list[str]:
        """Start ``configs`` where the launcher's Run on says (RunLaunching.launch); returns the run ids."""
        return self.launching.launch(configs, suffixes)

    def _run_ended(self, run_id: str, status: str) -> None:
        """A worker this window drove is done: say so in the status bar, measure its folder."""
        state = self.store.get(run_id)
        self.show_message(ended_message(run_id, status, state), 15000)
        self._update_status_labels()
        self.launcher.runs_changed()   # the launch estimates read the rates this run measured
        if state is not None:
            self.reading.measure_sizes([state])

    def show_inspector_busy(self, text: str) -> None:
        """The status bar's busy sign: a moving bar and ``text`` ("probing …") while the inspector child works for a
        page; hidden for ""."""
        self.status_widgets.show_busy(text)

    def _update_status_labels(self) -> None:
        self._update_device_label()
        self._update_activity()
        training = frozenset(s.run_id for s in self.store.tracked() if s.status == run_status.RUNNING)
        if training != self._training:   # the launcher's whole-run time says whether a run trains beside it
            self._training = training
            self.launcher.runs_changed()

    def _update_device_label(self) -> None:
        """The device of the first live run (from its `started` event), else what a run would use."""
        states = self.store.tracked()
        text = device_line(states, self.idle_device, self.remote.host_of, describe_run)
        short = device_short(states, self.idle_device, self.remote.host_of)
        if (text, short) != self.device_label.forms():
            self.device_label.set_forms(text, short)

    def _update_activity(self) -> None:
        """'running: <name> step 120/400 · 2 queued': the runs driven here and those running
        elsewhere (status_texts.activity_line)."""
        states = self.store.tracked()
        text, tip = activity_line(states, lambda rid: self.runs.model.names.get(rid, rid))
        self.activity_label.set_forms(text, activity_short(states))
        if tip:   # the active run's id and a queue's reason under the line
            self.activity_label.setToolTip("\n\n".join(t for t in (self.activity_label.toolTip(), tip) if t))

    def scan_runs(self) -> None:
        """List the runs folder on a worker thread (RunReading.scan): summaries first, curves when a run is
        selected; then names and sizes."""
        self.reading.scan()

    def stop_early(self, run_id: str) -> None:
        """Stop early (the store asks our own worker, or a worker left training elsewhere via its STOP file)."""
        message = self.store.stop_early(run_id)
        if message:
            self.show_message(message)

    def cancel_run(self, run_id: str) -> None:
        """Cancel (the store cancels our own worker or queued run, or signals a worker started elsewhere)."""
        message = self.store.cancel(run_id)
        if message:
            self.show_message(message)

    def _refresh_selected(self) -> None:
        self.reading.show_selected(self.runs.selected_ids())

    def look_for_new_runs(self) -> None:
        """List the run folders in the runs folder that the list does not hold yet (RunReading.look_for_new_runs)."""
        self.reading.look_for_new_runs()

    def ask_open_run(self) -> None:
        path = open_folder(self, "Open a run folder (ours, an HF Trainer output_dir or checkpoint-N, TensorBoard "
                           "event files)", "run", settings=self.settings, runs_dir=self.runs_dir)
        if path:
            self.open_run_folder(path)

    def _still_there(self, saved: list[str], exists, keep, what: str, verb: str) -> list[str]:
        """The paths of ``saved`` for which ``exists(Path)`` holds; when some do not, ``keep(those that do)`` (the
        settings forget the others) and the start's status note says so (status_texts.gone_note)."""
        present = [p for p in saved if exists(Path(p))]
        gone = [p for p in saved if p not in present]
        if gone:
            keep(present)
            self.settings_note = "; ".join(n for n in (self.settings_note, gone_note(gone, what, verb)) if n)
        return present

    def _reopen_runs(self) -> None:
        """List again the run folders opened with File > Open run folder in earlier sessions (the settings);
        one that no longer exists is skipped and forgotten, with a note in the status bar."""
        self.reading.reopen(self._still_there(self.settings.opened_runs(), Path.is_dir, self.settings.set_opened_runs,
                                              "run folder", "opened"))

    def open_run_folder(self, path: str | Path) -> None:
        """Add a run folder from disk to the list and select it; it is listed again at the next start."""
        self.reading.open_folder(path)

    def ask_runs_dir(self) -> None:
        path = open_folder(self, "Runs folder", "runs_dir", str(self.runs_dir), settings=self.settings)
        if path:
            self.settings.set_runs_dir(path)
            set_current_settings(self.settings, path)
            self.show_message(f"Runs folder: {path} (used for new runs after a restart; listed now)")
            self.runs_dir = Path(path)
            if self.door is not None:   # a new start on this folder wakes this window
                self.door.listen_on(path)
            self._set_title()
            self.reading.watch_runs_dir()
            self.scan_runs()

    def _open_folder(self, run_id: str) -> None:
        s = self.runs.state(run_id)
        if s is not None and s.path is not None:
            self.folder_opener.open(s.path)   # a failure is said in the status bar and a dialog

    def predict_on_file(self, checkpoint: str):
        """"Predict on a file…" for a checkpoint: the dialog; its result opens in a Predictions page."""
        from explorer.ui.inspectors.predictions_view import open_predict_dialog

        return open_predict_dialog(self, checkpoint, on_finished=self.open_predictions)

    def open_predictions(self, summary_or_path, *, show: bool = True):
        """A new Predictions page for a predict result (its summary dict) or a predictions file (PredictionsTabs.open);
        returned."""
        return self.predictions.open(summary_or_path, show=show)

    def close_predictions(self, page) -> None:
        """Close a Predictions page and stop opening its file at start (PredictionsTabs.close)."""
        self.predictions.close(page)

    def _reopen_predictions(self) -> None:
        """Open again the Predictions pages shown when the window last closed (the settings), after the first
        paint; a file gone since is skipped and forgotten with a note in the status bar."""
        self.predictions.reopen(self._still_there(self.settings.predictions_pages(), Path.is_file,
                                                  self.settings.set_predictions_pages, "predictions file", "shown"))

    def open_checkpoint(self, path: str) -> None:
        """Open a checkpoint folder in the registry page that accepts its model head (CheckpointPages.open)."""
        self.checkpoint_pages.open(path)

    def compare_checkpoints(self, path_a: str, path_b: str) -> None:
        """Two runs' checkpoints on one example (CheckpointPages.compare)."""
        self.checkpoint_pages.compare(path_a, path_b)

    def _tab_changed(self, index: int) -> None:
        """First visit of a registry page: its page set's ``first_visit`` (the QA pages load the bundled
        encoder and probe the classic example; Classify loads its own model; Groups and Compare need none).
        A page not built yet is built now, before its tab is painted."""
        widget = self.lazy_pages.ensure_widget(self.tabs.widget(index))
        spec = self.lazy_pages.spec_of(widget)
        self.status_widgets.on_inspector_page(spec is not None)   # where they compute: said on their pages only
        first_visit = getattr(self.page_sets.built(spec.provider), "first_visit", None) if spec else None
        if first_visit is not None:
            first_visit(spec.title)

    # ---- status / help -------------------------------------------------------------------
    def _device_detected(self, info: dict) -> None:
        self.idle_device = describe(info)
        self._update_device_label()

    def show_message(self, text: str, ms: int = 6000) -> None:
        self.statusBar().showMessage(text, ms)

    def new_run(self) -> None:
        """File → New run: the launcher, its Time budget and Run on back to a new run's defaults."""
        self.launcher.new_run()
        self.tabs.setCurrentWidget(self.launcher)
        self.launcher.editors["model"].focus.setFocus()

    # ---- settings / close ----------------------------------------------------------------
    def _restore(self) -> None:
        self.settings_note = restore_session(self)
        if self.settings_note:
            self.show_message(self.settings_note[0].upper() + self.settings_note[1:], 15000)

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt API
        """Quitting with active runs asks: leave them training, stop early and quit, cancel and quit, or stay; the
        remote runs followed are named as going on on their hosts (quitting.QuitPlan decides what each answer does)."""
        if self._quit_choice is None:
            plan = self.quit_plan()
            choice = ask_quit(self, plan.running, plan.queued, remote=plan.remote, current=self.quit_plan,
                              updates=(self.store_events.changed, self.store_events.ended)) if plan.asks else ""
            if choice is None:
                event.ignore()
                return
            self._quit_choice = choice
            plan = self.quit_plan()      # the runs at the answer: one may have ended while the question was open
            for run_id in plan.queued:   # offered again at the next start (never_started_offer)
                self.manager.cancel(run_id, at_quit=True)
            if plan.stopped(choice):     # close again when the last one has saved and ended
                for run_id in plan.stopped(choice):
                    self.manager.stop_early(run_id)
                self.show_message("Stopping early: the window closes when the runs have saved and evaluated", 0)
                self.manager.ended.connect(self._close_when_idle)
                event.ignore()
                return
            self.detached = plan.left_training(choice)
            if plan.cancels_all(choice):
                self.manager.cancel_all(wait_ms=5000)
        if not self.detached:   # workers that reported a result may still be saving / exiting
            self.manager.wait_for_workers(5000)
        self.remote.close()   # remote runs keep training on their hosts and are followed again next start
        remember_session(self)
        self.reading.poll.stop()
        event.accept()

    def quit_plan(self) -> QuitPlan:
        """The runs quitting acts on now: this machine's active and queued runs, the remote runs followed."""
        return QuitPlan.of(self.manager.active(), self.manager.queued(), self.remote.followed())

    def _close_when_idle(self, *_args) -> None:
        if not self.manager.working():
            self.close()

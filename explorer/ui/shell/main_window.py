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

from PySide6.QtCore import QFileSystemWatcher, Qt, QTimer, QUrl
from PySide6.QtGui import QAction, QDesktopServices, QKeySequence, QShortcut
from PySide6.QtWidgets import (QDockWidget, QFileDialog, QFrame, QLabel, QMainWindow, QMessageBox, QProgressBar,
                               QTabBar, QTabWidget, QToolButton, QVBoxLayout, QWidget)

from explorer.core.runs import status as run_status
from explorer.core.specs.train_config import OPEN_RUN_FOLDER_ACTION, ConfigError, TrainConfig
from explorer.ui.curves.panel import CurvesPanel
from explorer.ui.shell.elided_label import ElidedLabel
from explorer.ui.shell.status_bar import MessageBar
from explorer.ui.shell.tab_list import TabList
from explorer.ui.shell.detach import LEAVE, STOP, ask_quit
from explorer.ui.launch.device import DeviceProbe, describe, describe_run
from explorer.ui.shell.help_dialog import GETTING_STARTED, PLOTS_HELP, HelpDialog, shortcuts_html
from explorer.ui.launch.launcher import LauncherPanel
from explorer.ui.inspectors.client import shared_client
from explorer.ui.runs.remote_inspect import RemoteCheckpointOpener
from explorer.ui.runs.remote_runner import RemoteRunManager
from explorer.ui.runs.runner import RunManager
from explorer.ui.runs.state import RunState
from explorer.core.runs.store import RunStore
from explorer.ui.runs.bridge import StoreBridge
from explorer.ui.runs.disk import disk_usage
from explorer.ui.runs.names import display_name
from explorer.ui.runs.store import load_new_summaries, load_run_state, load_summaries
from explorer.ui.runs.dock import RunsPanel
from explorer.ui.shell.screen_fit import fit_to_screen
from explorer.ui.shell.settings import AppSettings, set_current_settings
from explorer.ui.shell.tasks import run_in_thread
from explorer.ui.shell.tooltips import rich_tooltip
from explorer.ui.inspectors.registry import (CLASSIFY, EMBEDDINGS, EXPLAIN, GROUPS, HUB, PROBE_KEYS, TAG, page,
                                             page_for_checkpoint, page_help, pages, wiring)
from explorer.ui.shell.lazy_pages import LazyPages, PageMap, PageSetAttribute

EXTERNAL_POLL_MS = 3000
NEW_RUN_SETTLE_MS = 300   # after the runs folder changed: its new run folder has its config.json by then
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


def _panel_help(title: str) -> str:
    """A tab's help: the registry page's (explorer.ui.inspectors.registry), else the glossary's shell panel."""
    text = page_help(title)
    if text is not None:
        return text
    try:
        from explorer.glossary import panel_help

        return panel_help({"Launch": "Launcher"}.get(title, title).replace("&&", "&"))
    except (ImportError, KeyError):
        return ""


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


class MainWindow(QMainWindow):
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
        set_current_settings(self.settings)   # pages that remember a measured rate (the τ study's estimate)
        self._set_title()
        fit_to_screen(self, 1500, 940)   # never wider or taller than the screen it opens on
        self.store = RunStore(self.runs_dir)
        self.store_events = StoreBridge(self.store, self)
        self.manager = RunManager(self.runs_dir, self, store=self.store)
        self.remote = RemoteRunManager(self.runs_dir, self.settings, self.store, self)   # runs on SSH hosts
        self.remote_inspect = RemoteCheckpointOpener(self.settings, shared_client,
                                                     lambda path, _config: self.open_checkpoint(path),
                                                     self._open_on_host, self)
        self.launcher = LauncherPanel(self.runs_dir, self.settings)
        self.curves = CurvesPanel(settings=self.settings)   # remembers where its splitter was left
        self.runs = RunsPanel()
        self.runs.follow(self.store_events)
        self.curves.follow(self.store_events)
        self.tabs = QTabWidget()
        self.lazy_pages = LazyPages(self, self.tabs, placeholder, self._page_set_built)
        self.page_sets = PageMap(self.lazy_pages, "page_sets")   # registry provider -> its page set (built on use)
        self.pages = PageMap(self.lazy_pages, "pages")           # registry page title -> its tab widget (same)
        self.shortcuts: list[QShortcut] = []     # the panels' Ctrl+Return (a page's: bound when it is built)
        self._inspector_opened = False
        self._loading_runs: set[str] = set()
        self._quit_choice: str | None = None
        self.detached: list[str] = []   # runs left training on quit (app.main then exits without killing them)

        self.tabs.setDocumentMode(True)
        self.tab_list = TabList(self.tabs)   # every tab one click away at 1280 px, where some scroll out of the bar
        self.tabs.addTab(self.launcher, "Launch")
        self.tabs.addTab(self.curves, "Curves")
        self._add_pages()
        for i in range(self.tabs.count()):
            help_text = _panel_help(self.tabs.tabText(i))
            if help_text:
                self.tabs.setTabToolTip(i, rich_tooltip(help_text))
        self.setCentralWidget(self.tabs)
        self.runs_dock = QDockWidget("Runs", self)
        self.runs_dock.setObjectName("runsDock")
        self.runs_dock.setWidget(self.runs)
        self.runs_dock.setToolTip(_panel_help("Runs"))
        self._help_dialogs: dict[str, HelpDialog] = {}
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.runs_dock)
        self.resizeDocks([self.runs_dock], [430], Qt.Orientation.Horizontal)

        self._build_status_bar()
        self.idle_device = "probing…"
        self._build_menus()
        self._install_panel_shortcuts()

        self._connect_panels()

        self.device = DeviceProbe(self)
        self.device.detected.connect(self._device_detected)
        # the probe's child imports torch (1-2 s of CPU): started after the first paint, so that on a 2-core
        # machine it does not take a core from the window's build and first paint
        self._device_probe_pending = probe_device
        self._watch_folder()
        self._poll.start()
        self._restore()
        self._reopen_runs()
        self._reopen_predictions()
        self.scan_runs()
        self.remote.resume()   # remote runs of earlier sessions that had not ended: followed again

    # ---- layout pieces -------------------------------------------------------------------
    def _build_status_bar(self) -> None:
        """The status bar (MessageBar: the temporary message in an elided label of its own, left of the rest) and its
        permanent widgets: where the inspectors run, their busy sign, the run activity, the device."""
        self.setStatusBar(MessageBar(self))
        # one-line labels that elide rather than widen the window (a long run name in the activity label)
        self.device_label = ElidedLabel("device: probing…", min_width=120)
        self.device_label.setToolTip("The device and precision of the active run (from its `started` event), "
                                     "or what a new run would use.")
        self.activity_label = ElidedLabel("", min_width=80)
        self.inspect_label = ElidedLabel("", min_width=120)   # where the inspectors run (remote_inspect)
        self.inspect_label.setToolTip("Where the inspector pages compute: on a remote host over SSH, or on a "
                                      "local copy of its checkpoint.")
        self.inspect_label.hide()
        self.statusBar().addPermanentWidget(self.inspect_label)
        self.remote_inspect.place_changed.connect(self._inspect_place)
        self.remote_inspect.message.connect(lambda text: self.show_message(text, 15000))
        # the inspector pages' work in progress (a probe, a model load), in view at any window size: the probe
        # panel's own busy bar is below its fold at 1280x800 (the sixth trial saw no sign during a long probe)
        self.inspector_busy = QProgressBar()
        self.inspector_busy.setRange(0, 0)            # no percentage: a moving bar
        self.inspector_busy.setTextVisible(False)
        self.inspector_busy.setFixedWidth(70)
        self.inspector_busy_label = ElidedLabel("", min_width=60)
        for w in (self.inspector_busy_label, self.inspector_busy):
            w.setVisible(False)
            self.statusBar().addPermanentWidget(w)
        self.statusBar().addPermanentWidget(self.activity_label)
        self.statusBar().addPermanentWidget(self.device_label)

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
        self.runs.selection_changed.connect(self._selection_changed)
        self.runs.stop_requested.connect(self.stop_early)
        self.runs.cancel_requested.connect(self.cancel_run)
        self.runs.open_folder_requested.connect(self._open_folder)
        self.runs.open_checkpoint_requested.connect(self.open_checkpoint)
        self.runs.predict_requested.connect(self.predict_on_file)
        self.runs.compare_requested.connect(self.compare_checkpoints)
        self.runs.refresh_requested.connect(self.scan_runs)
        self.runs.removed.connect(lambda _rid: self._refresh_selected())   # the dock removed it from the store
        self.curves.name_of = self.runs.name_of                      # the legend names runs as the list does
        self.runs.renamed.connect(lambda _rid: self.curves.update_legend())
        self.runs.message.connect(self.show_message)
        self.tabs.currentChanged.connect(self._tab_changed)

    def _watch_folder(self) -> None:
        """The poll of runs in other processes and the runs folder's watch (new run folders)."""
        self._poll = QTimer(self, interval=EXTERNAL_POLL_MS)
        self._poll.timeout.connect(self._poll_external)
        # a run another process starts in this runs folder (the CLI, another window) is listed when its folder
        # appears (the sixth trial saw it only after Refresh): the folder is watched, and the poll looks too
        # (a file system without change notices; a folder not readable yet at the first look)
        self._folder_watch = QFileSystemWatcher(self)
        self._folder_watch.directoryChanged.connect(lambda _path: self._new_runs_timer.start())
        self._new_runs_timer = QTimer(self, singleShot=True, interval=NEW_RUN_SETTLE_MS)
        self._new_runs_timer.timeout.connect(self.look_for_new_runs)
        self._looking = False
        self._watch_runs_dir()

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
        """A provider's pages are in their tabs: bind their shortcuts; the QA pages' busy sign in the status bar."""
        for spec in pages():
            if spec.provider == provider:
                for shortcut in spec.shortcuts:
                    self.shortcuts += panel_shortcut(self.pages[spec.title], getattr(page_set, shortcut.method),
                                                     shortcut.keys)
        if provider == HUB and self.hub is not None:
            self.hub.busy_changed.connect(lambda _busy: self.show_inspector_busy(self.hub.busy_text()))

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

    def _build_menus(self) -> None:
        def action(menu, text, slot, shortcut=None, tip=""):
            act = QAction(text, self)
            if shortcut:
                act.setShortcut(QKeySequence(shortcut))
            act.setStatusTip(tip)
            act.triggered.connect(slot)
            menu.addAction(act)
            return act

        f = self.menuBar().addMenu("&File")
        action(f, "&New run", self.new_run, QKeySequence.StandardKey.New, "Show the launcher")
        action(f, "&" + OPEN_RUN_FOLDER_ACTION, self.ask_open_run, QKeySequence.StandardKey.Open,
               "Add a run folder from disk to the Runs list")
        action(f, "Load run &config…", self.launcher._ask_load, None, "Load a run config into the launcher")
        action(f, "&Save run config…", self.launcher._ask_save, QKeySequence.StandardKey.Save)
        action(f, "Change runs &folder…", self.ask_runs_dir)
        action(f, "&Export selected runs to CSV…", lambda: self.runs.export_csv_selected(), None,
               "Every selected run's scalars in one table (long or wide CSV)")
        f.addSeparator()
        action(f, "&Quit", self.close, "Ctrl+Q")
        r = self.menuBar().addMenu("&Run")
        action(r, "&Launch", self.launcher.launch, None, "Launch the form's run (Ctrl+Return in the Launch tab)")
        action(r, "Queue paper &grid", lambda: self.launcher.queue_grid())
        action(r, "&Stop early (selected)", lambda: self.runs._each_selected(self.runs.stop_requested), "Ctrl+.")
        action(r, "&Cancel (selected)", lambda: self.runs._each_selected(self.runs.cancel_requested))
        r.addSeparator()
        action(r, "&Hosts…", self.launcher.run_on.edit_hosts, "Ctrl+Shift+H",
               "Remote machines to run on over SSH (the launcher's Run on list)")
        v = self.menuBar().addMenu("&View")
        v.addAction(self.runs_dock.toggleViewAction() if hasattr(self, "runs_dock") else QAction(self))
        action(v, "&Refresh runs", self.scan_runs, "F5")
        for i in range(self.tabs.count()):
            action(v, self.tabs.tabText(i), lambda _=False, i=i: self.tabs.setCurrentIndex(i),
                   f"Ctrl+{i + 1}")
        h = self.menuBar().addMenu("&Help")
        action(h, "&Getting started", lambda: self.show_help("Getting started", GETTING_STARTED))
        action(h, "&Keyboard shortcuts", lambda: self.show_help("Keyboard shortcuts", shortcuts_html()))
        action(h, "&Zooming and moving plots", lambda: self.show_help("Zooming and moving plots", PLOTS_HELP))
        action(h, "About this &panel", self.help_panel, "F1")
        action(h, "&About BERT Explorer", self.about)

    def _install_panel_shortcuts(self) -> None:
        """Ctrl+Return means Launch in the Launch tab; on a registry page, what the page declares (Probe on
        Attention and Spans && τ, bound when the page is built: _page_set_built); nothing elsewhere."""
        self.shortcuts += panel_shortcut(self.launcher, self.launcher.launch)

    def _set_title(self) -> None:
        # Qt adds the application's display name ("… — BERT Explorer") itself; do not repeat it
        self.setWindowTitle(f"runs in {self.runs_dir}")

    def show_help(self, title: str, html: str) -> HelpDialog:
        """One non-modal help page per title (shown again, not duplicated)."""
        dlg = self._help_dialogs.get(title)
        if dlg is None:
            dlg = self._help_dialogs[title] = HelpDialog(title, html, self)
        dlg.show()
        dlg.raise_()
        return dlg

    # ---- runs ----------------------------------------------------------------------------
    def launch(self, configs: list[TrainConfig], suffixes: list[str] | None = None) -> list[str]:
        host = self.launcher.run_on.host()
        if host is not None and host.slurm is not None:   # the script first; submitted on its dialog's Submit
            dlg = self.submit_to_slurm(host, configs, suffixes)
            return list(dlg.run_ids) if dlg is not None else []
        try:
            if host is not None:
                ids = self.remote.enqueue(host, configs, suffixes, gpus=self.launcher.run_on.gpus.value())
            else:
                ids = self.manager.enqueue(configs, suffixes)
        except ConfigError as exc:
            QMessageBox.warning(self, "Cannot launch", str(exc))
            return []
        if ids:
            self.runs.select(ids[:1])
            self.tabs.setCurrentWidget(self.curves)
            where = f" on {host.name}" if host is not None else ""
            self.show_message(f"Launched {ids[0]}{where}" + (f" (+{len(ids) - 1} queued)" if len(ids) > 1 else ""))
        return ids

    def submit_to_slurm(self, host, configs: list[TrainConfig], suffixes: list[str] | None = None):
        """A launch on a SLURM login node: the job script (one job, or one job array for a run group) is shown
        in a dialog (returned; None for a bad config); Submit hands it to RemoteRunManager.submit_slurm."""
        from explorer.core.remote.slurm import sbatch_script
        from explorer.ui.launch.sbatch_dialog import SbatchDialog

        try:
            prepared = self.remote.plan(configs, suffixes)
        except ConfigError as exc:
            QMessageBox.warning(self, "Cannot launch", str(exc))
            return None
        ids = [cfg.run_id for cfg in prepared]
        script = sbatch_script(host, ids)
        dlg = SbatchDialog(host, ids, script, self)

        def submit():
            self.remote.submit_slurm(host, prepared, script)
            self.runs.select(ids[:1])
            self.tabs.setCurrentWidget(self.curves)
            self.show_message(f"Submitting {ids[0]} to SLURM on {host.name}"
                              + (f" (a job array of {len(ids)})" if len(ids) > 1 else ""))

        dlg.submitted.connect(submit)
        self.sbatch_dialog = dlg
        dlg.open()
        return dlg

    def _run_ended(self, run_id: str, status: str) -> None:
        """A worker this window drove is done: say so in the status bar, measure its folder."""
        state = self.store.get(run_id)
        msg = f"{run_id}: {status}"
        if status == "failed" and state is not None:
            msg += f" — {state.error}"
        self.show_message(msg, 15000)
        self._update_status_labels()
        if state is not None:
            self._measure_sizes([state])

    def show_inspector_busy(self, text: str) -> None:
        """The status bar's busy sign: a moving bar and ``text`` ("probing …") while the inspector child works for a
        page; hidden for ""."""
        self.inspector_busy_label.setText(text)
        for w in (self.inspector_busy_label, self.inspector_busy):
            w.setVisible(bool(text))

    def _update_status_labels(self) -> None:
        self._update_device_label()
        self._update_activity()

    def _update_device_label(self) -> None:
        """The device of the first live run (from its `started` event), else what a run would use."""
        live = [s for s in self.store.tracked() if s.is_live and s.status != "queued"]
        host = self.remote.host_of(live[0].run_id) if live else ""
        if live and live[0].device:
            text = f"device: {describe_run(live[0].device, live[0].mixed_precision)}" + (f" on {host}" if host else "")
        elif live:
            text = f"device: {self.idle_device} (starting)"
        else:
            text = f"device: {self.idle_device} (idle)"
        if text != self.device_label.text():
            self.device_label.setText(text)

    def _update_activity(self) -> None:
        """'running: <name> step 120/400 · 1 running · 2 queued': the runs driven here and those running
        elsewhere (a run left training when the app last quit, another window, the CLI)."""
        states = self.store.tracked()
        running = sum(s.status in run_status.WORKING for s in states)
        queued = sum(s.status == "queued" for s in states)
        parts = ([f"{running} running"] if running else []) + ([f"{queued} queued"] if queued else [])
        active = next((s for s in states if s.status in ("starting", "running", "stopping", "cancelling")), None)
        if active is not None:   # the active run by name, with its progress
            name = self.runs.model.names.get(active.run_id, active.run_id)
            step = f" step {active.step}/{active.steps_total}" if active.steps_total else ""
            parts.insert(0, f"{active.status}: {name}{step}")
        self.activity_label.setText(" · ".join(parts))
        self.activity_label.setToolTip(active.run_id if active is not None else "")

    def _selection_changed(self, run_ids: list[str]) -> None:
        """Show the selected runs in Curves; a run listed from its summary is read whole first."""
        states = [s for s in (self.runs.state(r) for r in run_ids) if s is not None]
        for s in states:
            if not s.loaded and s.path is not None and s.run_id not in self._loading_runs:
                self._loading_runs.add(s.run_id)
                run_in_thread(load_run_state, s.path, on_done=self._run_loaded, owner=self,
                              on_error=lambda msg, _tb, rid=s.run_id: self._run_load_failed(rid, msg))
        self.curves.set_runs([s for s in states if s.loaded])

    def _run_loaded(self, state: RunState) -> None:
        """A selected run read whole: the store takes it unless the run left the list meanwhile (the
        Runs dock then re-announces the selection, so Curves shows it)."""
        self._loading_runs.discard(state.run_id)
        if state.run_id in self.store:
            self.store.offer(state)

    def _run_load_failed(self, run_id: str, message: str) -> None:
        self._loading_runs.discard(run_id)
        self.show_message(f"Cannot read {run_id}: {message}", 10000)

    def scan_runs(self) -> None:
        """List the runs folder on a worker thread: summaries first (config + events without the step
        events), curves when a run is selected; then names and sizes."""
        self.show_message(f"Reading runs in {self.runs_dir} …" + (f" Note: {self.settings_note}" if
                                                                 self.settings_note else ""))
        self.runs.set_loading(True)
        run_in_thread(load_summaries, self.runs_dir, on_done=self._scanned, owner=self,
                      on_error=self._scan_failed)

    def _scan_failed(self, message: str, _tb: str) -> None:
        self.runs.set_loading(False)
        self.show_message(f"Cannot read {self.runs_dir}: {message}")

    def _scanned(self, result) -> None:
        states, problems = result
        for s in states:
            self.store.offer(s)
        self.runs.set_loading(False)
        self._refresh_selected()
        n = len(states)
        text = f"{n} run{'' if n == 1 else 's'} in {self.runs_dir}"
        listed = len(self.runs.all_ids())
        if listed > n:   # the dock also lists runs opened from other folders, queued or just launched
            text += f" ({listed} listed with those opened from elsewhere or queued)"
        if problems:
            text += f"; {len(problems)} unreadable: {problems[0]}"
        noted = [s for s in states if s.read_notes]
        if noted:
            text += f"; {len(noted)} read with parts skipped (see the Status tooltip): {noted[0].read_notes[0]}"
        if self.settings_note:  # keep the startup note in view (this message replaces it)
            text += f". Note: {self.settings_note}"
        self.show_message(text, 15000 if self.settings_note else 8000)
        paths = {s.run_id: s.path for s in states if s.path is not None}
        run_in_thread(lambda: {rid: display_name(p) for rid, p in paths.items()}, owner=self,
                      on_done=lambda names: self.runs.set_names({k: v for k, v in names.items() if v}))
        self._measure_sizes(states)
        self._update_device_label()   # a run left training last time is listed as running: say so
        self._update_activity()

    def _measure_sizes(self, states: list[RunState]) -> None:
        paths = {s.run_id: s.path for s in states if s.path is not None}
        if paths:
            run_in_thread(lambda: {rid: disk_usage(p) for rid, p in paths.items()}, owner=self,
                          on_done=lambda sizes: [self.runs.model.set_size(r, n) for r, n in sizes.items()])

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
        self._selection_changed(self.runs.selected_ids())

    def _poll_external(self) -> None:
        """Runs that are running elsewhere (another window, the CLI): re-read their folders; list new ones."""
        for s in self.store.running_elsewhere() + self.store.trainer_folders_to_recheck():
            run_in_thread(load_run_state, s.path, on_done=self._reloaded, owner=self)
        self.look_for_new_runs()

    def _watch_runs_dir(self) -> None:
        """Watch the runs folder (only it: a new run is a new folder in it), once it exists."""
        watched = self._folder_watch.directories()
        if watched != [str(self.runs_dir)] and self.runs_dir.is_dir():
            if watched:
                self._folder_watch.removePaths(watched)
            self._folder_watch.addPath(str(self.runs_dir))

    def look_for_new_runs(self) -> None:
        """List the run folders directly in the runs folder that the list does not hold yet (read on a worker
        thread; one look at a time)."""
        self._watch_runs_dir()
        if self._looking or self.runs.loading:
            return
        self._looking = True
        known = {str(s.path) for s in self.store.states() if s.path is not None}

        def done(states) -> None:
            self._looking = False
            for state in states:
                if state.run_id not in self.store:
                    self.store.offer(state)
            if states:
                self._update_status_labels()

        def failed(_message, _tb) -> None:
            self._looking = False

        run_in_thread(load_new_summaries, self.runs_dir, known, on_done=done, on_error=failed, owner=self)

    def _reloaded(self, state: RunState) -> None:
        if self.store.offer(state):
            self._update_status_labels()

    def ask_open_run(self) -> None:
        start = self.settings.last_dir("run") or str(self.runs_dir)
        path = QFileDialog.getExistingDirectory(self, "Open a run folder (ours, an HF Trainer output_dir or "
                                                "checkpoint-N, TensorBoard event files)", start)
        if path:
            self.settings.set_last_dir("run", str(Path(path).parent))
            self.open_run_folder(path)

    def _still_there(self, saved: list[str], exists, keep, what: str, verb: str) -> list[str]:
        """The paths of ``saved`` for which ``exists(Path)`` holds; when some do not, ``keep(those that do)`` (the
        settings forget the others) and the start's status note says so ("2 run folders opened before no longer
        exist and were skipped: A, B")."""
        present = [p for p in saved if exists(Path(p))]
        gone = [p for p in saved if p not in present]
        if gone:
            keep(present)
            one = len(gone) == 1
            note = (f"{len(gone)} {what}{'' if one else 's'} {verb} before no longer exist{'s' if one else ''} and "
                    f"{'was' if one else 'were'} skipped: " + ", ".join(gone))
            self.settings_note = "; ".join(n for n in (self.settings_note, note) if n)
        return present

    def _reopen_runs(self) -> None:
        """List again the run folders opened with File > Open run folder in earlier sessions (the settings);
        one that no longer exists is skipped and forgotten, with a note in the status bar."""
        present = self._still_there(self.settings.opened_runs(), Path.is_dir, self.settings.set_opened_runs,
                                    "run folder", "opened")
        for path in present:
            run_in_thread(load_run_state, path, on_done=self.store.offer, owner=self,
                          on_error=lambda msg, _tb, p=path: self.show_message(f"Cannot read {p}: {msg}", 10000))

    def open_run_folder(self, path: str | Path) -> None:
        """Add a run folder from disk to the list (read on a worker thread) and select it; it is listed again
        at the next start (the settings)."""
        def done(state: RunState) -> None:
            self.settings.add_opened_run(path)
            self.store.offer(state)
            self.runs.select([state.run_id])
            self.tabs.setCurrentWidget(self.curves)
            self.show_message(f"Opened {path}")

        run_in_thread(load_run_state, path, on_done=done, owner=self,
                      on_error=lambda msg, _tb: QMessageBox.warning(self, "Not a run folder", msg))

    def ask_runs_dir(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Runs folder", str(self.runs_dir))
        if path:
            self.settings.set_runs_dir(path)
            self.show_message(f"Runs folder: {path} (used for new runs after a restart; listed now)")
            self.runs_dir = Path(path)
            self._set_title()
            self._watch_runs_dir()
            self.scan_runs()

    def _open_folder(self, run_id: str) -> None:
        s = self.runs.state(run_id)
        if s is not None and s.path is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(s.path)))

    def predict_on_file(self, checkpoint: str):
        """"Predict on a file…" for a checkpoint: the dialog; its result opens in a Predictions page."""
        from explorer.ui.inspectors.predictions_view import open_predict_dialog

        return open_predict_dialog(self, checkpoint, on_finished=self.open_predictions)

    def open_predictions(self, summary_or_path, *, show: bool = True):
        """A new Predictions page for a predict result (its summary dict) or a predictions file path, brought to
        the front unless ``show`` is False; the file is opened again at the next start until its page is closed
        (the × on its tab). Raises what PredictionsView.open raises for a file it cannot read."""
        from explorer.ui.inspectors.predictions_view import PredictionsView, fill_launcher

        summary = summary_or_path if isinstance(summary_or_path, dict) else None
        path = summary["out"] if summary else str(summary_or_path)
        page = PredictionsView(self)
        page.open(path, summary)
        page.message.connect(self.show_message)

        def finetune(fields, note):
            fill_launcher(self.launcher, fields, note)
            self.tabs.setCurrentWidget(self.launcher)
        page.finetune_requested.connect(finetune)
        index = self.tabs.addTab(page, f"Predictions: {Path(path).name}")
        self.tabs.setTabToolTip(index, str(path))
        close = QToolButton()
        close.setText("×")
        close.setAutoRaise(True)
        close.setToolTip(f"Close this page (the file stays: {path})")
        page.predictions_path = str(path)
        close.clicked.connect(lambda: self.close_predictions(page))
        self.tabs.tabBar().setTabButton(index, QTabBar.ButtonPosition.RightSide, close)
        self.settings.add_predictions_page(path)
        if show:
            self.tabs.setCurrentWidget(page)
        return page

    def close_predictions(self, page) -> None:
        """Close a Predictions page (its review is saved as it changes) and stop opening its file at start."""
        index = self.tabs.indexOf(page)
        if index < 0:
            return
        self.tabs.removeTab(index)
        self.settings.remove_predictions_page(page.predictions_path)
        page.deleteLater()

    def _reopen_predictions(self) -> None:
        """Open again the Predictions pages shown when the window last closed (the settings), after the first
        paint and without changing the current tab; a file gone since, or no longer readable, is skipped and
        forgotten with a note in the status bar."""
        present = self._still_there(self.settings.predictions_pages(), Path.is_file,
                                    self.settings.set_predictions_pages, "predictions file", "shown")

        def reopen() -> None:
            for path in present:
                try:
                    self.open_predictions(path, show=False)
                except Exception as exc:  # noqa: BLE001 - a file changed since: its page is not restored
                    self.settings.remove_predictions_page(path)
                    self.show_message(f"Predictions page not restored: {path}: {exc}", 15000)
        if present:
            QTimer.singleShot(0, self, reopen)

    def open_checkpoint(self, path: str) -> None:
        """Open a checkpoint folder in the registry page that accepts its model head (read once:
        core.models.checkpoint_windows.checkpoint_task_name), with the config of the run it belongs to. A checkpoint
        of a run on a remote host is fetched into the run's local folder first (progress in the status bar)."""
        from explorer.core.models.checkpoint_windows import checkpoint_task_name

        run = self.remote.run_for_path(path)
        if run is not None:   # on the host over SSH, or a fetched copy: as chosen for the host (remote_inspect)
            self.remote_inspect.open(run, str(path))
            return
        self.remote_inspect.inspect_here()
        head, task = checkpoint_task_name(path)
        self._open_in_page(path, head, task, self.store.config_of(path))

    def _open_in_page(self, path: str, head: str | None, task: str | None, run_config: dict) -> None:
        spec = page_for_checkpoint(head)
        page_set = self.page_sets.get(spec.provider) if spec is not None else None
        if page_set is None:
            self.show_message(f"No page of this build opens {path}")
            return
        page_set.open_checkpoint(spec.title, path, task, run_config)
        self.show_page(spec.title)
        self.show_message(f"Opening {path} in {spec.plain_title} …")

    def _open_on_host(self, path: str, task: str | None, run_config: dict) -> None:
        """A checkpoint path on a remote host, opened by its run's task (the folder is not here to read)."""
        from explorer.core.specs.tasks import find_task_facts, task_for_checkpoint, task_problem

        facts = find_task_facts(task or "")
        head = facts.head if facts is not None else None
        self._open_in_page(path, head, task_for_checkpoint(head, task, task_problem(task) or None), run_config)

    def compare_checkpoints(self, path_a: str, path_b: str) -> None:
        """Two runs' checkpoints on one example: A opens in the Attention page (as "Open best checkpoint"), and the
        two-checkpoint view opens on the example shown there with B filled in."""
        self.open_checkpoint(path_a)
        if self.hub is None:
            return
        self.hub.open_compare(source_b=path_b)
        self.show_message(f"Comparing {path_a} (A) with {path_b} (B): press Compare")
    def _inspect_place(self, text: str) -> None:
        """The status bar's note of where the inspectors compute (hidden while it is this machine)."""
        self.inspect_label.setText(text)
        self.inspect_label.setVisible(bool(text))
        if text:
            self.show_message(text, 15000)

    def _tab_changed(self, index: int) -> None:
        """First visit of a registry page: its page set's ``first_visit`` (the QA pages load the bundled
        encoder and probe the classic example; Classify loads its own model; Groups and Compare need none).
        A page not built yet is built now, before its tab is painted."""
        widget = self.lazy_pages.ensure_widget(self.tabs.widget(index))
        spec = self.lazy_pages.spec_of(widget)
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
        self.tabs.setCurrentWidget(self.launcher)
        self.launcher.editors["model"].focus.setFocus()

    def help_panel(self) -> None:
        title = self.tabs.tabText(self.tabs.currentIndex())
        text = _panel_help(title) or "No help for this panel yet."
        QMessageBox.information(self, f"About the {title.replace('&&', '&')} panel", text)

    def about(self) -> None:
        QMessageBox.about(self, "BERT Explorer",
                          "Launch BERT fine-tunes, watch them learn live, and probe span scores, the "
                          f"no-answer threshold and attention flow.\n\nRuns folder: {self.runs_dir}\n"
                          f"Settings: {self.settings.file_name()}")

    # ---- settings / close ----------------------------------------------------------------
    def _restore(self) -> None:
        geo, state = self.settings.geometry(), self.settings.window_state()
        if geo is not None:
            self.restoreGeometry(geo)
        if state is not None:
            self.restoreState(state)
        last, self.settings_note = self.settings.saved_form()
        if last:
            known = dict(last, output_dir=last.get("output_dir") or str(self.runs_dir), run_id="")
            try:
                self.launcher.set_config(TrainConfig.from_dict(known))
            except Exception as exc:  # noqa: BLE001 - a saved value no editor accepts: start from the defaults
                self.settings_note = (f"the saved launcher form in {self.settings.file_name()} was unreadable "
                                      f"({exc}); using the defaults")
                self.launcher.set_config(TrainConfig(output_dir=str(self.runs_dir)))
        notes = list(getattr(self.settings, "notes", []))   # e.g. a saved runs folder that is now a file
        self.settings_note = "; ".join(notes + ([self.settings_note] if self.settings_note else []))
        if self.settings_note:
            self.show_message(self.settings_note[0].upper() + self.settings_note[1:], 15000)

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt API
        """Quitting with active runs asks: leave them training, stop early and quit, cancel and quit, or stay."""
        if self._quit_choice is None and self.manager.active():
            active, queued = self.manager.active(), self.manager.queued()
            running = [r for r in active if r not in queued]
            choice = ask_quit(self, running, queued, remote=self.remote.followed())
            if choice is None:
                event.ignore()
                return
            self._quit_choice = choice
            for run_id in queued:
                self.manager.cancel(run_id)
            if choice == STOP:     # close again when the last one has saved and ended
                for run_id in running:
                    self.manager.stop_early(run_id)
                self.show_message("Stopping early: the window closes when the runs have saved and evaluated",
                                  0)
                self.manager.ended.connect(self._close_when_idle)
                event.ignore()
                return
            if choice == LEAVE:
                self.detached = running
            else:
                self.manager.cancel_all(wait_ms=5000)
        if not self.detached:   # workers that reported a result may still be saving / exiting
            self.manager.wait_for_workers(5000)
        self.remote.close()   # remote runs keep training on their hosts and are followed again next start
        self.settings.set_window(self.saveGeometry(), self.saveState())
        self.settings.set_last_config(self.launcher.config().to_dict())
        self.settings.sync()
        self._poll.stop()
        event.accept()

    def _close_when_idle(self, *_args) -> None:
        if not self.manager.working():
            self.close()

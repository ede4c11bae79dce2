"""The main window's reading of run folders into the run store, on worker threads (the GUI never waits on disk).

The runs folder is listed as summaries first (config + events without the step events); a run's curves are read
when it is selected; names and sizes follow. Run folders opened with File > Open run folder are listed again at
the next start. Runs in other processes (another window, the CLI, another tool's run still growing) are re-read
every EXTERNAL_POLL_MS, and a run another process starts in the runs folder is listed when its folder appears:
the folder is watched, and the poll looks too (a file system without change notices; a folder not readable yet
at the first look).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer
from PySide6.QtWidgets import QMessageBox

from explorer.core.runs.reading import OURS, find_runs, is_run_dir
from explorer.ui.runs.disk import disk_usage
from explorer.ui.runs.names import display_name
from explorer.ui.runs.state import RunState
from explorer.ui.runs.store import load_new_summaries, load_run_state, load_summaries, reload_followed
from explorer.ui.shell.settings import ShownRunNames
from explorer.ui.shell.status_texts import scan_message
from explorer.ui.shell.tasks import run_in_thread

__all__ = ["EXTERNAL_POLL_MS", "NEW_RUN_SETTLE_MS", "RunReading"]

EXTERNAL_POLL_MS = 3000
NEW_RUN_SETTLE_MS = 300   # after the runs folder changed: its new run folder has its config.json by then


class RunReading(QObject):
    """Reads run folders for ``window`` (a MainWindow: its ``store``, ``runs`` dock, ``curves``, ``tabs``,
    ``settings``, ``runs_dir``, ``settings_note``, ``show_message`` and status labels). ``poll``: the timer of the
    re-reads; ``watcher``: the runs folder's QFileSystemWatcher; ``looking``: a look for new run folders is under
    way (one at a time)."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self._loading_runs: set[str] = set()
        self._reopened: list[str] = []   # run folders of earlier sessions listed again (the scan's line counts them)
        self.poll = QTimer(self, interval=EXTERNAL_POLL_MS)
        self.poll.timeout.connect(self.poll_external)
        self.watcher = QFileSystemWatcher(self)
        self.watcher.directoryChanged.connect(lambda _path: self._new_runs_timer.start())
        self._new_runs_timer = QTimer(self, singleShot=True, interval=NEW_RUN_SETTLE_MS)
        self._new_runs_timer.timeout.connect(self.look_for_new_runs)
        self.looking = False
        self.watch_runs_dir()
        window.runs.model.shown_names = ShownRunNames(window.settings)   # a run's name stays from one session on

    # ---- the runs folder -----------------------------------------------------------------------
    def scan(self) -> None:
        """List the runs folder on a worker thread: summaries first, curves when a run is selected; then names and
        sizes."""
        w = self.window
        w.show_message(f"Reading runs in {w.runs_dir} …" + (f" Note: {w.settings_note}" if w.settings_note else ""))
        w.runs.set_loading(True)
        run_in_thread(load_summaries, w.runs_dir, on_done=self.scanned, owner=self, on_error=self._scan_failed)

    def _scan_failed(self, message: str, _tb: str) -> None:
        self.window.runs.set_loading(False)
        self.window.show_message(f"Cannot read {self.window.runs_dir}: {message}")

    def scanned(self, result) -> None:
        """The runs folder was read (``result``: (RunStates, unreadable folders' problems)): the store takes the
        runs, the status bar says what was found; names and sizes are read next."""
        w = self.window
        states, problems = result
        with w.runs.model.names_deferred():
            for s in states:
                w.store.offer(s)
        w.runs.set_loading(False)
        self.show_selected(w.runs.selected_ids())
        text = scan_message(w.runs_dir, states, problems, len(w.runs.all_ids()), w.settings_note,
                            opened=outside_count(self._reopened, w.runs_dir))
        w.show_message(text, 15000 if w.settings_note else 8000)
        paths = {s.run_id: s.path for s in states if s.path is not None}
        run_in_thread(lambda: {rid: display_name(p) for rid, p in paths.items()}, owner=self,
                      on_done=lambda names: w.runs.set_names({k: v for k, v in names.items() if v}))
        self.measure_sizes(states)
        w._update_device_label()   # a run left training last time is listed as running: say so
        w._update_activity()

    def measure_sizes(self, states: list[RunState]) -> None:
        """The runs' folders' sizes on disk, into the Runs list (a worker thread)."""
        paths = {s.run_id: s.path for s in states if s.path is not None}
        if paths:
            run_in_thread(lambda: {rid: disk_usage(p) for rid, p in paths.items()}, owner=self,
                          on_done=lambda sizes: [self.window.runs.model.set_size(r, n) for r, n in sizes.items()])

    # ---- the selected runs ---------------------------------------------------------------------
    def show_selected(self, run_ids: list[str]) -> None:
        """Show the selected runs in Curves; a run listed from its summary is read whole first."""
        w = self.window
        states = [s for s in (w.runs.state(r) for r in run_ids) if s is not None]
        for s in states:
            if not s.loaded and s.path is not None and s.run_id not in self._loading_runs:
                self._loading_runs.add(s.run_id)
                run_in_thread(load_run_state, s.path, on_done=self._run_loaded, owner=self,
                              on_error=lambda msg, _tb, rid=s.run_id: self._run_load_failed(rid, msg))
        w.curves.set_runs([s for s in states if s.loaded])

    def _run_loaded(self, state: RunState) -> None:
        """A selected run read whole: the store takes it unless the run left the list meanwhile (the
        Runs dock then re-announces the selection, so Curves shows it)."""
        key = self.window.store.listed_key(state.path)   # the read names the run by its folder, the list by its key
        self._loading_runs.discard(key)
        if key is not None:
            self.window.store.offer(state)

    def _run_load_failed(self, run_id: str, message: str) -> None:
        self._loading_runs.discard(run_id)
        self.window.show_message(f"Cannot read {run_id}: {message}", 10000)

    # ---- run folders opened from disk ---------------------------------------------------------
    def reopen(self, present: list[str]) -> None:
        """List again the run folders opened in earlier sessions that are still there."""
        w = self.window
        self._reopened = list(present)
        for path in present:
            run_in_thread(load_run_state, path, on_done=w.store.offer, owner=self,
                          on_error=lambda msg, _tb, p=path: w.show_message(f"Cannot read {p}: {msg}", 10000))

    def open_folder(self, path: str | Path) -> None:
        """Add a run folder from disk to the list (read on a worker thread) and select it; it is listed again
        at the next start (the settings). A folder that is no run folder but holds some below it (a TensorBoard
        --logdir such as an HF Trainer's ``output_dir/runs``, whose event files are one level down) opens each of
        them, as TensorBoard does. Every open ends visibly: the run selected with a status-bar line (saying so
        when it was listed already), or a warning without the exception's class name."""
        w = self.window
        path = Path(path)
        inside = [] if is_run_dir(path) else find_runs(path, depth=2)
        if inside:
            w.show_message(f"{path} holds {len(inside)} run folder(s): opening "
                           + ", ".join(str(p.relative_to(path)) for p in inside), 10000)
            for run_dir in inside:
                self.open_folder(run_dir)
            return
        listed = w.store.listed_key(path)

        def done(state: RunState) -> None:
            w.settings.add_opened_run(path)
            w.store.offer(state)
            w.runs.select([state.run_id])
            w.tabs.setCurrentWidget(w.curves)
            w.show_message(f"{path} is already listed as {state.run_id}: selected it" if listed
                           else f"Opened {path}", 10000)

        run_in_thread(load_run_state, path, on_done=done, owner=self,
                      on_error=lambda msg, _tb: QMessageBox.warning(w, "Not a run folder",
                                                                   msg.removeprefix("ValueError: ")))

    # ---- runs in other processes ---------------------------------------------------------------
    def poll_external(self) -> None:
        """Runs that are running elsewhere (another window, the CLI): re-read their folders; list new ones."""
        store = self.window.store
        for s in store.running_elsewhere() + store.trainer_folders_to_recheck() + store.unstarted_to_recheck():
            run_in_thread(reload_followed, s.path, owner=self,
                          on_done=lambda state, rid=s.run_id, path=s.path: self._reloaded(state, rid, path))
        self.look_for_new_runs()

    def watch_runs_dir(self) -> None:
        """Watch the runs folder (only it: a new run is a new folder in it), once it exists."""
        runs_dir = self.window.runs_dir
        watched = self.watcher.directories()
        if watched != [str(runs_dir)] and runs_dir.is_dir():
            if watched:
                self.watcher.removePaths(watched)
            self.watcher.addPath(str(runs_dir))

    def look_for_new_runs(self) -> None:
        """List the run folders directly in the runs folder that the list does not hold yet (read on a worker
        thread; one look at a time)."""
        w = self.window
        self.watch_runs_dir()
        if self.looking or w.runs.loading:
            return
        self.looking = True
        known = {str(s.path) for s in w.store.states() if s.path is not None}

        def done(states) -> None:
            self.looking = False
            for state in states:
                if w.store.listed_key(state.path) is None:
                    w.store.offer(state)
            if states:
                w._update_status_labels()

        def failed(_message, _tb) -> None:
            self.looking = False

        run_in_thread(load_new_summaries, w.runs_dir, known, on_done=done, on_error=failed, owner=self)

    def _reloaded(self, state: RunState | None, run_id: str, path) -> None:
        """A followed run read again: the store takes it; ``state`` None: its folder is gone (a run refused before
        its first step removes it), so the run leaves the list, as it would at the next start, and the status bar
        says why it went."""
        store = self.window.store
        if state is None:
            if store.listed_key(path) == run_id and not store.is_driven(run_id):
                ours = getattr(store.get(run_id), "kind", OURS) == OURS
                store.remove(run_id)
                self.window._refresh_selected()   # Curves drops it too
                store.note(f"{run_id} is no longer listed: its folder {path} is gone" + (
                    " (a run that fails before its first step removes its folder; the command line that started it "
                    "says why)" if ours else ""))
                self.window._update_status_labels()
            return
        if store.offer(state):
            self.window._update_status_labels()


def outside_count(paths: list[str], runs_dir: Path) -> int:
    """How many of ``paths`` lie outside ``runs_dir`` (those inside are among the runs folder's own runs)."""
    root = Path(runs_dir).resolve()
    return sum(1 for p in paths if not Path(p).resolve().is_relative_to(root))

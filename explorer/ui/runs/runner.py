"""Training workers as child processes (QProcess) and the queue that runs them one after another.

Each run is ``python -m explorer train --config <runs>/.launch/<run_id>.json`` (docs/architecture.md,
"Training runs in a separate process"): the worker prints JSON-lines events on stdout, which are
parsed as they arrive (explorer.core.protocol.events.iter_events; other lines are kept as log text);
stderr is kept for the error view. Stop early = create ``<run folder>/STOP``; cancel = terminate
(SIGTERM), then kill after a grace period. A worker that dies without a terminal event is marked
failed (or cancelled if we asked) and that event is appended to its events.jsonl (through the run
store, explorer.core.runs.appending.append_event) so the run reads the same after a restart; when that append
fails, the reason is in the run's log and the store's ``message``.

The queue puts every run it makes into the window's :class:`~explorer.core.runs.store.RunStore` as their
driver and tells the store of each change; the Runs dock and Curves follow the store.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time
from pathlib import Path

from PySide6.QtCore import QObject, QProcess, QProcessEnvironment, QTimer, Signal

from explorer.core.runs import status as run_status
from explorer.core.protocol.events import TERMINAL_EVENTS, EventParseError, make_event, parse_event, read_events
from explorer.core.priorities import worker_niceness
from explorer.core.runs.appending import append_event
from explorer.core.runs.layout import config_file, events_file, stop_file
from explorer.core.runs.naming import free_run_id, new_run_id
from explorer.core.runs.store import RunStore
from explorer.core.runs.workers import request_stop
from explorer.core.specs.train_config import TrainConfig
from explorer.paths import REPO_ROOT
from explorer.ui.runs.state import RunState

STDERR_KEEP = 64_000        # characters of stderr kept for the error view
CANCEL_GRACE_MS = 5_000     # SIGTERM -> SIGKILL
# Workers run at a lower CPU priority (POSIX nice) so that a CPU-bound fine-tune on the same
# machine does not take the cores from the window while it redraws. $EXPLORER_WORKER_NICE (0 = off).
# The worker also lowers itself to the same value (explorer.worker.train.lower_priority), which covers
# runs started from the command line; setting it here too covers the seconds before its first line runs.
WORKER_NICE = worker_niceness()   # explorer.core.priorities


def worker_command(config_path: str | Path) -> list[str]:
    """The argv that starts one training worker."""
    return [sys.executable, "-m", "explorer", "train", "--config", str(config_path)]


def make_run_id(config: TrainConfig, taken: set[str], runs_dir: Path, suffix: str = "") -> str:
    """The run id rule (explorer.core.runs.naming.new_run_id): '20250612-101530-minilm-pair-mrpc_train' (+ suffix,
    + '-2'... if taken): unique in memory and on disk. A Run name the user typed is kept, '-2'... added while
    it is taken (explorer.core.runs.naming.free_run_id; the launcher asks first)."""
    if config.run_id:
        return free_run_id(config.run_id, runs_dir, taken=taken)
    return new_run_id(config.model, config.task, runs_dir, suffix=suffix, taken=taken, data=config.train)


def record_cancelled_queued(cfg: TrainConfig, at_quit: bool = False) -> str:
    """Keep a queued run that was cancelled before it started: its folder gets config.json and one
    ``cancelled`` event (``queued: true``), so it stays listed ("cancelled (queued)") after a restart. ``at_quit``:
    the queue was dropped because the app quit (the event says ``at_quit: true``), so the next start offers the
    run again (explorer.core.studies.groups.never_started_runs); a run the user cancelled is not offered.

    Returns "" when recorded, else what failed (the row stays in this window's list; only the record on
    disk is missing)."""
    run_dir = Path(cfg.output_dir) / cfg.run_id
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        if not config_file(run_dir).exists():
            cfg.save(config_file(run_dir))
        extra = {"at_quit": True} if at_quit else {}
        append_event(run_dir, make_event(run_status.CANCELLED, cfg.run_id, step=None, seconds=None, queued=True,
                                         source="gui", **extra))
    except OSError as exc:
        return f"{cfg.run_id}: the cancelled queued run is not recorded on disk ({exc})"
    return ""


class RunProcess(QObject):
    """One worker process. Signals: ``event(dict)`` per parsed event, ``ended(str status)`` once."""

    event = Signal(dict)
    output = Signal(str)     # stderr or non-event stdout text, as it arrives
    ended = Signal(str)
    record_failed = Signal(str)   # the GUI's own terminal event could not be appended to events.jsonl

    def __init__(self, config: TrainConfig, config_path: Path, parent: QObject | None = None):
        super().__init__(parent)
        self.config = config
        self.config_path = config_path
        self.run_dir = Path(config.output_dir) / config.run_id
        self.stderr = ""
        self.terminal: dict | None = None
        self.cancel_requested = False
        self._buf = b""
        self._ended = False
        self._last_seq = 0          # ``seq`` of the last event received on stdout
        self.proc = QProcess(self)
        env = QProcessEnvironment.systemEnvironment()
        env.insert("PYTHONUNBUFFERED", "1")
        env.insert("PYTHONPATH", os.pathsep.join(p for p in (str(REPO_ROOT), env.value("PYTHONPATH")) if p))
        self.proc.setProcessEnvironment(env)
        self.proc.setWorkingDirectory(str(REPO_ROOT))
        self.proc.readyReadStandardOutput.connect(self._read_stdout)
        self.proc.readyReadStandardError.connect(self._read_stderr)
        self.proc.finished.connect(self._finished)
        self.proc.errorOccurred.connect(self._error)
        self.proc.started.connect(self._lower_priority)
        self._kill_timer = QTimer(self, singleShot=True, interval=CANCEL_GRACE_MS)
        self._kill_timer.timeout.connect(self.kill)

    # ---- control -------------------------------------------------------------------------
    def start(self) -> None:
        """Start the worker in its own session, so that it can outlive the window ("leave it training",
        explorer.ui.shell.detach) and a Ctrl+C or hang-up of the window's terminal does not reach it."""
        argv = worker_command(self.config_path)
        try:
            self.proc.setUnixProcessParameters(QProcess.UnixProcessFlag.CreateNewSession)
        except (AttributeError, TypeError):   # not POSIX, or Qt < 6.6
            pass
        self.proc.start(argv[0], argv[1:])

    def _lower_priority(self) -> None:
        """Right after the exec, before the worker starts its threads (importing torch takes
        seconds), so the threads it creates inherit the nice value."""
        if WORKER_NICE > 0 and hasattr(os, "setpriority"):
            try:
                os.setpriority(os.PRIO_PROCESS, self.pid(), WORKER_NICE)
            except OSError:
                pass

    def pid(self) -> int:
        return int(self.proc.processId())

    def running(self) -> bool:
        return self.proc.state() != QProcess.ProcessState.NotRunning

    def stop_early(self) -> None:
        """Graceful stop: the worker finishes its step, saves, evaluates, then reports finished."""
        try:
            self.run_dir.mkdir(parents=True, exist_ok=True)
            request_stop(self.run_dir)
        except OSError as exc:
            self.output.emit(f"cannot create {stop_file(self.run_dir)}: {exc}\n")

    def cancel(self) -> None:
        """SIGTERM now, SIGKILL after CANCEL_GRACE_MS if it is still alive."""
        self.cancel_requested = True
        if self.running():
            self.proc.terminate()
            self._kill_timer.start()

    def kill(self) -> None:
        if self.running():
            self.proc.kill()

    # ---- stdout / stderr -----------------------------------------------------------------
    def _read_stdout(self) -> None:
        self._buf += bytes(self.proc.readAllStandardOutput().data())
        if b"\n" not in self._buf:
            return
        *lines, self._buf = self._buf.split(b"\n")
        self._handle_lines([ln.decode("utf-8", "replace") for ln in lines])

    def _handle_lines(self, lines: list[str]) -> None:
        events, other = [], []
        for line in lines:
            try:
                events.append(parse_event(line))
            except EventParseError:
                if line.strip():
                    other.append(line)
        if other:
            self._keep_text("\n".join(other) + "\n")
        for ev in events:
            self._receive(ev)

    def _receive(self, ev: dict) -> None:
        if isinstance(ev.get("seq"), int):
            self._last_seq = max(self._last_seq, ev["seq"])
        if ev["event"] in TERMINAL_EVENTS:
            self.terminal = ev
        self.event.emit(ev)

    def _catch_up_from_log(self) -> None:
        """Receive the events the pipe never carried. The worker appends each event to events.jsonl before
        it prints it, so a worker killed between the two left lines on disk only; the run in the window then
        reads the same as the run reopened from disk."""
        if self._last_seq == 0 or not events_file(self.run_dir).is_file():
            return
        try:
            on_disk = read_events(events_file(self.run_dir))
        except OSError:
            return
        for ev in on_disk:
            if isinstance(ev.get("seq"), int) and ev["seq"] > self._last_seq:
                self._receive(ev)

    def _read_stderr(self) -> None:
        self._keep_text(bytes(self.proc.readAllStandardError().data()).decode("utf-8", "replace"))

    def _keep_text(self, text: str) -> None:
        self.stderr = (self.stderr + text)[-STDERR_KEEP:]
        self.output.emit(text)

    # ---- end -----------------------------------------------------------------------------
    def _error(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart:
            self._keep_text(f"the worker could not start: {self.proc.errorString()}\n")
            self._finish(None, crashed=True)

    def _finished(self, code: int, status: QProcess.ExitStatus) -> None:
        self._read_stderr()
        self._read_stdout()
        if self._buf.strip():
            self._handle_lines([self._buf.decode("utf-8", "replace")])
        self._buf = b""
        self._finish(code, crashed=status == QProcess.ExitStatus.CrashExit)

    def _finish(self, code: int | None, crashed: bool) -> None:
        if self._ended:
            return
        self._ended = True
        self._kill_timer.stop()
        if self.terminal is None:
            self._catch_up_from_log()
        if self.terminal is None:
            self.terminal = self._synthesize(code, crashed)
            self._append_to_log(self.terminal)
            self.event.emit(self.terminal)
        self.ended.emit(run_status.terminal_status(self.terminal))

    def _synthesize(self, code: int | None, crashed: bool) -> dict:
        if self.cancel_requested:
            return make_event(run_status.CANCELLED, self.config.run_id, step=None, seconds=None, source="gui")
        last = [ln for ln in self.stderr.strip().splitlines() if ln.strip()]
        if code is None:
            why = "the worker could not start"
        elif crashed:
            why = "the worker process was killed or crashed"
        else:
            why = f"the worker exited with code {code} without reporting a result"
        if last:
            why += f": {last[-1].strip()[:300]}"
        return make_event(run_status.FAILED, self.config.run_id, error=why, traceback=self.stderr[-8000:], source="gui")

    def _append_to_log(self, ev: dict) -> None:
        """Record the event the worker could not write; a failure is shown as worker output (the error
        view) and sent as ``record_failed``."""
        if not self.run_dir.is_dir():
            return
        try:
            append_event(self.run_dir, ev)
        except OSError as exc:
            text = f"the {ev.get('event')} event is not recorded on disk: {exc}"
            self._keep_text(text + "\n")
            self.record_failed.emit(text)


class RunManager(QObject):
    """The run queue: keeps live RunStates and runs at most ``max_parallel`` workers at once.

    Every run it queues is added to ``store`` (explorer.core.runs.store.RunStore) with this manager as its
    driver, and each change is told to the store (``changed``, ``ended``, ``message``). The same news
    as Qt signals: ``added(RunState)`` when queued, ``changed(run_id, set_of_series)`` on every event,
    ``ended(run_id, status)`` when a worker is done (or a queued run was cancelled).
    """

    added = Signal(object)
    changed = Signal(str, object)
    ended = Signal(str, str)

    def __init__(self, runs_dir: str | Path, parent: QObject | None = None, max_parallel: int = 1,
                 store: RunStore | None = None):
        super().__init__(parent)
        self.runs_dir = Path(runs_dir)
        self.store = store if store is not None else RunStore(self.runs_dir)
        self.added.connect(lambda state: self.store.add(state, driver=self))
        self.changed.connect(self.store.changed)
        self.ended.connect(self.store.ended)
        self.store.events.added.connect(self._listed)   # a run training elsewhere may have ended: start the next
        self.store.events.removed.connect(lambda _run_id: self._pump())
        self.max_parallel = max_parallel
        self.states: dict[str, RunState] = {}
        self.procs: dict[str, RunProcess] = {}
        self.queue: list[TrainConfig] = []

    # ---- queue ---------------------------------------------------------------------------
    def enqueue(self, configs: list[TrainConfig], suffixes: list[str] | None = None) -> list[str]:
        """Queue runs (run ids assigned here); returns their ids. Raises ConfigError on a bad config."""
        ids = []
        for i, cfg in enumerate(configs):
            cfg.validate()
            out_dir = Path(cfg.output_dir) if cfg.output_dir else self.runs_dir
            run_id = cfg.run_id
            if not run_id or run_id in self.states or (out_dir / run_id).exists():
                suffix = suffixes[i] if suffixes else ""
                run_id = make_run_id(cfg, set(self.states), out_dir, suffix)
            cfg = dataclasses.replace(cfg, run_id=run_id, output_dir=str(out_dir))
            state = RunState(run_id=run_id, path=out_dir / run_id, config=cfg.to_dict(), status=run_status.QUEUED)
            self.states[run_id] = state
            self.queue.append(cfg)
            ids.append(run_id)
            self.added.emit(state)
        self._pump()
        return ids

    def active(self) -> list[str]:
        """Run ids with a live worker or waiting in the queue."""
        return [r for r, s in self.states.items() if s.is_live]

    def queued(self) -> list[str]:
        """Run ids waiting in the queue (no worker yet)."""
        return [r for r, s in self.states.items() if s.status == run_status.QUEUED]

    def working(self) -> bool:
        """Is any worker process of this queue still running (also one that reported its result and
        is saving / exiting)?"""
        return bool(self.procs)

    def wait_for_workers(self, wait_ms: int) -> None:
        """Block until each worker process has exited, at most ``wait_ms`` each (quitting)."""
        for proc in list(self.procs.values()):
            proc.proc.waitForFinished(wait_ms)

    def occupied(self) -> int:
        """Places of the queue taken: this queue's workers and the runs of this machine still training with a
        worker an earlier window left training (RunStore.training_elsewhere): a queued run waits for them too."""
        return len(self.procs) + len(self.store.training_elsewhere())

    def _pump(self) -> None:
        while self.queue and self.occupied() < self.max_parallel:
            cfg = self.queue.pop(0)
            self.states[cfg.run_id].waits_for = ()
            self._start(cfg)
        self._note_waiting()

    def _note_waiting(self) -> None:
        """The queued runs that wait only for runs training outside this window (a terminal's `bert-explorer
        train`, a run an earlier window left training) name them (RunState.waits_for: "queued: waits for <run>",
        explorer.ui.runs.queue_wait); the names go when they no longer wait for them."""
        blocked = bool(self.queue) and len(self.procs) < self.max_parallel
        waiting_for = tuple(s.run_id for s in self.store.training_elsewhere()) if blocked else ()
        for cfg in self.queue:
            state = self.states[cfg.run_id]
            if state.waits_for != waiting_for:
                state.waits_for = waiting_for
                self.changed.emit(cfg.run_id, set())

    def _listed(self, state) -> None:
        """A run read from disk was listed again (a run training elsewhere re-read as it ended): the queue goes on."""
        if self.queue and not self.store.is_driven(state.run_id):
            self._pump()

    def _start(self, cfg: TrainConfig) -> None:
        state = self.states[cfg.run_id]
        launch_dir = Path(cfg.output_dir) / ".launch"
        try:
            launch_dir.mkdir(parents=True, exist_ok=True)
            config_path = launch_dir / f"{cfg.run_id}.json"
            cfg.save(config_path)
        except OSError as exc:
            state.status = run_status.after_request(state.status, "launch_failed")
            state.error = f"cannot write the run config under {launch_dir}: {exc}"
            self.changed.emit(cfg.run_id, set())
            self.ended.emit(cfg.run_id, run_status.FAILED)
            return
        proc = RunProcess(cfg, config_path, self)
        self.procs[cfg.run_id] = proc
        state.status = run_status.after_request(state.status, "start")
        state.started_at = time.time()
        proc.event.connect(lambda ev, rid=cfg.run_id: self._on_event(rid, ev))
        proc.output.connect(lambda text, rid=cfg.run_id: self._on_output(rid, text))
        proc.ended.connect(lambda status, rid=cfg.run_id: self._on_ended(rid, status))
        proc.record_failed.connect(self.store.note)
        proc.start()
        self.changed.emit(cfg.run_id, set())

    # ---- control -------------------------------------------------------------------------
    def stop_early(self, run_id: str) -> None:
        proc = self.procs.get(run_id)
        if proc is not None:
            proc.stop_early()
            state = self.states[run_id]
            state.status = run_status.after_request(state.status, "stop")
            self.changed.emit(run_id, set())

    def cancel(self, run_id: str, at_quit: bool = False) -> None:
        """Cancel a running worker, or drop a queued run (``at_quit``: because the app quits; its record then
        says so, and the next start offers it again: record_cancelled_queued)."""
        proc = self.procs.get(run_id)
        state = self.states.get(run_id)
        if proc is not None:
            proc.cancel()
            state.status = run_status.after_request(state.status, "cancel")
            self.changed.emit(run_id, set())
        elif state is not None and state.status == run_status.QUEUED:
            cfg = next((c for c in self.queue if c.run_id == run_id), None)
            self.queue = [c for c in self.queue if c.run_id != run_id]
            state.status = run_status.after_request(state.status, "cancel")
            problem = record_cancelled_queued(cfg, at_quit) if cfg is not None else ""
            if problem:
                state.logs.append(f"[warning] {problem}")
                self.store.note(problem)
            self.changed.emit(run_id, set())
            self.ended.emit(run_id, run_status.CANCELLED)

    def cancel_all(self, wait_ms: int = 0) -> None:
        """Drop the queue and cancel every worker; with wait_ms, block until they exit (quitting)."""
        for run_id in [c.run_id for c in self.queue]:
            self.cancel(run_id)
        for run_id in list(self.procs):
            self.cancel(run_id)
        if wait_ms:
            for proc in list(self.procs.values()):
                if not proc.proc.waitForFinished(wait_ms):
                    proc.kill()
                    proc.proc.waitForFinished(1000)

    # ---- worker callbacks ----------------------------------------------------------------
    def _on_event(self, run_id: str, ev: dict) -> None:
        changed = self.states[run_id].apply(ev)   # a pending stop / cancel stays visible (run_status)
        self.changed.emit(run_id, changed)

    def _on_output(self, run_id: str, text: str) -> None:
        state = self.states[run_id]
        state.stderr_tail = (state.stderr_tail + text)[-STDERR_KEEP:]

    def _on_ended(self, run_id: str, status: str) -> None:
        proc = self.procs.pop(run_id, None)
        state = self.states[run_id]
        state.status = run_status.after_exit(state.status, status)
        if state.duration is None and state.started_at:
            state.duration = time.time() - state.started_at
        if proc is not None:
            proc.deleteLater()
        self.changed.emit(run_id, set())
        self.ended.emit(run_id, state.status)
        self._pump()

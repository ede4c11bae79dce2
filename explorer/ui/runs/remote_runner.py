"""Runs on remote hosts as drivers of the window's run store (the remote twin of runner.RunManager).

:class:`RemoteRunManager` launches a run on a host (explorer.core.remote.launch, on a worker thread:
SSH calls never block the window), follows it (explorer.core.remote.follow.RemoteFollower: its events
are mirrored into ``<runs>/<run_id>/events.jsonl`` and replayed into the run's RunState, so the Runs dock
and Curves show it like a local run), and sends Stop early / Cancel over SSH. Every remote run is
remembered in the settings (AppSettings.remote_runs) until it ended, and :meth:`resume` follows the
remembered ones again after a restart, from the last byte already mirrored.

On a SLURM login node (Host.slurm) :meth:`submit_slurm` submits the runs as one sbatch job (a job array
for several; explorer.core.remote.slurm); they are listed "queued (SLURM job N)" until the job runs.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from explorer.core.runs import status as run_status
from explorer.core.errors import UserError
from explorer.core.remote.follow import RemoteFollower
from explorer.core.remote.hosts import Host, RemoteRun, read_remote_run, use_ssh_config
from explorer.core.remote.launch import launch_run, launched_config, request_remote
from explorer.core.remote.slurm import POLL_SECONDS as SLURM_POLL_SECONDS
from explorer.core.remote.slurm import JobState, SlurmFollower, submit
from explorer.core.runs.store import RunStore
from explorer.core.specs.train_config import TrainConfig
from explorer.ui.runs.runner import make_run_id
from explorer.ui.runs.state import RunState
from explorer.ui.runs.store import load_run_state
from explorer.ui.shell.threads import start_worker


class RemoteRunManager(QObject):
    """Drives the runs that train on remote hosts; signals as RunManager's (``added``, ``changed``,
    ``ended``) plus ``message(text)`` for the status bar (connection news, what a host said)."""

    added = Signal(object)
    changed = Signal(str, object)
    ended = Signal(str, str)
    message = Signal(str)
    _event = Signal(str, dict)        # follower thread -> GUI thread
    _status = Signal(str, str)
    _done = Signal(str)
    _job = Signal(str, object)        # follower thread -> GUI thread: a SLURM job's state (JobState)

    def __init__(self, runs_dir: str | Path, settings, store: RunStore, parent: QObject | None = None):
        super().__init__(parent)
        self.slurm_poll_seconds = SLURM_POLL_SECONDS   # how often a queued SLURM job's state is asked
        self.runs_dir = Path(runs_dir)
        self.settings = settings
        if hasattr(settings, "ssh_config"):   # the remembered "Use it" ssh_config: for every ssh this app runs
            use_ssh_config(settings.ssh_config() or None)
        self.store = store
        self.states: dict[str, RunState] = {}
        self.runs: dict[str, RemoteRun] = {}
        self.followers: dict[str, RemoteFollower] = {}
        self.added.connect(lambda state: self.store.add(state, driver=self))
        self.changed.connect(self.store.changed)
        self.ended.connect(self.store.ended)
        self.message.connect(self.store.note)
        self._event.connect(self._on_event)
        self._status.connect(lambda rid, text: self.message.emit(text if rid in text else f"{rid}: {text}"))
        self._done.connect(self._on_done)
        self._job.connect(self._on_job)

    # ---- launch --------------------------------------------------------------------------
    def plan(self, configs: list[TrainConfig], suffixes: list[str] | None = None) -> list[TrainConfig]:
        """The configs with their run ids chosen (unique here and in the runs folder) and the local runs
        folder as output; nothing is added or sent. Raises ConfigError on a bad config."""
        taken, out = set(self.states) | set(self.store.ids()), []
        for i, cfg in enumerate(configs):
            cfg.validate()
            run_id = make_run_id(cfg, taken, self.runs_dir, suffixes[i] if suffixes else "")
            taken.add(run_id)
            out.append(dataclasses.replace(cfg, run_id=run_id, output_dir=str(self.runs_dir)))
        return out

    def _add(self, cfg: TrainConfig, host: Host, status: str, log: str, started_at: float | None) -> RunState:
        state = RunState(run_id=cfg.run_id, path=self.runs_dir / cfg.run_id, config=cfg.to_dict(), status=status,
                         started_at=started_at)
        state.host = host.name   # the Runs list's Host column
        state.logs.append(f"[info] {log}")
        self.states[cfg.run_id] = state
        self.added.emit(state)
        return state

    def enqueue(self, host: Host, configs: list[TrainConfig], suffixes: list[str] | None = None,
                gpus: int = 1) -> list[str]:
        """Start each config on ``host`` (one after another, on a worker thread); returns the run ids.
        Raises ConfigError on a bad config (before anything is sent)."""
        prepared = self.plan(configs, suffixes)
        ids = [cfg.run_id for cfg in prepared]
        for cfg in prepared:
            self._add(cfg, host, run_status.STARTING, f"starting on {host.name}", time.time())

        def launch_all():
            out = []
            for cfg in prepared:
                try:
                    out.append((cfg.run_id, launch_run(host, cfg, self.runs_dir / cfg.run_id, gpus)[0], ""))
                except (UserError, OSError) as exc:
                    out.append((cfg.run_id, None, str(exc)))
            return out

        start_worker(launch_all, on_done=self._launched,
                     on_error=lambda msg, tb: [self._launch_failed(c.run_id, msg) for c in prepared])
        return ids

    def _launched(self, results: list) -> None:
        for run_id, run, error in results:
            if run is None:
                self._launch_failed(run_id, error)
                continue
            self.runs[run_id] = run
            self._remember()
            self._follow(run)
            self.message.emit(f"{run_id}: started on {run.host.name}")

    def submit_slurm(self, host: Host, prepared: list[TrainConfig], script: str) -> list[str]:
        """Submit ``prepared`` (from :meth:`plan`) to the SLURM login node ``host`` as ``script`` (the one the
        user saw; several configs are one job array) on a worker thread; they are listed as queued at once
        and "queued (SLURM job N)" once sbatch answered. Returns the run ids."""
        for cfg in prepared:
            state = self._add(cfg, host, run_status.QUEUED, f"submitting to SLURM on {host.name}", None)
            state.queue_note = "submitting to SLURM"
            self.changed.emit(cfg.run_id, set())
        local = [self.runs_dir / cfg.run_id for cfg in prepared]

        def submit_all():
            try:
                return submit(host, prepared, script, local), ""
            except (UserError, OSError) as exc:   # one sentence (sbatch's refusal, the host's problem)
                return [], str(exc)

        def done(result):
            runs, error = result
            if error:
                for cfg in prepared:
                    self._launch_failed(cfg.run_id, error)
            self._submitted(runs)

        start_worker(submit_all, on_done=done,
                     on_error=lambda msg, tb: [self._launch_failed(c.run_id, msg) for c in prepared])
        return [cfg.run_id for cfg in prepared]

    def _submitted(self, runs: list[RemoteRun]) -> None:
        for run in runs:
            self.runs[run.run_id] = run
            state = self.states.get(run.run_id)
            if state is not None:
                state.queue_note = f"SLURM job {run.slurm_job}"
                state.logs.append(f"[info] submitted to SLURM on {run.host.name}: job {run.slurm_job}")
                self.changed.emit(run.run_id, set())
            self._follow(run)
        self._remember()
        if runs:
            jobs = runs[0].slurm_job.split("_")[0]
            self.message.emit(f"{runs[0].run_id}: submitted to SLURM on {runs[0].host.name} as job {jobs}"
                              + (f" (a job array of {len(runs)})" if len(runs) > 1 else ""))

    def _on_job(self, run_id: str, job: JobState) -> None:
        """A SLURM job's state: queued with its reason while it waits, starting once it runs."""
        state = self.states.get(run_id)
        if state is None or not state.is_live:
            return
        if job.waiting:
            state.queue_note = f"SLURM job {job.job}" + (f": {job.reason}" if job.reason not in ("", "None") else "")
        elif job.state == "RUNNING":
            state.queue_note = ""
            state.status = run_status.after_request(state.status, "start")
            state.started_at = state.started_at or time.time()
        self.changed.emit(run_id, set())
        self.message.emit(f"{run_id}: SLURM job {job.job} {job.label()}")

    def _launch_failed(self, run_id: str, error: str) -> None:
        state = self.states.get(run_id)
        if state is None:
            return
        state.status = run_status.after_request(state.status, "launch_failed")
        state.error = error
        self.changed.emit(run_id, set())
        self.ended.emit(run_id, state.status)
        self.message.emit(f"{run_id}: {error}")

    # ---- follow --------------------------------------------------------------------------
    def _follow(self, run: RemoteRun) -> None:
        rid = run.run_id
        callbacks = dict(on_event=lambda ev: self._event.emit(rid, ev), on_status=lambda text: self._status.emit(rid, text),
                         on_done=lambda: self._done.emit(rid))
        if run.slurm_job:
            follower = SlurmFollower(run, on_job=lambda job: self._job.emit(rid, job),
                                     poll_seconds=self.slurm_poll_seconds, **callbacks)
        else:
            follower = RemoteFollower(run, **callbacks)
        self.followers[rid] = follower.start()

    def resume(self) -> list[str]:
        """Follow again every remembered remote run that had not ended (after a restart): its state is
        read from the local mirror, then the follower continues from the mirror's last byte."""
        ids = []
        for run in self.settings.remote_runs():
            if run.done or run.run_id in self.states:
                continue
            try:
                state = load_run_state(run.local_dir)
            except (ValueError, OSError):
                state = RunState(run_id=run.run_id, path=Path(run.local_dir))
            if state.status in (run_status.CRASHED, run_status.STARTING):
                state.status = run_status.RUNNING
                if run.slurm_job and state.started_at is None:   # no event yet: still in the cluster's queue
                    state.status, state.queue_note = run_status.QUEUED, f"SLURM job {run.slurm_job}"
            state.logs.append(f"[info] following again on {run.host.name}")
            state.host = run.host.name
            self.states[run.run_id] = state
            self.runs[run.run_id] = run
            self.added.emit(state)
            self._follow(run)
            ids.append(run.run_id)
        return ids

    def _on_event(self, run_id: str, ev: dict) -> None:
        state = self.states.get(run_id)
        if state is None:
            return
        launched = dict(state.config) if ev.get("event") == "started" else None
        changed = state.apply(ev)
        if launched is not None:   # the host's started event names its copies of the files: keep the names launched
            state.config = launched_config(state.config, launched)
        self.changed.emit(run_id, changed)

    def _on_done(self, run_id: str) -> None:
        state, run = self.states.get(run_id), self.runs.get(run_id)
        if run is not None:
            run.done = True
            self._remember()
        self.followers.pop(run_id, None)
        if state is not None:
            if state.duration is None and state.started_at:
                state.duration = time.time() - state.started_at
            self.changed.emit(run_id, set())
            self.ended.emit(run_id, state.status)

    def _remember(self) -> None:
        """Keep the runs of this window that have not ended, plus remembered ones of other sessions."""
        mine = {r.run_id for r in self.runs.values()}
        others = [r for r in self.settings.remote_runs() if r.run_id not in mine and not r.done]
        self.settings.set_remote_runs(others + [r for r in self.runs.values() if not r.done])

    def run_for_path(self, path: str | Path) -> RemoteRun | None:
        """The remote run whose folder on its host holds ``path`` (a checkpoint an event named), or None:
        a run of this session, else a listed run whose mirror's remote.json names that folder (a run that
        ended before this start)."""
        text = str(path)

        def holds(r: RemoteRun) -> bool:
            return text == r.remote_dir or text.startswith(r.remote_dir + "/")
        found = next((r for r in self.runs.values() if holds(r)), None)
        if found is not None:
            return found
        for state in self.store.states():
            run = read_remote_run(state.path) if state.host and state.path is not None else None
            if run is not None and holds(run):
                return run
        return None

    def followed(self) -> list[tuple[str, str]]:
        """(run id, host name) of the remote runs this window follows that have not ended (queued ones too)."""
        return [(run_id, getattr(state, "host", "") or self.host_of(run_id))
                for run_id, state in self.states.items() if state.is_live]

    def host_of(self, run_id: str) -> str:
        """The host name a run trains on ('' for a run of this machine)."""
        run = self.runs.get(run_id)
        if run is not None:
            return run.host.name
        state = self.store.get(run_id)
        return state.host if state is not None else ""

    # ---- requests (the store's driver API) -------------------------------------------------
    def _request(self, run_id: str, request: str, status_request: str) -> None:
        run, state = self.runs.get(run_id), self.states.get(run_id)
        if run is None or state is None or not state.is_live:
            return
        state.status = run_status.after_request(state.status, status_request)
        self.changed.emit(run_id, set())
        start_worker(request_remote, run, request, on_done=lambda text: self.message.emit(text),
                     on_error=lambda msg, tb: self.message.emit(f"{run_id}: {msg}"))

    def stop_early(self, run_id: str) -> None:
        """The STOP file on the host (the worker finishes its step, evaluates, saves, finishes)."""
        self._request(run_id, "stop", "stop")

    def cancel(self, run_id: str) -> None:
        """SIGTERM to the worker on the host."""
        self._request(run_id, "cancel", "cancel")

    def close(self) -> None:
        """Stop following (the runs go on training on their hosts; they are followed again next start)."""
        for follower in list(self.followers.values()):
            follower.stop(wait=2.0)
        self.followers.clear()

"""The runs a window lists, as an observable model (Qt-free; the napari ``Dims`` pattern): :class:`RunStore`.

What a run is on disk is explorer.core.runs.layout (paths), explorer.core.runs.reading (reading),
explorer.core.runs.workers (pid and STOP files) and explorer.core.runs.naming (run ids); the store keeps the
listed runs' state objects, decides who owns a run (a driver in this process, or a worker started elsewhere)
and sends per-field events (explorer.core.evented).
"""

from __future__ import annotations

import time
from pathlib import Path

from explorer.core.evented import EmitterGroup
from explorer.core.runs import status as run_status
from explorer.core.runs.layout import config_file, run_dir_of, stop_file
from explorer.core.runs.reading import run_config_of
from explorer.core.runs.readers.base import reader_for_kind
from explorer.core.runs.workers import request_stop, terminate_worker

NEW_FOLDER_S = 600   # a run folder read with no event and no live worker this soon after its config.json: maybe starting


class RunStore:
    """The runs a window lists, as an observable model (Qt-free; the napari ``Dims`` pattern).

    A run's state object (the GUI's explorer.ui.runs.state.RunState, or anything with ``run_id``,
    ``status``, ``path``) comes from one of two places: a *driver* that runs its worker in this process
    (the GUI's run queue, explorer.ui.runs.runner.RunManager: :meth:`add` with ``driver=``), or a read
    of its folder (:meth:`offer`). The store decides who owns a run: a driven run is never replaced by
    a read from disk, and stop / cancel go to its driver, or for a run whose worker was started
    elsewhere (an earlier window that left it training, the CLI) to the folder (the STOP file; SIGTERM
    to the pid in worker.pid).

    Events (``store.events.<name>.connect(callback)``; explorer.core.evented):
        added(state): a run is listed, or its state object was replaced (a fresh read from disk);
        changed(run_id, series): the run's state changed in place (``series``: the set of series keys
            with new points, empty for a status / progress change);
        ended(run_id, status): its driven worker is done (or a queued run was cancelled);
        removed(run_id): it is no longer listed (its folder went to the trash);
        message(text): a one-line note for the status bar (e.g. an event that could not be recorded).

    A run is one folder: the store lists it under a key decided once per resolved folder path (:meth:`key_for`),
    and sets the state's ``run_id`` to it. Two folders of the same name (an HF Trainer run ``hf-output`` and its
    TensorBoard export ``tb/hf-output``) are two runs; the one listed second is told apart by its parent folder
    ("hf-output (tb)"), never listed in place of the first.
    """

    def __init__(self, folder: str | Path | None = None):
        self.folder = Path(folder) if folder is not None else None
        self.events = EmitterGroup("added", "changed", "ended", "removed", "message")
        self._states: dict = {}
        self._drivers: dict = {}   # run_id -> the object running its worker in this process
        self._keys: dict[str, str] = {}   # resolved run folder -> the key its run is listed under

    # ---- what is listed --------------------------------------------------------------------------
    def get(self, run_id: str):
        """The state of a listed run, or None."""
        return self._states.get(run_id)

    def ids(self) -> list[str]:
        return list(self._states)

    def states(self) -> list:
        return list(self._states.values())

    def __contains__(self, run_id: str) -> bool:
        return run_id in self._states

    def listed_key(self, path: str | Path | None) -> str | None:
        """The key of the listed run read from folder ``path`` (compared resolved), or None."""
        key = self._keys.get(_resolved(path)) if path is not None else None
        return key if key in self._states else None

    def key_for(self, state) -> str:
        """The key ``state`` is listed under: the one its folder (resolved) already has; else its ``run_id`` when
        no other folder's run has it; else the run_id with its parent folders, as few as tell it apart
        ("hf-output (tb)", "hf-output (exports/tb)"), the whole path last. A state without a folder (a queued
        run) keeps its run_id."""
        if state.path is None:
            return state.run_id
        where = _resolved(state.path)
        if where in self._keys:
            return self._keys[where]
        parents = [p.name for p in Path(where).parents if p.name]
        candidates = [state.run_id] + [f"{state.run_id} ({'/'.join(reversed(parents[:n]))})"
                                       for n in range(1, len(parents) + 1)] + [where]
        key = next(k for k in candidates if k not in self._states or self._is_folder(self._states[k], where))
        self._keys[where] = key
        return key

    @staticmethod
    def _is_folder(state, where: str) -> bool:
        """Whether the listed ``state`` is the run of folder ``where`` (or has no folder yet: a run driven here
        whose folder is being made)."""
        return state.path is None or _resolved(state.path) == where

    def run_of(self, path: str | Path):
        """The listed run a checkpoint folder (or run folder) belongs to (:func:`run_dir_of`), or None."""
        run_dir = run_dir_of(path)
        if run_dir is None:
            return None
        return next((s for s in self._states.values() if s.path is not None and Path(s.path) == run_dir), None)

    def config_of(self, path: str | Path) -> dict:
        """The run config of the run a checkpoint belongs to: the listed run's (as it knows it, e.g. from
        its ``started`` event), else its config.json (:func:`run_config_of`); {} outside a run folder."""
        state = self.run_of(path)
        return dict(state.config) if state is not None else run_config_of(path)

    def is_driven(self, run_id: str) -> bool:
        """Is the run's worker (or its place in the queue) handled by a driver in this process?"""
        return run_id in self._drivers

    def driven(self) -> list:
        """The states of the runs driven in this process, in the order they were added."""
        return [self._states[r] for r in self._drivers if r in self._states]

    def running_elsewhere(self) -> list:
        """Listed runs that are running with a worker this process did not start (followed by re-reading
        their folders)."""
        return [s for r, s in self._states.items()
                if r not in self._drivers and s.status in run_status.FOLLOWED and s.path is not None]

    def training_elsewhere(self) -> list:
        """Runs of this app training on this machine with a worker this process did not start (an earlier window
        left them training, or the CLI started them): listed as running because their worker process lives
        (explorer.core.runs.workers.worker_alive). Each holds a place of the run queue like a worker of its own,
        so a queued run does not start beside it."""
        return [s for r, s in self._states.items()
                if r not in self._drivers and s.status == run_status.RUNNING and s.path is not None
                and not getattr(s, "host", "")]

    def trainer_folders_to_recheck(self, now: float | None = None) -> list:
        """Listed runs of other tools whose reader says their files changed since they were read
        (RunReader.recheck, stat calls only): an HF Trainer folder read as stopped that a writer is changing after
        all. Re-read them (an HF Trainer run then becomes in progress)."""
        now = time.time() if now is None else now
        out = []
        for s in self._states.values():
            reader = reader_for_kind(s.kind) if s.path is not None else None
            if reader is not None and reader.recheck is not None and reader.recheck(Path(s.path), s.status, now):
                out.append(s)
        return out


    def unstarted_to_recheck(self, now: float | None = None) -> list:
        """Listed runs read as crashed before any event of theirs (a config.json, no live worker recorded) whose
        config.json is less than NEW_FOLDER_S old, or whose folder is gone: a worker started elsewhere that had
        written its config.json but not yet its pid file when the folder was first read (a worker at a low priority
        on a busy machine), which a read after a restart would show running or ended. Re-read them until they report
        (stat calls only here)."""
        now = time.time() if now is None else now
        out = []
        for r, s in self._states.items():
            if (r in self._drivers or s.path is None or s.status != run_status.CRASHED
                    or getattr(s, "last_event_at", None) is not None):
                continue
            try:
                young = now - config_file(s.path).stat().st_mtime < NEW_FOLDER_S
            except OSError:
                young = not Path(s.path).exists()   # its folder went: the re-read takes it off the list
            if young:
                out.append(s)
        return out

    def tracked(self) -> list:
        """The runs driven here, then the runs running elsewhere (the status bar's activity)."""
        return self.driven() + self.running_elsewhere()

    # ---- changes ----------------------------------------------------------------------------------
    def add(self, state, driver=None) -> None:
        """List a run (replacing a state of the same id); ``driver``: the object that runs its worker
        here (it must have ``stop_early(run_id)`` and ``cancel(run_id)``); listed under :meth:`key_for`, which
        becomes its ``run_id``. Emits ``added``."""
        state.run_id = self.key_for(state)
        self._states[state.run_id] = state
        if driver is not None:
            self._drivers[state.run_id] = driver
        self.events.added.emit(state)

    def offer(self, state) -> bool:
        """A state read from disk: listed (new, or replacing the listed one) unless the run is driven
        here, whose live state wins. Returns whether it was taken (``added`` was emitted)."""
        if self.key_for(state) in self._drivers:
            return False
        self.add(state)
        return True

    def changed(self, run_id: str, series=frozenset()) -> None:
        """The run's state changed in place; emits ``changed(run_id, set(series))``."""
        if run_id in self._states:
            self.events.changed.emit(run_id, set(series))

    def ended(self, run_id: str, status: str) -> None:
        """Its driven worker is done (the driver keeps the run listed); emits ``ended``."""
        if run_id in self._states:
            self.events.ended.emit(run_id, status)

    def remove(self, run_id: str) -> None:
        """No longer list the run (its folder went to the trash); emits ``removed``."""
        if self._states.pop(run_id, None) is not None:
            self._drivers.pop(run_id, None)
            self._keys = {where: key for where, key in self._keys.items() if key != run_id}
            self.events.removed.emit(run_id)

    def note(self, text: str) -> None:
        """A one-line message for whoever shows them; emits ``message``."""
        self.events.message.emit(text)

    # ---- requests ---------------------------------------------------------------------------------
    def _request(self, run_id: str, request: str, elsewhere) -> str:
        """``request`` ("stop_early" | "cancel") through the run's driver (-> ""), else ``elsewhere(run_dir)``
        for a run running with a worker started elsewhere, else "" (nothing to do)."""
        driver = self._drivers.get(run_id)
        if driver is not None:
            getattr(driver, request)(run_id)
            return ""
        s = self._states.get(run_id)
        if s is None or s.path is None or s.status != run_status.RUNNING:
            return ""
        return elsewhere(Path(s.path))

    def stop_early(self, run_id: str) -> str:
        """Stop early: through its driver, or (a worker started elsewhere) its STOP file. Returns a
        message for the status bar ("" when the driver handled it or nothing could be done)."""
        def by_file(run_dir: Path) -> str:
            try:
                request_stop(run_dir)
            except OSError as exc:
                return f"cannot create {stop_file(run_dir)}: {exc}"
            return f"Asked {run_id} to stop early (it saves and evaluates first)"

        return self._request(run_id, "stop_early", by_file)

    def cancel(self, run_id: str) -> str:
        """Cancel: through its driver (a queued run is dropped), or SIGTERM to a worker started elsewhere.
        Returns a message for the status bar ("" when the driver handled it or nothing could be done)."""
        return self._request(run_id, "cancel", terminate_worker)


def _resolved(path: str | Path) -> str:
    """A run folder's path as the store compares it: absolute, links and ``..`` resolved."""
    return str(Path(path).expanduser().resolve())

"""Run folders as the GUI's RunStates (Qt-free; call from a worker thread, never the GUI thread).

Thin layer over the run store, explorer.core.runs.store (layout, discovery and reading: docs/architecture.md,
"The run store"): a RunRecord becomes a :class:`~explorer.ui.runs.state.RunState`. The list read
(:func:`load_summaries`) reads each run with ``steps="last"`` (every event but the step events, of
which only the last is kept: status, best dev metric, steps and duration come out right, 15-20 s less
for a few dozen long runs); the per-step curves are read by :func:`load_run_state` when a run is selected.
"""

from __future__ import annotations

from pathlib import Path

from explorer.core.specs.metric_display import to_display
from explorer.core.remote.hosts import read_remote_run
from explorer.core.remote.launch import launched_config
from explorer.core.runs.reading import OURS, RunRecord, is_run_dir, load_run, read_runs, run_dirs
from explorer.ui.curves.plotmath import prepare_curves
from explorer.ui.runs.state import RunState


def state_from_record(rec: RunRecord, *, loaded: bool = True) -> RunState:
    """A RunRecord -> RunState with its events replayed (status: explorer.core.runs.status.replay);
    ``loaded=False`` for a list read (no per-step series yet)."""
    state = RunState.from_events(rec.run_id, rec.events, path=Path(rec.path), config=rec.config, alive=rec.alive)
    state.read_notes = list(rec.notes)
    state.loaded = loaded
    state.kind, state.settings = rec.kind, dict(rec.settings)
    remote = read_remote_run(rec.path) if rec.kind == OURS else None   # a mirror of a run on a remote host
    state.host = remote.host.name if remote is not None else ""
    if remote is not None:   # its started event names the host's copies of the files: the names it was launched with
        state.config = launched_config(state.config, rec.config)
    if rec.kind != OURS:   # another tool's run: its own status and best; its notes are information
        state.status = rec.status
        if rec.best is not None:
            name, value, step = rec.best
            state.declared_best = (name, to_display(name, value, state.task), step)
        if loaded:
            state.logs.extend(f"[info] {n}" for n in rec.notes)
    elif loaded:
        state.logs.extend(f"[warning] {n}" for n in rec.notes)
    for kind, folder in rec.checkpoints.items():
        state.checkpoints.setdefault(kind, folder)
    return state


def load_run_state(path: str | Path) -> RunState:
    """A run folder -> RunState with all its events replayed, and what the Curves panel derives from its
    points computed here, off the GUI thread (explorer.ui.curves.plotmath.prepare_curves).

    Raises ValueError naming the folder when it holds neither config.json nor events.jsonl.
    """
    return prepare_curves(state_from_record(load_run(Path(path))))


def reload_followed(path: str | Path) -> RunState | None:
    """A followed run's folder (running elsewhere, another tool's growing run) read again -> its RunState, or None
    when the folder holds no run any more: a worker refused before its first step (a bad data path, an unusable
    setting found while preparing) removes the folder it made (explorer.worker.train.remove_unstarted_run), so
    a list read after a restart does not list it either. Raises what :func:`load_run_state` raises for a folder
    that is still a run folder."""
    try:
        return load_run_state(path)
    except (OSError, ValueError):
        if is_run_dir(Path(path)):
            raise
        return None


def load_summary(path: str | Path) -> RunState:
    """A run folder -> a RunState for the list (``loaded = False``: only the last step event read)."""
    return state_from_record(load_run(Path(path), steps="last"), loaded=False)


def load_all(folder: str | Path) -> tuple[list[RunState], list[str]]:
    """Every run under ``folder`` -> (states oldest first, problems); a broken folder is a problem line.
    What was skipped inside a readable run (garbled events lines, a broken config.json) is in its
    ``read_notes``, not in problems: the run still lists with its points."""
    return read_runs(folder, load_run_state)


def load_summaries(folder: str | Path) -> tuple[list[RunState], list[str]]:
    """Every run under ``folder`` as a summary -> (states oldest first, problems, one line per bad folder)."""
    return read_runs(folder, load_summary)


def load_new_summaries(folder: str | Path, known: set[str]) -> list[RunState]:
    """Summaries of the run folders directly under ``folder`` whose path (``str(path)``) is not in ``known``: the
    runs another process (the CLI, another window) started in the folder the GUI lists. A folder that cannot
    be read yet (its worker is still writing config.json) is left out; the next look reads it."""
    out = []
    for path in run_dirs(folder):
        if str(path) in known:
            continue
        try:
            out.append(load_summary(path))
        except (OSError, ValueError):
            continue
    return out

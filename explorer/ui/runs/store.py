"""Reading runs from disk for the GUI (Qt-free; call it from a worker thread, never the GUI thread).

Thin layer over explorer.core.runs (layout: docs/architecture.md, "Runs on disk"): a run folder
becomes a :class:`~explorer.ui.runs.state.RunState` with all its events replayed.
"""

from __future__ import annotations

from pathlib import Path

from explorer.core import run_status
from explorer.core.runs import is_run_dir, load_run
from explorer.ui.runs.state import RunState


def run_dirs(folder: str | Path) -> list[Path]:
    """Run folders directly under ``folder`` (those holding config.json or events.jsonl)."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if is_run_dir(p))


def load_run_state(path: str | Path) -> RunState:
    """A run folder -> RunState with all its events replayed (status: explorer.core.run_status.replay).

    Raises ValueError naming the folder when it holds neither config.json nor events.jsonl.
    """
    rec = load_run(Path(path))
    alive = rec.summary is not None and rec.summary.status == run_status.RUNNING
    state = RunState.from_events(rec.run_id, rec.events, path=Path(rec.path), config=rec.config, alive=alive)
    state.read_notes = list(rec.notes)
    state.logs.extend(f"[warning] {n}" for n in rec.notes)
    for kind, folder in rec.checkpoints.items():
        state.checkpoints.setdefault(kind, folder)
    return state


def load_all(folder: str | Path) -> tuple[list[RunState], list[str]]:
    """Every run under ``folder`` -> (states oldest first, problems); a broken folder is a problem line.
    What was skipped inside a readable run (garbled events lines, a broken config.json) is in its
    ``read_notes``, not in problems: the run still lists with its points."""
    return read_each_run(folder, load_run_state)


def read_each_run(folder: str | Path, read) -> tuple[list[RunState], list[str]]:
    """``read(run_dir)`` for every run folder -> (states oldest first, problems: one line per folder whose
    read raised; one bad folder never hides the others)."""
    states, problems = [], []
    for p in run_dirs(folder):
        try:
            states.append(read(p))
        except Exception as exc:  # noqa: BLE001 - one bad folder must not hide the others
            problems.append(f"{p}: {exc}")
    states.sort(key=lambda s: (s.started_at or 0.0, s.run_id))
    return states, problems

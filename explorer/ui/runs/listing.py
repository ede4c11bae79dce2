"""The Runs list, read lazily (Qt-free; call from a worker thread).

Listing a runs folder must not replay every step of every run (15-20 s for a few dozen long runs on a
busy CPU). :func:`load_summaries` reads each run's config and, from its events.jsonl, every event
except the step events (only the last step event is kept): status, best dev metric, steps and
duration come out right, while the per-step curves are left for :func:`explorer.ui.runs.store.load_run_state`
when a run is selected. Each summary is a RunState with ``loaded = False``.
"""

from __future__ import annotations

from pathlib import Path

from explorer.core.events import EVENTS_FILE, EventParseError, parse_event
from explorer.core.runs import read_config, worker_alive
from explorer.ui.runs.state import RunState
from explorer.ui.runs.store import read_each_run

STEP_MARKERS = (b'"event":"step"', b'"event": "step"')


def summary_events(path: Path) -> list[dict]:
    """The events of an events.jsonl without the step events, except the last one (kept in place)."""
    try:
        data = path.read_bytes()
    except OSError:
        return []
    lines = data.split(b"\n")
    last_step = max((i for i, ln in enumerate(lines) if any(m in ln for m in STEP_MARKERS)), default=-1)
    out = []
    for i, line in enumerate(lines):
        if i != last_step and any(m in line for m in STEP_MARKERS):
            continue
        try:
            out.append(parse_event(line.decode("utf-8", "replace")))
        except EventParseError:
            continue
    return out


def load_summary(path: str | Path) -> RunState:
    """One run folder -> a RunState for the list (``loaded = False``: no per-step series).

    The config is read as core.runs.read_config reads it (fallbacks noted in ``read_notes``); the
    status is decided where every replayed run's is (RunState.from_events, explorer.core.run_status).
    """
    path = Path(path)
    events = summary_events(path / EVENTS_FILE)
    config, notes = read_config(path, events)
    alive = worker_alive(path) if events else False
    run_id = str(config.get("run_id") or path.name)
    state = RunState.from_events(run_id, events, path=path, config=config, alive=alive)
    state.read_notes = [n for n in notes if not n.endswith(": missing")]
    state.loaded = False
    return state


def load_summaries(folder: str | Path) -> tuple[list[RunState], list[str]]:
    """Every run under ``folder`` as a summary -> (states oldest first, problems, one line per bad folder)."""
    return read_each_run(folder, load_summary)

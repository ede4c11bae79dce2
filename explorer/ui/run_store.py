"""Reading runs from disk for the GUI (Qt-free; call it from a worker thread, never the GUI thread).

Uses explorer.core.runs (list_runs / load_run) when it exists and falls back to reading
``config.json`` + ``events.jsonl`` directly (layout: docs/architecture.md, "Runs on disk").
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from explorer.core.events import EVENTS_FILE, read_events
from explorer.ui.run_state import RunState


def _as_dict(config) -> dict:
    if config is None:
        return {}
    if isinstance(config, dict):
        return config
    if dataclasses.is_dataclass(config):
        return dataclasses.asdict(config)
    return dict(getattr(config, "__dict__", {}))


def run_dirs(folder: str | Path) -> list[Path]:
    """Run folders under ``folder`` (those holding config.json or events.jsonl), oldest first."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    try:
        from explorer.core.runs import list_runs  # type: ignore[import-not-found]

        return [Path(s.path) for s in list_runs(folder)]
    except ImportError:
        pass
    out = [p for p in folder.iterdir()
           if p.is_dir() and not p.name.startswith(".")
           and ((p / "config.json").is_file() or (p / EVENTS_FILE).is_file())]
    return sorted(out, key=lambda p: (p.stat().st_mtime, p.name))


def load_run_state(path: str | Path) -> RunState:
    """A run folder -> RunState with all its events replayed.

    Raises ValueError naming the folder when it holds neither config.json nor events.jsonl.
    """
    path = Path(path)
    try:
        from explorer.core.runs import load_run  # type: ignore[import-not-found]
    except ImportError:
        load_run = None
    if load_run is not None:
        rec = load_run(path)
        config = _as_dict(getattr(rec, "config", None))
        events = list(getattr(rec, "events", []) or [])
        run_id = getattr(rec, "run_id", None) or config.get("run_id") or path.name
        return RunState.from_events(run_id, events, path=path, config=config)
    cfg_file, ev_file = path / "config.json", path / EVENTS_FILE
    if not cfg_file.is_file() and not ev_file.is_file():
        raise ValueError(f"{path} is not a run folder: it has neither config.json nor {EVENTS_FILE}")
    config: dict = {}
    if cfg_file.is_file():
        try:
            config = json.loads(cfg_file.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, OSError) as exc:
            raise ValueError(f"{cfg_file}: cannot read the run config ({exc})") from None
    events = read_events(ev_file) if ev_file.is_file() else []
    run_id = str(config.get("run_id") or path.name)
    return RunState.from_events(run_id, events, path=path, config=config)


def load_all(folder: str | Path) -> tuple[list[RunState], list[str]]:
    """Every run under ``folder`` -> (states, problems); a broken run folder becomes a problem line."""
    states, problems = [], []
    for p in run_dirs(folder):
        try:
            states.append(load_run_state(p))
        except Exception as exc:  # noqa: BLE001 - one bad folder must not hide the others
            problems.append(f"{p}: {exc}")
    return states, problems

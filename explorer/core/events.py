"""The worker protocol: JSON-lines events written by the training process, read by the GUI.

One JSON object per line, each with ``"event"`` and ``"run_id"`` (DESIGN.md, "Training runs in a
separate process"). The worker prints each line on stdout and appends the same line, flushed, to
``runs/<run_id>/events.jsonl`` so a crash loses nothing that was reported.

Event types and their fields (all numbers are plain JSON numbers; times in seconds):

- ``started``: config (dict), device (str, e.g. "cpu", "cuda:0"), mixed_precision (str),
  num_parameters (int), steps_total (int), num_train_examples (int), num_train_features (int)
- ``step``: step (int, optimizer steps done), epoch (float), loss (float), lr (float),
  grad_norm (float), samples_per_second (float), elapsed (float)
- ``eval``: step (int), metrics (dict name -> float), seconds (float), optional ``watch``
  (list of dicts: question, answer, score_diff, flow {question->passage: [per layer], ...})
- ``checkpoint``: step (int), path (str), kind ("last" | "best")
- ``finished``: metrics (dict, final dev metrics), seconds (float), best_checkpoint (str|None),
  stopped_early (bool)
- ``failed``: error (str, one specific human message), traceback (str)
- ``cancelled``: step (int), seconds (float)
- ``log``: message (str), level ("info" | "warning")
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Iterable, Iterator

EVENT_TYPES = ("started", "step", "eval", "checkpoint", "finished", "failed", "cancelled", "log")
TERMINAL_EVENTS = ("finished", "failed", "cancelled")
EVENTS_FILE = "events.jsonl"


class EventParseError(ValueError):
    """A line that is not a valid event (not JSON, no "event"/"run_id", unknown type)."""


def _clean(value: Any) -> Any:
    """Make a value JSON-safe: NaN/inf become None-free strings JSON accepts (null)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if hasattr(value, "item") and callable(value.item):  # numpy / torch scalar
        return _clean(value.item())
    if isinstance(value, Path):
        return str(value)
    return value


def make_event(event: str, run_id: str, **fields: Any) -> dict:
    """Build one event dict; raises ValueError for an unknown event type."""
    if event not in EVENT_TYPES:
        raise ValueError(f"unknown event type {event!r}; expected one of {EVENT_TYPES}")
    out = {"event": event, "run_id": run_id, "time": time.time()}
    out.update(_clean(fields))
    return out


def encode_event(event: dict) -> str:
    """One event -> one JSON line (no trailing newline)."""
    return json.dumps(event, ensure_ascii=False, separators=(",", ":"))


def parse_event(line: str) -> dict:
    """One line -> event dict. Raises EventParseError with the reason."""
    line = line.strip()
    if not line:
        raise EventParseError("empty line")
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise EventParseError(f"not JSON ({exc.msg} at column {exc.colno}): {line[:80]!r}") from None
    if not isinstance(obj, dict) or "event" not in obj or "run_id" not in obj:
        raise EventParseError(f"not an event (needs 'event' and 'run_id'): {line[:80]!r}")
    if obj["event"] not in EVENT_TYPES:
        raise EventParseError(f"unknown event type {obj['event']!r}")
    return obj


def read_events(path: str | Path) -> list[dict]:
    """All parseable events of an events.jsonl; a torn last line (crash mid-write) is skipped."""
    return list(iter_events(Path(path).read_text(encoding="utf-8").splitlines()))


def iter_events(lines: Iterable[str]) -> Iterator[dict]:
    """Parse lines, skipping blank and non-event lines (e.g. library warnings on stdout)."""
    for line in lines:
        try:
            yield parse_event(line)
        except EventParseError:
            continue


@dataclass
class EventWriter:
    """Writes events to stdout (or any stream) and appends them, flushed, to events.jsonl.

    Only the main process of a distributed run should own a writer (``enabled=False`` elsewhere).
    """

    run_id: str
    path: Path | None = None
    stream: IO[str] | None = None
    enabled: bool = True
    _file: IO[str] | None = field(default=None, init=False, repr=False)

    def emit(self, event: str, **fields: Any) -> dict:
        ev = make_event(event, self.run_id, **fields)
        if not self.enabled:
            return ev
        line = encode_event(ev)
        if self.path is not None:
            if self._file is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._file = open(self.path, "a", encoding="utf-8")
            self._file.write(line + "\n")
            self._file.flush()
        if self.stream is not None:
            try:
                self.stream.write(line + "\n")
                self.stream.flush()
            except (OSError, ValueError):   # the reader went away (GUI quit, "leave it training"):
                self.stream = None          # keep training; the events file has every line
        return ev

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

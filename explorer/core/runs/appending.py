"""Appending an event to a run's ``events.jsonl`` from outside the worker's own writer (Qt-free, torch-free).

The GUI's ``failed`` / ``cancelled`` for a worker that died without one, a cancelled queued run, the worker's
failure before its writer exists and the host-side ``tail`` all append through :func:`append_event`, which
goes through explorer.core.protocol.events.EventWriter like the worker: nothing writes the file by hand.
"""

from __future__ import annotations

from pathlib import Path

from explorer.core.protocol.events import EventWriter
from explorer.core.runs.layout import events_file


def append_event(run_dir: str | Path, event: dict) -> dict:
    """Append one event (made with explorer.core.protocol.events.make_event) to ``<run_dir>/events.jsonl``
    through :class:`~explorer.core.protocol.events.EventWriter` (a torn last line is ended first); returns it.

    Raises:
        OSError: the line could not be written; the message names the file and the reason.
    """
    writer = EventWriter(str(event.get("run_id", "")), path=events_file(run_dir))
    try:
        writer.write(event)
    finally:
        writer.close()
    if writer.file_error is not None:
        raise OSError(f"cannot append the {event.get('event')} event to {writer.file_error}")
    return event

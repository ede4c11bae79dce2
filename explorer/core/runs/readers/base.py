"""The table of other tools' run folders: one :class:`RunReader` per kind, registered by its module.

As accelerate registers its trackers (each declares its name and how it starts, logs and ends), each reader
declares its kind name, how it recognises a folder and how it reads one into the events, checkpoints, status
and notes of a :class:`ForeignRun`; explorer.core.runs.reading lists, reads and draws them beside our own
runs, read-only. A new kind of run folder is one module in this package that calls :func:`register_reader`
(every module of the package is imported by its ``__init__``; nothing else is edited).

Which kind a folder is (explorer.core.runs.reading.run_kind): ours when it holds ``events.jsonl``; else the
first reader, in registration order, whose files never appear in our run folders; else ours when it holds a
run ``config.json``; else the first of the other readers (``shared_with_ours``: our runs write TensorBoard
event files beside their events with ``report_to="tensorboard"``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

IN_PROGRESS_SECONDS = 300.0   # another tool's run whose files changed this recently is "in progress"


@dataclass
class ForeignRun:
    """A run folder written by another tool, as reading needs it (explorer.core.runs.reading.load_run).

    Attributes:
        kind: the reader's kind name (:attr:`RunReader.kind`: "HF Trainer", "TensorBoard").
        run_id: the folder's name (``<output_dir>-checkpoint-N`` for one checkpoint opened alone).
        status: one of explorer.core.runs.status.STATUSES (never crashed: another tool's run has no worker of
            ours): FINISHED / STOPPED / IN_PROGRESS for an HF Trainer run, TENSORBOARD_RUN / IN_PROGRESS for
            TensorBoard files.
        config: {"model", "task"} as far as they can be told.
        events: explorer.core.protocol.events dicts made from the folder (started, step, eval, checkpoint, finished).
        checkpoints: kind ("checkpoint-N", "last", "best") -> folder.
        best: (metric name, value as stored, step) of the best evaluation the tool recorded, else None.
        settings: the training settings that could be read (name -> plain value).
        notes: what could not be read, or was read in a limited way (one line each).
    """

    kind: str
    run_id: str
    status: str
    config: dict = field(default_factory=dict)
    events: list[dict] = field(default_factory=list)
    checkpoints: dict[str, str] = field(default_factory=dict)
    best: tuple[str, float, int] | None = None
    settings: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class RunReader:
    """How one kind of other tool's run folder is recognised and read.

    Attributes:
        kind: the kind's name ("HF Trainer"): RunSummary.kind and RunRecord.kind, shown in the Runs list.
        looks_for: what marks its folders, for the "not a run folder" message ("no trainer_state.json (an HF
            Trainer output_dir or checkpoint-N)").
        recognises: ``recognises(folder) -> bool``: is this folder one of its runs (stat calls only: every
            folder of a runs folder is asked).
        read: ``read(folder, now) -> ForeignRun`` at unix time ``now``; raises ValueError naming the file when
            the files cannot be read as this kind (or a UserError such as a missing optional package).
        shared_with_ours: our own run folders can hold these files too, so a run ``config.json`` makes the
            folder ours (see the module docstring).
        recheck: ``recheck(folder, status, now) -> bool`` for a listed run of this kind: whether its files
            changed since it was read as ``status``, so that it is read again (cheap: stat calls); None: never.
    """

    kind: str
    looks_for: str
    recognises: Callable[[Path], bool]
    read: Callable[[Path, float], ForeignRun]
    shared_with_ours: bool = False
    recheck: Callable[[Path, str, float], bool] | None = None


_READERS: dict[str, RunReader] = {}


def register_reader(reader: RunReader) -> RunReader:
    """Add ``reader`` to the table (replacing a reader of the same kind); returns it."""
    _READERS[reader.kind] = reader
    return reader


def run_readers() -> list[RunReader]:
    """Every registered reader in the order folders are matched: those whose files never appear in our run
    folders first, then the ``shared_with_ours`` ones; registration order within each."""
    readers = list(_READERS.values())
    return [r for r in readers if not r.shared_with_ours] + [r for r in readers if r.shared_with_ours]


def reader_for_kind(kind: str) -> RunReader | None:
    """The reader registered for ``kind``, or None (our own runs have none)."""
    return _READERS.get(kind)


class WriterWatch:
    """Which other tools' run folders this process has seen being written to, by its own clock.

    A folder's file times say nothing about a live writer: a copied folder's times are the copy's (a copied
    Trainer folder would read "in progress" for minutes). So a folder counts as written to only when this
    process saw its fingerprint (what a reader's files look like to stat calls) change between two looks, and
    for ``window_seconds`` after the last change it saw; the first look never counts. Not thread-safe beyond
    the GIL's dict updates (the run store's reader threads each look at their own folders)."""

    def __init__(self, window_seconds: float):
        self.window_seconds = float(window_seconds)
        self._seen: dict[str, tuple[tuple, float, float | None]] = {}   # path -> (fingerprint, first look, change)

    def look(self, path: str | Path, fingerprint: tuple, now: float) -> bool:
        """Record a look at ``path`` at unix time ``now``; True while a change was seen in the last window."""
        key = str(Path(path).resolve())
        before = self._seen.get(key)
        if before is None:
            self._seen[key] = (fingerprint, now, None)
            return False
        changed = before[2] if fingerprint == before[0] else now
        self._seen[key] = (fingerprint, before[1], changed)
        return changed is not None and now - changed < self.window_seconds

    def watching(self, path: str | Path, now: float) -> bool:
        """Whether ``path`` is still worth a look: first seen, or last changed, under ``window_seconds`` ago."""
        seen = self._seen.get(str(Path(path).resolve()))
        return seen is not None and now - (seen[2] if seen[2] is not None else seen[1]) < self.window_seconds

    def changed_since(self, path: str | Path, fingerprint: tuple) -> bool:
        """Whether ``fingerprint`` differs from the one recorded at the last look (True when never looked)."""
        seen = self._seen.get(str(Path(path).resolve()))
        return seen is None or seen[0] != fingerprint

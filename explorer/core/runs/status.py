"""A run's status: one list of names and one state machine (torch-free, Qt-free).

Everyone who shows or decides a run's status uses these functions: the runs list on disk
(explorer.core.runs.store, the run store), the GUI's run states (explorer.ui.runs.state, explorer.ui.runs.store)
and the run queue (explorer.ui.runs.runner.RunManager). The worker's events are the source of truth; the GUI adds its
requests (queue, start, stop early, cancel) and the end of the worker process.

::

    queued --start--> starting --started--> running --finished--> finished
       |                 |  \\                  |  \\---finished (stopped_early)--> stopped
     cancel            stop  cancel         stop  cancel        --failed--> failed
       v                 v      v             v      v          --cancelled--> cancelled
    cancelled        stopping  cancelling  stopping  cancelling
                     (a late step/started event keeps stopping / cancelling; a terminal event ends it)

    any live status --worker exited without a terminal event--> failed / cancelled (the GUI's own
    event, appended to events.jsonl) ; replayed from disk with no terminal event: running while the
    worker process lives, else crashed.

The status after the *last* ``started`` event counts: a resumed run starts again at running.
"""

from __future__ import annotations

from typing import Iterable

QUEUED, STARTING, RUNNING, STOPPING, CANCELLING = "queued", "starting", "running", "stopping", "cancelling"
FINISHED, STOPPED, FAILED, CANCELLED, CRASHED = "finished", "stopped", "failed", "cancelled", "crashed"

LIVE = (QUEUED, STARTING, RUNNING, STOPPING, CANCELLING)
TERMINAL = (FINISHED, STOPPED, FAILED, CANCELLED, CRASHED)
# Runs written by another tool (explorer.core.runs.readers: an HF Trainer output_dir, a folder of TensorBoard event
# files): no worker of ours, no terminal event to replay; "in progress" while their files are still growing. An
# HF Trainer run whose files say it ended, or that no writer was seen changing, is FINISHED or STOPPED
# (explorer.core.runs.readers.trainer_folder.read_trainer_run).
TENSORBOARD_RUN, IN_PROGRESS = "TensorBoard run", "in progress"
FOREIGN = (TENSORBOARD_RUN, IN_PROGRESS)
STATUSES = LIVE + TERMINAL + FOREIGN
# Listed runs whose folders are re-read while they grow (a worker started elsewhere; another tool's run)
FOLLOWED = (RUNNING, IN_PROGRESS)
# A worker process exists (started, not yet reported its end).
WORKING = (STARTING, RUNNING, STOPPING, CANCELLING)
# Requests that are pending until the worker reports its end.
PENDING_REQUESTS = (STOPPING, CANCELLING)


def is_live(status: str) -> bool:
    """Queued or with a worker that has not reported its end."""
    return status in LIVE


def terminal_status(event: dict) -> str | None:
    """The status a terminal event ends a run in (finished / stopped / failed / cancelled), else None."""
    kind = event.get("event")
    if kind == "finished":
        return STOPPED if event.get("stopped_early") else FINISHED
    if kind in (FAILED, CANCELLED):
        return kind
    return None


def after_event(status: str, event: dict) -> str:
    """The status after one worker event.

    ``started`` -> running (a resumed run counts from its new start), except that a pending stop or
    cancel request stays visible; a terminal event -> its status; any other event -> unchanged.
    """
    end = terminal_status(event)
    if end is not None:
        return end
    if event.get("event") == "started":
        return status if status in PENDING_REQUESTS else RUNNING
    return status


def after_request(status: str, request: str) -> str:
    """The status after a GUI request: ``start`` (the worker process is launched), ``stop`` (stop
    early), ``cancel``, ``launch_failed`` (the worker could not be set up).

    Requests that do not apply leave the status as it is (e.g. stopping a finished run).

    Raises:
        ValueError: an unknown request.
    """
    if request == "start":
        return STARTING if status == QUEUED else status
    if request == "stop":
        return STOPPING if status in (STARTING, RUNNING) else status
    if request == "cancel":
        if status == QUEUED:
            return CANCELLED
        return CANCELLING if status in WORKING else status
    if request == "launch_failed":
        return FAILED if status in (QUEUED, STARTING) else status
    raise ValueError(f"unknown run request {request!r}; expected start, stop, cancel or launch_failed")


def after_exit(status: str, reported: str) -> str:
    """The status once the worker process has ended; ``reported`` is the status of its terminal
    event (the GUI writes one when the worker died without). Ended runs keep their status."""
    return reported if status in WORKING else status


def replay(events: Iterable[dict], alive: bool, status: str = STARTING) -> str:
    """The status of a run read back from its events: every event applied in order; a run left live
    (no terminal event after its last ``started``) is running while its worker process lives
    (``alive``), else crashed."""
    for event in events:
        status = after_event(status, event)
    if status in LIVE:
        return RUNNING if alive else CRASHED
    return status

"""A folder of TensorBoard event files read as a run: the "TensorBoard" entry of the reader table
(explorer.core.runs.readers.base; the files are read by explorer.core.runs.tensorboard, which needs the optional
``tensorboard`` package).

Its status: TENSORBOARD_RUN, or IN_PROGRESS while its files changed and its newest scalar was written (its own
wall time) in the last IN_PROGRESS_SECONDS; never crashed. The scalars' wall time tells an export from a live
writer: an export of a finished run (``export-tensorboard``) writes new files holding the run's old times, and
read as "in progress" for minutes by the files' time alone. A writer restarted from an earlier step purges the
earlier files' points from that step on (as TensorBoard does; without its purge_step, only the tags it logs again)
and the run's notes say so. Our own runs write event files beside their events with ``report_to="tensorboard"``, so
a folder with a run ``config.json`` stays ours (``shared_with_ours``).
"""

from __future__ import annotations

from pathlib import Path

from explorer.core.runs import status as run_status
from explorer.core.runs.readers.base import IN_PROGRESS_SECONDS, ForeignRun, RunReader, register_reader
from explorer.core.runs.tensorboard import read_tensorboard_folder_scalars, tensorboard_events, tensorboard_files
from explorer.core.runs.tensorboard_args import read_run_config

TENSORBOARD = "TensorBoard"   # the kind's name (RunReader.kind)


def read_tensorboard_folder(path: Path, now: float) -> ForeignRun:
    """A folder of TensorBoard event files -> ForeignRun (events from explorer.core.runs.tensorboard.tensorboard_events)
    at unix time ``now``.

    Raises:
        explorer.core.runs.tensorboard.TensorBoardMissing: the tensorboard package is not installed.
    """
    path = Path(path)
    files = tensorboard_files(path)
    newest = max(f.stat().st_mtime for f in files)
    scalars = read_tensorboard_folder_scalars(path)
    if scalars.rows:   # a live writer's last scalar is as recent as its file; an export's is the run's own time
        newest = min(newest, max(row[3] for row in scalars.rows))
    config = read_run_config(files)   # the settings that decide Best dev, when the writer stored them
    events = tensorboard_events(path.name, path, scalars)
    events[0]["config"] = dict(config)
    return ForeignRun(kind=TENSORBOARD, run_id=path.name, events=events, config=config,
                      status=run_status.IN_PROGRESS if now - newest < IN_PROGRESS_SECONDS else run_status.TENSORBOARD_RUN,
                      notes=[f"TensorBoard run: scalars from {len(files)} event file(s) in {path}"]
                      + [restart.note() for restart in scalars.restarts])


register_reader(RunReader(kind=TENSORBOARD, looks_for="no TensorBoard event files",
                          recognises=lambda path: bool(tensorboard_files(path)), read=read_tensorboard_folder,
                          shared_with_ours=True))

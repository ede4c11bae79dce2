"""`bert-explorer export-tensorboard RUN...`: a finished run's scalars as TensorBoard event files.

Example::

    bert-explorer export-tensorboard ~/bert-explorer-runs/20260101-120000-minilm-squad_v2
    tensorboard --logdir ~/bert-explorer-runs

Writes ``events.out.tfevents.*`` into each run folder (or ``--out DIR/<run id>``): step events as
``train/loss``, ``train/learning_rate``, ``train/grad_norm``..., evaluations as ``eval/<metric>``
(``eval_sample/<metric>`` for one on a sample of the dev rows; explorer.core.runs.tensorboard), the step's
epoch as ``train/epoch`` and the run config as the ``args`` text
(so the folder opened as a run shows the same Best dev). Any run the run store reads can be exported (an HF Trainer output_dir too).
Needs the tensorboard package (the ``tensorboard`` extra).
"""

from __future__ import annotations

import sys
from pathlib import Path

from explorer.core.errors import UserError, exits_on_user_error


class _ExportError(UserError):
    pass


def add_arguments(parser) -> None:
    parser.add_argument("runs", nargs="+", metavar="RUN", help="run folders to export")
    parser.add_argument("--out", default="", metavar="DIR",
                        help="write each run's event files into DIR/<run id> instead of the run folder")


@exits_on_user_error
def run(args) -> int:
    from explorer.core.runs.reading import load_run
    from explorer.core.runs.scalars import run_scalars
    from explorer.core.runs.tensorboard import export_tensorboard

    for folder in args.runs:
        try:
            rec = load_run(folder)
        except (ValueError, OSError) as exc:
            raise _ExportError(str(exc)) from None
        out = Path(args.out) / rec.run_id if args.out else Path(folder)
        try:
            export_tensorboard(folder, rec.events, out, config=rec.config)
        except OSError as exc:
            raise _ExportError(f"{out}: cannot write event files ({exc.strerror or exc})") from None
        print(f"{rec.run_id}: {len(run_scalars(rec.events))} scalars -> {out}", file=sys.stderr)
    return 0

"""The window flags shared by ``eval`` and ``probe``: --max-seq-length, --doc-stride (the overlap), --max-query-length.

Defaults are None: for a run's checkpoint (runs/<id>/checkpoints/<name>) the values come from its run's
config.json (explorer.core.checkpoint_windows), else 384 / 128 / 64. Help texts are the ones written once
in explorer.core.window_settings.
"""

from __future__ import annotations

import argparse

from explorer.core.window_settings import DOC_STRIDE_HELP, MAX_QUERY_LENGTH_HELP, MAX_SEQ_LENGTH_HELP

_TRAINED = "without it: the run's config.json value for a run checkpoint (runs/<id>/checkpoints/<name>), else "


def add_window_arguments(parser: argparse.ArgumentParser) -> None:
    """Add --max-seq-length, --doc-stride and --max-query-length (default None = the checkpoint's own)."""
    for flag, help_text, default in (("--max-seq-length", MAX_SEQ_LENGTH_HELP, 384),
                                     ("--doc-stride", DOC_STRIDE_HELP, 128),
                                     ("--max-query-length", MAX_QUERY_LENGTH_HELP, 64)):
        parser.add_argument(flag, type=int, default=None,
                            help=help_text.replace("(default: %(default)s)", f"({_TRAINED}{default})"))

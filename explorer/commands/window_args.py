"""The window flags shared by ``eval`` and ``probe``: --max-seq-length, --doc-stride (the overlap), --max-query-length.

Defaults are None: for a run's checkpoint (runs/<id>/checkpoints/<name>) the values come from its run's
config.json (explorer.core.models.checkpoint_windows), else 384 / 128 / 64. Help texts are the ones written once
in explorer.core.models.window_settings.
"""

from __future__ import annotations

import argparse

from explorer.core.models.window_settings import DOC_STRIDE_HELP, MAX_QUERY_LENGTH_HELP, MAX_SEQ_LENGTH_HELP

_TRAINED = "without it: the run's config.json value for a run checkpoint (runs/<id>/checkpoints/<name>), else "


def add_tokenizer_argument(parser: argparse.ArgumentParser) -> None:
    """Add --tokenizer: where to read the tokenizer of a checkpoint saved without one (an HF Trainer given no
    tokenizer); default: the checkpoint's own, its parent's, or its base model's (explorer.core.models.tokenizer_source)."""
    parser.add_argument("--tokenizer", default=None, metavar="SOURCE",
                        help="the tokenizer to read the text with: hub id, folder or bundled:minilm (default: the "
                             "checkpoint's own, else its parent folder's or its base model's; a checkpoint without "
                             "one is refused)")


def add_device_argument(parser: argparse.ArgumentParser) -> None:
    """Add --device (auto, cpu, cuda, cuda:N; explorer.core.devices)."""
    from explorer.core.devices import DEVICE_HELP

    parser.add_argument("--device", default="auto", metavar="DEVICE", help=DEVICE_HELP)


def add_window_arguments(parser: argparse.ArgumentParser) -> None:
    """Add --max-seq-length, --doc-stride and --max-query-length (default None = the checkpoint's own)."""
    for flag, help_text, default in (("--max-seq-length", MAX_SEQ_LENGTH_HELP, 384),
                                     ("--doc-stride", DOC_STRIDE_HELP, 128),
                                     ("--max-query-length", MAX_QUERY_LENGTH_HELP, 64)):
        parser.add_argument(flag, type=int, default=None,
                            help=help_text.replace("(default: %(default)s)", f"({_TRAINED}{default})"))

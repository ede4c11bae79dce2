"""The desktop app's command-line options, Qt-free: the top-level ``bert-explorer --help`` (explorer.cli) and
the app itself (explorer.ui.app) build their parsers from :func:`add_app_arguments`, and neither imports the
other for them."""

from __future__ import annotations

import argparse


def add_app_arguments(parser: argparse.ArgumentParser, *, listed_only: bool = False) -> None:
    """The desktop app's options (``bert-explorer [options]`` with no subcommand) and ``--version``; shared
    by `bert-explorer --help` (explorer.cli) and the app's own parser (explorer.ui.app), so both list the same ones.
    ``listed_only``: no defaults in the parsed namespace (the top-level parser, whose namespace the
    subcommands read)."""
    from explorer import __version__

    unset = {"default": argparse.SUPPRESS} if listed_only else {}

    group = parser.add_argument_group("desktop app (no subcommand)")
    group.add_argument("--runs-dir", **({"default": ""} | unset), metavar="FOLDER",
                       help="runs folder (default: the remembered one, else $EXPLORER_RUNS_DIR, else "
                            "~/bert-explorer-runs)")
    group.add_argument("--settings", **({"default": ""} | unset), metavar="FILE.ini",
                       help="keep the app's settings in this INI file (default: the user's settings; "
                            "$EXPLORER_SETTINGS does the same)")
    group.add_argument("--background", action="store_true", **unset,
                       help="start the app detached and return at once; without a display only say how to "
                            "start it")
    parser.add_argument("--version", action="version", version=f"bert-explorer {__version__}")

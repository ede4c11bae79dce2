"""The `bert-explorer` command: no arguments opens the GUI; subcommands train, eval, score, probe.

Each subcommand lives in its own module exposing ``add_arguments(parser)`` and ``run(args) -> int``;
modules are imported lazily so `bert-explorer score` never pays for torch or Qt imports it does not need.
"""

from __future__ import annotations

import argparse
import importlib
import sys

SUBCOMMANDS = {
    "train": ("explorer.worker.train",
              "fine-tune a model; prints the JSON-lines events described in docs/architecture.md / README"),
    "eval": ("explorer.commands.eval", "batched SQuAD inference + official metrics over a whole file"),
    "score": ("explorer.commands.score", "score someone else's predictions.json like the official script"),
    "probe": ("explorer.commands.probe", "one question + passage: answer, score_diff, block flow, by-hand check"),
    "group": ("explorer.commands.group", "queue N restarts or the paper's grid as a named group of runs"),
    "compare": ("explorer.commands.compare", "compare two checkpoints question by question on a SQuAD dev set"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bert-explorer",
        description="BERT Explorer. With no subcommand, opens the desktop app.",
    )
    sub = parser.add_subparsers(dest="command")
    for name, (module, help_text) in SUBCOMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        importlib.import_module(module).add_arguments(p)
        p.set_defaults(_module=module)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    gui_option = bool(argv) and argv[0].startswith("-") and argv[0] not in {"-h", "--help"}
    if not argv or argv[0] == "gui" or gui_option:
        from explorer.ui.app import main as gui_main

        return gui_main(argv[1:] if argv and argv[0] == "gui" else argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_module", None):
        parser.print_help()
        return 2
    return int(importlib.import_module(args._module).run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())

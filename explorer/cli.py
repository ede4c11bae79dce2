"""The `bert-explorer` command: no arguments opens the GUI; subcommands train, eval, predict, score, probe, ...

Each subcommand lives in its own module exposing ``add_arguments(parser)`` and ``run(args) -> int``;
modules are imported lazily so `bert-explorer score` never pays for torch or Qt imports it does not need.

Exit codes, the same for every subcommand (:data:`EXIT_CODES`): 0 done, 1 internal error (or out of
memory, disk full), 2 user error (an unknown or misspelt flag - nothing is written - a bad value or
setting, unusable input data, for `train` also when found during the run), 143 a training run
cancelled (SIGTERM).
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import sys

from explorer.app_args import add_app_arguments
from explorer.cli_vocabulary import translate_renamed
from explorer.core.errors import EXIT_USER

SUBCOMMANDS = {
    "train": ("explorer.worker.train",
              "fine-tune a model; prints the JSON-lines events described in docs/runs-on-disk.md"),
    "eval": ("explorer.commands.eval", "batched SQuAD inference + official metrics over a whole file"),
    "predict": ("explorer.commands.predict", "label every row of a file with a fine-tuned checkpoint (CSV/TSV/JSONL/xlsx)"),
    "score": ("explorer.commands.score", "score someone else's predictions.json like the official script"),
    "probe": ("explorer.commands.probe", "one question + passage: answer, score_diff, block flow, by-hand check"),
    "group": ("explorer.commands.group", "queue N restarts, the paper's grid, cross-validation or a learning curve as a named group of runs"),
    "embed": ("explorer.commands.embed", "a word in context or a file's texts as vectors: TensorBoard projector files + a 2-D map"),
    "compare": ("explorer.commands.compare", "compare two checkpoints question by question on a SQuAD dev set"),
    "explain": ("explorer.commands.explain", "token attributions of one input (integrated gradients / gradient x input), as JSON"),
    "heads": ("explorer.commands.heads", "switch attention heads off on one input or a dev set; head importance and "
                                         "the pruning curve, as JSON"),
    "layer-probes": ("explorer.commands.layer_probes",
                     "a linear probe per layer of the base model and the fine-tuned checkpoint (token tags or the run's classes)"),
    "runs": ("explorer.commands.runs", "list every run under a folder (ours, HF Trainer, TensorBoard); --export-csv"),
    "label-issues": ("explorer.commands.label_issues",
                     "suspected label errors from out-of-fold predictions (cleanlab), ranked, for review"),
    "shares": ("explorer.commands.shares",
               "class shares of a predicted file: naive and prediction-powered intervals, reviewed rows needed"),
    "capsule": ("explorer.commands.capsule",
                "a run's replication capsule (config, commands, hashes, versions, figures, methods); --check reproduces it"),
    "export-tensorboard": ("explorer.commands.export_tensorboard", "write finished runs' scalars as TensorBoard event files"),
    "baseline": ("explorer.commands.baseline", "a run against a TF-IDF + linear baseline on its own dev rows, with the paired test"),
}
EXIT_CODES = ("exit codes (every subcommand): 0 done; 1 internal error (or out of memory, disk full); "
              "2 user error (unknown or misspelt flag, bad value or setting, unusable input data); "
              "143 training cancelled; 130 predict interrupted (Ctrl+C; the rows written so far stay)")


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser: the app's options (:func:`add_app_arguments`) and one subparser per entry of
    SUBCOMMANDS (each with the exit-code epilog)."""
    parser = argparse.ArgumentParser(
        prog="bert-explorer",
        description="BERT Explorer. With no subcommand, opens the desktop app (the options below).",
        epilog=EXIT_CODES,
    )
    add_app_arguments(parser, listed_only=True)
    sub = parser.add_subparsers(dest="command", title="subcommands")
    for name, (module, help_text) in SUBCOMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        importlib.import_module(module).add_arguments(p)
        if "exit codes" not in (p.epilog or "").lower():
            p.epilog = f"{p.epilog} {EXIT_CODES}" if p.epilog else EXIT_CODES
        p.set_defaults(_module=module)
    return parser


def _subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser | None:
    for action in parser._actions:  # noqa: SLF001 - argparse keeps subparsers only here
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            return action.choices.get(name)
    return None


def suggest_flag(unknown: str, parser: argparse.ArgumentParser) -> str | None:
    """The known flag of ``parser`` closest to ``unknown`` ('--learning_rate' -> '--learning-rate'), else None.

    Underscores count as hyphens (a Python name typed as a flag); difflib's ratio decides otherwise.
    """
    flag = unknown.split("=", 1)[0]
    known = [s for a in parser._actions for s in a.option_strings if s.startswith("--")]  # noqa: SLF001
    normalised = flag.replace("_", "-").lower()
    if normalised in known:
        return normalised
    close = difflib.get_close_matches(normalised, known, n=1, cutoff=0.75)
    return close[0] if close else None


def unknown_arguments_message(extra: list[str], parser: argparse.ArgumentParser) -> str:
    """'unrecognized arguments: --learning_rate 1e-4 (did you mean --learning-rate?)'."""
    message = f"unrecognized arguments: {' '.join(extra)}"
    hints = []
    for token in extra:
        if token.startswith("-"):
            guess = suggest_flag(token, parser)
            if guess and guess != token:
                hints.append(f"{token.split('=', 1)[0]} -> did you mean {guess}?")
    return message + (f" ({'; '.join(hints)})" if hints else "")


def main(argv: list[str] | None = None) -> int:
    """Entry point of `bert-explorer`; returns the exit code (see the module docstring)."""
    argv = sys.argv[1:] if argv is None else argv
    gui_option = bool(argv) and argv[0].startswith("-") and argv[0] not in {"-h", "--help", "--version"}
    if not argv or argv[0] == "gui" or gui_option:
        from explorer.ui.app import main as gui_main

        return gui_main(argv[1:] if argv and argv[0] == "gui" else argv)
    parser = build_parser()
    sub = _subparser(parser, argv[0]) if argv else None
    if sub is not None:   # other spellings of the shared flags, read as them (with a note)
        argv = [argv[0], *translate_renamed(argv[1:], sub)]
    args, extra = parser.parse_known_args(argv)
    if not getattr(args, "_module", None):
        parser.print_help()
        return EXIT_USER
    if extra:   # the subcommand's usage and a suggestion, not the top-level usage; exits 2, writes nothing
        sub = _subparser(parser, args.command) or parser
        sub.error(unknown_arguments_message(extra, sub))
    return int(importlib.import_module(args._module).run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())

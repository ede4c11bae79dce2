"""One command-line vocabulary: the same flag names for the same things in every subcommand.

The shared names (:data:`SHARED`): ``--model``, ``--data``, ``--text-columns``, ``--label-column``,
``--no-header``, ``--encoding``, ``--device``, ``--batch-size``, ``--max-seq-length``, ``--n-best-size``, ``--out``.
A subcommand that reads a table offers ``--text-columns``, ``--no-header`` and ``--encoding`` with the same
meaning as ``train`` (:func:`add_table_arguments`; the table itself is read by one rule,
explorer.core.data.table.table_kind).

Other spellings (:data:`RENAMED`: the product's own earlier ones, and the words users reach for) are answered,
never silently ignored: each still works, read as the shared flag, and stderr says which name to use ("note:
--text-column is spelt --text-columns in every command (read as --text-columns)"), so an old script keeps
running and its author learns the name; the help shows only the shared names (:func:`translate_renamed`, applied
by explorer/cli.py and the train worker before parsing). Any other unknown flag gets "did you mean"
(explorer/cli.py, ``suggest_flag``).
tests/test_cli_vocabulary.py walks every subcommand's parser and fails on a synonym.
"""

from __future__ import annotations

import argparse
import sys

# the shared flags: name -> what it means everywhere
SHARED = {
    "--model": "the checkpoint or encoder: a folder, a hub id or bundled:minilm",
    "--data": "the input file",
    "--text-columns": "the text column(s) of a table, by name or 1-based position",
    "--label-column": "the label column of a table, by name or 1-based position",
    "--no-header": "the table's first row is data; its columns are then 1, 2, ... (positions)",
    "--encoding": "the text encoding of the file (default: UTF-8, else the one detected)",
    "--device": "where the model runs: auto, cpu, cuda, cuda:N",
    "--run-name": "the run's folder name, the launcher's Run name",
    "--batch-size": "inputs per forward pass (training: per optimizer micro-step)",
    "--max-seq-length": "tokens per window",
    "--n-best-size": "span candidates kept per question",
    "--out": "the output file or folder",
}

# other spellings -> the shared flag they mean
RENAMED = {
    "--text-column": "--text-columns",
    "--text-col": "--text-columns",
    "--label": "--label-column",
    "--labels-column": "--label-column",
    "--label-col": "--label-column",
    "--n-best": "--n-best-size",
    "--nbest": "--n-best-size",
    "--checkpoint": "--model",
    "--model-path": "--model",
    "--bs": "--batch-size",
    "--input": "--data",
    "--output": "--out",
    "--headerless": "--no-header",
    "--charset": "--encoding",
    "--run-id": "--run-name",   # the config's field is run_id; the launcher's is "Run name"
}


def renamed_note(old: str, new: str) -> str:
    """The line an old spelling prints."""
    return f"note: {old} is spelt {new} in every command (read as {new})"


def flags_of(parser: argparse.ArgumentParser) -> set[str]:
    """Every option string of ``parser``."""
    return {s for a in parser._actions for s in a.option_strings}  # noqa: SLF001 - argparse keeps them here


def translate_renamed(argv: list[str], parser: argparse.ArgumentParser, err=None) -> list[str]:
    """``argv`` for ``parser`` with every spelling of :data:`RENAMED` whose shared flag ``parser`` has replaced
    by that flag (``--text-column x`` -> ``--text-columns x``, ``--n-best=3`` -> ``--n-best-size=3``), each
    said once on ``err`` (default stderr) by :func:`renamed_note`. Tokens after ``--`` stay as they are."""
    known = flags_of(parser)
    out: list[str] = []
    said: set[str] = set()
    rest = False
    for token in argv:
        head, eq, value = token.partition("=")
        new = RENAMED.get(head) if not rest and token.startswith("--") else None
        if new and new in known and head not in known:
            if head not in said:
                print(renamed_note(head, new), file=err or sys.stderr)
                said.add(head)
            token = new + eq + value
        rest = rest or token == "--"
        out.append(token)
    return out


class ColumnList(argparse.Action):
    """Column names given space-separated (``--text-columns Target Tweet``) or comma-separated as ``train`` takes
    them (``--text-columns Target,Tweet``): one list either way, so a training command's flags work here too."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, [part.strip() for v in values for part in str(v).split(",") if part.strip()])


def add_table_arguments(parser: argparse.ArgumentParser, *, text_help: str, label: bool = False,
                        encoding_default: str = "") -> None:
    """``--text-columns`` (``text_help`` says the default), ``--label-column`` (with ``label``), ``--no-header``
    (and ``--header`` to override a run's header-less reading) and ``--encoding``: a table read as ``train``
    reads it."""
    parser.add_argument("--text-columns", nargs="+", default=None, metavar="COLUMN", action=ColumnList,
                        help=f"{SHARED['--text-columns']}, space- or comma-separated as train takes them ({text_help})")
    if label:
        parser.add_argument("--label-column", default=None, metavar="COLUMN", help=SHARED["--label-column"])
    parser.add_argument("--no-header", dest="no_header", action="store_const", const=True, default=None,
                        help=SHARED["--no-header"] + "; a .txt file without tabs is one text per line (no header)")
    parser.add_argument("--header", dest="no_header", action="store_const", const=False,
                        help="the first row names the columns (the default, unless the run read its data "
                             "without a header)")
    parser.add_argument("--encoding", default=encoding_default or "auto",
                        help=SHARED["--encoding"] + " (default: %(default)s)")

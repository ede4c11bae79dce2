"""One command-line vocabulary (explorer/cli_vocabulary.py): every subcommand names the same thing the same
way, other spellings are answered with the name to use, and every command reads a table by the same rule."""

from __future__ import annotations

import argparse
import os
import re

import pytest

from explorer.cli import SUBCOMMANDS, _subparser, build_parser, main
from explorer.cli_vocabulary import RENAMED, SHARED, translate_renamed

# Flags whose names differ only in number or a suffix but mean different things, each with the reason.
DIFFERENT_THINGS = {
    frozenset({"--seed", "--seeds"}): "group: one seed per run (--seeds) vs the run's one seed (--seed)",
}
# Subcommands that read a table of texts: they take the table flags train takes.
TABLE_READERS = ("train", "group", "predict", "embed", "explain")


def _visible_flags() -> dict[str, set[str]]:
    parser = build_parser()
    out = {}
    for name in SUBCOMMANDS:
        sub = _subparser(parser, name)
        out[name] = {o for a in sub._actions if a.help != argparse.SUPPRESS for o in a.option_strings
                     if o.startswith("--")}
    return out


def _stem(flag: str) -> str:
    """A flag reduced to what it names: no dashes, no plural, no -size / -name / -path / -dir suffix."""
    text = flag.lstrip("-").replace("_", "-")
    text = re.sub(r"-(size|names?|path|dir|col|column)$", "", text) if text.count("-") > 1 else text
    return text.replace("-", "").rstrip("s")


def test_no_subcommand_offers_a_synonym():
    """Walk every subcommand's parser: no visible flag is an old spelling, and no two visible flags anywhere
    name one thing two ways (--text-column beside --text-columns, --n-best beside --n-best-size)."""
    flags = _visible_flags()
    every = set().union(*flags.values())
    assert not every & set(RENAMED), f"old spellings still offered: {sorted(every & set(RENAMED))}"
    by_stem: dict[str, set[str]] = {}
    for flag in every:
        by_stem.setdefault(_stem(flag), set()).add(flag)
    clashes = [names for names in by_stem.values() if len(names) > 1 and frozenset(names) not in DIFFERENT_THINGS]
    assert not clashes, f"one thing, several names: {clashes}"
    assert all(new in SHARED for new in RENAMED.values())


def test_the_synonym_check_can_fail():
    assert _stem("--text-column") == _stem("--text-columns") and _stem("--n-best") == _stem("--n-best-size")
    assert _stem("--label-column") != _stem("--label-names") and _stem("--passage") != _stem("--passage-file")


def test_every_table_reader_takes_the_table_flags_and_every_model_runner_a_device():
    flags = _visible_flags()
    for name in TABLE_READERS:
        assert {"--text-columns", "--no-header", "--encoding", "--model", "--data"} <= flags[name] | {"--data"}, name
    for name in ("eval", "predict", "probe", "embed", "explain", "compare"):
        assert "--device" in flags[name], name


@pytest.mark.parametrize(("command", "old", "new", "dest", "value"), [
    ("embed", "--text-column", "--text-columns", "text_columns", ["Tweet"]),
    ("probe", "--n-best", "--n-best-size", "n_best", 3),
    ("predict", "--checkpoint", "--model", "model", "runs/x"),
    ("train", "--label", "--label-column", "label_column", "Stance"),
    ("train", "--run-id", "--run-name", "run_id", "conll-short"),
])
def test_an_old_spelling_still_works_and_names_the_flag(command, old, new, dest, value, capsys):
    """Read as the shared flag (the way explorer.cli.main reads a command line), with a note naming it; the help
    shows the shared name only."""
    parser = build_parser()
    sub = _subparser(parser, command)
    base = {"embed": ["--data", "d.txt", "--out", "o"], "probe": ["--question", "q", "--passage", "p"],
            "predict": ["--model", "m", "--data", "d.csv", "--out", "o.csv"], "train": []}[command]
    if old == "--checkpoint":
        base = base[2:]
    argv = translate_renamed([*base, old, *(value if isinstance(value, list) else [str(value)])], sub)
    assert getattr(sub.parse_args(argv), dest) == value
    assert f"note: {old} is spelt {new} in every command" in capsys.readouterr().err
    assert not re.search(re.escape(old) + r"(?![\w-])", sub.format_help())
    assert translate_renamed([f"{old}=x"], sub, err=open(os.devnull, "w")) == [f"{new}=x"]


def test_train_names_the_run_with_run_name_as_the_launcher_does(capsys):
    """``--run-name`` is the flag train offers and documents (the launcher's "Run name"), read without a note;
    the config field stays ``run_id``, and a config's command line says ``--run-name``."""
    from explorer.core.specs.train_config import TrainConfig

    sub = _subparser(build_parser(), "train")
    assert getattr(sub.parse_args(translate_renamed(["--run-name", "conll-short"], sub)), "run_id") == "conll-short"
    assert capsys.readouterr().err == ""
    assert "--run-name" in _visible_flags()["train"] and "--run-id" not in _visible_flags()["train"]
    assert TrainConfig(run_id="x").to_cli_args()[-2:] == ["--run-name", "x"]


def test_an_unknown_flag_gets_did_you_mean(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["predict", "--model", "m", "--data", "d.csv", "--out", "o.csv", "--text_colums", "a"])
    assert exc.value.code == 2 and "did you mean --text-columns?" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["predict", "embed"])
def test_text_columns_read_comma_separated_as_train_takes_them(command):
    """A training command's ``--text-columns Target,Tweet`` works in every table reader, as does the spaced form."""
    sub = _subparser(build_parser(), command)
    base = ["--model", "m", "--data", "d.csv", "--out", "o"]
    assert sub.parse_args([*base, "--text-columns", "Target,Tweet"]).text_columns == ["Target", "Tweet"]
    assert sub.parse_args([*base, "--text-columns", "Target", "Tweet"]).text_columns == ["Target", "Tweet"]

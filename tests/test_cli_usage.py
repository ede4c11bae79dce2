"""Flag typos get the subcommand's usage and a suggestion; one exit-code convention."""

from __future__ import annotations

import pytest

from explorer import cli


def test_flag_typo_gets_subcommand_usage_and_suggestion(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["train", "--learning_rate", "1e-4", "--output-dir", str(tmp_path / "runs")])
    assert exc.value.code == cli.EXIT_USER == 2
    err = capsys.readouterr().err
    assert "usage: bert-explorer train" in err
    assert "did you mean --learning-rate?" in err
    assert "{train,eval,score,probe}" not in err          # not the top-level usage
    assert not (tmp_path / "runs").exists()                # a typo leaves no run folder


@pytest.mark.parametrize("typo, expected", [("--learning_rate", "--learning-rate"), ("--max_seq_length=256",
                                            "--max-seq-length"), ("--batchsize", "--batch-size"),
                                            ("--zzzz", None)])
def test_suggest_flag(typo, expected):
    sub = cli._subparser(cli.build_parser(), "train")
    assert cli.suggest_flag(typo, sub) == expected


def test_score_typo_suggests_its_own_flag(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["score", "--data", "d.json", "--predictions", "p.json", "--null_odds", "n.json"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "usage: bert-explorer score" in err and "did you mean --null-odds?" in err


def test_help_documents_exit_codes(capsys):
    for name in ("eval", "score", "probe"):
        with pytest.raises(SystemExit):
            cli.main([name, "--help"])
        assert "2 user error" in " ".join(capsys.readouterr().out.split())
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert "1 internal error" in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("argv", [
    ["probe", "--model", "bundled:minilm", "--question", "", "--passage", "x y"],
    ["probe", "--model", "bundled:minilm", "--question", "q", "--passage-file", "/nonexistent/passage.txt"],
    ["eval", "--model", "bundled:minilm", "--data", "/nonexistent/dev.json"],
    ["score", "--data", "/nonexistent/dev.json", "--predictions", "/nonexistent/p.json"],
])
def test_user_errors_share_one_prefix(argv, capsys):
    """Every subcommand reports a user error as 'error: ...' on stderr and exits 2 (never 'bert-explorer probe:
    error:' from one subcommand beside 'error:' from the others)."""
    rc = cli.main(argv)
    assert rc == cli.EXIT_USER
    lines = [line for line in capsys.readouterr().err.splitlines() if "error" in line.lower()]
    assert lines and all(line.startswith("error: ") for line in lines), lines

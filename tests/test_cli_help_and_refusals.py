"""The command line as a new user meets it: the top-level help lists the app's options
and --version; probe / eval on a classifier say what it is and what to use; a run refused for its data before
its first step leaves no run folder and no traceback in its failed event."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from helpers import save_tiny_model, write_tiny_squad


def cli(*argv) -> tuple[int, str, str]:
    from explorer.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main([str(a) for a in argv])
        except SystemExit as exc:
            rc = exc.code
    return int(rc or 0), out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    return {"cls": save_tiny_model(d / "cls", "classification"), "sq": write_tiny_squad(d / "sq.json"), "dir": d}


def test_top_level_help_lists_the_app_options_and_version():
    from explorer import __version__

    rc, out, _ = cli("--help")
    assert rc == 0
    for flag in ("--runs-dir", "--settings", "--background", "--version", "train", "probe"):
        assert flag in out, flag
    rc, out, _ = cli("--version")
    assert rc == 0 and out.strip() == f"bert-explorer {__version__}"


def test_the_app_parser_takes_the_same_options():
    from explorer.ui.app import build_parser

    args = build_parser().parse_args(["--runs-dir", "R", "--settings", "S.ini", "--background"])
    assert (args.runs_dir, args.settings, args.background) == ("R", "S.ini", True)


@pytest.mark.parametrize("command", ["probe", "eval"])
def test_probe_and_eval_on_a_classifier_say_so(command, files, tmp_path):
    argv = ["--question", "who?", "--passage", "ada was born in london."] if command == "probe" else \
        ["--data", files["sq"], "--out", tmp_path / "eval"]
    rc, _, err = cli(command, "--model", files["cls"], *argv)
    assert rc == 2 and "Traceback" not in err
    assert "is a classification model (BertForSequenceClassification)" in err
    assert "use Classify in the app (or bert-explorer predict)" in err
    assert "doc_stride" not in err and not (tmp_path / "eval").exists()


def test_load_model_refuses_another_task_when_asked(files):
    from explorer.core.models.loading import ModelSourceError, load_model

    with pytest.raises(ModelSourceError, match="is a classification model"):
        load_model(str(files["cls"]), task="qa", refuse_other_task=True)
    assert load_model(str(files["cls"]), task="qa").head_initialised      # a new head when not asked


def test_a_data_error_before_the_first_step_leaves_no_run_folder(files, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": "v2.0", "data": [', encoding="utf-8")
    runs = tmp_path / "runs"
    rc, out, err = cli("train", "--model", files["cls"], "--task", "squad_v2", "--train", bad, "--max-steps", 1,
                       "--mixed-precision", "no", "--output-dir", runs, "--run-id", "r")
    assert rc == 2 and "malformed JSON" in err
    failed = [json.loads(line) for line in out.splitlines() if line.startswith('{"event":"failed"')]
    assert len(failed) == 1 and failed[0]["traceback"] == "" and "malformed JSON" in failed[0]["error"]
    assert not (runs / "r").exists()


def test_an_unstarted_run_folder_with_other_files_is_kept(tmp_path):
    from explorer.worker.train import remove_unstarted_run

    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "config.json").write_text("{}")
    (tmp_path / "a" / "events.jsonl").write_text("")
    assert remove_unstarted_run(tmp_path / "a") and not (tmp_path / "a").exists()
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "config.json").write_text("{}")
    (tmp_path / "b" / "notes.txt").write_text("mine")
    assert not remove_unstarted_run(tmp_path / "b") and (tmp_path / "b" / "notes.txt").exists()


def test_one_default_task_for_the_command_and_the_app(tmp_path):
    """`train` without --task takes the task of its data: squad_v1 on the app's first-run sample (the app's
    default), squad_v2 on SQuAD 2.0 data; --help says so."""
    from explorer.ui.launch.presets import offline_default
    from explorer.worker.train import TASK_DEFAULT_HELP, default_task

    first = offline_default(tmp_path)
    assert default_task(first.train) == first.task == "squad_v1"
    assert default_task(str(write_tiny_squad(tmp_path / "v2.json", v2=True))) == "squad_v2"
    assert default_task(str(write_tiny_squad(tmp_path / "v1.json", v2=False))) == "squad_v1"
    assert default_task("rajpurkar/squad_v2") == "squad_v2" and default_task("rajpurkar/squad") == "squad_v1"
    _, out, _ = cli("train", "--help")
    assert " ".join(TASK_DEFAULT_HELP.split()) in " ".join(out.split())

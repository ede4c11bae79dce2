"""`bert-explorer eval`: window settings from a run checkpoint's config, and the two
best thresholds explained in their own units."""

import argparse
import json
import shutil

from explorer.commands import eval as eval_cmd
from test_cli_eval_score import squad_file, tiny_model_dir  # noqa: F401 - fixture


def _parse(argv):
    p = argparse.ArgumentParser()
    eval_cmd.add_arguments(p)
    return p.parse_args(argv)


def _run_checkpoint(tmp_path, model_dir, **config):
    run = tmp_path / "runs" / "r1"
    ckpt = run / "checkpoints" / "best"
    shutil.copytree(model_dir, ckpt)
    (run / "config.json").write_text(json.dumps({"task": "squad_v2", **config}), encoding="utf-8")
    return ckpt


def test_eval_reads_window_settings_from_run_config(tmp_path, tiny_model_dir, capsys):  # noqa: F811
    ckpt = _run_checkpoint(tmp_path, tiny_model_dir, max_seq_length=64, doc_stride=16, max_query_length=20)
    data = squad_file(tmp_path)
    assert eval_cmd.run(_parse(["--model", str(ckpt), "--data", str(data), "--out", str(tmp_path / "o")])) == 0
    cap = capsys.readouterr()
    assert "window settings: max_seq_length 64, doc_stride 16, max_query_length 20 (from" in cap.err
    assert "(max_seq_length 64, doc_stride 16)" in cap.out
    # an explicit flag still wins
    assert eval_cmd.run(_parse(["--model", str(ckpt), "--data", str(data), "--out", str(tmp_path / "o2"),
                                "--max-seq-length", "96"])) == 0
    cap = capsys.readouterr()
    assert "(max_seq_length 96, doc_stride 16)" in cap.out


def test_eval_explains_both_thresholds(tmp_path, tiny_model_dir, capsys):  # noqa: F811
    data = squad_file(tmp_path)
    assert eval_cmd.run(_parse(["--model", str(tiny_model_dir), "--data", str(data), "--out",
                                str(tmp_path / "o"), "--max-seq-length", "64", "--doc-stride", "16"])) == 0
    out = capsys.readouterr().out
    assert "= best_tau" not in out                         # no equation between two units
    assert "best_f1_thresh" in out and "null-odds units" in out and "answer iff null odds <= it" in out
    assert "best_tau" in out and "score_diff units" in out and "answer iff score_diff > τ" in out


def test_explain_best_threshold_abstain_all():
    from explorer.core.specs.metric_display import explain_best_threshold

    lines = explain_best_threshold({"best_f1": 34.29, "best_f1_thresh": 0.0, "best_tau": 2.189}, n_answered=0)
    text = "\n".join(lines)
    assert "starting value" in text and "answers 0 questions" in text and "+2.189" in text
    assert explain_best_threshold({"f1": 1.0}) == []


def test_probe_reads_window_settings_from_run_config(tmp_path, tiny_model_dir, capsys):  # noqa: F811
    from explorer.commands import probe as probe_cmd

    ckpt = _run_checkpoint(tmp_path, tiny_model_dir, max_seq_length=48, doc_stride=8, max_query_length=16)
    p = argparse.ArgumentParser()
    probe_cmd.add_arguments(p)
    passage = "ada was born in london in 1815. " * 10
    args = p.parse_args(["--model", str(ckpt), "--question", "where was ada born?", "--passage", passage, "--json"])
    assert probe_cmd.run(args) == 0
    cap = capsys.readouterr()
    assert "max_seq_length 48, doc_stride 8, max_query_length 16" in cap.err
    dump = json.loads(cap.out)
    assert all(len(w["tokens"]) <= 48 for w in dump["windows"]) and len(dump["windows"]) > 1


def test_score_explains_thresholds_on_stderr(tmp_path, tiny_model_dir, capsys):  # noqa: F811
    from explorer.commands import score as score_cmd

    data = squad_file(tmp_path)
    out = tmp_path / "o"
    assert eval_cmd.run(_parse(["--model", str(tiny_model_dir), "--data", str(data), "--out", str(out),
                                "--max-seq-length", "64", "--doc-stride", "16"])) == 0
    capsys.readouterr()
    p = argparse.ArgumentParser()
    score_cmd.add_arguments(p)
    args = p.parse_args(["--data", str(data), "--predictions", str(out / "predictions.json"),
                         "--null-odds", str(out / "null_odds.json")])
    assert score_cmd.run(args) == 0
    cap = capsys.readouterr()
    assert json.loads(cap.out)["best_f1_thresh"] is not None        # stdout stays the official JSON
    assert "null-odds units" in cap.err and "score_diff units" in cap.err


def test_all_abstain_best_threshold_is_said_to_mean_nothing():
    """60 SQuAD 2.0 questions, 31 unanswerable: the official search keeps best_f1_thresh 0.0 and best_f1 =
    31 / 60 = 51.67 when no threshold beats abstaining everywhere; eval and score say so instead of
    'answer iff null odds <= 0.000' (which would answer everything: F1 5.97 in the case that found it)."""
    from explorer.core.specs.metric_display import abstain_note, abstaining_scores_best, explain_best_threshold

    metrics = {"best_f1": 100 * 31 / 60, "best_f1_thresh": 0.0, "HasAns_total": 29, "NoAns_total": 31}
    assert abstaining_scores_best(metrics)
    assert "answering nothing scores" in abstain_note(metrics) and "31 of 60" in abstain_note(metrics)
    assert "abstaining on every question scored best" in explain_best_threshold(metrics)[1]
    for other in ({**metrics, "best_f1_thresh": -1.2}, {**metrics, "best_f1": 60.0}, {"best_f1": 51.67}):
        assert not abstaining_scores_best(other) and abstain_note(other) == ""

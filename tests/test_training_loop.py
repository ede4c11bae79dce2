"""The training loop end to end, in this process (fast): classification, QA v1/v2, watch, NaN,
bad input, out of memory, gradient accumulation, and the CLI <-> TrainConfig round trip."""

import contextlib
import io
import json

import pytest
from helpers import save_tiny_model, write_label_sorted_table, write_tiny_classification, write_tiny_squad

from explorer.core.protocol.events import iter_events
from explorer.worker.train import EXIT_FAILED, EXIT_OK, EXIT_USAGE, main as train_main


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("train-files")
    return {
        "qa": str(save_tiny_model(d / "qa", "qa")),
        "cls": str(save_tiny_model(d / "cls", "classification")),
        "sq2": str(write_tiny_squad(d / "sq2.json", v2=True, repeat=3)),
        "sq1": str(write_tiny_squad(d / "sq1.json", v2=False, repeat=2)),
        "sst": str(write_tiny_classification(d / "sst.tsv", repeat=8)),
        "mrpc": str(write_tiny_classification(d / "mrpc.tsv", pair=True, repeat=4)),
        "dir": d,
    }


def run(argv):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = train_main([str(a) for a in argv])
    return rc, list(iter_events(buf.getvalue().splitlines()))


def kinds(events):
    return [e["event"] for e in events]


def test_classification_learns_and_reports(files, tmp_path):
    rc, ev = run(["--model", files["cls"], "--task", "single", "--train", files["sst"], "--dev", files["sst"],
                  "--epochs", 6, "--batch-size", 16, "--learning-rate", 1e-2, "--dropout", 0, "--warmup-ratio", 0.1,
                  "--output-dir", tmp_path, "--run-id", "sst"])
    assert rc == EXIT_OK, ev[-1]
    k = kinds(ev)
    assert k[-1] == "finished" and k.index("started") < k.index("eval") < k.index("step")
    started = ev[k.index("started")]
    assert started["steps_total"] == 24 and started["num_train_examples"] == 64 and started["warmup_steps"] == 3
    evals = [e for e in ev if e["event"] == "eval"]
    assert evals[0]["step"] == 0 and evals[-1]["step"] == 24
    assert evals[-1]["metrics"]["loss"] < evals[0]["metrics"]["loss"] - 0.3
    assert evals[-1]["metrics"]["accuracy"] == 1.0 and evals[0]["metrics"]["accuracy"] < 1.0
    steps = [e for e in ev if e["event"] == "step"]
    assert [s["step"] for s in steps] == list(range(1, 25)) and steps[0]["lr"] == 0.0
    assert steps[3]["lr"] == pytest.approx(1e-2) and steps[-1]["lr"] == pytest.approx(1e-2 / 21)
    assert all(s["grad_norm"] > 0 and s["samples_per_second"] > 0 for s in steps)
    fin = ev[-1]
    assert fin["metrics"]["accuracy"] == 1.0 and fin["stopped_early"] is False and fin["steps"] == 24
    # what was printed is what was written
    on_disk = [json.loads(line) for line in (tmp_path / "sst" / "events.jsonl").read_text().splitlines()]
    assert on_disk == ev
    assert json.loads((tmp_path / "sst" / "config.json").read_text())["run_id"] == "sst"


def test_pair_classification(files, tmp_path):
    rc, ev = run(["--model", files["cls"], "--task", "pair", "--train", files["mrpc"], "--dev", files["mrpc"],
                  "--max-steps", 3, "--batch-size", 8, "--output-dir", tmp_path, "--run-id", "mrpc"])
    assert rc == EXIT_OK, ev[-1]
    assert set(ev[-1]["metrics"]) >= {"accuracy", "f1", "matthews_corrcoef", "loss"}


def test_a_capped_squad_v2_run_logs_and_records_the_unanswerable_questions_it_trains_on(files, tmp_path):
    """A Train cap on SQuAD v2.0 data keeps the file's share of unanswerable questions (14 of 42, 12 unanswerable:
    4): the run's log says so where it reads the data and where it tokenizes them, and its started event records
    the count (the τ on dev set page warns for a run that records 0)."""
    rc, ev = run(["--model", files["qa"], "--task", "squad_v2", "--train", files["sq2"], "--dev", files["sq2"],
                  "--train-cap", 14, "--dev-cap", 2, "--max-steps", 1, "--batch-size", 8, "--seed", 5,
                  "--output-dir", tmp_path, "--run-id", "capped"])
    assert rc == EXIT_OK, ev[-1]
    logs = [e["message"] for e in ev if e["event"] == "log"]
    assert any(m.startswith("14 of 42 questions (4 unanswerable) used: Train cap") for m in logs), logs
    assert "tokenizing 14 training questions (4 unanswerable)" in logs
    assert next(e for e in ev if e["event"] == "started")["train_unanswerable"] == 4

def test_qa_v2_end_to_end_with_watch_and_checkpoints(files, tmp_path):
    from explorer.core.models.loading import load_model
    from explorer.core.qa.probe import probe

    rc, ev = run(["--model", files["qa"], "--task", "squad_v2", "--train", files["sq2"], "--dev", files["sq2"],
                  "--max-steps", 12, "--batch-size", 8, "--learning-rate", 3e-3, "--eval-every", 5,
                  "--dev-cap", 14, "--output-dir", tmp_path, "--run-id", "qa"])
    assert rc == EXIT_OK, ev[-1]
    evals = [e for e in ev if e["event"] == "eval"]
    assert [e["step"] for e in evals] == [0, 5, 10, 12]
    m0, m1 = evals[0]["metrics"], evals[-1]["metrics"]
    assert {"exact_match", "f1", "HasAns_f1", "NoAns_f1", "best_f1", "best_f1_thresh", "loss"} <= set(m1)
    assert m1["total"] == 14 and m1["loss"] < m0["loss"]
    for e in evals:   # default watch: the first 2 dev questions, with per-layer block flow (2 layers)
        assert [w["question"] for w in e["watch"]] == ["Where was Ada born?", "When was Ada born?"]
        w = e["watch"][0]
        assert len(w["flow"]["question->passage"]) == 2 and len(w["flow"]["passage->question"]) == 2
        rows = [sum(w["flow"][f"question->{b}"][0] for b in ("question", "passage", "special"))]
        assert rows[0] == pytest.approx(1.0, abs=1e-4)    # each from-token's weights sum to 1
        assert isinstance(w["score_diff"], float) and isinstance(w["answer"], str)
    ck = [e for e in ev if e["event"] == "checkpoint"]
    assert {c["kind"] for c in ck} == {"last", "best"}
    run_dir = tmp_path / "qa"
    preds = json.loads((run_dir / "predictions.json").read_text())
    assert len(preds) == 14 and (run_dir / "null_odds.json").exists()
    best = load_model(ev[-1]["best_checkpoint"], "qa")
    assert not best.head_initialised
    res = probe(best, "Where was Ada born?", "Ada was born in London in 1815.")
    assert res.decoding.nbest
    # the last checkpoint reproduces the last watch score_diff
    last = load_model(str(run_dir / "checkpoints" / "last"), "qa")
    w = evals[-1]["watch"][0]
    again = probe(last, w["question"], w["passage"])
    assert again.score_diff == pytest.approx(w["score_diff"], abs=1e-4)


def test_qa_v1_with_configured_watch(files, tmp_path):
    watch = json.dumps([{"question": "Who released BERT?", "passage": "BERT was released by Google."}])
    rc, ev = run(["--model", files["qa"], "--task", "squad_v1", "--train", files["sq1"], "--dev", files["sq1"],
                  "--max-steps", 2, "--batch-size", 8, "--watch", watch, "--no-save-checkpoints",
                  "--output-dir", tmp_path, "--run-id", "v1"])
    assert rc == EXIT_OK, ev[-1]
    e = [x for x in ev if x["event"] == "eval"][-1]
    assert "HasAns_f1" not in e["metrics"] and e["metrics"]["total"] == 20
    assert [w["question"] for w in e["watch"]] == ["Who released BERT?"]
    assert not (tmp_path / "v1" / "checkpoints").exists() and ev[-1]["best_checkpoint"] is None


def test_nan_loss_fails_with_a_clear_message(files, tmp_path):
    rc, ev = run(["--model", files["cls"], "--task", "single", "--train", files["sst"], "--max-steps", 5,
                  "--batch-size", 8, "--learning-rate", 1e38, "--warmup-ratio", 0, "--max-grad-norm", 0,
                  "--output-dir", tmp_path, "--run-id", "nan"])
    assert rc == EXIT_USAGE                      # a diverging learning rate is the user's setting
    assert ev[-1]["event"] == "failed"
    assert "became nan" in ev[-1]["error"] or "became inf" in ev[-1]["error"]
    assert "diverged" in ev[-1]["error"] and "lower learning rate" in ev[-1]["error"]
    assert not (tmp_path / "nan" / "checkpoints").exists()


def _bad_cases(files, d):
    header_only = d / "empty.tsv"
    header_only.write_text("sentence\tlabel\n")
    text_labels = d / "text_labels.tsv"
    text_labels.write_text("sentence\tlabel\ngood\tpositive\n")
    wrong_cols = d / "wrong.csv"
    wrong_cols.write_text("phrase,y\nok,1\n")
    three = d / "three.tsv"
    three.write_text("sentence\tlabel\nx\t2\n")
    not_model = d / "not_model"
    not_model.mkdir(exist_ok=True)
    bad_cfg = d / "bad.json"
    bad_cfg.write_text(json.dumps({"lr": 1}))
    task_cfg = d / "task.json"
    task_cfg.write_text(json.dumps({"model": files["qa"], "task": "pos", "train": files["sq2"]}))
    cls = ["--model", files["cls"], "--task", "single"]
    return {
        "missing train": (cls + ["--train", d / "nope.tsv"], "nope.tsv does not exist"),
        "wrong columns": (cls + ["--train", wrong_cols], "no sentence column found among ['phrase', 'y']"),
        "text labels": (cls + ["--train", text_labels], "hold only 'positive'"),   # names are classes
        "empty train": (cls + ["--train", header_only], "no examples"),
        "dev label out of range": (cls + ["--train", files["sst"], "--dev", three], "has label 2 but the model has 2"),
        "missing model": (["--model", d / "no_model", "--task", "single", "--train", files["sst"]], "does not exist"),
        "not a model": (["--model", not_model, "--task", "single", "--train", files["sst"]], "has no config.json"),
        "fp16 on cpu": (cls + ["--train", files["sst"], "--mixed-precision", "fp16"], "fp16 needs a CUDA GPU"),
        "v2 data, v1 task": (["--model", files["qa"], "--task", "squad_v1", "--train", files["sq2"]],
                             "unanswerable questions (SQuAD 2.0 data) but the task is squad_v1"),
        "missing squad": (["--model", files["qa"], "--task", "squad_v2", "--train", d / "none.json"], "none.json"),
        "bad task in config": (["--config", task_cfg], "task 'pos' is not one of"),
        "bad config key": (["--config", bad_cfg], "unknown setting(s) lr"),
    }


@pytest.mark.parametrize("case", ["missing train", "wrong columns", "text labels", "empty train",
                                  "dev label out of range", "missing model", "not a model", "fp16 on cpu",
                                  "v2 data, v1 task", "missing squad", "bad task in config", "bad config key"])
def test_bad_input_fails_with_a_specific_message(files, tmp_path, case, capsys):
    argv, message = _bad_cases(files, files["dir"])[case]
    rc, ev = run(argv + ["--output-dir", tmp_path, "--max-steps", 2])
    assert rc != 0
    assert ev and ev[-1]["event"] == "failed" and "started" not in kinds(ev)
    assert message in ev[-1]["error"], ev[-1]["error"]
    # the same message for people, on stderr: one "error: ..." paragraph, no traceback
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("error: ") == 1, err
    assert "Traceback" not in err and err.strip() == "error: " + ev[-1]["error"].strip()
    assert not any(p.name == "checkpoints" for p in tmp_path.rglob("*"))


def test_bad_flag_values_are_argparse_errors(files, tmp_path, capsys):
    for flag, value, choices in (("--task", "squad3", "'squad_v1', 'squad_v2', 'single', 'pair', 'swag', "
                                                      "'regression', 'multilabel'"),
                                 ("--mixed-precision", "fp8", "'auto', 'no', 'fp16', 'bf16'")):
        with pytest.raises(SystemExit) as exc:
            run(["--model", files["qa"], "--train", files["sq2"], flag, value, "--output-dir", tmp_path])
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert f"argument {flag}: invalid choice: '{value}'" in err and choices in err, err
    assert not any(tmp_path.iterdir())


def test_help_has_one_line_per_flag(capsys):
    import dataclasses

    from explorer.core.specs.train_config import TrainConfig, settings

    assert list(settings()) == [f.name for f in dataclasses.fields(TrainConfig)]
    assert all(s.help for s in settings().values())
    with pytest.raises(SystemExit):
        train_main(["--help"])
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
    assert "DESIGN.md" not in text and "JSON-lines events described in docs/runs-on-disk.md on stdout" in text
    assert "--task {squad_v1,squad_v2,single,pair,swag,regression,multilabel,ner}" in text
    assert "--learning-rate X peak AdamW learning rate; default: 3e-5 for QA, 2e-5 for classification, 2e-5 for multiple_choice" in text
    assert "--max-seq-length N tokens per input window; default 384 for QA, 128 for classification, 128 for multiple_choice" in text
    assert "--eval-every N optimizer steps between dev evaluations; 0 = evaluate only at the start and the end" in text
    assert "--max-steps N optimizer steps to run; 0 = use --epochs instead (default: 0)" in text
    assert "--dev-cap N evaluate on the first N dev examples; 0 = all" in text
    assert ("--train-cap N train on N training examples; 0 = all. Tables: a stratified random N of the rows (each "
            "class in its share; seed: split_seed, else seed)") in text
    assert "--batch-size N examples (QA: windows) per micro-batch (default: 32)" in text


def test_resume_errors(files, tmp_path, capsys):
    from explorer.core.runs.workers import request_stop

    rc, ev = run(["--resume", tmp_path / "nothing"])
    assert rc == 2 and "no config.json" in ev[-1]["error"]
    # stopped early (a STOP file from the start) without checkpoints: resumable in principle, but nothing saved
    (tmp_path / "s").mkdir()
    request_stop(tmp_path / "s")
    rc, ev = run(["--model", files["cls"], "--task", "single", "--train", files["sst"], "--max-steps", 3,
                  "--no-save-checkpoints", "--output-dir", tmp_path, "--run-id", "s"])
    assert rc == EXIT_OK and ev[-1]["event"] == "finished" and ev[-1]["stopped_early"] is True
    capsys.readouterr()
    rc, ev = run(["--resume", tmp_path / "s"])
    assert rc == EXIT_USAGE and "no checkpoint to resume from" in ev[-1]["error"]
    assert capsys.readouterr().err.startswith("error: ") and "no checkpoint to resume from" in ev[-1]["error"]
    # finished for good: refused, events.jsonl untouched
    rc, ev = run(["--model", files["cls"], "--task", "single", "--train", files["sst"], "--max-steps", 1,
                  "--no-save-checkpoints", "--output-dir", tmp_path, "--run-id", "r"])
    assert rc == EXIT_OK
    before = (tmp_path / "r" / "events.jsonl").read_bytes()
    capsys.readouterr()
    rc, ev = run(["--resume", tmp_path / "r"])
    assert rc == 2 and [e["event"] for e in ev] == ["failed"]
    assert ev[-1]["error"].startswith("run r already finished at step 1; nothing to resume")
    assert capsys.readouterr().err.startswith("error: run r already finished at step 1; nothing to resume")
    assert (tmp_path / "r" / "events.jsonl").read_bytes() == before
    rc, ev = run(["--resume", tmp_path / "r", "--epochs", 3])
    assert rc == 2 and "--epochs" in ev[-1]["error"]
    rc, ev = run(["--model", files["cls"], "--task", "single", "--train", files["sst"], "--output-dir", tmp_path,
                  "--run-id", "r"])
    assert rc == 2 and "already holds a run" in ev[-1]["error"]


def test_out_of_memory_is_reported(files, tmp_path, monkeypatch):
    from explorer.core.training.tasks.classification import ClassificationTask

    def boom(self, outputs, batch):
        raise RuntimeError("[enforce fail at alloc_cpu.cpp:117] DefaultCPUAllocator: can't allocate memory: "
                           "you tried to allocate 123456789 bytes")

    monkeypatch.setattr(ClassificationTask, "loss", boom)
    rc, ev = run(["--model", files["cls"], "--task", "single", "--train", files["sst"], "--max-steps", 2,
                  "--batch-size", 8, "--output-dir", tmp_path, "--run-id", "oom"])
    assert rc == EXIT_FAILED
    err = ev[-1]["error"]
    assert err.startswith("out of memory at step 0 (batch_size 8, max_seq_length 128)") and "--batch-size" in err
    assert "Traceback" in ev[-1]["traceback"]


def test_gradient_accumulation_matches_a_larger_batch(files, tmp_path):
    """2 micro-batches of 4 accumulate to the gradient of one batch of 8 (same rows, no dropout; padded
    positions are out of the QA softmax, so padding does not matter): same loss and gradient norm. In fp32:
    "auto" is bf16 on a CPU with AMX, where the two sums differ in the 4th digit (seen: 2.02553 vs 2.02651)."""
    common = ["--model", files["qa"], "--task", "squad_v2", "--train", files["sq2"], "--max-steps", 2,
              "--dropout", 0, "--no-length-grouping", "--learning-rate", 1e-3, "--warmup-ratio", 0,
              "--mixed-precision", "no", "--output-dir", tmp_path]
    rc1, big = run(common + ["--batch-size", 8, "--run-id", "big"])
    rc2, acc = run(common + ["--batch-size", 4, "--gradient-accumulation-steps", 2, "--run-id", "acc"])
    assert rc1 == rc2 == EXIT_OK
    s1 = [e for e in big if e["event"] == "step"]
    s2 = [e for e in acc if e["event"] == "step"]
    assert len(s1) == len(s2) == 2
    assert s2[0]["loss"] == pytest.approx(s1[0]["loss"], rel=1e-5)
    assert s2[0]["grad_norm"] == pytest.approx(s1[0]["grad_norm"], rel=1e-4)
    assert s2[1]["loss"] == pytest.approx(s1[1]["loss"], rel=1e-3)
    started = [e for e in acc if e["event"] == "started"][0]
    assert started["effective_batch_size"] == 8 and started["steps_per_epoch"] == 6   # 11 micro-batches / 2


def test_cli_flags_round_trip_train_config():
    import argparse

    from explorer.core.specs.run_presets import fast_cpu_preset
    from explorer.core.specs.train_config import TrainConfig
    from explorer.worker.train import add_arguments, config_from_args

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    configs = [
        TrainConfig(),
        TrainConfig(model="m", task="pair", train="t.tsv", dev="d.tsv", epochs=2.5, max_steps=7, batch_size=16,
                    learning_rate=5e-5, eval_every=3, dev_cap=10, train_cap=20, mixed_precision="no", seed=1,
                    length_grouping=False, save_checkpoints=False, text_columns=["a", "b"], label_column="y",
                    num_labels=3, watch=[{"question": "q?", "passage": "p, with \"quotes\"."}], run_id="x",
                    output_dir="/tmp/r", max_seq_length=64, warmup_ratio=0.0, trust_remote_code=True,
                    metric_for_best="f1", save_every=5, gradient_accumulation_steps=4, adam_epsilon=1e-6),
        fast_cpu_preset(TrainConfig(task="squad_v1", train="x.json")),
    ]
    for cfg in configs:
        back = config_from_args(parser.parse_args(cfg.to_cli_args()))
        assert back == cfg
    assert parser.parse_args(["--text-columns", "s1,s2"]).text_columns == ["s1", "s2"]


def test_runs_dir_from_environment_and_generated_run_id(files, tmp_path, monkeypatch):
    monkeypatch.setenv("EXPLORER_RUNS_DIR", str(tmp_path / "runs"))
    rc, ev = run(["--model", files["cls"], "--task", "single", "--train", files["sst"], "--max-steps", 1,
                  "--no-save-checkpoints"])
    assert rc == EXIT_OK
    run_id = ev[-1]["run_id"]
    from explorer.core.runs.naming import data_short_name

    # the generated id names model, task and the train file
    assert run_id.endswith(f"-cls-single-{data_short_name(files['sst'])}") and data_short_name(files["sst"])
    assert (tmp_path / "runs" / run_id / "events.jsonl").is_file()
    cfg = json.loads((tmp_path / "runs" / run_id / "config.json").read_text())
    assert cfg["run_id"] == run_id and cfg["output_dir"] == str(tmp_path / "runs")


def test_bf16_autocast_runs_and_auto_resolves(files, tmp_path):
    from explorer.core.training.precision import cpu_has_amx, resolve_mixed_precision

    assert resolve_mixed_precision("auto", "cpu") == ("bf16" if cpu_has_amx() else "no")
    assert resolve_mixed_precision("auto", "mps") == "no" and resolve_mixed_precision("fp16", "cuda") == "fp16"
    rc, ev = run(["--model", files["qa"], "--task", "squad_v2", "--train", files["sq2"], "--dev", files["sq2"],
                  "--dev-cap", 4, "--max-steps", 2, "--batch-size", 8, "--mixed-precision", "bf16",
                  "--no-save-checkpoints", "--output-dir", tmp_path, "--run-id", "bf16"])
    assert rc == EXIT_OK, ev[-1]
    started = [e for e in ev if e["event"] == "started"][0]
    assert started["mixed_precision"] == "bf16"
    assert all(isinstance(e["loss"], float) for e in ev if e["event"] == "step")


def test_reusing_the_id_of_a_run_without_checkpoint_says_there_is_nothing_to_resume(files, tmp_path):
    argv = ["--model", files["cls"], "--task", "single", "--output-dir", tmp_path, "--run-id", "f"]
    rc, ev = run(argv + ["--train", tmp_path / "nope.tsv"])
    assert rc == 2 and ev[-1]["event"] == "failed"
    assert not (tmp_path / "f").exists()          # refused before its first step: no folder left
    (tmp_path / "f").mkdir()                      # a run that started and died before its first save
    (tmp_path / "f" / "events.jsonl").write_text('{"event":"started","run_id":"f","time":1}\n', encoding="utf-8")
    rc, ev = run(argv + ["--train", files["sst"]])
    assert rc == 2 and "left no checkpoint" in ev[-1]["error"] and "--resume" not in ev[-1]["error"]


def test_best_is_a_model_folder_without_the_optimizer_state(tmp_path):
    """Only checkpoints/last keeps training_state.pt (resume needs only that); best shares
    the weights by hard link while they are the same, and keeps them when last moves on."""
    import os

    from helpers import tiny_loaded_model

    from explorer.core.training.checkpoints import (STATE_FILE, checkpoint_bytes, copy_checkpoint,
                                                    load_training_state, save_checkpoint)
    from explorer.core.training.loop import checkpoint_size_note

    loaded = tiny_loaded_model("qa")
    save_checkpoint(tmp_path, loaded.model, loaded.tokenizer, step=1, training_state={"step": 1}, kind="last")
    best = copy_checkpoint(tmp_path, "last", "best", metrics={"f1": 1.0})
    last = tmp_path / "checkpoints" / "last"
    assert (last / STATE_FILE).is_file() and not (best / STATE_FILE).exists()
    weights = "model.safetensors"
    assert os.stat(best / weights).st_ino == os.stat(last / weights).st_ino        # linked, not copied
    before = (best / weights).read_bytes()
    save_checkpoint(tmp_path, loaded.model, loaded.tokenizer, step=2, training_state={"step": 2}, kind="last")
    assert (best / weights).read_bytes() == before and load_training_state(tmp_path)[1]["step"] == 2
    kept = copy_checkpoint(tmp_path, "last", "best", with_training_state=True)
    assert (kept / STATE_FILE).is_file()
    assert checkpoint_bytes(1000) == {"model": 4000, "last": 12000, "best": 4000, "total": 16000}
    assert checkpoint_size_note(22_700_000) == ("checkpoints: about 272 MB in last (model 91 MB + optimizer state, "
                                                "for --resume) and 91 MB in best (model only); 363 MB in all")


def test_a_checkpoint_save_that_fails_on_a_full_disk_names_the_free_space_and_the_size(tmp_path, monkeypatch):
    """torch's zip writer reports a full disk only as "[enforce fail at inline_container.cc] unexpected pos": the
    failed save becomes a disk-full error naming the free space, the checkpoint's size and what to do, and the
    previous checkpoint stays. With room on the disk the same error is left as it is (an internal error)."""
    import collections

    import torch
    from helpers import tiny_loaded_model

    from explorer.core.errors import DiskFullError
    from explorer.core.training import checkpoints
    from explorer.worker.train import describe_error, is_internal_error

    loaded = tiny_loaded_model("qa")
    checkpoints.save_checkpoint(tmp_path, loaded.model, loaded.tokenizer, step=1, training_state={"step": 1})

    def torn_write(*args, **kwargs):
        raise RuntimeError("[enforce fail at inline_container.cc:672] . unexpected pos 4928 vs 4816")

    usage = collections.namedtuple("usage", "total used free")
    monkeypatch.setattr(torch, "save", torn_write)
    monkeypatch.setattr(checkpoints.shutil, "disk_usage", lambda path: usage(10**9, 10**9 - 35_000, 35_000))
    with pytest.raises(DiskFullError) as caught:
        checkpoints.save_checkpoint(tmp_path, loaded.model, loaded.tokenizer, step=2, training_state={"step": 2})
    needed = checkpoints.megabytes(checkpoints.checkpoint_bytes(loaded.model.num_parameters())["last"])
    message = describe_error(caught.value, None, 2)
    assert message == (f"disk full while writing {tmp_path / 'checkpoints'} (checkpoints/last at step 2): 35 KB free "
                       f"on that disk, and the checkpoint needs about {needed}. The previous checkpoint is kept; free "
                       "space on that disk, choose another output folder (--output-dir), or turn off Save checkpoints "
                       "(--no-save-checkpoints)")
    assert not is_internal_error(caught.value)
    assert checkpoints.load_training_state(tmp_path)[1]["step"] == 1
    assert not list((tmp_path / "checkpoints").glob(".tmp-*"))

    monkeypatch.setattr(checkpoints.shutil, "disk_usage", lambda path: usage(10**12, 0, 10**12))
    with pytest.raises(RuntimeError, match="unexpected pos") as other:
        checkpoints.save_checkpoint(tmp_path, loaded.model, loaded.tokenizer, step=3, training_state={"step": 3})
    assert not isinstance(other.value, DiskFullError) and is_internal_error(other.value)


def _capped(train, cap, seed=42, task="single"):
    from explorer.core.specs.train_config import TrainConfig
    from explorer.core.training.tasks import get_task

    data = get_task(task).load(TrainConfig(task=task, train=str(train), train_cap=cap, seed=seed), "train")
    return data.lines, [data.class_names()[y] for y in data.labels] if not data.regression else data.labels


def test_train_cap_keeps_a_seeded_stratified_subset_of_a_label_sorted_table_nested_in_larger_caps(tmp_path):
    """A file of 40 rows of 'a' then 10 of 'b' capped at 10 trains on both classes in their shares (not the first
    10 rows, all 'a'), in the file's order; the same seed keeps the same rows, and the rows of cap 10 lie inside
    those of cap 20."""
    train = write_label_sorted_table(tmp_path / "sorted.tsv")
    lines, labels = _capped(train, 10)
    assert len(lines) == 10 and lines == sorted(lines)
    assert abs(labels.count("b") - 2) <= 1 and labels.count("a") >= 7
    assert _capped(train, 10) == (lines, labels)
    assert set(lines) < set(_capped(train, 20)[0])
    assert _capped(train, 10, seed=7)[0] != lines


def test_train_cap_keeps_a_row_of_every_class_and_a_seeded_random_subset_of_scores(tmp_path):
    """A class of one row in 100 is kept by a cap of 2; scores (regression) are capped to a seeded random subset,
    nested in larger caps."""
    from explorer.core.data.sample import capped_rows

    labels = [0] * 99 + [1]
    assert sorted(labels[i] for i in capped_rows(100, 2, 1, labels)) == [0, 1]
    scores = tmp_path / "scores.tsv"
    scores.write_text("sentence\tlabel\n" + "".join(f"text {i}\t{i / 10}\n" for i in range(30)), encoding="utf-8")
    small, _ = _capped(scores, 5, task="regression")
    assert len(small) == 5 and small != list(range(2, 7)) and _capped(scores, 5, task="regression")[0] == small
    assert set(small) < set(_capped(scores, 12, task="regression")[0])


def test_a_capped_run_on_a_label_sorted_table_trains_on_both_classes(files, tmp_path):
    train = write_label_sorted_table(tmp_path / "sorted.tsv")
    rc, ev = run(["--model", files["cls"], "--task", "single", "--train", train,
                  "--train-cap", 10, "--max-steps", 1, "--no-save-checkpoints", "--output-dir", tmp_path,
                  "--run-id", "capped"])
    assert rc == EXIT_OK, ev[-1]
    started = next(e for e in ev if e["event"] == "started")
    assert started["class_counts"]["a"] > 0 and started["class_counts"]["b"] > 0
    assert any("Train cap: 10 of the 50 training rows, a stratified random subset (seed 42)" in e.get("message", "")
               for e in ev if e["event"] == "log")


def test_training_rows_of_one_class_name_the_class_held_and_the_file_as_the_cause(tmp_path):
    """Integer labels all 0 with Label names 'not depressed,depressed': the message names the one class the rows
    hold, the class the file lacks, and the file as the cause (not 'only 1 class' beside two names)."""
    from explorer.core.data.classification import ClassificationDataError
    from explorer.core.specs.train_config import TrainConfig
    from explorer.core.training.tasks import get_task

    train = write_label_sorted_table(tmp_path / "one.tsv", first=12, second=0, names=("0", "1"))
    config = TrainConfig(task="single", train=str(train), label_names=["not depressed", "depressed"], train_cap=10)
    task = get_task("single")
    with pytest.raises(ClassificationDataError) as err:
        task.check_data(task.load(config, "train"), None, config)
    message = str(err.value)
    assert "the 10 training rows hold only 'not depressed'" in message
    assert "the training file itself holds no row of another class ('depressed' named by Label names)" in message
    assert "only 1 class" not in message
    two = write_label_sorted_table(tmp_path / "two.tsv")
    one_row = TrainConfig(task="single", train=str(two), train_cap=1)
    with pytest.raises(ClassificationDataError, match="Train cap 1 keeps fewer rows than the 2 classes: raise it"):
        task.check_data(task.load(one_row, "train"), None, one_row)


def test_resuming_a_capped_run_whose_dev_rows_lie_outside_the_caps_rows_says_why(tmp_path):
    """A run folder whose dev_split.csv names rows the Train cap does not keep (rows chosen as the file's first
    ones) is refused with the cap as the cause, not only "did the file change?"."""
    from explorer.core.data.classification import ClassificationDataError, load_classification
    from explorer.core.data.split import write_dev_split
    from explorer.core.runs.layout import dev_split_file
    from explorer.core.specs.train_config import TrainConfig
    from explorer.core.training.tasks import get_task

    train = write_label_sorted_table(tmp_path / "sorted.tsv")
    config = TrainConfig(task="single", train=str(train), train_cap=10, seed=42)
    task = get_task("single")
    capped = task.load(config, "train")
    outside = next(k for k in range(50) if k + 2 not in capped.lines)   # a row of the file the cap left out
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    write_dev_split(dev_split_file(run_dir), load_classification(str(train)), [outside])
    with pytest.raises(ClassificationDataError, match="Train cap 10 keeps a stratified random 10 of the file's rows"):
        task.split_dev(capped, config, run_dir)
